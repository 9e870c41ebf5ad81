/**
 * Small media files built by the tests, with the magic numbers `file-type` reads, and archives built with
 * `yazl` (plus byte patches for what `yazl` itself refuses to write, such as `..` names).
 */
import { deflateSync } from 'node:zlib';
import yazl from 'yazl';

const crcTable = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
function crc32(buf: Buffer): number {
  let c = 0xffffffff;
  for (const b of buf) c = crcTable[(c ^ b) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}
function chunk(type: string, data: Buffer): Buffer {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const td = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(td));
  return Buffer.concat([len, td, crc]);
}

/** A valid RGB PNG of `w`×`h` pixels; `seed` varies the pixels (and so the bytes). */
export function png(w = 2, h = 2, seed = 0): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(w, 0);
  ihdr.writeUInt32BE(h, 4);
  ihdr[8] = 8;
  ihdr[9] = 2;
  const raw = Buffer.alloc((w * 3 + 1) * h);
  for (let i = 0; i < raw.length; i++) raw[i] = i % (w * 3 + 1) === 0 ? 0 : (i * 7 + seed) & 0xff;
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(raw)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/** A glTF binary (GLB) header with a JSON chunk, padded to `size` bytes (at least 28). */
export function glb(size = 64): Buffer {
  const json = Buffer.from('{"asset":{"version":"2.0"}}   ', 'utf8').subarray(0, 28);
  const body = Buffer.alloc(Math.max(size, 20 + json.length) - 20 - json.length);
  const header = Buffer.alloc(20);
  header.write('glTF', 0, 'latin1');
  header.writeUInt32LE(2, 4);
  header.writeUInt32LE(20 + json.length + body.length, 8);
  header.writeUInt32LE(json.length, 12);
  header.write('JSON', 16, 'latin1');
  return Buffer.concat([header, json, body]);
}

/** An MP3: an ID3v2 tag of 10 bytes of padding, then an MPEG-1 Layer III frame header; `size` bytes. */
export function mp3(size = 256): Buffer {
  const b = Buffer.alloc(Math.max(size, 24));
  b.write('ID3', 0, 'latin1');
  b[3] = 3;
  b[9] = 10;
  b.set([0xff, 0xfb, 0x90, 0x64], 20);
  return b;
}

/** An HTML page (no magic number: `file-type` cannot name it). */
export function html(): Buffer {
  return Buffer.from('<!doctype html><html><head><title>x</title></head><body><script>alert(1)</script></body></html>\n');
}

/** One entry of {@link zip}. */
export interface ZipEntry {
  readonly name: string;
  readonly data: Buffer;
  /** Unix mode (with the file-type bits), e.g. `0o120777` for a symbolic link. */
  readonly mode?: number;
  /** Deflate (default true). */
  readonly compress?: boolean;
}

/** A zip archive of `entries` (directories as names ending in `/` with empty data). */
export async function zip(entries: readonly ZipEntry[]): Promise<Buffer> {
  const z = new yazl.ZipFile();
  for (const e of entries) {
    if (e.name.endsWith('/')) z.addEmptyDirectory(e.name);
    else z.addBuffer(e.data, e.name, { compress: e.compress ?? true, ...(e.mode === undefined ? {} : { mode: e.mode }) });
  }
  z.end();
  const chunks: Buffer[] = [];
  for await (const c of z.outputStream as AsyncIterable<Buffer>) chunks.push(c);
  return Buffer.concat(chunks);
}

/**
 * Replace every occurrence of the bytes of `from` by `to` (same length), e.g. an entry name in both its
 * local header and the central directory.
 */
export function patchName(archive: Buffer, from: string, to: string): Buffer {
  const a = Buffer.from(from, 'utf8');
  const b = Buffer.from(to, 'utf8');
  if (a.length !== b.length) throw new Error('patchName keeps lengths');
  const out = Buffer.from(archive);
  for (let i = out.indexOf(a); i >= 0; i = out.indexOf(a, i + 1)) b.copy(out, i);
  return out;
}
