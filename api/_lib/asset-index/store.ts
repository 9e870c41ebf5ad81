/**
 * The process's asset index, built once from the ledger's store configuration (`STORE_DRIVER`): the
 * same SQLite file or the same Redis database, its own connection. A new configuration builds the next
 * one on first use.
 */
import { oncePerConfiguration, type StoreConfig } from '../config.js';
import { openByDriver } from '../stores/select.js';
import type { AssetIndexStore } from './types.js';

/**
 * Open the index a store configuration names.
 * @throws ServiceError UPSTREAM_UNAVAILABLE when no store is configured or it cannot be reached.
 */
export function openAssetIndex(config: StoreConfig): Promise<AssetIndexStore> {
  return openByDriver(config, 'The asset index', {
    sqlite: async (file) => (await import('./sqlite.js')).openSqliteAssetIndex(file),
    redis: async (target) => (await import('./redis.js')).openRedisAssetIndex(target),
  });
}

/** The process-wide index (built on first use). @throws ServiceError UPSTREAM_UNAVAILABLE */
export const assetIndex: () => Promise<AssetIndexStore> = oncePerConfiguration(
  (config) => openAssetIndex(config.store),
  (index) => index.close(),
);
