/**
 * The game-data manifest (`MANIFEST_FILE` = `api/v1/game-data-manifest.json`, schema
 * `schemas/output/game-data-manifest.schema.json`; spec §3, §4.1, §9.2, §9.3).
 *
 * Written by: the emit stage of `build/pipeline/index.ts` (body from `deriveManifest` in
 * `build/derive/manifest.ts`, file table from `fileTable` in `build/pipeline/emit.ts`), last, over every other
 * emitted file. Read by: `catalogBuildId` in `api/_lib/catalog/store.ts` (`buildId`, the base of every ETag),
 * the static page (`site/`, `files[].path`) and the local server banner. A client or CI diffs two builds by it.
 *
 * Shape: see {@link GameDataManifest}. Sizes are bytes; hashes are lower-case hex SHA-256 of the exact bytes
 * written; paths are relative to the output folder with `/` separators; `files` is sorted by path (code units).
 */

/** Status of a catalog category (§3). */
export type CategoryStatus = 'live' | 'catalog-live' | 'planned' | 'partial';

/** One emitted file of the manifest's file table. */
export interface ManifestFileEntry {
  /** Path relative to the output folder, e.g. `api/v1/weapons.json`. */
  readonly path: string;
  /** Size in bytes. */
  readonly bytes: number;
  /** SHA-256 of the bytes, 64 lower-case hex digits. */
  readonly sha256: string;
}

/** One step of the runtime catalog load order (§4.1). */
export interface LoadOrderStep {
  readonly name: string;
  /** Catalog file the step reads, or null when it is not a catalog file. */
  readonly file: string | null;
  /** True when that file was published by this build. */
  readonly present: boolean;
}

/** The JSON shape of the game-data manifest. */
export interface GameDataManifest {
  /** First 20 hex digits of SHA-256 over the file table (`path NUL sha256 LF` per file). */
  readonly buildId: string;
  /** Human name of the catalog. */
  readonly catalog: string;
  /** `{base_url}` (§1). */
  readonly baseUrl: string;
  /** `{cdn_url}` (§1). */
  readonly cdnUrl: string;
  /** Version labels (§9.2). */
  readonly versions: Readonly<Record<string, string>>;
  /** Category → status (§3). */
  readonly categories: Readonly<Record<string, CategoryStatus>>;
  readonly loadOrder: readonly LoadOrderStep[];
  /** Deprecated source files that were published, with their replacements (§9.3). */
  readonly archived: readonly { readonly file: string; readonly replacedBy: readonly string[] }[];
  /** Design/legacy-only source files (§9.3). */
  readonly designOnly: readonly string[];
  /** Retired file names, never published (§9.3), sorted. */
  readonly retired: readonly string[];
  /** Number of entries in `files` (the manifest itself excluded). */
  readonly totalFiles: number;
  /** Sum of `files[].bytes`. */
  readonly totalBytes: number;
  readonly files: readonly ManifestFileEntry[];
}
