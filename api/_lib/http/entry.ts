/**
 * The one shape of a function entry file (docs/architecture.md, "Functions"): an entry declares a
 * handler per route and method; {@link defineEntry} does the rest, the same way for every entry:
 *
 * 1. Route lookup. The request's pathname is matched against the route table
 *    (`api/_lib/routing/table.ts`). A public path always means its own route: routing parameters a
 *    client adds (`_route`, `_key`) are ignored there. Only a request to the entry's own path
 *    (`/api/<entry>`, which is what a Vercel rewrite may hand over) reads `_route` and, for keyed routes,
 *    `_key`; a route of another entry, an unknown route or a keyed route without a key is 404.
 * 2. `OPTIONS`: a CORS preflight (204) listing the route's real methods.
 * 3. Method dispatch (GET, HEAD, POST, PUT, PATCH, DELETE): HEAD runs the GET handler and drops the
 *    body; a method the route does not declare is 405 with a true `Allow` header.
 * 4. Every error thrown on the way becomes a response in one place, `toProblemResponse`.
 *
 * Routes marked `gone` in the table (retired file, catch-alls) answer every method, OPTIONS included,
 * with their handler (which throws `NOT_FOUND`).
 */
import { ServiceError } from '../errors.js';
import { hasKey, matchPath, routesOf, type EntryName, type Method, type RouteDef } from '../routing/table.js';
import { preflight, toProblemResponse } from './respond.js';

/** What a route handler receives. */
export interface RouteContext {
  readonly request: Request;
  /** Parsed request URL (the public path, with the client's query). */
  readonly url: URL;
  /** The matched route. */
  readonly route: RouteDef;
  /** The `{key}` of a keyed route, percent-decoded; undefined for routes without one. */
  readonly key: string | undefined;
}

/** A route handler: Web-standard in, Web-standard out; throws {@link ServiceError} for refusals. */
export type RouteHandler = (context: RouteContext) => Response | Promise<Response>;

/** Handlers of one entry: route name → method → handler. */
export type EntryHandlers = Readonly<Record<string, Partial<Record<Method, RouteHandler>>>>;

/** The method exports of an entry file, as Vercel's Node runtime calls them. */
export type EntryExports = Readonly<Record<Method | 'HEAD' | 'OPTIONS', (request: Request) => Promise<Response>>>;

/** `Allow` value of a route: its methods, HEAD after GET, then OPTIONS. */
export function allowOf(route: RouteDef): string {
  const out: string[] = [];
  for (const m of route.methods) {
    out.push(m);
    if (m === 'GET') out.push('HEAD');
  }
  out.push('OPTIONS');
  return out.join(', ');
}

function notFound(url: URL): ServiceError {
  return new ServiceError('NOT_FOUND', `Nothing is served at ${url.pathname}.`);
}

/** The route and key a request addresses within `entry`. @throws ServiceError NOT_FOUND */
function locate(entry: EntryName, url: URL): { route: RouteDef; key: string | undefined } {
  const own = `/api/${entry}`;
  const path = url.pathname.replace(/\/+$/, '');
  if (path.toLowerCase() !== own) {
    const m = matchPath(url.pathname);
    if (!m || m.route.entry !== entry) throw notFound(url);
    if (hasKey(m.route) && m.key === undefined && !m.route.gone) throw notFound(url);
    return m;
  }
  const name = url.searchParams.get('_route');
  const route = routesOf(entry).find((r) => r.name === name);
  if (!route) throw notFound(url);
  if (!hasKey(route)) return { route, key: undefined };
  const key = url.searchParams.get('_key') ?? '';
  if (key === '' && !route.gone) throw notFound(url);
  return { route, key: key === '' ? undefined : key };
}

/**
 * Build the method exports of an entry file.
 * @param entry the entry's name in the route table.
 * @param handlers a handler for every method of every route of the entry (`gone` routes need only `GET`,
 *   which answers every method).
 * @returns `{ GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS }`, each the same dispatcher.
 * @throws Error at import time when a declared route or method has no handler, or a handler names a
 *   route or method the table does not declare (the table and the entry must agree).
 */
export function defineEntry(entry: EntryName, handlers: EntryHandlers): EntryExports {
  const routes = routesOf(entry);
  for (const r of routes) {
    const h = handlers[r.name];
    const needed = r.gone ? (['GET'] as const) : r.methods;
    for (const m of needed) if (!h?.[m]) throw new Error(`Entry ${entry}: route ${r.name} declares ${m} but has no handler.`);
    for (const m of Object.keys(h ?? {}))
      if (!r.methods.includes(m as Method))
        throw new Error(`Entry ${entry}: route ${r.name} has a ${m} handler the table does not declare.`);
  }
  for (const name of Object.keys(handlers)) {
    if (!routes.some((r) => r.name === name)) throw new Error(`Entry ${entry}: handler for unknown route ${name}.`);
  }

  async function dispatch(request: Request): Promise<Response> {
    try {
      const url = new URL(request.url);
      const { route, key } = locate(entry, url);
      const methods = handlers[route.name] ?? {};
      if (route.gone) return await methods.GET!({ request, url, route, key });
      if (request.method === 'OPTIONS') return preflight(allowOf(route));
      const method = (request.method === 'HEAD' ? 'GET' : request.method) as Method;
      const handler = route.methods.includes(method) ? methods[method] : undefined;
      if (!handler) {
        throw new ServiceError('METHOD_NOT_ALLOWED', `${request.method.slice(0, 16)} is not supported here; use ${allowOf(route)}.`, {
          headers: { Allow: allowOf(route) },
        });
      }
      const res = await handler({ request, url, route, key });
      if (request.method === 'HEAD' && res.body !== null) {
        await res.body.cancel();
        return new Response(null, { status: res.status, statusText: res.statusText, headers: res.headers });
      }
      return res;
    } catch (error) {
      return toProblemResponse(error, request);
    }
  }

  return Object.freeze({
    GET: dispatch,
    HEAD: dispatch,
    POST: dispatch,
    PUT: dispatch,
    PATCH: dispatch,
    DELETE: dispatch,
    OPTIONS: dispatch,
  });
}
