/**
 * What each catalog file is and where its records live (build/pipeline/layout.ts, spec §3, §4.1,
 * §4.4, §9.2, §9.3), and the game-data manifest derived from them (build/derive/manifest.ts): file
 * kinds that decide severities and publication (design files capped, archived files published with
 * their replacements, retired files never published), the spec's category statuses, load order and
 * version labels, the record walk (`*` over arrays and object maps, escaped pointers), and the manifest
 * body (file table totals, presence of each load-order file, archived/design-only/retired lists).
 */
import { describe, expect, it } from 'vitest';
import { deriveManifest } from '../../build/derive/manifest.js';
import {
  ARCHIVED,
  CATEGORY_STATUS,
  DEFAULT_VERSIONS,
  LOAD_ORDER,
  RECORD_SOURCES,
  fileKind,
  isLegacyKind,
  recordsAt,
  reportFileKinds,
  type FileKind,
} from '../../build/pipeline/layout.js';
import type { IssueInput } from '../../build/pipeline/types.js';
import { testConfig } from '../helpers/config.js';

const RETIRED = new Set(['systems-catalog.json']);

describe('fileKind', () => {
  it('sorts every named file of the spec into its kind', () => {
    const expected: Record<string, FileKind> = {
      'systems-catalog.json': 'retired',
      'weapons.json': 'design',
      'skills.json': 'design',
      'weaponSkills.json': 'design',
      'attributes.json': 'archived',
      'items-database.json': 'archived',
      'items-legacy.json': 'archived',
      'master-t0-items.json': 'archived',
      'master-relics.json': 'collection',
      'master-enchants.json': 'collection',
      'master-infusions.json': 'collection',
      'master-artifacts.json': 'collection',
      'sprites.json': 'registry',
      'sprites2d.json': 'registry',
      'spriteMaps.json': 'registry',
      'sprite-ids.json': 'registry',
      'sprite-characters.json': 'registry',
      'studiodot-assets.json': 'registry',
      'icon-sources.json': 'registry',
      'master-registry.json': 'registry',
      'effectSprites.json': 'registry',
      'home-island-contract.json': 'contract',
      'uuid-law.json': 'contract',
      'account-game-uuid-contract.json': 'contract',
      'classes.json': 'world',
      'races.json': 'world',
      'factions.json': 'world',
      'professions.json': 'world',
      'factionUnits.json': 'engine',
      'nodeUpgrades.json': 'engine',
      'tileMaps.json': 'engine',
      'animations.json': 'engine',
      'rendering.json': 'engine',
      'controllers.json': 'engine',
      'terrain.json': 'engine',
      'ai.json': 'engine',
      'ecs.json': 'engine',
      'master-items.json': 'play',
      'warlords-catalog.json': 'play',
      't0-weapons.json': 'play',
      'weapon-stat-bridge.json': 'play',
      'enemies.json': 'data',
      'xmaster-items.json': 'data',
    };
    for (const [name, kind] of Object.entries(expected)) expect(fileKind(name, RETIRED), name).toBe(kind);
    // a name that is only inherited from Object.prototype is no archived file
    expect(fileKind('toString', RETIRED)).toBe('data');
  });

  it('reads the file name in a sub folder, and takes retired names or paths from the config', () => {
    expect(fileKind('old/weapons.json', RETIRED)).toBe('design');
    expect(fileKind('x/systems-catalog.json', RETIRED)).toBe('retired');
    expect(fileKind('systems-catalog.json', new Set())).toBe('data');
    expect(fileKind('a/b.json', new Set(['a/b.json']))).toBe('retired');
    expect(fileKind('c/b.json', new Set(['a/b.json']))).toBe('data');
    expect(fileKind('master-items.json', new Set(['master-items.json']))).toBe('retired');
  });

  it('caps design and archived files only', () => {
    const kinds: FileKind[] = ['design', 'archived', 'retired', 'collection', 'registry', 'contract', 'play', 'world', 'engine', 'data'];
    expect(kinds.filter(isLegacyKind)).toEqual(['design', 'archived']);
  });
});

describe('reportFileKinds', () => {
  it('reports retired and archived files with what replaces them, and nothing for the rest', () => {
    const issues: IssueInput[] = [];
    const kinds = new Map<string, FileKind>([
      ['systems-catalog.json', 'retired'],
      ['master-t0-items.json', 'archived'],
      ['old/items-legacy.json', 'archived'],
      ['weaponSkills.json', 'design'],
      ['master-items.json', 'play'],
    ]);
    reportFileKinds(kinds, (i) => issues.push(i));
    expect(issues.map((i) => [i.rule, i.file, i.pointer])).toEqual([
      ['catalog/retired-file', 'systems-catalog.json', ''],
      ['catalog/archived-file', 'master-t0-items.json', ''],
      ['catalog/archived-file', 'old/items-legacy.json', ''],
      ['catalog/archived-file', 'weaponSkills.json', ''],
    ]);
    expect(issues[0]!.message).toContain('api/v1/systems-catalog.json');
    expect(issues[1]!.message).toContain('t0-weapons.json + master-weapon-prefabs.json');
    expect(issues[2]!.message).toContain('master-items.json');
    expect(issues[3]!.message).toContain('master-weaponSkills.json');
  });

  it('names no replacement it does not know', () => {
    const issues: IssueInput[] = [];
    reportFileKinds(new Map<string, FileKind>([['custom.json', 'archived']]), (i) => issues.push(i));
    expect(issues).toHaveLength(1);
    expect(issues[0]!.message).toContain('replaced by ?');
  });
});

describe('spec tables', () => {
  it('archived files name their replacements (spec 9.3)', () => {
    expect(ARCHIVED).toEqual({
      'attributes.json': ['master-attributes.json'],
      'weaponSkills.json': ['master-weaponSkills.json'],
      'items-database.json': ['master-items.json'],
      'items-legacy.json': ['master-items.json'],
      'master-t0-items.json': ['t0-weapons.json', 'master-weapon-prefabs.json'],
    });
  });

  it('category statuses (spec 3)', () => {
    expect(CATEGORY_STATUS).toEqual({
      weapons: 'live',
      'harvest tools': 'live',
      consumables: 'live',
      materials: 'live',
      relics: 'live',
      enchants: 'live',
      artifacts: 'live',
      buildings: 'live',
      mounts: 'live',
      armor: 'catalog-live',
      'armor prefabs': 'planned',
      drops: 'partial',
    });
  });

  it('runtime load order (spec 4.1)', () => {
    expect(LOAD_ORDER.map((s) => `${s.name}:${s.file ?? '-'}`)).toEqual([
      'games library:-',
      'canonical items manifest:canonical-items-manifest.json',
      'master-attributes:master-attributes.json',
      'master-weapon-prefabs:master-weapon-prefabs.json',
      'master-items:master-items.json',
      'master-weaponSkills:master-weaponSkills.json',
      'weapon-stat-bridge:weapon-stat-bridge.json',
      'master-harvest-nodes:master-harvest-nodes.json',
      'master-recipes:master-recipes.json',
      'master-materials:master-materials.json',
      'master-armor:master-armor.json',
      'master-consumables:master-consumables.json',
      'systems bridge:-',
    ]);
  });

  it('version labels (spec 9.2)', () => {
    expect(DEFAULT_VERSIONS).toEqual({
      interface: '2.4.0',
      package: '4.0.0',
      homeIslandContract: '1.4.0',
      homeIslandSpec: '2.2.0',
      identifierLaw: '2026-09-06',
      accountContract: '2026-09-06',
      iconRegistry: '1.0.0',
    });
  });

  it('record sources per search type: the play catalog before the design template (spec 4.4, 9.3)', () => {
    const files = Object.fromEntries(
      Object.entries(RECORD_SOURCES).map(([t, list]) => [
        t,
        list.map((s) => `${s.file} ${s.arrays.map((a) => a.join('.')).join('|')} ${s.idFields.join(',')}`),
      ]),
    );
    expect(files).toEqual({
      weapons: ['master-weapons.json items uuid,id', 'weapons.json categories.*.items id,uuid'],
      armor: ['master-armor.json items uuid,id', 'armor.json items|armor uuid,id'],
      materials: ['master-materials.json materials|items uuid,id', 'materials.json materials|items uuid,id'],
      consumables: ['master-consumables.json items|consumables uuid,id', 'consumables.json items|consumables uuid,id'],
      enemies: ['enemies.json enemies|tiers.*.enemies uuid,id'],
      bosses: ['bosses.json bosses uuid,id'],
      skills: ['master-weaponSkills.json weaponTypes.*.slots.*.skills @skill,id', 'skills.json skills id,uuid'],
      sprites: ['sprites2d.json categories.*.items @sprite'],
    });
  });
});

describe('recordsAt', () => {
  const all = (data: unknown, arrays: string[][]): string[] =>
    [...recordsAt(data, arrays)].map((r) => `${r.pointer}=${JSON.stringify(r.record)}`);

  it('yields the objects of an array with their pointers, skipping other values', () => {
    expect(all({ items: [{ a: 1 }, 2, null, [3], { b: 2 }] }, [['items']])).toEqual(['/items/0={"a":1}', '/items/4={"b":2}']);
  });

  it('fans out with * over arrays and object maps, escaping keys', () => {
    const data = {
      cats: { 'a/b': { items: [{ x: 1 }] }, 'c~d': { items: [{ y: 1 }] }, bad: 3 },
      list: [{ items: [{ z: 1 }] }, 'no', { items: [] }],
    };
    expect(all(data, [['cats', '*', 'items']])).toEqual(['/cats/a~1b/items/0={"x":1}', '/cats/c~0d/items/0={"y":1}']);
    expect(all(data, [['list', '*', 'items']])).toEqual(['/list/0/items/0={"z":1}']);
  });

  it('a trailing * over an object map yields its member objects', () => {
    expect(all({ m: { a: { n: 1 }, b: 2, c: { n: 3 } } }, [['m', '*']])).toEqual(['/m/a={"n":1}', '/m/c={"n":3}']);
    expect(all({ m: [[{ n: 1 }], { n: 2 }] }, [['m', '*']])).toEqual(['/m/0/0={"n":1}', '/m/1={"n":2}']);
  });

  it('walks several paths in turn and ignores missing, inherited or scalar steps', () => {
    expect(all({ a: [{ i: 1 }], b: [{ i: 2 }] }, [['b'], ['a'], ['c']])).toEqual(['/b/0={"i":2}', '/a/0={"i":1}']);
    expect(all({ a: 5 }, [['a', 'b']])).toEqual([]);
    expect(all(null, [['a']])).toEqual([]);
    expect(all('text', [['length']])).toEqual([]);
    expect(all({}, [['constructor']])).toEqual([]);
    expect(all({ a: { items: { x: { k: 1 } } } }, [['a', 'items']])).toEqual([]);
    expect(all([{ k: 1 }], [[]])).toEqual(['/0={"k":1}']);
  });
});

describe('deriveManifest', () => {
  const table = {
    buildId: 'abc123',
    files: [
      { path: 'api/v1/canonical-items-manifest.json', bytes: 10, sha256: 'a' },
      { path: 'api/v1/master-items.json', bytes: 5, sha256: 'b' },
      { path: 'api/v1/master-t0-items.json', bytes: 7, sha256: 'c' },
    ],
  };
  const kinds = new Map<string, FileKind>([
    ['master-items.json', 'play'],
    ['master-t0-items.json', 'archived'],
    ['weapons.json', 'design'],
    ['skills.json', 'design'],
    ['old/items-legacy.json', 'archived'],
    ['systems-catalog.json', 'retired'],
    ['attributes.json', 'retired'],
  ]);

  it('writes the game-data manifest with the build id, catalog, hosts, versions and statuses', () => {
    const config = testConfig({ name: 'cat', baseUrl: 'https://b.test', cdnUrl: 'https://c.test', versions: { package: '1' } });
    const m = deriveManifest({ config, table, kinds, retired: new Set(['z.json', 'systems-catalog.json']) });
    expect(m.path).toBe('api/v1/game-data-manifest.json');
    const body = m.body as Record<string, unknown>;
    expect(body).toMatchObject({
      buildId: 'abc123',
      catalog: 'cat',
      baseUrl: 'https://b.test',
      cdnUrl: 'https://c.test',
      versions: { package: '1' },
      categories: CATEGORY_STATUS,
    });
    expect(body.totalFiles).toBe(3);
    expect(body.totalBytes).toBe(22);
    expect(body.files).toEqual(table.files);
    expect(body.retired).toEqual(['systems-catalog.json', 'z.json']);
    expect(body.designOnly).toEqual(['weapons.json', 'skills.json']);
    expect(body.archived).toEqual([
      { file: 'master-t0-items.json', replacedBy: ['t0-weapons.json', 'master-weapon-prefabs.json'] },
      { file: 'old/items-legacy.json', replacedBy: ['master-items.json'] },
    ]);
  });

  it('marks each load-order step present only when its file was published', () => {
    const m = deriveManifest({ config: testConfig(), table, kinds, retired: new Set() });
    const steps = (m.body as { loadOrder: { name: string; file: string | null; present: boolean }[] }).loadOrder;
    expect(steps.filter((s) => s.present).map((s) => s.name)).toEqual(['canonical items manifest', 'master-items']);
    expect(steps).toHaveLength(LOAD_ORDER.length);
    expect(steps[0]).toEqual({ name: 'games library', file: null, present: false });
  });

  it('totals nothing for an empty table', () => {
    const m = deriveManifest({ config: testConfig(), table: { buildId: 'x', files: [] }, kinds: new Map(), retired: new Set() });
    expect(m.body).toMatchObject({ totalFiles: 0, totalBytes: 0, archived: [], designOnly: [], retired: [] });
  });
});
