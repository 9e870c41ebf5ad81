/**
 * A character's progress checked whole (spec 2.8, 4.1; `api/_lib/player/progress.ts`), called directly
 * over small catalogs written for each case: the shapes a professions file may take and the fallback to
 * `master-professions.json`, the weapon types and skills of `master-weaponSkills.json`, schema refusals
 * named under `/progress`, and the catalog ids checked only for the fields a change names, each bad one
 * named by its pointer.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { useServiceConfig } from '../../api/_lib/config.js';
import { ATTRIBUTE_CODES, checkProgress, progressCatalog } from '../../api/_lib/player/progress.js';
import type { Progress } from '../../api/_lib/player/types.js';
import { useGameConfig } from '../helpers/game-api.js';
import { refusal } from '../helpers/ledger-ops.js';

const SKILL_A = 'SKIL-AAAA-0000-0001';
const SKILL_B = 'SKIL-BBBB-0000-0002';
const WEAPON_SKILLS = {
  weaponTypes: [
    { id: 'SWORD', slots: [{ skills: [{ studioUuid: SKILL_A }, { studioUuid: 7 }, {}] }, { skills: 'none' }, {}] },
    'BOW',
    { id: 3 },
    { slots: [{ skills: [{ studioUuid: SKILL_B }] }] },
  ],
};

let dir = '';
/** A catalog folder holding `files` (name under `api/v1/` → JSON value), put in force. */
function catalogOf(files: Record<string, unknown>): void {
  dir = mkdtempSync(join(tmpdir(), 'progress-catalog-'));
  mkdirSync(join(dir, 'api/v1'), { recursive: true });
  for (const [name, value] of Object.entries(files)) writeFileSync(join(dir, 'api/v1', name), JSON.stringify(value));
  useGameConfig({ CATALOG_DIR: dir });
}
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = '';
});
afterAll(() => useServiceConfig(undefined));

const progress = (over: Partial<Progress> = {}): Progress => ({
  attributes: {},
  profession_levels: {},
  equipment_on_body: {},
  weapon_mastery: {},
  skill_loadouts: [],
  ...over,
});

describe('the progress catalog', () => {
  it('reads professions as lists of ids or names, or as objects keyed by name, under gathering and crafting', async () => {
    catalogOf({
      'professions.json': {
        gathering: [{ id: 'Mining' }, 'Fishing', { id: 4 }, null, ''],
        crafting: { Smithing: { tier: 1 }, Tailoring: {} },
        other: ['Cooking'],
      },
      'master-weaponSkills.json': WEAPON_SKILLS,
    });
    const c = await progressCatalog();
    expect([...c.professions]).toEqual(['Mining', 'Fishing', 'Smithing', 'Tailoring']);
  });

  it('reads no profession from a part that is neither a list nor an object, or from a file that is not an object', async () => {
    catalogOf({ 'professions.json': { gathering: 'Mining', crafting: 3 }, 'master-weaponSkills.json': WEAPON_SKILLS });
    expect([...(await progressCatalog()).professions]).toEqual([]);
    catalogOf({ 'professions.json': null, 'master-weaponSkills.json': WEAPON_SKILLS });
    expect([...(await progressCatalog()).professions]).toEqual([]);
  });

  it('falls back to master-professions.json when professions.json is missing, and is unavailable when both are', async () => {
    catalogOf({ 'master-professions.json': { crafting: ['Alchemy'] }, 'master-weaponSkills.json': WEAPON_SKILLS });
    expect([...(await progressCatalog()).professions]).toEqual(['Alchemy']);
    catalogOf({ 'master-weaponSkills.json': WEAPON_SKILLS });
    const e = await refusal(progressCatalog());
    expect([e.code, e.message]).toEqual([
      'UPSTREAM_UNAVAILABLE',
      'Catalog data "api/v1/master-professions.json" is not available; run the catalog build.',
    ]);
  });

  it("takes each weapon type's id (or the type itself when it is a name) and every skill's studioUuid under its slots", async () => {
    catalogOf({ 'professions.json': {}, 'master-weaponSkills.json': WEAPON_SKILLS });
    const c = await progressCatalog();
    expect([...c.weaponTypes]).toEqual(['SWORD', 'BOW']);
    expect([...c.skills]).toEqual([SKILL_A, SKILL_B]);
  });

  it('reads no weapon type from a file without a list of them', async () => {
    for (const raw of [null, {}, { weaponTypes: { SWORD: {} } }]) {
      catalogOf({ 'professions.json': {}, 'master-weaponSkills.json': raw });
      const c = await progressCatalog();
      expect([[...c.weaponTypes], [...c.skills]]).toEqual([[], []]);
    }
  });
});

describe('checkProgress', () => {
  beforeEach(() =>
    catalogOf({ 'professions.json': { gathering: ['Mining'], crafting: ['Smithing'] }, 'master-weaponSkills.json': WEAPON_SKILLS }),
  );
  const all = new Set(['attributes', 'profession_levels', 'weapon_mastery', 'skill_loadouts']);

  it('answers a progress within its bounds whose changed fields name catalog ids, unchanged', async () => {
    const p = progress({
      attributes: Object.fromEntries(ATTRIBUTE_CODES.map((c, i) => [c, i])),
      profession_levels: { Mining: 3, Smithing: 200 },
      weapon_mastery: { SWORD: 10, BOW: 0 },
      skill_loadouts: [{ name: 'Main', skills: [SKILL_A, SKILL_B] }],
    });
    expect(await checkProgress(p, all)).toBe(p);
  });

  it('names every field that breaks the schema under /progress, in the message and the errors', async () => {
    const e = await refusal(checkProgress(progress({ attributes: { STR: -1 }, profession_levels: { Mining: 201 } }), new Set()));
    expect(e.code).toBe('INVALID_BODY');
    expect(e.errors.map((p) => p.name)).toEqual(['/progress/attributes/STR', '/progress/profession_levels/Mining']);
    expect(e.message).toBe(
      'The progress after this change would break its bounds: /progress/attributes/STR, /progress/profession_levels/Mining.',
    );
  });

  it('checks the catalog ids of the changed fields only, naming each unknown one by its pointer', async () => {
    const p = progress({
      attributes: { STR: 1, LUK: 2 },
      profession_levels: { Mining: 1, Cooking: 2 },
      weapon_mastery: { SWORD: 1, AXE: 2 },
      skill_loadouts: [
        { name: 'a', skills: [SKILL_A] },
        { name: 'b', skills: [SKILL_B, 'SKIL-0000-0000-0009'] },
      ],
    });
    const e = await refusal(checkProgress(p, all));
    expect(e.code).toBe('INVALID_BODY');
    expect(e.errors).toEqual([
      { name: '/progress/attributes/LUK', message: '"LUK" is not an attribute (STR, INT, VIT, DEX, END, WIS, AGI, TAC).' },
      { name: '/progress/profession_levels/Cooking', message: '"Cooking" is not a profession of the catalog.' },
      { name: '/progress/weapon_mastery/AXE', message: '"AXE" is not a weapon type of the catalog (master-weaponSkills.json).' },
      {
        name: '/progress/skill_loadouts/1/skills/1',
        message: '"SKIL-0000-0000-0009" is not a skill of the catalog (master-weaponSkills.json).',
      },
    ]);
    expect(e.message).toBe(
      '4 id(s) the catalog does not define: /progress/attributes/LUK, /progress/profession_levels/Cooking, /progress/weapon_mastery/AXE, /progress/skill_loadouts/1/skills/1.',
    );
    for (const field of all) {
      const rest = new Set([...all].filter((f) => f !== field));
      const names = (await refusal(checkProgress(p, rest))).errors.map((x) => x.name);
      expect(names.some((n) => n.startsWith(`/progress/${field}/`))).toBe(false);
      expect(names).toHaveLength(3);
    }
    expect(await checkProgress(p, new Set(['equipment_on_body']))).toBe(p);
  });

  it('lists at most ten unknown ids in the message and a hundred in the errors', async () => {
    const professions = Object.fromEntries(Array.from({ length: 64 }, (_, i) => [`P${i}`, 1]));
    const weapons = Object.fromEntries(Array.from({ length: 64 }, (_, i) => [`W${i}`, 1]));
    const e = await refusal(checkProgress(progress({ profession_levels: professions, weapon_mastery: weapons }), all));
    expect(e.errors).toHaveLength(100);
    expect(e.errors[99]!.name).toBe('/progress/weapon_mastery/W35');
    expect(e.message).toBe(
      `128 id(s) the catalog does not define: ${Array.from({ length: 10 }, (_, i) => `/progress/profession_levels/P${i}`).join(', ')}.`,
    );
  });
});
