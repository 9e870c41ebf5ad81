/**
 * Export under load (spec 4.4 `GET /api/export`; docs/architecture.md, "Scale"): the local server
 * (`dev/server.ts`, the routing of production) in a child process serves a built catalog, and
 * `autocannon` holds 50 connections for 15 s against two URLs in turn:
 *
 * - the function: `/api/export?type=<largest>&format=csv`, the unfiltered export, which the build
 *   prebuilds and the function sends unchanged;
 * - the floor: the same bytes as a static file (`/api/v1/exports/full/<type>.csv`).
 *
 * Both answers are checked byte-identical before the run. The table shows requests per second,
 * latency p50/p99 (ms), throughput (MiB/s), non-2xx answers and errors, and the function's share of the
 * floor's rate (target at least 50 %).
 *
 * Standalone: `npx tsx bench/load.ts [--seconds N] [--connections N] [dist ...]` (default: the real
 * snapshot's build under `.tmp/bench/real/dist`, else the sample's).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { freePort } from '../test/helpers/redis.js';

const REPO = resolve(import.meta.dirname, '..');
const TMP = join(REPO, '.tmp/bench');

/** Load settings: connections held open and seconds per URL (defaults 50 and 15). */
export interface LoadOptions {
  readonly connections?: number;
  readonly seconds?: number;
}

/** One URL's load result. */
interface LoadRow {
  readonly label: string;
  readonly path: string;
  readonly bytes: number;
  readonly rps: number;
  readonly p50: number;
  readonly p99: number;
  readonly mibPerS: number;
  readonly non2xx: number;
  readonly errors: number;
}

/** Start the local server on `dist` without a build; resolves with its base URL and the child. */
async function startLocalServer(dist: string, dataDir: string): Promise<{ url: string; child: ChildProcess }> {
  const port = await freePort();
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', join(REPO, 'dev/server.ts'), '--out', dist, '--no-build', '--port', String(port)],
    {
      cwd: REPO,
      env: { ...process.env, DATA_DIR: dataDir, NODE_ENV: 'production' },
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  const url = await new Promise<string>((ok, fail) => {
    let out = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /Serving .* on (http:\/\/\S+)/.exec(out);
      if (m) ok(m[1]!.replace('localhost', '127.0.0.1'));
    });
    child.once('exit', (code) => fail(new Error(`the local server exited ${code} before listening`)));
  });
  child.stdout.resume();
  return { url, child };
}

/** The export type with the largest prebuilt CSV in `dist`, with its size. */
function largestCsv(dist: string): { type: string; bytes: number } | undefined {
  const dir = join(dist, 'api/v1/exports/full');
  if (!existsSync(dir)) return undefined;
  return readdirSync(dir)
    .filter((f) => f.endsWith('.csv'))
    .map((f) => ({ type: f.replace(/\.csv$/, ''), bytes: statSync(join(dir, f)).size }))
    .sort((a, b) => b.bytes - a.bytes)[0];
}

async function load(base: string, label: string, path: string, bytes: number, o: Required<LoadOptions>): Promise<LoadRow> {
  const r = await autocannon({ url: base + path, connections: o.connections, duration: o.seconds });
  return {
    label,
    path,
    bytes,
    rps: r.requests.average,
    p50: r.latency.p50,
    p99: r.latency.p99,
    mibPerS: r.throughput.average / 1048576,
    non2xx: r.non2xx,
    errors: r.errors,
  };
}

/** Markdown section: the function beside the static file, per catalog. */
export async function run(dists?: readonly string[], options: LoadOptions = {}): Promise<string> {
  const o = { connections: options.connections ?? 50, seconds: options.seconds ?? 15 };
  const targets = dists ?? [join(TMP, 'real', 'dist'), join(TMP, 'sample', 'dist')].filter((d) => existsSync(d)).slice(0, 1);
  const lines = [
    '## Export under load',
    '',
    `The local server in a child process; \`autocannon\` with ${o.connections} connections for ${o.seconds} s per URL (in this process, on the same machine). Floor: the same bytes as a static file. Target: the function at least 50 % of the floor's rate.`,
    '',
    '| catalog | URL | body | req/s | p50 ms | p99 ms | MiB/s | non-2xx | errors | share of floor |',
    '|---|---|---:|---:|---:|---:|---:|---:|---:|---:|',
  ];
  for (const dist of targets) {
    const csv = largestCsv(dist);
    if (!csv) continue;
    const dataDir = mkdtempSync(join(tmpdir(), 'bench-load-'));
    const { url, child } = await startLocalServer(dist, dataDir);
    try {
      const fn = `/api/export?type=${csv.type}&format=csv`;
      const file = `/api/v1/exports/full/${csv.type}.csv`;
      const [a, b] = await Promise.all([fn, file].map(async (p) => Buffer.from(await (await fetch(url + p)).arrayBuffer())));
      if (!a!.equals(b!)) throw new Error(`${fn} and ${file} answer different bytes`);
      const floor = await load(url, 'static file', file, b!.length, o);
      const ours = await load(url, 'function', fn, a!.length, o);
      const name = dist.split('/').slice(-2, -1)[0] ?? dist;
      for (const r of [floor, ours]) {
        lines.push(
          `| ${name} | ${r.label} \`${r.path}\` | ${(r.bytes / 1024).toFixed(0)} KiB | ${r.rps.toFixed(0)} | ${r.p50} | ${r.p99} | ${r.mibPerS.toFixed(1)} | ${r.non2xx} | ${r.errors} | ${r === ours ? `${((ours.rps / floor.rps) * 100).toFixed(0)} %` : '100 %'} |`,
        );
      }
    } finally {
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
      rmSync(dataDir, { recursive: true, force: true });
    }
  }
  return lines.join('\n');
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const { values, positionals } = parseArgs({
    options: { seconds: { type: 'string' }, connections: { type: 'string' } },
    allowPositionals: true,
  });
  const options = {
    ...(values.seconds ? { seconds: Number(values.seconds) } : {}),
    ...(values.connections ? { connections: Number(values.connections) } : {}),
  };
  process.stdout.write((await run(positionals.length ? positionals.map((p) => resolve(p)) : undefined, options)) + '\n');
}
