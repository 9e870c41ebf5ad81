/**
 * The asset index contract (`api/_lib/asset-index/types.ts`, spec 4.9), a suite every asset-index
 * adapter's test file runs with its harness (SQLite, Redis over RESP, Redis through the Upstash REST
 * stand-in). A batch registers atomically and
 * says per entry whether it was new; registering a key again replaces its entry; unregistering is
 * idempotent; a missing key reads as nothing; listings page a prefix in UTF-8 byte order with no gap and no duplicate, starting after a key.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AssetEntry, AssetIndexStore } from '../../api/_lib/asset-index/types.js';
import { compareKeys } from '../../api/_lib/storage/local.js';
import type { Harness } from '../helpers/backends.js';

const entry = (key: string, purpose: AssetEntry['purpose'] = 'play', size = 10): AssetEntry => ({
  key,
  purpose,
  contentType: 'model/gltf-binary',
  size,
  etag: `"${size}"`,
  registeredAt: '2026-11-23T10:00:00.000Z',
});

/**
 * Run the asset index contract against the adapter `harness` makes.
 * @param harness a new harness (its backend started in the suite's `beforeAll`).
 */
export function assetIndexContract(harness: () => Harness<AssetIndexStore>): void {
  const h = harness();
  describe(`asset index contract: ${h.name}`, () => {
    let index: AssetIndexStore;

    beforeAll(async () => {
      await h.setup();
      index = await h.fresh();
    }, 60_000);
    afterAll(async () => {
      await index?.close();
      await h.teardown();
    });

    it('registers a batch, says which entries were new, and replaces an entry registered again', async () => {
      expect(await index.register([entry('era1/a.glb'), entry('era1/b.glb', 'isolate')])).toEqual(['created', 'created']);
      expect(await index.register([entry('era1/c.glb'), entry('era1/a.glb', 'author', 99)])).toEqual(['created', 'updated']);
      expect(await index.get('era1/a.glb')).toEqual(entry('era1/a.glb', 'author', 99));
      expect(await index.get('era1/b.glb')).toEqual(entry('era1/b.glb', 'isolate'));
      expect(await index.get('era1/missing.glb')).toBeUndefined();
    });

    it('unregisters a key, the same whether or not it was registered, and lists it no more', async () => {
      await index.register([entry('gone/a.glb'), entry('gone/b.glb')]);
      await index.unregister('gone/a.glb');
      await index.unregister('gone/a.glb');
      await index.unregister('gone/never.glb');
      expect(await index.get('gone/a.glb')).toBeUndefined();
      expect((await index.list({ prefix: 'gone/', startAfter: undefined, limit: 10 })).items.map((x) => x.key)).toEqual(['gone/b.glb']);
      expect(await index.register([entry('gone/a.glb')])).toEqual(['created']);
    });

    it('pages a prefix in byte order, from the start or after a key, with no gap and no duplicate', async () => {
      const keys = Array.from({ length: 250 }, (_, i) =>
        i % 9 === 0 ? `pg/é${i}.glb` : i % 4 === 0 ? `pg/Z ${i}.glb` : `pg/${String(i).padStart(3, '0')}.glb`,
      );
      for (let i = 0; i < keys.length; i += 100) await index.register(keys.slice(i, i + 100).map((k) => entry(k)));
      await index.register([entry('pf.glb'), entry('ph/x.glb'), entry('pg')]);
      const seen: string[] = [];
      let after: string | undefined;
      const more: boolean[] = [];
      for (;;) {
        const page = await index.list({ prefix: 'pg/', startAfter: after, limit: 100 });
        seen.push(...page.items.map((x) => x.key));
        more.push(page.hasMore);
        if (!page.hasMore) break;
        after = page.items.at(-1)!.key;
      }
      expect(more).toEqual([true, true, false]);
      expect(seen).toEqual([...keys].sort(compareKeys));
      // after a key before the prefix, the listing starts at the prefix; after one past it, nothing
      expect((await index.list({ prefix: 'pg/', startAfter: 'a', limit: 1 })).items.map((x) => x.key)).toEqual([seen[0]]);
      expect((await index.list({ prefix: 'pg/', startAfter: 'pz', limit: 5 })).items).toEqual([]);
      expect((await index.list({ prefix: 'pg/', startAfter: seen.at(-2), limit: 5 })).items.map((x) => x.key)).toEqual([seen.at(-1)]);
      const all = await index.list({ prefix: '', startAfter: undefined, limit: 1000 });
      expect(all.items.map((x) => x.key)).toEqual([...all.items.map((x) => x.key)].sort(compareKeys));
      expect(all.items.map((x) => x.key)).toEqual(expect.arrayContaining(['pf.glb', 'ph/x.glb', 'pg', 'era1/a.glb']));
      expect(all.hasMore).toBe(false);
    });
  });
}
