/**
 * The Redis player store's key layout (docs/architecture.md, "Player state"; the module header of
 * `api/_lib/player/redis.ts`): after one of every write, the database holds exactly the documented keys,
 * one account's keys in one hash slot and one item's keys in another, and item fields read back as
 * written (no character is the empty field, read as null). What both adapters share is the contract's.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mintUuid } from '../../api/_lib/ledger/ids.js';
import { connectRespRequester, type RespRequester } from '../../api/_lib/ledger/resp-requester.js';
import { initialIsland } from '../../api/_lib/island/generate.js';
import { openRedisPlayerStore, PLAYER_KEYS } from '../../api/_lib/player/redis.js';
import { EMPTY_PROGRESS, studioCodeOf } from '../../api/_lib/player/service.js';
import { ITEM_TRANSITIONS } from '../../api/_lib/player/items.js';
import { startRedis, type TestRedis } from '../helpers/redis.js';

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
    const cid = mintUuid();
    const c = { id: cid, studioCode: studioCodeOf(cid), accountId: a, era: 'warlords' as const, name: 'Ada', classId: 'warrior', raceId: 'human', factionId: 'crusade', createdAt: at, progress: EMPTY_PROGRESS, progressRevision: 1, updatedAt: at };
    await s.createCharacter({ character: c, slotsPerEra: 4, clientKey: 'layout-key', fingerprint: 'f' });
    await s.saveProgress(a, cid, { expectedRevision: 1, progress: EMPTY_PROGRESS, idempotencyKey: 'layout-progress', fingerprint: 'p', at });
    await s.learnRecipe(a, 'RECP-1', at);
    await s.linkExternal({ provider: 'platform', externalUserId: 'ext-1', username: 'Ada', accountId: a, linkedAt: at });
    const item = mintUuid();
    await s.mintItem({ item: { studioUuid: item, definitionId: 'ITEM-1', accountId: a, state: 'owned', characterId: null, seq: 1, mintedAt: at, updatedAt: at }, idempotencyKey: 'layout-mint', fingerprint: 'm' });
    await s.recordItemEvent({ studioUuid: item, kind: 'equipped', from: ITEM_TRANSITIONS.equipped.from, to: 'equipped', accountId: undefined, characterId: cid, idempotencyKey: 'layout-equip', fingerprint: 'e', at });
    await s.changeBag({ accountId: a, definitionId: 'MATL-1', delta: 3, sourceRef: 'bag-grant:layout', fingerprint: 'g', at });
    const keys = (await raw.request<string[]>({ body: ['keys', '*'] })).result!.sort();
    const acct = (k: string) => `player:{a:${a}}:${k}`;
    expect(keys).toEqual(
      [
        acct('island'),
        acct('chars'),
        acct('order'),
        acct('era-count'),
        acct('char-keys'),
        acct('progress-keys'),
        acct('recipes'),
        acct('items'),
        acct('bag'),
        acct('bag-entries'),
        'player:external-links',
        'item:mint-keys',
        'bag:refs',
        'bag:accounts',
        `item:{i:${item}}`,
        `item:{i:${item}}:events`,
        `item:{i:${item}}:keys`,
      ].sort(),
    );
    const slot = async (k: string) => (await raw.request<number>({ body: ['cluster', 'keyslot', k] })).result;
    const accountSlots = new Set(await Promise.all(['island', 'chars', 'order', 'era-count', 'char-keys', 'progress-keys', 'recipes', 'items', 'bag', 'bag-entries'].map((k) => slot(acct(k)))));
    expect(accountSlots.size).toBe(1);
    expect(new Set(await Promise.all([PLAYER_KEYS.item(item), PLAYER_KEYS.itemEvents(item), PLAYER_KEYS.itemKeys(item)].map(slot))).size).toBe(1);
    // an item with no character keeps the empty field; it reads back as null, and a character as its id
    expect((await s.itemHistory(item))!.item.characterId).toBe(cid);
    await s.recordItemEvent({ studioUuid: item, kind: 'unequipped', from: ITEM_TRANSITIONS.unequipped.from, to: 'owned', accountId: undefined, characterId: null, idempotencyKey: 'layout-unequip', fingerprint: 'u', at });
    expect((await raw.request<string>({ body: ['hget', PLAYER_KEYS.item(item), 'characterId'] })).result).toBe('');
    expect((await s.itemHistory(item))!.item.characterId).toBeNull();
    expect((await s.itemHistory(item))!.item).toMatchObject({ definitionId: 'ITEM-1', accountId: a, state: 'owned', seq: 3, mintedAt: at });
    await s.close();
  });
});
