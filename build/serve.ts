/**
 * Local server: `npm start [-- --src DIR] [--config FILE] [--out DIR] [--port N] [--no-build]`.
 *
 * Builds the catalog (`buildCatalog`, static site page included), then serves the output folder and
 * the functions of `api/*.ts` on `http://localhost:${PORT ?? 3000}` with the routing of production:
 * `vercel.json` is turned into routes by Vercel's own `@vercel/routing-utils` and resolved by
 * `api/_lib/routing/resolve.ts` — `vercel.json` headers, then the filesystem (static files, then
 * `/api/<name>` → `api/<name>.ts`), then the rewrites (which add `_route`/`_key`).
 *
 * - Static files: content type by extension, `index.html` for `/` and folders, weak ETag from size and
 *   modification time with 304 on `If-None-Match`, `Cache-Control: public, max-age=0, must-revalidate`
 *   unless `vercel.json` sets one (as Vercel's CDN does).
 * - Functions: imported on first use from `api/<name>.ts`; the export named after the method runs
 *   (`HEAD` falls back to `GET`, `OPTIONS` to any handler, since `handle` answers preflight; a
 *   `default` export with `fetch` is accepted too). The function sees the public path with the rewrite
 *   parameters merged into the query. Headers the function sets win over `vercel.json` headers.
 * - Anything unresolved, and a function entry that does not exist (yet): 404 problem+json.
 * - The functions read the served output: `CATALOG_DIR` and `useCatalogDir(out)` point at it.
 *
 * Exit codes: 0 after SIGINT/SIGTERM, 1 when the build failed and there is no previous output to
 * serve, 2 for bad arguments or an invalid `vercel.json`.
 */
import { createServer, type Server } from 'node:http';
import { createReadStream } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { extname, join, resolve, sep } from 'node:path';
import { Readable } from 'node:stream';
import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';
import type { AddressInfo } from 'node:net';
import { getRequestListener } from '@hono/node-server';
import { getTransformedRoutes, type Route } from '@vercel/routing-utils';
import { createResolver, type Resolution } from '../api/_lib/routing/resolve.js';
import { ServiceError, toProblemResponse } from '../api/_lib/http/index.js';
import { useCatalogDir } from '../api/_lib/catalog/store.js';
import { MANIFEST_FILE } from '../api/_lib/formats/layout.js';
import { CATALOG_ARGS } from './cli.js';

/** Repository root (the folder holding `vercel.json` and `api/`). */
export const REPO_ROOT = resolve(import.meta.dirname, '..');

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
      new ServiceError('METHOD_NOT_ALLOWED', `${request.method} is not supported on a static file; use GET.`, { headers: { Allow: 'GET, HEAD, OPTIONS' } }),
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
}

/**
 * A fetch handler `(Request) => Response` that routes like production (see the module header).
 * Also points the functions' catalog reader at `out` (`useCatalogDir`).
 * @throws Error (when awaited) for an invalid `vercel.json`.
 */
export async function createLocalHandler(options: LocalServerOptions): Promise<(request: Request) => Promise<Response>> {
  const root = resolve(options.root ?? REPO_ROOT);
  const out = resolve(options.out);
  useCatalogDir(out);
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
      throw new ServiceError('METHOD_NOT_ALLOWED', `${request.method} is not supported by api/${r.entry}.ts.`, {
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
      const r = await resolveRoute(request.method, url.pathname, url.search);
      switch (r.kind) {
        case 'static':
          return await serveStatic(request, join(out, r.file), r.headers);
        case 'function':
          return withHeaders(await runFunction(request, url, r), r.headers);
        case 'redirect':
          return new Response(null, { status: r.status, headers: { ...r.headers, location: r.location } });
        case 'not-found': {
          const message = r.missingFunction
            ? `The function api/${r.missingFunction}.ts does not exist (yet), so ${url.pathname} cannot be served.`
            : `Nothing is served at ${url.pathname}: no file in the output folder and no route in vercel.json.`;
          return toProblemResponse(new ServiceError('NOT_FOUND', message), request);
        }
      }
    } catch (error) {
      return toProblemResponse(error, request);
    }
  };
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

/**
 * Serve `out` and the functions over HTTP (no build).
 * @param options.port TCP port; 0 picks a free one; default 3000.
 * @param options.host interface to bind; default `127.0.0.1` (not reachable from other machines).
 */
export async function startServer(options: LocalServerOptions & { port?: number; host?: string }): Promise<RunningServer> {
  const handler = await createLocalHandler(options);
  const listener = getRequestListener((request) => handler(request), { overrideGlobalObjects: false });
  const host = options.host ?? '127.0.0.1';
  const server: Server = createServer((req, res) => void listener(req, res));
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
  const rawPort = values.port ?? env.PORT ?? '3000';
  if (!/^\d+$/.test(rawPort) || Number(rawPort) > 65535) throw new TypeError(`--port/PORT must be a whole number from 0 to 65535, not "${rawPort}".`);
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

/** Run `npm start`; resolves to an exit code when the server cannot start, otherwise keeps serving. */
export async function main(argv: readonly string[]): Promise<number> {
  let args: ServeArgs;
  try {
    args = parseServeArgs(argv, process.env);
  } catch (e) {
    process.stderr.write(`${(e as Error).message}\nUsage: npm start -- [--src DIR] [--config FILE] [--out DIR] [--port N] [--no-build]\n`);
    return 2;
  }
  const out = resolve(args.out);
  process.env.CATALOG_DIR = out;
  if (args.build) {
    const { buildCatalog } = await import('./pipeline/index.js');
    const { printReport, progressPrinter } = await import('./cli.js');
    const report = await buildCatalog({
      src: args.src,
      out,
      ...(args.config ? { config: args.config } : {}),
      site: true,
      onProgress: progressPrinter(),
    });
    printReport(report);
    if (!report.ok) {
      if (!(await exists(join(out, MANIFEST_FILE)))) {
        process.stderr.write('The catalog build failed and there is no previous output to serve. Fix the problems above, then run npm start again.\n');
        return 1;
      }
      process.stderr.write(`The catalog build failed; serving the previous output in ${out} (fix the problems above to see your changes).\n`);
    }
  } else if (!(await exists(out))) {
    process.stderr.write(`Nothing to serve: ${out} does not exist. Run npm start without --no-build.\n`);
    return 1;
  }
  let server: RunningServer;
  try {
    server = await startServer({ out, port: args.port });
  } catch (e) {
    process.stderr.write(`Cannot start the server: ${(e as Error).message}\n`);
    return 2;
  }
  process.stdout.write(
    `Serving ${out} and the functions on ${server.url}\n` +
      `  ${server.url}/                                  catalog browser\n` +
      `  ${server.url}/api/search?q=<name or id>         search (also /api/stats, /api/export?type=weapons)\n` +
      `  ${server.url}/api/v1/game-data-manifest.json   every published file\n` +
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
