/** Small ledger operations shared by tests: a verify-send credit with minted ids and the current time, the refusal a promise ends in, and builders of accounts and credit requests. */
import { mintStudioId, mintUuid } from '../../api/_lib/ledger/ids.js';
import type { Account, CreditOutcome, CreditRequest, LedgerStore } from '../../api/_lib/ledger/types.js';
import { ServiceError } from '../../api/_lib/errors.js';
import { requestFingerprint } from '../../api/_lib/stores/idempotency.js';

/** The fingerprint the wallet service binds to a verify-send credit's key: the account, amount and purpose. */
export const creditFingerprint = (r: Pick<CreditRequest, 'accountId' | 'amount' | 'purpose'>): string =>
  requestFingerprint({ accountId: r.accountId, amount: r.amount, purpose: r.purpose });

/** Credit `amount` to `accountId` under `sourceRef` (purpose `verify`). */
export function credit(store: LedgerStore, accountId: string, sourceRef: string, amount: number): Promise<CreditOutcome> {
  return store.credit(creditOf({ accountId }, { sourceRef, amount, at: new Date().toISOString() }));
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

/** The ServiceError `run` throws; fails when it returns or throws anything else. */
export function thrownRefusal(run: () => unknown): ServiceError {
  try {
    run();
  } catch (e) {
    if (e instanceof ServiceError) return e;
    throw e;
  }
  throw new Error('expected a refusal');
}

/**
 * Create `account` in `store` and answer it.
 * @throws Error when the store does not create it (a test's own mistake)
 */
export async function addAccount(store: LedgerStore, account: Account): Promise<Account> {
  const out = await store.createAccount({ account, clientKey: undefined, fingerprint: 'f' });
  if (out.status !== 'created') throw new Error(`expected the account to be created, got ${out.status}`);
  return out.account;
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

/** A verify-send credit of 10 to `account` under a fresh source ref, with overrides (the fingerprint follows them unless given). */
export function creditOf(account: Pick<Account, 'accountId'>, over: Partial<CreditRequest> = {}): CreditRequest {
  const request = {
    entryId: mintUuid(),
    sourceRef: `verify-send:key-${mintUuid()}`,
    kind: 'verify_send' as const,
    accountId: account.accountId,
    amount: 10,
    purpose: 'verify',
    note: '',
    at: '2026-11-23T10:00:01.000Z',
    ...over,
  };
  return { ...request, fingerprint: over.fingerprint ?? creditFingerprint(request) };
}
