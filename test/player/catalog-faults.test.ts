/**
 * The game API over a published catalog it cannot use, or uses only in part (spec 7; docs/architecture.md,
 * "Errors"): a definitions file without its list is a 503 for the routes that check ids against it, never
 * a 500 and never a silent pass; entries without a string id are skipped; only `ITEM-*` non-consumables
 * are unique-item definitions, only `MATL-*` materials and consumables are stackable. Runs on a copy of
 * the sample build whose files each test rewrites.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import type { EntryExports } from '../../api/_lib/http/entry.js';
import * as playerEntry from '../../api/player.js';
import { SAMPLE_OUT } from '../helpers/catalog.js';
import { call, gameApiSuite, newPlayer, tokenFor } from '../helpers/game-api.js';

const player = playerEntry as unknown as EntryExports;
const dir = mkdtempSync(join(tmpdir(), 'player-catalog-'));
const out = join(dir, 'dist');
const file = (name: string) => join(out, 'api/v1', name);
const suite = gameApiSuite({ CATALOG_DIR: out });
let server: Record<string, string>;

beforeEach(async () => {
  rmSync(out, { recursive: true, force: true });
  cpSync(SAMPLE_OUT, out, { recursive: true });
  server = { Authorization: `Bearer ${await tokenFor(suite.config, 'STUDIO_GAMESERVER', 'server')}` };
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const hero = { era: 'warlords', name: 'Ada', classId: 'warrior', raceId: 'human', factionId: 'crusade' };

describe('a definitions file without its list', () => {
  it.each([
    ['classes.json', 'characters'],
    ['races.json', 'characters'],
    ['factions.json', 'characters'],
    ['master-recipes.json', 'recipes'],
    ['canonical-items-manifest.json', 'mint'],
    ['master-materials.json', 'grant'],
  ])('%s: 503 for the %s route, and nothing written', async (name, route) => {
    writeFileSync(file(name), JSON.stringify({ note: 'no list here' }));
    const p = await newPlayer(suite.config);
    const r =
      route === 'characters'
        ? await call(player, 'POST', '/api/characters', { body: hero, headers: p.auth })
        : route === 'recipes'
          ? await call(player, 'POST', '/api/account/recipes', {
              body: { studioId: p.studioId, recipeId: 'RECP-20260601100000-000123-64A3D698' },
              headers: server,
            })
          : route === 'mint'
            ? await call(player, 'POST', '/api/uuid', {
                body: { definitionId: 'ITEM-20260601093000-00010D-B1F512C1', studioId: p.studioId, idempotencyKey: 'fault-mint-1' },
                headers: server,
              })
            : await call(player, 'POST', '/api/inventory/grant', {
                body: {
                  definitionId: 'MATL-20260601090000-000101-F469B3E9',
                  studioId: p.studioId,
                  quantity: 1,
                  idempotencyKey: 'fault-grant-1',
                },
                headers: server,
              });
    expect([r.status, r.body.code]).toEqual([503, 'UPSTREAM_UNAVAILABLE']);
    const chars = await call(player, 'GET', '/api/characters?era=warlords', { headers: p.auth });
    expect(chars.body.characters).toEqual([]);
    expect((await call(player, 'GET', '/api/inventory', { headers: p.auth })).body).toMatchObject({ stackables: [], uniqueItems: [] });
  });
});

describe('definitions the routes accept', () => {
  it('takes ITEM-* non-consumables as unique items and MATL-* materials and consumables as stackables, skipping entries without a string id', async () => {
    const manifest = JSON.parse(readFileSync(file('canonical-items-manifest.json'), 'utf8')) as { items: Record<string, unknown>[] };
    const unique = String(manifest.items.find((i) => String(i.uuid).startsWith('ITEM-') && i.kind !== 'consumable')!.uuid);
    const consumable = String(manifest.items.find((i) => i.kind === 'consumable')!.uuid);
    manifest.items.push({ uuid: 5, kind: 'weapon' }, { uuid: 'RELC-20260423030000-000001-DD104371', kind: 'relic' }, { kind: 'armor' });
    writeFileSync(file('canonical-items-manifest.json'), JSON.stringify(manifest));
    const materials = JSON.parse(readFileSync(file('master-materials.json'), 'utf8')) as { materials: Record<string, unknown>[] };
    const material = String(materials.materials.find((m) => String(m.uuid).startsWith('MATL-'))!.uuid);
    materials.materials.push({ uuid: 7 }, { uuid: 'ITEM-20260601093000-00010D-B1F512C1' });
    writeFileSync(file('master-materials.json'), JSON.stringify(materials));
    const recipes = JSON.parse(readFileSync(file('master-recipes.json'), 'utf8')) as { recipes: Record<string, unknown>[] };
    const recipe = String(recipes.recipes.find((r) => typeof r.uuid === 'string')!.uuid);
    recipes.recipes.push({ uuid: 9 }, { name: 'no id' });
    writeFileSync(file('master-recipes.json'), JSON.stringify(recipes));

    const p = await newPlayer(suite.config);
    const mint = (definitionId: string, key: string) =>
      call(player, 'POST', '/api/uuid', { body: { definitionId, studioId: p.studioId, idempotencyKey: key }, headers: server });
    expect((await mint(unique, 'accept-mint-1')).status).toBe(201);
    for (const [i, d] of [consumable, 'RELC-20260423030000-000001-DD104371', material].entries())
      expect((await mint(d, `accept-mint-x${i}`)).status).toBe(400);
    const grant = (definitionId: string, key: string) =>
      call(player, 'POST', '/api/inventory/grant', {
        body: { definitionId, studioId: p.studioId, quantity: 2, idempotencyKey: key },
        headers: server,
      });
    expect((await grant(material, 'accept-grant-1')).status).toBe(201);
    expect((await grant(consumable, 'accept-grant-2')).status).toBe(201);
    const refused = await grant(unique, 'accept-grant-3');
    expect(refused.status).toBe(400);
    expect(refused.body.errors!.map((e) => e.name)).toContain('/definitionId');
    const learn = (recipeId: string) =>
      call(player, 'POST', '/api/account/recipes', { body: { studioId: p.studioId, recipeId }, headers: server });
    expect((await learn(recipe)).status).toBe(201);
    const unknown = await learn('RECP-20990101000000-000000-00000000');
    expect(unknown.status).toBe(400);
    expect(unknown.body.errors).toEqual([{ name: '/recipeId', message: 'Not a recipe of the published catalog (master-recipes.json).' }]);
    expect(unknown.body.detail).toBe('No recipe RECP-20990101000000-000000-00000000 in the catalog.');
  });
});
