/** Small ledger operations shared by tests: a verify-send credit with minted ids and the current time, and the refusal a promise ends in. */
import { mintUuid } from '../../api/_lib/ledger/ids.js';
import type { CreditOutcome, LedgerStore } from '../../api/_lib/ledger/types.js';
import { ServiceError } from '../../api/_lib/errors.js';

/** Credit `amount` to `accountId` under `sourceRef` (purpose `verify`). */
export function credit(store: LedgerStore, accountId: string, sourceRef: string, amount: number): Promise<CreditOutcome> {
  return store.credit({ entryId: mintUuid(), sourceRef, kind: 'verify_send', accountId, amount, purpose: 'verify', note: '', at: new Date().toISOString() });
}

/** The ServiceError `p` rejects with; fails when it resolves or rejects with anything else. */
export async function refusal(p: Promise<unknown>): Promise<ServiceError> {
  try {
    await p;
  } catch (e) {
    if (e instanceof ServiceError) return e;
    throw e;
  }
  throw new Error('expected a refusal');
}
