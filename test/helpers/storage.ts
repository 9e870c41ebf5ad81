/**
 * The binary storage adapters on their test backends, behind the one harness shape (`backends.ts`;
 * docs/architecture.md, "Storage"): `local` in a temporary folder, and `s3` against `s3rver` on 127.0.0.1
 * (`s3.ts`), configured through the service's own configuration reader.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadServiceConfig } from '../../api/_lib/config.js';
import { localStorageAdapter } from '../../api/_lib/storage/local.js';
import { s3StorageAdapter, type S3StorageAdapter } from '../../api/_lib/storage/s3.js';
import type { StorageAdapter } from '../../api/_lib/storage/types.js';
import type { Harness } from './backends.js';
import { startS3, type TestS3 } from './s3.js';

/** `local` storage in a temporary folder (objects under `<folder>/<n>`), public URLs under `http://cdn.test/storage`. */
export function localStorageHarness(): Harness<StorageAdapter> {
  let dir = '';
  let n = 0;
  const open = () => localStorageAdapter(join(dir, String(n)), 'http://cdn.test/storage');
  return {
    name: 'local',
    setup() {
      dir = mkdtempSync(join(tmpdir(), 'storage-local-'));
      return Promise.resolve();
    },
    fresh() {
      n++;
      return Promise.resolve(open());
    },
    reopen: () => Promise.resolve(open()),
    env() {
      n++;
      return { STORAGE_DRIVER: 'local', DATA_DIR: join(dir, `data-${n}`) };
    },
    teardown() {
      rmSync(dir, { recursive: true, force: true });
      return Promise.resolve();
    },
  };
}

/** `s3` storage against `s3rver` on 127.0.0.1 (one bucket; `fresh` does not empty it: suites use distinct keys). */
export function s3StorageHarness(): Harness<StorageAdapter> & { server(): TestS3 } {
  let server: TestS3 | undefined;
  const opened: S3StorageAdapter[] = [];
  const open = () => {
    const config = loadServiceConfig({ ...server!.env, DATA_DIR: tmpdir() }).storage;
    if (config.driver !== 's3') throw new Error('expected the s3 storage configuration');
    const adapter = s3StorageAdapter(config);
    opened.push(adapter);
    return Promise.resolve(adapter);
  };
  return {
    name: 's3',
    server: () => server!,
    async setup() {
      server = await startS3();
    },
    fresh: open,
    reopen: open,
    env: () => ({ ...server!.env }),
    async teardown() {
      for (const a of opened) a.close();
      await server?.stop();
    },
  };
}
