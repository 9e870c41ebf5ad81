/**
 * The process's audit log (docs/architecture.md, "Audit log"), built once from the store configuration
 * (`STORE_DRIVER`): the same SQLite file or Redis database as the ledger and player state, whose writes
 * carry their records. A new configuration builds the next one on first use.
 */
import { oncePerConfiguration, type StoreConfig } from '../config.js';
import { openByDriver } from '../stores/select.js';
import type { AuditLog } from './types.js';

/**
 * Open the log a store configuration names.
 * @throws ServiceError UPSTREAM_UNAVAILABLE when no store is configured or it cannot be reached.
 */
export function openAuditLog(config: StoreConfig): Promise<AuditLog> {
  return openByDriver(config, 'The audit log', {
    sqlite: async (file) => (await import('./sqlite.js')).openSqliteAuditLog(file),
    redis: async (target) => (await import('./redis.js')).openRedisAuditLog(target),
  });
}

/** The process-wide log (built on first use). @throws ServiceError UPSTREAM_UNAVAILABLE */
export const auditLog: () => Promise<AuditLog> = oncePerConfiguration(
  (config) => openAuditLog(config.store),
  (log) => log.close(),
);
