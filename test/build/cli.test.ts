/**
 * The build's command line (`build/cli.ts`, spec 3): each exit code for what causes it, and the output
 * it names: 0 built, 1 catalog errors (nothing published), 2 bad arguments, 3 an internal failure (the
 * build stopped on an error that is neither the catalog's nor the arguments', reported as such with its
 * stack, never as a usage error).
 */
import { mkdtempSync, rmSync, writeFileSync, existsSync, cpSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { EXIT_INTERNAL, main } from '../../build/cli.js';
import { SAMPLE_SRC } from '../helpers/catalog.js';

let dir = '';
let out = '';
let err = '';
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'build-cli-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));
afterEach(() => vi.restoreAllMocks());

function capture(): void {
  out = '';
  err = '';
  vi.spyOn(process.stdout, 'write').mockImplementation((c: string | Uint8Array) => ((out += String(c)), true));
  vi.spyOn(process.stderr, 'write').mockImplementation((c: string | Uint8Array) => ((err += String(c)), true));
}

describe('npm run build', () => {
  it('exits 0 when the catalog builds, and says where', async () => {
    capture();
    const code = await main(['--src', SAMPLE_SRC, '--out', join(dir, 'ok'), '--no-site', '--quiet']);
    expect(code).toBe(0);
    expect(out).toMatch(/^Built: \d+ files, \d+ records/m);
    expect(existsSync(join(dir, 'ok/api/v1/master-relics.json'))).toBe(true);
  });

  it('exits 1 for errors in the catalog, naming the file, and publishes nothing', async () => {
    const src = join(dir, 'bad-src');
    cpSync(SAMPLE_SRC, src, { recursive: true });
    writeFileSync(join(src, 'master-relics.json'), '{ "relics": [ }');
    capture();
    const code = await main(['--src', src, '--out', join(dir, 'bad'), '--no-site', '--quiet']);
    expect(code).toBe(1);
    expect(out).toMatch(/^master-relics\.json:1:/m);
    expect(out).toMatch(/^Build failed: /m);
    expect(existsSync(join(dir, 'bad'))).toBe(false);
  });

  it('exits 2 for arguments it does not know, with the usage', async () => {
    capture();
    expect(await main(['--nope'])).toBe(2);
    expect(err).toMatch(/Usage: npm run build/);
  });

  it('exits 3 for a failure of its own or of the machine, reported as one with what failed, never as a usage error', async () => {
    const blocker = join(dir, 'a-file');
    writeFileSync(blocker, 'not a folder');
    capture();
    const code = await main(['--src', SAMPLE_SRC, '--out', join(blocker, 'dist'), '--no-site', '--quiet']);
    expect(code).toBe(EXIT_INTERNAL);
    expect(EXIT_INTERNAL).toBe(3);
    expect(err).toMatch(/^Internal build failure: .*nothing was published\.\n/);
    expect(err).toMatch(/ENOTDIR|EEXIST/);
    expect(err).not.toMatch(/Usage:/);
  });
});
