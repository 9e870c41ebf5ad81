/**
 * Driver selection of every store port (docs/architecture.md, "Configuration"): the store configuration
 * (`STORE_DRIVER`) names SQLite (`DATA_DIR/ledger.sqlite`; the default only under the local tools) or
 * Redis (Upstash over REST, or a `redis-server` over RESP), or no store; each port's factory hands its two adapter constructors to
 * {@link openByDriver}, which loads only the chosen one (its native binary or RESP client is then not
 * part of a Vercel bundle that does not use it).
 */
import { ConfigError, type StoreConfig } from '../config.js';
import { ServiceError } from '../errors.js';
import type { RedisTarget } from './redis.js';

/**
 * Where a `redis` store configuration points: the Upstash REST endpoint, or a RESP connection to a
 * `redis-server` (opened here; ioredis is loaded only then, so functions on Upstash never bundle it).
 * @param what the store's name in the 503 (e.g. `ledger store`).
 * @throws ServiceError UPSTREAM_UNAVAILABLE when the RESP connection cannot be made
 */
export async function redisTargetOf(config: Extract<StoreConfig, { driver: 'redis' }>, what: string): Promise<RedisTarget> {
  if (config.protocol === 'rest') return { url: config.url, token: config.token.reveal() };
  const { connectRespRequester } = await import('./resp-requester.js');
  try {
    const requester = await connectRespRequester(config.url.reveal());
    // the host and port name the server when it refuses the password, which never leaves the Secret
    const endpoint = /^rediss?:\/\/(?:[^@/]*@)?([^/]+)/.exec(config.url.reveal())?.[1] ?? 'the redis-server';
    return { requester, close: () => requester.close(), credential: { variable: 'REDIS_URL', endpoint } };
  } catch (e) {
    throw new ServiceError('UPSTREAM_UNAVAILABLE', `The ${what} cannot be reached; try again.`, { cause: e });
  }
}

/**
 * Open the adapter a store configuration names: `sqlite` with the configured file, `redis` with the
 * configured target.
 * @param what the store in a 503's sentence (e.g. `The ledger`, `Player state`).
 * @throws ServiceError UPSTREAM_UNAVAILABLE when no store is configured (its cause, a ConfigError naming
 *   `STORE_DRIVER` and what to set, goes to the operator's log with the 503) or it cannot be reached
 */
export async function openByDriver<T>(
  config: StoreConfig,
  what: string,
  open: { readonly sqlite: (file: string) => Promise<T>; readonly redis: (target: RedisTarget) => Promise<T> },
): Promise<T> {
  switch (config.driver) {
    case 'sqlite':
      return open.sqlite(config.file);
    case 'redis':
      return open.redis(await redisTargetOf(config, `${what.toLowerCase().replace(/^the /, '')} store`));
    default:
      throw new ServiceError('UPSTREAM_UNAVAILABLE', `${what} is not available on this deployment.`, {
        cause: new ConfigError([{ variable: 'STORE_DRIVER', message: config.reason }]),
      });
  }
}
