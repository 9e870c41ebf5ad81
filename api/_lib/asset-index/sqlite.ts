/**
 * The asset index on SQLite (`STORE_DRIVER=sqlite`): table `asset_index` in the data folder's database
 * file beside the ledger's, written through the store kit's one group-commit writer
 * (`api/_lib/stores/sqlite.ts`). Keys compare as TEXT with the BINARY collation, byte for byte in UTF-8:
 * S3's order. A registration is one atomic write.
 */
import type { Row } from '@libsql/client';
import { openSqliteDatabase } from '../stores/sqlite.js';
import { ASSET_INDEX_STORE, type AssetEntry, type AssetIndexStore, type AssetPage, type AssetPurpose } from './types.js';

const DDL = `
CREATE TABLE IF NOT EXISTS asset_index (
  key TEXT PRIMARY KEY,
  purpose TEXT NOT NULL,
  content_type TEXT NOT NULL,
  size INTEGER NOT NULL,
  etag TEXT NOT NULL,
  registered_at TEXT NOT NULL
) WITHOUT ROWID;
`;

/** The index's table (`api/_lib/stores/sqlite.ts`, "Layouts"). */
export const ASSET_INDEX_LAYOUT = Object.freeze({ component: 'asset-index', version: 1, ddl: DDL });

// every column but size is TEXT NOT NULL, so the row holds strings there
const entryOf = (r: Row): AssetEntry => ({
  key: r.key as string,
  purpose: r.purpose as AssetPurpose,
  contentType: r.content_type as string,
  size: Number(r.size),
  etag: r.etag as string,
  registeredAt: r.registered_at as string,
});

/**
 * Open (creating the table when missing) the index in the database file `file`.
 * @throws ServiceError UPSTREAM_UNAVAILABLE when the file cannot be opened or holds another layout.
 */
export async function openSqliteAssetIndex(file: string): Promise<AssetIndexStore> {
  const db = await openSqliteDatabase({ file, layout: ASSET_INDEX_LAYOUT, store: ASSET_INDEX_STORE });
  return {
    driver: 'sqlite',
    register(entries) {
      return db.write(async (tx) => {
        const out: ('created' | 'updated')[] = [];
        for (const e of entries) {
          const had = (await tx.execute({ sql: 'SELECT 1 FROM asset_index WHERE key = ?', args: [e.key] })).rows.length > 0;
          await tx.execute({
            sql: 'INSERT OR REPLACE INTO asset_index (key, purpose, content_type, size, etag, registered_at) VALUES (?, ?, ?, ?, ?, ?)',
            args: [e.key, e.purpose, e.contentType, e.size, e.etag, e.registeredAt],
          });
          out.push(had ? 'updated' : 'created');
        }
        return out;
      });
    },
    async get(key) {
      const row = (await db.read('SELECT * FROM asset_index WHERE key = ?', [key]))[0];
      return row && entryOf(row);
    },
    async unregister(key) {
      await db.write((tx) => tx.execute({ sql: 'DELETE FROM asset_index WHERE key = ?', args: [key] }));
    },
    async list({ prefix, startAfter, limit }): Promise<AssetPage> {
      const rows = await db.read(
        'SELECT * FROM asset_index WHERE key >= ?1 AND key > ?2 AND substr(key, 1, length(?1)) = ?1 ORDER BY key LIMIT ?3',
        [prefix, startAfter ?? '', limit + 1],
      );
      return { items: rows.slice(0, limit).map(entryOf), hasMore: rows.length > limit };
    },
    close() {
      return db.close();
    },
  };
}
