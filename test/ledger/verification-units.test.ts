/**
 * The scheduled check's single conditions (docs/architecture.md, "Scheduled verification";
 * `api/_lib/ledger/verification.ts`; spec 1.7, 4.8, 8), on SQLite and a real redis-server, each damage
 * made past the store's own guards (SQLite file edits with the append-only triggers dropped, raw Redis
 * writes) so that exactly one condition breaks:
 * - invariant 3 leg by leg: a transfer removed, one moved to another account, its amount, source ref or kind edited,
 *   its reversal link edited (Redis: the transfer's JSON), a posting naming another counterparty; each
 *   reported, word for word, on exactly the legs it breaks;
 * - invariant 5: a credit naming what it reverses, a reversal whose original is missing, a reversal, of
 *   another account or of another amount, an original whose back link names another entry (Redis);
 *   the links of a reversal and of its original are read even when the other lies on another page;
 * - the count check: the issuer's head, the issuer's chain and an account's chain each off alone;
 * - the quiet test: the transfers or the issuer's head alone moved during a pass;
 * - the reads: each chain page by page up to its target, none for an account without postings (and a
 *   credit to such an account made after it was taken is left for the next pass);
 * - the record: `passStarted` of a resumed run, the default budget, `durationMs` and the times on a
 *   given clock, stored results without a string `runId` left out, the health's `finishedAt`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from '@libsql/client';
import { ISSUER_ACCOUNT_ID, type LedgerStore } from '../../api/_lib/ledger/types.js';
import {
  runVerification,
  VERIFY_BUDGET_MS,
  verificationHealth,
  type VerificationFailure,
  type VerificationOptions,
} from '../../api/_lib/ledger/verification.js';
import { KEYS } from '../../api/_lib/ledger/redis.js';
import { connectRespRequester } from '../../api/_lib/stores/resp-requester.js';
import { openSqliteLedgerOn, redisHarness } from '../helpers/ledger.js';
import { fileOf, onBackend, sqliteBackend } from '../helpers/backends.js';
import { addAccount, creditOf, newAccount } from '../helpers/ledger-ops.js';

/** The seeded ledger: A credited 10 (a1) and 20 (a2); B credited 10 (b1), granted 40 (g) and that grant reversed (r); Z never credited. */
interface Seeded {
  readonly a: string;
  readonly b: string;
  readonly z: string;
  /** Entry ids by name. */
  readonly e: { readonly a1: string; readonly a2: string; readonly b1: string; readonly g: string; readonly r: string };
}

/** Issuer seqs of the seeded entries, in credit order. */
const ISSUER_SEQ = { a1: 1, a2: 2, b1: 3, g: 4, r: 5 } as const;
/** Source refs of the seeded entries. */
const REF = { a1: 'verify-send:a1', a2: 'verify-send:a2', b1: 'verify-send:b1', g: 'admin-grant:g', r: 'reversal:r' } as const;

async function seed(s: LedgerStore): Promise<Seeded> {
  const a = (await addAccount(s, newAccount())).accountId;
  const b = (await addAccount(s, newAccount())).accountId;
  const z = (await addAccount(s, newAccount())).accountId;
  const a1 = creditOf({ accountId: a }, { sourceRef: REF.a1, amount: 10 });
  const a2 = creditOf({ accountId: a }, { sourceRef: REF.a2, amount: 20 });
  const b1 = creditOf({ accountId: b }, { sourceRef: REF.b1, amount: 10 });
  const g = creditOf({ accountId: b }, { kind: 'admin_grant', purpose: 'grant', sourceRef: REF.g, amount: 40 });
  const r = creditOf({ accountId: b }, { kind: 'reversal', purpose: 'reversal', sourceRef: REF.r, amount: 40, reverses: g.entryId });
  for (const c of [a1, a2, b1, g, r]) expect((await s.credit(c)).status).not.toBe('refused');
  return { a, b, z, e: { a1: a1.entryId, a2: a2.entryId, b1: b1.entryId, g: g.entryId, r: r.entryId } };
}

/** One edit past the store's guards. */
type Edit =
  | {
      readonly transfer: string;
      readonly set: Readonly<Partial<Record<'accountId' | 'amount' | 'sourceRef' | 'kind' | 'reverses', string | number>>>;
    }
  | { readonly posting: readonly [string, number]; readonly set: Readonly<Partial<Record<'counterparty' | 'reverses', string>>> }
  | { readonly dropLast: string }
  | { readonly headSeq: string; readonly by: number }
  | { readonly ghost: string }
  | { readonly removeTransfer: string }
  | { readonly listed: string }
  | { readonly backLink: readonly [string, string] };

/** A backend whose stores can be damaged; `edit` answers the store to go on with (SQLite reopens its file). */
interface Damageable {
  readonly name: string;
  setup(): Promise<void>;
  teardown(): Promise<void>;
  fresh(): Promise<LedgerStore>;
  edit(store: LedgerStore, edits: readonly Edit[]): Promise<LedgerStore>;
}

const COLUMN = { accountId: 'account_id', amount: 'amount', sourceRef: 'source_ref', kind: 'kind' } as const;

function sqliteDamageable(): Damageable {
  let file = '';
  const h = onBackend(sqliteBackend(), (t) => {
    file = fileOf(t);
    return openSqliteLedgerOn(t);
  });
  return {
    name: 'sqlite',
    setup: () => h.setup(),
    teardown: () => h.teardown(),
    fresh: () => h.fresh(),
    async edit(store, edits) {
      await store.close();
      const db = createClient({ url: `file:${file}` });
      await db.executeMultiple(
        'DROP TRIGGER IF EXISTS postings_append_only_u; DROP TRIGGER IF EXISTS postings_append_only_d; DROP TRIGGER IF EXISTS transfers_append_only_u;',
      );
      for (const e of edits) {
        if ('transfer' in e) {
          for (const [k, v] of Object.entries(e.set)) {
            if (k === 'reverses') throw new Error('SQLite derives both links from one row');
            await db.execute({
              sql: `UPDATE transfers SET ${COLUMN[k as keyof typeof COLUMN]} = ? WHERE entry_id = ?`,
              args: [v, e.transfer],
            });
          }
        } else if ('posting' in e) {
          for (const [k, v] of Object.entries(e.set)) {
            if (k === 'reverses') throw new Error('SQLite derives both links from one row');
            await db.execute({ sql: 'UPDATE postings SET counterparty = ? WHERE account_id = ? AND seq = ?', args: [v, ...e.posting] });
          }
        } else if ('dropLast' in e) {
          await db.execute({
            sql: 'DELETE FROM postings WHERE account_id = ? AND seq = (SELECT max(seq) FROM postings WHERE account_id = ?)',
            args: [e.dropLast, e.dropLast],
          });
        } else if ('headSeq' in e) {
          await db.execute({ sql: 'UPDATE ledger_accounts SET seq = seq + ? WHERE account_id = ?', args: [e.by, e.headSeq] });
        } else if ('ghost' in e) {
          await db.execute({
            sql: `INSERT INTO transfers (source_ref, entry_id, kind, account_id, amount, purpose, note, balance_after, at) VALUES ('verify-send:ghost', 'ghost', 'verify_send', ?, 5, 'verify', '', 5, 'x')`,
            args: [e.ghost],
          });
        } else if ('removeTransfer' in e) {
          await db.execute('DROP TRIGGER IF EXISTS transfers_append_only_d');
          await db.execute({ sql: 'DELETE FROM transfers WHERE entry_id = ?', args: [e.removeTransfer] });
        } else if ('listed' in e) {
          await db.execute({ sql: "INSERT INTO ledger_accounts (account_id, balance, seq, head) VALUES (?, 0, 0, '')", args: [e.listed] });
        } else throw new Error('SQLite derives both links from one row');
      }
      db.close();
      return h.reopen();
    },
  };
}

function redisDamageable(): Damageable {
  const h = redisHarness();
  const raw = async (commands: (string | number)[][]): Promise<unknown[]> => {
    const r = await connectRespRequester(h.server().url);
    const out: unknown[] = [];
    for (const body of commands) out.push((await r.request({ body: body.map(String) })).result);
    await r.close();
    return out;
  };
  return {
    name: 'redis',
    setup: () => h.setup(),
    teardown: () => h.teardown(),
    fresh: () => h.fresh(),
    async edit(store, edits) {
      for (const e of edits) {
        if ('transfer' in e) {
          const [stored] = (await raw([['HGET', KEYS.transfers, e.transfer]])) as [string];
          const t = JSON.parse(stored) as Record<string, unknown>;
          for (const [k, v] of Object.entries(e.set)) t[k] = typeof t[k] === 'string' ? String(v) : v;
          await raw([['HSET', KEYS.transfers, e.transfer, JSON.stringify(t)]]);
        } else if ('posting' in e) {
          const [account, seq] = e.posting;
          const [stored] = (await raw([['LINDEX', KEYS.postings(account), seq - 1]])) as [string];
          const p = { ...(JSON.parse(stored) as Record<string, unknown>), ...e.set };
          await raw([['LSET', KEYS.postings(account), seq - 1, JSON.stringify(p)]]);
        } else if ('dropLast' in e) {
          await raw([['RPOP', KEYS.postings(e.dropLast)]]);
        } else if ('headSeq' in e) {
          await raw([['HINCRBY', KEYS.account(e.headSeq), 'seq', e.by]]);
        } else if ('ghost' in e) {
          const ghost = { entryId: 'ghost', sourceRef: 'verify-send:ghost', kind: 'verify_send', accountId: e.ghost, amount: '5' };
          await raw([
            ['HSET', KEYS.transfers, 'ghost', JSON.stringify({ ...ghost, purpose: 'verify', balanceAfter: '5', at: 'x', reverses: '' })],
          ]);
        } else if ('removeTransfer' in e) {
          await raw([['HDEL', KEYS.transfers, e.removeTransfer]]);
        } else if ('listed' in e) {
          await raw([
            ['SADD', KEYS.accounts, e.listed],
            ['ZADD', KEYS.accountOrder, 0, e.listed],
          ]);
        } else {
          await raw([['HSET', KEYS.entries, `r:${e.backLink[0]}`, e.backLink[1]]]);
        }
      }
      return store;
    },
  };
}

const BIG: Partial<VerificationOptions> = { budgetMs: 60_000 };
const TINY: Partial<VerificationOptions> = { budgetMs: 0, accountPage: 2, chainPage: 2 };
const ofInvariant = (f: readonly VerificationFailure[], ...invariants: number[]) => f.filter((v) => invariants.includes(v.invariant));
const leg = (account: string, seq: number, ref: string): VerificationFailure => ({
  invariant: 3,
  account,
  seq,
  message: `Account ${account}: posting ${seq} is not a leg of transfer ${ref}.`,
});
const five = (account: string, seq: number, message: string): VerificationFailure => ({ invariant: 5, account, seq, message });

/** Run passes' runs until one finishes its pass; every failure of those runs. */
async function wholePass(s: LedgerStore, options: Partial<VerificationOptions>): Promise<VerificationFailure[]> {
  const failures: VerificationFailure[] = [];
  for (let runs = 1; runs < 10_000; runs++) {
    const r = await runVerification(s, { trigger: 'cli', ...options });
    failures.push(...r.failures);
    if (r.passFinished) return failures;
  }
  throw new Error('the pass never finished');
}

/** A seeded store of `d` damaged by `edits`, checked in one run and in a pass of runs of one-posting pages. */
async function damagedOn(d: Damageable, edits: (x: Seeded) => Edit[]) {
  const fresh = await d.fresh();
  const x = await seed(fresh);
  const store = await d.edit(fresh, edits(x));
  const run = await runVerification(store, { trigger: 'cli', ...BIG });
  const paged = await wholePass(store, { budgetMs: 0, accountPage: 1, chainPage: 1 });
  await store.close();
  return { x, run, paged };
}

describe.each([[sqliteDamageable()], [redisDamageable()]])('the check’s single conditions on $name', (d) => {
  beforeAll(() => d.setup(), 30_000);
  afterAll(() => d.teardown());

  const damaged = (edits: (x: Seeded) => Edit[]) => damagedOn(d, edits);

  it('a sound ledger passes with pages of one posting (the reversal’s original and back link read from other pages)', async () => {
    const { run, paged } = await damaged(() => []);
    expect([run.failures, paged, run.accountsChecked]).toEqual([[], [], 3]);
  });

  it('invariant 3: each field of a transfer or a posting that is not its leg’s, on exactly the legs it breaks', async () => {
    const gone = await damaged((x) => [{ removeTransfer: x.e.a1 }]);
    const none = `Entry ${gone.x.e.a1} (${REF.a1}) has postings but no transfer under its source ref.`;
    expect(ofInvariant(gone.run.failures, 3, 5).filter((f) => f.account !== undefined)).toEqual([
      { invariant: 3, account: ISSUER_ACCOUNT_ID, seq: ISSUER_SEQ.a1, message: none },
      { invariant: 3, account: gone.x.a, seq: 1, message: none },
    ]);

    const moved = await damaged((x) => [{ transfer: x.e.a1, set: { accountId: x.b } }]);
    expect(ofInvariant(moved.run.failures, 3, 5)).toEqual([leg(ISSUER_ACCOUNT_ID, ISSUER_SEQ.a1, REF.a1), leg(moved.x.a, 1, REF.a1)]);
    expect(ofInvariant(moved.paged, 3, 5)).toEqual(ofInvariant(moved.run.failures, 3, 5));

    const amount = await damaged((x) => [{ transfer: x.e.a2, set: { amount: 21 } }]);
    expect(ofInvariant(amount.run.failures, 3, 5)).toEqual([leg(ISSUER_ACCOUNT_ID, ISSUER_SEQ.a2, REF.a2), leg(amount.x.a, 2, REF.a2)]);

    const ref = await damaged((x) => [{ transfer: x.e.b1, set: { sourceRef: 'verify-send:edited' } }]);
    expect(ofInvariant(ref.run.failures, 3, 5)).toEqual([
      leg(ISSUER_ACCOUNT_ID, ISSUER_SEQ.b1, 'verify-send:edited'),
      leg(ref.x.b, 1, 'verify-send:edited'),
    ]);

    const kind = await damaged((x) => [{ transfer: x.e.a1, set: { kind: 'admin_grant' } }]);
    expect(ofInvariant(kind.run.failures, 3, 5)).toEqual([leg(ISSUER_ACCOUNT_ID, ISSUER_SEQ.a1, REF.a1), leg(kind.x.a, 1, REF.a1)]);

    const account = await damaged((x) => [{ posting: [x.a, 2], set: { counterparty: x.b } }]);
    expect(ofInvariant(account.run.failures, 3, 5)).toEqual([leg(account.x.a, 2, REF.a2)]);
    expect(ofInvariant(account.run.failures, 4)).toHaveLength(1);

    const issuer = await damaged((x) => [{ posting: [ISSUER_ACCOUNT_ID, ISSUER_SEQ.b1], set: { counterparty: x.a } }]);
    expect(ofInvariant(issuer.run.failures, 3, 5)).toEqual([leg(ISSUER_ACCOUNT_ID, ISSUER_SEQ.b1, REF.b1)]);
  });

  it('invariant 5: a reversal of another account or amount, a credit naming what it reverses, each on its account’s leg only', async () => {
    const account = await damaged((x) => [{ transfer: x.e.g, set: { accountId: x.a } }]);
    const mirror = (x: Seeded) => `Reversal ${REF.r} does not mirror a credit of 40 to account ${x.b}.`;
    expect(ofInvariant(account.run.failures, 5)).toEqual([five(account.x.b, 3, mirror(account.x))]);
    expect(ofInvariant(account.paged, 5)).toEqual(ofInvariant(account.run.failures, 5));

    const amount = await damaged((x) => [{ transfer: x.e.g, set: { amount: 41 } }]);
    expect(ofInvariant(amount.run.failures, 5)).toEqual([five(amount.x.b, 3, mirror(amount.x))]);

    const kind = await damaged((x) => [{ transfer: x.e.g, set: { kind: 'reversal' } }]);
    // the original is a reversal itself: its own legs break invariant 3 (the issuer's and B's), the reversal mirrors nothing
    expect(ofInvariant(kind.run.failures, 5)).toEqual([five(kind.x.b, 3, mirror(kind.x))]);
  });

  it('the count check: the issuer’s head, the issuer’s chain and an account’s chain each off alone', async () => {
    const count = (issuer: number, accounts: number) => ({
      invariant: 3,
      message: `5 transfer(s), but the issuer's chain holds ${issuer} posting(s) and the accounts' chains ${accounts}.`,
    });
    const head = await damaged(() => [{ headSeq: ISSUER_ACCOUNT_ID, by: 1 }]);
    expect(head.run.totals).toEqual({ checked: true, transfers: 5, madeDuringPass: 0 });
    expect(head.run.failures.filter((f) => f.account === undefined)).toEqual([count(5, 5)]);

    const issuer = await damaged(() => [{ dropLast: ISSUER_ACCOUNT_ID }]);
    expect(issuer.run.failures.filter((f) => f.account === undefined)).toEqual([count(4, 5)]);

    const account = await damaged((x) => [{ dropLast: x.b }]);
    expect(account.run.failures.filter((f) => f.account === undefined)).toEqual([count(5, 4)]);
    expect(account.run.failures).toContainEqual({
      invariant: 4,
      account: account.x.b,
      message: `Account ${account.x.b}: the chain ends at posting 2, its head names posting 3.`,
    });
  });

  it('the totals are left for a quiet pass when the transfers or the issuer’s head alone moved during the pass', async () => {
    for (const [edit, totals] of [
      [(x: Seeded): Edit => ({ ghost: x.a }), { checked: false, transfers: 6, madeDuringPass: 0 }],
      [(): Edit => ({ headSeq: ISSUER_ACCOUNT_ID, by: 1 }), { checked: false, transfers: 5, madeDuringPass: 1 }],
    ] as const) {
      let s = await d.fresh();
      const x = await seed(s);
      // the pass started, the issuer taken (target seq 5)
      for (let i = 0; i < 2; i++) await runVerification(s, { trigger: 'cli', ...TINY });
      expect((await verificationHealth(s)).pass!.current).toEqual({ accountId: ISSUER_ACCOUNT_ID, seq: 0, targetSeq: 5 });
      s = await d.edit(s, [edit(x)]);
      expect(await wholePass(s, TINY)).toEqual([]);
      expect((await verificationHealth(s)).pass!.totals).toEqual(totals);
      await s.close();
    }
  });

  it('reads each chain page by page up to its target, and no chain of an account listed without postings', async () => {
    const fresh = await d.fresh();
    const x = await seed(fresh);
    // a head at seq 0 (written ahead of the account's first posting)
    const s = await d.edit(fresh, [{ listed: x.z }]);
    const reads: [string, number, number][] = [];
    const spied = new Proxy(s, {
      get(target, key) {
        const v = Reflect.get(target, key) as unknown;
        if (key === 'chain')
          return (id: string, o: { fromSeq: number; limit: number }) => {
            reads.push([id, o.fromSeq, o.limit]);
            return s.chain(id, o);
          };
        return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
      },
    });
    const run = await runVerification(spied, { trigger: 'cli', budgetMs: 60_000, chainPage: 2 });
    expect([run.failures, run.accountsChecked]).toEqual([[], 4]);
    const of = (id: string) => reads.filter((r) => r[0] === id).map((r) => [r[1], r[2]]);
    expect([of(ISSUER_ACCOUNT_ID), of(x.a), of(x.b), of(x.z)]).toEqual([
      [
        [1, 2],
        [3, 2],
        [5, 1],
      ],
      [[1, 2]],
      [
        [1, 2],
        [3, 1],
      ],
      [],
    ]);
    await s.close();
  });

  it('the record: a resumed run did not start its pass; the default budget; the times and duration on the given clock', async () => {
    const s = await d.fresh();
    await seed(s);
    const first = await runVerification(s, { trigger: 'cli', ...TINY });
    const second = await runVerification(s, { trigger: 'cli', ...TINY });
    expect([first.passStarted, second.passStarted, second.pass]).toEqual([true, false, 1]);

    // a clock one second on at every reading: the start, the step's pass-start time, the budget check, the end
    let t = Date.parse('2026-11-24T00:00:00.000Z');
    const ticking = () => (t += 1000);
    await wholePass(s, TINY);
    const timed = await runVerification(s, { trigger: 'cli', budgetMs: 0, now: ticking });
    expect([timed.startedAt, timed.finishedAt, timed.durationMs]).toEqual(['2026-11-24T00:00:01.000Z', '2026-11-24T00:00:04.000Z', 3000]);
    expect((await verificationHealth(s)).pass).toMatchObject({ startedAt: '2026-11-24T00:00:02.000Z' });
    expect('finishedAt' in (await verificationHealth(s)).pass!).toBe(false);
    // a clock that goes back: no negative duration
    let back = Date.parse('2026-11-24T00:00:00.000Z');
    const backwards = await runVerification(s, { trigger: 'cli', budgetMs: 0, now: () => (back -= 1000) });
    expect(backwards.durationMs).toBe(0);

    // the default budget finishes this small pass in one run, on a clock that stands still
    const still = () => Date.parse('2026-11-25T00:00:00.000Z');
    await wholePass(s, TINY);
    const whole = await runVerification(s, { trigger: 'cron', now: still });
    expect([whole.budgetMs, whole.passStarted, whole.passFinished, whole.failures]).toEqual([VERIFY_BUDGET_MS, true, true, []]);
    const health = await verificationHealth(s);
    expect(health.pass!.finishedAt).toBe('2026-11-25T00:00:00.000Z');
    expect(health.results[0]).toMatchObject({ finishedAt: '2026-11-25T00:00:00.000Z', budgetMs: VERIFY_BUDGET_MS });
    await s.close();
  });

  it('an account listed and taken before its first credit is verified up to nothing; the credit is left for the next pass', async () => {
    const fresh = await d.fresh();
    const x = await seed(fresh);
    const s = await d.edit(fresh, [{ listed: x.z }]);
    for (let i = 0; i < 200 && (await verificationHealth(s)).pass?.current?.accountId !== x.z; i++)
      await runVerification(s, { trigger: 'cli', ...TINY });
    expect((await verificationHealth(s)).pass!.current).toEqual({ accountId: x.z, seq: 0, targetSeq: 0 });
    await s.credit(creditOf({ accountId: x.z }, { amount: 7 }));
    expect(await wholePass(s, TINY)).toEqual([]);
    expect(await wholePass(s, TINY)).toEqual([]);
    expect((await verificationHealth(s)).pass).toMatchObject({ postingsChecked: 12, totals: { checked: true, transfers: 6 } });
    await s.close();
  });

  it('the health leaves out stored results without a string run id', async () => {
    const s = await d.fresh();
    await seed(s);
    await runVerification(s, { trigger: 'cli', ...TINY });
    for (const result of ['{"pass":1}', '{"runId":7}', 'null']) {
      const record = await s.verification();
      expect(await s.recordVerification({ expect: record.cursor, cursor: record.cursor!, result, keep: 100 })).toBe('written');
    }
    const { results } = await verificationHealth(s);
    expect(results.map((r) => typeof r.runId)).toEqual(['string']);
    await s.close();
  });
});

describe('on Redis alone (SQLite derives a reversal’s two links from one row, and lists an account from its first credit)', () => {
  const d = redisDamageable();
  beforeAll(() => d.setup(), 30_000);
  afterAll(() => d.teardown());

  const checked = (edits: (x: Seeded) => Edit[]) => damagedOn(d, edits);

  it('a transfer whose reversal link is not its postings’ breaks invariant 3 on both legs', async () => {
    const { x, run } = await checked((x) => [{ transfer: x.e.a1, set: { reverses: x.e.b1 } }]);
    expect(ofInvariant(run.failures, 3, 5)).toEqual([leg(ISSUER_ACCOUNT_ID, ISSUER_SEQ.a1, REF.a1), leg(x.a, 1, REF.a1)]);
  });

  it('a credit that names what it reverses, a reversal whose original is missing, an original whose back link names another entry', async () => {
    // both the transfer and its postings name an entry: the legs agree, the credit claims to reverse it
    const claims = await checked((x) => [
      { transfer: x.e.b1, set: { reverses: x.e.a1 } },
      { posting: [ISSUER_ACCOUNT_ID, ISSUER_SEQ.b1], set: { reverses: x.e.a1 } },
      { posting: [x.b, 1], set: { reverses: x.e.a1 } },
    ]);
    expect(ofInvariant(claims.run.failures, 3, 5)).toEqual([
      five(claims.x.b, 1, `Transfer ${REF.b1} is not a reversal but names ${claims.x.e.a1}.`),
    ]);
    expect(ofInvariant(claims.paged, 3, 5)).toEqual(ofInvariant(claims.run.failures, 3, 5));

    // a reversal (transfer and postings) naming an entry that does not exist; its original still links to it
    const missing = await checked((x) => [
      { transfer: x.e.r, set: { reverses: 'nope' } },
      { posting: [ISSUER_ACCOUNT_ID, ISSUER_SEQ.r], set: { reverses: 'nope' } },
      { posting: [x.b, 3], set: { reverses: 'nope' } },
    ]);
    const m = missing.x;
    expect(ofInvariant(missing.run.failures, 3, 5)).toEqual([
      five(m.b, 2, `Entry ${m.e.g} names ${m.e.r} as its reversal, which does not reverse it.`),
      five(m.b, 3, `Reversal ${REF.r} does not mirror a credit of 40 to account ${m.b}.`),
    ]);

    const back = await checked((x) => [{ backLink: [x.e.g, x.e.b1] }]);
    const { b, e } = back.x;
    expect(ofInvariant(back.run.failures, 3, 5)).toEqual([
      five(b, 2, `Entry ${e.g} names ${e.b1} as its reversal, which does not reverse it.`),
      five(b, 3, `Entry ${e.g} does not link to its reversal ${e.r}.`),
    ]);
    expect(ofInvariant(back.paged, 3, 5)).toEqual(ofInvariant(back.run.failures, 3, 5));

    const dangling = await checked((x) => [{ backLink: [x.e.a1, 'nope'] }]);
    expect(ofInvariant(dangling.run.failures, 3, 5)).toEqual([
      five(dangling.x.a, 1, `Entry ${dangling.x.e.a1} names nope as its reversal, which does not reverse it.`),
    ]);
  });
});
