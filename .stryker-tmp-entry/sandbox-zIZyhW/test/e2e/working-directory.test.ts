// @ts-nocheck
// A function started from another working directory finds its catalog: the catalog folder resolves
// against the project root (api/_lib/config.ts), as on Vercel, where the working directory is not ours.
import { execFile } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT, SAMPLE_OUT } from '../helpers/catalog.js';

const run = promisify(execFile);
/** tsx's loader, by absolute URL: the child runs outside the repository, where `tsx` does not resolve. */
const TSX = pathToFileURL(createRequire(import.meta.url).resolve('tsx/esm')).href;

describe('working directory', () => {
  it.each([
    ['a relative CATALOG_DIR', relative(REPO_ROOT, SAMPLE_OUT)],
    ['an absolute CATALOG_DIR', SAMPLE_OUT],
  ])('answers /api/stats from %s while running in another folder', async (_, dir) => {
    const entry = pathToFileURL(join(REPO_ROOT, 'api/catalog.ts')).href;
    const script = `const { GET } = await import(${JSON.stringify(entry)}); const r = await GET(new Request('http://t/api/stats')); console.log(r.status);`;
    const { stdout } = await run(process.execPath, ['--import', TSX, '--input-type=module', '-e', script], {
      cwd: tmpdir(),
      env: { PATH: process.env.PATH ?? '', CATALOG_DIR: dir },
    });
    expect(stdout.trim()).toBe('200');
  });
});
