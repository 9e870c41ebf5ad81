/**
 * Who may call what (spec 5.3, 5.4). Both guards run before a handler reads its body or touches a
 * store, so a refused request changes nothing.
 *
 * {@link requireAdmin} (verify-send, grant-coin, account creation, storage writes):
 * - a request with an `Authorization` header is judged by its token alone: a valid token whose role is
 *   `admin` or `master` passes; a valid token of another role, or a guest token, is 403; an invalid
 *   token is 401; a password sent beside it is ignored;
 * - otherwise `X-Admin-Password` passes when it equals `ADMIN_PASSWORD` (constant-time comparison);
 *   that path is off when the variable is unset (the configuration refuses values shorter than 16);
 * - otherwise 401 with `WWW-Authenticate: Bearer realm="game-api"`.
 *
 * {@link requireGameServer} (unique-item minting and the item ledger, spec 2.6: server-side only): as
 * {@link requireAdmin}, with the `server` role (a game server's token) let in beside admin and master.
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

/**
 * Admit a game server's request (see the module header).
 * @throws ServiceError UNAUTHORIZED (401) or FORBIDDEN (403).
 */
export function requireGameServer(request: Request, config: ServiceConfig): Promise<AdminGrant> {
  return admit(request, config, ['admin', 'master', 'server'], 'This operation needs a game server, admin or master token.');
}

async function admit(request: Request, config: ServiceConfig, roles: readonly Role[], forbidden: string): Promise<AdminGrant> {
  const token = bearerToken(request);
  if (token !== undefined) {
    const principal = await verifyToken(token, config.jwt);
    if (principal.guest || !roles.includes(principal.role)) throw new ServiceError('FORBIDDEN', forbidden);
    return { via: 'token', principal };
  }
  const password = request.headers.get('x-admin-password');
  if (password !== null && config.adminPassword !== undefined && config.adminPassword.equals(password)) return { via: 'password' };
  throw unauthorized(password === null ? 'This operation needs an admin token or X-Admin-Password.' : 'The credentials are not valid.');
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
