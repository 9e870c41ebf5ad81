/**
 * Bearer tokens (spec 5.2, 5.3, 5.4) with `jose`.
 *
 * Verification pins everything a token could otherwise choose:
 * - algorithms: `HS256` with a shared secret (`JWT_SECRET`); `RS256`, `PS256`, `ES256` or `EdDSA` with a
 *   remote JWKS (`JWT_JWKS_URL`). Never `none`, and never the other key family (an HS256 token signed
 *   with a public key is refused under JWKS; an RS256 token is refused under a secret);
 * - `iss` and `aud` from the configuration; `exp`, `iat` and `sub` required; `nbf` honoured; `iat` in
 *   the past and at most `JWT_MAX_AGE_S` old (default 24 h), whatever `exp` says; clock tolerance
 *   `JWT_CLOCK_TOLERANCE_S` (default 5 s);
 * - the remote key set is created once per process (`createRemoteJWKSet` caches and rate-limits fetches)
 *   and dropped when the configuration changes.
 *
 * Claims we issue (only our issuer signs them): `sub` the caller's `studioId` (`STUDIO_*`), `role` one
 * of {@link ROLES}, and `guest: true` on a guest token (a guest is not a product login, spec 5.4: it is
 * refused wherever a login is needed, whatever its role says). Reading fails closed: a `guest` claim of
 * any value but the literal `false` (`"false"`, `0`, `null`, an object) makes a guest.
 *
 * Revocation: the principal carries `iat` ({@link Principal.issuedAt}); a token issued at or before its
 * account's revocation time is refused where the account is resolved ({@link issuedBefore},
 * `accountOfToken` in `api/_lib/ledger/service.ts`).
 */
import { createRemoteJWKSet, errors as joseErrors, jwtVerify, SignJWT, type JWTPayload } from 'jose';
import { createSecretKey, hash, type KeyObject } from 'node:crypto';
import { onConfigChange, type JwtConfig, type Secret } from '../config.js';
import { ServiceError } from '../errors.js';

/**
 * Roles a token may carry (spec 5.3: `admin` and `master` hold admin rights; `server` is a game server's,
 * which may mint and record unique items, spec 2.6; `support` is an operator's who may look up and export
 * but change nothing; README, "Who may do what").
 */
export const ROLES = ['player', 'member', 'admin', 'master', 'server', 'support'] as const;
/** One role. */
export type Role = (typeof ROLES)[number];

/** Algorithms accepted with a shared secret. */
export const SECRET_ALGORITHMS = ['HS256'] as const;
/** Algorithms accepted with a remote JWKS (asymmetric only). */
export const JWKS_ALGORITHMS = ['RS256', 'PS256', 'ES256', 'EdDSA'] as const;

/** Who is calling, as a verified token says. */
export interface Principal {
  /** `sub`: the caller's studio id. */
  readonly subject: string;
  readonly role: Role;
  /** True for a guest token. */
  readonly guest: boolean;
  /** `exp`, seconds since the epoch. */
  readonly expiresAt: number;
  /** `iat`, seconds since the epoch. */
  readonly issuedAt: number;
}

/**
 * True when a token was issued at or before `revokedAt` (seconds since the epoch, the second a revocation
 * was made in): `iat` counts whole seconds, so a token of the revocation's own second may predate it and
 * is refused too; a token is good again from the next second on.
 */
export function issuedBefore(principal: Principal, revokedAt: number | undefined): boolean {
  return revokedAt !== undefined && principal.issuedAt <= revokedAt;
}

/** `WWW-Authenticate` value of a 401 (RFC 6750); `error` names why a presented token failed. */
export function wwwAuthenticate(error?: 'invalid_token' | 'invalid_request'): string {
  return error ? `Bearer realm="game-api", error="${error}"` : 'Bearer realm="game-api"';
}

/** A 401 with `WWW-Authenticate`; `message` never echoes the token. */
export function unauthorized(message: string, error?: 'invalid_token' | 'invalid_request'): ServiceError {
  return new ServiceError('UNAUTHORIZED', message, { headers: { 'WWW-Authenticate': wwwAuthenticate(error) } });
}

/** What every refusal of a token says but an expired one's. */
const INVALID_TOKEN = 'The token is not valid.';

/** The process's remote key sets by URL (one while the configuration stands). */
const remoteKeySets = new Map<string, ReturnType<typeof createRemoteJWKSet>>();
/** HS256 keys by the configuration's secret. */
const secretKeys = new WeakMap<Secret, KeyObject>();
onConfigChange(() => {
  remoteKeySets.clear();
  verified.clear();
});

/** Most verified tokens remembered ({@link verifyToken}). */
export const VERIFIED_CACHE_SIZE = 10_000;

/**
 * Tokens verified before, by SHA-256 of the token (the token itself is not kept): a client sends the
 * same token with every request, and checking its signature again (WebCrypto, on the thread pool) costs
 * more than the rest of a credit. A hit is only taken for the same key configuration and while the
 * token has not expired (`exp`, or `iat` plus the maximum age, plus the clock tolerance, checked on every use); a token that failed is
 * never remembered. Cleared when the configuration changes.
 */
const verified = new Map<string, { readonly config: JwtConfig; readonly principal: Principal; readonly validUntilMs: number }>();
/** Answers of {@link verifyToken} from {@link verified} and from a signature check, since the process started. */
const cacheCounts = { hits: 0, misses: 0 };

/**
 * The verified-token cache at this moment, for diagnostics (`npm run bench` prints the hit ratio): tokens
 * remembered (at most {@link VERIFIED_CACHE_SIZE}; emptied when the configuration changes), and how many
 * verifications it answered (`hits`) or passed to a signature check (`misses`) since the process started.
 */
export function verifiedTokenCache(): { readonly size: number; readonly hits: number; readonly misses: number } {
  return { size: verified.size, ...cacheCounts };
}

/** The HS256 key of a secret, imported once per process (an import per request costs more than the check). */
function secretKey(secret: Secret): KeyObject {
  return secretKeys.get(secret) ?? remember(secretKeys, secret, createSecretKey(Buffer.from(secret.reveal())));
}

/**
 * The process's remote key set for `url`, created on first use: fetches time out after 3 s (a stalled key
 * server answers 503 well within a function's time limit) and an unknown `kid` refetches at most every 30 s.
 */
function remoteKeys(url: string): ReturnType<typeof createRemoteJWKSet> {
  return (
    remoteKeySets.get(url) ??
    remember(remoteKeySets, url, createRemoteJWKSet(new URL(url), { timeoutDuration: 3000, cooldownDuration: 30_000 }))
  );
}

/** Store `value` under `key` and return it. */
function remember<K extends object | string, V>(cache: { set(key: K, value: V): unknown }, key: K, value: V): V {
  cache.set(key, value);
  return value;
}

/**
 * Verify a compact JWS and read its principal.
 * @throws ServiceError UNAUTHORIZED (with `WWW-Authenticate: Bearer … error="invalid_token"`; "The token has
 *   expired; log in again." past `exp` or the maximum age, else "The token is not valid.", which names no
 *   check, key or algorithm, so a refusal tells nothing of the configuration) for every
 *   invalid token: bad signature, wrong algorithm, expired, not yet valid, wrong issuer or audience,
 *   missing `exp`, `iat` or `sub`, `iat` in the future or older than the maximum age, unknown `kid`,
 *   unknown role; UPSTREAM_UNAVAILABLE when the remote key set
 *   cannot be fetched; UNAUTHORIZED when no key source is configured.
 */
export async function verifyToken(token: string, config: JwtConfig): Promise<Principal> {
  const digest = hash('sha256', token);
  const hit = verified.get(digest);
  if (hit && hit.config === config && Date.now() < hit.validUntilMs) {
    cacheCounts.hits++;
    return hit.principal;
  }
  cacheCounts.misses++;
  const principal = await verifyUncached(token, config);
  if (verified.size >= VERIFIED_CACHE_SIZE) verified.delete(verified.keys().next().value!);
  // jose refuses from the second `exp + tolerance` on, and from the second after `iat + max age + tolerance`; so does the cache
  const until = Math.min(principal.expiresAt, principal.issuedAt + config.maxAgeS + 1) + config.clockToleranceS;
  verified.set(digest, { config, principal, validUntilMs: until * 1000 });
  return principal;
}

/**
 * True when `token` was verified before under `config` and is still within its time (the cache of
 * {@link verifyToken}, without verifying anything): the throttle does not hold up a token that is no guess.
 */
export function isRememberedToken(token: string, config: JwtConfig): boolean {
  const hit = verified.get(hash('sha256', token));
  return hit !== undefined && hit.config === config && Date.now() < hit.validUntilMs;
}

/** {@link verifyToken} without the cache. */
async function verifyUncached(token: string, config: JwtConfig): Promise<Principal> {
  const options = {
    issuer: config.issuer,
    audience: config.audience,
    requiredClaims: ['exp', 'iat', 'sub'],
    clockTolerance: config.clockToleranceS,
    maxTokenAge: config.maxAgeS,
  };
  let payload: JWTPayload;
  try {
    if (config.keys.kind === 'secret') {
      payload = (await jwtVerify(token, secretKey(config.keys.secret), { ...options, algorithms: [...SECRET_ALGORITHMS] })).payload;
    } else if (config.keys.kind === 'jwks') {
      payload = (await jwtVerify(token, remoteKeys(config.keys.url), { ...options, algorithms: [...JWKS_ALGORITHMS] })).payload;
    } else {
      // the same words as any other invalid token: a refusal never tells how the service is configured
      throw unauthorized(INVALID_TOKEN, 'invalid_token');
    }
  } catch (e) {
    if (e instanceof ServiceError) throw e;
    if (e instanceof joseErrors.JWKSTimeout || (e instanceof joseErrors.JOSEError && e.code === 'ERR_JWKS_INVALID')) {
      throw new ServiceError('UPSTREAM_UNAVAILABLE', 'The token keys cannot be fetched; try again.', { cause: e });
    }
    if (e instanceof joseErrors.JWTExpired) throw unauthorized('The token has expired; log in again.', 'invalid_token');
    // which check failed (algorithm, key, signature, claim) would tell how the service is configured
    if (e instanceof joseErrors.JOSEError) throw unauthorized(INVALID_TOKEN, 'invalid_token');
    // anything else comes from fetching the remote key set (connection refused, DNS, TLS)
    throw new ServiceError('UPSTREAM_UNAVAILABLE', 'The token keys cannot be fetched; try again.', { cause: e });
  }
  const role = payload.role;
  if (!(ROLES as readonly unknown[]).includes(role)) {
    throw unauthorized(INVALID_TOKEN, 'invalid_token');
  }
  return {
    subject: String(payload.sub),
    role: role as Role,
    // fail closed: only an absent claim or the literal false is not a guest
    guest: payload.guest !== undefined && payload.guest !== false,
    expiresAt: Number(payload.exp),
    issuedAt: Number(payload.iat),
  };
}

/** Options of {@link mintToken}. */
export interface MintOptions {
  readonly subject: string;
  readonly role: Role;
  /** Lifetime in seconds; default 3600. */
  readonly ttlSeconds?: number;
  readonly guest?: boolean;
  /** Issue time, seconds since the epoch; default now. */
  readonly now?: number;
}

/**
 * Sign an HS256 token with the configured secret (local development, `npm run token`; tests).
 * @throws Error when the configuration has no `JWT_SECRET`.
 */
export async function mintToken(config: JwtConfig, options: MintOptions): Promise<string> {
  if (config.keys.kind !== 'secret')
    throw new Error('Minting needs JWT_SECRET (HS256); with JWT_JWKS_URL tokens come from the identity host.');
  const now = options.now ?? Math.floor(Date.now() / 1000);
  const jwt = new SignJWT({ role: options.role, ...(options.guest ? { guest: true } : {}) })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setIssuer(config.issuer)
    .setAudience(config.audience)
    .setSubject(options.subject)
    .setIssuedAt(now)
    .setExpirationTime(now + (options.ttlSeconds ?? 3600));
  return jwt.sign(new TextEncoder().encode(config.keys.secret.reveal()));
}
