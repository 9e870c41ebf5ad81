/**
 * Core derivations (build/derive/core.ts, spec §2.6, §4.1, §4.4) on small in-memory catalogs: which
 * records each search/export type reads (play catalog before the design template, first present id
 * field, derived SKIL and SPRT ids, records without id or name left out), the emitted weapon skills
 * file with SKIL ids in the configured field, the master registry and canonical items manifest
 * (sorted ids, counts per kind and family, version), export files with their CSV columns, the stats
 * totals of every category, the search index over every typed record, and the table of the other
 * derivers the build runs after these, in order, with their rules.
 */
import { describe, expect, it } from 'vitest';
import { collectTypedRecords, deriveCore } from '../../build/derive/core.js';
import { DERIVERS } from '../../build/derive/index.js';
import { ASSET_RULES, deriveAssets } from '../../build/derive/assets.js';
import { deriveModelRefs, MODEL_REF_RULES } from '../../build/derive/model-refs.js';
import { collectionRules, deriveCollections } from '../../build/derive/collections.js';
import { ICON_RULES, deriveIcons } from '../../build/derive/icons.js';
import { SPRITE_RULES, deriveSprites } from '../../build/derive/sprites.js';
import { buildSearchIndex } from '../../api/_lib/formats/search-index.js';
import { deriveSpriteId } from '../../build/pipeline/ids.js';
import type { Definition, LawResult } from '../../build/pipeline/law.js';
import type { SourceDoc } from '../../build/pipeline/types.js';
import { testConfig } from '../helpers/config.js';

const docsOf = (files: Record<string, unknown>): Map<string, SourceDoc> =>
  new Map(Object.entries(files).map(([path, data]) => [path, { path, text: JSON.stringify(data), data }]));

const def = (id: string, kind: string, fields: Partial<Definition> = {}): Definition => ({
  id,
  kind,
  file: 'master-items.json',
  pointer: '/items/0',
  name: `${id} name`,
  category: null,
  tier: null,
  alsoIn: [],
  ...fields,
});

const law = (defs: Definition[] = [], skillIds: [string, string][] = [], icons: string[] = []): LawResult => ({
  definitions: new Map(defs.map((d) => [d.id, d])),
  skillIds: new Map(skillIds),
  iconIds: new Set(icons),
});

const config = testConfig({ versions: { package: '7.1.0' } });

describe('collectTypedRecords', () => {
  it('reads the play catalog before the design template and takes the first present id field', () => {
    const docs = docsOf({
      'master-weapons.json': {
        items: [
          { uuid: 'W-1', id: 'w1', name: 'Sword' },
          { uuid: '', id: 'w2', name: 'Axe' },
          { id: 'w3' },
          { uuid: 'W-4', name: 7 },
          { name: 'No id' },
          { uuid: 7, id: 'w5', name: 'Numbered' },
        ],
      },
      'weapons.json': { categories: { swords: { items: [{ id: 'design', name: 'Template' }] } } },
    });
    const recs = collectTypedRecords(docs, config, law());
    expect(recs.get('weapons')!.map((r) => [r.id, r.name, r.file, r.pointer])).toEqual([
      ['W-1', 'Sword', 'master-weapons.json', '/items/0'],
      ['w2', 'Axe', 'master-weapons.json', '/items/1'],
      ['w5', 'Numbered', 'master-weapons.json', '/items/5'],
    ]);
    expect(recs.get('weapons')![0]!.record).toEqual({ uuid: 'W-1', id: 'w1', name: 'Sword' });
    expect(recs.get('weapons')![0]!.type).toBe('weapons');
  });

  it('falls back to the design template when the play catalog is absent or unparsed', () => {
    const docs = docsOf({ 'weapons.json': { categories: { swords: { items: [{ id: 'design', uuid: 'U', name: 'Template' }] } } } });
    docs.set('master-weapons.json', { path: 'master-weapons.json', text: '{', data: undefined });
    expect(
      collectTypedRecords(docs, config, law())
        .get('weapons')!
        .map((r) => [r.id, r.pointer]),
    ).toEqual([['design', '/categories/swords/items/0']]);
  });

  it('gives skills their derived SKIL id and sprites their SPRT id; every type is present, empty when absent', () => {
    const docs = docsOf({
      'master-weaponSkills.json': {
        weaponTypes: {
          sword: {
            slots: {
              a: {
                skills: [
                  { id: 'slash', name: 'Slash' },
                  { id: 'nope', name: 'No SKIL' },
                ],
              },
            },
          },
        },
      },
      'sprites2d.json': {
        totalSprites: 1,
        categories: {
          ui: { count: 1, items: [{ name: 'Btn', path: '/s/btn.png', category: 'ui', subcategory: '', source: '' }, { name: 'Bad' }] },
        },
      },
    });
    const ptr = '/weaponTypes/sword/slots/a/skills/0';
    const recs = collectTypedRecords(
      docs,
      testConfig({ namespaces: { skill: 's:', icon: 'i:', sprite: 'sp:' } }),
      law([], [[ptr, 'SKIL-AAAA-BBBB-CCCC']]),
    );
    expect(recs.get('skills')!.map((r) => r.id)).toEqual(['SKIL-AAAA-BBBB-CCCC', 'nope']);
    expect(recs.get('sprites')!.map((r) => r.id)).toEqual([deriveSpriteId('sp:', '/s/btn.png')]);
    expect([...recs.keys()]).toEqual(['weapons', 'armor', 'materials', 'consumables', 'enemies', 'bosses', 'skills', 'sprites']);
    expect(recs.get('armor')).toEqual([]);
  });
});

describe('deriveCore', () => {
  const ptr = '/weaponTypes/sword/slots/a/skills/0';
  const skills = {
    weaponTypes: {
      sword: {
        slots: {
          a: {
            skills: [
              { id: 'slash', name: 'Slash' },
              { id: 'other', name: 'Other' },
            ],
          },
        },
      },
    },
  };
  const docs = docsOf({
    'master-weaponSkills.json': skills,
    'master-materials.json': {
      materials: [
        { uuid: 'MATL-1', name: 'Iron', weight: 2 },
        { uuid: 'MATL-2', name: 'Tin', props: { hard: true } },
      ],
    },
    'master-relics.json': { relics: [{ id: 'r1' }, { id: 'r2' }] },
    'master-recipes.json': { recipes: [{ a: 1 }] },
    'master-items.json': { items: [{ a: 1 }, { b: 2 }, { c: 3 }] },
    'studiodot-assets.json': { assets: [{ id: 'a' }] },
    'sprite-characters.json': { characters: [{ n: 1 }, { n: 2 }] },
  });
  const defs = [
    def('ITEM-2', 'weapon', { alsoIn: ['z.json', 'a.json'] }),
    def('ITEM-1', 'weapon', { category: 'swords', tier: 2 }),
    def('FOOD-1', 'food'),
    def('MATL-1', 'material', { file: 'master-materials.json' }),
    def('POTN-1', 'potion'),
    def('CONS-1', 'consumable'),
    def('XITEM-1', 'odd'),
  ];
  const result = law(defs, [[ptr, 'SKIL-AAAA-BBBB-CCCC']], ['ICON-1', 'ICON-2', 'ICON-3']);
  // derived inside each test (never while the suite is collected), so that every run sees the code under test
  const typed = (): ReturnType<typeof collectTypedRecords> => collectTypedRecords(docs, config, result);
  const body = (path: string): Record<string, unknown> => {
    const e = deriveCore({ config, docs, law: result, records: typed() }).find((o) => o.path === path);
    expect(e, path).toBeDefined();
    return e!.body as Record<string, unknown>;
  };

  it('emits, in order, the skills file, registry, canonical items, exports, stats and search index', () => {
    expect(deriveCore({ config, docs, law: result, records: typed() }).map((o) => o.path)).toEqual([
      'api/v1/master-weaponSkills.json',
      'api/v1/master-registry.json',
      'api/v1/canonical-items-manifest.json',
      ...['weapons', 'armor', 'materials', 'consumables', 'enemies', 'bosses', 'skills'].flatMap((t) => [
        `api/v1/exports/${t}.json`,
        `api/v1/exports/full/${t}.json`,
        `api/v1/exports/full/${t}.csv`,
      ]),
      'api/v1/stats.json',
      'api/v1/search-index.json',
    ]);
  });

  it('writes the SKIL id into the configured field of each derived skill, pretty-printed, source untouched', () => {
    const brand = testConfig({ uuidField: 'brandUuid' });
    const e = deriveCore({ config: brand, docs, law: result, records: typed() })[0]!;
    expect(e.raw).toBe(true);
    const text = e.body as string;
    expect(text.endsWith('}\n')).toBe(true);
    expect(text).toContain('\n  "weaponTypes"');
    const parsed = JSON.parse(text) as typeof skills;
    expect(parsed.weaponTypes.sword.slots.a.skills).toEqual([
      { id: 'slash', name: 'Slash', brandUuid: 'SKIL-AAAA-BBBB-CCCC' },
      { id: 'other', name: 'Other' },
    ]);
    expect(skills.weaponTypes.sword.slots.a.skills[0]).toEqual({ id: 'slash', name: 'Slash' });
  });

  it('emits no skills file without derived ids or without a parsed source', () => {
    expect(deriveCore({ config, docs, law: law(defs), records: typed() })[0]!.path).toBe('api/v1/master-registry.json');
    const unparsed = new Map(docs);
    unparsed.set('master-weaponSkills.json', { path: 'master-weaponSkills.json', text: '{', data: undefined });
    expect(deriveCore({ config, docs: unparsed, law: result, records: typed() })[0]!.path).toBe('api/v1/master-registry.json');
    const none = new Map(docs);
    none.delete('master-weaponSkills.json');
    expect(deriveCore({ config, docs: none, law: result, records: typed() })[0]!.path).toBe('api/v1/master-registry.json');
  });

  it('registry: every definition by id (sorted), totals per kind, alsoIn sorted, package version', () => {
    const reg = body('api/v1/master-registry.json');
    expect(reg.version).toBe('7.1.0');
    expect(reg.total).toBe(7);
    expect(reg.totals).toEqual({ consumable: 1, food: 1, material: 1, odd: 1, potion: 1, weapon: 2 });
    expect(Object.keys(reg.totals as object)).toEqual(['consumable', 'food', 'material', 'odd', 'potion', 'weapon']);
    const byUuid = reg.byUuid as Record<string, Record<string, unknown>>;
    expect(Object.keys(byUuid)).toEqual(['CONS-1', 'FOOD-1', 'ITEM-1', 'ITEM-2', 'MATL-1', 'POTN-1', 'XITEM-1']);
    expect(byUuid['ITEM-2']).toEqual({
      kind: 'weapon',
      file: 'master-items.json',
      pointer: '/items/0',
      name: 'ITEM-2 name',
      category: null,
      tier: null,
      alsoIn: ['a.json', 'z.json'],
    });
    expect(defs[0]!.alsoIn).toEqual(['z.json', 'a.json']);
  });

  it('canonical items: ITEM, FOOD, POTN and CONS definitions by family, sorted by uuid', () => {
    const c = body('api/v1/canonical-items-manifest.json');
    expect(c).toMatchObject({ version: '7.1.0', catalog: 'master-items.json', total: 5, families: { CONS: 1, FOOD: 1, ITEM: 2, POTN: 1 } });
    expect(Object.keys(c.families as object)).toEqual(['CONS', 'FOOD', 'ITEM', 'POTN']);
    const items = c.items as { uuid: string }[];
    expect(items.map((i) => i.uuid)).toEqual(['CONS-1', 'FOOD-1', 'ITEM-1', 'ITEM-2', 'POTN-1']);
    expect(items[2]).toEqual({
      uuid: 'ITEM-1',
      family: 'ITEM',
      name: 'ITEM-1 name',
      kind: 'weapon',
      category: 'swords',
      tier: 2,
      file: 'master-items.json',
    });
  });

  it('falls back to version 4.0.0 when the config names no package version', () => {
    const plain = deriveCore({ config: testConfig(), docs, law: result, records: typed() });
    expect((plain[1]!.body as { version: string }).version).toBe('4.0.0');
    expect((plain[2]!.body as { version: string }).version).toBe('4.0.0');
  });

  it('export files: type, CSV columns over every record, the records as written', () => {
    const m = body('api/v1/exports/materials.json');
    expect(m.type).toBe('materials');
    expect(m.records).toEqual([
      { uuid: 'MATL-1', name: 'Iron', weight: 2 },
      { uuid: 'MATL-2', name: 'Tin', props: { hard: true } },
    ]);
    expect([...(m.columns as string[])].sort()).toEqual(['name', 'props.hard', 'uuid', 'weight']);
    expect(body('api/v1/exports/armor.json')).toEqual({ type: 'armor', columns: [], records: [] });
  });

  it('stats: totals of every category, definitions per kind, statuses', () => {
    const s = body('api/v1/stats.json');
    expect(s.catalog).toBe('test');
    expect(s.totals).toEqual({
      armor: 0,
      artifacts: 0,
      assets: 1,
      bosses: 0,
      characters: 2,
      consumables: 0,
      enchants: 0,
      enemies: 0,
      icons: 3,
      infusions: 0,
      items: 3,
      materials: 2,
      recipes: 1,
      relics: 2,
      skills: 2,
      sprites: 0,
      weapons: 0,
    });
    expect(Object.keys(s.totals as object)).toEqual(Object.keys(s.totals as object).sort());
    expect(s.definitions).toEqual({ consumable: 1, food: 1, material: 1, odd: 1, potion: 1, weapon: 2 });
    expect(Object.keys(s.definitions as object)[0]).toBe('consumable');
    expect((s.statuses as Record<string, string>).armor).toBe('catalog-live');
  });

  it('search index over every typed record', () => {
    const expected = buildSearchIndex([
      { type: 'materials', id: 'MATL-1', name: 'Iron' },
      { type: 'materials', id: 'MATL-2', name: 'Tin' },
      { type: 'skills', id: 'SKIL-AAAA-BBBB-CCCC', name: 'Slash' },
      { type: 'skills', id: 'other', name: 'Other' },
    ]);
    expect(body('api/v1/search-index.json')).toEqual(expected);
  });

  it('stats counts nothing for absent files', () => {
    const empty = deriveCore({ config, docs: new Map(), law: law(), records: collectTypedRecords(new Map(), config, law()) });
    const s = empty.find((o) => o.path === 'api/v1/stats.json')!.body as { totals: Record<string, number> };
    expect(Object.values(s.totals).every((n) => n === 0)).toBe(true);
    expect(Object.keys(s.totals)).toHaveLength(17);
  });
});

describe('deriver table', () => {
  it('runs collections, icons, sprites, assets and model references in that order, each with its rules', () => {
    expect(DERIVERS.map((d) => [d.name, d.derive, d.rules])).toEqual([
      ['collections', deriveCollections, collectionRules],
      ['icons', deriveIcons, ICON_RULES],
      ['sprites', deriveSprites, SPRITE_RULES],
      ['assets', deriveAssets, ASSET_RULES],
      ['model-refs', deriveModelRefs, MODEL_REF_RULES],
    ]);
  });
});
