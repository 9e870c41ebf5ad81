/**
 * Open an embedded SQLite database for a store adapter (docs/architecture.md, "Stores are ports with
 * adapters"): the ledger, the asset index and player state each keep their tables in the data folder's
 * database file (`DATA_DIR/ledger.sqlite`) through their own `@libsql/client` connection, opened here the
 * same way: the file's folder created, the schema applied (`CREATE … IF NOT EXISTS`, so opening is also
 * migrating), numbers as JavaScript numbers, and a busy timeout for other processes' write locks.
 * Imported only by the SQLite adapters, which are loaded only when `STORE_DRIVER=sqlite`.
 */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { pathToFileURL } from 'node:url';
// the SQLite-only entry point: the package's main one also loads its HTTP and WebSocket clients (about
// 50 ms more of a cold start on this machine), which a file database never uses
import { createClient, type Client } from '@libsql/client/sqlite3';

/** Options of {@link openSqliteFile}. */
export interface SqliteFileOptions {
  /** Absolute path of the database file (created with its folder), or `:memory:`. */
  readonly file: string;
  /** Statements run once at open (`executeMultiple`). */
  readonly schema: string;
  /** How long a statement waits for another connection's write lock, ms; default 5000. */
  readonly busyTimeoutMs?: number;
  /** The error to throw when the file cannot be opened or the schema applied (the adapter's 503). */
  readonly unavailable: (cause: unknown) => Error;
}

/**
 * A client on the database with the schema applied.
 * @throws the adapter's `unavailable` error when the file cannot be opened or migrated (the client is closed).
 */
export async function openSqliteFile(options: SqliteFileOptions): Promise<Client> {
  let url = ':memory:';
  if (options.file !== ':memory:') {
    mkdirSync(dirname(options.file), { recursive: true });
    url = pathToFileURL(options.file).href;
  }
  const client = createClient({ url, intMode: 'number', timeout: options.busyTimeoutMs ?? 5000 });
  try {
    await client.executeMultiple(options.schema);
  } catch (e) {
    client.close();
    throw options.unavailable(e);
  }
  return client;
}
