/**
 * External-platform identities (spec 4.8 `POST /api/auth/external`, 5.5): a pluggable verifier turns a
 * platform's token into the platform's user id and username, and nothing else survives the call: the
 * token is never stored, logged or echoed.
 *
 * The adapter here verifies the platform's JWT against its JWKS with `jose`: the key set is fetched by
 * `createRemoteJWKSet` (created once per process per URL, so its cache and cooldown are shared), only
 * asymmetric algorithms are accepted (RS256, PS256, ES256, EdDSA: never `none`, never a shared secret the
 * platform's public keys could be confused with), `iss` and `aud` must equal the configuration's, `exp`
 * and `sub` are required, and the clock tolerance is the one of our own tokens.
 *
 * Identity: `sub` is the external user id (1-128 characters of letters, digits and `_.:@-`); the
 * username is `preferred_username`, else `name`, else `username`, else the id, trimmed to 64 characters
 * without control characters.
 */
import { createRemoteJWKSet, errors as joseErrors, jwtVerify, type JWTVerifyGetKey } from 'jose';
import type { ExternalAuthConfig } from '../config.js';
import { ServiceError } from '../errors.js';
import { cleanStoredText } from '../text/stored.js';

/** An identity of an external platform. */
export interface ExternalIdentity {
  /** The platform's name (`EXTERNAL_AUTH_PROVIDER`). */
  readonly provider: string;
  /** The platform's user id (`sub`). */
  readonly externalUserId: string;
  /** The platform's display name for the user. */
  readonly username: string;
}

/** Turns a platform token into an identity. */
export interface ExternalVerifier {
  readonly provider: string;
  /** @throws ServiceError UNAUTHORIZED for a token the platform did not issue, 503 when its keys cannot be fetched */
  verify(token: string): Promise<ExternalIdentity>;
}

/** Algorithms a platform may sign with. */
export const EXTERNAL_ALGORITHMS = ['RS256', 'PS256', 'ES256', 'EdDSA'] as const;

const keySets = new Map<string, JWTVerifyGetKey>();

/** The process's remote key set of `url` (one per URL). */
function keySetOf(url: string): JWTVerifyGetKey {
  let set = keySets.get(url);
  if (!set) {
    set = createRemoteJWKSet(new URL(url), { timeoutDuration: 5000, cooldownDuration: 30_000 });
    keySets.set(url, set);
  }
  return set;
}

const EXTERNAL_ID = /^[A-Za-z0-9_.:@-]{1,128}$/;

function refused(): ServiceError {
  return new ServiceError('UNAUTHORIZED', "The external platform's token is not valid.", {
    headers: { 'WWW-Authenticate': 'Bearer realm="game-api", error="invalid_token"' },
  });
}

/**
 * A display name from a claim, made to pass the stored-text rule (`api/_lib/text/stored.ts`: what the rule
 * refuses is removed, NFC, at most 64 characters), trimmed; undefined when nothing is left.
 */
function cleanName(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const v = cleanStoredText(value, 'line', 64, '').trim();
  return v === '' ? undefined : v;
}

/**
 * The verifier of a configured platform.
 * @param clockToleranceS seconds of skew accepted on `exp` and `nbf`.
 * @throws ServiceError UPSTREAM_UNAVAILABLE when external login is not configured.
 */
export function externalVerifier(config: ExternalAuthConfig, clockToleranceS: number): ExternalVerifier {
  if (config.kind === 'none') throw new ServiceError('UPSTREAM_UNAVAILABLE', 'External login is not configured on this deployment.');
  const keys = keySetOf(config.url);
  return {
    provider: config.provider,
    async verify(token) {
      let payload;
      try {
        ({ payload } = await jwtVerify(token, keys, {
          issuer: config.issuer,
          audience: config.audience,
          algorithms: [...EXTERNAL_ALGORITHMS],
          requiredClaims: ['exp', 'sub'],
          clockTolerance: clockToleranceS,
        }));
      } catch (e) {
        // the platform's keys could not be fetched: not the client's fault
        if (
          e instanceof joseErrors.JWKSTimeout ||
          e instanceof joseErrors.JWKSInvalid ||
          (e instanceof TypeError && !(e instanceof joseErrors.JOSEError))
        ) {
          throw new ServiceError('UPSTREAM_UNAVAILABLE', "The external platform's keys cannot be fetched; try again.", { cause: e });
        }
        throw refused();
      }
      const id = payload.sub ?? '';
      if (!EXTERNAL_ID.test(id)) throw refused();
      const username = cleanName(payload.preferred_username) ?? cleanName(payload.name) ?? cleanName(payload.username) ?? id;
      return { provider: config.provider, externalUserId: id, username };
    },
  };
}
