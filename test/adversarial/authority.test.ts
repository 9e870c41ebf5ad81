/**
 * Server authority over player state (spec 1.8, 2.6, 2.8, 2.9, 4.8; `api/_lib/player/authority.ts`; docs/api.md
 * "Security"), attacked through the player entry on both stores. A player's token (of role `player` or
 * `member`) cannot write progression, equipment, recipes or the island's derived fields, neither by
 * setting them nor by removing them with a merge patch's `null`, nor for another account; a game server
 * cannot write what only the service derives; what a game server equips is checked against the item
 * ledger in the write. Every refusal is a 403 or 400 problem+json that says why, and changes nothing.
 */
import { expect, it } from 'vitest';
import {
  ADMIN_PASSWORD,
  call,
  errorNames,
  ITEM_DEFINITION,
  MATERIAL,
  mintFor,
  newCharacter,
  newPlayer,
  onEachStore,
  player,
  quietLog,
  serverAuth,
  SKILL,
  tokenFor,
  type Answer,
} from './helpers.js';

quietLog();

/** The messages of a refusal's `errors[]`. */
const messages = (a: Answer) => (a.body.errors ?? []).map((e) => e.message);

onEachStore('server authority', (store) => {
  it("refuses a player's writes of what confers power or is derived, also as a removal or for another account, changing nothing", async () => {
    const config = await store.fresh();
    const ada = await newPlayer(config, 'Ada');
    const bo = await newPlayer(config, 'Bo');
    const member = { Authorization: `Bearer ${await tokenFor(config, ada.studioId, 'member')}` };
    const character = await newCharacter(ada.auth);
    const progress = `/api/characters/${character}/progress`;
    const patchProgress = (headers: Record<string, string>, key: string, body: Record<string, unknown>) =>
      call(player, 'PATCH', progress, { body: { idempotencyKey: key, progress: body }, headers: { ...headers, 'If-Match': '"1"' } });
    const cases: [Record<string, string>, string, Record<string, unknown>, string[]][] = [
      [member, 'member-removes-01', { attributes: null }, ['/progress/attributes']],
      [ada.auth, 'player-empties-01', { equipment_on_body: {} }, ['/progress/equipment_on_body']],
      [
        ada.auth,
        'player-mixes-0001',
        { weapon_mastery: { SWORD: 1 }, skill_loadouts: [{ name: 'Main', skills: [SKILL] }] },
        ['/progress/weapon_mastery'],
      ],
      [member, 'member-levels-001', { profession_levels: { mining: 1 } }, ['/progress/profession_levels']],
    ];
    for (const [headers, key, body, names] of cases) {
      const r = await patchProgress(headers, key, body);
      expect([r.status, errorNames(r)], key).toEqual([403, names]);
      expect(
        messages(r).every((m) => m.endsWith('only a game server writes it.')),
        key,
      ).toBe(true);
    }
    expect((await call(player, 'GET', progress, { headers: ada.auth })).body.progress_revision).toBe(1);

    const island = await call(player, 'GET', '/api/island/state', { headers: ada.auth });
    const seed = (island.body.state as { seed: number }).seed;
    const patchIsland = (headers: Record<string, string>, body: Record<string, unknown>, query = '') =>
      call(player, 'PATCH', `/api/island/state${query}`, { body, headers: { ...headers, 'If-Match': '"1"' } });
    for (const field of ['seed', 'rtsExport', 'rtsHeightmap', 'rtsNatureScatter', 'terrainZones', 'mountainTriad']) {
      const r = await patchIsland(member, { [field]: null });
      expect([r.status, errorNames(r)], field).toEqual([403, [`/${field}`]]);
      expect(messages(r)[0], field).toMatch(/: no request writes it\.$/);
    }
    const world = await patchIsland(ada.auth, { stats: { visits: 1 }, campPosition: { x: 1, z: 2 } });
    expect([world.status, errorNames(world)]).toEqual([403, ['/stats']]);
    // a game server writes world state, never what the service derives
    const server = await patchIsland({ 'X-Admin-Password': ADMIN_PASSWORD }, { seed: seed + 1 }, `?studioId=${ada.studioId}`);
    expect([server.status, errorNames(server)]).toEqual([403, ['/seed']]);
    // a player's token acts for its own account only
    const foreign = await patchIsland(ada.auth, { campPosition: { x: 3, z: 4 } }, `?studioId=${bo.studioId}`);
    expect(foreign.status).toBe(403);
    const recipe = await call(player, 'POST', '/api/account/recipes', {
      body: { studioId: ada.studioId, recipeId: 'RECP-20260601100000-000123-64A3D698' },
      headers: member,
    });
    expect(recipe.status).toBe(403);
    const bag = await call(player, 'POST', '/api/inventory/grant', {
      body: { studioId: ada.studioId, definitionId: MATERIAL, quantity: 5, idempotencyKey: 'player-grants-01' },
      headers: ada.auth,
    });
    expect(bag.status).toBe(403);
    for (const p of [ada, bo]) {
      const now = await call(player, 'GET', '/api/island/state', { headers: p.auth });
      expect(now.body.revision, p.studioId).toBe(1);
    }
    expect((await call(player, 'GET', '/api/account/recipes', { headers: ada.auth })).body.recipes).toEqual([]);
    expect((await call(player, 'GET', '/api/inventory', { headers: ada.auth })).body.stackables).toEqual([]);

    // the export a player may ask for derives terrain; it never moves the island's own seed
    const exported = await call(player, 'POST', '/api/island/export-from-rts', {
      body: { gridX: 1, gridZ: 2, seed: (seed + 99) % 4294967295, biome: 'beach' },
      headers: { ...ada.auth, 'If-Match': '"1"' },
    });
    expect(exported.status).toBe(200);
    expect((exported.body.state as { seed: number }).seed).toBe(seed);
  });

  it("checks a game server's equipment against the item ledger in the write: another's, unminted, consumed or worn elsewhere is refused", async () => {
    const config = await store.fresh();
    const server = await serverAuth(config);
    const ada = await newPlayer(config, 'Ada');
    const bo = await newPlayer(config, 'Bo');
    const hero = await newCharacter(ada.auth);
    const twin = await newCharacter(ada.auth, { name: 'Twin' });
    const event = (item: string, body: Record<string, unknown>) =>
      call(player, 'POST', `/api/ledger/${item}/events`, { body, headers: server });
    const theirs = await mintFor(server, bo.studioId, 'authority-bo-0001');
    const eaten = await mintFor(server, ada.studioId, 'authority-eat-001');
    expect((await event(eaten, { event: 'consumed', idempotencyKey: 'authority-eat-002' })).status).toBe(201);
    const worn = await mintFor(server, ada.studioId, 'authority-worn-01');
    expect((await event(worn, { event: 'equipped', characterId: twin, idempotencyKey: 'authority-worn-02' })).status).toBe(201);
    const path = `/api/characters/${hero}/progress`;
    const wear = (key: string, slots: Record<string, unknown>, character = path) =>
      call(player, 'PATCH', character, {
        body: { idempotencyKey: key, progress: { equipment_on_body: slots } },
        headers: { ...server, 'If-Match': '"1"' },
      });
    const cases: [string, string, string][] = [
      ['another account’s item', theirs, 'belongs to another account'],
      ['an id no item has', '7d6a3c58-0b8e-4c1f-9a41-7f0e5d2b9c10', 'is not a minted item'],
      ['a consumed item', eaten, 'is consumed, destroyed, voided, or worn by another character'],
      ['an item worn by another character', worn, 'is consumed, destroyed, voided, or worn by another character'],
    ];
    for (const [what, id, why] of cases) {
      const r = await wear(`authority-${what.length}-${id.slice(0, 8)}`, { main_hand: id });
      expect([r.status, errorNames(r), messages(r)], what).toEqual([400, ['/progress/equipment_on_body'], [`${id} ${why}.`]]);
    }
    // every refused item named at once, and a definition id is no instance id
    const all = await wear('authority-all-0001', { main_hand: theirs, off_hand: eaten });
    expect(messages(all).sort()).toEqual(
      [`${eaten} is consumed, destroyed, voided, or worn by another character.`, `${theirs} belongs to another account.`].sort(),
    );
    const definition = await wear('authority-def-0001', { main_hand: ITEM_DEFINITION });
    expect(definition.status).toBe(400);
    expect((await call(player, 'GET', path, { headers: server })).body.progress_revision).toBe(1);
    // the character that wears it per the ledger may list it
    const own = await wear('authority-own-0001', { main_hand: worn }, `/api/characters/${twin}/progress`);
    expect([own.status, own.body.equipment_on_body]).toEqual([200, { main_hand: worn }]);
  });
});
