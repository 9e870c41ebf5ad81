/**
 * Setup file of mutation runs (`vitest.stryker.config.ts`, docs/mutation.md): skips the single tests
 * that cannot pass in Stryker's sandbox, named with their reasons in that config and handed over by
 * vitest's `provide`. `npm test` does not load this file.
 */
import { beforeEach, inject } from 'vitest';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Test file (repository-relative) → test name → why the test is skipped in mutation runs. */
    sandboxSkipped: Readonly<Record<string, Readonly<Record<string, string>>>>;
  }
}

const skipped = inject('sandboxSkipped');

beforeEach((ctx) => {
  const why = skipped[ctx.task.file.name]?.[ctx.task.name];
  if (why !== undefined) ctx.skip(`skipped in mutation runs: ${why}`);
});
