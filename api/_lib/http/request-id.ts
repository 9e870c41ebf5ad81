/**
 * The id of a request (docs/architecture.md, "Logs"): Vercel's own `x-vercel-id` when the function runs on
 * Vercel, whose edge sets that header (letters, digits, `:`, `_` and `-`, at most 128 characters), else a
 * random UUID. Every answer of a function entry carries it as `X-Request-Id`, a problem body as
 * `requestId`, and every log line about the request as `requestId`, so an operator finds a client's
 * failure in the log.
 *
 * The id must be one the client cannot choose: the audit log keeps at most one record per request id
 * (docs/architecture.md, "Audit log"), so a chosen id could name an earlier request and leave a change
 * without its record. An `X-Request-Id` a client sends is never taken, and an `x-vercel-id` only on Vercel:
 * anywhere else (`npm start`, another host) nothing sets it but the client.
 */
import { randomUUID } from 'node:crypto';
import { runsOnVercel } from '../config.js';

/** The response header that carries the request id. */
export const REQUEST_ID_HEADER = 'X-Request-Id';

/** Shape of an id taken from `x-vercel-id` (also the problem schema's `requestId` pattern). */
export const REQUEST_ID_PATTERN = /^[A-Za-z0-9:_-]{1,128}$/;

/** The id of `request`: its `x-vercel-id` when well-formed and on Vercel, else a fresh random UUID (a new one per call). */
export function requestIdOf(request: Request): string {
  const vercel = runsOnVercel() ? request.headers.get('x-vercel-id')?.trim() : undefined;
  return vercel !== undefined && REQUEST_ID_PATTERN.test(vercel) ? vercel : randomUUID();
}

/**
 * `response` with the headers every function answer carries (docs/architecture.md, "Errors"):
 * - `X-Request-Id: id`;
 * - `X-Content-Type-Options: nosniff`: a browser never reads a JSON, CSV or problem answer as something
 *   else;
 * - `CDN-Cache-Control: no-store` unless the answer set its own: the route headers of `vercel.json` give
 *   every `/api/v1/*` path an edge cache time, and an answer's own header is the only thing that overrides
 *   them, so an error or a private answer is never kept at the edge.
 * The same response when its headers can be set, a copy when they are immutable.
 */
export function withAnswerHeaders(response: Response, id: string): Response {
  let headers = response.headers;
  let copy = false;
  try {
    headers.set(REQUEST_ID_HEADER, id);
  } catch {
    headers = new Headers(response.headers);
    headers.set(REQUEST_ID_HEADER, id);
    copy = true;
  }
  headers.set('X-Content-Type-Options', 'nosniff');
  if (!headers.has('CDN-Cache-Control')) headers.set('CDN-Cache-Control', 'no-store');
  return copy ? new Response(response.body, { status: response.status, statusText: response.statusText, headers }) : response;
}
