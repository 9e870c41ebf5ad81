/**
 * `npm run bench`: catalog build and search benchmarks over three catalogs, printed as markdown on
 * stdout (progress on stderr):
 * - `sample`   the project's sample catalog (`catalog-src/`);
 * - `real`     the real snapshot (`../shared/fixtures/objectstore/api/v1`, config
 *              `test/real-snapshot/catalog.config.json`);
 * - `gen-100k` a generated catalog of 100,000 records (`bench/generate.ts`, seeded);
 * - `gen-1m`   the same at 1,000,000 records, only when `--only` names it, with the item collection at
 *              1,000,000 relics (`bench/collections.ts --records=1000000`: query table and cold start) (minutes, gigabytes; its build
 *              and floor children get a 16 GB heap).
 * Then the output of `bench/collections.ts` `run()`, the export benchmark of
 * `bench/export.ts` over the build outputs, and the ledger benchmark of `bench/ledger.ts` (a real
 * `redis-server` and the SQLite store; `--only=ledger` runs it alone) with the store round trips per request of
 * the stateful routes (`bench/round-trips.ts`) and the player look-up (`bench/lookup.ts`), and the storage upload benchmark of
 * `bench/storage.ts` (`--only=storage`). The cold start of every function entry (`bench/cold-start.ts`)
 * runs with the builds unless `--only` leaves out `real`. The export under load (`bench/load.ts`: the local server, 50
 * connections, 15 s per URL) runs over the real snapshot's build (else the sample's) unless `--only`
 * names neither.
 *
 * Flags: `--only=sample,real,gen-100k,gen-1m,ledger,storage` (subset), `--seed=N` (queries and generator), `--queries=N`
 * (default 1000), `--no-build` (search only), `--load-seconds=N` (seconds per URL under load, default 15).
 * Build outputs and index files go to `.tmp/bench/<catalog>/`.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { cpus } from 'node:os';
import { join, resolve } from 'node:path';
import { wantsHelp } from '../dev/cli.js';
import { benchBuild, type BuildBench } from './build.js';
import { GEN_SEED, generateCatalog } from './generate.js';
import { extractRecords } from './records.js';
import { benchSearch, type SearchBench } from './search.js';

const REPO = resolve(import.meta.dirname, '..');
const TMP = join(REPO, '.tmp/bench');

interface Catalog {
  readonly name: string;
  readonly src: string;
  readonly config?: string;
  readonly prepare?: () => void;
  /** Runs only when `--only` names it (it takes minutes and gigabytes). */
  readonly optIn?: boolean;
  /** Old-space limit of the build and floor children, MB (default Node's). */
  readonly heapMB?: number;
}

function flag(name: string): string | undefined {
  const hit = process.argv.find((a) => a === `--${name}` || a.startsWith(`--${name}=`));
  if (!hit) return undefined;
  return hit.includes('=') ? hit.slice(hit.indexOf('=') + 1) : '';
}

const log = (msg: string): void => {
  process.stderr.write(`[bench] ${msg}\n`);
};
const fmt = (x: number, digits = 2): string => (Number.isFinite(x) ? x.toFixed(digits) : 'n/a');
const pct = (x: number): string => (Number.isFinite(x) ? `${(x * 100).toFixed(1)} %` : 'n/a');
const kb = (bytes: number): string => `${(bytes / 1024).toFixed(0)} KiB`;

function buildTable(rows: readonly (readonly [string, BuildBench])[]): string {
  const lines = [
    '| catalog | build | records | files | build s | floor s | build ÷ floor | build peak RSS | floor peak RSS | errors / warnings | output files | output MB |',
    '|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
  ];
  for (const [name, r] of rows) {
    if ('error' in r) {
      lines.push(`| ${name} | not available: ${r.error.replace(/\|/g, '/')} | | | | | | | | | | |`);
      continue;
    }
    const { build: b, floor: f } = r;
    const floorOk = !('error' in f);
    lines.push(
      `| ${name} | ${b.ok ? 'ok' : 'failed'} | ${b.records} | ${b.files} | ${fmt(b.seconds)} | ${floorOk ? fmt(f.seconds) : 'n/a'} | ${floorOk ? fmt(b.seconds / f.seconds, 1) + '×' : 'n/a'} | ${fmt(b.maxRssMB, 0)} MB | ${floorOk ? fmt(f.maxRssMB, 0) + ' MB' : 'n/a'} | ${b.errors} / ${b.warnings} | ${b.outputFiles} | ${fmt(b.outputBytes / 1e6, 1)} |`,
    );
  }
  return lines.join('\n');
}

function searchTable(rows: readonly SearchBench[]): string {
  const lines = [
    '| catalog | records | engine | p50 ms | p99 ms | mean ms | exact-name top-1 | index size | index build ms | cold start ms |',
    '|---|---:|---|---:|---:|---:|---:|---:|---:|---:|',
  ];
  for (const s of rows) {
    for (const r of s.rows) {
      lines.push(
        `| ${s.catalog} | ${s.records} | ${r.engine} | ${fmt(r.p50, 3)} | ${fmt(r.p99, 3)} | ${fmt(r.mean, 3)} | ${pct(r.top1)} | ${kb(r.indexBytes)} | ${fmt(r.buildMs, 0)} | ${fmt(r.coldMs, 0)} |`,
      );
    }
  }
  const speed = rows
    .filter((s) => s.rows.length === 2)
    .map((s) => {
      const [ours, peer] = s.rows as [SearchBench['rows'][number], SearchBench['rows'][number]];
      return `${s.catalog}: p99 ${fmt(peer.p99 / ours.p99, 1)}× faster, cold start ${fmt(peer.coldMs / ours.coldMs, 1)}× faster, index ${fmt(peer.indexBytes / ours.indexBytes, 1)}× smaller`;
    });
  return lines.join('\n') + (speed.length ? `\n\nOurs against MiniSearch: ${speed.join('; ')}.` : '');
}

async function main(): Promise<void> {
  const seed = Number(flag('seed') ?? GEN_SEED);
  const queryCount = Number(flag('queries') ?? 1000);
  const only = flag('only')?.split(',').filter(Boolean);
  const withBuild = flag('no-build') === undefined;
  const started = performance.now();

  const catalogs: Catalog[] = [
    { name: 'sample', src: join(REPO, 'catalog-src') },
    {
      name: 'real',
      src: resolve(REPO, '../shared/fixtures/objectstore/api/v1'),
      config: join(REPO, 'test/real-snapshot/catalog.config.json'),
    },
    {
      name: 'gen-100k',
      src: join(TMP, 'gen-100k'),
      prepare: () => void generateCatalog({ out: join(TMP, 'gen-100k'), records: 100_000, seed }),
    },
    {
      name: 'gen-1m',
      src: join(TMP, 'gen-1m'),
      prepare: () => void generateCatalog({ out: join(TMP, 'gen-1m'), records: 1_000_000, seed }),
      optIn: true,
      heapMB: 16_384,
    },
  ].filter((c: Catalog) => (only ? only.includes(c.name) : !c.optIn));

  const builds: [string, BuildBench][] = [];
  const searches: SearchBench[] = [];
  for (const c of catalogs) {
    if (c.prepare) {
      log(`${c.name}: generating`);
      c.prepare();
    }
    if (!existsSync(c.src)) {
      log(`${c.name}: source folder ${c.src} missing, skipped`);
      continue;
    }
    if (withBuild) {
      log(`${c.name}: build`);
      const config = c.config && existsSync(c.config) ? c.config : undefined;
      builds.push([c.name, await benchBuild(c.src, join(TMP, c.name, 'dist'), config, c.heapMB)]);
    }
    const records = extractRecords(c.src);
    if (records.length === 0) {
      log(`${c.name}: no search records, search skipped`);
      continue;
    }
    log(`${c.name}: search over ${records.length} records`);
    searches.push(await benchSearch(c.name, records, seed, queryCount));
  }

  const cpu = cpus();
  const out: string[] = [
    '# Benchmarks',
    '',
    `Machine: ${cpu.length} × ${cpu[0]?.model ?? 'unknown CPU'}, Node ${process.version}. Seed ${seed}, ${queryCount} queries per catalog (exact name, 3-5 character prefix, one typo, two terms; type all, limit 50).`,
    '',
  ];
  if (withBuild) {
    out.push(
      '## Catalog build',
      '',
      'Each build and each floor runs in its own child process; floor = `JSON.parse` of every input file + `JSON.stringify` of every output file; peak RSS = the own peak resident set (`VmHWM`) of that child.',
      '',
      buildTable(builds),
      '',
    );
  }
  out.push(
    '## Search',
    '',
    'MiniSearch peer: `prefix: true, fuzzy: 0.2, boost: { name: 2 }` over `name` and `id`. Index size: our file bytes; peer: `JSON.stringify(miniSearch)` length. Cold start: new `node` process → read + parse the index file → first answer, median of 5.',
    '',
    searchTable(searches),
    '',
  );

  /** Run one section; a failure becomes a "not available" line under its title. */
  const section = async (title: string, run: () => Promise<string>): Promise<void> => {
    log(title.toLowerCase());
    try {
      out.push(await run(), '');
    } catch (e) {
      out.push(`## ${title}`, '', `not available: ${e instanceof Error ? e.message.split('\n')[0] : String(e)}`, '');
    }
  };
  await section('Collections', async () => (await import('./collections.js')).run());
  if (only?.includes('gen-1m')) {
    // in a child with a heap large enough for a million items held while they are indexed
    await section('Collections at 1,000,000', () =>
      Promise.resolve(
        execFileSync(
          process.execPath,
          ['--max-old-space-size=16384', '--import', 'tsx', join(REPO, 'bench/collections.ts'), '--records=1000000', `--seed=${seed}`],
          { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 },
        ),
      ),
    );
  }
  if (withBuild) await section('Export', async () => (await import('./export.js')).run());
  if (withBuild && (!only || only.includes('real'))) await section('Cold start', async () => (await import('./cold-start.js')).run());
  if (!only || only.includes('real') || only.includes('sample')) {
    const seconds = flag('load-seconds');
    await section('Export under load', async () => (await import('./load.js')).run(undefined, seconds ? { seconds: Number(seconds) } : {}));
  }
  if (!only || only.includes('ledger')) {
    await section('Ledger', async () => (await import('./ledger.js')).run());
    await section('Store round trips', async () => (await import('./round-trips.js')).run());
    await section('Player look-up', async () => (await import('./lookup.js')).run());
  }
  if (!only || only.includes('storage')) await section('Storage', async () => (await import('./storage.js')).run());
  out.push(`_Total benchmark time: ${fmt((performance.now() - started) / 1000, 0)} s._`);
  process.stdout.write(out.join('\n') + '\n');
}

/** Usage of `npm run bench`, printed by `--help` (dev/cli.ts). */
const USAGE = `Usage: npm run bench [-- --only=LIST] [--seed=N] [--queries=N] [--no-build] [--load-seconds=N]

Catalog build, search, collections, export, ledger, storage and cold-start benchmarks, printed as
markdown on stdout; progress lines on stderr. Minutes to hours, depending on --only.

Options:
  --only=LIST         a subset of sample,real,gen-100k,gen-1m,ledger,storage
  --seed=N            seed of the queries and the generator
  --queries=N         search queries per catalog (default 1000)
  --no-build          search only, over existing builds
  --load-seconds=N    seconds per URL of the export under load (default 15)
  -h, --help          print this help

Example:
  npm run bench -- --only=sample,ledger > bench.md
`;

if (wantsHelp(process.argv.slice(2))) process.stdout.write(USAGE);
else await main();
