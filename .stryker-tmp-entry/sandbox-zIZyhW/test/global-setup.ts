/**
 * Builds the sample catalog and the real snapshot once per test run (without the site page), so that
 * handler and end-to-end suites read real build output. A failed build is printed with its problems
 * and leaves its output folder absent, so every suite that needs it fails on its own (the others still run).
 */
// @ts-nocheck

import { rm } from 'node:fs/promises';
import { buildCatalog } from '../build/pipeline/index.js';
import { formatIssue } from '../build/cli.js';
import { REAL_CONFIG, REAL_OUT, REAL_SRC, SAMPLE_OUT, SAMPLE_SRC } from './helpers/catalog.js';

export default async function setup(): Promise<void> {
  for (const [src, out, config] of [
    [SAMPLE_SRC, SAMPLE_OUT, undefined],
    [REAL_SRC, REAL_OUT, REAL_CONFIG],
  ] as const) {
    await rm(out, { recursive: true, force: true });
    const report = await buildCatalog({ src, out, ...(config ? { config } : {}), site: false, reportFile: false }).catch((e: unknown) => {
      process.stderr.write(`Test build of ${src} could not run: ${String(e)}\n`);
      return null;
    });
    if (report && !report.ok) {
      const errors = report.issues.filter((i) => i.severity === 'error').map(formatIssue);
      process.stderr.write(`Test build of ${src} failed:\n${errors.slice(0, 50).join('\n')}\n`);
    }
  }
}
