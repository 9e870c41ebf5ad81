/**
 * `npm run mutate [-- <module>...] [options]`: mutation testing with Stryker (docs/mutation.md).
 *
 * - Without a module: the whole mutated set of `stryker.config.json` against every suite of
 *   `vitest.stryker.config.ts` (the whole suite but the few that cannot run in Stryker's sandbox).
 * - With a module (`api/_lib/ledger/chain.ts`, or `file.ts:40-60` for a line range): only that module
 *   is mutated, against only the test files that import it directly or through other modules (with
 *   `--direct`, only through test helpers). Those are listed in a vitest config written for the run
 *   (`vitest.mutate-<pid>.config.ts`, git-ignored, removed when the run ends), so the initial test run
 *   and every mutant run use just them.
 *
 * Exit codes: 0 done (whatever the score: `stryker.config.json` sets no break threshold), 1 Stryker
 * failed or no test reaches the module, 2 bad arguments.
 */
import { existsSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import picomatch from 'picomatch';
import ts from 'typescript';
import strykerVitest, { SANDBOX_EXCLUDED } from '../vitest.stryker.config.js';

/** The repository root. */
const ROOT = resolve(import.meta.dirname, '..');

/** Coverage analysis modes a run may use (Stryker's `coverageAnalysis`). */
const COVERAGE_MODES = ['perTest', 'all'] as const;
type Coverage = (typeof COVERAGE_MODES)[number];

/** Usage, options and examples, printed by `--help` and after a bad argument. */
export const USAGE = `Usage: npm run mutate [-- <module>... [options]]

Mutation testing with Stryker (docs/mutation.md). Without a module, mutates everything
stryker.config.json names against the whole suite (hours). With a module, mutates only
that module against only the test files that import it, directly or through other modules.

Arguments:
  <module>             a source file in stryker.config.json's "mutate" set, relative to the
                       repository root; a line range may follow (file.ts:40-60)

Options:
  --coverage <mode>    perTest (default: each mutant runs only the tests that reach it) or
                       all (each mutant runs every selected test; it also kills mutants of code
                       that runs when a module is imported)
  --direct             only the test files that import <module> themselves or through test
                       helpers (test/**), not through other source modules: faster, and a
                       lower bound of the score
  --skip <glob>        leave out the chosen test files the glob matches (repeatable), e.g. a
                       slow suite that every mutant reaches: a lower bound of the score
  --concurrency <n>    test runner processes (default: stryker.config.json's, 2)
  --dry-run            only the initial test run, no mutant
  --list               print the test files a run of <module> would use, and run nothing
  -h, --help           print this help

Examples:
  npm run mutate -- api/_lib/ledger/chain.ts
  npm run mutate -- api/_lib/ledger/invariants.ts --direct
  npm run mutate -- api/player.ts --coverage all
  npm run mutate -- api/_lib/search/engine.ts:180-240 --concurrency 1
  npm run mutate -- api/_lib/player/redis.ts --direct --skip 'test/adversarial/**'
  npm run mutate -- --dry-run
`;

/**
 * The relative specifiers a module loads at run time: those of `import … from`, `import '…'` and
 * `export … from` declarations that are not type-only, and of `import('…')` calls with a literal
 * argument. Package specifiers, type-only imports and computed `import()` arguments are left out.
 * @param source TypeScript or JavaScript text.
 * @param fileName used only to pick the parser's language (`.ts` default, `.js` for JavaScript).
 * @returns the specifiers in source order, each once, e.g. `['../errors.js', './ids.js']`.
 */
export function runtimeImports(source: string, fileName = 'module.ts'): string[] {
  const kind = /\.[cm]?js$/.test(fileName) ? ts.ScriptKind.JS : ts.ScriptKind.TS;
  const file = ts.createSourceFile(fileName, source, ts.ScriptTarget.Latest, false, kind);
  const found = new Set<string>();
  const add = (node: ts.Node | undefined) => {
    if (node && ts.isStringLiteralLike(node) && node.text.startsWith('.')) found.add(node.text);
  };
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node)) {
      if (!node.importClause?.isTypeOnly) add(node.moduleSpecifier);
    } else if (ts.isExportDeclaration(node)) {
      if (!node.isTypeOnly) add(node.moduleSpecifier);
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      add(node.arguments[0]);
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return [...found];
}

/**
 * The file a relative specifier names, as TypeScript's `NodeNext` resolution finds it in this
 * repository: `./x.js` is `./x.ts` when that exists (else `./x.js`), a specifier with an extension
 * is itself, one without is `x.ts` or `x/index.ts`.
 * @param from the importing file, relative to the repository root with `/` separators.
 * @param specifier a relative specifier (`./x.js`, `../y.ts`).
 * @param exists whether a repository-relative path is a file.
 * @returns the repository-relative path, or `undefined` when no candidate exists.
 */
export function resolveSpecifier(from: string, specifier: string, exists: (file: string) => boolean): string | undefined {
  const base = join(dirname(from), specifier).split(sep).join('/');
  const candidates = /\.[cm]?js$/.test(base)
    ? [base.replace(/\.([cm]?)js$/, '.$1ts'), base]
    : /\.[cm]?ts$|\.json$/.test(base)
      ? [base]
      : [`${base}.ts`, `${base}/index.ts`];
  return candidates.find(exists);
}

/**
 * Every file reached from `starts` through `importsOf`, the starts included.
 * @param starts repository-relative paths.
 * @param importsOf the repository-relative files a file imports at run time.
 */
export function importClosure(starts: readonly string[], importsOf: (file: string) => readonly string[]): Set<string> {
  const seen = new Set<string>();
  const queue = [...starts];
  for (let file = queue.pop(); file !== undefined; file = queue.pop()) {
    if (seen.has(file)) continue;
    seen.add(file);
    queue.push(...importsOf(file));
  }
  return seen;
}

/**
 * The test files that reach one of `modules`: those whose run-time import closure holds it. A test
 * that loads a module only by a computed path (such as the local server's `import()` of an entry
 * file by name) does not count, since nothing in its source names the module.
 * @param modules repository-relative source files, e.g. `['api/_lib/ledger/chain.ts']`.
 * @param tests repository-relative test files to choose from.
 * @param importsOf the repository-relative files a file imports at run time (see {@link sourceGraph}).
 * @returns the chosen test files, in the order of `tests`.
 */
export function testsReaching(
  modules: readonly string[],
  tests: readonly string[],
  importsOf: (file: string) => readonly string[],
): string[] {
  return tests.filter((test) => {
    const reached = importClosure([test], importsOf);
    return modules.some((m) => reached.has(m));
  });
}

/**
 * {@link sourceGraph}'s imports cut down to those of test files and test helpers (`test/**`): with it,
 * {@link testsReaching} chooses the tests that import a module themselves or through a helper.
 * @param importsOf the full import graph.
 */
export function testImportsOnly(importsOf: (file: string) => readonly string[]): (file: string) => readonly string[] {
  return (file) => (file.startsWith('test/') ? importsOf(file) : []);
}

/**
 * The run-time imports of the repository's files, read from disk and parsed on first use.
 * @param root the repository root; default this repository's.
 * @returns `importsOf(file)`: the repository-relative files `file` imports ({@link runtimeImports},
 *   resolved with {@link resolveSpecifier}); `[]` for a file that does not exist or is not code.
 */
export function sourceGraph(root: string = ROOT): (file: string) => readonly string[] {
  const cache = new Map<string, readonly string[]>();
  const exists = (file: string) => existsSync(join(root, file)) && statSync(join(root, file)).isFile();
  return (file) => {
    let imports = cache.get(file);
    if (imports === undefined) {
      imports =
        /\.[cm]?[jt]s$/.test(file) && exists(file)
          ? runtimeImports(readFileSync(join(root, file), 'utf8'), file).flatMap((s) => resolveSpecifier(file, s, exists) ?? [])
          : [];
      cache.set(file, imports);
    }
    return imports;
  };
}

/**
 * The test files of a vitest `include`/`exclude` pair, found on disk.
 * @param include globs relative to `root` (e.g. `test/**\/*.test.ts`).
 * @param exclude globs relative to `root`; a file matching one is left out.
 * @param root the repository root; default this repository's.
 * @returns repository-relative paths with `/` separators, sorted.
 */
export function testFiles(include: readonly string[], exclude: readonly string[], root: string = ROOT): string[] {
  const included = picomatch([...include]);
  const excluded = picomatch([...exclude]);
  const found = new Set<string>();
  for (const glob of include) {
    const base = picomatch.scan(glob).base;
    if (!existsSync(join(root, base))) continue;
    for (const entry of readdirSync(join(root, base), { recursive: true, withFileTypes: true })) {
      if (!entry.isFile()) continue;
      const file = relative(root, join(entry.parentPath, entry.name)).split(sep).join('/');
      if (included(file) && !excluded(file)) found.add(file);
    }
  }
  return [...found].sort();
}

/** Names a test file uses when it reads the catalogs that `test/global-setup.ts` builds. */
const TEST_BUILD_NAMES = /\b(SAMPLE_OUT|REAL_OUT)\b|test-builds/;

/**
 * Whether any of `files` (other than `test/helpers/catalog.ts`, which names the build folders) reads
 * the test builds of the global setup; a run whose tests read none skips that setup (two whole builds).
 * @param files repository-relative paths, e.g. an {@link importClosure} of the chosen tests.
 * @param read the text of a repository-relative file.
 */
export function readsTestBuilds(files: Iterable<string>, read: (file: string) => string): boolean {
  for (const file of files) if (file !== 'test/helpers/catalog.ts' && TEST_BUILD_NAMES.test(read(file))) return true;
  return false;
}

/**
 * The text of a scoped run's vitest config: the test settings of `vitest.stryker.config.ts` with
 * `include` set to `tests`, and without the global setup when `globalSetup` is false.
 * @param tests repository-relative test files.
 * @param globalSetup whether the run needs the test builds of `test/global-setup.ts`.
 */
export function scopedVitestConfig(tests: readonly string[], globalSetup: boolean): string {
  const test = { ...strykerVitest.test, include: [...tests], ...(globalSetup ? {} : { globalSetup: [] }) };
  return `// Written by dev/mutate.ts for one scoped mutation run, removed when it ends (docs/mutation.md).\nexport default ${JSON.stringify({ test }, null, 2)};\n`;
}

/** A parsed command line: the modules (empty for the whole project) and the options. */
interface Args {
  readonly modules: readonly string[];
  readonly coverage: Coverage | undefined;
  readonly direct: boolean;
  /** Globs of test files left out of a scoped run. */
  readonly skip: readonly string[];
  readonly concurrency: number | undefined;
  readonly dryRun: boolean;
  readonly list: boolean;
  readonly help: boolean;
}

/**
 * Parse the arguments after the script name.
 * @throws Error with the reason when an option is unknown or a value is out of range.
 */
function parse(argv: readonly string[]): Args {
  const { values, positionals } = parseArgs({
    args: [...argv],
    allowPositionals: true,
    strict: true,
    options: {
      coverage: { type: 'string' },
      concurrency: { type: 'string' },
      'dry-run': { type: 'boolean', default: false },
      list: { type: 'boolean', default: false },
      direct: { type: 'boolean', default: false },
      skip: { type: 'string', multiple: true, default: [] },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  const coverage = values.coverage;
  if (coverage !== undefined && !(COVERAGE_MODES as readonly string[]).includes(coverage))
    throw new Error(`--coverage must be one of ${COVERAGE_MODES.join(', ')}, not "${coverage}".`);
  const concurrency = values.concurrency === undefined ? undefined : Number(values.concurrency);
  if (concurrency !== undefined && !(Number.isInteger(concurrency) && concurrency >= 1))
    throw new Error(`--concurrency must be a whole number of at least 1, not "${values.concurrency}".`);
  for (const flag of ['list', 'direct'] as const)
    if (values[flag] && positionals.length === 0) throw new Error(`--${flag} needs a module.`);
  if (values.skip.length > 0 && positionals.length === 0) throw new Error('--skip needs a module.');
  return {
    modules: positionals,
    coverage: coverage as Coverage | undefined,
    direct: values.direct,
    skip: values.skip,
    concurrency,
    dryRun: values['dry-run'],
    list: values.list,
    help: values.help,
  };
}

/** The parts of `stryker.config.json` this script reads. */
interface StrykerConfig {
  readonly mutate: readonly string[];
}

/**
 * A module argument checked against the mutated set: its repository-relative path (line range kept).
 * @throws Error when the file does not exist or `stryker.config.json` does not mutate it.
 */
function moduleArg(arg: string, config: StrykerConfig, root: string): { file: string; mutate: string } {
  const [, path = arg, range = ''] = /^(.*?)(:\d+(?:-\d+)?)?$/.exec(arg) ?? [];
  const file = relative(root, isAbsolute(path) ? path : resolve(root, path))
    .split(sep)
    .join('/');
  if (!existsSync(join(root, file)) || !statSync(join(root, file)).isFile()) throw new Error(`${arg}: no such file.`);
  if (!picomatch([...config.mutate])(file))
    throw new Error(`${file} is not in the mutated set of stryker.config.json (${config.mutate.join(', ')}).`);
  return { file, mutate: `${file}${range}` };
}

/** What {@link main} writes to and runs; the defaults are the process's and Stryker's. */
export interface MutateIo {
  /** Standard output. */
  readonly out?: (text: string) => void;
  /** Standard error. */
  readonly err?: (text: string) => void;
  /** Runs Stryker with options layered over `stryker.config.json`; rejects when the run fails. */
  readonly stryker?: (options: Record<string, unknown>) => Promise<void>;
}

async function runStryker(options: Record<string, unknown>): Promise<void> {
  const { Stryker } = await import('@stryker-mutator/core');
  await new Stryker(options).runMutationTest();
}

/**
 * Run the command line over `argv` (the arguments after the script name), from the repository root.
 * @returns the exit code (see the file's comment).
 */
export async function main(argv: readonly string[], io: MutateIo = {}): Promise<number> {
  const out = io.out ?? ((t: string) => void process.stdout.write(t));
  const err = io.err ?? ((t: string) => void process.stderr.write(t));
  const stryker = io.stryker ?? runStryker;
  const config = JSON.parse(readFileSync(join(ROOT, 'stryker.config.json'), 'utf8')) as StrykerConfig;
  let args: Args;
  let targets: { file: string; mutate: string }[];
  try {
    args = parse(argv);
    if (args.help) {
      out(USAGE);
      return 0;
    }
    targets = args.modules.map((m) => moduleArg(m, config, ROOT));
  } catch (e) {
    err(`${(e as Error).message}\n\n${USAGE}`);
    return 2;
  }
  const options: Record<string, unknown> = {
    ...(args.coverage ? { coverageAnalysis: args.coverage } : {}),
    ...(args.concurrency ? { concurrency: args.concurrency } : {}),
    ...(args.dryRun ? { dryRunOnly: true } : {}),
  };
  let scopedConfig: string | undefined;
  if (targets.length > 0) {
    const importsOf = sourceGraph(ROOT);
    const reaching = args.direct ? testImportsOnly(importsOf) : importsOf;
    const test = strykerVitest.test ?? {};
    const candidates = testFiles(test.include ?? [], test.exclude ?? [], ROOT);
    const skipped = picomatch([...args.skip]);
    const tests = testsReaching(
      targets.map((t) => t.file),
      candidates,
      reaching,
    ).filter((t) => args.skip.length === 0 || !skipped(t));
    const left = testsReaching(
      targets.map((t) => t.file),
      Object.keys(SANDBOX_EXCLUDED),
      reaching,
    );
    if (args.list) {
      out(tests.map((t) => `${t}\n`).join(''));
      for (const t of left) err(`left out: ${t} (${SANDBOX_EXCLUDED[t]})\n`);
      return tests.length > 0 ? 0 : 1;
    }
    if (tests.length === 0) {
      err(`No test file imports ${targets.map((t) => t.file).join(', ')}: no test can kill its mutants.\n`);
      return 1;
    }
    const builds = readsTestBuilds(importClosure(tests, importsOf), (f) => readFileSync(join(ROOT, f), 'utf8'));
    scopedConfig = `vitest.mutate-${process.pid}.config.ts`;
    writeFileSync(join(ROOT, scopedConfig), scopedVitestConfig(tests, builds));
    out(
      `Mutating ${targets.map((t) => t.mutate).join(', ')} against ${tests.length} test file(s)` +
        `${builds ? ' and the test builds' : ''}: ${tests.join(', ')}\n` +
        left.map((t) => `Left out: ${t} (${SANDBOX_EXCLUDED[t]})\n`).join(''),
    );
    Object.assign(options, { mutate: targets.map((t) => t.mutate), vitest: { configFile: scopedConfig, related: false } });
  }
  const started = Date.now();
  try {
    await stryker(options);
  } catch (e) {
    err(`Stryker failed: ${(e as Error).message}\n`);
    return 1;
  } finally {
    if (scopedConfig) rmSync(join(ROOT, scopedConfig), { force: true });
  }
  const s = Math.round((Date.now() - started) / 1000);
  out(`Mutation run finished in ${Math.floor(s / 60)} min ${s % 60} s.\n`);
  return 0;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  process.chdir(ROOT);
  void main(process.argv.slice(2)).then((code) => process.exit(code));
}
