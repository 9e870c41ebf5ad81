/**
 * The audit log through the routes, on both stores (spec 5.3; docs/architecture.md, "Audit log"): one
 * record per operator or game-server write (a change, a replay, a refusal), one per refused operator
 * authentication, none for reads or a player's own writes; `GET /api/admin/audit` lists them newest first,
 * with filters and a cursor bound to them.
 */
import { expect, it } from 'vitest';
import type { AuditRecord } from '../../api/_lib/util/audit-scope.js';
import { admin, adminAuth, call, MATERIAL, newPlayer, onEachStore, player, quietLog, serverAuth } from '../adversarial/helpers.js';

type Page = { records: AuditRecord[]; cursor: string | null; hasMore: boolean };

onEachStore('the audit log', (store) => {
  it('records each operator write once, with who, what, the key, the status and whether it changed something', async () => {
    quietLog();
    const config = await store.fresh();
    const auth = await adminAuth(config);
    const p = await newPlayer(config, 'Audra');
    const grant = { studioId: p.studioId, amount: 50, reason: 'outage', idempotencyKey: 'audit-grant-0001' };
    const first = await call(admin, 'POST', '/api/admin/grant-coin', { body: grant, headers: auth });
    const replay = await call(admin, 'POST', '/api/admin/grant-coin', { body: grant, headers: auth });
    const reused = await call(admin, 'POST', '/api/admin/grant-coin', { body: { ...grant, amount: 51 }, headers: auth });
    const refused = await call(admin, 'POST', '/api/admin/grant-coin', { body: { ...grant, amount: 0 }, headers: auth });
    const noAuth = await call(admin, 'POST', '/api/admin/grant-coin', { body: grant });
    expect([first.status, replay.status, reused.status, refused.status, noAuth.status]).toEqual([200, 200, 422, 400, 401]);
    // a read and a player's own write leave no record
    await call(admin, 'GET', `/api/admin/players/${p.studioId}`, { headers: auth });
    await call(player, 'POST', '/api/auth/logout', { headers: p.auth });

    const page = await call(admin, 'GET', '/api/admin/audit', { headers: auth });
    expect(page.status).toBe(200);
    const records = (page.body as unknown as Page).records;
    const accountId = (first.body.account as { accountId: string }).accountId;
    expect(records.map((r) => [r.route, r.status, r.changed, r.account, r.idempotencyKey, r.actor])).toEqual([
      ['admin/grant-coin', 401, false, null, null, { via: 'none' }],
      ['admin/grant-coin', 400, false, null, null, { via: 'token', subject: 'STUDIO_OPERATOR', role: 'admin' }],
      ['admin/grant-coin', 422, false, accountId, 'audit-grant-0001', { via: 'token', subject: 'STUDIO_OPERATOR', role: 'admin' }],
      ['admin/grant-coin', 200, false, accountId, 'audit-grant-0001', { via: 'token', subject: 'STUDIO_OPERATOR', role: 'admin' }],
      ['admin/grant-coin', 200, true, accountId, 'audit-grant-0001', { via: 'token', subject: 'STUDIO_OPERATOR', role: 'admin' }],
      // creating the player (newPlayer) is an operator write too
      ['admin/accounts', 201, true, accountId, null, expect.objectContaining({ via: 'token' })],
    ]);
    expect(records[0]!.reason).toBe('no-credentials');
    expect(records.map((r) => r.requestId)).toEqual([
      noAuth.headers.get('x-request-id'),
      refused.headers.get('x-request-id'),
      reused.headers.get('x-request-id'),
      replay.headers.get('x-request-id'),
      first.headers.get('x-request-id'),
      expect.any(String),
    ]);
    expect(new Set(records.map((r) => r.id)).size).toBe(records.length);
  });

  it('records a game server write with the account it acted on, and filters by actor, account, route and time', async () => {
    quietLog();
    const config = await store.fresh();
    const auth = await adminAuth(config);
    const server = await serverAuth(config);
    const a = await newPlayer(config, 'Ana');
    const b = await newPlayer(config, 'Bea');
    for (const [who, key] of [
      [a, 'bag-grant-a-0001'],
      [b, 'bag-grant-b-0001'],
      [a, 'bag-grant-a-0002'],
    ] as const) {
      const r = await call(player, 'POST', '/api/inventory/grant', {
        body: { studioId: who.studioId, definitionId: MATERIAL, quantity: 2, idempotencyKey: key },
        headers: server,
      });
      expect(r.status).toBe(201);
    }
    const list = async (query: string) => {
      const r = await call(admin, 'GET', `/api/admin/audit?${query}`, { headers: auth });
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      return r.body as unknown as Page;
    };
    const byA = await list(`account=${a.studioId}&route=player/inventory-grant`);
    expect(byA.records.map((r) => [r.idempotencyKey, r.status, r.changed])).toEqual([
      ['bag-grant-a-0002', 201, true],
      ['bag-grant-a-0001', 201, true],
    ]);
    const byServer = await list('actor=STUDIO_GAME_SERVER');
    expect(byServer.records.map((r) => r.idempotencyKey)).toEqual(['bag-grant-a-0002', 'bag-grant-b-0001', 'bag-grant-a-0001']);
    expect(byServer.records.every((r) => r.actor.via === 'token' && r.actor.role === 'server')).toBe(true);
    // the cursor pages with the same filters and is refused with others
    const one = await list('actor=STUDIO_GAME_SERVER&limit=1');
    expect(one.hasMore).toBe(true);
    const two = await list(`actor=STUDIO_GAME_SERVER&limit=2&cursor=${one.cursor}`);
    expect(two.records.map((r) => r.idempotencyKey)).toEqual(['bag-grant-b-0001', 'bag-grant-a-0001']);
    expect(two.hasMore).toBe(false);
    const wrong = await call(admin, 'GET', `/api/admin/audit?route=player/inventory-grant&cursor=${one.cursor}`, { headers: auth });
    expect([wrong.status, wrong.body.code]).toEqual([400, 'INVALID_QUERY']);
    // a time range: nothing before the first record, everything up to now
    const all = await list('');
    const oldest = all.records[all.records.length - 1]!;
    expect((await list(`to=${encodeURIComponent(oldest.at)}`)).records).toEqual([]);
    expect((await list(`from=${encodeURIComponent(oldest.at)}`)).records.length).toBe(all.records.length);
    const bad = await call(admin, 'GET', '/api/admin/audit?from=yesterday', { headers: auth });
    expect([bad.status, bad.body.code]).toEqual([400, 'INVALID_QUERY']);
    const unknown = await call(admin, 'GET', '/api/admin/audit?account=STUDIO_0000000000000000', { headers: auth });
    expect(unknown.status).toBe(404);
  });
});
