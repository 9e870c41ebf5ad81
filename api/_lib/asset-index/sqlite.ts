/**
 * The asset index on SQLite (`STORE_DRIVER=sqlite`): table `asset_index` in the ledger's database file,
 * through its own `@libsql/client` connection (SQLite's locking and a 5 s busy timeout keep it beside the
 * ledger's writer). Keys compare as TEXT with the BINARY collation, byte for byte in UTF-8: S3's order.
 * A registration is one write transaction.
 */
import type { Row } from '@libsql/client';
import { openSqliteFile } from '../util/sqlite-file.js';
import { ServiceError } from '../errors.js';
import type { AssetEntry, AssetIndexStore, AssetPage, AssetPurpose } from './types.js';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS asset_index (
  key TEXT PRIMARY KEY,
  purpose TEXT NOT NULL,
  content_type TEXT NOT NULL,
  size INTEGER NOT NULL,
  etag TEXT NOT NULL,
  registered_at TEXT NOT NULL
) WITHOUT ROWID;
`;

function unavailable(cause: unknown): ServiceError {
  return new ServiceError('UPSTREAM_UNAVAILABLE', 'The asset index cannot be reached; try again.', { cause });
}

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
 * Open (creating the table when missing) the index in the database file `file` (or `:memory:`).
 * @throws ServiceError UPSTREAM_UNAVAILABLE when the file cannot be opened.
 */
export async function openSqliteAssetIndex(file: string): Promise<AssetIndexStore> {
  const client = await openSqliteFile({ file, schema: SCHEMA, unavailable });
  return {
    driver: 'sqlite',
    async register(entries) {
      try {
        const tx = await client.transaction('write');
        try {
          const out: ('created' | 'updated')[] = [];
          for (const e of entries) {
            const had = (await tx.execute({ sql: 'SELECT 1 FROM asset_index WHERE key = ?', args: [e.key] })).rows.length > 0;
            await tx.execute({
              sql: 'INSERT OR REPLACE INTO asset_index (key, purpose, content_type, size, etag, registered_at) VALUES (?, ?, ?, ?, ?, ?)',
              args: [e.key, e.purpose, e.contentType, e.size, e.etag, e.registeredAt],
            });
            out.push(had ? 'updated' : 'created');
          }
          await tx.commit();
          return out;
        } finally {
          tx.close();
        }
      } catch (e) {
        // a write that failed on a busy file can leave its statement open on the connection, and no
        // later transaction there commits: start over on a new connection (as the ledger does)
        client.reconnect();
        throw unavailable(e);
      }
    },
    async get(key) {
      try {
        const row = (await client.execute({ sql: 'SELECT * FROM asset_index WHERE key = ?', args: [key] })).rows[0];
        return row && entryOf(row);
      } catch (e) {
        throw unavailable(e);
      }
    },
    async unregister(key) {
      try {
        await client.execute({ sql: 'DELETE FROM asset_index WHERE key = ?', args: [key] });
      } catch (e) {
        throw unavailable(e);
      }
    },
    async list({ prefix, startAfter, limit }): Promise<AssetPage> {
      try {
        const rows = (
          await client.execute({
            sql: 'SELECT * FROM asset_index WHERE key >= ?1 AND key > ?2 AND substr(key, 1, length(?1)) = ?1 ORDER BY key LIMIT ?3',
            args: [prefix, startAfter ?? '', limit + 1],
          })
        ).rows;
        return { items: rows.slice(0, limit).map(entryOf), hasMore: rows.length > limit };
      } catch (e) {
        throw unavailable(e);
      }
    },
    close() {
      client.close();
      return Promise.resolve();
    },
  };
}
