/**
 * The one idempotency record of every store (docs/architecture.md, "Stores are ports with adapters";
 * spec 3 and 4.8: the first use of a key applies the change, a later request with the key does not).
 *
 * Every idempotent operation (a credit, an account or character creation, a progress save, a mint, an
 * item event, a bag change) keeps one record per key, forever: the *scope* (the operation family and
 * what it belongs to), the *key*, the *fingerprint* of the request the key first came with
 * ({@link requestFingerprint}), and a *ref*: a short reference to what the first request made (an entry
 * id, an account id, a revision), from which the adapter reads the first answer back. A request with a
 * known key and the same fingerprint is a replay; with another fingerprint it reuses the key (422). The
 * outcome of each idempotent store call has one of three names ({@link IdempotentStatus}); an adapter
 * returns it as data and the service words the answer.
 *
 * One SQL helper ({@link IDEMPOTENCY_DDL}, {@link lookupKey}, {@link recordKey}: table
 * `idempotency_keys`) and one Lua prelude ({@link IDEMPOTENCY_LUA}: a hash field per key holding
 * `<fingerprint>\n<ref>`) implement it for the two backends.
 */
import { createHash } from 'node:crypto';
import type { InStatement, Transaction } from '@libsql/client';

/**
 * The three outcomes of an idempotent operation:
 * - `created`: this request's change was recorded now (also when a retry of the very same call, after a
 *   lost answer, finds its own record);
 * - `replayed`: the key was used before with the same request; nothing changed, the first result is answered;
 * - `key-reused`: the key was used before with another request; nothing changed (422).
 */
export type IdempotentStatus = 'created' | 'replayed' | 'key-reused';

/** The outcome `key-reused`, which carries nothing. */
export interface KeyReused {
  readonly status: 'key-reused';
}

/**
 * Canonical JSON: object members in code-unit order of their names at every depth, arrays in order,
 * no white space; what {@link requestFingerprint} hashes.
 * @throws TypeError for a value JSON cannot hold (a function, a bigint, a cycle).
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') {
    const out = JSON.stringify(value);
    if (out === undefined) throw new TypeError('A fingerprint covers JSON values only.');
    return out;
  }
  if (Array.isArray(value)) return `[${value.map((v) => canonicalJson(v === undefined ? null : v)).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
}

/**
 * The fingerprint of a request bound to an idempotency key: the first 32 hex digits of the SHA-256 of
 * its {@link canonicalJson}. The same request (members in any order) gives the same fingerprint, so a
 * replay is told from a reuse of the key with another request. Services pass what decides the request's
 * effect (the resolved account, the amount, …), never free text that a retry may reword.
 */
export function requestFingerprint(value: unknown): string {
  return createHash('sha256').update(canonicalJson(value)).digest('hex').slice(0, 32);
}

// ---------------------------------------------------------------- SQLite

/** The table of the records, created by the store kit when it opens a database file (`sqlite.ts`). */
export const IDEMPOTENCY_DDL = `
CREATE TABLE IF NOT EXISTS idempotency_keys (
  scope TEXT NOT NULL,
  key TEXT NOT NULL,
  fingerprint TEXT NOT NULL,
  ref TEXT NOT NULL,
  PRIMARY KEY (scope, key)
) WITHOUT ROWID;
`;

/** What a key's record says of a request: `new` (no record), or its ref and whether the fingerprint matched. */
export type KeyLookup =
  { readonly status: 'new' } | { readonly status: 'same'; readonly ref: string } | { readonly status: 'key-reused'; readonly ref: string };

/** The record of `(scope, key)` compared with a request's fingerprint, read inside the write's transaction. */
export async function lookupKey(tx: Transaction, scope: string, key: string, fingerprint: string): Promise<KeyLookup> {
  const row = (await tx.execute({ sql: 'SELECT fingerprint, ref FROM idempotency_keys WHERE scope = ? AND key = ?', args: [scope, key] }))
    .rows[0];
  if (!row) return { status: 'new' };
  return { status: row.fingerprint === fingerprint ? 'same' : 'key-reused', ref: row.ref as string };
}

/** The statement that records `(scope, key)` with the request's fingerprint and the ref of what it made. */
export function recordKey(scope: string, key: string, fingerprint: string, ref: string): InStatement {
  return { sql: 'INSERT INTO idempotency_keys (scope, key, fingerprint, ref) VALUES (?, ?, ?, ?)', args: [scope, key, fingerprint, ref] };
}

// ---------------------------------------------------------------- Redis

/**
 * Lua prelude of every script that keeps an idempotency record: a record is the hash field `field` of
 * `hash`, holding `<fingerprint>\n<ref>` (fingerprints are hex, so the first line break ends them).
 * - `idem_lookup(hash, field, fp)` returns nil for a new key, else the ref and whether `fp` matched;
 * - `idem_record(hash, field, fp, ref)` writes the record.
 */
export const IDEMPOTENCY_LUA = `
local function idem_lookup(hash, field, fp)
  local v = redis.call('HGET', hash, field)
  if not v then return nil end
  local sep = string.find(v, '\\n', 1, true)
  return string.sub(v, sep + 1), string.sub(v, 1, sep - 1) == fp
end
local function idem_record(hash, field, fp, ref)
  redis.call('HSET', hash, field, fp .. '\\n' .. ref)
end
`;
