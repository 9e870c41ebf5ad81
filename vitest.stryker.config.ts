import { configDefaults, defineConfig } from 'vitest/config';
import base from './vitest.config.js';

// The test configuration of mutation runs (`stryker.config.json`, `npm run mutate`; docs/mutation.md):
// `vitest.config.ts` less what cannot run in Stryker's sandbox, a copy of the repository under
// `.stryker-tmp/sandbox-*` whose sources are instrumented (every mutant compiled in, switched at run
// time, with coverage counters) and tested by vitest's `threads` pool in one worker. `npm test` runs all.

/** Test files left out of mutation runs, each with why. */
export const SANDBOX_EXCLUDED: Readonly<Record<string, string>> = {
  'test/adversarial/small-holes.test.ts':
    "sets and restores process.umask() around every test, which Node refuses in the runner's worker threads",
  'test/api/bundles.test.ts': '@vercel/nft traces the instrumented entries, and node_modules linked from outside the sandbox',
  'test/e2e/browser.test.ts': 'builds the site and starts Chromium again for every mutant it covers; the route suites reach the same code',
  'test/e2e/browser-real.test.ts':
    'builds the site and starts Chromium again for every mutant it covers; the route suites reach the same code',
};

/** Single tests skipped in mutation runs (by `dev/mutate-setup.ts`): test file → test name → why. */
export const SANDBOX_SKIPPED: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  'test/api/routing.test.ts': {
    'exist for every entry of the table, each declaring its routes through the entry helper':
      "reads the entry files' source text, which the instrumenter rewrites",
  },
  'test/client/client.test.ts': {
    'compiles on its own into the files its package.json publishes, which load as an ES module':
      'type-checks client/src with tsc, and the instrumented runtime.ts does not type-check',
  },
  'test/build/scale.test.ts': {
    'derives the index and, within the budget, every static item file':
      'a 150,000-item load test: instrumented code counting coverage runs past its 120 s timeout',
  },
};

export default defineConfig({
  test: {
    ...base.test,
    exclude: [...configDefaults.exclude, ...Object.keys(SANDBOX_EXCLUDED)],
    setupFiles: [...[base.test?.setupFiles ?? []].flat(), 'dev/mutate-setup.ts'],
    provide: { sandboxSkipped: SANDBOX_SKIPPED },
  },
});
