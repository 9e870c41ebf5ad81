/**
 * The operators' histories called directly (`api/_lib/operations/history.ts`; docs/architecture.md,
 * "Player look-up"): what each page asks the store for, how its rows read, and its cursors: each one
 * encodes the store's position of the page's last row, is bound to the account (or item) and filters it
 * was issued for, and is refused, saying why, when it does not read exactly its form.
 */
import { describe, expect, it } from 'vitest';
import type { Account } from '../../api/_lib/ledger/types.js';
import { bagEntryView, bagPage, itemEventPage, itemEventView, itemPage, itemView } from '../../api/_lib/operations/history.js';
import type { BagRecord, ItemInstance, PlayerStore } from '../../api/_lib/player/types.js';
import { requestFingerprint } from '../../api/_lib/stores/idempotency.js';
import { refusal } from '../helpers/ledger-ops.js';

const A: Account = {
  accountId: '11111111-1111-4111-8111-111111111111',
  studioId: 'STUDIO_AAAAAAAAAAAAAAAA',
  displayName: 'Ada',
  userId: '22222222-2222-4222-8222-222222222222',
  username: 'ada',
  createdAt: '2026-11-23T10:00:00.000Z',
};
const B: Account = { ...A, accountId: '33333333-3333-4333-8333-333333333333', studioId: 'STUDIO_BBBBBBBBBBBBBBBB' };
const ITEM = '44444444-4444-4444-8444-444444444444';
const T = '2026-11-23T10:00:05.123Z';

const record = (over: Partial<BagRecord> = {}): BagRecord => ({
  accountId: A.accountId,
  definitionId: 'MATL-IRON-1',
  seq: 2,
  delta: 3,
  quantityAfter: 7,
  sourceRef: 'bag-grant:key-0001',
  at: T,
  ...over,
});
const instance = (over: Partial<ItemInstance> = {}): ItemInstance => ({
  studioUuid: ITEM,
  definitionId: 'ITEM-1',
  accountId: A.accountId,
  state: 'voided',
  characterId: null,
  seq: 3,
  mintedAt: T,
  updatedAt: '2026-11-23T11:00:00.000Z',
  ...over,
});

/** A player store answering pages from the given rows and remembering what it was asked. */
function stub(pages: { entries?: BagRecord[]; items?: ItemInstance[]; more?: boolean; events?: boolean }) {
  const asked: unknown[] = [];
  const store = {
    bag: (id: string) => (asked.push(['bag', id]), Promise.resolve([{ definitionId: 'MATL-IRON-1', quantity: 7 }])),
    bagEntries: (id: string, o: unknown) => {
      asked.push(['bagEntries', id, o]);
      const entries = pages.entries ?? [];
      const last = entries[entries.length - 1];
      return Promise.resolve({
        entries,
        next: pages.more && last ? { at: last.at, definitionId: last.definitionId, seq: last.seq } : undefined,
      });
    },
    itemsOf: (id: string, o: unknown) => {
      asked.push(['itemsOf', id, o]);
      const items = pages.items ?? [];
      const last = items[items.length - 1];
      return Promise.resolve({ items, next: pages.more && last ? { mintedAt: last.mintedAt, studioUuid: last.studioUuid } : undefined });
    },
    itemEvents: (id: string, o: unknown) => {
      asked.push(['itemEvents', id, o]);
      if (!pages.events) return Promise.resolve(undefined);
      return Promise.resolve({
        item: instance(),
        events: [
          { studioUuid: ITEM, seq: 3, kind: 'voided', accountId: A.accountId, characterId: null, at: T, note: 'dupe', actor: 'admin:OPS' },
        ],
        nextBeforeSeq: pages.more ? 3 : undefined,
      });
    },
  } as unknown as PlayerStore;
  return { store, asked };
}

const text = (cursor: string) => Buffer.from(cursor, 'base64url').toString('utf8');
/** The binding a cursor of these parts carries (a cursor handed out before an upgrade is taken after it). */
const bound = (parts: unknown[]) => requestFingerprint(parts).slice(0, 16);
const cursorOf = (s: string) => Buffer.from(s).toString('base64url');

describe('views', () => {
  it('reads a bag record as operators see it: its kind by its source ref, links and a reversal’s reason and actor', () => {
    expect(bagEntryView(record())).toEqual({
      sourceRef: 'bag-grant:key-0001',
      kind: 'grant',
      definitionId: 'MATL-IRON-1',
      seq: 2,
      delta: 3,
      quantityAfter: 7,
      at: T,
    });
    // members only when present
    expect(Object.keys(bagEntryView(record()))).toEqual(['sourceRef', 'kind', 'definitionId', 'seq', 'delta', 'quantityAfter', 'at']);
    expect(bagEntryView(record({ sourceRef: 'bag-grant:key-0001', reversedBy: 'bag-reversal:r-0001' }))).toMatchObject({
      kind: 'grant',
      reversedBy: 'bag-reversal:r-0001',
    });
    expect(bagEntryView(record({ sourceRef: 'bag-consume:c-0001', delta: -1 })).kind).toBe('consume');
    const reversal = bagEntryView(
      record({ sourceRef: 'bag-reversal:r-0001', delta: -3, reverses: 'bag-grant:key-0001', note: 'why', actor: 'admin:OPS' }),
    );
    expect(reversal).toEqual({
      sourceRef: 'bag-reversal:r-0001',
      kind: 'reversal',
      definitionId: 'MATL-IRON-1',
      seq: 2,
      delta: -3,
      quantityAfter: 7,
      at: T,
      reverses: 'bag-grant:key-0001',
      reason: 'why',
      actor: 'admin:OPS',
    });
    expect(bagEntryView(record({ note: '' }))).toMatchObject({ reason: '', actor: '' });
  });

  it('lists an item with its state, events so far and times, and an event with an operator’s reason', () => {
    expect(itemView(instance())).toEqual({
      studioUuid: ITEM,
      definitionId: 'ITEM-1',
      state: 'voided',
      characterId: null,
      seq: 3,
      mintedAt: T,
      updatedAt: '2026-11-23T11:00:00.000Z',
    });
    const base = { studioUuid: ITEM, seq: 2, kind: 'equipped' as const, accountId: A.accountId, characterId: 'c', at: T };
    expect(itemEventView(base)).toEqual(base);
    expect(itemEventView({ ...base, kind: 'voided', note: 'dupe', actor: 'admin:OPS' })).toEqual({
      ...base,
      kind: 'voided',
      reason: 'dupe',
      actor: 'admin:OPS',
    });
    expect(itemEventView({ ...base, note: 'n' })).toEqual({ ...base, reason: 'n', actor: '' });
  });
});

describe('bagPage', () => {
  it('asks the store for the account’s quantities and a page of its entries, and hands out a cursor of the last row', async () => {
    const { store, asked } = stub({ entries: [record({ seq: 3 }), record({ seq: 2, sourceRef: 'bag-grant:key-0000' })], more: true });
    const page = await bagPage(store, A, { limit: 2, definitionId: 'MATL-IRON-1' });
    expect(asked).toEqual([
      ['bag', A.accountId],
      ['bagEntries', A.accountId, { definitionId: 'MATL-IRON-1', before: undefined, limit: 2 }],
    ]);
    expect(page.bag).toEqual([{ definitionId: 'MATL-IRON-1', quantity: 7 }]);
    expect(page.entries.map((e) => e.seq)).toEqual([3, 2]);
    expect(page.hasMore).toBe(true);
    expect(text(page.cursor!)).toBe(`b1.${bound(['bag', A.accountId, 'MATL-IRON-1'])}.2.2026-11-23T10:00:05.123Z.MATL-IRON-1`);
    // the cursor takes the next page from that row on, for the same account and filter only
    const next = stub({ entries: [] });
    const last = await bagPage(next.store, A, { limit: 2, definitionId: 'MATL-IRON-1', cursor: page.cursor! });
    expect(next.asked[1]).toEqual([
      'bagEntries',
      A.accountId,
      { definitionId: 'MATL-IRON-1', before: { at: T, definitionId: 'MATL-IRON-1', seq: 2 }, limit: 2 },
    ]);
    expect([last.cursor, last.hasMore]).toEqual([null, false]);
    for (const [account, definitionId] of [
      [B, 'MATL-IRON-1'],
      [A, undefined],
      [A, 'MATL-IRON-2'],
    ] as const) {
      const e = await refusal(bagPage(stub({}).store, account, { limit: 2, definitionId, cursor: page.cursor! }));
      expect([e.code, e.message, e.errors]).toEqual([
        'INVALID_QUERY',
        'The cursor is not valid here: it was issued for another account or other filters. Start again without a cursor.',
        [{ name: 'cursor', message: 'it was issued for another account or other filters' }],
      ]);
    }
    // a last page without a next position hands out none, whatever its length
    expect((await bagPage(stub({ entries: [record()], more: false }).store, A, { limit: 1 })).cursor).toBeNull();
  });

  it('refuses a cursor that does not read exactly its form', async () => {
    const { store } = stub({ entries: [record()], more: true });
    const good = text((await bagPage(store, A, { limit: 1 })).cursor!);
    const [form, binding] = good.split('.') as [string, string];
    const bad = [
      'not base64 at all!',
      cursorOf(`${good}.x`),
      cursorOf(`x${good}`),
      cursorOf(good.replace(/^b1/, 'b2')),
      cursorOf(`${form}.${binding}.0.${T}.MATL-IRON-1`),
      cursorOf(`${form}.${binding}.01.${T}.MATL-IRON-1`),
      cursorOf(`${form}.${binding}.12345678901234567.${T}.MATL-IRON-1`),
      cursorOf(`${form}.${binding}.2.2026-11-23T10:00:05Z.MATL-IRON-1`),
      cursorOf(`${form}.${binding}.2.${T}.ITEM-1`),
      cursorOf(`${form}.${binding}.2.${T}.MATL-`),
      cursorOf(`${form}.${binding.slice(1)}.2.${T}.MATL-IRON-1`),
      cursorOf(`${form}.${binding.toUpperCase()}.2.${T}.MATL-IRON-1`),
    ];
    for (const cursor of bad) {
      const e = await refusal(bagPage(stub({}).store, A, { limit: 1, cursor }));
      expect([e.code, e.message], text(cursor)).toEqual([
        'INVALID_QUERY',
        'The cursor is not valid here: it is not a cursor of this list. Start again without a cursor.',
      ]);
    }
    // the longest sequence a cursor carries
    const longest = await bagPage(stub({}).store, A, {
      limit: 1,
      cursor: cursorOf(`${form}.${binding}.1234567890123456.${T}.MATL-IRON-1`),
    });
    expect(longest.entries).toEqual([]);
  });
});

describe('itemPage', () => {
  it('asks for a page of the account’s items of a state, and binds its cursor to the account and the state', async () => {
    const { store, asked } = stub({ items: [instance()], more: true });
    const page = await itemPage(store, A, { limit: 1, state: 'voided' });
    expect(asked).toEqual([['itemsOf', A.accountId, { state: 'voided', after: undefined, limit: 1 }]]);
    expect(page.items).toEqual([itemView(instance())]);
    expect([text(page.cursor!), page.hasMore]).toEqual([
      `i1.${bound(['items', A.accountId, 'voided'])}.2026-11-23T10:00:05.123Z.${ITEM}`,
      true,
    ]);
    const next = stub({ items: [] });
    expect(await itemPage(next.store, A, { limit: 1, state: 'voided', cursor: page.cursor! })).toEqual({
      items: [],
      cursor: null,
      hasMore: false,
    });
    expect(next.asked).toEqual([['itemsOf', A.accountId, { state: 'voided', after: { mintedAt: T, studioUuid: ITEM }, limit: 1 }]]);
    for (const [account, state] of [
      [B, 'voided'],
      [A, undefined],
    ] as const) {
      const e = await refusal(itemPage(stub({}).store, account, { limit: 1, state, cursor: page.cursor! }));
      expect(e.message).toBe(
        'The cursor is not valid here: it was issued for another account or other filters. Start again without a cursor.',
      );
    }
    const [form, binding] = text(page.cursor!).split('.');
    for (const cursor of [
      cursorOf(`${form}.${binding}.${T}.${ITEM.slice(0, -1)}g`),
      cursorOf(`${form}.${binding}.${T}.${ITEM}x`),
      cursorOf(`${form}.${binding}.2026-11-23.${ITEM}`),
      cursorOf(`b1.${binding}.${T}.${ITEM}`),
    ]) {
      const e = await refusal(itemPage(stub({}).store, A, { limit: 1, state: 'voided', cursor }));
      expect(e.message, text(cursor)).toBe('The cursor is not valid here: it is not a cursor of this list. Start again without a cursor.');
    }
  });
});

describe('itemEventPage', () => {
  const ledger = (owner: Account | undefined) => ({
    findAccount: (s: { accountId?: string }) => Promise.resolve(s.accountId === A.accountId ? owner : undefined),
  });

  it('answers the item with its owner and a page of its events, a void with its reason, and a cursor bound to the item', async () => {
    const { store, asked } = stub({ events: true, more: true });
    const page = await itemEventPage({ ledger: ledger(A) as never, player: store }, ITEM.toUpperCase(), { limit: 1 });
    expect(asked).toEqual([['itemEvents', ITEM, { beforeSeq: undefined, limit: 1 }]]);
    expect(page.item).toEqual({ ...itemView(instance()), owner: { accountId: A.accountId, studioId: A.studioId } });
    expect(page.events).toEqual([
      { studioUuid: ITEM, seq: 3, kind: 'voided', accountId: A.accountId, characterId: null, at: T, reason: 'dupe', actor: 'admin:OPS' },
    ]);
    expect([text(page.cursor!), page.hasMore]).toEqual([`e1.${bound(['item-events', ITEM])}.3`, true]);
    const next = stub({ events: true });
    const last = await itemEventPage({ ledger: ledger(undefined) as never, player: next.store }, ITEM, { limit: 1, cursor: page.cursor! });
    expect(next.asked).toEqual([['itemEvents', ITEM, { beforeSeq: 3, limit: 1 }]]);
    expect([last.cursor, last.hasMore, last.item.owner]).toEqual([null, false, { accountId: A.accountId, studioId: '' }]);
    const other = await refusal(
      itemEventPage({ ledger: ledger(A) as never, player: stub({ events: true }).store }, '55555555-5555-4555-8555-555555555555', {
        limit: 1,
        cursor: page.cursor!,
      }),
    );
    expect(other.message).toBe(
      'The cursor is not valid here: it was issued for another item or other filters. Start again without a cursor.',
    );
    const [form, binding] = text(page.cursor!).split('.');
    for (const cursor of [
      cursorOf(`${form}.${binding}.0`),
      cursorOf(`${form}.${binding}.3.`),
      cursorOf(`${form}.${binding}.-3`),
      cursorOf(`x${form}.${binding}.3`),
    ]) {
      const e = await refusal(
        itemEventPage({ ledger: ledger(A) as never, player: stub({ events: true }).store }, ITEM, { limit: 1, cursor }),
      );
      expect(e.message, text(cursor)).toBe('The cursor is not valid here: it is not a cursor of this list. Start again without a cursor.');
    }
  });

  it('refuses a definition id or anything but a uuid, and answers 404 for an item never minted', async () => {
    const stores = { ledger: ledger(A) as never, player: stub({}).store };
    expect((await refusal(itemEventPage(stores, 'ITEM-1', { limit: 1 }))).code).toBe('BAD_REQUEST');
    expect((await refusal(itemEventPage(stores, 'nope', { limit: 1 }))).code).toBe('BAD_REQUEST');
    const e = await refusal(itemEventPage(stores, ITEM, { limit: 1 }));
    expect([e.code, e.message]).toEqual(['NOT_FOUND', 'No item has this studio_uuid.']);
  });
});
