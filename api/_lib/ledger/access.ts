/**
 * Where accounts' access (sessions and ban; `AccountAccess` in `types.ts`, spec 5.3) is kept on each
 * backend, named once: the ledger's adapters write it, and the player store's adapters read it inside
 * their own writes, which refuse a banned account there (docs/architecture.md, "Sessions and bans").
 *
 * - SQLite: the table `account_access` (one row per account ever changed: `sessions_revoked_at` in
 *   seconds, `ban_reason`, `ban_at`, `ban_until` as ISO 8601 UTC or NULL), layout `ledger-access`, which
 *   either store applies when it opens the file first.
 * - Redis: the hash `ledger:{a:<accountId>}:access` (fields `sessionsRevokedAt`, `banReason`, `banAt`,
 *   `banUntil`), in the account's hash slot.
 */

/**
 * Accounts' sessions and bans: one row per account ever changed, updated in place (the state, not its
 * history: the change itself is the idempotency record's).
 */
export const ACCESS_LAYOUT = Object.freeze({
  component: 'ledger-access',
  version: 1,
  ddl: `
CREATE TABLE IF NOT EXISTS account_access (
  account_id TEXT PRIMARY KEY,
  sessions_revoked_at INTEGER,
  ban_reason TEXT,
  ban_at TEXT,
  ban_until TEXT
) WITHOUT ROWID;
`,
});

/** The Redis key of an account's access hash (the account id lower-cased, as the ledger keeps it). */
export const accessKey = (accountId: string): string => `ledger:{a:${accountId.toLowerCase()}}:access`;
