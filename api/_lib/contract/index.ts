/**
 * The format contract between the build (the only producer of derived data) and the functions
 * (the only readers of it): where every emitted file lives, relative to the output folder.
 * Nothing else in the repository spells these paths (ARCHITECTURE.md "Data flows one way").
 *
 * Layout of the output folder (default `dist/`, served as the static site; spec 4.1):
 * - `api/v1/<source file>`               every catalog source file, as authored (spec 4.1)
 * - `api/v1/game-data-manifest.json`     every emitted file with bytes and SHA-256, statuses, load order, versions
 * - `api/v1/search-index.json`           the /api/search index (spec 4.4, 2.5)
 * - `api/v1/stats.json`                  the /api/stats body (spec 4.4)
 * - `api/v1/exports/{type}.json`         records of one export type, read by /api/export (spec 4.4)
 * - `api/v1/collections/{name}.json`     collection indexes read by /v1/{name} (spec 4.2)
 * - `api/v1/{name}/{key}.json`           one collection item per lookup key, for CDN consumers (spec 4.2)
 */

/** Folder, inside the output folder, that holds everything under `{base_url}/api/v1/` (spec 9.1). */
export const API_V1_DIR = 'api/v1';

/** Game-data manifest file (issue: every emitted file with bytes and SHA-256; spec 3, 4.1, 9.2). */
export const MANIFEST_FILE = `${API_V1_DIR}/game-data-manifest.json`;
/** Search index file read by `/api/search` (spec 4.4). */
export const SEARCH_INDEX_FILE = `${API_V1_DIR}/search-index.json`;
/** Stats body served by `/api/stats` (spec 4.4). */
export const STATS_FILE = `${API_V1_DIR}/stats.json`;

/** The export types of `/api/export` (spec 4.4). */
export const EXPORT_TYPES = ['weapons', 'armor', 'materials', 'consumables', 'enemies', 'bosses', 'skills'] as const;
/** One export type. */
export type ExportType = (typeof EXPORT_TYPES)[number];
/** Path of the records of one export type. */
export function exportFile(type: ExportType): string {
  return `${API_V1_DIR}/exports/${type}.json`;
}

/** The search types of `/api/search` besides `all` (spec 4.4). */
export const SEARCH_TYPES = ['weapons', 'armor', 'materials', 'consumables', 'enemies', 'bosses', 'skills', 'sprites'] as const;
/** One search type. */
export type SearchType = (typeof SEARCH_TYPES)[number];

/** The four item collections (spec 4.2) and the source dataset each is read from. */
export const COLLECTIONS = {
  relics: { dataset: 'master-relics', arrayKey: 'relics' },
  enchants: { dataset: 'master-enchants', arrayKey: 'enchants' },
  infusions: { dataset: 'master-infusions', arrayKey: 'infusions' },
  artifacts: { dataset: 'master-artifacts', arrayKey: 'artifacts' },
} as const;
/** One collection name. */
export type CollectionName = keyof typeof COLLECTIONS;
/** Path of a collection's index (read by the collection functions). */
export function collectionIndexFile(name: CollectionName): string {
  return `${API_V1_DIR}/collections/${name}.json`;
}
/** Path of one collection item's static file, by lookup key (id, uuid or slug). */
export function collectionItemFile(name: CollectionName, key: string): string {
  return `${API_V1_DIR}/${name}/${encodeURIComponent(key)}.json`;
}
