/**
 * Resolve a request path the way Vercel's router does, from the normalised routes that
 * `@vercel/routing-utils`' `getTransformedRoutes(vercel.json)` returns. Used by the local server
 * (`dev/server.ts`) and by the routing tests, so both follow exactly the rules in `vercel.json`.
 *
 * Semantics (those of Vercel's own development router):
 * 1. Routes before the `filesystem` handle run in order: `headers` routes collect response headers and
 *    continue; a route with a `status` and a `Location` header is a redirect.
 * 2. At the `filesystem` handle, the path is checked against the output folder (static files) and the
 *    function entry files (`/api/<name>` for `api/<name>.ts`; names starting with `_` or `.` never are).
 * 3. Later routes are rewrites: the first whose `src` matches (case-insensitive unless `caseSensitive`)
 *    has its `$1`/`$name` placeholders filled with the raw (still percent-encoded) captures. With
 *    `check`, the destination must exist in the filesystem; if it does not, matching continues with the
 *    destination path, as Vercel does.
 * 4. Query: the destination's parameters come first and win over client parameters of the same name;
 *    the client's other parameters follow in their order.
 * This module does no I/O: the caller supplies the filesystem checks.
 */
// @ts-nocheck

import type { Route } from '@vercel/routing-utils';

/** Filesystem checks the resolver needs; paths are decoded, relative to the output folder, without a leading `/`. */
export interface ResolverFs {
  /** True when `relPath` is a regular file of the output folder. */
  isFile(relPath: string): boolean | Promise<boolean>;
  /** True when the function entry `api/<name>.ts` exists. */
  hasFunction(name: string): boolean | Promise<boolean>;
}

/** Outcome of resolving one request. `headers` are the `vercel.json` headers that apply (lower-case names). */
export type Resolution =
  | { readonly kind: 'static'; readonly file: string; readonly headers: Readonly<Record<string, string>> }
  | {
      readonly kind: 'function';
      /** Entry name: `catalog` for `api/catalog.ts`. */
      readonly entry: string;
      /** Query string (without `?`) the function receives: rewrite parameters first, then the client's. */
      readonly search: string;
      readonly headers: Readonly<Record<string, string>>;
    }
  | { readonly kind: 'redirect'; readonly status: number; readonly location: string; readonly headers: Readonly<Record<string, string>> }
  | {
      readonly kind: 'not-found';
      /** Path reached last (after rewrites). */
      readonly path: string;
      /** Entry name when the path names a function entry that does not exist (yet). */
      readonly missingFunction?: string;
      readonly headers: Readonly<Record<string, string>>;
    };

/** Entry names Vercel turns into functions: `api/<name>.ts` directly under `api/`. */
const FUNCTION_PATH = /^\/api\/([A-Za-z0-9][A-Za-z0-9-]*)$/;

/** Decode a URL path into a relative file path, or undefined when it is malformed or escapes the root. */
export function toRelativeFile(pathname: string): string | undefined {
  let decoded: string;
  try {
    decoded = decodeURIComponent(pathname);
  } catch {
    return undefined;
  }
  if (decoded.includes('\0') || decoded.includes('\\')) return undefined;
  const segments = decoded.split('/').filter((s) => s !== '');
  if (segments.some((s) => s === '..' || s === '.' || s.startsWith('.'))) return undefined;
  const rel = segments.join('/');
  return decoded.endsWith('/') || rel === '' ? (rel === '' ? 'index.html' : `${rel}/index.html`) : rel;
}

function fill(template: string, match: RegExpExecArray): string {
  return template.replace(/\$([1-9][0-9]*|[A-Za-z_][A-Za-z0-9_]*)/g, (_, name: string) => {
    const v = /^[0-9]+$/.test(name) ? match[Number(name)] : match.groups?.[name];
    return v ?? '';
  });
}

function mergeQuery(dest: URLSearchParams, client: URLSearchParams): string {
  const out = new URLSearchParams(dest);
  for (const [k, v] of client) if (!dest.has(k)) out.append(k, v);
  return out.toString();
}

/**
 * Build a resolver over normalised Vercel routes.
 * @param routes `getTransformedRoutes(config).routes` (throw on its `error` before calling this).
 * @param fs filesystem checks (see {@link ResolverFs}).
 * @returns `resolve(method, pathname, search)`; `search` may start with `?`.
 */
export function createResolver(routes: readonly Route[], fs: ResolverFs) {
  const compiled = routes.map((route) => {
    if ('handle' in route) return { route, re: undefined };
    const flags = route.caseSensitive ? '' : 'i';
    return { route, re: new RegExp(route.src, flags) };
  });
  const hasFilesystemHandle = routes.some((r) => 'handle' in r && r.handle === 'filesystem');

  async function check(pathname: string): Promise<{ kind: 'static'; file: string } | { kind: 'function'; entry: string } | undefined> {
    const fn = FUNCTION_PATH.exec(pathname);
    if (fn?.[1] && (await fs.hasFunction(fn[1]))) return { kind: 'function', entry: fn[1] };
    const rel = toRelativeFile(pathname);
    if (rel !== undefined && (await fs.isFile(rel))) return { kind: 'static', file: rel };
    return undefined;
  }

  return async function resolve(method: string, pathname: string, search = ''): Promise<Resolution> {
    const client = new URLSearchParams(search.startsWith('?') ? search.slice(1) : search);
    const headers: Record<string, string> = {};
    let path = pathname;
    let destQuery = new URLSearchParams();

    const found = (hit: { kind: 'static'; file: string } | { kind: 'function'; entry: string }): Resolution =>
      hit.kind === 'static'
        ? { kind: 'static', file: hit.file, headers }
        : { kind: 'function', entry: hit.entry, search: mergeQuery(destQuery, client), headers };

    for (const { route, re } of compiled) {
      if ('handle' in route) {
        if (route.handle === 'filesystem') {
          const hit = await check(path);
          if (hit) return found(hit);
        }
        continue;
      }
      if (!re) continue;
      if (route.methods && !route.methods.map((m) => m.toUpperCase()).includes(method.toUpperCase())) continue;
      const m = re.exec(path);
      if (!m) continue;
      if (route.headers) for (const [k, v] of Object.entries(route.headers)) headers[k.toLowerCase()] = fill(v, m);
      if (route.continue) continue;
      const location = headers.location;
      if (route.status && route.status >= 300 && route.status < 400 && location) {
        return { kind: 'redirect', status: route.status, location, headers };
      }
      if (route.dest === undefined) continue;
      const dest = new URL(fill(route.dest, m), 'http://internal');
      path = dest.pathname;
      const q = new URLSearchParams(destQuery);
      for (const k of new Set(dest.searchParams.keys())) {
        q.delete(k);
        for (const v of dest.searchParams.getAll(k)) q.append(k, v);
      }
      destQuery = q;
      const hit = await check(path);
      if (hit) return found(hit);
      if (!route.check) break;
    }
    if (!hasFilesystemHandle) {
      const hit = await check(path);
      if (hit) return found(hit);
    }
    const fn = FUNCTION_PATH.exec(path);
    return { kind: 'not-found', path, ...(fn?.[1] ? { missingFunction: fn[1] } : {}), headers };
  };
}

/** The resolver function returned by {@link createResolver}. */
export type Resolver = ReturnType<typeof createResolver>;
