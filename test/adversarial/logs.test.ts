/**
 * Operators can see causes (docs/architecture.md "Logs", "Errors"; docs/api.md "Security"; `api/_lib/log.ts`,
 * `api/_lib/http/entry.ts`, `api/_lib/throttle/policy.ts`), attacked through the entries on both stores
 * while the store is broken (a SQLite data folder under a file; a Redis URL with a password pointing at a
 * closed port) and while operators act: every 5xx is one `server-error` line with its cause and request id,
 * and no line of any request holds a secret of the configuration or the credential the request carried;
 * an unreachable throttle store is said once per request; every write the admin password or a game
 * server's token makes is an `operator-write` line, player-state routes included, and a wrong admin
 * password is an `operator-auth-failed` line wherever it is tried.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { REQUEST_ID_HEADER } from '../../api/_lib/http/request-id.js';
import { SECRET } from '../helpers/game-api.js';
import { captureLog } from '../helpers/log.js';
import { freePort } from '../helpers/redis.js';
import {
  ADMIN_PASSWORD,
  admin,
  call,
  newCharacter,
  newPlayer,
  onEachStore,
  player,
  serverAuth,
  tokenFor,
  wallet,
  type Answer,
  type StoreRun,
} from './helpers.js';

const log = captureLog();
const REDIS_PASSWORD = 'Rp4xQ9mL2vZ7kT3wHs8c';
const broken: string[] = [];
afterAll(() => broken.forEach((d) => rmSync(d, { recursive: true, force: true })));

/** Variables that point `store` at a store that cannot be reached. */
async function unreachable(store: StoreRun): Promise<Record<string, string>> {
  if (store.name === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'adv-broken-'));
    broken.push(dir);
    writeFileSync(join(dir, 'not-a-folder'), '');
    return { STORE_DRIVER: 'sqlite', DATA_DIR: join(dir, 'not-a-folder', 'data') };
  }
  return { STORE_DRIVER: 'redis', REDIS_URL: `redis://:${REDIS_PASSWORD}@127.0.0.1:${await freePort()}` };
}

/** The lines of the request an answer carries the id of. */
const linesOf = (a: Answer) => log.lines.filter((l) => l.requestId === a.headers.get(REQUEST_ID_HEADER));

onEachStore('the operator log', (store) => {
  it('logs each 5xx once with its cause and request id, and no line holds a secret or the credential the request carried', async () => {
    const config = await store.fresh(await unreachable(store));
    const adminToken = await tokenFor(config, 'STUDIO_OPERATOR', 'admin');
    const playerToken = await tokenFor(config, 'STUDIO_7QF3K2M9X4D1H8TB', 'player');
    log.lines.length = 0;
    const answers = [
      await call(admin, 'POST', '/api/admin/grant-coin', {
        body: { studioId: 'STUDIO_7QF3K2M9X4D1H8TB', amount: 1, reason: 'outage', idempotencyKey: 'logs-grant-001' },
        headers: { Authorization: `Bearer ${adminToken}` },
      }),
      await call(wallet, 'GET', '/api/wallet/overview', { headers: { Authorization: `Bearer ${playerToken}` } }),
      await call(player, 'PATCH', '/api/island/state?studioId=STUDIO_7QF3K2M9X4D1H8TB', {
        body: { stats: { visits: 1 } },
        headers: { 'X-Admin-Password': ADMIN_PASSWORD, 'If-Match': '"1"' },
      }),
    ];
    for (const a of answers) {
      expect(a.status).toBe(503);
      const errors = linesOf(a).filter((l) => l.event === 'server-error');
      expect(errors).toHaveLength(1);
      expect(errors[0]).toMatchObject({ level: 'error', status: 503, code: 'UPSTREAM_UNAVAILABLE', requestId: a.body.requestId });
      expect((errors[0]!.cause as unknown[]).length).toBeGreaterThan(1);
    }
    const raw = log.lines.map((l) => l.raw).join('\n');
    for (const secret of [
      adminToken,
      playerToken,
      ADMIN_PASSWORD,
      SECRET,
      REDIS_PASSWORD,
      adminToken.split('.')[2]!,
      playerToken.split('.')[2]!,
    ])
      expect(raw).not.toContain(secret);
  });

  it('says once per request that the throttle store cannot be reached', async () => {
    await store.fresh(await unreachable(store));
    log.lines.length = 0;
    const answers = [
      await call(admin, 'POST', '/api/admin/accounts', { body: { displayName: 'Once' }, headers: { 'X-Admin-Password': ADMIN_PASSWORD } }),
      await call(player, 'POST', '/api/inventory/grant', { body: {}, headers: { 'X-Admin-Password': ADMIN_PASSWORD } }),
    ];
    expect(answers.map((a) => linesOf(a).filter((l) => l.event === 'throttle-unavailable').length)).toEqual([1, 1]);
  });

  it("logs a game server's write of player state as an operator write, whether a token or the admin password let it in", async () => {
    const config = await store.fresh();
    const server = await serverAuth(config);
    const ada = await newPlayer(config, 'Ada');
    const character = await newCharacter(ada.auth);
    log.lines.length = 0;
    const writes = [
      await call(player, 'PATCH', `/api/characters/${character}/progress`, {
        body: { idempotencyKey: 'logs-progress-1', progress: { attributes: { STR: 40 } } },
        headers: { 'X-Admin-Password': ADMIN_PASSWORD, 'If-Match': '"1"' },
      }),
      await call(player, 'PATCH', `/api/island/state?studioId=${ada.studioId}`, {
        body: { stats: { visits: 3 } },
        headers: { ...server, 'If-Match': '"1"' },
      }),
    ];
    expect(writes.map((w) => w.status)).toEqual([200, 200]);
    expect(writes.map((w) => linesOf(w).find((l) => l.event === 'operator-write') ?? null)).toEqual([
      expect.objectContaining({ route: 'player/progress', method: 'PATCH', status: 200, actor: { via: 'password' } }),
      expect.objectContaining({
        route: 'player/state',
        method: 'PATCH',
        status: 200,
        actor: { via: 'token', subject: 'STUDIO_GAME_SERVER', role: 'server' },
      }),
    ]);
    // a player's own write is not an operator's
    const own = await call(player, 'PATCH', '/api/island/state', {
      body: { campPosition: { x: 1, z: 1 } },
      headers: { ...ada.auth, 'If-Match': '"2"' },
    });
    expect([own.status, linesOf(own).filter((l) => l.event.startsWith('operator-'))]).toEqual([200, []]);
  });

  it('logs a wrong admin password tried on a player-state route as a failed operator sign-in, without the password', async () => {
    const config = await store.fresh();
    const ada = await newPlayer(config, 'Ada');
    log.lines.length = 0;
    const guess = 'wrong-admin-pw-Kx9mQ2vLz';
    const tries = [
      await call(player, 'PATCH', `/api/island/state?studioId=${ada.studioId}`, {
        body: { stats: { visits: 9 } },
        headers: { 'X-Admin-Password': guess, 'If-Match': '"1"' },
      }),
      await call(player, 'GET', `/api/account/recipes?studioId=${ada.studioId}`, { headers: { 'X-Admin-Password': guess } }),
    ];
    expect(tries.map((t) => t.status)).toEqual([401, 401]);
    expect(tries.map((t) => linesOf(t).find((l) => l.event === 'operator-auth-failed') ?? null)).toEqual([
      expect.objectContaining({ route: 'player/state', status: 401, reason: 'wrong-password' }),
      expect.objectContaining({ route: 'player/recipes', status: 401, reason: 'wrong-password' }),
    ]);
    expect(log.lines.map((l) => l.raw).join('\n')).not.toContain(guess);
  });
});
