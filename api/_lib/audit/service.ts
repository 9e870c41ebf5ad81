/**
 * The audit log's service (docs/architecture.md, "Audit log"; spec 5.3): the record of a request that
 * changed nothing in a store ({@link recordAnswer}), and the operators' page of records newest first with
 * filters and an opaque cursor ({@link listAudit}, `GET /api/admin/audit`).
 */
import { getServiceConfig } from '../config.js';
import { ServiceError } from '../errors.js';
import type { LedgerStore } from '../ledger/types.js';
import { requestFingerprint } from '../stores/idempotency.js';
import { auditRecordOf, type AuditRecord, type AuditScope } from '../util/audit-scope.js';
import { auditLog } from './store.js';
import type { AuditLog, AuditPosition, AuditQuery } from './types.js';

/** Query parameters of `GET /api/admin/audit`; the OpenAPI document reads them too. */
export const AUDIT_PARAMS = Object.freeze({
  actor: { kind: 'string', maxLength: 200 },
  account: { kind: 'string', maxLength: 200 },
  route: {
    kind: 'string',
    maxLength: 100,
    pattern: /^[a-z]+\/[a-z0-9-]+$/,
    patternRule: 'read <entry>/<route name>, e.g. admin/grant-coin',
  },
  from: { kind: 'string', maxLength: 40 },
  to: { kind: 'string', maxLength: 40 },
  cursor: { kind: 'string', maxLength: 200 },
  limit: { kind: 'int', min: 1, max: 200, default: 50, clamp: true },
} as const);

/** The parsed query of `GET /api/admin/audit`. */
export interface AuditListQuery {
  /** A token's subject, `admin-password`, `cron` or `anonymous`. */
  readonly actor?: string | undefined;
  /** A studio id or an account id. */
  readonly account?: string | undefined;
  readonly route?: string | undefined;
  /** ISO 8601 times: records at or after `from`, before `to`. */
  readonly from?: string | undefined;
  readonly to?: string | undefined;
  readonly cursor?: string | undefined;
  readonly limit: number;
}

/** Answer of `GET /api/admin/audit` (`schemas/responses/audit.schema.json`). */
export interface AuditListAnswer {
  readonly records: readonly AuditRecord[];
  /** Opaque cursor of the next page (same filters), or null on the last page. */
  readonly cursor: string | null;
  readonly hasMore: boolean;
}

const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2})$/;

/** `value` as ms since the epoch. @throws ServiceError INVALID_QUERY naming `name` */
function timeOf(name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const ms = ISO_TIME.test(value) ? Date.parse(value) : NaN;
  if (!Number.isFinite(ms)) {
    throw new ServiceError('INVALID_QUERY', `${name} must be an ISO 8601 time with a zone, e.g. 2026-11-20T00:00:00Z.`, {
      errors: [{ name, message: 'not an ISO 8601 time with a zone' }],
    });
  }
  return ms;
}

/** The binding of a cursor to its filters. */
const binding = (filters: readonly (string | number | undefined)[]) =>
  requestFingerprint(['audit', ...filters.map((f) => f ?? null)]).slice(0, 16);

function encodeCursor(bound: string, at: AuditPosition): string {
  return Buffer.from(`a1.${bound}.${at.atMs}.${at.seq}`).toString('base64url');
}

/** @throws ServiceError INVALID_QUERY for a cursor that is not one of these filters */
function decodeCursor(cursor: string, bound: string): AuditPosition {
  const m = /^a1\.([0-9a-f]{16})\.(\d{1,15})\.([1-9]\d{0,15})$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  if (!m || m[1] !== bound)
    throw new ServiceError('INVALID_QUERY', 'The cursor is not one of this query. Start again without a cursor.', {
      errors: [{ name: 'cursor', message: 'it was not issued for these filters' }],
    });
  return { atMs: Number(m[2]), seq: Number(m[3]) };
}

/**
 * A page of the audit log, newest first (time, then sequence number). `account` may name a studio id or an
 * account id; `actor` is a token's subject, `admin-password`, `cron` or `anonymous`.
 * @throws ServiceError INVALID_QUERY (a bad time, `from` not before `to`, a cursor of other filters),
 *   NOT_FOUND (no account has the id), UPSTREAM_UNAVAILABLE
 */
export async function listAudit(log: AuditLog, ledger: LedgerStore, query: AuditListQuery): Promise<AuditListAnswer> {
  const fromMs = timeOf('from', query.from);
  const toMs = timeOf('to', query.to);
  // a missing bound is open
  if ((fromMs ?? -Infinity) >= (toMs ?? Infinity)) {
    throw new ServiceError('INVALID_QUERY', 'from must be before to.', { errors: [{ name: 'from', message: 'not before to' }] });
  }
  let account: string | undefined;
  if (query.account !== undefined) {
    const found =
      (await ledger.findAccount({ studioId: query.account })) ??
      (/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(query.account)
        ? await ledger.findAccount({ accountId: query.account })
        : undefined);
    if (!found) throw new ServiceError('NOT_FOUND', 'No account has this studioId or accountId.');
    account = found.accountId;
  }
  const bound = binding([query.actor, account, query.route, fromMs, toMs]);
  const after = query.cursor === undefined ? undefined : decodeCursor(query.cursor, bound);
  const q: AuditQuery = { actor: query.actor, account, route: query.route, fromMs, toMs, after, limit: query.limit };
  const page = await log.list(q);
  return {
    records: page.records,
    cursor: page.next === undefined ? null : encodeCursor(bound, page.next),
    hasMore: page.next !== undefined,
  };
}

/**
 * Append the record of a request whose scope has none yet (it changed nothing in the ledger or player
 * store, or it failed): `changed` is true when object storage confirmed its change, null when it failed
 * with a 5xx (a change in a store would have its own record), false otherwise.
 * @throws ServiceError UPSTREAM_UNAVAILABLE
 */
export async function recordAnswer(log: AuditLog, scope: AuditScope, status: number, at: Date, reason?: string): Promise<void> {
  if (scope.recorded) return;
  const changed = scope.confirmed ? true : status >= 500 ? null : false;
  await log.append(auditRecordOf(scope, status, changed, at, reason));
  scope.recorded = true;
}

/**
 * The entries' recorder (`defineEntry`'s `audit` option): {@link recordAnswer} on the process's log. A
 * deployment without a store (`STORE_DRIVER` unset: object storage alone) has no log to write; its
 * operators' writes are then in the operator log's `operator-write` lines only.
 * @throws ServiceError UPSTREAM_UNAVAILABLE when the log cannot be written
 */
export async function recordAudit(scope: AuditScope, status: number, reason?: string): Promise<void> {
  if (getServiceConfig().store.driver === 'none') return;
  await recordAnswer(await auditLog(), scope, status, new Date(), reason);
}
