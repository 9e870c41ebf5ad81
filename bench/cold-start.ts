/**
 * Cold start of every function entry (docs/architecture.md, "Scale"): a new `node` process imports the
 * entry transpiled file by file to JavaScript (as `@vercel/node` ships it: one module per source file,
 * packages from `node_modules`; `dev/transpile.ts`), answers one request, and reports. Per entry and
 * catalog: the median of 5 runs (after one unmeasured run for the file cache) of
 *
 * - `first answer ms`: from the start of the import to the last byte of the first answer, measured
 *   inside the child (what a function adds to the platform's own start);
 * - `process ms`: from spawning `node` until the child prints that answer (Node's start included);
 * - `peak RSS`: the child's peak resident set (`VmHWM` of `/proc/self/status`, as in `bench/memory.ts`,
 *   written out in the child script, which imports nothing but the entry).
 *
 * Targets (100,000 records): every entry's first answer within 200 ms and under 256 MB; the
 * collections entry within 150 ms.
 *
 * Catalogs: the real snapshot's build (`.tmp/bench/real/dist`), and at 100,000 records the real snapshot
 * with its relics replicated to 100,000 (`dev/scale-catalog.ts`, built here into
 * `.tmp/bench/relics-100k`) for the collections entry, and the build bench's generated catalog
 * (`.tmp/bench/gen-100k`, built here when missing) for the catalog and registries entries. The stateful
 * entries run twice: on the embedded SQLite store in a temporary data folder, and on the production
 * path, `@upstash/redis` over REST (a local stand-in for Upstash's REST API in front of a `redis-server`
 * on 127.0.0.1, as in the tests); the catalog size does not reach them.
 *
 * Standalone: `npx tsx bench/cold-start.ts [--runs N]`.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { transpileTree } from '../dev/transpile.js';
import { median } from './stats.js';
import { collectionIndexFile } from '../api/_lib/formats/layout.js';
import { mintToken } from '../api/_lib/auth/tokens.js';
import { loadServiceConfig } from '../api/_lib/config.js';
import { startRedis } from '../test/helpers/redis.js';
import { startUpstashRest } from '../test/helpers/upstash-rest.js';

const REPO = resolve(import.meta.dirname, '..');
const TMP = join(REPO, '.tmp/bench');
const REAL_SRC = resolve(REPO, '../shared/fixtures/objectstore/api/v1');
const REAL_CONFIG = join(REPO, 'test/real-snapshot/catalog.config.json');
const SECRET = 'bench-secret-0123456789-abcdefghijklmnop';
const PASSWORD = 'bench-admin-password-0123';

/** One request a child sends to its entry. */
interface Probe {
  readonly entry: string;
  readonly method: 'GET' | 'POST';
  readonly path: string;
  readonly headers?: Record<string, string>;
  readonly body?: string;
  /** The catalog at 100,000 records this entry is measured on besides the real snapshot, if any. */
  readonly large?: 'gen-100k' | 'relics-100k';
}

/** What a child prints. */
interface ChildAnswer {
  readonly status: number;
  readonly bytes: number;
  readonly answerMs: number;
  readonly maxRssMB: number;
}

/** The child script: import the entry, answer one request, print {@link ChildAnswer}. */
function childScript(): string {
  const file = join(TMP, 'cold-entry.mjs');
  mkdirSync(TMP, { recursive: true });
  writeFileSync(
    file,
    `const [entryFile, method, url, headers, body] = process.argv.slice(2);
const t0 = performance.now();
const mod = await import(entryFile);
const res = await mod[method](new Request(url, { method, headers: JSON.parse(headers), ...(body ? { body } : {}) }));
const bytes = (await res.arrayBuffer()).byteLength;
const answerMs = performance.now() - t0;
// VmHWM: this process's peak resident set (ru_maxrss would carry the spawning parent's peak across exec)
const hwm = /VmHWM:\\s+(\\d+) kB/.exec((await import('node:fs')).readFileSync('/proc/self/status', 'utf8'));
process.stdout.write(JSON.stringify({ status: res.status, bytes, answerMs, maxRssMB: hwm ? Number(hwm[1]) / 1024 : process.resourceUsage().maxRSS / 1024 }) + '\\n');
`,
  );
  return file;
}

function runChild(
  script: string,
  entryJs: string,
  probe: Probe,
  env: Record<string, string>,
): Promise<ChildAnswer & { processMs: number }> {
  return new Promise((ok, fail) => {
    const t0 = performance.now();
    const child = spawn(
      process.execPath,
      [
        script,
        pathToFileURL(entryJs).href,
        probe.method,
        `http://bench${probe.path}`,
        JSON.stringify(probe.headers ?? {}),
        probe.body ?? '',
      ],
      {
        env: { PATH: process.env.PATH ?? '', NODE_ENV: 'production', ...env },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let out = '';
    let err = '';
    let processMs = 0;
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      // the answer is the last thing the child prints; its exit may wait for open sockets
      if (out.endsWith('\n') && processMs === 0) processMs = performance.now() - t0;
    });
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.on('error', fail);
    child.on('exit', (code) => {
      try {
        ok({ ...(JSON.parse(out.trim().split('\n').pop() ?? '') as ChildAnswer), processMs });
      } catch {
        fail(new Error(`cold-start child for ${probe.entry} exited ${code}: ${err.trim().split('\n').slice(-2).join(' ').slice(0, 300)}`));
      }
    });
  });
}

/** Build the 100,000-relic catalog once (kept under `.tmp/bench/relics-100k`). */
async function relics100k(): Promise<string> {
  const dir = join(TMP, 'relics-100k');
  const dist = join(dir, 'dist');
  if (existsSync(join(dist, collectionIndexFile('relics')))) return dist; // absent after a format change
  const { writeScaledCatalog } = await import('../dev/scale-catalog.js');
  writeScaledCatalog({ from: REAL_SRC, out: join(dir, 'src'), records: 100_000, config: REAL_CONFIG, collections: ['relics'] });
  const { buildCatalog } = await import('../build/pipeline/index.js');
  const report = await buildCatalog({ src: join(dir, 'src'), out: dist, site: false, reportFile: false });
  if (!report.ok) throw new Error('the 100,000-relic catalog did not build');
  return dist;
}

/** The generated 100,000-record catalog of the build bench (`bench/generate.ts`), built when missing. */
async function gen100k(): Promise<string> {
  const dir = join(TMP, 'gen-100k');
  const dist = join(dir, 'dist');
  if (existsSync(join(dist, 'api/v1/game-data-manifest.json'))) return dist;
  const { GEN_SEED, generateCatalog } = await import('./generate.js');
  generateCatalog({ out: dir, records: 100_000, seed: GEN_SEED });
  const { buildCatalog } = await import('../build/pipeline/index.js');
  const report = await buildCatalog({ src: dir, out: dist, site: false, reportFile: false });
  if (!report.ok) throw new Error('the generated 100,000-record catalog did not build');
  return dist;
}

/** Medians of a cold start: the first answer and process times (ms), the peak RSS (MB), and the status. */
interface ColdStart {
  readonly status: number;
  readonly answerMs: number;
  readonly processMs: number;
  readonly maxRssMB: number;
}

/** `runs` children (after one unmeasured) answering `probe` with `entryJs` under `env`, as medians. */
async function coldRuns(script: string, entryJs: string, probe: Probe, env: Record<string, string>, runs: number): Promise<ColdStart> {
  const samples: (ChildAnswer & { processMs: number })[] = [];
  for (let i = -1; i < runs; i++) {
    const r = await runChild(script, entryJs, probe, env);
    if (i >= 0) samples.push(r);
  }
  return {
    status: samples[0]!.status,
    answerMs: median(samples.map((s) => s.answerMs)),
    processMs: median(samples.map((s) => s.processMs)),
    maxRssMB: median(samples.map((s) => s.maxRssMB)),
  };
}

/**
 * Cold start of one catalog entry over the catalog output folder `catalogDir`: `runs` new processes
 * (after one unmeasured) each import the entry as {@link run} does and answer `GET path`.
 * @returns medians of the first answer and process times (ms) and of the peak RSS (MB), and the status.
 */
export async function coldCatalogEntry(
  entry: 'catalog' | 'collections' | 'registries',
  path: string,
  catalogDir: string,
  runs = 5,
): Promise<ColdStart> {
  const js = join(TMP, 'cold-js-one');
  rmSync(js, { recursive: true, force: true });
  const entryJs = transpileTree(join(REPO, `api/${entry}.ts`), js);
  const cold = await coldRuns(childScript(), entryJs, { entry, method: 'GET', path }, { CATALOG_DIR: catalogDir }, runs);
  rmSync(js, { recursive: true, force: true });
  return cold;
}

/** Markdown section: one row per entry and catalog. */
export async function run(options: { runs?: number } = {}): Promise<string> {
  const runs = options.runs ?? 5;
  const real = join(TMP, 'real', 'dist');
  if (!existsSync(join(real, collectionIndexFile('relics')))) {
    const { buildCatalog } = await import('../build/pipeline/index.js');
    await buildCatalog({ src: REAL_SRC, out: real, config: REAL_CONFIG, site: false, reportFile: false });
  }
  const large = { 'relics-100k': await relics100k(), 'gen-100k': await gen100k() };
  const js = join(TMP, 'cold-js');
  rmSync(js, { recursive: true, force: true });
  const entries = ['catalog', 'collections', 'registries', 'wallet', 'admin', 'storage', 'player'];
  const entryJs = Object.fromEntries(entries.map((e) => [e, transpileTree(join(REPO, `api/${e}.ts`), js)]));
  // no schema files: the functions read none at run time (request validators are compiled ahead of time)
  const script = childScript();
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-cold-'));
  const baseEnv = { JWT_SECRET: SECRET, ADMIN_PASSWORD: PASSWORD, STORE_DRIVER: 'sqlite', DATA_DIR: dataDir, STORAGE_DRIVER: 'local' };
  const config = loadServiceConfig({ ...baseEnv, CATALOG_DIR: real });
  const player = `Bearer ${await mintToken(config.jwt, { subject: 'STUDIO_BENCHPLAYER', role: 'player' })}`;
  const admin = `Bearer ${await mintToken(config.jwt, { subject: 'STUDIO_BENCHADMIN', role: 'admin' })}`;
  const probes: Probe[] = [
    { entry: 'catalog', method: 'GET', path: '/api/search?q=frost&limit=20', large: 'gen-100k' },
    { entry: 'collections', method: 'GET', path: '/v1/relics?q=frost&tier=3&limit=50', large: 'relics-100k' },
    { entry: 'registries', method: 'GET', path: '/api/v1/icons/search?q=sword', large: 'gen-100k' },
    { entry: 'wallet', method: 'GET', path: '/api/wallet/overview', headers: { Authorization: player } },
    {
      entry: 'admin',
      method: 'POST',
      path: '/api/admin/accounts',
      headers: { 'X-Admin-Password': PASSWORD, 'Content-Type': 'application/json' },
      body: '{"displayName":"Bench"}',
    },
    { entry: 'storage', method: 'GET', path: '/api/storage/list?limit=10', headers: { Authorization: admin } },
    { entry: 'player', method: 'GET', path: '/api/island/spec' },
  ];
  const lines = [
    '## Cold start',
    '',
    `A new \`node\` process imports the entry transpiled file by file (as \`@vercel/node\` ships it) and answers one request; median of ${runs} after one unmeasured run. First answer: import start to last byte, inside the process; process: spawn to answer. Targets at 100,000 records: first answer ≤ 200 ms (collections ≤ 150 ms), peak RSS < 256 MB.`,
    '',
    '| entry | request | catalog or store | status | first answer ms | process ms | peak RSS |',
    '|---|---|---|---:|---:|---:|---:|',
  ];
  const redis = await startRedis();
  const rest = await startUpstashRest(redis.url);
  const restEnv = { STORE_DRIVER: 'redis', UPSTASH_REDIS_REST_URL: rest.url, UPSTASH_REDIS_REST_TOKEN: rest.token };
  try {
    for (const probe of probes) {
      const catalogs: [string, Record<string, string>][] = probe.large
        ? [
            ['real', { CATALOG_DIR: real }],
            [probe.large, { CATALOG_DIR: large[probe.large] }],
          ]
        : [
            ['sqlite', { CATALOG_DIR: real }],
            ['redis (REST)', { CATALOG_DIR: real, ...restEnv }],
          ];
      for (const [name, over] of catalogs) {
        const c = await coldRuns(script, entryJs[probe.entry]!, probe, { ...baseEnv, ...over }, runs);
        lines.push(
          `| ${probe.entry} | \`${probe.method} ${probe.path.split('?')[0]}\` | ${name} | ${c.status} | ${c.answerMs.toFixed(0)} | ${c.processMs.toFixed(0)} | ${c.maxRssMB.toFixed(0)} MB |`,
        );
      }
    }
  } finally {
    await rest.close();
    await redis.destroy();
    rmSync(dataDir, { recursive: true, force: true });
  }
  return lines.join('\n');
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const { values } = parseArgs({ options: { runs: { type: 'string' } } });
  process.stdout.write((await run(values.runs ? { runs: Number(values.runs) } : {})) + '\n');
}
