/**
 * The process's ledger store, built once from the configuration (docs/architecture.md, "Configuration"):
 * `STORE_DRIVER=sqlite` opens `DATA_DIR/ledger.sqlite`; `STORE_DRIVER=redis` talks to Upstash over REST
 * (`UPSTASH_REDIS_REST_URL`, `UPSTASH_REDIS_REST_TOKEN`) or to a `redis-server` over RESP (`REDIS_URL`).
 * A new configuration (`useServiceConfig`) closes the store and builds the next one on first use.
 */
import { oncePerConfiguration, type StoreConfig } from '../config.js';
import { ServiceError } from '../errors.js';
import { openRedisLedger, type RedisLedgerTarget } from './redis.js';
import type { LedgerStore } from './types.js';

/**
 * Where a `redis` store configuration points: the Upstash REST endpoint, or a RESP connection to a
 * `redis-server` (opened here; ioredis is loaded only then, so functions on Upstash never bundle it).
 * @throws ServiceError UPSTREAM_UNAVAILABLE when the RESP connection cannot be made (`what` names the store).
 */
export async function redisTargetOf(config: Extract<StoreConfig, { driver: 'redis' }>, what: string): Promise<RedisLedgerTarget> {
  if (config.protocol === 'rest') return { url: config.url, token: config.token.reveal() };
  const { connectRespRequester } = await import('./resp-requester.js');
  try {
    const requester = await connectRespRequester(config.url.reveal());
    return { requester, close: () => requester.close() };
  } catch (e) {
    throw new ServiceError('UPSTREAM_UNAVAILABLE', `The ${what} cannot be reached; try again.`, { cause: e });
  }
}

/**
 * Open the adapter a store configuration names, for any store that lives beside the ledger (the ledger,
 * the asset index, player state): `sqlite` with the configured file, `redis` with the configured target.
 * Each adapter module is loaded by the caller's function only when chosen (its native binary or RESP
 * client is then not part of a Vercel bundle that does not use it).
 * @param what the store's name in the 503 a missing configuration answers (e.g. "The ledger").
 * @throws ServiceError UPSTREAM_UNAVAILABLE when no store is configured or it cannot be reached.
 */
export async function openByDriver<T>(
  config: StoreConfig,
  what: string,
  open: { readonly sqlite: (file: string) => Promise<T>; readonly redis: (target: RedisLedgerTarget) => Promise<T> },
): Promise<T> {
  switch (config.driver) {
    case 'sqlite':
      return open.sqlite(config.file);
    case 'redis':
      return open.redis(await redisTargetOf(config, `${what.toLowerCase().replace(/^the /, '')} store`));
    default:
      // the reason names the variables to set: for the operator's log, not for the client
      console.error('[config]', config.reason);
      throw new ServiceError('UPSTREAM_UNAVAILABLE', `${what} is not available on this deployment.`);
  }
}

/**
 * Open the ledger store a configuration names.
 * @throws ServiceError UPSTREAM_UNAVAILABLE when no store is configured or it cannot be reached.
 */
export function openLedgerStore(config: StoreConfig): Promise<LedgerStore> {
  return openByDriver(config, 'The ledger', {
    sqlite: async (file) => (await import('./sqlite.js')).openSqliteLedger({ file }),
    redis: (target) => Promise.resolve(openRedisLedger(target)),
  });
}

/** The process-wide store (built on first use). @throws ServiceError UPSTREAM_UNAVAILABLE */
export const ledgerStore: () => Promise<LedgerStore> = oncePerConfiguration(
  (config) => openLedgerStore(config.store),
  (store) => store.close(),
);
