/**
 * The process's ledger store, built once from the configuration (docs/architecture.md, "Configuration"):
 * `STORE_DRIVER=sqlite` opens `DATA_DIR/ledger.sqlite`; `STORE_DRIVER=redis` talks to Upstash over REST
 * (`UPSTASH_REDIS_REST_URL`, `UPSTASH_REDIS_REST_TOKEN`) or to a `redis-server` over RESP (`REDIS_URL`).
 * A new configuration (`useServiceConfig`) closes the store and builds the next one on first use.
 */
import { oncePerConfiguration, type StoreConfig } from '../config.js';
import { openByDriver } from '../stores/select.js';
import type { LedgerStore } from './types.js';

/**
 * Open the ledger store a configuration names (each adapter loaded only when chosen).
 * @throws ServiceError UPSTREAM_UNAVAILABLE when no store is configured or it cannot be reached.
 */
export function openLedgerStore(config: StoreConfig): Promise<LedgerStore> {
  return openByDriver(config, 'The ledger', {
    sqlite: async (file) => (await import('./sqlite.js')).openSqliteLedger({ file }),
    redis: async (target) => (await import('./redis.js')).openRedisLedger(target),
  });
}

/** The process-wide store (built on first use). @throws ServiceError UPSTREAM_UNAVAILABLE */
export const ledgerStore: () => Promise<LedgerStore> = oncePerConfiguration(
  (config) => openLedgerStore(config.store),
  (store) => store.close(),
);
