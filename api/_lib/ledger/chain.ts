/**
 * The hash chain of postings (docs/architecture.md, "Ledger"): each posting's `hash` covers its fields
 * and the previous posting's hash, so an edited, removed or reordered posting breaks every hash after it.
 *
 * Canonical form: the fields in a fixed order, each written as `<byte length>:<value>` (so no value can
 * run into the next, whatever it contains), after the version tag `ledger-posting-v1`. The digest is
 * SHA-1 in lower-case hex because it is the only digest Redis scripts have (`redis.sha1hex`), and the
 * Redis adapter computes the hash inside its credit script; the SQLite adapter computes the very same
 * string here. The chain detects accidental and casual edits; it is not a signature (whoever can write
 * the store can recompute it).
 */
import { createHash } from 'node:crypto';
import type { Posting } from './types.js';

/** Fields of a posting that its hash covers, in hash order. */
export type ChainFields = Omit<Posting, 'hash'>;

const field = (value: string): string => `${Buffer.byteLength(value)}:${value}`;

/**
 * The canonical string of a posting (see the module header). Integers are written in plain decimal.
 * The Lua twin is `canonical()` in `redis-scripts.ts`; `test/ledger/chain.test.ts` pins both.
 */
export function canonicalPosting(p: ChainFields): string {
  return [
    'ledger-posting-v1',
    p.entryId,
    p.accountId,
    String(p.seq),
    String(p.amount),
    String(p.balanceAfter),
    p.sourceRef,
    p.kind,
    p.purpose,
    p.note,
    p.counterparty,
    p.at,
    p.prev,
  ]
    .map(field)
    .join('|');
}

/** Hash of a posting: lower-case hex SHA-1 of {@link canonicalPosting}. */
export function postingHash(p: ChainFields): string {
  return createHash('sha1').update(canonicalPosting(p)).digest('hex');
}
