/**
 * The routes the operator console adds (docs/architecture.md, "Operator console"), through the admin entry
 * on both stores: the admin password exchanged for a short-lived operator token (and nothing else exchanged
 * for one), what that token may do and how the ledger names it, the sign-in throttle, and the island and
 * characters an operator reads without creating anything.
 */
import { decodeJwt } from 'jose';
import { describe, expect, it } from 'vitest';
import { loadServiceConfig } from '../../api/_lib/config.js';
import { OPERATOR_SESSION_SUBJECT, OPERATOR_SESSION_TTL_S, operatorSession } from '../../api/_lib/auth/session.js';
import { verifyToken } from '../../api/_lib/auth/tokens.js';
import { ServiceError } from '../../api/_lib/errors.js';
import { refusal } from '../helpers/ledger-ops.js';
import { responseErrors } from '../helpers/game-api.js';
import {
  ADMIN_PASSWORD,
  adminAuth,
  admin,
  call,
  HERO,
  newCharacter,
  newPlayer,
  onEachStore,
  player,
  quietLog,
  serverAuth,
  tokenFor,
} from '../adversarial/helpers.js';

quietLog();

const password = { 'X-Admin-Password': ADMIN_PASSWORD };
const session = (headers: Record<string, string>) => call(admin, 'POST', '/api/admin/session', { headers });

describe('operatorSession', () => {
  const secretConfig = (extra: Record<string, string> = {}) =>
    loadServiceConfig({ JWT_SECRET: 'session-unit-secret-0123456789-abcdefgh', ...extra }).jwt;

  it('signs a token of role admin and subject admin-password for 15 minutes, that the service verifies', async () => {
    const jwt = secretConfig();
    const now = Math.floor(Date.now() / 1000) - 10;
    const s = await operatorSession(jwt, now);
    expect(s).toEqual({
      token: s.token,
      tokenType: 'Bearer',
      role: 'admin',
      subject: 'admin-password',
      expiresIn: 900,
      expiresAt: new Date((now + 900) * 1000).toISOString(),
    });
    expect(OPERATOR_SESSION_TTL_S).toBe(900);
    expect(OPERATOR_SESSION_SUBJECT).toBe('admin-password');
    const claims = decodeJwt(s.token);
    expect([claims.sub, claims.role, claims.iat, claims.exp, claims.iss, claims.aud]).toEqual([
      'admin-password',
      'admin',
      now,
      now + 900,
      jwt.issuer,
      jwt.audience,
    ]);
    expect(claims.guest).toBeUndefined();
    const principal = await verifyToken(s.token, jwt);
    expect([principal.subject, principal.role, principal.guest]).toEqual(['admin-password', 'admin', false]);
    expect(responseErrors('admin-session', s)).toEqual([]);
  });

  it('is issued now unless told otherwise', async () => {
    const before = Math.floor(Date.now() / 1000);
    const s = await operatorSession(secretConfig());
    const claims = decodeJwt(s.token);
    expect(claims.iat).toBeGreaterThanOrEqual(before);
    expect(claims.iat).toBeLessThanOrEqual(Math.floor(Date.now() / 1000));
    expect(Date.parse(s.expiresAt) / 1000).toBe(claims.iat! + 900);
  });

  it('lives no longer than the configured maximum age of a token', async () => {
    const s = await operatorSession(secretConfig({ JWT_MAX_AGE_S: '300' }), 1_800_000_000);
    expect([s.expiresIn, s.expiresAt]).toEqual([300, new Date((1_800_000_000 + 300) * 1000).toISOString()]);
    const claims = decodeJwt(s.token);
    expect(claims.exp! - claims.iat!).toBe(300);
  });

  it('is refused with 503 where the deployment signs no tokens, saying to sign in with a token', async () => {
    const jwks = loadServiceConfig({ JWT_JWKS_URL: 'https://id.example/.well-known/jwks.json' }).jwt;
    const e = await refusal(operatorSession(jwks));
    expect(e).toBeInstanceOf(ServiceError);
    expect(e.code).toBe('UPSTREAM_UNAVAILABLE');
    expect(e.message).toBe(
      'This deployment does not sign tokens (they come from its identity host), so the password cannot be exchanged; sign in with an operator token instead.',
    );
  });
});

onEachStore('the operator console routes', (store) => {
  it('exchanges the admin password for an operator token that acts as admin, and the ledger names it admin:admin-password', async () => {
    const config = await store.fresh();
    const r = await session(password);
    expect(r.status).toBe(200);
    expect(r.headers.get('cache-control')).toBe('no-store');
    expect(responseErrors('admin-session', r.body)).toEqual([]);
    expect([r.body.role, r.body.subject, r.body.expiresIn]).toEqual(['admin', 'admin-password', 900]);
    const auth = { Authorization: `Bearer ${r.body.token as string}` };
    const p = await newPlayer(config, 'Sessioned');
    const grant = await call(admin, 'POST', '/api/admin/grant-coin', {
      body: { studioId: p.studioId, amount: 7, reason: 'console grant', idempotencyKey: 'console-grant-01' },
      headers: auth,
    });
    expect(grant.status).toBe(200);
    const wallet = await call(admin, 'GET', `/api/admin/players/${p.studioId}/wallet`, { headers: auth });
    expect((wallet.body.transactions as { entryId: string; actor: string }[]).map((t) => [t.entryId, t.actor])).toEqual([
      [grant.body.entryId, 'admin:admin-password'],
    ]);
  });

  it('makes no session from a token of any role, nor without the right password; nothing is answered but the refusal', async () => {
    const config = await store.fresh();
    const admin403 = await session(await adminAuth(config));
    expect([admin403.status, admin403.body.code, admin403.body.detail]).toEqual([
      403,
      'FORBIDDEN',
      'A session is made from X-Admin-Password only; a token cannot make another. Sign in again.',
    ]);
    // a token beside the password: the request is judged by its token alone
    const both = await session({ ...password, ...(await adminAuth(config)) });
    expect([both.status, both.body.code]).toEqual([403, 'FORBIDDEN']);
    const support = await session({ Authorization: `Bearer ${await tokenFor(config, 'STUDIO_SUPPORT', 'support')}` });
    expect([support.status, support.body.code]).toEqual([403, 'FORBIDDEN']);
    const wrong = await session({ 'X-Admin-Password': `${ADMIN_PASSWORD}x` });
    expect([wrong.status, wrong.body.code, wrong.body.token]).toEqual([401, 'UNAUTHORIZED', undefined]);
    const none = await session({});
    expect([none.status, none.body.code]).toEqual([401, 'UNAUTHORIZED']);
  });

  it('counts wrong passwords against the client’s budget of failed sign-ins: 429 past it, the right password included', async () => {
    await store.fresh({ RATE_LIMIT_AUTH_FAILURES: '3', RATE_LIMIT_AUTH_WINDOW_S: '60' });
    const from = { 'x-real-ip': '203.0.113.9' };
    for (let i = 0; i < 3; i++) expect((await session({ ...from, 'X-Admin-Password': `guess-${i}-0123456789ab` })).status).toBe(401);
    const over = await session({ ...from, ...password });
    expect([over.status, over.body.code]).toEqual([429, 'TOO_MANY_REQUESTS']);
    expect(Number(over.headers.get('retry-after'))).toBeGreaterThan(0);
    // another client is not held up
    expect((await session({ 'x-real-ip': '203.0.113.10', ...password })).status).toBe(200);
  });

  it('reads an account’s island whole, null while it was never opened and never creating it', async () => {
    const config = await store.fresh();
    const p = await newPlayer(config, 'Islander');
    const support = { Authorization: `Bearer ${await tokenFor(config, 'STUDIO_SUPPORT', 'support')}` };
    const before = await call(admin, 'GET', `/api/admin/players/${p.studioId}/island`, { headers: support });
    expect(before.status).toBe(200);
    expect(responseErrors('player-island', before.body)).toEqual([]);
    expect(before.body).toEqual({ account: { accountId: p.accountId, studioId: p.studioId, displayName: 'Islander' }, island: null });
    // reading did not create it
    expect((await call(admin, 'GET', `/api/admin/players/${p.studioId}`, { headers: password })).body.island).toBeNull();
    const opened = await call(player, 'GET', '/api/island/state', { headers: p.auth });
    expect(opened.status).toBe(200);
    const exported = await call(player, 'POST', '/api/island/export-from-rts', {
      body: { gridX: 1, gridZ: 2, seed: 77, biome: 'forest' },
      headers: { ...p.auth, 'If-Match': opened.headers.get('etag')! },
    });
    expect(exported.status).toBe(200);
    const after = await call(admin, 'GET', `/api/admin/players/${p.accountId}/island`, { headers: support });
    expect(responseErrors('player-island', after.body)).toEqual([]);
    const island = after.body.island as { revision: number; state: { terrainZones: unknown[]; rtsHeightmap: { heightsM: number[] } } };
    expect(island).toEqual(exported.body);
    expect(island.state.terrainZones).toHaveLength(6);
    expect(island.state.rtsHeightmap.heightsM).toHaveLength(128 * 128);
    const missing = await call(admin, 'GET', '/api/admin/players/STUDIO_0000000000000000/island', { headers: support });
    expect([missing.status, missing.body.code]).toEqual([404, 'NOT_FOUND']);
    const asPlayer = await call(admin, 'GET', `/api/admin/players/${p.studioId}/island`, { headers: p.auth });
    expect(asPlayer.status).toBe(403);
  });

  it('reads an account’s characters with their progress as last saved', async () => {
    const config = await store.fresh();
    const p = await newPlayer(config, 'Heroic');
    const id = await newCharacter(p.auth);
    const saved = await call(player, 'PATCH', `/api/characters/${id}/progress`, {
      body: { idempotencyKey: 'console-progress-1', progress: { attributes: { STR: 12, DEX: 4 } } },
      headers: { ...(await serverAuth(config)), 'If-Match': '"1"' },
    });
    expect(saved.status).toBe(200);
    const r = await call(admin, 'GET', `/api/admin/players/${p.studioId}/characters`, { headers: password });
    expect(r.status).toBe(200);
    expect(responseErrors('player-characters', r.body)).toEqual([]);
    const list = r.body.characters as {
      character: { id: string; name: string; progress_revision: number };
      progress: Record<string, unknown>;
    }[];
    expect(list.map((c) => [c.character.id, c.character.name, c.character.progress_revision])).toEqual([[id, HERO.name, 2]]);
    expect(list[0]!.progress).toMatchObject({ attributes: { STR: 12, DEX: 4 } });
    const none = await newPlayer(config, 'Nobody');
    expect((await call(admin, 'GET', `/api/admin/players/${none.studioId}/characters`, { headers: password })).body.characters).toEqual([]);
  });
});
