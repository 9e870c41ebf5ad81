/** Small ledger operations shared by tests: a verify-send credit with minted ids and the current time, the refusal a promise ends in, and builders of accounts and credit requests. */
import { mintStudioId, mintUuid } from '../../api/_lib/ledger/ids.js';
import type { Account, CreditOutcome, CreditRequest, LedgerStore } from '../../api/_lib/ledger/types.js';
import { ServiceError } from '../../api/_lib/errors.js';

/** Credit `amount` to `accountId` under `sourceRef` (purpose `verify`). */
export function credit(store: LedgerStore, accountId: string, sourceRef: string, amount: number): Promise<CreditOutcome> {
  return store.credit({
    entryId: mintUuid(),
    sourceRef,
    kind: 'verify_send',
    accountId,
    amount,
    purpose: 'verify',
    note: '',
    at: new Date().toISOString(),
  });
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

/** A new account (every id freshly minted), with overrides. */
export function newAccount(over: Partial<Account> = {}): Account {
  return {
    accountId: mintUuid(),
    studioId: mintStudioId(),
    displayName: 'Ada',
    userId: mintUuid(),
    username: `user-${mintUuid().slice(0, 8)}`,
    createdAt: '2026-11-23T10:00:00.000Z',
    ...over,
  };
}

/** A verify-send credit of 10 to `account` under a fresh source ref, with overrides. */
export function creditOf(account: Pick<Account, 'accountId'>, over: Partial<CreditRequest> = {}): CreditRequest {
  return {
    entryId: mintUuid(),
    sourceRef: `verify-send:key-${mintUuid()}`,
    kind: 'verify_send',
    accountId: account.accountId,
    amount: 10,
    purpose: 'verify',
    note: '',
    at: '2026-11-23T10:00:01.000Z',
    ...over,
  };
}
