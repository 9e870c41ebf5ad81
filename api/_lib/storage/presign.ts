/**
 * Presigned uploads (spec 4.7; docs/architecture.md, "Storage"): a browser or tool PUTs a large binary
 * straight to the bucket, past the function's 4.5 MB body limit. The key must pass the key rules and end
 * in an extension storage takes, and the content type must be the one that extension means: the
 * signature binds the type and the exact length, so the bucket refuses any other.
 */
import { ServiceError } from '../errors.js';
import { systemClock, type Clock } from '../stores/clock.js';
import { ACCEPTED, contentTypeOfKey } from './content-types.js';
import { keyProblem, normalizeKey } from './keys.js';
import type { S3StorageAdapter } from './s3.js';
import type { StorageAdapter } from './types.js';

/** Lifetime of a presigned upload URL, seconds. */
export const PRESIGN_EXPIRES_S = 300;

/** Body of `POST /api/storage/presign` (schema `storage-presign`). */
export interface PresignBody {
  readonly key: string;
  readonly contentType: string;
  /** Bytes the upload will carry. */
  readonly size: number;
}

/** A presigned PUT as answered. */
export interface PresignedUpload {
  readonly key: string;
  readonly method: 'PUT';
  readonly url: string;
  /** Headers the PUT must carry exactly. */
  readonly headers: { readonly 'Content-Type': string; readonly 'Content-Length': string };
  /** ISO 8601 UTC. */
  readonly expiresAt: string;
  readonly publicUrl: string;
}

/**
 * A presigned PUT for exactly `body.key`, its type and size, valid {@link PRESIGN_EXPIRES_S} seconds.
 * @param storage the storage, opened once the body passed its checks.
 * @throws ServiceError INVALID_BODY (a key the rules refuse), UNSUPPORTED_MEDIA_TYPE (an extension not
 *   taken, or a type other than the extension's), CONFLICT (the storage is not s3), 503
 */
export async function presignUpload(
  storage: () => Promise<StorageAdapter>,
  body: PresignBody,
  clock: Clock = systemClock,
): Promise<PresignedUpload> {
  const key = normalizeKey(body.key);
  const problem = keyProblem(key);
  if (problem) throw new ServiceError('INVALID_BODY', problem, { errors: [{ name: '/key', message: problem }] });
  const expected = contentTypeOfKey(key);
  const taken = Object.values(ACCEPTED).some((t) => t.contentType === expected);
  if (!taken || body.contentType.toLowerCase() !== expected) {
    const message = taken
      ? `A key ending in this extension takes content type ${expected}.`
      : 'The key does not end in an extension storage takes (images, models, audio, video).';
    throw new ServiceError('UNSUPPORTED_MEDIA_TYPE', message, { errors: [{ name: '/contentType', message }] });
  }
  const adapter = await storage();
  if (adapter.driver !== 's3') {
    throw new ServiceError(
      'CONFLICT',
      'Presigned uploads need the s3 storage (STORAGE_DRIVER=s3); upload through POST /api/storage/upload instead.',
    );
  }
  const url = await (adapter as S3StorageAdapter).presignPut(key, expected, body.size, PRESIGN_EXPIRES_S);
  return {
    key,
    method: 'PUT',
    url,
    headers: { 'Content-Type': expected, 'Content-Length': String(body.size) },
    expiresAt: new Date(clock().getTime() + PRESIGN_EXPIRES_S * 1000).toISOString(),
    publicUrl: adapter.publicUrl(key),
  };
}
