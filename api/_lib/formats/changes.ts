/**
 * The change feed (`api/v1/changes.json`, schema `schemas/output/changes.schema.json`; spec §4.1, §9.1, §9.2)
 * and the versioned copies of the catalog (`v/{buildId}/api/v1/...`): what a CDN consumer reads to stay in
 * sync without downloading the catalog again. Pure: shapes, paths and the comparison; the build does the I/O
 * (`build/pipeline/changes.ts`).
 *
 * Sync protocol for a consumer holding build B:
 * 1. read `api/v1/changes.json`; when its `previousBuildId` is B, apply it: fetch the files under `files.added`
 *    and `files.changed` (their `sha256` checks the bytes), drop `files.removed`; `kinds` names the definition
 *    ids behind those files (added, removed, changed per kind) for consumers that keep records, not files;
 * 2. when `previousBuildId` is not B, B is older than the last build: read `api/v1/versions.json` and walk the kept
 *    builds' own change feeds (`v/{id}/api/v1/changes.json`) forward from B; when B is no longer kept, fetch
 *    the catalog again from the manifest.
 */

/** Format tag of the change feed. */
export const CHANGES_FORMAT = 'game-data-changes/1';

/** Path of the change feed, beside the manifest. */
export const CHANGES_FILE = 'api/v1/changes.json';

/** Folder of the versioned copies: `v/{buildId}/api/v1/...`. */
export const VERSIONS_DIR = 'v';

/** The list of kept builds, newest first (beside the manifest, not under `v/`: it changes with every build) (`{ builds: [{ buildId, previousBuildId }] }`). */
export const VERSIONS_FILE = 'api/v1/versions.json';

/** Path of `path` (an output path such as `api/v1/weapons.json`) in the versioned copy of build `buildId`. */
export function versionedFile(buildId: string, path: string): string {
  return `${VERSIONS_DIR}/${buildId}/${path}`;
}

/** One file of a build: path, size in bytes and SHA-256 of its bytes (hex), as the manifest lists it. */
export interface FileHash {
  readonly path: string;
  readonly bytes: number;
  readonly sha256: string;
}

/** Ids of one definition kind (`weapon`, `skill`, …, as the game-data registry names kinds) that a build added, removed or changed, each sorted. */
export interface KindChanges {
  readonly added: readonly string[];
  readonly removed: readonly string[];
  readonly changed: readonly string[];
}

/** `api/v1/changes.json`. */
export interface ChangeFeed {
  readonly format: typeof CHANGES_FORMAT;
  /** This build. */
  readonly buildId: string;
  /** The build it is compared with (the output it replaced), or null for a first build (then everything is added). */
  readonly previousBuildId: string | null;
  /** Definition kind → ids; kinds without a change are left out. */
  readonly kinds: Readonly<Record<string, KindChanges>>;
  /** Files of the manifest's table that were added, removed or changed, each sorted by path. */
  readonly files: {
    readonly added: readonly FileHash[];
    readonly removed: readonly FileHash[];
    readonly changed: readonly (FileHash & { readonly previousSha256: string })[];
  };
}

/** `api/v1/versions.json`: the builds kept under `v/`, newest first. */
export interface VersionList {
  readonly builds: readonly { readonly buildId: string; readonly previousBuildId: string | null }[];
}

/**
 * A definition as the game-data registry lists it (`master-registry.json` `byUuid`, written by
 * `build/derive/core.ts`): its kind, where it lives (source file and RFC 6901 pointer), its name, category
 * and tier when it has them, and the other files that define the same id.
 */
export interface RegistryEntry {
  readonly kind: string;
  readonly file: string;
  readonly pointer: string;
  readonly name: string | null;
  readonly category: string | null;
  readonly tier: number | null;
  readonly alsoIn: readonly string[];
}

/** What the comparison reads of a registry entry: the kind and the place. */
export type RegistryPlace = Pick<RegistryEntry, 'kind' | 'file' | 'pointer'>;

/** One side of a comparison: the build's files and definitions, and a way to read a definition's JSON. */
export interface BuildSide {
  readonly buildId: string;
  /** The manifest's file table. */
  readonly files: readonly FileHash[];
  /** Definition id → registry entry. */
  readonly definitions: ReadonlyMap<string, RegistryPlace>;
  /**
   * The definition's record as compact JSON, or undefined when it cannot be read. Called only for ids
   * both builds hold whose file changed or moved.
   */
  readonly record: (id: string, entry: RegistryPlace) => string | undefined;
}

/**
 * The change feed of `current` against `previous` (the output it replaces; undefined for a first build).
 * A definition counts as changed when its record's JSON differs, or when it moved to another kind (listed
 * under the new kind); one whose file kept its hash is unchanged without being read.
 * @param publishedPath maps a registry `file` (a source path) to the output path holding it.
 */
export function compareBuilds(current: BuildSide, previous: BuildSide | undefined, publishedPath: (file: string) => string): ChangeFeed {
  const prevFiles = new Map((previous?.files ?? []).map((f) => [f.path, f.sha256]));
  const curFiles = new Map(current.files.map((f) => [f.path, f.sha256]));
  const byPath = (a: FileHash, b: FileHash): number => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0);
  const plain = (f: FileHash): FileHash => ({ path: f.path, bytes: f.bytes, sha256: f.sha256 });
  const files = {
    added: current.files
      .filter((f) => !prevFiles.has(f.path))
      .map(plain)
      .sort(byPath),
    removed: (previous?.files ?? [])
      .filter((f) => !curFiles.has(f.path))
      .map(plain)
      .sort(byPath),
    changed: current.files
      .filter((f) => prevFiles.has(f.path) && prevFiles.get(f.path) !== f.sha256)
      .map((f) => ({ ...plain(f), previousSha256: prevFiles.get(f.path)! }))
      .sort(byPath),
  };

  const kinds = new Map<string, { added: string[]; removed: string[]; changed: string[] }>();
  const of = (kind: string): { added: string[]; removed: string[]; changed: string[] } => {
    let k = kinds.get(kind);
    if (!k) kinds.set(kind, (k = { added: [], removed: [], changed: [] }));
    return k;
  };
  const prevDefs = previous?.definitions ?? new Map<string, RegistryPlace>();
  for (const [id, entry] of current.definitions) {
    const before = prevDefs.get(id);
    if (!before) {
      of(entry.kind).added.push(id);
      continue;
    }
    const path = publishedPath(entry.file);
    const sameFile =
      before.file === entry.file && before.pointer === entry.pointer && prevFiles.get(path) === curFiles.get(path) && curFiles.has(path);
    if (before.kind !== entry.kind || (!sameFile && current.record(id, entry) !== previous!.record(id, before)))
      of(entry.kind).changed.push(id);
  }
  for (const [id, entry] of prevDefs) if (!current.definitions.has(id)) of(entry.kind).removed.push(id);

  const sorted: Record<string, KindChanges> = {};
  for (const kind of [...kinds.keys()].sort()) {
    const k = kinds.get(kind)!;
    sorted[kind] = { added: k.added.sort(), removed: k.removed.sort(), changed: k.changed.sort() };
  }
  return { format: CHANGES_FORMAT, buildId: current.buildId, previousBuildId: previous?.buildId ?? null, kinds: sorted, files };
}
