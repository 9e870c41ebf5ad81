/**
 * The formats shared by the build (the only writer of derived data) and the functions (its only readers):
 * one module per format. This index names the few exports most callers need; import anything else from
 * its format module.
 * - `layout.ts`            output folder layout: every emitted path (§4.1, §9.1)
 * - `manifest.ts`          game-data manifest shape (§3, §4.1, §9.2)
 * - `search-index.ts`      `/api/search` index format and search types (§2.5, §4.4)
 * - `stats.ts`             `/api/stats` file shape (§4.4)
 * - `export.ts`            `/api/export` files and export types (§4.4)
 * - `collection-index.ts`  item collection definitions, folding and the index's content (§2.2, §3, §4.2)
 * - `collection-file.ts`   the collection index file's bytes, `collection-index/3` (§4.2)
 * - `changes.ts`           the change feed, the kept builds and the sync protocol (§4.1, §9)
 * - `record-sources.ts`    where each search and export type's records live, and the walk that finds them (§4.4)
 * - `build-report.ts`      the published build report (§9.1)
 * - `registries.ts`        icon, sprite, character and asset registry files (§2.3, §2.4, §4.3, §4.5, §4.6)
 * - `term-index.ts`        icon and sprite search term indexes and their tokeniser (§4.5, §4.6)
 */
export {
  API_V1_DIR,
  MANIFEST_FILE,
  SEARCH_INDEX_FILE,
  STATS_FILE,
  exportFile,
  fullExportFile,
  collectionIndexFile,
  collectionItemFile,
} from './layout.js';
export { EXPORT_TYPES, type ExportType, type ExportFile } from './export.js';
export { SEARCH_TYPES, type SearchType } from './search-index.js';
export { COLLECTION_NAMES, type CollectionName } from './collection-index.js';
export type { GameDataManifest } from './manifest.js';
export type { StatsFile } from './stats.js';
