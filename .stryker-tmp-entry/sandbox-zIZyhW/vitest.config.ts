// @ts-nocheck
import { defineConfig } from 'vitest/config';

/** Test runner configuration: every suite lives under test/, slow real-snapshot suites get room. */
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
  },
});
