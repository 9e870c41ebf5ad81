/**
 * Player look-up through the routes, on both stores (docs/architecture.md, "Player look-up"): the search
 * finds an account by each exact rule and by display-name prefix with cursor paging (no account twice, a
 * cursor bound to its query), the summary reads every part of an account without creating anything, the
 * wallet history says who asked for each entry, and the support role reads while a player cannot.
 */
import { expect, it } from 'vitest';
import { playerStore } from '../../api/_lib/player/store.js';
import {
  ADMIN_PASSWORD,
  adminAuth,
  admin,
  call,
  HERO,
  MATERIAL,
  mintFor,
  newCharacter,
  newPlayer,
  onEachStore,
  player,
  serverAuth,
  tokenFor,
  type Answer,
} from '../adversarial/helpers.js';

const password = { 'X-Admin-Password': ADMIN_PASSWORD };
const search = async (q: string, extra = '') =>
  call(admin, 'GET', `/api/admin/players?q=${encodeURIComponent(q)}${extra}`, { headers: password });
const found = (a: Answer) =>
  (a.body.players as { account: { studioId: string }; matched: string }[]).map((p) => [p.account.studioId, p.matched]);

onEachStore('player look-up', (store) => {
  it('finds an account by studio id, account id, username, external user id and display-name prefix, exact matches first', async () => {
    const config = await store.fresh();
    const ada = await newPlayer(config, 'Ada Lovelace');
    const adb = await newPlayer(config, 'adalbert');
    const bob = await newPlayer(config, 'Bob');
    const named = await call(admin, 'POST', '/api/admin/accounts', {
      body: { displayName: 'Cleo', username: 'ada' },
      headers: await adminAuth(config),
    });
    const cleo = named.body.account as { studioId: string; accountId: string };
    await (
      await playerStore()
    ).linkExternal({
      provider: 'steam',
      externalUserId: '7656119',
      username: 'bobby',
      accountId: bob.accountId,
      linkedAt: '2026-11-28T00:00:00.000Z',
    });
    expect(found(await search(ada.studioId))).toEqual([[ada.studioId, 'studioId']]);
    expect(found(await search(bob.accountId.toUpperCase()))).toEqual([[bob.studioId, 'accountId']]);
    expect(found(await search('steam:7656119'))).toEqual([[bob.studioId, 'externalUserId']]);
    // "ada" is Cleo's username (exact, first), then the names that start with it, case-insensitively
    const r = await search('ada');
    expect(r.status).toBe(200);
    expect(found(r)).toEqual([
      [cleo.studioId, 'username'],
      [ada.studioId, 'displayName'],
      [adb.studioId, 'displayName'],
    ]);
    expect([r.body.cursor, r.body.hasMore]).toEqual([null, false]);
    expect(found(await search('ADA'))).toEqual([
      [ada.studioId, 'displayName'],
      [adb.studioId, 'displayName'],
    ]);
    expect(found(await search('nobody'))).toEqual([]);
    const blank = await search('  ');
    expect([blank.status, blank.body.code]).toEqual([400, 'INVALID_QUERY']);
  });

  it('pages name matches with a cursor bound to its query: every account once, none missing', async () => {
    const config = await store.fresh();
    const made: string[] = [];
    for (let i = 0; i < 7; i++) made.push((await newPlayer(config, `Zed ${i % 3}`)).studioId);
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const r: Answer = await search('zed', `&limit=3${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      expect(r.status).toBe(200);
      expect((r.body.players as unknown[]).length).toBeLessThanOrEqual(3);
      seen.push(...found(r).map(([id]) => id!));
      cursor = r.body.cursor as string | null;
      pages++;
    } while (cursor !== null);
    expect(pages).toBe(3);
    expect(seen.sort()).toEqual(made.sort());
    const first = await search('zed', '&limit=3');
    const other = await search('zeb', `&cursor=${encodeURIComponent(first.body.cursor as string)}`);
    expect([other.status, other.body.code]).toEqual([400, 'INVALID_QUERY']);
    // a cursor made by hand with the right binding but a position the store never issued is refused too
    const binding = Buffer.from(first.body.cursor as string, 'base64url')
      .toString('utf8')
      .split('.')[1]!;
    for (const position of ['zed', 'zed\u0000not-a-uuid', '\u0000\u0000', '']) {
      const forged = Buffer.from(`s1.${binding}.${position}`).toString('base64url');
      const r = await search('zed', `&cursor=${forged}`);
      expect([r.status, r.body.code], JSON.stringify(position)).toEqual([400, 'INVALID_QUERY']);
    }
  });

  it('answers what a support screen needs in one read, creating nothing, and the wallet history with who asked', async () => {
    const config = await store.fresh();
    const p = await newPlayer(config, 'Suzy');
    const auth = await adminAuth(config);
    const server = await serverAuth(config);
    const grant = await call(admin, 'POST', '/api/admin/grant-coin', {
      body: { studioId: p.studioId, amount: 5000, reason: 'outage', idempotencyKey: 'lookup-grant-1' },
      headers: auth,
    });
    await call(admin, 'POST', '/api/admin/reversals', {
      body: { entryId: grant.body.entryId, reason: 'too much', idempotencyKey: 'lookup-rev-01' },
      headers: password,
    });
    const item = await mintFor(server, p.studioId, 'lookup-mint-1');
    await call(player, 'POST', '/api/inventory/grant', {
      body: { studioId: p.studioId, definitionId: MATERIAL, quantity: 4, idempotencyKey: 'lookup-bag-01' },
      headers: server,
    });
    const character = await newCharacter(p.auth);
    const summary = await call(admin, 'GET', `/api/admin/players/${p.studioId}`, { headers: password });
    expect(summary.status).toBe(200);
    type Row = Record<string, unknown>;
    const b = summary.body as {
      account: Row;
      access: unknown;
      wallet: { balance: number; transactions: Row[] };
      bag: unknown;
      items: Row[];
      characters: Row[];
      island: unknown;
      recipes: unknown;
      links: unknown;
    };
    expect(b.account.studioId).toBe(p.studioId);
    expect(b.access).toEqual({ sessionsRevokedAt: null, ban: null });
    expect(b.wallet.balance).toBe(0);
    expect(b.wallet.transactions.map((t) => [t.amount, t.actor])).toEqual([
      [-5000, 'admin-password'],
      [5000, 'admin:STUDIO_OPERATOR'],
    ]);
    expect(b.bag).toEqual([{ definitionId: MATERIAL, quantity: 4 }]);
    expect(b.items.map((i) => [i.studioUuid, i.state])).toEqual([[item, 'owned']]);
    expect(b.characters.map((c) => [c.id, c.name, c.progress_revision])).toEqual([[character, HERO.name, 1]]);
    expect([b.island, b.recipes, b.links]).toEqual([null, [], []]);
    // the look-up created no island: the player's own first read does
    expect(await (await playerStore()).findIsland(p.accountId)).toBeUndefined();
    expect((await call(player, 'GET', '/api/island/state', { headers: p.auth })).status).toBe(200);
    const again = await call(admin, 'GET', `/api/admin/players/${p.accountId}`, { headers: password });
    expect(again.body.island).toMatchObject({ revision: 1, summary: { campPosition: expect.anything() as unknown } });
    const history = await call(admin, 'GET', `/api/admin/players/${p.studioId}/wallet?limit=1`, { headers: password });
    const entries = (a: Answer) => a.body.transactions as Record<string, unknown>[];
    expect(entries(history).map((t) => t.actor)).toEqual(['admin-password']);
    const next = await call(admin, 'GET', `/api/admin/players/${p.studioId}/wallet?limit=1&cursor=${history.body.cursor as string}`, {
      headers: password,
    });
    expect([entries(next)[0]!.reversedBy, next.body.hasMore]).toEqual([entries(history)[0]!.entryId, false]);
    const missing = await call(admin, 'GET', '/api/admin/players/STUDIO_0000000000000000', { headers: password });
    expect(missing.status).toBe(404);
  });

  it('exports everything held about an account, the same to its operator and to its player but who asked for each entry', async () => {
    const config = await store.fresh();
    const p = await newPlayer(config, 'Ximena');
    const server = await serverAuth(config);
    const grants: string[] = [];
    for (let i = 0; i < 3; i++) {
      const g = await call(admin, 'POST', '/api/admin/grant-coin', {
        body: { studioId: p.studioId, amount: 10 + i, reason: `gift ${i}`, idempotencyKey: `export-grant-${i}` },
        headers: password,
      });
      grants.push(g.body.entryId as string);
    }
    const item = await mintFor(server, p.studioId, 'export-mint-01');
    const character = await newCharacter(p.auth);
    await call(player, 'GET', '/api/island/state', { headers: p.auth });
    const ops = await call(admin, 'GET', `/api/admin/players/${p.studioId}/export`, { headers: password });
    const own = await call(player, 'GET', '/api/account/export', { headers: p.auth });
    expect([ops.status, own.status]).toEqual([200, 200]);
    expect(ops.headers.get('content-disposition')).toBe(`attachment; filename="export-${p.studioId}.json"`);
    const strip = (a: Answer) => {
      const wallet = a.body.wallet as { balance: number; entries: Record<string, unknown>[] };
      return { ...a.body, exportedAt: null, wallet: { ...wallet, entries: wallet.entries.map(({ actor: _actor, ...rest }) => rest) } };
    };
    expect(strip(own)).toEqual(strip(ops));
    // who asked is an operator's to read (docs/architecture.md, "Reversals")
    const actors = (a: Answer) => (a.body.wallet as { entries: Record<string, unknown>[] }).entries.map((t) => t.actor);
    expect([actors(ops), actors(own)]).toEqual([
      ['admin-password', 'admin-password', 'admin-password'],
      [undefined, undefined, undefined],
    ]);
    const e = ops.body as {
      wallet: { balance: number; entries: Record<string, unknown>[] };
      items: { studioUuid: string; events: { kind: string }[] }[];
      characters: { id: string; progress: Record<string, unknown> }[];
      island: { revision: number; state: { seed: number } } | null;
    };
    expect(e.wallet.balance).toBe(33);
    expect(e.wallet.entries.map((t) => [t.entryId, t.note])).toEqual([...grants].reverse().map((id, n) => [id, `gift ${2 - n}`]));
    expect(e.items.map((i) => [i.studioUuid, i.events.map((x) => x.kind)])).toEqual([[item, ['minted']]]);
    expect(e.characters.map((c) => [c.id, Object.keys(c.progress).sort()])).toEqual([
      [character, ['attributes', 'equipment_on_body', 'profession_levels', 'skill_loadouts', 'weapon_mastery']],
    ]);
    expect(e.island?.revision).toBe(1);
  });

  it('lets the support role read and refuses a player token', async () => {
    const config = await store.fresh();
    const p = await newPlayer(config, 'Tess');
    const support = { Authorization: `Bearer ${await tokenFor(config, 'STUDIO_SUPPORT', 'support')}` };
    for (const path of [
      '/api/admin/players?q=tess',
      `/api/admin/players/${p.studioId}`,
      `/api/admin/players/${p.studioId}/wallet`,
      `/api/admin/players/${p.studioId}/export`,
    ]) {
      expect((await call(admin, 'GET', path, { headers: support })).status, path).toBe(200);
      expect((await call(admin, 'GET', path, { headers: p.auth })).status, path).toBe(403);
    }
  });
});
