/**
 * Response helpers shared by every function: JSON with CORS, caching and ETag, preflight answers,
 * and the single error-to-response mapping (ARCHITECTURE.md habit 1).
 *
 * Headers on every response (spec 4.2: cross-origin headers on all responses; 8: public 300 s cache):
 * - `Access-Control-Allow-Origin: *`, `Access-Control-Expose-Headers` for the headers clients read.
 * - Successful GETs: `Cache-Control: public, max-age=300, s-maxage=300`, `ETag`, 304 on `If-None-Match`.
 * - Errors: `Cache-Control: no-store`, `Content-Type: application/problem+json`.
 */
import { createHash } from 'node:crypto';
import { ServiceError, STATUS_OF, TITLE_OF, isServiceError } from './errors.js';

/** Cache lifetime of public responses, in seconds (spec 8: 300 s, public). */
export const CACHE_MAX_AGE_S = 300;

/** Headers clients may read cross-origin. */
const EXPOSED = 'ETag, Content-Disposition, X-Limit-Requested, X-Limit-Applied, X-Build-Id';

/** CORS headers put on every response, error or not. */
export function corsHeaders(): Record<string, string> {
  return {
    'Access-Control-Allow-Origin': '*',
    'Access-Control-Expose-Headers': EXPOSED,
  };
}

/**
 * Answer to a CORS preflight (`OPTIONS`): 204 with the allowed methods and headers, cacheable for a day.
 * @param methods methods the route accepts, e.g. `['GET']`.
 */
export function preflight(methods: readonly string[] = ['GET']): Response {
  return new Response(null, {
    status: 204,
    headers: {
      ...corsHeaders(),
      'Access-Control-Allow-Methods': [...new Set([...methods, 'OPTIONS'])].join(', '),
      'Access-Control-Allow-Headers': 'Authorization, Content-Type, If-None-Match, X-Admin-Password, Idempotency-Key',
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
    'Cache-Control': `public, max-age=${CACHE_MAX_AGE_S}, s-maxage=${CACHE_MAX_AGE_S}`,
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

/** Problem type URI base for `type` members. */
const PROBLEM_BASE = 'https://errors.game-data.dev/';

/**
 * The only place an error becomes a response: RFC 9457 problem+json with `type`, `title`, `status`,
 * `detail`, `code`, `instance` and, for invalid input, `errors[]` listing every problem at once.
 * Unknown errors are logged once and become a 500 whose body leaks nothing.
 */
export function toProblemResponse(error: unknown, request?: Request): Response {
  let se: ServiceError;
  if (isServiceError(error)) se = error;
  else {
    console.error('[internal]', error);
    se = new ServiceError('INTERNAL', 'The service failed unexpectedly; the failure has been logged.');
  }
  const status = STATUS_OF[se.code];
  const body: Record<string, unknown> = {
    type: PROBLEM_BASE + se.code.toLowerCase().replace(/_/g, '-'),
    title: TITLE_OF[se.code],
    status,
    detail: se.message,
    code: se.code,
  };
  if (request) body.instance = new URL(request.url).pathname;
  if (se.errors.length > 0) body.errors = se.errors;
  return new Response(JSON.stringify(body), {
    status,
    headers: {
      ...corsHeaders(),
      'Content-Type': 'application/problem+json',
      'Cache-Control': 'no-store',
      ...se.headers,
    },
  });
}

/**
 * Wrap a Web-standard handler so that every thrown error becomes a problem response and `OPTIONS`
 * gets a preflight answer. Methods other than `methods` (and HEAD for GET) get 405 with `Allow`.
 * @param methods accepted methods, default `['GET']`.
 */
export function handle(
  fn: (request: Request) => Promise<Response> | Response,
  methods: readonly string[] = ['GET'],
): (request: Request) => Promise<Response> {
  const allowed = new Set(methods);
  if (allowed.has('GET')) allowed.add('HEAD');
  return async (request: Request) => {
    if (request.method === 'OPTIONS') return preflight(methods);
    try {
      if (!allowed.has(request.method)) {
        throw new ServiceError('METHOD_NOT_ALLOWED', `${request.method} is not supported here; use ${methods.join(' or ')}.`, {
          headers: { Allow: [...allowed, 'OPTIONS'].join(', ') },
        });
      }
      return await fn(request);
    } catch (error) {
      return toProblemResponse(error, request);
    }
  };
}
