/**
 * Item collection benchmark (spec 4.2): list queries on the real snapshot's collections and on a
 * generated collection of 100,000 relic-like items, each beside its floor, `JSON.stringify` of the very
 * response object the query returns. A query's time is `queryCollection` (filtering, counting, paging and
 * composing the body); `parseQuery` is reported beside it; the index is loaded once, as a warm function holds it.
 * Query and floor samples alternate, so both see the same machine load. Target: p99 ≤ 3× floor p99.
 *
 * `run()` returns a markdown report; `npx tsx bench/collections.ts [--seed=N] [--samples=N]` prints it.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { collectionIndexFile, MANIFEST_FILE, type CollectionName } from '../api/_lib/formats/index.js';
import { parseQuery } from '../api/_lib/http/index.js';
import { loadIndex, openIndex, queryCollection, type CollectionQuery, type LoadedCollection } from '../api/_lib/collections/index.js';
import { listParamSpec } from '../api/_lib/http/collection-params.js';
import { indexCollection } from '../build/derive/collections.js';
import { headerOf } from '../api/_lib/formats/collection-file.js';
import { createRng } from '../api/_lib/util/prng.js';

const REPO = resolve(fileURLToPath(new URL('..', import.meta.url)));
const REAL = resolve(REPO, '../shared/fixtures/objectstore/api/v1');

/** Default generator seed. */
const COLLECTION_SEED = 20260423;

const ADJECTIVES = [
  'Ancient',
  'Gilded',
  'Hollow',
  'Sunken',
  'Radiant',
  'Cracked',
  'Silent',
  'Burning',
  'Frozen',
  'Verdant',
  'Ashen',
  'Runed',
  'Shattered',
  'Blessed',
  'Cursed',
  'Iron',
  'Silver',
  'Obsidian',
  'Crimson',
  'Pale',
  'Wild',
  'Stormforged',
  'Ember',
  'Twilight',
  'Hallowed',
];
const NOUNS = [
  'Relic',
  'Idol',
  'Sigil',
  'Charm',
  'Totem',
  'Amulet',
  'Talisman',
  'Fetish',
  'Reliquary',
  'Icon',
  'Emblem',
  'Seal',
  'Medallion',
  'Effigy',
  'Token',
  'Crest',
  'Shard',
  'Orb',
  'Chalice',
  'Rune',
  'Mask',
  'Horn',
  'Bell',
  'Lantern',
  'Crown',
];
const THEMES: readonly { name: string; category: string; element: string | null }[] = [
  { name: 'Frost', category: 'elemental', element: 'frost' },
  { name: 'Flame', category: 'elemental', element: 'fire' },
  { name: 'Storms', category: 'elemental', element: 'lightning' },
  { name: 'Stone', category: 'elemental', element: 'earth' },
  { name: 'the Arcane', category: 'elemental', element: 'arcane' },
  { name: 'Light', category: 'elemental', element: 'holy' },
  { name: 'Fury', category: 'combat', element: null },
  { name: 'the Blade', category: 'combat', element: null },
  { name: 'Precision', category: 'combat', element: null },
  { name: 'Slaughter', category: 'combat', element: null },
  { name: 'the Bulwark', category: 'defensive', element: null },
  { name: 'Warding', category: 'defensive', element: null },
  { name: 'Endurance', category: 'defensive', element: null },
  { name: 'the Aegis', category: 'defensive', element: null },
  { name: 'Fortune', category: 'utility', element: null },
  { name: 'Haste', category: 'utility', element: null },
  { name: 'the Wanderer', category: 'utility', element: null },
  { name: 'Insight', category: 'utility', element: null },
  { name: 'Plenty', category: 'utility', element: null },
  { name: 'Renewal', category: 'utility', element: null },
];
const VERBS = ['Channels', 'Holds', 'Echoes', 'Binds', 'Whispers', 'Stores', 'Radiates', 'Guards'];
const PLACES = [
  'endless winter',
  'a dying star',
  'the deep forge',
  'forgotten kings',
  'the northern wastes',
  'the sunken temple',
  'a thousand battles',
  'the old roads',
];
const BENEFITS = [
  'protection against ice',
  'sharper strikes',
  'a steadier hand',
  'quicker steps',
  'resistance to fire',
  'a sturdier guard',
  'keener senses',
  'richer harvests',
];
const TIER_LABELS = ['Common', 'Uncommon', 'Rare', 'Epic', 'Legendary', 'Mythic', 'Ancient', 'Divine'];
const MATERIALS = ['minor-essence', 'rough-gem', 'iron-ore', 'silver-dust', 'arcane-crystal', 'ancient-bone', 'star-shard'];

const slug = (s: string): string =>
  s
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');
const hex = (n: number, width: number): string => n.toString(16).toUpperCase().padStart(width, '0').slice(-width);

/**
 * `count` relic-like items (shape of master-relics: uuid, id, name, category, slot, tier 1-8, element,
 * description, stats, crafting recipe), bases of 8 tiers each, from `seed`. Same seed, same items.
 */
function generateRelics(count = 100_000, seed = COLLECTION_SEED): Record<string, unknown>[] {
  const r = createRng(seed).next;
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
  const out: Record<string, unknown>[] = [];
  for (let base = 0; out.length < count; base++) {
    const adj = ADJECTIVES[base % ADJECTIVES.length]!;
    const noun = NOUNS[Math.floor(base / ADJECTIVES.length) % NOUNS.length]!;
    const theme = THEMES[Math.floor(base / (ADJECTIVES.length * NOUNS.length)) % THEMES.length]!;
    const round = Math.floor(base / (ADJECTIVES.length * NOUNS.length * THEMES.length));
    const baseName = `${adj} ${noun} of ${theme.name}${round > 0 ? ` ${round + 1}` : ''}`;
    const description = `${pick(VERBS)} the ${pick(['chill', 'heat', 'weight', 'song', 'memory', 'light'])} of ${pick(PLACES)}, granting ${pick(BENEFITS)}.`;
    const baseUuid = `RELC-20260423030000-${hex(base + 1, 6)}-${hex(Math.floor(r() * 0xffffffff), 8)}`;
    for (let tier = 1; tier <= 8 && out.length < count; tier++) {
      const suffix = tier === 1 ? '' : ` T${tier}`;
      out.push({
        uuid: tier === 1 ? baseUuid : `RELC-20260423030000-${hex(out.length + 1, 6)}-${hex(Math.floor(r() * 0xffffffff), 8)}`,
        baseUuid,
        baseName,
        id: slug(`${noun} ${adj} ${theme.name}`) + (round > 0 ? `-${round + 1}` : '') + (tier === 1 ? '' : `-t${tier}`),
        name: baseName + suffix,
        type: 'relic',
        category: theme.category,
        slot: 'relic',
        tier,
        tierLabel: TIER_LABELS[tier - 1],
        tierColor: `#${hex(Math.floor(r() * 0xffffff), 6).toLowerCase()}`,
        element: theme.element,
        description,
        lore: description,
        iconUrl: `https://assets.example/icons/relics/${slug(noun)}_${String(1 + Math.floor(r() * 40)).padStart(2, '0')}.png`,
        stats: { power: 5 * tier + Math.floor(r() * 5), defense: 3 * tier, resist: 2 * tier + Math.floor(r() * 3) },
        craftedBy: 'Mystic',
        craftingRecipe: {
          profession: 'Mystic',
          materials: [
            { id: pick(MATERIALS), quantity: 1 + Math.floor(r() * 5) },
            { id: pick(MATERIALS), quantity: 1 + Math.floor(r() * 3) },
          ],
          craftTime: 30 + 10 * tier,
          gold: 50 * tier,
        },
        source: 'craft',
      });
    }
  }
  return out;
}

/** One benchmark row. */
export interface QueryRow {
  readonly collection: string;
  readonly label: string;
  readonly query: string;
  readonly total: number;
  readonly count: number;
  /** Runs per sample (see {@link measure}). */
  readonly batch: number;
  /** Median µs of `parseQuery` for this query string (not part of the ratio). */
  readonly parseP50us: number;
  readonly p50us: number;
  readonly p99us: number;
  readonly floorP50us: number;
  readonly floorP99us: number;
}

function percentile(sorted: Float64Array, p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)]!;
}

/** Mean µs of `k` back-to-back calls of `fn`. */
function timed(fn: () => number, k: number, sink: { n: number }): number {
  const t = process.hrtime.bigint();
  for (let j = 0; j < k; j++) sink.n += fn();
  return Number(process.hrtime.bigint() - t) / 1000 / k;
}

/**
 * Time `queryCollection` and `JSON.stringify` of its response, alternating, `samples` times each, after a
 * warm-up of max(200, samples/4) rounds, continued up to 2,000 rounds while within 200 ms. A sample is the
 * mean of k back-to-back runs, k chosen so that a floor sample lasts at least 5 µs (k = 1 for anything
 * slower), so the clock's own cost does not swamp sub-microsecond responses. `parseQuery` is timed apart.
 */
function measure(index: LoadedCollection, name: CollectionName, label: string, query: string, samples: number): QueryRow {
  const spec = listParamSpec(name);
  const values = parseQuery(new URLSearchParams(query), spec).values as CollectionQuery;
  const exec = (): number => queryCollection(index, values).body.length;
  const body = queryCollection(index, values).body;
  const value: unknown = JSON.parse(body);
  if (JSON.stringify(value) !== body) throw new Error(`${name}?${query}: body differs from JSON.stringify of its value`);
  const floor = (): number => JSON.stringify(value).length;
  const parse = (): number => parseQuery(new URLSearchParams(query), spec).values.limit as number;
  const sink = { n: 0 };
  // Warm up as a function serving traffic is: enough rounds for V8 to optimise the query's whole path
  // before it is timed (a few hundred are not, for paths of several microseconds).
  const warmUntil = performance.now() + 200;
  for (let i = 0; i < Math.max(200, samples >> 2) || (i < 2000 && performance.now() < warmUntil); i++) sink.n += exec() + floor() + parse();
  const k = Math.max(1, Math.ceil(5 / timed(floor, 200, sink)));
  const q = new Float64Array(samples);
  const f = new Float64Array(samples);
  const p = new Float64Array(samples);
  for (let i = 0; i < samples; i++) {
    q[i] = timed(exec, k, sink);
    f[i] = timed(floor, k, sink);
    p[i] = timed(parse, k, sink);
  }
  if (sink.n < 0) throw new Error('unreachable');
  q.sort();
  f.sort();
  p.sort();
  const v = value as { total: number; count: number };
  return {
    collection: name,
    label,
    query,
    total: v.total,
    count: v.count,
    batch: k,
    parseP50us: percentile(p, 0.5),
    p50us: percentile(q, 0.5),
    p99us: percentile(q, 0.99),
    floorP50us: percentile(f, 0.5),
    floorP99us: percentile(f, 0.99),
  };
}

const QUERIES: Readonly<Record<CollectionName, readonly (readonly [string, string])[]>> = {
  relics: [
    ['no filter', ''],
    ['one filter', 'tier=3'],
    ['three filters', 'category=elemental&tier=3&element=frost'],
    ['q', 'q=frost'],
    ['q (name typed in full)', 'q=Relic%20of%20Frost%20T3'],
    ['q (phrase)', 'q=chill%20of%20endless%20winter'],
    ['deep offset', 'offset=120&limit=50'],
  ],
  enchants: [
    ['no filter', ''],
    ['one filter', 'target=armor'],
    ['three filters', 'category=enchant&tier=2&target=weapon'],
    ['q', 'q=strength'],
    ['deep offset', 'offset=60'],
  ],
  infusions: [
    ['no filter', ''],
    ['one filter', 'scope=profession'],
    ['three filters', 'scope=profession&tier=3&profession=miner'],
    ['q', 'q=essence'],
    ['deep offset', 'offset=15'],
  ],
  artifacts: [
    ['no filter', 'discovered=all'],
    ['one filter', 'artifactType=arcane&discovered=all'],
    ['three filters (none match)', 'artifactType=arcane&handedness=2h&tier=5&discovered=all'],
    ['q', 'q=void&discovered=all'],
    ['default (hidden left out)', ''],
  ],
};

const GENERATED_QUERIES: readonly (readonly [string, string])[] = [
  ['no filter', ''],
  ['no filter, limit 500', 'limit=500'],
  ['one filter', 'tier=3'],
  ['one filter (word)', 'element=FROST'],
  ['three filters', 'category=elemental&tier=3&element=frost'],
  ['q (one word)', 'q=frost'],
  ['q (matches all)', 'q=of'],
  ['q (one letter)', 'q=e'],
  ['q (phrase)', 'q=amulet%20of%20fro'],
  ['q (name typed in full)', 'q=Ancient%20Amulet%20of%20Frost%20T3'],
  ['q (common phrase)', 'q=of%20the'],
  ['q (punctuation edge)', 'q=%2C%20granting'],
  ['q (punctuation only)', 'q=-'],
  ['q (separator and one letter)', 'q=-t'],
  ['q (long phrase)', 'q=of%20the%20old%20roads%2C%20granting%20a%20steadier%20hand.'],
  ['q (several words, no match)', 'q=Ancient%20Amulet%20of%20Frost%20T9'],
  ['q + two filters', 'q=ancient&tier=5&category=utility'],
  ['deep offset', 'offset=99950'],
  ['deep offset, one filter', 'tier=3&offset=12450'],
  ['deep offset, two filters', 'category=combat&tier=8&offset=2450'],
];

function fmt(x: number): string {
  return x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1) : x.toFixed(2);
}

function table(rows: readonly QueryRow[]): string {
  const lines = [
    '| collection | query | parameters | total | count | runs/sample | query p50 µs | query p99 µs | floor p50 µs | floor p99 µs | p99 ÷ floor p99 | ≤ 3× | parseQuery p50 µs |',
    '|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|:-:|---:|',
  ];
  for (const r of rows) {
    const ratio = r.p99us / r.floorP99us;
    lines.push(
      `| ${r.collection} | ${r.label} | \`${r.query || '-'}\` | ${r.total} | ${r.count} | ${r.batch} | ${fmt(r.p50us)} | ${fmt(r.p99us)} | ${fmt(r.floorP50us)} | ${fmt(r.floorP99us)} | ${ratio.toFixed(2)} | ${ratio <= 3 ? 'yes' : '**no**'} | ${fmt(r.parseP50us)} |`,
    );
  }
  return lines.join('\n');
}

/** Options of {@link run}. */
export interface CollectionBenchOptions {
  /** Generator seed (default {@link COLLECTION_SEED}). */
  readonly seed?: number;
  /** Samples per query on the real collections (default 3000) and on the generated one (default 1000). */
  readonly samples?: number;
}

/**
 * Run the benchmark and return a markdown report: one table of the real snapshot's collections, one of
 * the generated 100,000-item collection, and the index build/load figures of the latter.
 */
export async function run(options: CollectionBenchOptions = {}): Promise<string> {
  await Promise.resolve();
  const seed = options.seed ?? COLLECTION_SEED;
  const realRows: QueryRow[] = [];
  let realNote = '';
  try {
    for (const name of ['relics', 'enchants', 'infusions', 'artifacts'] as const) {
      const data: unknown = JSON.parse(readFileSync(resolve(REAL, `master-${name}.json`), 'utf8'));
      const built = indexCollection(name, data);
      if (!built) throw new Error(`master-${name}.json has no item array`);
      const index = loadIndex(built.file, name);
      for (const [label, query] of QUERIES[name]) realRows.push(measure(index, name, label, query, options.samples ?? 3000));
    }
  } catch (e) {
    realNote = `Real snapshot not available: ${String(e)}`;
  }

  const gen = await generated(100_000, seed, options.samples ? Math.max(100, options.samples >> 1) : 1000);
  const all = [...realRows, ...gen.rows];
  const worst = all.reduce((m, r) => Math.max(m, r.p99us / r.floorP99us), 0);
  return [
    '## Item collections (/v1/relics|enchants|infusions|artifacts)',
    '',
    'Query = `queryCollection` on an open index (filter, count, page, read the items, compose the body); the samples repeat a query, so its items come from the item cache after the first run, as in a warm function (a cold read is one `pread` per run of items; the cold start rows time it). Floor = `JSON.stringify` of the same response object. Samples alternate query/floor; a sample is the mean of `runs/sample` back-to-back runs (chosen so a floor sample lasts ≥ 5 µs). `parseQuery` (shared HTTP layer) is shown apart. Times in microseconds.',
    '',
    '### Real snapshot',
    '',
    realNote || table(realRows),
    '',
    `### Generated: 100,000 relic-like items (seed ${seed})`,
    '',
    table(gen.rows),
    '',
    gen.summary,
    '',
    `Worst p99 ÷ floor p99: ${worst.toFixed(2)} (target ≤ 3).`,
  ].join('\n');
}

/**
 * Generate `records` relics, index them and write the index to `file`; nothing of them stays referenced
 * once this returns (at 1,000,000 items they take gigabytes).
 */
function writeGenerated(
  records: number,
  seed: number,
  file: string,
): { indexMs: number; fileBytes: number; itemsBytes: number; itemFiles: number } {
  const items = generateRelics(records, seed);
  const t = performance.now();
  const built = indexCollection('relics', { relics: items });
  if (!built) throw new Error('the generated relics did not index');
  const indexMs = performance.now() - t;
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, built.file);
  const itemsBytes = (headerOf(built.file) as { sections: { items: [number, number] } }).sections.items[0];
  return { indexMs, fileBytes: built.file.length, itemsBytes, itemFiles: built.itemFiles.length };
}

/**
 * The generated collection of `records` relic-like items: indexed, written to a file and opened as the
 * function opens it (items read from disk per query), with {@link GENERATED_QUERIES} measured over it.
 * @param dist when given, the index and a manifest are written there as a catalog output folder (kept),
 *   else to a temporary folder (removed).
 * @returns the rows and a one-paragraph summary of the index's build, size and opening.
 */
export async function generated(
  records: number,
  seed: number,
  samples: number,
  dist?: string,
): Promise<{ rows: QueryRow[]; summary: string }> {
  await Promise.resolve();
  const dir = dist ?? mkdtempSync(join(tmpdir(), 'bench-collections-'));
  const file = join(dir, collectionIndexFile('relics'));
  const { indexMs, fileBytes, itemsBytes, itemFiles } = writeGenerated(records, seed, file);
  if (dist) writeFileSync(join(dist, MANIFEST_FILE), JSON.stringify({ buildId: `bench-relics-${records}` }));
  let t = performance.now();
  const index = openIndex(file, 'relics');
  const openMs = performance.now() - t;
  t = performance.now();
  void index.terms;
  void index.fragments;
  void index.gaps;
  const dictMs = performance.now() - t;
  t = performance.now();
  index.searchText(0);
  const searchMs = performance.now() - t;
  const rows = GENERATED_QUERIES.map(([label, query]) => measure(index, 'relics', label, query, samples));
  if (!dist) rmSync(dir, { recursive: true, force: true });
  const mib = (b: number): string => (b / 1048576).toFixed(1);
  return {
    rows,
    summary: `Index (\`collection-index/3\`): built in ${indexMs.toFixed(0)} ms into ${mib(fileBytes)} MiB, of which ${mib(itemsBytes)} MiB before the items are read at open; opened and checked in ${openMs.toFixed(0)} ms; the first \`q\` builds the dictionaries in ${dictMs.toFixed(0)} ms and decodes the search text in ${searchMs.toFixed(0)} ms; ${itemFiles} lookup keys (each a static item file while the build's item file budget allows).`,
  };
}

/** The request each cold start answers: a `q` and a filter, so the dictionaries are built in it. */
export const COLD_REQUEST = '/v1/relics?q=frost&tier=3&limit=50';

/**
 * The generated collection at `records` items (`npm run bench -- --only=gen-1m` runs it at 1,000,000 in a
 * child with a large heap): query table and index summary as {@link generated}, and the collections entry's
 * cold start over it ({@link COLD_REQUEST}, median of 3). The catalog folder is kept under
 * `.tmp/bench/relics-{records}`.
 */
export async function atScale(records: number, seed: number, samples: number): Promise<string> {
  const dist = join(resolve(import.meta.dirname, '..'), '.tmp/bench', `relics-${records}`, 'dist');
  rmSync(dist, { recursive: true, force: true });
  mkdirSync(join(dist, 'api/v1'), { recursive: true });
  const gen = await generated(records, seed, samples, dist);
  const { coldCatalogEntry } = await import('./cold-start.js');
  const cold = await coldCatalogEntry('collections', COLD_REQUEST, dist, 3);
  const worst = gen.rows.reduce((m, r) => Math.max(m, r.p99us / r.floorP99us), 0);
  return [
    `## Item collections at ${records.toLocaleString('en-US')} relic-like items (seed ${seed})`,
    '',
    table(gen.rows),
    '',
    gen.summary,
    '',
    `Worst p99 ÷ floor p99: ${worst.toFixed(2)} (target ≤ 3). Cold start of the collections entry (\`GET ${COLD_REQUEST}\`, median of 3): status ${cold.status}, first answer ${cold.answerMs.toFixed(0)} ms, process ${cold.processMs.toFixed(0)} ms, peak RSS ${cold.maxRssMB.toFixed(0)} MB.`,
  ].join('\n');
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const arg = (name: string): number | undefined => {
    const hit = process.argv.find((a) => a.startsWith(`--${name}=`));
    return hit ? Number(hit.slice(name.length + 3)) : undefined;
  };
  const seed = arg('seed');
  const samples = arg('samples');
  const records = arg('records');
  (records !== undefined
    ? atScale(records, seed ?? COLLECTION_SEED, samples ?? 300)
    : run({ ...(seed !== undefined ? { seed } : {}), ...(samples !== undefined ? { samples } : {}) })
  )
    .then((md) => process.stdout.write(md + '\n'))
    .catch((e: unknown) => {
      process.stderr.write(`${String(e)}\n`);
      process.exitCode = 1;
    });
}
