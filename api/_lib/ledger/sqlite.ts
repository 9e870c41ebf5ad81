/**
 * The embedded ledger store: one SQLite file under the data folder (`DATA_DIR/ledger.sqlite`), the
 * default off Vercel so that `npm start` credits and reads wallets on a fresh machine and keeps them
 * across restarts (spec 1.7, 4.8; docs/architecture.md, "Ledger").
 *
 * Library: `@libsql/client`. It ships prebuilt binaries for Linux, macOS and Windows (no compiler at
 * install time; better-sqlite3 12 compiles from source on Node 20 here, about 75 s, and 13 needs
 * Node 22), and it speaks the same SQL and client API as Turso, so the embedded store can become a
 * hosted one by changing the URL.
 *
 * Writes: a credit is one read of every check, then one batch of three writes; the credits and account
 * creations that arrive while a commit is on its way to disk share the next `BEGIN IMMEDIATE` transaction
 * and its one `fsync` (group commit, as TigerBeetle batches transfers): atomic per write, durable before
 * any answer, and one disk flush for many credits instead of one each (`#write` says how one failing
 * write leaves its group whole). Within a process one group runs at a time (no busy retries between pooled connections);
 * across processes SQLite's write lock and a 5 s busy timeout order them. `transfers.source_ref` is the primary key (the unique
 * constraint that makes a credit happen once), postings and transfers refuse UPDATE and DELETE by
 * trigger (append-only). Tables keyed by text or by (account, seq) are `WITHOUT ROWID`, so a credit
 * touches one b-tree per table instead of a table and its key index.
 */
import type { Client, InStatement, InValue, Row, Transaction } from '@libsql/client';
import { openSqliteFile } from '../util/sqlite-file.js';
import { ServiceError } from '../errors.js';
import { postingHash } from './chain.js';
import { accountFrom, postingFrom, text as str, transferFrom } from './decode.js';
import { replayOutcome } from './outcome.js';
import {
  ISSUER_ACCOUNT_ID,
  type Account,
  type AccountSelector,
  type CreatedAccount,
  type CreditOutcome,
  type CreditRequest,
  type LedgerSnapshot,
  type LedgerStore,
  type NewAccount,
  type Posting,
  type PostingFilter,
  type PostingPage,
  type Transfer,
} from './types.js';

const SCHEMA = `
PRAGMA journal_mode = WAL;
CREATE TABLE IF NOT EXISTS accounts (
  account_id TEXT PRIMARY KEY,
  studio_id TEXT NOT NULL UNIQUE,
  display_name TEXT NOT NULL,
  user_id TEXT NOT NULL UNIQUE,
  username TEXT NOT NULL UNIQUE,
  created_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS account_keys (
  client_key TEXT PRIMARY KEY,
  account_id TEXT NOT NULL REFERENCES accounts(account_id),
  fingerprint TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS ledger_accounts (
  account_id TEXT PRIMARY KEY,
  balance INTEGER NOT NULL,
  seq INTEGER NOT NULL,
  head TEXT NOT NULL
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS postings (
  account_id TEXT NOT NULL,
  seq INTEGER NOT NULL,
  entry_id TEXT NOT NULL,
  amount INTEGER NOT NULL,
  balance_after INTEGER NOT NULL,
  source_ref TEXT NOT NULL,
  kind TEXT NOT NULL,
  purpose TEXT NOT NULL,
  note TEXT NOT NULL,
  counterparty TEXT NOT NULL,
  at TEXT NOT NULL,
  prev TEXT NOT NULL,
  hash TEXT NOT NULL,
  PRIMARY KEY (account_id, seq)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS transfers (
  source_ref TEXT PRIMARY KEY,
  entry_id TEXT NOT NULL UNIQUE,
  kind TEXT NOT NULL,
  account_id TEXT NOT NULL,
  amount INTEGER NOT NULL,
  purpose TEXT NOT NULL,
  note TEXT NOT NULL,
  balance_after INTEGER NOT NULL,
  at TEXT NOT NULL
) WITHOUT ROWID;
CREATE TRIGGER IF NOT EXISTS postings_append_only_u BEFORE UPDATE ON postings BEGIN SELECT RAISE(ABORT, 'postings are append-only'); END;
CREATE TRIGGER IF NOT EXISTS postings_append_only_d BEFORE DELETE ON postings BEGIN SELECT RAISE(ABORT, 'postings are append-only'); END;
CREATE TRIGGER IF NOT EXISTS transfers_append_only_u BEFORE UPDATE ON transfers BEGIN SELECT RAISE(ABORT, 'transfers are append-only'); END;
CREATE TRIGGER IF NOT EXISTS transfers_append_only_d BEFORE DELETE ON transfers BEGIN SELECT RAISE(ABORT, 'transfers are append-only'); END;
`;

/** A row with its snake_case column names turned into the shapes' camelCase member names. */
function camel(r: Row): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(r)) out[k.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase())] = v;
  return out;
}
const accountOf = (r: Row): Account => accountFrom(camel(r));
const transferOf = (r: Row): Transfer => transferFrom(camel(r));
const postingOf = (r: Row): Posting => postingFrom(camel(r));

/** A store error that is not the client's: 503 with the cause kept for the log. */
function unavailable(cause: unknown): ServiceError {
  return new ServiceError('UPSTREAM_UNAVAILABLE', 'The ledger store cannot be reached; try again with the same idempotency key.', {
    cause,
  });
}

/** Options of {@link openSqliteLedger}. */
export interface SqliteLedgerOptions {
  /** Absolute path of the database file (created with its folder), or `:memory:`. */
  readonly file: string;
  /** How long a write waits for another process's write lock before it fails with 503, in ms; default 5000. */
  readonly busyTimeoutMs?: number;
}

/**
 * Open (and create when missing) the SQLite ledger.
 * @throws ServiceError UPSTREAM_UNAVAILABLE when the file cannot be opened or migrated.
 */
export async function openSqliteLedger(options: SqliteLedgerOptions): Promise<LedgerStore> {
  return new SqliteLedger(await openSqliteFile({ file: options.file, schema: SCHEMA, busyTimeoutMs: options.busyTimeoutMs, unavailable }));
}

/** A write waiting for the next group commit. */
interface PendingWrite {
  readonly work: (tx: Transaction) => Promise<unknown>;
  readonly resolve: (value: unknown) => void;
  readonly reject: (reason: Error) => void;
}

/** Most writes one group commit carries (bounds a commit's latency and its transaction's size). */
export const GROUP_COMMIT_MAX = 64;

class SqliteLedger implements LedgerStore {
  readonly driver = 'sqlite';
  /** Writes queued while a group commit runs; the next group takes them all (up to {@link GROUP_COMMIT_MAX}). */
  #pending: PendingWrite[] = [];
  /** Whether a group commit loop runs; set and cleared in the same turn as the queue is checked. */
  #flushing = false;
  /** The last group commit loop (settles once every write it took is settled). */
  #idle: Promise<void> = Promise.resolve();

  constructor(private readonly client: Client) {}

  /**
   * Run `work` atomically and durably inside a `BEGIN IMMEDIATE` transaction that it shares with the
   * writes queued while the previous commit ran (group commit). Each write's promise settles only after
   * its group's `COMMIT` returned, so no answer is sent for a write that is not on disk.
   *
   * `work` must make every check before its first write (the ledger's rule, as in the Redis scripts):
   * a ServiceError it throws means nothing of it was written, so it is refused and its group goes on.
   * Any other error may come after a write: the group's transaction is rolled back, that write is refused
   * with UPSTREAM_UNAVAILABLE, and the others run again from the start in a new transaction (no savepoint
   * per write: two statements fewer per credit on the path that never fails). A failed `BEGIN` or
   * `COMMIT` refuses every write of the group with UPSTREAM_UNAVAILABLE and leaves nothing of them.
   */
  #write<T>(work: (tx: Transaction) => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.#pending.push({ work, resolve: resolve as (value: unknown) => void, reject });
      if (!this.#flushing) {
        this.#flushing = true;
        this.#idle = this.#flush();
      }
    });
  }

  /** Commit groups until no write waits. */
  async #flush(): Promise<void> {
    while (this.#pending.length > 0) await this.#commit(this.#pending.splice(0, GROUP_COMMIT_MAX));
    this.#flushing = false;
  }

  /** Run one group in one transaction and settle each of its writes (see {@link #write}). */
  async #commit(group: PendingWrite[]): Promise<void> {
    const settled: (() => void)[] = [];
    let tx: Transaction | undefined;
    try {
      tx = await this.client.transaction('write');
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
          write.reject(unavailable(e));
          tx.close();
          return await this.#commit(group.filter((w) => w !== write));
        }
      }
      await tx.commit();
      for (const settle of settled) settle();
    } catch (e) {
      if (tx && !tx.closed) await tx.rollback().catch(() => undefined);
      // a statement that failed on a busy or broken file can stay open on its connection and make every
      // later statement there fail ("SQL statements in progress"): start over on new connections
      this.client.reconnect();
      for (const write of group) write.reject(unavailable(e));
    } finally {
      tx?.close();
    }
  }

  async #read(sql: string, args?: InValue[]): Promise<Row[]> {
    try {
      return (await this.client.execute(args ? { sql, args } : sql)).rows;
    } catch (e) {
      throw unavailable(e);
    }
  }

  createAccount(input: NewAccount): Promise<CreatedAccount> {
    const a = input.account;
    return this.#write(async (tx) => {
      if (input.clientKey !== undefined) {
        const k = (
          await tx.execute({ sql: 'SELECT account_id, fingerprint FROM account_keys WHERE client_key = ?', args: [input.clientKey] })
        ).rows[0];
        if (k) {
          if (str(k.fingerprint) !== input.fingerprint) {
            throw new ServiceError(
              'IDEMPOTENCY_KEY_REUSED',
              'This idempotency key already created an account with another display name or username; use a new key.',
            );
          }
          const row = (await tx.execute({ sql: 'SELECT * FROM accounts WHERE account_id = ?', args: [str(k.account_id)] })).rows[0];
          return { account: accountOf(row!), created: false };
        }
      }
      const taken = (await tx.execute({ sql: 'SELECT 1 FROM accounts WHERE username = ?', args: [a.username] })).rows.length > 0;
      if (taken) throw new ServiceError('CONFLICT', `The username "${a.username.slice(0, 100)}" is taken.`);
      await tx.execute({
        sql: 'INSERT INTO accounts (account_id, studio_id, display_name, user_id, username, created_at) VALUES (?, ?, ?, ?, ?, ?)',
        args: [a.accountId, a.studioId, a.displayName, a.userId, a.username, a.createdAt],
      });
      if (input.clientKey !== undefined) {
        await tx.execute({
          sql: 'INSERT INTO account_keys (client_key, account_id, fingerprint) VALUES (?, ?, ?)',
          args: [input.clientKey, a.accountId, input.fingerprint],
        });
      }
      return { account: a, created: true };
    });
  }

  async findAccount(selector: AccountSelector): Promise<Account | undefined> {
    const rows =
      'studioId' in selector
        ? await this.#read('SELECT * FROM accounts WHERE studio_id = ?', [selector.studioId])
        : await this.#read('SELECT * FROM accounts WHERE account_id = ?', [selector.accountId.toLowerCase()]);
    return rows[0] ? accountOf(rows[0]) : undefined;
  }

  credit(request: CreditRequest): Promise<CreditOutcome> {
    return this.#write(async (tx) => {
      // one read for every check: a stored transfer, the account, both chain heads
      const state = (
        await tx.execute({
          sql: `SELECT (SELECT entry_id FROM transfers WHERE source_ref = ?1) AS stored,
                       EXISTS (SELECT 1 FROM accounts WHERE account_id = ?2) AS known,
                       COALESCE((SELECT balance || ' ' || seq || ' ' || head FROM ledger_accounts WHERE account_id = ?3), '0 0 ') AS issuer,
                       COALESCE((SELECT balance || ' ' || seq || ' ' || head FROM ledger_accounts WHERE account_id = ?2), '0 0 ') AS account`,
          args: [request.sourceRef, request.accountId, ISSUER_ACCOUNT_ID],
        })
      ).rows[0]!;
      if (state.stored !== null) {
        const stored = (await tx.execute({ sql: 'SELECT * FROM transfers WHERE source_ref = ?', args: [request.sourceRef] })).rows[0]!;
        return replayOutcome(transferOf(stored), request);
      }
      if (Number(state.known) === 0) return { status: 'no-account' } as const;
      // "<balance> <seq> <head>", "0 0 " for an account without postings yet
      const head = (v: unknown) => {
        const [balance, seq, hash] = str(v).split(' ') as [string, string, string];
        return { balance: Number(balance), seq: Number(seq), head: hash };
      };
      const sides: [string, number, string, { balance: number; seq: number; head: string }][] = [
        [ISSUER_ACCOUNT_ID, -request.amount, request.accountId, head(state.issuer)],
        [request.accountId, request.amount, ISSUER_ACCOUNT_ID, head(state.account)],
      ];
      // the issuer's balance is minus the sum of all others (double entry), so an account can only pass
      // the largest safe integer if the issuer passes its negative first: one check covers both sides
      if (!Number.isSafeInteger(sides[0]![3].balance - request.amount)) {
        throw new ServiceError('CONFLICT', 'This credit would take a balance beyond the largest amount the ledger holds.');
      }
      // both postings in one INSERT, both chain heads in one upsert, then the transfer: three statements
      const postingRows: InValue[] = [];
      const headRows: InValue[] = [];
      let balanceAfter = 0;
      for (const [accountId, amount, counterparty, h] of sides) {
        const fields = {
          entryId: request.entryId,
          accountId,
          seq: h.seq + 1,
          amount,
          balanceAfter: h.balance + amount,
          sourceRef: request.sourceRef,
          kind: request.kind,
          purpose: request.purpose,
          note: request.note,
          counterparty,
          at: request.at,
          prev: h.head,
        };
        const hash = postingHash(fields);
        postingRows.push(
          accountId,
          fields.seq,
          fields.entryId,
          amount,
          fields.balanceAfter,
          fields.sourceRef,
          fields.kind,
          fields.purpose,
          fields.note,
          counterparty,
          fields.at,
          fields.prev,
          hash,
        );
        headRows.push(accountId, fields.balanceAfter, fields.seq, hash);
        balanceAfter = fields.balanceAfter;
      }
      const writes: InStatement[] = [
        {
          sql: `INSERT INTO postings (account_id, seq, entry_id, amount, balance_after, source_ref, kind, purpose, note, counterparty, at, prev, hash)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?), (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
          args: postingRows,
        },
        {
          sql: `INSERT INTO ledger_accounts (account_id, balance, seq, head) VALUES (?, ?, ?, ?), (?, ?, ?, ?)
                ON CONFLICT (account_id) DO UPDATE SET balance = excluded.balance, seq = excluded.seq, head = excluded.head`,
          args: headRows,
        },
      ];
      const transfer: Transfer = {
        entryId: request.entryId,
        sourceRef: request.sourceRef,
        kind: request.kind,
        accountId: request.accountId,
        amount: request.amount,
        purpose: request.purpose,
        note: request.note,
        balanceAfter,
        at: request.at,
      };
      writes.push({
        sql: 'INSERT INTO transfers (source_ref, entry_id, kind, account_id, amount, purpose, note, balance_after, at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
        args: [
          transfer.sourceRef,
          transfer.entryId,
          transfer.kind,
          transfer.accountId,
          transfer.amount,
          transfer.purpose,
          transfer.note,
          transfer.balanceAfter,
          transfer.at,
        ],
      });
      await tx.batch(writes);
      return { status: 'applied', transfer } as const;
    });
  }

  async balance(accountId: string): Promise<number> {
    const r = (await this.#read('SELECT balance FROM ledger_accounts WHERE account_id = ?', [accountId]))[0];
    return r ? Number(r.balance) : 0;
  }

  async postings(
    accountId: string,
    options: { beforeSeq?: number | undefined; limit: number; filter: PostingFilter },
  ): Promise<PostingPage> {
    const where = ['account_id = ?'];
    const args: InValue[] = [accountId];
    if (options.beforeSeq !== undefined) {
      where.push('seq < ?');
      args.push(options.beforeSeq);
    }
    if (options.filter.kind !== undefined) {
      where.push('kind = ?');
      args.push(options.filter.kind);
    }
    if (options.filter.purpose !== undefined) {
      where.push('purpose = ?');
      args.push(options.filter.purpose);
    }
    args.push(options.limit + 1);
    const rows = await this.#read(`SELECT * FROM postings WHERE ${where.join(' AND ')} ORDER BY seq DESC LIMIT ?`, args);
    const postings = rows.slice(0, options.limit).map(postingOf);
    return { postings, nextBeforeSeq: rows.length > options.limit ? postings[postings.length - 1]!.seq : undefined };
  }

  async snapshot(): Promise<LedgerSnapshot> {
    const accounts = await this.#read('SELECT account_id, balance FROM ledger_accounts ORDER BY account_id');
    const postings = await this.#read('SELECT * FROM postings ORDER BY account_id, seq');
    const byAccount = new Map<string, Posting[]>();
    for (const r of postings) {
      const p = postingOf(r);
      const list = byAccount.get(p.accountId) ?? [];
      list.push(p);
      byAccount.set(p.accountId, list);
    }
    const transfers = (await this.#read('SELECT * FROM transfers ORDER BY source_ref')).map(transferOf);
    return {
      accounts: accounts.map((r) => ({
        accountId: str(r.account_id),
        balance: Number(r.balance),
        postings: byAccount.get(str(r.account_id)) ?? [],
      })),
      transfers,
    };
  }

  async close(): Promise<void> {
    await this.#idle;
    this.client.close();
  }
}
