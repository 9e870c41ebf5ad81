// The sample binaries are ours and current (dev/sample-media.ts): each committed file is what the
// generator makes (PNGs by their pixels, since another zlib may deflate the same pixels differently; a zip
// by its entries), storage takes each as the type it is, and together they stay small.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { inflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import yauzl from 'yauzl';
import { catalogPictures, guideSamples, type SampleFile } from '../../dev/sample-media.js';
import { encodeGlb, encodePng, hsl } from '../../dev/media.js';
import { listCdnFiles } from '../../dev/cdn-files.js';
import { checkContent } from '../../api/_lib/storage/content-types.js';
import { REPO_ROOT, SAMPLE_SRC } from '../helpers/catalog.js';

/** Width, height and the inflated scanlines of a PNG. */
function pngPixels(bytes: Buffer): { w: number; h: number; raw: Buffer } {
  expect(bytes.subarray(0, 8).toString('hex')).toBe('89504e470d0a1a0a');
  const idat: Buffer[] = [];
  for (let p = 8; p < bytes.length;) {
    const len = bytes.readUInt32BE(p);
    if (bytes.toString('latin1', p + 4, p + 8) === 'IDAT') idat.push(bytes.subarray(p + 8, p + 8 + len));
    p += 12 + len;
  }
  return { w: bytes.readUInt32BE(16), h: bytes.readUInt32BE(20), raw: inflateSync(Buffer.concat(idat)) };
}

/** Names and CRC-32s of a zip's entries. */
function zipEntries(bytes: Buffer): Promise<string[]> {
  return new Promise((ok, fail) =>
    yauzl.fromBuffer(bytes, { lazyEntries: false }, (err, zip) => {
      if (err) return fail(err);
      const out: string[] = [];
      zip.on('entry', (e: yauzl.Entry) => out.push(`${e.fileName} ${e.crc32.toString(16)} ${e.uncompressedSize}`));
      zip.on('end', () => ok(out));
      zip.on('error', fail);
    }),
  );
}

async function sameAsCommitted(f: SampleFile): Promise<void> {
  const committed = readFileSync(join(REPO_ROOT, f.path));
  if (f.path.endsWith('.png')) {
    const [have, want] = [pngPixels(committed), pngPixels(f.bytes)];
    expect([have.w, have.h, have.raw.equals(want.raw)], `${f.path}: run npm run samples`).toEqual([want.w, want.h, true]);
  } else if (f.path.endsWith('.zip'))
    expect(await zipEntries(committed), `${f.path}: run npm run samples`).toEqual(await zipEntries(f.bytes));
  else expect(committed.equals(f.bytes), `${f.path}: run npm run samples`).toBe(true);
}

let made: SampleFile[] | undefined;
/** The catalog pictures, drawn once for the file (about 5 s on one core). */
const pictures = (): SampleFile[] => (made ??= catalogPictures());

describe('the sample binaries', () => {
  it('are what dev/sample-media.ts makes: the catalog pictures, and nothing else under catalog-src/cdn/', async () => {
    const made = pictures();
    for (const f of made) await sameAsCommitted(f);
    const committed = (await listCdnFiles(SAMPLE_SRC)).map((f) => `catalog-src/cdn/${f.key}`);
    expect(committed).toEqual(made.map((f) => f.path).sort());
  });

  it("are what dev/sample-media.ts makes: the storage guide's files", async () => {
    for (const f of await guideSamples()) await sameAsCommitted(f);
  });

  it('are each taken by storage as the type they are', async () => {
    const types: Record<string, string> = {};
    for (const f of [...pictures().slice(0, 1), ...(await guideSamples())]) {
      const check = await checkContent(join(REPO_ROOT, f.path), f.path.split('/').pop()!);
      types[f.path.split('/').pop()!] = check.ok ? check.contentType : check.code;
    }
    // a zip is no stored type: the archive route unpacks it (spec §4.7)
    expect(types).toMatchObject({
      'anvil.png': 'image/png',
      'hit.wav': 'audio/wav',
      'swing.wav': 'audio/wav',
      'anvil.glb': 'model/gltf-binary',
      'pack.zip': 'TYPE_NOT_ALLOWED',
    });
    expect(Object.values(types)[0]).toBe('image/png');
  });

  it('stay small: under 300 KB in all', async () => {
    const all = [...pictures(), ...(await guideSamples())];
    expect(all.reduce((n, f) => n + f.bytes.length, 0)).toBeLessThan(300_000);
  });
});

describe('the encoders', () => {
  it('write a PNG whose scanlines are the pixels given, filter 0', () => {
    const px = new Uint8Array([...hsl(0, 1, 0.5), 10, 20, 30, 40].map((v, i) => (i === 3 ? 255 : v)));
    const { w, h, raw } = pngPixels(encodePng(2, 1, px));
    expect([w, h]).toEqual([2, 1]);
    expect([...raw]).toEqual([0, 255, 0, 0, 255, 10, 20, 30, 40]);
    expect(() => encodePng(2, 2, px)).toThrow(RangeError);
  });

  it('write a GLB of one triangle whose lengths add up and whose accessor bounds the positions', () => {
    const glb = encodeGlb('t', [
      [0, 0],
      [2, 0],
      [0, 3],
    ]);
    expect(glb.toString('latin1', 0, 4)).toBe('glTF');
    expect(glb.readUInt32LE(8)).toBe(glb.length);
    const jsonLength = glb.readUInt32LE(12);
    expect(jsonLength % 4).toBe(0);
    const gltf = JSON.parse(glb.toString('utf8', 20, 20 + jsonLength)) as { accessors: { min: number[]; max: number[] }[] };
    expect(gltf.accessors[0]).toMatchObject({ min: [0, 0, 0], max: [2, 3, 0] });
    const bin = 20 + jsonLength;
    expect(glb.readUInt32LE(bin)).toBe(36);
    expect(glb.toString('latin1', bin + 4, bin + 8)).toBe('BIN\0');
    expect(glb.readFloatLE(bin + 8 + 12)).toBe(2);
  });
});
