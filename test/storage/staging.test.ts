/**
 * Staging of uploaded bytes (`api/_lib/storage/staging.ts`, spec 4.7): each file private (0600) in a
 * private folder (0700) under the system's temporary folder, counted and hashed as it flows, refused one
 * byte over its cap with its partial file removed, and the whole folder removed by `dispose`, which never
 * throws.
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname } from 'node:path';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { ServiceError } from '../../api/_lib/errors.js';
import { openStaging } from '../../api/_lib/storage/staging.js';

describe('openStaging', () => {
  it('stages bytes with their size, SHA-256 and MD5 into private files, and removes them all on dispose', async () => {
    const area = await openStaging();
    const bytes = Buffer.from('0123456789'.repeat(1000));
    const file = await area.stage(Readable.from([bytes.subarray(0, 3000), bytes.subarray(3000)]), bytes.length, '"a.bin"');
    expect(file.size).toBe(bytes.length);
    expect(file.sha256).toBe(createHash('sha256').update(bytes).digest('hex'));
    expect(file.md5).toBe(createHash('md5').update(bytes).digest('hex'));
    expect(statSync(file.path).mode & 0o777).toBe(0o600);
    const folder = dirname(file.path);
    expect(dirname(folder)).toBe(tmpdir());
    expect(statSync(folder).mode & 0o777).toBe(0o700);
    await area.dispose();
    expect(existsSync(folder)).toBe(false);
    await expect(area.dispose()).resolves.toBeUndefined();
  });

  it('refuses one byte over the cap with a 413 naming the file, and keeps no partial file', async () => {
    const area = await openStaging();
    try {
      const exact = await area.stage(Readable.from([Buffer.alloc(64)]), 64, '"ok.bin"');
      const folder = dirname(exact.path);
      const err = await area
        .stage(Readable.from([Buffer.alloc(40), Buffer.alloc(25)]), 64, '"big.bin"')
        .catch((e: unknown) => e as ServiceError);
      expect(err).toBeInstanceOf(ServiceError);
      expect(err).toMatchObject({
        code: 'PAYLOAD_TOO_LARGE',
        message: '"big.bin" is larger than 64 bytes, the most one file may hold; nothing was stored.',
      });
      expect(readdirSync(folder)).toEqual([exact.path.slice(folder.length + 1)]);
      // any other failure of the source is passed on, and its partial file removed too
      const broken = new Readable({
        read() {
          this.push(Buffer.alloc(10));
          this.destroy(new Error('source broke'));
        },
      });
      await expect(area.stage(broken, 64, '"x"')).rejects.toThrow('source broke');
      expect(readdirSync(folder)).toHaveLength(1);
    } finally {
      await area.dispose();
    }
  });
});
