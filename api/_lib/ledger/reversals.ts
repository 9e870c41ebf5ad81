/**
 * Reversals of wallet entries (spec 4.8, 8; docs/architecture.md, "Reversals"): an operator corrects a
 * mistaken credit by appending a compensating transfer, never by editing history. The reversal moves the
 * original's amount from the account back to the issuer in one atomic step with its link to the
 * original, so both chains keep verifying and the sum of all balances stays zero.
 *
 * Rules, checked inside the store's write: an entry is reversed at most once (another reversal of it is
 * 409 naming the first); only a credit (verify-send, grant) is reversed, never a reversal (final); a
 * reversal that would take the balance below zero is 409 with the balance. Idempotency: the source ref
 * is `reversal:{idempotencyKey}`, kept forever; the same key with the same entry answers the first
 * reversal (`idempotent: true`), with another entry 422. The reason is not part of the comparison (a
 * retry may reword it; the first stays), as for a grant's note.
 */
import { ServiceError } from '../errors.js';
import { systemClock, type Clock } from '../stores/clock.js';
import { requestFingerprint } from '../stores/idempotency.js';
import { mintUuid, UUID } from './ids.js';
import { REVERSAL_PURPOSE, refOf, type AccountRef } from './service.js';
import { SOURCE_REF_PREFIX, TRANSFER_KIND_NAMES, type LedgerStore, type Transfer } from './types.js';
import { noteAuditAccount } from '../util/audit-scope.js';

/** Body of `POST /api/admin/reversals` after schema validation. */
export interface ReversalBody {
  /** The entry id of the credit to reverse (uuid). */
  readonly entryId: string;
  /** Why, stored as the reversal's note (stored text, `api/_lib/text/stored.ts`). */
  readonly reason: string;
  readonly idempotencyKey: string;
}

/** Answer of a reversal (`schemas/responses/reversal.schema.json`). */
export interface ReversalAnswer {
  readonly kind: 'reversal';
  readonly idempotent: boolean;
  /** The reversal's own entry id. */
  readonly entryId: string;
  /** The entry id it reverses. */
  readonly reverses: string;
  readonly sourceRef: string;
  readonly account: AccountRef;
  /** Coin units taken back from the account (positive). */
  readonly amount: number;
  readonly reason: string;
  /** Who asked (`<role>:<subject>` or `admin-password`). */
  readonly actor: string;
  /** The account's balance right after the reversal. */
  readonly balance: number;
  readonly at: string;
}

/** How a reversal answers `transfer` (a reversal's transfer) of `account`. */
function answer(account: AccountRef, transfer: Transfer, idempotent: boolean): ReversalAnswer {
  return {
    kind: TRANSFER_KIND_NAMES.reversal,
    idempotent,
    entryId: transfer.entryId,
    reverses: transfer.reverses,
    sourceRef: transfer.sourceRef,
    account,
    amount: transfer.amount,
    reason: transfer.note,
    actor: transfer.actor,
    balance: transfer.balanceAfter,
    at: transfer.at,
  };
}

/** The 409 of an entry reversed before by `reversal`. */
function alreadyReversed(entryId: string, reversal: Transfer): ServiceError {
  const by = reversal.actor === '' ? '' : ` by ${reversal.actor}`;
  return new ServiceError('CONFLICT', `Entry ${entryId} was already reversed${by} at ${reversal.at} (reversal ${reversal.entryId}).`);
}

/**
 * Reverse a credit once (see the module header).
 * @param actor who asks: `<role>:<subject>` of an operator token, or `admin-password`.
 * @throws ServiceError NOT_FOUND (no entry has this id, or its account is gone), CONFLICT (409: the entry
 *   is a reversal, was reversed before, or the balance is below its amount), IDEMPOTENCY_KEY_REUSED
 *   (422), UPSTREAM_UNAVAILABLE (503).
 */
export async function reverseEntry(
  store: LedgerStore,
  body: ReversalBody,
  actor: string,
  clock: Clock = systemClock,
): Promise<ReversalAnswer> {
  const entryId = body.entryId.toLowerCase();
  const original = UUID.test(entryId) ? await store.transfer(entryId) : undefined;
  if (!original) throw new ServiceError('NOT_FOUND', 'No wallet entry has this entryId.');
  if (original.kind === 'reversal') throw new ServiceError('CONFLICT', `Entry ${entryId} is a reversal; a reversal is final.`);
  const account = await store.findAccount({ accountId: original.accountId });
  if (!account) throw new ServiceError('NOT_FOUND', 'The account of this entry no longer exists.');
  noteAuditAccount(account.accountId);
  const outcome = await store.credit({
    entryId: mintUuid(),
    sourceRef: SOURCE_REF_PREFIX.reversal + body.idempotencyKey,
    kind: 'reversal',
    accountId: original.accountId,
    amount: original.amount,
    purpose: REVERSAL_PURPOSE,
    note: body.reason,
    actor,
    at: clock().toISOString(),
    reverses: entryId,
    fingerprint: requestFingerprint({ reverses: entryId }),
  });
  switch (outcome.status) {
    case 'created':
    case 'replayed':
      return answer(refOf(account), outcome.transfer, outcome.status === 'replayed');
    case 'key-reused':
      throw new ServiceError(
        'IDEMPOTENCY_KEY_REUSED',
        'The idempotency key was used before to reverse another entry; nothing was reversed. Use a new key for a new reversal.',
      );
    case 'already-reversed':
      throw alreadyReversed(entryId, outcome.transfer);
    case 'insufficient':
      throw new ServiceError(
        'CONFLICT',
        `The account holds ${outcome.balance} coin, less than the ${original.amount} this reversal takes back; nothing was reversed.`,
      );
    case 'no-account':
      throw new ServiceError('NOT_FOUND', 'The account of this entry no longer exists.');
    default:
      // `no-entry` or `overflow`: the entry read above is immutable, so neither can happen for it
      throw new ServiceError('CONFLICT', `Entry ${entryId} cannot be reversed.`);
  }
}
