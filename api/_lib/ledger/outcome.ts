/**
 * How a credit meets the transfer its source ref already recorded with the same fingerprint (spec 3,
 * 4.8), the same rule for every adapter: the caller's own entry id means this very call recorded it (a
 * retry after a lost answer: `created`); any other is a replay of the first request (`replayed`). A
 * record with another fingerprint is `key-reused`, decided by the adapter before it reads the transfer.
 */
import type { CreditOutcome, CreditRequest, Transfer } from './types.js';

/** Outcome of a stored transfer met again under the same source ref and fingerprint (see the module header). */
export function storedCredit(stored: Transfer, request: Pick<CreditRequest, 'entryId'>): CreditOutcome {
  return { status: stored.entryId === request.entryId ? 'created' : 'replayed', transfer: stored };
}
