/**
 * Who may call what (spec 5.3, 5.4). Both guards run before a handler reads its body or touches a
 * store, so a refused request changes nothing.
 *
 * {@link requireAdmin} (verify-send, grant-coin, account creation, storage writes):
 * - a request with an `Authorization` header is judged by its token alone: a valid token whose role is
 *   `admin` or `master` passes; a valid token of another role is 403; a guest token (spec 5.4: a guest
 *   is not logged in) and an invalid token are 401; a password sent beside it is ignored;
 * - otherwise `X-Admin-Password` passes when it equals `ADMIN_PASSWORD` (constant-time comparison);
 *   that path is off when the variable is unset (the configuration refuses values shorter than 16);
 * - otherwise 401 with `WWW-Authenticate: Bearer realm="game-api"`.
 *
 * {@link requireGameServer} (unique-item minting and the item ledger, spec 2.6: server-side only): as
 * {@link requireAdmin}, with the `server` role (a game server's token) let in beside admin and master.
 *
 * {@link requireCron} (the scheduled ledger check's `GET`, as Vercel Cron calls it): `Authorization: Bearer
 * <CRON_SECRET>`, compared in constant time; no token of our issuer and no password is taken there, and
 * the access is off (401) while `CRON_SECRET` is unset.
 *
 * {@link requireLogin} (wallet overview and player state): a valid, non-guest token of any role; no
 * token, an invalid token or a guest token is 401 with `WWW-Authenticate` and nothing else (no
 * re-login hint, spec 5.4).
 */
import type { ServiceConfig } from '../config.js';
import { ServiceError } from '../errors.js';
import { unauthorized, verifyToken, type Principal, type Role } from './tokens.js';

/** How an admin request was let in. */
export type AdminGrant = { readonly via: 'token'; readonly principal: Principal } | { readonly via: 'password' };

/** The bearer token of `Authorization`, or undefined when the header is absent. @throws ServiceError UNAUTHORIZED for another scheme or an empty token */
export function bearerToken(request: Request): string | undefined {
  const header = request.headers.get('authorization');
  if (header === null) return undefined;
  const m = /^Bearer[ \t]+([A-Za-z0-9._~+/=-]+)[ \t]*$/i.exec(header);
  if (!m) throw unauthorized('Send the token as Authorization: Bearer <token>.', 'invalid_request');
  return m[1];
}

/**
 * Admit an admin request (see the module header).
 * @throws ServiceError UNAUTHORIZED (401) or FORBIDDEN (403).
 */
export function requireAdmin(request: Request, config: ServiceConfig): Promise<AdminGrant> {
  return admit(request, config, ['admin', 'master'], 'This operation needs an admin or master token.');
}

/** Roles of operators who may look up and export (the `support` access). */
export const SUPPORT_ROLES: readonly Role[] = Object.freeze(['support', 'admin', 'master']);

/**
 * Admit an operator's read (the `support` access): as {@link requireAdmin}, with the `support` role let in
 * beside admin and master.
 * @throws ServiceError UNAUTHORIZED (401) or FORBIDDEN (403).
 */
export function requireSupport(request: Request, config: ServiceConfig): Promise<AdminGrant> {
  return admit(request, config, SUPPORT_ROLES, 'This operation needs a support, admin or master token.');
}

/**
 * Admit a game server's request (see the module header).
 * @throws ServiceError UNAUTHORIZED (401) or FORBIDDEN (403).
 */
export function requireGameServer(request: Request, config: ServiceConfig): Promise<AdminGrant> {
  return admit(request, config, GAME_SERVER_ROLES, 'This operation needs a game server, admin or master token.');
}

async function admit(request: Request, config: ServiceConfig, roles: readonly Role[], forbidden: string): Promise<AdminGrant> {
  const token = bearerToken(request);
  if (token !== undefined) {
    const principal = await verifyToken(token, config.jwt);
    // a guest is not a product login (spec 5.4): not logged in, whatever its role says
    if (principal.guest) throw unauthorized('A guest is not logged in.', 'invalid_token');
    if (!roles.includes(principal.role)) throw new ServiceError('FORBIDDEN', forbidden);
    return { via: 'token', principal };
  }
  const password = request.headers.get('x-admin-password');
  if (password !== null && config.adminPassword !== undefined && config.adminPassword.equals(password)) return { via: 'password' };
  throw unauthorized(password === null ? 'This operation needs an admin token or X-Admin-Password.' : 'The credentials are not valid.');
}

/** How a scheduled call was let in: the cron secret (no person, no token of our issuer). */
export interface CronGrant {
  readonly via: 'cron';
}

/**
 * Admit a scheduled call (see the module header): the bearer credential must equal `CRON_SECRET`
 * ({@link Secret.equals}, constant time).
 * @throws ServiceError UNAUTHORIZED (401) with `WWW-Authenticate`, for a missing, malformed or wrong
 *   credential, and for any while `CRON_SECRET` is unset.
 */
export function requireCron(request: Request, config: ServiceConfig): CronGrant {
  const secret = bearerToken(request);
  if (secret === undefined) throw unauthorized('This operation needs Authorization: Bearer <CRON_SECRET>.');
  if (config.cronSecret === undefined || !config.cronSecret.equals(secret))
    throw unauthorized('The credentials are not valid.', 'invalid_token');
  return { via: 'cron' };
}

/**
 * Admit a caller acting for a player account: the player's own non-guest token (any role), or a game
 * server's credentials (a token whose role is `server`, `admin` or `master`, or `X-Admin-Password`).
 * @returns how the caller was let in; {@link actsAsGameServer} tells the two apart.
 * @throws ServiceError UNAUTHORIZED (401) with `WWW-Authenticate`.
 */
export async function requirePlayerOrGameServer(request: Request, config: ServiceConfig): Promise<AdminGrant> {
  if (request.headers.get('authorization') !== null) return { via: 'token', principal: await requireLogin(request, config) };
  const password = request.headers.get('x-admin-password');
  if (password !== null && config.adminPassword !== undefined && config.adminPassword.equals(password)) return { via: 'password' };
  throw unauthorized(password === null ? 'Log in and send the token as Authorization: Bearer <token>.' : 'The credentials are not valid.');
}

/** Roles that act as a game server: they write what only game servers write (spec 2.6). */
export const GAME_SERVER_ROLES: readonly Role[] = Object.freeze(['server', 'admin', 'master']);

/** True when a grant acts as a game server: the admin password, or a token of a {@link GAME_SERVER_ROLES} role (never a scheduled call). */
export function actsAsGameServer(grant: AdminGrant | CronGrant): boolean {
  if (grant.via === 'cron') return false;
  return grant.via === 'password' || GAME_SERVER_ROLES.includes(grant.principal.role);
}

/**
 * Admit a logged-in, non-guest caller.
 * @throws ServiceError UNAUTHORIZED (401) with `WWW-Authenticate`.
 */
export async function requireLogin(request: Request, config: ServiceConfig): Promise<Principal> {
  const token = bearerToken(request);
  if (token === undefined) throw unauthorized('Log in and send the token as Authorization: Bearer <token>.');
  const principal = await verifyToken(token, config.jwt);
  if (principal.guest) throw unauthorized('A guest is not logged in.', 'invalid_token');
  return principal;
}
