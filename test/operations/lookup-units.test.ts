/**
 * Player look-up (`api/_lib/operations/lookup.ts`) called directly on a SQLite ledger and a SQLite player
 * store in a temporary folder, the player store's characters, items, island, bag and recipes answered by
 * a stand-in: the search rules and their order, the search cursor bound to its query, the account an
 * operator's key names, the summary and the export of every part, the island and the characters with their
 * progress, and the wallet history with who asked.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ServiceConfig } from '../../api/_lib/config.js';
import type { IslandState } from '../../api/_lib/island/generate.js';
import { createAccount, grantCoin } from '../../api/_lib/ledger/service.js';
import { openSqliteLedger } from '../../api/_lib/ledger/sqlite.js';
import type { Account, LedgerStore } from '../../api/_lib/ledger/types.js';
import {
  accountNamed,
  exportDisposition,
  exportPlayer,
  findPlayers,
  playerCharacters,
  playerIsland,
  playerSummary,
  walletHistory,
  type LookupStores,
} from '../../api/_lib/operations/lookup.js';
import { openSqlitePlayerStore } from '../../api/_lib/player/sqlite.js';
import type { BagRecord, Character, Era, ItemEvent, ItemInstance, PlayerStore, Progress } from '../../api/_lib/player/types.js';
import { refusal } from '../helpers/ledger-ops.js';
import { withMethods } from '../helpers/player.js';

const created = () => new Date('2026-11-23T12:00:00.000Z');
const clock = () => new Date('2026-11-27T10:00:00.000Z');

const noExternal = { externalAuth: { kind: 'none' } } as unknown as ServiceConfig;
const steamLogin = { externalAuth: { kind: 'jwks', provider: 'steam' } } as unknown as ServiceConfig;

/** Both stores in one new temporary folder. */
async function openStores(): Promise<{ ledger: LedgerStore; player: PlayerStore }> {
  const dir = mkdtempSync(join(tmpdir(), 'lookup-'));
  return {
    ledger: await openSqliteLedger({ file: join(dir, 'ledger.sqlite') }),
    player: await openSqlitePlayerStore(join(dir, 'player.sqlite')),
  };
}

async function account(ledger: LedgerStore, displayName: string, username?: string): Promise<Account> {
  return (await createAccount(ledger, { displayName, ...(username === undefined ? {} : { username }) }, created)).account;
}

const link = (player: PlayerStore, provider: string, externalUserId: string, a: Account) =>
  player.linkExternal({
    provider,
    externalUserId,
    username: `${provider}-user`,
    accountId: a.accountId,
    linkedAt: '2026-11-24T00:00:00.000Z',
  });

const hits = (r: { players: readonly { account: Account; matched: string }[] }) => r.players.map((p) => [p.account.displayName, p.matched]);

describe('findPlayers', () => {
  it('lists exact matches in rule order, each account once under its first rule, then display-name prefixes', async () => {
    const s = await openStores();
    const byName = await account(s.ledger, 'Steam:42 Ulla', 'steam:42');
    const byPrefixedId = await account(s.ledger, 'Xavier');
    const byBareId = await account(s.ledger, 'Yuri');
    await account(s.ledger, 'steam:42 fan');
    await account(s.ledger, 'Somebody else');
    await link(s.player, 'steam', '42', byPrefixedId);
    await link(s.player, 'steam', 'steam:42', byBareId);
    await link(s.player, 'epic', 'steam:42', byName);
    const r = await findPlayers(s, steamLogin, { q: 'steam:42', limit: 10 });
    expect(hits(r)).toEqual([
      ['Steam:42 Ulla', 'username'],
      ['Xavier', 'externalUserId'],
      ['Yuri', 'externalUserId'],
      ['steam:42 fan', 'displayName'],
    ]);
    expect([r.q, r.cursor, r.hasMore]).toEqual(['steam:42', null, false]);
    // without an external login configured, the bare id is not an external user id
    expect(hits(await findPlayers(s, noExternal, { q: 'steam:42', limit: 10 }))).toEqual([
      ['Steam:42 Ulla', 'username'],
      ['Xavier', 'externalUserId'],
      ['steam:42 fan', 'displayName'],
    ]);
  });

  it('shows an account found by two exact rules once, under the first', async () => {
    const s = await openStores();
    const both = await account(s.ledger, 'Bea', 'epic:7');
    await link(s.player, 'epic', '7', both);
    expect(hits(await findPlayers(s, noExternal, { q: 'epic:7', limit: 5 }))).toEqual([['Bea', 'username']]);
  });

  it('finds an account by its studio id and by its account id, and a query of neither form by neither', async () => {
    const s = await openStores();
    const ada = await account(s.ledger, 'Ada');
    expect(hits(await findPlayers(s, noExternal, { q: ada.studioId, limit: 5 }))).toEqual([['Ada', 'studioId']]);
    expect(hits(await findPlayers(s, noExternal, { q: ada.accountId, limit: 5 }))).toEqual([['Ada', 'accountId']]);
    const asked: unknown[] = [];
    const ledger = withMethods(s.ledger, {
      findAccount: (selector) => {
        asked.push(selector);
        return s.ledger.findAccount(selector);
      },
    });
    expect(hits(await findPlayers({ ledger, player: s.player }, noExternal, { q: 'ada', limit: 5 }))).toEqual([['Ada', 'displayName']]);
    expect(asked).toEqual([]);
  });

  it('does not take a query starting with a colon as a provider-prefixed id', async () => {
    const s = await openStores();
    await account(s.ledger, 'Zoe');
    const asked: [string, string][] = [];
    const player = withMethods(s.player, {
      externalLink: (provider: string, id: string) => {
        asked.push([provider, id]);
        return s.player.externalLink(provider, id);
      },
    });
    await findPlayers({ ledger: s.ledger, player }, noExternal, { q: ':zoe', limit: 5 });
    await findPlayers({ ledger: s.ledger, player }, noExternal, { q: 'zoe', limit: 5 });
    expect(asked).toEqual([]);
    await findPlayers({ ledger: s.ledger, player }, noExternal, { q: 'a:b:c', limit: 5 });
    expect(asked).toEqual([['a', 'b:c']]);
  });

  it('pages name matches with a cursor bound to its query; later pages hold name matches only', async () => {
    const s = await openStores();
    const exact = await account(s.ledger, 'Zed Exact', 'zed');
    for (const name of ['Zed one', 'Zed two', 'Zed three']) await account(s.ledger, name);
    const first = await findPlayers(s, noExternal, { q: 'zed', limit: 2 });
    expect(first.players[0]).toEqual({ account: exact, matched: 'username' });
    // the name page holds Zed Exact and Zed one; Zed Exact shows once, as an exact match
    expect([first.players.length, first.hasMore, typeof first.cursor]).toEqual([2, true, 'string']);
    const text = Buffer.from(first.cursor!, 'base64url').toString('utf8');
    expect(text).toMatch(/^s1\.[0-9a-f]{16}\..+$/);
    const second = await findPlayers(s, noExternal, { q: 'zed', limit: 2, cursor: first.cursor! });
    expect(second.players.every((p) => p.matched === 'displayName')).toBe(true);
    expect([second.players.length, second.hasMore, second.cursor]).toEqual([2, false, null]);
    const names = [...first.players, ...second.players].map((p) => p.account.displayName).sort();
    expect(names).toEqual(['Zed Exact', 'Zed one', 'Zed three', 'Zed two']);
  });

  it('refuses a cursor of another query or not of this form, naming the cursor', async () => {
    const s = await openStores();
    for (const name of ['Zed one', 'Zed two', 'Zed three']) await account(s.ledger, name);
    const first = await findPlayers(s, noExternal, { q: 'zed', limit: 1 });
    const text = Buffer.from(first.cursor!, 'base64url').toString('utf8');
    const [, binding, position] = text.split('.') as [string, string, string];
    const forged = (t: string) => Buffer.from(t).toString('base64url');
    for (const cursor of [
      first.cursor!,
      forged(`x${text}`),
      forged(`s2.${binding}.${position}`),
      forged(`s1.${binding}.`),
      forged(`s1.${binding.toUpperCase()}.${position}`),
      forged(`s1.${binding}0.${position}`),
      // the position must be the store's own: a name key, a NUL and an account id, nothing after
      forged(`s1.${binding}.${position}x`),
      forged(`s1.${binding}.${position.split('\u0000')[0]!}`),
      // and a place among the query's matches: a name key starting with the query's, however cased
      forged(`s1.${binding}.a\u0000${position.split('\u0000')[1]!}`),
      forged(`s1.${binding}.ze\u0000${position.split('\u0000')[1]!}`),
      forged(`s1.${binding}.ZED one\u0000${position.split('\u0000')[1]!}`),
    ]) {
      const q = cursor === first.cursor ? 'zeb' : 'zed';
      const e = await refusal(findPlayers(s, noExternal, { q, limit: 1, cursor }));
      expect([e.code, e.message, e.errors], Buffer.from(cursor, 'base64url').toString('utf8')).toEqual([
        'INVALID_QUERY',
        'The cursor is not one of this search. Start again without a cursor.',
        [{ name: 'cursor', message: 'it was not issued for this q' }],
      ]);
    }
    // a cursor of another query (ze) whose place is among this one's matches: refused by its binding alone
    const other = (await findPlayers(s, noExternal, { q: 'ze', limit: 1 })).cursor!;
    expect(Buffer.from(other, 'base64url').toString('utf8').split('.')[2]).toBe(position);
    for (const [cursor, q] of [
      [other, 'zed'],
      [first.cursor!, 'ze'],
    ] as const) {
      const e = await refusal(findPlayers(s, noExternal, { q, limit: 1, cursor }));
      expect([e.code, e.message, e.errors], Buffer.from(cursor, 'base64url').toString('utf8')).toEqual([
        'INVALID_QUERY',
        'The cursor is not one of this search. Start again without a cursor.',
        [{ name: 'cursor', message: 'it was not issued for this q' }],
      ]);
    }
  });
});

describe('accountNamed', () => {
  it('names an account by studio id or account id, and answers 404 to an unknown one and to any other key without reading it', async () => {
    const s = await openStores();
    const ada = await account(s.ledger, 'Ada');
    expect(await accountNamed(s.ledger, ada.studioId)).toEqual(ada);
    expect(await accountNamed(s.ledger, ada.accountId)).toEqual(ada);
    const asked: unknown[] = [];
    const ledger = withMethods(s.ledger, {
      findAccount: (selector) => {
        asked.push(selector);
        return s.ledger.findAccount(selector);
      },
    });
    for (const key of ['ada', 'STUDIO_NOBODY']) {
      const e = await refusal(accountNamed(ledger, key));
      expect([e.code, e.message]).toEqual(['NOT_FOUND', 'No account has this studioId or accountId.']);
    }
    expect(asked).toEqual([{ studioId: 'STUDIO_NOBODY' }]);
  });
});

const progress = { level: 3 } as unknown as Progress;

function character(a: Account, era: Era, name: string): Character {
  return {
    id: `${era}-${name}`,
    studioCode: 'STDG-AAAA-BBBB',
    accountId: a.accountId,
    era,
    name,
    classId: 'CLASS-A',
    raceId: 'RACE-A',
    factionId: 'FACTION-A',
    createdAt: '2026-11-24T01:00:00.000Z',
    progress,
    progressRevision: 2,
    updatedAt: '2026-11-24T02:00:00.000Z',
  };
}

const item = (a: Account, studioUuid: string): ItemInstance => ({
  studioUuid,
  definitionId: 'ITEM-SWORD',
  accountId: a.accountId,
  state: 'assigned',
  characterId: 'voxel-Vox',
  seq: 2,
  mintedAt: '2026-11-24T03:00:00.000Z',
  updatedAt: '2026-11-24T04:00:00.000Z',
});

const island = {
  seed: 77,
  nodes: [{}, {}, {}],
  animals: [{}],
  terrainZones: [{}, {}],
  campPosition: { x: 1.5, z: -2, y: 9 },
  rtsExport: {},
} as unknown as IslandState;

/** A grant of 6 wood and its reversal, newest first, as the bag's history answers them. */
const bagRecords = (a: Account): BagRecord[] => [
  {
    accountId: a.accountId,
    definitionId: 'MAT-WOOD',
    seq: 2,
    delta: -6,
    quantityAfter: 4,
    sourceRef: 'bag-reversal:fix-1',
    at: '2026-11-24T06:00:00.000Z',
    reverses: 'bag-grant:drop-1',
    note: 'too much',
    actor: 'admin:OPS',
  },
  {
    accountId: a.accountId,
    definitionId: 'MAT-WOOD',
    seq: 1,
    delta: 10,
    quantityAfter: 10,
    sourceRef: 'bag-grant:drop-1',
    at: '2026-11-24T05:00:00.000Z',
    reversedBy: 'bag-reversal:fix-1',
  },
];

/** Jane (granted 70 then 30 coin, linked to steam) with a player store answering her characters, items, island, bag and recipes. */
async function jane(withIsland: boolean) {
  const s = await openStores();
  const a = await account(s.ledger, 'Jane', 'jane');
  await grantCoin(s.ledger, { studioId: a.studioId, amount: 70, reason: 'first', idempotencyKey: 'lookup-g-1' }, created, 'admin:OPS');
  await grantCoin(
    s.ledger,
    { studioId: a.studioId, amount: 30, reason: 'second', idempotencyKey: 'lookup-g-2' },
    created,
    'admin-password',
  );
  await s.player.linkExternal({
    provider: 'steam',
    externalUserId: '9',
    username: 'jj',
    accountId: a.accountId,
    linkedAt: '2026-11-24T00:00:00.000Z',
  });
  const events: ItemEvent[] = [
    { studioUuid: 'item-1', seq: 1, kind: 'minted', accountId: a.accountId, characterId: null, at: '2026-11-24T03:00:00.000Z' },
    { studioUuid: 'item-1', seq: 2, kind: 'assigned', accountId: a.accountId, characterId: 'voxel-Vox', at: '2026-11-24T04:00:00.000Z' },
  ] as ItemEvent[];
  const eras: Era[] = [];
  const player = withMethods(s.player, {
    characters: (id: string, era: Era) => {
      eras.push(era);
      if (id !== a.accountId) return Promise.resolve([]);
      return Promise.resolve(era === 'voxel' ? [character(a, era, 'Vox')] : era === 'armada' ? [character(a, era, 'Arm')] : []);
    },
    accountItems: () => Promise.resolve([item(a, 'item-1'), item(a, 'item-2')]),
    itemsOf: () => Promise.resolve({ items: [item(a, 'item-1'), { ...item(a, 'item-3'), state: 'voided' as const }], next: undefined }),
    itemEvents: (u: string) =>
      Promise.resolve(u === 'item-1' ? { item: item(a, 'item-1'), events: [...events].reverse(), nextBeforeSeq: undefined } : undefined),
    bagEntries: () => Promise.resolve({ entries: bagRecords(a), next: undefined }),
    findIsland: () => Promise.resolve(withIsland ? { state: island, revision: 4, updatedAt: '2026-11-25T00:00:00.000Z' } : undefined),
    bag: () => Promise.resolve([{ definitionId: 'MAT-WOOD', quantity: 4 }]),
    recipes: () => Promise.resolve([{ recipeId: 'RECIPE-1', learnedAt: '2026-11-24T05:00:00.000Z' }]),
  });
  const stores: LookupStores = { ledger: s.ledger, player };
  return { stores, a, events, eras };
}

const view = (name: string, era: Era) => ({
  id: `${era}-${name}`,
  studioCode: 'STDG-AAAA-BBBB',
  era,
  name,
  classId: 'CLASS-A',
  raceId: 'RACE-A',
  factionId: 'FACTION-A',
  createdAt: '2026-11-24T01:00:00.000Z',
  progress_revision: 2,
});

const itemView = (studioUuid: string) => ({
  studioUuid,
  definitionId: 'ITEM-SWORD',
  state: 'assigned',
  characterId: 'voxel-Vox',
  mintedAt: '2026-11-24T03:00:00.000Z',
});

/** An item as the histories list it. */
const listed = (studioUuid: string, state = 'assigned') => ({
  ...itemView(studioUuid),
  state,
  seq: 2,
  updatedAt: '2026-11-24T04:00:00.000Z',
});

/** The bag entries of {@link bagRecords} as operators read them. */
const bagViews = [
  {
    sourceRef: 'bag-reversal:fix-1',
    kind: 'reversal',
    definitionId: 'MAT-WOOD',
    seq: 2,
    delta: -6,
    quantityAfter: 4,
    at: '2026-11-24T06:00:00.000Z',
    reverses: 'bag-grant:drop-1',
    reason: 'too much',
    actor: 'admin:OPS',
  },
  {
    sourceRef: 'bag-grant:drop-1',
    kind: 'grant',
    definitionId: 'MAT-WOOD',
    seq: 1,
    delta: 10,
    quantityAfter: 10,
    at: '2026-11-24T05:00:00.000Z',
    reversedBy: 'bag-reversal:fix-1',
  },
];

describe('playerSummary', () => {
  it('reads every part of the account: links, access, latest entries with who asked, bag, items, characters of every era, island counts, recipes', async () => {
    const { stores, a, eras } = await jane(true);
    const s = await playerSummary(stores, a.studioId, clock);
    expect(eras.sort()).toEqual(['armada', 'nexus', 'voxel', 'warlords']);
    expect({ ...s, wallet: undefined }).toEqual({
      account: a,
      links: [{ provider: 'steam', externalUserId: '9', username: 'jj', linkedAt: '2026-11-24T00:00:00.000Z' }],
      access: { sessionsRevokedAt: null, ban: null },
      wallet: undefined,
      bag: [{ definitionId: 'MAT-WOOD', quantity: 4 }],
      bagHistory: { entries: bagViews, cursor: null, hasMore: false },
      items: [itemView('item-1'), itemView('item-2')],
      itemHistory: { items: [listed('item-1'), listed('item-3', 'voided')], cursor: null, hasMore: false },
      characters: [view('Vox', 'voxel'), view('Arm', 'armada')],
      island: {
        revision: 4,
        updatedAt: '2026-11-25T00:00:00.000Z',
        summary: { seed: 77, nodes: 3, animals: 1, terrainZones: 2, campPosition: { x: 1.5, z: -2 }, exportedFromRts: true },
      },
      recipes: [{ recipeId: 'RECIPE-1', learnedAt: '2026-11-24T05:00:00.000Z' }],
    });
    expect(s.wallet.balance).toBe(100);
    expect(s.wallet.transactions.map((t) => [t.amount, t.note, t.actor])).toEqual([
      [30, 'second', 'admin-password'],
      [70, 'first', 'admin:OPS'],
    ]);
  });

  it('shows the access of a banned account, an island without camp or export, and null for no island', async () => {
    const { stores, a } = await jane(true);
    const plain = { ...island, campPosition: undefined, rtsExport: undefined } as unknown as IslandState;
    const noCamp = withMethods(stores.player, {
      findIsland: () => Promise.resolve({ state: plain, revision: 1, updatedAt: '2026-11-25T00:00:00.000Z' }),
    });
    const s = await playerSummary({ ledger: stores.ledger, player: noCamp }, a.accountId, clock);
    expect(s.island?.summary).toEqual({ seed: 77, nodes: 3, animals: 1, terrainZones: 2, campPosition: null, exportedFromRts: false });
    const none = await jane(false);
    expect((await playerSummary(none.stores, none.a.studioId, clock)).island).toBeNull();
    const e = await refusal(playerSummary(stores, 'STUDIO_NOBODY', clock));
    expect([e.code, e.message]).toEqual(['NOT_FOUND', 'No account has this studioId or accountId.']);
  });

  it('answers whether a ban is active at the time of the clock', async () => {
    const { stores, a } = await jane(false);
    await stores.ledger.changeAccess({
      accountId: a.accountId,
      key: 'ban-1',
      fingerprint: 'f',
      change: { kind: 'ban', at: 1764115200, ban: { reason: 'spam', at: '2026-11-26T00:00:00.000Z', until: '2026-11-28T00:00:00.000Z' } },
    });
    const during = await playerSummary(stores, a.studioId, clock);
    const after = await playerSummary(stores, a.studioId, () => new Date('2026-11-29T00:00:00.000Z'));
    expect([during.access.ban?.active, after.access.ban?.active]).toEqual([true, false]);
  });
});

describe('walletHistory', () => {
  it('answers the account and a page of its entries with who asked, and its cursor', async () => {
    const { stores, a } = await jane(false);
    const first = await walletHistory(stores.ledger, a.studioId, { limit: 1 });
    expect(first.account).toEqual(a);
    expect([first.balance, first.hasMore, first.transactions.map((t) => [t.amount, t.actor])]).toEqual([
      100,
      true,
      [[30, 'admin-password']],
    ]);
    const next = await walletHistory(stores.ledger, a.accountId, { limit: 1, cursor: first.cursor! });
    expect([next.cursor, next.transactions.map((t) => t.actor)]).toEqual([null, ['admin:OPS']]);
    const e = await refusal(walletHistory(stores.ledger, 'nobody', { limit: 1 }));
    expect(e.code).toBe('NOT_FOUND');
  });
});

describe('exportPlayer', () => {
  it('names the download after the studio id', () => {
    expect(exportDisposition('STUDIO_AB12')).toBe('attachment; filename="export-STUDIO_AB12.json"');
  });

  it('holds every part in full: all wallet entries read page by page, each item with its history, each character with its progress, the island state', async () => {
    const { stores, a, events } = await jane(true);
    await grantCoin(stores.ledger, { studioId: a.studioId, amount: 5, reason: 'third', idempotencyKey: 'lookup-g-3' }, created);
    const limits: number[] = [];
    const ledger = withMethods(stores.ledger, {
      postings: (id, options) => {
        limits.push(options.limit);
        return stores.ledger.postings(id, { ...options, limit: Math.min(options.limit, 2) });
      },
    });
    const out = await exportPlayer({ ledger, player: stores.player }, a, clock);
    // the summary's page, the export's first page, then the newest posting and the second page (walletPage)
    expect(limits).toEqual([20, 1000, 1, 1000]);
    expect(out.exportedAt).toBe('2026-11-27T10:00:00.000Z');
    expect(out.wallet.balance).toBe(105);
    expect(out.wallet.entries.map((t) => [t.amount, t.note, t.actor])).toEqual([
      [5, 'third', ''],
      [30, 'second', 'admin-password'],
      [70, 'first', 'admin:OPS'],
    ]);
    expect({ ...out, wallet: undefined, exportedAt: undefined }).toEqual({
      exportedAt: undefined,
      account: a,
      links: [{ provider: 'steam', externalUserId: '9', username: 'jj', linkedAt: '2026-11-24T00:00:00.000Z' }],
      access: { sessionsRevokedAt: null, ban: null },
      wallet: undefined,
      bag: [{ definitionId: 'MAT-WOOD', quantity: 4 }],
      bagEntries: bagViews,
      // every item of the account (a voided one too), each with its events oldest first
      items: [
        { ...listed('item-1'), events },
        { ...listed('item-3', 'voided'), events: [] },
      ],
      characters: [
        { ...view('Vox', 'voxel'), progress },
        { ...view('Arm', 'armada'), progress },
      ],
      island: { revision: 4, updatedAt: '2026-11-25T00:00:00.000Z', state: island },
      recipes: [{ recipeId: 'RECIPE-1', learnedAt: '2026-11-24T05:00:00.000Z' }],
    });
  });

  it('reads every bag entry, every item and each item’s events page by page, with the links and notes of corrections', async () => {
    const s = await openStores();
    const a = await account(s.ledger, 'Kim', 'kim');
    const at = (n: number) => `2026-11-24T0${n}:00:00.000Z`;
    for (const n of [1, 2, 3])
      await s.player.changeBag({
        accountId: a.accountId,
        definitionId: 'MATL-1',
        delta: n,
        sourceRef: `bag-grant:k-${n}`,
        fingerprint: 'f',
        at: at(n),
      });
    const note = { note: 'double drop', actor: 'admin:OPS' };
    await s.player.reverseBag({
      accountId: a.accountId,
      reverses: 'bag-grant:k-2',
      sourceRef: 'bag-reversal:r-1',
      fingerprint: 'r',
      note,
      at: at(4),
    });
    const minted = (n: number): ItemInstance => ({
      ...item(a, `00000000-0000-4000-8000-00000000000${n}`),
      state: 'owned',
      characterId: null,
      seq: 1,
      mintedAt: at(n),
      updatedAt: at(n),
    });
    for (const n of [1, 2]) await s.player.mintItem({ item: minted(n), idempotencyKey: `m-${n}`, fingerprint: 'f' });
    await s.player.recordItemEvent({
      studioUuid: minted(1).studioUuid,
      kind: 'voided',
      from: ['owned'],
      to: 'voided',
      accountId: undefined,
      characterId: null,
      expectedOwner: a.accountId,
      idempotencyKey: 'v-1',
      fingerprint: 'v',
      at: at(5),
      note,
    });
    const calls: string[] = [];
    const player = withMethods(s.player, {
      bagEntries: (id, o) => (calls.push(`bag ${o.limit}`), s.player.bagEntries(id, { ...o, limit: 1 })),
      itemsOf: (id, o) => (calls.push(`items ${o.limit}`), s.player.itemsOf(id, { ...o, limit: 1 })),
      itemEvents: (u, o) => (calls.push(`events ${o.limit}`), s.player.itemEvents(u, { ...o, limit: 1 })),
    });
    const out = await exportPlayer({ ledger: s.ledger, player }, a, clock);
    expect(out.bagEntries.map((e) => [e.sourceRef, e.reverses ?? e.reversedBy ?? null, e.reason ?? null])).toEqual([
      ['bag-reversal:r-1', 'bag-grant:k-2', 'double drop'],
      ['bag-grant:k-3', null, null],
      ['bag-grant:k-2', 'bag-reversal:r-1', null],
      ['bag-grant:k-1', null, null],
    ]);
    expect(
      out.items.map((i) => [i.studioUuid.slice(-1), i.state, i.events.map((e) => [e.kind, e.reason ?? null, e.actor ?? null])]),
    ).toEqual([
      ['2', 'owned', [['minted', null, null]]],
      [
        '1',
        'voided',
        [
          ['minted', null, null],
          ['voided', 'double drop', 'admin:OPS'],
        ],
      ],
    ]);
    const own = await exportPlayer({ ledger: s.ledger, player: s.player }, a, clock, 'player');
    expect(own.bagEntries.map((e) => [e.reason ?? null, 'actor' in e])).toEqual([
      ['double drop', false],
      [null, false],
      [null, false],
      [null, false],
    ]);
    expect(own.items[1]!.events.map((e) => [e.kind, e.reason ?? null, 'actor' in e])).toEqual([
      ['minted', null, false],
      ['voided', 'double drop', false],
    ]);
    // the summary's first pages, then every page of each part (the bag's one more than its four entries)
    expect(calls.filter((c) => c.startsWith('bag'))).toEqual(['bag 20', ...Array<string>(4).fill('bag 1000')]);
    expect(calls.filter((c) => c.startsWith('items'))).toEqual(['items 20', 'items 1000', 'items 1000']);
    expect(calls.filter((c) => c.startsWith('events'))).toHaveLength(3);
  });

  it("holds no event of an item from before it was the account's, and for the player neither who asked nor why it was banned", async () => {
    const { stores, a } = await jane(false);
    const other = '0b0e4f0e-0000-4000-8000-00000000000b';
    const history: ItemEvent[] = [
      { studioUuid: 'item-1', seq: 1, kind: 'minted', accountId: other, characterId: null, at: '2026-11-24T01:00:00.000Z' },
      { studioUuid: 'item-1', seq: 2, kind: 'assigned', accountId: other, characterId: 'their-char', at: '2026-11-24T02:00:00.000Z' },
      { studioUuid: 'item-1', seq: 3, kind: 'transferred', accountId: a.accountId, characterId: null, at: '2026-11-24T03:00:00.000Z' },
      { studioUuid: 'item-1', seq: 4, kind: 'transferred', accountId: other, characterId: null, at: '2026-11-24T04:00:00.000Z' },
      { studioUuid: 'item-1', seq: 5, kind: 'transferred', accountId: a.accountId, characterId: null, at: '2026-11-24T05:00:00.000Z' },
    ] as ItemEvent[];
    const theirs = {
      ...item(a, 'item-1'),
      state: 'owned',
      characterId: null,
      seq: 5,
      mintedAt: '2026-11-24T01:00:00.000Z',
    } as ItemInstance;
    const player = withMethods(stores.player, {
      itemEvents: (u, o) =>
        u === 'item-1'
          ? Promise.resolve({ item: theirs, events: [...history].reverse(), nextBeforeSeq: undefined })
          : stores.player.itemEvents(u, o),
    });
    await stores.ledger.changeAccess({
      accountId: a.accountId,
      change: { kind: 'ban', at: 1, ban: { reason: 'reported by B', at: '2026-11-26T00:00:00.000Z', until: '2026-11-26T12:00:00.000Z' } },
      key: 'lookup-ban-1',
      fingerprint: 'f',
    });
    const ops = await exportPlayer({ ledger: stores.ledger, player }, a, clock);
    const own = await exportPlayer({ ledger: stores.ledger, player }, a, clock, 'player');
    for (const out of [ops, own]) expect(out.items.map((i) => i.events.map((e) => e.seq))).toEqual([[3, 5], []]);
    expect(ops.access.ban).toEqual({
      reason: 'reported by B',
      at: '2026-11-26T00:00:00.000Z',
      until: '2026-11-26T12:00:00.000Z',
      active: false,
    });
    expect(own.access).toEqual({
      sessionsRevokedAt: ops.access.sessionsRevokedAt,
      ban: { at: '2026-11-26T00:00:00.000Z', until: '2026-11-26T12:00:00.000Z', active: false },
    });
    expect(ops.wallet.entries.map((t) => t.actor)).toEqual(['admin-password', 'admin:OPS']);
    expect(own.wallet.entries.map((t) => 'actor' in t)).toEqual([false, false]);
    expect(own.bagEntries.map((e) => 'actor' in e)).toEqual(ops.bagEntries.map(() => false));
    expect(ops.bagEntries.filter((e) => 'actor' in e)).not.toEqual([]);
    expect({ ...own, access: null, wallet: own.wallet.balance, bagEntries: own.bagEntries.length }).toEqual({
      ...ops,
      access: null,
      wallet: ops.wallet.balance,
      bagEntries: ops.bagEntries.length,
    });
  });

  it('holds a null island when the player never opened it, and a null ban for an account never banned', async () => {
    const { stores, a } = await jane(false);
    expect((await exportPlayer(stores, a, clock)).island).toBeNull();
    expect((await exportPlayer(stores, a, clock, 'player')).access).toEqual({ sessionsRevokedAt: null, ban: null });
  });
});

describe('playerIsland', () => {
  it('answers the account and its island whole, by either id, and null when it was never opened', async () => {
    const { stores, a } = await jane(true);
    const ref = { accountId: a.accountId, studioId: a.studioId, displayName: 'Jane' };
    const r = await playerIsland(stores, a.accountId);
    expect(r).toEqual({ account: ref, island: { revision: 4, updatedAt: '2026-11-25T00:00:00.000Z', state: island } });
    expect(r.island?.state).toBe(island);
    const none = await jane(false);
    expect(await playerIsland(none.stores, none.a.studioId)).toEqual({
      account: { accountId: none.a.accountId, studioId: none.a.studioId, displayName: 'Jane' },
      island: null,
    });
    const e = await refusal(playerIsland(stores, 'STUDIO_NOBODY'));
    expect([e.code, e.message]).toEqual(['NOT_FOUND', 'No account has this studioId or accountId.']);
  });
});

describe('playerCharacters', () => {
  it('answers every character of every era with its progress and last save, in the order of the eras', async () => {
    const { stores, a, eras } = await jane(false);
    const r = await playerCharacters(stores, a.studioId);
    expect(eras.sort()).toEqual(['armada', 'nexus', 'voxel', 'warlords']);
    expect(r).toEqual({
      account: { accountId: a.accountId, studioId: a.studioId, displayName: 'Jane' },
      characters: [
        { character: view('Vox', 'voxel'), progress, updatedAt: '2026-11-24T02:00:00.000Z' },
        { character: view('Arm', 'armada'), progress, updatedAt: '2026-11-24T02:00:00.000Z' },
      ],
    });
    const e = await refusal(playerCharacters(stores, 'ada'));
    expect(e.code).toBe('NOT_FOUND');
  });
});
