/**
 * The scheduled check of the ledger's invariants (docs/architecture.md, "Scheduled verification"; spec
 * 1.7, 4.8, 8): the checks of `invariants.ts`, made piece by piece within a time budget, so that a
 * function that may run only seconds still verifies a ledger of any size over several calls.
 *
 * A *pass* walks every ledger account (the issuer among them) in account-id order with the store's paged
 * reads (`ledgerAccounts`, `chain`), and verifies each chain from seq 1 up to the head it read when it
 * reached the account (its *target*):
 * - invariants 1 and 4 posting by posting (`linkViolations`), then the target's balance and head hash;
 * - invariant 3 leg by leg: every posting belongs to a transfer under its entry id, of which it is the
 *   account's leg (`+gain`, counterparty the issuer) or the issuer's (`−gain`, counterparty the account),
 *   with the transfer's source ref, kind and reversal link;
 * - invariant 5 on each account leg: a reversal mirrors a credit of its account and amount that links
 *   back to it; a credit's back link names a reversal of it; no credit names an entry it reverses.
 * Entries added while a pass runs move the heads on: a chain is verified up to its target only, so what
 * was appended after is no false alarm, and the next pass verifies it.
 *
 * The totals (invariant 2, and invariant 3's one-to-one count) are checked at the end of a pass against
 * the ledger's totals read atomically at its start and again at its end (`ledgerTotals`). When both reads
 * agree, no transfer was made during the pass (every transfer adds one posting to the issuer's chain), so
 * the targets form one consistent cut: the targets' balances must sum to zero, the issuer's chain and
 * the accounts' chains must each hold one posting per transfer, and both sides must name the same entries
 * (a sum of entry-id digests, so a transfer missing one leg and another holding two do not cancel out).
 * When the ledger changed during the pass the totals are left for the next quiet pass (the result says
 * so); every chain and every leg was still verified.
 *
 * Progress is a cursor kept in the store (`recordVerification`): the pass, its start totals, the last
 * account finished, and within the account under way its target, the seq reached, the running sum and
 * the last hash. Each run resumes from it, does at least one step (so a tiny budget still progresses),
 * stops at its budget or at the end of a pass, and records its result (bounded: the newest
 * {@link RESULTS_KEPT}). The next run after a finished pass starts a new one. Two runs at once do the same
 * work twice; the store keeps the cursor of the one that moved it first.
 */
import { createHash, randomUUID } from 'node:crypto';
import { linkViolations, type InvariantViolation } from './invariants.js';
import { ISSUER_ACCOUNT_ID, type ChainHead, type LedgerStore, type LedgerTotals, type Posting, type Transfer } from './types.js';

/** Default time budget of one run, ms: half of the functions' `maxDuration` (10 s, `dev/vercel-config.ts`), leaving room for the alert. */
export const VERIFY_BUDGET_MS = 5000;
/** Largest time budget a caller may ask for, ms. */
export const VERIFY_BUDGET_MAX_MS = 8000;
/** Results the store keeps (the oldest beyond are dropped). */
export const RESULTS_KEPT = 100;
/** Failures one result lists; the rest are counted in `failuresOmitted`. */
export const FAILURES_PER_RESULT = 50;
/** Accounts read per page. */
export const ACCOUNT_PAGE = 100;
/** Postings read per page. */
export const CHAIN_PAGE = 250;

/** Who started a run. */
export type VerificationTrigger = 'cron' | 'operator' | 'cli';

/** One broken invariant found by the scheduled check: which, where, and what broke. */
export interface VerificationFailure extends InvariantViolation {
  /** The account whose chain or leg broke it; absent for a break of the totals. */
  readonly account?: string;
  /** The posting's seq in that chain, when one posting broke it. */
  readonly seq?: number;
}

/** The totals check of a finished pass. */
export interface TotalsCheck {
  /** False when the ledger changed during the pass (the totals are left for a quiet pass). */
  readonly checked: boolean;
  /** Transfers at the pass's end. */
  readonly transfers: number;
  /** Transfers made during the pass. */
  readonly madeDuringPass: number;
}

/** What one run did (stored as JSON, newest first; shown by the health route). */
export interface VerificationResult {
  /** RFC 4122 uuid of the run. */
  readonly runId: string;
  readonly trigger: VerificationTrigger;
  /** ISO 8601 UTC. */
  readonly startedAt: string;
  readonly finishedAt: string;
  readonly durationMs: number;
  readonly budgetMs: number;
  /** The pass the run worked on, 1-based. */
  readonly pass: number;
  readonly passStarted: boolean;
  readonly passFinished: boolean;
  /** Accounts whose chain the run finished. */
  readonly accountsChecked: number;
  /** Postings the run verified. */
  readonly postingsChecked: number;
  /** For a run that finished its pass. */
  readonly totals?: TotalsCheck;
  /** At most {@link FAILURES_PER_RESULT}. */
  readonly failures: readonly VerificationFailure[];
  readonly failuresOmitted: number;
}

/** A run as its caller gets it: the stored result, and what became of the cursor. */
export interface VerificationRun extends VerificationResult {
  /** `superseded` when another run moved the cursor first (this run's progress was not kept). */
  readonly cursor: 'written' | 'superseded';
}

/** The account under way: its target, and how far its chain is verified. */
interface Current {
  readonly target: ChainHead;
  /** The last seq verified (0 before the first). */
  seq: number;
  running: number;
  prev: string;
}

/** The cursor as stored (JSON); `version` guards against reading another shape. */
export interface VerificationCursor {
  readonly version: 1;
  readonly pass: number;
  readonly startedAt: string;
  /** The ledger's totals when the pass started. */
  readonly start: LedgerTotals;
  /** The last account finished in this pass, `''` before the first. */
  after: string;
  current?: Current;
  /** Set when the pass is over: the next run starts a new one. */
  finishedAt?: string;
  totals?: TotalsCheck;
  readonly tally: {
    accounts: number;
    postings: number;
    /** Postings of the issuer's chain and of the other chains, verified up to their targets. */
    issuerPostings: number;
    accountPostings: number;
    /** The targets' balances summed (integer coin units). */
    balanceSum: number;
    /** Digests of the entry ids of those postings: sums modulo 2^64, in hex. */
    issuerDigest: string;
    accountDigest: string;
    failures: number;
  };
}

/** Options of {@link runVerification}. */
export interface VerificationOptions {
  /** Time budget, ms (default {@link VERIFY_BUDGET_MS}); at least one step runs whatever it is. */
  readonly budgetMs?: number;
  readonly trigger: VerificationTrigger;
  /** The clock, ms since the epoch (default `Date.now`). */
  readonly now?: () => number;
  /** Page sizes (default {@link ACCOUNT_PAGE}, {@link CHAIN_PAGE}); tests use small ones. */
  readonly accountPage?: number;
  readonly chainPage?: number;
}

/** The cursor of `text`, or undefined for none or a shape this code does not read (a new pass starts). */
export function parseCursor(text: string | undefined): VerificationCursor | undefined {
  if (text === undefined) return undefined;
  try {
    const c = JSON.parse(text) as VerificationCursor;
    return c.version === 1 ? c : undefined;
  } catch {
    return undefined;
  }
}

const MOD = 1n << 64n;

/** The digest of one entry id: the first 64 bits of its SHA-1. */
function entryDigest(entryId: string): bigint {
  return BigInt(`0x${createHash('sha1').update(entryId).digest('hex').slice(0, 16)}`);
}

const addDigest = (sum: string, entryId: string): string => ((BigInt(`0x${sum}`) + entryDigest(entryId)) % MOD).toString(16);

/** A run under way: the cursor it moves, what it found. */
class Run {
  readonly failures: VerificationFailure[] = [];
  accounts = 0;
  postings = 0;
  passStarted = false;
  /** Heads read ahead in this run, after the cursor's `after`. */
  #queue: ChainHead[] = [];

  constructor(
    private readonly store: LedgerStore,
    public cursor: VerificationCursor | undefined,
    private readonly accountPage: number,
    private readonly chainPage: number,
    private readonly nowIso: () => string,
  ) {}

  #fail(f: VerificationFailure): void {
    this.failures.push(f);
    this.cursor!.tally.failures++;
  }

  /** One step: start a pass, verify one page of a chain, take the next account, or finish the pass. @returns false when the pass is over. */
  async step(): Promise<boolean> {
    const c = this.cursor;
    if (c === undefined || c.finishedAt !== undefined) {
      this.cursor = {
        version: 1,
        pass: (c?.pass ?? 0) + 1,
        startedAt: this.nowIso(),
        start: await this.store.ledgerTotals(),
        after: '',
        tally: {
          accounts: 0,
          postings: 0,
          issuerPostings: 0,
          accountPostings: 0,
          balanceSum: 0,
          issuerDigest: '0',
          accountDigest: '0',
          failures: 0,
        },
      };
      this.passStarted = true;
      return true;
    }
    if (c.current) {
      await this.#verifyPage(c, c.current);
      return true;
    }
    if (this.#queue.length === 0)
      this.#queue = await this.store.ledgerAccounts({ after: c.after === '' ? undefined : c.after, limit: this.accountPage });
    const next = this.#queue.shift();
    if (next) {
      c.current = { target: next, seq: 0, running: 0, prev: '' };
      return true;
    }
    await this.#finishPass(c);
    return false;
  }

  /** Verify the next page of the account under way, and close the account when its target is reached. */
  async #verifyPage(c: VerificationCursor, cur: Current): Promise<void> {
    const id = cur.target.accountId;
    const want = Math.min(this.chainPage, cur.target.seq - cur.seq);
    const postings = want > 0 ? await this.store.chain(id, { fromSeq: cur.seq + 1, limit: want }) : [];
    const transfers = await this.#transfersOf(postings);
    for (const p of postings) {
      const seq = cur.seq + 1;
      cur.running += p.amount;
      for (const v of linkViolations(id, seq, cur.prev, cur.running, p)) this.#fail({ ...v, account: id, seq });
      this.#checkLeg(id, seq, p, transfers);
      cur.prev = p.hash;
      cur.seq = seq;
      const t = c.tally;
      if (id === ISSUER_ACCOUNT_ID) {
        t.issuerPostings++;
        t.issuerDigest = addDigest(t.issuerDigest, p.entryId);
      } else {
        t.accountPostings++;
        t.accountDigest = addDigest(t.accountDigest, p.entryId);
      }
      t.postings++;
      this.postings++;
    }
    if (postings.length < want)
      this.#fail({
        invariant: 4,
        account: id,
        message: `Account ${id}: the chain ends at posting ${cur.seq}, its head names posting ${cur.target.seq}.`,
      });
    else if (cur.seq < cur.target.seq) return;
    if (cur.running !== cur.target.balance)
      this.#fail({ invariant: 1, account: id, message: `Account ${id}: balance ${cur.target.balance}, postings sum to ${cur.running}.` });
    if (cur.prev !== cur.target.head)
      this.#fail({ invariant: 4, account: id, message: `Account ${id}: the head does not name the last posting's hash.` });
    c.tally.balanceSum += cur.target.balance;
    c.tally.accounts++;
    this.accounts++;
    c.after = id;
    delete c.current;
  }

  /** The transfers the postings name, with the originals and reversals they link to (invariant 5). */
  async #transfersOf(postings: readonly Posting[]): Promise<Map<string, Transfer | undefined>> {
    const found = new Map<string, Transfer | undefined>();
    const load = async (ids: Iterable<string>) => {
      const wanted = [...new Set(ids)].filter((e) => e !== '' && !found.has(e));
      const got = await Promise.all(wanted.map((e) => this.store.transfer(e)));
      wanted.forEach((e, i) => found.set(e, got[i]));
    };
    await load(postings.map((p) => p.entryId));
    await load([...found.values()].flatMap((t) => (t && t.accountId !== ISSUER_ACCOUNT_ID ? [t.reverses, t.reversedBy ?? ''] : [])));
    return found;
  }

  /** Invariants 3 and 5 of one posting at `seq` of `account`'s chain (see the module header). */
  #checkLeg(account: string, seq: number, p: Posting, transfers: ReadonlyMap<string, Transfer | undefined>): void {
    const fail = (invariant: 3 | 5, message: string) => this.#fail({ invariant, account, seq, message });
    const t = transfers.get(p.entryId);
    if (!t) return fail(3, `Entry ${p.entryId} (${p.sourceRef}) has postings but no transfer under its source ref.`);
    const gain = t.kind === 'reversal' ? -t.amount : t.amount;
    const issuer = account === ISSUER_ACCOUNT_ID;
    const leg = issuer
      ? p.amount === -gain && p.counterparty === t.accountId
      : account === t.accountId && p.amount === gain && p.counterparty === ISSUER_ACCOUNT_ID;
    if (!leg || p.sourceRef !== t.sourceRef || p.kind !== t.kind || p.reverses !== t.reverses)
      return fail(3, `Account ${account}: posting ${seq} is not a leg of transfer ${t.sourceRef}.`);
    if (issuer) return;
    if (t.kind !== 'reversal' && t.reverses !== '') fail(5, `Transfer ${t.sourceRef} is not a reversal but names ${t.reverses}.`);
    if (t.kind === 'reversal') {
      const original = transfers.get(t.reverses);
      if (!original || original.kind === 'reversal' || original.accountId !== t.accountId || original.amount !== t.amount)
        fail(5, `Reversal ${t.sourceRef} does not mirror a credit of ${t.amount} to account ${t.accountId}.`);
      else if (original.reversedBy !== t.entryId) fail(5, `Entry ${original.entryId} does not link to its reversal ${t.entryId}.`);
    }
    if (t.reversedBy !== undefined && transfers.get(t.reversedBy)?.reverses !== t.entryId)
      fail(5, `Entry ${t.entryId} names ${t.reversedBy} as its reversal, which does not reverse it.`);
  }

  /** The totals at the end of a pass (see the module header), and the pass marked finished. */
  async #finishPass(c: VerificationCursor): Promise<void> {
    const end = await this.store.ledgerTotals();
    const quiet = end.transfers === c.start.transfers && end.issuerSeq === c.start.issuerSeq;
    c.totals = { checked: quiet, transfers: end.transfers, madeDuringPass: Math.max(0, end.issuerSeq - c.start.issuerSeq) };
    c.finishedAt = this.nowIso();
    if (!quiet) return;
    const t = c.tally;
    if (t.balanceSum !== 0) this.#fail({ invariant: 2, message: `The balances sum to ${t.balanceSum}, not 0.` });
    if (end.issuerSeq !== end.transfers || t.issuerPostings !== end.transfers || t.accountPostings !== end.transfers)
      this.#fail({
        invariant: 3,
        message: `${end.transfers} transfer(s), but the issuer's chain holds ${t.issuerPostings} posting(s) and the accounts' chains ${t.accountPostings}.`,
      });
    else if (t.issuerDigest !== t.accountDigest)
      this.#fail({ invariant: 3, message: "The issuer's postings and the accounts' postings name different entries." });
  }
}

/**
 * Run the scheduled check for up to `budgetMs` from where the last run stopped (see the module header),
 * and record the run in the store.
 * @returns the run's result (also stored).
 * @throws ServiceError UPSTREAM_UNAVAILABLE when the store cannot be reached (nothing is recorded then).
 */
export async function runVerification(store: LedgerStore, options: VerificationOptions): Promise<VerificationRun> {
  const now = options.now ?? Date.now;
  const budgetMs = options.budgetMs ?? VERIFY_BUDGET_MS;
  const started = now();
  const nowIso = () => new Date(now()).toISOString();
  const record = await store.verification();
  const run = new Run(store, parseCursor(record.cursor), options.accountPage ?? ACCOUNT_PAGE, options.chainPage ?? CHAIN_PAGE, nowIso);
  // at least one step, then steps while the budget lasts and the pass goes on
  while ((await run.step()) && now() - started < budgetMs);
  const cursor = run.cursor!;
  const finished = now();
  const failures = run.failures.slice(0, FAILURES_PER_RESULT);
  const result: VerificationResult = {
    runId: randomUUID(),
    trigger: options.trigger,
    startedAt: new Date(started).toISOString(),
    finishedAt: new Date(finished).toISOString(),
    durationMs: Math.max(0, finished - started),
    budgetMs,
    pass: cursor.pass,
    passStarted: run.passStarted,
    passFinished: cursor.finishedAt !== undefined,
    accountsChecked: run.accounts,
    postingsChecked: run.postings,
    ...(cursor.totals ? { totals: cursor.totals } : {}),
    failures,
    failuresOmitted: run.failures.length - failures.length,
  };
  const written = await store.recordVerification({
    expect: record.cursor,
    cursor: JSON.stringify(cursor),
    result: JSON.stringify(result),
    keep: RESULTS_KEPT,
  });
  return { ...result, cursor: written };
}

/** How far the pass under way (or the last one) has come, for the health route. */
export interface PassProgress {
  readonly pass: number;
  readonly startedAt: string;
  /** Set when the pass is over (the next run starts a new one). */
  readonly finishedAt?: string;
  /** Accounts whose chain the pass finished, and postings it verified. */
  readonly accountsChecked: number;
  readonly postingsChecked: number;
  /** Failures the pass found so far. */
  readonly failures: number;
  /** The last account finished (`''` before the first). */
  readonly after: string;
  /** The account under way: how far its chain is verified, and up to where. */
  readonly current?: { readonly accountId: string; readonly seq: number; readonly targetSeq: number };
  /** The ledger's totals at the pass's start. */
  readonly start: LedgerTotals;
  /** The totals check of a finished pass. */
  readonly totals?: TotalsCheck;
}

/** What the health route shows: the pass's progress (null before the first run) and the results kept, newest first. */
export interface VerificationHealth {
  readonly pass: PassProgress | null;
  readonly results: readonly VerificationResult[];
}

/**
 * The scheduled check's state as the store keeps it (see {@link VerificationHealth}); results the store
 * holds in a shape this code does not read are left out.
 * @throws ServiceError UPSTREAM_UNAVAILABLE when the store cannot be reached.
 */
export async function verificationHealth(store: LedgerStore): Promise<VerificationHealth> {
  const record = await store.verification();
  const c = parseCursor(record.cursor);
  const results: VerificationResult[] = [];
  for (const text of record.results) {
    try {
      const r = JSON.parse(text) as VerificationResult;
      if (typeof r.runId === 'string') results.push(r);
    } catch {
      // not ours to show
    }
  }
  const pass: PassProgress | null = c
    ? {
        pass: c.pass,
        startedAt: c.startedAt,
        ...(c.finishedAt !== undefined ? { finishedAt: c.finishedAt } : {}),
        accountsChecked: c.tally.accounts,
        postingsChecked: c.tally.postings,
        failures: c.tally.failures,
        after: c.after,
        ...(c.current ? { current: { accountId: c.current.target.accountId, seq: c.current.seq, targetSeq: c.current.target.seq } } : {}),
        start: c.start,
        ...(c.totals ? { totals: c.totals } : {}),
      }
    : null;
  return { pass, results };
}
