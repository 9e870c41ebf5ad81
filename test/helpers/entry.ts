/**
 * Function entries imported afresh (docs/mutation.md, "Known limits": what an entry builds at import,
 * such as its route table, only runs under a test that imports it): registers the hooks of such a
 * suite (a module reset before each test, a temporary data folder removed after the file) and loads an
 * entry with a configuration in force.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeEach, vi } from 'vitest';
import type { Environment } from '../../api/_lib/config.js';

/** A method export of an entry. */
export type Entry = Record<string, (r: Request) => Promise<Response>>;

/**
 * Register the hooks; `load(env, importEntry)` puts `env` (with `DATA_DIR` the suite's folder) in force
 * in the fresh module graph, then imports the entry through `importEntry`.
 */
export function freshEntrySuite(prefix: string): {
  readonly dataDir: string;
  load(env: Environment, importEntry: () => Promise<unknown>): Promise<Entry>;
} {
  const dataDir = mkdtempSync(join(tmpdir(), prefix));
  beforeEach(() => {
    vi.resetModules();
  });
  afterAll(async () => {
    (await import('../../api/_lib/config.js')).useServiceConfig(undefined);
    rmSync(dataDir, { recursive: true, force: true });
  });
  return {
    dataDir,
    async load(env, importEntry) {
      const config = await import('../../api/_lib/config.js');
      config.useServiceConfig(config.loadServiceConfig({ ...env, DATA_DIR: dataDir }));
      return (await importEntry()) as Entry;
    },
  };
}
