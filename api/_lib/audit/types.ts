/**
 * The audit log's port (docs/architecture.md, "Audit log"; spec 5.3): append a record unless its request
 * has one, and list records newest first with filters. The record's format and how a store write carries
 * it atomically live in the store kit (`api/_lib/stores/audit.ts`, `api/_lib/util/audit-scope.ts`); the
 * adapters here read the log and append the records of requests that changed nothing in a store.
 */
import type { AuditRecord, AuditRecordDraft } from '../util/audit-scope.js';
import type { StoreIdentity } from '../stores/unavailable.js';

/** The log's name and retry advice in its 503s. */
export const AUDIT_STORE: StoreIdentity = Object.freeze({ name: 'audit log', retryHint: '' });

/** A place in the log's order (newest first: time, then sequence number, both descending). */
export interface AuditPosition {
  /** The record's time, ms since the epoch. */
  readonly atMs: number;
  /** The record's sequence number. */
  readonly seq: number;
}

/** What {@link AuditLog.list} reads; every filter is exact and they combine with AND. */
export interface AuditQuery {
  /** The actor key: a token's subject, `admin-password` or `anonymous` (`actorKey`). */
  readonly actor?: string;
  /** An account id. */
  readonly account?: string;
  /** `<entry>/<route name>`. */
  readonly route?: string;
  /** Records at or after this time, ms. */
  readonly fromMs?: number;
  /** Records before this time, ms (exclusive). */
  readonly toMs?: number;
  /** Records strictly after this place in the order (the previous page's last). */
  readonly after?: AuditPosition;
  /** Most records to answer, 1-200. */
  readonly limit: number;
}

/**
 * One page: up to `limit` records, newest first, and where the next page starts (undefined at the end).
 * A page may hold fewer than `limit` records and still have a next place, when the adapter stopped after
 * examining its budget of records that the filters did not match.
 */
export interface AuditPage {
  readonly records: readonly AuditRecord[];
  readonly next: AuditPosition | undefined;
}

/** The audit log on one store. */
export interface AuditLog {
  readonly driver: 'sqlite' | 'redis';
  /**
   * Append `record` unless its request already has one.
   * @returns true when it was appended
   * @throws ServiceError UPSTREAM_UNAVAILABLE
   */
  append(record: AuditRecordDraft): Promise<boolean>;
  /** @throws ServiceError UPSTREAM_UNAVAILABLE */
  list(query: AuditQuery): Promise<AuditPage>;
  close(): Promise<void>;
}

/** Records an adapter examines for one page before it answers a short page with a next place. */
export const AUDIT_SCAN_BUDGET = 2000;
