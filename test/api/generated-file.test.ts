/**
 * The command line of the generated, committed files (`dev/generated-file.ts`, behind `npm run routes` and
 * `npm run validators`): it writes the file, says when it is up to date, and with `--check` writes nothing
 * and exits 1 when the file differs; bad arguments exit 2 with the usage.
 */
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { generatedFileCli } from '../../dev/generated-file.js';

const REPO = join(import.meta.dirname, '../..');
const rel = '.tmp/generated-file-test/out.txt';
const path = join(REPO, rel);
mkdirSync(join(path, '..'), { recursive: true });
afterAll(() => rmSync(join(path, '..'), { recursive: true, force: true }));

describe('generatedFileCli', () => {
  it('writes, reports up to date, checks without writing, and refuses unknown arguments', () => {
    rmSync(path, { force: true });
    const out = vi.spyOn(process.stdout, 'write').mockReturnValue(true);
    const err = vi.spyOn(process.stderr, 'write').mockReturnValue(true);
    try {
      const g = { file: rel, source: 'the source', script: 'gen', render: () => 'text\n' };
      expect(generatedFileCli(['--check'], g)).toBe(1);
      expect(existsSync(path)).toBe(false);
      expect(err).toHaveBeenLastCalledWith(`${rel} differs from the source; run \`npm run gen\`.\n`);
      expect(generatedFileCli([], g)).toBe(0);
      expect(readFileSync(path, 'utf8')).toBe('text\n');
      expect(out).toHaveBeenLastCalledWith(`${rel} written from the source.\n`);
      expect(generatedFileCli(['--check'], g)).toBe(0);
      expect(out).toHaveBeenLastCalledWith(`${rel} is up to date with the source.\n`);
      writeFileSync(path, 'old\n');
      expect(generatedFileCli(['--check'], g)).toBe(1);
      expect(readFileSync(path, 'utf8')).toBe('old\n');
      expect(generatedFileCli(['--bogus'], g)).toBe(2);
      expect(String(err.mock.lastCall?.[0])).toMatch(/--bogus[\s\S]*Usage: npm run gen \[-- --check\]/);
      expect(readFileSync(path, 'utf8')).toBe('old\n');
    } finally {
      out.mockRestore();
      err.mockRestore();
    }
  });
});
