/**
 * The player-state adapters under test, each behind the same shape so that one contract suite runs
 * against both (docs/architecture.md, "Stores are ports with adapters"): SQLite in a temporary file, and
 * Redis through `@upstash/redis` over a real `redis-server` on 127.0.0.1 (started here, stopped by
 * `teardown`).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connectRespRequester, type RespRequester } from '../../api/_lib/ledger/resp-requester.js';
import { openRedisPlayerStore } from '../../api/_lib/player/redis.js';
import { openSqlitePlayerStore } from '../../api/_lib/player/sqlite.js';
import type { PlayerStore } from '../../api/_lib/player/types.js';
import { flushRedis, startRedis, type TestRedis } from './redis.js';
import { startUpstashRest, type UpstashRestStandIn } from './upstash-rest.js';

/** One adapter's harness. */
export interface PlayerHarness {
  /** `redis-rest`: the Redis adapter through Upstash's REST protocol (the production client path). */
  readonly name: 'sqlite' | 'redis' | 'redis-rest';
  setup(): Promise<void>;
  /** A store over empty data. */
  fresh(): Promise<PlayerStore>;
  /** A second store over the same data (a restart). */
  reopen(): Promise<PlayerStore>;
  teardown(): Promise<void>;
}

/** SQLite in a temporary folder. */
export function sqlitePlayerHarness(): PlayerHarness {
  let dir = '';
  let n = 0;
  return {
    name: 'sqlite',
    setup() {
      dir = mkdtempSync(join(tmpdir(), 'player-sqlite-'));
      return Promise.resolve();
    },
    fresh() {
      n++;
      return openSqlitePlayerStore(join(dir, `player-${n}.sqlite`));
    },
    reopen() {
      return openSqlitePlayerStore(join(dir, `player-${n}.sqlite`));
    },
    teardown() {
      rmSync(dir, { recursive: true, force: true });
      return Promise.resolve();
    },
  };
}

/** Redis over a real server. */
export function redisPlayerHarness(): PlayerHarness {
  let server: TestRedis | undefined;
  const open: RespRequester[] = [];
  const connect = async () => {
    const r = await connectRespRequester(server!.url);
    open.push(r);
    return openRedisPlayerStore({ requester: r, close: () => r.close() }, { retryDelaysMs: [5, 20] });
  };
  return {
    name: 'redis',
    async setup() {
      server = await startRedis();
    },
    async fresh() {
      await flushRedis(server!.url);
      return connect();
    },
    reopen: connect,
    async teardown() {
      for (const r of open) await r.close();
      await server?.destroy();
    },
  };
}

/** Redis through `@upstash/redis` over HTTP to the local REST stand-in (`upstash-rest.ts`) in front of a real server. */
export function restPlayerHarness(): PlayerHarness {
  let server: TestRedis | undefined;
  let rest: UpstashRestStandIn | undefined;
  const connect = () => Promise.resolve(openRedisPlayerStore({ url: rest!.url, token: rest!.token }, { retryDelaysMs: [5, 20] }));
  return {
    name: 'redis-rest',
    async setup() {
      server = await startRedis();
      rest = await startUpstashRest(server.url);
    },
    async fresh() {
      await flushRedis(server!.url);
      return connect();
    },
    reopen: connect,
    async teardown() {
      await rest?.close();
      await server?.destroy();
    },
  };
}

/**
 * `base` (a store) with some methods replaced: a stand-in for a store that races or fails. The other
 * members still run on `base` itself (private fields included).
 */
export function withMethods<T extends object>(base: T, patch: Partial<T>): T {
  return new Proxy(base, {
    get(target, key) {
      if (Object.hasOwn(patch, key)) return patch[key as keyof T];
      const value: unknown = Reflect.get(target, key, target);
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}
