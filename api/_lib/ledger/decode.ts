/**
 * Decoders from what a store holds to the ledger's shapes (`types.ts`), shared by both adapters:
 * records with the shapes' own (camelCase) member names, whose values may come back as strings
 * (Redis keeps everything as text) or numbers (SQLite integers). Numbers are read with `Number`,
 * text with {@link text}; a member that is missing reads as `''` or `NaN`, which the invariant check
 * reports.
 */
import type { Account, Posting, Transfer, TransferKind } from './types.js';

/** A value as a store hands it back: Redis text, SQLite text or integers, or nothing. */
export type StoredValue = string | number | bigint | null | undefined;

/** A stored value ({@link StoredValue}) as text: `''` for null or missing, otherwise `String(v)` (a number's decimal text). */
export function text(v: unknown): string {
  if (v === null || v === undefined) return '';
  const stored = v as NonNullable<StoredValue>;
  return String(stored);
}

/** An account from a record with the members of {@link Account}. */
export function accountFrom(r: Readonly<Record<string, unknown>>): Account {
  return {
    accountId: text(r.accountId),
    studioId: text(r.studioId),
    displayName: text(r.displayName),
    userId: text(r.userId),
    username: text(r.username),
    createdAt: text(r.createdAt),
  };
}

/** A transfer from a record with the members of {@link Transfer}. */
export function transferFrom(r: Readonly<Record<string, unknown>>): Transfer {
  return {
    entryId: text(r.entryId),
    sourceRef: text(r.sourceRef),
    kind: text(r.kind) as TransferKind,
    accountId: text(r.accountId),
    amount: Number(r.amount),
    purpose: text(r.purpose),
    note: text(r.note),
    actor: text(r.actor),
    balanceAfter: Number(r.balanceAfter),
    at: text(r.at),
    reverses: text(r.reverses),
    ...reversedBy(r),
  };
}

/** `{ reversedBy }` when the record names a reversal, else nothing. */
function reversedBy(r: Readonly<Record<string, unknown>>): { reversedBy?: string } {
  const by = text(r.reversedBy);
  return by === '' ? {} : { reversedBy: by };
}

/** A posting from a record with the members of {@link Posting}. */
export function postingFrom(r: Readonly<Record<string, unknown>>): Posting {
  return {
    entryId: text(r.entryId),
    accountId: text(r.accountId),
    seq: Number(r.seq),
    amount: Number(r.amount),
    balanceAfter: Number(r.balanceAfter),
    sourceRef: text(r.sourceRef),
    kind: text(r.kind) as TransferKind,
    purpose: text(r.purpose),
    note: text(r.note),
    actor: text(r.actor),
    counterparty: text(r.counterparty),
    at: text(r.at),
    reverses: text(r.reverses),
    ...reversedBy(r),
    prev: text(r.prev),
    hash: text(r.hash),
  };
}
