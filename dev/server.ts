/**
 * Local server: `npm start [-- --src DIR] [--config FILE] [--out DIR] [--port N] [--no-build]`.
 *
 * Builds the catalog (`buildCatalog`, static site page included), then serves the output folder and
 * the functions of `api/*.ts` on `http://localhost:${PORT ?? 3000}` with the routing of production:
 * `vercel.json` is turned into routes by Vercel's own `@vercel/routing-utils` and resolved by
 * `dev/resolve.ts` — `vercel.json` headers, then the filesystem (static files, then
 * `/api/<name>` → `api/<name>.ts`), then the rewrites (which add `_route`/`_key`).
 *
 * A catalog that ships its own binaries (a `cdn/` folder in the source folder, `dev/cdn-files.ts`; the
 * sample catalog does) gets pictures out of the box when the storage is `local`: `npm start` builds it with
 * the storage's public URL (`STORAGE_PUBLIC_URL`, default `http://localhost:$PORT/storage`) as `{cdn_url}`,
 * puts every file of `cdn/` into the storage at its key (also with `--no-build`; a file already stored with
 * the same bytes is left alone), and serves the storage there. A key the storage does not hold answers 404,
 * so the catalog browser shows its placeholder (spec §1.4, §4.9; docs/architecture.md, "Sample binaries").
 *
 * - Static files: content type by extension, `index.html` for `/` and folders, weak ETag from size and
 *   modification time with 304 on `If-None-Match`, `Cache-Control: public, max-age=0, must-revalidate`
 *   unless `vercel.json` sets one (as Vercel's CDN does).
 * - Functions: imported on first use from `api/<name>.ts`; the export named after the method runs
 *   (`HEAD` falls back to `GET`, `OPTIONS` to any handler, since `handle` answers preflight; a
 *   `default` export with `fetch` is accepted too). The function sees the public path with the rewrite
 *   parameters merged into the query. Headers the function sets win over `vercel.json` headers.
 * - Anything unresolved, and a function entry that does not exist (yet): 404 problem+json.
 * - The functions read the served output: the server puts a configuration with `CATALOG_DIR` = the output folder in force.
 *
 * Malformed and unusual requests (Node 20's HTTP/1.1 server; checked over raw TCP in
 * `test/server-malformed.test.ts`). Every error below is RFC 9457 problem+json built by
 * `toProblemResponse` with CORS (`Access-Control-Allow-Origin: *`) and `Cache-Control: no-store`; no body
 * echoes the bytes sent, a file name or a parser message.
 *
 * | Condition                                                                         | Answer                       |
 * |-----------------------------------------------------------------------------------|------------------------------|
 * | Parser error: bad method token, method llhttp does not know (`BREW`), request line |                              |
 * |   not HTTP, bad/duplicate `Content-Length`, `Content-Length` with chunked, bad     | 400 `BAD_REQUEST`, close     |
 * |   chunk, control character or folded line in a header, authority-form outside      |                              |
 * |   CONNECT, HTTP/2 preface                                                          |                              |
 * | Request line plus headers over {@link MAX_HEADER_SIZE} (16 KiB, `HPE_HEADER_OVERFLOW`) | 431 `HEADERS_TOO_LARGE`, close |
 * | Chunk extensions too large (`HPE_CHUNK_EXTENSIONS_OVERFLOW`)                       | 413 `PAYLOAD_TOO_LARGE`, close |
 * | Request too slow (`ERR_HTTP_REQUEST_TIMEOUT`, Node's `requestTimeout`)             | 408 `text/plain` with CORS, close |
 * | Peer reset (`ECONNRESET`), or a parse error after the response already started     | socket destroyed, no bytes   |
 * | HTTP/1.1 without `Host`, empty `Host`, two `Host` lines, `Host` not host[:port]    | 400 `BAD_REQUEST`            |
 * | HTTP/1.0 without `Host`                                                            | served (as `localhost`)      |
 * | Target Hono refuses (backslash in the path, …)                                     | 400 `BAD_REQUEST`            |
 * | `*` target with a method other than OPTIONS; absolute target not http(s)          | 400 `BAD_REQUEST`            |
 * | `OPTIONS *`                                                                        | 204, `Allow` (all methods), CORS |
 * | Absolute-form target `GET http://other/x`                                          | path and query served here; nothing fetched |
 * | `Expect: 100-continue`                                                             | 100 Continue, then the answer |
 * | Any other `Expect`                                                                 | 417 `EXPECTATION_FAILED`, close |
 * | `CONNECT`                                                                          | 405 `METHOD_NOT_ALLOWED` + `Allow`, close |
 * | Method outside GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS (`TRACE`, `PROPFIND`)  | 405 `METHOD_NOT_ALLOWED` + `Allow` |
 *
 * Parse-error answers are written by hand to the socket (`clientError`) with `Connection: close` and
 * `Content-Length`, only when it is writable and no response has started on it; the socket is destroyed
 * if the peer has not closed 2 s later. A problem sent instead of `100 Continue` (bad Host, unknown
 * method) closes the connection, since the client may or may not send the body. Otherwise a 4xx keeps the connection alive:
 * unread request bodies (e.g. a POST to a static file) are read and dropped, so the next request on the
 * connection is answered normally.
 *
 * Exit codes: 0 after SIGINT/SIGTERM, 1 when the build failed and there is no previous output to
 * serve, 2 for bad arguments or an invalid `vercel.json`.
 */
import { createServer, STATUS_CODES, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createReadStream } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { extname, join, resolve, sep } from 'node:path';
import { Readable } from 'node:stream';
import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { getRequestListener, RequestError } from '@hono/node-server';
import { getTransformedRoutes, type Route } from '@vercel/routing-utils';
import { createResolver, type Resolution } from './resolve.js';
import { asLocalRuntime, localEnvironment } from './local-env.js';
import { ServiceError, corsHeaders, toProblemResponse } from '../api/_lib/http/index.js';
import {
  ConfigError,
  getServiceConfig,
  loadServiceConfig,
  processEnvironment,
  useServiceConfig,
  PROJECT_ROOT,
  type Environment,
  type ServiceConfig,
} from '../api/_lib/config.js';
import { keyProblem } from '../api/_lib/storage/keys.js';
import { PLATFORM_JWKS_PATH, platformJwks } from './external-platform.js';
import { openStorage, storage } from '../api/_lib/storage/store.js';
import { CDN_FILES_DIR, localCdnUrl, placeCdnFiles } from './cdn-files.js';
import { MANIFEST_FILE } from '../api/_lib/formats/index.js';
import { BUILD_REPORT_FILE, publishedBuildReport, type PublishedBuildReport } from '../api/_lib/formats/build-report.js';
import { CATALOG_ARGS } from '../build/cli.js';
import { DEFAULT_PORT, wantsHelp } from './cli.js';

/** Repository root (the folder holding `vercel.json` and `api/`). */
export const REPO_ROOT = PROJECT_ROOT;

/** Content types by file extension; anything else is `application/octet-stream`. */
export const CONTENT_TYPES: Readonly<Record<string, string>> = Object.freeze({
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
  '.csv': 'text/csv; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.ico': 'image/x-icon',
  '.woff': 'font/woff',
  '.woff2': 'font/woff2',
  '.wasm': 'application/wasm',
});

/**
 * Normalised routes of `<root>/vercel.json` (Vercel's `getTransformedRoutes`).
 * @throws Error when the file is missing, not JSON, or its routing configuration is invalid.
 */
export async function loadVercelRoutes(root: string = REPO_ROOT): Promise<Route[]> {
  const config = JSON.parse(await readFile(join(root, 'vercel.json'), 'utf8')) as Parameters<typeof getTransformedRoutes>[0];
  const { routes, error } = getTransformedRoutes(config);
  if (error) throw new Error(`vercel.json: ${error.message}${error.errors?.length ? ' ' + error.errors.join('; ') : ''}`);
  return routes ?? [];
}

type Handler = (request: Request) => Response | Promise<Response>;
type FunctionModule = Partial<Record<string, unknown>> & { default?: unknown };

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];

function pickHandler(mod: FunctionModule, method: string): Handler | undefined {
  const own = mod[method];
  if (typeof own === 'function') return own as Handler;
  if (method === 'HEAD' && typeof mod.GET === 'function') return mod.GET as Handler;
  const def = mod.default as { fetch?: unknown } | undefined;
  if (def && typeof def.fetch === 'function') return (r) => (def.fetch as Handler)(r);
  if (method === 'OPTIONS') {
    const any = METHODS.map((m) => mod[m]).find((h) => typeof h === 'function');
    if (any) return any as Handler;
  }
  return undefined;
}

function withHeaders(res: Response, extra: Readonly<Record<string, string>>): Response {
  const headers = new Headers(res.headers);
  for (const [k, v] of Object.entries(extra)) if (!headers.has(k)) headers.set(k, v);
  return new Response(res.body, { status: res.status, statusText: res.statusText, headers });
}

async function isFileUnder(root: string, rel: string): Promise<boolean> {
  const abs = resolve(root, rel);
  if (abs !== root && !abs.startsWith(root + sep)) return false;
  try {
    return (await stat(abs)).isFile();
  } catch {
    return false;
  }
}

async function serveStatic(request: Request, abs: string, configHeaders: Readonly<Record<string, string>>): Promise<Response> {
  const st = await stat(abs);
  const etag = `W/"${st.size.toString(16)}-${Math.floor(st.mtimeMs).toString(16)}"`;
  const headers = new Headers({ 'Cache-Control': 'public, max-age=0, must-revalidate' });
  for (const [k, v] of Object.entries(configHeaders)) headers.set(k, v);
  headers.set('Content-Type', CONTENT_TYPES[extname(abs).toLowerCase()] ?? 'application/octet-stream');
  headers.set('ETag', etag);
  headers.set('Last-Modified', st.mtime.toUTCString());
  if (request.method === 'OPTIONS') {
    headers.set('Allow', 'GET, HEAD, OPTIONS');
    return new Response(null, { status: 204, headers });
  }
  if (request.method !== 'GET' && request.method !== 'HEAD') {
    return toProblemResponse(
      new ServiceError('METHOD_NOT_ALLOWED', `${request.method} is not supported on a static file; use GET.`, {
        headers: { Allow: 'GET, HEAD, OPTIONS' },
      }),
      request,
    );
  }
  const inm = request.headers.get('if-none-match');
  if (inm && inm.split(',').some((t) => t.trim() === etag || t.trim() === '*')) return new Response(null, { status: 304, headers });
  headers.set('Content-Length', String(st.size));
  if (request.method === 'HEAD') return new Response(null, { status: 200, headers });
  const body = Readable.toWeb(createReadStream(abs)) as unknown as ReadableStream<Uint8Array>;
  return new Response(body, { status: 200, headers });
}

/** Options of {@link createLocalHandler} and {@link startServer}. */
export interface LocalServerOptions {
  /** Output folder to serve (static files, and the catalog data the functions read). */
  readonly out: string;
  /** Repository root holding `vercel.json` and `api/`; default this repository. */
  readonly root?: string;
  /** Environment the functions' configuration is read from, marked as the local runtime (`CATALOG_DIR` is set to `out`; `LOCAL_RUNTIME=1` unless it sets it); default the process environment with the development JWT secret (`dev/local-env.ts`). */
  readonly env?: Environment;
  /**
   * A build report to answer at `/api/v1/build-report.json` instead of the output's file: `npm start`
   * passes a failed build's report, so an author sees its problems in the catalog browser while the
   * previous output is served (api/_lib/formats/build-report.ts). Default: the output's own file.
   */
  readonly buildReport?: PublishedBuildReport;
}

/**
 * A fetch handler `(Request) => Response` that routes like production (see the module header).
 * Puts the functions' configuration in force (`useServiceConfig`), with `CATALOG_DIR` set to `out`.
 * @throws Error (when awaited) for an invalid `vercel.json`; ConfigError for invalid variables.
 */
export async function createLocalHandler(options: LocalServerOptions): Promise<(request: Request) => Promise<Response>> {
  const root = resolve(options.root ?? REPO_ROOT);
  const out = resolve(options.out);
  useServiceConfig(loadServiceConfig({ ...asLocalRuntime(options.env ?? localEnvironment()), CATALOG_DIR: out }));
  const routes = await loadVercelRoutes(root);
  const modules = new Map<string, Promise<FunctionModule>>();
  const functionFile = (name: string): string => join(root, 'api', `${name}.ts`);
  const resolveRoute = createResolver(routes, {
    isFile: (rel) => isFileUnder(out, rel),
    hasFunction: (name) => isFileUnder(join(root, 'api'), `${name}.ts`),
  });

  function load(name: string): Promise<FunctionModule> {
    let hit = modules.get(name);
    if (!hit) {
      hit = import(pathToFileURL(functionFile(name)).href) as Promise<FunctionModule>;
      modules.set(name, hit);
      hit.catch(() => modules.delete(name));
    }
    return hit;
  }

  async function runFunction(request: Request, url: URL, r: Extract<Resolution, { kind: 'function' }>): Promise<Response> {
    const mod = await load(r.entry);
    const handler = pickHandler(mod, request.method);
    if (!handler) {
      const allow = METHODS.filter((m) => pickHandler(mod, m) !== undefined && m !== 'OPTIONS');
      throw new ServiceError('METHOD_NOT_ALLOWED', `${request.method.slice(0, 16)} is not supported here.`, {
        headers: { Allow: [...allow, 'OPTIONS'].join(', ') },
      });
    }
    const target = new URL(url.pathname + (r.search ? `?${r.search}` : ''), url.origin);
    const hasBody = request.method !== 'GET' && request.method !== 'HEAD' && request.body !== null;
    const init: RequestInit & { duplex?: 'half' } = {
      method: request.method,
      headers: request.headers,
      signal: request.signal,
      ...(hasBody ? { body: request.body, duplex: 'half' } : {}),
    };
    return await handler(new Request(target, init));
  }

  return async (request: Request): Promise<Response> => {
    try {
      const url = new URL(request.url);
      const stored = await serveLocalObject(request, url);
      if (stored) return stored;
      if (url.pathname === PLATFORM_JWKS_PATH && request.method === 'GET') {
        return new Response(JSON.stringify(await platformJwks(getServiceConfig().dataDir)), {
          headers: { 'Content-Type': 'application/json', 'Cache-Control': 'no-store' },
        });
      }
      if (options.buildReport && url.pathname === `/${BUILD_REPORT_FILE}` && (request.method === 'GET' || request.method === 'HEAD')) {
        const body = request.method === 'HEAD' ? null : JSON.stringify(options.buildReport);
        return new Response(body, { headers: { 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'no-store' } });
      }
      const r = await resolveRoute(request.method, url.pathname, url.search);
      switch (r.kind) {
        case 'static':
          return await serveStatic(request, join(out, r.file), r.headers);
        case 'function':
          return withHeaders(await runFunction(request, url, r), r.headers);
        case 'redirect':
          return new Response(null, { status: r.status, headers: { ...r.headers, location: r.location } });
        case 'not-found': {
          return toProblemResponse(new ServiceError('NOT_FOUND', `Nothing is served at ${url.pathname.slice(0, 100)}.`), request);
        }
      }
    } catch (error) {
      return toProblemResponse(error, request);
    }
  };
}

/**
 * The `local` storage's objects under its public URL's path (`STORAGE_PUBLIC_URL`, default
 * `http://localhost:3000/storage`), for `GET`/`HEAD`: the bytes with their stored content type, ETag and
 * length, `X-Content-Type-Options: nosniff`; 404 problem+json for a missing object. Undefined when the path
 * is not under that URL's path or the storage is not `local` (spec 4.7, 4.9: the stand-in for `{cdn_url}`).
 */
async function serveLocalObject(request: Request, url: URL): Promise<Response | undefined> {
  const config = getServiceConfig().storage;
  if (config.driver !== 'local' || (request.method !== 'GET' && request.method !== 'HEAD')) return undefined;
  const base = new URL(config.publicUrl).pathname.replace(/\/+$/, '') + '/';
  if (!url.pathname.startsWith(base)) return undefined;
  let key: string;
  try {
    key = decodeURIComponent(url.pathname.slice(base.length));
  } catch {
    return toProblemResponse(new ServiceError('NOT_FOUND', 'No object has this key.'), request);
  }
  const hit = keyProblem(key) === undefined ? await (await storage()).get(key) : undefined;
  if (!hit) return toProblemResponse(new ServiceError('NOT_FOUND', 'No object has this key.'), request);
  const headers = {
    'Content-Type': hit.object.contentType,
    'Content-Length': String(hit.object.size),
    ETag: hit.object.etag,
    'X-Content-Type-Options': 'nosniff',
    'Cache-Control': 'no-cache',
  };
  if (request.method === 'HEAD') {
    (hit.body as Readable).destroy();
    return new Response(null, { status: 200, headers });
  }
  return new Response(Readable.toWeb(hit.body as Readable) as ReadableStream, { status: 200, headers });
}

/** A running local server. */
export interface RunningServer {
  /** Base URL, e.g. `http://localhost:3000`. */
  readonly url: string;
  /** Port actually bound (useful with port 0). */
  readonly port: number;
  /** Stop accepting connections and close open ones. */
  close(): Promise<void>;
}

/** Methods the server routes; anything else Node accepts (`TRACE`, `PROPFIND`, …) is a 405. */
export const ALLOWED_METHODS = METHODS.join(', ');

/** Largest request head (request line plus headers) in bytes, as Node's default; beyond it 431. */
export const MAX_HEADER_SIZE = 16 * 1024;

/** `host` or `host:port` (RFC 9110 7.2): a DNS-style name, an IPv4 address, or an IPv6 literal in brackets. */
const VALID_HOST = /^(?:[A-Za-z0-9](?:[A-Za-z0-9_.-]*[A-Za-z0-9])?|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/;

/** True when `value` is a usable `Host` header value (a valid host and, when present, a port up to 65535). */
export function isValidHost(value: string): boolean {
  if (!VALID_HOST.test(value)) return false;
  const port = /:(\d+)$/.exec(value.startsWith('[') ? value.slice(value.indexOf(']')) : value)?.[1];
  if (port !== undefined && Number(port) > 65535) return false;
  try {
    new URL(`http://${value}/`);
    return true;
  } catch {
    return false;
  }
}

/**
 * Problem a request gets before routing, or undefined when it may go on. Rewrites an absolute-form
 * target (`GET http://other/x`) to its path and query, so the request is served locally.
 */
function precheck(req: IncomingMessage): ServiceError | undefined {
  const hosts = req.rawHeaders.filter((_, i) => i % 2 === 0 && req.rawHeaders[i]!.toLowerCase() === 'host').length;
  const host = req.headers.host;
  if (hosts > 1) return new ServiceError('BAD_REQUEST', 'Send exactly one Host header.');
  if (host === undefined) {
    if (req.httpVersion !== '1.0')
      return new ServiceError('BAD_REQUEST', 'HTTP/1.1 requests need a Host header, e.g. "Host: localhost:3000".');
  } else if (!isValidHost(host)) {
    return new ServiceError('BAD_REQUEST', 'The Host header must be a host name or address with an optional port, e.g. "localhost:3000".');
  }
  if (!METHODS.includes(req.method ?? '')) {
    return new ServiceError('METHOD_NOT_ALLOWED', `This method is not supported; use one of ${ALLOWED_METHODS}.`, {
      headers: { Allow: ALLOWED_METHODS },
    });
  }
  const target = req.url ?? '';
  if (target.startsWith('/')) return undefined;
  if (target === '*') {
    return req.method === 'OPTIONS' ? undefined : new ServiceError('BAD_REQUEST', 'The asterisk request target is only for OPTIONS.');
  }
  let absolute: URL;
  try {
    absolute = new URL(target);
  } catch {
    return new ServiceError('BAD_REQUEST', 'The request target must be a path starting with "/".');
  }
  if (absolute.protocol !== 'http:' && absolute.protocol !== 'https:') {
    return new ServiceError('BAD_REQUEST', 'The request target must be a path starting with "/".');
  }
  req.url = absolute.pathname + absolute.search;
  return undefined;
}

/** Status line, headers and body of a problem response, with `Content-Length` (and `Connection: close` when asked). */
async function problemParts(
  error: ServiceError,
  close: boolean,
): Promise<{ status: number; headers: Record<string, string>; body: string }> {
  const response = toProblemResponse(error);
  const body = await response.text();
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    headers[name] = value;
  });
  headers['content-length'] = String(Buffer.byteLength(body));
  if (close) headers.connection = 'close';
  return { status: response.status, headers, body };
}

/** Answer `res` with the problem+json of `error`; `close` ends the connection afterwards. */
async function sendProblem(req: IncomingMessage, res: ServerResponse, error: ServiceError, close = false): Promise<void> {
  const { status, headers, body } = await problemParts(error, close);
  if (res.headersSent || res.writableEnded) return;
  res.writeHead(status, headers);
  res.end(req.method === 'HEAD' ? undefined : body);
}

/** A complete HTTP/1.1 response (bytes) with `Connection: close`, written by hand to a raw socket. */
async function rawProblem(error: ServiceError): Promise<string> {
  const { status, headers, body } = await problemParts(error, true);
  const lines = [`HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}`, `date: ${new Date().toUTCString()}`];
  for (const [name, value] of Object.entries(headers)) lines.push(`${name}: ${value}`);
  return lines.join('\r\n') + '\r\n\r\n' + body;
}

/**
 * The response (raw bytes) to a request Node's HTTP parser refused, or undefined for none (the peer
 * reset the connection). Never echoes what was sent: `err.rawPacket` is not read.
 */
export async function clientErrorResponse(err: Error & { code?: string }): Promise<string | undefined> {
  switch (err.code) {
    case 'ECONNRESET':
      return undefined;
    case 'ERR_HTTP_REQUEST_TIMEOUT': {
      const body = 'The request took too long to arrive; send it again.\n';
      return [
        'HTTP/1.1 408 Request Timeout',
        ...Object.entries(corsHeaders()).map(([k, v]) => `${k}: ${v}`),
        'Cache-Control: no-store',
        'Content-Type: text/plain; charset=utf-8',
        `Content-Length: ${Buffer.byteLength(body)}`,
        'Connection: close',
        '',
        body,
      ].join('\r\n');
    }
    case 'HPE_HEADER_OVERFLOW':
      return rawProblem(
        new ServiceError(
          'HEADERS_TOO_LARGE',
          `The request line and headers exceed ${MAX_HEADER_SIZE / 1024} KiB; send fewer or shorter headers.`,
        ),
      );
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return rawProblem(
        new ServiceError('PAYLOAD_TOO_LARGE', 'The chunk extensions of the request body are too large; send the body without them.'),
      );
    default:
      return rawProblem(
        new ServiceError(
          'BAD_REQUEST',
          'The request is not valid HTTP/1.1 (request line, header syntax or body framing); send a well-formed request.',
        ),
      );
  }
}

/** How long a socket answered after a parse error may stay half-open before it is destroyed. */
const CLOSE_GRACE_MS = 2000;

/** Write `raw` (when given) and close the socket, destroying it if the peer does not close within a grace period. */
function endSocket(socket: Duplex, raw: string | undefined): void {
  if (raw !== undefined && socket.writable) socket.end(raw);
  else socket.destroy();
  setTimeout(() => socket.destroy(), CLOSE_GRACE_MS).unref();
}

/**
 * `request` with the client's address as Vercel's edge hands it to functions (`x-real-ip`, and
 * `x-forwarded-for` alone), whatever the client sent in them: the throttle counts by it
 * (`api/_lib/throttle/policy.ts`); the ones the client sent are dropped, and none is set when the socket has
 * no address.
 */
export function withClientAddress(request: Request, address: string | undefined): Request {
  const headers = new Headers(request.headers);
  headers.delete('x-real-ip');
  headers.delete('x-forwarded-for');
  if (address) {
    // an IPv4 client of a dual-stack socket shows as ::ffff:a.b.c.d
    const plain = address.replace(/^::ffff:(\d+\.\d+\.\d+\.\d+)$/, '$1');
    headers.set('x-real-ip', plain);
    headers.set('x-forwarded-for', plain);
  }
  const hasBody = request.method !== 'GET' && request.method !== 'HEAD' && request.body !== null;
  return new Request(request.url, {
    method: request.method,
    headers,
    signal: request.signal,
    ...(hasBody ? { body: request.body, duplex: 'half' } : {}),
  });
}

/**
 * Serve `out` and the functions over HTTP (no build). Malformed requests get problem+json answers
 * as listed in the module header.
 * @param options.port TCP port; 0 picks a free one; default 3000.
 * @param options.host interface to bind; default `127.0.0.1` (not reachable from other machines).
 */
export async function startServer(options: LocalServerOptions & { port?: number; host?: string }): Promise<RunningServer> {
  const handler = await createLocalHandler(options);
  const listener = getRequestListener((request, env) => handler(withClientAddress(request, env.incoming.socket.remoteAddress)), {
    overrideGlobalObjects: false,
    hostname: 'localhost',
    errorHandler: (error) =>
      error instanceof RequestError
        ? toProblemResponse(
            new ServiceError('BAD_REQUEST', 'The request target or Host header is not valid; send a path starting with "/".'),
          )
        : toProblemResponse(error),
  });
  const host = options.host ?? '127.0.0.1';
  /** Response in progress per connection, so a parse error never writes into a started response. */
  const inFlight = new WeakMap<Duplex, ServerResponse>();
  /** Connections already answered after a parse error (Node reports later bytes again). */
  const answered = new WeakSet<Duplex>();

  const onRequest = (req: IncomingMessage, res: ServerResponse, expectsContinue = false): void => {
    inFlight.set(req.socket, res);
    res.once('close', () => {
      if (inFlight.get(req.socket) === res) inFlight.delete(req.socket);
    });
    const problem = precheck(req);
    if (problem) {
      void sendProblem(req, res, problem, expectsContinue);
      return;
    }
    if (req.url === '*') {
      res.writeHead(204, { ...corsHeaders(), Allow: ALLOWED_METHODS, 'Content-Length': '0' });
      res.end();
      return;
    }
    if (expectsContinue) res.writeContinue();
    void listener(req, res);
  };

  const server: Server = createServer({ requireHostHeader: false, maxHeaderSize: MAX_HEADER_SIZE }, (req, res) => onRequest(req, res));
  server.on('checkContinue', (req: IncomingMessage, res: ServerResponse) => onRequest(req, res, true));
  server.on('checkExpectation', (req: IncomingMessage, res: ServerResponse) => {
    void sendProblem(
      req,
      res,
      new ServiceError('EXPECTATION_FAILED', 'Only "Expect: 100-continue" is supported; send the request without this Expect header.'),
      true,
    );
  });
  server.on('connect', (_req: IncomingMessage, socket: Duplex) => {
    void rawProblem(
      new ServiceError('METHOD_NOT_ALLOWED', `This server is not a proxy; CONNECT is not supported. Use one of ${ALLOWED_METHODS}.`, {
        headers: { Allow: ALLOWED_METHODS },
      }),
    ).then((raw) => endSocket(socket, raw));
  });
  server.on('clientError', (err: Error & { code?: string }, socket: Duplex) => {
    if (answered.has(socket)) return;
    answered.add(socket);
    const started = inFlight.get(socket)?.headersSent ?? false;
    if (started || !socket.writable) {
      socket.destroy();
      return;
    }
    void clientErrorResponse(err).then((raw) => endSocket(socket, raw));
  });
  await new Promise<void>((ok, fail) => {
    server.once('error', fail);
    server.listen(options.port ?? 3000, host, () => {
      server.off('error', fail);
      ok();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const shown = host === '127.0.0.1' || host === '::1' || host === '0.0.0.0' || host === '::' ? 'localhost' : host;
  return {
    url: `http://${shown}:${port}`,
    port,
    close: () =>
      new Promise<void>((ok, fail) => {
        server.close((e) => (e ? fail(e) : ok()));
        server.closeAllConnections();
      }),
  };
}

/** Parsed options of `npm start`. */
export interface ServeArgs {
  readonly src: string;
  readonly out: string;
  readonly config?: string;
  readonly port: number;
  readonly build: boolean;
}

/**
 * Parse `npm start` arguments; `env.PORT` is the default port (3000 when unset).
 * @throws TypeError for unknown options, missing values or a bad port.
 */
export function parseServeArgs(argv: readonly string[], env: Readonly<Record<string, string | undefined>> = {}): ServeArgs {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      ...CATALOG_ARGS,
      port: { type: 'string' },
      'no-build': { type: 'boolean', default: false },
    },
    allowPositionals: false,
    strict: true,
  });
  const rawPort = values.port ?? env.PORT ?? String(DEFAULT_PORT);
  if (!/^\d+$/.test(rawPort) || Number(rawPort) > 65535)
    throw new TypeError(`--port/PORT must be a whole number from 0 to 65535, not "${rawPort}".`);
  return {
    src: values.src,
    out: values.out,
    ...(values.config ? { config: values.config } : {}),
    port: Number(rawPort),
    build: !values['no-build'],
  };
}

async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch {
    return false;
  }
}

/** Usage of `npm start`, printed by `--help` and after a bad argument (dev/cli.ts). */
export const SERVE_USAGE = `Usage: npm start -- [--src DIR] [--config FILE] [--out DIR] [--port N] [--no-build]

Builds the catalog, then serves it and the functions of api/ on http://127.0.0.1:<port> with the
routing of production (vercel.json), on the embedded SQLite store and local storage unless the
environment names others (README, "Configuration").

Options:
  --src DIR      catalog source folder (default catalog-src)
  --config FILE  catalog config (default <src>/catalog.config.json)
  --out DIR      output folder served (default dist)
  --port N       port (default PORT, else ${DEFAULT_PORT}); the CLIs' --base defaults to this address
  --no-build     serve the existing output without building
  -h, --help     print this help

Example:
  npm start -- --port 3100
`;

/** Run `npm start`; resolves to an exit code when the server cannot start, otherwise keeps serving. */
export async function main(argv: readonly string[]): Promise<number> {
  if (wantsHelp(argv)) {
    process.stdout.write(SERVE_USAGE);
    return 0;
  }
  let args: ServeArgs;
  try {
    args = parseServeArgs(argv, processEnvironment());
  } catch (e) {
    process.stderr.write(`${(e as Error).message}\n${SERVE_USAGE}`);
    return 2;
  }
  const out = resolve(args.out);
  // the local platform's JWKS URL and the local storage's public URL name the port the server listens on
  let env: Environment;
  let serviceConfig: ServiceConfig;
  try {
    env = localEnvironment({ ...processEnvironment(), PORT: String(args.port) });
    serviceConfig = loadServiceConfig({ ...env, CATALOG_DIR: out });
  } catch (e) {
    if (!(e instanceof ConfigError)) throw e;
    process.stderr.write(`${e.message}\nSet these variables (README, "Configuration"), then run npm start again.\n`);
    return 2;
  }
  // a catalog that ships its binaries (<src>/cdn/) is built with the local storage as {cdn_url} (dev/cdn-files.ts)
  const cdnUrl = localCdnUrl(args.src, serviceConfig.storage);
  let failedReport: PublishedBuildReport | undefined;
  if (args.build) {
    const { buildCatalog } = await import('../build/pipeline/index.js');
    const { printReport, progressPrinter } = await import('../build/cli.js');
    const report = await buildCatalog({
      src: args.src,
      out,
      ...(args.config ? { config: args.config } : {}),
      site: true,
      ...(cdnUrl ? { cdnUrl } : {}),
      onProgress: progressPrinter(),
    });
    printReport(report);
    if (!report.ok) {
      failedReport = publishedBuildReport(report);
      if (!(await exists(join(out, MANIFEST_FILE)))) {
        process.stderr.write(
          'The catalog build failed and there is no previous output to serve. Fix the problems above, then run npm start again.\n',
        );
        return 1;
      }
      process.stderr.write(
        `The catalog build failed; serving the previous output in ${out} (fix the problems above to see your changes).\n`,
      );
    }
  } else if (!(await exists(out))) {
    process.stderr.write(`Nothing to serve: ${out} does not exist. Run npm start without --no-build.\n`);
    return 1;
  }
  if (cdnUrl) {
    try {
      const placed = await placeCdnFiles(args.src, await openStorage(serviceConfig.storage));
      for (const r of placed.refused)
        process.stderr.write(`${join(args.src, CDN_FILES_DIR, r.key)} was not placed in storage: ${r.reason}\n`);
      const n = placed.placed.length + placed.kept.length;
      process.stdout.write(
        `${n} file${n === 1 ? '' : 's'} of ${join(args.src, CDN_FILES_DIR)}/ in local storage, served at ${cdnUrl}/ ({cdn_url}).\n`,
      );
    } catch (e) {
      process.stderr.write(`The catalog's ${CDN_FILES_DIR}/ files could not be placed in local storage: ${(e as Error).message}\n`);
    }
  }
  let server: RunningServer;
  try {
    server = await startServer({ out, port: args.port, env, ...(failedReport ? { buildReport: failedReport } : {}) });
  } catch (e) {
    process.stderr.write(`Cannot start the server: ${(e as Error).message}\n`);
    return 2;
  }
  process.stdout.write(
    `Serving ${out} and the functions on ${server.url}\n` +
      `  ${server.url}/                                  catalog browser\n` +
      `  ${server.url}/docs/                             API reference (OpenAPI document at /api/openapi.json)\n` +
      `  ${server.url}/admin/                            operator console (sign in with npm run token -- --sub STUDIO_OPS --role admin)\n` +
      `  ${server.url}/api/search?q=<name or id>         search (also /api/stats, /api/export?type=weapons)\n` +
      `  ${server.url}/api/v1/game-data-manifest.json   every published file\n` +
      `  ${server.url}/api/wallet/overview              wallet (token from npm run token; docs/guides/wallet.md)\n` +
      `  ${server.url}/api/auth/external                external login (token from npm run platform-token; docs/guides/player-state.md)\n` +
      'Press Ctrl+C to stop.\n',
  );
  const stop = (): void => {
    server.close().then(
      () => process.exit(0),
      () => process.exit(0),
    );
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  return new Promise<number>(() => undefined);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (e: unknown) => {
      console.error(e);
      process.exit(2);
    },
  );
}
