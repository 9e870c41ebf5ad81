/**
 * The process's asset index, built once from the ledger's store configuration (`STORE_DRIVER`): the
 * same SQLite file or the same Redis database, its own connection. A new configuration builds the next
 * one on first use.
 */
import { getServiceConfig, onConfigChange, type StoreConfig } from '../config.js';
import { ServiceError } from '../errors.js';
import type { AssetIndexStore } from './types.js';

let current: Promise<AssetIndexStore> | undefined;
onConfigChange(() => {
  const old = current;
  current = undefined;
  void old?.then((s) => s.close()).catch(() => undefined);
});

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
      if (config.protocol === 'rest') return openRedisAssetIndex({ url: config.url, token: config.token.reveal() });
      const { connectRespRequester } = await import('../ledger/resp-requester.js');
      let requester;
      try {
        requester = await connectRespRequester(config.url.reveal());
      } catch (e) {
        throw new ServiceError('UPSTREAM_UNAVAILABLE', 'The asset index cannot be reached; try again.', { cause: e });
      }
      return openRedisAssetIndex({ requester, close: () => requester.close() });
    }
    default:
      console.error('[config]', config.reason);
      throw new ServiceError('UPSTREAM_UNAVAILABLE', 'The asset index is not available on this deployment.');
  }
}

/** The process-wide index (built on first use). @throws ServiceError UPSTREAM_UNAVAILABLE */
export function assetIndex(): Promise<AssetIndexStore> {
  if (!current) {
    const p = openAssetIndex(getServiceConfig().store);
    current = p;
    p.catch(() => {
      if (current === p) current = undefined;
    });
  }
  return current;
}
