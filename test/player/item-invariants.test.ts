/**
 * The unique items' invariants (spec 2.6; `checkItemInvariants` in `api/_lib/player/items.ts`), the check
 * the contract suites run after every step: an item's events are numbered from its mint, each allowed by
 * the transition table from the state before it (nothing after consumed, destroyed or voided), a transfer
 * alone changes the owner, an assignment and an equipping alone name a character, and the item stands as
 * its events make it. Each broken one is reported with what it found; a sound history reports nothing.
 */
import { describe, expect, it } from 'vitest';
import { checkItemInvariants } from '../../api/_lib/player/items.js';
import type { ItemEvent, ItemEventKind, ItemInstance } from '../../api/_lib/player/types.js';

const ID = 'item-1';
const A = 'acct-a';
const B = 'acct-b';
const C = 'char-1';
const ev = (seq: number, kind: ItemEventKind, accountId = A, characterId: string | null = null): ItemEvent => ({
  studioUuid: ID,
  seq,
  kind,
  accountId,
  characterId,
  at: `2026-11-23T10:00:0${seq}.000Z`,
});
const item = (over: Partial<ItemInstance> = {}): ItemInstance => ({
  studioUuid: ID,
  definitionId: 'ITEM-1',
  accountId: A,
  state: 'owned',
  characterId: null,
  seq: 1,
  mintedAt: '2026-11-23T10:00:01.000Z',
  updatedAt: '2026-11-23T10:00:01.000Z',
  ...over,
});
const messages = (snapshot: Parameters<typeof checkItemInvariants>[0]) =>
  checkItemInvariants(snapshot).map((v) => `${v.invariant}: ${v.message}`);

describe('checkItemInvariants', () => {
  it('finds nothing in sound histories: every transition of the table, a void after equipping, and an empty store', () => {
    const life = [
      ev(1, 'minted'),
      ev(2, 'assigned', A, C),
      ev(3, 'equipped', A, C),
      ev(4, 'unequipped'),
      ev(5, 'transferred', B),
      ev(6, 'consumed', B),
    ];
    const voided = [ev(1, 'minted'), ev(2, 'equipped', A, C), ev(3, 'voided')];
    expect(
      checkItemInvariants([
        { item: item({ accountId: B, state: 'consumed', seq: 6 }), events: life },
        { item: item({ studioUuid: 'item-2', state: 'voided', seq: 3 }), events: voided.map((e) => ({ ...e, studioUuid: 'item-2' })) },
        {
          item: item({ studioUuid: 'item-3', state: 'destroyed', seq: 2 }),
          events: [ev(1, 'minted'), ev(2, 'destroyed')].map((e) => ({ ...e, studioUuid: 'item-3' })),
        },
        { item: item({ studioUuid: 'item-4' }), events: [{ ...ev(1, 'minted'), studioUuid: 'item-4' }] },
      ]),
    ).toEqual([]);
    expect(checkItemInvariants([])).toEqual([]);
  });

  it('reports events out of order, of another item, a history without its mint, and a second mint', () => {
    expect(messages([{ item: item({ seq: 2 }), events: [ev(1, 'minted'), ev(3, 'assigned', A, C)] }])).toContain(
      `events-contiguous: ${ID}: event 2 is numbered 3 of ${ID}.`,
    );
    expect(
      messages([
        {
          item: item({ seq: 2, state: 'assigned', characterId: C }),
          events: [ev(1, 'minted'), { ...ev(2, 'assigned', A, C), studioUuid: 'other' }],
        },
      ]),
    ).toEqual([`events-contiguous: ${ID}: event 2 is numbered 2 of other.`]);
    expect(messages([{ item: item(), events: [] }])).toEqual([`minted-first: ${ID}: the first event is missing, not minted.`]);
    expect(messages([{ item: item(), events: [ev(1, 'assigned', A, C)] }])).toEqual([
      `minted-first: ${ID}: the first event is assigned, not minted.`,
    ]);
    expect(messages([{ item: item({ seq: 2 }), events: [ev(1, 'minted'), ev(2, 'minted')] }])).toEqual([
      `transition: ${ID}: event 2 (minted) mints the item again.`,
    ]);
  });

  it('reports events the table forbids after their state, nothing after a final state, and fields that do not fit the kind', () => {
    const cases: [ItemEvent[], Partial<ItemInstance>, string][] = [
      [[ev(1, 'minted'), ev(2, 'unequipped')], { seq: 2 }, 'event 2 (unequipped) follows owned'],
      [[ev(1, 'minted'), ev(2, 'voided'), ev(3, 'destroyed')], { seq: 3, state: 'destroyed' }, 'event 3 (destroyed) follows voided'],
      [[ev(1, 'minted'), ev(2, 'consumed'), ev(3, 'voided')], { seq: 3, state: 'voided' }, 'event 3 (voided) follows consumed'],
      [
        [ev(1, 'minted'), ev(2, 'equipped', A, C), ev(3, 'transferred', B)],
        { seq: 3, accountId: B },
        'event 3 (transferred) follows equipped',
      ],
      [[ev(1, 'minted'), ev(2, 'transferred', A)], { seq: 2 }, 'event 2 (transferred) keeps the owner'],
      [[ev(1, 'minted'), ev(2, 'voided', B)], { seq: 2, state: 'voided', accountId: B }, 'event 2 (voided) changes the owner'],
      [[ev(1, 'minted'), ev(2, 'equipped')], { seq: 2, state: 'equipped' }, 'event 2 (equipped) names the wrong character'],
      [[ev(1, 'minted'), ev(2, 'voided', A, C)], { seq: 2, state: 'voided', characterId: C }, 'event 2 (voided) names the wrong character'],
    ];
    for (const [events, over, says] of cases)
      expect(messages([{ item: item(over), events }]), says).toEqual([`transition: ${ID}: ${says}.`]);
  });

  it('reports an item that does not stand as its events make it', () => {
    const events = [ev(1, 'minted'), ev(2, 'equipped', A, C), ev(3, 'voided')];
    const wrong: Partial<ItemInstance>[] = [
      { seq: 3, state: 'equipped', characterId: null },
      { seq: 3, state: 'voided', accountId: B },
      { seq: 3, state: 'voided', characterId: C },
      { seq: 2, state: 'voided' },
    ];
    for (const over of wrong) {
      const found = messages([{ item: item(over), events }]);
      expect(found, JSON.stringify(over)).toEqual([
        `stands-as-replayed: ${ID}: stands ${over.state} of ${over.accountId ?? A} on ${over.characterId ?? null} at ${over.seq}; its events make it voided of ${A} on null at 3.`,
      ]);
    }
  });
});
