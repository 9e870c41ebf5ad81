/**
 * Archive reading (`api/_lib/storage/zip.ts`, spec 4.7) called directly with small limits, so that each
 * limit is pinned at its edge: entry count, entry size, total size and compression ratio; refused names
 * (`..`, absolute, backslash), links, encrypted entries, nested archives of every listed format, entries
 * that cannot be decompressed; the skipped directories, `__MACOSX/` and dot-files; the bytes staged.
 * Every refusal is INVALID_BODY naming the entry, and says nothing was stored.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ServiceError } from '../../api/_lib/errors.js';
import { openStaging, type StagingArea } from '../../api/_lib/storage/staging.js';
import { readArchive, ZIP_LIMITS, type ZipLimits } from '../../api/_lib/storage/zip.js';
import { glb, patchName, png, zip, type ZipEntry } from '../helpers/media.js';

let dir: string;
let staging: StagingArea;
let n = 0;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'zip-test-'));
  staging = await openStaging();
});
afterAll(async () => {
  await staging.dispose();
  rmSync(dir, { recursive: true, force: true });
});

const LIMITS: ZipLimits = { maxEntries: 5, maxTotalBytes: 4000, maxEntryBytes: 2000, maxRatio: 10 };

async function read(archive: Buffer, limits: ZipLimits = LIMITS) {
  const path = join(dir, `a${n++}.zip`);
  writeFileSync(path, archive);
  return readArchive(path, staging, limits);
}

async function refusal(archive: Buffer | Promise<Buffer>, limits: ZipLimits = LIMITS): Promise<ServiceError> {
  try {
    await read(await archive, limits);
  } catch (e) {
    expect(e).toBeInstanceOf(ServiceError);
    const err = e as ServiceError;
    expect(err.code).toBe('INVALID_BODY');
    expect(err.message).toMatch(/Nothing was stored\.$/);
    expect(err.errors[0]!.name).toBe('file');
    return err;
  }
  throw new Error('the archive was accepted');
}

/** `size` bytes that deflate hardly at all (so the ratio stays near 1). */
const noise = (size: number, seed = 1) => {
  const b = Buffer.alloc(size);
  let x = seed * 2654435761;
  for (let i = 0; i < size; i++) {
    x = (x * 1103515245 + 12345) >>> 0;
    b[i] = x >>> 24;
  }
  return b;
};
const stored = (name: string, data: Buffer): ZipEntry => ({ name, data, compress: false });

describe('readArchive: what it keeps', () => {
  it('stages each kept entry with its bytes, in archive order, and counts what it skips', async () => {
    const a = png(2, 2, 1);
    const b = glb(300);
    const out = await read(
      await zip([
        { name: 'models/', data: Buffer.alloc(0) },
        { name: 'models/b.glb', data: b },
        { name: '__MACOSX/models/._b.glb', data: Buffer.from('x') },
        { name: '.DS_Store', data: Buffer.from('x') },
        { name: 'icons/.cache/x.png', data: png() },
        { name: 'icons/a.png', data: a },
        { name: 'empty.png', data: Buffer.alloc(0) },
      ]),
      ZIP_LIMITS,
    );
    expect(out.skipped).toEqual({ directories: 1, macos: 1, dotfiles: 2 });
    expect(out.files.map((f) => f.name)).toEqual(['models/b.glb', 'icons/a.png', 'empty.png']);
    expect(readFileSync(out.files[0]!.staged.path).equals(b)).toBe(true);
    expect(readFileSync(out.files[1]!.staged.path).equals(a)).toBe(true);
    expect(out.files[2]!.staged.size).toBe(0);
  });

  it('takes exactly the limits: entries, entry size, total size, ratio', async () => {
    // five entries of 800 bytes, stored: 4,000 bytes in all, ratio 1
    const five = Array.from({ length: 5 }, (_, i) => stored(`f${i}.bin`, noise(800, i + 1)));
    expect((await read(await zip(five))).files).toHaveLength(5);
    expect((await read(await zip([stored('big.bin', noise(2000))]))).files).toHaveLength(1);
    // 1,000 zeros stored as 1,000 bytes has ratio 1; deflated they shrink far past 10
    expect((await read(await zip([stored('z.bin', Buffer.alloc(1000))]))).files).toHaveLength(1);
  });
});

describe('readArchive: what it refuses, whole', () => {
  it('one entry too many', async () => {
    const six = Array.from({ length: 6 }, (_, i) => stored(`f${i}.bin`, Buffer.from([i])));
    expect((await refusal(zip(six))).message).toBe('The archive holds 6 entries; at most 5 are read. Nothing was stored.');
  });

  it('an entry one byte over its limit', async () => {
    const err = await refusal(zip([stored('ok.bin', noise(10)), stored('big.bin', noise(2001))]));
    expect(err.message).toBe('The entry "big.bin" holds 2001 bytes; at most 2000 are taken. Nothing was stored.');
  });

  it('one byte more than the total, over several entries', async () => {
    const err = await refusal(zip([stored('a.bin', noise(2000, 1)), stored('b.bin', noise(1999, 2)), stored('c.bin', noise(2, 3))]));
    expect(err.message).toBe('The archive holds more than 4000 bytes uncompressed. Nothing was stored.');
  });

  it('an entry that would grow more than the ratio (a zip bomb), naming the ratio', async () => {
    const err = await refusal(zip([{ name: 'zeros.bin', data: Buffer.alloc(2000) }]));
    expect(err.message).toMatch(/^The entry "zeros\.bin" would grow \d+ times when decompressed; at most 10 times is taken\./);
    const ratio = Number(/grow (\d+) times/.exec(err.message)![1]);
    expect(ratio).toBeGreaterThan(10);
    expect(ratio).toBeLessThan(2000);
    // exactly the ratio passes that check (the sizes below are declared: 1,000 bytes from 100, ratio 10)
    const exact = await zip([{ name: 'r.bin', data: Buffer.alloc(1000) }]);
    const cd = exact.indexOf(Buffer.from([0x50, 0x4b, 0x01, 0x02]));
    exact.writeUInt32LE(100, cd + 20);
    const past = await refusal(exact);
    expect(past.message).not.toMatch(/would grow/);
    // the default limits refuse 20 MB of zeros the same way
    const bomb = await refusal(zip([{ name: 'bomb.png', data: Buffer.alloc(20 * 1024 * 1024) }]), ZIP_LIMITS);
    expect(bomb.message).toMatch(/"bomb\.png" would grow \d{3,} times.*at most 100 times/);
  });

  it('names that leave the folder: "..", absolute, a backslash', async () => {
    const base = await zip([stored('aa/x.png', png()), stored('bbbbb.png', png()), stored('cc_d.png', png())]);
    expect((await refusal(patchName(base, 'aa/x.png', '../x.png'))).message).toMatch(
      /unsafe or malformed entry \(invalid relative path: \.\.\/x\.png\)/,
    );
    expect((await refusal(patchName(base, 'bbbbb.png', '/etcc.png'))).message).toMatch(/absolute path: \/etcc\.png/);
    // (the zip writer turns a backslash into "/", so the name is patched in)
    expect((await refusal(patchName(base, 'cc_d.png', 'cc\\d.png'))).message).toMatch(/invalid characters in fileName: cc\\d\.png/);
    expect((await read(base, ZIP_LIMITS)).files).toHaveLength(3);
  });

  it('a symbolic link, naming it', async () => {
    const err = await refusal(zip([stored('ok.png', png()), { name: 'link.png', data: Buffer.from('/etc/passwd'), mode: 0o120777 }]));
    expect(err.message).toBe('The entry "link.png" is a symbolic link; archives may not hold links. Nothing was stored.');
    // a regular file with the same permission bits is no link
    expect((await read(await zip([{ name: 'file.png', data: png(), mode: 0o100777 }]))).files).toHaveLength(1);
  });

  it('an encrypted entry', async () => {
    // deflated: a stored entry's sizes would not match once flagged (encryption adds a 12-byte header)
    const archive = await zip([{ name: 'secret.png', data: png() }]);
    // set bit 0 (encrypted) of the general purpose flags in the central directory record
    const cd = archive.indexOf(Buffer.from([0x50, 0x4b, 0x01, 0x02]));
    archive[cd + 8] = archive[cd + 8]! | 1;
    expect((await refusal(archive)).message).toBe('The entry "secret.png" is encrypted. Nothing was stored.');
  });

  it('an entry that is itself an archive, of every format listed', async () => {
    const tar = Buffer.alloc(1024);
    tar.write('a.png', 0);
    tar.write('0000644', 100);
    tar.write('ustar\u000000', 257);
    tar.fill(' ', 148, 156);
    let sum = 0;
    for (let i = 0; i < 512; i++) sum += tar[i]!;
    tar.write(sum.toString(8).padStart(6, '0') + '\u0000 ', 148);
    const magic = (bytes: number[] | string) => {
      const b = Buffer.alloc(600);
      Buffer.from(bytes as never).copy(b);
      return b;
    };
    const inner: Record<string, Buffer> = {
      zip: await zip([stored('a.png', png())]),
      gz: gzipSync(Buffer.from('hello')),
      bz2: magic([0x42, 0x5a, 0x68, 0x39, 0x31, 0x41, 0x59, 0x26, 0x53, 0x59]),
      xz: magic([0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00]),
      zst: magic([0x28, 0xb5, 0x2f, 0xfd]),
      '7z': magic([0x37, 0x7a, 0xbc, 0xaf, 0x27, 0x1c]),
      rar: magic([0x52, 0x61, 0x72, 0x21, 0x1a, 0x07, 0x00]),
      lz4: magic([0x04, 0x22, 0x4d, 0x18]),
      cab: magic('MSCF\u0000\u0000\u0000\u0000'),
      ar: magic('!<arch>\nfoo.o/          '),
      deb: magic('!<arch>\ndebian-binary   '),
      crx: magic('Cr24'),
      tar,
    };
    for (const [ext, bytes] of Object.entries(inner)) {
      const err = await refusal(zip([stored('ok.png', png()), stored(`inner.${ext}`, bytes)]), ZIP_LIMITS);
      expect(err.message, ext).toBe(
        `The entry "inner.${ext}" is itself an archive (${ext}); archives may not hold archives. Nothing was stored.`,
      );
    }
    // an empty zip (end record only) and a zip-based format named otherwise are zips too
    const emptyZip = Buffer.from([0x50, 0x4b, 0x05, 0x06, ...Array<number>(18).fill(0)]);
    expect((await refusal(zip([stored('e.png', emptyZip)]), ZIP_LIMITS)).message).toMatch(/\(zip\)/);
    const spanned = Buffer.concat([Buffer.from([0x50, 0x4b, 0x07, 0x08]), await zip([stored('a.png', png())])]);
    expect((await refusal(zip([stored('s.png', spanned)]), ZIP_LIMITS)).message).toMatch(/\(zip\)/);
    // "PK" followed by other bytes is no archive
    expect((await read(await zip([stored('pk.bin', Buffer.from('PK\u0001\u0002 and more'))]), ZIP_LIMITS)).files).toHaveLength(1);
  });

  it('an entry that cannot be decompressed, and a file that is no zip', async () => {
    const good = await zip([{ name: 'data.bin', data: noise(4000).subarray(0, 3000) }]);
    const local = good.indexOf(Buffer.from([0x50, 0x4b, 0x03, 0x04]));
    const bad = Buffer.from(good);
    // garble the deflate stream just after the local header and its name
    const start = local + 30 + 'data.bin'.length;
    for (let i = start; i < start + 40; i++) bad[i] = 0xff;
    expect((await refusal(bad, ZIP_LIMITS)).message).toMatch(/^The entry "data\.bin" cannot be decompressed\./);
    expect((await refusal(Buffer.from('not a zip at all, just text'))).message).toBe(
      'The file is not a readable zip archive. Nothing was stored.',
    );
  });
});
