/**
 * `npm run mutate` (dev/mutate.ts, docs/mutation.md): which test files a scoped run chooses, and its
 * command line. Stryker itself is replaced by a stand-in that records the options it is given.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  importClosure,
  main,
  readsTestBuilds,
  resolveSpecifier,
  runtimeImports,
  scopedVitestConfig,
  sourceGraph,
  testFiles,
  testImportsOnly,
  testsReaching,
  USAGE,
} from '../../dev/mutate.js';
import { SANDBOX_EXCLUDED, SANDBOX_SKIPPED } from '../../vitest.stryker.config.js';
import { REPO_ROOT } from '../helpers/catalog.js';

describe('runtimeImports', () => {
  it('names relative modules loaded at run time: imports, side-effect imports, re-exports and literal import() calls', () => {
    const source = [
      "import { a } from './a.js';",
      "import './side.js';",
      "import def, { type T } from '../b.js';",
      "export { c } from './c.js';",
      "export * from './d.js';",
      "const e = await import('./e.js');",
      'const f = await import(`./f.js`);',
    ].join('\n');
    expect(runtimeImports(source)).toEqual(['./a.js', './side.js', '../b.js', './c.js', './d.js', './e.js', './f.js']);
  });

  it('leaves out type-only imports and re-exports, packages, and computed import() paths', () => {
    const source = [
      "import type { A } from './types.js';",
      "export type { B } from './more-types.js';",
      "import { describe } from 'vitest';",
      "import { readFile } from 'node:fs/promises';",
      'const name = "x";',
      'await import(`../api/${name}.ts`);',
      'await import(name);',
      "// import { g } from './in-a-comment.js';",
    ].join('\n');
    expect(runtimeImports(source)).toEqual([]);
  });

  it('names a module once however often it is imported', () => {
    expect(runtimeImports("import { a } from './a.js';\nimport { b } from './a.js';\nawait import('./a.js');")).toEqual(['./a.js']);
  });
});

describe('resolveSpecifier', () => {
  const files = new Set([
    'api/_lib/ledger/chain.ts',
    'api/_lib/http/request-validators.js',
    'api/_lib/data.json',
    'lib/index.ts',
    'lib/x.ts',
  ]);
  const exists = (f: string) => files.has(f);

  it('finds the TypeScript source of a .js specifier, and a .js module that has none', () => {
    expect(resolveSpecifier('api/_lib/ledger/service.ts', './chain.js', exists)).toBe('api/_lib/ledger/chain.ts');
    expect(resolveSpecifier('api/_lib/http/body.ts', './request-validators.js', exists)).toBe('api/_lib/http/request-validators.js');
    expect(resolveSpecifier('test/ledger/a.test.ts', '../../api/_lib/ledger/chain.js', exists)).toBe('api/_lib/ledger/chain.ts');
  });

  it('takes a specifier with a .ts or .json extension as it is, and one without as a file or a folder index', () => {
    expect(resolveSpecifier('test/a.test.ts', '../api/_lib/ledger/chain.ts', exists)).toBe('api/_lib/ledger/chain.ts');
    expect(resolveSpecifier('api/_lib/x.ts', './data.json', exists)).toBe('api/_lib/data.json');
    expect(resolveSpecifier('a.ts', './lib', exists)).toBe('lib/index.ts');
    expect(resolveSpecifier('a.ts', './lib/x', exists)).toBe('lib/x.ts');
  });

  it('resolves nothing for a file that does not exist', () => {
    expect(resolveSpecifier('a.ts', './missing.js', exists)).toBeUndefined();
  });
});

describe('testsReaching', () => {
  // test/a imports the module directly, test/b through a helper and a chain of two modules,
  // test/c only modules that do not reach it, test/d imports nothing; src/x and src/y import each other
  const graph: Record<string, string[]> = {
    'test/a.test.ts': ['src/target.ts'],
    'test/b.test.ts': ['test/helper.ts'],
    'test/helper.ts': ['src/x.ts'],
    'src/x.ts': ['src/y.ts'],
    'src/y.ts': ['src/x.ts', 'src/target.ts'],
    'test/c.test.ts': ['src/other.ts'],
    'src/other.ts': ['src/leaf.ts'],
    'test/d.test.ts': [],
  };
  const importsOf = (f: string) => graph[f] ?? [];
  const tests = ['test/a.test.ts', 'test/b.test.ts', 'test/c.test.ts', 'test/d.test.ts'];

  it('chooses the test files that import the module directly or through other modules, in their given order', () => {
    expect(testsReaching(['src/target.ts'], tests, importsOf)).toEqual(['test/a.test.ts', 'test/b.test.ts']);
    expect(testsReaching(['src/target.ts'], [...tests].reverse(), importsOf)).toEqual(['test/b.test.ts', 'test/a.test.ts']);
  });

  it('chooses tests reaching any of several modules, and none for a module no test reaches', () => {
    expect(testsReaching(['src/target.ts', 'src/leaf.ts'], tests, importsOf)).toEqual([
      'test/a.test.ts',
      'test/b.test.ts',
      'test/c.test.ts',
    ]);
    expect(testsReaching(['src/unused.ts'], tests, importsOf)).toEqual([]);
  });

  it('counts a module reached through a cycle, and a test file itself when it is the module', () => {
    expect(testsReaching(['src/y.ts'], tests, importsOf)).toEqual(['test/b.test.ts']);
    expect(testsReaching(['test/d.test.ts'], tests, importsOf)).toEqual(['test/d.test.ts']);
  });

  it('with testImportsOnly, chooses the tests that import the module themselves or through a test helper', () => {
    const viaTests = testImportsOnly(importsOf);
    expect(testsReaching(['src/target.ts'], tests, viaTests)).toEqual(['test/a.test.ts']);
    expect(testsReaching(['src/x.ts'], tests, viaTests)).toEqual(['test/b.test.ts']);
    expect(viaTests('src/y.ts')).toEqual([]);
  });

  it('importClosure holds the starts and everything they reach, once each', () => {
    expect([...importClosure(['test/b.test.ts'], importsOf)].sort()).toEqual([
      'src/target.ts',
      'src/x.ts',
      'src/y.ts',
      'test/b.test.ts',
      'test/helper.ts',
    ]);
  });
});

describe('on this repository', () => {
  const importsOf = sourceGraph(REPO_ROOT);
  const all = testFiles(['test/**/*.test.ts'], [], REPO_ROOT);

  it('lists the test files of an include glob, and leaves out those an exclude glob names', () => {
    expect(all).toContain('test/dev/mutate.test.ts');
    expect(all.every((f) => f.startsWith('test/') && f.endsWith('.test.ts'))).toBe(true);
    const kept = testFiles(['test/**/*.test.ts'], Object.keys(SANDBOX_EXCLUDED), REPO_ROOT);
    expect(kept.length).toBe(all.length - Object.keys(SANDBOX_EXCLUDED).length);
    for (const f of Object.keys(SANDBOX_EXCLUDED)) expect(kept).not.toContain(f);
  });

  it('the suites and tests left out of mutation runs exist, and each says why', () => {
    for (const [file, why] of Object.entries(SANDBOX_EXCLUDED)) {
      expect(existsSync(join(REPO_ROOT, file)), file).toBe(true);
      expect(why.length, file).toBeGreaterThan(20);
    }
    for (const [file, tests] of Object.entries(SANDBOX_SKIPPED)) {
      const text = readFileSync(join(REPO_ROOT, file), 'utf8');
      for (const [name, why] of Object.entries(tests)) {
        expect(text, `${file}: ${name}`).toContain(`it('${name}'`);
        expect(why.length, name).toBeGreaterThan(20);
      }
    }
  });

  it('reaches the ledger chain from its own unit tests and from a route suite through the entry file', () => {
    const chosen = testsReaching(['api/_lib/ledger/chain.ts'], all, importsOf);
    expect(chosen).toContain('test/ledger/invariants.test.ts');
    expect(chosen).toContain('test/ledger/wallet-api.test.ts');
    expect(chosen).not.toContain('test/dev/mutate.test.ts');
    expect(chosen).not.toContain('test/api/search.test.ts');
  });

  it('a test that reads the test builds needs the global setup; the catalog helper alone does not', () => {
    const read = (f: string) => readFileSync(join(REPO_ROOT, f), 'utf8');
    expect(readsTestBuilds(importClosure(['test/build/sample-build.test.ts'], importsOf), read)).toBe(true);
    expect(readsTestBuilds(['test/helpers/catalog.ts', 'api/_lib/ledger/chain.ts'], read)).toBe(false);
  });
});

/** A written vitest config (plain JavaScript), loaded as a module. */
async function loadConfig(text: string) {
  return (
    (await import(`data:text/javascript,${encodeURIComponent(text)}`)) as {
      default: {
        test: { include: string[]; globalSetup: string[]; exclude: string[]; setupFiles: string[]; provide: Record<string, unknown> };
      };
    }
  ).default;
}

describe('scopedVitestConfig', () => {
  it('keeps the test settings of mutation runs, with include set to the chosen files', async () => {
    const config = await loadConfig(scopedVitestConfig(['test/a.test.ts', 'test/b.test.ts'], true));
    expect(config.test.include).toEqual(['test/a.test.ts', 'test/b.test.ts']);
    expect(config.test.globalSetup).toEqual(['test/global-setup.ts']);
    expect(config.test.setupFiles).toEqual(['dev/mutate-setup.ts']);
    expect(config.test.provide).toEqual({ sandboxSkipped: SANDBOX_SKIPPED });
    for (const f of Object.keys(SANDBOX_EXCLUDED)) expect(config.test.exclude).toContain(f);
  });

  it('drops the global setup when no chosen test reads the test builds', async () => {
    const config = await loadConfig(scopedVitestConfig(['test/a.test.ts'], false));
    expect(config.test.globalSetup).toEqual([]);
  });
});

describe('npm run mutate', () => {
  function run(argv: string[]) {
    const out: string[] = [];
    const err: string[] = [];
    const calls: Record<string, unknown>[] = [];
    const written: string[] = [];
    const io = {
      out: (t: string) => void out.push(t),
      err: (t: string) => void err.push(t),
      stryker: (options: Record<string, unknown>) => {
        calls.push(options);
        const file = (options.vitest as { configFile?: string } | undefined)?.configFile;
        if (file) written.push(readFileSync(join(REPO_ROOT, file), 'utf8'));
        return Promise.resolve();
      },
    };
    return { out, err, calls, written, done: main(argv, io) };
  }

  it('--help prints usage, options and an example, and runs nothing', async () => {
    for (const flag of ['--help', '-h']) {
      const r = run([flag]);
      expect(await r.done).toBe(0);
      expect(r.out.join('')).toBe(USAGE);
      expect(USAGE).toMatch(/^Usage: npm run mutate/);
      expect(USAGE).toContain('Options:');
      expect(USAGE).toContain('npm run mutate -- api/_lib/ledger/chain.ts');
      expect(r.calls).toEqual([]);
    }
  });

  it('without a module, runs Stryker over stryker.config.json as it is, with the options given', async () => {
    const r = run([]);
    expect(await r.done).toBe(0);
    expect(r.calls).toEqual([{}]);
    const d = run(['--dry-run', '--concurrency', '1', '--coverage', 'all']);
    expect(await d.done).toBe(0);
    expect(d.calls).toEqual([{ dryRunOnly: true, concurrency: 1, coverageAnalysis: 'all' }]);
  });

  it('with a module, mutates it alone against a written vitest config of the tests that reach it, then removes that config', async () => {
    const r = run(['api/_lib/ledger/chain.ts:10-20']);
    expect(await r.done).toBe(0);
    expect(r.calls).toHaveLength(1);
    const options = r.calls[0] as { mutate: string[]; vitest: { configFile: string; related: boolean } };
    expect(options.mutate).toEqual(['api/_lib/ledger/chain.ts:10-20']);
    expect(options.vitest.related).toBe(false);
    expect(options.vitest.configFile).toMatch(/^vitest\.mutate-\d+\.config\.ts$/);
    expect(existsSync(join(REPO_ROOT, options.vitest.configFile))).toBe(false);
    const include = (await loadConfig(r.written[0]!)).test.include;
    expect(include).toContain('test/ledger/invariants.test.ts');
    expect(include).not.toContain('test/api/bundles.test.ts');
    expect(r.out.join('')).toMatch(/^Mutating api\/_lib\/ledger\/chain\.ts:10-20 against \d+ test file\(s\)/);
  });

  it('--direct chooses fewer test files: not those that reach the module through other source modules', async () => {
    const all = run(['--list', 'api/_lib/ledger/chain.ts']);
    const direct = run(['--list', '--direct', 'api/_lib/ledger/chain.ts']);
    expect(await all.done).toBe(0);
    expect(await direct.done).toBe(0);
    const chosen = direct.out.join('').trim().split('\n');
    expect(chosen).toContain('test/ledger/invariants.test.ts');
    expect(chosen).not.toContain('test/ledger/wallet-api.test.ts');
    expect(all.out.join('')).toContain('test/ledger/wallet-api.test.ts');
  });

  it('--skip leaves out the chosen test files its globs match, and only those', async () => {
    const all = run(['--list', '--direct', 'api/_lib/player/redis.ts']);
    const skipped = run([
      '--list',
      '--direct',
      'api/_lib/player/redis.ts',
      '--skip',
      'test/adversarial/**',
      '--skip',
      'test/player/*-units.test.ts',
    ]);
    expect(await all.done).toBe(0);
    expect(await skipped.done).toBe(0);
    const before = all.out.join('').trim().split('\n');
    const after = skipped.out.join('').trim().split('\n');
    expect(before).toContain('test/adversarial/fault-run.test.ts');
    expect(before).toContain('test/player/items-units.test.ts');
    expect(after).toEqual(before.filter((t) => !t.startsWith('test/adversarial/') && !/^test\/player\/[^/]*-units\.test\.ts$/.test(t)));
    expect(after).toContain('test/player/redis.contract.test.ts');
  });

  it('--list prints the chosen test files, and says which sandbox-excluded suites would have reached the module', async () => {
    const r = run(['--list', 'api/_lib/routing/bundles.ts']);
    expect(await r.done).toBe(0);
    expect(r.out.join('')).toContain('test/api/routing.test.ts\n');
    expect(r.out.join('')).not.toContain('bundles.test.ts');
    expect(r.err.join('')).toContain('left out: test/api/bundles.test.ts (');
    expect(r.calls).toEqual([]);
  });

  it('refuses a file outside the mutated set, a missing file and bad option values with exit 2, running nothing', async () => {
    for (const argv of [
      ['dev/mutate.ts'],
      ['api/_lib/ledger/nothing-here.ts'],
      ['--coverage', 'off'],
      ['--concurrency', '0'],
      ['--list'],
      ['--direct'],
      ['--skip', 'test/**'],
      ['--frobnicate'],
    ]) {
      const r = run(argv);
      expect(await r.done, argv.join(' ')).toBe(2);
      expect(r.err.join(''), argv.join(' ')).toContain('Usage: npm run mutate');
      expect(r.calls).toEqual([]);
    }
  });

  it('exits 1 when Stryker fails, and still removes the written config', async () => {
    const err: string[] = [];
    let file = '';
    const code = await main(['api/_lib/ledger/chain.ts'], {
      out: () => undefined,
      err: (t) => void err.push(t),
      stryker: (options) => {
        file = (options.vitest as { configFile: string }).configFile;
        return Promise.reject(new Error('Something went wrong in the initial test run'));
      },
    });
    expect(code).toBe(1);
    expect(err.join('')).toContain('Stryker failed: Something went wrong in the initial test run');
    expect(existsSync(join(REPO_ROOT, file))).toBe(false);
  });
});
