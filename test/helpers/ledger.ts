/**
 * The ledger adapters under test, each behind the same shape, so that one contract suite runs against
 * both (docs/architecture.md, "Stores are ports with adapters"): SQLite in a temporary file, and Redis
 * through `@upstash/redis` over a real `redis-server` on 127.0.0.1 (started here, stopped by `teardown`).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Requester } from '@upstash/redis';
import { connectRespRequester, type RespRequester } from '../../api/_lib/ledger/resp-requester.js';
import { openRedisLedger } from '../../api/_lib/ledger/redis.js';
import { openSqliteLedger } from '../../api/_lib/ledger/sqlite.js';
import { checkInvariants } from '../../api/_lib/ledger/invariants.js';
import type { LedgerStore } from '../../api/_lib/ledger/types.js';
import { flushRedis, startRedis, type TestRedis } from './redis.js';
import { startUpstashRest, type UpstashRestStandIn } from './upstash-rest.js';

/** One adapter's test harness. */
export interface AdapterHarness {
  /** `redis-rest` is the Redis adapter through Upstash's REST protocol (the production client path). */
  readonly name: 'sqlite' | 'redis' | 'redis-rest';
  /** Start what the adapter needs (once per file). */
  setup(): Promise<void>;
  /** A store over empty data. */
  fresh(): Promise<LedgerStore>;
  /** A second store over the same data (a restart of the process). */
  reopen(): Promise<LedgerStore>;
  /** Environment variables that select this adapter over the same data, for handler tests. */
  env(): Record<string, string>;
  teardown(): Promise<void>;
}

/** SQLite in a temporary folder. */
export function sqliteHarness(): AdapterHarness {
  let dir = '';
  let n = 0;
  const file = () => join(dir, `ledger-${n}.sqlite`);
  return {
    name: 'sqlite',
    setup() {
      dir = mkdtempSync(join(tmpdir(), 'ledger-sqlite-'));
      return Promise.resolve();
    },
    async fresh() {
      n++;
      return openSqliteLedger({ file: file() });
    },
    async reopen() {
      return openSqliteLedger({ file: file() });
    },
    env() {
      n++;
      return { STORE_DRIVER: 'sqlite', DATA_DIR: join(dir, `data-${n}`) };
    },
    teardown() {
      rmSync(dir, { recursive: true, force: true });
      return Promise.resolve();
    },
  };
}

/** Redis over a real server; `wrap` may put a fault-injecting Requester in front of the connection. */
export function redisHarness(
  wrap: (r: RespRequester) => Requester = (r) => r,
): AdapterHarness & { server(): TestRedis; flush(): Promise<void> } {
  let server: TestRedis | undefined;
  const open: RespRequester[] = [];
  const connect = async () => {
    const r = await connectRespRequester(server!.url);
    open.push(r);
    return openRedisLedger({ requester: wrap(r), close: () => r.close() }, { retryDelaysMs: [5, 20] });
  };
  const flush = () => flushRedis(server!.url);
  return {
    name: 'redis',
    server: () => server!,
    flush,
    async setup() {
      server = await startRedis();
    },
    async fresh() {
      await flush();
      return connect();
    },
    reopen: connect,
    env() {
      return { STORE_DRIVER: 'redis', REDIS_URL: server!.url };
    },
    async teardown() {
      for (const r of open) await r.close();
      await server?.destroy();
    },
  };
}

/**
 * Redis through the production client path: `@upstash/redis` over HTTP with the REST URL and token, to
 * the local REST stand-in (`upstash-rest.ts`) in front of a real server.
 */
export function upstashRestHarness(): AdapterHarness & { rest(): UpstashRestStandIn } {
  const inner = redisHarness();
  let rest: UpstashRestStandIn | undefined;
  const connect = () => Promise.resolve(openRedisLedger({ url: rest!.url, token: rest!.token }, { retryDelaysMs: [5, 20] }));
  return {
    name: 'redis-rest',
    rest: () => rest!,
    async setup() {
      await inner.setup();
      rest = await startUpstashRest(inner.server().url);
    },
    async fresh() {
      await inner.flush();
      return connect();
    },
    reopen: connect,
    env() {
      return { STORE_DRIVER: 'redis', UPSTASH_REDIS_REST_URL: rest!.url, UPSTASH_REDIS_REST_TOKEN: rest!.token };
    },
    async teardown() {
      await rest?.close();
      await inner.teardown();
    },
  };
}

/** Fail with every violation when the store's invariants do not hold. */
export async function expectSound(store: LedgerStore): Promise<void> {
  const violations = checkInvariants(await store.snapshot());
  if (violations.length > 0)
    throw new Error('Ledger invariants broken:\n' + violations.map((v) => `  ${v.invariant}: ${v.message}`).join('\n'));
}
