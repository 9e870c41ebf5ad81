/**
 * Erasure through the route, on both stores (GDPR article 17; docs/architecture.md, "Erasure and the
 * chain"): the display name, username, name-search entry, entry notes and external links are gone, the
 * account is closed for good, the balances and histories stay and the ledger still verifies; the key
 * replays, and a key reused for another account changes nothing.
 */
import { expect, it } from 'vitest';
import { checkInvariants } from '../../api/_lib/ledger/invariants.js';
import { ledgerStore } from '../../api/_lib/ledger/store.js';
import { playerStore } from '../../api/_lib/player/store.js';
import { ADMIN_PASSWORD, admin, call, newPlayer, onEachStore, wallet, type Answer } from '../adversarial/helpers.js';

const password = { 'X-Admin-Password': ADMIN_PASSWORD };
const erase = (key: string, idempotencyKey: string) =>
  call(admin, 'POST', `/api/admin/players/${key}/erase`, { body: { reason: 'Data request 118', idempotencyKey }, headers: password });

onEachStore('erasure', (store) => {
  it('removes the personal data, closes the account for good, and leaves a ledger that verifies', async () => {
    const config = await store.fresh();
    const jane = await newPlayer(config, 'Jane Doe');
    const other = await newPlayer(config, 'Jane Roe');
    const grant = await call(admin, 'POST', '/api/admin/grant-coin', {
      body: { studioId: jane.studioId, amount: 300, reason: 'Refund for Jane Doe, ticket 9', idempotencyKey: 'erase-grant-01' },
      headers: password,
    });
    await call(admin, 'POST', '/api/admin/grant-coin', {
      body: { studioId: other.studioId, amount: 40, reason: 'Refund for Jane Roe', idempotencyKey: 'erase-grant-02' },
      headers: password,
    });
    await (
      await playerStore()
    ).linkExternal({
      provider: 'steam',
      externalUserId: '555',
      username: 'janed',
      accountId: jane.accountId,
      linkedAt: '2026-11-28T00:00:00.000Z',
    });
    const r = await erase(jane.studioId, 'erase-key-0001');
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      account: { studioId: jane.studioId, displayName: '' },
      access: { ban: { reason: 'Account erased', until: null, active: true } },
      idempotent: false,
    });
    const summary = await call(admin, 'GET', `/api/admin/players/${jane.studioId}`, { headers: password });
    const b = summary.body as {
      account: Record<string, unknown>;
      links: unknown[];
      wallet: { balance: number; transactions: Record<string, unknown>[] };
    };
    expect([b.account.displayName, b.account.username, b.links]).toEqual(['', `erased:${jane.studioId}`, []]);
    expect(b.wallet.balance).toBe(300);
    expect(b.wallet.transactions.map((t) => [t.entryId, t.note])).toEqual([[grant.body.entryId, '']]);
    const found = (a: Answer) => (a.body.players as { account: { studioId: string } }[]).map((p) => p.account.studioId);
    expect(found(await call(admin, 'GET', '/api/admin/players?q=jane', { headers: password }))).toEqual([other.studioId]);
    expect(found(await call(admin, 'GET', '/api/admin/players?q=steam:555', { headers: password }))).toEqual([]);
    // the other account keeps its note; the erased one's token is refused
    const mine = await call(wallet, 'GET', '/api/wallet/overview', { headers: other.auth });
    expect((mine.body.transactions as Record<string, unknown>[])[0]!.note).toBe('Refund for Jane Roe');
    const closed = await call(wallet, 'GET', '/api/wallet/overview', { headers: jane.auth });
    expect([closed.status, closed.body.code]).toEqual([403, 'ACCOUNT_SUSPENDED']);
    for (const action of ['unban', 'ban']) {
      const a = await call(admin, 'POST', `/api/admin/players/${jane.studioId}/${action}`, {
        body: { reason: 'reopen', idempotencyKey: `erase-${action}-0001` },
        headers: password,
      });
      expect([a.status, a.body.code], action).toEqual([409, 'CONFLICT']);
    }
    expect(checkInvariants(await (await ledgerStore()).snapshot())).toEqual([]);
    // the key replays; the same key for another account is 422 and erases nothing
    const replay = await erase(jane.studioId, 'erase-key-0001');
    expect([replay.status, replay.headers.get('idempotent-replayed'), replay.body.idempotent]).toEqual([200, 'true', true]);
    const reused = await erase(other.studioId, 'erase-key-0001');
    expect([reused.status, reused.body.code]).toEqual([422, 'IDEMPOTENCY_KEY_REUSED']);
    const still = await call(admin, 'GET', `/api/admin/players/${other.studioId}`, { headers: password });
    expect((still.body.account as Record<string, unknown>).displayName).toBe('Jane Roe');
    const unknown = await erase('STUDIO_0000000000000000', 'erase-key-0002');
    expect(unknown.status).toBe(404);
  });
});
