/**
 * The ledger's invariants (docs/architecture.md, "Ledger"), checked by the tests after every step, by
 * `npm run ledger:verify` on a live store, and piece by piece by the scheduled check (`verification.ts`;
 * docs/architecture.md, "Scheduled verification"):
 *
 * 1. every balance equals the sum of its postings, and each posting's `balanceAfter` is the running sum;
 * 2. the sum of all balances is zero (coin comes from the issuer account: double entry);
 * 3. source refs and transfers match one to one: every transfer has exactly two postings (issuer −amount,
 *    account +amount; for a reversal, account −amount and issuer +amount) carrying its entry id and
 *    source ref, and every posting belongs to a transfer;
 * 4. every chain verifies: `seq` runs 1..n, each `prev` is the previous posting's hash, each `hash`
 *    recomputes (`chain.ts`);
 * 5. every reversal mirrors exactly one original (docs/architecture.md, "Reversals"): it names a transfer
 *    of the same account and amount that is not itself a reversal, no transfer is reversed twice, and the
 *    original's `reversedBy` names that reversal.
 */
import { postingVerifies } from './chain.js';
import { ISSUER_ACCOUNT_ID, type LedgerSnapshot, type Posting } from './types.js';

/** One broken invariant, named for an operator. */
export interface InvariantViolation {
  /** 1-5, as numbered in the module header. */
  readonly invariant: 1 | 2 | 3 | 4 | 5;
  readonly message: string;
}

/**
 * Invariants 1 and 4 of one posting of a chain (the module header): it names the account it is listed
 * under, has the seq expected at its place, links to the previous posting's hash, matches its own hash,
 * and records the running sum as its balance. Shared by {@link checkInvariants} and the scheduled check
 * (`verification.ts`), so both word a break the same way. Pure.
 * @param seq the seq expected at the posting's place (1-based).
 * @param prev the previous posting's hash, `''` before the first.
 * @param running the sum of the chain's amounts up to and including this posting.
 */
export function linkViolations(accountId: string, seq: number, prev: string, running: number, p: Posting): InvariantViolation[] {
  const out: InvariantViolation[] = [];
  if (p.accountId !== accountId)
    out.push({ invariant: 4, message: `Posting ${p.entryId} is listed under account ${accountId} but names ${p.accountId}.` });
  if (p.seq !== seq) out.push({ invariant: 4, message: `Account ${accountId}: posting ${seq} has seq ${p.seq}.` });
  if (p.prev !== prev) out.push({ invariant: 4, message: `Account ${accountId}: posting ${p.seq} does not link to the previous hash.` });
  if (!postingVerifies(p)) out.push({ invariant: 4, message: `Account ${accountId}: posting ${p.seq} does not match its hash.` });
  if (p.balanceAfter !== running)
    out.push({
      invariant: 1,
      message: `Account ${accountId}: posting ${p.seq} records balance ${p.balanceAfter}, the running sum is ${running}.`,
    });
  return out;
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
      out.push(...linkViolations(acct.accountId, i + 1, prev, running, p));
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
    const gain = t.kind === 'reversal' ? -t.amount : t.amount;
    const credit = legs.filter((l) => l.accountId === t.accountId && l.amount === gain && l.sourceRef === t.sourceRef);
    const debit = legs.filter((l) => l.accountId === ISSUER_ACCOUNT_ID && l.amount === -gain && l.sourceRef === t.sourceRef);
    if (legs.length !== 2 || credit.length !== 1 || debit.length !== 1) {
      out.push({
        invariant: 3,
        message: `Transfer ${t.sourceRef} has ${legs.length} posting(s), not ${t.kind === 'reversal' ? 'one debit' : 'one credit'} of ${t.amount} and ${t.kind === 'reversal' ? 'one issuer credit' : 'one issuer debit'}.`,
      });
    }
  }
  out.push(...reversalViolations(snapshot));
  for (const [entryId, legs] of byEntry) {
    out.push({
      invariant: 3,
      message: `Entry ${entryId} (${legs[0]?.sourceRef ?? '?'}) has postings but no transfer under its source ref.`,
    });
  }
  return out;
}

/** Invariant 5 over the transfers of a snapshot (see the module header). */
function reversalViolations(snapshot: LedgerSnapshot): InvariantViolation[] {
  const out: InvariantViolation[] = [];
  const byEntry = new Map(snapshot.transfers.map((t) => [t.entryId, t]));
  const reversedOnce = new Set<string>();
  for (const t of snapshot.transfers) {
    if (t.kind !== 'reversal') {
      if (t.reverses !== '') out.push({ invariant: 5, message: `Transfer ${t.sourceRef} is not a reversal but names ${t.reverses}.` });
      continue;
    }
    const original = byEntry.get(t.reverses);
    if (!original || original.kind === 'reversal' || original.accountId !== t.accountId || original.amount !== t.amount) {
      out.push({ invariant: 5, message: `Reversal ${t.sourceRef} does not mirror a credit of ${t.amount} to account ${t.accountId}.` });
      continue;
    }
    if (reversedOnce.has(original.entryId)) out.push({ invariant: 5, message: `Entry ${original.entryId} is reversed more than once.` });
    reversedOnce.add(original.entryId);
    if (original.reversedBy !== t.entryId)
      out.push({ invariant: 5, message: `Entry ${original.entryId} does not link to its reversal ${t.entryId}.` });
  }
  for (const t of snapshot.transfers) {
    if (t.reversedBy !== undefined && byEntry.get(t.reversedBy)?.reverses !== t.entryId)
      out.push({ invariant: 5, message: `Entry ${t.entryId} names ${t.reversedBy} as its reversal, which does not reverse it.` });
  }
  return out;
}
