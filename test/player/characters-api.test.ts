/**
 * The characters and account-recipes routes through their entry files (spec 2.6, 2.8, 4.8, 5.4): who
 * may call; eras (any other value is 400, never a default); creation checked against the catalog's
 * world definitions, within the era's slots, replayed by its idempotency key; `characters.id` as the only
 * key (an STDG-* stamp is a 400 that says so; another account's character is 404); progress changes
 * under `If-Match` once per idempotency key, with account-scoped fields refused, what a player may write
 * apart from what only a game server writes, and the merged progress checked whole; recipes of the
 * catalog taught by game servers once.
 */
import { describe, expect, it } from 'vitest';
import type { EntryExports } from '../../api/_lib/http/entry.js';
import * as playerEntry from '../../api/player.js';
import { call, gameApiSuite, newPlayer, responseErrors, serverAuth, tokenFor } from '../helpers/game-api.js';

const characters = playerEntry as unknown as EntryExports;
const account = characters;
const suite = gameApiSuite();

const hero = { era: 'warlords', name: "Ada O'Neil", classId: 'warrior', raceId: 'human', factionId: 'crusade' };

async function create(auth: Record<string, string>, body: Record<string, unknown> = hero) {
  const r = await call(characters, 'POST', '/api/characters', { body, headers: auth });
  if (r.status < 300) expect(responseErrors('game-character', r.body)).toEqual([]);
  return r;
}
const idOf = (r: { body: Record<string, unknown> }) => (r.body.character as { id: string }).id;

describe('who may call', () => {
  it('refuses no token, a guest and an expired token (401) on every route; a token without an account is 404', async () => {
    const p = await newPlayer(suite.config);
    const c = await create(p.auth);
    const guest = await tokenFor(suite.config, p.studioId, 'player', { guest: true });
    const expired = await tokenFor(suite.config, p.studioId, 'player', { now: Math.floor(Date.now() / 1000) - 7200, ttlSeconds: 60 });
    const routes: [EntryExports, string, string, unknown][] = [
      [characters, 'GET', '/api/characters?era=warlords', undefined],
      [characters, 'POST', '/api/characters', hero],
      [characters, 'GET', `/api/characters/${idOf(c)}/progress`, undefined],
      [
        characters,
        'PATCH',
        `/api/characters/${idOf(c)}/progress`,
        { idempotencyKey: 'auth-matrix-1', progress: { attributes: { STR: 1 } } },
      ],
      [account, 'GET', '/api/account/recipes', undefined],
      [account, 'POST', '/api/account/recipes', { studioId: 'STUDIO_NOBODY0000000000', recipeId: 'RECP-20260601100000-000123-64A3D698' }],
    ];
    for (const [entry, method, path, body] of routes) {
      const none = await call(entry, method, path, { body, headers: { 'If-Match': '"1"' } });
      expect(none.status, `${method} ${path}`).toBe(401);
      expect(none.headers.get('www-authenticate')).toMatch(/^Bearer/);
      for (const t of [guest, expired])
        expect((await call(entry, method, path, { body, headers: { Authorization: `Bearer ${t}`, 'If-Match': '"1"' } })).status).toBe(401);
    }
    const stranger = { Authorization: `Bearer ${await tokenFor(suite.config, 'STUDIO_NOBODY0000000000')}` };
    expect((await call(characters, 'GET', '/api/characters?era=warlords', { headers: stranger })).status).toBe(404);
    // nothing changed: one character, revision 1, no recipes
    expect(((await call(characters, 'GET', '/api/characters?era=warlords', { headers: p.auth })).body.characters as unknown[]).length).toBe(
      1,
    );
    expect((await call(characters, 'GET', `/api/characters/${idOf(c)}/progress`, { headers: p.auth })).body.progress_revision).toBe(1);
    expect((await call(account, 'GET', '/api/account/recipes', { headers: p.auth })).body).toEqual({ recipes: [] });
  });
});

describe('GET and POST /api/characters', () => {
  it("lists the caller's characters of an era, oldest first; a missing or unknown era is 400", async () => {
    const p = await newPlayer(suite.config);
    const first = await create(p.auth);
    expect(first.status).toBe(201);
    expect(first.headers.get('location')).toBe(`/api/characters/${idOf(first)}/progress`);
    const second = await create(p.auth, { ...hero, name: 'Bo' });
    await create(p.auth, { ...hero, era: 'voxel', name: 'Cy' });
    const list = await call(characters, 'GET', '/api/characters?era=warlords', { headers: p.auth });
    expect(list.status).toBe(200);
    expect(responseErrors('game-characters-list', list.body)).toEqual([]);
    expect((list.body.characters as { id: string }[]).map((c) => c.id)).toEqual([idOf(first), idOf(second)]);
    expect(first.body.character).toMatchObject({
      era: 'warlords',
      name: "Ada O'Neil",
      classId: 'warrior',
      raceId: 'human',
      factionId: 'crusade',
      progress_revision: 1,
      studioCode: expect.stringMatching(/^STDG-/) as unknown,
    });
    for (const q of ['', '?era=', '?era=pirates', '?era=warlords&era=voxel', '?era=warlords&studioId=STUDIO_X']) {
      const r = await call(characters, 'GET', `/api/characters${q}`, { headers: p.auth });
      expect(r.status, q).toBe(400);
      expect(r.body.code).toBe('INVALID_QUERY');
    }
    // an enumerated parameter compares without case, as on every route, and answers its declared spelling
    expect((await call(characters, 'GET', '/api/characters?era=WARLORDS', { headers: p.auth })).body.era).toBe('warlords');
    const other = await newPlayer(suite.config, 'Other');
    expect((await call(characters, 'GET', '/api/characters?era=warlords', { headers: other.auth })).body.characters).toEqual([]);
  });

  it('checks class, race and faction against the catalog, all at once, and writes nothing for a refusal', async () => {
    const p = await newPlayer(suite.config);
    const bad = await create(p.auth, { era: 'armada', name: 'X', classId: 'bard', raceId: 'orc', factionId: 'pirates', extra: 1 });
    expect(bad.status).toBe(400);
    expect([...new Set(bad.body.errors!.map((e) => e.name))].sort()).toEqual(['/extra', '/name']);
    const unknown = await create(p.auth, { ...hero, classId: 'bard', raceId: 'orc', factionId: 'pirates' });
    expect(unknown.status).toBe(400);
    expect(unknown.body.errors!.map((e) => e.name)).toEqual(['/classId', '/raceId', '/factionId']);
    const mismatch = await create(p.auth, { ...hero, raceId: 'sylvan', factionId: 'legion' });
    expect(mismatch.status).toBe(400);
    expect(mismatch.body.errors).toEqual([{ name: '/raceId', message: 'Race "sylvan" does not belong to faction "legion".' }]);
    expect((await call(characters, 'GET', '/api/characters?era=warlords', { headers: p.auth })).body.characters).toEqual([]);
  });

  it('keeps to 4 characters per era (409 beyond, also when racing) and replays an idempotency key', async () => {
    const p = await newPlayer(suite.config);
    const outs = await Promise.all(Array.from({ length: 6 }, (_, i) => create(p.auth, { ...hero, name: `Hero ${i}` })));
    expect(outs.map((o) => o.status).sort()).toEqual([201, 201, 201, 201, 409, 409]);
    expect(outs.find((o) => o.status === 409)!.body.code).toBe('CONFLICT');
    const voxel = await create(p.auth, { ...hero, era: 'voxel', idempotencyKey: 'create-voxel-1' });
    expect(voxel.status).toBe(201);
    const again = await create(p.auth, { ...hero, era: 'voxel', idempotencyKey: 'create-voxel-1' });
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual({ ...voxel.body, created: false });
    const reused = await create(p.auth, { ...hero, era: 'voxel', name: 'Other', idempotencyKey: 'create-voxel-1' });
    expect(reused.status).toBe(422);
    expect(((await call(characters, 'GET', '/api/characters?era=voxel', { headers: p.auth })).body.characters as unknown[]).length).toBe(1);
  });
});

describe('GET and PATCH /api/characters/{id}/progress', () => {
  it("takes characters.id only: an STDG stamp is a 400 that says so; another account's character is 404", async () => {
    const p = await newPlayer(suite.config);
    const c = await create(p.auth);
    const stamp = (c.body.character as { studioCode: string }).studioCode;
    const r = await call(characters, 'GET', `/api/characters/${stamp}/progress`, { headers: p.auth });
    expect(r.status).toBe(400);
    expect(String(r.body.detail)).toMatch(/display stamp.*never a key/);
    expect((await call(characters, 'GET', '/api/characters/not-a-uuid/progress', { headers: p.auth })).status).toBe(400);
    const other = await newPlayer(suite.config, 'Other');
    const foreign = await call(characters, 'GET', `/api/characters/${idOf(c)}/progress`, { headers: other.auth });
    const missing = await call(characters, 'GET', '/api/characters/7d6a3c58-0b8e-4c1f-9a41-7f0e5d2b9c10/progress', { headers: other.auth });
    expect(foreign.status).toBe(404);
    expect({ ...foreign.body, instance: '', requestId: '' }).toEqual({ ...missing.body, instance: '', requestId: '' });
    const own = await call(characters, 'GET', `/api/characters/${idOf(c).toUpperCase()}/progress`, { headers: p.auth });
    expect(own.status).toBe(200);
    expect(responseErrors('character-progress', own.body)).toEqual([]);
    expect(own.body).toMatchObject({
      characterId: idOf(c),
      game_era: 'warlords',
      attributes: {},
      profession_levels: {},
      equipment_on_body: {},
      weapon_mastery: {},
      skill_loadouts: [],
      progress_revision: 1,
    });
    expect(own.headers.get('etag')).toBe('"1"');
  });

  const skill = 'SKIL-A415-7550-C923';

  it('merges a progress patch under If-Match once per key; replays answer the first result; account-scoped fields are refused', async () => {
    const p = await newPlayer(suite.config);
    const server = await serverAuth(suite.config);
    const id = idOf(await create(p.auth));
    const path = `/api/characters/${id}/progress`;
    const patch = {
      idempotencyKey: 'progress-change-1',
      progress: { attributes: { STR: 12, DEX: 4 }, skill_loadouts: [{ name: 'Main', skills: [skill] }] },
    };
    expect((await call(characters, 'PATCH', path, { body: patch, headers: server })).status).toBe(428);
    const scoped = await call(characters, 'PATCH', path, {
      body: { idempotencyKey: 'progress-change-0', progress: { bag: [], wallet: 5, attributes: { str: 1 } } },
      headers: { ...server, 'If-Match': '"1"' },
    });
    expect(scoped.status).toBe(400);
    expect([...new Set(scoped.body.errors!.map((e) => e.name))].sort()).toEqual([
      // a field name the schema refuses is named by the field itself
      '/progress/attributes/str',
      '/progress/bag',
      '/progress/wallet',
    ]);
    expect(scoped.body.errors!.find((e) => e.name === '/progress/bag')!.message).toMatch(/account-scoped \(spec 2\.8\)/);
    const saved = await call(characters, 'PATCH', path, { body: patch, headers: { ...server, 'If-Match': '"1"' } });
    expect(saved.status).toBe(200);
    expect(responseErrors('character-progress', saved.body)).toEqual([]);
    expect(saved.headers.get('etag')).toBe('"2"');
    expect(saved.body).toMatchObject({
      attributes: { STR: 12, DEX: 4 },
      progress_revision: 2,
      skill_loadouts: patch.progress.skill_loadouts,
    });
    const replay = await call(characters, 'PATCH', path, { body: patch, headers: { ...server, 'If-Match': '"1"' } });
    expect(replay.status).toBe(200);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body).toEqual(saved.body);
    const reused = await call(characters, 'PATCH', path, {
      body: { ...patch, progress: { attributes: { STR: 1 } } },
      headers: { ...server, 'If-Match': '"2"' },
    });
    expect(reused.status).toBe(422);
    const next = await call(characters, 'PATCH', path, {
      body: { idempotencyKey: 'progress-change-2', progress: { attributes: { DEX: null, VIT: 3 }, weapon_mastery: { SWORD: 7 } } },
      headers: { ...server, 'If-Match': '"2"' },
    });
    expect(next.body).toMatchObject({ attributes: { STR: 12, VIT: 3 }, weapon_mastery: { SWORD: 7 }, progress_revision: 3 });
    expect(next.body.attributes).not.toHaveProperty('DEX');
    const stale = await call(characters, 'PATCH', path, {
      body: { idempotencyKey: 'progress-change-3', progress: { attributes: { STR: 1 } } },
      headers: { ...server, 'If-Match': '"2"' },
    });
    expect(stale.status).toBe(412);
    expect(stale.headers.get('etag')).toBe('"3"');
    // the first key again, after later saves: the replay answers the progress as it stands now
    const late = await call(characters, 'PATCH', path, { body: patch, headers: { ...server, 'If-Match': '"1"' } });
    expect([late.status, late.headers.get('idempotent-replayed'), late.body.progress_revision]).toEqual([200, 'true', 3]);
  });

  it("lets a player write its skill loadouts only; progression and equipment are a game server's (403 naming each field)", async () => {
    const p = await newPlayer(suite.config);
    const path = `/api/characters/${idOf(await create(p.auth))}/progress`;
    const refused = await call(characters, 'PATCH', path, {
      body: {
        idempotencyKey: 'player-power-1',
        progress: { attributes: { STR: 99 }, profession_levels: { mining: 200 }, weapon_mastery: { SWORD: 9 } },
      },
      headers: { ...p.auth, 'If-Match': '"1"' },
    });
    expect(refused.status).toBe(403);
    expect(refused.body.errors!.map((e) => e.name).sort()).toEqual([
      '/progress/attributes',
      '/progress/profession_levels',
      '/progress/weapon_mastery',
    ]);
    expect(refused.body.errors!.find((e) => e.name === '/progress/attributes')!.message).toBe(
      '"attributes" is progression a game server writes: only a game server writes it.',
    );
    expect(refused.body.detail).toMatch(/it may write skill_loadouts\.$/);
    const equip = await call(characters, 'PATCH', path, {
      body: { idempotencyKey: 'player-power-2', progress: { equipment_on_body: { main_hand: '7d6a3c58-0b8e-4c1f-9a41-7f0e5d2b9c10' } } },
      headers: { ...p.auth, 'If-Match': '"1"' },
    });
    expect([equip.status, equip.body.errors!.map((e) => e.name)]).toEqual([403, ['/progress/equipment_on_body']]);
    const mine = await call(characters, 'PATCH', path, {
      body: { idempotencyKey: 'player-choice-1', progress: { skill_loadouts: [{ name: 'PvE', skills: [skill] }] } },
      headers: { ...p.auth, 'If-Match': '"1"' },
    });
    expect([mine.status, mine.body.progress_revision]).toEqual([200, 2]);
    // a game server reaches the character by its id, whoever owns it; a player reaches only its own
    const server = await serverAuth(suite.config);
    expect((await call(characters, 'GET', path, { headers: server })).body.progress_revision).toBe(2);
    const other = await newPlayer(suite.config, 'Other');
    expect((await call(characters, 'GET', path, { headers: other.auth })).status).toBe(404);
  });

  it('checks the merged progress whole: caps over many patches, the catalog ids of what changed, and the items it wears', async () => {
    const p = await newPlayer(suite.config);
    const server = await serverAuth(suite.config);
    const path = `/api/characters/${idOf(await create(p.auth))}/progress`;
    let revision = 1;
    const patch = async (key: string, progress: Record<string, unknown>) => {
      const r = await call(characters, 'PATCH', path, {
        body: { idempotencyKey: key, progress },
        headers: { ...server, 'If-Match': `"${revision}"` },
      });
      if (r.status === 200) revision = r.body.progress_revision as number;
      return r;
    };
    // the sample catalog's professions, then more skill loadouts than a character holds, one patch at a time
    for (const [i, name] of ['Main', 'Two', 'Three', 'Four', 'Five', 'Six', 'Seven', 'Eight', 'Nine', 'Ten'].entries()) {
      const loadouts = Array.from({ length: i + 1 }, (_, k) => ({ name: `${name}-${k}`, skills: [skill] }));
      expect((await patch(`caps-${i}-0000`, { skill_loadouts: loadouts })).status).toBe(200);
    }
    const over = await patch('caps-over-0001', { skill_loadouts: Array.from({ length: 11 }, (_, k) => ({ name: `L${k}`, skills: [] })) });
    expect([over.status, over.body.errors!.map((e) => e.name)]).toEqual([400, ['/progress/skill_loadouts']]);
    const unknown = await patch('catalog-ids-01', {
      attributes: { LUK: 3 },
      profession_levels: { alchemy: 2 },
      weapon_mastery: { LASER: 1 },
      skill_loadouts: [{ name: 'x', skills: ['SKIL-0000-0000-0000'] }],
    });
    expect(unknown.status).toBe(400);
    expect(unknown.body.errors!.map((e) => e.name).sort()).toEqual([
      '/progress/attributes/LUK',
      '/progress/profession_levels/alchemy',
      '/progress/skill_loadouts/0/skills/0',
      '/progress/weapon_mastery/LASER',
    ]);
    const stranger = await call(characters, 'PATCH', path, {
      body: { idempotencyKey: 'wear-missing-01', progress: { equipment_on_body: { main_hand: '7d6a3c58-0b8e-4c1f-9a41-7f0e5d2b9c10' } } },
      headers: { ...server, 'If-Match': `"${revision}"` },
    });
    expect([stranger.status, stranger.body.errors![0]!.message]).toEqual([
      400,
      '7d6a3c58-0b8e-4c1f-9a41-7f0e5d2b9c10 is not a minted item.',
    ]);
    expect((await call(characters, 'GET', path, { headers: p.auth })).body.progress_revision).toBe(revision);
  });

  it('lets one of two PATCHes from the same revision through; the other is 412', async () => {
    const p = await newPlayer(suite.config);
    const server = await serverAuth(suite.config);
    const path = `/api/characters/${idOf(await create(p.auth))}/progress`;
    const outs = await Promise.all(
      [1, 2].map((n) =>
        call(characters, 'PATCH', path, {
          body: { idempotencyKey: `race-change-${n}`, progress: { attributes: { STR: n } } },
          headers: { ...server, 'If-Match': '"1"' },
        }),
      ),
    );
    expect(outs.map((o) => o.status).sort()).toEqual([200, 412]);
  });
});

describe('GET and POST /api/account/recipes', () => {
  const known = 'RECP-20260601100000-000123-64A3D698';

  it('is taught by a game server once, listed with the time learned; refuses ids the catalog lacks; a player may only read', async () => {
    const p = await newPlayer(suite.config);
    const server = await serverAuth(suite.config);
    const teach = (body: Record<string, unknown>, headers = server) => call(account, 'POST', '/api/account/recipes', { body, headers });
    for (const recipeId of ['RECP-20990101000000-000000-00000000', 'ITEM-20260601093000-00010D-B1F512C1', '']) {
      const r = await teach({ studioId: p.studioId, recipeId });
      expect(r.status, recipeId).toBe(400);
      expect([...new Set(r.body.errors!.map((e) => e.name))]).toEqual(['/recipeId']);
    }
    // recipes confer power: the player's own token may not learn one
    const self = await teach({ studioId: p.studioId, recipeId: known }, p.auth);
    expect([self.status, self.body.code]).toEqual([403, 'FORBIDDEN']);
    expect((await teach({ recipeId: known })).status).toBe(400);
    expect((await teach({ studioId: 'STUDIO_NOBODY0000000000', recipeId: known })).status).toBe(404);
    const first = await teach({ studioId: p.studioId, recipeId: known });
    expect(first.status).toBe(201);
    expect(responseErrors('recipe-learned', first.body)).toEqual([]);
    const again = await teach({ accountId: p.accountId, recipeId: known });
    expect(again.status).toBe(200);
    expect(again.body).toEqual({ learned: false, recipe: (first.body as { recipe: unknown }).recipe });
    const list = await call(account, 'GET', '/api/account/recipes', { headers: p.auth });
    expect(responseErrors('account-recipes', list.body)).toEqual([]);
    expect(list.body).toEqual({ recipes: [(first.body as { recipe: unknown }).recipe] });
    // a game server reads an account's recipes by naming it; a player only its own
    expect((await call(account, 'GET', `/api/account/recipes?studioId=${p.studioId}`, { headers: server })).body).toEqual(list.body);
    expect((await call(account, 'GET', '/api/account/recipes', { headers: server })).status).toBe(400);
    const other = await newPlayer(suite.config, 'Other');
    expect((await call(account, 'GET', '/api/account/recipes', { headers: other.auth })).body).toEqual({ recipes: [] });
    expect((await call(account, 'GET', `/api/account/recipes?studioId=${p.studioId}`, { headers: other.auth })).status).toBe(403);
  });
});
