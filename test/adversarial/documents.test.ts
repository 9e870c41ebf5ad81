/**
 * Bounded documents (spec 2.8, 2.9; docs/architecture.md "Request bodies", "Player state";
 * `api/_lib/http/body.ts` `MAX_BODY_DEPTH`, `api/_lib/player/service.ts` `ISLAND_MAX_BYTES`,
 * `schemas/requests/island-state.schema.json`, `character-progress.schema.json`), attacked through the
 * player and admin entries on both stores: a body nested 10,000 levels deep, whole or cut short, is a 4xx
 * and never a 5xx, on every kind of route (a merge patch, a credit, the public login); no order of writes
 * carries an island past its byte cap or its counter cap, nor leaves it unwritable; repeated progress
 * patches cannot wear more slots than a character has.
 */
import { expect, it } from 'vitest';
import { ISLAND_MAX_BYTES } from '../../api/_lib/player/service.js';
import {
  ADMIN_PASSWORD,
  admin,
  call,
  callRaw,
  errorNames,
  mintFor,
  newCharacter,
  newPlayer,
  onEachStore,
  player,
  quietLog,
  serverAuth,
} from './helpers.js';

quietLog();

const DEPTH = 10_000;
/** Bodies nested {@link DEPTH} levels under `field`: whole, and cut short (no closing brackets). */
const deepBodies = (field: string): [string, string][] => [
  ['objects', `{"${field}":${'{"a":'.repeat(DEPTH)}1${'}'.repeat(DEPTH)}}`],
  ['arrays', `{"${field}":${'['.repeat(DEPTH)}${']'.repeat(DEPTH)}}`],
  ['objects cut short', `{"${field}":${'{"a":'.repeat(DEPTH)}`],
  ['arrays cut short', `{"${field}":${'['.repeat(DEPTH)}`],
];

onEachStore('bounded documents', (store) => {
  it(`answers a body nested ${DEPTH} levels deep, whole or cut short, with a 4xx and never a 5xx, on every kind of route`, async () => {
    const config = await store.fresh();
    const server = await serverAuth(config);
    const ada = await newPlayer(config, 'Ada');
    const character = await newCharacter(ada.auth);
    const routes: [string, string, string, Record<string, string>][] = [
      ['PATCH', '/api/island/state', 'stats', { ...ada.auth, 'If-Match': '"1"', 'Content-Type': 'application/merge-patch+json' }],
      ['PATCH', `/api/characters/${character}/progress`, 'progress', { ...server, 'If-Match': '"1"' }],
      ['POST', '/api/admin/grant-coin', 'reason', { 'X-Admin-Password': ADMIN_PASSWORD }],
      ['POST', '/api/auth/external', 'token', {}],
    ];
    const answered: Record<string, string> = {};
    const wanted: Record<string, string> = {};
    for (const [method, path, field, headers] of routes) {
      for (const [shape, body] of deepBodies(field)) {
        const entry = path.startsWith('/api/admin') ? admin : player;
        const r = await callRaw(entry, method, path, body, headers);
        answered[`${method} ${path.replace(character, '{id}')}: ${shape}`] = `${r.status} ${String(r.body.code)}`;
        wanted[`${method} ${path.replace(character, '{id}')}: ${shape}`] = '400 INVALID_BODY';
      }
    }
    expect(answered).toEqual(wanted);
    expect((await call(player, 'GET', '/api/island/state', { headers: ada.auth })).body.revision).toBe(1);
  });

  it('keeps an island within its byte cap and its 64 counters whatever order writes come in, and writable by its player', async () => {
    const config = await store.fresh();
    const server = await serverAuth(config);
    const ada = await newPlayer(config, 'Ada');
    const query = `?studioId=${ada.studioId}`;
    const long = (i: number) => -511 + (i % 1000) / 1000 + 1e-12;
    // a game server fills the island to the brim of each cap, within the caps
    const nodes = Array.from({ length: 2000 }, (_, i) => ({
      id: `n${String(i).padStart(63, '0')}`,
      nodeUuid: `NODE-${String(i).padStart(80, '0')}`,
      kind: 'k'.repeat(64),
      position: { x: long(i), z: long(i + 1), y: -99.123456789012 },
      zone: 'clearing',
    }));
    const animals = Array.from({ length: 500 }, (_, i) => ({
      id: `a${String(i).padStart(63, '0')}`,
      species: 's'.repeat(64),
      position: { x: long(i), z: long(i + 7), y: -99.123456789012 },
    }));
    const stats: Record<string, number | null> = { exports: null, nodes: null, animals: null };
    for (let i = 0; i < 64; i++) stats[`counter${'x'.repeat(40)}${i}`] = 123456789.123456;
    const filled = await call(player, 'PATCH', `/api/island/state${query}`, {
      body: { nodes, animals, stats },
      headers: { ...server, 'If-Match': '"1"' },
    });
    expect(filled.status).toBe(200);
    expect(Buffer.byteLength(JSON.stringify(filled.body.state))).toBeLessThanOrEqual(ISLAND_MAX_BYTES);
    // then the player exports the RTS terrain with heights of its own
    const heightmap = Array.from({ length: 128 * 128 }, (_, i) => -27.99999999999999 + (i % 7) * 1e-14);
    const exported = await call(player, 'POST', '/api/island/export-from-rts', {
      body: { gridX: 0, gridZ: 0, seed: 7, biome: 'forest', heightmap },
      headers: { ...ada.auth, 'If-Match': filled.headers.get('etag')! },
    });
    expect(exported.status).toBeLessThan(500);
    const now = await call(player, 'GET', '/api/island/state', { headers: ada.auth });
    const state = now.body.state as { stats: Record<string, number> };
    // whatever happened, the player can still move its camp
    const camp = await call(player, 'PATCH', '/api/island/state', {
      body: { campPosition: { x: 5, z: 5 } },
      headers: { ...ada.auth, 'If-Match': now.headers.get('etag')! },
    });
    const bytes = Buffer.byteLength(JSON.stringify(state));
    expect({
      withinBytes: bytes <= ISLAND_MAX_BYTES ? true : `${bytes} bytes`,
      counters: Object.keys(state.stats).length,
      camp: [camp.status, errorNames(camp)],
    }).toEqual({ withinBytes: true, counters: 64, camp: [200, []] });
  });

  it('lets repeated progress patches wear at most 32 slots, one more slot at a time being refused, the stored progress unchanged', async () => {
    const config = await store.fresh();
    const server = await serverAuth(config);
    const ada = await newPlayer(config, 'Ada');
    const path = `/api/characters/${await newCharacter(ada.auth)}/progress`;
    let revision = 1;
    for (let i = 0; i <= 32; i++) {
      const item = await mintFor(server, ada.studioId, `slots-mint-${String(i).padStart(3, '0')}`);
      const r = await call(player, 'PATCH', path, {
        body: { idempotencyKey: `slots-wear-${String(i).padStart(3, '0')}`, progress: { equipment_on_body: { [`slot_${i}`]: item } } },
        headers: { ...server, 'If-Match': `"${revision}"` },
      });
      if (i < 32) {
        expect(r.status, `slot ${i}`).toBe(200);
        revision = r.body.progress_revision as number;
      } else expect([r.status, errorNames(r)]).toEqual([400, ['/progress/equipment_on_body']]);
    }
    const stored = await call(player, 'GET', path, { headers: server });
    expect([stored.body.progress_revision, Object.keys(stored.body.equipment_on_body as object).length]).toEqual([33, 32]);
  });
});
