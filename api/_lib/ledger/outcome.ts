/**
 * How a credit meets a transfer already recorded under its source ref (spec 3, 4.8), the same rule for
 * every adapter: the caller's own entry id means this very call recorded it (a retry after a lost
 * answer); the same account, amount and purpose is a replay; anything else is a conflict (422).
 */
import type { CreditOutcome, CreditRequest, Transfer } from './types.js';

/** Outcome of a stored transfer met again under the same source ref (see the module header). */
export function replayOutcome(
  stored: Transfer,
  request: Pick<CreditRequest, 'entryId' | 'accountId' | 'amount' | 'purpose'>,
): CreditOutcome {
  if (stored.entryId === request.entryId) return { status: 'applied', transfer: stored };
  const same = stored.accountId === request.accountId && stored.amount === request.amount && stored.purpose === request.purpose;
  return { status: same ? 'replayed' : 'conflict', transfer: stored };
}
