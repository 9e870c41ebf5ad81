/**
 * The player store contract (spec 1.8, 2.6, 2.8, 2.9, 4.8; docs/architecture.md, "Player state"), a suite
 * every player-store adapter's test file runs with its own harness (`sqlite.contract.test.ts`,
 * `redis.contract.test.ts`, `redis-rest.contract.test.ts`). The island is
 * created once (also under concurrent first reads) and saved only over the revision it was read at; a
 * save run twice (a retry after a lost answer) applies once; characters stay within their era's slots
 * under concurrency, replay their client key and refuse its reuse; progress saves once per key, a replay
 * answering the character as it stands with the revision that save made; recipes are learned once;
 * unique items and bag quantities change once per key; everything survives a restart.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mintUuid } from '../../api/_lib/ledger/ids.js';
import { initialIsland } from '../../api/_lib/island/generate.js';
import { EMPTY_PROGRESS } from '../../api/_lib/player/service.js';
import type { IslandDoc, ItemEventRequest, ItemInstance, PlayerStore } from '../../api/_lib/player/types.js';
import { ITEM_TRANSITIONS } from '../../api/_lib/player/items.js';
import { checkBagInvariants } from '../../api/_lib/player/bag.js';
import { createRng } from '../../api/_lib/util/prng.js';
import { sampleCharacter, type PlayerHarness } from '../helpers/player.js';

const doc = (seed: number, revision = 1): IslandDoc => ({ state: initialIsland(seed), revision, updatedAt: '2026-11-23T10:00:00.000Z' });

/** A unique item of `accountId` as minted now. */
const instance = (accountId: string, definitionId = 'ITEM-1'): ItemInstance => ({
  studioUuid: mintUuid(),
  definitionId,
  accountId,
  state: 'owned',
  characterId: null,
  seq: 1,
  mintedAt: '2026-11-23T10:00:00.000Z',
  updatedAt: '2026-11-23T10:00:00.000Z',
});

/** A new character of `accountId` (`sampleCharacter`). */
const character = sampleCharacter;

/**
 * Run the player store contract against the adapter `harness` makes.
 * @param harness a new harness (its backend started in the suite's `beforeAll`).
 */
export function playerContract(harness: () => PlayerHarness): void {
  const h = harness();
  describe(`player store contract: ${h.name}`, () => {
    beforeAll(() => h.setup(), 30_000);
    afterAll(() => h.teardown());
    let s: PlayerStore;
    const fresh = async () => (s = await h.fresh());

    describe('island', () => {
      it('creates the island once, even under concurrent first reads, and answers it after', async () => {
        await fresh();
        const a = mintUuid();
        let built = 0;
        const init = (seed: number) => () => {
          built++;
          return doc(seed);
        };
        const first = await Promise.all(Array.from({ length: 10 }, (_, i) => s.island(a, init(i + 1))));
        const seeds = new Set(first.map((d) => d.state.seed));
        expect(seeds.size).toBe(1);
        expect(first.every((d) => d.revision === 1)).toBe(true);
        expect(await s.island(a, init(999))).toEqual(first[0]);
        expect(built).toBeGreaterThanOrEqual(1);
        // another account has its own
        expect((await s.island(mintUuid(), init(7))).state.seed).toBe(7);
        await s.close();
      });

      it('saves over the expected revision only; a save run twice applies once; a missing island is missing', async () => {
        await fresh();
        const a = mintUuid();
        const d = await s.island(a, () => doc(5));
        const next = { ...d.state, stats: { nodes: 1 } };
        const save = { expectedRevision: 1, state: next, writeId: mintUuid(), at: '2026-11-23T11:00:00.000Z' };
        const saved = await s.saveIsland(a, save);
        expect(saved).toEqual({ status: 'saved', doc: { state: next, revision: 2, updatedAt: '2026-11-23T11:00:00.000Z' } });
        // the same write again (a retry after a lost answer): the same document, no third revision
        expect(await s.saveIsland(a, save)).toEqual(saved);
        // another write from the stale revision
        expect(await s.saveIsland(a, { ...save, writeId: mintUuid() })).toEqual({ status: 'stale', revision: 2 });
        expect(await s.island(a, () => doc(6))).toEqual({ state: next, revision: 2, updatedAt: '2026-11-23T11:00:00.000Z' });
        expect(await s.saveIsland(mintUuid(), save)).toEqual({ status: 'missing' });
        await s.close();
      });

      it('lets exactly one of two concurrent saves from the same revision through', async () => {
        await fresh();
        const a = mintUuid();
        const d = await s.island(a, () => doc(9));
        const outs = await Promise.all(
          [1, 2].map((n) =>
            s.saveIsland(a, {
              expectedRevision: d.revision,
              state: { ...d.state, stats: { n } },
              writeId: mintUuid(),
              at: '2026-11-23T11:00:00.000Z',
            }),
          ),
        );
        expect(outs.map((o) => o.status).sort()).toEqual(['saved', 'stale']);
        await s.close();
      });
    });

    describe('characters', () => {
      it('creates within the era slots (also under concurrency), lists oldest first per era, and hides other accounts', async () => {
        await fresh();
        const a = mintUuid();
        const outs = await Promise.all(
          Array.from({ length: 7 }, (_, i) =>
            s.createCharacter({ character: character(a, { name: `Hero ${i}` }), slotsPerEra: 4, clientKey: undefined, fingerprint: 'f' }),
          ),
        );
        expect(outs.filter((o) => o.status === 'created')).toHaveLength(4);
        expect(outs.filter((o) => o.status === 'full')).toEqual(Array(3).fill({ status: 'full', slotsPerEra: 4 }));
        const voxel = character(a, { era: 'voxel' });
        expect(await s.createCharacter({ character: voxel, slotsPerEra: 4, clientKey: undefined, fingerprint: 'f' })).toEqual({
          status: 'created',
          character: voxel,
        });
        const listed = await s.characters(a, 'warlords');
        const created = outs.flatMap((o) => (o.status === 'created' ? [o.character] : []));
        expect(listed).toEqual(created);
        expect(await s.characters(a, 'voxel')).toEqual([voxel]);
        expect(await s.characters(a, 'nexus')).toEqual([]);
        expect(await s.character(a, voxel.id)).toEqual(voxel);
        expect(await s.character(mintUuid(), voxel.id)).toBeUndefined();
        expect(await s.characters(mintUuid(), 'voxel')).toEqual([]);
        await s.close();
      });

      it('answers the first character for a client key and for a repeated id; refuses the key with another request', async () => {
        await fresh();
        const a = mintUuid();
        const c = character(a);
        const first = await s.createCharacter({ character: c, slotsPerEra: 4, clientKey: 'create-key-1', fingerprint: 'f1' });
        expect(first).toEqual({ status: 'created', character: c });
        expect(await s.createCharacter({ character: character(a), slotsPerEra: 4, clientKey: 'create-key-1', fingerprint: 'f1' })).toEqual({
          status: 'replayed',
          character: c,
        });
        expect(await s.createCharacter({ character: character(a), slotsPerEra: 4, clientKey: 'create-key-1', fingerprint: 'f2' })).toEqual({
          status: 'key-reused',
        });
        // the same minted id again is a retry of that very creation
        expect(await s.createCharacter({ character: c, slotsPerEra: 4, clientKey: undefined, fingerprint: 'f' })).toEqual({
          status: 'created',
          character: c,
        });
        // the same key of another account is another key
        const b = character(mintUuid());
        expect((await s.createCharacter({ character: b, slotsPerEra: 4, clientKey: 'create-key-1', fingerprint: 'f2' })).status).toBe(
          'created',
        );
        expect(await s.characters(a, 'warlords')).toEqual([c]);
        await s.close();
      });

      it('saves progress over the expected revision once per key, replays it with the revision it made, refuses a reused key', async () => {
        await fresh();
        const a = mintUuid();
        const c = character(a);
        await s.createCharacter({ character: c, slotsPerEra: 4, clientKey: undefined, fingerprint: 'f' });
        const progress = { ...EMPTY_PROGRESS, attributes: { STR: 5 }, skill_loadouts: [] };
        const save = {
          expectedRevision: 1,
          progress,
          idempotencyKey: 'progress-key-1',
          fingerprint: 'p1',
          at: '2026-11-23T12:00:00.000Z',
          equipment: [],
        };
        const saved = await s.saveProgress(a, c.id, save);
        const after = { ...c, progress, progressRevision: 2, updatedAt: '2026-11-23T12:00:00.000Z' };
        expect(saved).toEqual({ status: 'created', character: after });
        expect(await s.saveProgress(a, c.id, save)).toEqual({ status: 'replayed', character: after, revision: 2 });
        expect(await s.character(a, c.id)).toEqual(after);
        // a later change, then the first key again: nothing changes; the character as it stands, and the
        // revision the first save made
        const later = await s.saveProgress(a, c.id, {
          ...save,
          expectedRevision: 2,
          progress: { ...progress, attributes: { STR: 6 } },
          idempotencyKey: 'progress-key-2',
          fingerprint: 'p2',
        });
        expect(later.status).toBe('created');
        const now = await s.character(a, c.id);
        expect(now!.progress.attributes).toEqual({ STR: 6 });
        expect(await s.saveProgress(a, c.id, save)).toEqual({ status: 'replayed', character: now, revision: 2 });
        expect(await s.saveProgress(a, c.id, { ...save, fingerprint: 'other' })).toEqual({ status: 'key-reused' });
        expect(await s.progressRecord(a, c.id, save.idempotencyKey, save.fingerprint)).toEqual({
          status: 'replayed',
          character: now,
          revision: 2,
        });
        expect(await s.progressRecord(a, c.id, save.idempotencyKey, 'other')).toEqual({ status: 'key-reused' });
        expect(await s.progressRecord(a, c.id, 'progress-key-never', 'p')).toBeUndefined();
        expect(await s.progressRecord(mintUuid(), c.id, save.idempotencyKey, save.fingerprint)).toBeUndefined();
        expect(await s.characterOwner(c.id)).toBe(a);
        expect(await s.characterOwner(mintUuid())).toBeUndefined();
        expect(await s.saveProgress(a, c.id, { ...save, idempotencyKey: 'progress-key-3', fingerprint: 'p3' })).toEqual({
          status: 'stale',
          revision: 3,
        });
        expect(await s.saveProgress(mintUuid(), c.id, save)).toEqual({ status: 'missing' });
        expect(await s.saveProgress(a, mintUuid(), save)).toEqual({ status: 'missing' });
        expect((await s.character(a, c.id))!.progressRevision).toBe(3);
        await s.close();
      });

      it("checks the items a progress wears in the save itself: minted, the account's, and free or worn by this character", async () => {
        await fresh();
        const a = mintUuid();
        const b = mintUuid();
        const c = character(a);
        const d = character(a);
        await s.createCharacter({ character: c, slotsPerEra: 4, clientKey: undefined, fingerprint: 'f' });
        await s.createCharacter({ character: d, slotsPerEra: 4, clientKey: undefined, fingerprint: 'f' });
        const mint = async (owner: string, key: string) => {
          const out = await s.mintItem({ item: instance(owner), idempotencyKey: key, fingerprint: 'f' });
          return out.status === 'created' ? out.item.studioUuid : '';
        };
        const [mine, worn, others, gone, onD] = [
          await mint(a, 'eq-1'),
          await mint(a, 'eq-2'),
          await mint(b, 'eq-3'),
          await mint(a, 'eq-4'),
          await mint(a, 'eq-5'),
        ];
        const event = (id: string, kind: 'equipped' | 'consumed', characterId: string | null): ItemEventRequest => ({
          studioUuid: id,
          kind,
          from: ITEM_TRANSITIONS[kind].from,
          to: ITEM_TRANSITIONS[kind].to,
          accountId: undefined,
          characterId,
          expectedOwner: a,
          idempotencyKey: `${kind}-${id}`,
          fingerprint: 'e',
          at: '2026-11-23T11:00:00.000Z',
        });
        await s.recordItemEvent(event(worn, 'equipped', c.id));
        await s.recordItemEvent(event(gone, 'consumed', null));
        await s.recordItemEvent(event(onD, 'equipped', d.id));
        const save = (equipment: string[], key: string) => ({
          expectedRevision: 1,
          progress: { ...EMPTY_PROGRESS, equipment_on_body: Object.fromEntries(equipment.map((id, i) => [`slot_${i}`, id])) },
          idempotencyKey: key,
          fingerprint: key,
          at: '2026-11-23T12:00:00.000Z',
          equipment,
        });
        const missing = mintUuid();
        const refused = await s.saveProgress(a, c.id, save([mine, worn, others, gone, onD, missing], 'eq-save-1'));
        expect(refused).toEqual({
          status: 'equipment-refused',
          refused: [
            { studioUuid: others, reason: 'not-owned' },
            { studioUuid: gone, reason: 'state' },
            { studioUuid: onD, reason: 'state' },
            { studioUuid: missing, reason: 'missing' },
          ],
        });
        expect((await s.character(a, c.id))!.progressRevision).toBe(1);
        expect(await s.progressRecord(a, c.id, 'eq-save-1', 'eq-save-1')).toBeUndefined();
        expect((await s.saveProgress(a, c.id, save([mine, worn], 'eq-save-2'))).status).toBe('created');
        await s.close();
      });

      it('lets exactly one of two concurrent progress saves from the same revision through', async () => {
        await fresh();
        const a = mintUuid();
        const c = character(a);
        await s.createCharacter({ character: c, slotsPerEra: 4, clientKey: undefined, fingerprint: 'f' });
        const outs = await Promise.all(
          [1, 2].map((n) =>
            s.saveProgress(a, c.id, {
              expectedRevision: 1,
              progress: { ...EMPTY_PROGRESS, attributes: { STR: n } },
              idempotencyKey: `race-key-${n}`,
              fingerprint: `p${n}`,
              at: '2026-11-23T12:00:00.000Z',
              equipment: [],
            }),
          ),
        );
        expect(outs.map((o) => o.status).sort()).toEqual(['created', 'stale']);
        await s.close();
      });
    });

    describe('recipes', () => {
      it('learns a recipe once, keeps the first time, and lists by time then id per account', async () => {
        await fresh();
        const a = mintUuid();
        expect(await s.learnRecipe(a, 'RECP-B', '2026-11-23T10:00:00.000Z')).toEqual({
          learned: true,
          recipe: { recipeId: 'RECP-B', learnedAt: '2026-11-23T10:00:00.000Z' },
        });
        expect(await s.learnRecipe(a, 'RECP-B', '2026-11-23T11:00:00.000Z')).toEqual({
          learned: false,
          recipe: { recipeId: 'RECP-B', learnedAt: '2026-11-23T10:00:00.000Z' },
        });
        await s.learnRecipe(a, 'RECP-A', '2026-11-23T10:00:00.000Z');
        await s.learnRecipe(a, 'RECP-0', '2026-11-23T09:00:00.000Z');
        const twice = await Promise.all([
          s.learnRecipe(a, 'RECP-C', '2026-11-23T12:00:00.000Z'),
          s.learnRecipe(a, 'RECP-C', '2026-11-23T12:00:01.000Z'),
        ]);
        expect(twice.map((t) => 'learned' in t && t.learned).sort()).toEqual([false, true]);
        await s.learnRecipe(a, 'RECP-D', '2026-11-23T09:30:00.000Z');
        await s.learnRecipe(a, 'RECP-9', '2026-11-23T10:00:00.000Z');
        expect((await s.recipes(a)).map((r) => r.recipeId)).toEqual(['RECP-0', 'RECP-D', 'RECP-9', 'RECP-A', 'RECP-B', 'RECP-C']);
        expect(await s.recipes(mintUuid())).toEqual([]);
        await s.close();
      });
    });

    describe('external links', () => {
      it('binds an identity to the first account only (also when racing); the same account again is existing', async () => {
        await fresh();
        const link = (accountId: string, at = '2026-11-23T10:00:00.000Z') => ({
          provider: 'platform',
          externalUserId: 'ext-42',
          username: 'Ada',
          accountId,
          linkedAt: at,
        });
        const a = mintUuid();
        const b = mintUuid();
        const outs = await Promise.all([s.linkExternal(link(a)), s.linkExternal(link(b))]);
        expect(outs.map((o) => o.status).sort()).toEqual(['linked', 'taken']);
        const winner = outs.find((o) => o.status === 'linked')!.link;
        expect(outs.find((o) => o.status === 'taken')!.link).toEqual(winner);
        expect(await s.linkExternal(link(winner.accountId, '2026-11-24T00:00:00.000Z'))).toEqual({ status: 'existing', link: winner });
        expect(await s.externalLink('platform', 'ext-42')).toEqual(winner);
        expect(await s.externalLink('platform', 'ext-43')).toBeUndefined();
        expect(await s.externalLink('other', 'ext-42')).toBeUndefined();
        expect((await s.linkExternal({ ...link(b), provider: 'other' })).status).toBe('linked');
        await s.close();
      });
    });

    describe('unique items', () => {
      const ev = (
        studioUuid: string,
        kind: keyof typeof ITEM_TRANSITIONS,
        key: string,
        expectedOwner: string,
        over: Partial<ItemEventRequest> = {},
      ): ItemEventRequest => ({
        studioUuid,
        kind,
        from: ITEM_TRANSITIONS[kind].from,
        to: ITEM_TRANSITIONS[kind].to,
        accountId: undefined,
        characterId: null,
        expectedOwner,
        idempotencyKey: key,
        fingerprint: `${kind}-${key}`,
        at: '2026-11-23T11:00:00.000Z',
        ...over,
      });

      it('mints once per key, even for 100 parallel requests; the key with another request is refused', async () => {
        await fresh();
        const a = mintUuid();
        const outs = await Promise.all(
          Array.from({ length: 100 }, () => s.mintItem({ item: instance(a), idempotencyKey: 'mint-key-1', fingerprint: 'f1' })),
        );
        expect(outs.filter((o) => o.status === 'created')).toHaveLength(1);
        const ids = new Set(outs.map((o) => ('item' in o ? o.item.studioUuid : '')));
        expect(ids.size).toBe(1);
        const first = outs.find((o) => o.status === 'created')!;
        expect(outs.find((o) => o.status === 'replayed')).toEqual({ ...first, status: 'replayed' });
        expect(await s.mintItem({ item: instance(a, 'ITEM-2'), idempotencyKey: 'mint-key-1', fingerprint: 'f2' })).toEqual({
          status: 'key-reused',
        });
        expect((await s.accountItems(a)).map((i) => i.studioUuid)).toEqual([...ids]);
        await s.close();
      });

      it('records events the state allows, once per key, in order; moves ownership; refuses anything after the end', async () => {
        await fresh();
        const a = mintUuid();
        const b = mintUuid();
        const hero = character(a);
        const other = character(b);
        await s.createCharacter({ character: hero, slotsPerEra: 4, clientKey: undefined, fingerprint: 'f' });
        await s.createCharacter({ character: other, slotsPerEra: 4, clientKey: undefined, fingerprint: 'f' });
        const c = hero.id;
        const minted = await s.mintItem({ item: instance(a), idempotencyKey: 'mint-key-2', fingerprint: 'f' });
        const id = minted.status === 'created' ? minted.item.studioUuid : '';
        const equip = await s.recordItemEvent(ev(id, 'equipped', 'ev-equip', a, { characterId: c }));
        expect(equip).toMatchObject({
          status: 'created',
          item: { state: 'equipped', characterId: c, seq: 2, accountId: a },
          event: { seq: 2, kind: 'equipped', characterId: c },
        });
        expect(await s.recordItemEvent(ev(id, 'equipped', 'ev-equip', a, { characterId: c }))).toEqual({ ...equip, status: 'replayed' });
        expect(await s.itemEventRecord(id, 'ev-equip', 'equipped-ev-equip')).toEqual({ ...equip, status: 'replayed' });
        expect(await s.itemEventRecord(id, 'ev-equip', 'another')).toEqual({ status: 'key-reused' });
        expect(await s.itemEventRecord(id, 'ev-never', 'x')).toBeUndefined();
        expect(await s.itemEventRecord(mintUuid(), 'ev-equip', 'x')).toBeUndefined();
        expect(await s.recordItemEvent(ev(id, 'unequipped', 'ev-equip', a))).toEqual({ status: 'key-reused' });
        expect(await s.recordItemEvent(ev(id, 'transferred', 'ev-move-1', a, { accountId: b }))).toMatchObject({
          status: 'forbidden',
          item: { state: 'equipped', seq: 2 },
        });
        expect((await s.itemHistory(id))!.item).toMatchObject({ state: 'equipped', characterId: c });
        await s.recordItemEvent(ev(id, 'unequipped', 'ev-unequip', a));
        const moved = await s.recordItemEvent(ev(id, 'transferred', 'ev-move-2', a, { accountId: b }));
        expect(moved).toMatchObject({ status: 'created', item: { accountId: b, state: 'owned', characterId: null, seq: 4 } });
        expect(await s.accountItems(a)).toEqual([]);
        expect((await s.accountItems(b)).map((i) => i.studioUuid)).toEqual([id]);
        const outs = await Promise.all([
          s.recordItemEvent(ev(id, 'consumed', 'ev-end-1', b)),
          s.recordItemEvent(ev(id, 'destroyed', 'ev-end-2', b)),
        ]);
        expect(outs.map((o) => o.status).sort()).toEqual(['created', 'forbidden']);
        for (const kind of ['assigned', 'equipped', 'unequipped', 'transferred', 'consumed', 'destroyed'] as const) {
          const characterId = kind === 'assigned' || kind === 'equipped' ? other.id : null;
          expect(
            (
              await s.recordItemEvent(
                ev(id, kind, `ev-after-${kind}`, b, { accountId: kind === 'transferred' ? a : undefined, characterId }),
              )
            ).status,
            kind,
          ).toBe('forbidden');
        }
        expect(await s.accountItems(b)).toEqual([]);
        const history = await s.itemHistory(id);
        expect(history!.events.map((e) => [e.seq, e.kind])).toEqual([
          [1, 'minted'],
          [2, 'equipped'],
          [3, 'unequipped'],
          [4, 'transferred'],
          [5, outs[0].status === 'created' ? 'consumed' : 'destroyed'],
        ]);
        expect(history!.events[3]).toMatchObject({ accountId: b, characterId: null });
        expect(history!.events.map((e) => e.characterId)).toEqual([null, c, null, null, null]);
        expect(history!.item.seq).toBe(5);
        expect(await s.recordItemEvent(ev(mintUuid(), 'consumed', 'ev-none', a))).toEqual({ status: 'missing' });
        // checked in the write: another owner than the one validated, or a character not that owner's, changes nothing
        const second = await s.mintItem({ item: instance(a), idempotencyKey: 'mint-key-moved', fingerprint: 'f' });
        const sid = second.status === 'created' ? second.item.studioUuid : '';
        expect(await s.recordItemEvent(ev(sid, 'transferred', 'ev-moved-1', b, { accountId: mintUuid() }))).toEqual({ status: 'moved' });
        expect(await s.recordItemEvent(ev(sid, 'equipped', 'ev-moved-2', a, { characterId: other.id }))).toEqual({ status: 'moved' });
        expect(await s.recordItemEvent(ev(sid, 'equipped', 'ev-moved-3', a, { characterId: mintUuid() }))).toEqual({ status: 'moved' });
        expect((await s.itemHistory(sid))!.events).toHaveLength(1);
        expect(await s.itemEventRecord(sid, 'ev-moved-1', 'transferred-ev-moved-1')).toBeUndefined();
        // an account's items: oldest mint first, then by id
        const owner = mintUuid();
        const made = [];
        for (const [n, when] of [
          '2026-11-23T12:00:00.000Z',
          '2026-11-23T09:00:00.000Z',
          '2026-11-23T10:00:00.000Z',
          '2026-11-23T10:00:00.000Z',
        ].entries()) {
          const it = { ...instance(owner), mintedAt: when, updatedAt: when };
          await s.mintItem({ item: it, idempotencyKey: `order-mint-${n}`, fingerprint: 'f' });
          made.push(it);
        }
        const expected = [made[1]!, ...[made[2]!, made[3]!].sort((x, y) => (x.studioUuid < y.studioUuid ? -1 : 1)), made[0]!].map(
          (i) => i.studioUuid,
        );
        expect((await s.accountItems(owner)).map((i) => i.studioUuid)).toEqual(expected);
        expect(await s.itemHistory(mintUuid())).toBeUndefined();
        await s.close();
      });
    });

    describe('the bag', () => {
      const change = (accountId: string, delta: number, key: string, definitionId = 'MATL-1') => ({
        accountId,
        definitionId,
        delta,
        sourceRef: `bag-${delta > 0 ? 'grant' : 'consume'}:${key}`,
        fingerprint: `${accountId}${definitionId}${delta}`,
        at: '2026-11-23T10:00:00.000Z',
      });
      const sound = async () => expect(checkBagInvariants(await s.bagSnapshot())).toEqual([]);

      it('grants and consumes once per source ref, never below zero, append-only with the invariants holding', async () => {
        await fresh();
        const a = mintUuid();
        const granted = await s.changeBag(change(a, 10, 'g1'));
        expect(granted).toEqual({
          status: 'created',
          entry: {
            accountId: a,
            definitionId: 'MATL-1',
            seq: 1,
            delta: 10,
            quantityAfter: 10,
            sourceRef: 'bag-grant:g1',
            at: '2026-11-23T10:00:00.000Z',
          },
        });
        expect(await s.changeBag(change(a, 10, 'g1'))).toEqual({ ...granted, status: 'replayed' });
        expect(await s.changeBag(change(a, 11, 'g1'))).toEqual({ status: 'key-reused' });
        expect(await s.changeBag(change(a, -11, 'c1'))).toEqual({ status: 'insufficient', quantity: 10 });
        expect((await s.changeBag(change(a, -10, 'c2'))).status).toBe('created');
        // the refused consumption left its key free
        expect(await s.changeBag(change(a, -11, 'c1'))).toEqual({ status: 'insufficient', quantity: 0 });
        await s.changeBag(change(a, 3, 'g2', 'FOOD-1'));
        expect(await s.bag(a)).toEqual([{ definitionId: 'FOOD-1', quantity: 3 }]);
        await s.changeBag(change(a, 2, 'g3', 'MATL-9'));
        await s.changeBag(change(a, 1, 'g4', 'CONS-5'));
        expect(await s.bag(a)).toEqual([
          { definitionId: 'CONS-5', quantity: 1 },
          { definitionId: 'FOOD-1', quantity: 3 },
          { definitionId: 'MATL-9', quantity: 2 },
        ]);
        expect(await s.bag(mintUuid())).toEqual([]);
        await sound();
        await s.close();
      });

      it('lets exactly as many concurrent consumptions through as the quantity allows', async () => {
        await fresh();
        const a = mintUuid();
        await s.changeBag(change(a, 10, 'stock'));
        const outs = await Promise.all(Array.from({ length: 25 }, (_, i) => s.changeBag(change(a, -1, `take-${i}`))));
        expect(outs.filter((o) => o.status === 'created')).toHaveLength(10);
        expect(outs.filter((o) => o.status === 'insufficient')).toHaveLength(15);
        expect(await s.bag(a)).toEqual([]);
        await sound();
        await s.close();
      });

      it('refuses a grant past the largest safe quantity and changes nothing', async () => {
        await fresh();
        const a = mintUuid();
        await s.changeBag(change(a, Number.MAX_SAFE_INTEGER - 1, 'big'));
        expect((await s.changeBag(change(a, 1, 'edge'))).status).toBe('created');
        expect(await s.changeBag(change(a, 1, 'over'))).toEqual({ status: 'overflow' });
        expect(await s.bag(a)).toEqual([{ definitionId: 'MATL-1', quantity: Number.MAX_SAFE_INTEGER }]);
        // the refused key stays free
        expect((await s.changeBag(change(a, -1, 'over'))).status).toBe('created');
        await sound();
        await s.close();
      });

      it('answers every quantity and entry in its snapshot, by account, definition and sequence', async () => {
        await fresh();
        const [a, b] = [mintUuid(), mintUuid()].sort();
        await s.changeBag(change(b!, 4, 'b1', 'MATL-2'));
        await s.changeBag(change(a!, 5, 'a1', 'MATL-2'));
        await s.changeBag(change(a!, 2, 'a2', 'FOOD-1'));
        await s.changeBag(change(a!, -5, 'a3', 'MATL-2'));
        const snap = await s.bagSnapshot();
        expect(snap.quantities).toEqual([
          { accountId: a, definitionId: 'FOOD-1', quantity: 2 },
          { accountId: a, definitionId: 'MATL-2', quantity: 0 },
          { accountId: b, definitionId: 'MATL-2', quantity: 4 },
        ]);
        expect(snap.entries.map((e) => [e.accountId, e.definitionId, e.seq, e.delta, e.quantityAfter, e.sourceRef])).toEqual([
          [a, 'FOOD-1', 1, 2, 2, 'bag-grant:a2'],
          [a, 'MATL-2', 1, 5, 5, 'bag-grant:a1'],
          [a, 'MATL-2', 2, -5, 0, 'bag-consume:a3'],
          [b, 'MATL-2', 1, 4, 4, 'bag-grant:b1'],
        ]);
        await s.close();
      });
    });

    describe('list orders, whatever the order of the writes', () => {
      const times = ['2026-11-23T09:00:00.000Z', '2026-11-23T10:00:00.000Z', '2026-11-23T11:00:00.000Z'];
      /** `xs` in a seeded random order. */
      const shuffled = <T>(xs: readonly T[], seed: number): T[] => {
        const rng = createRng(seed);
        const out = [...xs];
        for (let i = out.length - 1; i > 0; i--) {
          const j = rng.int(i + 1);
          [out[i], out[j]] = [out[j]!, out[i]!];
        }
        return out;
      };
      const byText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

      it('recipes by time then id, items by mint time then id, the bag and its snapshot by definition then sequence', async () => {
        await fresh();
        const a = mintUuid();
        const recipes = Array.from({ length: 30 }, (_, i) => ({
          recipeId: `RECP-${String(i).padStart(2, '0')}`,
          learnedAt: times[i % 3]!,
        }));
        for (const r of shuffled(recipes, 1)) await s.learnRecipe(a, r.recipeId, r.learnedAt);
        expect(await s.recipes(a)).toEqual([...recipes].sort((x, y) => byText(x.learnedAt, y.learnedAt) || byText(x.recipeId, y.recipeId)));

        const items = Array.from({ length: 30 }, (_, i) => ({
          studioUuid: mintUuid(),
          definitionId: 'ITEM-1',
          accountId: a,
          state: 'owned' as const,
          characterId: null,
          seq: 1,
          mintedAt: times[i % 3]!,
          updatedAt: times[i % 3]!,
        }));
        for (const [k, item] of shuffled(items, 2).entries()) await s.mintItem({ item, idempotencyKey: `order-${k}`, fingerprint: 'f' });
        expect((await s.accountItems(a)).map((i) => i.studioUuid)).toEqual(
          [...items].sort((x, y) => byText(x.mintedAt, y.mintedAt) || byText(x.studioUuid, y.studioUuid)).map((i) => i.studioUuid),
        );

        const defs = Array.from({ length: 20 }, (_, i) => `MATL-${String(i).padStart(2, '0')}`);
        const writes = shuffled(
          [...defs, ...defs, ...defs].map((d, i) => ({ d, delta: 1 + (i % 4) })),
          3,
        );
        for (const [k, w] of writes.entries())
          await s.changeBag({
            accountId: a,
            definitionId: w.d,
            delta: w.delta,
            sourceRef: `bag-grant:order-${k}`,
            fingerprint: 'g',
            at: times[0]!,
          });
        const totals = new Map<string, number>();
        for (const w of writes) totals.set(w.d, (totals.get(w.d) ?? 0) + w.delta);
        expect(await s.bag(a)).toEqual(defs.map((d) => ({ definitionId: d, quantity: totals.get(d) })));
        const snap = await s.bagSnapshot();
        expect(snap.quantities.filter((q) => q.accountId === a)).toEqual(
          defs.map((d) => ({ accountId: a, definitionId: d, quantity: totals.get(d) })),
        );
        const entries = snap.entries.filter((e) => e.accountId === a).map((e) => [e.definitionId, e.seq]);
        expect(entries).toEqual(
          defs.flatMap((d) => [
            [d, 1],
            [d, 2],
            [d, 3],
          ]),
        );
        await s.close();
      });
    });

    it('keeps islands, characters, progress keys and recipes across a restart', async () => {
      await fresh();
      const a = mintUuid();
      const d = await s.island(a, () => doc(11));
      const c = character(a);
      await s.createCharacter({ character: c, slotsPerEra: 4, clientKey: 'restart-key', fingerprint: 'f' });
      const save = {
        expectedRevision: 1,
        progress: { ...EMPTY_PROGRESS, weapon_mastery: { SWORD: 3 } },
        idempotencyKey: 'restart-progress',
        fingerprint: 'p',
        at: '2026-11-23T12:00:00.000Z',
        equipment: [],
      };
      await s.saveProgress(a, c.id, save);
      await s.learnRecipe(a, 'RECP-X', '2026-11-23T10:00:00.000Z');
      await s.linkExternal({
        provider: 'platform',
        externalUserId: 'restart',
        username: 'R',
        accountId: a,
        linkedAt: '2026-11-23T10:00:00.000Z',
      });
      await s.close();
      const again = await h.reopen();
      expect(await again.island(a, () => doc(12))).toEqual(d);
      expect((await again.character(a, c.id))!.progress.weapon_mastery).toEqual({ SWORD: 3 });
      expect((await again.saveProgress(a, c.id, save)).status).toBe('replayed');
      expect(
        (await again.createCharacter({ character: character(a), slotsPerEra: 4, clientKey: 'restart-key', fingerprint: 'f' })).status,
      ).toBe('replayed');
      expect(await again.recipes(a)).toEqual([{ recipeId: 'RECP-X', learnedAt: '2026-11-23T10:00:00.000Z' }]);
      expect((await again.externalLink('platform', 'restart'))?.accountId).toBe(a);
      await again.close();
    });
  });
}
