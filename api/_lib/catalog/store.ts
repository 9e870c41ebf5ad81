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
 */
import { createReadStream } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { join } from 'node:path';
import { ServiceError } from '../errors.js';
import { getCatalogDir, onConfigChange } from '../config.js';
import { MANIFEST_FILE } from '../formats/layout.js';

const cache = new Map<string, Promise<unknown>>();
onConfigChange(() => cache.clear());

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
    throw new ServiceError('UPSTREAM_UNAVAILABLE', `Catalog data "${relPath}" is not available; run the catalog build.`, { cause });
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
      const missing = (cause as NodeJS.ErrnoException).code === 'ENOENT';
      throw new ServiceError(
        'UPSTREAM_UNAVAILABLE',
        `Catalog data "${relPath}" is ${missing ? 'not available; run the catalog build' : 'corrupt; rebuild the catalog'}.`,
        { cause },
      );
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
    throw new ServiceError('UPSTREAM_UNAVAILABLE', `Catalog data "${relPath}" is not available; run the catalog build.`, { cause });
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
