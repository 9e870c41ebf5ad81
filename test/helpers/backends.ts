/**
 * The backends every store adapter is tested on, behind one harness shape (docs/architecture.md, "Stores
 * are ports with adapters"; unstorage's `testDriver`): SQLite in a temporary folder, Redis through
 * `@upstash/redis` over a real `redis-server` on 127.0.0.1 (started here, stopped by `teardown`), and
 * Redis through the production client path: `@upstash/redis` over HTTP to the local Upstash REST
 * stand-in (`upstash-rest.ts`) in front of such a server.
 *
 * A backend hands out *targets* (a database file, a Redis target); {@link onBackend} makes it a harness of
 * any port by naming how the port's adapter opens on a target. Each port's contract suite takes such a
 * harness (`test/<port>/contract.ts`), and each adapter's test file calls the suite with its own.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Requester } from '@upstash/redis';
import type { RedisTarget } from '../../api/_lib/stores/redis.js';
import { connectRespRequester, type RespRequester } from '../../api/_lib/stores/resp-requester.js';
import { flushRedis, startRedis, type TestRedis } from './redis.js';
import { startUpstashRest, type UpstashRestStandIn } from './upstash-rest.js';

/** The one harness shape: what a suite needs to run against an adapter. */
export interface Harness<T> {
  /** The backend's name: `sqlite`, `redis` (RESP), `redis-rest` (the Upstash REST client path), `local`, `s3`. */
  readonly name: string;
  /** Start what the backend needs (once per file). */
  setup(): Promise<void>;
  /** Over empty data. */
  fresh(): Promise<T>;
  /** Over the data of the last `fresh` again (a restart of the process). */
  reopen(): Promise<T>;
  /** Environment variables that select this backend over new, empty data, for handler tests. */
  env(): Record<string, string>;
  teardown(): Promise<void>;
}

/** Where an adapter under test keeps its data. */
export type BackendTarget = { readonly file: string } | { readonly redis: RedisTarget };

/** A backend: a harness of targets. */
export type Backend = Harness<BackendTarget>;

/**
 * Throttle budgets no test reaches but the throttle's own (`test/throttle/`): every request of a handler
 * test still goes through the throttle's store, and none is refused by it.
 */
export const THROTTLE_UNLIMITED: Readonly<Record<string, string>> = Object.freeze({
  RATE_LIMIT_AUTH_FAILURES: '100000',
  RATE_LIMIT_CLIENT_WRITES: '10000000',
  RATE_LIMIT_ACCOUNT_WRITES: '10000000',
  RATE_LIMIT_SERVER_WRITES: '10000000',
});

/** Retry waits of adapters under test, ms: short, so a suite that injects faults stays quick. */
export const TEST_RETRY_DELAYS_MS: readonly number[] = [5, 20];

/** SQLite: a database file in a temporary folder. */
export function sqliteBackend(): Backend {
  let dir = '';
  let n = 0;
  const file = () => join(dir, `data-${n}`, 'ledger.sqlite');
  return {
    name: 'sqlite',
    setup() {
      dir = mkdtempSync(join(tmpdir(), 'store-sqlite-'));
      return Promise.resolve();
    },
    fresh() {
      n++;
      return Promise.resolve({ file: file() });
    },
    reopen() {
      return Promise.resolve({ file: file() });
    },
    env() {
      n++;
      return { ...THROTTLE_UNLIMITED, STORE_DRIVER: 'sqlite', DATA_DIR: join(dir, `data-${n}`) };
    },
    teardown() {
      rmSync(dir, { recursive: true, force: true });
      return Promise.resolve();
    },
  };
}

/** Redis over RESP; `wrap` may put a fault-injecting Requester in front of each connection. */
export function redisBackend(wrap: (r: RespRequester) => Requester = (r) => r): Backend & { server(): TestRedis; flush(): Promise<void> } {
  let server: TestRedis | undefined;
  const open: RespRequester[] = [];
  const connect = async (): Promise<BackendTarget> => {
    const r = await connectRespRequester(server!.url);
    open.push(r);
    return { redis: { requester: wrap(r), close: () => r.close() } };
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
      return { ...THROTTLE_UNLIMITED, STORE_DRIVER: 'redis', REDIS_URL: server!.url };
    },
    async teardown() {
      for (const r of open) await r.close();
      await server?.destroy();
    },
  };
}

/** Redis through the production client path: `@upstash/redis` over HTTP to the REST stand-in. */
export function upstashRestBackend(): Backend & { rest(): UpstashRestStandIn; server(): TestRedis } {
  const inner = redisBackend();
  let rest: UpstashRestStandIn | undefined;
  const target = (): Promise<BackendTarget> => Promise.resolve({ redis: { url: rest!.url, token: rest!.token } });
  return {
    name: 'redis-rest',
    rest: () => rest!,
    server: () => inner.server(),
    async setup() {
      await inner.setup();
      rest = await startUpstashRest(inner.server().url);
    },
    async fresh() {
      await inner.flush();
      return target();
    },
    reopen: target,
    env() {
      return { ...THROTTLE_UNLIMITED, STORE_DRIVER: 'redis', UPSTASH_REDIS_REST_URL: rest!.url, UPSTASH_REDIS_REST_TOKEN: rest!.token };
    },
    async teardown() {
      await rest?.close();
      await inner.teardown();
    },
  };
}

/** A port's harness on a backend: `open` makes the port's adapter on a target. */
export function onBackend<S>(backend: Backend, open: (target: BackendTarget) => S | Promise<S>): Harness<S> {
  return {
    name: backend.name,
    setup: () => backend.setup(),
    fresh: async () => open(await backend.fresh()),
    reopen: async () => open(await backend.reopen()),
    env: () => backend.env(),
    teardown: () => backend.teardown(),
  };
}

/** The file of a SQLite target. @throws Error for a Redis target */
export function fileOf(target: BackendTarget): string {
  if (!('file' in target)) throw new Error('Not a SQLite target.');
  return target.file;
}

/** The Redis target of a target. @throws Error for a SQLite target */
export function redisOf(target: BackendTarget): RedisTarget {
  if (!('redis' in target)) throw new Error('Not a Redis target.');
  return target.redis;
}
