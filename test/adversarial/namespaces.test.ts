/**
 * Namespaces that cannot collide (spec 2.8 `users.username` "may carry a provider prefix", 4.8 and 5.5
 * external login; docs/guides/player-state.md; `api/_lib/player/external-login.ts`): an operator creating
 * accounts through `POST /api/admin/accounts`, before, after or while an external identity first logs in,
 * with the very client key external login uses (`external:<provider>:<id>`) or a username in its
 * namespace, neither blocks that identity's login nor is answered the identity's account, and the
 * usernames the service makes itself (`studio:<studioId>`) stay out of any provider's namespace. On both
 * stores, against a platform key set served on 127.0.0.1.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ConfigError } from '../../api/_lib/config.js';
import { ADMIN_PASSWORD, admin, adminAuth, call, errorNames, onEachStore, player, quietLog, type Answer } from './helpers.js';

quietLog();

const ISSUER = 'https://platform.test';
const AUDIENCE = 'game-data-service';
let server: Server;
let jwksUrl = '';
let platformKey: CryptoKey;

beforeAll(async () => {
  const pair = await generateKeyPair('ES256');
  platformKey = pair.privateKey;
  const jwk = { ...(await exportJWK(pair.publicKey)), kid: 'platform-1', alg: 'ES256', use: 'sig' };
  server = createServer((_req, res) => res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify({ keys: [jwk] })));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  jwksUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/jwks.json`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

/** The external login's variables for `provider`. */
const platform = (provider: string) => ({
  EXTERNAL_AUTH_JWKS_URL: jwksUrl,
  EXTERNAL_AUTH_ISSUER: ISSUER,
  EXTERNAL_AUTH_AUDIENCE: AUDIENCE,
  EXTERNAL_AUTH_PROVIDER: provider,
});

/** Log in as the platform's user `sub`. */
async function login(sub: string): Promise<Answer> {
  const token = await new SignJWT({ preferred_username: `Player ${sub}` })
    .setProtectedHeader({ alg: 'ES256', kid: 'platform-1' })
    .setIssuer(ISSUER)
    .setAudience(AUDIENCE)
    .setSubject(sub)
    .setIssuedAt()
    .setExpirationTime('10m')
    .sign(platformKey);
  return call(player, 'POST', '/api/auth/external', { body: { token } });
}

const accountOf = (a: Answer) => a.body.account as { accountId: string; studioId: string; username: string };

onEachStore('namespaces', (store) => {
  it('lets an identity log in, and never answers its account, whatever an operator made under its client key before, after or meanwhile', async () => {
    const config = await store.fresh(platform('local'));
    const byToken = await adminAuth(config);
    const byPassword = { 'X-Admin-Password': ADMIN_PASSWORD };
    const squat = (id: string, headers: Record<string, string>) =>
      call(admin, 'POST', '/api/admin/accounts', { body: { displayName: 'Squatter', idempotencyKey: `external:local:${id}` }, headers });

    // before: by token and by password
    const before = await squat('ns-before', byToken);
    const beforePw = await squat('ns-before-pw', byPassword);
    expect([before.status, beforePw.status]).toEqual([201, 201]);
    for (const [id, made] of [
      ['ns-before', before],
      ['ns-before-pw', beforePw],
    ] as const) {
      const first = await login(id);
      expect([first.status, first.body.created, accountOf(first).username], id).toEqual([200, true, `local:${id}`]);
      expect(accountOf(first).accountId, id).not.toBe(accountOf(made).accountId);
    }
    // meanwhile
    const [during, duringLogin] = await Promise.all([squat('ns-during', byToken), login('ns-during')]);
    expect([during.status, duringLogin.status, accountOf(duringLogin).username]).toEqual([201, 200, 'local:ns-during']);
    expect(accountOf(duringLogin).accountId).not.toBe(accountOf(during).accountId);
    // after: the operator's key makes the operator's own account, never hands over the identity's
    const loggedIn = await login('ns-after');
    const after = await squat('ns-after', byPassword);
    expect([after.status, after.body.created]).toEqual([201, true]);
    expect(accountOf(after).accountId).not.toBe(accountOf(loggedIn).accountId);
    const replay = await squat('ns-after', byToken);
    expect([replay.status, accountOf(replay).accountId]).toEqual([200, accountOf(after).accountId]);
    // and every identity logs into its own account again
    for (const [id, first] of [
      ['ns-during', duringLogin],
      ['ns-after', loggedIn],
    ] as const) {
      const again = await login(id);
      expect([again.status, again.body.created, accountOf(again).accountId], id).toEqual([200, false, accountOf(first).accountId]);
    }
  });

  it("refuses an operator a username in a provider's namespace, and keeps the usernames it makes by default out of every provider's", async () => {
    const config = await store.fresh(platform('local'));
    const auth = await adminAuth(config);
    for (const username of ['local:ns-name', 'LOCAL:ns-name', 'studio:STUDIO_ABCDEFGH']) {
      const r = await call(admin, 'POST', '/api/admin/accounts', { body: { displayName: 'Op', username }, headers: auth });
      expect([r.status, errorNames(r)], username).toEqual([400, ['/username']]);
    }
    expect((await login('ns-name')).status).toBe(200);

    // an operator names the platform "studio": the default usernames (studio:<studioId>) must not be its users'
    let studio;
    try {
      studio = await store.fresh(platform('studio'));
    } catch (e) {
      // refusing the name is as good as keeping the namespaces apart
      expect(e).toBeInstanceOf(ConfigError);
      expect((e as ConfigError).problems.map((p) => p.variable)).toContain('EXTERNAL_AUTH_PROVIDER');
      return;
    }
    const made = await call(admin, 'POST', '/api/admin/accounts', {
      body: { displayName: 'Operator-made' },
      headers: await adminAuth(studio),
    });
    expect(made.status).toBe(201);
    const { studioId, accountId } = accountOf(made);
    const first = await login(studioId);
    expect([first.status, first.body.code]).toEqual([200, undefined]);
    expect(accountOf(first).accountId).not.toBe(accountId);
  });
});
