/**
 * What the storage routes do with received files (spec 4.7, 4.9): name each file's key, check the key
 * (`keys.ts`) and the bytes (`content-types.ts`), store what passes, and say per file what happened.
 *
 * Per file, in the order received:
 * - `stored`: `{ name, status, key, url, size, contentType, etag, sha256 }`;
 * - `refused`: `{ name, status, key?, code, reason }`, `code` one of `INVALID_KEY`, `DUPLICATE_KEY` (a
 *   second file with the same key in one request), `UNKNOWN_TYPE`, `TYPE_NOT_ALLOWED`, `EXTENSION_MISMATCH`.
 * A file refused does not stop the others. When the storage fails while storing (503), the objects this
 * request had stored are deleted again before the error is answered, so a failed request leaves no part
 * of itself behind (an object it replaced is not brought back).
 */
import { ServiceError } from '../errors.js';
import { checkContent } from './content-types.js';
import { joinKey, keyProblem, normalizeKey } from './keys.js';
import type { StagedFile, StorageAdapter } from './types.js';
import { noteConfirmedChange } from '../util/audit-scope.js';

/** A file ready to be stored: its name (an archive entry's path) and staged bytes. */
export interface IncomingFile {
  readonly name: string;
  readonly staged: StagedFile;
}

/** A stored file's answer (`POST /api/storage/upload` answers this without `name` and `status`). */
export interface StoredResult {
  readonly name: string;
  readonly status: 'stored';
  readonly key: string;
  readonly url: string;
  readonly size: number;
  readonly contentType: string;
  readonly etag: string;
  readonly sha256: string;
}

/** A refused file's answer. */
export interface RefusedResult {
  readonly name: string;
  readonly status: 'refused';
  readonly key?: string;
  readonly code: 'INVALID_KEY' | 'DUPLICATE_KEY' | 'UNKNOWN_TYPE' | 'TYPE_NOT_ALLOWED' | 'EXTENSION_MISMATCH';
  readonly reason: string;
}

/** One file's answer. */
export type FileResult = StoredResult | RefusedResult;

/**
 * The folder a form names, trimmed of `/` at both ends ('' for none).
 * @throws ServiceError INVALID_BODY when the folder is not a valid key prefix.
 */
export function checkFolder(folder: string | undefined): string {
  const f = normalizeKey((folder ?? '').trim().replace(/^\/+|\/+$/g, ''));
  if (f === '') return '';
  const problem = keyProblem(`${f}/x`);
  if (problem)
    throw new ServiceError('INVALID_BODY', `The folder cannot prefix a key: ${problem}`, {
      errors: [{ name: 'folder', message: problem, value: f.slice(0, 200) }],
    });
  return f;
}

/**
 * Check and store `files` under `folder`.
 * @returns one result per file, in order.
 * @throws ServiceError UPSTREAM_UNAVAILABLE when the storage fails (after deleting what this call stored).
 */
export async function storeFiles(adapter: StorageAdapter, files: readonly IncomingFile[], folder: string): Promise<FileResult[]> {
  // a slot per file: refusals are filled at once, accepted files once stored
  const results: (FileResult | undefined)[] = [];
  const accepted: { index: number; key: string; file: IncomingFile; contentType: string }[] = [];
  const keys = new Set<string>();
  for (const file of files) {
    const key = normalizeKey(joinKey(folder, file.name));
    const problem = keyProblem(key);
    if (problem) {
      results.push({ name: file.name, status: 'refused', code: 'INVALID_KEY', reason: problem });
      continue;
    }
    if (keys.has(key)) {
      results.push({
        name: file.name,
        status: 'refused',
        key,
        code: 'DUPLICATE_KEY',
        reason: 'Another file of this request has the same key; only the first is stored.',
      });
      continue;
    }
    const check = await checkContent(file.staged.path, file.name);
    if (!check.ok) {
      results.push({ name: file.name, status: 'refused', key, code: check.code, reason: check.reason });
      continue;
    }
    keys.add(key);
    accepted.push({ index: results.length, key, file, contentType: check.contentType });
    results.push(undefined);
  }
  try {
    for (const a of accepted) {
      const object = await adapter.put(a.key, a.file.staged, a.contentType);
      results[a.index] = {
        name: a.file.name,
        status: 'stored',
        key: a.key,
        url: adapter.publicUrl(a.key),
        size: object.size,
        contentType: object.contentType,
        etag: object.etag,
        sha256: a.file.staged.sha256,
      };
    }
  } catch (e) {
    // what this call stored so far: the accepted files whose slot is filled
    await Promise.allSettled(accepted.filter((a) => results[a.index]).map((a) => adapter.delete(a.key)));
    throw e;
  }
  // the request's audit record says object storage confirmed a change (docs/architecture.md, "Audit log")
  if (accepted.length > 0) noteConfirmedChange();
  // every accepted file was stored (a failure threw above), so every slot is filled
  return results as FileResult[];
}

/**
 * Store the one file of `POST /api/storage/upload` (spec 4.7): as {@link storeFiles}, with a refusal
 * answered as the request's refusal.
 * @returns the stored file's answer without `name` and `status`.
 * @throws ServiceError INVALID_BODY (no file, or a key the rules refuse), UNSUPPORTED_MEDIA_TYPE (bytes of
 *   a type not taken or not fitting the name), 503
 */
export async function storeOne(
  adapter: StorageAdapter,
  file: IncomingFile | undefined,
  folder: string,
): Promise<Omit<StoredResult, 'name' | 'status'>> {
  if (!file)
    throw new ServiceError('INVALID_BODY', 'Send one file in form field "file".', {
      errors: [{ name: 'file', message: 'No file was sent.' }],
    });
  const [result] = await storeFiles(adapter, [file], folder);
  if (result!.status === 'refused') {
    const code = result!.code === 'INVALID_KEY' ? 'INVALID_BODY' : 'UNSUPPORTED_MEDIA_TYPE';
    throw new ServiceError(code, `${result!.reason} Nothing was stored.`, {
      errors: [{ name: 'file', message: `${result!.code}: ${result!.reason}`, value: file.name }],
    });
  }
  const { key, url, size, contentType, etag, sha256 } = result!;
  return { key, url, size, contentType, etag, sha256 };
}

/**
 * Delete the object under `key` (spec 4.7), whether or not it exists, and take it out of the metadata
 * index (spec 4.9) when the deployment has one (a 503 there leaves the object deleted: send the DELETE
 * again).
 * @param unregister the index's removal, or undefined on a deployment without a store.
 * @throws ServiceError INVALID_QUERY when the path names no valid key; 503
 */
export async function deleteObject(
  adapter: StorageAdapter,
  unregister: ((key: string) => Promise<void>) | undefined,
  path: string,
): Promise<void> {
  const key = normalizeKey(path);
  const problem = keyProblem(key);
  if (problem)
    throw new ServiceError('INVALID_QUERY', `The path names no storage key: ${problem}`, { errors: [{ name: 'key', message: problem }] });
  await adapter.delete(key);
  noteConfirmedChange();
  await unregister?.(key);
}
