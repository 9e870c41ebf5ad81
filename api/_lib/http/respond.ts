/**
 * Response helpers shared by every function: JSON with CORS, caching and ETag, preflight answers,
 * and the single error-to-response mapping (docs/architecture.md, "Errors").
 *
 * Headers on every response (spec 4.2: cross-origin headers on all responses; 8: public 300 s cache):
 * - `Access-Control-Allow-Origin: *`, `Access-Control-Expose-Headers` for the headers clients read.
 * - Successful GETs: `Cache-Control: public, max-age=300` for clients and `CDN-Cache-Control: public,
 *   max-age=300` for the edge (RFC 9213). Vercel strips `s-maxage` from `Cache-Control` and rewrites it
 *   to `public, max-age=0, must-revalidate` for browsers, but leaves both of these as they are.
 *   Plus `ETag`, and 304 on `If-None-Match`.
 * - Errors: `Cache-Control: no-store`, `Content-Type: application/problem+json`; the body echoes only a
 *   bounded part of what the client sent (see {@link toProblemResponse}).
 */
import { createHash } from 'node:crypto';
import { ServiceError, STATUS_OF, TITLE_OF, isServiceError, type FieldProblem } from '../errors.js';
import { ConfigError } from '../config.js';
import { causeChain, configErrorIn, logConfigurationOnce, logEvent } from '../log.js';
import { REQUEST_ID_HEADER } from './request-id.js';

/** Cache lifetime of public responses, in seconds (spec 8: 300 s, public). */
export const CACHE_MAX_AGE_S = 300;

/** Headers clients may read cross-origin. */
export const EXPOSED_HEADERS =
  'ETag, Content-Disposition, X-Limit-Requested, X-Limit-Applied, X-Build-Id, Allow, Location, Retry-After, WWW-Authenticate, Idempotent-Replayed, X-Request-Id';

/** Request headers a cross-origin client may send (preflight `Access-Control-Allow-Headers`). */
export const ALLOWED_REQUEST_HEADERS = 'Authorization, Content-Type, If-None-Match, If-Match, X-Admin-Password, Idempotency-Key';

/** `Cache-Control` (clients) and `CDN-Cache-Control` (edge) of a public, cacheable response (spec 4.2, 8). */
export function publicCacheHeaders(): Record<string, string> {
  const value = `public, max-age=${CACHE_MAX_AGE_S}`;
  return { 'Cache-Control': value, 'CDN-Cache-Control': value };
}

/** CORS headers put on every response, error or not. */
export function corsHeaders(): Record<string, string> {
  return {
    'Access-Control-Allow-Origin': '*',
    'Access-Control-Expose-Headers': EXPOSED_HEADERS,
  };
}

/**
 * Answer to a CORS preflight (`OPTIONS`): 204 with the route's methods (also as `Allow`) and the request
 * headers clients may send, cacheable by the browser for a day.
 * @param allow the route's methods as an `Allow` value, e.g. `GET, HEAD, OPTIONS`.
 */
export function preflight(allow: string): Response {
  return new Response(null, {
    status: 204,
    headers: {
      ...corsHeaders(),
      Allow: allow,
      'Access-Control-Allow-Methods': allow,
      'Access-Control-Allow-Headers': ALLOWED_REQUEST_HEADERS,
      'Access-Control-Max-Age': '86400',
    },
  });
}

/**
 * Strong ETag for a response that is a pure function of the catalog build and the canonical request.
 * @param buildId id of the catalog build the data came from (manifest `buildId`).
 * @param canonical canonical form of the request (path plus sorted, normalised parameters).
 * @returns a quoted ETag such as `"3f2a…-9c1b…"`.
 */
export function etagOf(buildId: string, canonical: string): string {
  const h = createHash('sha1').update(canonical).digest('hex').slice(0, 16);
  return `"${buildId.slice(0, 16)}-${h}"`;
}

/** True when the request's `If-None-Match` lists `etag` (or `*`); weak comparison as RFC 9110 13.1.2. */
export function notModified(request: Request, etag: string): boolean {
  const inm = request.headers.get('if-none-match');
  if (!inm) return false;
  const bare = etag.replace(/^W\//, '');
  return inm.split(',').some((t) => {
    const v = t.trim();
    return v === '*' || v.replace(/^W\//, '') === bare;
  });
}

/** Options of {@link cachedResponse}. */
export interface CachedOptions {
  /** Catalog build id; with `canonical` it forms the ETag. */
  readonly buildId: string;
  /** Canonical request string (see {@link etagOf}). */
  readonly canonical: string;
  /** Content type; default `application/json; charset=utf-8`. */
  readonly contentType?: string;
  /** Extra headers (e.g. `X-Limit-Applied`, `Content-Disposition`). */
  readonly headers?: Record<string, string>;
}

/**
 * A cacheable 200 (or 304 when `If-None-Match` matches) with CORS, `Cache-Control` and `ETag`.
 * @param body already-serialised body (string or bytes) or a stream.
 */
export function cachedResponse(request: Request, body: BodyInit, options: CachedOptions): Response {
  const etag = etagOf(options.buildId, options.canonical);
  const headers: Record<string, string> = {
    ...corsHeaders(),
    ...publicCacheHeaders(),
    ETag: etag,
    'X-Build-Id': options.buildId,
    ...(options.headers ?? {}),
  };
  if (notModified(request, etag)) return new Response(null, { status: 304, headers });
  headers['Content-Type'] = options.contentType ?? 'application/json; charset=utf-8';
  return new Response(request.method === 'HEAD' ? null : body, { status: 200, headers });
}

/** A cacheable JSON 200/304: `JSON.stringify(value)` through {@link cachedResponse}. */
export function jsonResponse(request: Request, value: unknown, options: CachedOptions): Response {
  return cachedResponse(request, JSON.stringify(value), options);
}

/** Uncached JSON response with CORS (for writes, e.g. storage and wallet), status default 200. */
export function plainJson(value: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(value), {
    status,
    headers: { ...corsHeaders(), 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'no-store', ...headers },
  });
}

/** Options of {@link idempotentAnswer}. */
export interface IdempotentAnswerOptions {
  /** Status of a first use of the key: 201 for a creation (the default), 200 for a change. */
  readonly createdStatus?: 200 | 201;
  /** Headers of every answer (e.g. `ETag`, a `Location` a replay repeats). */
  readonly headers?: Readonly<Record<string, string>>;
  /** Headers of a first use only (e.g. the new resource's `Location`). */
  readonly createdHeaders?: Readonly<Record<string, string>>;
}

/**
 * The answer of an idempotent write (spec 3, 4.8; `api/_lib/stores/idempotency.ts`), the same way for
 * every route: a first use of the key answers `createdStatus`; a replay answers 200 with
 * `Idempotent-Replayed: true` (the IETF Idempotency-Key draft's signal) and the first result.
 */
export function idempotentAnswer(value: unknown, replayed: boolean, options: IdempotentAnswerOptions = {}): Response {
  const own = replayed ? { 'Idempotent-Replayed': 'true' } : (options.createdHeaders ?? {});
  return plainJson(value, replayed ? 200 : (options.createdStatus ?? 201), { ...options.headers, ...own });
}

/** Problem type URI base for `type` members. */
const PROBLEM_BASE = 'https://errors.game-data.dev/';

/** Bounds on what a problem body echoes of a request (a client cannot make an error body large). */
export const PROBLEM_BOUNDS = Object.freeze({
  /** Most `errors[]` items listed; the rest are counted in `errorsOmitted`. */
  errors: 20,
  /** Most characters of one echoed string (a parameter name or value, a pointer, the path). */
  text: 100,
  /** Most values echoed for one repeated parameter. */
  values: 5,
  /** Most characters of `detail`. */
  detail: 600,
});

/** `text` cut to `max` characters, with `…` marking the cut (never between the two halves of a surrogate pair). */
export function truncate(text: string, max: number = PROBLEM_BOUNDS.text): string {
  if (text.length <= max) return text;
  let end = max - 1;
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end--;
  return text.slice(0, end) + '…';
}

/**
 * Characters a problem body never carries as they are, whatever a request echoed: C0 and C1 controls and
 * DEL, line and paragraph separators, bidi marks, embeddings, overrides and isolates, and lone surrogates.
 */
const UNPRINTABLE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]|\p{Cs}/gu;

/**
 * `text` with every {@link UNPRINTABLE} character written as `\uXXXX` (its code unit in hex): an echo of
 * hostile input stays one line of visible text, and the body stays valid against the problem schema.
 */
export function printable(text: string): string {
  return text.replace(UNPRINTABLE, (ch) => `\\u${ch.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}`);
}

/** `text` made {@link printable}, then cut to `max` characters. */
const echo = (text: string, max: number = PROBLEM_BOUNDS.text): string => truncate(printable(text), max);

function boundedProblems(errors: readonly FieldProblem[]): FieldProblem[] {
  return errors.slice(0, PROBLEM_BOUNDS.errors).map((e) => {
    const out: { name: string; message: string; value?: string | readonly string[] } = {
      name: echo(e.name),
      message: echo(e.message, PROBLEM_BOUNDS.detail),
    };
    if (typeof e.value === 'string') out.value = echo(e.value);
    else if (e.value !== undefined) out.value = e.value.slice(0, PROBLEM_BOUNDS.values).map((v) => echo(v));
    return out;
  });
}

/** What {@link toProblemResponse} knows of the request beyond the `Request` itself. */
export interface ProblemContext {
  /** The request's id (`api/_lib/http/request-id.ts`): sent as `X-Request-Id` and `requestId`, and logged. */
  readonly requestId?: string;
  /** The route that answered, `<entry>/<route name>`, for the log. */
  readonly route?: string;
}

/**
 * The only place an error becomes a response: RFC 9457 problem+json with `type`, `title`, `status`,
 * `detail`, `code`, `instance`, `requestId` (with a context's id; also the `X-Request-Id` header) and,
 * for invalid input, `errors[]` listing every problem at once. What the body echoes of the request is
 * bounded ({@link PROBLEM_BOUNDS}): at most 20 `errors[]` items (`errorsOmitted` counts the rest), 100
 * characters per echoed name or value, 5 values per repeated parameter, 600 characters of `detail`; and
 * every string of it is {@link printable} (controls, separators, bidi characters and lone surrogates
 * written as `\uXXXX`).
 * Unknown errors become a 500 whose body leaks nothing; a configuration error (or a 503 caused by one)
 * becomes a 503 that names nothing internal and never says to retry.
 *
 * Every 5xx is logged once, here (docs/architecture.md, "Logs"): a `server-error` line with the status,
 * code, method, path (no query), route, request id and the redacted cause chain; a configuration
 * problem's variables and what to set go to a `configuration` line once per configuration in force.
 */
export function toProblemResponse(error: unknown, request?: Request, context: ProblemContext = {}): Response {
  let se: ServiceError;
  if (isServiceError(error)) se = error;
  else if (error instanceof ConfigError) {
    se = new ServiceError('UPSTREAM_UNAVAILABLE', 'The service is not configured correctly; the operator has been told what to set.', {
      cause: error,
    });
  } else se = new ServiceError('INTERNAL', 'The service failed unexpectedly; the failure has been logged.', { cause: error });
  const status = STATUS_OF[se.code];
  if (status >= 500) logServerError(se, status, request, context);
  const body: Record<string, unknown> = {
    type: PROBLEM_BASE + se.code.toLowerCase().replace(/_/g, '-'),
    title: TITLE_OF[se.code],
    status,
    detail: echo(se.message, PROBLEM_BOUNDS.detail),
    code: se.code,
  };
  if (request) {
    try {
      body.instance = echo(new URL(request.url).pathname);
    } catch {
      // a request without a parseable URL has no instance to name
    }
  }
  if (se.errors.length > 0) {
    body.errors = boundedProblems(se.errors);
    if (se.errors.length > PROBLEM_BOUNDS.errors) body.errorsOmitted = se.errors.length - PROBLEM_BOUNDS.errors;
  }
  if (context.requestId !== undefined) body.requestId = context.requestId;
  return new Response(JSON.stringify(body), {
    status,
    headers: {
      ...corsHeaders(),
      'Content-Type': 'application/problem+json',
      'Cache-Control': 'no-store',
      ...se.headers,
      ...(context.requestId !== undefined ? { [REQUEST_ID_HEADER]: context.requestId } : {}),
    },
  });
}

/** The `server-error` line of a 5xx (and the `configuration` line of its configuration problem, once). */
function logServerError(se: ServiceError, status: number, request: Request | undefined, context: ProblemContext): void {
  const config = configErrorIn(se);
  if (config) logConfigurationOnce(config);
  let path: string | undefined;
  try {
    path = request ? new URL(request.url).pathname : undefined;
  } catch {
    path = undefined;
  }
  logEvent('error', 'server-error', {
    status,
    code: se.code,
    method: request?.method,
    path,
    route: context.route,
    requestId: context.requestId,
    cause: causeChain(se),
  });
}
