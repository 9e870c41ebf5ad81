// How the catalog browser reads one record (site/kinds.ts, site/records.ts): where each kind's records
// live (the build's record sources, §4.4), finding a record by id at the pointer the master registry names,
// identifier families (§2.6), field layout, references (§2.6, §2.7) and pictures on {cdn_url} (§1.4, §4.9).
// Records and expectations come from the sample catalog's source files and its test build (SAMPLE_OUT).
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RECORD_SOURCES } from '../../build/pipeline/layout.js';
import { COLLECTION_DEFS, COLLECTION_NAMES } from '../../api/_lib/formats/collection-index.js';
import { SEARCH_TYPES } from '../../api/_lib/formats/search-index.js';
import { ID_FAMILIES, STATIC_SOURCES, kindOfId, kindOfRegistryKind, recordIdentifiers, recordKey } from '../../site/kinds.js';
import {
  MAX_LIST_ITEMS,
  assetUrl,
  fieldLabel,
  findRecord,
  layoutFields,
  recordDescription,
  recordImage,
  recordName,
  recordReferences,
  recordSummary,
  recordsAt,
  type Field,
} from '../../site/records.js';
import { SAMPLE_OUT, SAMPLE_SRC } from '../helpers/catalog.js';

type Rec = Record<string, unknown>;

async function json(path: string): Promise<Rec> {
  return JSON.parse(await readFile(path, 'utf8')) as Rec;
}
const src = (file: string): Promise<Rec> => json(join(SAMPLE_SRC, file));
const published = (file: string): Promise<Rec> => json(join(SAMPLE_OUT, 'api/v1', file));

const CDN = 'https://cdn.example.test';

describe('record sources', () => {
  it("are the build's record sources for every search type but sprites (the same list)", () => {
    for (const type of SEARCH_TYPES.filter((t) => t !== 'sprites')) expect(STATIC_SOURCES[type], type).toBe(RECORD_SOURCES[type]);
  });

  it("find every definition of the master registry by its id, at the registry's pointer", async () => {
    const registry = (await published('master-registry.json')).byUuid as Record<string, { kind: string; file: string; pointer: string }>;
    const arraysOf = new Map<string, readonly (readonly string[])[]>();
    for (const sources of Object.values(STATIC_SOURCES)) for (const s of sources) arraysOf.set(s.file, s.arrays);
    for (const name of COLLECTION_NAMES) arraysOf.set(`${COLLECTION_DEFS[name].dataset}.json`, [[COLLECTION_DEFS[name].arrayKey]]);
    const ids = Object.keys(registry);
    expect(ids.length).toBeGreaterThan(100);
    const docs = new Map<string, Rec>();
    for (const id of ids) {
      const { file, pointer } = registry[id]!;
      const arrays = arraysOf.get(file);
      expect(arrays, file).toBeDefined();
      if (!docs.has(file)) docs.set(file, await published(file));
      expect(findRecord(docs.get(file), arrays!, id)?.pointer, id).toBe(pointer);
    }
  });

  it('walk nested arrays and object maps in document order, with RFC 6901 pointers', () => {
    const doc = { categories: { 'a/b': { items: [{ n: 1 }, 7, { n: 2 }] }, c: { items: [{ n: 3 }] } } };
    expect(recordsAt(doc, [['categories', '*', 'items']])).toEqual([
      { record: { n: 1 }, pointer: '/categories/a~1b/items/0' },
      { record: { n: 2 }, pointer: '/categories/a~1b/items/2' },
      { record: { n: 3 }, pointer: '/categories/c/items/0' },
    ]);
    expect(recordsAt({ m: { x: { n: 1 }, y: { n: 2 } } }, [['m', '*']]).map((l) => l.pointer)).toEqual(['/m/x', '/m/y']);
  });

  it('prefer a uuid or id match to another own id member, and never match a reference member', () => {
    const doc = {
      items: [
        { uuid: 'ITEM-2', baseUuid: 'ITEM-1', name: 'T2' },
        { studioUuid: 'SKIL-1', name: 'by studio id' },
        { uuid: 'ITEM-1', name: 'T1' },
      ],
    };
    expect(findRecord(doc, [['items']], 'ITEM-1')?.record.name).toBe('T1');
    expect(findRecord(doc, [['items']], 'SKIL-1')?.pointer).toBe('/items/1');
    expect(findRecord(doc, [['items']], 'ITEM-3')).toBeUndefined();
  });
});

describe('identifiers', () => {
  it('map every family of spec 2.6 to a page, and nothing that is not an id', () => {
    expect(ID_FAMILIES.map(([p]) => p)).toEqual(
      expect.arrayContaining([
        'ITEM-',
        'FOOD-',
        'POTN-',
        'CONS-',
        'MATL-',
        'RECP-',
        'SKIL-',
        'ICON-',
        'SPRT-',
        'RELC-',
        'ENCH-',
        'INFU-',
        'ARTF-',
        'ATTR-',
      ]),
    );
    expect(kindOfId('MATL-20260601090000-000101-F469B3E9')).toBe('materials');
    expect(kindOfId('RECP-20260601100000-000123-64A3D698')).toBe('recipes');
    expect(kindOfId('POTN-20260601093000-00011F-0F54D084')).toBe('consumables');
    expect(kindOfId('ICON-A421-5AB8-78D3')).toBe('icons');
    expect(kindOfId('SPRT-165C3BB3-B34DB1')).toBe('sprites');
    expect(kindOfId('SKIL-A415-7550-C923')).toBe('skills');
    for (const not of [
      'models/warlords/weapons/a.glb',
      'bog-lurker',
      '86ae3453-7ca2-586c-a172-fc151a9e65e3',
      'VFX-STY-EMBER',
      'ITEM-',
      'Ember Slash',
    ])
      expect(kindOfId(not), not).toBeUndefined();
    expect(kindOfRegistryKind('potion')).toBe('consumables');
    expect(kindOfRegistryKind('profession-node')).toBe('definitions');
  });

  it("list a record's own ids: uuid, id, own *Uuid members, slug, and baseUuid only when it differs", () => {
    expect(recordIdentifiers({ id: 'sword_slash', studioUuid: 'SKIL-1', iconUuid: 'ICON-1', name: 'x' })).toEqual([
      ['id', 'sword_slash'],
      ['studioUuid', 'SKIL-1'],
    ]);
    expect(recordIdentifiers({ uuid: 'ITEM-2', baseUuid: 'ITEM-1', slug: 's' })).toEqual([
      ['uuid', 'ITEM-2'],
      ['slug', 's'],
      ['baseUuid', 'ITEM-1'],
    ]);
    expect(recordIdentifiers({ uuid: 'ITEM-1', baseUuid: 'ITEM-1' })).toEqual([['uuid', 'ITEM-1']]);
    expect(recordKey({ id: 'bog-lurker', name: 'Bog Lurker' })).toBe('bog-lurker');
    expect(recordKey({ grudgeUuid: 'SKIL-9', recipeUuid: 'RECP-1' })).toBe('SKIL-9');
  });
});

describe('field layout', () => {
  it('labels members for reading', () => {
    expect(fieldLabel('damagePerTier')).toBe('Damage per tier');
    expect(fieldLabel('hp_regen')).toBe('Hp regen');
    expect(fieldLabel('totalHP')).toBe('Total HP');
    expect(fieldLabel('subCategory')).toBe('Sub category');
    expect(fieldLabel('x')).toBe('X');
  });

  it('lays out a weapon: scalars first in record order, then objects, omitted members left out, pointers into the record', async () => {
    const weapon = ((await src('master-weapons.json')).items as Rec[])[0]!;
    const fields = layoutFields(weapon, new Set(['name', 'uuid', 'description']));
    const keys = Object.keys(weapon).filter((k) => !['name', 'uuid', 'description'].includes(k));
    const nested = (k: string): boolean => typeof weapon[k] === 'object' && weapon[k] !== null;
    expect(fields.map((f) => f.key)).toEqual([...keys.filter((k) => !nested(k)), ...keys.filter(nested)]);
    const stats = fields.find((f) => f.key === 'stats')!;
    expect(stats.value.kind).toBe('group');
    const group = stats.value as { readonly fields: readonly Field[] };
    expect(group.fields.map((f) => [f.pointer, f.value])).toEqual(
      Object.entries(weapon.stats as Rec).map(([k, v]) => [`/stats/${k}`, { kind: 'text', text: String(v), pointer: `/stats/${k}` }]),
    );
    const prefab = (fields.find((f) => f.key === 'prefab')!.value as { readonly fields: readonly Field[] }).fields;
    expect(prefab.find((f) => f.key === 'vfxRef')?.value).toEqual({ kind: 'text', text: 'none', pointer: '/prefab/vfxRef', empty: true });
  });

  it('cuts long arrays and counts the rest', () => {
    const [f] = layoutFields({ list: Array.from({ length: MAX_LIST_ITEMS + 5 }, (_, i) => i) });
    expect(f!.value).toMatchObject({ kind: 'list', more: 5 });
    expect((f!.value as { readonly items: readonly unknown[] }).items).toHaveLength(MAX_LIST_ITEMS);
  });

  it('names, summarises and describes a record', async () => {
    const relic = ((await src('master-relics.json')).relics as Rec[])[1]!;
    expect(recordName(relic, '?')).toBe(relic.name);
    expect(recordName({ uuid: 'U' }, '?')).toBe('U');
    expect(recordSummary(relic)).toBe(`Tier ${String(relic.tier)} (${String(relic.tierLabel)}) · ${String(relic.category)}`);
    expect(recordDescription(relic)).toBe(relic.description);
    expect(recordDescription({ lore: 'old' })).toBe('old');
  });
});

describe('references', () => {
  it("link a recipe to its result and to each of its materials, with the material's name and quantity", async () => {
    const recipe = ((await src('master-recipes.json')).recipes as Rec[])[0]!;
    const refs = recordReferences(recipe, CDN);
    const materials = recipe.materials as Rec[];
    expect(refs.map((r) => r.target)).toEqual([
      { type: 'item', kind: 'items', id: recipe.resultItemId },
      ...materials.map((m) => ({ type: 'item', kind: 'materials', id: m.uuid })),
    ]);
    const first = refs[1]!;
    expect(first).toMatchObject({
      pointer: '/materials/0/uuid',
      member: 'uuid',
      name: materials[0]!.name,
      notes: [`quantity ${String(materials[0]!.quantity)}`],
    });
  });

  it('link a weapon to its icon, its recipe and its prefab binaries on the CDN, skipping null references and itself', async () => {
    const weapon = ((await src('master-weapons.json')).items as Rec[])[0]!;
    const prefab = weapon.prefab as Rec;
    const refs = recordReferences(weapon, CDN);
    const binaries = Object.entries(prefab).filter(([, v]) => typeof v === 'string' && /\.[a-z0-9]+$/.test(v));
    expect(binaries.length).toBeGreaterThan(0);
    expect(refs.map((r) => [r.pointer, r.target])).toEqual([
      ['/iconUuid', { type: 'item', kind: 'icons', id: weapon.iconUuid }],
      ['/recipeUuid', { type: 'item', kind: 'recipes', id: weapon.recipeUuid }],
      ...binaries.map(([k, v]) => [`/prefab/${k}`, { type: 'asset', url: `${CDN}/${String(v)}` }]),
    ]);
    expect(refs.some((r) => r.value === weapon.uuid)).toBe(false);
    // without a CDN, keys are not links
    expect(recordReferences(weapon).filter((r) => r.target.type === 'asset')).toEqual([]);
  });

  it("link an enemy's drops with their chance, and its model", async () => {
    const enemy = ((await src('enemies.json')).enemies as Rec[]).find((e) => (e.drops as Rec[]).some((d) => 'itemUuid' in d))!;
    const refs = recordReferences(enemy, CDN);
    const drops = enemy.drops as Rec[];
    expect(refs.filter((r) => r.target.type === 'item').map((r) => [r.value, r.notes])).toEqual(
      drops.map((d) => [d.materialUuid ?? d.itemUuid, [`chance ${String(d.chance)}`]]),
    );
    expect(refs.find((r) => r.member === 'modelPath')?.target).toEqual({ type: 'asset', url: `${CDN}/${String(enemy.modelPath)}` });
  });

  it('link a sprite character to the sprites of its animations', async () => {
    const character = ((await published('character-registry.json')).characters as Rec[])[0]!;
    const animations = Object.values(character.animations as Record<string, { uuid: string }>);
    const sprites = recordReferences(character, CDN).filter((r) => r.target.type === 'item');
    expect(sprites.map((r) => r.target)).toEqual(animations.map((a) => ({ type: 'item', kind: 'sprites', id: a.uuid })));
  });

  it('resolve binaries: absolute URLs as they are, keys and paths on the CDN, other text not at all', () => {
    expect(assetUrl('https://x.test/i/a.png', CDN)).toBe('https://x.test/i/a.png');
    expect(assetUrl('/sprites/äx.png', CDN)).toBe(`${CDN}/sprites/%C3%A4x.png`);
    expect(assetUrl('see icons/a.png here', CDN)).toBeUndefined();
    expect(assetUrl('sword_1h/attack_light', CDN)).toBeUndefined();
    expect(assetUrl('Ember Slash', CDN)).toBeUndefined();
    expect(assetUrl('a.png', CDN)).toBeUndefined();
  });
});

describe('pictures', () => {
  it("come from an icon or sprite answer's url, an ICON id, or an image member", async () => {
    const icon = ((await published('icon-registry.json')).icons as Rec[])[0]!;
    expect(recordImage(icon, 'icons', CDN)).toEqual({ type: 'url', url: icon.url });
    const weapon = ((await src('master-weapons.json')).items as Rec[]).find((w) => typeof w.iconUuid === 'string')!;
    expect(recordImage(weapon, 'weapons', CDN)).toEqual({ type: 'icon', id: weapon.iconUuid });
    expect(recordImage({ iconUrl: 'https://assets.test/icons/a.png' }, 'relics', CDN)).toEqual({
      type: 'url',
      url: 'https://assets.test/icons/a.png',
    });
    expect(recordImage({ icon: 'game-assets/icons/weapons/a.png' }, 'skills', CDN)).toEqual({
      type: 'url',
      url: `${CDN}/game-assets/icons/weapons/a.png`,
    });
    expect(recordImage({ name: 'Ember Heart' }, 'relics', CDN)).toEqual({ type: 'none' });
    const character = ((await published('character-registry.json')).characters as Rec[])[0]!;
    const firstSheet = Object.values(character.animations as Record<string, { path: string }>)[0]!.path;
    expect(recordImage(character, 'characters', CDN)).toEqual({ type: 'url', url: `${CDN}${firstSheet}` });
  });

  it('fall back to the model a record names, whose preview the asset manifest holds, after its own pictures', async () => {
    const enemy = ((await src('enemies.json')).enemies as Rec[]).find((e) => typeof e.modelPath === 'string')!;
    expect(recordImage(enemy, 'enemies', CDN)).toEqual({ type: 'model', url: `${CDN}/${String(enemy.modelPath)}` });
    expect(recordImage({ modelRef: 'models/a/b.glb', modelPath: 'models/c.glb' }, 'relics', CDN)).toEqual({
      type: 'model',
      url: `${CDN}/models/a/b.glb`,
    });
    // an own picture first; a modelRef that names an item id is no binary
    expect(recordImage({ modelRef: 'models/a/b.glb', icon: 'game-assets/a.png' }, 'relics', CDN)).toEqual({
      type: 'url',
      url: `${CDN}/game-assets/a.png`,
    });
    expect(recordImage({ modelRef: 'ITEM-0001' }, 'relics', CDN)).toEqual({ type: 'none' });
  });
});

describe('references of registry answers', () => {
  it("list an icon's binary once (its key and its url name the same file), never its prefix-relative path", async () => {
    const icon = ((await published('icon-registry.json')).icons as Rec[])[0]!;
    const manifest = await published('game-data-manifest.json');
    const first = Object.keys(icon).find((k) => k === 'key' || k === 'url');
    expect(recordReferences(icon, manifest.cdnUrl as string).map((r) => [r.member, r.target])).toEqual([
      [first, { type: 'asset', url: icon.url }],
    ]);
  });
});
