/**
 * Binary storage routes (spec 4.7, 4.9; docs/architecture.md, "Storage"). The spec shows no
 * authentication for storage (5.6); here every route is admin only, by the ledger's admin rules: a token
 * whose role is admin or master, or `X-Admin-Password` equal to `ADMIN_PASSWORD` (`api/_lib/auth/guard.ts`).
 * The caller is checked before a byte of the body is read.
 *
 * Paths (declared in `api/_lib/routing/table.ts`):
 * - `POST /api/storage/upload`: multipart, one file in field `file`, optional field `folder`
 *   (`schemas/requests/storage-upload.schema.json`). 201 `{ key, url, size, contentType, etag, sha256 }`
 *   (`schemas/responses/storage-upload.schema.json`) with `Location: url`; a key the rules refuse is 400,
 *   bytes of a type not taken or not fitting the name are 415.
 * - `POST /api/storage/upload-multi`: field `files`, 1 to 50 files, optional `folder`. 200 `{ stored,
 *   refused, results }`, one result per file (`api/_lib/storage/service.ts`).
 * - `POST /api/storage/upload-zip`: one archive in field `file` plus field `folder` (required). 200
 *   `{ folder, stored, refused, skipped: { directories, macos, dotfiles }, results }`; an unsafe archive is
 *   400 and stores nothing (`api/_lib/storage/zip.ts`).
 * - `DELETE /api/storage/{key}` (the key may contain `/`): 204 whether or not the object existed; the key
 *   is unregistered from the metadata index too (a 503 there leaves the object deleted: send the DELETE again).
 * - `GET /api/storage/list?prefix=&cursor=&limit=`: `{ items: [{ key, size, contentType, lastModified,
 *   etag }], cursor, hasMore }`, key order (UTF-8 bytes), `limit` 1-1000 (default 100; above 1000 lowered,
 *   with `X-Limit-Requested`/`X-Limit-Applied`); `cursor` is the opaque text of the previous page's answer
 *   (the last key it listed, so a page never repeats or skips a key however objects change between calls).
 * - `POST /api/storage/presign` (JSON `{ key, contentType, size }`): on the `s3` storage, a presigned PUT
 *   valid {@link PRESIGN_EXPIRES_S} seconds for exactly that type and size; 409 on the `local` storage.
 * - `POST /api/storage/register` (JSON `{ entries: [{ key, purpose }] }`, 1 to 100, distinct keys; spec 4.9):
 *   register stored binaries in the metadata index (`api/_lib/asset-index/`) with what the storage reports
 *   for each (type, size, ETag), in one atomic write. 200 `{ registered, refused, results }`; a key with
 *   no object in storage is refused (`NOT_STORED`) and the rest are registered.
 * - `GET /api/storage/index?prefix=&cursor=&limit=`: the index in key order, `{ items, cursor, hasMore }`.
 *
 * Limits: multipart as `api/_lib/storage/multipart.ts` (`STORAGE_MAX_FILE_BYTES` a file, default 100 MiB,
 * 413 beyond), archives as `zip.ts` (the same cap on each entry). Every refusal is problem+json 4xx and stores nothing; storage failures are 503.
 */
import { getServiceConfig } from './_lib/config.js';
import { requireAdmin } from './_lib/auth/guard.js';
import { checkBody, readJsonBody } from './_lib/http/body.js';
import { clampHeaders, defineEntry, parseQuery, plainJson, ServiceError, type RouteContext } from './_lib/http/index.js';
import { contentTypeOfKey, ACCEPTED } from './_lib/storage/content-types.js';
import { keyProblem } from './_lib/storage/keys.js';
import { FORM_LIMITS, receiveMultipart } from './_lib/storage/multipart.js';
import type { S3StorageAdapter } from './_lib/storage/s3.js';
import { assetIndex } from './_lib/asset-index/store.js';
import type { AssetEntry, AssetPurpose } from './_lib/asset-index/types.js';
import { checkFolder, storeFiles, type FileResult } from './_lib/storage/service.js';
import { openStaging, type StagingArea } from './_lib/storage/staging.js';
import { storage } from './_lib/storage/store.js';
import { readArchive, ZIP_LIMITS } from './_lib/storage/zip.js';

/** Files one `upload-multi` request may carry. */
export const MAX_MULTI_FILES = 50;
/** Lifetime of a presigned upload URL, seconds. */
export const PRESIGN_EXPIRES_S = 300;

/** Query parameters of `GET /api/storage/list` and `/api/storage/index` (also read by the OpenAPI document). */
export const LIST_SPEC = {
  prefix: { kind: 'string', maxLength: 1024 },
  cursor: { kind: 'string', maxLength: 1400 },
  limit: { kind: 'int', min: 1, max: 1000, default: 100, clamp: true },
} as const;

/** Multipart limits of a route taking at most `maxFiles` files, each at most `STORAGE_MAX_FILE_BYTES`. */
const limitsOf = (maxFiles: number) => ({ ...FORM_LIMITS, maxFiles, maxFileBytes: getServiceConfig().storageMaxFileBytes });

/** Run `work` with a staging area that is removed afterwards, whatever happens. */
async function withStaging<T>(work: (staging: StagingArea) => Promise<T>): Promise<T> {
  const staging = await openStaging();
  try {
    return await work(staging);
  } finally {
    await staging.dispose();
  }
}

const counts = (results: readonly FileResult[]) => ({
  stored: results.filter((r) => r.status === 'stored').length,
  refused: results.filter((r) => r.status === 'refused').length,
});

/** The cursor of a listing page: base64url of the last key listed. */
const encodeCursor = (key: string) => Buffer.from(key, 'utf8').toString('base64url');

/** @throws ServiceError INVALID_QUERY when the text is not a cursor of this API. */
function decodeCursor(cursor: string): string {
  const key = Buffer.from(cursor, 'base64url').toString('utf8');
  if (encodeCursor(key) !== cursor || keyProblem(key) !== undefined) {
    throw new ServiceError('INVALID_QUERY', 'The cursor is not a cursor of this listing; start again without one.', {
      errors: [{ name: 'cursor', message: 'Not a cursor of this API.' }],
    });
  }
  return key;
}

/** Something that lists pages of keyed items after a key: the storage, the asset index. */
interface Paged {
  list(options: {
    prefix: string;
    startAfter: string | undefined;
    limit: number;
  }): Promise<{ readonly items: readonly { readonly key: string }[]; readonly hasMore: boolean }>;
}

/**
 * The `GET` handler of a listing (`list`, `index`): admin check, `prefix`/`cursor`/`limit`, then `{ items,
 * cursor, hasMore }` with the cursor after the last item when more follow, `no-store`.
 */
const pagedListing =
  (source: () => Promise<Paged>) =>
  async ({ request, url }: RouteContext): Promise<Response> => {
    await requireAdmin(request, getServiceConfig());
    const parsed = parseQuery(url.searchParams, LIST_SPEC);
    const { prefix = '', cursor, limit } = parsed.values;
    const startAfter = cursor === undefined ? undefined : decodeCursor(cursor);
    const page = await (await source()).list({ prefix, startAfter, limit });
    const last = page.items.at(-1);
    return plainJson({ items: page.items, cursor: page.hasMore && last ? encodeCursor(last.key) : null, hasMore: page.hasMore }, 200, {
      'Cache-Control': 'no-store',
      ...clampHeaders(parsed.clamped, 'limit'),
    });
  };

/** The method exports (see the file header). */
export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = defineEntry('storage', {
  upload: {
    POST: async ({ request }) => {
      await requireAdmin(request, getServiceConfig());
      return withStaging(async (staging) => {
        const received = await receiveMultipart(request, staging, ['file'], limitsOf(1));
        const fields = checkBody<{ folder?: string }>('storage-upload', received.fields);
        const file = received.files[0];
        if (!file)
          throw new ServiceError('INVALID_BODY', 'Send one file in form field "file".', {
            errors: [{ name: 'file', message: 'No file was sent.' }],
          });
        const [result] = await storeFiles(await storage(), [file], checkFolder(fields.folder));
        if (result!.status === 'refused') {
          const code = result!.code === 'INVALID_KEY' ? 'INVALID_BODY' : 'UNSUPPORTED_MEDIA_TYPE';
          throw new ServiceError(code, `${result!.reason} Nothing was stored.`, {
            errors: [{ name: 'file', message: `${result!.code}: ${result!.reason}`, value: file.name }],
          });
        }
        const { key, url, size, contentType, etag, sha256 } = result!;
        return plainJson({ key, url, size, contentType, etag, sha256 }, 201, { Location: url });
      });
    },
  },
  'upload-multi': {
    POST: async ({ request }) => {
      await requireAdmin(request, getServiceConfig());
      return withStaging(async (staging) => {
        const received = await receiveMultipart(request, staging, ['files'], limitsOf(MAX_MULTI_FILES));
        const fields = checkBody<{ folder?: string }>('storage-upload', received.fields);
        if (received.files.length === 0)
          throw new ServiceError('INVALID_BODY', 'Send 1 to 50 files in form field "files".', {
            errors: [{ name: 'files', message: 'No file was sent.' }],
          });
        const results = await storeFiles(await storage(), received.files, checkFolder(fields.folder));
        return plainJson({ ...counts(results), results });
      });
    },
  },
  'upload-zip': {
    POST: async ({ request }) => {
      await requireAdmin(request, getServiceConfig());
      return withStaging(async (staging) => {
        const received = await receiveMultipart(request, staging, ['file'], limitsOf(1));
        const fields = checkBody<{ folder: string }>('storage-upload-zip', received.fields);
        const archive = received.files[0];
        if (!archive)
          throw new ServiceError('INVALID_BODY', 'Send the archive in form field "file".', {
            errors: [{ name: 'file', message: 'No file was sent.' }],
          });
        const folder = checkFolder(fields.folder);
        const contents = await readArchive(archive.staged.path, staging, {
          ...ZIP_LIMITS,
          maxEntryBytes: getServiceConfig().storageMaxFileBytes,
        });
        const results = await storeFiles(await storage(), contents.files, folder);
        return plainJson({ folder, ...counts(results), skipped: contents.skipped, results });
      });
    },
  },
  list: { GET: pagedListing(storage) },
  register: {
    POST: async ({ request }) => {
      await requireAdmin(request, getServiceConfig());
      const body = await readJsonBody<{ entries: { key: string; purpose: AssetPurpose }[] }>(request, { schema: 'storage-register' });
      const dup = body.entries.map((e) => e.key).find((k, i, all) => all.indexOf(k) !== i);
      if (dup !== undefined)
        throw new ServiceError('INVALID_BODY', 'A key is listed twice in the batch; list each key once.', {
          errors: [{ name: '/entries', message: 'Duplicate key.', value: dup.slice(0, 200) }],
        });
      const adapter = await storage();
      const now = new Date().toISOString();
      const results: Record<string, unknown>[] = [];
      const accepted: { index: number; entry: AssetEntry }[] = [];
      for (const e of body.entries) {
        const problem = keyProblem(e.key);
        const object = problem ? undefined : await adapter.head(e.key);
        if (problem || !object) {
          results.push({
            key: e.key,
            status: 'refused',
            code: problem ? 'INVALID_KEY' : 'NOT_STORED',
            reason: problem ?? 'No object is stored under this key; upload it first.',
          });
          continue;
        }
        const entry: AssetEntry = {
          key: e.key,
          purpose: e.purpose,
          contentType: object.contentType,
          size: object.size,
          etag: object.etag,
          registeredAt: now,
        };
        accepted.push({ index: results.length, entry });
        results.push({ ...entry });
      }
      if (accepted.length > 0) {
        const statuses = await (await assetIndex()).register(accepted.map((a) => a.entry));
        accepted.forEach((a, i) => (results[a.index] = { ...a.entry, status: statuses[i] }));
      }
      return plainJson({ registered: accepted.length, refused: results.length - accepted.length, results });
    },
  },
  index: { GET: pagedListing(assetIndex) },
  object: {
    DELETE: async ({ request, key = '' }) => {
      await requireAdmin(request, getServiceConfig());
      const problem = keyProblem(key);
      if (problem)
        throw new ServiceError('INVALID_QUERY', `The path names no storage key: ${problem}`, {
          errors: [{ name: 'key', message: problem }],
        });
      await (await storage()).delete(key);
      // a deleted binary is registered no more (a deployment without a store has no index)
      if (getServiceConfig().store.driver !== 'none') await (await assetIndex()).unregister(key);
      return new Response(null, { status: 204 });
    },
  },
  presign: {
    POST: async ({ request }) => {
      await requireAdmin(request, getServiceConfig());
      const body = await readJsonBody<{ key: string; contentType: string; size: number }>(request, { schema: 'storage-presign' });
      const problem = keyProblem(body.key);
      if (problem) throw new ServiceError('INVALID_BODY', problem, { errors: [{ name: '/key', message: problem }] });
      const expected = contentTypeOfKey(body.key);
      const taken = Object.values(ACCEPTED).some((t) => t.contentType === expected);
      if (!taken || body.contentType.toLowerCase() !== expected) {
        const message = taken
          ? `A key ending in this extension takes content type ${expected}.`
          : 'The key does not end in an extension storage takes (images, models, audio, video).';
        throw new ServiceError('UNSUPPORTED_MEDIA_TYPE', message, { errors: [{ name: '/contentType', message }] });
      }
      const adapter = await storage();
      if (adapter.driver !== 's3')
        throw new ServiceError(
          'CONFLICT',
          'Presigned uploads need the s3 storage (STORAGE_DRIVER=s3); upload through POST /api/storage/upload instead.',
        );
      const url = await (adapter as S3StorageAdapter).presignPut(body.key, expected, body.size, PRESIGN_EXPIRES_S);
      return plainJson({
        key: body.key,
        method: 'PUT',
        url,
        headers: { 'Content-Type': expected, 'Content-Length': String(body.size) },
        expiresAt: new Date(Date.now() + PRESIGN_EXPIRES_S * 1000).toISOString(),
        publicUrl: adapter.publicUrl(body.key),
      });
    },
  },
});
