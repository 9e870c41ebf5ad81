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
 *   (`api/_lib/storage/listing.ts`).
 * - `POST /api/storage/presign` (JSON `{ key, contentType, size }`): on the `s3` storage, a presigned PUT
 *   valid `PRESIGN_EXPIRES_S` seconds (`api/_lib/storage/presign.ts`) for exactly that type and size; 409 on the `local` storage.
 * - `POST /api/storage/register` (JSON `{ entries: [{ key, purpose }] }`, 1 to 100, distinct keys; spec 4.9):
 *   register stored binaries in the metadata index (`api/_lib/asset-index/register.ts`) with what the storage reports
 *   for each (type, size, ETag), in one atomic write. 200 `{ registered, refused, results }`; a key with
 *   no object in storage is refused (`NOT_STORED`) and the rest are registered.
 * - `GET /api/storage/index?prefix=&cursor=&limit=`: the index in key order, `{ items, cursor, hasMore }`.
 *
 * Limits: multipart as `api/_lib/storage/multipart.ts` (`STORAGE_MAX_FILE_BYTES` a file, default 100 MiB,
 * 413 beyond), archives as `zip.ts` (the same cap on each entry). Every refusal is problem+json 4xx and stores nothing; storage failures are 503.
 */
import { getServiceConfig } from './_lib/config.js';
import { readJsonBody } from './_lib/http/body.js';
import { checkBody } from './_lib/validation/check.js';
import { clampHeaders, defineEntry, parseQuery, plainJson, ServiceError, type RouteContext } from './_lib/http/index.js';
import { FORM_LIMITS, receiveMultipart } from './_lib/storage/multipart.js';
import { assetIndex } from './_lib/asset-index/store.js';
import { registerAssets, type RegisterRequestEntry } from './_lib/asset-index/register.js';
import { listPage, type PagedSource } from './_lib/storage/listing.js';
import { presignUpload, type PresignBody } from './_lib/storage/presign.js';
import { checkFolder, deleteObject, storeFiles, storeOne, type FileResult } from './_lib/storage/service.js';
import { openStaging, type StagingArea } from './_lib/storage/staging.js';
import { storage } from './_lib/storage/store.js';
import { readArchive, ZIP_LIMITS } from './_lib/storage/zip.js';
import { recordAudit } from './_lib/audit/service.js';

/** Files one `upload-multi` request may carry. */
export const MAX_MULTI_FILES = 50;

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

/** The `GET` handler of a listing (`list`, `index`): `prefix`/`cursor`/`limit`, then the page, `no-store`. */
const pagedListing =
  (source: () => Promise<PagedSource<{ readonly key: string }>>) =>
  async ({ url }: RouteContext): Promise<Response> => {
    const parsed = parseQuery(url.searchParams, LIST_SPEC);
    const page = await listPage(await source(), parsed.values);
    return plainJson(page, 200, { 'Cache-Control': 'no-store', ...clampHeaders(parsed.clamped, 'limit') });
  };

/** The method exports (see the file header). */
export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = defineEntry(
  'storage',
  {
    upload: {
      POST: ({ request }) =>
        withStaging(async (staging) => {
          const received = await receiveMultipart(request, staging, ['file'], limitsOf(1));
          const fields = checkBody<{ folder?: string }>('storage-upload', received.fields);
          const stored = await storeOne(await storage(), received.files[0], checkFolder(fields.folder));
          return plainJson(stored, 201, { Location: stored.url });
        }),
    },
    'upload-multi': {
      POST: ({ request }) =>
        withStaging(async (staging) => {
          const received = await receiveMultipart(request, staging, ['files'], limitsOf(MAX_MULTI_FILES));
          const fields = checkBody<{ folder?: string }>('storage-upload', received.fields);
          if (received.files.length === 0)
            throw new ServiceError('INVALID_BODY', 'Send 1 to 50 files in form field "files".', {
              errors: [{ name: 'files', message: 'No file was sent.' }],
            });
          const results = await storeFiles(await storage(), received.files, checkFolder(fields.folder));
          return plainJson({ ...counts(results), results });
        }),
    },
    'upload-zip': {
      POST: ({ request }) =>
        withStaging(async (staging) => {
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
        }),
    },
    list: { GET: pagedListing(storage) },
    register: {
      POST: async ({ request }) => {
        const body = await readJsonBody<{ entries: RegisterRequestEntry[] }>(request, { schema: 'storage-register' });
        return plainJson(await registerAssets(storage, assetIndex, body.entries));
      },
    },
    index: { GET: pagedListing(assetIndex) },
    object: {
      DELETE: async ({ key = '' }) => {
        // a deployment without a store has no index to take the key out of
        const unregister = getServiceConfig().store.driver === 'none' ? undefined : async (k: string) => (await assetIndex()).unregister(k);
        await deleteObject(await storage(), unregister, key);
        return new Response(null, { status: 204 });
      },
    },
    presign: {
      POST: async ({ request }) => {
        const body = await readJsonBody<PresignBody>(request, { schema: 'storage-presign' });
        return plainJson(await presignUpload(storage, body));
      },
    },
  },
  { audit: recordAudit },
);
