/**
 * The process's throttle store, built once from the configuration (docs/architecture.md, "Throttle"): where
 * the deployment keeps its state (`STORE_DRIVER=sqlite`: the data folder's database file; `redis`: the
 * Redis database), or, on a deployment without a store, the process's memory. A new configuration closes
 * it and builds the next one on first use.
 */
import { oncePerConfiguration, type StoreConfig } from '../config.js';
import { openByDriver } from '../stores/select.js';
import { memoryThrottle } from './memory.js';
import type { ThrottleStore } from './types.js';

/**
 * Open the throttle a store configuration names (each adapter loaded only when chosen).
 * @throws ServiceError UPSTREAM_UNAVAILABLE when the store cannot be reached.
 */
export function openThrottleStore(config: StoreConfig): Promise<ThrottleStore> {
  if (config.driver === 'none') return Promise.resolve(memoryThrottle());
  return openByDriver(config, 'The throttle', {
    sqlite: async (file) => (await import('./sqlite.js')).openSqliteThrottle(file),
    redis: async (target) => (await import('./redis.js')).openRedisThrottle(target),
  });
}

/** The process-wide throttle (built on first use). @throws ServiceError UPSTREAM_UNAVAILABLE */
export const throttleStore: () => Promise<ThrottleStore> = oncePerConfiguration(
  (config) => openThrottleStore(config.store),
  (store) => store.close(),
);
