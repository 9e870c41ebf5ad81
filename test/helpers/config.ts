/**
 * A validated-shape catalog config for tests that run derivers on an in-memory `DeriveContext`
 * (see `build/pipeline/types.ts` `CatalogConfig`); fields not given take neutral defaults.
 */
import type { CatalogConfig } from '../../build/pipeline/types.js';

/** A frozen {@link CatalogConfig} with test defaults, overridden by `fields`. */
export function testConfig(fields: Partial<CatalogConfig> = {}): CatalogConfig {
  return Object.freeze({
    name: 'test',
    baseUrl: 'http://t',
    cdnUrl: 'http://cdn.t',
    namespaces: { skill: 's:', icon: 'i:', sprite: 'p:' },
    uuidField: 'studioUuid',
    rules: {},
    overrides: [],
    versions: {},
    itemFileBudget: 10_000,
    keepBuilds: 3,
    ...fields,
  });
}
