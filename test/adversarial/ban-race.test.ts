/**
 * A ban racing game servers' writes and logins, against real servers (spec 5.3; docs/architecture.md,
 * "Sessions and bans"): two local servers (`dev/server.ts`, each its own process with its own caches) on
 * one store, SQLite (one file) and Redis (one real `redis-server`). Through one instance, game servers grant
 * bag units and mint items, players log in (`POST /api/auth/external`) and operators grant coin, all at
 * once; the ban goes through the other instance. Then, once the ban has answered:
 *
 * - no game-server write succeeds: everything sent after the ban's answer is 403 `ACCOUNT_SUSPENDED`
 *   (within the first instance's access cache window, so a check before the write alone would let
 *   them through there), and nothing lands that was not already there when the ban answered;
 * - no token is issued: every login sent after it is 403 with no token, and every token a racing login got
 *   is refused once the ban is lifted (the ban revoked it: it was issued before the ban);
 * - operators' coin grants, corrections of a banned account, all land.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadServiceConfig, type ServiceConfig } from '../../api/_lib/config.js';
import { PLATFORM_AUDIENCE, PLATFORM_ISSUER, PLATFORM_JWKS_PATH, platformJwks, platformToken } from '../../dev/external-platform.js';
import { redisBackend, sqliteBackend, type Backend } from '../helpers/backends.js';
import { REPO_ROOT, SAMPLE_OUT } from '../helpers/catalog.js';
import { SECRET, tokenFor } from '../helpers/game-api.js';
import { ADMIN_PASSWORD, ITEM_DEFINITION, MATERIAL } from './helpers.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A local server in a process of its own; `stop` ends that process (this suite's own child, by its pid). */
interface RealServer {
  readonly url: string;
  stop(): Promise<void>;
}

/** Start `npm start`'s server without a build over the sample catalog, on a free port, with `env` added. */
async function startRealServer(env: Record<string, string>): Promise<RealServer> {
  const child: ChildProcess = spawn(
    process.execPath,
    ['--import', 'tsx', 'dev/server.ts', '--no-build', '--out', SAMPLE_OUT, '--port', '0'],
    { cwd: REPO_ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let out = '';
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the server did not start: ${out}`)), 60_000);
    const read = (d: Buffer) => {
      out += d.toString();
      const m = /functions on (http:\/\/localhost:\d+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    };
    child.stdout!.on('data', read);
    child.stderr!.on('data', read);
    child.on('exit', (code) => reject(new Error(`the server exited (${code}): ${out}`)));
  });
  return {
    url,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

/** An answer of a real server: status, body, and when it was sent and received (ms since the epoch). */
interface Timed {
  readonly status: number;
  readonly body: Record<string, unknown>;
  readonly sent: number;
  readonly received: number;
}

/** Send `method path` with a JSON `body` to `server`. */
async function send(server: RealServer, method: string, path: string, headers: Record<string, string>, body?: unknown): Promise<Timed> {
  const sent = Date.now();
  const res = await fetch(server.url + path, {
    method,
    headers: { ...(body === undefined ? {} : { 'Content-Type': 'application/json' }), ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, body: (text ? JSON.parse(text) : {}) as Record<string, unknown>, sent, received: Date.now() };
}

const password = { 'X-Admin-Password': ADMIN_PASSWORD };
const suspended = (t: Timed) => t.status === 403 && t.body.code === 'ACCOUNT_SUSPENDED' && t.body.token === undefined;

const STORES: readonly (readonly [string, () => Backend])[] = [
  ['sqlite', sqliteBackend],
  ['redis', () => redisBackend()],
];

for (const [name, make] of STORES) {
  describe(`a ban racing game servers’ writes and logins, on two real servers over ${name}`, () => {
    const backend = make();
    const platformDir = mkdtempSync(join(tmpdir(), 'ban-race-platform-'));
    let platform: Server | undefined;
    let here: RealServer;
    let there: RealServer;
    let config: ServiceConfig;
    beforeAll(async () => {
      await backend.setup();
      const jwks = JSON.stringify(await platformJwks(platformDir));
      platform = createServer((_req, res) => res.writeHead(200, { 'Content-Type': 'application/json' }).end(jwks));
      await new Promise<void>((r) => platform!.listen(0, '127.0.0.1', r));
      const env = {
        ...backend.env(),
        JWT_SECRET: SECRET,
        ADMIN_PASSWORD,
        EXTERNAL_AUTH_JWKS_URL: `http://127.0.0.1:${(platform.address() as AddressInfo).port}${PLATFORM_JWKS_PATH}`,
        EXTERNAL_AUTH_ISSUER: PLATFORM_ISSUER,
        EXTERNAL_AUTH_AUDIENCE: PLATFORM_AUDIENCE,
        EXTERNAL_AUTH_PROVIDER: 'local',
      };
      config = loadServiceConfig({ JWT_SECRET: SECRET });
      [here, there] = await Promise.all([startRealServer(env), startRealServer(env)]);
    }, 120_000);
    afterAll(async () => {
      await Promise.all([here?.stop(), there?.stop()]);
      await new Promise<void>((r) => (platform ? platform.close(() => r()) : r()));
      await backend.teardown();
      rmSync(platformDir, { recursive: true, force: true });
    });

    it('lets no game-server write succeed and issues no token once the ban has answered; operators’ coin grants land', async () => {
      const server = { Authorization: `Bearer ${await tokenFor(config, 'STUDIO_GAME_SERVER', 'server')}` };
      const login = async (instance: RealServer) =>
        send(instance, 'POST', '/api/auth/external', {}, { token: await platformToken(platformDir, 'racer', 'Racer', 600) });
      const first = await login(here);
      expect(first.status, JSON.stringify(first.body)).toBe(200);
      const studioId = (first.body.account as { studioId: string }).studioId;
      let n = 0;
      const grant = () =>
        send(here, 'POST', '/api/inventory/grant', server, {
          studioId,
          definitionId: MATERIAL,
          quantity: 1,
          idempotencyKey: `race-grant-${n++}-x`,
        });
      const mint = () =>
        send(here, 'POST', '/api/uuid', server, { studioId, definitionId: ITEM_DEFINITION, idempotencyKey: `race-mint-${n++}-x` });
      const coin = () =>
        send(here, 'POST', '/api/admin/grant-coin', password, {
          studioId,
          amount: 2,
          reason: 'refund',
          idempotencyKey: `race-coin-${n++}-x`,
        });
      const held = async () => {
        const r = await send(there, 'GET', `/api/admin/players/${studioId}/bag`, password);
        return { units: (r.body.bag as { quantity: number }[])[0]?.quantity ?? 0, entries: (r.body.entries as unknown[]).length };
      };
      // the instance the writes go through reads the account's access now (Redis keeps it for ACCESS_CACHE_MS)
      expect((await grant()).status).toBe(201);
      expect((await login(here)).status).toBe(200);
      // early in a second, so the racing logins' tokens share the ban's revocation second or precede it
      if (Date.now() % 1000 > 100) await sleep(1000 - (Date.now() % 1000) + 5);
      const racing = [
        ...Array.from({ length: 16 }, grant),
        ...Array.from({ length: 4 }, mint),
        ...Array.from({ length: 6 }, () => login(here)),
        ...Array.from({ length: 4 }, coin),
      ];
      await sleep(15);
      const ban = await send(there, 'POST', `/api/admin/players/${studioId}/ban`, password, {
        reason: 'botting',
        idempotencyKey: 'race-ban-0001',
      });
      expect(ban.status, JSON.stringify(ban.body)).toBe(200);
      const atBan = await held();
      // sent after the ban's answer, through the instance that read the access before it
      const late = await Promise.all([...Array.from({ length: 8 }, grant), mint(), mint(), login(here), login(here), login(there)]);
      const lateCoin = await coin();
      const answers = await Promise.all(racing);
      expect(late.filter((a) => !suspended(a)).map((a) => [a.status, a.body.code])).toEqual([]);
      expect(late.every((a) => a.sent >= ban.received)).toBe(true);
      for (const a of answers) expect([200, 201, 403], JSON.stringify(a.body)).toContain(a.status);
      expect(answers.filter((a) => a.status === 403).every(suspended)).toBe(true);
      // nothing landed after the ban answered: the bag as it stood then is the bag now
      expect(await held()).toEqual(atBan);
      const granted = answers.filter((a) => a.status === 201 && 'entry' in a.body).length;
      expect(atBan.units).toBe(1 + granted);
      // operators still correct a banned account: every coin grant landed, the one sent after the ban too
      expect(answers.filter((a) => a.body.kind === 'admin_grant_coin' && a.status === 200)).toHaveLength(4);
      expect([lateCoin.status, lateCoin.body.balance]).toEqual([200, 10]);
      // every token a login got was issued before the ban, which revoked it: refused after the unban too
      const tokens = [first, ...answers].map((a) => a.body.token).filter((t): t is string => typeof t === 'string');
      expect(tokens.length).toBeGreaterThan(0);
      const unban = await send(there, 'POST', `/api/admin/players/${studioId}/unban`, password, {
        reason: 'appeal',
        idempotencyKey: 'race-unban-001',
      });
      expect(unban.status).toBe(200);
      for (const token of tokens) {
        const r = await send(there, 'GET', '/api/wallet/overview', { Authorization: `Bearer ${token}` });
        expect(r.status, 'a token issued while the ban was answered').toBe(401);
      }
      // and the account works again for a new login and a game server
      const again = await login(there);
      expect(again.status).toBe(200);
      expect((await send(there, 'GET', '/api/wallet/overview', { Authorization: `Bearer ${again.body.token as string}` })).status).toBe(
        200,
      );
      expect(
        (
          await send(there, 'POST', '/api/inventory/grant', server, {
            studioId,
            definitionId: MATERIAL,
            quantity: 1,
            idempotencyKey: 'race-after-0001',
          })
        ).status,
      ).toBe(201);
    }, 120_000);
  });
}
