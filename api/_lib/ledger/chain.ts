/**
 * The hash chain of postings (docs/architecture.md, "Ledger"): each posting's `hash` covers its fields
 * and the previous posting's hash, so an edited, removed or reordered posting breaks every hash after it.
 *
 * Canonical form: the fields in a fixed order, each written as `<byte length>:<value>` (so no value can
 * run into the next, whatever it contains), after a version tag. `ledger-posting-v2` (every posting
 * written by this code) covers the structural fields and the reversal link, and never the free text
 * (`note`) or who asked (`actor`): those are personal data an erasure removes (spec 2.8; docs/
 * architecture.md, "Erasure and the chain"), so they live beside the chain. `ledger-posting-v1`, read
 * only, covered the note and had no reversal link: postings a store holds from before keep verifying.
 *
 * The digest is SHA-1 in lower-case hex because it is the only digest Redis scripts have
 * (`redis.sha1hex`), and the Redis adapter computes the hash inside its credit script; the SQLite
 * adapter computes the very same string here. The chain detects accidental and casual edits; it is not a
 * signature (whoever can write the store can recompute it).
 */
import { createHash } from 'node:crypto';
import type { Posting } from './types.js';

/** Fields of a posting that its hash covers (v2), with the previous hash. */
export type ChainFields = Pick<
  Posting,
  | 'entryId'
  | 'accountId'
  | 'seq'
  | 'amount'
  | 'balanceAfter'
  | 'sourceRef'
  | 'kind'
  | 'purpose'
  | 'counterparty'
  | 'at'
  | 'reverses'
  | 'prev'
>;

const field = (value: string): string => `${Buffer.byteLength(value)}:${value}`;

/**
 * The canonical string of a posting (see the module header). Integers are written in plain decimal.
 * The Lua twin is `canonical()` in `redis-scripts.ts`; `test/ledger/invariants.test.ts` pins both.
 */
export function canonicalPosting(p: ChainFields): string {
  return [
    'ledger-posting-v2',
    p.entryId,
    p.accountId,
    String(p.seq),
    String(p.amount),
    String(p.balanceAfter),
    p.sourceRef,
    p.kind,
    p.purpose,
    p.counterparty,
    p.at,
    p.reverses,
    p.prev,
  ]
    .map(field)
    .join('|');
}

/** Hash of a posting: lower-case hex SHA-1 of {@link canonicalPosting}. */
export function postingHash(p: ChainFields): string {
  return createHash('sha1').update(canonicalPosting(p)).digest('hex');
}

/** The read-only first form: the note inside the hash, no reversal link. */
function legacyHash(p: ChainFields & Pick<Posting, 'note'>): string {
  const parts = ['ledger-posting-v1', p.entryId, p.accountId, String(p.seq), String(p.amount), String(p.balanceAfter)];
  parts.push(p.sourceRef, p.kind, p.purpose, p.note, p.counterparty, p.at, p.prev);
  return createHash('sha1').update(parts.map(field).join('|')).digest('hex');
}

/**
 * True when `p.hash` recomputes: as v2, or as v1 for a posting without a reversal link (see the module
 * header). Pure; never throws.
 */
export function postingVerifies(p: Posting): boolean {
  return p.hash === postingHash(p) || (p.reverses === '' && p.hash === legacyHash(p));
}
