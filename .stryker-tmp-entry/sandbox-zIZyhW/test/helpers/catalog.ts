/**
 * Shared test fixtures: where the test builds of the sample catalog and of the real snapshot live.
 * `test/global-setup.ts` builds both once per test run; suites read the outputs from these folders.
 */
// @ts-nocheck

import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { dirname, resolve } from 'node:path';

/** Repository root (or the root of a copy of it, such as a Stryker sandbox under `.stryker-tmp/`). */
export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));

/**
 * The shared fixtures folder (`shared/fixtures`, outside the repository): the nearest one found
 * walking up from the repository root. Walking up, rather than a fixed `../shared/fixtures`, keeps it
 * found from a copy of the repository nested deeper, e.g. the mutation-testing sandbox
 * `.stryker-tmp/sandbox-xxx/` (see docs/mutation.md). Falls back to `../shared/fixtures`, so a missing
 * fixture fails with that path.
 */
export const SHARED_FIXTURES = findSharedFixtures(REPO_ROOT);

function findSharedFixtures(from: string): string {
  for (let dir = resolve(from); ; dir = dirname(dir)) {
    const candidate = resolve(dir, 'shared/fixtures');
    if (existsSync(candidate)) return candidate;
    if (dirname(dir) === dir) return resolve(from, '../shared/fixtures');
  }
}

/** The real snapshot's catalog folder (read-only fixture, outside the repository). */
export const REAL_SRC = resolve(SHARED_FIXTURES, 'objectstore/api/v1');
/** Our catalog config for the real snapshot. */
export const REAL_CONFIG = resolve(REPO_ROOT, 'test/real-snapshot/catalog.config.json');
/** The id vectors fixture. */
export const ID_VECTORS = resolve(SHARED_FIXTURES, 'id-vectors.json');
/** Our sample catalog. */
export const SAMPLE_SRC = resolve(REPO_ROOT, 'catalog-src');
/** Output folder of the test build of the sample catalog. */
export const SAMPLE_OUT = resolve(REPO_ROOT, '.tmp/test-builds/sample');
/** Output folder of the test build of the real snapshot. */
export const REAL_OUT = resolve(REPO_ROOT, '.tmp/test-builds/real');
