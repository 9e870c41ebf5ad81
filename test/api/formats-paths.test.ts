/**
 * Where the build puts every file a consumer fetches from the static site (spec §4.1, §9.1; the layout in
 * api/_lib/formats/layout.ts and api/_lib/formats/registries.ts) and the small shared rules of the registry
 * formats: the icon categories and asset types in spec order, the lookup form of ICON and SPRT ids, and the
 * CDN URL of a binary (spec §4.9 `{cdn_url}/{key}`).
 */
import { describe, expect, it } from 'vitest';
import {
  API_V1_DIR,
  CANONICAL_ITEMS_FILE,
  DEFAULT_RETIRED_FILES,
  MANIFEST_FILE,
  MASTER_REGISTRY_FILE,
  SEARCH_INDEX_FILE,
  STATS_FILE,
  WEAPON_SKILLS_FILE,
  collectionIndexFile,
  collectionItemFile,
  exportFile,
  publishedFile,
  sourcesOf,
} from '../../api/_lib/formats/layout.js';
import {
  ASSET_CATEGORIES_FILE,
  ASSET_INDEX_FILE,
  ASSET_TYPES,
  CHARACTER_REGISTRY_FILE,
  ICON_CATEGORIES,
  ICON_CATEGORY_INDEX_FILE,
  ICON_PATH_INDEX_FILE,
  ICON_REGISTRY_FILE,
  ICON_SEARCH_INDEX_FILE,
  SPRITE_REGISTRY_FILE,
  SPRITE_SEARCH_INDEX_FILE,
  SPRITE_STATS_FILE,
  cdnFileUrl,
  iconShardFile,
  isIconCategory,
  registryIdKey,
} from '../../api/_lib/formats/registries.js';
import { EXPORT_TYPES } from '../../api/_lib/formats/export.js';
import * as formats from '../../api/_lib/formats/index.js';

describe('output layout (spec §4.1, §9.1)', () => {
  it('serves everything under api/v1', () => {
    expect(API_V1_DIR).toBe('api/v1');
    expect(publishedFile('weapons.json')).toBe('api/v1/weapons.json');
    expect(publishedFile('icons/a.json')).toBe('api/v1/icons/a.json');
  });

  it('names the derived catalog files', () => {
    expect(MANIFEST_FILE).toBe('api/v1/game-data-manifest.json');
    expect(SEARCH_INDEX_FILE).toBe('api/v1/search-index.json');
    expect(STATS_FILE).toBe('api/v1/stats.json');
    expect(WEAPON_SKILLS_FILE).toBe('api/v1/master-weaponSkills.json');
    expect(MASTER_REGISTRY_FILE).toBe('api/v1/master-registry.json');
    expect(CANONICAL_ITEMS_FILE).toBe('api/v1/canonical-items-manifest.json');
  });

  it('never publishes the retired systems catalog (spec §7, §9.3)', () => {
    expect(DEFAULT_RETIRED_FILES).toEqual(['systems-catalog.json']);
    expect(Object.isFrozen(DEFAULT_RETIRED_FILES)).toBe(true);
  });

  it('puts one export file per type and one index per collection', () => {
    expect(exportFile('weapons')).toBe('api/v1/exports/weapons.json');
    expect(collectionIndexFile('relics')).toBe('api/v1/collections/relics.cidx');
  });

  it('puts a collection item at its percent-encoded lookup key', () => {
    expect(collectionItemFile('relics', 'fire-ring')).toBe('api/v1/relics/fire-ring.json');
    expect(collectionItemFile('artifacts', 'a b/c?')).toBe('api/v1/artifacts/a%20b%2Fc%3F.json');
  });

  it('names the registry files (spec §4.1, §4.3, §4.5, §4.6)', () => {
    expect({
      ICON_REGISTRY_FILE,
      ICON_PATH_INDEX_FILE,
      ICON_CATEGORY_INDEX_FILE,
      ICON_SEARCH_INDEX_FILE,
      SPRITE_REGISTRY_FILE,
      SPRITE_SEARCH_INDEX_FILE,
      CHARACTER_REGISTRY_FILE,
      SPRITE_STATS_FILE,
      ASSET_INDEX_FILE,
      ASSET_CATEGORIES_FILE,
    }).toEqual({
      ICON_REGISTRY_FILE: 'api/v1/icon-registry.json',
      ICON_PATH_INDEX_FILE: 'api/v1/icon-path-index.json',
      ICON_CATEGORY_INDEX_FILE: 'api/v1/icon-category-index.json',
      ICON_SEARCH_INDEX_FILE: 'api/v1/icon-search-index.json',
      SPRITE_REGISTRY_FILE: 'api/v1/sprite-registry.json',
      SPRITE_SEARCH_INDEX_FILE: 'api/v1/sprite-search-index.json',
      CHARACTER_REGISTRY_FILE: 'api/v1/character-registry.json',
      SPRITE_STATS_FILE: 'api/v1/sprite-stats.json',
      ASSET_INDEX_FILE: 'api/v1/asset-index.json',
      ASSET_CATEGORIES_FILE: 'api/v1/asset-categories.json',
    });
    expect(iconShardFile('weapon')).toBe('api/v1/icon-shards/weapon.json');
  });

  it('exposes the common paths and type lists from the formats index', () => {
    expect(formats.MANIFEST_FILE).toBe(MANIFEST_FILE);
    expect(formats.exportFile('armor')).toBe('api/v1/exports/armor.json');
    expect(formats.collectionItemFile('relics', 'x')).toBe('api/v1/relics/x.json');
    expect(formats.EXPORT_TYPES).toEqual(['weapons', 'armor', 'materials', 'consumables', 'enemies', 'bosses', 'skills']);
    expect(formats.SEARCH_TYPES).toEqual([...EXPORT_TYPES, 'sprites']);
    expect(formats.COLLECTION_NAMES).toEqual(['relics', 'enchants', 'infusions', 'artifacts']);
  });
});

describe('registry vocabularies', () => {
  it('lists the 16 icon categories in spec §4.6 order', () => {
    expect(ICON_CATEGORIES).toEqual([
      'misc',
      'race',
      'ability',
      'armor',
      'consumable',
      'faction',
      'item',
      'material',
      'entity',
      'class',
      'weapon',
      'profession',
      'sigil',
      'skill',
      'spell',
      'ui',
    ]);
  });

  it('knows an icon category only by its exact spelling', () => {
    for (const c of ICON_CATEGORIES) expect(isIconCategory(c), c).toBe(true);
    for (const v of ['Weapon', 'weapons', '', ' ui', 7, null, undefined, ['ui']]) expect(isIconCategory(v), String(v)).toBe(false);
  });

  it('lists the asset types in spec §2.4 order', () => {
    expect(ASSET_TYPES).toEqual(['icon', 'sprite', 'model', 'audio', 'video']);
  });

  it('looks ids up trimmed and in upper case (spec §2.6)', () => {
    expect(registryIdKey('  icon-ab12-cd34-ef56 ')).toBe('ICON-AB12-CD34-EF56');
    expect(registryIdKey('SPRT-0a1b2c3d-0e0f10')).toBe('SPRT-0A1B2C3D-0E0F10');
  });
});

describe('CDN URL of a binary (spec §4.9)', () => {
  it('joins base and key with exactly one slash', () => {
    expect(cdnFileUrl('https://cdn.test', 'game-assets/icons/a.png')).toBe('https://cdn.test/game-assets/icons/a.png');
    expect(cdnFileUrl('https://cdn.test//', '//sprites/b.png')).toBe('https://cdn.test/sprites/b.png');
  });

  it('percent-encodes each segment but keeps the slashes', () => {
    expect(cdnFileUrl('https://cdn.test/', '/weapons/Great Axe#1.png')).toBe('https://cdn.test/weapons/Great%20Axe%231.png');
  });

  it('strips slashes only at the ends', () => {
    expect(cdnFileUrl('https://cdn.test/a/', 'b/c/')).toBe('https://cdn.test/a/b/c/');
  });
});

describe('sourcesOf: the source files an output is made from (named when a build left it out)', () => {
  it('names the published source file itself, with what the functions read it for', () => {
    expect(sourcesOf('api/v1/classes.json')).toEqual({
      files: ['classes.json'],
      holds: 'the classes a character is created with, spec §4.1',
    });
    expect(sourcesOf('api/v1/races.json')?.holds).toBe('the races a character is created with, spec §4.1');
    expect(sourcesOf('api/v1/factions.json')?.holds).toBe('the factions and the races each admits, spec §4.1');
    expect(sourcesOf('api/v1/professions.json')?.holds).toBe('the crafting and gathering professions, spec §4.1');
    expect(sourcesOf('api/v1/master-professions.json')?.holds).toBe(
      'the crafting and gathering professions, also read from professions.json, spec §4.1',
    );
    expect(sourcesOf('api/v1/master-recipes.json')?.holds).toBe('the recipes a character learns, spec §4.1');
    expect(sourcesOf('api/v1/master-materials.json')?.holds).toBe('the materials and consumables of the bag, spec §4.1');
    expect(sourcesOf('api/v1/master-weaponSkills.json')?.holds).toBe('the weapon types and their skills, spec §2.6, §4.1');
    expect(sourcesOf('api/v1/armor.json')).toEqual({ files: ['armor.json'], holds: 'catalog data, spec §4.1' });
  });

  it('names the sources of derived files', () => {
    expect(sourcesOf(collectionIndexFile('relics'))).toEqual({ files: ['master-relics.json'], holds: 'the relics collection, spec §4.2' });
    for (const f of [
      ICON_REGISTRY_FILE,
      ICON_PATH_INDEX_FILE,
      ICON_CATEGORY_INDEX_FILE,
      ICON_SEARCH_INDEX_FILE,
      'api/v1/icon-shards/ui.json',
    ])
      expect(sourcesOf(f), f).toEqual({ files: ['icon-sources.json'], holds: 'the icon registry, spec §4.6' });
    for (const f of [SPRITE_REGISTRY_FILE, SPRITE_SEARCH_INDEX_FILE, SPRITE_STATS_FILE])
      expect(sourcesOf(f), f).toEqual({ files: ['sprites2d.json', 'sprite-ids.json'], holds: 'the 2D sprite registry, spec §2.3, §4.5' });
    expect(sourcesOf(CHARACTER_REGISTRY_FILE)).toEqual({ files: ['sprite-characters.json'], holds: 'the sprite characters, spec §4.5' });
    for (const f of [ASSET_INDEX_FILE, ASSET_CATEGORIES_FILE])
      expect(sourcesOf(f), f).toEqual({ files: ['studiodot-assets.json'], holds: 'the asset manifest, spec §2.4, §4.3' });
  });

  it('names nothing for what every build writes from the whole catalog, and for paths outside the layout', () => {
    for (const f of [MANIFEST_FILE, SEARCH_INDEX_FILE, STATS_FILE, MASTER_REGISTRY_FILE, CANONICAL_ITEMS_FILE, exportFile('weapons')])
      expect(sourcesOf(f), f).toBeUndefined();
    for (const f of [
      'api/v1/collections/Relics.cidx',
      'xapi/v1/classes.json',
      'api/v1/classes.jsonx',
      'api/v1/a/b.json',
      'api/v1/icon-registry.jsonx',
    ])
      expect(sourcesOf(f), f).toBeUndefined();
    expect(sourcesOf('api/v1/xsprite-registry.json')).toEqual({ files: ['xsprite-registry.json'], holds: 'catalog data, spec §4.1' });
    expect(sourcesOf('api/v1/xcharacter-registry.json')?.files).toEqual(['xcharacter-registry.json']);
    expect(sourcesOf('api/v1/xasset-index.json')?.files).toEqual(['xasset-index.json']);
    expect(sourcesOf('api/v1/xicon-registry.json')?.files).toEqual(['xicon-registry.json']);
    expect(sourcesOf('xapi/v1/icon-shards/ui.json')).toBeUndefined();
  });
});
