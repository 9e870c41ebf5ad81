/**
 * Where the previous published build comes from (docs/architecture.md, "Build"; docs/deploy.md, "The
 * change feed across builds"). The change feed and the kept versioned copies (`changes.ts`) compare with
 * the previous build's files. By default they are the output folder this build replaces, which is there
 * on one long-lived machine but never on a fresh build container (Vercel builds each deployment from a
 * clean checkout). The catalog config's `previousBuild` (or the build's `--previous`) names a durable
 * place instead:
 *
 * - a **folder** holding a previous output (`dist/` kept by a CI cache, a synced copy): read as it is;
 * - the **base URL of the deployed site** (`https://game.example.com`): the files the comparison reads are
 *   fetched from the site's own static output into a scratch folder first ({@link fetchPreviousBuild}):
 *   `api/v1/game-data-manifest.json`, `api/v1/master-registry.json`, `api/v1/versions.json`, the files of
 *   the previous table that hold definitions and whose hash differs from this build's, and every file of
 *   the kept versioned copies (`v/{buildId}/…`). Every fetched file is checked against the sha256 its
 *   manifest lists, so a page that is not the file (an HTML error page, a newer deployment) stops the build.
 *
 * A site that answers 404 for its manifest has never published a build: this build is the first (every
 * file and definition added). Any other failure (unreachable, 5xx, a file whose hash differs) stops the
 * build rather than publish a feed that would tell every consumer that everything changed.
 */
import { createHash } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { CHANGES_FILE, VERSIONS_FILE, versionedFile, type FileHash } from '../../api/_lib/formats/changes.js';
import { MANIFEST_FILE, MASTER_REGISTRY_FILE, publishedFile } from '../../api/_lib/formats/layout.js';
import { isRecord } from '../../api/_lib/util/json.js';
import { NOT_VERSIONED } from './changes.js';

/** Thrown when the previous build cannot be read from its URL; the build stops with it (exit 2). */
export class PreviousBuildError extends Error {
  override readonly name = 'PreviousBuildError';
}

/** True when `source` is an http(s) URL rather than a folder. */
export function isPreviousUrl(source: string): boolean {
  return /^https?:\/\//i.test(source);
}

/** Options of {@link fetchPreviousBuild}. */
export interface FetchPreviousOptions {
  /** `fetch` to use (tests pass a fake); default the global one. */
  readonly fetch?: typeof fetch;
  /** Requests at a time; default 8. */
  readonly concurrency?: number;
}

/** What {@link fetchPreviousBuild} found: the previous build id (null: the site has published none) and how many files it fetched. */
export interface FetchedPrevious {
  readonly buildId: string | null;
  readonly files: number;
}

const tableOf = (manifest: unknown): FileHash[] =>
  isRecord(manifest) && Array.isArray(manifest.files)
    ? (manifest.files as unknown[]).filter(
        (f): f is FileHash => isRecord(f) && typeof f.path === 'string' && typeof f.sha256 === 'string' && typeof f.bytes === 'number',
      )
    : [];

/**
 * Fetch what the comparison with the previous build reads from the deployed site at `base` into the
 * folder `into`, laid out as an output folder (module header).
 * @param current this build's id and file table (only the files that differ are fetched).
 * @param keepBuilds the catalog config's `keepBuilds` (this build included).
 * @throws PreviousBuildError naming the URL when the site cannot be read or a file is not what its
 *   manifest lists.
 */
export async function fetchPreviousBuild(
  base: string,
  into: string,
  current: { readonly buildId: string; readonly files: readonly FileHash[] },
  keepBuilds: number,
  options: FetchPreviousOptions = {},
): Promise<FetchedPrevious> {
  const get = options.fetch ?? fetch;
  const root = base.replace(/\/+$/, '');
  let fetched = 0;
  /** The bytes of `path`, or undefined for a 404; checked against `sha256` when given. */
  const download = async (path: string, sha256?: string): Promise<Buffer | undefined> => {
    const url = `${root}/${path.split('/').map(encodeURIComponent).join('/')}`;
    let res: Response;
    try {
      res = await get(url, { headers: { 'Cache-Control': 'no-cache' } });
    } catch (e) {
      throw new PreviousBuildError(`The previous build cannot be read: ${url} cannot be reached (${(e as Error).message}).`);
    }
    if (res.status === 404) {
      await res.body?.cancel();
      return undefined;
    }
    if (res.status !== 200) {
      await res.body?.cancel();
      throw new PreviousBuildError(`The previous build cannot be read: ${url} answered ${res.status}.`);
    }
    const bytes = Buffer.from(await res.arrayBuffer());
    if (sha256 !== undefined && createHash('sha256').update(bytes).digest('hex') !== sha256)
      throw new PreviousBuildError(`The previous build cannot be read: ${url} is not the file its manifest lists (another sha256).`);
    await mkdir(dirname(join(into, path)), { recursive: true });
    await writeFile(join(into, path), bytes);
    fetched++;
    return bytes;
  };
  const json = (bytes: Buffer | undefined): unknown => {
    if (bytes === undefined) return undefined;
    try {
      return JSON.parse(bytes.toString('utf8')) as unknown;
    } catch {
      throw new PreviousBuildError(`The previous build cannot be read: a file of ${root} is not JSON.`);
    }
  };
  /** Download `paths` (with their hashes), `concurrency` at a time; a listed file that is missing is an error. */
  const downloadAll = async (files: readonly { path: string; sha256?: string }[]): Promise<void> => {
    let next = 0;
    let failure: Error | undefined;
    const worker = async (): Promise<void> => {
      while (failure === undefined && next < files.length) {
        const f = files[next++]!;
        try {
          if ((await download(f.path, f.sha256)) === undefined)
            throw new PreviousBuildError(
              `The previous build cannot be read: ${root}/${f.path} is listed by its manifest but answered 404.`,
            );
        } catch (e) {
          failure ??= e instanceof Error ? e : new Error(String(e));
        }
      }
    };
    // every worker stops before the first failure is thrown, so the caller can remove the folder
    await Promise.all(Array.from({ length: Math.max(1, options.concurrency ?? 8) }, worker));
    if (failure !== undefined) throw failure;
  };

  const manifest = json(await download(MANIFEST_FILE));
  if (manifest === undefined) return { buildId: null, files: 0 };
  if (!isRecord(manifest) || typeof manifest.buildId !== 'string')
    throw new PreviousBuildError(`The previous build cannot be read: ${root}/${MANIFEST_FILE} is not a catalog manifest.`);
  const table = tableOf(manifest);
  const hashOf = new Map(table.map((f) => [f.path, f.sha256]));
  const registry = json(await download(MASTER_REGISTRY_FILE, hashOf.get(MASTER_REGISTRY_FILE)));

  // the files whose records the comparison may read: those of a definition whose file differs from this build's
  const now = new Map(current.files.map((f) => [f.path, f.sha256]));
  const holding = new Set<string>();
  const byUuid = isRecord(registry) && isRecord(registry.byUuid) ? registry.byUuid : {};
  for (const e of Object.values(byUuid)) if (isRecord(e) && typeof e.file === 'string') holding.add(publishedFile(e.file));
  await downloadAll(
    [...holding]
      .filter((p) => hashOf.has(p) && hashOf.get(p) !== now.get(p) && p !== MASTER_REGISTRY_FILE)
      .map((path) => ({ path, sha256: hashOf.get(path)! })),
  );

  // the kept versioned copies, as changes.ts will choose them
  const versions = json(await download(VERSIONS_FILE));
  const listed = isRecord(versions) && Array.isArray(versions.builds) ? (versions.builds as unknown[]) : [];
  const ids = listed
    .map((b) => (isRecord(b) && typeof b.buildId === 'string' && /^[0-9a-f]{20}$/.test(b.buildId) ? b.buildId : undefined))
    .filter((id): id is string => id !== undefined && id !== current.buildId);
  let kept = 0;
  for (const id of ids) {
    if (kept >= keepBuilds - 1) break;
    const copy = json(await download(versionedFile(id, MANIFEST_FILE)));
    if (copy === undefined) continue;
    kept++;
    const files = tableOf(copy)
      .filter((f) => !NOT_VERSIONED.test(f.path))
      .map((f) => ({ path: versionedFile(id, f.path), sha256: f.sha256 }));
    await downloadAll([...files, { path: versionedFile(id, CHANGES_FILE) }]);
  }
  return { buildId: manifest.buildId, files: fetched };
}
