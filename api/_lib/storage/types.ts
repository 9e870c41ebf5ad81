/**
 * Binary storage (spec 1.4, 4.7, 9.4): the port both adapters implement (`local.ts`, `s3.ts`) and the shapes
 * of stored objects. Binaries reach clients through `{cdn_url}` (the adapter's public URL), never through
 * the catalog. Keys are checked by `keys.ts` before an adapter sees them; adapters may assume a valid key.
 */

/** One stored object, as listings and uploads describe it. */
export interface StoredObject {
  /** The object's key (`keys.ts`). */
  readonly key: string;
  /** Size in bytes. */
  readonly size: number;
  /** Content type recorded at upload (sniffed from the bytes, `content-types.ts`). */
  readonly contentType: string;
  /** Entity tag as the storage reports it, quoted (`"<md5 hex>"` for a single upload). */
  readonly etag: string;
  /** Time of the last write, ISO 8601 UTC with milliseconds. */
  readonly lastModified: string;
}

/** A file staged on local disk, ready to be stored (`staging.ts`). */
export interface StagedFile {
  /** Absolute path of the staged bytes. */
  readonly path: string;
  /** Size in bytes. */
  readonly size: number;
  /** Hex SHA-256 of the bytes. */
  readonly sha256: string;
  /** Hex MD5 of the bytes (the ETag of a single upload, on both adapters). */
  readonly md5: string;
}

/** One page of a listing. */
export interface ListPage {
  /** Objects in ascending key order (UTF-8 byte order, as S3 lists). */
  readonly items: readonly StoredObject[];
  /** True when objects after the last item match the prefix. */
  readonly hasMore: boolean;
}

/** Options of {@link StorageAdapter.list}. */
export interface ListOptions {
  /** Only keys starting with this text ('' for all). */
  readonly prefix: string;
  /** Only keys after this one (exclusive), or undefined from the start. */
  readonly startAfter: string | undefined;
  /** Most items in the page, 1-1000. */
  readonly limit: number;
}

/** The storage port (docs/architecture.md, "Storage"). Every method rejects with ServiceError UPSTREAM_UNAVAILABLE when the storage cannot be reached. */
export interface StorageAdapter {
  /** `local` or `s3`. */
  readonly driver: 'local' | 's3';
  /** Store a staged file under `key` with `contentType`, replacing any object there; resolves when it is durable. */
  put(key: string, file: StagedFile, contentType: string): Promise<StoredObject>;
  /** The object under `key`, or undefined. */
  head(key: string): Promise<StoredObject | undefined>;
  /** The object and a stream of its bytes, or undefined. */
  get(key: string): Promise<{ readonly object: StoredObject; readonly body: NodeJS.ReadableStream } | undefined>;
  /** Remove the object under `key`; resolves the same whether or not it existed. */
  delete(key: string): Promise<void>;
  /** A page of objects in key order. */
  list(options: ListOptions): Promise<ListPage>;
  /** Public URL of `key` under the storage's public URL (`{cdn_url}/{key}`, each segment percent-encoded). */
  publicUrl(key: string): string;
}
