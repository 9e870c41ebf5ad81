/**
 * Operator sessions (spec 5.3; docs/architecture.md, "Operator console"): the admin password exchanged,
 * once, for a short-lived bearer token, so a page never has to keep the password. `POST /api/admin/session`
 * answers {@link operatorSession} to a request the `admin` access let in by `X-Admin-Password` alone (a
 * token cannot make another: a stolen one could otherwise be kept alive for ever).
 *
 * The token is signed like every token this service issues (`mintToken`, HS256 with `JWT_SECRET`, the
 * configured `iss` and `aud`): `sub` {@link OPERATOR_SESSION_SUBJECT} (no studio id stands behind the
 * password, and who held it is all the service knows), `role` `admin`, and a lifetime of
 * {@link OPERATOR_SESSION_TTL_S} seconds, never longer than the configured `JWT_MAX_AGE_S` (a token older
 * than that is refused whatever its `exp`). The ledger records what such a token asks for as
 * `admin:admin-password` (`actorName`), the log as `{ via: "token", subject: "admin-password", role: "admin" }`.
 * Nothing is stored: signing out is the page forgetting the token, which expires by itself.
 */
import type { JwtConfig } from '../config.js';
import { ServiceError } from '../errors.js';
import { mintToken } from './tokens.js';

/** Lifetime of an operator session token, seconds (15 minutes): a working session, not a day. */
export const OPERATOR_SESSION_TTL_S = 900;

/** `sub` of a token made from the admin password: its holder has no studio id. */
export const OPERATOR_SESSION_SUBJECT = 'admin-password';

/** Answer of `POST /api/admin/session` (`schemas/responses/admin-session.schema.json`). */
export interface OperatorSession {
  /** The compact JWT, sent as `Authorization: Bearer <token>`. */
  readonly token: string;
  readonly tokenType: 'Bearer';
  readonly role: 'admin';
  /** The token's `sub`: {@link OPERATOR_SESSION_SUBJECT}. */
  readonly subject: string;
  /** Seconds until the token expires. */
  readonly expiresIn: number;
  /** When it expires, ISO 8601 (UTC). */
  readonly expiresAt: string;
}

/**
 * Sign an operator session token (see the module header).
 * @param config the JWT configuration in force.
 * @param nowS issue time, seconds since the epoch; default now.
 * @returns the token with its lifetime: {@link OPERATOR_SESSION_TTL_S}, or `JWT_MAX_AGE_S` when that is shorter.
 * @throws ServiceError UPSTREAM_UNAVAILABLE (503) when the deployment signs no tokens (`JWT_JWKS_URL`: its
 *   tokens come from the identity host; the detail says to sign in with one of those instead).
 */
export async function operatorSession(config: JwtConfig, nowS: number = Math.floor(Date.now() / 1000)): Promise<OperatorSession> {
  if (config.keys.kind !== 'secret') {
    throw new ServiceError(
      'UPSTREAM_UNAVAILABLE',
      'This deployment does not sign tokens (they come from its identity host), so the password cannot be exchanged; sign in with an operator token instead.',
    );
  }
  const ttl = Math.min(OPERATOR_SESSION_TTL_S, config.maxAgeS);
  const token = await mintToken(config, { subject: OPERATOR_SESSION_SUBJECT, role: 'admin', ttlSeconds: ttl, now: nowS });
  return {
    token,
    tokenType: 'Bearer',
    role: 'admin',
    subject: OPERATOR_SESSION_SUBJECT,
    expiresIn: ttl,
    expiresAt: new Date((nowS + ttl) * 1000).toISOString(),
  };
}
