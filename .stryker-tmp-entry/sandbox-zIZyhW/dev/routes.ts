/**
 * `npm run routes [-- --check]`: write `vercel.json` from the route table (see `dev/vercel-config.ts`).
 * With `--check`, write nothing and exit 1 when the file differs from the table (for CI and hooks).
 * Exit codes: 0 written or up to date, 1 out of date (`--check`), 2 bad arguments.
 */
// @ts-nocheck

import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { PROJECT_ROOT } from '../api/_lib/config.js';
import { renderVercelJson } from './vercel-config.js';

function main(argv: string[]): number {
  let check: boolean;
  try {
    check = parseArgs({ args: argv, options: { check: { type: 'boolean', default: false } }, strict: true }).values.check;
  } catch (e) {
    process.stderr.write(`${(e as Error).message}\nUsage: npm run routes [-- --check]\n`);
    return 2;
  }
  const file = join(PROJECT_ROOT, 'vercel.json');
  const want = renderVercelJson();
  let have = '';
  try {
    have = readFileSync(file, 'utf8');
  } catch {
    // a missing file is out of date
  }
  if (have === want) {
    process.stdout.write('vercel.json is up to date with the route table.\n');
    return 0;
  }
  if (check) {
    process.stderr.write('vercel.json differs from the route table; run `npm run routes`.\n');
    return 1;
  }
  writeFileSync(file, want);
  process.stdout.write('vercel.json written from the route table.\n');
  return 0;
}

process.exitCode = main(process.argv.slice(2));
