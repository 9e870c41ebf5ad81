/**
 * Throttling through the entries (`api/_lib/throttle/policy.ts`; docs/api.md "Security"), on SQLite and on a
 * real redis-server: guessing the admin password or forging tokens is refused with 429 and `Retry-After`
 * after the budget of failures, the right password included, until the window has passed; a token
 * verified before is no guess; writes are counted per client, per player account and per game server; a
 * refused request changes nothing; clients are told apart by the address the edge hands over.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import * as admin from '../../api/admin.js';
import * as player from '../../api/player.js';
import * as wallet from '../../api/wallet.js';
import { useServiceConfig, type ServiceConfig } from '../../api/_lib/config.js';
import { clientOf, UNKNOWN_CLIENT } from '../../api/_lib/throttle/policy.js';
import { ledgerStore } from '../../api/_lib/ledger/store.js';
import { call, newPlayer, serverAuth, tokenFor, useGameConfig } from '../helpers/game-api.js';
import { redisHarness, sqliteHarness } from '../helpers/ledger.js';
import { captureLog } from '../helpers/log.js';

const PASSWORD = 'throttle-Qm8vT3kZ9rLw2XcN';
const BUDGETS = {
  RATE_LIMIT_AUTH_FAILURES: '3',
  RATE_LIMIT_AUTH_WINDOW_S: '60',
  RATE_LIMIT_CLIENT_WRITES: '8',
  RATE_LIMIT_ACCOUNT_WRITES: '4',
  RATE_LIMIT_SERVER_WRITES: '6',
  RATE_LIMIT_WRITE_WINDOW_S: '60',
};
const log = captureLog();

/** A platform's key set on 127.0.0.1 holding one RS256 key of its own. */
async function serveKeySet(): Promise<{ url: string; close(): Promise<void> }> {
  const { publicKey } = await generateKeyPair('RS256', { extractable: true });
  const body = JSON.stringify({ keys: [{ ...(await exportJWK(publicKey)), kid: 'platform-1', alg: 'RS256', use: 'sig' }] });
  const server = createServer((_req, res) => res.writeHead(200, { 'Content-Type': 'application/json' }).end(body));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/jwks.json`, close: () => new Promise((r) => server.close(() => r())) };
}

/** A request header set from the address `ip`, as Vercel's edge hands it over. */
const from = (ip: string, headers: Record<string, string> = {}) => ({ 'x-real-ip': ip, 'x-forwarded-for': ip, ...headers });

describe('the client address', () => {
  it("is Vercel's x-real-ip, else the first x-forwarded-for, else unknown; never anything but an address", () => {
    const req = (headers: Record<string, string>) => new Request('http://t/', { headers });
    expect(clientOf(req({ 'x-real-ip': '203.0.113.7', 'x-forwarded-for': '198.51.100.1' }))).toBe('203.0.113.7');
    expect(clientOf(req({ 'x-forwarded-for': '2001:db8::1, 10.0.0.1' }))).toBe('2001:db8::1');
    expect(clientOf(req({}))).toBe(UNKNOWN_CLIENT);
    expect(clientOf(req({ 'x-real-ip': 'client:evil' }))).toBe(UNKNOWN_CLIENT);
    expect(clientOf(req({ 'x-real-ip': '1'.repeat(65) }))).toBe(UNKNOWN_CLIENT);
  });
});

for (const [name, harness] of [
  ['sqlite', () => ({ ...sqliteHarness(), flush: () => Promise.resolve() })],
  ['redis', redisHarness],
] as const) {
  describe(`throttling on ${name}`, () => {
    const h = harness();
    let config: ServiceConfig;
    let jwks: { url: string; close(): Promise<void> };
    beforeAll(async () => {
      await h.setup();
      jwks = await serveKeySet();
    }, 60_000);
    afterAll(async () => {
      useServiceConfig(undefined);
      await jwks.close();
      await h.teardown();
    });
    afterEach(() => {
      vi.useRealTimers();
    });
    /** A configuration over empty data (Redis keeps one database: emptied) with the test budgets and `extra`. */
    const fresh = async (extra: Record<string, string> = {}) => {
      await h.flush();
      config = useGameConfig({ ...h.env(), ...BUDGETS, ADMIN_PASSWORD: PASSWORD, ...extra });
    };

    it('refuses every credential of a client after its budget of failures, the right one too, until the window passed', async () => {
      await fresh();
      const { studioId, accountId } = await newPlayer(config);
      const grant = (ip: string, headers: Record<string, string>, key: string) =>
        call(admin, 'POST', '/api/admin/grant-coin', {
          body: { studioId, amount: 5, reason: 'guess', idempotencyKey: key },
          headers: from(ip, headers),
        });
      vi.useFakeTimers({ toFake: ['Date'] });
      vi.setSystemTime(Date.UTC(2026, 10, 23, 10, 0, 1));
      for (let i = 0; i < 3; i++)
        expect((await grant('198.51.100.9', { 'X-Admin-Password': `wrong-guess-${i}-Xk2mQ9` }, `guess-000${i}`)).status).toBe(401);
      const blocked = await grant('198.51.100.9', { 'X-Admin-Password': PASSWORD }, 'guess-right-1');
      expect(blocked.status).toBe(429);
      expect(blocked.body.code).toBe('TOO_MANY_REQUESTS');
      expect(blocked.headers.get('retry-after')).toBe('61');
      expect(blocked.body.detail).toBe('Too many failed sign-ins from this address; try again in 61 seconds.');
      // the refused grant changed nothing
      expect(await (await ledgerStore()).balance(accountId)).toBe(0);
      // a forged token from the same address is refused the same way
      expect((await grant('198.51.100.9', { Authorization: 'Bearer a.b.c' }, 'guess-forged-1')).status).toBe(429);
      // another address is not held up
      expect((await grant('198.51.100.10', { 'X-Admin-Password': PASSWORD }, 'guess-other-1')).status).toBe(200);
      // Retry-After later the right password works again from the blocked address
      vi.setSystemTime(Date.UTC(2026, 10, 23, 10, 0, 1 + 61));
      expect((await grant('198.51.100.9', { 'X-Admin-Password': PASSWORD }, 'guess-right-1')).status).toBe(200);
      expect(await (await ledgerStore()).balance(accountId)).toBe(10);
      // every refused credential was logged for the operator, never the password or token
      const failed = log.events('operator-auth-failed');
      expect(failed.map((l) => l.status)).toEqual([401, 401, 401, 429, 429]);
      for (const l of failed) expect(l.raw).not.toMatch(/wrong-guess|Bearer|Xk2mQ9/);
    });

    it('counts forged tokens too, and lets a token verified before through a blocked address', async () => {
      await fresh();
      const { studioId, auth } = await newPlayer(config);
      // the player's token is verified once, before the address is blocked
      expect((await call(wallet, 'GET', '/api/wallet/overview', { headers: from('192.0.2.44', auth) })).status).toBe(200);
      const forged = `${auth.Authorization!.slice(0, -6)}AAAAAA`;
      for (let i = 0; i < 3; i++)
        expect((await call(wallet, 'GET', '/api/wallet/overview', { headers: from('192.0.2.44', { Authorization: forged }) })).status).toBe(
          401,
        );
      expect((await call(wallet, 'GET', '/api/wallet/overview', { headers: from('192.0.2.44', { Authorization: forged }) })).status).toBe(
        429,
      );
      const again = await call(wallet, 'GET', '/api/wallet/overview', { headers: from('192.0.2.44', auth) });
      expect([again.status, (again.body.account as { studioId: string }).studioId]).toEqual([200, studioId]);
      // a token never seen before is a guess, however valid: refused while the address is blocked
      const unseen = { Authorization: `Bearer ${await tokenFor(config, studioId, 'member')}` };
      expect((await call(wallet, 'GET', '/api/wallet/overview', { headers: from('192.0.2.44', unseen) })).status).toBe(429);
    });

    it("counts an external platform's refused token as a failed sign-in", async () => {
      await fresh({ EXTERNAL_AUTH_JWKS_URL: jwks.url, EXTERNAL_AUTH_ISSUER: 'https://platform.test', EXTERNAL_AUTH_AUDIENCE: 'game' });
      // signed by a key the platform's key set does not hold
      const { privateKey } = await generateKeyPair('RS256');
      const token = await new SignJWT({})
        .setProtectedHeader({ alg: 'RS256', kid: 'platform-1' })
        .setSubject('player-1')
        .setIssuer('https://platform.test')
        .setAudience('game')
        .setIssuedAt()
        .setExpirationTime('10m')
        .sign(privateKey);
      const login = () => call(player, 'POST', '/api/auth/external', { body: { token }, headers: from('203.0.113.80') });
      const statuses = [];
      for (let i = 0; i < 4; i++) statuses.push((await login()).status);
      expect(statuses).toEqual([401, 401, 401, 429]);
    });

    it('counts writes per player account: the next write is refused and changes nothing', async () => {
      await fresh({ RATE_LIMIT_CLIENT_WRITES: '100' });
      const { auth } = await newPlayer(config);
      const create = (i: number, ip: string) =>
        call(player, 'POST', '/api/characters', {
          body: {
            era: 'warlords',
            name: `Hero ${i}`,
            classId: 'warrior',
            raceId: 'human',
            factionId: 'crusade',
            idempotencyKey: `throttle-char-${i}`,
          },
          headers: from(ip, auth),
        });
      const statuses = [];
      // from four addresses: the account's budget is the account's, wherever it writes from
      for (let i = 0; i < 5; i++) statuses.push((await create(i, `192.0.2.${i + 1}`)).status);
      expect(statuses.slice(0, 4).every((s) => s === 201 || s === 409)).toBe(true);
      expect(statuses[4]).toBe(429);
      const characters = await call(player, 'GET', '/api/characters?era=warlords', { headers: from('192.0.2.99', auth) });
      expect((characters.body.characters as unknown[]).length).toBe(statuses.filter((s) => s === 201).length);
      // reads are not writes
      expect((await call(player, 'GET', '/api/inventory', { headers: from('192.0.2.1', auth) })).status).toBe(200);
    });

    it('counts writes per address, and a game server per credential, not per address', async () => {
      await fresh({ RATE_LIMIT_ACCOUNT_WRITES: '100' });
      const server = await serverAuth(config);
      const { studioId } = await newPlayer(config);
      const players = await Promise.all([newPlayer(config, 'A'), newPlayer(config, 'B'), newPlayer(config, 'C')]);
      const grant = (i: number, ip: string) =>
        call(player, 'POST', '/api/inventory/grant', {
          body: { studioId, definitionId: 'MATL-20260601090000-000101-F469B3E9', quantity: 1, idempotencyKey: `throttle-grant-${i}` },
          headers: from(ip, server),
        });
      const statuses = [];
      for (let i = 0; i < 7; i++) statuses.push((await grant(i, '10.1.1.1')).status);
      expect(statuses).toEqual([201, 201, 201, 201, 201, 201, 429]);
      const refused = await grant(7, '10.1.1.1');
      expect(refused.body.detail).toBe('Too many changes from this game server; try again in 61 seconds.');
      const bag = await call(player, 'GET', '/api/inventory', { headers: { Authorization: `Bearer ${await tokenFor(config, studioId)}` } });
      expect((bag.body.stackables as { quantity: number }[])[0]!.quantity).toBe(6);
      // players behind one address share its budget of 8 writes
      const out = [];
      for (let i = 0; i < 9; i++) {
        const p = players[i % 3]!;
        out.push(
          (await call(player, 'PATCH', '/api/island/state', { body: {}, headers: from('10.2.2.2', { ...p.auth, 'If-Match': '"0"' }) }))
            .status,
        );
      }
      expect(out.slice(0, 8).every((s) => s !== 429)).toBe(true);
      expect(out[8]).toBe(429);
    });
  });
}
