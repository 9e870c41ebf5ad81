/**
 * The audit scope of one request (docs/architecture.md, "Audit log"): what the audit record of an
 * operator's or a game server's write will say, gathered while the request runs, so that the store kit can
 * write the record in the same atomic step as the request's first change (`api/_lib/stores/audit.ts`).
 *
 * The entry helper opens a scope for every audited request ({@link openAuditScope}) and runs its handler in it
 * ({@link inAuditScope});
 * the layers below note what only they learn: the body reader the idempotency key
 * ({@link noteIdempotencyKey}), the services the account the request acts on ({@link noteAuditAccount}),
 * object storage that it confirmed a change ({@link noteConfirmedChange}). The store kit reads the scope
 * when it writes ({@link currentAuditScope}) and marks it recorded once a record is committed with a
 * change ({@link AuditScope.recorded}). Outside a scope (a CLI, a test calling a store) every note is
 * a no-op and nothing is recorded.
 *
 * Built on `AsyncLocalStorage`, which follows the request through every `await`; a store that queues
 * writes (the SQLite group commit) captures the scope when the write is queued, not when it runs.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * Who made a request, as its audit record names them (never a credential): a verified token's subject
 * and role, the admin password, the cron secret, or nobody verified (a refused authentication).
 */
export type AuditActor =
  | { readonly via: 'token'; readonly subject: string; readonly role: string }
  | { readonly via: 'password' }
  | { readonly via: 'cron' }
  | { readonly via: 'none' };

/** What a scope knows from the start: who, where, which request. */
export interface AuditDraft {
  readonly actor: AuditActor;
  /** `<entry>/<route name>` of the route table, e.g. `admin/grant-coin`. */
  readonly route: string;
  /** The request's method (`POST`, `PATCH`, …). */
  readonly method: string;
  /** The request's id (`X-Request-Id`): at most one record per request id. */
  readonly requestId: string;
  /** The status the route answers when the request changes something (201 for a creation, else 200). */
  readonly changeStatus: number;
}

/** The audit scope of one request. */
export interface AuditScope {
  readonly draft: AuditDraft;
  /** The account the request acts on (its account id), once a service resolved it. */
  account: string | undefined;
  /** The idempotency key the request carried, once its body was read. */
  idempotencyKey: string | undefined;
  /** True once object storage confirmed the request's change (what is not kept in the ledger or player store). */
  confirmed: boolean;
  /** True once a record of this request is committed with its change (by the store kit). */
  recorded: boolean;
}

/** One audit record as stored and answered (`GET /api/admin/audit`, `schemas/responses/audit.schema.json`). */
export interface AuditRecord {
  /** The record's place in the log: a decimal sequence number, increasing with each record of a store. */
  readonly id: string;
  /** When it was written, ISO 8601 UTC with milliseconds. */
  readonly at: string;
  readonly actor: AuditActor;
  /** `<entry>/<route name>`, e.g. `admin/grant-coin`. */
  readonly route: string;
  readonly method: string;
  /** The account id the request acted on, or null when none was resolved. */
  readonly account: string | null;
  readonly idempotencyKey: string | null;
  /** The answer's status (for a record written with its change, the status the route answers for a change). */
  readonly status: number;
  /**
   * `true`: the change was made (written with this record, or confirmed by object storage); `false`:
   * nothing changed (refused, replayed); `null`: unknown (the request failed on the way; a change made
   * in the ledger or player store would have its own record, so none was made there).
   */
  readonly changed: boolean | null;
  readonly requestId: string;
  /** Why an operator's authentication was refused (`invalid-token`, `role-not-allowed`, `wrong-password`, `no-credentials`). */
  readonly reason?: string;
}

/** A record before the store gives it its id. */
export type AuditRecordDraft = Omit<AuditRecord, 'id'>;

/**
 * The record of a scope's request.
 * @param status the answer's status; `changed` whether the change was made (see {@link AuditRecord.changed}).
 */
export function auditRecordOf(scope: AuditScope, status: number, changed: boolean | null, at: Date, reason?: string): AuditRecordDraft {
  const { actor, route, method, requestId } = scope.draft;
  return {
    at: at.toISOString(),
    actor,
    route,
    method,
    account: scope.account ?? null,
    idempotencyKey: scope.idempotencyKey ?? null,
    status,
    changed,
    requestId,
    ...(reason === undefined ? {} : { reason }),
  };
}

const storage = new AsyncLocalStorage<AuditScope>();

/** A new audit scope of `draft`, with nothing noted yet; run a request's work in it with {@link inAuditScope}. */
export function openAuditScope(draft: AuditDraft): AuditScope {
  return { draft, account: undefined, idempotencyKey: undefined, confirmed: false, recorded: false };
}

/** Run `fn` inside `scope`: every note and store write on its way belongs to that request. */
export function inAuditScope<T>(scope: AuditScope, fn: () => Promise<T>): Promise<T> {
  return storage.run(scope, fn);
}

/** The scope of the running request, or undefined outside one. */
export function currentAuditScope(): AuditScope | undefined {
  return storage.getStore();
}

/**
 * Note the account the running request acts on. The first noted account stays (the one the request
 * named; an item's owner before the new owner of a transfer), unless `replace` (a creation noting the id
 * it minted, then the id of the account it answers).
 */
export function noteAuditAccount(accountId: string, replace = false): void {
  const scope = storage.getStore();
  if (scope && (replace || scope.account === undefined)) scope.account = accountId;
}

/** Note the idempotency key the running request carries. */
export function noteIdempotencyKey(key: string): void {
  const scope = storage.getStore();
  if (scope) scope.idempotencyKey = key;
}

/** Note that object storage confirmed the running request's change. */
export function noteConfirmedChange(): void {
  const scope = storage.getStore();
  if (scope) scope.confirmed = true;
}
