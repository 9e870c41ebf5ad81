// Operator writes and refused operator credentials are logged (api/_lib/http/entry.ts; docs/architecture.md,
// "Logs"): one `operator-write` line per write the access `admin` or `game-server` let in, with its final
// status and who was let in; one `operator-auth-failed` line per request those accesses refused, with why;
// never the token or the password sent.
import { describe, expect, it } from 'vitest';
import * as admin from '../../api/admin.js';
import * as player from '../../api/player.js';
import * as wallet from '../../api/wallet.js';
import { REQUEST_ID_HEADER } from '../../api/_lib/http/request-id.js';
import { call, gameApiSuite, newPlayer, tokenFor } from '../helpers/game-api.js';
import { captureLog } from '../helpers/log.js';

const PASSWORD = 'operator-log-Hn4rX8cQ2vLm7TzW';
const suite = gameApiSuite({ ADMIN_PASSWORD: PASSWORD });
const log = captureLog();

/** The one line of `event`, failing unless there is exactly one. */
function only(event: string): Record<string, unknown> & { raw: string } {
  const lines = log.events(event);
  expect(lines, `${event} lines`).toHaveLength(1);
  return lines[0]!;
}

describe('operator writes', () => {
  it('logs an admin write let in by password, with its status and request id, and nothing of the password', async () => {
    const res = await call(admin, 'POST', '/api/admin/accounts', {
      body: { displayName: 'Ada' },
      headers: { 'X-Admin-Password': PASSWORD },
    });
    expect(res.status).toBe(201);
    const line = only('operator-write');
    expect(line).toMatchObject({
      level: 'info',
      route: 'admin/accounts',
      method: 'POST',
      status: 201,
      actor: { via: 'password' },
      requestId: res.headers.get(REQUEST_ID_HEADER),
    });
    expect(line.raw).not.toContain(PASSWORD);
  });

  it('logs an admin write let in by token with the subject and role, and a refusal after admission with its status', async () => {
    const token = await tokenFor(suite.config, 'STUDIO_OPERATOR', 'master');
    const { studioId } = await newPlayer(suite.config);
    log.lines.length = 0;
    const ok = await call(wallet, 'POST', '/api/wallet/verify-send-to-account', {
      body: { studioId, amount: 5, purpose: 'test', idempotencyKey: 'operator-log-0001' },
      headers: { Authorization: `Bearer ${token}` },
    });
    expect(ok.status).toBe(200);
    const bad = await call(admin, 'POST', '/api/admin/grant-coin', { body: { amount: -1 }, headers: { Authorization: `Bearer ${token}` } });
    expect(bad.status).toBe(400);
    const lines = log.events('operator-write');
    expect(lines.map((l) => [l.route, l.status])).toEqual([
      ['wallet/verify-send', 200],
      ['admin/grant-coin', 400],
    ]);
    for (const l of lines) {
      expect(l.actor).toEqual({ via: 'token', subject: 'STUDIO_OPERATOR', role: 'master' });
      expect(l.raw).not.toContain(token);
    }
  });

  it("logs a game server's write, and neither an admin read nor a player's write", async () => {
    const server = await tokenFor(suite.config, 'STUDIO_GAME_SERVER', 'server');
    const res = await call(player, 'POST', '/api/inventory/grant', { body: {}, headers: { Authorization: `Bearer ${server}` } });
    expect(res.status).toBe(400);
    expect(only('operator-write')).toMatchObject({ route: 'player/inventory-grant', status: 400, actor: { via: 'token', role: 'server' } });
    log.lines.length = 0;
    const { studioId, auth } = await newPlayer(suite.config);
    log.lines.length = 0;
    expect((await call(admin, 'GET', `/api/admin/accounts/${studioId}`, { headers: { 'X-Admin-Password': PASSWORD } })).status).toBe(200);
    expect((await call(player, 'POST', '/api/characters', { body: {}, headers: auth })).status).toBe(400);
    expect(log.lines).toEqual([]);
  });
});

describe('refused operator credentials', () => {
  it('logs each refusal with why, never the credential, and changes nothing', async () => {
    const playerToken = await tokenFor(suite.config, 'STUDIO_PLAYER', 'player');
    const forged = `${playerToken.slice(0, -4)}AAAA`;
    const cases: [Record<string, string>, number, string][] = [
      [{ Authorization: `Bearer ${forged}` }, 401, 'invalid-token'],
      [{ Authorization: `Bearer ${playerToken}` }, 403, 'role-not-allowed'],
      [{ 'X-Admin-Password': 'wrong-password-Kx9mQ2vL' }, 401, 'wrong-password'],
      [{}, 401, 'no-credentials'],
    ];
    for (const [headers, status, reason] of cases) {
      log.lines.length = 0;
      const res = await call(admin, 'POST', '/api/admin/accounts', { body: { displayName: 'Mallory' }, headers });
      expect(res.status, reason).toBe(status);
      const line = only('operator-auth-failed');
      expect(line).toMatchObject({ level: 'warn', route: 'admin/accounts', method: 'POST', access: 'admin', status, reason });
      expect(line.requestId).toBe(res.headers.get(REQUEST_ID_HEADER));
      for (const v of Object.values(headers)) expect(line.raw).not.toContain(v.replace(/^Bearer /, ''));
      expect(log.events('operator-write')).toEqual([]);
    }
    // a game server's route, read by a bad token: logged the same way
    log.lines.length = 0;
    expect(
      (await call(player, 'GET', '/api/ledger/00000000-0000-4000-8000-000000000000', { headers: { Authorization: `Bearer ${forged}` } }))
        .status,
    ).toBe(401);
    expect(only('operator-auth-failed')).toMatchObject({ access: 'game-server', reason: 'invalid-token' });
    // a player route's refusal is not an operator's
    log.lines.length = 0;
    expect((await call(wallet, 'GET', '/api/wallet/overview', { headers: { Authorization: `Bearer ${forged}` } })).status).toBe(401);
    expect(log.lines).toEqual([]);
  });
});
