/**
 * The process's storage adapter, built once from the configuration (docs/architecture.md,
 * "Configuration"): `STORAGE_DRIVER=local` (files under `DATA_DIR/storage`) or `s3` (`S3_*`). The S3 client
 * is loaded only when chosen. A new configuration (`useServiceConfig`) builds the next adapter on first use.
 */
import { ConfigError, oncePerConfiguration, type StorageConfig } from '../config.js';
import { ServiceError } from '../errors.js';
import { localStorageAdapter } from './local.js';
import type { S3StorageAdapter } from './s3.js';
import type { StorageAdapter } from './types.js';

/**
 * Open the adapter a storage configuration names.
 * @throws ServiceError UPSTREAM_UNAVAILABLE when no storage is configured (its cause, a ConfigError naming
 *   `STORAGE_DRIVER` and what to set, goes to the operator's log with the 503).
 */
export async function openStorage(config: StorageConfig): Promise<StorageAdapter> {
  switch (config.driver) {
    case 'local':
      return localStorageAdapter(config.dir, config.publicUrl.replace(/\/+$/, ''));
    case 's3': {
      const { s3StorageAdapter } = await import('./s3.js');
      return s3StorageAdapter(config);
    }
    default:
      throw new ServiceError('UPSTREAM_UNAVAILABLE', 'Binary storage is not available on this deployment.', {
        cause: new ConfigError([{ variable: 'STORAGE_DRIVER', message: config.reason }]),
      });
  }
}

/** The process-wide adapter (built on first use). @throws ServiceError UPSTREAM_UNAVAILABLE */
export const storage: () => Promise<StorageAdapter> = oncePerConfiguration(
  (config) => openStorage(config.storage),
  (adapter) => (adapter as Partial<S3StorageAdapter>).close?.(),
);
