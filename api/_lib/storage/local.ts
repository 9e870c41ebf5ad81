/**
 * The `local` storage adapter (spec 4.7): objects in a folder (`DATA_DIR/storage` by default), for
 * development and single-machine use; refused on Vercel, whose functions can write only to `/tmp`
 * (`api/_lib/config.ts`).
 *
 * Layout (docs/architecture.md, "Storage"): a key never becomes a path, so no key can reach outside the
 * folder and `a/b` and `a/b/c` can both exist, as on S3. Under `<dir>/objects/`:
 * - `<h>.json`, `h` the hex SHA-256 of the key: the object's record `{ key, size, contentType, etag,
 *   lastModified, file }`; the record's presence is the object's existence;
 * - `<h>.<md5>`: the bytes of one version, named by the record's `file`.
 * A write copies the bytes to their version file, then replaces the record in one rename, then removes
 * the previous version's bytes; a reader opens the file its record names, so it sees the old object or
 * the new one, never a mix. A delete removes the record, then the bytes. Files are not fsynced (a
 * development store).
 *
 * Listing reads every record, sorts keys by UTF-8 bytes (S3's order) and pages with `startAfter`.
 */
import { createHash, randomUUID } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { chmod, copyFile, mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ServiceError } from '../errors.js';
import { encodeKeyPath } from './keys.js';
import type { ListOptions, ListPage, StagedFile, StorageAdapter, StoredObject } from './types.js';

interface LocalRecord extends StoredObject {
  /** Name of the bytes file in the objects folder. */
  readonly file: string;
}

/** Compare two keys by their UTF-8 bytes (the order S3 lists in). */
export function compareKeys(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}

/** Wrap a file-system failure as a 503 (the folder is the storage's "upstream"). */
function unavailable(e: unknown): ServiceError {
  return new ServiceError('UPSTREAM_UNAVAILABLE', 'The storage folder cannot be used right now; try again.', { cause: e });
}

/**
 * Open the adapter on `dir` (created when missing).
 * @param publicUrl public URL prefix of the objects (`STORAGE_PUBLIC_URL`), without a trailing `/`.
 */
export function localStorageAdapter(dir: string, publicUrl: string): StorageAdapter {
  const objects = join(dir, 'objects');
  let ready: Promise<unknown> | undefined;
  // the data folder and what it holds are the service's alone: folders 0700, files 0600
  const ensure = () => (ready ??= mkdir(objects, { recursive: true, mode: 0o700 }));
  const hashOf = (key: string) => createHash('sha256').update(key, 'utf8').digest('hex');

  const readRecord = async (path: string): Promise<LocalRecord | undefined> => {
    try {
      return JSON.parse(await readFile(path, 'utf8')) as LocalRecord;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw unavailable(e);
    }
  };
  const publicOf = ({ key, size, contentType, etag, lastModified }: LocalRecord): StoredObject => ({
    key,
    size,
    contentType,
    etag,
    lastModified,
  });

  return {
    driver: 'local',

    async put(key: string, file: StagedFile, contentType: string): Promise<StoredObject> {
      await ensure();
      const h = hashOf(key);
      const recordPath = join(objects, `${h}.json`);
      const previous = await readRecord(recordPath);
      const record: LocalRecord = {
        key,
        size: file.size,
        contentType,
        etag: `"${file.md5}"`,
        lastModified: new Date().toISOString(),
        file: `${h}.${file.md5}`,
      };
      try {
        const tmpBytes = join(objects, `.tmp-${randomUUID()}`);
        await copyFile(file.path, tmpBytes);
        await chmod(tmpBytes, 0o600);
        await rename(tmpBytes, join(objects, record.file));
        const tmpRecord = join(objects, `.tmp-${randomUUID()}`);
        await writeFile(tmpRecord, JSON.stringify(record), { mode: 0o600 });
        await rename(tmpRecord, recordPath);
        if (previous && previous.file !== record.file) await rm(join(objects, previous.file), { force: true });
      } catch (e) {
        throw unavailable(e);
      }
      return publicOf(record);
    },

    async head(key: string): Promise<StoredObject | undefined> {
      const record = await readRecord(join(objects, `${hashOf(key)}.json`));
      return record && publicOf(record);
    },

    async get(key: string) {
      const record = await readRecord(join(objects, `${hashOf(key)}.json`));
      if (!record) return undefined;
      return { object: publicOf(record), body: createReadStream(join(objects, record.file)) };
    },

    async delete(key: string): Promise<void> {
      const recordPath = join(objects, `${hashOf(key)}.json`);
      const record = await readRecord(recordPath);
      if (!record) return;
      try {
        await rm(recordPath, { force: true });
        await rm(join(objects, record.file), { force: true });
      } catch (e) {
        throw unavailable(e);
      }
    },

    async list({ prefix, startAfter, limit }: ListOptions): Promise<ListPage> {
      await ensure();
      let names: string[];
      try {
        names = (await readdir(objects)).filter((n) => n.endsWith('.json') && !n.startsWith('.'));
      } catch (e) {
        throw unavailable(e);
      }
      const records = (await Promise.all(names.map((n) => readRecord(join(objects, n))))).filter(
        (r): r is LocalRecord =>
          r !== undefined && r.key.startsWith(prefix) && (startAfter === undefined || compareKeys(r.key, startAfter) > 0),
      );
      records.sort((a, b) => compareKeys(a.key, b.key));
      return { items: records.slice(0, limit).map(publicOf), hasMore: records.length > limit };
    },

    publicUrl(key: string): string {
      return `${publicUrl}/${encodeKeyPath(key)}`;
    },
  };
}
