/**
 * The SQLite asset index after a write that could not begin (docs/architecture.md, "Storage"): another
 * connection holding the write lock past the busy timeout is a 503, and the index writes again once the
 * lock is gone (a libsql connection whose write transaction failed to begin commits nothing after).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createClient } from '@libsql/client';
import { openSqliteAssetIndex } from '../../api/_lib/asset-index/sqlite.js';
import type { AssetEntry } from '../../api/_lib/asset-index/types.js';

const dir = mkdtempSync(join(tmpdir(), 'asset-index-busy-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const entry = (key: string): AssetEntry => ({
  key,
  purpose: 'play',
  contentType: 'image/png',
  size: 3,
  etag: '"e"',
  registeredAt: '2026-11-23T10:00:00.000Z',
});

describe('the SQLite asset index', () => {
  it('answers 503 while another connection holds the write lock, and registers again after', async () => {
    const file = join(dir, 'index.sqlite');
    const index = await openSqliteAssetIndex(file);
    await index.register([entry('assets/a.png')]);
    const other = createClient({ url: `file:${file}` });
    const tx = await other.transaction('write');
    await tx.execute("DELETE FROM asset_index WHERE key = 'none'");
    await expect(index.register([entry('assets/b.png')])).rejects.toMatchObject({ code: 'UPSTREAM_UNAVAILABLE' });
    await tx.rollback();
    other.close();
    expect(await index.register([entry('assets/c.png')])).toEqual(['created']);
    expect((await index.get('assets/c.png'))?.key).toBe('assets/c.png');
    await index.close();
    const reopened = await openSqliteAssetIndex(file);
    expect((await reopened.list({ prefix: 'assets/', startAfter: undefined, limit: 10 })).items.map((e) => e.key)).toEqual([
      'assets/a.png',
      'assets/c.png',
    ]);
    await reopened.close();
  }, 30_000);
});
