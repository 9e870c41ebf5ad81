/**
 * Operators' corrections of player state and the histories support reads, through the routes on both
 * stores (docs/architecture.md, "Bag reversals", "Voided items", "Player look-up"; the README's "Who may do what"):
 *
 * - `POST /api/admin/bag-reversals` reverses a grant once, linked both ways, with 409s that say why (a
 *   second reversal naming the first, a consumption, a reversal, units no longer held), 404 for a grant the
 *   account does not have, replays of the key, 422 for its reuse; admin only;
 * - `POST /api/admin/items/{studio_uuid}/void` is final, admin only (no game server voids, through its
 *   own route or this one), and the voided item leaves the inventory and the equipment while it stays in
 *   every history;
 * - the bag, items and item-event histories page newest first with opaque cursors checked for form and
 *   bound to their account or item and filters; the summary and the export carry the links and the
 *   voided state; an erasure blanks the reasons;
 * - every answer matches its response schema; every refusal changes nothing.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import {
  ADMIN_PASSWORD,
  adminAuth,
  admin,
  call,
  errorNames,
  MATERIAL,
  mintFor,
  newCharacter,
  newPlayer,
  onEachStore,
  player,
  quietLog,
  serverAuth,
  tokenFor,
  type Answer,
} from '../adversarial/helpers.js';
import { SAMPLE_OUT } from '../helpers/catalog.js';
import { responseErrors } from '../helpers/game-api.js';

quietLog();

const password = { 'X-Admin-Password': ADMIN_PASSWORD };
/** A consumable of the sample catalog: a second stack of the bag. */
const FOOD = (
  JSON.parse(readFileSync(join(SAMPLE_OUT, 'api/v1/canonical-items-manifest.json'), 'utf8')) as { items: { uuid: string; kind?: string }[] }
).items.find((i) => i.kind === 'consumable')!.uuid;

/** Fail unless `a` is `status` and its body matches the response schema `schema`. */
function answers(a: Answer, status: number, schema: string): Answer {
  expect(a.status, JSON.stringify(a.body)).toBe(status);
  expect(responseErrors(schema, a.body)).toEqual([]);
  return a;
}

onEachStore('operators’ corrections and histories', (store) => {
  /** A player with a game server's grants of MATERIAL (5 then 3) and a consumption of 2, and the operators' headers. */
  async function stocked() {
    const config = await store.fresh();
    const server = await serverAuth(config);
    const ops = await adminAuth(config);
    const support = { Authorization: `Bearer ${await tokenFor(config, 'STUDIO_HELPDESK', 'support')}` };
    const ada = await newPlayer(config, 'Ada');
    const bag = (kind: 'grant' | 'consume', quantity: number, key: string, definitionId = MATERIAL) =>
      call(player, 'POST', `/api/inventory/${kind}`, {
        body: { studioId: ada.studioId, definitionId, quantity, idempotencyKey: key },
        headers: server,
      });
    expect((await bag('grant', 5, 'drop-0000-0001')).status).toBe(201);
    expect((await bag('grant', 3, 'drop-0000-0002')).status).toBe(201);
    expect((await bag('consume', 2, 'use-0000-00001')).status).toBe(201);
    const reverse = (body: Record<string, unknown>, headers: Record<string, string> = ops) =>
      call(admin, 'POST', '/api/admin/bag-reversals', { body: { studioId: ada.studioId, reason: 'Granted twice', ...body }, headers });
    const history = async (query = '') => call(admin, 'GET', `/api/admin/players/${ada.studioId}/bag${query}`, { headers: support });
    return { config, server, ops, support, ada, bag, reverse, history };
  }

  it('reverses a bag grant once, linked both ways; the key replays; a second reversal, a consumption, a reversal and a stranger are refused and change nothing', async () => {
    const { ada, reverse, history, config } = await stocked();
    const first = answers(await reverse({ sourceRef: 'bag-grant:drop-0000-0001', idempotencyKey: 'fix-0000-00001' }), 200, 'bag-reversal');
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    expect(first.body).toMatchObject({
      kind: 'bag_reversal',
      idempotent: false,
      sourceRef: 'bag-reversal:fix-0000-00001',
      reverses: 'bag-grant:drop-0000-0001',
      account: { studioId: ada.studioId, accountId: ada.accountId, displayName: 'Ada' },
      definitionId: MATERIAL,
      seq: 4,
      quantity: 5,
      quantityAfter: 1,
      reason: 'Granted twice',
      actor: 'admin:STUDIO_OPERATOR',
    });
    const after = (await history()).body;
    // the same key again, reworded, by another operator: the first answer
    const replay = answers(
      await reverse({ sourceRef: 'bag-grant:drop-0000-0001', idempotencyKey: 'fix-0000-00001', reason: 'reworded' }, password),
      200,
      'bag-reversal',
    );
    expect([replay.headers.get('idempotent-replayed'), { ...replay.body, idempotent: false }]).toEqual(['true', first.body]);
    const refusals: [Record<string, unknown>, number, string][] = [
      [
        { sourceRef: 'bag-grant:drop-0000-0001', idempotencyKey: 'fix-0000-00002' },
        409,
        'was already reversed by admin:STUDIO_OPERATOR at',
      ],
      [{ sourceRef: 'bag-consume:use-0000-00001', idempotencyKey: 'fix-0000-00003' }, 409, 'is a consumption; only a grant is reversed'],
      [{ sourceRef: 'bag-reversal:fix-0000-00001', idempotencyKey: 'fix-0000-00004' }, 409, 'is a reversal; a reversal is final'],
      [{ sourceRef: 'bag-grant:drop-0000-0009', idempotencyKey: 'fix-0000-00005' }, 404, 'No bag entry of this account'],
      [{ sourceRef: 'bag-grant:drop-0000-0002', idempotencyKey: 'fix-0000-00001' }, 422, 'used before to reverse another grant'],
    ];
    for (const [body, status, says] of refusals) {
      const r = await reverse(body);
      expect([r.status, r.body.detail], JSON.stringify(body)).toEqual([status, expect.stringContaining(says)]);
    }
    const second = await reverse({ sourceRef: 'bag-grant:drop-0000-0001', idempotencyKey: 'fix-0000-00002' });
    expect(second.body.detail).toContain('(reversal bag-reversal:fix-0000-00001)');
    // another account's grant is not found through this account
    const bo = await newPlayer(config, 'Bo');
    const stranger = await call(admin, 'POST', '/api/admin/bag-reversals', {
      body: { studioId: bo.studioId, sourceRef: 'bag-grant:drop-0000-0002', reason: 'r', idempotencyKey: 'fix-0000-00006' },
      headers: password,
    });
    expect(stranger.status).toBe(404);
    expect((await history()).body).toEqual(after);
    const entries = after.entries as Record<string, unknown>[];
    expect(entries.map((e) => [e.sourceRef, e.kind, e.delta, e.quantityAfter, e.reverses, e.reversedBy, e.reason, e.actor])).toEqual([
      ['bag-reversal:fix-0000-00001', 'reversal', -5, 1, 'bag-grant:drop-0000-0001', undefined, 'Granted twice', 'admin:STUDIO_OPERATOR'],
      ['bag-consume:use-0000-00001', 'consume', -2, 6, undefined, undefined, undefined, undefined],
      ['bag-grant:drop-0000-0002', 'grant', 3, 8, undefined, undefined, undefined, undefined],
      ['bag-grant:drop-0000-0001', 'grant', 5, 5, undefined, 'bag-reversal:fix-0000-00001', undefined, undefined],
    ]);
    expect(after.bag).toEqual([{ definitionId: MATERIAL, quantity: 1 }]);
    // the summary's latest entries and the export's every entry carry the links
    const summary = answers(await call(admin, 'GET', `/api/admin/players/${ada.studioId}`, { headers: password }), 200, 'player-summary');
    expect((summary.body.bagHistory as { entries: unknown[] }).entries).toEqual(entries);
    const exported = answers(
      await call(admin, 'GET', `/api/admin/players/${ada.studioId}/export`, { headers: password }),
      200,
      'player-export',
    );
    expect(exported.body.bagEntries).toEqual(entries);
    // the player's own export: the same entries, without which operator reversed (docs/architecture.md, "Player look-up")
    const withoutActor = entries.map((e: Record<string, unknown>) => Object.fromEntries(Object.entries(e).filter(([k]) => k !== 'actor')));
    expect((await call(player, 'GET', '/api/account/export', { headers: ada.auth })).body.bagEntries).toEqual(withoutActor);
    expect(withoutActor).not.toEqual(entries);
  });

  it('refuses a reversal of units no longer held, and a malformed request, changing nothing; only admins reverse, a banned account’s grant too', async () => {
    const { ada, reverse, history, bag, server, support, ops } = await stocked();
    expect((await bag('consume', 5, 'use-0000-00002')).status).toBe(201);
    const before = (await history()).body;
    const short = await reverse({ sourceRef: 'bag-grant:drop-0000-0001', idempotencyKey: 'fix-0000-00007' });
    expect([short.status, short.body.detail]).toEqual([409, expect.stringContaining('The bag holds 1 of the granted definition')]);
    const malformed: [Record<string, unknown>, string][] = [
      [{ sourceRef: 'drop-0000-0001', idempotencyKey: 'fix-0000-00008' }, '/sourceRef'],
      [{ sourceRef: 'bag-grant:short', idempotencyKey: 'fix-0000-00008' }, '/sourceRef'],
      [{ sourceRef: 'bag-grant:drop-0000-0001', idempotencyKey: 'fix' }, '/idempotencyKey'],
      [{ sourceRef: 'bag-grant:drop-0000-0001', idempotencyKey: 'fix-0000-00008', reason: ' ' }, '/reason'],
      [{ sourceRef: 'bag-grant:drop-0000-0001', idempotencyKey: 'fix-0000-00008', accountId: ada.accountId }, ''],
    ];
    for (const [body, field] of malformed) {
      const r = await reverse(body);
      expect(r.status, JSON.stringify(body)).toBe(400);
      if (field !== '') expect(errorNames(r)).toContain(field);
    }
    for (const headers of [server, support, ada.auth]) {
      const r = await reverse({ sourceRef: 'bag-grant:drop-0000-0002', idempotencyKey: 'fix-0000-00009' }, headers);
      expect(r.status).toBe(403);
    }
    expect((await history()).body).toEqual(before);
    // operators correct a banned account
    const ban = await call(admin, 'POST', `/api/admin/players/${ada.studioId}/ban`, {
      body: { reason: 'botting', idempotencyKey: 'ban-0000-00001' },
      headers: ops,
    });
    expect(ban.status).toBe(200);
    expect((await reverse({ sourceRef: 'bag-grant:drop-0000-0002', idempotencyKey: 'fix-0000-00010' })).status).toBe(409);
    expect((await bag('grant', 4, 'drop-0000-0003')).status).toBe(403);
    const refill = await call(player, 'POST', '/api/inventory/grant', {
      body: { studioId: ada.studioId, definitionId: MATERIAL, quantity: 4, idempotencyKey: 'ops-0000-00001' },
      headers: ops,
    });
    expect(refill.status).toBe(201);
    expect((await reverse({ sourceRef: 'bag-grant:drop-0000-0002', idempotencyKey: 'fix-0000-00010' })).status).toBe(200);
  });

  it('pages the bag newest first with a definition filter and cursors checked for form and bound to the account and filter', async () => {
    const { history, bag, ada, config, support } = await stocked();
    expect((await bag('grant', 2, 'food-0000-0001', FOOD)).status).toBe(201);
    const refs: string[] = [];
    let cursor: string | null = null;
    do {
      const page = answers(await history(`?limit=2${cursor ? `&cursor=${cursor}` : ''}`), 200, 'player-bag');
      const entries = page.body.entries as { sourceRef: string }[];
      expect(entries.length).toBeLessThanOrEqual(2);
      refs.push(...entries.map((e) => e.sourceRef));
      cursor = page.body.cursor as string | null;
      expect(page.body.hasMore).toBe(cursor !== null);
    } while (cursor !== null);
    expect(refs).toEqual([
      'bag-grant:food-0000-0001',
      'bag-consume:use-0000-00001',
      'bag-grant:drop-0000-0002',
      'bag-grant:drop-0000-0001',
    ]);
    const food = await history(`?definitionId=${FOOD}`);
    expect((food.body.entries as { sourceRef: string }[]).map((e) => e.sourceRef)).toEqual(['bag-grant:food-0000-0001']);
    const first = (await history('?limit=1')).body.cursor as string;
    const bo = await newPlayer(config, 'Bo');
    const bad: [string, string][] = [
      [`?cursor=${first}&definitionId=${FOOD}`, 'issued for another account or other filters'],
      ['?cursor=bm90LWEtY3Vyc29y', 'not a cursor of this list'],
      [
        `?cursor=${Buffer.from(
          Buffer.from(first, 'base64url')
            .toString()
            .replace(/\.\d+\./, '.0.'),
        ).toString('base64url')}`,
        'not a cursor of this list',
      ],
      [`?cursor=${Buffer.from(`${Buffer.from(first, 'base64url').toString()}.extra`).toString('base64url')}`, 'not a cursor of this list'],
      ['?definitionId=ITEM-1', ''],
      ['?limit=0', ''],
      ['?other=1', ''],
    ];
    for (const [query, says] of bad) {
      const r = await history(query);
      expect([r.status, r.body.code], query).toEqual([400, 'INVALID_QUERY']);
      if (says) expect(r.body.detail).toContain(says);
    }
    const foreign = await call(admin, 'GET', `/api/admin/players/${bo.studioId}/bag?cursor=${first}`, { headers: support });
    expect(foreign.body.detail).toContain('issued for another account');
    const clamped = await history('?limit=900');
    expect([clamped.status, clamped.headers.get('x-limit-applied')]).toEqual([200, '200']);
    expect((await call(admin, 'GET', '/api/admin/players/STUDIO_NOBODY/bag', { headers: support })).status).toBe(404);
    expect((await call(admin, 'GET', `/api/admin/players/${ada.studioId}/bag`, { headers: ada.auth })).status).toBe(403);
  });

  it('voids an item finally: no game server voids, nothing follows it, it leaves the inventory and the equipment, and every history keeps it with its reason', async () => {
    const config = await store.fresh();
    const server = await serverAuth(config);
    const ops = await adminAuth(config);
    const support = { Authorization: `Bearer ${await tokenFor(config, 'STUDIO_HELPDESK', 'support')}` };
    const ada = await newPlayer(config, 'Ada');
    const hero = await newCharacter(ada.auth);
    const item = await mintFor(server, ada.studioId, 'void-mint-0001');
    const kept = await mintFor(server, ada.studioId, 'void-mint-0002');
    const wear = (key: string, revision: number) =>
      call(player, 'PATCH', `/api/characters/${hero}/progress`, {
        body: { idempotencyKey: key, progress: { equipment_on_body: { hand_0: item } } },
        headers: { ...server, 'If-Match': `"${revision}"` },
      });
    expect((await wear('wear-0000-0001', 1)).status).toBe(200);
    const voidIt = (body: Record<string, unknown>, headers: Record<string, string> = ops, id = item) =>
      call(admin, 'POST', `/api/admin/items/${id}/void`, { body: { reason: 'Duplicated by an exploit', ...body }, headers });
    // a game server may not void, through its own route or the operators'
    const own = await call(player, 'POST', `/api/ledger/${item}/events`, {
      body: { event: 'voided', idempotencyKey: 'void-0000-0001' },
      headers: server,
    });
    expect([own.status, errorNames(own)]).toEqual([400, ['/event']]);
    for (const headers of [server, support, ada.auth])
      expect((await voidIt({ idempotencyKey: 'void-0000-0001' }, headers)).status).toBe(403);
    const voided = answers(await voidIt({ idempotencyKey: 'void-0000-0001' }), 200, 'item-voided');
    expect(voided.body).toMatchObject({
      item: { studioUuid: item, state: 'voided', characterId: null, seq: 3, owner: { studioId: ada.studioId } },
      event: { seq: 3, kind: 'voided', characterId: null },
      reason: 'Duplicated by an exploit',
      actor: 'admin:STUDIO_OPERATOR',
      idempotent: false,
    });
    const replay = answers(await voidIt({ idempotencyKey: 'void-0000-0001', reason: 'reworded' }, password), 200, 'item-voided');
    expect([replay.headers.get('idempotent-replayed'), { ...replay.body, idempotent: false }]).toEqual(['true', voided.body]);
    const again = await voidIt({ idempotencyKey: 'void-0000-0002' });
    expect([again.status, again.body.detail]).toEqual([409, expect.stringContaining('The item is voided')]);
    const after = await call(player, 'POST', `/api/ledger/${item}/events`, {
      body: { event: 'destroyed', idempotencyKey: 'gone-0000-0001' },
      headers: server,
    });
    expect(after.status).toBe(409);
    expect((await voidIt({ idempotencyKey: 'void-0000-0003' }, ops, 'ITEM-20260601093000-00010D-B1F512C1')).status).toBe(400);
    expect((await voidIt({ idempotencyKey: 'void-0000-0003' }, ops, '3f2b8c1e-7a4d-4e6b-9c0f-1d2e3f4a5b6c')).status).toBe(404);
    expect((await voidIt({ idempotencyKey: 'void' })).status).toBe(400);
    // not owned: the inventory leaves it out, and a progress that still wears it is refused until the slot is cleared
    const inventory = await call(player, 'GET', '/api/inventory', { headers: ada.auth });
    expect((inventory.body.uniqueItems as { studioUuid: string }[]).map((i) => i.studioUuid)).toEqual([kept]);
    const stuck = await call(player, 'PATCH', `/api/characters/${hero}/progress`, {
      body: { idempotencyKey: 'wear-0000-0002', progress: { attributes: { STR: 3 } } },
      headers: { ...server, 'If-Match': '"2"' },
    });
    expect([stuck.status, stuck.body.errors?.[0]?.message]).toEqual([
      400,
      `${item} is consumed, destroyed, voided, or worn by another character.`,
    ]);
    const cleared = await call(player, 'PATCH', `/api/characters/${hero}/progress`, {
      body: { idempotencyKey: 'wear-0000-0003', progress: { equipment_on_body: { hand_0: null } } },
      headers: { ...server, 'If-Match': '"2"' },
    });
    expect(cleared.status).toBe(200);
    expect((await call(player, 'GET', `/api/ledger/${item}`, { headers: server })).body).toMatchObject({ state: 'voided', seq: 3 });
    // every history keeps it: the account's items with their states, the item's events with the reason
    const items = answers(await call(admin, 'GET', `/api/admin/players/${ada.studioId}/items`, { headers: support }), 200, 'player-items');
    expect((items.body.items as { studioUuid: string; state: string }[]).map((i) => [i.studioUuid, i.state]).sort()).toEqual(
      [
        [item, 'voided'],
        [kept, 'owned'],
      ].sort(),
    );
    const only = await call(admin, 'GET', `/api/admin/players/${ada.studioId}/items?state=voided`, { headers: support });
    expect((only.body.items as { studioUuid: string }[]).map((i) => i.studioUuid)).toEqual([item]);
    const events = answers(await call(admin, 'GET', `/api/admin/items/${item}/events?limit=2`, { headers: support }), 200, 'item-events');
    expect((events.body.events as Record<string, unknown>[]).map((e) => [e.seq, e.kind, e.reason, e.actor])).toEqual([
      [3, 'voided', 'Duplicated by an exploit', 'admin:STUDIO_OPERATOR'],
      [2, 'equipped', undefined, undefined],
    ]);
    expect(events.body).toMatchObject({ item: { studioUuid: item, state: 'voided', owner: { studioId: ada.studioId } }, hasMore: true });
    const rest = await call(admin, 'GET', `/api/admin/items/${item}/events?limit=2&cursor=${events.body.cursor as string}`, {
      headers: support,
    });
    expect([(rest.body.events as { kind: string }[]).map((e) => e.kind), rest.body.cursor]).toEqual([['minted'], null]);
    const crossed = await call(admin, 'GET', `/api/admin/items/${kept}/events?cursor=${events.body.cursor as string}`, {
      headers: support,
    });
    expect([crossed.status, crossed.body.detail]).toEqual([400, expect.stringContaining('issued for another item')]);
    const summary = answers(await call(admin, 'GET', `/api/admin/players/${ada.studioId}`, { headers: support }), 200, 'player-summary');
    expect((summary.body.items as { studioUuid: string }[]).map((i) => i.studioUuid)).toEqual([kept]);
    expect(
      (summary.body.itemHistory as { items: { studioUuid: string; state: string }[] }).items.find((i) => i.studioUuid === item)?.state,
    ).toBe('voided');
    const exported = answers(
      await call(admin, 'GET', `/api/admin/players/${ada.studioId}/export`, { headers: support }),
      200,
      'player-export',
    );
    const voidedExport = (exported.body.items as { studioUuid: string; state: string; events: { kind: string; reason?: string }[] }[]).find(
      (i) => i.studioUuid === item,
    );
    expect([voidedExport?.state, voidedExport?.events.map((e) => [e.kind, e.reason])]).toEqual([
      'voided',
      [
        ['minted', undefined],
        ['equipped', undefined],
        ['voided', 'Duplicated by an exploit'],
      ],
    ]);
  });

  it('blanks the reasons of an account’s bag reversals and voids when it is erased; the actors stay', async () => {
    const { ada, reverse, history, server, ops, support } = await stocked();
    expect((await reverse({ sourceRef: 'bag-grant:drop-0000-0001', idempotencyKey: 'fix-0000-00011' })).status).toBe(200);
    const item = await mintFor(server, ada.studioId, 'erase-mint-001');
    expect(
      (
        await call(admin, 'POST', `/api/admin/items/${item}/void`, {
          body: { reason: 'About Ada', idempotencyKey: 'void-0000-0004' },
          headers: ops,
        })
      ).status,
    ).toBe(200);
    const erased = await call(admin, 'POST', `/api/admin/players/${ada.studioId}/erase`, {
      body: { reason: 'data request', idempotencyKey: 'erase-000-0001' },
      headers: ops,
    });
    expect(erased.status).toBe(200);
    expect((await history()).body.entries).toContainEqual(
      expect.objectContaining({ sourceRef: 'bag-reversal:fix-0000-00011', reason: '', actor: 'admin:STUDIO_OPERATOR' }),
    );
    const events = await call(admin, 'GET', `/api/admin/items/${item}/events`, { headers: support });
    expect((events.body.events as Record<string, unknown>[])[0]).toMatchObject({
      kind: 'voided',
      reason: '',
      actor: 'admin:STUDIO_OPERATOR',
    });
  });
});
