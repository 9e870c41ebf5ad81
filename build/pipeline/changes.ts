/**
 * Stage 5, emit, continued (docs/architecture.md, "Build"): the change feed and the versioned copies of the
 * catalog (format and sync protocol: `api/_lib/formats/changes.ts`).
 *
 * The previous published build is the output folder this build replaces (read before the swap), or the
 * folder `previous.ts` names or fills from the deployed site (catalog config `previousBuild`): its
 * manifest, its game-data registry and the files whose hash changed. A first build (no manifest there)
 * lists every file and definition as added. The versioned copy of a build is its catalog: every file of
 * its manifest's table except the serving structures derived from the catalog, which a consumer
 * rebuilds or queries live: the per-item files of the collections (`api/v1/{collection}/{key}.json`), the
 * collection indexes (`api/v1/collections/*.cidx`), the search indexes (`*search-index.json`) and the
 * exports (`api/v1/exports/**`). It adds the build's manifest and change feed. The copies of
 * the previous builds that the catalog config keeps (`keepBuilds`, newest first, this one included) are
 * carried over from the previous output unchanged.
 */
import { existsSync, readFileSync } from 'node:fs';
import { cp } from 'node:fs/promises';
import { join } from 'node:path';
import {
  CHANGES_FILE,
  VERSIONS_FILE,
  compareBuilds,
  versionedFile,
  type BuildSide,
  type ChangeFeed,
  type FileHash,
  type RegistryPlace,
  type VersionList,
} from '../../api/_lib/formats/changes.js';
import { COLLECTION_NAMES } from '../../api/_lib/formats/collection-index.js';
import { MANIFEST_FILE, MASTER_REGISTRY_FILE, publishedFile } from '../../api/_lib/formats/layout.js';
import { isRecord, valueAtPointer } from '../../api/_lib/util/json.js';
import type { OutputFile } from './emit.js';

/** What {@link changeOutputs} needs of the build being emitted. */
export interface CurrentBuild {
  readonly buildId: string;
  /** The manifest's file table. */
  readonly files: readonly FileHash[];
  /** Every output file by path (the table's files, the manifest among them or not). */
  readonly outputs: ReadonlyMap<string, OutputFile>;
  /** The manifest as written. */
  readonly manifest: OutputFile;
  /** How many builds keep a versioned copy, this one included (catalog config `keepBuilds`). */
  readonly keepBuilds: number;
}

/** The change feed, this build's versioned copy and the version list, and the kept copies to carry over. */
export interface ChangeOutputs {
  readonly feed: ChangeFeed;
  /** Files to write with the build's outputs. */
  readonly files: readonly OutputFile[];
  /** Copy these folders of the previous output into the staging folder (`copyKept`). */
  readonly kept: readonly string[];
}

/** Files left out of a versioned copy (module docstring). */
export const NOT_VERSIONED = new RegExp(
  `^api/v1/(?:(?:${COLLECTION_NAMES.join('|')})/[^/]+\\.json|collections/[^/]+\\.cidx|(?:[^/]+-)?search-index\\.json|exports/.+)$`,
);

/**
 * True when `path`, read from a previous build (a file of its manifest, or the published file of a registry
 * entry), names a file inside the output folder: `/` between non-empty segments, none `.` or `..`, not
 * absolute, no backslash or control character.
 */
export function isOutputPath(path: string): boolean {
  if (path === '' || path.length > 1024 || path.startsWith('/') || /[\\\u0000-\u001f\u007f]/.test(path)) return false;
  return path.split('/').every((s) => s !== '' && s !== '.' && s !== '..');
}

/** Definitions of a registry document (`byUuid`), or an empty map for anything else. */
function definitionsOf(registry: unknown): Map<string, RegistryPlace> {
  const out = new Map<string, RegistryPlace>();
  const byUuid = isRecord(registry) && isRecord(registry.byUuid) ? registry.byUuid : {};
  for (const [id, e] of Object.entries(byUuid)) {
    if (isRecord(e) && typeof e.kind === 'string' && typeof e.file === 'string' && typeof e.pointer === 'string')
      out.set(id, { kind: e.kind, file: e.file, pointer: e.pointer });
  }
  return out;
}

/** A `record` reader over output files read by `read` (each parsed once). */
function recordReader(read: (path: string) => Buffer | undefined): BuildSide['record'] {
  const parsed = new Map<string, unknown>();
  return (_id, entry) => {
    const path = publishedFile(entry.file);
    if (!parsed.has(path)) {
      const bytes = read(path);
      let doc: unknown;
      try {
        doc = bytes ? (JSON.parse(bytes.toString('utf8')) as unknown) : undefined;
      } catch {
        doc = undefined;
      }
      parsed.set(path, doc);
    }
    const v = valueAtPointer(parsed.get(path), entry.pointer);
    return v === undefined ? undefined : JSON.stringify(v);
  };
}

const readJson = (file: string): unknown => {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as unknown;
  } catch {
    return undefined;
  }
};

/**
 * The change feed of `current` against the output folder `out` it replaces, this build's versioned copy,
 * and the updated version list (module docstring). Reads `out`; writes nothing.
 */
export function changeOutputs(out: string, current: CurrentBuild): ChangeOutputs {
  const prevManifest = readJson(join(out, MANIFEST_FILE));
  let previous: BuildSide | undefined;
  if (isRecord(prevManifest) && typeof prevManifest.buildId === 'string' && Array.isArray(prevManifest.files)) {
    const files = (prevManifest.files as unknown[]).filter(
      (f): f is FileHash => isRecord(f) && typeof f.path === 'string' && typeof f.sha256 === 'string' && typeof f.bytes === 'number',
    );
    previous = {
      buildId: prevManifest.buildId,
      files,
      definitions: definitionsOf(readJson(join(out, MASTER_REGISTRY_FILE))),
      // a previous registry may name any file: only one inside the output folder is read
      record: recordReader((path) => {
        if (!isOutputPath(path)) return undefined;
        try {
          return readFileSync(join(out, path));
        } catch {
          return undefined;
        }
      }),
    };
  }
  const registry = current.outputs.get(MASTER_REGISTRY_FILE);
  const feed = compareBuilds(
    {
      buildId: current.buildId,
      files: current.files,
      definitions: definitionsOf(registry ? (JSON.parse(registry.bytes.toString('utf8')) as unknown) : undefined),
      record: recordReader((path) => current.outputs.get(path)?.bytes),
    },
    previous,
    publishedFile,
  );
  const feedFile: OutputFile = { path: CHANGES_FILE, bytes: Buffer.from(JSON.stringify(feed)) };

  const before = readJson(join(out, VERSIONS_FILE));
  const listed = isRecord(before) && Array.isArray(before.builds) ? (before.builds as unknown[]) : [];
  const kept = listed
    .filter(
      (b): b is VersionList['builds'][number] =>
        isRecord(b) && typeof b.buildId === 'string' && /^[0-9a-f]{20}$/.test(b.buildId) && b.buildId !== current.buildId,
    )
    .filter((b) => existsSync(join(out, versionedFile(b.buildId, MANIFEST_FILE))))
    .slice(0, Math.max(0, current.keepBuilds - 1));
  const list: VersionList = {
    builds: [
      { buildId: current.buildId, previousBuildId: feed.previousBuildId },
      ...kept.map((b) => ({ buildId: b.buildId, previousBuildId: b.previousBuildId ?? null })),
    ],
  };

  const files: OutputFile[] = [feedFile, { path: VERSIONS_FILE, bytes: Buffer.from(JSON.stringify(list)) }];
  for (const f of current.files) {
    if (NOT_VERSIONED.test(f.path)) continue;
    // every file of the table is an output
    files.push({ path: versionedFile(current.buildId, f.path), bytes: current.outputs.get(f.path)!.bytes });
  }
  files.push({ path: versionedFile(current.buildId, MANIFEST_FILE), bytes: current.manifest.bytes });
  files.push({ path: versionedFile(current.buildId, CHANGES_FILE), bytes: feedFile.bytes });
  return { feed, files, kept: kept.map((b) => versionedFile(b.buildId, '').replace(/\/$/, '')) };
}

/** Copy the kept versioned folders `kept` (paths relative to the output) from `out` into `staging`. */
export async function copyKept(out: string, staging: string, kept: readonly string[]): Promise<void> {
  for (const dir of kept) await cp(join(out, dir), join(staging, dir), { recursive: true });
}
