/** Small ledger operations shared by tests: a verify-send credit with minted ids and the current time. */
import { mintUuid } from '../../api/_lib/ledger/ids.js';
import type { CreditOutcome, LedgerStore } from '../../api/_lib/ledger/types.js';

/** Credit `amount` to `accountId` under `sourceRef` (purpose `verify`). */
export function credit(store: LedgerStore, accountId: string, sourceRef: string, amount: number): Promise<CreditOutcome> {
  return store.credit({ entryId: mintUuid(), sourceRef, kind: 'verify_send', accountId, amount, purpose: 'verify', note: '', at: new Date().toISOString() });
}
