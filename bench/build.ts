/**
 * Catalog build benchmark: one build per child process (so peak memory is the build's own), beside
 * a floor measured in another child: `JSON.parse` of every input file plus `JSON.stringify` of every
 * output file the build produced. Peak memory is each child's own peak resident set (`bench/memory.ts`).
 *
 * Child usage (internal): `node --import tsx bench/build.ts build <src> <out> [config]` and
 * `node --import tsx bench/build.ts floor <src> <out>`; each prints one JSON line.
 */
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import { peakRssBytes } from './memory.js';

/** The part of the build entry the benchmark relies on. */
interface BuildEntry {
  buildCatalog(options: { src: string; out: string; config?: string; site: false; reportFile?: false }): Promise<{
    ok: boolean;
    issues: readonly unknown[];
    stats: { files: number; records: number; warnings: number; errors: number; seconds: number };
  }>;
}

/** Numbers of one build child. */
export interface BuildRun {
  readonly ok: boolean;
  readonly seconds: number;
  readonly files: number;
  readonly records: number;
  readonly errors: number;
  readonly warnings: number;
  readonly maxRssMB: number;
  /** Every file the build wrote (any type) and their bytes: what a deployment uploads. */
  readonly outputFiles: number;
  readonly outputBytes: number;
}

/** Numbers of one floor child. */
export interface FloorRun {
  readonly seconds: number;
  readonly inputFiles: number;
  readonly outputFiles: number;
  readonly inputBytes: number;
  readonly outputBytes: number;
  readonly maxRssMB: number;
}

/** Result of {@link benchBuild}: the build and its floor, or why the build could not run. */
export type BuildBench = { readonly build: BuildRun; readonly floor: FloorRun | { error: string } } | { readonly error: string };

/** Files under `dir` (sorted walk) whose name passes `keep`. */
function filesUnder(dir: string, keep: (name: string) => boolean): string[] {
  const out: string[] = [];
  const walk = (d: string): void => {
    for (const name of readdirSync(d).sort()) {
      const p = join(d, name);
      if (statSync(p).isDirectory()) walk(p);
      else if (keep(name)) out.push(p);
    }
  };
  walk(dir);
  return out;
}

const jsonFiles = (dir: string): string[] => filesUnder(dir, (name) => name.endsWith('.json'));

const maxRssMB = (): number => peakRssBytes() / 1048576;

async function childBuild(src: string, out: string, config: string | undefined): Promise<BuildRun> {
  const mod = (await import('../build/pipeline/index.js')) as unknown as BuildEntry;
  const t0 = performance.now();
  const report = await mod.buildCatalog({ src, out, config, site: false, reportFile: false });
  const seconds = (performance.now() - t0) / 1000;
  const { files, records, errors, warnings } = report.stats;
  const written = filesUnder(out, () => true);
  return {
    ok: report.ok,
    seconds,
    files,
    records,
    errors,
    warnings,
    maxRssMB: maxRssMB(),
    outputFiles: written.length,
    outputBytes: written.reduce((a, f) => a + statSync(f).size, 0),
  };
}

function childFloor(src: string, out: string): FloorRun {
  const inputs = jsonFiles(src).map((f) => readFileSync(f, 'utf8'));
  // the versioned copies under v/ are copies of outputs, not outputs serialised again
  const outputs = jsonFiles(out)
    .filter((f) => !f.startsWith(join(out, 'v') + sep))
    .map((f) => readFileSync(f, 'utf8'));
  const values: unknown[] = [];
  for (const text of outputs) {
    try {
      values.push(JSON.parse(text));
    } catch {
      // not JSON after all: nothing to stringify
    }
  }
  const t0 = performance.now();
  for (const text of inputs) {
    try {
      JSON.parse(text);
    } catch {
      // a broken input file costs its failed parse
    }
  }
  for (const v of values) JSON.stringify(v);
  const seconds = (performance.now() - t0) / 1000;
  const bytes = (xs: string[]): number => xs.reduce((a, t) => a + Buffer.byteLength(t), 0);
  return {
    seconds,
    inputFiles: inputs.length,
    outputFiles: values.length,
    inputBytes: bytes(inputs),
    outputBytes: bytes(outputs),
    maxRssMB: maxRssMB(),
  };
}

function runChild(args: readonly string[], heapMB?: number): Promise<unknown> {
  return new Promise((resolveRun, reject) => {
    const heap = heapMB ? [`--max-old-space-size=${heapMB}`] : [];
    const child = spawn(process.execPath, [...heap, '--import', 'tsx', import.meta.filename, ...args], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (b: Buffer) => (stdout += b.toString()));
    child.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
    child.on('error', reject);
    child.on('exit', () => {
      const line = stdout.trim().split('\n').pop() ?? '';
      try {
        resolveRun(JSON.parse(line));
      } catch {
        resolveRun({ error: (stderr.trim().split('\n').slice(-3).join(' ') || 'no answer').slice(0, 300) });
      }
    });
  });
}

/**
 * Build `src` into `out` in a child process, then measure the floor over the same input and the
 * produced output in another child (`heapMB`: both children's old-space limit, default Node's). Never
 * throws: a missing build entry or a crash becomes `{error}`.
 */
export async function benchBuild(src: string, out: string, config?: string, heapMB?: number): Promise<BuildBench> {
  const build = (await runChild(['build', src, out, ...(config ? [config] : [])], heapMB)) as BuildRun | { error: string };
  if ('error' in build) return build;
  const floor = (await runChild(['floor', src, out], heapMB)) as FloorRun | { error: string };
  return { build, floor };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const [mode, src, out, config] = process.argv.slice(2);
  const answer = async (): Promise<unknown> => {
    if (!src || !out) return { error: 'usage: build|floor <src> <out> [config]' };
    try {
      if (mode === 'build') return await childBuild(src, out, config);
      if (mode === 'floor') return childFloor(src, out);
      return { error: `unknown mode ${String(mode)}` };
    } catch (e) {
      return { error: e instanceof Error ? e.message.split('\n')[0] : String(e) };
    }
  };
  void answer().then((a) => process.stdout.write(JSON.stringify(a) + '\n'));
}
