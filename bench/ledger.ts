/**
 * Ledger benchmark (`npm run bench`, section "Ledger"; alone: `npx tsx bench/ledger.ts`).
 *
 * Redis: a `redis-server` started on 127.0.0.1 (Debian's package); {@link CREDITS} verify-send requests
 * through the wallet entry's `POST` handler (admin token, JSON body, schema check, account lookup, the
 * credit script), {@link CONCURRENCY} in flight, over 20 accounts. Reported: credits per second, p50 and
 * p99 latency, Redis commands the client sends per credit (server-side `INFO commandstats`, warm
 * account cache; target 1), beside
 * the floor: `redis-benchmark` running `EVALSHA` of a script of the same byte size as the credit script
 * on the same server with the same concurrency.
 *
 * Two rows tell where the time goes. The ceiling: `redis-benchmark` running the credit script itself
 * (the very EVALSHA the store sends, {@link creditCall}) with a random source ref per call against one
 * of the bench's accounts, so each call is a full double-entry credit with two chained postings: the
 * most credits per second the server gives any number of handler instances. The diagnostic: the
 * same-size `return 1` EVALSHA from Node through the client alone, which separates the client path's
 * cost from the handler's.
 *
 * SQLite: the same requests on the embedded store, beside the floor of a bare `INSERT` of a row of the
 * same width in its own `BEGIN IMMEDIATE` transaction, through the same client, one at a time.
 *
 * Target: each rate at least 50 % of its floor.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { createClient } from '@libsql/client';
import { loadServiceConfig, useServiceConfig } from '../api/_lib/config.js';
import { mintToken, verifiedTokenCache } from '../api/_lib/auth/tokens.js';
import { CREDIT_SCRIPT } from '../api/_lib/ledger/redis-scripts.js';
import { connectRespRequester } from '../api/_lib/stores/resp-requester.js';
import { requestFingerprint } from '../api/_lib/stores/idempotency.js';
import { checkInvariants } from '../api/_lib/ledger/invariants.js';
import { creditCall, KEYS, openRedisLedger } from '../api/_lib/ledger/redis.js';
import { startRedis } from '../test/helpers/redis.js';

/** Requests per run. */
export const CREDITS = 5000;
/** Requests in flight. */
export const CONCURRENCY = 32;
const SECRET = 'bench-secret-0123456789-abcdefghijklmnop';

interface Run {
  readonly rate: number;
  readonly p50: number;
  readonly p99: number;
  /** Server commands per credit over the timed requests, when `calls` was given. */
  readonly perCredit: number | undefined;
  /** Share of the timed requests whose token the verified-token cache answered. */
  readonly tokenHits: number;
  /** Studio ids of the accounts the run credited. */
  readonly studios: readonly string[];
}

const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!;
const f = (n: number, d = 0) => n.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d });

/** Run the handler workload against the store `env` selects. */
async function handlerRun(env: Record<string, string>, tag: string, calls?: () => Promise<number>): Promise<Run> {
  const config = loadServiceConfig({ ...env, JWT_SECRET: SECRET, WALLET_VERIFY_SEND_MAX: '1000' });
  useServiceConfig(config);
  const wallet = await import('../api/wallet.js');
  const admin = await import('../api/admin.js');
  const auth = `Bearer ${await mintToken(config.jwt, { subject: 'STUDIO_BENCH', role: 'admin' })}`;
  const post = (entry: Pick<typeof wallet, 'POST'>, path: string, body: unknown) =>
    entry.POST(
      new Request(`http://bench${path}`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Authorization: auth },
        body: JSON.stringify(body),
      }),
    );
  const studios: string[] = [];
  for (let i = 0; i < 20; i++) {
    const res = await post(admin, '/api/admin/accounts', { displayName: `Bench ${i}` });
    studios.push(((await res.json()) as { account: { studioId: string } }).account.studioId);
  }
  // warm-up: one credit per account (script cache, account cache, JIT)
  for (const [i, s] of studios.entries())
    await post(wallet, '/api/wallet/verify-send-to-account', {
      studioId: s,
      amount: 1,
      purpose: 'test',
      idempotencyKey: `${tag}-warm-${i}-0000`,
    });
  const latencies: number[] = [];
  let next = 0;
  const callsBefore = await calls?.();
  const cacheBefore = verifiedTokenCache();
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < CREDITS) {
        const i = next++;
        const t = performance.now();
        const res = await post(wallet, '/api/wallet/verify-send-to-account', {
          studioId: studios[i % studios.length],
          amount: 1 + (i % 100),
          purpose: 'verify',
          idempotencyKey: `${tag}-credit-${i}-0000`,
        });
        if (res.status !== 200) throw new Error(`credit ${i}: ${res.status} ${await res.text()}`);
        await res.arrayBuffer();
        latencies.push(performance.now() - t);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const perCredit = calls && callsBefore !== undefined ? ((await calls()) - callsBefore) / CREDITS : undefined;
  const tokenHits = (verifiedTokenCache().hits - cacheBefore.hits) / CREDITS;
  useServiceConfig(undefined);
  latencies.sort((a, b) => a - b);
  return { rate: CREDITS / seconds, p50: pct(latencies, 0.5), p99: pct(latencies, 0.99), perCredit, tokenHits, studios };
}

/**
 * Commands the clients sent (`INFO commandstats`, which also counts the commands scripts run): script
 * calls, plus the reads the ledger issues itself; a client HGET is told from the one HGET each credit
 * script runs by subtracting the script calls. The INFO call itself is not counted.
 */
async function commandCalls(url: string): Promise<number> {
  const r = await connectRespRequester(url);
  const info = String((await r.request<string>({ body: ['info', 'commandstats'] })).result);
  await r.close();
  const calls = (cmd: string) => Number(new RegExp(`cmdstat_${cmd}:calls=(\\d+)`).exec(info)?.[1] ?? 0);
  const scripts = calls('evalsha') + calls('eval');
  return scripts + calls('hgetall') + calls('llen') + calls('lrange') + calls('smembers') + Math.max(0, calls('hget') - scripts);
}

/** The floor script: `return 1`, padded with a comment to the credit script's byte size. */
const FLOOR_SCRIPT = 'return 1\n-- ' + 'x'.repeat(Math.max(0, Buffer.byteLength(CREDIT_SCRIPT) - 13)) + '\n';

/** Load {@link FLOOR_SCRIPT} into the server's script cache; its sha. */
async function loadFloorScript(url: string): Promise<string> {
  const r = await connectRespRequester(url);
  const sha = String((await r.request<string>({ body: ['script', 'load', FLOOR_SCRIPT] })).result);
  await r.close();
  if (sha !== createHash('sha1').update(FLOOR_SCRIPT).digest('hex')) throw new Error('script load failed');
  return sha;
}

/** `redis-benchmark` running `args` ({@link CREDITS} × 4 requests, {@link CONCURRENCY} connections): requests per second and p50 ms. */
function redisBenchmark(port: number, args: readonly string[], randomKeyspace?: number): { rate: number; p50: number } {
  const random = randomKeyspace === undefined ? [] : ['-r', String(randomKeyspace)];
  const out = execFileSync(
    'redis-benchmark',
    ['-h', '127.0.0.1', '-p', String(port), '-n', String(CREDITS * 4), '-c', String(CONCURRENCY), ...random, '-q', ...args],
    { encoding: 'utf8' },
  );
  const m = /([\d.]+) requests per second, p50=([\d.]+) msec/.exec(out);
  if (!m) throw new Error(`redis-benchmark printed: ${out}`);
  return { rate: Number(m[1]), p50: Number(m[2]) };
}

/** `redis-benchmark` requests per second of EVALSHA of {@link FLOOR_SCRIPT}. */
async function redisFloor(url: string, port: number): Promise<number> {
  return redisBenchmark(port, ['EVALSHA', await loadFloorScript(url), '0']).rate;
}

/**
 * The credit script's own rate: `redis-benchmark` sends the EVALSHA {@link creditCall} builds for the
 * account of `studioId`, its source ref and entry id made unique per call by `redis-benchmark`'s
 * `__rand_int__` (one of 10^9 numbers; a repeated source ref, a fraction of one in 10^4, is a replay and
 * writes nothing; the entry id holds two such numbers). The script is loaded into the server's cache
 * first (the handler run's operator writes ran its audited variant). Checks afterwards that the calls were credits (the account's posting count grew)
 * and that the ledger's invariants hold over everything the handler and the script wrote.
 * @throws Error when fewer than 99 % of the calls credited or an invariant breaks.
 */
async function creditCeiling(url: string, port: number, studioId: string): Promise<{ rate: number; p50: number }> {
  const r = await connectRespRequester(url);
  const ask = async (...body: string[]) => (await r.request<unknown>({ body })).result;
  const accountId = String(await ask('hget', KEYS.studio, studioId));
  const call = creditCall({
    entryId: 'ceiling-__rand_int__-__rand_int__',
    sourceRef: 'verify-send:ceiling-__rand_int__',
    kind: 'verify_send',
    accountId,
    amount: 1,
    purpose: 'verify',
    note: '',
    at: new Date().toISOString(),
    fingerprint: requestFingerprint({ accountId, amount: 1, purpose: 'verify' }),
  });
  // the handler's calls, operators' writes, ran the audited variant (docs/architecture.md, "Audit log"):
  // the plain script is loaded here
  if ((await ask('script', 'load', call.script.source)) !== call.script.sha) throw new Error('credit script load failed');
  const before = Number(await ask('llen', KEYS.postings(accountId)));
  const result = redisBenchmark(port, ['EVALSHA', call.script.sha, String(call.keys.length), ...call.keys, ...call.args], 1e9);
  const credited = Number(await ask('llen', KEYS.postings(accountId))) - before;
  if (credited < CREDITS * 4 * 0.99) throw new Error(`the ceiling run credited ${credited} of ${CREDITS * 4}`);
  const store = openRedisLedger({ requester: r, close: () => r.close() });
  const violations = checkInvariants(await store.snapshot());
  await store.close();
  if (violations.length > 0)
    throw new Error(
      `ledger invariants broken after the ceiling run: ${violations
        .slice(0, 3)
        .map((v) => v.message)
        .join('; ')}`,
    );
  return result;
}

/**
 * The same EVALSHA sent from this Node process through `@upstash/redis` and the RESP requester,
 * {@link CONCURRENCY} in flight: what the client path alone allows, to tell the handler's own cost
 * (token, body, schema, answer) from the client's.
 */
async function nodeClientRate(url: string): Promise<number> {
  const { Redis } = await import('@upstash/redis');
  const sha = await loadFloorScript(url);
  const r = await connectRespRequester(url);
  const redis = new Redis(r);
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next++ < CREDITS) await redis.evalsha(sha, [], []);
    }),
  );
  const rate = CREDITS / ((performance.now() - started) / 1000);
  await r.close();
  return rate;
}

/** Bare INSERTs of a posting-sized row, each in its own BEGIN IMMEDIATE transaction. */
async function sqliteFloor(dir: string): Promise<number> {
  const client = createClient({ url: pathToFileURL(join(dir, 'floor.sqlite')).href });
  await client.executeMultiple(
    'PRAGMA journal_mode = WAL; CREATE TABLE t (k TEXT PRIMARY KEY, a INTEGER, b INTEGER, c TEXT, d TEXT, e TEXT);',
  );
  const started = performance.now();
  for (let i = 0; i < CREDITS; i++) {
    const tx = await client.transaction('write');
    await tx.execute({
      sql: 'INSERT INTO t VALUES (?, ?, ?, ?, ?, ?)',
      args: [`verify-send:floor-${i}`, i, i, 'x'.repeat(36), '2026-11-23T00:00:00.000Z', 'y'.repeat(40)],
    });
    await tx.commit();
  }
  const rate = CREDITS / ((performance.now() - started) / 1000);
  client.close();
  return rate;
}

/** Run both benchmarks; markdown. */
export async function run(): Promise<string> {
  const lines = [
    '## Ledger',
    '',
    `${f(CREDITS)} verify-send requests through the wallet entry's handler, ${CONCURRENCY} in flight, 20 accounts; floors on the same server or file. Target: at least 50 % of each floor.`,
    '',
  ];
  lines.push(
    '| store | credits/s | p50 ms | p99 ms | floor | floor rate/s | share of floor | commands per credit | token cache hits |',
    '|---|---|---|---|---|---|---|---|---|',
  );
  const redis = await startRedis();
  try {
    const r = await handlerRun({ STORE_DRIVER: 'redis', REDIS_URL: redis.url }, 'redis', () => commandCalls(redis.url));
    const floor = await redisFloor(redis.url, redis.port);
    const ceiling = await creditCeiling(redis.url, redis.port, r.studios[0]!);
    const client = await nodeClientRate(redis.url);
    lines.push(
      `| redis (RESP requester) | ${f(r.rate)} | ${f(r.p50, 2)} | ${f(r.p99, 2)} | redis-benchmark EVALSHA, same script size | ${f(floor)} | ${f((100 * r.rate) / floor)} % | ${f(r.perCredit ?? NaN, 2)} | ${f(100 * r.tokenHits)} % |`,
    );
    lines.push(
      `| (ceiling) the credit script itself from redis-benchmark, no handler | ${f(ceiling.rate)} | ${f(ceiling.p50, 2)} | | redis-benchmark | ${f(floor)} | ${f((100 * ceiling.rate) / floor)} % | 1 | — |`,
    );
    lines.push(
      `| (diagnostic) the same EVALSHA from Node through the client alone | ${f(client)} | | | redis-benchmark | ${f(floor)} | ${f((100 * client) / floor)} % | 1 | — |`,
    );
  } finally {
    await redis.destroy();
  }
  const dir = mkdtempSync(join(tmpdir(), 'ledger-bench-'));
  try {
    const s = await handlerRun({ STORE_DRIVER: 'sqlite', DATA_DIR: dir }, 'sqlite');
    const floor = await sqliteFloor(dir);
    lines.push(
      `| sqlite (@libsql/client) | ${f(s.rate)} | ${f(s.p50, 2)} | ${f(s.p99, 2)} | bare INSERT, one transaction each | ${f(floor)} | ${f((100 * s.rate) / floor)} % | — | ${f(100 * s.tokenHits)} % |`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return lines.join('\n');
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  process.stdout.write((await run()) + '\n');
  process.exit(0);
}
