/**
 * Attacks on the operators' look-up and the data exports (docs/architecture.md, "Player look-up"), on both
 * stores: a search cursor made by hand to list accounts its query does not match, and what one account's
 * export may show of another account or of the operators who acted on it.
 */
import { expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { requestFingerprint } from '../../api/_lib/stores/idempotency.js';
import {
  admin,
  adminAuth,
  call,
  mintFor,
  newCharacter,
  newPlayer,
  onEachStore,
  player,
  quietLog,
  serverAuth,
  tokenFor,
} from './helpers.js';

quietLog();

onEachStore('the look-up and the exports under attack', (store) => {
  it('refuses a search cursor whose place is not one of its query’s matches, listing nobody the query does not find', async () => {
    const config = await store.fresh();
    const auth = await adminAuth(config);
    await newPlayer(config, 'Alma');
    await newPlayer(config, 'Bruno');
    const zed = await newPlayer(config, 'Zed');
    // the binding of a cursor to its query is no secret: anyone can make one for q=zed at any place
    const cursor = (position: string) =>
      Buffer.from(`s1.${requestFingerprint(['player-search', 'zed']).slice(0, 16)}.${position}`).toString('base64url');
    for (const position of [`a\u0000${randomUUID()}`, `\u0000${randomUUID()}`, `zec\u0000${randomUUID()}`]) {
      const r = await call(admin, 'GET', `/api/admin/players?q=zed&cursor=${cursor(position)}`, { headers: auth });
      expect([r.status, r.body.code], JSON.stringify(position)).toEqual([400, 'INVALID_QUERY']);
    }
    // a place among the query's own matches still pages
    const own = await call(
      admin,
      'GET',
      `/api/admin/players?q=zed&cursor=${cursor(`zed\u0000${'0'.repeat(8)}-0000-0000-0000-${'0'.repeat(12)}`)}`,
      {
        headers: auth,
      },
    );
    expect(own.status).toBe(200);
    expect((own.body.players as { account: { studioId: string } }[]).map((h) => h.account.studioId)).toEqual([zed.studioId]);
  });

  it('shows a player in its own export nothing of another account, nor who of the operators acted or why they banned it', async () => {
    const config = await store.fresh();
    const auth = await adminAuth(config);
    const server = await serverAuth(config);
    const giver = await newPlayer(config, 'Giver');
    const taker = await newPlayer(config, 'Taker');
    const character = await newCharacter(giver.auth);
    const item = await mintFor(server, giver.studioId, 'leak-mint-0001');
    for (const [body, status] of [
      [{ event: 'assigned', characterId: character, idempotencyKey: 'leak-event-0001' }, 201],
      [{ event: 'transferred', toStudioId: taker.studioId, idempotencyKey: 'leak-event-0002' }, 201],
    ] as const) {
      expect((await call(player, 'POST', `/api/ledger/${item}/events`, { body, headers: server })).status).toBe(status);
    }
    const grant = await call(admin, 'POST', '/api/admin/grant-coin', {
      body: { studioId: taker.studioId, amount: 5, reason: 'goodwill', idempotencyKey: 'leak-grant-0001' },
      headers: auth,
    });
    expect(grant.status).toBe(200);
    // a ban whose end has passed lets the player in again, and export
    const until = new Date(Date.now() + 1200).toISOString();
    const ban = await call(admin, 'POST', `/api/admin/players/${taker.studioId}/ban`, {
      body: { reason: 'reported by STUDIO_WITNESS for abuse', until, idempotencyKey: 'leak-ban-0001' },
      headers: auth,
    });
    expect(ban.status).toBe(200);
    await new Promise((r) => setTimeout(r, Date.parse(until) - Date.now() + 1100));
    const own = await call(player, 'GET', '/api/account/export', {
      headers: { Authorization: `Bearer ${await tokenFor(config, taker.studioId)}` },
    });
    expect(own.status).toBe(200);
    const text = JSON.stringify(own.body);
    for (const foreign of [giver.accountId, giver.studioId, character, 'STUDIO_OPERATOR', 'STUDIO_WITNESS'])
      expect(text, `the export holds ${foreign}`).not.toContain(foreign);
    const body = own.body as {
      access: { ban: Record<string, unknown> | null };
      wallet: { entries: Record<string, unknown>[] };
      items: { studioUuid: string; events: { kind: string; accountId: string }[] }[];
    };
    expect(body.access.ban).toEqual({ at: (ban.body.access as { ban: { at: string } }).ban.at, until, active: false });
    expect(body.wallet.entries.map((e) => [e.note, 'actor' in e])).toEqual([['goodwill', false]]);
    // the item's history from the event that made it the taker's
    expect(body.items.map((i) => [i.studioUuid, i.events.map((e) => [e.kind, e.accountId])])).toEqual([
      [item, [['transferred', taker.accountId]]],
    ]);
    // operators read the ban's reason and who asked, but no more of another account than the player does
    const ops = await call(admin, 'GET', `/api/admin/players/${taker.studioId}/export`, { headers: auth });
    const opsBody = ops.body as typeof body;
    expect(opsBody.access.ban?.reason).toBe('reported by STUDIO_WITNESS for abuse');
    expect(opsBody.wallet.entries.map((e) => e.actor)).toEqual(['admin:STUDIO_OPERATOR']);
    expect(opsBody.items).toEqual(body.items);
    for (const foreign of [giver.accountId, character]) expect(JSON.stringify(ops.body)).not.toContain(foreign);
    // the giver's export no longer holds the item at all
    const gave = await call(admin, 'GET', `/api/admin/players/${giver.studioId}/export`, { headers: auth });
    expect((gave.body as typeof body).items).toEqual([]);
  });
});
