/**
 * Tokens fail closed (spec 5.2, 5.3, 5.4; docs/api.md "Tokens";
 * `api/_lib/auth/tokens.ts`, `guard.ts`), attacked on every access level a route can declare (admin, game
 * server, player or game server, player), through the entries on both stores, with tokens signed by the
 * service's own secret but carrying what should never pass: a `guest` claim of any value but the literal
 * `false` (whatever role it names), no `iat`, an `iat` in the future or past `JWT_MAX_AGE_S`; and with
 * algorithm confusion: `alg: none` in any spelling, HS256 signed with the JWKS's public key (as PEM and
 * as JWK text), RS256 under the shared secret. Every such request is a 401 with `WWW-Authenticate` and
 * changes nothing; the same request with an honest token goes through.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createPublicKey } from 'node:crypto';
import { exportJWK, generateKeyPair, SignJWT, type JWTPayload } from 'jose';
import { expect, it } from 'vitest';
import { loadServiceConfig, useServiceConfig, type ServiceConfig } from '../../api/_lib/config.js';
import { SAMPLE_OUT } from '../helpers/catalog.js';
import { SECRET } from '../helpers/game-api.js';
import { ADMIN_PASSWORD, admin, call, HERO, MATERIAL, newPlayer, onEachStore, player, quietLog, wallet, type Answer } from './helpers.js';

quietLog();

const now = () => Math.floor(Date.now() / 1000);
const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');

/** A token signed HS256 with the service's secret (or `key`) over exactly `claims`. */
function signed(claims: JWTPayload, key: Uint8Array = new TextEncoder().encode(SECRET), alg = 'HS256'): Promise<string> {
  return new SignJWT(claims).setProtectedHeader({ alg, typ: 'JWT' }).sign(key);
}

/** Claims of an honest token of `config` for `sub` with `role`. */
const honest = (config: ServiceConfig, sub: string, role: string): JWTPayload => ({
  iss: config.jwt.issuer,
  aud: config.jwt.audience,
  sub,
  role,
  iat: now() - 5,
  exp: now() + 600,
});

/** One route per access level: its request with a token, and the effect it has, read with the admin password. */
interface Target {
  readonly access: string;
  /** The role an honest token of this route carries. */
  readonly role: string;
  /** The token's subject: the player for player routes, an operator else. */
  readonly subject: (studioId: string) => string;
  send(token: string, studioId: string, n: number): Promise<Answer>;
  effect(studioId: string, playerAuth: Record<string, string>): Promise<unknown>;
}

const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });
const password = { 'X-Admin-Password': ADMIN_PASSWORD };

const TARGETS: readonly Target[] = [
  {
    access: 'admin',
    role: 'admin',
    subject: () => 'STUDIO_OPERATOR',
    send: (token, studioId, n) =>
      call(admin, 'POST', '/api/admin/grant-coin', {
        body: { studioId, amount: 1, reason: 'token', idempotencyKey: `tok-grant-${n}` },
        headers: bearer(token),
      }),
    effect: async (_s, auth) => (await call(wallet, 'GET', '/api/wallet/overview', { headers: auth })).body.balance,
  },
  {
    access: 'game-server',
    role: 'server',
    subject: () => 'STUDIO_GAME_SERVER',
    send: (token, studioId, n) =>
      call(player, 'POST', '/api/inventory/grant', {
        body: { studioId, definitionId: MATERIAL, quantity: 1, idempotencyKey: `tok-bag-${n}-00` },
        headers: bearer(token),
      }),
    effect: async (_s, auth) => (await call(player, 'GET', '/api/inventory', { headers: auth })).body.stackables,
  },
  {
    access: 'player-or-game-server',
    role: 'server',
    subject: () => 'STUDIO_GAME_SERVER',
    send: async (token, studioId, n) => {
      const read = await call(player, 'GET', `/api/island/state?studioId=${studioId}`, { headers: password });
      return call(player, 'PATCH', `/api/island/state?studioId=${studioId}`, {
        body: { stats: { [`visits${n}`]: n } },
        headers: { ...bearer(token), 'If-Match': read.headers.get('etag')! },
      });
    },
    effect: async (studioId) => (await call(player, 'GET', `/api/island/state?studioId=${studioId}`, { headers: password })).body.revision,
  },
  {
    access: 'player',
    role: 'player',
    subject: (studioId) => studioId,
    send: (token, _s, n) =>
      call(player, 'POST', '/api/characters', {
        body: { ...HERO, era: 'voxel', idempotencyKey: `tok-char-${n}-00` },
        headers: bearer(token),
      }),
    effect: async (_s, auth) => (await call(player, 'GET', '/api/characters?era=voxel', { headers: auth })).body.characters,
  },
];

/** Send every `[what, token]` to `target`; each must be a 401 with a challenge, and the effect must stay. */
async function expectRefused(
  target: Target,
  tokens: readonly (readonly [string, string])[],
  studioId: string,
  auth: Record<string, string>,
): Promise<void> {
  const before = await target.effect(studioId, auth);
  for (const [i, [what, token]] of tokens.entries()) {
    const r = await target.send(token, studioId, 100 + i);
    expect([r.status, r.headers.get('www-authenticate')?.startsWith('Bearer realm="game-api"')], `${target.access}: ${what}`).toEqual([
      401,
      true,
    ]);
  }
  expect(await target.effect(studioId, auth)).toEqual(before);
}

onEachStore('tokens', (store) => {
  it('takes any guest claim but the literal false as a guest on every access level, whatever role the token names', async () => {
    const config = await store.fresh();
    const { studioId, auth } = await newPlayer(config, 'Gus');
    for (const target of TARGETS) {
      const claims = honest(config, target.subject(studioId), target.role);
      const guests = await Promise.all(
        (['false', 0, null, 'no', '', '0', 1, true, {}, []] as const).map(
          async (guest) => [`guest ${JSON.stringify(guest)}`, await signed({ ...claims, guest })] as const,
        ),
      );
      await expectRefused(target, guests, studioId, auth);
      const honestOne = await target.send(await signed({ ...claims, guest: false }), studioId, 1);
      expect(honestOne.status, `${target.access}: guest false`).toBeLessThan(300);
    }
  });

  it('refuses a token without iat, with an iat to come, or older than JWT_MAX_AGE_S whatever its exp says, on every access level', async () => {
    const config = await store.fresh({ JWT_MAX_AGE_S: '60' });
    const { studioId, auth } = await newPlayer(config, 'Ian');
    for (const target of TARGETS) {
      const claims = honest(config, target.subject(studioId), target.role);
      const noIat = { ...claims };
      delete noIat.iat;
      const tokens = [
        ['no iat', await signed(noIat)],
        ['iat 2 minutes ahead', await signed({ ...claims, iat: now() + 120 })],
        ['iat 2 minutes ago, max age 60 s, exp in a year', await signed({ ...claims, iat: now() - 120, exp: now() + 365 * 86_400 })],
        ['iat as text', await signed({ ...claims, iat: String(now()) as unknown as number })],
        ['iat at the epoch', await signed({ ...claims, iat: 1 })],
      ] as const;
      await expectRefused(target, tokens, studioId, auth);
      const fresh = await target.send(await signed({ ...claims, iat: now() - 30 }), studioId, 2);
      expect(fresh.status, `${target.access}: 30 s old`).toBeLessThan(300);
    }
  });

  it('refuses alg none in every spelling, an RS256 token under the shared secret, and HS256 tokens made from the JWKS public key', async () => {
    const config = await store.fresh();
    const { studioId, auth } = await newPlayer(config, 'Al');
    const { privateKey, publicKey } = await generateKeyPair('RS256', { extractable: true });
    const underSecret = async (claims: JWTPayload) => [
      ...['none', 'None', 'NONE', 'nOnE'].flatMap((alg) => [
        [`alg ${alg}`, `${b64({ alg, typ: 'JWT' })}.${b64(claims)}.`] as const,
        [`alg ${alg} with a signature`, `${b64({ alg })}.${b64(claims)}.c2lnbmF0dXJl`] as const,
      ]),
      ['RS256 under the secret', await new SignJWT(claims).setProtectedHeader({ alg: 'RS256' }).sign(privateKey)] as const,
      ['HS512 with the secret', await signed(claims, new TextEncoder().encode(SECRET), 'HS512')] as const,
    ];
    for (const target of TARGETS)
      await expectRefused(target, await underSecret(honest(config, target.subject(studioId), target.role)), studioId, auth);

    // the same service verifying by a JWKS: its public key must not sign HS256 tokens
    const jwk = { ...(await exportJWK(publicKey)), kid: 'rs-1', alg: 'RS256', use: 'sig' };
    const jwks: Server = createServer((_req, res) =>
      res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify({ keys: [jwk] })),
    );
    await new Promise<void>((r) => jwks.listen(0, '127.0.0.1', r));
    try {
      const url = `http://127.0.0.1:${(jwks.address() as AddressInfo).port}/jwks.json`;
      const remote = loadServiceConfig({ ...store.env(), CATALOG_DIR: SAMPLE_OUT, JWT_JWKS_URL: url });
      useServiceConfig(remote);
      const pem = createPublicKey({ key: jwk, format: 'jwk' }).export({ type: 'spki', format: 'pem' }).toString();
      const rs256 = (claims: JWTPayload) => new SignJWT(claims).setProtectedHeader({ alg: 'RS256', kid: 'rs-1' }).sign(privateKey);
      const remoteAuth = bearer(await rs256(honest(remote, studioId, 'player')));
      for (const target of TARGETS) {
        const claims = honest(remote, target.subject(studioId), target.role);
        const confused = [
          ['HS256 keyed with the PEM public key', await signed(claims, new TextEncoder().encode(pem))],
          ['HS256 keyed with the JWK text', await signed(claims, new TextEncoder().encode(JSON.stringify(jwk)))],
          [
            'HS256 with the kid of the RSA key',
            await new SignJWT(claims).setProtectedHeader({ alg: 'HS256', kid: 'rs-1' }).sign(new TextEncoder().encode(pem)),
          ],
          ['alg none with the kid', `${b64({ alg: 'none', kid: 'rs-1' })}.${b64(claims)}.`],
        ] as const;
        await expectRefused(target, confused, studioId, remoteAuth);
        expect((await target.send(await rs256(claims), studioId, 3)).status, `${target.access}: RS256 by the JWKS key`).toBeLessThan(300);
      }
    } finally {
      await new Promise<void>((r) => jwks.close(() => r()));
    }
  });
});
