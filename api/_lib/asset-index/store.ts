/**
 * The process's asset index, built once from the ledger's store configuration (`STORE_DRIVER`): the
 * same SQLite file or the same Redis database, its own connection. A new configuration builds the next
 * one on first use.
 */
import { oncePerConfiguration, type StoreConfig } from '../config.js';
import { ServiceError } from '../errors.js';
import { redisTargetOf } from '../ledger/store.js';
import type { AssetIndexStore } from './types.js';

/**
 * Open the index a store configuration names.
 * @throws ServiceError UPSTREAM_UNAVAILABLE when no store is configured or it cannot be reached.
 */
export async function openAssetIndex(config: StoreConfig): Promise<AssetIndexStore> {
  switch (config.driver) {
    case 'sqlite': {
      const { openSqliteAssetIndex } = await import('./sqlite.js');
      return openSqliteAssetIndex(config.file);
    }
    case 'redis': {
      const { openRedisAssetIndex } = await import('./redis.js');
      return openRedisAssetIndex(await redisTargetOf(config, 'asset index'));
    }
    default:
      console.error('[config]', config.reason);
      throw new ServiceError('UPSTREAM_UNAVAILABLE', 'The asset index is not available on this deployment.');
  }
}

/** The process-wide index (built on first use). @throws ServiceError UPSTREAM_UNAVAILABLE */
export const assetIndex: () => Promise<AssetIndexStore> = oncePerConfiguration((config) => openAssetIndex(config.store), (index) => index.close());
