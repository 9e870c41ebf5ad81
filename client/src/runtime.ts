/**
 * The transport of the typed client: one `fetch` per call, credentials attached only where the operation
 * takes them, JSON in and out, and every refusal surfaced as an {@link ApiError} carrying the problem's
 * `code` (RFC 9457 problem+json; spec §7). The operations themselves are generated from the service's
 * OpenAPI document (`generated.ts`).
 */

/** Where and how the client calls the service. */
export interface ClientOptions {
  /**
   * Origin (and optional path prefix) of the service, e.g. `https://catalog.example`; default `''`: the
   * page's own origin (browsers only; Node needs an absolute URL).
   */
  readonly baseUrl?: string;
  /**
   * The caller's token (§5.2), or a function that returns the current one (called per request, so a page
   * can keep it in its own storage). Sent as `Authorization: Bearer …` to operations that take a token.
   */
  readonly token?: string | (() => string | undefined | Promise<string | undefined>);
  /**
   * `X-Admin-Password` (§5.3), sent only to admin and game-server operations, and only when no token is
   * set (a request with a token is judged by the token alone). Never sent to public routes.
   */
  readonly adminPassword?: string;
  /** The `fetch` to use; default the global one. */
  readonly fetch?: typeof fetch;
  /** Headers added to every request. */
  readonly headers?: Readonly<Record<string, string>>;
}

/** Per-call options. */
export interface CallOptions {
  /** Aborts the request; the call rejects with the abort's reason. */
  readonly signal?: AbortSignal;
  /** Headers for this call only (they win over the client's). */
  readonly headers?: Readonly<Record<string, string>>;
}

/** A successful answer: status, headers (e.g. `ETag`, `Idempotent-Replayed`) and the parsed body. */
export interface ApiResponse<T> {
  readonly status: number;
  readonly headers: Headers;
  readonly body: T;
}

/** One offending field of a refusal: a JSON pointer, or a query parameter or header by name. */
export interface ProblemField {
  readonly name: string;
  readonly message: string;
}

/**
 * A refusal or failure. `code` is the problem's stable code (`INVALID_QUERY`, `UNAUTHORIZED`,
 * `IDEMPOTENCY_KEY_REUSED`, …); clients branch on it, never on the text. Answers that are not problem+json
 * get `HTTP_<status>`; a request that got no answer at all gets `NETWORK_ERROR` with status 0; a 304 (only
 * when the caller sent `If-None-Match` itself) is `NOT_MODIFIED`.
 */
export class ApiError extends Error {
  /** HTTP status, 0 when no answer came. */
  readonly status: number;
  readonly code: string;
  /** The problem's `detail`: what is wrong and what to do. */
  readonly detail: string;
  /** Every offending field, when the service listed them. */
  readonly errors: readonly ProblemField[];
  /** The problem body as sent, when there was one. */
  readonly problem: Readonly<Record<string, unknown>> | undefined;
  /** The answer's headers (e.g. `WWW-Authenticate`, `Retry-After`), when there was an answer. */
  readonly headers: Headers | undefined;

  constructor(status: number, code: string, detail: string, problem?: Readonly<Record<string, unknown>>, headers?: Headers) {
    super(`${code}: ${detail}`);
    this.name = 'ApiError';
    this.status = status;
    this.code = code;
    this.detail = detail;
    this.problem = problem;
    this.headers = headers;
    const errors = problem?.errors;
    this.errors = Array.isArray(errors)
      ? errors.filter(
          (e): e is ProblemField => typeof (e as ProblemField | null)?.name === 'string' && typeof (e as ProblemField).message === 'string',
        )
      : [];
  }
}

/** A file to upload: bytes and the name that becomes the last segment of its key (a `File` is one). */
export type UploadFile = Blob & { readonly name: string };

/** Which credentials an operation takes (its OpenAPI `security`). */
export type Security = 'none' | 'token' | 'token-or-password';

/** One call, as a generated operation describes it. */
export interface Call {
  readonly method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** Path template, e.g. `/v1/relics/{key}`. */
  readonly path: string;
  /** Path parameters by name; those in `multiSegment` keep their `/`. */
  readonly params?: Readonly<Record<string, string>>;
  readonly multiSegment?: readonly string[];
  /** Query values; undefined ones are left out. */
  readonly query?: Readonly<Record<string, string | number | undefined>>;
  /** A JSON body, sent with `mediaType` (default `application/json`). */
  readonly json?: unknown;
  readonly mediaType?: string;
  /** A multipart body. */
  readonly form?: FormData;
  /** Extra headers the operation defines (e.g. `If-Match`). */
  readonly headers?: Readonly<Record<string, string | undefined>>;
  readonly security: Security;
}

/** Read a problem body, or undefined when the answer is not one. */
async function readProblem(res: Response): Promise<Record<string, unknown> | undefined> {
  const type = res.headers.get('content-type') ?? '';
  if (!/^application\/(problem\+)?json/i.test(type)) return undefined;
  try {
    const body: unknown = await res.json();
    return typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** The path with its parameters filled in, percent-encoded (a multi-segment value keeps its `/`). */
export function fillPath(path: string, params: Readonly<Record<string, string>> = {}, multiSegment: readonly string[] = []): string {
  return path.replace(/\{([A-Za-z0-9_]+)\}/g, (_m, name: string) => {
    const value = params[name];
    if (value === undefined || value === '') throw new ApiError(0, 'INVALID_ARGUMENT', `The path parameter "${name}" is required.`);
    const encoded = encodeURIComponent(value);
    return multiSegment.includes(name) ? encoded.replace(/%2F/gi, '/') : encoded;
  });
}

/**
 * Send one call and read its answer.
 * @returns the status, headers and body: parsed JSON for JSON answers, text for others, undefined for 204.
 * @throws ApiError for every answer of status 300 or more and for requests that got no answer; an abort
 *   rejects with the signal's reason.
 */
export async function send<T>(options: ClientOptions, call: Call, callOptions: CallOptions = {}): Promise<ApiResponse<T>> {
  const headers = new Headers(options.headers);
  headers.set('Accept', 'application/json, application/problem+json;q=0.9, text/csv;q=0.8');
  for (const [k, v] of Object.entries(call.headers ?? {})) if (v !== undefined) headers.set(k, v);
  if (call.security !== 'none') {
    const token = typeof options.token === 'function' ? await options.token() : options.token;
    if (token) headers.set('Authorization', `Bearer ${token}`);
    else if (call.security === 'token-or-password' && options.adminPassword) headers.set('X-Admin-Password', options.adminPassword);
  }
  let body: BodyInit | undefined;
  if (call.json !== undefined) {
    headers.set('Content-Type', call.mediaType ?? 'application/json');
    body = JSON.stringify(call.json);
  } else if (call.form) body = call.form;
  for (const [k, v] of Object.entries(callOptions.headers ?? {})) headers.set(k, v);
  const search = new URLSearchParams();
  for (const [k, v] of Object.entries(call.query ?? {})) if (v !== undefined && v !== '') search.set(k, String(v));
  const qs = search.toString();
  const url = `${(options.baseUrl ?? '').replace(/\/+$/, '')}${fillPath(call.path, call.params, call.multiSegment)}${qs ? `?${qs}` : ''}`;
  const doFetch = options.fetch ?? globalThis.fetch;
  let res: Response;
  try {
    res = await doFetch(url, {
      method: call.method,
      headers,
      ...(body !== undefined ? { body } : {}),
      ...(callOptions.signal ? { signal: callOptions.signal } : {}),
    });
  } catch (e) {
    if (callOptions.signal?.aborted) throw callOptions.signal.reason;
    throw new ApiError(0, 'NETWORK_ERROR', `No answer from ${url}: ${(e as Error).message}`);
  }
  if (res.status === 304)
    throw new ApiError(304, 'NOT_MODIFIED', 'The resource has not changed since the ETag sent in If-None-Match.', undefined, res.headers);
  if (res.status >= 300) {
    const problem = await readProblem(res);
    const code = typeof problem?.code === 'string' ? problem.code : `HTTP_${res.status}`;
    const detail =
      typeof problem?.detail === 'string' ? problem.detail : `The service answered ${res.status} ${res.statusText}.`.replace(/ \.$/, '.');
    throw new ApiError(res.status, code, detail, problem, res.headers);
  }
  if (res.status === 204) return { status: res.status, headers: res.headers, body: undefined as T };
  const type = res.headers.get('content-type') ?? '';
  const parsed: unknown = /json/i.test(type) ? await res.json() : await res.text();
  return { status: res.status, headers: res.headers, body: parsed as T };
}
