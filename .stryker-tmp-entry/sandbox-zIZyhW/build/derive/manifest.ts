/**
 * The game-data manifest body (spec §3, §4.1, §9.2, §9.3; shape `GameDataManifest` in
 * `api/_lib/formats/manifest.ts`), derived last, from the file table of every other emitted file. Pure.
 */
// @ts-nocheck

import { MANIFEST_FILE, publishedFile } from '../../api/_lib/formats/layout.js';
import type { GameDataManifest, ManifestFileEntry } from '../../api/_lib/formats/manifest.js';
import { ARCHIVED, CATEGORY_STATUS, LOAD_ORDER, type FileKind } from '../pipeline/layout.js';
import type { CatalogConfig, Emitted } from '../pipeline/types.js';

/**
 * The manifest file: build id and file table (from `fileTable` in `build/pipeline/emit.ts`), catalog names and
 * URLs, versions, category statuses, the load order with the presence of each file, and the archived,
 * design-only and retired source files.
 * @param kinds kind of every collected source file (its path relative to the source folder).
 * @param retired retired file names (never published).
 */
export function deriveManifest(args: {
  config: CatalogConfig;
  table: { readonly files: readonly ManifestFileEntry[]; readonly buildId: string };
  kinds: ReadonlyMap<string, FileKind>;
  retired: ReadonlySet<string>;
}): Emitted {
  const { config, table, kinds, retired } = args;
  const present = new Set(table.files.map((f) => f.path));
  const nameOf = (p: string): string => p.split('/').pop() ?? p;
  const live = [...kinds].filter(([, k]) => k !== 'retired').map(([p]) => p);
  const body: GameDataManifest = {
    buildId: table.buildId,
    catalog: config.name,
    baseUrl: config.baseUrl,
    cdnUrl: config.cdnUrl,
    versions: config.versions,
    categories: CATEGORY_STATUS,
    loadOrder: LOAD_ORDER.map((s) => ({ name: s.name, file: s.file, present: s.file !== null && present.has(publishedFile(s.file)) })),
    archived: live.filter((p) => Object.hasOwn(ARCHIVED, nameOf(p))).map((p) => ({ file: p, replacedBy: ARCHIVED[nameOf(p)]! })),
    designOnly: [...kinds].filter(([, k]) => k === 'design').map(([p]) => p),
    retired: [...retired].sort(),
    totalFiles: table.files.length,
    totalBytes: table.files.reduce((n, f) => n + f.bytes, 0),
    files: table.files,
  };
  return { path: MANIFEST_FILE, body };
}
