/**
 * Every `npm run` script answers `--help` (dev/cli.ts, "Help"): exit 0 and a usage line on stdout,
 * before it reads, builds or connects to anything. A script added to package.json without help fails
 * here. The scripts that are third-party tools (tsc, eslint, prettier, vitest) answer with their own
 * help, recognised by its first words; `test` is the chain of such scripts and runs nothing of its own,
 * which is checked on its text rather than run (it would type-check and lint first).
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../helpers/catalog.js';

const run = promisify(execFile);
const scripts = (JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;

/** Scripts that are a third-party tool, and the words its own `--help` starts with or holds. */
const TOOLS: Readonly<Record<string, RegExp>> = {
  typecheck: /tsc: The TypeScript Compiler/,
  lint: /eslint \[options\]/,
  'test:unit': /Usage:/,
  format: /Usage: prettier/,
  'format:check': /Usage: prettier/,
};

describe('npm run <script> -- --help', () => {
  it('test is only a chain of scripts checked here, ending in vitest', () => {
    expect(scripts.test).toBe('npm run typecheck && npm run lint && npm run format:check && vitest run');
  });

  const own = Object.keys(scripts).filter((s) => s !== 'test');
  it.each(own)(
    '%s prints its usage and exits 0',
    async (name) => {
      const { stdout } = await run('npm', ['run', '-s', name, '--', '--help'], {
        cwd: REPO_ROOT,
        env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' },
        timeout: 60_000,
        maxBuffer: 4 * 1024 * 1024,
      });
      if (name in TOOLS) expect(stdout).toMatch(TOOLS[name]!);
      else {
        expect(stdout, name).toMatch(/^Usage:/);
        expect(stdout, name).toContain(name === 'start' ? 'npm start' : `npm run ${name}`);
        expect(stdout, name).toMatch(/^Example/m);
      }
    },
    60_000,
  );
});
