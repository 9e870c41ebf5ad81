/**
 * Put a service configuration in force for handler tests: the catalog folder they read, plus any other
 * variables (as the environment would give them). `useCatalog(undefined)` returns to the environment.
 */
// @ts-nocheck

import { loadServiceConfig, useServiceConfig, type Environment } from '../../api/_lib/config.js';

/** Serve the catalog output in `dir` (absolute) to the functions of this process, with `env` besides. */
export function useCatalog(dir: string | undefined, env: Environment = {}): void {
  useServiceConfig(dir === undefined ? undefined : loadServiceConfig({ ...env, CATALOG_DIR: dir }));
}
