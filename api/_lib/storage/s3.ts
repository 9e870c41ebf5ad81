/**
 * The `s3` storage adapter (spec 4.7): any S3-compatible endpoint through `@aws-sdk/client-s3`, configured
 * by `S3_ENDPOINT`, `S3_BUCKET`, `S3_ACCESS_KEY_ID`, `S3_SECRET_ACCESS_KEY`, `S3_REGION` and `S3_PUBLIC_URL`
 * (`api/_lib/config.ts` validates them together).
 *
 * - Path-style addressing (`forcePathStyle`), which every S3-compatible server understands.
 * - Checksums only where the protocol requires them (`WHEN_REQUIRED`): the SDK's default CRC trailers use
 *   `aws-chunked` uploads that several S3-compatible servers refuse. Each PUT carries `Content-MD5` of the
 *   staged bytes instead, so the server refuses bytes damaged on the way, and `Content-Length`.
 * - Listing is `ListObjectsV2` with `StartAfter` (the last key of the previous page), in S3's UTF-8 byte
 *   order; S3 does not list content types, so a listed object's `contentType` is the one its key's
 *   extension stands for under the upload allow-list (`content-types.ts`), which uploads enforce.
 * - Every failure to reach the endpoint, and every refusal by it (bucket missing, credentials refused),
 *   is 503 UPSTREAM_UNAVAILABLE: none of them is the client's doing. The secret key is never logged.
 */
import { createReadStream } from 'node:fs';
import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
  S3ServiceException,
} from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import type { Readable } from 'node:stream';
import type { StorageConfig } from '../config.js';
import { ServiceError } from '../errors.js';
import { contentTypeOfKey } from './content-types.js';
import { encodeKeyPath } from './keys.js';
import type { ListOptions, ListPage, StagedFile, StorageAdapter, StoredObject } from './types.js';

/** The S3 adapter, plus presigned uploads (spec 4.7: large files go straight to the bucket). */
export interface S3StorageAdapter extends StorageAdapter {
  readonly driver: 's3';
  /**
   * A presigned PUT URL for `key` that accepts exactly `size` bytes of `contentType`, valid `expiresS` seconds.
   * The client sends `PUT <url>` with the same `Content-Type` and `Content-Length`.
   */
  presignPut(key: string, contentType: string, size: number, expiresS: number): Promise<string>;
  /** Close the client's connections. */
  close(): void;
}

const notFound = (e: unknown) =>
  e instanceof S3ServiceException && (e.$metadata.httpStatusCode === 404 || e.name === 'NotFound' || e.name === 'NoSuchKey');

function unavailable(e: unknown): ServiceError {
  return new ServiceError('UPSTREAM_UNAVAILABLE', 'The object storage cannot be reached or refused the request; try again.', { cause: e });
}

/** Open the adapter for an `s3` storage configuration. */
export function s3StorageAdapter(config: Extract<StorageConfig, { driver: 's3' }>): S3StorageAdapter {
  const client = new S3Client({
    endpoint: config.endpoint,
    region: config.region,
    forcePathStyle: true,
    credentials: { accessKeyId: config.accessKeyId, secretAccessKey: config.secretAccessKey.reveal() },
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    maxAttempts: 3,
  });
  const Bucket = config.bucket;
  const base = config.publicUrl.replace(/\/+$/, '');
  const call = async <T>(send: () => Promise<T>): Promise<T> => {
    try {
      return await send();
    } catch (e) {
      throw unavailable(e);
    }
  };

  return {
    driver: 's3',

    async put(key: string, file: StagedFile, contentType: string): Promise<StoredObject> {
      const out = await call(() =>
        client.send(
          new PutObjectCommand({
            Bucket,
            Key: key,
            Body: createReadStream(file.path),
            ContentLength: file.size,
            ContentType: contentType,
            ContentMD5: Buffer.from(file.md5, 'hex').toString('base64'),
            Metadata: { sha256: file.sha256 },
          }),
        ),
      );
      return { key, size: file.size, contentType, etag: out.ETag ?? `"${file.md5}"`, lastModified: new Date().toISOString() };
    },

    async head(key: string): Promise<StoredObject | undefined> {
      try {
        const h = await client.send(new HeadObjectCommand({ Bucket, Key: key }));
        return {
          key,
          size: h.ContentLength ?? 0,
          contentType: h.ContentType ?? contentTypeOfKey(key),
          etag: h.ETag ?? '',
          lastModified: (h.LastModified ?? new Date(0)).toISOString(),
        };
      } catch (e) {
        if (notFound(e)) return undefined;
        throw unavailable(e);
      }
    },

    async get(key: string) {
      try {
        const o = await client.send(new GetObjectCommand({ Bucket, Key: key }));
        const object: StoredObject = {
          key,
          size: o.ContentLength ?? 0,
          contentType: o.ContentType ?? contentTypeOfKey(key),
          etag: o.ETag ?? '',
          lastModified: (o.LastModified ?? new Date(0)).toISOString(),
        };
        return { object, body: o.Body as Readable };
      } catch (e) {
        if (notFound(e)) return undefined;
        throw unavailable(e);
      }
    },

    async delete(key: string): Promise<void> {
      await call(() => client.send(new DeleteObjectCommand({ Bucket, Key: key })));
    },

    async list({ prefix, startAfter, limit }: ListOptions): Promise<ListPage> {
      const out = await call(() =>
        client.send(new ListObjectsV2Command({ Bucket, Prefix: prefix || undefined, StartAfter: startAfter, MaxKeys: limit })),
      );
      const items = (out.Contents ?? []).map((o): StoredObject => ({
        key: o.Key ?? '',
        size: o.Size ?? 0,
        contentType: contentTypeOfKey(o.Key ?? ''),
        etag: o.ETag ?? '',
        lastModified: (o.LastModified ?? new Date(0)).toISOString(),
      }));
      return { items, hasMore: out.IsTruncated === true };
    },

    publicUrl(key: string): string {
      return `${base}/${encodeKeyPath(key)}`;
    },

    async presignPut(key: string, contentType: string, size: number, expiresS: number): Promise<string> {
      // Content-Type and Content-Length are signed headers, so the storage refuses any other type or size
      return call(() =>
        getSignedUrl(client, new PutObjectCommand({ Bucket, Key: key, ContentType: contentType, ContentLength: size }), {
          expiresIn: expiresS,
          signableHeaders: new Set(['content-type', 'content-length']),
        }),
      );
    },

    close(): void {
      client.destroy();
    },
  };
}
