/**
 * Unique-item minting and the item ledger through the player entry (spec 2.6, 4.8, 5.3): only game
 * servers and admins; a mint names a unique-item definition of the catalog and an owner, and its key
 * answers the same id forever (100 parallel mints with one key: one id); instance and definition ids
 * never stand for each other; events follow the transition table (409 after the end) with their own keys.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import type { EntryExports } from '../../api/_lib/http/entry.js';
import * as playerEntry from '../../api/player.js';
import { SAMPLE_OUT } from '../helpers/catalog.js';
import { call, gameApiSuite, newPlayer, responseErrors, tokenFor } from '../helpers/game-api.js';

const player = playerEntry as unknown as EntryExports;
const PASSWORD = 'admin-password-0123456789';
let server: Record<string, string>;
const manifest = JSON.parse(readFileSync(join(SAMPLE_OUT, 'api/v1/canonical-items-manifest.json'), 'utf8')) as {
  items: { uuid: string; kind: string }[];
};
const DEFINITION = manifest.items.find((i) => i.uuid.startsWith('ITEM-'))!.uuid;
const suite = gameApiSuite({ ADMIN_PASSWORD: PASSWORD });
beforeEach(async () => {
  server = { Authorization: `Bearer ${await tokenFor(suite.config, 'STUDIO_GAMESERVER', 'server')}` };
});

const mint = (body: unknown, headers = server) => call(player, 'POST', '/api/uuid', { body, headers });
const event = (id: string, body: unknown, headers = server) => call(player, 'POST', `/api/ledger/${id}/events`, { body, headers });

describe('POST /api/uuid', () => {
  it('lets in game servers, admins and the admin password only, and changes nothing for the others', async () => {
    const p = await newPlayer(suite.config);
    const body = { definitionId: DEFINITION, studioId: p.studioId, idempotencyKey: 'auth-mint-0001' };
    expect((await mint(body, {})).status).toBe(401);
    expect((await mint(body, p.auth)).status).toBe(403);
    expect((await mint(body, { Authorization: `Bearer ${await tokenFor(suite.config, p.studioId, 'member')}` })).status).toBe(403);
    expect((await call(player, 'GET', `/api/ledger/7d6a3c58-0b8e-4c1f-9a41-7f0e5d2b9c10`, { headers: p.auth })).status).toBe(403);
    const admin = await mint(body, { Authorization: `Bearer ${await tokenFor(suite.config, 'STUDIO_OP', 'admin')}` });
    expect(admin.status).toBe(201);
    expect(responseErrors('item-minted', admin.body)).toEqual([]);
    const byPassword = await mint(body, { 'X-Admin-Password': PASSWORD });
    expect(byPassword.status).toBe(200);
    expect(byPassword.body.item).toEqual(admin.body.item);
  });

  it('mints an instance of a catalog definition for an owner; a retry answers the same id; 100 parallel mints with one key make one', async () => {
    const p = await newPlayer(suite.config);
    const outs = await Promise.all(
      Array.from({ length: 100 }, () => mint({ definitionId: DEFINITION, accountId: p.accountId, idempotencyKey: 'parallel-mint-1' })),
    );
    expect(outs.filter((o) => o.status === 201)).toHaveLength(1);
    expect(outs.filter((o) => o.status === 200)).toHaveLength(99);
    const ids = new Set(outs.map((o) => (o.body.item as { studioUuid: string }).studioUuid));
    expect(ids.size).toBe(1);
    const first = outs.find((o) => o.status === 201)!;
    expect(first.headers.get('location')).toBe(`/api/ledger/${[...ids][0]}`);
    expect(first.body.item).toMatchObject({
      definitionId: DEFINITION,
      state: 'owned',
      owner: { accountId: p.accountId, studioId: p.studioId },
      seq: 1,
    });
    expect(outs.find((o) => o.status === 200)!.headers.get('idempotent-replayed')).toBe('true');
    const reused = await mint({
      definitionId: DEFINITION,
      studioId: (await newPlayer(suite.config, 'Other')).studioId,
      idempotencyKey: 'parallel-mint-1',
    });
    expect(reused.status).toBe(422);
  });

  it('refuses what is not a unique-item definition, a bad owner selector and an unknown owner, minting nothing', async () => {
    const p = await newPlayer(suite.config);
    const cases: [unknown, number, string[]][] = [
      [
        { definitionId: 'ITEM-20990101000000-000000-00000000', studioId: p.studioId, idempotencyKey: 'bad-mint-01' },
        400,
        ['/definitionId'],
      ],
      [
        { definitionId: 'MATL-20260601090000-000101-F469B3E9', studioId: p.studioId, idempotencyKey: 'bad-mint-02' },
        400,
        ['/definitionId'],
      ],
      [{ definitionId: DEFINITION, studioId: p.studioId, accountId: p.accountId, idempotencyKey: 'bad-mint-03' }, 400, []],
      [{ definitionId: DEFINITION, idempotencyKey: 'bad-mint-04' }, 400, []],
      [{ definitionId: DEFINITION, studioId: p.studioId, idempotencyKey: 'short' }, 400, ['/idempotencyKey']],
      [{ definitionId: DEFINITION, studioId: 'STUDIO_NOBODY', idempotencyKey: 'bad-mint-05' }, 404, []],
    ];
    for (const [body, status, fields] of cases) {
      const r = await mint(body);
      expect(r.status, JSON.stringify(body)).toBe(status);
      for (const f of fields) expect(r.body.errors!.map((e) => e.name)).toContain(f);
    }
    // the refused keys are free: the first good mint with one of them is a new item
    expect((await mint({ definitionId: DEFINITION, studioId: p.studioId, idempotencyKey: 'bad-mint-01' })).status).toBe(201);
  });
});

describe('/api/ledger/{studio_uuid}', () => {
  it('never takes a definition id for an instance id; an unknown instance is 404', async () => {
    const defn = await call(player, 'GET', `/api/ledger/${DEFINITION}`, { headers: server });
    expect(defn.status).toBe(400);
    expect(String(defn.body.detail)).toMatch(/definition id/);
    expect((await call(player, 'GET', '/api/ledger/7d6a3c58-0b8e-4c1f-9a41-7f0e5d2b9c10', { headers: server })).status).toBe(404);
    for (const key of ['not-a-uuid', 'x7d6a3c58-0b8e-4c1f-9a41-7f0e5d2b9c10', 'xITEM-20260601093000-00010D-B1F512C1']) {
      const bad = await call(player, 'GET', `/api/ledger/${key}`, { headers: server });
      expect([bad.status, bad.body.detail]).toEqual([400, 'An item instance is named by its studio_uuid, an RFC 4122 uuid.']);
    }
    expect(String((await call(player, 'GET', `/api/ledger/${DEFINITION}x${'9'.repeat(80)}`, { headers: server })).body.detail)).toBe(
      `"${`${DEFINITION}x${'9'.repeat(80)}`.slice(0, 60)}" is a definition id; an item instance is named by its studio_uuid (an RFC 4122 uuid).`,
    );
    expect((await event('7d6a3c58-0b8e-4c1f-9a41-7f0e5d2b9c10', { event: 'consumed', idempotencyKey: 'ghost-event-1' })).status).toBe(404);
  });

  it("records the item's life by the transition table and answers its history and current owner", async () => {
    const a = await newPlayer(suite.config);
    const b = await newPlayer(suite.config, 'Bo');
    const hero = await call(player, 'POST', '/api/characters', {
      body: { era: 'warlords', name: 'Ada', classId: 'warrior', raceId: 'human', factionId: 'crusade' },
      headers: a.auth,
    });
    const heroId = (hero.body.character as { id: string }).id;
    const minted = await mint({ definitionId: DEFINITION, studioId: a.studioId, idempotencyKey: 'life-mint-01' });
    const id = (minted.body.item as { studioUuid: string }).studioUuid;
    const other = await newPlayer(suite.config, 'Cy');
    const foreignHero = await call(player, 'POST', '/api/characters', {
      body: { era: 'warlords', name: 'Cy', classId: 'mage', raceId: 'human', factionId: 'crusade' },
      headers: other.auth,
    });
    const bad = await event(id, {
      event: 'equipped',
      idempotencyKey: 'life-ev-00',
      characterId: (foreignHero.body.character as { id: string }).id,
    });
    expect(bad.status).toBe(400);
    expect(bad.body.errors!.map((e) => e.name)).toEqual(['/characterId']);
    expect((await event(id, { event: 'equipped', idempotencyKey: 'life-ev-01' })).status).toBe(400);
    const equipped = await event(id, { event: 'equipped', idempotencyKey: 'life-ev-02', characterId: heroId });
    expect(equipped.status).toBe(201);
    expect(responseErrors('item-event', equipped.body)).toEqual([]);
    const again = await event(id, { event: 'equipped', idempotencyKey: 'life-ev-02', characterId: heroId });
    expect(again.status).toBe(200);
    expect(again.body).toEqual({ ...equipped.body, idempotent: true });
    expect([equipped.headers.get('idempotent-replayed'), again.headers.get('idempotent-replayed')]).toEqual([null, 'true']);
    const blocked = await event(id, { event: 'transferred', idempotencyKey: 'life-ev-03', toStudioId: b.studioId });
    expect(blocked.status).toBe(409);
    expect(String(blocked.body.detail)).toMatch(/equipped/);
    expect((await event(id, { event: 'unequipped', idempotencyKey: 'life-ev-04' })).status).toBe(201);
    expect((await event(id, { event: 'transferred', idempotencyKey: 'life-ev-05', toStudioId: a.studioId })).status).toBe(400);
    expect((await event(id, { event: 'transferred', idempotencyKey: 'life-ev-06', toStudioId: 'STUDIO_NOBODY' })).status).toBe(404);
    expect((await event(id, { event: 'transferred', idempotencyKey: 'life-ev-07' })).status).toBe(400);
    const moved = await event(id, { event: 'transferred', idempotencyKey: 'life-ev-08', toAccountId: b.accountId });
    expect(moved.body.item).toMatchObject({ owner: { studioId: b.studioId }, state: 'owned' });
    expect((await event(id, { event: 'consumed', idempotencyKey: 'life-ev-09' })).status).toBe(201);
    for (const [n, e] of ['assigned', 'equipped', 'unequipped', 'transferred', 'consumed', 'destroyed'].entries()) {
      const r = await event(id, { event: e, idempotencyKey: `life-after-${n}`, characterId: heroId, toStudioId: a.studioId });
      expect([400, 409], e).toContain(r.status);
    }
    expect((await event(id, { event: 'destroyed', idempotencyKey: 'life-ev-10' })).status).toBe(409);
    const history = await call(player, 'GET', `/api/ledger/${id.toUpperCase()}`, { headers: server });
    expect(history.status).toBe(200);
    expect(responseErrors('item-history', history.body)).toEqual([]);
    expect(history.body).toMatchObject({ studioUuid: id, state: 'consumed', owner: { studioId: b.studioId } });
    expect((history.body.events as { kind: string }[]).map((e) => e.kind)).toEqual([
      'minted',
      'equipped',
      'unequipped',
      'transferred',
      'consumed',
    ]);
  });
});

describe('the transition table, every event from every state', () => {
  // spec 4.8 via the module header of api/_lib/player/items.ts, written out here on purpose
  const TABLE: Record<string, { from: string[]; to: string }> = {
    assigned: { from: ['owned', 'assigned'], to: 'assigned' },
    equipped: { from: ['owned', 'assigned'], to: 'equipped' },
    unequipped: { from: ['equipped'], to: 'owned' },
    transferred: { from: ['owned', 'assigned'], to: 'owned' },
    consumed: { from: ['owned', 'assigned', 'equipped'], to: 'consumed' },
    destroyed: { from: ['owned', 'assigned', 'equipped'], to: 'destroyed' },
  };
  const PATH: Record<string, string[]> = {
    owned: [],
    assigned: ['assigned'],
    equipped: ['equipped'],
    consumed: ['consumed'],
    destroyed: ['destroyed'],
  };

  it('moves an item only along the table, answering 409 naming the state otherwise, and changing nothing then', async () => {
    const a = await newPlayer(suite.config);
    const b = await newPlayer(suite.config, 'Bo');
    const hero = await call(player, 'POST', '/api/characters', {
      body: { era: 'warlords', name: 'Ada', classId: 'warrior', raceId: 'human', factionId: 'crusade' },
      headers: a.auth,
    });
    const heroId = (hero.body.character as { id: string }).id;
    const fields = (e: string) =>
      e === 'assigned' || e === 'equipped' ? { characterId: heroId } : e === 'transferred' ? { toStudioId: b.studioId } : {};
    let n = 0;
    for (const state of Object.keys(PATH)) {
      for (const [e, rule] of Object.entries(TABLE)) {
        n++;
        const id = (
          (await mint({ definitionId: DEFINITION, studioId: a.studioId, idempotencyKey: `matrix-mint-${n}` })).body.item as {
            studioUuid: string;
          }
        ).studioUuid;
        for (const step of PATH[state]!)
          expect((await event(id, { event: step, idempotencyKey: `matrix-${n}-${step}`, ...fields(step) })).status).toBe(201);
        const r = await event(id, { event: e, idempotencyKey: `matrix-${n}-try`, ...fields(e) });
        const history = await call(player, 'GET', `/api/ledger/${id}`, { headers: server });
        if (rule.from.includes(state)) {
          expect([state, e, r.status]).toEqual([state, e, 201]);
          expect(r.body.item).toMatchObject({ state: rule.to, owner: { studioId: e === 'transferred' ? b.studioId : a.studioId } });
          expect((r.body.item as { characterId: string | null }).characterId).toBe(
            rule.to === 'assigned' || rule.to === 'equipped' ? heroId : null,
          );
          expect((history.body.events as unknown[]).length).toBe(PATH[state]!.length + 2);
        } else {
          expect([state, e, r.status]).toEqual([state, e, 409]);
          expect(String(r.body.detail)).toContain(`The item is ${state}: it cannot be ${e}`);
          expect(history.body).toMatchObject({ state, owner: { studioId: a.studioId } });
          expect((history.body.events as unknown[]).length).toBe(PATH[state]!.length + 1);
        }
      }
    }
  });
});
