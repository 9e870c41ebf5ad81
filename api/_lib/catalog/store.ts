/**
 * The only reader of build output on the function side (docs/architecture.md): loads JSON files from the
 * catalog output folder once per process and hands out the parsed value, and hands out prebuilt bodies
 * (full exports) as bytes to send unchanged.
 *
 * The folder is `getCatalogDir()` (`CATALOG_DIR` alone, default `dist` resolved against the project root,
 * so a function started from any working directory finds its files, and no other variable can make the
 * catalog unavailable; `api/_lib/config.ts`, rule 5). The cache is dropped
 * when another configuration is put in force (`useServiceConfig`).
 * Missing or corrupt files become `UPSTREAM_UNAVAILABLE` (503, spec 7), never a 500; an invalid
 * `CATALOG_DIR` is a `ConfigError` (a 503 naming nothing internal), never reported as a corrupt catalog.
 * A file missing from an output that a build wrote (its manifest is there) is one the catalog's source
 * folder lacked: the answer names the source file and what it holds, and says to add it to the catalog
 * source folder (`sourcesOf`, api/_lib/formats/layout.ts), never to run a build that already ran; with
 * no manifest, no build ran, and the answer says to run it.
 */
import { createReadStream, existsSync } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { join } from 'node:path';
import { ServiceError } from '../errors.js';
import { getCatalogDir, onConfigChange } from '../config.js';
import { MANIFEST_FILE, sourcesOf, type OutputSources } from '../formats/layout.js';

const cache = new Map<string, Promise<unknown>>();
onConfigChange(() => cache.clear());

/** The source files each "lacked by its source folder" 503 names (see {@link unavailable}). */
const lacked = new WeakMap<ServiceError, readonly OutputSources[]>();

/** The 503 that names source files a build's source folder lacked, and says to add them (module header). */
function lackedSources(sources: readonly OutputSources[], cause: unknown): ServiceError {
  const files = [...new Set(sources.flatMap((s) => s.files))];
  const names = files.length === 1 ? files[0]! : `${files.slice(0, -1).join(', ')} and ${files[files.length - 1]!}`;
  const error = new ServiceError(
    'UPSTREAM_UNAVAILABLE',
    `This catalog has no ${names} (${sources.map((s) => s.holds).join('; ')}): its source folder had none when it was built. ` +
      `Add ${names} to the catalog source folder (catalog-src/ unless the build was given --src), then run the catalog build again.`,
    { cause },
  );
  lacked.set(error, sources);
  return error;
}

/**
 * The 503 for the output file `relPath` that could not be read (`cause`), worded by what is missing:
 * - no such file in an output a build wrote, made from named source files: `This catalog has no
 *   classes.json (…): its source folder had none when it was built. Add classes.json to the catalog source
 *   folder (catalog-src/ unless the build was given --src), then run the catalog build again.`;
 * - no such file in an output a build wrote, made from the whole catalog: the output is incomplete, rebuild;
 * - no build output at all, or another read error: run the catalog build.
 */
function unavailable(relPath: string, cause: unknown): ServiceError {
  const missing = (cause as NodeJS.ErrnoException | undefined)?.code === 'ENOENT';
  const built = missing && existsSync(join(getCatalogDir(), MANIFEST_FILE));
  const sources = built ? sourcesOf(relPath) : undefined;
  if (sources) return lackedSources([sources], cause);
  if (built)
    return new ServiceError('UPSTREAM_UNAVAILABLE', `Catalog data "${relPath}" is missing from the build output; rebuild the catalog.`, {
      cause,
    });
  return new ServiceError('UPSTREAM_UNAVAILABLE', `Catalog data "${relPath}" is not available; run the catalog build.`, { cause });
}

/**
 * The values of several catalog reads (e.g. {@link readCatalogJson} of three files), in order; when any
 * fails, one error: when two or more failed because the source folder lacked their files, one 503 naming
 * every such file (a route that needs classes, races and factions says all three at once); else the first
 * failure.
 * @throws ServiceError `UPSTREAM_UNAVAILABLE` (or whatever the first failed read threw).
 */
export async function readCatalogAll<T extends readonly unknown[]>(reads: { readonly [K in keyof T]: Promise<T[K]> }): Promise<T> {
  const settled = await Promise.allSettled(reads as readonly Promise<unknown>[]);
  const failures = settled.flatMap((r) => (r.status === 'rejected' ? [r.reason as unknown] : []));
  if (failures.length === 0) return settled.map((r) => (r as PromiseFulfilledResult<unknown>).value) as unknown as T;
  const named = failures.flatMap((e) => (e instanceof ServiceError ? (lacked.get(e) ?? []) : []));
  if (named.length > 1) throw lackedSources(named, failures[0]);
  throw failures[0];
}

/**
 * The value `load` gives for `key`, loaded once per process (a throw becomes a rejection); a failed load is
 * forgotten, so a later call retries.
 */
function once<T>(key: string, load: () => T | Promise<T>): Promise<T> {
  let hit = cache.get(key) as Promise<T> | undefined;
  if (!hit) {
    hit = Promise.resolve().then(load);
    cache.set(key, hit);
    hit.catch(() => cache.delete(key));
  }
  return hit;
}

/**
 * Parsed JSON of `relPath` (relative to the output folder, e.g. `api/v1/stats.json`), loaded once per
 * process; a failed load is not cached, so a later request retries.
 * @param parse optional transform run once on the parsed value (e.g. building an in-memory index). A
 *   file has one transform: every reader of a file with a transform must go through the same one (the
 *   first call's result is cached for the file, whatever transform a later call passes).
 * @throws ServiceError `UPSTREAM_UNAVAILABLE` when the file is missing, unreadable or not JSON, or `parse` throws.
 */
export function readCatalogJson<T>(relPath: string, parse?: (raw: unknown) => T): Promise<T> {
  // a NUL never occurs in a path, so a parsed value and the raw value of any file never share a key
  return once(parse ? `\0${relPath}` : relPath, () => load(relPath, parse));
}

async function load<T>(relPath: string, parse?: (raw: unknown) => T): Promise<T> {
  const file = join(getCatalogDir(), relPath);
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (cause) {
    throw unavailable(relPath, cause);
  }
  try {
    const raw: unknown = JSON.parse(text);
    return parse ? parse(raw) : (raw as T);
  } catch (cause) {
    throw new ServiceError('UPSTREAM_UNAVAILABLE', `Catalog data "${relPath}" is corrupt; rebuild the catalog.`, { cause });
  }
}

/**
 * A structure opened from the file `relPath` (relative to the output folder) by `open`, which is given the
 * file's absolute path and may keep it open (a collection index reads its items per request): once per
 * process; a failed open is not cached. Every reader of a file must pass the same `open`.
 * @throws ServiceError `UPSTREAM_UNAVAILABLE` when the file is missing or unreadable, or `open` throws.
 */
export function openCatalogFile<T>(relPath: string, open: (file: string) => T): Promise<T> {
  // a second NUL keeps opened files apart from parsed JSON of the same path
  return once(`\0\0${relPath}`, () => {
    // outside the try: a configuration error is not a corrupt catalog
    const file = join(getCatalogDir(), relPath);
    try {
      return open(file);
    } catch (cause) {
      if ((cause as NodeJS.ErrnoException).code === 'ENOENT') throw unavailable(relPath, cause);
      throw new ServiceError('UPSTREAM_UNAVAILABLE', `Catalog data "${relPath}" is corrupt; rebuild the catalog.`, { cause });
    }
  });
}

/** Largest prebuilt file {@link readCatalogBody} keeps in memory, bytes (16 MiB); larger ones are streamed from disk per request. */
export const BODY_CACHE_MAX_BYTES = 16 * 1024 * 1024;

const bodies = new Map<string, Promise<Uint8Array<ArrayBuffer> | number>>();
onConfigChange(() => bodies.clear());

/**
 * A prebuilt response body (`relPath` relative to the output folder, e.g. a full export), to send as it
 * is: the bytes, kept in memory once per process, for a file of at most {@link BODY_CACHE_MAX_BYTES};
 * a fresh stream from disk for a larger one. Nothing is parsed.
 * @throws ServiceError `UPSTREAM_UNAVAILABLE` when the file is missing or unreadable.
 */
export async function readCatalogBody(relPath: string): Promise<Uint8Array<ArrayBuffer> | ReadableStream<Uint8Array>> {
  const file = join(getCatalogDir(), relPath);
  let hit = bodies.get(relPath);
  if (!hit) {
    hit = stat(file).then(async (st): Promise<Uint8Array<ArrayBuffer> | number> =>
      st.size <= BODY_CACHE_MAX_BYTES ? new Uint8Array(await readFile(file)) : st.size,
    );
    bodies.set(relPath, hit);
    hit.catch(() => bodies.delete(relPath));
  }
  let found: Uint8Array<ArrayBuffer> | number;
  try {
    found = await hit;
  } catch (cause) {
    throw unavailable(relPath, cause);
  }
  return typeof found === 'number' ? (Readable.toWeb(createReadStream(file)) as ReadableStream<Uint8Array>) : found;
}

/** Build id of the catalog in use (the manifest's `buildId`), the base of every ETag. */
export async function catalogBuildId(): Promise<string> {
  const m = await readCatalogJson<{ buildId?: unknown }>(MANIFEST_FILE);
  if (typeof m.buildId !== 'string')
    throw new ServiceError('UPSTREAM_UNAVAILABLE', 'The game-data manifest has no buildId; rebuild the catalog.');
  return m.buildId;
}
