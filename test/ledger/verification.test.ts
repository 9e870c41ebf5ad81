/**
 * The scheduled check of the ledger (docs/architecture.md, "Scheduled verification";
 * `api/_lib/ledger/verification.ts`) on SQLite, a real redis-server over RESP and the Upstash REST
 * stand-in: a sound ledger passes with its totals checked; a store corrupted as someone with access to
 * it could (an edited amount, a balance, a removed transfer, a transfer without postings) is reported
 * with the account and what broke, under the invariants `checkInvariants` names for the same store; a run
 * with a tiny budget resumes where the last stopped and a pass of such runs reaches the verdict of one
 * full run (a fast-check property over random ledgers and damage); entries added during a pass raise no
 * false alarm and are verified by the next pass; the cursor of the run that moved it first is kept and
 * the results are bounded.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { createClient } from '@libsql/client';
import { checkInvariants } from '../../api/_lib/ledger/invariants.js';
import { ISSUER_ACCOUNT_ID, type Account, type LedgerStore } from '../../api/_lib/ledger/types.js';
import {
  parseCursor,
  RESULTS_KEPT,
  runVerification,
  verificationHealth,
  type VerificationFailure,
  type VerificationOptions,
} from '../../api/_lib/ledger/verification.js';
import { KEYS } from '../../api/_lib/ledger/redis.js';
import { connectRespRequester } from '../../api/_lib/stores/resp-requester.js';
import { openSqliteLedgerOn, redisHarness, sqliteHarness, upstashRestHarness, type LedgerHarness } from '../helpers/ledger.js';
import { fileOf, onBackend, sqliteBackend } from '../helpers/backends.js';
import { addAccount, creditOf, newAccount } from '../helpers/ledger-ops.js';

/** A ledger of three accounts with credits, a grant and a reversal. */
async function populate(s: LedgerStore): Promise<Account[]> {
  const accounts = [await addAccount(s, newAccount()), await addAccount(s, newAccount()), await addAccount(s, newAccount())];
  for (const [i, a] of accounts.entries()) for (let k = 1; k <= 3 + i; k++) await s.credit(creditOf(a, { amount: 10 * k + i }));
  const grant = creditOf(accounts[1]!, { kind: 'admin_grant', purpose: 'grant', sourceRef: 'admin-grant:verify-1', amount: 40 });
  await s.credit(grant);
  await s.credit(
    creditOf(accounts[1]!, { kind: 'reversal', purpose: 'reversal', sourceRef: 'reversal:verify-1', amount: 40, reverses: grant.entryId }),
  );
  return accounts;
}

/** Run passes' runs until one finishes its pass; every failure of those runs, and how many runs it took. */
async function wholePass(
  s: LedgerStore,
  options: Partial<VerificationOptions> = {},
): Promise<{ failures: VerificationFailure[]; runs: number }> {
  const failures: VerificationFailure[] = [];
  for (let runs = 1; runs < 10_000; runs++) {
    const r = await runVerification(s, { trigger: 'cli', ...options });
    failures.push(...r.failures);
    if (r.passFinished) return { failures, runs };
  }
  throw new Error('the pass never finished');
}

const TINY: Partial<VerificationOptions> = { budgetMs: 0, accountPage: 2, chainPage: 2 };
const sorted = (f: readonly VerificationFailure[]) => f.map((v) => `${v.invariant} ${v.message}`).sort();
const invariantsOf = (f: readonly { invariant: number }[]) => [...new Set(f.map((v) => v.invariant))].sort();

/** The SQLite ledger's harness, with the file of its last `fresh` (for damage past the append-only triggers). */
function fileHarness(): LedgerHarness & { file(): string } {
  let last = '';
  const harness = onBackend(sqliteBackend(), (t) => {
    last = fileOf(t);
    return openSqliteLedgerOn(t);
  });
  return { ...harness, file: () => last };
}

/** Raw commands on the redis-server behind a harness. */
async function onServer(url: string, commands: (string | number)[][]): Promise<unknown[]> {
  const r = await connectRespRequester(url);
  const out: unknown[] = [];
  for (const body of commands) out.push((await r.request({ body: body.map(String) })).result);
  await r.close();
  return out;
}

describe.each([
  ['sqlite', sqliteHarness],
  ['redis', redisHarness],
  ['redis-rest', upstashRestHarness],
] as [string, () => LedgerHarness][])('the scheduled check on %s', (_name, make) => {
  const h = make();
  beforeAll(() => h.setup(), 30_000);
  afterAll(() => h.teardown());

  it('passes a sound ledger in one run, the totals checked, and starts a new pass on the next run', async () => {
    const s = await h.fresh();
    await populate(s);
    const first = await runVerification(s, { trigger: 'cli', budgetMs: 60_000 });
    expect(first).toMatchObject({
      pass: 1,
      passStarted: true,
      passFinished: true,
      accountsChecked: 4,
      postingsChecked: 28,
      totals: { checked: true, transfers: 14, madeDuringPass: 0 },
      failures: [],
      failuresOmitted: 0,
      cursor: 'written',
    });
    const second = await runVerification(s, { trigger: 'cron', budgetMs: 60_000 });
    expect([second.pass, second.passStarted, second.passFinished, second.failures]).toEqual([2, true, true, []]);
    const health = await verificationHealth(s);
    expect(health.results.map((r) => [r.pass, r.trigger])).toEqual([
      [2, 'cron'],
      [1, 'cli'],
    ]);
    expect(health.pass).toMatchObject({ pass: 2, accountsChecked: 4, postingsChecked: 28, failures: 0, totals: { checked: true } });
    await s.close();
  });

  it('resumes run after run with a tiny budget, keeping its place in a chain, to the verdict of one full run', async () => {
    const s = await h.fresh();
    await populate(s);
    const { failures, runs } = await wholePass(s, TINY);
    expect(failures).toEqual([]);
    // one step a run: the pass start, each account taken, each page of two postings, the end
    expect(runs).toBeGreaterThan(20);
    const health = await verificationHealth(s);
    expect(health.pass).toMatchObject({ accountsChecked: 4, postingsChecked: 28, totals: { checked: true } });
    expect(health.results.every((r) => r.budgetMs === 0)).toBe(true);
    await s.close();
  });

  it('raises no alarm for entries added during a pass, and verifies them in the next', async () => {
    const s = await h.fresh();
    const accounts = await populate(s);
    // run until the pass is inside the chains, then credit accounts behind, under way and ahead, and a new one
    for (let i = 0; i < 8; i++) await runVerification(s, { trigger: 'cli', ...TINY });
    const late = await addAccount(s, newAccount());
    for (const a of [...accounts, late]) await s.credit(creditOf(a, { amount: 3 }));
    let pass = await wholePass(s, TINY);
    expect(pass.failures).toEqual([]);
    const finished = (await verificationHealth(s)).pass!;
    expect(finished.totals).toEqual({ checked: false, transfers: 18, madeDuringPass: 4 });
    pass = await wholePass(s, TINY);
    expect(pass.failures).toEqual([]);
    expect((await verificationHealth(s)).pass).toMatchObject({ postingsChecked: 36, totals: { checked: true, transfers: 18 } });
    await s.close();
  });

  it('keeps the cursor of the run that moved it first; the other run is recorded as superseded', async () => {
    const s = await h.fresh();
    await populate(s);
    await runVerification(s, { trigger: 'cli', ...TINY });
    const [a, b] = await Promise.all([
      runVerification(s, { trigger: 'cron', ...TINY }),
      runVerification(s, { trigger: 'operator', ...TINY }),
    ]);
    expect([a.cursor, b.cursor].sort()).toEqual(['superseded', 'written']);
    expect((await verificationHealth(s)).results).toHaveLength(3);
    await s.close();
  });
});

describe('a corrupted store is reported with the account and what broke', () => {
  const sqlite = fileHarness();
  const redis = redisHarness();
  beforeAll(async () => {
    await sqlite.setup();
    await redis.setup();
  }, 30_000);
  afterAll(async () => {
    await sqlite.teardown();
    await redis.teardown();
  });

  it('on SQLite: an edited amount, a balance, a transfer removed and a transfer without postings', async () => {
    const cases: [string, (a: Account[]) => string, number[]][] = [
      [
        'amount',
        (a) => `DROP TRIGGER postings_append_only_u; UPDATE postings SET amount = 99 WHERE account_id = '${a[0]!.accountId}' AND seq = 2;`,
        [1, 3, 4],
      ],
      ['balance', (a) => `UPDATE ledger_accounts SET balance = balance + 1 WHERE account_id = '${a[2]!.accountId}';`, [1, 2]],
      [
        'transfer removed',
        (a) => `DROP TRIGGER transfers_append_only_d; DELETE FROM transfers WHERE account_id = '${a[0]!.accountId}' AND amount = 10;`,
        [3],
      ],
      [
        'transfer without postings',
        (a) =>
          `INSERT INTO transfers (source_ref, entry_id, kind, account_id, amount, purpose, note, balance_after, at) VALUES ('verify-send:ghost', 'ghost', 'verify_send', '${a[0]!.accountId}', 5, 'verify', '', 5, 'x');`,
        [3],
      ],
    ];
    for (const [what, sql, invariants] of cases) {
      const s = await sqlite.fresh();
      const accounts = await populate(s);
      await s.close();
      const db = createClient({ url: `file:${sqlite.file()}` });
      await db.executeMultiple(sql(accounts));
      db.close();
      const store = await sqlite.reopen();
      const full = checkInvariants(await store.snapshot());
      const once = await runVerification(store, { trigger: 'cli', budgetMs: 60_000 });
      expect(once.passFinished, what).toBe(true);
      expect(invariantsOf(once.failures), what).toEqual(invariants);
      expect(invariantsOf(full), what).toEqual(invariants);
      const tiny = await wholePass(store, TINY);
      expect(sorted(tiny.failures), what).toEqual(sorted(once.failures));
      if (what === 'amount') {
        expect(once.failures.filter((f) => f.invariant === 4)).toEqual([
          {
            invariant: 4,
            account: accounts[0]!.accountId,
            seq: 2,
            message: `Account ${accounts[0]!.accountId}: posting 2 does not match its hash.`,
          },
        ]);
      }
      await store.close();
    }
  });

  it('on Redis: an edited posting and a balance', async () => {
    const s = await redis.fresh();
    const accounts = await populate(s);
    const a = accounts[0]!.accountId;
    const url = redis.server().url;
    const [posting] = (await onServer(url, [['LINDEX', KEYS.postings(a), 1]])) as [string];
    const edited = JSON.stringify({ ...(JSON.parse(posting) as Record<string, unknown>), purpose: 'edited' });
    await onServer(url, [
      ['LSET', KEYS.postings(a), 1, edited],
      ['HINCRBY', KEYS.account(accounts[2]!.accountId), 'balance', 1],
    ]);
    const once = await runVerification(s, { trigger: 'cli', budgetMs: 60_000 });
    expect(invariantsOf(once.failures)).toEqual([1, 2, 4]);
    expect(invariantsOf(checkInvariants(await s.snapshot()))).toEqual([1, 2, 4]);
    expect(once.failures).toContainEqual({ invariant: 4, account: a, seq: 2, message: `Account ${a}: posting 2 does not match its hash.` });
    expect(once.failures).toContainEqual({
      invariant: 1,
      account: accounts[2]!.accountId,
      message: `Account ${accounts[2]!.accountId}: balance 161, postings sum to 160.`,
    });
    expect(sorted((await wholePass(s, TINY)).failures)).toEqual(sorted(once.failures));
    await s.close();
  });

  it('on Redis: lists the accounts credited before the id order existed', async () => {
    const s = await redis.fresh();
    await populate(s);
    await onServer(redis.server().url, [['DEL', KEYS.accountOrder]]);
    const run = await runVerification(s, { trigger: 'cli', budgetMs: 60_000 });
    expect([run.accountsChecked, run.failures]).toEqual([4, []]);
    expect((await s.ledgerAccounts({ limit: 10 })).map((h) => h.accountId)).toContain(ISSUER_ACCOUNT_ID);
    await s.close();
  });
});

describe('a pass of tiny runs reaches the verdict of one full run (property)', () => {
  const h = fileHarness();
  beforeAll(() => h.setup());
  afterAll(() => h.teardown());

  it('over random ledgers and random damage', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(fc.nat(3), fc.integer({ min: 1, max: 50 })), { minLength: 1, maxLength: 14 }),
        fc.option(fc.tuple(fc.constantFrom('amount', 'balance', 'purpose', 'ghost'), fc.nat(40)), { nil: undefined }),
        fc.integer({ min: 1, max: 4 }),
        async (credits, damage, page) => {
          const s = await h.fresh();
          const accounts = [
            await addAccount(s, newAccount()),
            await addAccount(s, newAccount()),
            await addAccount(s, newAccount()),
            await addAccount(s, newAccount()),
          ];
          for (const [i, amount] of credits) await s.credit(creditOf(accounts[i]!, { amount }));
          await s.close();
          if (damage) {
            const db = createClient({ url: `file:${h.file()}` });
            const [kind, n] = damage;
            const seq = (n % credits.length) + 1;
            const sql = {
              amount: `DROP TRIGGER postings_append_only_u; UPDATE postings SET amount = amount + 1 WHERE account_id = '${ISSUER_ACCOUNT_ID}' AND seq = ${seq};`,
              balance: `UPDATE ledger_accounts SET balance = balance - 1 WHERE account_id = '${accounts[credits[n % credits.length]![0]]!.accountId}';`,
              purpose: `DROP TRIGGER postings_append_only_u; UPDATE postings SET purpose = 'x' WHERE account_id = '${ISSUER_ACCOUNT_ID}' AND seq = ${seq};`,
              ghost: `INSERT INTO transfers (source_ref, entry_id, kind, account_id, amount, purpose, note, balance_after, at) VALUES ('verify-send:ghost', 'ghost', 'verify_send', '${accounts[0]!.accountId}', 5, 'verify', '', 5, 'x');`,
            }[kind];
            await db.executeMultiple(sql);
            db.close();
          }
          const store = await h.reopen();
          const full = checkInvariants(await store.snapshot());
          const once = await runVerification(store, { trigger: 'cli', budgetMs: 60_000 });
          const tiny = await wholePass(store, { budgetMs: 0, accountPage: page, chainPage: page });
          expect(sorted(tiny.failures)).toEqual(sorted(once.failures));
          expect(once.failures.length === 0).toBe(full.length === 0);
          expect(invariantsOf(once.failures)).toEqual(invariantsOf(full));
          expect(damage === undefined).toBe(full.length === 0);
          await store.close();
        },
      ),
      { numRuns: 40 },
    );
  }, 120_000);
});

describe('the record', () => {
  const h = sqliteHarness();
  beforeAll(() => h.setup());
  afterAll(() => h.teardown());

  it(`keeps the newest ${RESULTS_KEPT} results, and a cursor of another shape starts a new pass`, async () => {
    const s = await h.fresh();
    await populate(s);
    for (let i = 0; i < RESULTS_KEPT + 5; i++) await runVerification(s, { trigger: 'cli', ...TINY });
    const { results } = await s.verification();
    expect(results).toHaveLength(RESULTS_KEPT);
    expect(parseCursor('{"version":2}')).toBeUndefined();
    expect(parseCursor('not json')).toBeUndefined();
    const record = await s.verification();
    await s.recordVerification({ expect: record.cursor, cursor: '{"version":0}', result: 'not a result', keep: RESULTS_KEPT });
    const run = await runVerification(s, { trigger: 'cli', budgetMs: 60_000 });
    expect([run.pass, run.passStarted, run.passFinished]).toEqual([1, true, true]);
    // a stored result this code cannot read is not shown
    expect((await verificationHealth(s)).results).toHaveLength(RESULTS_KEPT - 1);
    await s.close();
  });
});

describe('what broke, word for word (SQLite)', () => {
  const h = fileHarness();
  beforeAll(() => h.setup());
  afterAll(() => h.teardown());

  /** A populated ledger damaged by `sql` (accounts and the entry ids of the first account's chain given), checked in one run. */
  async function damaged(sql: (a: Account[], entries: string[]) => string, seed = populate) {
    const s = await h.fresh();
    const accounts = await seed(s);
    const entries = (await s.chain(accounts[0]!.accountId, { fromSeq: 1, limit: 100 })).map((p) => p.entryId);
    await s.close();
    const db = createClient({ url: `file:${h.file()}` });
    await db.executeMultiple(sql(accounts, entries));
    db.close();
    const store = await h.reopen();
    const run = await runVerification(store, { trigger: 'cli', budgetMs: 60_000 });
    const full = checkInvariants(await store.snapshot());
    return { store, accounts, run, full };
  }

  it('a leg that is not its transfer’s, a chain shorter than its head, a head that names another hash, a sum that is not zero', async () => {
    const leg = await damaged(
      (a) => `DROP TRIGGER postings_append_only_u; UPDATE postings SET amount = 99 WHERE account_id = '${a[0]!.accountId}' AND seq = 2;`,
    );
    const id = leg.accounts[0]!.accountId;
    expect(leg.run.failures.filter((f) => f.invariant === 3)).toEqual([
      {
        invariant: 3,
        account: id,
        seq: 2,
        message: `Account ${id}: posting 2 is not a leg of transfer ${(await leg.store.chain(id, { fromSeq: 2, limit: 1 }))[0]!.sourceRef}.`,
      },
    ]);
    await leg.store.close();

    const short = await damaged((a) => `UPDATE ledger_accounts SET seq = seq + 2 WHERE account_id = '${a[1]!.accountId}';`);
    const b = short.accounts[1]!.accountId;
    expect(short.run.failures).toEqual([
      { invariant: 4, account: b, message: `Account ${b}: the chain ends at posting 6, its head names posting 8.` },
    ]);
    await short.store.close();

    const head = await damaged((a) => `UPDATE ledger_accounts SET head = 'f00d' WHERE account_id = '${a[2]!.accountId}';`);
    const c = head.accounts[2]!.accountId;
    expect(head.run.failures).toEqual([
      { invariant: 4, account: c, message: `Account ${c}: the head does not name the last posting's hash.` },
    ]);
    await head.store.close();

    const sum = await damaged((a) => `UPDATE ledger_accounts SET balance = balance + 1 WHERE account_id = '${a[2]!.accountId}';`);
    expect(sum.run.failures.find((f) => f.invariant === 2)).toEqual({ invariant: 2, message: 'The balances sum to 1, not 0.' });
    expect(sum.full.find((f) => f.invariant === 2)).toEqual({ invariant: 2, message: 'The balances sum to 1, not 0.' });
    await sum.store.close();
  });

  it('a transfer without postings, and legs that name other entries than the transfers, by the totals', async () => {
    const ghost = await damaged(
      (a) =>
        `INSERT INTO transfers (source_ref, entry_id, kind, account_id, amount, purpose, note, balance_after, at) VALUES ('verify-send:ghost', 'ghost', 'verify_send', '${a[0]!.accountId}', 5, 'verify', '', 5, 'x');`,
    );
    expect(ghost.run.failures).toEqual([
      { invariant: 3, message: "15 transfer(s), but the issuer's chain holds 14 posting(s) and the accounts' chains 14." },
    ]);
    expect(ghost.run.totals).toEqual({ checked: true, transfers: 15, madeDuringPass: 0 });
    await ghost.store.close();

    // an account leg filed under another entry of the same account and amount: every count agrees, the digests do not
    const swapped = await damaged(
      (_a, e) =>
        `DROP TRIGGER postings_append_only_u; UPDATE postings SET entry_id = '${e[1]}' WHERE entry_id = '${e[0]}' AND account_id <> '${ISSUER_ACCOUNT_ID}';`,
    );
    expect(swapped.run.failures.map((f) => f.message)).toContain(
      "The issuer's postings and the accounts' postings name different entries.",
    );
    expect(invariantsOf(swapped.run.failures)).toEqual(invariantsOf(swapped.full));
    await swapped.store.close();
  });

  it('a reversal whose links were removed or point elsewhere', async () => {
    const unlinked = await damaged(() => `DROP TRIGGER reversals_append_only_d; DELETE FROM reversals;`);
    expect(invariantsOf(unlinked.run.failures)).toEqual(invariantsOf(unlinked.full));
    expect(unlinked.run.failures.map((f) => f.message)).toContain(
      `Reversal reversal:verify-1 does not mirror a credit of 40 to account ${unlinked.accounts[1]!.accountId}.`,
    );
    await unlinked.store.close();

    // the original's back link names another entry (a credit of the same account), which does not reverse it
    const relinked = await damaged(
      (a) =>
        `DROP TRIGGER reversals_append_only_u; UPDATE reversals SET original_entry_id = (SELECT entry_id FROM transfers WHERE account_id = '${a[1]!.accountId}' AND amount = 11);`,
    );
    const messages = relinked.run.failures.map((f) => f.message);
    expect(
      messages.some(
        (m) =>
          /^Entry .* names .* as its reversal, which does not reverse it\.$/.test(m) ||
          /^Reversal reversal:verify-1 does not mirror/.test(m),
      ),
    ).toBe(true);
    expect(invariantsOf(relinked.run.failures)).toEqual(invariantsOf(relinked.full));
    await relinked.store.close();
  });

  it('a credit that claims to reverse, and an original that does not link back', async () => {
    // a second reversal link onto the same reversal's original is refused by the table; a credit named as a reversal is not
    const claims = await damaged(
      (a) =>
        `DROP TRIGGER reversals_append_only_u; INSERT INTO reversals (original_entry_id, reversal_entry_id) SELECT entry_id, (SELECT entry_id FROM transfers WHERE account_id = '${a[2]!.accountId}' AND amount = 12) FROM transfers WHERE account_id = '${a[0]!.accountId}' AND amount = 10;`,
    );
    expect(claims.run.failures.map((f) => f.message)).toEqual(
      expect.arrayContaining([expect.stringMatching(/is not a reversal but names/)]),
    );
    expect(invariantsOf(claims.run.failures)).toEqual(invariantsOf(claims.full));
    await claims.store.close();
  });

  it('lists the first 50 failures of a run and counts the rest; the health shows the account under way', async () => {
    const many = async (s: LedgerStore) => {
      const a = await addAccount(s, newAccount());
      for (let i = 1; i <= 30; i++) await s.credit(creditOf(a, { amount: i }));
      return [a];
    };
    const all = await damaged(() => `DROP TRIGGER postings_append_only_u; UPDATE postings SET purpose = 'x';`, many);
    expect([all.run.failures.length, all.run.failuresOmitted]).toEqual([50, 10]);
    expect((await verificationHealth(all.store)).pass!.failures).toBe(60);
    await all.store.close();

    const s = await h.fresh();
    await many(s);
    for (let i = 0; i < 4; i++) await runVerification(s, { trigger: 'cli', budgetMs: 0, chainPage: 4 });
    // the pass start, the issuer taken, two pages of four: the issuer is under way at seq 8 of 30
    expect((await verificationHealth(s)).pass).toMatchObject({
      after: '',
      current: { accountId: ISSUER_ACCOUNT_ID, seq: 8, targetSeq: 30 },
    });
    await s.close();
  });
});
