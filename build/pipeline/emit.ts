/**
 * Stage 5, emit (docs/architecture.md, "Build"): serialise every output
 * deterministically, write it to a staging folder beside the output folder, add the game-data
 * manifest (every file with bytes and SHA-256; the build id is the hash of that list), and swap the
 * staging folder into place only when everything was written. A failed build never touches the
 * previous output.
 */
import { createHash } from 'node:crypto';
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { ManifestFileEntry } from '../../api/_lib/formats/manifest.js';
import { byCodeUnits } from '../../api/_lib/util/sorted.js';
import type { Emitted } from './types.js';

/** One serialised output file. */
export interface OutputFile {
  readonly path: string;
  readonly bytes: Buffer;
}

/** Serialise an emitted value: bytes and strings marked raw as-is, anything else with `JSON.stringify` (compact). */
export function serialise(e: Emitted): OutputFile {
  if (e.raw && e.body instanceof Uint8Array) return { path: e.path, bytes: Buffer.isBuffer(e.body) ? e.body : Buffer.from(e.body) };
  const text = e.raw && typeof e.body === 'string' ? e.body : JSON.stringify(e.body);
  return { path: e.path, bytes: Buffer.from(text, 'utf8') };
}

/** SHA-256 hex of bytes. */
export function sha256(bytes: Buffer | string): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** The manifest's file table (`api/_lib/formats/manifest.ts`) and the build id over it. */
export interface FileTable {
  /** `{path, bytes, sha256}` per file, sorted by path (code units). */
  readonly files: ManifestFileEntry[];
  /** First 20 hex digits of SHA-256 over `path NUL sha256 LF` of every file, in table order. */
  readonly buildId: string;
}

/** `{path, bytes, sha256}` entries for the manifest, sorted by path, and the build id over them. */
export function fileTable(files: readonly OutputFile[]): FileTable {
  const table = files.map((f) => ({ path: f.path, bytes: f.bytes.length, sha256: sha256(f.bytes) })).sort(byCodeUnits((t) => t.path));
  const buildId = sha256(table.map((t) => `${t.path}\0${t.sha256}\n`).join('')).slice(0, 20);
  return { files: table, buildId };
}

/** Default machine-readable build report beside the output folder: `<out>-report.json`. */
export function reportFileFor(out: string): string {
  return `${out}-report.json`;
}

/** A staging folder next to `out` (same file system, so the swap is a rename). */
export function stagingDirFor(out: string): string {
  return join(dirname(out), `.${basename(out)}.staging-${process.pid}`);
}

/**
 * Write `files` under `staging` (created fresh), at most `concurrency` writes at a time.
 * @throws the first write error (the caller removes the staging folder).
 */
export async function writeAll(staging: string, files: readonly OutputFile[], concurrency = 32): Promise<void> {
  await rm(staging, { recursive: true, force: true });
  const dirs = new Set<string>();
  for (const f of files) dirs.add(dirname(join(staging, f.path)));
  for (const d of [...dirs].sort()) await mkdir(d, { recursive: true });
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < files.length) {
      const f = files[next++]!;
      await writeFile(join(staging, f.path), f.bytes);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, files.length) }, worker));
}

/** Atomically replace `out` with `staging`: rename the old output away, rename staging in, delete the old. */
export async function swapInto(staging: string, out: string): Promise<void> {
  const old = join(dirname(out), `.${basename(out)}.old-${process.pid}`);
  await rm(old, { recursive: true, force: true });
  let hadOld = true;
  try {
    await rename(out, old);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
    hadOld = false;
  }
  try {
    await rename(staging, out);
  } catch (e) {
    if (hadOld) await rename(old, out);
    throw e;
  }
  if (hadOld) await rm(old, { recursive: true, force: true });
}
