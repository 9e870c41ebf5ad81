/**
 * What a studio must be able to trust of a deployment, each as one check run over HTTP in the run's own
 * namespace (docs/architecture.md, "Conformance check"; spec 4.8, 5.3; README "Wallet ledger and
 * accounts", "Player state"). Every check creates its own accounts, so no two checks and no real player
 * share state, and reports `pass`, `fail` (a violation, named with what was seen) or `skip` (what the
 * check needs is missing: a player token, a catalog definition).
 *
 * Exactly what is checked:
 * - `concurrent-credits`: verify-sends and grant-coins to three accounts, all at once, with wallet reads
 *   among them: every read's balance is the sum of its entries and the newest entry's `balanceAfter`;
 *   afterwards each balance is the sum of the credits the run made. The issuer's side is not exposed by
 *   any route: `ledger-check` covers it.
 * - `ledger-check`: the service's own ledger check (`POST /api/admin/ledger/verify`, run until a pass it
 *   started is finished): no failure, and the totals (every balance, the issuer's included, summing to
 *   zero) checked unless transfers were made during the pass (then said so).
 * - `idempotent-replay`: a verify-send, a grant-coin and an account creation sent again answer the first
 *   answer with `Idempotent-Replayed: true` and change nothing; five copies sent at once credit once;
 *   the same key with another amount is 422 and credits nothing.
 * - `if-match`: two island patches sent at once from one revision (`If-Match`): exactly one 200, the
 *   other 412, and the state holds the winner's change.
 * - `cursor-paging`: a wallet written with every kind and purpose, read page by page under random
 *   `kind`/`purpose`/`limit` combinations (the operator's wallet look-up): each walk yields exactly the
 *   entries of the run's model that match, newest first, no entry twice, and the last page says so.
 * - `bag-consume`: a stack granted, then consumptions of random sizes sent at once: the successes never
 *   take more than was granted, every refusal is 409 and asked for more than was finally left, and the
 *   final quantity is what the model says, never below zero.
 * - `mint-once`: ten mints with one key at once: one item, one id in every answer, one creation.
 * - `reversal`: a credit reversed: the balance goes back, the same key again is a replay, a second
 *   reversal is 409 and changes nothing.
 * - `ban`: a player token works; after a ban it is 403; after the unban, a token issued since is let in
 *   again (one issued before the ban stays refused: the ban revoked the sessions).
 */
import { detail, type Answer, type Service, type TestAccount } from './service.js';

/** What one check found. */
export interface Outcome {
  readonly result: 'pass' | 'fail' | 'skip';
  readonly detail: string;
}

/** One check: its name (as the table prints it) and how it runs. */
export interface Check {
  readonly name: string;
  readonly run: (svc: Service, env: CheckEnv) => Promise<Outcome>;
}

/** What the checks share: definitions of the deployment's catalog the bag and mint checks need. */
export interface CheckEnv {
  /** A stackable definition (`MATL-*`) of the published catalog, if any. */
  readonly material: string | undefined;
  /** A unique-item definition (`ITEM-*`, not consumable) of the published catalog, if any. */
  readonly uniqueItem: string | undefined;
  /** Random numbers in [0, 1) (seeded by the caller for a reproducible run). */
  readonly random: () => number;
}

const pass = (d: string): Outcome => ({ result: 'pass', detail: d });
const skip = (d: string): Outcome => ({ result: 'skip', detail: d });
/** A failed outcome listing the first few violations. */
const failed = (violations: readonly string[]): Outcome => ({
  result: 'fail',
  detail: violations.slice(0, 3).join('; ') + (violations.length > 3 ? `; … ${violations.length - 3} more` : ''),
});

const VERIFY_PURPOSES = ['verify', 'test', 'platform_verify', 'ledger_verify'] as const;
const pick = <T>(random: () => number, xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]!;
const int = (random: () => number, lo: number, hi: number): number => lo + Math.floor(random() * (hi - lo + 1));

/** A wallet entry as the overview and the operator's look-up list it. */
interface Entry {
  readonly entryId: string;
  readonly seq: number;
  readonly kind: string;
  readonly purpose: string;
  readonly amount: number;
  readonly balanceAfter: number;
}

/** One credit: a verify-send, or a grant-coin when `purpose` is `grant`. */
async function credit(svc: Service, account: TestAccount, amount: number, purpose: string, key = svc.key('credit')): Promise<Answer> {
  return purpose === 'grant'
    ? svc.call('POST', '/api/admin/grant-coin', 'operator', {
        body: { studioId: account.studioId, amount, reason: `conformance ${svc.runId}`, idempotencyKey: key },
      })
    : svc.call('POST', '/api/wallet/verify-send-to-account', 'operator', {
        body: { studioId: account.studioId, amount, purpose, idempotencyKey: key, note: `conformance ${svc.runId}` },
      });
}

/** One page of an account's wallet: the player's overview with a token, else the operator's look-up. */
async function walletPage(svc: Service, account: TestAccount, query: Record<string, string>, token?: string): Promise<Answer> {
  const q = new URLSearchParams(query).toString();
  return token
    ? svc.call('GET', `/api/wallet/overview?${q}`, { token })
    : svc.call('GET', `/api/admin/players/${encodeURIComponent(account.studioId)}/wallet?${q}`);
}

/** Violations of one wallet read holding every entry: balance = sum of entries = newest `balanceAfter`. */
function readViolations(where: string, a: Answer): string[] {
  if (a.status !== 200) return [`${where}: read answered ${a.status}${detail(a)}`];
  const entries = a.body.transactions as Entry[];
  const sum = entries.reduce((s, e) => s + e.amount, 0);
  const out: string[] = [];
  if (a.body.hasMore) out.push(`${where}: more than one page; the run writes fewer than 200 entries`);
  else if (a.body.balance !== sum) out.push(`${where}: balance ${String(a.body.balance)} but its entries sum to ${sum}`);
  if (entries.length > 0 && entries[0]!.balanceAfter !== a.body.balance)
    out.push(`${where}: balance ${String(a.body.balance)} but the newest entry's balanceAfter is ${entries[0]!.balanceAfter}`);
  return out;
}

const concurrentCredits: Check = {
  name: 'concurrent-credits',
  async run(svc, env) {
    const accounts = await Promise.all([0, 1, 2].map((i) => svc.newAccount(`credits ${i}`)));
    const tokens = svc.signPlayer ? await Promise.all(accounts.map((a) => svc.signPlayer!(a.studioId))) : undefined;
    const expected = new Map(accounts.map((a) => [a.studioId, 0]));
    const violations: string[] = [];
    let reads = 0;
    const work: Promise<void>[] = [];
    for (let i = 0; i < 36; i++) {
      const k = int(env.random, 0, 2);
      const account = accounts[k]!;
      const amount = int(env.random, 1, 50);
      const purpose = env.random() < 0.3 ? 'grant' : pick(env.random, VERIFY_PURPOSES);
      work.push(
        credit(svc, account, amount, purpose).then((a) => {
          if (a.status === 200 || a.status === 201) expected.set(account.studioId, expected.get(account.studioId)! + amount);
          else violations.push(`a ${purpose} credit of ${amount} answered ${a.status}${detail(a)}`);
        }),
      );
      if (i % 3 === 0)
        work.push(
          walletPage(svc, account, { limit: '200' }, tokens?.[k]).then((a) => {
            reads++;
            violations.push(...readViolations(`a read of ${account.studioId} among the credits`, a));
          }),
        );
    }
    await Promise.all(work);
    for (const [k, account] of accounts.entries()) {
      const a = await walletPage(svc, account, { limit: '200' }, tokens?.[k]);
      violations.push(...readViolations(`the final read of ${account.studioId}`, a));
      if (a.status === 200 && a.body.balance !== expected.get(account.studioId))
        violations.push(`${account.studioId}: balance ${String(a.body.balance)}, the run credited ${expected.get(account.studioId)}`);
    }
    if (violations.length > 0) return failed(violations);
    return pass(
      `36 credits to 3 accounts at once, ${reads + 3} reads (${tokens ? 'player overview' : 'operator look-up'}): every balance the sum of its entries and of the run's credits`,
    );
  },
};

/** Most runs of the service's ledger check the conformance check makes before it reports a skip. */
const LEDGER_RUNS = 60;

const ledgerCheck: Check = {
  name: 'ledger-check',
  async run(svc) {
    let started = false;
    const failures: string[] = [];
    let accounts = 0;
    for (let i = 0; i < LEDGER_RUNS; i++) {
      const a = await svc.call('POST', '/api/admin/ledger/verify');
      if (a.status !== 200) return failed([`POST /api/admin/ledger/verify answered ${a.status}${detail(a)}`]);
      const run = a.body as {
        pass: number;
        passStarted: boolean;
        passFinished: boolean;
        accountsChecked: number;
        failures: { invariant: string; message: string }[];
        failuresOmitted: number;
        totals?: { checked: boolean; transfers: number; madeDuringPass: number };
      };
      if (run.passStarted) {
        started = true;
        failures.length = 0;
        accounts = 0;
      }
      accounts += run.accountsChecked;
      failures.push(...run.failures.map((f) => `invariant ${f.invariant}: ${f.message}`));
      if (run.failuresOmitted > 0) failures.push(`${run.failuresOmitted} more failures`);
      if (started && run.passFinished) {
        if (failures.length > 0) return failed(failures);
        const totals = run.totals?.checked
          ? `balances sum to 0 over ${run.totals.transfers} transfers`
          : `totals not checked: ${run.totals?.madeDuringPass ?? '?'} transfers were made during the pass`;
        return pass(`pass ${run.pass}: ${accounts} accounts, every chain and balance verified; ${totals}`);
      }
    }
    return skip(`no pass of the service's check finished within ${LEDGER_RUNS} runs (a large ledger: see GET /api/admin/ledger/health)`);
  },
};

/** The parts of a credit's answer a replay must repeat. */
const creditCore = (b: Record<string, unknown>) => JSON.stringify([b.entryId, b.sourceRef, b.amount, b.purpose, b.balance, b.at]);

const idempotentReplay: Check = {
  name: 'idempotent-replay',
  async run(svc) {
    const account = await svc.newAccount('replay');
    const v: string[] = [];
    for (const purpose of ['verify', 'grant']) {
      const key = svc.key('replay');
      const first = await credit(svc, account, 7, purpose, key);
      if (first.status !== 200 && first.status !== 201) return failed([`the first ${purpose} answered ${first.status}${detail(first)}`]);
      const again = await credit(svc, account, 7, purpose, key);
      if (again.status !== 200) v.push(`a ${purpose} replay answered ${again.status}`);
      if (again.headers.get('idempotent-replayed') !== 'true') v.push(`a ${purpose} replay lacks Idempotent-Replayed: true`);
      if (again.body.idempotent !== true) v.push(`a ${purpose} replay is not flagged idempotent`);
      if (creditCore(again.body) !== creditCore(first.body)) v.push(`a ${purpose} replay answers another credit than the first`);
      const reused = await credit(svc, account, 8, purpose, key);
      if (reused.status !== 422) v.push(`a ${purpose} key reused with another amount answered ${reused.status}, not 422`);
    }
    // five copies of one request at once credit once
    const key = svc.key('replay-burst');
    const burst = await Promise.all([0, 1, 2, 3, 4].map(() => credit(svc, account, 5, 'test', key)));
    const firsts = burst.filter((a) => a.headers.get('idempotent-replayed') !== 'true');
    if (burst.some((a) => a.status !== 200 && a.status !== 201))
      v.push(`a copy sent at once answered ${burst.map((a) => a.status).join(',')}`);
    if (firsts.length !== 1) v.push(`${firsts.length} of five copies sent at once were answered as the first`);
    if (new Set(burst.map((a) => String(a.body.entryId))).size !== 1) v.push('five copies sent at once answered different entries');
    const read = await walletPage(svc, account, { limit: '200' });
    if (read.status === 200 && read.body.balance !== 7 + 7 + 5)
      v.push(`the balance is ${String(read.body.balance)} after 7 + 7 + 5 credited once each (replays and a 422 credit nothing)`);
    // an account creation replayed
    const body = { displayName: `Conformance ${svc.runId} replay`, idempotencyKey: svc.key('account-replay') };
    const c1 = await svc.call('POST', '/api/admin/accounts', 'operator', { body });
    const c2 = await svc.call('POST', '/api/admin/accounts', 'operator', { body });
    if (c2.headers.get('idempotent-replayed') !== 'true' || JSON.stringify(c1.body.account) !== JSON.stringify(c2.body.account))
      v.push(
        `an account creation replayed answered ${c2.status} with ${c2.headers.get('idempotent-replayed') === 'true' ? 'another account' : 'no Idempotent-Replayed'}`,
      );
    const c3 = await svc.call('POST', '/api/admin/accounts', 'operator', { body: { ...body, displayName: `${body.displayName} 2` } });
    if (c3.status !== 422) v.push(`an account key reused with another name answered ${c3.status}, not 422`);
    return v.length > 0
      ? failed(v)
      : pass(
          'replays of verify-send, grant-coin and account creation answer the first answer; 5 copies at once credit once; a reused key is 422',
        );
  },
};

const ifMatch: Check = {
  name: 'if-match',
  async run(svc) {
    const account = await svc.newAccount('if-match');
    const path = `/api/island/state?studioId=${encodeURIComponent(account.studioId)}`;
    const read = await svc.call('GET', path);
    const etag = read.headers.get('etag');
    if (read.status !== 200 || !etag)
      return failed([`GET /api/island/state answered ${read.status}${etag ? '' : ' without an ETag'}${detail(read)}`]);
    const patch = (n: number) =>
      svc.call('PATCH', path, 'operator', {
        body: { stats: { conformance: n } },
        headers: { 'If-Match': etag },
        contentType: 'application/merge-patch+json',
      });
    const answers = await Promise.all([1, 2].map(patch));
    const statuses = answers.map((a) => a.status).sort();
    const v: string[] = [];
    if (statuses.join(',') !== '200,412')
      v.push(`two patches from revision ${etag} answered ${statuses.join(' and ')}, not one 200 and one 412`);
    const winner = answers.findIndex((a) => a.status === 200) + 1;
    const after = await svc.call('GET', path);
    const stats = (after.body.state as { stats?: Record<string, number> } | undefined)?.stats;
    if (winner > 0 && stats?.conformance !== winner) v.push(`the state holds ${String(stats?.conformance)}, the winner wrote ${winner}`);
    const stale = await patch(3);
    if (stale.status !== 412) v.push(`a patch from the old revision afterwards answered ${stale.status}, not 412`);
    return v.length > 0 ? failed(v) : pass(`two island patches from revision ${etag} at once: one 200, one 412; a stale one 412`);
  },
};

const cursorPaging: Check = {
  name: 'cursor-paging',
  async run(svc, env) {
    const account = await svc.newAccount('paging');
    const model: { entryId: string; kind: string; purpose: string }[] = [];
    const purposes = [...VERIFY_PURPOSES, 'grant'];
    for (let i = 0; i < 24; i++) {
      const purpose = purposes[i % purposes.length]!;
      const a = await credit(svc, account, int(env.random, 1, 9), purpose);
      if (a.status !== 200 && a.status !== 201) return failed([`a ${purpose} credit answered ${a.status}${detail(a)}`]);
      model.push({
        entryId: String(a.body.entryId),
        kind: purpose === 'grant' ? 'admin_grant_coin' : 'verify_send_to_account_wallet',
        purpose,
      });
    }
    const v: string[] = [];
    const kinds = [undefined, 'verify_send_to_account_wallet', 'admin_grant_coin'];
    let walks = 0;
    for (let w = 0; w < 16 && v.length === 0; w++) {
      const kind = pick(env.random, kinds);
      const purpose = pick(env.random, [undefined, undefined, ...purposes]);
      const limit = int(env.random, 1, 7);
      const want = model.filter((m) => (!kind || m.kind === kind) && (!purpose || m.purpose === purpose)).map((m) => m.entryId);
      const seen: Entry[] = [];
      let cursor: string | null = null;
      const label = `kind=${kind ?? '*'} purpose=${purpose ?? '*'} limit=${limit}`;
      for (let page = 0; page < 40; page++) {
        const query: Record<string, string> = { limit: String(limit) };
        if (kind) query.kind = kind;
        if (purpose) query.purpose = purpose;
        if (cursor) query.cursor = cursor;
        const a = await walletPage(svc, account, query);
        if (a.status !== 200) {
          v.push(`${label}: page ${page + 1} answered ${a.status}${detail(a)}`);
          break;
        }
        const items = a.body.transactions as Entry[];
        if (items.length > limit) v.push(`${label}: a page of ${items.length} entries`);
        seen.push(...items);
        cursor = a.body.cursor as string | null;
        if (Boolean(a.body.hasMore) !== (cursor !== null))
          v.push(`${label}: hasMore ${String(a.body.hasMore)} with cursor ${cursor === null ? 'null' : 'set'}`);
        if (!cursor) break;
      }
      walks++;
      const ids = seen.map((e) => e.entryId);
      if (new Set(ids).size !== ids.length) v.push(`${label}: an entry came twice`);
      if (seen.some((e, i) => i > 0 && e.seq >= seen[i - 1]!.seq)) v.push(`${label}: entries not newest first`);
      const got = [...ids].sort();
      const exp = [...want].sort();
      if (JSON.stringify(got) !== JSON.stringify(exp))
        v.push(`${label}: ${got.length} entries walked, the run wrote ${exp.length} that match`);
    }
    return v.length > 0
      ? failed(v)
      : pass(`${walks} walks under random kind/purpose/limit: exactly the run's matching entries, newest first, none twice`);
  },
};

const bagConsume: Check = {
  name: 'bag-consume',
  async run(svc, env) {
    if (!env.material) return skip('the published catalog has no MATL-* material (master-materials.json) to grant');
    const account = await svc.newAccount('bag');
    const granted = 20;
    const body = (quantity: number) => ({
      studioId: account.studioId,
      definitionId: env.material,
      quantity,
      idempotencyKey: svc.key('bag'),
    });
    const g = await svc.call('POST', '/api/inventory/grant', 'operator', { body: body(granted) });
    if (g.status !== 201 && g.status !== 200) return failed([`the grant answered ${g.status}${detail(g)}`]);
    const sizes = Array.from({ length: 14 }, () => int(env.random, 1, 4));
    const answers = await Promise.all(sizes.map((q) => svc.call('POST', '/api/inventory/consume', 'operator', { body: body(q) })));
    const v: string[] = [];
    let taken = 0;
    const refused: number[] = [];
    answers.forEach((a, i) => {
      if (a.status === 201 || a.status === 200) taken += sizes[i]!;
      else if (a.status === 409) refused.push(sizes[i]!);
      else v.push(`a consumption of ${sizes[i]} answered ${a.status}${detail(a)}`);
    });
    const left = granted - taken;
    if (left < 0) v.push(`${taken} units consumed of ${granted} granted`);
    const bag = await svc.call(
      'GET',
      `/api/admin/players/${encodeURIComponent(account.studioId)}/bag?definitionId=${encodeURIComponent(env.material)}&limit=200`,
    );
    const line = (bag.body.bag as { definitionId: string; quantity: number }[] | undefined)?.find((l) => l.definitionId === env.material);
    const held = line?.quantity ?? 0;
    if (bag.status !== 200) v.push(`the bag look-up answered ${bag.status}${detail(bag)}`);
    else if (held !== left) v.push(`the bag holds ${held}, the answers say ${left} are left`);
    if (held < 0) v.push(`the bag holds ${held}`);
    // quantities only fall: a refused consumption found at least what is left now
    const wrong = refused.filter((q) => q <= held);
    if (wrong.length > 0) v.push(`consumptions of ${wrong.join(', ')} were refused though ${held} are still held`);
    return v.length > 0
      ? failed(v)
      : pass(`${granted} granted, ${sizes.length} consumptions at once: ${taken} taken, ${refused.length} refused (409), ${held} left`);
  },
};

const mintOnce: Check = {
  name: 'mint-once',
  async run(svc, env) {
    if (!env.uniqueItem) return skip('the published catalog has no unique ITEM-* definition (canonical-items-manifest.json) to mint');
    const account = await svc.newAccount('mint');
    const body = { definitionId: env.uniqueItem, studioId: account.studioId, idempotencyKey: svc.key('mint') };
    const answers = await Promise.all(Array.from({ length: 10 }, () => svc.call('POST', '/api/uuid', 'operator', { body })));
    const v: string[] = [];
    const bad = answers.filter((a) => a.status !== 200 && a.status !== 201);
    if (bad.length > 0) v.push(`${bad.length} mints answered ${bad[0]!.status}${detail(bad[0]!)}`);
    const ids = new Set(answers.map((a) => (a.body.item as { studioUuid?: string } | undefined)?.studioUuid));
    if (ids.size !== 1) v.push(`ten mints with one key answered ${ids.size} different ids`);
    const created = answers.filter((a) => a.status === 201).length;
    if (created !== 1) v.push(`${created} of ten mints with one key answered 201 (created)`);
    const items = await svc.call('GET', `/api/admin/players/${encodeURIComponent(account.studioId)}/items?limit=100`);
    const count = (items.body.items as unknown[] | undefined)?.length;
    if (items.status !== 200) v.push(`the item look-up answered ${items.status}${detail(items)}`);
    else if (count !== 1) v.push(`the account holds ${String(count)} items after ten mints with one key`);
    return v.length > 0 ? failed(v) : pass('ten mints with one key at once: one item, one id, one 201');
  },
};

const reversal: Check = {
  name: 'reversal',
  async run(svc) {
    const account = await svc.newAccount('reversal');
    const c = await credit(svc, account, 40, 'verify');
    if (c.status !== 200 && c.status !== 201) return failed([`the credit answered ${c.status}${detail(c)}`]);
    const reverse = (key: string) =>
      svc.call('POST', '/api/admin/reversals', 'operator', {
        body: { entryId: c.body.entryId, reason: `conformance ${svc.runId}`, idempotencyKey: key },
      });
    const key = svc.key('reversal');
    const first = await reverse(key);
    const v: string[] = [];
    if (first.status !== 200 && first.status !== 201) return failed([`the reversal answered ${first.status}${detail(first)}`]);
    const replay = await reverse(key);
    if (replay.headers.get('idempotent-replayed') !== 'true')
      v.push(`the reversal replayed answered ${replay.status} without Idempotent-Replayed: true`);
    const second = await reverse(svc.key('reversal'));
    if (second.status !== 409) v.push(`a second reversal of the entry answered ${second.status}, not 409`);
    const read = await walletPage(svc, account, { limit: '200' });
    if (read.status === 200 && read.body.balance !== 0)
      v.push(`the balance is ${String(read.body.balance)} after 40 credited and reversed`);
    v.push(...readViolations('the read after the reversals', read));
    return v.length > 0 ? failed(v) : pass('a credit reversed once: balance 0, the replay repeats it, a second reversal is 409');
  },
};

/** Wait until the clock's second is past `since` (ms), so a token's `iat` (seconds) is after it. */
const nextSecond = async (since: number): Promise<void> => {
  const wait = 1000 - (since % 1000) + 50;
  await new Promise((r) => setTimeout(r, wait));
};

const ban: Check = {
  name: 'ban',
  async run(svc) {
    if (!svc.signPlayer)
      return skip('no player token: set JWT_SECRET (the deployment’s) to check that a banned account’s token is refused');
    const account = await svc.newAccount('ban');
    const before = await svc.signPlayer(account.studioId);
    const v: string[] = [];
    const ok = await walletPage(svc, account, {}, before);
    if (ok.status !== 200) return failed([`the player's token answered ${ok.status} before any ban${detail(ok)}`]);
    const action = (what: 'ban' | 'unban') =>
      svc.call('POST', `/api/admin/players/${encodeURIComponent(account.studioId)}/${what}`, 'operator', {
        body: { reason: `conformance ${svc.runId}`, idempotencyKey: svc.key(what) },
      });
    const b = await action('ban');
    if (b.status !== 200) return failed([`the ban answered ${b.status}${detail(b)}`]);
    const banned = await walletPage(svc, account, {}, before);
    if (banned.status !== 403) v.push(`a banned account's token answered ${banned.status}, not 403`);
    await nextSecond(Date.now());
    const during = await walletPage(svc, account, {}, await svc.signPlayer(account.studioId));
    if (during.status !== 403) v.push(`a token issued during the ban answered ${during.status}, not 403`);
    const u = await action('unban');
    if (u.status !== 200) return failed([...v, `the unban answered ${u.status}${detail(u)}`]);
    const after = await walletPage(svc, account, {}, await svc.signPlayer(account.studioId));
    if (after.status !== 200) v.push(`a token issued after the ban answered ${after.status} after the unban, not 200`);
    const old = await walletPage(svc, account, {}, before);
    if (old.status === 200) v.push('a token issued before the ban is let in again after the unban (the ban revokes sessions)');
    return v.length > 0
      ? failed(v)
      : pass('a token works; banned: 403; unbanned: a token issued since is let in, one from before the ban stays refused');
  },
};

/** Every check, in the order the table prints them. */
export const CHECKS: readonly Check[] = Object.freeze([
  concurrentCredits,
  idempotentReplay,
  ifMatch,
  cursorPaging,
  bagConsume,
  mintOnce,
  reversal,
  ban,
  ledgerCheck,
]);
