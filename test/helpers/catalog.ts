/**
 * Shared test fixtures: where the test builds of the sample catalog and of the real snapshot live.
 * `test/global-setup.ts` builds both once per test run; suites read the outputs from these folders.
 */
import { fileURLToPath } from 'node:url';
import { resolve } from 'node:path';

/** Repository root. */
export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** The real snapshot's catalog folder (read-only fixture, outside the repository). */
export const REAL_SRC = resolve(REPO_ROOT, '../shared/fixtures/objectstore/api/v1');
/** Our catalog config for the real snapshot. */
export const REAL_CONFIG = resolve(REPO_ROOT, 'test/real-snapshot/catalog.config.json');
/** The id vectors fixture. */
export const ID_VECTORS = resolve(REPO_ROOT, '../shared/fixtures/id-vectors.json');
/** Our sample catalog. */
export const SAMPLE_SRC = resolve(REPO_ROOT, 'catalog-src');
/** Output folder of the test build of the sample catalog. */
export const SAMPLE_OUT = resolve(REPO_ROOT, '.tmp/test-builds/sample');
/** Output folder of the test build of the real snapshot. */
export const REAL_OUT = resolve(REPO_ROOT, '.tmp/test-builds/real');
