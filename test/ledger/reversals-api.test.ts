/**
 * Reversals through the route, on both ledgers (spec 4.8, 8; docs/architecture.md, "Reversals"):
 * `POST /api/admin/reversals` appends a compensating transfer linked to the original, the player's
 * overview shows both directions, the chain still verifies, an entry is reversed once (another reversal
 * is 409 naming the first, by whom and when), a reversal is final, a replay answers the first, and only
 * the admin access may reverse.
 */
import { expect, it } from 'vitest';
import type { EntryExports } from '../../api/_lib/http/entry.js';
import { checkInvariants } from '../../api/_lib/ledger/invariants.js';
import { ledgerStore } from '../../api/_lib/ledger/store.js';
import * as adminEntry from '../../api/admin.js';
import * as walletEntry from '../../api/wallet.js';
import { ADMIN_PASSWORD, adminAuth, call, newPlayer, onEachStore, tokenFor } from '../adversarial/helpers.js';

const admin = adminEntry as unknown as EntryExports;
const wallet = walletEntry as unknown as EntryExports;

onEachStore('reversals', (store) => {
  it('reverses a mistaken grant once, linked both ways, and the ledger still verifies', async () => {
    const config = await store.fresh();
    const auth = await adminAuth(config);
    const p = await newPlayer(config, 'Rex');
    const grant = await call(admin, 'POST', '/api/admin/grant-coin', {
      body: { studioId: p.studioId, amount: 5000, reason: 'outage', idempotencyKey: 'grant-rev-0001' },
      headers: auth,
    });
    await call(admin, 'POST', '/api/admin/grant-coin', {
      body: { studioId: p.studioId, amount: 200, reason: 'outage', idempotencyKey: 'grant-rev-0002' },
      headers: auth,
    });
    const body = { entryId: grant.body.entryId, reason: 'Granted 5,000 instead of 500', idempotencyKey: 'reverse-0001' };
    const r = await call(admin, 'POST', '/api/admin/reversals', { body, headers: auth });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      kind: 'reversal',
      idempotent: false,
      reverses: grant.body.entryId,
      sourceRef: 'reversal:reverse-0001',
      account: { studioId: p.studioId },
      amount: 5000,
      reason: 'Granted 5,000 instead of 500',
      actor: 'admin:STUDIO_OPERATOR',
      balance: 200,
    });
    const overview = await call(wallet, 'GET', '/api/wallet/overview', { headers: p.auth });
    expect(overview.body.balance).toBe(200);
    expect(
      (overview.body.transactions as Record<string, unknown>[]).map((t) => [t.kind, t.amount, t.reverses ?? null, t.reversedBy ?? null]),
    ).toEqual([
      ['reversal', -5000, grant.body.entryId, null],
      ['admin_grant_coin', 200, null, null],
      ['admin_grant_coin', 5000, null, r.body.entryId],
    ]);
    const filtered = await call(wallet, 'GET', '/api/wallet/overview?kind=reversal', { headers: p.auth });
    expect((filtered.body.transactions as Record<string, unknown>[]).map((t) => t.entryId)).toEqual([r.body.entryId]);
    // the replay answers the first reversal; a reworded reason changes nothing
    const replay = await call(admin, 'POST', '/api/admin/reversals', { body: { ...body, reason: 'again' }, headers: auth });
    expect([
      replay.status,
      replay.headers.get('idempotent-replayed'),
      replay.body.entryId,
      replay.body.reason,
      replay.body.idempotent,
    ]).toEqual([200, 'true', r.body.entryId, 'Granted 5,000 instead of 500', true]);
    expect(checkInvariants(await (await ledgerStore()).snapshot())).toEqual([]);
  });

  it('answers 409 to a second reversal naming the first, 409 to reversing a reversal, 404 to an unknown entry, 422 to a reused key', async () => {
    const config = await store.fresh();
    const auth = await adminAuth(config);
    const p = await newPlayer(config, 'Rey');
    const grant = await call(admin, 'POST', '/api/admin/grant-coin', {
      body: { studioId: p.studioId, amount: 70, reason: 'x', idempotencyKey: 'grant-rev-0003' },
      headers: auth,
    });
    const first = await call(admin, 'POST', '/api/admin/reversals', {
      body: { entryId: grant.body.entryId, reason: 'mistake', idempotencyKey: 'reverse-0002' },
      headers: auth,
    });
    const second = await call(admin, 'POST', '/api/admin/reversals', {
      body: { entryId: grant.body.entryId, reason: 'mistake', idempotencyKey: 'reverse-0003' },
      headers: { 'X-Admin-Password': ADMIN_PASSWORD },
    });
    const [granted, reversal, reversedAt] = [grant.body.entryId, first.body.entryId, first.body.at] as string[];
    expect([second.status, second.body.code, second.body.detail]).toEqual([
      409,
      'CONFLICT',
      `Entry ${granted} was already reversed by admin:STUDIO_OPERATOR at ${reversedAt} (reversal ${reversal}).`,
    ]);
    const ofReversal = await call(admin, 'POST', '/api/admin/reversals', {
      body: { entryId: first.body.entryId, reason: 'undo', idempotencyKey: 'reverse-0004' },
      headers: auth,
    });
    expect([ofReversal.status, ofReversal.body.detail]).toEqual([409, `Entry ${reversal} is a reversal; a reversal is final.`]);
    const unknown = await call(admin, 'POST', '/api/admin/reversals', {
      body: { entryId: '9b2f4c1e-3d5a-4e7b-8c9d-0a1b2c3d4e5f', reason: 'x', idempotencyKey: 'reverse-0005' },
      headers: auth,
    });
    expect([unknown.status, unknown.body.detail]).toEqual([404, 'No wallet entry has this entryId.']);
    const other = await call(admin, 'POST', '/api/admin/grant-coin', {
      body: { studioId: p.studioId, amount: 3, reason: 'x', idempotencyKey: 'grant-rev-0004' },
      headers: auth,
    });
    const reused = await call(admin, 'POST', '/api/admin/reversals', {
      body: { entryId: other.body.entryId, reason: 'x', idempotencyKey: 'reverse-0002' },
      headers: auth,
    });
    expect([reused.status, reused.body.code]).toEqual([422, 'IDEMPOTENCY_KEY_REUSED']);
    const overview = await call(wallet, 'GET', '/api/wallet/overview', { headers: p.auth });
    expect(overview.body.balance).toBe(3);
  });

  it('lets only the admin access reverse: a support token is 403 and a player 403, and nothing changes', async () => {
    const config = await store.fresh();
    const auth = await adminAuth(config);
    const p = await newPlayer(config, 'Roy');
    const grant = await call(admin, 'POST', '/api/admin/grant-coin', {
      body: { studioId: p.studioId, amount: 9, reason: 'x', idempotencyKey: 'grant-rev-0005' },
      headers: auth,
    });
    const support = { Authorization: `Bearer ${await tokenFor(config, 'STUDIO_SUPPORT', 'support')}` };
    for (const headers of [support, p.auth]) {
      const r = await call(admin, 'POST', '/api/admin/reversals', {
        body: { entryId: grant.body.entryId, reason: 'x', idempotencyKey: 'reverse-0006' },
        headers,
      });
      expect(r.status).toBe(403);
    }
    expect((await call(wallet, 'GET', '/api/wallet/overview', { headers: p.auth })).body.balance).toBe(9);
  });
});
