/**
 * A catalog's own `{cdn_url}` files (docs/architecture.md, "Sample binaries"): the folder `cdn/` inside the
 * catalog source folder mirrors `{cdn_url}`, each file at its storage key (`cdn/game-assets/icons/misc/lantern.png`
 * is `{cdn_url}/game-assets/icons/misc/lantern.png`, spec §1.4, §4.9). The build never reads it (it collects
 * `*.json` only, and nothing under `cdn/` is JSON). `npm start` (dev/server.ts) puts each file into the
 * `local` storage and builds the catalog with the storage's public URL as `{cdn_url}`, so the catalog
 * browser and the operator console show the catalog's pictures from the local server.
 */
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { join, relative, resolve, sep } from 'node:path';
import type { StorageConfig } from '../api/_lib/config.js';
import { checkContent } from '../api/_lib/storage/content-types.js';
import { keyProblem } from '../api/_lib/storage/keys.js';
import type { StorageAdapter } from '../api/_lib/storage/types.js';

/** Name of the folder of `{cdn_url}` files inside a catalog source folder. */
export const CDN_FILES_DIR = 'cdn';

/** One file of a catalog's `cdn/` folder: its storage key and its absolute path. */
export interface CdnFile {
  readonly key: string;
  readonly path: string;
}

/**
 * Every file under `<src>/cdn/`, with its key (the path below the folder, `/`-separated), sorted by key;
 * empty when the folder does not exist. Dot-files are left out.
 */
export async function listCdnFiles(src: string): Promise<CdnFile[]> {
  const dir = resolve(src, CDN_FILES_DIR);
  if (!existsSync(dir)) return [];
  const out: CdnFile[] = [];
  for (const e of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (!e.isFile() || e.name.startsWith('.')) continue;
    const path = join(e.parentPath, e.name);
    out.push({ key: relative(dir, path).split(sep).join('/'), path });
  }
  return out.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}

/**
 * The `{cdn_url}` a local build of the catalog in `src` uses: the `local` storage's public URL
 * (`STORAGE_PUBLIC_URL`, default `http://localhost:$PORT/storage`) when the catalog has a `cdn/` folder and
 * the storage is `local`; undefined otherwise (the config's `cdn_url` stands, e.g. for a catalog whose
 * binaries live on a real CDN).
 */
export function localCdnUrl(src: string, storage: StorageConfig): string | undefined {
  if (storage.driver !== 'local' || !existsSync(resolve(src, CDN_FILES_DIR))) return undefined;
  return storage.publicUrl.replace(/\/+$/, '');
}

/** What {@link placeCdnFiles} did. */
export interface PlaceReport {
  /** Keys written (new, or with other bytes than the stored object). */
  readonly placed: readonly string[];
  /** Keys already stored with the same bytes (same MD5 entity tag and content type). */
  readonly kept: readonly string[];
  /** Files storage would not take, with why (the rules of an upload: the key, the sniffed type and its extension). */
  readonly refused: readonly { readonly key: string; readonly reason: string }[];
}

/**
 * Put every file of `<src>/cdn/` into `adapter` at its key, as an upload would store it (its content type
 * sniffed from the bytes, `api/_lib/storage/content-types.ts`; a key or type an upload refuses is refused
 * here too and reported, never stored). An object already stored with the same bytes is left as it is.
 * @throws ServiceError UPSTREAM_UNAVAILABLE when the storage cannot be written.
 */
export async function placeCdnFiles(src: string, adapter: StorageAdapter): Promise<PlaceReport> {
  const placed: string[] = [];
  const kept: string[] = [];
  const refused: { key: string; reason: string }[] = [];
  for (const file of await listCdnFiles(src)) {
    const problem = keyProblem(file.key);
    if (problem !== undefined) {
      refused.push({ key: file.key, reason: problem });
      continue;
    }
    const check = await checkContent(file.path, file.key.split('/').pop()!);
    if (!check.ok) {
      refused.push({ key: file.key, reason: check.reason });
      continue;
    }
    const bytes = await readFile(file.path);
    const md5 = createHash('md5').update(bytes).digest('hex');
    const stored = await adapter.head(file.key);
    if (stored && stored.etag === `"${md5}"` && stored.contentType === check.contentType) {
      kept.push(file.key);
      continue;
    }
    const sha256 = createHash('sha256').update(bytes).digest('hex');
    await adapter.put(file.key, { path: file.path, size: bytes.length, sha256, md5 }, check.contentType);
    placed.push(file.key);
  }
  return { placed, kept, refused };
}
