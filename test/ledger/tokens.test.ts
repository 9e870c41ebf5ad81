/**
 * Token verification (spec 5.2, 5.3, 5.4): the matrix of tokens that must be refused with 401 through
 * the overview route (expired, no `exp`, no `sub`, `nbf` in the future, wrong issuer or audience,
 * `alg: none`, HS/RS confusion, a tampered signature, an unknown `kid`, an unknown role, a guest), the
 * clock tolerance at its edge, and a remote JWKS served on 127.0.0.1 (fetched once per process).
 */
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { decodeJwt, decodeProtectedHeader, exportJWK, generateKeyPair, SignJWT, type JWK } from 'jose';
import { loadServiceConfig, useServiceConfig } from '../../api/_lib/config.js';
import {
  isRememberedToken,
  issuedBefore,
  mintToken,
  VERIFIED_CACHE_SIZE,
  verifiedTokenCache,
  verifyToken,
} from '../../api/_lib/auth/tokens.js';
import { ServiceError } from '../../api/_lib/errors.js';
import * as wallet from '../../api/wallet.js';
import * as admin from '../../api/admin.js';
import { sqliteHarness } from '../helpers/ledger.js';

const SECRET = 'token-secret-0123456789-abcdefghijklmn';
const ISS = 'game-data-service';
const AUD = 'game-api';
const h = sqliteHarness();
const now = () => Math.floor(Date.now() / 1000);
const key = new TextEncoder().encode(SECRET);
let studioId = '';
/** The configuration of the suite's one store (each `h.env()` is a fresh store). */
let env: Record<string, string> = {};

async function overviewStatus(token: string): Promise<{ status: number; auth: string | null }> {
  const res = await wallet.GET(new Request('http://t/api/wallet/overview', { headers: { Authorization: `Bearer ${token}` } }));
  return { status: res.status, auth: res.headers.get('www-authenticate') };
}

const hs = (claims: Record<string, unknown>, header: Record<string, unknown> = {}) =>
  new SignJWT({ role: 'player', ...claims }).setProtectedHeader({ alg: 'HS256', ...header }).sign(key);
const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');

describe('with an HS256 secret', () => {
  beforeAll(async () => {
    await h.setup();
    env = { ...h.env(), JWT_SECRET: SECRET };
    useServiceConfig(loadServiceConfig(env));
    const res = await admin.POST(
      new Request('http://t/api/admin/accounts', {
        method: 'POST',
        headers: {
          'Content-Type': 'application/json',
          Authorization: `Bearer ${await mintToken(loadServiceConfig({ JWT_SECRET: SECRET }).jwt, { subject: 'STUDIO_OP', role: 'admin' })}`,
        },
        body: JSON.stringify({ displayName: 'Tok' }),
      }),
    );
    studioId = ((await res.json()) as { account: { studioId: string } }).account.studioId;
  });
  afterAll(async () => {
    useServiceConfig(undefined);
    await h.teardown();
  });

  const good = () => ({ sub: studioId, iss: ISS, aud: AUD, exp: now() + 600, iat: now() });

  it('accepts a well-formed player token', async () => {
    expect((await overviewStatus(await hs(good()))).status).toBe(200);
  });

  it('refuses every malformed or untrusted token with 401 and WWW-Authenticate error="invalid_token"', async () => {
    const noExp: Record<string, unknown> = good();
    delete noExp.exp;
    const noSub: Record<string, unknown> = good();
    delete noSub.sub;
    const noIat: Record<string, unknown> = good();
    delete noIat.iat;
    const valid = await hs(good());
    const [hd, pl, sig] = valid.split('.') as [string, string, string];
    const { privateKey: rsa } = await generateKeyPair('RS256');
    const cases: Record<string, string> = {
      expired: await hs({ ...good(), exp: now() - 60 }),
      'no exp': await hs(noExp),
      'no sub': await hs(noSub),
      'nbf in the future': await hs({ ...good(), nbf: now() + 120 }),
      'wrong issuer': await hs({ ...good(), iss: 'someone-else' }),
      'wrong audience': await hs({ ...good(), aud: 'other-api' }),
      'alg none': `${b64({ alg: 'none', typ: 'JWT' })}.${b64({ role: 'admin', ...good() })}.`,
      'RS256 token under a secret': await new SignJWT({ role: 'player', ...good() }).setProtectedHeader({ alg: 'RS256' }).sign(rsa),
      'HS512 token': await new SignJWT({ role: 'player', ...good() }).setProtectedHeader({ alg: 'HS512' }).sign(key),
      'tampered payload': `${hd}.${b64({ role: 'admin', ...good() })}.${sig}`,
      'tampered signature': `${hd}.${pl}.${sig.slice(0, -2)}${sig.endsWith('AA') ? 'BB' : 'AA'}`,
      'other secret': await new SignJWT({ role: 'player', ...good() })
        .setProtectedHeader({ alg: 'HS256' })
        .sign(new TextEncoder().encode('another-secret-0123456789-abcdefghij')),
      'unknown role': await hs({ ...good(), role: 'superuser' }),
      'role not a string': await hs({ ...good(), role: ['admin'] }),
      'no role': await new SignJWT({ ...good() }).setProtectedHeader({ alg: 'HS256' }).sign(key),
      guest: await hs({ ...good(), guest: true }),
      // any guest claim but the literal false is a guest (fail closed)
      'guest "false"': await hs({ ...good(), guest: 'false' }),
      'guest 0': await hs({ ...good(), guest: 0 }),
      'guest null': await hs({ ...good(), guest: null }),
      'guest {}': await hs({ ...good(), guest: {} }),
      'guest []': await hs({ ...good(), guest: [] }),
      'no iat': await hs(noIat),
      'iat in the future': await hs({ ...good(), iat: now() + 120 }),
      'iat older than the maximum age, exp far ahead': await hs({ ...good(), iat: now() - 86_400 - 60, exp: now() + 86_400 * 365 }),
      'iat not a number': await hs({ ...good(), iat: String(now()) }),
      'not a JWT': 'abc',
      'two parts': `${hd}.${pl}`,
    };
    for (const [name, token] of Object.entries(cases)) {
      const r = await overviewStatus(token);
      expect(r.status, name).toBe(401);
      expect(r.auth, name).toMatch(/^Bearer realm="game-api"/);
      expect(r.auth, name).toContain('error="invalid_token"');
    }
  });

  it('takes a guest claim of literal false as a login, as if it were absent', async () => {
    expect((await overviewStatus(await hs({ ...good(), guest: false }))).status).toBe(200);
  });

  it('accepts a token up to JWT_MAX_AGE_S (24 h by default) after its iat, within the tolerance, and not beyond', async () => {
    const aged = (age: number) => hs({ ...good(), iat: now() - age, exp: now() + 600 });
    expect((await overviewStatus(await aged(86_400 - 10))).status).toBe(200);
    expect((await overviewStatus(await aged(86_400 + 2))).status).toBe(200);
    expect((await overviewStatus(await aged(86_400 + 30))).status).toBe(401);
    useServiceConfig(loadServiceConfig({ ...env, JWT_MAX_AGE_S: '600' }));
    expect((await overviewStatus(await aged(590))).status).toBe(200);
    expect((await overviewStatus(await aged(700))).status).toBe(401);
    useServiceConfig(loadServiceConfig(env));
  });

  it('accepts exp and nbf within the clock tolerance (5 s by default) and not beyond', async () => {
    expect((await overviewStatus(await hs({ ...good(), exp: now() - 2 }))).status).toBe(200);
    expect((await overviewStatus(await hs({ ...good(), nbf: now() + 2 }))).status).toBe(200);
    expect((await overviewStatus(await hs({ ...good(), exp: now() - 30 }))).status).toBe(401);
    useServiceConfig(loadServiceConfig({ ...env, JWT_CLOCK_TOLERANCE_S: '0' }));
    expect((await overviewStatus(await hs({ ...good(), exp: now() - 2 }))).status).toBe(401);
    useServiceConfig(loadServiceConfig(env));
  });

  it('mints tokens with the configured issuer and audience, exp, sub, role and the guest mark', async () => {
    const cfg = loadServiceConfig({ JWT_SECRET: SECRET, JWT_ISSUER: 'iss-x', JWT_AUDIENCE: 'aud-y' }).jwt;
    const t = await mintToken(cfg, { subject: 'STUDIO_A', role: 'member', ttlSeconds: 60, now: now() });
    const p = await verifyToken(t, cfg);
    expect([p.subject, p.role, p.guest]).toEqual(['STUDIO_A', 'member', false]);
    expect(p.issuedAt).toBe(p.expiresAt - 60);
    expect(p.expiresAt - now()).toBeLessThanOrEqual(60);
    expect(p.expiresAt - now()).toBeGreaterThan(55);
    expect((await verifyToken(await mintToken(cfg, { subject: 'S', role: 'player', guest: true }), cfg)).guest).toBe(true);
    await expect(verifyToken(t, loadServiceConfig({ JWT_SECRET: SECRET }).jwt)).rejects.toBeInstanceOf(ServiceError);
    await expect(mintToken(loadServiceConfig({}).jwt, { subject: 'S', role: 'admin' })).rejects.toThrow(/JWT_SECRET/);
  });

  it('remembers a verified token only while it is valid and only for the key configuration that verified it', async () => {
    const cfg = loadServiceConfig({ JWT_SECRET: SECRET }).jwt;
    const t = await mintToken(cfg, { subject: 'STUDIO_C', role: 'player', ttlSeconds: 2 });
    expect((await verifyToken(t, cfg)).subject).toBe('STUDIO_C');
    expect((await verifyToken(t, cfg)).subject).toBe('STUDIO_C');
    // another configuration with another secret: the remembered answer is not used
    const other = loadServiceConfig({ JWT_SECRET: 'another-secret-0123456789-abcdefghij' }).jwt;
    await expect(verifyToken(t, other)).rejects.toMatchObject({ code: 'UNAUTHORIZED' });
    // up to the last millisecond before exp plus the tolerance it is still good; from then on refused
    const edge = ((await verifyToken(t, cfg)).expiresAt + 5) * 1000;
    try {
      vi.useFakeTimers({ now: edge - 1 });
      expect((await verifyToken(t, cfg)).subject).toBe('STUDIO_C');
      vi.setSystemTime(edge);
      await expect(verifyToken(t, cfg)).rejects.toMatchObject({ code: 'UNAUTHORIZED' });
      vi.setSystemTime(edge + 1_000);
      await expect(verifyToken(t, cfg)).rejects.toMatchObject({ code: 'UNAUTHORIZED' });
    } finally {
      vi.useRealTimers();
    }
    // a token that failed is not remembered as good
    const bad = await mintToken(other, { subject: 'STUDIO_D', role: 'player' });
    await expect(verifyToken(bad, cfg)).rejects.toMatchObject({ code: 'UNAUTHORIZED' });
    await expect(verifyToken(bad, cfg)).rejects.toMatchObject({ code: 'UNAUTHORIZED' });
  });

  it('stops answering a remembered token from the cache once it is older than the maximum age, even before its exp', async () => {
    const cfg = loadServiceConfig({ JWT_SECRET: SECRET, JWT_MAX_AGE_S: '60' }).jwt;
    const t = await mintToken(cfg, { subject: 'STUDIO_E', role: 'player', ttlSeconds: 3600 });
    const p = await verifyToken(t, cfg);
    // jose takes an age of exactly max + tolerance and refuses one second more
    const edge = (p.issuedAt + 60 + 5 + 1) * 1000;
    try {
      vi.useFakeTimers({ now: edge - 1 });
      expect((await verifyToken(t, cfg)).subject).toBe('STUDIO_E');
      vi.setSystemTime(edge);
      await expect(verifyToken(t, cfg)).rejects.toMatchObject({ code: 'UNAUTHORIZED' });
    } finally {
      vi.useRealTimers();
    }
  });

  it('tells a token verified before, under the same configuration and within its time, from any other', async () => {
    const cfg = loadServiceConfig({ JWT_SECRET: SECRET, JWT_MAX_AGE_S: '60' }).jwt;
    const same = loadServiceConfig({ JWT_SECRET: SECRET, JWT_MAX_AGE_S: '60' }).jwt;
    const t = await mintToken(cfg, { subject: 'STUDIO_R', role: 'player', ttlSeconds: 3600 });
    expect(isRememberedToken(t, cfg)).toBe(false);
    const p = await verifyToken(t, cfg);
    expect(isRememberedToken(t, cfg)).toBe(true);
    // another configuration object, even of the same values, verified nothing
    expect(isRememberedToken(t, same)).toBe(false);
    expect(isRememberedToken(`${t}x`, cfg)).toBe(false);
    // within the maximum age (60 s), its second and the tolerance (5 s), then not
    const edge = (p.issuedAt + 60 + 1 + 5) * 1000;
    try {
      vi.useFakeTimers({ now: edge - 1 });
      expect(isRememberedToken(t, cfg)).toBe(true);
      vi.setSystemTime(edge);
      expect(isRememberedToken(t, cfg)).toBe(false);
    } finally {
      vi.useRealTimers();
    }
    // a short-lived token: within exp and the tolerance, then not
    const short = await mintToken(cfg, { subject: 'STUDIO_R', role: 'player', ttlSeconds: 10 });
    const q = await verifyToken(short, cfg);
    try {
      vi.useFakeTimers({ now: (q.expiresAt + 5) * 1000 - 1 });
      expect(isRememberedToken(short, cfg)).toBe(true);
      vi.setSystemTime((q.expiresAt + 5) * 1000);
      expect(isRememberedToken(short, cfg)).toBe(false);
    } finally {
      vi.useRealTimers();
    }
  });

  it('says a token predates a revocation when its iat is in the revocation second or earlier (iat has whole seconds)', () => {
    const p = { subject: 'S', role: 'player', guest: false, expiresAt: 2_000, issuedAt: 1_000 } as const;
    expect(issuedBefore(p, undefined)).toBe(false);
    expect(issuedBefore(p, 1_001)).toBe(true);
    expect(issuedBefore(p, 1_000)).toBe(true);
    expect(issuedBefore(p, 999)).toBe(false);
  });

  it('answers a token verified before from the cache, counts hits and misses, stays bounded, and empties on a new configuration', async () => {
    const cfg = loadServiceConfig({ JWT_SECRET: SECRET }).jwt;
    useServiceConfig(loadServiceConfig({ JWT_SECRET: SECRET }));
    expect(verifiedTokenCache().size).toBe(0);
    const t = await mintToken(cfg, { subject: 'STUDIO_CACHE', role: 'player' });
    const before = verifiedTokenCache();
    await verifyToken(t, cfg);
    await verifyToken(t, cfg);
    await verifyToken(t, cfg);
    const after = verifiedTokenCache();
    expect([after.size, after.misses - before.misses, after.hits - before.hits]).toEqual([1, 1, 2]);
    // a refused token is a miss and is not remembered
    await expect(verifyToken(t + 'x', cfg)).rejects.toBeInstanceOf(ServiceError);
    expect(verifiedTokenCache().size).toBe(1);
    // at most VERIFIED_CACHE_SIZE tokens: the oldest goes first
    const tokens = await Promise.all(
      Array.from({ length: VERIFIED_CACHE_SIZE }, (_, i) => mintToken(cfg, { subject: `STUDIO_C${i}`, role: 'player' })),
    );
    for (const x of tokens) await verifyToken(x, cfg);
    expect(verifiedTokenCache().size).toBe(VERIFIED_CACHE_SIZE);
    const misses = verifiedTokenCache().misses;
    await verifyToken(tokens.at(-1)!, cfg);
    await verifyToken(t, cfg); // the first one was evicted
    expect(verifiedTokenCache().misses - misses).toBe(1);
    useServiceConfig(undefined);
    expect(verifiedTokenCache().size).toBe(0);
  }, 60_000);

  it('refuses every token when no key source is configured', async () => {
    const t = await hs(good());
    await expect(verifyToken(t, loadServiceConfig({}).jwt)).rejects.toMatchObject({
      code: 'UNAUTHORIZED',
      message: 'The token is not valid.',
      headers: { 'WWW-Authenticate': 'Bearer realm="game-api", error="invalid_token"' },
    });
  });

  it('says when a token expired, and nothing else of why: no check, key, algorithm or role list', async () => {
    const cfg = loadServiceConfig({ JWT_SECRET: SECRET }).jwt;
    const expired = await hs({ ...good(), exp: now() - 60 });
    await expect(verifyToken(expired, cfg)).rejects.toMatchObject({ message: 'The token has expired; log in again.' });
    const aged = await hs({ ...good(), iat: now() - 90_000, exp: now() + 600 });
    await expect(verifyToken(aged, cfg)).rejects.toMatchObject({ message: 'The token has expired; log in again.' });
    const { privateKey: rsa } = await generateKeyPair('RS256');
    for (const token of [
      await hs({ ...good(), role: 'root' }),
      await hs({ ...good(), aud: 'other' }),
      await new SignJWT({ role: 'player', ...good() }).setProtectedHeader({ alg: 'RS256' }).sign(rsa),
      await new SignJWT({ role: 'player', ...good() }).setProtectedHeader({ alg: 'HS512' }).sign(key),
      `${(await hs(good())).slice(0, -3)}AAA`,
    ])
      await expect(verifyToken(token, cfg)).rejects.toMatchObject({ message: 'The token is not valid.' });
    await expect(verifyToken(await hs({ ...good(), role: 3 }), cfg)).rejects.toMatchObject({ code: 'UNAUTHORIZED' });
  });

  it('mints a JWT-typed HS256 token that lives ttl seconds from now by default', async () => {
    const cfg = loadServiceConfig({ JWT_SECRET: SECRET }).jwt;
    const t = await mintToken(cfg, { subject: 'STUDIO_T', role: 'player' });
    expect(decodeProtectedHeader(t)).toEqual({ alg: 'HS256', typ: 'JWT' });
    const claims = decodeJwt(t);
    expect(claims.exp! - claims.iat!).toBe(3600);
    expect(Math.abs(claims.iat! - now())).toBeLessThanOrEqual(2);
    expect(claims.guest).toBeUndefined();
  });
});

describe('with a remote JWKS on 127.0.0.1', () => {
  let server: Server;
  let url = '';
  let fetches = 0;
  let rsaPrivate: CryptoKey;
  let jwk: JWK;

  beforeAll(async () => {
    const pair = await generateKeyPair('RS256', { extractable: true });
    rsaPrivate = pair.privateKey;
    jwk = { ...(await exportJWK(pair.publicKey)), kid: 'key-1', alg: 'RS256', use: 'sig' };
    server = createServer((_req, res) => {
      fetches++;
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ keys: [jwk] }));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const addr = server.address();
    url = `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}/jwks.json`;
  });
  afterAll(async () => {
    await new Promise((r) => server.close(r));
  });

  const claims = () => ({ role: 'admin', sub: 'STUDIO_JWKS', iss: ISS, aud: AUD, exp: now() + 600, iat: now() });

  it('verifies RS256 tokens by kid, fetching the key set once; refuses an unknown kid and an HS256 token made from the public key', async () => {
    const cfg = loadServiceConfig({ JWT_JWKS_URL: url }).jwt;
    const rs = (kid: string) => new SignJWT(claims()).setProtectedHeader({ alg: 'RS256', kid }).sign(rsaPrivate);
    expect(await verifyToken(await rs('key-1'), cfg)).toMatchObject({ subject: 'STUDIO_JWKS', role: 'admin' });
    expect(await verifyToken(await rs('key-1'), cfg)).toMatchObject({ role: 'admin' });
    expect(fetches).toBe(1);
    await expect(verifyToken(await rs('key-2'), cfg)).rejects.toMatchObject({ code: 'UNAUTHORIZED' });
    // HS/RS confusion: an HS256 token keyed with the public key's bytes
    const confused = await new SignJWT(claims())
      .setProtectedHeader({ alg: 'HS256', kid: 'key-1' })
      .sign(new TextEncoder().encode(JSON.stringify(jwk)));
    await expect(verifyToken(confused, cfg)).rejects.toMatchObject({ code: 'UNAUTHORIZED' });
    const none = `${b64({ alg: 'none', kid: 'key-1' })}.${b64(claims())}.`;
    await expect(verifyToken(none, cfg)).rejects.toMatchObject({ code: 'UNAUTHORIZED' });
  });

  it('checks issuer, audience and algorithm under a JWKS too', async () => {
    const cfg = loadServiceConfig({ JWT_JWKS_URL: url }).jwt;
    for (const over of [{ aud: 'other-api' }, { iss: 'someone-else' }]) {
      const t = await new SignJWT({ ...claims(), ...over }).setProtectedHeader({ alg: 'RS256', kid: 'key-1' }).sign(rsaPrivate);
      await expect(verifyToken(t, cfg), JSON.stringify(over)).rejects.toMatchObject({ code: 'UNAUTHORIZED' });
    }
    const { exp: _omit, ...rest } = claims();
    void _omit;
    const noExp = await new SignJWT(rest).setProtectedHeader({ alg: 'RS256', kid: 'key-1' }).sign(rsaPrivate);
    await expect(verifyToken(noExp, cfg)).rejects.toMatchObject({ code: 'UNAUTHORIZED' });
    const { iat: _noIat, ...withoutIat } = claims();
    void _noIat;
    const noIat = await new SignJWT(withoutIat).setProtectedHeader({ alg: 'RS256', kid: 'key-1' }).sign(rsaPrivate);
    await expect(verifyToken(noIat, cfg)).rejects.toMatchObject({ code: 'UNAUTHORIZED' });
  });

  it('answers 503 when the key set is not a key set, or does not come in time', async () => {
    const bogus = createServer((_req, res) => res.end(JSON.stringify({ nokeys: true })));
    const silent = createServer(() => undefined);
    const open = async (srv: Server) => {
      await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
      const a = srv.address();
      return `http://127.0.0.1:${typeof a === 'object' && a ? a.port : 0}/jwks.json`;
    };
    try {
      const t = await new SignJWT(claims()).setProtectedHeader({ alg: 'RS256', kid: 'key-1' }).sign(rsaPrivate);
      // the cause is kept for the server log (the client sees the message only)
      const failure = (url: string) =>
        verifyToken(t, loadServiceConfig({ JWT_JWKS_URL: url }).jwt).then(
          () => undefined,
          (e: unknown) => e as ServiceError,
        );
      for (const [srv, cause] of [
        [bogus, 'ERR_JWKS_INVALID'],
        [silent, 'ERR_JWKS_TIMEOUT'],
      ] as const) {
        const e = await failure(await open(srv));
        expect(e).toMatchObject({ code: 'UPSTREAM_UNAVAILABLE', message: 'The token keys cannot be fetched; try again.' });
        expect((e?.cause as { code?: string } | undefined)?.code).toBe(cause);
      }
    } finally {
      silent.closeAllConnections();
      await new Promise((r) => bogus.close(r));
      await new Promise((r) => silent.close(r));
    }
  });

  it('answers 503 when the key set cannot be fetched', async () => {
    const cfg = loadServiceConfig({ JWT_JWKS_URL: 'http://127.0.0.1:1/jwks.json' }).jwt;
    const t = await new SignJWT(claims()).setProtectedHeader({ alg: 'RS256', kid: 'key-1' }).sign(rsaPrivate);
    const e = await verifyToken(t, cfg).then(
      () => undefined,
      (x: unknown) => x as ServiceError,
    );
    expect(e).toMatchObject({ code: 'UPSTREAM_UNAVAILABLE', message: 'The token keys cannot be fetched; try again.' });
    expect(e?.cause).toBeInstanceOf(Error);
  });
});
