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
import * as playerEntry from '../../api/player.js';
import * as walletEntry from '../../api/wallet.js';
import { call, gameApiSuite, newPlayer, tokenFor } from '../helpers/game-api.js';

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
    const older = { Authorization: `Bearer ${await tokenFor(suite.config, p.studioId, 'player', { now: nowS() - 60 })}` };
    expect(await statuses(older)).toEqual(ROUTES.map(() => 200));
    await change(p.accountId, { kind: 'revoke-sessions', at: nowS() - 30 });
    for (const [entry, path] of ROUTES) {
      const r = await call(entry, 'GET', path, { headers: older });
      expect([r.status, r.body.detail], path).toEqual([401, 'The token is not valid.']);
      expect(r.headers.get('www-authenticate')).toBe('Bearer realm="game-api", error="invalid_token"');
    }
    // issued in the revocation's own second: refused too (iat has whole seconds)
    const same = { Authorization: `Bearer ${await tokenFor(suite.config, p.studioId, 'player', { now: nowS() - 30 })}` };
    expect(await statuses(same)).toEqual(ROUTES.map(() => 401));
    const later = { Authorization: `Bearer ${await tokenFor(suite.config, p.studioId, 'player', { now: nowS() - 29 })}` };
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
