/**
 * Paged histories of an account's player state for operators (spec 2.6, 2.8, 4.8; docs/architecture.md,
 * "Player look-up"): the bag's entries with their reversal links, the account's unique items in every
 * state, and one item's events, each newest first and paged by an opaque cursor, as the wallet's history
 * is (`walletPage`, `api/_lib/ledger/service.ts`); `lookup.ts` answers the routes with them. Read-only.
 *
 * Cursors: base64url of `<form>.<binding>.<position>`, where the binding (16 hex digits of
 * `requestFingerprint`) ties the cursor to the account (or item) and the filters it was issued for, and
 * the position is the store's place of the page's last row. A cursor is decoded the way Node decodes
 * base64url (characters outside the alphabet skipped) and must then read exactly its form; anything else,
 * or a cursor of another account, item or filter, is 400 `INVALID_QUERY` saying so.
 */
import { ServiceError } from '../errors.js';
import type { Account, LedgerStore } from '../ledger/types.js';
import { instanceIdOf } from '../player/items.js';
import {
  bagEntryKind,
  ITEM_STATES,
  type BagEntryKind,
  type BagLine,
  type BagPosition,
  type BagRecord,
  type ItemEventRecord,
  type ItemInstance,
  type ItemPosition,
  type ItemState,
  type PlayerStore,
} from '../player/types.js';
import { requestFingerprint } from '../stores/idempotency.js';

/** The stores the histories read. */
export interface HistoryStores {
  readonly ledger: LedgerStore;
  readonly player: PlayerStore;
}

const LIMIT = { kind: 'int', min: 1, max: 200, default: 50, clamp: true } as const;
const CURSOR = { kind: 'string', maxLength: 300 } as const;

/** Query of `GET /api/admin/players/{key}/bag`: `limit` 1-200 (default 50, clamped), `cursor`, `definitionId`. */
export const BAG_HISTORY_PARAMS = Object.freeze({
  limit: LIMIT,
  cursor: CURSOR,
  definitionId: { kind: 'string', maxLength: 128, pattern: /^(MATL|FOOD|POTN|CONS)-[A-Za-z0-9-]+$/ },
} as const);

/** Query of `GET /api/admin/players/{key}/items`: `limit`, `cursor`, `state` (one of the item states). */
export const ITEM_LIST_PARAMS = Object.freeze({
  limit: LIMIT,
  cursor: CURSOR,
  state: { kind: 'enum', values: ITEM_STATES },
} as const);

/** Query of `GET /api/admin/items/{studio_uuid}/events`: `limit`, `cursor`. */
export const ITEM_EVENT_PARAMS = Object.freeze({ limit: LIMIT, cursor: CURSOR } as const);

/** The 400 of a cursor that is not one of this page's. */
function badCursor(why: string): ServiceError {
  return new ServiceError('INVALID_QUERY', `The cursor is not valid here: ${why}. Start again without a cursor.`, {
    errors: [{ name: 'cursor', message: why }],
  });
}

/** 16 hex digits binding a cursor to what it was issued for. */
const bindingOf = (parts: readonly unknown[]): string => requestFingerprint(parts).slice(0, 16);

const encode = (text: string): string => Buffer.from(text).toString('base64url');

/**
 * The groups of a cursor's text matched by `form` (whose first group is the binding), checked against
 * `binding`. @throws ServiceError INVALID_QUERY
 */
function decode(cursor: string, form: RegExp, binding: string, what: string): string[] {
  const m = form.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  if (!m) throw badCursor('it is not a cursor of this list');
  if (m[1] !== binding) throw badCursor(`it was issued for another ${what} or other filters`);
  return m.slice(2);
}

const TIME = '(\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{3}Z)';
const BAG_CURSOR = new RegExp(`^b1\\.([0-9a-f]{16})\\.([1-9]\\d{0,15})\\.${TIME}\\.((?:MATL|FOOD|POTN|CONS)-[A-Za-z0-9-]{1,123})$`);
const ITEM_CURSOR = new RegExp(`^i1\\.([0-9a-f]{16})\\.${TIME}\\.([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$`);
const EVENT_CURSOR = /^e1\.([0-9a-f]{16})\.([1-9]\d{0,15})$/;

// ---------------------------------------------------------------- the bag

/** One bag entry as operators read it. */
export interface BagHistoryEntry {
  /** The entry's name: `bag-grant:{key}`, `bag-consume:{key}` or `bag-reversal:{key}`. */
  readonly sourceRef: string;
  readonly kind: BagEntryKind;
  readonly definitionId: string;
  /** Its place in its stack (account and definition), from 1. */
  readonly seq: number;
  /** Units: positive for a grant, negative for a consumption or a reversal. */
  readonly delta: number;
  readonly quantityAfter: number;
  readonly at: string;
  /** For a reversal: the grant it reverses. */
  readonly reverses?: string;
  /** For a reversed grant: its reversal. */
  readonly reversedBy?: string;
  /** For a reversal: why (blank after an erasure) and who asked. */
  readonly reason?: string;
  readonly actor?: string;
}

/** A page of an account's bag entries (what `GET /api/admin/players/{key}/bag` answers but the account). */
export interface BagPage {
  /** The stackables held now, by definition id. */
  readonly bag: readonly BagLine[];
  readonly entries: readonly BagHistoryEntry[];
  /** Cursor of the next page (same filter), or null on the last page. */
  readonly cursor: string | null;
  readonly hasMore: boolean;
}

/** How operators read a bag record. Pure. */
export function bagEntryView(e: BagRecord): BagHistoryEntry {
  return {
    sourceRef: e.sourceRef,
    // every stored entry has one of the three families (`changeBag`, `reverseBag`)
    kind: bagEntryKind(e.sourceRef)!,
    definitionId: e.definitionId,
    seq: e.seq,
    delta: e.delta,
    quantityAfter: e.quantityAfter,
    at: e.at,
    ...(e.reverses === undefined ? {} : { reverses: e.reverses }),
    ...(e.reversedBy === undefined ? {} : { reversedBy: e.reversedBy }),
    ...(e.note === undefined ? {} : { reason: e.note, actor: e.actor ?? '' }),
  };
}

/**
 * A page of `account`'s bag entries, newest first (time, then definition id and sequence), with the
 * quantities held now.
 * @param query `limit` 1-1000, `cursor` of an earlier page of the same account and filter, `definitionId` filter.
 * @throws ServiceError INVALID_QUERY (a cursor of another list), UPSTREAM_UNAVAILABLE
 */
export async function bagPage(
  player: PlayerStore,
  account: Account,
  query: { readonly limit: number; readonly cursor?: string | undefined; readonly definitionId?: string | undefined },
): Promise<BagPage> {
  const binding = bindingOf(['bag', account.accountId, query.definitionId ?? null]);
  let before: BagPosition | undefined;
  if (query.cursor !== undefined) {
    const [seq, at, definitionId] = decode(query.cursor, BAG_CURSOR, binding, 'account');
    before = { at: at!, definitionId: definitionId!, seq: Number(seq) };
  }
  const [bag, page] = await Promise.all([
    player.bag(account.accountId),
    player.bagEntries(account.accountId, { definitionId: query.definitionId, before, limit: query.limit }),
  ]);
  const next = page.next;
  return {
    bag,
    entries: page.entries.map(bagEntryView),
    cursor: next === undefined ? null : encode(`b1.${binding}.${next.seq}.${next.at}.${next.definitionId}`),
    hasMore: next !== undefined,
  };
}

// ---------------------------------------------------------------- the account's items

/** One unique item as operators list it. */
export interface ItemView {
  readonly studioUuid: string;
  readonly definitionId: string;
  readonly state: ItemState;
  readonly characterId: string | null;
  /** Events so far. */
  readonly seq: number;
  readonly mintedAt: string;
  readonly updatedAt: string;
}

/** A page of an account's items (what `GET /api/admin/players/{key}/items` answers but the account). */
export interface ItemPage {
  readonly items: readonly ItemView[];
  readonly cursor: string | null;
  readonly hasMore: boolean;
}

/** How operators list an item. Pure. */
export function itemView(i: ItemInstance): ItemView {
  return {
    studioUuid: i.studioUuid,
    definitionId: i.definitionId,
    state: i.state,
    characterId: i.characterId,
    seq: i.seq,
    mintedAt: i.mintedAt,
    updatedAt: i.updatedAt,
  };
}

/**
 * A page of `account`'s unique items, newest mint first: those it owns now and those that ended in its
 * hands (consumed, destroyed, voided), each with its state.
 * @param query `limit` 1-1000, `cursor`, `state` filter.
 * @throws ServiceError INVALID_QUERY, UPSTREAM_UNAVAILABLE
 */
export async function itemPage(
  player: PlayerStore,
  account: Account,
  query: { readonly limit: number; readonly cursor?: string | undefined; readonly state?: ItemState | undefined },
): Promise<ItemPage> {
  const binding = bindingOf(['items', account.accountId, query.state ?? null]);
  let after: ItemPosition | undefined;
  if (query.cursor !== undefined) {
    const [mintedAt, studioUuid] = decode(query.cursor, ITEM_CURSOR, binding, 'account');
    after = { mintedAt: mintedAt!, studioUuid: studioUuid! };
  }
  const page = await player.itemsOf(account.accountId, { state: query.state, after, limit: query.limit });
  const next = page.next;
  return {
    items: page.items.map(itemView),
    cursor: next === undefined ? null : encode(`i1.${binding}.${next.mintedAt}.${next.studioUuid}`),
    hasMore: next !== undefined,
  };
}

// ---------------------------------------------------------------- one item's events

/** An item event as operators read it: an operator's (a void) with its reason and who asked. */
export type ItemEventView = Omit<ItemEventRecord, 'note'> & { readonly reason?: string };

/** How operators read an event. Pure. */
export function itemEventView(e: ItemEventRecord): ItemEventView {
  const { note, actor, ...event } = e;
  return { ...event, ...(note === undefined ? {} : { reason: note, actor: actor ?? '' }) };
}

/** Answer of `GET /api/admin/items/{studio_uuid}/events`. */
export interface ItemEventPage {
  readonly item: ItemView & { readonly owner: { readonly accountId: string; readonly studioId: string } };
  readonly events: readonly ItemEventView[];
  readonly cursor: string | null;
  readonly hasMore: boolean;
}

/**
 * A page of one item's events, newest first, with the item as it stands and its owner.
 * @param key the item's studio_uuid as the path sent it.
 * @throws ServiceError BAD_REQUEST (not a uuid; a definition id), NOT_FOUND, INVALID_QUERY, UPSTREAM_UNAVAILABLE
 */
export async function itemEventPage(
  stores: HistoryStores,
  key: string,
  query: { readonly limit: number; readonly cursor?: string | undefined },
): Promise<ItemEventPage> {
  const studioUuid = instanceIdOf(key);
  const binding = bindingOf(['item-events', studioUuid]);
  const beforeSeq = query.cursor === undefined ? undefined : Number(decode(query.cursor, EVENT_CURSOR, binding, 'item')[0]);
  const page = await stores.player.itemEvents(studioUuid, { beforeSeq, limit: query.limit });
  if (!page) throw new ServiceError('NOT_FOUND', 'No item has this studio_uuid.');
  const owner = await stores.ledger.findAccount({ accountId: page.item.accountId });
  return {
    item: { ...itemView(page.item), owner: { accountId: page.item.accountId, studioId: owner?.studioId ?? '' } },
    events: page.events.map(itemEventView),
    cursor: page.nextBeforeSeq === undefined ? null : encode(`e1.${binding}.${page.nextBeforeSeq}`),
    hasMore: page.nextBeforeSeq !== undefined,
  };
}
