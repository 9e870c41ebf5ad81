/**
 * The one error type of the service and the one table that maps its codes to HTTP statuses.
 *
 * This module sits below every layer (no import of the HTTP layer), so stores, the catalog reader and
 * domain code throw {@link ServiceError}s directly; `toProblemResponse` in `api/_lib/http/respond.ts` is
 * the only place that turns one into a response (docs/architecture.md, "Errors"). Bodies follow
 * RFC 9457 `application/problem+json` (spec 7 leaves the error body open; 4xx for anything a client
 * sent, 503 when data or a store cannot be reached, never a 5xx for client input).
 */

/** Closed set of error codes. Tests assert on these, never on message text. */
export type ErrorCode =
  | 'INVALID_QUERY'
  | 'INVALID_BODY'
  | 'NOT_FOUND'
  | 'METHOD_NOT_ALLOWED'
  | 'PAYLOAD_TOO_LARGE'
  | 'UNSUPPORTED_MEDIA_TYPE'
  | 'UNAUTHORIZED'
  | 'FORBIDDEN'
  | 'ACCOUNT_SUSPENDED'
  | 'IDEMPOTENCY_KEY_REUSED'
  | 'CONFLICT'
  | 'PRECONDITION_FAILED'
  | 'PRECONDITION_REQUIRED'
  | 'BAD_REQUEST'
  | 'EXPECTATION_FAILED'
  | 'HEADERS_TOO_LARGE'
  | 'TOO_MANY_REQUESTS'
  | 'UPSTREAM_UNAVAILABLE'
  | 'INTERNAL';

/**
 * HTTP status for every {@link ErrorCode} (spec 7: 404 unknown item, 503 data unavailable, 401 guest).
 * `IDEMPOTENCY_KEY_REUSED` is 422 as the IETF Idempotency-Key draft says (a key sent again with another
 * payload); `PRECONDITION_REQUIRED` (428) and `PRECONDITION_FAILED` (412) are RFC 6585 / RFC 9110's
 * answers to a missing or stale `If-Match`; `BAD_REQUEST`, `EXPECTATION_FAILED` and `HEADERS_TOO_LARGE`
 * are the local server's answers to requests Node's HTTP parser refuses; `TOO_MANY_REQUESTS` (429, RFC 6585,
 * with `Retry-After`) is the throttle's (`api/_lib/throttle/`); `ACCOUNT_SUSPENDED` (403) answers a request
 * made with the token of a banned account, and a game server's write to one.
 */
export const STATUS_OF: Readonly<Record<ErrorCode, number>> = Object.freeze({
  INVALID_QUERY: 400,
  INVALID_BODY: 400,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  ACCOUNT_SUSPENDED: 403,
  IDEMPOTENCY_KEY_REUSED: 422,
  CONFLICT: 409,
  PRECONDITION_FAILED: 412,
  PRECONDITION_REQUIRED: 428,
  BAD_REQUEST: 400,
  EXPECTATION_FAILED: 417,
  HEADERS_TOO_LARGE: 431,
  TOO_MANY_REQUESTS: 429,
  UPSTREAM_UNAVAILABLE: 503,
  INTERNAL: 500,
});

/** Short human title per code; the `title` member of a problem body. */
export const TITLE_OF: Readonly<Record<ErrorCode, string>> = Object.freeze({
  INVALID_QUERY: 'Invalid query parameters',
  INVALID_BODY: 'Invalid request body',
  NOT_FOUND: 'Not found',
  METHOD_NOT_ALLOWED: 'Method not allowed',
  PAYLOAD_TOO_LARGE: 'Payload too large',
  UNSUPPORTED_MEDIA_TYPE: 'Unsupported media type',
  UNAUTHORIZED: 'Authentication required',
  FORBIDDEN: 'Forbidden',
  ACCOUNT_SUSPENDED: 'Account suspended',
  IDEMPOTENCY_KEY_REUSED: 'Idempotency key reused with a different request',
  CONFLICT: 'Conflict',
  PRECONDITION_FAILED: 'Precondition failed',
  PRECONDITION_REQUIRED: 'Precondition required',
  BAD_REQUEST: 'Malformed request',
  EXPECTATION_FAILED: 'Expectation failed',
  HEADERS_TOO_LARGE: 'Request header fields too large',
  TOO_MANY_REQUESTS: 'Too many requests',
  UPSTREAM_UNAVAILABLE: 'Data unavailable',
  INTERNAL: 'Internal error',
});

/** One invalid input named precisely: which parameter (or body pointer), what was wrong, what is allowed. */
export interface FieldProblem {
  /** Query parameter name, or a JSON pointer into the request body. */
  readonly name: string;
  /** What was wrong and what to send instead. */
  readonly message: string;
  /** The offending raw value(s) as received, when there was one. */
  readonly value?: string | readonly string[];
}

/**
 * A failure with a stable code, a message that says what happened and what to do, every invalid
 * field at once (`errors`), optional extra response headers (e.g. `Allow` for 405), and a `cause`.
 */
export class ServiceError extends Error {
  override readonly name = 'ServiceError';
  readonly code: ErrorCode;
  readonly errors: readonly FieldProblem[];
  readonly headers: Readonly<Record<string, string>>;

  constructor(
    code: ErrorCode,
    message: string,
    options: { errors?: readonly FieldProblem[]; headers?: Record<string, string>; cause?: unknown } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.errors = options.errors ?? [];
    this.headers = options.headers ?? {};
  }

  /** HTTP status of this error's code. */
  get status(): number {
    return STATUS_OF[this.code];
  }
}

/** True when `value` is a {@link ServiceError}. */
export function isServiceError(value: unknown): value is ServiceError {
  return value instanceof ServiceError;
}
