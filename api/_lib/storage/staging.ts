/**
 * Staging of uploaded bytes (spec 4.7; docs/architecture.md, "Storage"): every file of an upload is first
 * streamed to a private temporary file, counting, hashing (SHA-256 and MD5) and capping as it flows, so
 * that memory stays flat whatever the file size, a file over its limit is refused before anything is
 * stored, and the type can be sniffed from the bytes before the storage sees them. On Vercel the
 * temporary folder is `/tmp`, the only writable place.
 */
import { createHash, randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { ServiceError } from '../errors.js';
import type { StagedFile } from './types.js';

/** A folder of staged files for one request; {@link StagingArea.dispose} removes it and all it holds. */
export interface StagingArea {
  /** Stream `source` into a new staged file of at most `maxBytes` bytes. */
  stage(source: Readable, maxBytes: number, label: string): Promise<StagedFile>;
  /** Remove every staged file. Never throws. */
  dispose(): Promise<void>;
}

/** Thrown inside the byte counter when a file passes its cap; turned into a 413 by {@link StagingArea.stage}. */
class TooLarge extends Error {}

/** A 413 for a file over `maxBytes`. */
export function fileTooLarge(label: string, maxBytes: number): ServiceError {
  return new ServiceError(
    'PAYLOAD_TOO_LARGE',
    `${label} is larger than ${maxBytes} bytes, the most one file may hold; nothing was stored.`,
  );
}

/**
 * Open a staging area under the system's temporary folder (mode 0700 folder, files 0600).
 * @throws the file system's error when the temporary folder cannot be created.
 */
export async function openStaging(): Promise<StagingArea> {
  const dir = await mkdtemp(join(tmpdir(), 'storage-staging-'));
  return {
    async stage(source, maxBytes, label) {
      const path = join(dir, randomUUID());
      const sha256 = createHash('sha256');
      const md5 = createHash('md5');
      let size = 0;
      const counter = new Transform({
        transform(chunk: Buffer, _encoding, callback) {
          size += chunk.length;
          if (size > maxBytes) {
            callback(new TooLarge());
            return;
          }
          sha256.update(chunk);
          md5.update(chunk);
          callback(null, chunk);
        },
      });
      try {
        await pipeline(source, counter, createWriteStream(path, { mode: 0o600 }));
      } catch (e) {
        await rm(path, { force: true });
        if (e instanceof TooLarge) throw fileTooLarge(label, maxBytes);
        throw e;
      }
      return { path, size, sha256: sha256.digest('hex'), md5: md5.digest('hex') };
    },
    async dispose() {
      await rm(dir, { recursive: true, force: true }).catch(() => undefined);
    },
  };
}
