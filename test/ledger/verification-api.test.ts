/**
 * The scheduled ledger check through its routes, on both stores (docs/architecture.md, "Scheduled
 * verification"): `GET /api/admin/ledger/verify` lets in Vercel Cron's `Authorization: Bearer
 * <CRON_SECRET>` only, compared in constant time (`Secret.equals`), and nothing while the secret is unset;
 * `POST` is an admin's; `GET /api/admin/ledger/health` is support's and shows the pass and the results. A
 * run over a damaged store logs `ledger-alert` and POSTs a JSON alert to `ALERT_WEBHOOK_URL` (a server on
 * 127.0.0.1 here) with no secret in it; a sound run posts nothing; a webhook that fails or hangs is logged
 * and never fails the run.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { createClient } from '@libsql/client';
import { Secret } from '../../api/_lib/config.js';
import { alertOnFailures } from '../../api/_lib/ledger/alerts.js';
import { KEYS } from '../../api/_lib/ledger/redis.js';
import type { VerificationRun } from '../../api/_lib/ledger/verification.js';
import { connectRespRequester } from '../../api/_lib/stores/resp-requester.js';
import { captureLog } from '../helpers/log.js';
import { responseErrors } from '../helpers/game-api.js';
import { ADMIN_PASSWORD, admin, adminAuth, call, newPlayer, onEachStore, tokenFor, type StoreRun } from '../adversarial/helpers.js';

const CRON_SECRET = 'cron-7Hq2Vx9LmK4pRz8W';
const cron = { Authorization: `Bearer ${CRON_SECRET}` };
const log = captureLog();

/** A webhook receiver on 127.0.0.1: the bodies it got, and the status it answers (or none, to hang). */
interface Receiver {
  url: string;
  readonly bodies: Record<string, unknown>[];
  answer: number | 'hang';
}

let server: Server;
const receiver: Receiver = { url: '', bodies: [], answer: 204 };
beforeAll(async () => {
  server = createServer((req: IncomingMessage, res) => {
    let text = '';
    req.on('data', (c: Buffer) => (text += c.toString('utf8')));
    req.on('end', () => {
      receiver.bodies.push({ ...(JSON.parse(text) as Record<string, unknown>), contentType: req.headers['content-type'] });
      if (receiver.answer !== 'hang') res.writeHead(receiver.answer).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  receiver.url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/hooks/ledger`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

/** Two players with coin. */
async function ledgerWithCoin(config: Parameters<typeof newPlayer>[0]): Promise<{ accountId: string }> {
  const auth = await adminAuth(config);
  const players = [await newPlayer(config, 'Vera'), await newPlayer(config, 'Vic')];
  for (const [i, p] of players.entries())
    await call(admin, 'POST', '/api/admin/grant-coin', {
      body: { studioId: p.studioId, amount: 100 + i, reason: 'seed', idempotencyKey: `verify-api-grant-${i}` },
      headers: auth,
    });
  return players[0]!;
}

/** Add one coin to an account's stored balance behind the ledger's back. */
async function damageBalance(store: StoreRun, accountId: string): Promise<void> {
  if (store.name === 'sqlite') {
    const db = createClient({ url: `file:${join(store.env().DATA_DIR!, 'ledger.sqlite')}` });
    await db.execute({ sql: 'UPDATE ledger_accounts SET balance = balance + 1 WHERE account_id = ?', args: [accountId] });
    db.close();
  } else {
    const r = await connectRespRequester(store.env().REDIS_URL!);
    await r.request({ body: ['HINCRBY', KEYS.account(accountId), 'balance', '1'] });
    await r.close();
  }
}

onEachStore('the scheduled ledger check', (store) => {
  it('lets in the cron secret alone on GET, compared in constant time; the admin on POST; support on the health', async () => {
    const config = await store.fresh({ CRON_SECRET });
    await ledgerWithCoin(config);
    const equals = vi.spyOn(Secret.prototype, 'equals');
    try {
      for (const headers of [
        {},
        { Authorization: 'Bearer cron-7Hq2Vx9LmK4pRz8X' },
        { Authorization: 'Bearer short' },
        { Authorization: `Basic ${CRON_SECRET}` },
        { 'X-Admin-Password': ADMIN_PASSWORD },
        await adminAuth(config),
      ]) {
        const r = await call(admin, 'GET', '/api/admin/ledger/verify', { headers });
        expect([r.status, r.body.code], JSON.stringify(headers)).toEqual([401, 'UNAUTHORIZED']);
      }
      // a wrong secret of either length, and a token of ours, each went through the constant-time comparison
      expect(equals.mock.calls.map(([candidate]) => candidate)).toEqual(expect.arrayContaining(['cron-7Hq2Vx9LmK4pRz8X', 'short']));
      equals.mockClear();
      const ok = await call(admin, 'GET', '/api/admin/ledger/verify', { headers: cron });
      expect(equals).toHaveBeenCalledWith(CRON_SECRET);
      expect(ok.status).toBe(200);
      expect(responseErrors('ledger-verification', ok.body)).toEqual([]);
      expect(ok.body).toMatchObject({ trigger: 'cron', passFinished: true, failures: [], alert: 'none', cursor: 'written' });
    } finally {
      equals.mockRestore();
    }
    expect(log.events('operator-auth-failed').map((l) => [l.route, l.status])).toContainEqual(['admin/ledger-verify', 401]);

    // HEAD would run the job: 405, with an Allow that offers none, and no run recorded
    const head = await call(admin, 'HEAD', '/api/admin/ledger/verify', { headers: cron });
    expect([head.status, head.headers.get('allow')]).toEqual([405, 'GET, POST, OPTIONS']);

    // POST: an admin's (the password or an admin token), never support's, never the cron secret
    const support = { Authorization: `Bearer ${await tokenFor(config, 'STUDIO_SUPPORT', 'support')}` };
    expect((await call(admin, 'POST', '/api/admin/ledger/verify', { headers: support })).status).toBe(403);
    expect((await call(admin, 'POST', '/api/admin/ledger/verify', { headers: cron })).status).toBe(401);
    const posted = await call(admin, 'POST', '/api/admin/ledger/verify?budgetMs=0', { headers: { 'X-Admin-Password': ADMIN_PASSWORD } });
    expect(posted.body).toMatchObject({ trigger: 'operator', budgetMs: 0, pass: 2, passStarted: true });
    for (const bad of ['budgetMs=8001', 'budgetMs=-1', 'budgetMs=x', 'other=1'])
      expect((await call(admin, 'POST', `/api/admin/ledger/verify?${bad}`, { headers: await adminAuth(config) })).status, bad).toBe(400);

    // the health: support may look; a player may not
    const health = await call(admin, 'GET', '/api/admin/ledger/health', { headers: support });
    expect(health.status).toBe(200);
    expect(responseErrors('ledger-health', health.body)).toEqual([]);
    const results = health.body.results as Record<string, unknown>[];
    expect(results.map((r) => [r.trigger, r.pass])).toEqual([
      ['operator', 2],
      ['cron', 1],
    ]);
    expect(health.body.pass).toMatchObject({ pass: 2, failures: 0 });
    const p = await newPlayer(config, 'Pat');
    expect((await call(admin, 'GET', '/api/admin/ledger/health', { headers: p.auth })).status).toBe(403);
  });

  it('refuses every scheduled call while CRON_SECRET is unset', async () => {
    await store.fresh();
    expect((await call(admin, 'GET', '/api/admin/ledger/verify', { headers: cron })).status).toBe(401);
    expect((await call(admin, 'GET', '/api/admin/ledger/verify', { headers: { Authorization: 'Bearer ' } })).status).toBe(401);
  });

  it('alerts on a damaged ledger: the log line and one webhook POST without a secret; nothing for a sound one', async () => {
    const config = await store.fresh({ CRON_SECRET, ALERT_WEBHOOK_URL: receiver.url });
    const victim = await ledgerWithCoin(config);
    receiver.bodies.length = 0;
    receiver.answer = 204;
    const sound = await call(admin, 'GET', '/api/admin/ledger/verify', { headers: cron });
    expect([sound.body.alert, receiver.bodies, log.events('ledger-alert')]).toEqual(['none', [], []]);

    await damageBalance(store, victim.accountId);
    const damaged = await call(admin, 'GET', '/api/admin/ledger/verify', { headers: cron });
    expect(damaged.status).toBe(200);
    expect(damaged.body.alert).toBe('posted');
    expect((damaged.body.failures as { invariant: number }[]).map((f) => f.invariant).sort()).toEqual([1, 2]);
    expect(damaged.body.failures).toContainEqual({
      invariant: 1,
      account: victim.accountId,
      message: `Account ${victim.accountId}: balance 101, postings sum to 100.`,
    });
    expect(receiver.bodies).toHaveLength(1);
    const alert = receiver.bodies[0]!;
    expect(alert).toMatchObject({
      event: 'ledger-alert',
      runId: damaged.body.runId,
      pass: 2,
      failures: 2,
      contentType: 'application/json',
    });
    const text = JSON.stringify(alert);
    for (const secret of [CRON_SECRET, ADMIN_PASSWORD, receiver.url]) expect(text).not.toContain(secret);
    const [line, ...more] = log.events('ledger-alert');
    expect(more).toEqual([]);
    expect(line).toMatchObject({ level: 'error', runId: damaged.body.runId, failures: 2, invariants: [1, 2] });
    expect(line!.raw).not.toContain(receiver.url);

    // a webhook that answers 500: logged, the run still answers 200 and keeps its place
    receiver.answer = 500;
    const failed = await call(admin, 'GET', '/api/admin/ledger/verify', { headers: cron });
    expect([failed.status, failed.body.alert, failed.body.cursor]).toEqual([200, 'webhook-failed', 'written']);
    expect(log.events('ledger-alert-webhook-failed').map((l) => l.status)).toEqual([500]);
    receiver.answer = 204;
  });
});

/** A run with one failure, as the route would alert on. */
const failedRun = (): VerificationRun => ({
  runId: '7d6a3c58-0b8e-4c1f-9a41-7f0e5d2b9c10',
  trigger: 'cron',
  startedAt: '2026-11-28T04:17:00.000Z',
  finishedAt: '2026-11-28T04:17:01.000Z',
  durationMs: 1000,
  budgetMs: 5000,
  pass: 3,
  passStarted: false,
  passFinished: true,
  accountsChecked: 2,
  postingsChecked: 4,
  failures: [{ invariant: 4, account: 'a', seq: 1, message: 'Account a: posting 1 does not match its hash.' }],
  failuresOmitted: 0,
  cursor: 'written',
});

it('gives up on a webhook that does not answer in time, and on one that cannot be reached, and says so in the log', async () => {
  const lines: [string, string, Readonly<Record<string, unknown>>][] = [];
  const logTo = (level: 'error' | 'warn', event: string, fields: Readonly<Record<string, unknown>>) => lines.push([level, event, fields]);
  receiver.answer = 'hang';
  const started = Date.now();
  expect(await alertOnFailures(failedRun(), { webhookUrl: receiver.url, timeoutMs: 150, log: logTo })).toBe('webhook-failed');
  expect(Date.now() - started).toBeLessThan(2000);
  receiver.answer = 204;
  expect(await alertOnFailures(failedRun(), { webhookUrl: 'http://127.0.0.1:9/unreachable', timeoutMs: 500, log: logTo })).toBe(
    'webhook-failed',
  );
  expect(lines.map(([level, event]) => [level, event])).toEqual([
    ['error', 'ledger-alert'],
    ['warn', 'ledger-alert-webhook-failed'],
    ['error', 'ledger-alert'],
    ['warn', 'ledger-alert-webhook-failed'],
  ]);
  expect(lines[1]![2]).toMatchObject({ error: 'TimeoutError' });
  // a sound run: nothing logged, nothing sent
  expect(await alertOnFailures({ ...failedRun(), failures: [] }, { webhookUrl: receiver.url, log: logTo })).toBe('none');
  expect(lines).toHaveLength(4);
});
