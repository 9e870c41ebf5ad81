/**
 * The player store contract of operators' corrections, the histories they read, and bans checked in
 * writes (spec 2.6, 2.8, 5.3; docs/architecture.md, "Bag reversals", "Voided items", "Player look-up",
 * "Sessions and bans"), a suite every player-store adapter's test file runs beside `playerContract`, with a
 * harness that opens the ledger over the same data (the ban a write reads is the ledger's):
 *
 * - a bag grant is reversed once, in one step with its link (the grant names its reversal, the reversal
 *   the grant), never a consumption or a reversal, never beyond the quantity held; concurrent reversals of
 *   one grant make exactly one; replays answer the first, a reused key is refused;
 * - a voided item is final, no longer owned, still listed with its state and its events (the void with
 *   its note); an erasure's `blankNotes` blanks notes and keeps actors;
 * - pages come newest first, in the same order on every adapter, and follow their positions;
 * - a write asked to refuse a banned account changes nothing while a ban holds at its time (replays still
 *   answer; operators' writes go through);
 * - a model run (fast-check) of random grants, consumptions, reversals, mints, item events, voids, bans and
 *   pages against a plain in-memory model, with the bag and item invariants after every step.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mintUuid } from '../../api/_lib/ledger/ids.js';
import type { AccountBan } from '../../api/_lib/ledger/types.js';
import { initialIsland } from '../../api/_lib/island/generate.js';
import { checkBagInvariants } from '../../api/_lib/player/bag.js';
import { checkItemInvariants, ITEM_TRANSITIONS } from '../../api/_lib/player/items.js';
import { EMPTY_PROGRESS } from '../../api/_lib/player/service.js';
import type {
  BagPosition,
  BagRecord,
  BagReversal,
  ItemEventKind,
  ItemEventRecord,
  ItemEventRequest,
  ItemInstance,
  ItemPosition,
  ItemState,
  PlayerStore,
} from '../../api/_lib/player/types.js';
import type { Harness } from '../helpers/backends.js';
import { addAccount, newAccount } from '../helpers/ledger-ops.js';
import { sampleCharacter, type PlayerAndLedger } from '../helpers/player.js';

/** The ISO time `n` seconds after 2026-11-23T10:00:00Z. */
const time = (n: number) => new Date(Date.UTC(2026, 10, 23, 10, 0, n)).toISOString();
const NOTE = { note: 'Granted 50 instead of 5', actor: 'admin:STUDIO_OPERATOR' };

/** A new character of `accountId` (`sampleCharacter`). */
const character = sampleCharacter;

/** A unique item of `accountId` minted at `at`. */
const instance = (accountId: string, at = time(0)): ItemInstance => ({
  studioUuid: mintUuid(),
  definitionId: 'ITEM-1',
  accountId,
  state: 'owned',
  characterId: null,
  seq: 1,
  mintedAt: at,
  updatedAt: at,
});

/**
 * Run the contract against the adapters `harness` makes.
 * @param harness a new harness of both stores over one data set (its backend started in `beforeAll`).
 */
export function operationsContract(harness: () => Harness<PlayerAndLedger>): void {
  const h = harness();
  describe(`player store contract, corrections, histories and bans: ${h.name}`, () => {
    beforeAll(() => h.setup(), 30_000);
    afterAll(() => h.teardown());
    let s: PlayerStore;
    let both: PlayerAndLedger;
    const fresh = async () => {
      both = await h.fresh();
      s = both.player;
      return both;
    };
    const close = async () => {
      await both.player.close();
      await both.ledger.close();
    };
    const change = (accountId: string, delta: number, key: string, at: string, definitionId = 'MATL-1') =>
      s.changeBag({
        accountId,
        definitionId,
        delta,
        sourceRef: `bag-${delta > 0 ? 'grant' : 'consume'}:${key}`,
        fingerprint: `${accountId} ${definitionId} ${delta}`,
        at,
      });
    const reversal = (accountId: string, reverses: string, key: string, at: string, note = NOTE): BagReversal => ({
      accountId,
      reverses,
      sourceRef: `bag-reversal:${key}`,
      fingerprint: `${accountId} ${reverses}`,
      note,
      at,
    });
    const sound = async () => {
      expect(checkBagInvariants(await s.bagSnapshot())).toEqual([]);
      expect(checkItemInvariants(await s.itemSnapshot())).toEqual([]);
    };
    /** Every bag entry of an account, page by page. */
    const allEntries = async (accountId: string, limit: number, definitionId?: string) => {
      const out: BagRecord[] = [];
      let before: BagPosition | undefined;
      do {
        const page = await s.bagEntries(accountId, { definitionId, before, limit });
        expect(page.entries.length).toBeLessThanOrEqual(limit);
        out.push(...page.entries);
        before = page.next;
      } while (before !== undefined);
      return out;
    };
    /** Every item of an account, page by page. */
    const allItems = async (accountId: string, limit: number, state?: ItemState) => {
      const out: ItemInstance[] = [];
      let after: ItemPosition | undefined;
      do {
        const page = await s.itemsOf(accountId, { state, after, limit });
        expect(page.items.length).toBeLessThanOrEqual(limit);
        out.push(...page.items);
        after = page.next;
      } while (after !== undefined);
      return out;
    };
    const event = (
      studioUuid: string,
      kind: Exclude<ItemEventKind, 'minted'>,
      key: string,
      owner: string,
      over: Partial<ItemEventRequest> = {},
    ): ItemEventRequest => ({
      studioUuid,
      kind,
      from: ITEM_TRANSITIONS[kind].from,
      to: ITEM_TRANSITIONS[kind].to,
      accountId: undefined,
      characterId: null,
      expectedOwner: owner,
      idempotencyKey: key,
      fingerprint: `${kind} ${key}`,
      at: time(50),
      ...over,
    });

    describe('bag reversals', () => {
      it('reverses a grant once, linked both ways; replays the key, refuses its reuse, a second reversal, a consumption, a reversal and a stranger', async () => {
        await fresh();
        const a = mintUuid();
        const b = mintUuid();
        await change(a, 5, 'g1', time(1));
        await change(a, 3, 'g2', time(2));
        await change(a, -2, 'c1', time(3));
        const first = await s.reverseBag(reversal(a, 'bag-grant:g1', 'r1', time(4)));
        const made: BagRecord = {
          accountId: a,
          definitionId: 'MATL-1',
          seq: 4,
          delta: -5,
          quantityAfter: 1,
          sourceRef: 'bag-reversal:r1',
          at: time(4),
          reverses: 'bag-grant:g1',
          note: NOTE.note,
          actor: NOTE.actor,
        };
        expect(first).toEqual({ status: 'created', entry: made });
        // the same request again, reworded and later: the first reversal, nothing more
        expect(await s.reverseBag(reversal(a, 'bag-grant:g1', 'r1', time(9), { note: 'reworded', actor: 'admin-password' }))).toEqual({
          status: 'replayed',
          entry: made,
        });
        expect(await s.reverseBag(reversal(a, 'bag-grant:g2', 'r1', time(9)))).toEqual({ status: 'key-reused' });
        expect(await s.reverseBag(reversal(a, 'bag-grant:g1', 'r2', time(9)))).toEqual({ status: 'already-reversed', entry: made });
        const consumed = await s.reverseBag(reversal(a, 'bag-consume:c1', 'r3', time(9)));
        expect(consumed).toMatchObject({ status: 'not-a-grant', entry: { sourceRef: 'bag-consume:c1', delta: -2 } });
        expect(await s.reverseBag(reversal(a, 'bag-reversal:r1', 'r4', time(9)))).toMatchObject({
          status: 'not-a-grant',
          entry: { sourceRef: 'bag-reversal:r1', reverses: 'bag-grant:g1' },
        });
        expect(await s.reverseBag(reversal(a, 'bag-grant:nothing', 'r5', time(9)))).toEqual({ status: 'no-entry' });
        expect(await s.reverseBag(reversal(b, 'bag-grant:g2', 'r6', time(9)))).toEqual({ status: 'no-entry' });
        expect(await s.bag(a)).toEqual([{ definitionId: 'MATL-1', quantity: 1 }]);
        const entries = await allEntries(a, 10);
        expect(entries.map((e) => [e.sourceRef, e.reversedBy, e.reverses])).toEqual([
          ['bag-reversal:r1', undefined, 'bag-grant:g1'],
          ['bag-consume:c1', undefined, undefined],
          ['bag-grant:g2', undefined, undefined],
          ['bag-grant:g1', 'bag-reversal:r1', undefined],
        ]);
        expect(entries[0]).toEqual(made);
        // the refused keys stay free
        await change(a, 2, 'g3', time(10));
        expect((await s.reverseBag(reversal(a, 'bag-grant:g2', 'r3', time(11)))).status).toBe('created');
        await sound();
        await close();
      });

      it('refuses a reversal beyond the quantity held, changes nothing, and keeps its key free', async () => {
        await fresh();
        const a = mintUuid();
        await change(a, 10, 'big', time(1), 'MATL-2');
        await change(a, -8, 'used', time(2), 'MATL-2');
        expect(await s.reverseBag(reversal(a, 'bag-grant:big', 'too-much', time(3)))).toEqual({ status: 'insufficient', quantity: 2 });
        expect(await s.bag(a)).toEqual([{ definitionId: 'MATL-2', quantity: 2 }]);
        expect((await allEntries(a, 10)).map((e) => e.reversedBy)).toEqual([undefined, undefined]);
        await change(a, 8, 'refill', time(4), 'MATL-2');
        expect(await s.reverseBag(reversal(a, 'bag-grant:big', 'too-much', time(5)))).toMatchObject({
          status: 'created',
          entry: { seq: 4, delta: -10, quantityAfter: 0 },
        });
        await sound();
        await close();
      });

      it('makes exactly one of many concurrent reversals of one grant, and settles a reversal racing a consumption', async () => {
        await fresh();
        const a = mintUuid();
        await change(a, 7, 'stock', time(1));
        const outs = await Promise.all(
          Array.from({ length: 12 }, (_, i) => s.reverseBag(reversal(a, 'bag-grant:stock', `race-${i}`, time(2)))),
        );
        const made = outs.filter((o) => o.status === 'created');
        expect(made).toHaveLength(1);
        const winner = made[0]!.status === 'created' ? made[0]!.entry : undefined;
        expect(outs.filter((o) => o.status === 'already-reversed')).toEqual(Array(11).fill({ status: 'already-reversed', entry: winner }));
        expect(await s.bag(a)).toEqual([]);
        // a consumption and a reversal of the same units at once: exactly one of them
        await change(a, 5, 'second', time(3));
        const [used, reversed] = await Promise.all([
          change(a, -3, 'race-use', time(4)),
          s.reverseBag(reversal(a, 'bag-grant:second', 'race-rev', time(4))),
        ]);
        expect([used.status, reversed.status].sort()).toEqual(['created', 'insufficient']);
        await sound();
        await close();
      });
    });

    describe('histories', () => {
      it('pages bag entries newest first by time, definition and sequence, with a definition filter, on every adapter alike', async () => {
        await fresh();
        const a = mintUuid();
        const writes: [number, string, number][] = [
          [5, 'MATL-B', 4],
          [1, 'MATL-A', 3],
          [5, 'MATL-A', 2],
          [3, 'FOOD-1', 6],
          [5, 'MATL-B', 1],
          [2, 'MATL-A', -1],
          [7, 'FOOD-1', -2],
        ];
        for (const [i, [t, d, n]] of writes.entries()) await change(a, n, `w${i}`, time(t), d);
        await change(mintUuid(), 9, 'someone-else', time(6));
        const expected = [
          [7, 'FOOD-1', 2],
          [5, 'MATL-B', 2],
          [5, 'MATL-B', 1],
          [5, 'MATL-A', 2],
          [3, 'FOOD-1', 1],
          [2, 'MATL-A', 3],
          [1, 'MATL-A', 1],
        ].map(([t, d, seq]) => [time(t as number), d, seq]);
        for (const limit of [1, 2, 3, 7, 50])
          expect(
            (await allEntries(a, limit)).map((e) => [e.at, e.definitionId, e.seq]),
            `limit ${limit}`,
          ).toEqual(expected);
        // by time first, also within one definition
        expect((await allEntries(a, 2, 'MATL-A')).map((e) => e.seq)).toEqual([2, 3, 1]);
        expect(await s.bagEntries(a, { definitionId: 'MATL-Z', limit: 5 })).toEqual({ entries: [], next: undefined });
        expect(await s.bagEntries(mintUuid(), { limit: 5 })).toEqual({ entries: [], next: undefined });
        await close();
      });

      it('pages an account’s items newest mint first in every state, with a state filter', async () => {
        await fresh();
        const a = mintUuid();
        const b = mintUuid();
        const made: ItemInstance[] = [];
        for (const t of [4, 1, 4, 9, 2, 4]) {
          const it = instance(a, time(t));
          await s.mintItem({ item: it, idempotencyKey: `page-mint-${made.length}`, fingerprint: 'f' });
          made.push(it);
        }
        await s.recordItemEvent(event(made[1]!.studioUuid, 'consumed', 'use', a));
        await s.recordItemEvent(event(made[3]!.studioUuid, 'voided', 'void', a, { note: NOTE }));
        await s.recordItemEvent(event(made[4]!.studioUuid, 'transferred', 'give', a, { accountId: b }));
        const order = made
          .filter((_, i) => i !== 4)
          .sort((x, y) => (x.mintedAt !== y.mintedAt ? (x.mintedAt < y.mintedAt ? 1 : -1) : x.studioUuid < y.studioUuid ? 1 : -1))
          .map((i) => i.studioUuid);
        for (const limit of [1, 2, 5, 10])
          expect(
            (await allItems(a, limit)).map((i) => i.studioUuid),
            `limit ${limit}`,
          ).toEqual(order);
        const states = Object.fromEntries((await allItems(a, 10)).map((i) => [i.studioUuid, i.state]));
        expect(states[made[1]!.studioUuid]).toBe('consumed');
        expect(states[made[3]!.studioUuid]).toBe('voided');
        expect((await allItems(a, 1, 'voided')).map((i) => i.studioUuid)).toEqual([made[3]!.studioUuid]);
        expect((await allItems(a, 2, 'owned')).map((i) => i.studioUuid)).toEqual(order.filter((id) => states[id] === 'owned'));
        expect((await allItems(b, 10)).map((i) => [i.studioUuid, i.state])).toEqual([[made[4]!.studioUuid, 'owned']]);
        // owned now: neither the consumed nor the voided nor the given item
        expect((await s.accountItems(a)).map((i) => i.studioUuid).sort()).toEqual(order.filter((id) => states[id] === 'owned').sort());
        await sound();
        await close();
      });
    });

    describe('voided items', () => {
      it('voids an item in any owned state, finally: no event after it, not owned, not wearable, listed with its events and note', async () => {
        await fresh();
        const a = mintUuid();
        const hero = character(a);
        await s.createCharacter({ character: hero, slotsPerEra: 4, clientKey: undefined, fingerprint: 'f' });
        const it = instance(a);
        await s.mintItem({ item: it, idempotencyKey: 'void-mint', fingerprint: 'f' });
        await s.recordItemEvent(event(it.studioUuid, 'equipped', 'void-equip', a, { characterId: hero.id, at: time(20) }));
        const voided = await s.recordItemEvent(event(it.studioUuid, 'voided', 'void-1', a, { note: NOTE, at: time(30) }));
        expect(voided).toMatchObject({
          status: 'created',
          item: { state: 'voided', characterId: null, seq: 3, accountId: a },
          event: { seq: 3, kind: 'voided', accountId: a, characterId: null, at: time(30) },
        });
        // the same key: the first answer; any later event: forbidden, nothing written
        expect((await s.recordItemEvent(event(it.studioUuid, 'voided', 'void-1', a, { note: NOTE, at: time(40) }))).status).toBe(
          'replayed',
        );
        for (const kind of ['unequipped', 'consumed', 'destroyed', 'voided', 'assigned'] as const)
          expect(
            (await s.recordItemEvent(event(it.studioUuid, kind, `after-${kind}`, a, { characterId: kind === 'assigned' ? hero.id : null })))
              .status,
            kind,
          ).toBe('forbidden');
        expect(await s.accountItems(a)).toEqual([]);
        const saved = await s.saveProgress(a, hero.id, {
          expectedRevision: 1,
          progress: { ...EMPTY_PROGRESS, equipment_on_body: { hand: it.studioUuid } },
          idempotencyKey: 'wear-void',
          fingerprint: 'w',
          at: time(60),
          equipment: [it.studioUuid],
        });
        expect(saved).toEqual({ status: 'equipment-refused', refused: [{ studioUuid: it.studioUuid, reason: 'state' }] });
        const page = await s.itemEvents(it.studioUuid, { limit: 2 });
        const voidEvent: ItemEventRecord = {
          studioUuid: it.studioUuid,
          seq: 3,
          kind: 'voided',
          accountId: a,
          characterId: null,
          at: time(30),
          ...NOTE,
        };
        expect(page).toEqual({
          item: { ...it, state: 'voided', characterId: null, seq: 3, updatedAt: time(30) },
          events: [voidEvent, { studioUuid: it.studioUuid, seq: 2, kind: 'equipped', accountId: a, characterId: hero.id, at: time(20) }],
          nextBeforeSeq: 2,
        });
        expect((await s.itemEvents(it.studioUuid, { beforeSeq: 2, limit: 2 }))?.events.map((e) => e.kind)).toEqual(['minted']);
        expect((await s.itemEvents(it.studioUuid, { beforeSeq: 2, limit: 2 }))?.nextBeforeSeq).toBeUndefined();
        expect(await s.itemEvents(mintUuid(), { limit: 2 })).toBeUndefined();
        expect((await s.itemHistory(it.studioUuid))?.events.map((e) => e.kind)).toEqual(['minted', 'equipped', 'voided']);
        await sound();
        await close();
      });

      it('blanks the notes of an account’s reversals and voids, keeps the actors, touches no other account, and may run twice', async () => {
        await fresh();
        const a = mintUuid();
        const b = mintUuid();
        for (const who of [a, b]) {
          await change(who, 4, `n-${who}`, time(1));
          await s.reverseBag(reversal(who, `bag-grant:n-${who}`, `nr-${who}`, time(2)));
        }
        const it = instance(a);
        await s.mintItem({ item: it, idempotencyKey: 'note-mint', fingerprint: 'f' });
        await s.recordItemEvent(event(it.studioUuid, 'voided', 'note-void', a, { note: NOTE }));
        await s.blankNotes(a);
        await s.blankNotes(a);
        expect((await allEntries(a, 5))[0]).toMatchObject({ note: '', actor: NOTE.actor });
        expect((await allEntries(b, 5))[0]).toMatchObject(NOTE);
        expect((await s.itemEvents(it.studioUuid, { limit: 1 }))?.events[0]).toMatchObject({ note: '', actor: NOTE.actor });
        await s.blankNotes(mintUuid());
        await close();
      });
    });

    describe('bans checked in the write', () => {
      it('refuses every write that asks while a ban holds at its time, changes nothing, still answers replays, and lets operators’ writes through', async () => {
        const { ledger } = await fresh();
        const ada = await addAccount(ledger, newAccount({ displayName: 'Ada' }));
        const bo = await addAccount(ledger, newAccount({ displayName: 'Bo' }));
        const a = ada.accountId;
        const hero = character(a);
        await s.createCharacter({ character: hero, slotsPerEra: 4, clientKey: undefined, fingerprint: 'f' });
        const island = await s.island(a, () => ({ state: initialIsland(3), revision: 1, updatedAt: time(0) }));
        const mine = instance(a);
        await s.mintItem({ item: mine, idempotencyKey: 'ban-mint-0', fingerprint: 'f' });
        const his = instance(bo.accountId);
        await s.mintItem({ item: his, idempotencyKey: 'ban-mint-1', fingerprint: 'f' });
        const granted = await change(a, 2, 'ban-grant-0', time(1));
        await s.learnRecipe(a, 'RECP-KNOWN', time(1));
        const ban: AccountBan = { reason: 'botting', at: time(100), until: time(200) };
        await ledger.changeAccess({ accountId: a, change: { kind: 'ban', at: 1_800_000_000, ban }, key: undefined, fingerprint: 'x' });
        const before = {
          bag: await s.bag(a),
          items: await s.itemSnapshot(),
          island: await s.findIsland(a),
          hero: await s.character(a, hero.id),
        };
        const during = time(150);
        const refused = { status: 'suspended', ban };
        const grantOf = (accountId: string, n: string) => ({
          accountId,
          definitionId: 'MATL-1',
          delta: 1,
          sourceRef: `bag-grant:ban-grant-new-${n}`,
          fingerprint: 'g',
          at: during,
        });
        const writes = (at: string, refuseBanned: boolean, n: string) => ({
          island: () =>
            s.saveIsland(a, {
              expectedRevision: island.revision,
              state: { ...island.state, stats: { n: 1 } },
              writeId: mintUuid(),
              at,
              refuseBanned,
            }),
          progress: () =>
            s.saveProgress(a, hero.id, {
              expectedRevision: 1,
              progress: { ...EMPTY_PROGRESS, attributes: { STR: 2 } },
              idempotencyKey: `ban-progress-${n}`,
              fingerprint: 'p',
              at,
              equipment: [],
              refuseBanned,
            }),
          recipe: () => s.learnRecipe(a, `RECP-NEW-${n}`, at, { refuseBanned }),
          mint: () => s.mintItem({ item: instance(a, at), idempotencyKey: `ban-mint-new-${n}`, fingerprint: 'f', refuseBanned }),
          equip: () =>
            s.recordItemEvent(event(mine.studioUuid, 'equipped', `ban-equip-${n}`, a, { characterId: hero.id, at, refuseBanned })),
          gift: () =>
            s.recordItemEvent(event(his.studioUuid, 'transferred', `ban-gift-${n}`, bo.accountId, { accountId: a, at, refuseBanned })),
          grant: () => s.changeBag({ ...grantOf(a, n), at, refuseBanned }),
        });
        for (const [name, write] of Object.entries(writes(during, true, 'a'))) expect(await write(), name).toEqual(refused);
        expect({
          bag: await s.bag(a),
          items: await s.itemSnapshot(),
          island: await s.findIsland(a),
          hero: await s.character(a, hero.id),
        }).toEqual(before);
        // what a key did before the ban still answers; a recipe known before is no change
        expect(await change(a, 2, 'ban-grant-0', during)).toEqual({ ...granted, status: 'replayed' });
        expect((await s.mintItem({ item: instance(a), idempotencyKey: 'ban-mint-0', fingerprint: 'f', refuseBanned: true })).status).toBe(
          'replayed',
        );
        expect(await s.learnRecipe(a, 'RECP-KNOWN', during, { refuseBanned: true })).toMatchObject({ learned: false });
        // a write that does not ask (an operator's), and one at or past the ban's end
        for (const [name, write] of Object.entries(writes(during, false, 'b')))
          expect((await write()) as object, name).not.toMatchObject({ status: 'suspended' });
        await ledger.changeAccess({
          accountId: bo.accountId,
          change: { kind: 'ban', at: 1_800_000_000, ban: { reason: 'r', at: time(1) } },
          key: undefined,
          fingerprint: 'y',
        });
        const late = writes(time(200), true, 'c');
        expect((await late.grant()).status).toBe('created');
        expect((await late.recipe()) as object).toMatchObject({ learned: true });
        // the owner of a transfer is banned without end now: refused, whatever the new owner
        const another = instance(bo.accountId);
        await s.mintItem({ item: another, idempotencyKey: 'ban-mint-2', fingerprint: 'f' });
        const gift = event(another.studioUuid, 'transferred', 'ban-gift-late', bo.accountId, {
          accountId: a,
          at: time(200),
          refuseBanned: true,
        });
        expect(await s.recordItemEvent(gift)).toEqual({ status: 'suspended', ban: { reason: 'r', at: time(1) } });
        await ledger.changeAccess({ accountId: a, change: { kind: 'unban' }, key: undefined, fingerprint: 'z' });
        expect((await writes(during, true, 'd').mint()).status).toBe('created');
        await sound();
        await close();
      });
    });

    it('holds the bag and item invariants and the model over random grants, consumptions, reversals, mints, item events, voids, bans and pages (fast-check)', async () => {
      type Op =
        | { t: 'grant' | 'consume'; acct: number; def: number; n: number; key: number }
        | { t: 'reverse'; acct: number; target: number; key: number }
        | { t: 'mint'; acct: number; key: number }
        | { t: 'event'; item: number; kind: Exclude<ItemEventKind, 'minted'>; key: number }
        | { t: 'ban' | 'unban'; acct: number }
        | { t: 'page'; acct: number; limit: number };
      const acct = fc.nat(1);
      const op: fc.Arbitrary<Op> = fc.oneof(
        {
          arbitrary: fc.record({
            t: fc.constantFrom('grant' as const, 'consume' as const),
            acct,
            def: fc.nat(1),
            n: fc.integer({ min: 1, max: 6 }),
            key: fc.nat(6),
          }),
          weight: 5,
        },
        { arbitrary: fc.record({ t: fc.constant('reverse' as const), acct, target: fc.nat(12), key: fc.nat(4) }), weight: 3 },
        { arbitrary: fc.record({ t: fc.constant('mint' as const), acct, key: fc.nat(3) }), weight: 2 },
        {
          arbitrary: fc.record({
            t: fc.constant('event' as const),
            item: fc.nat(5),
            kind: fc.constantFrom(...(Object.keys(ITEM_TRANSITIONS) as Exclude<ItemEventKind, 'minted'>[])),
            key: fc.nat(3),
          }),
          weight: 4,
        },
        { arbitrary: fc.record({ t: fc.constantFrom('ban' as const, 'unban' as const), acct }), weight: 1 },
        { arbitrary: fc.record({ t: fc.constant('page' as const), acct, limit: fc.integer({ min: 1, max: 4 }) }), weight: 1 },
      );
      const DEFS = ['MATL-1', 'FOOD-1'];
      await fc.assert(
        fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 30 }), async (ops) => {
          const { ledger } = await fresh();
          try {
            const accounts = [await addAccount(ledger, newAccount()), await addAccount(ledger, newAccount())].map((x) => x.accountId);
            const heroes = accounts.map((a) => character(a));
            for (const c of heroes) await s.createCharacter({ character: c, slotsPerEra: 4, clientKey: undefined, fingerprint: 'f' });
            type Entry = {
              ref: string;
              acct: string;
              def: string;
              seq: number;
              delta: number;
              after: number;
              at: string;
              reverses?: string;
              reversedBy?: string;
            };
            const keys = new Map<string, string>();
            const stacks = new Map<string, { q: number; seq: number }>();
            const entries: Entry[] = [];
            const refs: string[] = ['bag-grant:never'];
            const items: { id: string; owner: string; state: ItemState; character: string | null; seq: number; mintedAt: string }[] = [];
            const mints = new Map<string, { fp: string; id: string }>();
            const itemKeys = new Map<string, string>();
            const banned = new Set<string>();
            const notes = new Map<string, string>();
            for (const [i, o] of ops.entries()) {
              const at = time(i + 1);
              if (o.t === 'grant' || o.t === 'consume') {
                const a = accounts[o.acct]!;
                const def = DEFS[o.def]!;
                const delta = o.t === 'grant' ? o.n : -o.n;
                const ref = `bag-${o.t}:k${o.key}`;
                const fp = `${a} ${def} ${delta}`;
                const out = await s.changeBag({
                  accountId: a,
                  definitionId: def,
                  delta,
                  sourceRef: ref,
                  fingerprint: fp,
                  at,
                  refuseBanned: true,
                });
                const prior = keys.get(ref);
                const stack = stacks.get(`${a} ${def}`) ?? { q: 0, seq: 0 };
                if (prior !== undefined) expect(out.status).toBe(prior === fp ? 'replayed' : 'key-reused');
                else if (banned.has(a)) expect(out.status).toBe('suspended');
                else if (stack.q + delta < 0) expect(out).toEqual({ status: 'insufficient', quantity: stack.q });
                else {
                  const e: Entry = { ref, acct: a, def, seq: stack.seq + 1, delta, after: stack.q + delta, at };
                  expect(out).toEqual({
                    status: 'created',
                    entry: { accountId: a, definitionId: def, seq: e.seq, delta, quantityAfter: e.after, sourceRef: ref, at },
                  });
                  keys.set(ref, fp);
                  stacks.set(`${a} ${def}`, { q: e.after, seq: e.seq });
                  entries.push(e);
                  refs.push(ref);
                }
              } else if (o.t === 'reverse') {
                const a = accounts[o.acct]!;
                const target = refs[o.target % refs.length]!;
                const ref = `bag-reversal:r${o.key}`;
                const fp = `${a} ${target}`;
                const out = await s.reverseBag({ accountId: a, reverses: target, sourceRef: ref, fingerprint: fp, note: NOTE, at });
                const prior = keys.get(ref);
                const original = entries.find((e) => e.ref === target && e.acct === a);
                if (prior !== undefined) expect(out.status).toBe(prior === fp ? 'replayed' : 'key-reused');
                else if (!original) expect(out).toEqual({ status: 'no-entry' });
                else if (!target.startsWith('bag-grant:'))
                  expect(out).toMatchObject({ status: 'not-a-grant', entry: { sourceRef: target } });
                else if (original.reversedBy !== undefined)
                  expect(out).toMatchObject({ status: 'already-reversed', entry: { sourceRef: original.reversedBy } });
                else {
                  const stack = stacks.get(`${a} ${original.def}`)!;
                  if (stack.q < original.delta) expect(out).toEqual({ status: 'insufficient', quantity: stack.q });
                  else {
                    const e: Entry = {
                      ref,
                      acct: a,
                      def: original.def,
                      seq: stack.seq + 1,
                      delta: -original.delta,
                      after: stack.q - original.delta,
                      at,
                      reverses: target,
                    };
                    expect(out).toMatchObject({
                      status: 'created',
                      entry: { seq: e.seq, delta: e.delta, quantityAfter: e.after, reverses: target },
                    });
                    keys.set(ref, fp);
                    original.reversedBy = ref;
                    stacks.set(`${a} ${original.def}`, { q: e.after, seq: e.seq });
                    entries.push(e);
                    refs.push(ref);
                  }
                }
              } else if (o.t === 'mint') {
                const a = accounts[o.acct]!;
                const item = instance(a, at);
                const out = await s.mintItem({ item, idempotencyKey: `m${o.key}`, fingerprint: a, refuseBanned: true });
                const prior = mints.get(`m${o.key}`);
                if (prior)
                  expect(out).toMatchObject(
                    prior.fp === a ? { status: 'replayed', item: { studioUuid: prior.id } } : { status: 'key-reused' },
                  );
                else if (banned.has(a)) expect(out.status).toBe('suspended');
                else {
                  expect(out.status).toBe('created');
                  mints.set(`m${o.key}`, { fp: a, id: item.studioUuid });
                  items.push({ id: item.studioUuid, owner: a, state: 'owned', character: null, seq: 1, mintedAt: at });
                }
              } else if (o.t === 'event') {
                const it = items[o.item];
                if (!it) continue;
                const t = ITEM_TRANSITIONS[o.kind];
                const other = accounts.find((x) => x !== it.owner)!;
                const to = o.kind === 'transferred' ? other : undefined;
                const characterId = o.kind === 'assigned' || o.kind === 'equipped' ? heroes[accounts.indexOf(it.owner)]!.id : null;
                const operator = o.kind === 'voided';
                const fp = `${o.kind} ${to ?? ''}`;
                const out = await s.recordItemEvent({
                  studioUuid: it.id,
                  kind: o.kind,
                  from: t.from,
                  to: t.to,
                  accountId: to,
                  characterId,
                  expectedOwner: it.owner,
                  idempotencyKey: `e${o.key}`,
                  fingerprint: fp,
                  at,
                  refuseBanned: !operator,
                  ...(operator ? { note: NOTE } : {}),
                });
                const prior = itemKeys.get(`${it.id} e${o.key}`);
                if (prior !== undefined) expect(out.status).toBe(prior === fp ? 'replayed' : 'key-reused');
                else if (!operator && (banned.has(it.owner) || (to !== undefined && banned.has(to)))) expect(out.status).toBe('suspended');
                else if (!t.from.includes(it.state)) expect(out.status).toBe('forbidden');
                else {
                  expect(out).toMatchObject({ status: 'created', item: { state: t.to, accountId: to ?? it.owner, characterId } });
                  itemKeys.set(`${it.id} e${o.key}`, fp);
                  Object.assign(it, { owner: to ?? it.owner, state: t.to, character: characterId, seq: it.seq + 1 });
                  if (operator) notes.set(`${it.id} ${it.seq}`, NOTE.note);
                }
              } else if (o.t === 'ban' || o.t === 'unban') {
                const a = accounts[o.acct]!;
                const change =
                  o.t === 'ban'
                    ? { kind: 'ban' as const, at: 1_800_000_000, ban: { reason: 'model', at: time(0) } }
                    : { kind: 'unban' as const };
                await ledger.changeAccess({ accountId: a, change, key: undefined, fingerprint: o.t });
                if (o.t === 'ban') banned.add(a);
                else banned.delete(a);
              } else if (o.t === 'page') {
                const a = accounts[o.acct]!;
                const want = entries
                  .filter((e) => e.acct === a)
                  .sort((x, y) => (x.at !== y.at ? (x.at < y.at ? 1 : -1) : x.def !== y.def ? (x.def < y.def ? 1 : -1) : y.seq - x.seq))
                  .map((e) => [e.ref, e.delta, e.after, e.reverses, e.reversedBy]);
                expect(
                  (await allEntries(a, o.limit)).map((e) => [e.sourceRef, e.delta, e.quantityAfter, e.reverses, e.reversedBy]),
                ).toEqual(want);
                const mine = items
                  .filter((x) => x.owner === a)
                  .sort((x, y) => (x.mintedAt !== y.mintedAt ? (x.mintedAt < y.mintedAt ? 1 : -1) : x.id < y.id ? 1 : -1))
                  .map((x) => [x.id, x.state, x.character, x.seq]);
                expect((await allItems(a, o.limit)).map((x) => [x.studioUuid, x.state, x.characterId, x.seq])).toEqual(mine);
              }
              await sound();
            }
            for (const a of accounts) {
              const held = DEFS.map((d) => ({ definitionId: d, quantity: stacks.get(`${a} ${d}`)?.q ?? 0 })).filter((l) => l.quantity > 0);
              expect(await s.bag(a)).toEqual(held.sort((x, y) => (x.definitionId < y.definitionId ? -1 : 1)));
              const owned = items.filter((x) => x.owner === a && ['owned', 'assigned', 'equipped'].includes(x.state)).map((x) => x.id);
              expect((await s.accountItems(a)).map((x) => x.studioUuid).sort()).toEqual(owned.sort());
            }
            for (const [where, note] of notes) {
              const [id, seq] = where.split(' ');
              const page = await s.itemEvents(id!, { beforeSeq: Number(seq) + 1, limit: 1 });
              expect(page?.events[0]).toMatchObject({ kind: 'voided', note });
            }
          } finally {
            await close();
          }
        }),
        { numRuns: 25, seed: 20261128 },
      );
    }, 180_000);
  });
}
