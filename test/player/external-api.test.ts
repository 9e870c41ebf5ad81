/**
 * External login and link through the player entry (spec 4.8, 5.5) against a JWKS server on 127.0.0.1:
 * a first login creates the account (two simultaneous first logins get the same one, never a 5xx), later
 * logins find it, the answer mirrors the account and its characters and carries a token our routes take;
 * every kind of bad platform token is a 401; unreachable keys are a 503; a link binds an identity to the
 * caller's account once (409 for another account); and the platform's token is never stored.
 */
import { createServer, type Server } from 'node:http';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { errors as joseErrors, exportJWK, generateKeyPair, SignJWT, type JWK } from 'jose';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { loadServiceConfig, useServiceConfig, type ServiceConfig } from '../../api/_lib/config.js';
import { externalVerifier } from '../../api/_lib/auth/external.js';
import { ServiceError } from '../../api/_lib/errors.js';
import type { EntryExports } from '../../api/_lib/http/entry.js';
import type { NewAccount } from '../../api/_lib/ledger/types.js';
import { externalLinkTo, externalLogin } from '../../api/_lib/player/external-login.js';
import { ledgerStore } from '../../api/_lib/ledger/store.js';
import * as playerEntry from '../../api/player.js';
import * as adminEntry from '../../api/admin.js';
import { mintToken } from '../../api/_lib/auth/tokens.js';
import { sqliteHarness } from '../helpers/ledger.js';
import { addAccount, newAccount } from '../helpers/ledger-ops.js';
import { requestFingerprint } from '../../api/_lib/stores/idempotency.js';
import { sqlitePlayerHarness, withMethods } from '../helpers/player.js';
import { SAMPLE_OUT } from '../helpers/catalog.js';
import { call, newPlayer, responseErrors, SECRET } from '../helpers/game-api.js';

const player = playerEntry as unknown as EntryExports;
const admin = adminEntry as unknown as EntryExports;
const h = sqliteHarness();
const ISSUER = 'https://platform.test';
const AUDIENCE = 'game-data-service';
let server: Server;
let jwksUrl = '';
let privateKey: CryptoKey;
let otherKey: CryptoKey;
let publicJwk: JWK;
let config: ServiceConfig;
let env: Record<string, string>;
let keyFetches = 0;

beforeAll(async () => {
  await h.setup();
  const pair = await generateKeyPair('ES256');
  privateKey = pair.privateKey;
  publicJwk = { ...(await exportJWK(pair.publicKey)), kid: 'platform-1', alg: 'ES256', use: 'sig' };
  otherKey = (await generateKeyPair('ES256')).privateKey;
  server = createServer((_req, res) => {
    keyFetches++;
    res.writeHead(200, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify({ keys: [publicJwk] }));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  jwksUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/jwks.json`;
});
afterAll(async () => {
  useServiceConfig(undefined);
  await new Promise((r) => server.close(r));
  await h.teardown();
});
beforeEach(() => {
  env = {
    ...h.env(),
    JWT_SECRET: SECRET,
    CATALOG_DIR: SAMPLE_OUT,
    EXTERNAL_AUTH_JWKS_URL: jwksUrl,
    EXTERNAL_AUTH_ISSUER: ISSUER,
    EXTERNAL_AUTH_AUDIENCE: AUDIENCE,
    EXTERNAL_AUTH_PROVIDER: 'steam',
  };
  config = loadServiceConfig(env);
  useServiceConfig(config);
});

/** A platform token for `sub`, with overrides. */
async function platformToken(
  sub: string,
  over: { iss?: string; aud?: string; exp?: number; key?: CryptoKey; kid?: string; claims?: Record<string, unknown> } = {},
) {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ preferred_username: `Player ${sub}`, ...over.claims })
    .setProtectedHeader({ alg: 'ES256', kid: over.kid ?? 'platform-1' })
    .setIssuer(over.iss ?? ISSUER)
    .setAudience(over.aud ?? AUDIENCE)
    .setSubject(sub)
    .setIssuedAt(now)
    .setExpirationTime(over.exp ?? now + 600)
    .sign(over.key ?? privateKey);
}

const login = (token: string) => call(player, 'POST', '/api/auth/external', { body: { token } });

describe('POST /api/auth/external', () => {
  it('creates the account on the first login, finds it after, mirrors it, and answers a token our routes take', async () => {
    const first = await login(await platformToken('7656119'));
    expect(first.status).toBe(200);
    expect(responseErrors('auth-login', first.body)).toEqual([]);
    expect(first.body).toMatchObject({
      created: true,
      tokenType: 'Bearer',
      expiresIn: 3600,
      account: { username: 'steam:7656119', displayName: 'Player 7656119' },
      characters: [],
    });
    expect(first.body.link).toMatchObject({ provider: 'steam', externalUserId: '7656119', username: 'Player 7656119' });
    const auth = { Authorization: `Bearer ${String(first.body.token)}` };
    const made = await call(player, 'POST', '/api/characters', {
      body: { era: 'nexus', name: 'Zed', classId: 'mage', raceId: 'sylvan', factionId: 'fabled' },
      headers: auth,
    });
    expect(made.status).toBe(201);
    const again = await login(await platformToken('7656119'));
    expect(again.body.created).toBe(false);
    expect(again.body.account).toEqual(first.body.account);
    expect((again.body.characters as { name: string; era: string }[]).map((c) => [c.name, c.era])).toEqual([['Zed', 'nexus']]);
  });

  it('gives a banned account no token (403), and a login right after a logout a token that is let in', async () => {
    const first = await login(await platformToken('ban-me-1'));
    const auth = { Authorization: `Bearer ${String(first.body.token)}` };
    expect((await call(player, 'POST', '/api/auth/logout', { headers: auth })).status).toBe(204);
    // in the logout's own second: the login waits for the next, so its token is not issued "before" it
    const after = await login(await platformToken('ban-me-1'));
    const fresh = { Authorization: `Bearer ${String(after.body.token)}` };
    expect((await call(player, 'GET', '/api/inventory', { headers: fresh })).status).toBe(200);
    expect((await call(player, 'GET', '/api/inventory', { headers: auth })).status).toBe(401);
    const accountId = (first.body.account as { accountId: string }).accountId;
    const ban = { reason: 'r', at: new Date().toISOString(), until: new Date(Date.now() + 60_000).toISOString() };
    await (await ledgerStore()).changeAccess({ accountId, change: { kind: 'ban', at: 1, ban }, key: undefined, fingerprint: 'f' });
    const refused = await login(await platformToken('ban-me-1'));
    expect([refused.status, refused.body.code, refused.body.token]).toEqual([403, 'ACCOUNT_SUSPENDED', undefined]);
  });

  it('gives two simultaneous first logins of one identity the same account, never a 5xx', async () => {
    const token = await platformToken('twin-login');
    const outs = await Promise.all(Array.from({ length: 8 }, () => login(token)));
    expect(outs.map((o) => o.status)).toEqual(Array(8).fill(200));
    expect(new Set(outs.map((o) => (o.body.account as { accountId: string }).accountId)).size).toBe(1);
    expect(outs.filter((o) => o.body.created === true)).toHaveLength(1);
  });

  it('refuses every platform token it should (401) and creates nothing', async () => {
    const now = Math.floor(Date.now() / 1000);
    const good = await platformToken('bad-case');
    const [head, payload] = good.split('.');
    const unsigned = `${Buffer.from(JSON.stringify({ alg: 'none' })).toString('base64url')}.${payload}.`;
    const hs = await new SignJWT({})
      .setProtectedHeader({ alg: 'HS256', kid: 'platform-1' })
      .setIssuer(ISSUER)
      .setAudience(AUDIENCE)
      .setSubject('bad-case')
      .setExpirationTime(now + 600)
      .sign(new TextEncoder().encode(JSON.stringify(publicJwk)));
    const cases: Record<string, string> = {
      'wrong issuer': await platformToken('bad-case', { iss: 'https://elsewhere.test' }),
      'wrong audience': await platformToken('bad-case', { aud: 'another-game' }),
      expired: await platformToken('bad-case', { exp: now - 600 }),
      'another key': await platformToken('bad-case', { key: otherKey }),
      'unknown kid': await platformToken('bad-case', { key: otherKey, kid: 'platform-9' }),
      'alg none': unsigned,
      'HS256 with the public key': hs,
      tampered: `${head}.${Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(payload!, 'base64url').toString()), sub: 'someone-else' })).toString('base64url')}.${good.split('.')[2]}`,
      'a subject that is no id': await platformToken('has space'),
      'no exp': await new SignJWT({})
        .setProtectedHeader({ alg: 'ES256', kid: 'platform-1' })
        .setIssuer(ISSUER)
        .setAudience(AUDIENCE)
        .setSubject('bad-case')
        .setIssuedAt(now)
        .sign(privateKey),
      'no subject': await new SignJWT({})
        .setProtectedHeader({ alg: 'ES256', kid: 'platform-1' })
        .setIssuer(ISSUER)
        .setAudience(AUDIENCE)
        .setIssuedAt(now)
        .setExpirationTime(now + 600)
        .sign(privateKey),
    };
    for (const [name, token] of Object.entries(cases)) {
      const r = await login(token);
      expect(r.status, name).toBe(401);
      expect(r.body.code).toBe('UNAUTHORIZED');
      expect(JSON.stringify(r.body)).not.toContain(token.slice(-20));
    }
    expect((await login('not-a-jwt')).status).toBe(400);
    // none of that made an account: the first good login creates one
    expect((await login(good)).body.created).toBe(true);
  });

  it("answers 503 when the platform's keys cannot be fetched, and when external login is off", async () => {
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((r) => closed.close(r));
    useServiceConfig(loadServiceConfig({ ...env, EXTERNAL_AUTH_JWKS_URL: `http://127.0.0.1:${port}/jwks.json` }));
    const r = await login(await platformToken('no-keys'));
    expect(r.status).toBe(503);
    expect(r.body.detail).toBe("The external platform's keys cannot be fetched; try again.");
    // a key set that is not one: the platform's fault, not the client's
    const broken = createServer((_req, res) => res.writeHead(200, { 'Content-Type': 'application/json' }).end('{"keys":"none"}'));
    await new Promise<void>((ok) => broken.listen(0, '127.0.0.1', ok));
    try {
      const brokenConfig = loadServiceConfig({
        ...env,
        EXTERNAL_AUTH_JWKS_URL: `http://127.0.0.1:${(broken.address() as AddressInfo).port}/jwks.json`,
      });
      useServiceConfig(brokenConfig);
      expect((await login(await platformToken('broken-keys'))).status).toBe(503);
      const e = await externalVerifier(brokenConfig.externalAuth, 0)
        .verify(await platformToken('broken-keys'))
        .then(
          () => undefined,
          (err: unknown) => err,
        );
      expect(e).toBeInstanceOf(ServiceError);
      expect((e as ServiceError).cause).toBeInstanceOf(joseErrors.JWKSInvalid);
    } finally {
      await new Promise((ok) => broken.close(ok));
    }
    const off = Object.fromEntries(
      Object.entries(env).filter(([k]) => !['EXTERNAL_AUTH_JWKS_URL', 'EXTERNAL_AUTH_ISSUER', 'EXTERNAL_AUTH_AUDIENCE'].includes(k)),
    );
    useServiceConfig(loadServiceConfig(off));
    expect((await login(await platformToken('no-keys'))).status).toBe(503);
  });

  it("never stores the platform's token", async () => {
    const token = await platformToken('keeps-nothing');
    expect((await login(token)).status).toBe(200);
    const dir = env.DATA_DIR!;
    const signature = token.split('.')[2]!;
    for (const f of readdirSync(dir)) expect(readFileSync(join(dir, f)).includes(signature), f).toBe(false);
  });
});

describe('POST /api/auth/external-link', () => {
  it("binds an identity to the caller's account once; another account gets 409; a later login finds the linked account", async () => {
    const a = await newPlayer(config);
    const b = await newPlayer(config, 'Bo');
    const token = await platformToken('link-me');
    expect((await call(player, 'POST', '/api/auth/external-link', { body: { token } })).status).toBe(401);
    const first = await call(player, 'POST', '/api/auth/external-link', { body: { token }, headers: a.auth });
    expect(first.status).toBe(201);
    expect(responseErrors('auth-link', first.body)).toEqual([]);
    const again = await call(player, 'POST', '/api/auth/external-link', { body: { token }, headers: a.auth });
    expect(again.status).toBe(200);
    expect(again.body).toEqual({ ...first.body, linked: false });
    const taken = await call(player, 'POST', '/api/auth/external-link', { body: { token }, headers: b.auth });
    expect(taken.status).toBe(409);
    const logged = await login(token);
    expect(logged.body).toMatchObject({ created: false, account: { studioId: a.studioId } });
    const bad = await call(player, 'POST', '/api/auth/external-link', {
      body: { token: await platformToken('link-me', { key: otherKey }) },
      headers: b.auth,
    });
    expect(bad.status).toBe(401);
  });
});

describe('identities and names', () => {
  it('gives each platform identity its own account, under the provider-prefixed username', async () => {
    const one = await login(await platformToken('ident-one'));
    const two = await login(await platformToken('ident-two'));
    expect([one.status, two.status, one.body.created, two.body.created]).toEqual([200, 200, true, true]);
    expect((one.body.account as { accountId: string }).accountId).not.toBe((two.body.account as { accountId: string }).accountId);
    expect(one.body.link).toMatchObject({ provider: 'steam', externalUserId: 'ident-one' });
    const again = await login(await platformToken('ident-one'));
    expect([again.status, again.body.created]).toEqual([200, false]);
  });

  it('takes the display name from preferred_username, name or username, cleaned and bounded, else the platform id', async () => {
    const nameOf = async (sub: string, claims: Record<string, unknown>) =>
      ((await login(await platformToken(sub, { claims }))).body.link as { username: string }).username;
    expect(await nameOf('name-1', { preferred_username: '  Ada\u0007 Lovelace\n ' })).toBe('Ada Lovelace');
    expect(await nameOf('name-2', { preferred_username: 'x'.repeat(100) })).toBe('x'.repeat(64));
    expect(await nameOf('name-3', { preferred_username: ' \u0001 ', name: 'Bo' })).toBe('Bo');
    expect(await nameOf('name-4', { preferred_username: 7, name: '', username: 'Cy' })).toBe('Cy');
    expect(await nameOf('name-5', { preferred_username: null })).toBe('name-5');
    // a name is one line: a tab or line break inside it is removed, not kept
    expect(await nameOf('name-6', { preferred_username: 'Ada\tLove\nlace' })).toBe('AdaLovelace');
  });

  it("keeps the names external login makes apart: an operator can neither take the identity's key nor its username", async () => {
    const auth = { Authorization: `Bearer ${await mintToken(config.jwt, { subject: 'STUDIO_OPERATOR', role: 'admin' })}` };
    // an operator's creation under the very key external login uses for the identity
    const squatter = await call(admin, 'POST', '/api/admin/accounts', {
      body: { displayName: 'Squatter', idempotencyKey: 'external:steam:ns-1' },
      headers: auth,
    });
    expect(squatter.status).toBe(201);
    // a provider-prefixed username is the service's to make
    const taken = await call(admin, 'POST', '/api/admin/accounts', {
      body: { displayName: 'Squatter', username: 'steam:ns-1' },
      headers: auth,
    });
    expect([taken.status, (taken.body.errors as { name: string }[]).map((e) => e.name)]).toEqual([400, ['/username']]);
    const first = await login(await platformToken('ns-1'));
    expect([first.status, first.body.created]).toEqual([200, true]);
    const account = first.body.account as { accountId: string; username: string };
    expect(account.username).toBe('steam:ns-1');
    expect(account.accountId).not.toBe((squatter.body.account as { accountId: string }).accountId);
  });

  it('cleans a display name to the stored-text rule: bidi overrides and C1 controls gone, NFC', async () => {
    const made = await login(await platformToken('clean-1', { claims: { preferred_username: 'E\u0301ve\u202e\u0085' } }));
    expect((made.body.account as { displayName: string }).displayName).toBe('Éve');
  });

  it('answers 401 with a WWW-Authenticate challenge, and fetches the platform keys once per process', async () => {
    const before = keyFetches;
    const bad = await login(await platformToken('challenge-1', { key: otherKey }));
    expect(bad.status).toBe(401);
    expect(bad.headers.get('www-authenticate')).toBe('Bearer realm="game-api", error="invalid_token"');
    for (let i = 0; i < 3; i++) expect((await login(await platformToken(`fetch-once-${i}`))).status).toBe(200);
    expect(keyFetches - before).toBeLessThanOrEqual(1);
  });

  it('answers 503 where this deployment only verifies tokens (JWT_JWKS_URL) and cannot issue its own', async () => {
    const rest = Object.fromEntries(Object.entries(env).filter(([k]) => k !== 'JWT_SECRET'));
    useServiceConfig(loadServiceConfig({ ...rest, JWT_JWKS_URL: jwksUrl }));
    const r = await login(await platformToken('no-issuer-1'));
    expect([r.status, r.body.code]).toEqual([503, 'UPSTREAM_UNAVAILABLE']);
    expect(r.body.detail).toBe('This deployment verifies tokens but does not issue them (JWT_JWKS_URL is set).');
  });
});

describe('the login service called directly, over stores that race or fail', () => {
  const players = sqlitePlayerHarness();
  beforeAll(() => players.setup());
  afterAll(() => players.teardown());

  it("creates the account under the identity's client key and a fingerprint of that key alone (stored: it must not change)", async () => {
    const [ledger, store] = [await h.fresh(), await players.fresh()];
    const seen: NewAccount[] = [];
    const spy = withMethods(ledger, { createAccount: (input: NewAccount) => (seen.push(input), ledger.createAccount(input)) });
    const out = await externalLogin(config, spy, store, { token: await platformToken('direct-1') });
    expect(out.created).toBe(true);
    expect(seen.map((s) => [s.clientKey, s.keyScope, s.fingerprint])).toEqual([
      ['external:steam:direct-1', 'external-login', requestFingerprint({ clientKey: 'external:steam:direct-1' })],
    ]);
    // a later login of a linked identity creates nothing
    expect((await externalLogin(config, spy, store, { token: await platformToken('direct-1') })).created).toBe(false);
    expect(seen).toHaveLength(1);
  });

  it('logs an identity linked to an account made another way into that account, creating none', async () => {
    const [ledger, store] = [await h.fresh(), await players.fresh()];
    const mine = await addAccount(ledger, newAccount());
    await externalLinkTo(config, store, mine, { token: await platformToken('direct-2') });
    const spy = withMethods(ledger, { createAccount: () => Promise.reject(new Error('no account may be created')) });
    const out = await externalLogin(config, spy, store, { token: await platformToken('direct-2') });
    expect([out.created, out.account.accountId]).toEqual([false, mine.accountId]);
  });

  it('says created only when this login both created the account and bound the identity', async () => {
    const [ledger, store] = [await h.fresh(), await players.fresh()];
    // a racing login that has not bound yet: every login here sees no link
    const unseen = withMethods(store, { externalLink: () => Promise.resolve(undefined) });
    const token = await platformToken('direct-3');
    expect((await externalLogin(config, ledger, unseen, { token })).created).toBe(true);
    // the account exists (created false) and the identity is bound to it (existing)
    expect((await externalLogin(config, ledger, unseen, { token })).created).toBe(false);
    // the account was made by an earlier attempt that stopped before binding: created false, linked now
    const retried = await players.fresh();
    const again = await externalLogin(config, ledger, withMethods(retried, { externalLink: () => Promise.resolve(undefined) }), { token });
    expect([again.created, again.link.externalUserId]).toEqual([false, 'direct-3']);
    // a new account whose binding lost to another account's: created false, the bound account answered
    const other = await addAccount(ledger, newAccount());
    const taken = await players.fresh();
    await externalLinkTo(config, taken, other, { token: await platformToken('direct-4') });
    const lost = await externalLogin(config, ledger, withMethods(taken, { externalLink: () => Promise.resolve(undefined) }), {
      token: await platformToken('direct-4'),
    });
    expect([lost.created, lost.account.accountId]).toEqual([false, other.accountId]);
  });

  it('gives a banned account no token, and refuses a login whose ban is answered while its token is made', async () => {
    const [ledger, store] = [await h.fresh(), await players.fresh()];
    const ban = { reason: 'abuse', at: '2026-11-20T00:00:00.000Z', until: '2099-01-01T00:00:00.000Z' };
    const refusalOf = (p: Promise<unknown>) =>
      p.then(
        () => undefined,
        (e: unknown) => e as ServiceError,
      );
    // refused at the first read: no token is made, and the access is not read again
    let reads = 0;
    const banned = withMethods(ledger, {
      access: (_id: string, options?: { fresh?: boolean }) => (reads++, Promise.resolve(options?.fresh === true ? {} : { ban })),
    });
    const e = await refusalOf(externalLogin(config, banned, store, { token: await platformToken('direct-6') }));
    expect([e?.code, e?.message, reads]).toEqual(['ACCOUNT_SUSPENDED', 'This account is suspended until 2099-01-01T00:00:00.000Z.', 1]);
    // the second read, once the token exists, goes past any cache and sees a ban made meanwhile
    const asked: unknown[] = [];
    const late = withMethods(ledger, {
      access: (_id: string, options?: { fresh?: boolean }) => {
        asked.push(options);
        return Promise.resolve(options?.fresh === true ? { ban: { ...ban, until: undefined } } : {});
      },
    });
    const f = await refusalOf(externalLogin(config, late, store, { token: await platformToken('direct-6') }));
    expect([f?.code, f?.message]).toEqual(['ACCOUNT_SUSPENDED', 'This account is suspended, without an end date.']);
    expect(asked).toEqual([undefined, { fresh: true }]);
  });

  it('mints another studio id when one is taken, four times at most, and names a username held by another account', async () => {
    const ledger = await h.fresh();
    const store = await players.fresh();
    let tries = 0;
    const taken = withMethods(ledger, {
      createAccount: () => {
        tries++;
        return Promise.resolve({ status: 'studio-id-taken' as const });
      },
    });
    const e = await externalLogin(config, taken, store, { token: await platformToken('direct-7') }).then(
      () => undefined,
      (err: unknown) => err as ServiceError,
    );
    expect([e?.code, e?.message, tries]).toEqual(['CONFLICT', 'The minted studio id is taken; try again.', 4]);
    const held = withMethods(ledger, { createAccount: () => Promise.resolve({ status: 'username-taken' as const }) });
    const f = await externalLogin(config, held, store, { token: await platformToken('direct-8') }).then(
      () => undefined,
      (err: unknown) => err as ServiceError,
    );
    expect([f?.code, f?.message]).toEqual(['CONFLICT', 'The username "steam:direct-8" is held by another account.']);
  });

  it('answers 503 when the linked account cannot be read', async () => {
    const [ledger, store] = [await h.fresh(), await players.fresh()];
    const blind = withMethods(ledger, { findAccount: () => Promise.resolve(undefined) });
    const e = await externalLogin(config, blind, store, { token: await platformToken('direct-5') }).then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(e).toBeInstanceOf(ServiceError);
    expect([(e as ServiceError).code, (e as ServiceError).message]).toEqual([
      'UPSTREAM_UNAVAILABLE',
      'The linked account cannot be read; try again.',
    ]);
  });
});
