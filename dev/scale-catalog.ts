/**
 * A catalog source folder at scale, for the build's size tests and the benchmarks (docs/architecture.md,
 * "Scale"): a copy of a real catalog (default the shared snapshot) whose item collections (relics,
 * enchants, infusions, artifacts; spec 4.2) are replicated to `records` items each, with new ids and
 * names shaped like the real ones ("Gilded Relic of Frost", `RELC-20260423030000-01A2B3-5F00C1D2`,
 * `relic-frost-gilded-12`). Replicas keep every other member of their original (categories, tiers,
 * stats, cross-references), so the catalog stays valid under the identifier law, and the same seed and
 * size give byte-identical files.
 *
 * Usage: `npx tsx dev/scale-catalog.ts --out DIR [--records 100000] [--collections relics,enchants]
 * [--from DIR] [--config FILE] [--seed N]`.
 */
import { cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';
import { COLLECTION_DEFS, COLLECTION_NAMES } from '../api/_lib/formats/collection-index.js';
import { createRng } from '../api/_lib/util/prng.js';

/** Words put before a replica's name, round by round (the original keeps its own name). */
const EPITHETS = [
  'Gilded',
  'Ancient',
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
  'Obsidian',
  'Crimson',
  'Pale',
  'Wild',
  'Stormforged',
  'Twilight',
  'Hallowed',
  'Grim',
  'Elder',
  'Gloom',
  'Ivory',
  'Onyx',
  'Jade',
  'Amber',
  'Cobalt',
  'Tempest',
  'Éclat',
  'Nöktar',
  'Þorn',
];

/** Options of {@link writeScaledCatalog}. */
export interface ScaleOptions {
  /** Folder of the catalog to scale (every file is copied; default the shared snapshot). */
  readonly from: string;
  /** Output folder (replaced). */
  readonly out: string;
  /** Items per collection (≥ the original's count; default 100,000). */
  readonly records?: number;
  /** Generator seed (default 20261123). */
  readonly seed?: number;
  /** Collections to scale (default all four); the others keep their original items. */
  readonly collections?: readonly string[];
  /** Catalog config to put beside the files as `catalog.config.json` (default: the one in `from`, if any). */
  readonly config?: string;
}

/** Items written per collection dataset file. */
export type ScaleResult = Readonly<Record<string, number>>;

const hex = (n: number, width: number) => n.toString(16).toUpperCase().padStart(width, '0').slice(-width);

/**
 * A new timestamp-family id (spec 2.6) for replica `n` of `uuid`: same family and time, counter `n`, hash
 * from the seed. Counters run up to 16,777,215 (six hex digits).
 */
function replicaUuid(uuid: string, n: number, hash: number): string {
  const [family, time] = uuid.split('-');
  return `${family}-${time}-${hex(n, 6)}-${hex(hash, 8)}`;
}

/**
 * Write the scaled catalog (module header).
 * @returns items per collection dataset file written
 * @throws Error when `records` exceeds the id counter's range or a dataset has no list
 */
export function writeScaledCatalog(options: ScaleOptions): ScaleResult {
  const records = options.records ?? 100_000;
  if (!Number.isInteger(records) || records < 1 || records > 0xffffff) throw new Error(`records must be an integer from 1 to ${0xffffff}`);
  const rng = createRng(options.seed ?? 20261123);
  rmSync(options.out, { recursive: true, force: true });
  mkdirSync(options.out, { recursive: true });
  cpSync(options.from, options.out, { recursive: true });
  if (options.config) cpSync(options.config, join(options.out, 'catalog.config.json'));
  const result: Record<string, number> = {};
  for (const name of COLLECTION_NAMES) {
    if (options.collections && !options.collections.includes(name)) continue;
    const def = COLLECTION_DEFS[name];
    const file = join(options.out, `${def.dataset}.json`);
    let doc: Record<string, unknown>;
    try {
      doc = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
    } catch {
      continue; // this catalog has no such collection
    }
    const originals = doc[def.arrayKey];
    if (!Array.isArray(originals) || originals.length === 0) throw new Error(`${def.dataset}.json has no "${def.arrayKey}" list`);
    const items: unknown[] = [...(originals as unknown[])];
    const bases = new Map<string, string>(); // original baseUuid + round → replica baseUuid
    for (let round = 1; items.length < records; round++) {
      const epithet = EPITHETS[(round - 1) % EPITHETS.length]!;
      const cycle = Math.floor((round - 1) / EPITHETS.length);
      for (const o of originals as Record<string, unknown>[]) {
        if (items.length >= records) break;
        const n = items.length + 1;
        const copy: Record<string, unknown> = { ...o };
        if (typeof o.uuid === 'string') copy.uuid = replicaUuid(o.uuid, n, Math.floor(rng.next() * 0x100000000));
        if (typeof o.baseUuid === 'string') {
          const key = `${o.baseUuid} ${round}`;
          if (o.baseUuid === o.uuid) bases.set(key, copy.uuid as string);
          copy.baseUuid = bases.get(key) ?? replicaUuid(o.baseUuid, n, Math.floor(rng.next() * 0x100000000));
          bases.set(key, copy.baseUuid as string);
        }
        const suffix = cycle > 0 ? ` ${cycle + 1}` : '';
        for (const field of ['name', 'baseName'] as const)
          if (typeof o[field] === 'string') copy[field] = `${epithet} ${o[field]}${suffix}`;
        if (typeof o.id === 'string')
          copy.id = `${o.id}-${epithet
            .normalize('NFD')
            .replace(/[^A-Za-z]/g, '')
            .toLowerCase()}-${round}`;
        if (typeof o.slug === 'string') copy.slug = `${o.slug}-${round}`;
        items.push(copy);
      }
    }
    doc[def.arrayKey] = items;
    for (const key of Object.keys(doc)) if (/^total/.test(key) && typeof doc[key] === 'number') doc[key] = items.length;
    writeFileSync(file, JSON.stringify(doc, null, 1));
    result[`${def.dataset}.json`] = items.length;
  }
  return result;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const { values } = parseArgs({
    options: {
      out: { type: 'string' },
      records: { type: 'string', default: '100000' },
      from: { type: 'string', default: resolve(import.meta.dirname, '../../shared/fixtures/objectstore/api/v1') },
      config: { type: 'string' },
      collections: { type: 'string' },
      seed: { type: 'string', default: '20261123' },
    },
    strict: true,
  });
  if (!values.out) {
    process.stderr.write(
      'Usage: npx tsx dev/scale-catalog.ts --out DIR [--records 100000] [--collections relics,enchants] [--from DIR] [--config FILE] [--seed N]\n',
    );
    process.exitCode = 2;
  } else {
    const written = writeScaledCatalog({
      from: values.from,
      out: values.out,
      records: Number(values.records),
      seed: Number(values.seed),
      ...(values.config ? { config: values.config } : {}),
      ...(values.collections ? { collections: values.collections.split(',') } : {}),
    });
    process.stdout.write(`${JSON.stringify(written)}\n`);
  }
}
