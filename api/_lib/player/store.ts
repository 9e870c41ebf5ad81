/**
 * The process's player store, built once from the ledger's store configuration (`STORE_DRIVER`; spec
 * 1.8: player state lives only here): the same SQLite file or the same Redis database as the ledger. A
 * new configuration builds the next one on first use.
 */
import { oncePerConfiguration, type StoreConfig } from '../config.js';
import { openByDriver } from '../stores/select.js';
import type { PlayerStore } from './types.js';

/**
 * Open the player store a store configuration names (each adapter loaded only when chosen).
 * @throws ServiceError UPSTREAM_UNAVAILABLE when no store is configured or it cannot be reached.
 */
export function openPlayerStore(config: StoreConfig): Promise<PlayerStore> {
  return openByDriver(config, 'Player state', {
    sqlite: async (file) => (await import('./sqlite.js')).openSqlitePlayerStore(file),
    redis: async (target) => (await import('./redis.js')).openRedisPlayerStore(target),
  });
}

/** The process-wide player store (built on first use). @throws ServiceError UPSTREAM_UNAVAILABLE */
export const playerStore: () => Promise<PlayerStore> = oncePerConfiguration(
  (config) => openPlayerStore(config.store),
  (store) => store.close(),
);
