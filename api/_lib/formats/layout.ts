/**
 * Output folder layout: where every file the build emits lives, relative to the output folder
 * (default `dist/`, served as the static site at `{base_url}/`; spec §4.1, §9.1).
 *
 * Written by: `build/pipeline/index.ts` (published source files, the manifest) and the derivers of
 * `build/derive/` (everything else). Read by: `api/_lib/catalog/store.ts` (manifest), `api/catalog.ts`
 * (search index, stats, exports), `api/_lib/collections/` (collection indexes), the local server and the
 * static page. Nothing else in the repository spells these paths (docs/architecture.md, "Layers and data flow").
 *
 * Layout (all JSON, UTF-8):
 * - `api/v1/<source file>`                  every live catalog source file, as authored (§4.1)
 * - `api/v1/master-weaponSkills.json`       the source with derived SKIL ids written in (§2.6)
 * - `api/v1/master-registry.json`           every definition id → file and pointer (§4.1)
 * - `api/v1/canonical-items-manifest.json`  item definitions by family (§4.1 load order step 2)
 * - `api/v1/game-data-manifest.json`        every emitted file with bytes and SHA-256 (`manifest.ts`; §3, §4.1, §9.2)
 * - `api/v1/search-index.json`              the `/api/search` index (`search-index.ts`; §2.5, §4.4)
 * - `api/v1/stats.json`                     the `/api/stats` body (`stats.ts`; §4.4)
 * - `api/v1/exports/{type}.json`            records of one export type (`export.ts`; §4.4)
 * - `api/v1/exports/full/{type}.{json,csv}`  the unfiltered `/api/export` body of a type, byte for byte (§4.4)
 * - `api/v1/collections/{name}.cidx`        collection indexes read by `/v1/{name}` (`collection-file.ts`; §4.2)
 * - `api/v1/{name}/{key}.json`              one collection item per lookup key, for CDN consumers (§4.2)
 * - icon, sprite, character and asset registry files: see `registries.ts` (§4.3, §4.5, §4.6)
 */
import type { CollectionName } from './collection-index.js';
import type { ExportType } from './export.js';

/** Folder, inside the output folder, that holds everything under `{base_url}/api/v1/` (§9.1). */
export const API_V1_DIR = 'api/v1';

/** Output path of a catalog source file published as authored (`sourcePath` relative to the source folder, posix separators). */
export function publishedFile(sourcePath: string): string {
  return `${API_V1_DIR}/${sourcePath}`;
}

/**
 * Source files that are retired and never published, so that they answer 404 (§7, §9.3): the old systems
 * catalog. A catalog config may list others (`retired`).
 */
export const DEFAULT_RETIRED_FILES: readonly string[] = Object.freeze(['systems-catalog.json']);

/** Game-data manifest file: every emitted file with bytes and SHA-256 (shape in `manifest.ts`; §3, §4.1, §9.2). */
export const MANIFEST_FILE = `${API_V1_DIR}/game-data-manifest.json`;
/** Search index file read by `/api/search` (shape in `search-index.ts`; §4.4). */
export const SEARCH_INDEX_FILE = `${API_V1_DIR}/search-index.json`;
/** Stats body served by `/api/stats` (shape in `stats.ts`; §4.4). */
export const STATS_FILE = `${API_V1_DIR}/stats.json`;
/** Emitted `master-weaponSkills.json`: the source with the derived SKIL id on every skill (§2.6, §4.1). */
export const WEAPON_SKILLS_FILE = publishedFile('master-weaponSkills.json');
/** Master registry derived from the catalogs: every definition id → kind, name, file and pointer (§4.1). */
export const MASTER_REGISTRY_FILE = `${API_V1_DIR}/master-registry.json`;
/** Canonical items manifest: item definitions by family (§2.6, §4.1 load order step 2). */
export const CANONICAL_ITEMS_FILE = `${API_V1_DIR}/canonical-items-manifest.json`;

/** Path of the records of one export type (shape in `export.ts`; §4.4). */
export function exportFile(type: ExportType): string {
  return `${API_V1_DIR}/exports/${type}.json`;
}

/**
 * Path of the prebuilt unfiltered export of `type` in `format`: exactly the body `/api/export?type=…`
 * (`&format=csv`) answers without filters, served from this file, never rebuilt (§4.4).
 */
export function fullExportFile(type: ExportType, format: 'json' | 'csv'): string {
  return `${API_V1_DIR}/exports/full/${type}.${format}`;
}

/** Path of a collection's index, read by the collection functions (bytes in `collection-file.ts`; §4.2). */
export function collectionIndexFile(name: CollectionName): string {
  return `${API_V1_DIR}/collections/${name}.cidx`;
}

/**
 * Path of one collection item's static file, by lookup key (id, uuid or slug) percent-encoded; the bytes
 * are `JSON.stringify(item)`, exactly the body of `GET /v1/{name}/{key}` (§4.2).
 */
export function collectionItemFile(name: CollectionName, key: string): string {
  return `${API_V1_DIR}/${name}/${encodeURIComponent(key)}.json`;
}

/** The catalog source files an output file is made from, and what they hold (see {@link sourcesOf}). */
export interface OutputSources {
  /** Source file names (relative to the catalog source folder), the first the one to add. */
  readonly files: readonly string[];
  /** What they hold, with the spec section, e.g. `the playable classes, spec §4.1`. */
  readonly holds: string;
}

/** What the published source files that the functions read hold (§4.1). */
const SOURCE_CONTENT: Readonly<Record<string, string>> = Object.freeze({
  'classes.json': 'the classes a character is created with, spec §4.1',
  'races.json': 'the races a character is created with, spec §4.1',
  'factions.json': 'the factions and the races each admits, spec §4.1',
  'professions.json': 'the crafting and gathering professions, spec §4.1',
  'master-professions.json': 'the crafting and gathering professions, also read from professions.json, spec §4.1',
  'master-recipes.json': 'the recipes a character learns, spec §4.1',
  'master-materials.json': 'the materials and consumables of the bag, spec §4.1',
  'master-weaponSkills.json': 'the weapon types and their skills, spec §2.6, §4.1',
});

/**
 * The catalog source files the output file `outputPath` (relative to the output folder) is made from,
 * or undefined for an output every build writes from the whole catalog (the manifest, search index,
 * stats, exports, master registry, canonical items manifest): a function names them when a build left the
 * file out because its source folder had none (api/_lib/catalog/store.ts; spec §4.1, §7).
 */
export function sourcesOf(outputPath: string): OutputSources | undefined {
  const collection = /^api\/v1\/collections\/([a-z]+)\.cidx$/.exec(outputPath)?.[1];
  if (collection) return { files: [`master-${collection}.json`], holds: `the ${collection} collection, spec §4.2` };
  if (/^api\/v1\/icon-(?:registry|path-index|category-index|search-index)\.json$|^api\/v1\/icon-shards\//.test(outputPath))
    return { files: ['icon-sources.json'], holds: 'the icon registry, spec §4.6' };
  if (/^api\/v1\/sprite-(?:registry|search-index|stats)\.json$/.test(outputPath))
    return { files: ['sprites2d.json', 'sprite-ids.json'], holds: 'the 2D sprite registry, spec §2.3, §4.5' };
  if (outputPath === `${API_V1_DIR}/character-registry.json`)
    return { files: ['sprite-characters.json'], holds: 'the sprite characters, spec §4.5' };
  if (/^api\/v1\/asset-(?:index|categories)\.json$/.test(outputPath))
    return { files: ['studiodot-assets.json'], holds: 'the asset manifest, spec §2.4, §4.3' };
  const published = /^api\/v1\/([^/]+\.json)$/.exec(outputPath)?.[1];
  if (!published || [MANIFEST_FILE, SEARCH_INDEX_FILE, STATS_FILE, MASTER_REGISTRY_FILE, CANONICAL_ITEMS_FILE].includes(outputPath))
    return undefined;
  return { files: [published], holds: SOURCE_CONTENT[published] ?? 'catalog data, spec §4.1' };
}
