/**
 * The process's player store, built once from the ledger's store configuration (`STORE_DRIVER`; spec
 * 1.8: player state lives only here): the same SQLite file or the same Redis database as the ledger, its
 * own connection. A new configuration builds the next one on first use.
 */
import { oncePerConfiguration, type StoreConfig } from '../config.js';
import { ServiceError } from '../errors.js';
import { redisTargetOf } from '../ledger/store.js';
import type { PlayerStore } from './types.js';

/**
 * Open the player store a store configuration names.
 * @throws ServiceError UPSTREAM_UNAVAILABLE when no store is configured or it cannot be reached.
 */
export async function openPlayerStore(config: StoreConfig): Promise<PlayerStore> {
  switch (config.driver) {
    case 'sqlite': {
      const { openSqlitePlayerStore } = await import('./sqlite.js');
      return openSqlitePlayerStore(config.file);
    }
    case 'redis': {
      const { openRedisPlayerStore } = await import('./redis.js');
      return openRedisPlayerStore(await redisTargetOf(config, 'player store'));
    }
    default:
      console.error('[config]', config.reason);
      throw new ServiceError('UPSTREAM_UNAVAILABLE', 'Player state is not available on this deployment.');
  }
}

/** The process-wide player store (built on first use). @throws ServiceError UPSTREAM_UNAVAILABLE */
export const playerStore: () => Promise<PlayerStore> = oncePerConfiguration((config) => openPlayerStore(config.store), (store) => store.close());
