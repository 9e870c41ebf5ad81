/**
 * Search benchmark of one catalog: our engine against a plain MiniSearch index over the same
 * records. Measures per-query latency (p50/p99 over seeded mixed queries), top-1 accuracy on
 * exact-name queries, index bytes, index build time and cold start (new `node` process → read and
 * parse the index file → first answer; median of 5 spawns).
 */
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import MiniSearch from 'minisearch';
import { buildSearchIndex, loadSearchIndex, type SearchRecord } from '../api/_lib/search/index.js';
import { makeQueries, type BenchQuery } from './queries.js';
import { transpileTree } from '../dev/transpile.js';
import { median, quantile } from './stats.js';

const REPO = resolve(import.meta.dirname, '..');
const BENCH_TMP = join(REPO, '.tmp/bench');
const LIMIT = 50;
const WARMUP = 50;
const COLD_RUNS = 5;

/** Options of the peer index (plain MiniSearch with prefix and fuzzy search and a name boost; numeric key since ids may repeat). */
const PEER_OPTIONS = {
  idField: 'key',
  fields: ['name', 'id'],
  storeFields: ['type', 'id', 'name'],
  searchOptions: { prefix: true, fuzzy: 0.2, boost: { name: 2 } },
};

/** Measured numbers of one engine on one catalog. */
export interface EngineRow {
  readonly engine: string;
  readonly p50: number;
  readonly p99: number;
  readonly mean: number;
  readonly top1: number;
  readonly indexBytes: number;
  readonly buildMs: number;
  readonly coldMs: number;
}

/** Result of {@link benchSearch}. */
export interface SearchBench {
  readonly catalog: string;
  readonly records: number;
  readonly queries: number;
  readonly rows: readonly EngineRow[];
}

interface Timed {
  readonly p50: number;
  readonly p99: number;
  readonly mean: number;
  readonly top1: number;
}

function timeQueries(queries: readonly BenchQuery[], run: (q: string) => string | undefined): Timed {
  for (const q of queries.slice(0, WARMUP)) run(q.q);
  const times: number[] = [];
  let exact = 0;
  let hits = 0;
  for (const q of queries) {
    const t0 = performance.now();
    const first = run(q.q);
    times.push(performance.now() - t0);
    if (q.kind === 'exact') {
      exact++;
      if (first === q.q) hits++;
    }
  }
  const sorted = times.sort((a, b) => a - b);
  return {
    p50: quantile(sorted, 0.5),
    p99: quantile(sorted, 0.99),
    mean: sorted.reduce((a, b) => a + b, 0) / sorted.length,
    top1: exact ? hits / exact : NaN,
  };
}

/** Wall milliseconds from spawning `node script ...args` until its first line on stdout. */
function coldRun(script: string, args: readonly string[]): Promise<number> {
  return new Promise((resolveRun, reject) => {
    const t0 = performance.now();
    const child = spawn(process.execPath, [script, ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
    let done = false;
    child.stdout.on('data', () => {
      if (!done) {
        done = true;
        resolveRun(performance.now() - t0);
      }
    });
    child.on('error', reject);
    child.on('exit', (code) => {
      if (!done) reject(new Error(`cold-start child ${script} exited with ${String(code)} before answering`));
    });
  });
}

/**
 * Medians of {@link COLD_RUNS} cold starts of each child after one unmeasured run each (file cache),
 * interleaved and in alternating order so that neither side always runs first.
 */
async function coldMedians(children: readonly (readonly [string, readonly string[]])[]): Promise<number[]> {
  const runs: number[][] = children.map(() => []);
  for (let i = -1; i < COLD_RUNS; i++) {
    const order = [...children.entries()];
    if (i % 2 !== 0) order.reverse();
    for (const [k, [script, args]] of order) {
      const ms = await coldRun(script, args);
      if (i >= 0) runs[k]?.push(ms);
    }
  }
  return runs.map(median);
}

let scripts: { ours: string; peer: string } | undefined;

/** Child scripts for cold starts (our engine transpiled to JavaScript; the peer from node_modules). */
function coldScripts(): { ours: string; peer: string } {
  if (scripts) return scripts;
  const entry = transpileTree(join(REPO, 'api/_lib/search/index.ts'), join(BENCH_TMP, 'js'));
  mkdirSync(BENCH_TMP, { recursive: true });
  const ours = join(BENCH_TMP, 'cold-ours.mjs');
  const peer = join(BENCH_TMP, 'cold-peer.mjs');
  writeFileSync(
    ours,
    `import { readFileSync } from 'node:fs';
import { loadSearchIndex } from ${JSON.stringify(entry)};
const engine = loadSearchIndex(JSON.parse(readFileSync(process.argv[2], 'utf8')));
const res = engine.search(process.argv[3], { type: 'all', limit: ${LIMIT} });
process.stdout.write(res.totalResults + '\\n');
`,
  );
  writeFileSync(
    peer,
    `import { readFileSync } from 'node:fs';
import MiniSearch from 'minisearch';
const ms = MiniSearch.loadJSON(readFileSync(process.argv[2], 'utf8'), ${JSON.stringify(PEER_OPTIONS)});
const res = ms.search(process.argv[3]).slice(0, ${LIMIT});
process.stdout.write(res.length + '\\n');
`,
  );
  scripts = { ours, peer };
  return scripts;
}

/**
 * Run the search benchmark for `records` of catalog `catalog`; index files go to `.tmp/bench/<catalog>/`.
 * @param seed seed of the query mix. @param count number of queries (default 1000).
 */
export async function benchSearch(catalog: string, records: readonly SearchRecord[], seed: number, count = 1000): Promise<SearchBench> {
  const dir = join(BENCH_TMP, catalog);
  mkdirSync(dir, { recursive: true });
  const queries = makeQueries(records, seed, count);
  const probe = queries[0]?.q ?? 'a';

  // ours
  let t0 = performance.now();
  const text = JSON.stringify(buildSearchIndex(records));
  const oursBuild = performance.now() - t0;
  const oursFile = join(dir, 'search-index.json');
  writeFileSync(oursFile, text);
  const engine = loadSearchIndex(JSON.parse(text));
  const ours = timeQueries(queries, (q) => engine.search(q, { type: 'all', limit: LIMIT }).results[0]?.name);

  // peer
  t0 = performance.now();
  const ms = new MiniSearch<{ key: number; type: string; id: string; name: string }>(PEER_OPTIONS);
  ms.addAll(records.map((r, key) => ({ key, type: r.type, id: r.id, name: r.name })));
  const peerBuild = performance.now() - t0;
  const peerText = JSON.stringify(ms);
  const peerFile = join(dir, 'minisearch-index.json');
  writeFileSync(peerFile, peerText);
  const peer = timeQueries(queries, (q) => {
    const res = ms.search(q).slice(0, LIMIT);
    return res[0]?.name as string | undefined;
  });

  const { ours: oursScript, peer: peerScript } = coldScripts();
  const [oursCold = NaN, peerCold = NaN] = await coldMedians([
    [oursScript, [oursFile, probe]],
    [peerScript, [peerFile, probe]],
  ]);

  return {
    catalog,
    records: records.length,
    queries: queries.length,
    rows: [
      { engine: 'ours', ...ours, indexBytes: Buffer.byteLength(text), buildMs: oursBuild, coldMs: oursCold },
      { engine: 'MiniSearch', ...peer, indexBytes: peerText.length, buildMs: peerBuild, coldMs: peerCold },
    ],
  };
}
