/**
 * The Redis player store's key layout (docs/architecture.md, "Player state"; the module header of
 * `api/_lib/player/redis.ts`): after one of every write, the database holds exactly the documented keys,
 * one account's keys in one hash slot and one item's keys in another, and item fields read back as
 * written (no character is the empty field, read as null). What both adapters share is the contract's.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mintUuid } from '../../api/_lib/ledger/ids.js';
import { connectRespRequester, type RespRequester } from '../../api/_lib/stores/resp-requester.js';
import { initialIsland } from '../../api/_lib/island/generate.js';
import { openRedisPlayerStore, PLAYER_KEYS } from '../../api/_lib/player/redis.js';
import { EMPTY_PROGRESS } from '../../api/_lib/player/service.js';
import { ITEM_TRANSITIONS } from '../../api/_lib/player/items.js';
import { ServiceError } from '../../api/_lib/errors.js';
import type { PlayerStore } from '../../api/_lib/player/types.js';
import { RecordingRequester, startRedis, type TestRedis } from '../helpers/redis.js';
import { sampleCharacter } from '../helpers/player.js';

let server: TestRedis;
let raw: RespRequester;
beforeAll(async () => {
  server = await startRedis();
  raw = await connectRespRequester(server.url);
}, 30_000);
afterAll(async () => {
  await raw.close();
  await server.destroy();
});

describe('the Redis player store', () => {
  it('writes exactly the documented keys, one account per hash slot and one item per hash slot', async () => {
    const s = openRedisPlayerStore({ requester: raw }, { retryDelaysMs: [5, 20] });
    expect(s.driver).toBe('redis');
    const a = mintUuid();
    const at = '2026-11-23T10:00:00.000Z';
    await s.island(a, () => ({ state: initialIsland(1), revision: 1, updatedAt: at }));
    const c = sampleCharacter(a, { createdAt: at, updatedAt: at });
    const cid = c.id;
    await s.createCharacter({ character: c, slotsPerEra: 4, clientKey: 'layout-key', fingerprint: 'f' });
    await s.saveProgress(a, cid, {
      expectedRevision: 1,
      progress: EMPTY_PROGRESS,
      idempotencyKey: 'layout-progress',
      fingerprint: 'p',
      at,
      equipment: [],
    });
    await s.learnRecipe(a, 'RECP-1', at);
    await s.linkExternal({ provider: 'platform', externalUserId: 'ext-1', username: 'Ada', accountId: a, linkedAt: at });
    const item = mintUuid();
    await s.mintItem({
      item: {
        studioUuid: item,
        definitionId: 'ITEM-1',
        accountId: a,
        state: 'owned',
        characterId: null,
        seq: 1,
        mintedAt: at,
        updatedAt: at,
      },
      idempotencyKey: 'layout-mint',
      fingerprint: 'm',
    });
    await s.recordItemEvent({
      studioUuid: item,
      kind: 'equipped',
      from: ITEM_TRANSITIONS.equipped.from,
      to: 'equipped',
      accountId: undefined,
      characterId: cid,
      expectedOwner: a,
      idempotencyKey: 'layout-equip',
      fingerprint: 'e',
      at,
    });
    await s.changeBag({ accountId: a, definitionId: 'MATL-1', delta: 3, sourceRef: 'bag-grant:layout', fingerprint: 'g', at });
    const keys = (await raw.request<string[]>({ body: ['keys', '*'] })).result!.sort();
    const acct = (k: string) => `player:{a:${a}}:${k}`;
    expect(keys).toEqual(
      [
        acct('island'),
        acct('chars'),
        acct('order'),
        acct('era-count'),
        acct('keys:character'),
        acct('keys:progress'),
        acct('recipes'),
        acct('items'),
        acct('bag'),
        acct('bag-entries'),
        acct('links'),
        'player:external-links',
        'player:character-owners',
        'item:keys:mint',
        'bag:keys',
        'bag:accounts',
        `item:{i:${item}}`,
        `item:{i:${item}}:events`,
        `item:{i:${item}}:keys`,
      ].sort(),
    );
    const slot = async (k: string) => (await raw.request<number>({ body: ['cluster', 'keyslot', k] })).result;
    const accountSlots = new Set(
      await Promise.all(
        ['island', 'chars', 'order', 'era-count', 'keys:character', 'keys:progress', 'recipes', 'items', 'bag', 'bag-entries', 'links'].map(
          (k) => slot(acct(k)),
        ),
      ),
    );
    expect(accountSlots.size).toBe(1);
    expect(
      new Set(await Promise.all([PLAYER_KEYS.item(item), PLAYER_KEYS.itemEvents(item), PLAYER_KEYS.itemKeys(item)].map(slot))).size,
    ).toBe(1);
    // an item with no character keeps the empty field; it reads back as null, and a character as its id
    expect((await s.itemHistory(item))!.item.characterId).toBe(cid);
    await s.recordItemEvent({
      studioUuid: item,
      kind: 'unequipped',
      from: ITEM_TRANSITIONS.unequipped.from,
      to: 'owned',
      accountId: undefined,
      characterId: null,
      expectedOwner: a,
      idempotencyKey: 'layout-unequip',
      fingerprint: 'u',
      at,
    });
    expect((await raw.request<string>({ body: ['hget', PLAYER_KEYS.item(item), 'characterId'] })).result).toBe('');
    expect((await s.itemHistory(item))!.item.characterId).toBeNull();
    expect((await s.itemHistory(item))!.item).toMatchObject({ definitionId: 'ITEM-1', accountId: a, state: 'owned', seq: 3, mintedAt: at });
    await s.close();
  });
});

describe("the Redis player store's commands", () => {
  const at = '2026-11-23T10:00:00.000Z';
  const character = (accountId: string) => sampleCharacter(accountId, { createdAt: at, updatedAt: at });

  it('reads an existing island with one HMGET; a save for a character it cannot find and an event for a missing item are one script each', async () => {
    const rec = new RecordingRequester(raw);
    const s = openRedisPlayerStore({ requester: rec });
    const a = mintUuid();
    await s.island(a, () => ({ state: initialIsland(2), revision: 1, updatedAt: at }));
    rec.commands = [];
    expect((await s.island(a, () => ({ state: initialIsland(3), revision: 1, updatedAt: at }))).state.seed).toBe(2);
    expect(rec.commands).toEqual(['hmget']);
    rec.commands = [];
    expect(
      await s.saveProgress(a, mintUuid(), {
        expectedRevision: 1,
        progress: EMPTY_PROGRESS,
        idempotencyKey: 'k',
        fingerprint: 'p',
        at,
        equipment: [],
      }),
    ).toEqual({ status: 'missing' });
    expect(rec.commands).toEqual(['evalsha']);
    rec.commands = [];
    expect(
      await s.recordItemEvent({
        studioUuid: mintUuid(),
        kind: 'consumed',
        from: ITEM_TRANSITIONS.consumed.from,
        to: 'consumed',
        accountId: undefined,
        characterId: null,
        expectedOwner: a,
        idempotencyKey: 'k',
        fingerprint: 'c',
        at,
      }),
    ).toEqual({ status: 'missing' });
    expect(rec.commands).toEqual(['evalsha']);
  });

  it('answers 503 naming the operation after its retries, for every method', async () => {
    const rec = new RecordingRequester(raw);
    const s = openRedisPlayerStore({ requester: rec }, { retryDelaysMs: [1] });
    const a = mintUuid();
    const calls: [string, (st: PlayerStore) => Promise<unknown>][] = [
      ['read', (st) => st.island(a, () => ({ state: initialIsland(1), revision: 1, updatedAt: at }))],
      ['script', (st) => st.saveIsland(a, { expectedRevision: 1, state: initialIsland(1), writeId: 'w', at })],
      ['script', (st) => st.createCharacter({ character: character(a), slotsPerEra: 4, clientKey: undefined, fingerprint: 'f' })],
      ['read', (st) => st.characters(a, 'warlords')],
      ['read', (st) => st.character(a, mintUuid())],
      [
        'script',
        (st) =>
          st.saveProgress(a, mintUuid(), {
            expectedRevision: 1,
            progress: EMPTY_PROGRESS,
            idempotencyKey: 'k',
            fingerprint: 'p',
            at,
            equipment: [],
          }),
      ],
      ['script', (st) => st.learnRecipe(a, 'RECP-1', at)],
      ['read', (st) => st.recipes(a)],
      ['script', (st) => st.linkExternal({ provider: 'p', externalUserId: 'e', username: 'u', accountId: a, linkedAt: at })],
      ['read', (st) => st.externalLink('p', 'e')],
      [
        'script',
        (st) =>
          st.mintItem({
            item: {
              studioUuid: mintUuid(),
              definitionId: 'ITEM-1',
              accountId: a,
              state: 'owned',
              characterId: null,
              seq: 1,
              mintedAt: at,
              updatedAt: at,
            },
            idempotencyKey: 'k',
            fingerprint: 'm',
          }),
      ],
      [
        'script',
        (st) =>
          st.recordItemEvent({
            studioUuid: mintUuid(),
            kind: 'consumed',
            from: ITEM_TRANSITIONS.consumed.from,
            to: 'consumed',
            accountId: undefined,
            characterId: null,
            expectedOwner: a,
            idempotencyKey: 'k',
            fingerprint: 'c',
            at,
          }),
      ],
      ['read', (st) => st.itemHistory(mintUuid())],
      ['read', (st) => st.accountItems(a)],
      ['script', (st) => st.changeBag({ accountId: a, definitionId: 'MATL-1', delta: 1, sourceRef: 'bag-grant:k', fingerprint: 'g', at })],
      ['read', (st) => st.bag(a)],
      ['read', (st) => st.bagSnapshot()],
    ];
    for (const [what, run] of calls) {
      rec.paths = [];
      rec.failBefore = 2;
      const e = await run(s).then(
        () => undefined,
        (err: unknown) => err,
      );
      expect(e).toBeInstanceOf(ServiceError);
      expect([(e as ServiceError).code, (e as ServiceError).message, rec.paths.length]).toEqual([
        'UPSTREAM_UNAVAILABLE',
        `The player store cannot be reached (${what}); try again.`,
        2,
      ]);
    }
    rec.failBefore = 0;
  });

  it('answers 503 when the character of a replayed creation key cannot be read', async () => {
    const s = openRedisPlayerStore({ requester: raw }, { retryDelaysMs: [1] });
    const a = mintUuid();
    const c = character(a);
    await s.createCharacter({ character: c, slotsPerEra: 4, clientKey: 'vanish-key', fingerprint: 'f' });
    await raw.request({ body: ['hdel', PLAYER_KEYS.chars(a), `${c.id}:body`] });
    const e = await s.createCharacter({ character: character(a), slotsPerEra: 4, clientKey: 'vanish-key', fingerprint: 'f' }).then(
      () => undefined,
      (err: unknown) => err,
    );
    expect([(e as ServiceError).code, (e as ServiceError).message]).toEqual([
      'UPSTREAM_UNAVAILABLE',
      'The player store cannot be reached; try again.',
    ]);
  });

  it('closes the connection it was given, and only that', async () => {
    let closed = 0;
    await openRedisPlayerStore({ requester: raw, close: () => Promise.resolve(void closed++) }).close();
    expect(closed).toBe(1);
    await expect(openRedisPlayerStore({ requester: raw }).close()).resolves.toBeUndefined();
    expect((await raw.request({ body: ['ping'] })).result).toBe('PONG');
  });
});
