/**
 * The account bag (spec 2.6, 2.8, the `/api/inventory/*` family of 4.8): stackable definitions held as
 * quantities with no per-stack id, and the account's unique items by `studio_uuid`. The bag is
 * account-scoped: no route puts it on a character.
 *
 * Quantities change only by grant and consume (game servers), each under an idempotency key that never
 * expires (source refs `bag-grant:{key}` and `bag-consume:{key}`), recorded append-only like the wallet
 * ledger; a consumption beyond the quantity held is a 409 and changes nothing. An operator corrects a
 * mistaken grant by its reversal ({@link reverseBagGrant}; docs/architecture.md, "Bag reversals"): an
 * entry under `bag-reversal:{key}` that takes back what the grant gave, linked to it, at most once per
 * grant. Invariants ({@link checkBagInvariants}, run by the tests after every step and by `npm run
 * ledger:verify`): every quantity equals the sum of its entries and its last entry's `quantityAfter`;
 * entries of a stack are numbered 1, 2, … without gaps, each `quantityAfter` is the running sum and never
 * negative; source refs are unique; every reversal mirrors exactly one grant of its stack, and the links
 * agree both ways.
 *
 * Stackable definitions: the `MATL-*` materials of the published catalog's `master-materials.json`, and
 * the consumables (`FOOD-*`, `POTN-*`, `CONS-*`) of its `canonical-items-manifest.json`. One request
 * moves at most {@link BAG_MAX_CHANGE} units.
 */
import { readCatalogJson } from '../catalog/store.js';
import { ServiceError } from '../errors.js';
import { refOf, resolveAccount, suspended, type AccountRef } from '../ledger/service.js';
import type { AccountSelector, LedgerStore } from '../ledger/types.js';
import { itemDefinitions } from './items.js';
import { systemClock, type Clock } from '../stores/clock.js';
import { requestFingerprint } from '../stores/idempotency.js';
import { BAG_REF_PREFIX, bagEntryKind, type BagLine, type BagRecord, type PlayerStore } from './types.js';
import { noteAuditAccount } from '../util/audit-scope.js';

/** Most units one grant or consumption moves. */
export const BAG_MAX_CHANGE = 1_000_000;

/** `MATL-*` ids of the published catalog's `master-materials.json`, read once per process. */
function materialIds(): Promise<ReadonlySet<string>> {
  return readCatalogJson('api/v1/master-materials.json', (raw) => {
    const list = (raw as { materials?: unknown } | null)?.materials;
    if (!Array.isArray(list)) throw new Error('materials is not a list');
    return new Set(
      (list as { uuid?: unknown }[]).map((m) => m.uuid).filter((u): u is string => typeof u === 'string' && u.startsWith('MATL-')),
    );
  });
}

/** Whether a definition id is a stackable of the catalog. */
async function isStackable(definitionId: string): Promise<boolean> {
  const [materials, items] = await Promise.all([materialIds(), itemDefinitions()]);
  return materials.has(definitionId) || items.consumables.has(definitionId);
}

/** Body of `POST /api/inventory/grant` and `/consume` (schema `bag-change`). */
export interface BagChangeBody {
  readonly studioId?: string;
  readonly accountId?: string;
  readonly definitionId: string;
  readonly quantity: number;
  readonly idempotencyKey: string;
}

/**
 * Grant (`sign` +1) or consume (`sign` −1) a stackable, once per idempotency key.
 * @returns the entry, whether it replayed an earlier request, and the account's both ids.
 * @throws ServiceError 400 (not a stackable of the catalog), 404 (no such account), 409 CONFLICT (a
 *   consumption beyond the quantity held), 422 IDEMPOTENCY_KEY_REUSED, 503
 */
export async function changeBag(store: PlayerStore, ledger: LedgerStore, body: BagChangeBody, sign: 1 | -1, clock: Clock = systemClock) {
  if (!(await isStackable(body.definitionId))) {
    throw new ServiceError('INVALID_BODY', `${body.definitionId.slice(0, 80)} is not a stackable definition of the catalog.`, {
      errors: [
        {
          name: '/definitionId',
          message: 'Must be a MATL-* material or a consumable of the catalog; unique items are minted with POST /api/uuid.',
        },
      ],
    });
  }
  const selector: AccountSelector = body.studioId !== undefined ? { studioId: body.studioId } : { accountId: body.accountId! };
  const account = await ledger.findAccount(selector);
  if (!account) throw new ServiceError('NOT_FOUND', 'No account has this id.');
  noteAuditAccount(account.accountId);
  const kind = sign > 0 ? 'grant' : 'consume';
  const out = await store.changeBag({
    accountId: account.accountId,
    definitionId: body.definitionId,
    delta: sign * body.quantity,
    sourceRef: `bag-${kind}:${body.idempotencyKey}`,
    fingerprint: requestFingerprint([account.accountId, body.definitionId, sign * body.quantity]),
    at: clock().toISOString(),
  });
  switch (out.status) {
    case 'created':
    case 'replayed':
      return {
        entry: out.entry,
        quantity: out.entry.quantityAfter,
        account: { accountId: account.accountId, studioId: account.studioId },
        idempotent: out.status === 'replayed',
      };
    case 'insufficient':
      throw new ServiceError(
        'CONFLICT',
        `The bag holds ${out.quantity} of ${body.definitionId.slice(0, 80)}; it cannot give ${body.quantity}.`,
      );
    case 'overflow':
      throw new ServiceError('CONFLICT', 'This grant would take the quantity beyond the largest the bag holds.');
    case 'suspended':
      throw suspended(out.ban);
    default:
      throw new ServiceError(
        'IDEMPOTENCY_KEY_REUSED',
        `This idempotency key already ${kind === 'grant' ? 'granted' : 'consumed'} another amount, definition or account; use a new key.`,
      );
  }
}

/** The caller's bag: stackables as quantities, unique items by `studio_uuid`. */
export async function inventoryOf(store: PlayerStore, accountId: string) {
  const [stackables, items] = await Promise.all([store.bag(accountId), store.accountItems(accountId)]);
  return {
    stackables,
    uniqueItems: items.map((i) => ({
      studioUuid: i.studioUuid,
      definitionId: i.definitionId,
      state: i.state,
      characterId: i.characterId,
      mintedAt: i.mintedAt,
    })),
  };
}

/** Body of `POST /api/admin/bag-reversals` (schema `bag-reversal`): the account by exactly one selector, and the grant. */
export interface BagReversalBody {
  readonly studioId?: string;
  readonly accountId?: string;
  /** The grant's source ref, `bag-grant:{key}` (the name of a bag entry). */
  readonly sourceRef: string;
  /** Why (stored text, kept beside the reversal; not part of the replay comparison). */
  readonly reason: string;
  readonly idempotencyKey: string;
}

/** Answer of a bag reversal (`schemas/responses/bag-reversal.schema.json`). */
export interface BagReversalAnswer {
  readonly kind: 'bag_reversal';
  readonly idempotent: boolean;
  /** The reversal's own source ref, `bag-reversal:{key}`. */
  readonly sourceRef: string;
  /** The grant's source ref. */
  readonly reverses: string;
  readonly account: AccountRef;
  readonly definitionId: string;
  /** The reversal's place in its stack. */
  readonly seq: number;
  /** Units taken back (positive). */
  readonly quantity: number;
  /** The quantity held right after the reversal. */
  readonly quantityAfter: number;
  readonly reason: string;
  /** Who asked (`<role>:<subject>` or `admin-password`). */
  readonly actor: string;
  readonly at: string;
}

/**
 * Reverse a bag grant once (docs/architecture.md, "Bag reversals"; spec 2.6, 2.8): an operator's entry
 * under `bag-reversal:{idempotencyKey}` that takes back exactly the units the grant gave, linked to it (the
 * grant then shows `reversedBy`, the reversal `reverses`), written in one atomic step with the link. A
 * grant is reversed at most once; a consumption and a reversal are never reversed. The same key with the
 * same account and grant answers the first reversal (`idempotent: true`), with another 422; the reason is
 * not compared (a retry may reword it; the first stays). A banned account's grant may be reversed.
 * @param actor who asks: `<role>:<subject>` of an operator token, or `admin-password`.
 * @throws ServiceError 400 (both or neither selector), 404 (no such account, or no entry of it has the
 *   source ref), 409 CONFLICT (a consumption or a reversal; reversed before, naming the reversal; fewer
 *   units held than the grant gave), 422 IDEMPOTENCY_KEY_REUSED, 503
 */
export async function reverseBagGrant(
  store: PlayerStore,
  ledger: LedgerStore,
  body: BagReversalBody,
  actor: string,
  clock: Clock = systemClock,
): Promise<BagReversalAnswer> {
  const account = await resolveAccount(ledger, body);
  const out = await store.reverseBag({
    accountId: account.accountId,
    reverses: body.sourceRef,
    sourceRef: BAG_REF_PREFIX.reversal + body.idempotencyKey,
    fingerprint: requestFingerprint({ bagReversal: account.accountId, reverses: body.sourceRef }),
    note: { note: body.reason, actor },
    at: clock().toISOString(),
  });
  const ref = body.sourceRef.slice(0, 300);
  switch (out.status) {
    case 'created':
    case 'replayed': {
      const e = out.entry;
      return {
        kind: 'bag_reversal',
        idempotent: out.status === 'replayed',
        sourceRef: e.sourceRef,
        reverses: e.reverses ?? body.sourceRef,
        account: refOf(account),
        definitionId: e.definitionId,
        seq: e.seq,
        quantity: -e.delta,
        quantityAfter: e.quantityAfter,
        reason: e.note ?? body.reason,
        actor: e.actor ?? actor,
        at: e.at,
      };
    }
    case 'key-reused':
      throw new ServiceError(
        'IDEMPOTENCY_KEY_REUSED',
        'The idempotency key was used before to reverse another grant or account; nothing was reversed. Use a new key for a new reversal.',
      );
    case 'no-entry':
      throw new ServiceError('NOT_FOUND', `No bag entry of this account has the source ref ${ref}.`);
    case 'not-a-grant':
      throw new ServiceError(
        'CONFLICT',
        bagEntryKind(out.entry.sourceRef) === 'reversal'
          ? `${ref} is a reversal; a reversal is final.`
          : `${ref} is a consumption; only a grant is reversed.`,
      );
    case 'already-reversed': {
      const r = out.entry;
      const by = r.actor === undefined || r.actor === '' ? '' : ` by ${r.actor}`;
      throw new ServiceError('CONFLICT', `The grant ${ref} was already reversed${by} at ${r.at} (reversal ${r.sourceRef.slice(0, 300)}).`);
    }
    default:
      throw new ServiceError(
        'CONFLICT',
        `The bag holds ${out.quantity} of the granted definition, less than the grant gave; nothing was reversed.`,
      );
  }
}

/** One broken bag invariant. */
export interface BagViolation {
  readonly invariant: 'quantity-is-sum' | 'entries-contiguous' | 'running-sum' | 'source-ref-unique' | 'reversal-links';
  readonly message: string;
}

/** Every broken bag invariant of a snapshot (see the module header); empty when all hold. Pure. */
export function checkBagInvariants(snapshot: { quantities: (BagLine & { accountId: string })[]; entries: BagRecord[] }): BagViolation[] {
  const out: BagViolation[] = [];
  const stacks = new Map<string, BagRecord[]>();
  const refs = new Map<string, BagRecord>();
  for (const e of snapshot.entries) {
    const k = `${e.accountId} ${e.definitionId}`;
    stacks.set(k, [...(stacks.get(k) ?? []), e]);
    if (refs.has(e.sourceRef)) out.push({ invariant: 'source-ref-unique', message: `${e.sourceRef} is recorded twice.` });
    refs.set(e.sourceRef, e);
  }
  for (const e of snapshot.entries) {
    const wrong = (why: string) => out.push({ invariant: 'reversal-links', message: `${e.sourceRef}: ${why}.` });
    const reversal = bagEntryKind(e.sourceRef) === 'reversal';
    if (reversal !== (e.reverses !== undefined))
      wrong(reversal ? 'a reversal that names no grant' : 'names a grant it reverses, but is no reversal');
    if (e.reverses !== undefined) {
      const g = refs.get(e.reverses);
      if (!g || bagEntryKind(g.sourceRef) !== 'grant') wrong(`reverses ${e.reverses}, which is no grant`);
      else if (g.accountId !== e.accountId || g.definitionId !== e.definitionId || g.delta !== -e.delta)
        wrong(`does not mirror ${g.sourceRef} (${g.delta} of its stack)`);
      else if (g.reversedBy !== e.sourceRef) wrong(`reverses ${g.sourceRef}, whose reversal is ${g.reversedBy ?? 'none'}`);
    }
    if (e.reversedBy !== undefined && refs.get(e.reversedBy)?.reverses !== e.sourceRef)
      wrong(`its reversal ${e.reversedBy} does not name it`);
  }
  for (const [k, list] of stacks) {
    list.sort((a, b) => a.seq - b.seq);
    let sum = 0;
    list.forEach((e, i) => {
      if (e.seq !== i + 1) out.push({ invariant: 'entries-contiguous', message: `${k}: entry ${i + 1} has seq ${e.seq}.` });
      sum += e.delta;
      if (e.quantityAfter !== sum || sum < 0)
        out.push({ invariant: 'running-sum', message: `${k}: entry ${e.seq} says ${e.quantityAfter}, the running sum is ${sum}.` });
    });
  }
  const seen = new Set<string>();
  for (const q of snapshot.quantities) {
    const k = `${q.accountId} ${q.definitionId}`;
    seen.add(k);
    const sum = (stacks.get(k) ?? []).reduce((s, e) => s + e.delta, 0);
    if (q.quantity !== sum) out.push({ invariant: 'quantity-is-sum', message: `${k}: quantity ${q.quantity}, entries sum to ${sum}.` });
  }
  for (const k of stacks.keys()) if (!seen.has(k)) out.push({ invariant: 'quantity-is-sum', message: `${k}: entries without a quantity.` });
  return out;
}
