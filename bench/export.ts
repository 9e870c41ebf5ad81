/**
 * Export benchmark (spec 4.4 `GET /api/export`): for each benchmarked catalog output
 * (`.tmp/bench/<catalog>/dist`, written by the build section of `bench/run.ts`), the largest export
 * type is exported in full as CSV and as JSON through the real handler, in a child process each, and
 * the table shows seconds (request → last byte), response bytes and the child's peak RSS.
 *
 * Child usage (internal): `node --import tsx bench/export.ts child <dist> <type> <format>`.
 * Standalone: `npx tsx bench/export.ts` (after `npm run bench` has built the catalogs).
 */
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { peakRssBytes } from './memory.js';

const REPO = resolve(import.meta.dirname, '..');
const TMP = join(REPO, '.tmp/bench');

interface ChildResult {
  readonly status: number;
  readonly seconds: number;
  readonly bytes: number;
  readonly maxRssMB: number;
}

async function child(dist: string, type: string, format: string): Promise<void> {
  const { loadServiceConfig, useServiceConfig } = await import('../api/_lib/config.js');
  const { GET } = await import('../api/catalog.js');
  useServiceConfig(loadServiceConfig({ CATALOG_DIR: dist }));
  const t0 = performance.now();
  const res = await GET(new Request(`http://bench/api/export?type=${type}&format=${format}`));
  let bytes = 0;
  if (res.body) for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) bytes += chunk.byteLength;
  const seconds = (performance.now() - t0) / 1000;
  const result: ChildResult = { status: res.status, seconds, bytes, maxRssMB: peakRssBytes() / 1048576 };
  process.stdout.write(JSON.stringify(result) + '\n');
}

function runChild(dist: string, type: string, format: string): Promise<ChildResult> {
  return new Promise((resolveRun, reject) => {
    const p = spawn(process.execPath, ['--import', 'tsx', join(REPO, 'bench/export.ts'), 'child', dist, type, format], {
      cwd: REPO,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    p.stdout.on('data', (d: Buffer) => (out += d.toString()));
    p.on('error', reject);
    p.on('close', (code) => {
      try {
        if (code !== 0) throw new Error(`export child exited ${code}`);
        resolveRun(JSON.parse(out.trim().split('\n').pop() ?? '') as ChildResult);
      } catch (e) {
        reject(e instanceof Error ? e : new Error(String(e)));
      }
    });
  });
}

/** The export type with the largest export file in `dist`, or undefined when there are none. */
function largestType(dist: string): string | undefined {
  const dir = join(dist, 'api/v1/exports');
  if (!existsSync(dir)) return undefined;
  return readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .map((f) => ({ type: f.replace(/\.json$/, ''), bytes: statSync(join(dir, f)).size }))
    .sort((a, b) => b.bytes - a.bytes)[0]?.type;
}

/** Markdown section: full export of the largest type per catalog, CSV and JSON. */
export async function run(): Promise<string> {
  const lines = [
    '## Export',
    '',
    'Full export of the largest type through the `/api/export` handler, streamed to the end, one child process per row (seconds include loading the export file once).',
    '',
    '| catalog | type | format | status | seconds | response bytes | peak RSS |',
    '|---|---|---|---:|---:|---:|---:|',
  ];
  for (const name of ['sample', 'real', 'gen-100k']) {
    const dist = join(TMP, name, 'dist');
    const type = largestType(dist);
    if (!type) continue;
    for (const format of ['csv', 'json']) {
      const r = await runChild(dist, type, format);
      lines.push(
        `| ${name} | ${type} | ${format} | ${r.status} | ${r.seconds.toFixed(2)} | ${(r.bytes / 1048576).toFixed(1)} MiB | ${r.maxRssMB.toFixed(0)} MB |`,
      );
    }
  }
  return lines.join('\n');
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const [mode, dist, type, format] = process.argv.slice(2);
  if (mode === 'child' && dist && type && format) await child(dist, type, format);
  else process.stdout.write((await run()) + '\n');
}
