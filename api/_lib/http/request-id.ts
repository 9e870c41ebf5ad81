/**
 * The id of a request (docs/architecture.md, "Logs"): Vercel's own `x-vercel-id` when the request came
 * through Vercel's edge (letters, digits, `:`, `_` and `-`, at most 128 characters), else a random UUID.
 * Every answer of a function entry carries it as `X-Request-Id`, a problem body as `requestId`, and
 * every log line about the request as `requestId`, so an operator finds a client's failure in the log.
 * An `X-Request-Id` a client sends is not taken: the id must be one the client cannot choose.
 */
import { randomUUID } from 'node:crypto';

/** The response header that carries the request id. */
export const REQUEST_ID_HEADER = 'X-Request-Id';

/** Shape of an id taken from `x-vercel-id` (also the problem schema's `requestId` pattern). */
export const REQUEST_ID_PATTERN = /^[A-Za-z0-9:_-]{1,128}$/;

/** The id of `request`: its `x-vercel-id` when well-formed, else a fresh random UUID (a new one per call). */
export function requestIdOf(request: Request): string {
  const vercel = request.headers.get('x-vercel-id')?.trim();
  return vercel !== undefined && REQUEST_ID_PATTERN.test(vercel) ? vercel : randomUUID();
}

/**
 * `response` with `X-Request-Id: id` (the same response when its headers can be set, a copy when they are
 * immutable).
 */
export function withRequestId(response: Response, id: string): Response {
  try {
    response.headers.set(REQUEST_ID_HEADER, id);
    return response;
  } catch {
    const headers = new Headers(response.headers);
    headers.set(REQUEST_ID_HEADER, id);
    return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
  }
}
