/**
 * Reading an uploaded archive (spec 4.7 `POST /api/storage/upload-zip`) with `yauzl`, which refuses
 * absolute names, `..` segments and backslashes (`strictFileNames`) and checks each entry's real size
 * against the size its header declares (`validateEntrySizes`).
 *
 * The archive is read twice. First its central directory (nothing is decompressed): the whole archive is
 * refused (400 INVALID_BODY, nothing stored) for an unsafe name, a symbolic link, an encrypted entry, more
 * than {@link ZIP_LIMITS}.maxEntries entries, more than `maxTotalBytes` uncompressed in all, an entry over
 * `maxEntryBytes`, or an entry that claims to grow more than `maxRatio` times (a zip bomb: 20 MB of zeros
 * deflate to about 20 KB). Then each kept entry is decompressed into the staging area, capped at its
 * declared size; an entry whose bytes are themselves an archive refuses the whole archive (no nested
 * archives). Skipped and counted, never stored: directory entries, anything under `__MACOSX/`, and
 * dot-files (any segment starting with `.`, such as `.DS_Store`).
 */
import { open } from 'node:fs/promises';
import { fileTypeFromFile } from 'file-type';
import type { Readable } from 'node:stream';
import yauzl, { type Entry, type ZipFile } from 'yauzl';
import { ServiceError } from '../errors.js';
import type { StagingArea } from './staging.js';
import type { IncomingFile } from './service.js';

/** Limits of one archive. */
export interface ZipLimits {
  readonly maxEntries: number;
  readonly maxTotalBytes: number;
  readonly maxEntryBytes: number;
  readonly maxRatio: number;
}

/** Defaults: 1,000 entries, 512 MiB in all (Vercel's `/tmp`), 100 MiB an entry, 100:1 an entry. */
export const ZIP_LIMITS: ZipLimits = Object.freeze({
  maxEntries: 1000,
  maxTotalBytes: 512 * 1024 * 1024,
  maxEntryBytes: 100 * 1024 * 1024,
  maxRatio: 100,
});

/** What an archive held. */
export interface ArchiveContents {
  /** Entries to store, by their path in the archive. */
  readonly files: readonly IncomingFile[];
  /** Entries skipped, by reason. */
  readonly skipped: { readonly directories: number; readonly macos: number; readonly dotfiles: number };
}

/**
 * Archive formats an entry may not be, by file-type's name, besides every zip-based one (`zip`, `jar`,
 * `apk`, `epub`, `docx`, …), which is recognised by its own signature (`PK` + 03 04, 05 06 or 07 08).
 */
const ARCHIVES = new Set(['gz', 'bz2', 'xz', 'zst', '7z', 'rar', 'lz4', 'cab', 'ar', 'deb', 'crx', 'tar']);

/** True when the file at `path` is an archive (see {@link ARCHIVES}). */
async function isArchive(path: string): Promise<string | undefined> {
  const type = await fileTypeFromFile(path);
  if (type && ARCHIVES.has(type.ext)) return type.ext;
  const head = Buffer.alloc(4);
  const fd = await open(path, 'r');
  try {
    await fd.read(head, 0, 4, 0);
  } finally {
    await fd.close();
  }
  return head.readUInt16BE(0) === 0x504b && [0x0304, 0x0506, 0x0708].includes(head.readUInt16BE(2)) ? 'zip' : undefined;
}

/** How a refusal names an entry: its path, cut to 200 characters. */
const entryLabel = (name: string) => `The entry "${name.slice(0, 200)}"`;

const refuse = (message: string, cause?: unknown) =>
  new ServiceError('INVALID_BODY', `${message} Nothing was stored.`, { errors: [{ name: 'file', message }], cause });

/** True for a symbolic link (Unix mode in the high 16 bits of the external attributes). */
function isSymlink(entry: Entry): boolean {
  return ((entry.externalFileAttributes >>> 16) & 0o170000) === 0o120000;
}

/** Open the archive at `path` for lazy reading. */
function openZip(path: string): Promise<ZipFile> {
  return new Promise((resolve, reject) => {
    // yauzl's defaults stay on: entry sizes checked against their headers, names decoded
    yauzl.open(path, { lazyEntries: true, autoClose: false, strictFileNames: true }, (err, zip) => {
      if (err) reject(refuse('The file is not a readable zip archive.', err));
      else resolve(zip);
    });
  });
}

/** Every entry of the central directory, in order. */
function entriesOf(zip: ZipFile, maxEntries: number): Promise<Entry[]> {
  if (zip.entryCount > maxEntries)
    return Promise.reject(refuse(`The archive holds ${zip.entryCount} entries; at most ${maxEntries} are read.`));
  return new Promise((resolve, reject) => {
    const entries: Entry[] = [];
    zip.on('entry', (entry: Entry) => {
      entries.push(entry);
      zip.readEntry();
    });
    zip.on('end', () => resolve(entries));
    zip.on('error', (e: Error) => reject(refuse(`The archive has an unsafe or malformed entry (${e.message.slice(0, 200)}).`, e)));
    zip.readEntry();
  });
}

function openEntry(zip: ZipFile, entry: Entry): Promise<Readable> {
  return new Promise((resolve, reject) => {
    zip.openReadStream(entry, (err, stream) => {
      if (err) reject(refuse(`${entryLabel(entry.fileName)} cannot be read (${err.message.slice(0, 200)}).`, err));
      else resolve(stream);
    });
  });
}

/**
 * Read the archive at `path` into the staging area.
 * @throws ServiceError INVALID_BODY for every whole-archive refusal of the module header.
 */
export async function readArchive(path: string, staging: StagingArea, limits: ZipLimits = ZIP_LIMITS): Promise<ArchiveContents> {
  const zip = await openZip(path);
  try {
    const entries = await entriesOf(zip, limits.maxEntries);
    const skipped = { directories: 0, macos: 0, dotfiles: 0 };
    const kept: Entry[] = [];
    let total = 0;
    for (const entry of entries) {
      const name = entry.fileName;
      if (isSymlink(entry)) throw refuse(`${entryLabel(name)} is a symbolic link; archives may not hold links.`);
      if (entry.isEncrypted()) throw refuse(`${entryLabel(name)} is encrypted.`);
      if (name.endsWith('/')) skipped.directories++;
      else if (name.startsWith('__MACOSX/')) skipped.macos++;
      else if (name.split('/').some((s) => s.startsWith('.'))) skipped.dotfiles++;
      else {
        if (entry.uncompressedSize > limits.maxEntryBytes)
          throw refuse(`${entryLabel(name)} holds ${entry.uncompressedSize} bytes; at most ${limits.maxEntryBytes} are taken.`);
        // an empty entry may be stored in 0 bytes: its ratio is taken as 0
        const ratio = entry.uncompressedSize / Math.max(1, entry.compressedSize);
        if (ratio > limits.maxRatio)
          throw refuse(
            `${entryLabel(name)} would grow ${Math.round(ratio)} times when decompressed; at most ${limits.maxRatio} times is taken.`,
          );
        total += entry.uncompressedSize;
        if (total > limits.maxTotalBytes) throw refuse(`The archive holds more than ${limits.maxTotalBytes} bytes uncompressed.`);
        kept.push(entry);
      }
    }
    const files: IncomingFile[] = [];
    for (const entry of kept) {
      const stream = await openEntry(zip, entry);
      const staged = await staging.stage(stream, entry.uncompressedSize, entryLabel(entry.fileName)).catch((e: unknown) => {
        throw e instanceof ServiceError ? e : refuse(`${entryLabel(entry.fileName)} cannot be decompressed.`, e);
      });
      const nested = await isArchive(staged.path);
      if (nested) throw refuse(`${entryLabel(entry.fileName)} is itself an archive (${nested}); archives may not hold archives.`);
      files.push({ name: entry.fileName, staged });
    }
    return { files, skipped };
  } finally {
    zip.close();
  }
}
