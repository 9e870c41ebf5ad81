/**
 * The ledger's invariants (docs/architecture.md, "Ledger"), checked by the tests after every step and by
 * `npm run ledger:verify` on a live store:
 *
 * 1. every balance equals the sum of its postings, and each posting's `balanceAfter` is the running sum;
 * 2. the sum of all balances is zero (coin comes from the issuer account: double entry);
 * 3. source refs and transfers match one to one: every transfer has exactly two postings (issuer −amount,
 *    account +amount) carrying its entry id and source ref, and every posting belongs to a transfer;
 * 4. every chain verifies: `seq` runs 1..n, each `prev` is the previous posting's hash, each `hash`
 *    recomputes (`chain.ts`).
 */
import { postingHash } from './chain.js';
import { ISSUER_ACCOUNT_ID, type LedgerSnapshot } from './types.js';

/** One broken invariant, named for an operator. */
export interface InvariantViolation {
  /** 1-4, as numbered in the module header. */
  readonly invariant: 1 | 2 | 3 | 4;
  readonly message: string;
}

/**
 * Check every invariant over a snapshot.
 * @returns every violation found (empty when the ledger is sound); never throws.
 */
export function checkInvariants(snapshot: LedgerSnapshot): InvariantViolation[] {
  const out: InvariantViolation[] = [];
  let total = 0;
  const byEntry = new Map<string, { accountId: string; amount: number; sourceRef: string }[]>();
  for (const acct of snapshot.accounts) {
    total += acct.balance;
    let running = 0;
    let prev = '';
    acct.postings.forEach((p, i) => {
      running += p.amount;
      if (p.accountId !== acct.accountId)
        out.push({ invariant: 4, message: `Posting ${p.entryId} is listed under account ${acct.accountId} but names ${p.accountId}.` });
      if (p.seq !== i + 1) out.push({ invariant: 4, message: `Account ${acct.accountId}: posting ${i + 1} has seq ${p.seq}.` });
      if (p.prev !== prev)
        out.push({ invariant: 4, message: `Account ${acct.accountId}: posting ${p.seq} does not link to the previous hash.` });
      if (postingHash(p) !== p.hash)
        out.push({ invariant: 4, message: `Account ${acct.accountId}: posting ${p.seq} does not match its hash.` });
      if (p.balanceAfter !== running)
        out.push({
          invariant: 1,
          message: `Account ${acct.accountId}: posting ${p.seq} records balance ${p.balanceAfter}, the running sum is ${running}.`,
        });
      prev = p.hash;
      const list = byEntry.get(p.entryId) ?? [];
      list.push({ accountId: p.accountId, amount: p.amount, sourceRef: p.sourceRef });
      byEntry.set(p.entryId, list);
    });
    if (running !== acct.balance)
      out.push({ invariant: 1, message: `Account ${acct.accountId}: balance ${acct.balance}, postings sum to ${running}.` });
  }
  if (total !== 0) out.push({ invariant: 2, message: `The balances sum to ${total}, not 0.` });

  const refs = new Set<string>();
  for (const t of snapshot.transfers) {
    if (refs.has(t.sourceRef)) out.push({ invariant: 3, message: `Source ref ${t.sourceRef} is recorded twice.` });
    refs.add(t.sourceRef);
    const legs = byEntry.get(t.entryId) ?? [];
    byEntry.delete(t.entryId);
    const credit = legs.filter((l) => l.accountId === t.accountId && l.amount === t.amount && l.sourceRef === t.sourceRef);
    const debit = legs.filter((l) => l.accountId === ISSUER_ACCOUNT_ID && l.amount === -t.amount && l.sourceRef === t.sourceRef);
    if (legs.length !== 2 || credit.length !== 1 || debit.length !== 1) {
      out.push({
        invariant: 3,
        message: `Transfer ${t.sourceRef} has ${legs.length} posting(s), not one credit of ${t.amount} and one issuer debit.`,
      });
    }
  }
  for (const [entryId, legs] of byEntry) {
    out.push({
      invariant: 3,
      message: `Entry ${entryId} (${legs[0]?.sourceRef ?? '?'}) has postings but no transfer under its source ref.`,
    });
  }
  return out;
}
