/**
 * A token is checked against its account's sessions and ban on every request that acts for the account
 * (spec 5.3, 5.4; docs/architecture.md, "Sessions and bans"): a token issued at or before the account's
 * revocation time is 401 on the wallet and every player route, one issued after is let in; a banned
 * account's token is 403 `ACCOUNT_SUSPENDED` saying until when, and is let in again once the ban has
 * ended or is lifted. The very next request sees a change made through the same store.
 */
import { describe, expect, it } from 'vitest';
import type { EntryExports } from '../../api/_lib/http/entry.js';
import { ledgerStore } from '../../api/_lib/ledger/store.js';
import type { AccessChange } from '../../api/_lib/ledger/types.js';
import * as adminEntry from '../../api/admin.js';
import * as playerEntry from '../../api/player.js';
import * as walletEntry from '../../api/wallet.js';
import { ITEM_DEFINITION } from '../adversarial/helpers.js';
import { call, gameApiSuite, newPlayer, responseErrors, tokenFor } from '../helpers/game-api.js';

const player = playerEntry as unknown as EntryExports;
const wallet = walletEntry as unknown as EntryExports;
const suite = gameApiSuite();

/** What a client of the account would call: the wallet, the island, characters, recipes, the bag. */
const ROUTES: readonly [EntryExports, string][] = [
  [wallet, '/api/wallet/overview'],
  [player, '/api/island/state'],
  [player, '/api/characters?era=warlords'],
  [player, '/api/account/recipes'],
  [player, '/api/inventory'],
];

async function statuses(auth: Record<string, string>): Promise<number[]> {
  const out: number[] = [];
  for (const [entry, path] of ROUTES) out.push((await call(entry, 'GET', path, { headers: auth })).status);
  return out;
}

async function change(accountId: string, c: AccessChange): Promise<void> {
  const out = await (await ledgerStore()).changeAccess({ accountId, change: c, key: undefined, fingerprint: 'test' });
  expect(out.status).toBe('created');
}

const nowS = () => Math.floor(Date.now() / 1000);

describe('sessions', () => {
  it('refuses every token issued at or before the revocation time with 401, and lets a later one in', async () => {
    const p = await newPlayer(suite.config);
    const base = nowS();
    const older = { Authorization: `Bearer ${await tokenFor(suite.config, p.studioId, 'player', { now: base - 60 })}` };
    expect(await statuses(older)).toEqual(ROUTES.map(() => 200));
    await change(p.accountId, { kind: 'revoke-sessions', at: base - 30 });
    for (const [entry, path] of ROUTES) {
      const r = await call(entry, 'GET', path, { headers: older });
      expect([r.status, r.body.detail], path).toEqual([401, 'The token is not valid.']);
      expect(r.headers.get('www-authenticate')).toBe('Bearer realm="game-api", error="invalid_token"');
    }
    // issued in the revocation's own second: refused too (iat has whole seconds)
    const same = { Authorization: `Bearer ${await tokenFor(suite.config, p.studioId, 'player', { now: base - 30 })}` };
    expect(await statuses(same)).toEqual(ROUTES.map(() => 401));
    const later = { Authorization: `Bearer ${await tokenFor(suite.config, p.studioId, 'player', { now: base - 29 })}` };
    expect(await statuses(later)).toEqual(ROUTES.map(() => 200));
    // another account's tokens are untouched
    const other = await newPlayer(suite.config);
    expect(await statuses(other.auth)).toEqual(ROUTES.map(() => 200));
  });
});

describe('bans', () => {
  it('answers 403 ACCOUNT_SUSPENDED with the end time while banned, for tokens old and new, and lets the account in once lifted', async () => {
    const p = await newPlayer(suite.config);
    const until = new Date(Date.now() + 3_600_000).toISOString();
    await change(p.accountId, { kind: 'ban', at: nowS() - 10, ban: { reason: 'chargeback fraud', at: new Date().toISOString(), until } });
    const fresh = { Authorization: `Bearer ${await tokenFor(suite.config, p.studioId)}` };
    for (const auth of [p.auth, fresh])
      for (const [entry, path] of ROUTES) {
        const r = await call(entry, 'GET', path, { headers: auth });
        expect([r.status, r.body.code], path).toEqual([403, 'ACCOUNT_SUSPENDED']);
        expect(r.body.detail).toBe(`This account is suspended until ${until}.`);
        // the operator's reason is not the player's to read
        expect(JSON.stringify(r.body)).not.toContain('chargeback');
      }
    await change(p.accountId, { kind: 'ban', at: nowS() - 10, ban: { reason: 'for good', at: new Date().toISOString() } });
    expect((await call(wallet, 'GET', '/api/wallet/overview', { headers: fresh })).body.detail).toBe(
      'This account is suspended, without an end date.',
    );
    await change(p.accountId, { kind: 'unban' });
    // the ban revoked the sessions of its second and before; a token issued since is let in
    expect(await statuses(fresh)).toEqual(ROUTES.map(() => 200));
  });

  it('lets the account in once a ban has ended, without anyone lifting it', async () => {
    const p = await newPlayer(suite.config);
    const ended = new Date(Date.now() - 1000).toISOString();
    await change(p.accountId, {
      kind: 'ban',
      at: nowS() - 120,
      ban: { reason: 'a day off', at: '2026-01-01T00:00:00.000Z', until: ended },
    });
    expect(await statuses(p.auth)).toEqual(ROUTES.map(() => 200));
  });
});

describe('the routes', () => {
  const admin = adminEntry as unknown as EntryExports;
  const adminAuth = async () => ({ Authorization: `Bearer ${await tokenFor(suite.config, 'STUDIO_OPERATOR', 'admin')}` });

  it('revokes sessions once per key: older tokens 401, a replay changes nothing, another request under the key 422', async () => {
    const p = await newPlayer(suite.config);
    const old = { Authorization: `Bearer ${await tokenFor(suite.config, p.studioId, 'player', { now: nowS() - 5 })}` };
    const body = { reason: 'stolen phone', idempotencyKey: 'revoke-route-0001' };
    const r = await call(admin, 'POST', `/api/admin/players/${p.studioId}/revoke-sessions`, { body, headers: await adminAuth() });
    expect(r.status).toBe(200);
    expect(responseErrors('account-access', r.body)).toEqual([]);
    expect(r.body).toMatchObject({ account: { studioId: p.studioId }, access: { ban: null }, idempotent: false });
    const at = Date.parse((r.body.access as { sessionsRevokedAt: string }).sessionsRevokedAt);
    expect(Math.abs(at - Date.now())).toBeLessThan(5000);
    expect(await statuses(old)).toEqual(ROUTES.map(() => 401));
    const again = await call(admin, 'POST', `/api/admin/players/${p.studioId}/revoke-sessions`, {
      body: { ...body, reason: 'reworded' },
      headers: await adminAuth(),
    });
    expect([again.status, again.headers.get('idempotent-replayed'), again.body.idempotent]).toEqual([200, 'true', true]);
    const other = await newPlayer(suite.config);
    const reused = await call(admin, 'POST', `/api/admin/players/${other.studioId}/revoke-sessions`, { body, headers: await adminAuth() });
    expect([reused.status, reused.body.code]).toEqual([422, 'IDEMPOTENCY_KEY_REUSED']);
    expect(await statuses(other.auth)).toEqual(ROUTES.map(() => 200));
    const nobody = await call(admin, 'POST', '/api/admin/players/STUDIO_0000000000000000/revoke-sessions', {
      body: { reason: 'x', idempotencyKey: 'revoke-route-0002' },
      headers: await adminAuth(),
    });
    expect(nobody.status).toBe(404);
  });

  it('bans until a time (403 with the end, never the reason), refuses an end in the past, and unbans', async () => {
    const p = await newPlayer(suite.config);
    const path = (what: string) => `/api/admin/players/${p.studioId}/${what}`;
    const past = await call(admin, 'POST', path('ban'), {
      body: { reason: 'x', until: '2020-01-01T00:00:00Z', idempotencyKey: 'ban-route-0000' },
      headers: await adminAuth(),
    });
    expect([past.status, past.body.errors?.map((e) => e.name)]).toEqual([400, ['/until']]);
    const noDate = await call(admin, 'POST', path('ban'), {
      body: { reason: 'x', until: '2030-13-45T00:00:00Z', idempotencyKey: 'ban-route-0000' },
      headers: await adminAuth(),
    });
    expect(noDate.status).toBe(400);
    expect(await statuses(p.auth)).toEqual(ROUTES.map(() => 200));
    const until = new Date(Date.now() + 86_400_000).toISOString();
    const ban = await call(admin, 'POST', path('ban'), {
      body: { reason: 'gold farming\nticket 7', until, idempotencyKey: 'ban-route-0001' },
      headers: await adminAuth(),
    });
    expect(ban.status).toBe(200);
    expect(ban.body.access).toMatchObject({ ban: { reason: 'gold farming\nticket 7', until, active: true } });
    const fresh = { Authorization: `Bearer ${await tokenFor(suite.config, p.studioId, 'player', { now: nowS() + 1 })}` };
    const refused = await call(wallet, 'GET', '/api/wallet/overview', { headers: fresh });
    expect([refused.status, refused.body.code, refused.body.detail]).toEqual([
      403,
      'ACCOUNT_SUSPENDED',
      `This account is suspended until ${until}.`,
    ]);
    const unban = await call(admin, 'POST', path('unban'), {
      body: { reason: 'appeal', idempotencyKey: 'unban-route-001' },
      headers: await adminAuth(),
    });
    expect([unban.status, unban.body.access]).toMatchObject([200, { ban: null }]);
    expect(await statuses(fresh)).toEqual(ROUTES.map(() => 200));
    // the token the ban revoked stays revoked
    expect(await statuses(p.auth)).toEqual(ROUTES.map(() => 401));
  });

  it('lets a support token look an account up, and refuses it every change (403)', async () => {
    const p = await newPlayer(suite.config);
    const support = { Authorization: `Bearer ${await tokenFor(suite.config, 'STUDIO_SUPPORT', 'support')}` };
    expect((await call(admin, 'GET', `/api/admin/accounts/${p.studioId}`, { headers: support })).status).toBe(200);
    for (const what of ['revoke-sessions', 'ban', 'unban']) {
      const r = await call(admin, 'POST', `/api/admin/players/${p.studioId}/${what}`, {
        body: { reason: 'x', idempotencyKey: `support-${what}` },
        headers: support,
      });
      expect([what, r.status, r.body.code]).toEqual([what, 403, 'FORBIDDEN']);
    }
    const grant = await call(admin, 'POST', '/api/admin/grant-coin', {
      body: { studioId: p.studioId, amount: 5, reason: 'x', idempotencyKey: 'support-grant-1' },
      headers: support,
    });
    expect(grant.status).toBe(403);
    expect(await statuses(p.auth)).toEqual(ROUTES.map(() => 200));
  });

  it('logs the caller out everywhere: 204, and every token issued until now is refused, another account’s not', async () => {
    const p = await newPlayer(suite.config);
    const other = await newPlayer(suite.config);
    const second = { Authorization: `Bearer ${await tokenFor(suite.config, p.studioId, 'player', { now: nowS() - 3 })}` };
    const out = await call(player, 'POST', '/api/auth/logout', { headers: p.auth });
    expect(out.status).toBe(204);
    expect(await statuses(p.auth)).toEqual(ROUTES.map(() => 401));
    expect(await statuses(second)).toEqual(ROUTES.map(() => 401));
    expect((await call(player, 'POST', '/api/auth/logout', { headers: p.auth })).status).toBe(401);
    expect(await statuses(other.auth)).toEqual(ROUTES.map(() => 200));
  });
});

describe('game servers and a banned account', () => {
  it('refuses a game server token every write to a banned account (403), lets it read, and lets an operator correct it', async () => {
    const p = await newPlayer(suite.config);
    const server = { Authorization: `Bearer ${await tokenFor(suite.config, 'STUDIO_GAME_SERVER', 'server')}` };
    const operator = { Authorization: `Bearer ${await tokenFor(suite.config, 'STUDIO_OPERATOR', 'admin')}` };
    const grant = (auth: Record<string, string>, key: string) =>
      call(player, 'POST', '/api/inventory/grant', {
        body: { studioId: p.studioId, definitionId: 'MATL-20260601090000-000101-F469B3E9', quantity: 1, idempotencyKey: key },
        headers: auth,
      });
    expect((await grant(server, 'banned-grant-01')).status).toBe(201);
    await change(p.accountId, { kind: 'ban', at: nowS() - 100, ban: { reason: 'r', at: new Date().toISOString() } });
    const writes = [
      await grant(server, 'banned-grant-02'),
      await call(player, 'PATCH', `/api/island/state?studioId=${p.studioId}`, {
        body: { stats: { visits: 1 } },
        headers: { ...server, 'If-Match': '"1"' },
      }),
      await call(player, 'POST', '/api/uuid', {
        body: { definitionId: ITEM_DEFINITION, studioId: p.studioId, idempotencyKey: 'banned-mint-01' },
        headers: server,
      }),
    ];
    expect(writes.map((w) => [w.status, w.body.code])).toEqual(writes.map(() => [403, 'ACCOUNT_SUSPENDED']));
    expect((await call(player, 'GET', `/api/island/state?studioId=${p.studioId}`, { headers: server })).status).toBe(200);
    expect((await grant(operator, 'banned-grant-03')).status).toBe(201);
  });
});
