/**
 * The embedded ledger store: tables in the data folder's database file (`DATA_DIR/ledger.sqlite`), the
 * default off Vercel so that `npm start` credits and reads wallets on a fresh machine and keeps them
 * across restarts (spec 1.7, 4.8; docs/architecture.md, "Ledger"). The file, its pragmas and the group
 * commit that every write goes through are the store kit's (`api/_lib/stores/sqlite.ts`).
 *
 * Writes: a credit is one read of every check (its idempotency record, the account, both chain heads),
 * then one batch of writes: both postings, both chain heads, the transfer and the idempotency record.
 * `transfers.source_ref` is unique (a credit happens once per source ref), postings and transfers refuse
 * UPDATE and DELETE by trigger (append-only). Tables keyed by text or by (account, seq) are
 * `WITHOUT ROWID`, so a credit touches one b-tree per table instead of a table and its key index.
 */
import type { InStatement, InValue, Row, Transaction } from '@libsql/client';
import { lookupKey, recordKey } from '../stores/idempotency.js';
import { openSqliteDatabase, type SqliteDatabase } from '../stores/sqlite.js';
import { ACCESS_LAYOUT } from './access.js';
import { postingHash } from './chain.js';
import { accountFrom, postingFrom, text as str, transferFrom } from './decode.js';
import { storedCredit } from './outcome.js';
import {
  type AccessChangeOutcome,
  type AccessChangeRequest,
  type AccountAccess,
  ISSUER_ACCOUNT_ID,
  LEDGER_SCOPES,
  LEDGER_STORE,
  type Account,
  type AccountSelector,
  type ChainHead,
  type CreateAccountOutcome,
  type CreditOutcome,
  type CreditRequest,
  type LedgerSnapshot,
  type LedgerStore,
  type LedgerTotals,
  ERASED_REASON,
  erasedUsername,
  type EraseOutcome,
  type EraseRequest,
  nameKey,
  type NamePage,
  type NewAccount,
  type Posting,
  type PostingFilter,
  type PostingPage,
  type Transfer,
  type VerificationRecord,
  type VerificationWrite,
} from './types.js';

const DDL = `
CREATE TABLE IF NOT EXISTS accounts (
  account_id TEXT PRIMARY KEY,
  studio_id TEXT NOT NULL UNIQUE,
  display_name TEXT NOT NULL,
  user_id TEXT NOT NULL UNIQUE,
  username TEXT NOT NULL UNIQUE,
  created_at TEXT NOT NULL
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

/** Options of {@link openSqliteLedger}. */
export interface SqliteLedgerOptions {
  /** Absolute path of the database file (created with its folder). */
  readonly file: string;
  /** How long a write waits for another process's write lock before it fails with 503, in ms; default 5000. */
  readonly busyTimeoutMs?: number;
}

/** The ledger's tables (`api/_lib/stores/sqlite.ts`, "Layouts"). */
export const LEDGER_LAYOUT = Object.freeze({ component: 'ledger', version: 1, ddl: DDL });

/**
 * What is kept beside the append-only rows (docs/architecture.md, "Reversals", "Erasure and the chain"):
 * each entry's annotation (its free text and who asked, which an erasure may blank; a row from before
 * this table keeps its note in `postings.note` and `transfers.note`, read when no annotation exists), and
 * the reversal links, append-only, one per reversed entry.
 */
export const ENTRIES_LAYOUT = Object.freeze({
  component: 'ledger-entries',
  version: 1,
  ddl: `
CREATE TABLE IF NOT EXISTS entry_annotations (
  entry_id TEXT PRIMARY KEY,
  note TEXT NOT NULL,
  actor TEXT NOT NULL
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS reversals (
  original_entry_id TEXT PRIMARY KEY,
  reversal_entry_id TEXT NOT NULL UNIQUE
) WITHOUT ROWID;
CREATE TRIGGER IF NOT EXISTS reversals_append_only_u BEFORE UPDATE ON reversals BEGIN SELECT RAISE(ABORT, 'reversals are append-only'); END;
CREATE TRIGGER IF NOT EXISTS reversals_append_only_d BEFORE DELETE ON reversals BEGIN SELECT RAISE(ABORT, 'reversals are append-only'); END;
`,
});

/**
 * The look-up index of display names (docs/architecture.md, "Player look-up"): one row per account,
 * `name_key` = `nameKey(display_name)`. Filled for every account created since; a file that held accounts
 * before gains their rows when the layout is applied, lower-cased by SQLite's `lower()` (ASCII letters only).
 */
export const LOOKUP_LAYOUT = Object.freeze({
  component: 'ledger-lookup',
  version: 1,
  ddl: `
CREATE TABLE IF NOT EXISTS account_names (
  name_key TEXT NOT NULL,
  account_id TEXT NOT NULL,
  PRIMARY KEY (name_key, account_id)
) WITHOUT ROWID;
INSERT OR IGNORE INTO account_names (name_key, account_id) SELECT lower(display_name), account_id FROM accounts;
`,
});

/**
 * What the scheduled check keeps (docs/architecture.md, "Scheduled verification"): its cursor (one row,
 * `name = 'cursor'`) and its last results, numbered in the order they were recorded.
 */
export const VERIFICATION_LAYOUT = Object.freeze({
  component: 'ledger-verification',
  version: 1,
  ddl: `
CREATE TABLE IF NOT EXISTS verification_state (
  name TEXT PRIMARY KEY,
  value TEXT NOT NULL
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS verification_results (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  result TEXT NOT NULL
);
`,
});

/** A posting's columns with its annotation and reversal links (`p` postings; see {@link POSTING_JOINS}). */
const POSTING_COLUMNS = `p.account_id, p.seq, p.entry_id, p.amount, p.balance_after, p.source_ref, p.kind, p.purpose,
  COALESCE(n.note, p.note) AS note, COALESCE(n.actor, '') AS actor, p.counterparty, p.at,
  COALESCE(rv.original_entry_id, '') AS reverses, COALESCE(rb.reversal_entry_id, '') AS reversed_by, p.prev, p.hash`;
const POSTING_JOINS = `LEFT JOIN entry_annotations n ON n.entry_id = p.entry_id
  LEFT JOIN reversals rv ON rv.reversal_entry_id = p.entry_id LEFT JOIN reversals rb ON rb.original_entry_id = p.entry_id`;
/** A transfer's columns with its annotation and reversal links (`t` transfers). */
const TRANSFER_COLUMNS = `t.source_ref, t.entry_id, t.kind, t.account_id, t.amount, t.purpose, COALESCE(n.note, t.note) AS note,
  COALESCE(n.actor, '') AS actor, t.balance_after, t.at, COALESCE(rv.original_entry_id, '') AS reverses,
  COALESCE(rb.reversal_entry_id, '') AS reversed_by`;
const TRANSFER_JOINS = `LEFT JOIN entry_annotations n ON n.entry_id = t.entry_id
  LEFT JOIN reversals rv ON rv.reversal_entry_id = t.entry_id LEFT JOIN reversals rb ON rb.original_entry_id = t.entry_id`;

/** The access of an `account_access` row (none for an account never changed). */
function accessOf(row: Row | undefined): AccountAccess {
  if (!row) return {};
  const revoked = row.sessions_revoked_at === null ? undefined : Number(row.sessions_revoked_at);
  const ban =
    row.ban_reason === null
      ? undefined
      : { reason: str(row.ban_reason), at: str(row.ban_at), ...(row.ban_until === null ? {} : { until: str(row.ban_until) }) };
  return { ...(revoked === undefined ? {} : { sessionsRevokedAt: revoked }), ...(ban ? { ban } : {}) };
}

/**
 * Open (and create when missing) the SQLite ledger.
 * @throws ServiceError UPSTREAM_UNAVAILABLE when the file cannot be opened or holds another layout.
 */
export async function openSqliteLedger(options: SqliteLedgerOptions): Promise<LedgerStore> {
  const db = await openSqliteDatabase({
    file: options.file,
    layout: [LEDGER_LAYOUT, ACCESS_LAYOUT, ENTRIES_LAYOUT, LOOKUP_LAYOUT, VERIFICATION_LAYOUT],
    store: LEDGER_STORE,
    busyTimeoutMs: options.busyTimeoutMs,
  });
  return new SqliteLedger(db);
}

/** A chain head as one read returns it: `"<balance> <seq> <head>"`, `"0 0 "` for an account without postings. */
function headOf(v: unknown): { balance: number; seq: number; head: string } {
  const [balance, seq, hash] = str(v).split(' ') as [string, string, string];
  return { balance: Number(balance), seq: Number(seq), head: hash };
}

class SqliteLedger implements LedgerStore {
  readonly driver = 'sqlite';

  constructor(private readonly db: SqliteDatabase) {}

  createAccount(input: NewAccount): Promise<CreateAccountOutcome> {
    const a = input.account;
    return this.db.write(async (tx): Promise<CreateAccountOutcome> => {
      if (input.clientKey !== undefined) {
        const k = await lookupKey(tx, input.keyScope ?? LEDGER_SCOPES.account, input.clientKey, input.fingerprint);
        if (k.status === 'key-reused') return { status: 'key-reused' };
        if (k.status === 'same') {
          const row = (await tx.execute({ sql: 'SELECT * FROM accounts WHERE account_id = ?', args: [k.ref] })).rows[0]!;
          return { status: k.ref === a.accountId ? 'created' : 'replayed', account: accountOf(row) };
        }
      }
      const held = (
        await tx.execute({
          sql: 'SELECT account_id, username = ?2 AS by_name FROM accounts WHERE username = ?2 OR studio_id = ?3 OR account_id = ?1',
          args: [a.accountId, a.username, a.studioId],
        })
      ).rows;
      // a retry of this very creation (its answer lost) finds its own account
      if (held.some((r) => r.account_id === a.accountId)) return { status: 'created', account: a };
      if (held.some((r) => Number(r.by_name) === 1)) return { status: 'username-taken' };
      if (held.length > 0) return { status: 'studio-id-taken' };
      const writes: InStatement[] = [
        {
          sql: 'INSERT INTO accounts (account_id, studio_id, display_name, user_id, username, created_at) VALUES (?, ?, ?, ?, ?, ?)',
          args: [a.accountId, a.studioId, a.displayName, a.userId, a.username, a.createdAt],
        },
        { sql: 'INSERT INTO account_names (name_key, account_id) VALUES (?, ?)', args: [nameKey(a.displayName), a.accountId] },
      ];
      if (input.clientKey !== undefined)
        writes.push(recordKey(input.keyScope ?? LEDGER_SCOPES.account, input.clientKey, input.fingerprint, a.accountId));
      await tx.batch(writes);
      return { status: 'created', account: a };
    });
  }

  async findAccount(selector: AccountSelector): Promise<Account | undefined> {
    const rows =
      'studioId' in selector
        ? await this.db.read('SELECT * FROM accounts WHERE studio_id = ?', [selector.studioId])
        : await this.db.read('SELECT * FROM accounts WHERE account_id = ?', [selector.accountId.toLowerCase()]);
    return rows[0] ? accountOf(rows[0]) : undefined;
  }

  async accountByUsername(username: string): Promise<Account | undefined> {
    const rows = await this.db.read('SELECT * FROM accounts WHERE username = ?', [username]);
    return rows[0] ? accountOf(rows[0]) : undefined;
  }

  async accountsByName(prefix: string, options: { after?: string | undefined; limit: number }): Promise<NamePage> {
    const key = nameKey(prefix);
    // after = "<name key>\u0000<account id>": rows past it in (name_key, account_id) order, below the
    // prefix followed by U+10FFFF (the greatest code point: every key that starts with the prefix)
    const [afterKey, afterId] = options.after === undefined ? [key, ''] : (options.after.split('\u0000') as [string, string]);
    const rows = await this.db.read(
      `SELECT a.*, n.name_key FROM account_names n JOIN accounts a ON a.account_id = n.account_id
       WHERE n.name_key < ?1 || char(1114111) AND (n.name_key > ?2 OR (n.name_key = ?2 AND n.account_id > ?3))
       ORDER BY n.name_key, n.account_id LIMIT ?4`,
      [key, afterKey, afterId, options.limit + 1],
    );
    const page = rows.slice(0, options.limit);
    const last = page[page.length - 1];
    return {
      accounts: page.map(accountOf),
      next: rows.length > options.limit && last ? `${str(last.name_key)}\u0000${str(last.account_id)}` : undefined,
    };
  }

  async access(accountId: string): Promise<AccountAccess> {
    return accessOf((await this.db.read('SELECT * FROM account_access WHERE account_id = ?', [accountId.toLowerCase()]))[0]);
  }

  async accessRecord(key: string, fingerprint: string): Promise<AccessChangeOutcome | undefined> {
    const row = (
      await this.db.read('SELECT fingerprint, ref FROM idempotency_keys WHERE scope = ? AND key = ?', [LEDGER_SCOPES.access, key])
    )[0];
    if (!row) return undefined;
    if (row.fingerprint !== fingerprint) return { status: 'key-reused' };
    return { status: 'replayed', access: await this.access(str(row.ref)) };
  }

  changeAccess(request: AccessChangeRequest): Promise<AccessChangeOutcome> {
    const id = request.accountId.toLowerCase();
    const current = async (tx: Transaction) =>
      accessOf((await tx.execute({ sql: 'SELECT * FROM account_access WHERE account_id = ?', args: [id] })).rows[0]);
    return this.db.write(async (tx): Promise<AccessChangeOutcome> => {
      if (request.key !== undefined) {
        const k = await lookupKey(tx, LEDGER_SCOPES.access, request.key, request.fingerprint);
        if (k.status === 'key-reused') return { status: 'key-reused' };
        if (k.status === 'same') return { status: 'replayed', access: await current(tx) };
      }
      const row = (await tx.execute({ sql: 'SELECT studio_id, username FROM accounts WHERE account_id = ?', args: [id] })).rows[0];
      if (!row) return { status: 'no-account' };
      const c = request.change;
      // an erased account stays closed (docs/architecture.md, "Erasure and the chain")
      if (c.kind !== 'revoke-sessions' && str(row.username) === erasedUsername(str(row.studio_id))) return { status: 'erased' };
      const writes: InStatement[] = [];
      // a revocation time only moves forward: a late retry of an older revocation never re-admits tokens
      const revoke = (at: number): InStatement => ({
        sql: `INSERT INTO account_access (account_id, sessions_revoked_at) VALUES (?1, ?2)
              ON CONFLICT (account_id) DO UPDATE SET sessions_revoked_at = max(COALESCE(sessions_revoked_at, 0), ?2)`,
        args: [id, at],
      });
      if (c.kind === 'revoke-sessions') writes.push(revoke(c.at));
      else if (c.kind === 'ban') {
        writes.push(revoke(c.at), {
          sql: 'UPDATE account_access SET ban_reason = ?, ban_at = ?, ban_until = ? WHERE account_id = ?',
          args: [c.ban.reason, c.ban.at, c.ban.until ?? null, id],
        });
      } else {
        writes.push({
          sql: 'UPDATE account_access SET ban_reason = NULL, ban_at = NULL, ban_until = NULL WHERE account_id = ?',
          args: [id],
        });
      }
      if (request.key !== undefined) writes.push(recordKey(LEDGER_SCOPES.access, request.key, request.fingerprint, id));
      await tx.batch(writes);
      return { status: 'created', access: await current(tx) };
    });
  }

  eraseAccount(request: EraseRequest): Promise<EraseOutcome> {
    const id = request.accountId.toLowerCase();
    const read = async (tx: Transaction) => {
      const row = (await tx.execute({ sql: 'SELECT * FROM accounts WHERE account_id = ?', args: [id] })).rows[0];
      return row ? accountOf(row) : undefined;
    };
    return this.db.write(async (tx): Promise<EraseOutcome> => {
      const k = await lookupKey(tx, LEDGER_SCOPES.erase, request.key, request.fingerprint);
      if (k.status === 'key-reused') return { status: 'key-reused' };
      if (k.status === 'same') return { status: 'replayed', account: (await read(tx))! };
      const account = await read(tx);
      if (!account) return { status: 'no-account' };
      await tx.batch([
        {
          sql: 'UPDATE accounts SET display_name = ?, username = ? WHERE account_id = ?',
          args: ['', erasedUsername(account.studioId), id],
        },
        { sql: 'DELETE FROM account_names WHERE account_id = ?', args: [id] },
        // every entry of the account gets an annotation with a blank note (rows of the first form keep
        // their note in the posting, which the append-only triggers protect: docs/architecture.md)
        {
          sql: `INSERT INTO entry_annotations (entry_id, note, actor) SELECT entry_id, '', '' FROM transfers WHERE account_id = ?1
                ON CONFLICT (entry_id) DO UPDATE SET note = ''`,
          args: [id],
        },
        {
          sql: `INSERT INTO account_access (account_id, sessions_revoked_at, ban_reason, ban_at, ban_until) VALUES (?1, ?2, ?3, ?4, NULL)
                ON CONFLICT (account_id) DO UPDATE SET sessions_revoked_at = max(COALESCE(sessions_revoked_at, 0), ?2),
                  ban_reason = ?3, ban_at = ?4, ban_until = NULL`,
          args: [id, request.at, ERASED_REASON, request.atIso],
        },
        recordKey(LEDGER_SCOPES.erase, request.key, request.fingerprint, id),
      ]);
      return { status: 'created', account: (await read(tx))! };
    });
  }

  credit(request: CreditRequest): Promise<CreditOutcome> {
    const reverses = request.kind === 'reversal' ? (request.reverses ?? '') : '';
    return this.db.write(async (tx): Promise<CreditOutcome> => {
      // one read for every check: the idempotency record, the account, both chain heads, and for a
      // reversal the entry it names and any reversal of it
      const state = (
        await tx.execute({
          sql: `SELECT (SELECT fingerprint || ' ' || ref FROM idempotency_keys WHERE scope = ?4 AND key = ?1) AS stored,
                       EXISTS (SELECT 1 FROM accounts WHERE account_id = ?2) AS known,
                       COALESCE((SELECT balance || ' ' || seq || ' ' || head FROM ledger_accounts WHERE account_id = ?3), '0 0 ') AS issuer,
                       COALESCE((SELECT balance || ' ' || seq || ' ' || head FROM ledger_accounts WHERE account_id = ?2), '0 0 ') AS account,
                       (SELECT 1 FROM transfers WHERE entry_id = ?5 AND account_id = ?2 AND amount = ?6 AND kind <> 'reversal') AS original,
                       (SELECT reversal_entry_id FROM reversals WHERE original_entry_id = ?5) AS reversed_by`,
          args: [request.sourceRef, request.accountId, ISSUER_ACCOUNT_ID, LEDGER_SCOPES.credit, reverses, request.amount],
        })
      ).rows[0]!;
      if (state.stored !== null) {
        const [fingerprint, entryId] = str(state.stored).split(' ') as [string, string];
        if (fingerprint !== request.fingerprint) return { status: 'key-reused' };
        return storedCredit((await this.#transfer(tx, entryId))!, request);
      }
      if (Number(state.known) === 0) return { status: 'no-account' };
      if (request.kind === 'reversal') {
        if (state.original === null) return { status: 'no-entry' };
        if (state.reversed_by !== null)
          return { status: 'already-reversed', transfer: (await this.#transfer(tx, str(state.reversed_by)))! };
        if (headOf(state.account).balance < request.amount) return { status: 'insufficient', balance: headOf(state.account).balance };
      }
      // a reversal moves the amount from the account back to the issuer
      const gain = request.kind === 'reversal' ? -request.amount : request.amount;
      const sides: [string, number, string, { balance: number; seq: number; head: string }][] = [
        [ISSUER_ACCOUNT_ID, -gain, request.accountId, headOf(state.issuer)],
        [request.accountId, gain, ISSUER_ACCOUNT_ID, headOf(state.account)],
      ];
      // the issuer's balance is minus the sum of all others (double entry), so an account can only pass
      // the largest safe integer if the issuer passes its negative first: one check covers both sides
      if (!Number.isSafeInteger(sides[0]![3].balance - gain)) return { status: 'overflow' };
      // both postings in one INSERT, both chain heads in one upsert, then the transfer, its annotation,
      // its reversal link and its key; the free text goes to the annotation only (`chain.ts`)
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
          counterparty,
          at: request.at,
          reverses,
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
          '',
          counterparty,
          fields.at,
          fields.prev,
          hash,
        );
        headRows.push(accountId, fields.balanceAfter, fields.seq, hash);
        balanceAfter = fields.balanceAfter;
      }
      const transfer: Transfer = {
        entryId: request.entryId,
        sourceRef: request.sourceRef,
        kind: request.kind,
        accountId: request.accountId,
        amount: request.amount,
        purpose: request.purpose,
        note: request.note,
        actor: request.actor ?? '',
        balanceAfter,
        at: request.at,
        reverses,
      };
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
        {
          sql: 'INSERT INTO transfers (source_ref, entry_id, kind, account_id, amount, purpose, note, balance_after, at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
          args: [
            transfer.sourceRef,
            transfer.entryId,
            transfer.kind,
            transfer.accountId,
            transfer.amount,
            transfer.purpose,
            '',
            transfer.balanceAfter,
            transfer.at,
          ],
        },
        {
          sql: 'INSERT INTO entry_annotations (entry_id, note, actor) VALUES (?, ?, ?)',
          args: [transfer.entryId, transfer.note, transfer.actor],
        },
        recordKey(LEDGER_SCOPES.credit, request.sourceRef, request.fingerprint, request.entryId),
      ];
      if (reverses !== '')
        writes.push({
          sql: 'INSERT INTO reversals (original_entry_id, reversal_entry_id) VALUES (?, ?)',
          args: [reverses, transfer.entryId],
        });
      await tx.batch(writes);
      return { status: 'created', transfer };
    });
  }

  /** A transfer with its annotation and reversal links, read in `tx` or on the reader. */
  async #transfer(tx: Transaction | undefined, entryId: string): Promise<Transfer | undefined> {
    const sql = `SELECT ${TRANSFER_COLUMNS} FROM transfers t ${TRANSFER_JOINS} WHERE t.entry_id = ?`;
    const rows = tx ? (await tx.execute({ sql, args: [entryId] })).rows : await this.db.read(sql, [entryId]);
    return rows[0] ? transferOf(rows[0]) : undefined;
  }

  transfer(entryId: string): Promise<Transfer | undefined> {
    return this.#transfer(undefined, entryId.toLowerCase());
  }

  async balance(accountId: string): Promise<number> {
    const r = (await this.db.read('SELECT balance FROM ledger_accounts WHERE account_id = ?', [accountId]))[0];
    return r ? Number(r.balance) : 0;
  }

  async postings(
    accountId: string,
    options: { beforeSeq?: number | undefined; limit: number; filter: PostingFilter },
  ): Promise<PostingPage> {
    const where = ['p.account_id = ?'];
    const args: InValue[] = [accountId];
    if (options.beforeSeq !== undefined) {
      where.push('p.seq < ?');
      args.push(options.beforeSeq);
    }
    if (options.filter.kind !== undefined) {
      where.push('p.kind = ?');
      args.push(options.filter.kind);
    }
    if (options.filter.purpose !== undefined) {
      where.push('p.purpose = ?');
      args.push(options.filter.purpose);
    }
    args.push(options.limit + 1);
    const rows = await this.db.read(
      `SELECT ${POSTING_COLUMNS} FROM postings p ${POSTING_JOINS} WHERE ${where.join(' AND ')} ORDER BY p.seq DESC LIMIT ?`,
      args,
    );
    const postings = rows.slice(0, options.limit).map(postingOf);
    return { postings, nextBeforeSeq: rows.length > options.limit ? postings[postings.length - 1]!.seq : undefined };
  }

  async ledgerAccounts(options: { after?: string | undefined; limit: number }): Promise<ChainHead[]> {
    const rows = await this.db.read(
      'SELECT account_id, balance, seq, head FROM ledger_accounts WHERE account_id > ? ORDER BY account_id LIMIT ?',
      [options.after ?? '', options.limit],
    );
    return rows.map((r) => ({ accountId: str(r.account_id), balance: Number(r.balance), seq: Number(r.seq), head: str(r.head) }));
  }

  async chain(accountId: string, options: { fromSeq: number; limit: number }): Promise<Posting[]> {
    const rows = await this.db.read(
      `SELECT ${POSTING_COLUMNS} FROM postings p ${POSTING_JOINS} WHERE p.account_id = ? AND p.seq >= ? ORDER BY p.seq LIMIT ?`,
      [accountId, options.fromSeq, options.limit],
    );
    return rows.map(postingOf);
  }

  async ledgerTotals(): Promise<LedgerTotals> {
    // one statement: both counts from the same read snapshot
    const row = (
      await this.db.read(
        `SELECT (SELECT count(*) FROM transfers) AS transfers,
                COALESCE((SELECT seq FROM ledger_accounts WHERE account_id = ?), 0) AS issuer_seq`,
        [ISSUER_ACCOUNT_ID],
      )
    )[0]!;
    return { transfers: Number(row.transfers), issuerSeq: Number(row.issuer_seq) };
  }

  async verification(): Promise<VerificationRecord> {
    const cursor = (await this.db.read("SELECT value FROM verification_state WHERE name = 'cursor'"))[0];
    const results = await this.db.read('SELECT result FROM verification_results ORDER BY id DESC');
    return { cursor: cursor ? str(cursor.value) : undefined, results: results.map((r) => str(r.result)) };
  }

  recordVerification(write: VerificationWrite): Promise<'written' | 'superseded'> {
    return this.db.write(async (tx) => {
      const row = (await tx.execute("SELECT value FROM verification_state WHERE name = 'cursor'")).rows[0];
      const current = row ? str(row.value) : undefined;
      const writes: InStatement[] = [
        { sql: 'INSERT INTO verification_results (result) VALUES (?)', args: [write.result] },
        {
          sql: 'DELETE FROM verification_results WHERE id NOT IN (SELECT id FROM verification_results ORDER BY id DESC LIMIT ?)',
          args: [write.keep],
        },
      ];
      const moved = current !== write.expect;
      if (!moved)
        writes.push({
          sql: "INSERT INTO verification_state (name, value) VALUES ('cursor', ?) ON CONFLICT (name) DO UPDATE SET value = excluded.value",
          args: [write.cursor],
        });
      await tx.batch(writes);
      return moved ? 'superseded' : 'written';
    });
  }

  async snapshot(): Promise<LedgerSnapshot> {
    const accounts = await this.db.read('SELECT account_id, balance FROM ledger_accounts ORDER BY account_id');
    const postings = await this.db.read(`SELECT ${POSTING_COLUMNS} FROM postings p ${POSTING_JOINS} ORDER BY p.account_id, p.seq`);
    const byAccount = new Map<string, Posting[]>();
    for (const r of postings) {
      const p = postingOf(r);
      const list = byAccount.get(p.accountId) ?? [];
      list.push(p);
      byAccount.set(p.accountId, list);
    }
    const transfers = (await this.db.read(`SELECT ${TRANSFER_COLUMNS} FROM transfers t ${TRANSFER_JOINS} ORDER BY t.source_ref`)).map(
      transferOf,
    );
    return {
      accounts: accounts.map((r) => ({
        accountId: str(r.account_id),
        balance: Number(r.balance),
        postings: byAccount.get(str(r.account_id)) ?? [],
      })),
      transfers,
    };
  }

  close(): Promise<void> {
    return this.db.close();
  }
}
