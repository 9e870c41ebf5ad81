/**
 * The storage contract (spec 4.7; `api/_lib/storage/types.ts`), a suite every storage adapter's test file runs with its harness: `local` on a
 * temporary folder and `s3` on a real S3-protocol server (s3rver) started on 127.0.0.1. Bytes round-trip,
 * the content type is kept, the ETag is the MD5 of the bytes on both, a put replaces, a delete answers the
 * same whether or not the object existed, a missing key reads as nothing, and prefix listings page through
 * 2,500 keys in UTF-8 byte order with no gap and no duplicate, keys with spaces and non-ASCII characters
 * included.
 */
import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { text } from 'node:stream/consumers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compareKeys } from '../../api/_lib/storage/local.js';
import { openStaging, type StagingArea } from '../../api/_lib/storage/staging.js';
import type { StorageAdapter } from '../../api/_lib/storage/types.js';
import type { Harness } from '../helpers/backends.js';

const md5 = (b: Buffer) => createHash('md5').update(b).digest('hex');

/**
 * Run the storage contract against the adapter `harness` makes.
 * @param harness a new harness (its backend started in the suite's `beforeAll`).
 */
export function storageContract(harness: () => Harness<StorageAdapter>): void {
  const h = harness();
  describe(`storage contract: ${h.name}`, () => {
    let adapter: StorageAdapter;
    let staging: StagingArea;
    const stage = (bytes: Buffer | string) => staging.stage(Readable.from([Buffer.from(bytes)]), 1 << 30, 'file');

    beforeAll(async () => {
      await h.setup();
      adapter = await h.fresh();
      staging = await openStaging();
    }, 60_000);
    afterAll(async () => {
      await staging?.dispose();
      await h.teardown();
    });

    it('round-trips bytes, keeps the content type, and reports the MD5 of the bytes as the ETag', async () => {
      const bytes = Buffer.from(Array.from({ length: 70_000 }, (_, i) => (i * 31) & 0xff));
      const file = await stage(bytes);
      const stored = await adapter.put('era1/models/anvil.glb', file, 'model/gltf-binary');
      expect(stored).toMatchObject({
        key: 'era1/models/anvil.glb',
        size: bytes.length,
        contentType: 'model/gltf-binary',
        etag: `"${md5(bytes)}"`,
      });
      const head = await adapter.head('era1/models/anvil.glb');
      expect(head).toMatchObject({
        key: 'era1/models/anvil.glb',
        size: bytes.length,
        contentType: 'model/gltf-binary',
        etag: `"${md5(bytes)}"`,
      });
      expect(Date.parse(head!.lastModified)).toBeGreaterThan(Date.parse('2020-01-01'));
      const got = await adapter.get('era1/models/anvil.glb');
      const chunks: Buffer[] = [];
      for await (const c of got!.body as AsyncIterable<Buffer>) chunks.push(Buffer.from(c));
      expect(Buffer.concat(chunks).equals(bytes)).toBe(true);
      expect(got!.object.contentType).toBe('model/gltf-binary');
    });

    it('replaces an object put again under the same key', async () => {
      await adapter.put('era1/replace.png', await stage('first version'), 'image/png');
      await adapter.put('era1/replace.png', await stage('second'), 'image/png');
      const got = await adapter.get('era1/replace.png');
      expect(await text(got!.body as Readable)).toBe('second');
      expect(got!.object).toMatchObject({ size: 6, etag: `"${md5(Buffer.from('second'))}"` });
      const page = await adapter.list({ prefix: 'era1/replace', startAfter: undefined, limit: 10 });
      expect(page.items.map((i) => i.key)).toEqual(['era1/replace.png']);
    });

    it('reads a missing key as nothing', async () => {
      expect(await adapter.head('era1/missing.png')).toBeUndefined();
      expect(await adapter.get('era1/missing.png')).toBeUndefined();
    });

    it('deletes idempotently: the same answer whether or not the object exists', async () => {
      await adapter.put('era1/gone.png', await stage('x'), 'image/png');
      await expect(adapter.delete('era1/gone.png')).resolves.toBeUndefined();
      expect(await adapter.head('era1/gone.png')).toBeUndefined();
      await expect(adapter.delete('era1/gone.png')).resolves.toBeUndefined();
      await expect(adapter.delete('never/was.png')).resolves.toBeUndefined();
    });

    it('keeps keys with spaces and non-ASCII characters, and a key beside a folder of the same name', async () => {
      const keys = ['era1/Épée de feu.png', 'era1/北/剣 1.png', 'era1/a b/c  d.png', 'era1/x', 'era1/x/y.png'];
      for (const key of keys) await adapter.put(key, await stage(key), 'image/png');
      for (const key of keys) {
        const got = await adapter.get(key);
        expect(await text(got!.body as Readable), key).toBe(key);
      }
      expect(adapter.publicUrl('era1/Épée de feu.png')).toMatch(/\/era1\/%C3%89p%C3%A9e%20de%20feu\.png$/);
      const listed = await adapter.list({ prefix: 'era1/', startAfter: undefined, limit: 1000 });
      // every one listed (their order beside a same-named folder is s3rver's file-system walk, not S3's byte order)
      const mine = listed.items.map((i) => i.key).filter((k) => keys.includes(k));
      expect(mine.sort(compareKeys)).toEqual([...keys].sort(compareKeys));
    });

    it('pages a prefix of 2,500 keys in UTF-8 byte order with no gap and no duplicate', async () => {
      const names = Array.from({ length: 2500 }, (_, i) => {
        const n = String(i).padStart(4, '0');
        return i % 7 === 0 ? `bulk/é${n}.png` : i % 5 === 0 ? `bulk/Z ${n}.png` : `bulk/${n}.png`;
      });
      const file = await stage('b');
      for (let i = 0; i < names.length; i += 25) await Promise.all(names.slice(i, i + 25).map((k) => adapter.put(k, file, 'image/png')));
      await adapter.put('bulkhead.png', file, 'image/png');
      const seen: string[] = [];
      let startAfter: string | undefined;
      const pages: boolean[] = [];
      for (;;) {
        const page = await adapter.list({ prefix: 'bulk/', startAfter, limit: 1000 });
        seen.push(...page.items.map((i) => i.key));
        pages.push(page.hasMore);
        if (!page.hasMore) break;
        startAfter = page.items.at(-1)!.key;
      }
      expect(pages).toEqual([true, true, false]);
      expect(seen).toEqual([...names].sort(compareKeys));
      expect(seen[0]).toBe('bulk/0001.png');
      expect(seen.at(-1)).toMatch(/^bulk\/é/);
      const exact = await adapter.list({ prefix: 'bulk/', startAfter: seen[999], limit: 1 });
      expect(exact.items.map((i) => i.key)).toEqual([seen[1000]]);
      expect(exact.items[0]).toMatchObject({ size: 1, contentType: 'image/png', etag: `"${md5(Buffer.from('b'))}"` });
    }, 120_000);
  });
}
