/**
 * Unique items (spec 2.6 `studio_uuid`, 4.8 `/api/uuid` and `/api/ledger`): minting an instance of a
 * catalog definition, and the append-only record of what happens to it, with the one transition table
 * both store adapters apply atomically (the adapters receive the allowed states of each event).
 *
 * Transitions (an event another state forbids is a 409 and changes nothing):
 *
 * | event | from | to |
 * |---|---|---|
 * | `minted` | (none: `POST /api/uuid`) | owned |
 * | `assigned` (to a character of the owner) | owned, assigned | assigned |
 * | `equipped` (on a character of the owner) | owned, assigned | equipped |
 * | `unequipped` | equipped | owned |
 * | `transferred` (to another account) | owned, assigned | owned |
 * | `consumed` | owned, assigned, equipped | consumed (final) |
 * | `destroyed` | owned, assigned, equipped | destroyed (final) |
 * | `voided` (an operator's, {@link voidItem}) | owned, assigned, equipped | voided (final) |
 *
 * Nothing follows a final state (409): the item is no longer owned (the inventory, the account's owned
 * items and what a character may wear leave it out) and stays in its history. Invariants
 * ({@link checkItemInvariants}): an item's events are numbered 1, 2, … from its mint, each allowed by the
 * table from the state before it, and the item as it stands is what its events make it.
 *
 * Definitions: an instance names an `ITEM-*` definition of the published catalog's
 * `canonical-items-manifest.json` whose kind is not consumable (stackable definitions, `MATL-*` and
 * consumables, are held as bag quantities, never as instances). An instance id is an RFC 4122 uuid,
 * never a definition id, and a definition id is never taken as an instance id (both are 400s that say so).
 */
import { readCatalogJson } from '../catalog/store.js';
import { ServiceError } from '../errors.js';
import { mintUuid, STUDIO_ID, UUID } from '../ledger/ids.js';
import { suspended } from '../ledger/service.js';
import type { Account, AccountSelector, LedgerStore } from '../ledger/types.js';
import { systemClock, type Clock } from '../stores/clock.js';
import { requestFingerprint } from '../stores/idempotency.js';
import type {
  EntryNote,
  ItemEvent,
  ItemEventKind,
  ItemEventOutcome,
  ItemEventRequest,
  ItemInstance,
  ItemState,
  PlayerStore,
} from './types.js';
import { noteAuditAccount } from '../util/audit-scope.js';

/** The transition table (see the module header). */
export const ITEM_TRANSITIONS: Readonly<
  Record<Exclude<ItemEventKind, 'minted'>, { readonly from: readonly ItemState[]; readonly to: ItemState }>
> = Object.freeze({
  assigned: { from: ['owned', 'assigned'], to: 'assigned' },
  equipped: { from: ['owned', 'assigned'], to: 'equipped' },
  unequipped: { from: ['equipped'], to: 'owned' },
  transferred: { from: ['owned', 'assigned'], to: 'owned' },
  consumed: { from: ['owned', 'assigned', 'equipped'], to: 'consumed' },
  destroyed: { from: ['owned', 'assigned', 'equipped'], to: 'destroyed' },
  voided: { from: ['owned', 'assigned', 'equipped'], to: 'voided' },
});

/** The events a game server records (`POST /api/ledger/{studio_uuid}/events`): every one but the mint and an operator's void. */
export type GameServerEvent = Exclude<ItemEventKind, 'minted' | 'voided'>;

/** Item definition ids of the published catalog's `canonical-items-manifest.json`, by kind. */
export interface ItemDefinitions {
  /** `ITEM-*` definitions that are not consumables: instantiated as unique items. */
  readonly unique: ReadonlySet<string>;
  /** Consumables (`FOOD-*`, `POTN-*`, `CONS-*`): held as bag quantities. */
  readonly consumables: ReadonlySet<string>;
}

/** The one reader of `canonical-items-manifest.json` (the catalog reader keeps one transform per file). */
export function itemDefinitions(): Promise<ItemDefinitions> {
  return readCatalogJson('api/v1/canonical-items-manifest.json', (raw) => {
    const items = (raw as { items?: unknown } | null)?.items;
    if (!Array.isArray(items)) throw new Error('items is not a list');
    const unique = new Set<string>();
    const consumables = new Set<string>();
    for (const i of items as { uuid?: unknown; kind?: unknown }[]) {
      if (typeof i.uuid !== 'string') continue;
      if (i.kind === 'consumable') consumables.add(i.uuid);
      else if (i.uuid.startsWith('ITEM-')) unique.add(i.uuid);
    }
    return { unique, consumables };
  });
}

/** An account by a selector. @throws ServiceError NOT_FOUND naming the field */
async function accountOf(ledger: LedgerStore, selector: AccountSelector, field: string): Promise<Account> {
  const account = await ledger.findAccount(selector);
  if (!account) throw new ServiceError('NOT_FOUND', `No account has this ${field}.`);
  noteAuditAccount(account.accountId);
  return account;
}

/** Body of `POST /api/uuid` (schema `item-mint`). */
export interface MintBody {
  readonly definitionId: string;
  readonly studioId?: string;
  readonly accountId?: string;
  readonly idempotencyKey: string;
}

/** An instance as answered, with its owner's both ids. */
function itemView(item: ItemInstance, owner: Account) {
  return { ...item, owner: { accountId: owner.accountId, studioId: owner.studioId } };
}

/**
 * Mint a unique item for an account, once per idempotency key (a retry answers the same id, forever).
 * @throws ServiceError 400 INVALID_BODY (not a unique-item definition of the catalog), 404 (no such
 *   account), 422 IDEMPOTENCY_KEY_REUSED, 503
 */
export async function mintItem(store: PlayerStore, ledger: LedgerStore, body: MintBody, clock: Clock = systemClock) {
  if (!(await itemDefinitions()).unique.has(body.definitionId)) {
    throw new ServiceError('INVALID_BODY', `${body.definitionId.slice(0, 80)} is not a unique-item definition of the catalog.`, {
      errors: [
        {
          name: '/definitionId',
          message:
            'Must be an ITEM-* definition of canonical-items-manifest.json that is not a consumable (stackables are bag quantities, not instances).',
        },
      ],
    });
  }
  const owner = await accountOf(
    ledger,
    body.studioId !== undefined ? { studioId: body.studioId } : { accountId: body.accountId! },
    body.studioId !== undefined ? 'studioId' : 'accountId',
  );
  const at = clock().toISOString();
  const item: ItemInstance = {
    studioUuid: mintUuid(),
    definitionId: body.definitionId,
    accountId: owner.accountId,
    state: 'owned',
    characterId: null,
    seq: 1,
    mintedAt: at,
    updatedAt: at,
  };
  const out = await store.mintItem({
    item,
    idempotencyKey: body.idempotencyKey,
    fingerprint: requestFingerprint([body.definitionId, owner.accountId]),
  });
  if (out.status === 'key-reused')
    throw new ServiceError(
      'IDEMPOTENCY_KEY_REUSED',
      'This idempotency key minted another item (another definition or owner); use a new key.',
    );
  if (out.status === 'suspended') throw suspended(out.ban);
  return { item: itemView(out.item, owner), idempotent: out.status === 'replayed' };
}

/**
 * The instance id of a path key.
 * @throws ServiceError BAD_REQUEST for a definition id (never an instance id) or anything but a uuid
 */
export function instanceIdOf(key: string | undefined): string {
  const k = key ?? '';
  if (/^[A-Z]{3,4}-/.test(k))
    throw new ServiceError(
      'BAD_REQUEST',
      `"${k.slice(0, 60)}" is a definition id; an item instance is named by its studio_uuid (an RFC 4122 uuid).`,
    );
  if (!UUID.test(k)) throw new ServiceError('BAD_REQUEST', 'An item instance is named by its studio_uuid, an RFC 4122 uuid.');
  return k.toLowerCase();
}

/** Body of `POST /api/ledger/{studio_uuid}/events` (schema `item-event`). */
export interface ItemEventBody {
  readonly event: GameServerEvent;
  readonly idempotencyKey: string;
  /** For `assigned` and `equipped`: a character of the owner. */
  readonly characterId?: string;
  /** For `transferred`: the new owner, by exactly one selector. */
  readonly toStudioId?: string;
  readonly toAccountId?: string;
}

/** Attempts of an item event whose item changed hands between its checks and its write. */
const EVENT_ATTEMPTS = 3;

/**
 * Record an event of a unique item, once per (item, idempotency key). The owner and the character it is
 * checked against are checked again in the store's write itself: an item that changed hands meanwhile is
 * checked anew, up to {@link EVENT_ATTEMPTS} times. A key used before answers its first result whatever
 * the item's state now (a retried transfer is a replay, not "already belongs to this account").
 * @throws ServiceError 400 (a missing or foreign character, a transfer without or to the same owner),
 *   404 (no such item or target account), 409 CONFLICT (the item's state forbids the event, or it kept
 *   changing hands), 422 IDEMPOTENCY_KEY_REUSED, 503
 */
export function recordItemEvent(
  store: PlayerStore,
  ledger: LedgerStore,
  studioUuid: string,
  body: ItemEventBody,
  clock: Clock = systemClock,
) {
  return recordEvent(store, ledger, studioUuid, body, undefined, clock);
}

/** An event's body as {@link recordEvent} takes it: a game server's, or an operator's void. */
type EventBody = Omit<ItemEventBody, 'event'> & { readonly event: Exclude<ItemEventKind, 'minted'> };

/**
 * Record an event (see {@link recordItemEvent}), with the note of an operator's event kept beside it.
 * @throws as {@link recordItemEvent}; ACCOUNT_SUSPENDED (403) when the store refuses a banned account
 */
async function recordEvent(
  store: PlayerStore,
  ledger: LedgerStore,
  studioUuid: string,
  body: EventBody,
  note: EntryNote | undefined,
  clock: Clock,
) {
  const t = ITEM_TRANSITIONS[body.event];
  const fingerprint = requestFingerprint([body.event, body.characterId ?? null, body.toStudioId ?? null, body.toAccountId ?? null]);
  const answer = async (out: ItemEventOutcome) => {
    switch (out.status) {
      case 'created':
      case 'replayed': {
        const owner = await accountOf(ledger, { accountId: out.item.accountId }, 'accountId');
        return { item: itemView(out.item, owner), event: out.event, idempotent: out.status === 'replayed' };
      }
      case 'forbidden':
        throw new ServiceError(
          'CONFLICT',
          `The item is ${out.item.state}: it cannot be ${body.event} (allowed from ${t.from.join(', ')}).`,
        );
      case 'key-reused':
        throw new ServiceError('IDEMPOTENCY_KEY_REUSED', 'This idempotency key recorded another event of this item; use a new key.');
      case 'moved':
        throw new ServiceError('CONFLICT', 'The item kept changing hands while this event was checked; read it again and resend.');
      case 'suspended':
        throw suspended(out.ban);
      default:
        throw new ServiceError('NOT_FOUND', 'No item has this studio_uuid.');
    }
  };
  for (let attempt = 1; ; attempt++) {
    let request: Omit<ItemEventRequest, 'idempotencyKey' | 'fingerprint' | 'at'>;
    try {
      request = await checkedEvent(store, ledger, studioUuid, body, t);
    } catch (e) {
      // a refusal that depends on the item's state now: a key used before still answers its first result
      const known = e instanceof ServiceError ? await store.itemEventRecord(studioUuid, body.idempotencyKey, fingerprint) : undefined;
      if (known) return answer(known);
      throw e;
    }
    const out = await store.recordItemEvent({
      ...request,
      idempotencyKey: body.idempotencyKey,
      fingerprint,
      at: clock().toISOString(),
      ...(note === undefined ? {} : { note }),
    });
    if (out.status !== 'moved' || attempt >= EVENT_ATTEMPTS) return answer(out);
  }
}

/**
 * An event's request as the item stands: its owner, the new owner of a transfer, the character of an
 * assignment or equipping (a character of the owner).
 * @throws ServiceError 400, 404 as {@link recordItemEvent}
 */
async function checkedEvent(
  store: PlayerStore,
  ledger: LedgerStore,
  studioUuid: string,
  body: EventBody,
  t: (typeof ITEM_TRANSITIONS)[keyof typeof ITEM_TRANSITIONS],
): Promise<Omit<ItemEventRequest, 'idempotencyKey' | 'fingerprint' | 'at'>> {
  const history = await store.itemHistory(studioUuid);
  if (!history) throw new ServiceError('NOT_FOUND', 'No item has this studio_uuid.');
  const owner = history.item.accountId;
  // the owner through the caller's ledger: a game server's writes reach no banned account (`refusingSuspended`)
  await accountOf(ledger, { accountId: owner }, 'accountId');
  let accountId: string | undefined;
  let characterId: string | null = null;
  const wrong = (name: string, message: string) => new ServiceError('INVALID_BODY', message, { errors: [{ name, message }] });
  if (body.event === 'transferred') {
    const to = body.toStudioId ?? body.toAccountId;
    if (to === undefined) throw wrong('/toStudioId', 'A transfer names the new owner: toStudioId or toAccountId.');
    const target = await accountOf(
      ledger,
      STUDIO_ID.test(to) ? { studioId: to } : { accountId: to },
      body.toStudioId !== undefined ? 'toStudioId' : 'toAccountId',
    );
    if (target.accountId === owner)
      throw wrong(body.toStudioId !== undefined ? '/toStudioId' : '/toAccountId', 'The item already belongs to this account.');
    accountId = target.accountId;
  } else if (body.event === 'assigned' || body.event === 'equipped') {
    if (body.characterId === undefined) throw wrong('/characterId', `An item is ${body.event} to a character: send characterId.`);
    const character = await store.character(owner, body.characterId.toLowerCase());
    if (!character) throw wrong('/characterId', "Not a character of the item's owner.");
    characterId = character.id;
  }
  return { studioUuid, kind: body.event, from: t.from, to: t.to, accountId, characterId, expectedOwner: owner };
}

/** An item's history and current owner. @throws ServiceError NOT_FOUND, 503 */
export async function itemHistory(
  store: PlayerStore,
  ledger: LedgerStore,
  studioUuid: string,
): Promise<ReturnType<typeof itemView> & { events: ItemEvent[] }> {
  const history = await store.itemHistory(studioUuid);
  if (!history) throw new ServiceError('NOT_FOUND', 'No item has this studio_uuid.');
  const owner = await accountOf(ledger, { accountId: history.item.accountId }, 'accountId');
  return { ...itemView(history.item, owner), events: history.events };
}

/** Body of `POST /api/admin/items/{studio_uuid}/void` (schema `item-void`). */
export interface VoidBody {
  /** Why (stored text, kept beside the event; not part of the replay comparison). */
  readonly reason: string;
  readonly idempotencyKey: string;
}

/**
 * Void a unique item (docs/architecture.md, "Voided items"; spec 2.6): an operator's final event, from
 * owned, assigned or equipped, recorded once per (item, idempotency key) like a game server's events and
 * in the same key space; the reason and who asked are kept beside the event. The item stays with its
 * owner in its history, but is no longer owned: the inventory leaves it out and no character may wear it
 * (a progress that still wears it is refused until the slot is cleared). Operators void a banned
 * account's items too.
 * @param actor who asks: `<role>:<subject>` of an operator token, or `admin-password`.
 * @returns the item after the void, the event with its reason and actor, and whether the key replayed.
 * @throws ServiceError 404 (no such item), 409 CONFLICT (consumed, destroyed or voided already, or the item
 *   kept changing hands), 422 IDEMPOTENCY_KEY_REUSED, 503
 */
export async function voidItem(
  store: PlayerStore,
  ledger: LedgerStore,
  studioUuid: string,
  body: VoidBody,
  actor: string,
  clock: Clock = systemClock,
) {
  const out = await recordEvent(
    store,
    ledger,
    studioUuid,
    { event: 'voided', idempotencyKey: body.idempotencyKey },
    { note: body.reason, actor },
    clock,
  );
  // the note as stored: a replay answers the first reason
  const page = await store.itemEvents(studioUuid, { beforeSeq: out.event.seq + 1, limit: 1 });
  const stored = page?.events[0];
  return { ...out, reason: stored?.note ?? body.reason, actor: stored?.actor ?? actor };
}

/** One broken item invariant. */
export interface ItemViolation {
  readonly invariant: 'events-contiguous' | 'minted-first' | 'transition' | 'stands-as-replayed';
  readonly message: string;
}

/**
 * Every broken item invariant of a snapshot (see the module header); empty when all hold. An event's own
 * fields must fit its kind too: a transfer alone changes the owner; an assignment and an equipping name a
 * character, every other event none. Pure.
 */
export function checkItemInvariants(
  snapshot: readonly { readonly item: ItemInstance; readonly events: readonly ItemEvent[] }[],
): ItemViolation[] {
  const out: ItemViolation[] = [];
  for (const { item, events } of snapshot) {
    const id = item.studioUuid;
    events.forEach((e, i) => {
      if (e.seq !== i + 1 || e.studioUuid !== id)
        out.push({ invariant: 'events-contiguous', message: `${id}: event ${i + 1} is numbered ${e.seq} of ${e.studioUuid}.` });
    });
    const [first, ...rest] = events;
    if (first?.kind !== 'minted') {
      out.push({ invariant: 'minted-first', message: `${id}: the first event is ${first?.kind ?? 'missing'}, not minted.` });
      continue;
    }
    let state: ItemState = 'owned';
    let owner = first.accountId;
    let character: string | null = first.characterId;
    for (const e of rest) {
      const t = e.kind === 'minted' ? undefined : ITEM_TRANSITIONS[e.kind];
      const wrong = (why: string) => out.push({ invariant: 'transition', message: `${id}: event ${e.seq} (${e.kind}) ${why}.` });
      if (!t) wrong('mints the item again');
      else if (!t.from.includes(state)) wrong(`follows ${state}`);
      if ((e.kind === 'transferred') === (e.accountId === owner)) wrong(e.kind === 'transferred' ? 'keeps the owner' : 'changes the owner');
      if ((e.kind === 'assigned' || e.kind === 'equipped') === (e.characterId === null)) wrong('names the wrong character');
      state = t?.to ?? state;
      owner = e.accountId;
      character = e.characterId;
    }
    if (item.state !== state || item.accountId !== owner || item.characterId !== character || item.seq !== events.length)
      out.push({
        invariant: 'stands-as-replayed',
        message: `${id}: stands ${item.state} of ${item.accountId} on ${item.characterId} at ${item.seq}; its events make it ${state} of ${owner} on ${character} at ${events.length}.`,
      });
  }
  return out;
}
