/**
 * The documents name only what exists: README.md and every docs/**\/*.md are read, and this test fails on
 * - a **path** of the repository that does not exist: a backticked span, a token of a code block or a Markdown
 *   link whose first segment is a top-level entry of the repository (`api/_lib/config.ts`, `schemas/…`,
 *   `test/…/`, `package.json`); links resolve against the document's folder. `{a,b}` is expanded (each
 *   alternative must exist), `{key}`, `<name>` and `*` match any name, `:12-40` line suffixes are dropped;
 *   a test file may be named by its path under `test/` without `.test.ts` (`build/law`, `site/admin-state`);
 *   spans with `…` (an elided path) and the few examples of files one would add (`HYPOTHETICAL`) are skipped;
 * - an **`npm run <script>`** that package.json lacks;
 * - an **environment variable** the code does not read: an UPPER_SNAKE name alone in backticks (`RATE_LIMIT_*`
 *   matches by prefix) or set as `NAME=value` in text or shell, looked up in the source of api/, dev/, build/,
 *   bench/ and test/helpers/. Upper-case names that are not variables but live in that code or in site/ (error
 *   codes, constants) pass the same way; studio ids (`STUDIO_…`) are data, never variables, and are skipped.
 * A fixture document with one wrong name of each kind proves that each check fails.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, posix, relative } from 'node:path';
import picomatch from 'picomatch';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../helpers/catalog.js';

/** Folders never part of the repository's content (build output, stores, caches, dependencies). */
const IGNORED = new Set(['node_modules', '.git', '.tmp', '.data', 'dist', 'reports', '.stryker-tmp', 'coverage']);
/** Where the code that reads environment variables lives. */
const CODE_DIRS = ['api', 'dev', 'build', 'bench', 'test/helpers'];
/** Where the constants documents name live besides (the browser pages read no variable). */
const CONSTANT_DIRS = ['site'];
/** Files a document names as an example of what one would add (docs/architecture.md, "How to add a store adapter"). */
const HYPOTHETICAL = new Set(['api/_lib/ledger/postgres.ts', 'test/ledger/postgres.contract.test.ts']);
/** Paths that name the published catalog's layout (`api/v1/…` of the build output), not the repository. */
const OUTPUT_PREFIXES = ['api/v1/', 'api/openapi.json'];

/** What the checks compare against. */
export interface RepoFacts {
  /** Every file of the repository, relative, `/`-separated. */
  readonly files: readonly string[];
  /** The scripts of package.json. */
  readonly scripts: ReadonlySet<string>;
  /** The text of the code that may read a variable. */
  readonly code: string;
}

function walk(dir: string, out: string[]): void {
  for (const name of readdirSync(dir)) {
    if (IGNORED.has(name)) continue;
    const full = join(dir, name);
    if (statSync(full).isDirectory()) walk(full, out);
    else out.push(relative(REPO_ROOT, full).split('\\').join('/'));
  }
}

/** The facts of this repository. */
export function repoFacts(): RepoFacts {
  const files: string[] = [];
  walk(REPO_ROOT, files);
  const pkg = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
  const code = files
    .filter((f) => [...CODE_DIRS, ...CONSTANT_DIRS].some((d) => f.startsWith(`${d}/`)) && /\.(ts|js|mjs)$/.test(f))
    .map((f) => readFileSync(join(REPO_ROOT, f), 'utf8'))
    .join('\n');
  return { files, scripts: new Set(Object.keys(pkg.scripts)), code };
}

/** `a/{b,c}/d` → [`a/b/d`, `a/c/d`]; a brace without a comma is a placeholder and stays. */
function expandBraces(path: string): string[] {
  const m = /\{([^{}]*,[^{}]*)\}/.exec(path);
  if (!m) return [path];
  return m[1]!.split(',').flatMap((alt) => expandBraces(path.slice(0, m.index) + alt + path.slice(m.index + m[0].length)));
}

/** The problem with one path-like reference (relative to the repository root), or undefined. */
function pathProblem(path: string, facts: RepoFacts): string | undefined {
  if (HYPOTHETICAL.has(path)) return undefined;
  for (const alt of expandBraces(path)) {
    const glob = alt
      .replace(/\/$/, '')
      .replace(/\{[^{}/]*\}|<[^<>/]*>/g, '*')
      .replace(/\*\*+/g, '**');
    const isMatch = picomatch(glob, { dot: true });
    const segments = glob.split('/').length;
    // a file the glob names, or a folder: the first segments of a deeper file
    const hit = facts.files.some((f) => isMatch(f) || (f.split('/').length > segments && isMatch(dirOf(f, segments))));
    // a test file named by its path under test/ without `.test.ts` (docs/mutation.md's tables)
    const test = picomatch([`test/${glob}{,-*}.test.ts`, `${glob}{,-*}.test.ts`]);
    if (!hit && !facts.files.some((f) => test(f))) return `no such file or folder: ${alt}`;
  }
  return undefined;
}

/** The first `segments` segments of `file` (a folder it is in). */
function dirOf(file: string, segments: number): string {
  return file.split('/').slice(0, segments).join('/');
}

/** A token cleaned of the punctuation prose puts around it. */
function clean(token: string): string {
  return token.replace(/^[("'[]+/, '').replace(/[)"'\],;.:]+$/, '');
}

/** True when `text` (relative to the root) starts with a top-level entry of the repository. */
function rootedInRepo(text: string, facts: RepoFacts): boolean {
  if (OUTPUT_PREFIXES.some((p) => text.startsWith(p))) return false;
  const first = text.split('/')[0]!;
  if (first === '' || first === '.' || first === '..') return false;
  if (!text.includes('/')) return facts.files.includes(first) && /\.[a-z]+$/.test(first);
  return facts.files.some((f) => f.startsWith(`${first}/`));
}

/** A candidate path with its line suffix (`:12`, `:12-40`) dropped, or undefined when it is no path. */
function asPath(raw: string, facts: RepoFacts): string | undefined {
  const text = raw.replace(/:\d+(-\d+)?$/, '');
  if (text.includes('…') || /\s/.test(text) || text.includes('$') || text.includes('://')) return undefined;
  if (!/^[\w.{}<>*,/@+-]+$/.test(text)) return undefined;
  return rootedInRepo(text, facts) ? text : undefined;
}

/** Every problem of one document: `<file>:<line>: <what>`. */
export function referenceProblems(markdown: string, file: string, facts: RepoFacts): string[] {
  const problems: string[] = [];
  const lines = markdown.split('\n');
  let fence = false;
  const checkPath = (raw: string, at: number): void => {
    const path = asPath(raw, facts);
    const problem = path === undefined ? undefined : pathProblem(path, facts);
    if (problem) problems.push(`${file}:${at}: ${problem}`);
  };
  const checkVariable = (name: string, at: number): void => {
    if (name.startsWith('STUDIO_')) return;
    const found = name.endsWith('*')
      ? new RegExp(`\\b${name.slice(0, -1)}[A-Z0-9_]*\\b`).test(facts.code)
      : new RegExp(`\\b${name}\\b`).test(facts.code);
    if (!found) problems.push(`${file}:${at}: no code reads the environment variable ${name}`);
  };
  lines.forEach((line, i) => {
    const at = i + 1;
    if (/^\s*```/.test(line)) {
      fence = !fence;
      return;
    }
    for (const m of line.matchAll(/npm run(?:\s+-s)?\s+([a-z][\w:-]*)/g)) {
      if (!facts.scripts.has(m[1]!)) problems.push(`${file}:${at}: package.json has no script "${m[1]}"`);
    }
    for (const m of line.matchAll(/(?:^|[\s`'"(;&|])([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)=/g)) checkVariable(m[1]!, at);
    if (fence) {
      for (const token of line.split(/\s+/)) checkPath(clean(token), at);
      return;
    }
    for (const m of line.matchAll(/`([^`]+)`/g)) {
      const span = m[1]!;
      if (/^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+\*?$/.test(span) || /^[A-Z][A-Z0-9]*_\*$/.test(span)) checkVariable(span, at);
      else checkPath(span, at);
    }
    for (const m of line.matchAll(/\]\(([^)\s]+)\)/g)) {
      const target = m[1]!.split('#')[0]!;
      if (target === '' || /^[a-z]+:/.test(target)) continue;
      const path = posix.normalize(posix.join(posix.dirname(file), target));
      if (path.startsWith('..')) continue;
      const problem = pathProblem(path, facts);
      if (problem) problems.push(`${file}:${at}: link: ${problem}`);
    }
  });
  return problems;
}

const facts = repoFacts();
const documents = facts.files.filter((f) => f === 'README.md' || (f.startsWith('docs/') && f.endsWith('.md'))).sort();

describe('the reference checker', () => {
  it('passes a document that names what exists', () => {
    const good = [
      'The rules live in `api/_lib/config.ts` and the schemas in `schemas/requests/`; see [the map](architecture.md)',
      'and `schemas/requests/storage-{upload,presign}.schema.json`, `api/<entry>.ts`, `test/player/*`,',
      '`api/_lib/search/engine.ts:180-240`, `api/v1/changes.json` (an output path), `test/helpers/…`.',
      'Run `npm run build` or `npm run -s token`; set `JWT_SECRET` or `RATE_LIMIT_*`; `STUDIO_OPERATOR` is data.',
      '```sh',
      'CRON_SECRET=some-secret npm start -- --config test/real-snapshot/catalog.config.json',
      '```',
    ].join('\n');
    expect(referenceProblems(good, 'docs/fixture.md', facts)).toEqual([]);
  });

  it('fails on a wrong path, script, variable and link, each named with its line', () => {
    const bad = [
      'The rules live in `api/_lib/confg.ts`.',
      'Run `npm run buidl` first.',
      'Start with `NOT_A_REAL_VARIABLE` set, or:',
      '```sh',
      'ALSO_NOT_READ_ANYWHERE=1 npm start -- --config test/real-snapshot/missing.json',
      '```',
      'See [the guide](guides/nowhere.md) and `schemas/requests/storage-{upload,nope}.schema.json`.',
    ].join('\n');
    expect(referenceProblems(bad, 'docs/fixture.md', facts)).toEqual([
      'docs/fixture.md:1: no such file or folder: api/_lib/confg.ts',
      'docs/fixture.md:2: package.json has no script "buidl"',
      'docs/fixture.md:3: no code reads the environment variable NOT_A_REAL_VARIABLE',
      'docs/fixture.md:5: no code reads the environment variable ALSO_NOT_READ_ANYWHERE',
      'docs/fixture.md:5: no such file or folder: test/real-snapshot/missing.json',
      'docs/fixture.md:7: no such file or folder: schemas/requests/storage-nope.schema.json',
      'docs/fixture.md:7: link: no such file or folder: docs/guides/nowhere.md',
    ]);
  });
});

describe('README.md and docs/**/*.md', () => {
  it('are found', () => {
    expect(documents).toContain('README.md');
    expect(documents).toContain('docs/architecture.md');
  });

  it.each(documents)('%s names only files, scripts and variables that exist', (doc) => {
    const text = readFileSync(join(REPO_ROOT, doc), 'utf8');
    expect(referenceProblems(text, doc, facts)).toEqual([]);
  });
});
