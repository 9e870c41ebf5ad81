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
 *    body, except on a GET of the `cron` access (a scheduled job: HEAD is 405 there, running nothing); a
 *    method the route does not declare is 405 with a true `Allow` header.
 * 4. Access: the route's declared access for the method (`accessOf`) is applied before the handler
 *    runs, so no body is read and no store touched for a caller it refuses (401/403); the handler gets
 *    the admitted {@link Caller}. No handler calls a guard itself.
 * 5. Every error thrown on the way becomes a response in one place, `toProblemResponse`.
 * 6. Every answer carries the request's id as `X-Request-Id` (`request-id.ts`); a problem body carries it
 *    as `requestId`, and so does every log line about the request (docs/architecture.md, "Logs"): a 5xx's
 *    `server-error` line (`toProblemResponse`), an `operator-write` line for every write (a method other
 *    than GET and HEAD) the access `admin` or `game-server` let in, with its final status and who was let
 *    in (admin rights, spec 5.3), and an `operator-auth-failed` line for every request those accesses
 *    refused with 401, 403 or 429 (a client over its budget of failed sign-ins), with why (never the token
 *    or password sent).
 * 7. The throttle (`api/_lib/throttle/policy.ts`): a request that could be a guess at a credential is
 *    refused (429) when its client is over its budget of failed sign-ins, and a 401 of such a request counts
 *    one failure; an admitted write is counted against the budgets of its client, account or game server.
 *
 * Routes marked `gone` in the table (retired file, catch-alls) answer every method, OPTIONS included,
 * with their handler (which throws `NOT_FOUND`).
 */
import {
  actsAsGameServer,
  bearerToken,
  requireAdmin,
  requireCron,
  requireGameServer,
  requireLogin,
  requirePlayerOrGameServer,
  requireSupport,
} from '../auth/guard.js';
import { isRememberedToken, type Principal } from '../auth/tokens.js';
import { getServiceConfig } from '../config.js';
import { ServiceError } from '../errors.js';
import { logEvent } from '../log.js';
import {
  admitWrite,
  clientOf,
  countAuthFailure,
  reserveAuthAttempt,
  settleAuthAttempt,
  type ThrottleRequest,
  type Writer,
} from '../throttle/policy.js';
import { accessOf, hasKey, matchPath, routesOf, type Access, type EntryName, type Method, type RouteDef } from '../routing/table.js';
import { inAuditScope, openAuditScope, type AuditActor, type AuditScope } from '../util/audit-scope.js';
import { requestIdOf, withAnswerHeaders } from './request-id.js';
import { preflight, toProblemResponse } from './respond.js';

/**
 * Who a route's access let in: nobody in particular (a public route), the holder of a verified token,
 * the holder of the admin password, or a scheduled call with the cron secret.
 */
export type Caller =
  | { readonly via: 'none' }
  | { readonly via: 'token'; readonly principal: Principal }
  | { readonly via: 'password' }
  | { readonly via: 'cron' };

const ANONYMOUS: Caller = Object.freeze({ via: 'none' });

/**
 * Admit a request to a route of access `access` (see `ACCESS` in the route table).
 * @throws ServiceError UNAUTHORIZED (401, with `WWW-Authenticate`) or FORBIDDEN (403)
 */
export async function admit(access: Access, request: Request): Promise<Caller> {
  switch (access) {
    case 'public':
      return ANONYMOUS;
    case 'player':
      return { via: 'token', principal: await requireLogin(request, getServiceConfig()) };
    case 'game-server':
      return requireGameServer(request, getServiceConfig());
    case 'player-or-game-server':
      return requirePlayerOrGameServer(request, getServiceConfig());
    case 'support':
      return requireSupport(request, getServiceConfig());
    case 'cron':
      return requireCron(request, getServiceConfig());
    default:
      return requireAdmin(request, getServiceConfig());
  }
}

/**
 * The verified token of a caller that a `player` route let in.
 * @throws ServiceError INTERNAL when the route admitted no token (a route declared with the wrong access)
 */
export function principalOf(caller: Caller): Principal {
  if (caller.via !== 'token') throw new ServiceError('INTERNAL', 'This route admitted no token.');
  return caller.principal;
}

/**
 * Who an operator caller is, as the ledger records it beside an entry (docs/architecture.md, "Reversals"):
 * `<role>:<subject>` of a token, `admin-password`, `cron`, or `''` for no credential.
 */
export function actorName(caller: Caller): string {
  if (caller.via === 'token') return `${caller.principal.role}:${caller.principal.subject}`;
  return caller.via === 'password' ? 'admin-password' : caller.via === 'cron' ? 'cron' : '';
}

/** What a route handler receives. */
export interface RouteContext {
  readonly request: Request;
  /** Parsed request URL (the public path, with the client's query). */
  readonly url: URL;
  /** The matched route. */
  readonly route: RouteDef;
  /** The `{key}` of a keyed route, percent-decoded; undefined for routes without one. */
  readonly key: string | undefined;
  /** Who the route's access let in. */
  readonly caller: Caller;
}

/** A route handler: Web-standard in, Web-standard out; throws {@link ServiceError} for refusals. */
export type RouteHandler = (context: RouteContext) => Response | Promise<Response>;

/** Handlers of one entry: route name → method → handler. */
export type EntryHandlers = Readonly<Record<string, Partial<Record<Method, RouteHandler>>>>;

/** The method exports of an entry file, as Vercel's Node runtime calls them. */
export type EntryExports = Readonly<Record<Method | 'HEAD' | 'OPTIONS', (request: Request) => Promise<Response>>>;

/**
 * `Allow` value of a route: its methods, HEAD after GET, then OPTIONS. A GET of the `cron` access (a
 * scheduled job, which changes state: Vercel Cron sends only GET) offers no HEAD, which would run it.
 */
export function allowOf(route: RouteDef): string {
  const out: string[] = [];
  for (const m of route.methods) {
    out.push(m);
    if (m === 'GET' && accessOf(route, 'GET') !== 'cron') out.push('HEAD');
  }
  out.push('OPTIONS');
  return out.join(', ');
}

function notFound(url: URL): ServiceError {
  return new ServiceError('NOT_FOUND', `Nothing is served at ${url.pathname}.`);
}

/** Accesses whose writes and refusals are logged for the operator. */
const OPERATOR_ACCESS: ReadonlySet<Access> = new Set(['admin', 'support', 'game-server', 'cron']);

/**
 * True when a request is an operator's or a game server's, whose writes and refusals are logged: on an
 * `admin` or `game-server` route, any; on a `player-or-game-server` route, one admitted as a game server
 * (`actsAsGameServer`), or one refused that sent `X-Admin-Password` alone (a player's refused token is
 * no operator's).
 */
function isOperatorRequest(access: Access, caller: Caller | undefined, request: Request): boolean {
  if (OPERATOR_ACCESS.has(access)) return true;
  if (access !== 'player-or-game-server') return false;
  if (caller !== undefined) return caller.via !== 'none' && actsAsGameServer(caller);
  return request.headers.has('x-admin-password') && !request.headers.has('authorization');
}

/** Who an operator line and an audit record name: the token's subject and role, or the password (never the credential itself). */
function actorOf(caller: Caller): AuditActor {
  return caller.via === 'token' ? { via: 'token', subject: caller.principal.subject, role: caller.principal.role } : { via: caller.via };
}

/**
 * Why an operator access refused `request` (the credential itself is never read here): a token that did
 * not verify, a valid token without the role, a wrong `X-Admin-Password` (or one sent while the
 * password is off), no credentials at all, or a client over its budget of failed sign-ins (429, not checked).
 */
function refusalReason(request: Request, status: number): string {
  if (status === 429) return 'throttled';
  if (request.headers.has('authorization')) return status === 403 ? 'role-not-allowed' : 'invalid-token';
  if (request.headers.has('x-admin-password')) return 'wrong-password';
  return 'no-credentials';
}

/** What {@link defineEntry}'s dispatcher learned of a request on its way, for the log and the throttle. */
interface Seen {
  requestId?: string;
  route?: RouteDef;
  method?: Method;
  access?: Access;
  caller?: Caller;
  /** The client address and what the throttle has logged (`api/_lib/throttle/policy.ts`). */
  throttle?: ThrottleRequest;
  /** True when the request took a place in its client's failed-authentication budget. */
  reserved?: boolean;
  /** True for a write method. */
  write?: boolean;
  /** True when the request could be a guess at a credential (checked against the failed-authentication budget). */
  guess?: boolean;
  /** The audit scope of an operator's or a game server's write (docs/architecture.md, "Audit log"). */
  scope?: AuditScope;
}

/**
 * Appends the audit record of a request that has none yet: a write that changed nothing in a store (its
 * `scope`, with the answer's `status`), or a refused operator authentication (a scope whose actor is
 * nobody, with the refusal's `reason`). `api/_lib/audit/service.ts` provides it.
 * @throws ServiceError UPSTREAM_UNAVAILABLE when the log cannot be written
 */
export type AuditRecorder = (scope: AuditScope, status: number, reason?: string) => Promise<void>;

/** Options of {@link defineEntry}. */
export interface EntryOptions {
  /** Required by an entry with a route whose writes an operator or a game server makes. */
  readonly audit?: AuditRecorder;
}

/** True when some write of `route` is an operator's or a game server's (audited). */
function hasOperatorWrites(route: RouteDef): boolean {
  return route.methods.some((m) => WRITES.has(m) && ['admin', 'game-server', 'player-or-game-server'].includes(accessOf(route, m)));
}

/** Methods that change state: counted by the throttle's write budgets. */
const WRITES: ReadonlySet<Method> = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** True when `request` sends credentials of its own (a bearer token or the admin password). */
function presentsCredentials(request: Request): boolean {
  return request.headers.has('authorization') || request.headers.has('x-admin-password');
}

/**
 * True when `request` sends credentials that could be a guess: the admin password, or a token this
 * process has not verified before (a malformed `Authorization` header included).
 */
function presentsUnknownCredentials(request: Request): boolean {
  if (request.headers.has('x-admin-password')) return true;
  if (!request.headers.has('authorization')) return false;
  try {
    const token = bearerToken(request);
    return token === undefined || !isRememberedToken(token, getServiceConfig().jwt);
  } catch {
    return true;
  }
}

/** Who a write is counted against (`api/_lib/throttle/policy.ts`). */
function writerOf(caller: Caller): Writer {
  if (caller.via === 'none') return { kind: 'anonymous' };
  if (caller.via === 'password') return { kind: 'game-server', subject: 'admin-password' };
  if (caller.via === 'cron') return { kind: 'game-server', subject: 'cron' };
  const subject = caller.principal.subject;
  return actsAsGameServer(caller) ? { kind: 'game-server', subject } : { kind: 'player', subject };
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
 * @param options.audit the audit log's recorder, required when a route has operator or game-server writes.
 * @returns `{ GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS }`, each the same dispatcher.
 * @throws Error at import time when a declared route or method has no handler, a handler names a route
 *   or method the table does not declare (the table and the entry must agree), or an entry with audited
 *   writes has no recorder.
 */
export function defineEntry(entry: EntryName, handlers: EntryHandlers, options: EntryOptions = {}): EntryExports {
  const routes = routesOf(entry);
  const record = options.audit;
  if (!record && routes.some(hasOperatorWrites))
    throw new Error(`Entry ${entry}: a route has operator writes, so the entry needs an audit recorder.`);
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

  async function answer(request: Request, seen: Seen): Promise<Response> {
    const url = new URL(request.url);
    const { route, key } = locate(entry, url);
    seen.route = route;
    const methods = handlers[route.name] ?? {};
    if (route.gone) return await methods.GET!({ request, url, route, key, caller: ANONYMOUS });
    if (request.method === 'OPTIONS') return preflight(allowOf(route));
    const method = (request.method === 'HEAD' ? 'GET' : request.method) as Method;
    const headOfJob = request.method === 'HEAD' && accessOf(route, 'GET') === 'cron';
    const handler = route.methods.includes(method) && !headOfJob ? methods[method] : undefined;
    if (!handler) {
      throw new ServiceError('METHOD_NOT_ALLOWED', `${request.method.slice(0, 16)} is not supported here; use ${allowOf(route)}.`, {
        headers: { Allow: allowOf(route) },
      });
    }
    seen.method = method;
    seen.access = accessOf(route, method);
    seen.throttle = { client: clientOf(request), requestId: seen.requestId };
    seen.write = WRITES.has(method);
    // what could be a guess: credentials not seen before, or a public write (a login, whose body carries
    // an external platform's token); the catalog's public reads never reach the throttle
    seen.guess = seen.access === 'public' ? seen.write : presentsUnknownCredentials(request);
    if (seen.guess) seen.reserved = await reserveAuthAttempt(seen.throttle);
    const caller = await admit(seen.access, request);
    seen.caller = caller;
    // an operator's or a game server's write is audited from here on, a refusal by its write budget included
    if (seen.write && isOperatorRequest(seen.access, caller, request)) {
      seen.scope = openAuditScope({
        actor: actorOf(caller),
        route: `${entry}/${route.name}`,
        method,
        requestId: seen.requestId!,
        changeStatus: route.changeStatus ?? 200,
      });
    }
    // the throttle's own writes are not the request's change: they run outside its audit scope
    if (seen.write) await admitWrite(writerOf(caller), seen.throttle);
    const run = () => Promise.resolve(handler({ request, url, route, key, caller }));
    const res = seen.scope ? await inAuditScope(seen.scope, run) : await run();
    if (request.method === 'HEAD' && res.body !== null) {
      await res.body.cancel();
      return new Response(null, { status: res.status, statusText: res.statusText, headers: res.headers });
    }
    return res;
  }

  async function dispatch(request: Request): Promise<Response> {
    const requestId = requestIdOf(request);
    const seen: Seen = { requestId };
    let res: Response;
    try {
      res = await answer(request, seen);
    } catch (error) {
      res = toProblemResponse(error, request, { requestId, route: seen.route && `${entry}/${seen.route.name}` });
    }
    // a refused credential (the caller's own, or an external platform's token a login carried) is one
    // failure: a guess keeps the place it reserved, and gives it back otherwise
    if (seen.reserved) await settleAuthAttempt(seen.throttle!, res.status === 401);
    else if (res.status === 401 && seen.throttle !== undefined && (seen.guess === true || presentsCredentials(request)))
      await countAuthFailure(seen.throttle);
    const operator = seen.access !== undefined && isOperatorRequest(seen.access, seen.caller, request);
    if (seen.scope && !seen.scope.recorded) {
      // the record of a write that changed nothing in a store; a write is never answered without its record
      try {
        await record!(seen.scope, res.status);
      } catch (error) {
        // an answer that is not already a failure becomes the log's 503 (the client sends it again); a
        // 5xx stays as it is, its cause logged once, and the record's failure beside it
        if (res.status < 500) res = toProblemResponse(error, request, { requestId, route: `${entry}/${seen.route!.name}` });
        else
          logEvent('error', 'audit-unavailable', {
            route: `${entry}/${seen.route!.name}`,
            requestId,
            cause: String((error as Error)?.message ?? error),
          });
      }
    }
    if (operator && seen.caller === undefined && (res.status === 401 || res.status === 403 || res.status === 429)) {
      const reason = refusalReason(request, res.status);
      logEvent('warn', 'operator-auth-failed', {
        route: `${entry}/${seen.route!.name}`,
        method: request.method,
        access: seen.access,
        status: res.status,
        reason,
        requestId,
      });
      // a refused authentication is audited (a throttled one, whose credential was not read, is logged only)
      if (record && res.status !== 429) {
        const scope = openAuditScope({
          actor: { via: 'none' },
          route: `${entry}/${seen.route!.name}`,
          method: request.method,
          requestId,
          changeStatus: seen.route!.changeStatus ?? 200,
        });
        await record(scope, res.status, reason).catch((error: unknown) =>
          logEvent('error', 'audit-unavailable', {
            route: `${entry}/${seen.route!.name}`,
            requestId,
            cause: String((error as Error)?.message ?? error),
          }),
        );
      }
    } else if (operator && seen.caller !== undefined && seen.method !== 'GET') {
      logEvent('info', 'operator-write', {
        route: `${entry}/${seen.route!.name}`,
        method: request.method,
        status: res.status,
        actor: actorOf(seen.caller),
        requestId,
      });
    }
    return withAnswerHeaders(res, requestId);
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
