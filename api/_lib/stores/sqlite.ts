/**
 * The embedded database of every SQLite store adapter (docs/architecture.md, "Stores are ports with
 * adapters"): the ledger, player state and the asset index keep their tables in one file under the data
 * folder (`DATA_DIR/ledger.sqlite`), opened here the one way:
 *
 * - **Durability, set and checked.** `journal_mode = WAL` (readers never wait for the writer) and
 *   `synchronous = FULL` (a commit is on disk before it is answered) are set explicitly on the writing
 *   connection before every transaction and read back at open; a file or library that will not take them
 *   is refused, so a dependency bump cannot weaken durability unnoticed.
 * - **One writer per file and process, with group commit.** Every write of every store on the file goes
 *   through one queue: the writes that arrive while a commit is on its way to disk share the next
 *   `BEGIN IMMEDIATE` transaction and its one `fsync` (as TigerBeetle batches transfers), each write still
 *   atomic and answered only after its group committed ({@link SqliteDatabase.write} says how one failing
 *   write leaves its group whole). Across processes (the local server and a CLI), SQLite's write lock and
 *   a busy timeout order them.
 * - **Reads** go through a separate pool of connections and see committed data only.
 * - **Layouts.** Each store names its tables' layout (`component`, `version`, DDL); the file records the
 *   layouts it holds in `store_layout`. A store opening a file whose layout of its component differs, or a
 *   file with tables but no layout record, is refused with what to do (move the file away): data is never
 *   read through the wrong shape.
 * - **The idempotency table** (`idempotency.ts`) is created with the file's first layout.
 * - **The audit log** (`audit.ts`) is a layout of its own that every store applies, and a write inside a
 *   request's audit scope carries the request's record in its transaction when it changed a row.
 * - **Permissions.** The data folder is created 0700 and the database file 0600 (SQLite gives its WAL and
 *   shared-memory files the database file's mode).
 *
 * Errors: every failure that is not a refusal of the store's own (a `ServiceError` thrown by a write's
 * work) becomes the store's 503 (`unavailable.ts`), with the driver's error as its cause.
 */
import { chmodSync, existsSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { pathToFileURL } from 'node:url';
// the SQLite-only entry point: the package's main one also loads its HTTP and WebSocket clients (about
// 50 ms more of a cold start on this machine), which a file database never uses
import { createClient, type Client, type InValue, type Row, type Transaction } from '@libsql/client/sqlite3';
import { ServiceError } from '../errors.js';
import { AUDIT_LAYOUT, auditedWork } from './audit.js';
import { IDEMPOTENCY_DDL } from './idempotency.js';
import { storeUnavailable, type StoreIdentity } from './unavailable.js';

/** The tables one store keeps in the file: a component name, the layout's version and its DDL (`CREATE … IF NOT EXISTS`). */
export interface SqliteLayout {
  readonly component: string;
  readonly version: number;
  readonly ddl: string;
}

/** Options of {@link openSqliteDatabase}. */
export interface SqliteDatabaseOptions {
  /** Absolute path of the database file (created with its folder). */
  readonly file: string;
  /** The store's layout, or its layouts (each component recorded and checked on its own). */
  readonly layout: SqliteLayout | readonly SqliteLayout[];
  /** The store's name and retry advice in its 503s. */
  readonly store: StoreIdentity;
  /** How long a statement waits for another process's write lock, ms; default 5000 (the first opener's value holds for the file). */
  readonly busyTimeoutMs?: number;
}

/** A store's handle on the shared database of its file. */
export interface SqliteDatabase {
  /**
   * Run `work` atomically and durably inside a `BEGIN IMMEDIATE` transaction that it may share with the
   * writes queued while the previous commit ran (group commit). The promise settles only after the
   * group's `COMMIT` returned, so nothing is answered that is not on disk.
   *
   * `work` must make every check before its first write: a `ServiceError` it throws means nothing of it
   * was written, so it alone is refused and its group goes on. Any other error may come after a write:
   * the group's transaction is rolled back, that write is refused with the store's 503, and the others
   * run again from the start in a new transaction (their work must depend only on what it reads in the
   * transaction). A failed `BEGIN` or `COMMIT` refuses every write of the group with its store's 503 and
   * leaves nothing of them.
   */
  write<T>(work: (tx: Transaction) => Promise<T>): Promise<T>;
  /** One read statement outside any write. @throws the store's 503 */
  read(sql: string, args?: readonly InValue[]): Promise<Row[]>;
  /** Release this handle (the file's connections close with its last handle); later calls answer 503. */
  close(): Promise<void>;
}

/** Most writes one group commit carries (bounds a commit's latency and its transaction's size). */
export const GROUP_COMMIT_MAX = 64;

/** A write waiting for the next group commit. */
interface PendingWrite {
  readonly work: (tx: Transaction) => Promise<unknown>;
  readonly store: StoreIdentity;
  readonly resolve: (value: unknown) => void;
  readonly reject: (reason: Error) => void;
}

/** The connections, the write queue and the users of one file in this process. */
class Engine {
  #pending: PendingWrite[] = [];
  #flushing = false;
  #idle: Promise<void> = Promise.resolve();
  users = 0;

  constructor(
    readonly file: string,
    /** One connection, writes only: its pragmas hold for every transaction. */
    readonly writer: Client,
    /** A pool of connections for reads. */
    readonly reader: Client,
  ) {}

  enqueue(work: (tx: Transaction) => Promise<unknown>, store: StoreIdentity): Promise<unknown> {
    return new Promise((resolve, reject) => {
      this.#pending.push({ work, store, resolve, reject });
      if (!this.#flushing) {
        this.#flushing = true;
        this.#idle = this.#flush();
      }
    });
  }

  async #flush(): Promise<void> {
    while (this.#pending.length > 0) await this.#commit(this.#pending.splice(0, GROUP_COMMIT_MAX));
    this.#flushing = false;
  }

  /** Run one group in one transaction and settle each of its writes (see {@link SqliteDatabase.write}). */
  async #commit(group: PendingWrite[]): Promise<void> {
    const settled: (() => void)[] = [];
    let tx: Transaction | undefined;
    try {
      // synchronous is a connection's setting and cannot change inside a transaction: set it before each
      await this.writer.execute('PRAGMA synchronous = FULL');
      tx = await this.writer.transaction('write');
      for (const write of group) {
        try {
          const out = await write.work(tx);
          settled.push(() => write.resolve(out));
        } catch (e) {
          if (e instanceof ServiceError) {
            settled.push(() => write.reject(e));
            continue;
          }
          await tx.rollback();
          write.reject(storeUnavailable(write.store, e));
          tx.close();
          return await this.#commit(group.filter((w) => w !== write));
        }
      }
      await tx.commit();
      for (const settle of settled) settle();
    } catch (e) {
      if (tx && !tx.closed) await tx.rollback().catch(() => undefined);
      // a statement that failed on a busy or broken file can stay open on its connection and make every
      // later statement there fail ("SQL statements in progress"): start over on a new connection
      this.writer.reconnect();
      for (const write of group) write.reject(storeUnavailable(write.store, e));
    } finally {
      tx?.close();
    }
  }

  /** Wait for the queue to drain, then close both clients. */
  async close(): Promise<void> {
    await this.#idle;
    this.writer.close();
    this.reader.close();
  }
}

/** Open engines by file (one per file and process). */
const engines = new Map<string, Promise<Engine>>();

/** Layout records and the idempotency table, created with a file's first layout. */
const KIT_DDL = `
CREATE TABLE IF NOT EXISTS store_layout (component TEXT PRIMARY KEY, version INTEGER NOT NULL) WITHOUT ROWID;
${IDEMPOTENCY_DDL}`;

/** Read a pragma's value on a connection. */
async function pragma(client: Client, name: string): Promise<unknown> {
  const row = (await client.execute(`PRAGMA ${name}`)).rows[0];
  return row ? Object.values(row)[0] : undefined;
}

async function openEngine(file: string, busyTimeoutMs: number): Promise<Engine> {
  const folder = dirname(file);
  if (!existsSync(folder)) mkdirSync(folder, { recursive: true, mode: 0o700 });
  // the data folder holds the stores and the development keys: one made beforehand is tightened too
  // (a folder the process does not own keeps its mode; the files in it are 0600 either way)
  try {
    chmodSync(folder, 0o700);
  } catch {
    /* not ours to change */
  }
  const url = pathToFileURL(file).href;
  const writer = createClient({ url, intMode: 'number', timeout: busyTimeoutMs, concurrency: 1 });
  let reader: Client | undefined;
  try {
    chmodSync(file, 0o600);
    await writer.execute('PRAGMA journal_mode = WAL');
    await writer.execute('PRAGMA synchronous = FULL');
    const [journal, sync] = [await pragma(writer, 'journal_mode'), await pragma(writer, 'synchronous')];
    if (journal !== 'wal' || Number(sync) !== 2) {
      throw new Error(
        `The database runs with journal_mode=${String(journal)} and synchronous=${String(sync)}; WAL and FULL (2) are required.`,
      );
    }
    reader = createClient({ url, intMode: 'number', timeout: busyTimeoutMs });
    return new Engine(file, writer, reader);
  } catch (e) {
    writer.close();
    reader?.close();
    throw e;
  }
}

/**
 * Apply a store's layout to the file (once per process and component), refusing a file whose layout of
 * the component differs or whose tables predate layout records.
 * @throws Error naming what to do
 */
async function applyLayout(engine: Engine, layout: SqliteLayout, store: StoreIdentity): Promise<void> {
  // through the write queue, as one write: a store opening while another writes never reaches the writer
  // connection in the middle of the other's transaction; every check comes before the first write
  await engine.enqueue(async (tx) => {
    const refuse = (message: string) => storeUnavailable(store, new Error(message));
    const names = (await tx.execute("SELECT name FROM sqlite_master WHERE type = 'table'")).rows.map((r) => r.name as string);
    if (!names.includes('store_layout') && names.length > 0) {
      throw refuse(`${engine.file} holds tables of a layout this service does not read (no store_layout table); move the file away.`);
    }
    const row = names.includes('store_layout')
      ? (await tx.execute({ sql: 'SELECT version FROM store_layout WHERE component = ?', args: [layout.component] })).rows[0]
      : undefined;
    if (row && Number(row.version) !== layout.version) {
      throw refuse(
        `${engine.file} holds the ${layout.component} tables of layout ${Number(row.version)}; this service reads layout ${layout.version}. Move the file away.`,
      );
    }
    if (row) return;
    await tx.executeMultiple(KIT_DDL);
    await tx.executeMultiple(layout.ddl);
    await tx.execute({
      sql: 'INSERT OR IGNORE INTO store_layout (component, version) VALUES (?, ?)',
      args: [layout.component, layout.version],
    });
  }, store);
}

/**
 * Open a store's handle on its database file: the file's engine (connections, pragmas, write queue) is
 * shared by every handle on it in this process; the store's layout is applied on first open.
 * @throws ServiceError UPSTREAM_UNAVAILABLE (the store's 503) when the file cannot be opened, will not run
 *   with WAL and FULL, or holds another layout (the cause says which and what to do)
 */
export async function openSqliteDatabase(options: SqliteDatabaseOptions): Promise<SqliteDatabase> {
  const { file, store } = options;
  let pending = engines.get(file);
  if (!pending) {
    pending = openEngine(file, options.busyTimeoutMs ?? 5000);
    engines.set(file, pending);
    pending.catch(() => engines.delete(file));
  }
  let engine: Engine;
  try {
    engine = await pending;
  } catch (e) {
    throw storeUnavailable(store, e);
  }
  engine.users++;
  try {
    // every file keeps the audit log beside its stores' tables (audit.ts)
    const layouts: readonly SqliteLayout[] = [AUDIT_LAYOUT, ...('component' in options.layout ? [options.layout] : options.layout)];
    for (const layout of layouts) await applyLayout(engine, layout, store);
  } catch (e) {
    await release(engine);
    throw e instanceof ServiceError ? e : storeUnavailable(store, e);
  }
  let closed = false;
  const refuseClosed = () => storeUnavailable(store, new Error('The store is closed.'));
  return {
    async write<T>(work: (tx: Transaction) => Promise<T>): Promise<T> {
      if (closed) throw refuseClosed();
      // the request's audit record rides with its first change (audit.ts); its scope is taken here,
      // where the write is queued, since the group commit runs it in another request's context
      const audited = auditedWork(work);
      const out = (await engine.enqueue(audited.work, store)) as T;
      audited.settle();
      return out;
    },
    async read(sql, args = []) {
      if (closed) throw refuseClosed();
      try {
        return (await engine.reader.execute({ sql, args: [...args] })).rows;
      } catch (e) {
        throw storeUnavailable(store, e);
      }
    },
    async close() {
      if (closed) return;
      closed = true;
      await release(engine);
    },
  };
}

/** Drop one user of an engine; the last one closes it. */
async function release(engine: Engine): Promise<void> {
  engine.users--;
  if (engine.users > 0) return;
  engines.delete(engine.file);
  await engine.close();
}

/**
 * The pragmas a store's writing connection runs with, for tests and diagnostics: `journal_mode` and
 * `synchronous` as SQLite reports them inside a write transaction of the engine.
 */
export async function writerPragmas(database: SqliteDatabase): Promise<{ journalMode: string; synchronous: number }> {
  return database.write(async (tx) => ({
    journalMode: Object.values((await tx.execute('PRAGMA journal_mode')).rows[0] ?? {})[0] as string,
    synchronous: Number(Object.values((await tx.execute('PRAGMA synchronous')).rows[0] ?? {})[0]),
  }));
}
