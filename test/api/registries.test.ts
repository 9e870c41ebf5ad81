// Icon, sprite, character and asset registries (spec 2.3, 2.4, 2.6, 4.3, 4.5, 4.6): the derivers run on
// inline source documents, their output is written to a temp folder, and api/registries.ts is called with
// `new Request(...)`. Expectations come from the inline sources and from shared/fixtures/id-vectors.json,
// never from the handler; every response body is validated against its schema in schemas/responses/.
import { testConfig } from '../helpers/config.js';
import { ID_VECTORS } from '../helpers/catalog.js';
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { GET } from '../../api/registries.js';
import { useCatalog } from '../helpers/service.js';
import { routesOf } from '../../api/_lib/routing/table.js';
import { MANIFEST_FILE } from '../../api/_lib/formats/index.js';
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
  iconShardFile,
  type SpriteRegistryFile,
} from '../../api/_lib/formats/registries.js';
import { ASSET_RULES, ASSETS_SOURCE_FILE, deriveAssets } from '../../build/derive/assets.js';
import { ICON_RULES, ICON_SOURCE_FILE, deriveIcons } from '../../build/derive/icons.js';
import { SPRITE_CHARACTERS_FILE, SPRITE_IDS_FILE, SPRITE_RULES, SPRITES_SOURCE_FILE, deriveSprites } from '../../build/derive/sprites.js';
import { deriveIconId, deriveSpriteId } from '../../build/pipeline/ids.js';
import type { CatalogConfig, DeriveContext, Emitted, IssueInput, SourceDoc } from '../../build/pipeline/types.js';

const repo = resolve(import.meta.dirname, '../..');

// ---------- schemas
const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;
const ajv = addFormats(new Ajv2020({ allErrors: true, allowUnionTypes: true }));
const RESPONSE_SCHEMAS = [
  'icon',
  'icons-list',
  'icons-search',
  'icon-categories',
  'sprite',
  'sprites-list',
  'sprites-search',
  'character',
  'characters-list',
  'registry-stats',
  'studiodot-asset',
  'studiodot-assets-list',
  'studiodot-assets-categories',
];
const OUTPUT_SCHEMAS = [
  'icon-registry',
  'icon-path-index',
  'icon-category-index',
  'icon-shard',
  'term-index',
  'sprite-registry',
  'character-registry',
  'sprite-stats',
  'asset-index',
  'asset-categories',
];
for (const name of RESPONSE_SCHEMAS)
  ajv.addSchema(JSON.parse(readFileSync(join(repo, `schemas/responses/${name}.schema.json`), 'utf8')) as object);
for (const name of OUTPUT_SCHEMAS)
  ajv.addSchema(JSON.parse(readFileSync(join(repo, `schemas/output/${name}.schema.json`), 'utf8')) as object);

function schemaErrors(kind: 'responses' | 'output', name: string, body: unknown): unknown {
  const v = ajv.getSchema(`https://schemas.game-data.dev/${kind}/${name}.schema.json`);
  if (!v) throw new Error(`schema ${kind}/${name} missing`);
  return v(body) ? null : v.errors;
}

/** Output schema of each emitted path. */
function outputSchemaOf(path: string): string {
  const fixed: Record<string, string> = {
    [ICON_REGISTRY_FILE]: 'icon-registry',
    [ICON_PATH_INDEX_FILE]: 'icon-path-index',
    [ICON_CATEGORY_INDEX_FILE]: 'icon-category-index',
    [ICON_SEARCH_INDEX_FILE]: 'term-index',
    [SPRITE_REGISTRY_FILE]: 'sprite-registry',
    [SPRITE_SEARCH_INDEX_FILE]: 'term-index',
    [CHARACTER_REGISTRY_FILE]: 'character-registry',
    [SPRITE_STATS_FILE]: 'sprite-stats',
    [ASSET_INDEX_FILE]: 'asset-index',
    [ASSET_CATEGORIES_FILE]: 'asset-categories',
  };
  const hit = fixed[path] ?? (ICON_CATEGORIES.some((c) => iconShardFile(c) === path) ? 'icon-shard' : undefined);
  if (!hit) throw new Error(`no output schema for ${path}`);
  return hit;
}

// ---------- inline sources
interface Vectors {
  icon: { namespace: string; pairs: { input: string; id: string }[] };
  sprite: { pairs: { path: string; id: string }[] };
}
const vectors = JSON.parse(readFileSync(ID_VECTORS, 'utf8')) as Vectors;

const CDN = 'https://cdn.test';
const CONFIG = testConfig({
  name: 'test catalog',
  baseUrl: 'https://data.test',
  cdnUrl: `${CDN}/`,
  namespaces: { skill: 'grudge-skill:', icon: vectors.icon.namespace, sprite: 'studio-sprite:' },
  uuidField: 'grudgeUuid',
});
const P = 'game-assets/icons/';

interface IconSrc {
  key: string;
  category: string;
  name?: string;
  tags?: string[];
}
const ICONS: IconSrc[] = [
  { key: `${P}496_rpg_icons/A_Armor04.png`, category: 'armor', name: 'Armor Plate', tags: ['armor', 'chest'] },
  { key: `${P}496_rpg_icons/A_Armor05.png`, category: 'armor', name: 'Armor Vest', tags: ['armor'] },
  { key: `${P}496_rpg_icons/Ac_Ring01.png`, category: 'item', name: 'Gold Ring', tags: ['ring', 'accessory'] },
  { key: `${P}abilities/ability_dual_slash.png`, category: 'ability', name: 'Dual Slash', tags: ['sword'] },
  { key: `${P}skills_rpg/skill_double_strike.png`, category: 'skill', name: 'Double Strike', tags: ['sword', 'strike'] },
  { key: `${P}skills/class/swordsman/swordsman_01.png`, category: 'class' },
  ...Array.from({ length: 7 }, (_, i) => ({
    key: `${P}weapons/sword_${i + 1}.png`,
    category: 'weapon',
    name: `Sword ${i + 1}`,
    tags: ['sword', 'blade'],
  })),
  { key: `${P}weapons/Great Axe.png`, category: 'weapon', name: 'Great Axe', tags: ['axe'] },
];
const iconIdOf = (key: string): string => vectors.icon.pairs.find((p) => p.input === key)?.id ?? deriveIconId(vectors.icon.namespace, key);
const iconNameOf = (i: IconSrc): string => i.name ?? (i.key.split('/').pop() ?? '').replace(/\.png$/, '');
const byIdSorted = (list: IconSrc[]): string[] => list.map((i) => iconIdOf(i.key)).sort();

const SPRITES2D = {
  totalSprites: 7,
  generatedAt: '2026-01-01T00:00:00Z',
  categories: {
    bosses: {
      count: 4,
      items: [
        { name: 'Demon Cleave', path: '/sprites/boss-demon/cleave.png', category: 'bosses', subcategory: 'boss-demon', source: 'pack-a' },
        { name: 'Demon Death', path: '/sprites/boss-demon/death.png', category: 'bosses', subcategory: 'boss-demon', source: 'pack-a' },
        {
          name: 'Demon Take Hit',
          path: '/sprites/bosses/boss-demon/take_hit.png',
          category: 'bosses',
          subcategory: 'boss-demon',
          source: 'pack-a',
        },
        {
          name: 'Cthulu Attack',
          path: '/sprites/bosses/cthulu-boss/attack1.png',
          category: 'bosses',
          subcategory: 'cthulu-boss',
          source: 'pack-a',
        },
      ],
    },
    characters: {
      count: 2,
      items: [
        {
          name: 'Knight Idle',
          path: '/sprites/characters/knight/idle.png',
          category: 'characters',
          subcategory: 'knight',
          source: 'pack-b',
        },
        {
          name: 'Knight Walk',
          path: '/sprites/characters/knight/walk.png',
          category: 'characters',
          subcategory: 'knight',
          source: 'pack-b',
        },
      ],
    },
    effects: {
      count: 1,
      items: [{ name: 'Fire Burst', path: '/sprites/effects/fire_burst.png', category: 'effects', subcategory: 'fire', source: 'pack-c' }],
    },
  },
};
const ALL_SPRITES = Object.values(SPRITES2D.categories).flatMap((c) => c.items);
const SPRITE_IDS = { version: '1', ids: Object.fromEntries(vectors.sprite.pairs.map((p) => [p.path, p.id])) };
const spriteIdOf = (path: string): string => SPRITE_IDS.ids[path] ?? deriveSpriteId(CONFIG.namespaces.sprite, path);
const CHARACTERS = {
  version: '1',
  characters: [
    {
      name: 'Knight',
      category: 'heroes',
      basePath: '/sprites/characters/knight/',
      animations: { idle: '/sprites/characters/knight/idle.png', walk: '/sprites/characters/knight/walk.png' },
    },
    {
      name: 'Demon',
      category: 'bosses',
      basePath: '/sprites/characters/demon/',
      animations: { cleave: '/sprites/boss-demon/cleave.png', roar: '/sprites/boss-demon/roar.png' },
    },
  ],
};

interface AssetSrc {
  id: string;
  name: string;
  type: string;
  category: string;
  subcategory: string;
  url: string;
  previewUrl: string | null;
  tags: string[];
  format: string;
  sizeBytes: number;
  metadata: Record<string, unknown>;
}
const asset = (id: string, name: string, type: string, category: string, extra: Partial<AssetSrc> = {}): AssetSrc => ({
  id,
  name,
  type,
  category,
  subcategory: '',
  url: `${CDN}/assets/${id}`,
  previewUrl: null,
  tags: [],
  format: 'bin',
  sizeBytes: 100,
  metadata: {},
  ...extra,
});
const ASSETS: AssetSrc[] = [
  asset('AST-ICON-1', 'Sword Icon', 'icon', 'weapons', { subcategory: 'swords', tags: ['sword', 'steel'], format: 'png' }),
  asset('AST-ICON-2', 'Shield Icon', 'icon', 'armor', { format: 'png', previewUrl: `${CDN}/p/shield.png` }),
  asset('AST-SPR-1', 'Knight Sheet', 'sprite', 'characters', { format: 'png' }),
  asset('AST-MDL-1', 'Iron Sword', 'model', 'Weapons', { format: 'glb', tags: ['sword'], metadata: { scaleM: 1 } }),
  asset('AST-MDL-2', 'Oak Tree', 'model', 'nature', { format: 'glb' }),
  asset('AST-AUD-1', 'Sword Clash', 'audio', 'sfx', { format: 'ogg', tags: ['sword', 'combat'] }),
  asset('AST-VID-1', 'Intro Café', 'video', 'cinematics', { format: 'mp4' }),
  ...Array.from({ length: 260 }, (_, i) =>
    asset(`AST-STEP-${String(i).padStart(3, '0')}`, `Step ${String(i).padStart(3, '0')}`, 'audio', 'footsteps', { format: 'ogg' }),
  ),
];
function manifestOf(assets: readonly AssetSrc[]): Record<string, unknown> {
  const types = Object.fromEntries(ASSET_TYPES.map((t) => [t, assets.filter((a) => a.type === t).length]));
  const combos = new Map<string, { type: string; category: string; count: number }>();
  for (const a of assets) {
    const k = `${a.type}|${a.category}`;
    combos.set(k, { type: a.type, category: a.category, count: (combos.get(k)?.count ?? 0) + 1 });
  }
  return {
    version: '2.0.0',
    generated: '2026-01-01T00:00:00Z',
    baseUrl: CDN,
    totalAssets: assets.length,
    types,
    categories: [...combos.values()],
    assets,
  };
}

const SOURCES: Record<string, unknown> = {
  [ICON_SOURCE_FILE]: { version: '1', keyPrefix: P, icons: ICONS },
  [SPRITES_SOURCE_FILE]: SPRITES2D,
  [SPRITE_IDS_FILE]: SPRITE_IDS,
  [SPRITE_CHARACTERS_FILE]: CHARACTERS,
  [ASSETS_SOURCE_FILE]: manifestOf(ASSETS),
};

// ---------- helpers
function derive(sources: Record<string, unknown>, config: CatalogConfig = CONFIG): { files: Emitted[]; issues: IssueInput[] } {
  const docs = new Map<string, SourceDoc>(
    Object.entries(sources).map(([path, data]) => [path, { path, text: JSON.stringify(data, null, 2), data }]),
  );
  const issues: IssueInput[] = [];
  const ctx: DeriveContext = { config, docs, report: (i) => issues.push(i) };
  return { files: [...deriveIcons(ctx), ...deriveSprites(ctx), ...deriveAssets(ctx)], issues };
}
function bodyOf<T>(files: readonly Emitted[], path: string): T {
  const f = files.find((e) => e.path === path);
  if (!f) throw new Error(`${path} not emitted`);
  return f.body as T;
}
async function writeOutput(dir: string, files: readonly Emitted[]): Promise<void> {
  for (const f of [...files, { path: MANIFEST_FILE, body: { buildId: 'test' } }]) {
    await mkdir(dirname(join(dir, f.path)), { recursive: true });
    await writeFile(join(dir, f.path), JSON.stringify(f.body));
  }
}
const tmpDirs: string[] = [];
async function useOutput(files: readonly Emitted[]): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'registries-'));
  tmpDirs.push(dir);
  await writeOutput(dir, files);
  useCatalog(dir);
}

interface Json {
  [k: string]: unknown;
}
interface Listing<T = Json> {
  total: number;
  page: number;
  limit: number;
  count: number;
  items: T[];
  [k: string]: unknown;
}
async function call<T = Json>(path: string, schema?: string, init?: RequestInit): Promise<{ status: number; body: T; res: Response }> {
  const res = await GET(new Request(`http://t${path}`, init));
  const text = await res.text();
  const body = (text ? JSON.parse(text) : null) as T;
  if (schema && res.status === 200) expect(schemaErrors('responses', schema, body), `${path} vs ${schema}`).toBeNull();
  return { status: res.status, body, res };
}
const ok = async <T = Json>(path: string, schema: string): Promise<T> => {
  const r = await call<T>(path, schema);
  expect(r.status, path).toBe(200);
  return r.body;
};
const names = (l: Listing): unknown[] => l.items.map((i) => i.name);

afterAll(async () => {
  useCatalog(undefined);
  await Promise.all(tmpDirs.map((d) => rm(d, { recursive: true, force: true })));
});

// ======================================================================================
describe('derivers on well-formed sources', () => {
  const { files, issues } = derive(SOURCES);

  it('report nothing but the one deliberate unknown animation', () => {
    expect(issues.map((i) => `${i.rule} ${i.file} ${i.pointer}`)).toEqual([
      `sprites/unknown-animation ${SPRITE_CHARACTERS_FILE} /characters/1/animations/roar`,
    ]);
  });

  it('emit every contract file, all 16 icon shards, each valid against its output schema', () => {
    const expected = [
      ICON_REGISTRY_FILE,
      ICON_PATH_INDEX_FILE,
      ICON_CATEGORY_INDEX_FILE,
      ICON_SEARCH_INDEX_FILE,
      ...ICON_CATEGORIES.map(iconShardFile),
      SPRITE_REGISTRY_FILE,
      SPRITE_SEARCH_INDEX_FILE,
      CHARACTER_REGISTRY_FILE,
      SPRITE_STATS_FILE,
      ASSET_INDEX_FILE,
      ASSET_CATEGORIES_FILE,
    ];
    expect(files.map((f) => f.path).sort()).toEqual(expected.sort());
    for (const f of files) expect(schemaErrors('output', outputSchemaOf(f.path), f.body), f.path).toBeNull();
  });

  it('are deterministic: two derivations are byte-identical', () => {
    expect(JSON.stringify(derive(SOURCES).files)).toBe(JSON.stringify(files));
  });

  it('give every icon its ICON id (id-vectors pairs), the configured id field, path, url and default name', () => {
    const reg = bodyOf<{ version: string; uuidField: string; count: number; icons: Json[] }>(files, ICON_REGISTRY_FILE);
    expect(reg.version).toBe('1.0.0');
    expect(reg.uuidField).toBe('grudgeUuid');
    expect(reg.count).toBe(ICONS.length);
    expect(reg.icons.map((i) => i.iconUuid)).toEqual(byIdSorted(ICONS));
    for (const pair of vectors.icon.pairs) {
      const rec = reg.icons.find((i) => i.key === pair.input);
      expect(rec?.iconUuid).toBe(pair.id);
      expect(rec?.grudgeUuid).toBe(pair.id);
      expect(rec?.path).toBe(pair.input.slice(P.length));
      expect(rec?.url).toBe(`${CDN}/${pair.input}`);
      expect(rec).not.toHaveProperty('studioUuid');
    }
    expect(reg.icons.find((i) => i.key === `${P}weapons/Great Axe.png`)?.url).toBe(`${CDN}/${P}weapons/Great%20Axe.png`);
    expect(reg.icons.find((i) => i.key === `${P}skills/class/swordsman/swordsman_01.png`)).toMatchObject({
      name: 'swordsman_01',
      tags: [],
    });
  });

  it('use studioUuid by default and the configured registry version', () => {
    const { files: f2 } = derive(SOURCES, { ...CONFIG, uuidField: 'studioUuid', versions: { iconRegistry: '1.4.0' } });
    const reg = bodyOf<{ version: string; icons: Json[] }>(f2, ICON_REGISTRY_FILE);
    expect(reg.version).toBe('1.4.0');
    for (const i of reg.icons) {
      expect(i.studioUuid).toBe(i.iconUuid);
      expect(i).not.toHaveProperty('grudgeUuid');
    }
  });

  it('index both path forms of every icon', () => {
    const idx = bodyOf<{ paths: Record<string, string>; count: number; urlPrefix: string }>(files, ICON_PATH_INDEX_FILE);
    expect(idx.count).toBe(2 * ICONS.length);
    expect(idx.urlPrefix).toBe(`${CDN}/`);
    for (const i of ICONS) {
      expect(idx.paths[i.key]).toBe(iconIdOf(i.key));
      expect(idx.paths[i.key.slice(P.length)]).toBe(iconIdOf(i.key));
    }
  });

  it('list all 16 categories in spec order with counts and ids, zero-count ones included', () => {
    const idx = bodyOf<{ total: number; categories: { category: string; count: number; ids: string[] }[] }>(
      files,
      ICON_CATEGORY_INDEX_FILE,
    );
    expect(idx.categories.map((c) => c.category)).toEqual([...ICON_CATEGORIES]);
    for (const c of idx.categories) {
      const mine = ICONS.filter((i) => i.category === c.category);
      expect(c.count).toBe(mine.length);
      expect(c.ids).toEqual(byIdSorted(mine));
    }
    expect(idx.total).toBe(ICONS.length);
  });
});

// ======================================================================================
describe('sprite ids stay stable', () => {
  const registryOf = (sources: Record<string, unknown>): SpriteRegistryFile =>
    bodyOf<SpriteRegistryFile>(derive(sources).files, SPRITE_REGISTRY_FILE);
  const idsByPath = (r: SpriteRegistryFile): Record<string, string> => Object.fromEntries(r.sprites.map((s) => [s.path, s.uuid]));

  it('keeps every existing id and derives the rest from the path', () => {
    const ids = idsByPath(registryOf(SOURCES));
    for (const p of vectors.sprite.pairs) expect(ids[p.path]).toBe(p.id);
    for (const s of ALL_SPRITES) expect(ids[s.path]).toBe(spriteIdOf(s.path));
  });

  it('gives the same ids in two derivations and when a new path is added', () => {
    const before = idsByPath(registryOf(SOURCES));
    expect(idsByPath(registryOf(SOURCES))).toEqual(before);
    const added = structuredClone(SPRITES2D);
    added.totalSprites += 1;
    added.categories.effects.count += 1;
    added.categories.effects.items.unshift({
      name: 'Aaa New',
      path: '/sprites/effects/aaa_new.png',
      category: 'effects',
      subcategory: 'fire',
      source: 'pack-c',
    });
    const after = idsByPath(registryOf({ ...SOURCES, [SPRITES_SOURCE_FILE]: added }));
    expect(after).toEqual({
      ...before,
      '/sprites/effects/aaa_new.png': deriveSpriteId(CONFIG.namespaces.sprite, '/sprites/effects/aaa_new.png'),
    });
  });

  it("keeps a removed path's id reserved and gives it back when the path returns", () => {
    const path = vectors.sprite.pairs[0]?.path ?? '';
    const without = structuredClone(SPRITES2D);
    without.totalSprites -= 1;
    without.categories.bosses.count -= 1;
    without.categories.bosses.items = without.categories.bosses.items.filter((i) => i.path !== path);
    const r = derive({ ...SOURCES, [SPRITES_SOURCE_FILE]: without });
    expect(r.issues.filter((i) => i.rule === 'sprites/stale-id').map((i) => i.pointer)).toEqual([`/ids/${path.replace(/\//g, '~1')}`]);
    expect(idsByPath(bodyOf(r.files, SPRITE_REGISTRY_FILE))).not.toHaveProperty(path);
    expect(idsByPath(registryOf(SOURCES))[path]).toBe(SPRITE_IDS.ids[path]);
  });
});

// ======================================================================================
describe('rules: problems are reported with rule and JSON pointer, never a crash', () => {
  const pairs = (issues: IssueInput[]): string[] => issues.map((i) => `${i.rule} ${i.pointer}`).sort();
  const known = (rules: readonly { name: string }[], issues: IssueInput[]): void => {
    for (const i of issues) {
      expect(rules.map((r) => r.name)).toContain(i.rule);
      expect(i.message.length).toBeGreaterThan(10);
    }
  };

  it('icons', () => {
    const icons: unknown[] = [
      { key: `${P}a/ok.png`, category: 'ui', name: 'Ok' },
      { key: `${P}a/ok.png`, category: 'ui', name: 'Dup' },
      { key: 'other/b.png', category: 'ui', name: 'B' },
      { key: `${P}c.png`, category: 'weapons', name: 'C' },
      { key: `/${P}d.png`, category: 'ui' },
      'nope',
      { category: 'ui', name: 'no key' },
      { key: `${P}e.png`, category: 'ui', tags: ['x', 3] },
      { key: `${P}a/../f.png`, category: 'ui' },
      { key: P, category: 'ui' },
      { key: `${P}${P}a/ok.png`, category: 'ui' },
      { key: `${P}g.png`, category: 'ui', name: '  ' },
    ];
    const { files, issues } = derive({ [ICON_SOURCE_FILE]: { version: '1', keyPrefix: P, icons } });
    expect(pairs(issues)).toEqual(
      [
        'icons/duplicate-key /icons/1/key',
        'icons/key-prefix /icons/2/key',
        'icons/unknown-category /icons/3/category',
        'icons/key-format /icons/4/key',
        'icons/source-shape /icons/5',
        'icons/source-shape /icons/6/key',
        'icons/source-shape /icons/7/tags/1',
        'icons/key-format /icons/8/key',
        'icons/key-format /icons/9/key',
        'icons/ambiguous-path /icons/10/key',
        'icons/source-shape /icons/11/name',
      ].sort(),
    );
    known(ICON_RULES, issues);
    expect(issues.every((i) => i.file === ICON_SOURCE_FILE)).toBe(true);
    const reg = bodyOf<{ icons: Json[] }>(files, ICON_REGISTRY_FILE);
    expect(reg.icons.map((i) => i.key).sort()).toEqual([`${P}a/ok.png`, `${P}${P}a/ok.png`].sort());
    const idx = bodyOf<{ paths: Record<string, string> }>(files, ICON_PATH_INDEX_FILE);
    expect(idx.paths[`${P}a/ok.png`]).toBe(deriveIconId(CONFIG.namespaces.icon, `${P}a/ok.png`));
  });

  it('icons: a source that is not an object, or has no icon array', () => {
    expect(pairs(derive({ [ICON_SOURCE_FILE]: [] }).issues)).toEqual(['icons/source-shape ']);
    const r = derive({ [ICON_SOURCE_FILE]: { icons: 5, keyPrefix: 'no-slash' } });
    expect(pairs(r.issues)).toEqual(['icons/source-shape /icons', 'icons/source-shape /keyPrefix']);
    expect(bodyOf<{ count: number }>(r.files, ICON_REGISTRY_FILE).count).toBe(0);
  });

  it('sprites and characters', () => {
    const sprites2d = {
      totalSprites: 9,
      generatedAt: '2026-01-01T00:00:00Z',
      categories: {
        bosses: {
          count: 3,
          items: [
            { name: 'A', path: '/sprites/a.png', category: 'bosses', subcategory: '', source: '' },
            { name: 'A2', path: '/sprites/a.png', category: 'bosses', subcategory: '', source: '' },
          ],
        },
        'fx/special': {
          count: 3,
          items: [
            { name: 'B', path: '/sprites/b.png', category: 'effects', subcategory: '', source: '' },
            { path: '/sprites/c.png', category: 'fx/special', subcategory: '', source: '' },
            { name: 'D', path: '/sprites/d.png', category: 'fx/special', subcategory: 5, source: '' },
          ],
        },
        broken: 'x',
      },
    };
    const ids = {
      version: '1',
      ids: {
        '/sprites/a.png': 'SPRT-1234',
        '/sprites/b.png': 'SPRT-AAAAAAAA-BBBBBB',
        '/sprites/d.png': 'SPRT-AAAAAAAA-BBBBBB',
        '/sprites/gone.png': 'SPRT-CCCCCCCC-DDDDDD',
      },
    };
    const characters = {
      version: '1',
      characters: [
        {
          name: 'K',
          category: 'heroes',
          basePath: '/sprites/characters/k/',
          animations: { idle: '/sprites/a.png', run: '/sprites/nope.png' },
        },
        { name: 'K2', category: 'heroes', basePath: '/sprites/characters/k/', animations: {} },
        { name: 'Odd', category: 'heroes', basePath: '/chars/odd', animations: {} },
        { name: 'Bad', category: 'heroes', basePath: '/sprites/characters/bad/', animations: { idle: 4 } },
      ],
    };
    const { files, issues } = derive({ [SPRITES_SOURCE_FILE]: sprites2d, [SPRITE_IDS_FILE]: ids, [SPRITE_CHARACTERS_FILE]: characters });
    expect(pairs(issues)).toEqual(
      [
        'sprites/count-mismatch /totalSprites',
        'sprites/count-mismatch /categories/bosses/count',
        'sprites/duplicate-path /categories/bosses/items/1/path',
        'sprites/category-mismatch /categories/fx~1special/items/0/category',
        'sprites/source-shape /categories/fx~1special/items/1/name',
        'sprites/source-shape /categories/fx~1special/items/2/subcategory',
        'sprites/source-shape /categories/broken',
        'sprites/id-format /ids/~1sprites~1a.png',
        'sprites/duplicate-id /ids/~1sprites~1d.png',
        'sprites/stale-id /ids/~1sprites~1gone.png',
        'sprites/unknown-animation /characters/0/animations/run',
        'sprites/duplicate-character /characters/1/basePath',
        'sprites/character-base-path /characters/2/basePath',
        'sprites/source-shape /characters/3/animations/idle',
      ].sort(),
    );
    known(SPRITE_RULES, issues);
    const ns = CONFIG.namespaces.sprite;
    const reg = bodyOf<SpriteRegistryFile>(files, SPRITE_REGISTRY_FILE);
    expect(reg.sprites.map((s) => [s.path, s.uuid, s.category, s.subcategory])).toEqual([
      ['/sprites/a.png', deriveSpriteId(ns, '/sprites/a.png'), 'bosses', ''],
      ['/sprites/b.png', 'SPRT-AAAAAAAA-BBBBBB', 'fx/special', ''],
      ['/sprites/d.png', deriveSpriteId(ns, '/sprites/d.png'), 'fx/special', ''],
    ]);
    const chars = bodyOf<{ characters: Json[] }>(files, CHARACTER_REGISTRY_FILE).characters;
    expect(chars.map((c) => c.name)).toEqual(['K', 'Odd']);
    expect(chars[0]).toMatchObject({
      uuid: deriveSpriteId(ns, '/sprites/characters/k/'),
      animations: {
        idle: { path: '/sprites/a.png', uuid: deriveSpriteId(ns, '/sprites/a.png') },
        run: { path: '/sprites/nope.png', uuid: null },
      },
    });
    for (const f of files) expect(schemaErrors('output', outputSchemaOf(f.path), f.body), f.path).toBeNull();
  });

  it('assets', () => {
    const full = (id: string, name: string, type: string, category: string): Json => ({ ...asset(id, name, type, category) });
    const manifest = {
      version: '1',
      generated: '2026-01-01T00:00:00Z',
      baseUrl: CDN,
      totalAssets: 9,
      types: { icon: 1, sprite: 0, model: 2, audio: 0, video: 0, texture: 1 },
      categories: [
        { type: 'icon', category: 'weapons', count: 2 },
        { type: 'model', category: 'weapons', count: 5 },
        { type: 'icon', category: 'weapons', count: 2 },
      ],
      assets: [
        full('A1', 'Sword', 'icon', 'weapons'),
        full('A1', 'Sword copy', 'icon', 'weapons'),
        { id: 'M1', name: 'Axe', type: 'model', category: 'weapons', url: `${CDN}/m1` },
        'x',
        full('T1', 'Tex', 'texture', 'odd'),
        full('', 'Blank', 'video', 'c'),
      ],
    };
    const { files, issues } = derive({ [ASSETS_SOURCE_FILE]: manifest });
    expect(pairs(issues)).toEqual(
      [
        'assets/duplicate-id /assets/1/id',
        'assets/field-type /assets/2/subcategory',
        'assets/field-type /assets/2/previewUrl',
        'assets/field-type /assets/2/tags',
        'assets/field-type /assets/2/format',
        'assets/field-type /assets/2/sizeBytes',
        'assets/field-type /assets/2/metadata',
        'assets/source-shape /assets/3',
        'assets/unknown-type /assets/4/type',
        'assets/source-shape /assets/5/id',
        'assets/count-mismatch /totalAssets',
        'assets/unknown-type /types/texture',
        'assets/count-mismatch /types/icon',
        'assets/count-mismatch /types/model',
        'assets/count-mismatch /types/video',
        'assets/count-mismatch /categories/1/count',
        'assets/count-mismatch /categories/2',
        'assets/count-mismatch /categories',
        'assets/count-mismatch /categories',
      ].sort(),
    );
    known(ASSET_RULES, issues);
    const index = bodyOf<{ assets: Json[] }>(files, ASSET_INDEX_FILE);
    expect(index.assets.map((a) => a.id)).toEqual(['A1', 'M1']);
    expect(index.assets[1]).toMatchObject({ subcategory: '', previewUrl: null, tags: [], format: '', sizeBytes: null, metadata: {} });
    const cats = bodyOf<Json>(files, ASSET_CATEGORIES_FILE);
    expect(cats).toEqual({
      total: 2,
      types: { icon: 1, sprite: 0, model: 1, audio: 0, video: 0 },
      categories: [
        { type: 'icon', category: 'weapons', count: 1 },
        { type: 'model', category: 'weapons', count: 1 },
      ],
    });
    for (const f of files) expect(schemaErrors('output', outputSchemaOf(f.path), f.body), f.path).toBeNull();
  });
});

// ======================================================================================
describe('registry functions over the derived output', () => {
  beforeAll(async () => {
    await useOutput(derive(SOURCES).files);
  });

  describe('icons (spec 4.6)', () => {
    it('lists all icons sorted by id with default paging', async () => {
      const b = await ok<Listing>('/api/v1/icons', 'icons-list');
      expect(b).toMatchObject({ total: ICONS.length, page: 1, limit: 50, count: ICONS.length, category: null });
      expect(b.items.map((i) => i.iconUuid)).toEqual(byIdSorted(ICONS));
    });

    it('pages: page 3 of 5, and a page past the end is empty', async () => {
      const all = byIdSorted(ICONS);
      const p3 = await ok<Listing>('/api/v1/icons?limit=5&page=3', 'icons-list');
      expect(p3).toMatchObject({ total: all.length, page: 3, limit: 5, count: all.slice(10, 15).length });
      expect(p3.items.map((i) => i.iconUuid)).toEqual(all.slice(10, 15));
      const p9 = await ok<Listing>('/api/v1/icons?limit=5&page=9', 'icons-list');
      expect(p9).toMatchObject({ total: all.length, count: 0, items: [] });
    });

    it('filters by category (case-insensitive) with paging', async () => {
      const weapons = byIdSorted(ICONS.filter((i) => i.category === 'weapon'));
      const b = await ok<Listing>('/api/v1/icons?category=WEAPON&limit=3&page=2', 'icons-list');
      expect(b).toMatchObject({ total: weapons.length, page: 2, limit: 3, count: 3, category: 'weapon' });
      expect(b.items.map((i) => i.iconUuid)).toEqual(weapons.slice(3, 6));
      const empty = await ok<Listing>('/api/v1/icons?category=spell', 'icons-list');
      expect(empty).toMatchObject({ total: 0, count: 0, items: [], category: 'spell' });
    });

    it('clamps a limit above 500 and says so in headers', async () => {
      const r = await call<Listing>('/api/v1/icons?limit=1000', 'icons-list');
      expect(r.body.limit).toBe(500);
      expect(r.res.headers.get('X-Limit-Requested')).toBe('1000');
      expect(r.res.headers.get('X-Limit-Applied')).toBe('500');
    });

    it('searches names, tags and paths: exact words before prefixes, then by name', async () => {
      const sword = await ok<Listing>('/api/v1/icons/search?q=sword', 'icons-search');
      const exact = ICONS.filter((i) => i.tags?.includes('sword'))
        .map(iconNameOf)
        .sort();
      expect(names(sword)).toEqual([...exact, 'swordsman_01']);
      expect(sword).toMatchObject({ query: 'sword', category: null, total: exact.length + 1 });
      const weapons = await ok<Listing>('/api/v1/icons/search?q=sword&category=weapon', 'icons-search');
      expect(names(weapons)).toEqual(
        ICONS.filter((i) => i.category === 'weapon' && i.tags?.includes('sword'))
          .map(iconNameOf)
          .sort(),
      );
      expect(names(await ok<Listing>('/api/v1/icons/search?q=armor', 'icons-search'))).toEqual(['Armor Plate', 'Armor Vest']);
      expect(names(await ok<Listing>('/api/v1/icons/search?q=Dual%20SLA', 'icons-search'))).toEqual(['Dual Slash']);
      expect(names(await ok<Listing>('/api/v1/icons/search?q=armor04', 'icons-search'))).toEqual(['Armor Plate']);
      expect(names(await ok<Listing>('/api/v1/icons/search?q=accessory', 'icons-search'))).toEqual(['Gold Ring']);
      expect(await ok<Listing>('/api/v1/icons/search?q=zzz', 'icons-search')).toMatchObject({ total: 0, items: [] });
      const paged = await ok<Listing>('/api/v1/icons/search?q=sword&limit=2&page=2', 'icons-search');
      expect(names(paged)).toEqual([...exact, 'swordsman_01'].slice(2, 4));
    });

    it('looks an icon up by ICON id (any case) and 404s an unknown id', async () => {
      for (const pair of vectors.icon.pairs) {
        const b = await ok<Json>(`/api/v1/icons/${pair.id}`, 'icon');
        expect(b).toMatchObject({ iconUuid: pair.id, grudgeUuid: pair.id, key: pair.input });
      }
      const first = vectors.icon.pairs[0]?.id ?? '';
      expect((await ok<Json>(`/api/v1/icons/${first.toLowerCase()}`, 'icon')).iconUuid).toBe(first);
      const miss = await call<Json>('/api/v1/icons/ICON-0000-0000-0000');
      expect(miss.status).toBe(404);
      expect(miss.body.code).toBe('NOT_FOUND');
    });

    it('looks an icon up by key, relative path, leading slash or CDN URL', async () => {
      const dual = `${P}abilities/ability_dual_slash.png`;
      for (const form of [dual, dual.slice(P.length), `/${dual.slice(P.length)}`, `/${dual}`, `${CDN}/${dual}`]) {
        const b = await ok<Json>(`/api/v1/icons/by-path?path=${encodeURIComponent(form)}`, 'icon');
        expect(b.iconUuid).toBe(iconIdOf(dual));
      }
      const axe = `${P}weapons/Great Axe.png`;
      for (const form of [axe, 'weapons/Great Axe.png', `${CDN}/${P}weapons/Great%20Axe.png`]) {
        expect((await ok<Json>(`/api/v1/icons/by-path?path=${encodeURIComponent(form)}`, 'icon')).iconUuid).toBe(iconIdOf(axe));
      }
      for (const form of ['nope.png', `${P}Abilities/ability_dual_slash.png`, 'toString', '__proto__']) {
        const r = await call<Json>(`/api/v1/icons/by-path?path=${encodeURIComponent(form)}`);
        expect(r.status, form).toBe(404);
        expect(r.body.code).toBe('NOT_FOUND');
      }
    });

    it('lists the 16 categories with counts, zero ones included', async () => {
      const b = await ok<{ total: number; categories: { category: string; count: number }[] }>(
        '/api/v1/icons/categories',
        'icon-categories',
      );
      expect(b.categories).toEqual(
        ICON_CATEGORIES.map((category) => ({ category, count: ICONS.filter((i) => i.category === category).length })),
      );
      expect(b.total).toBe(ICONS.length);
    });

    it('legacy /api/assets/* answer from the icon registry', async () => {
      expect(await ok('/api/assets/categories', 'icon-categories')).toEqual(await ok('/api/v1/icons/categories', 'icon-categories'));
      expect(names(await ok<Listing>('/api/assets/search?q=ring', 'icons-search'))).toEqual(['Gold Ring']);
      const id = vectors.icon.pairs[2]?.id ?? '';
      expect((await ok<Json>(`/api/assets/${id}`, 'icon')).iconUuid).toBe(id);
      expect((await call('/api/assets/ICON-0000-0000-0000')).status).toBe(404);
    });
  });

  describe('sprites and characters (spec 4.5)', () => {
    const byPath = [...ALL_SPRITES].sort((a, b) => (a.path < b.path ? -1 : 1));

    it('lists sprites sorted by path with their ids', async () => {
      const b = await ok<Listing>('/api/v1/sprites', 'sprites-list');
      expect(b).toMatchObject({ total: ALL_SPRITES.length, page: 1, limit: 50, count: ALL_SPRITES.length, category: null });
      expect(b.items.map((s) => [s.path, s.uuid, s.url])).toEqual(byPath.map((s) => [s.path, spriteIdOf(s.path), `${CDN}${s.path}`]));
    });

    it('filters by category (case-insensitive) and pages', async () => {
      const bosses = byPath.filter((s) => s.category === 'bosses');
      const b = await ok<Listing>('/api/v1/sprites?category=BOSSES&limit=2&page=2', 'sprites-list');
      expect(b).toMatchObject({ total: bosses.length, page: 2, limit: 2, count: 2, category: 'BOSSES' });
      expect(b.items.map((s) => s.path)).toEqual(bosses.slice(2, 4).map((s) => s.path));
      expect(await ok<Listing>('/api/v1/sprites?category=nothing', 'sprites-list')).toMatchObject({ total: 0, items: [] });
    });

    it('searches name, path, category, subcategory and source', async () => {
      expect(names(await ok<Listing>('/api/v1/sprites/search?q=demon', 'sprites-search'))).toEqual([
        'Demon Cleave',
        'Demon Death',
        'Demon Take Hit',
      ]);
      const knights = await ok<Listing>('/api/v1/sprites/search?q=knight&category=characters', 'sprites-search');
      expect(knights).toMatchObject({ query: 'knight', category: 'characters', total: 2 });
      expect(names(await ok<Listing>('/api/v1/sprites/search?q=knight&category=bosses', 'sprites-search'))).toEqual([]);
      expect(names(await ok<Listing>('/api/v1/sprites/search?q=pack-c', 'sprites-search'))).toEqual([
        'Fire Burst',
        'Cthulu Attack',
        'Demon Cleave',
        'Knight Idle',
        'Knight Walk',
      ]);
      expect(names(await ok<Listing>('/api/v1/sprites/search?q=pack%20fire', 'sprites-search'))).toEqual(['Fire Burst']);
      expect(names(await ok<Listing>('/api/v1/sprites/search?q=attack1', 'sprites-search'))).toEqual(['Cthulu Attack']);
    });

    it('looks a sprite up by SPRT id (id-vectors pairs) and 404s an unknown id', async () => {
      for (const p of vectors.sprite.pairs)
        expect(await ok<Json>(`/api/v1/sprites/${p.id}`, 'sprite')).toMatchObject({ uuid: p.id, path: p.path });
      const r = await call<Json>('/api/v1/sprites/SPRT-00000000-000000');
      expect([r.status, r.body.code]).toEqual([404, 'NOT_FOUND']);
    });

    it('lists characters by name, filters by category, resolves animations', async () => {
      const b = await ok<Listing>('/api/v1/characters', 'characters-list');
      expect(names(b)).toEqual(['Demon', 'Knight']);
      expect(names(await ok<Listing>('/api/v1/characters?category=Heroes', 'characters-list'))).toEqual(['Knight']);
      const knight = CHARACTERS.characters[0];
      const uuid = spriteIdOf(knight?.basePath ?? '');
      const c = await ok<Json>(`/api/v1/characters/${uuid}`, 'character');
      expect(c).toEqual({
        uuid,
        name: 'Knight',
        category: 'heroes',
        basePath: knight?.basePath,
        animations: Object.fromEntries(
          Object.entries((knight?.animations ?? {}) as Record<string, string>).map(([a, p]) => [a, { path: p, uuid: spriteIdOf(p) }]),
        ),
      });
      const demon = await ok<Json>(`/api/v1/characters/${spriteIdOf('/sprites/characters/demon/')}`, 'character');
      expect(demon.animations).toEqual({
        cleave: { path: '/sprites/boss-demon/cleave.png', uuid: spriteIdOf('/sprites/boss-demon/cleave.png') },
        roar: { path: '/sprites/boss-demon/roar.png', uuid: null },
      });
      expect((await call('/api/v1/characters/SPRT-00000000-000000')).status).toBe(404);
    });

    it('stats: sprites, characters and icons per category', async () => {
      const b = await ok<Json>('/api/v1/stats', 'registry-stats');
      const count = (list: { category: string }[]): { category: string; count: number }[] =>
        [...new Set(list.map((x) => x.category))]
          .sort()
          .map((category) => ({ category, count: list.filter((x) => x.category === category).length }));
      expect(b).toEqual({
        sprites: {
          total: ALL_SPRITES.length,
          derivedIds: ALL_SPRITES.filter((s) => !(s.path in SPRITE_IDS.ids)).length,
          categories: count(ALL_SPRITES),
        },
        characters: { total: CHARACTERS.characters.length, categories: count(CHARACTERS.characters) },
        icons: {
          total: ICONS.length,
          categories: ICON_CATEGORIES.map((category) => ({ category, count: ICONS.filter((i) => i.category === category).length })),
        },
      });
    });
  });

  describe('asset search (spec 4.3)', () => {
    const TYPE_ORDER = (t: string): number => (ASSET_TYPES as readonly string[]).indexOf(t);
    const sorted = [...ASSETS].sort(
      (a, b) =>
        TYPE_ORDER(a.type) - TYPE_ORDER(b.type) ||
        (a.category < b.category ? -1 : a.category > b.category ? 1 : 0) ||
        (a.name < b.name ? -1 : a.name > b.name ? 1 : 0),
    );

    it('default page 1 of 200, clamped 500', async () => {
      const b = await ok<Listing>('/api/v1/studiodot-assets', 'studiodot-assets-list');
      expect(b).toMatchObject({ total: ASSETS.length, page: 1, limit: 200, count: 200, type: null, category: null, search: null });
      expect(b.items.map((a) => a.id)).toEqual(sorted.slice(0, 200).map((a) => a.id));
      const p2 = await ok<Listing>('/api/v1/studiodot-assets?page=2', 'studiodot-assets-list');
      expect(p2.items.map((a) => a.id)).toEqual(sorted.slice(200, 400).map((a) => a.id));
      const r = await call<Listing>('/api/v1/studiodot-assets?limit=501', 'studiodot-assets-list');
      expect([r.body.limit, r.body.count, r.res.headers.get('X-Limit-Applied')]).toEqual([500, ASSETS.length, '500']);
    });

    it('filters by type, category and search words together', async () => {
      const fold = (s: string): string =>
        s
          .normalize('NFKD')
          .replace(/\p{M}+/gu, '')
          .toLowerCase();
      const cases: [string, (a: AssetSrc) => boolean][] = [
        ['type=model', (a) => a.type === 'model'],
        ['category=WEAPONS', (a) => a.category.toLowerCase() === 'weapons'],
        [
          'search=sword',
          (a) => [a.id, a.name, a.category, a.subcategory, a.format, ...a.tags].some((s) => s.toLowerCase().includes('sword')),
        ],
        ['search=sword%20clash', (a) => a.name === 'Sword Clash'],
        ['search=cafe', (a) => fold(a.name).includes('cafe')],
        [
          'type=audio&category=footsteps&search=step%2001',
          (a) => a.type === 'audio' && a.category === 'footsteps' && a.name.toLowerCase().includes('step') && a.name.includes('01'),
        ],
        ['type=video&category=weapons', () => false],
      ];
      for (const [query, pred] of cases) {
        const b = await ok<Listing>(`/api/v1/studiodot-assets?${query}`, 'studiodot-assets-list');
        const want = sorted.filter(pred).map((a) => a.id);
        expect(want.length > 0 || query.includes('video'), query).toBe(true);
        expect(
          b.items.map((a) => a.id),
          query,
        ).toEqual(want.slice(0, 200));
        expect(b.total, query).toBe(want.length);
      }
      const echo = await ok<Listing>(
        '/api/v1/studiodot-assets?type=ICON&category=Weapons&search=Sword&limit=1&page=1',
        'studiodot-assets-list',
      );
      expect(echo).toMatchObject({ type: 'icon', category: 'Weapons', search: 'Sword', limit: 1, count: 1, total: 1 });
      expect(echo.items[0]).toEqual(ASSETS[0]);
    });

    it('categories with counts per type and category', async () => {
      const b = await ok<{ total: number; types: Record<string, number>; categories: Json[] }>(
        '/api/v1/studiodot-assets/categories',
        'studiodot-assets-categories',
      );
      expect(b.total).toBe(ASSETS.length);
      expect(b.types).toEqual(Object.fromEntries(ASSET_TYPES.map((t) => [t, ASSETS.filter((a) => a.type === t).length])));
      const combos = [...new Set(sorted.map((a) => `${a.type}|${a.category}`))];
      expect(b.categories).toEqual(
        combos.map((k) => {
          const [type, category] = k.split('|');
          return { type, category, count: ASSETS.filter((a) => a.type === type && a.category === category).length };
        }),
      );
    });
  });

  describe('routing, errors and caching', () => {
    it('routes by _route and _key exactly as by the public path', async () => {
      const id = vectors.icon.pairs[0]?.id ?? '';
      expect(await ok(`/api/registries?_route=icon&_key=${id}`, 'icon')).toEqual(await ok(`/api/v1/icons/${id}`, 'icon'));
      expect(await ok('/api/registries?_route=icons&category=weapon', 'icons-list')).toEqual(
        await ok('/api/v1/icons?category=weapon', 'icons-list'),
      );
      expect(await ok('/api/registries?_route=sprites-search&q=demon', 'sprites-search')).toEqual(
        await ok('/api/v1/sprites/search?q=demon', 'sprites-search'),
      );
      expect(await ok('/api/registries?_route=studiodot-assets-categories&_=123', 'studiodot-assets-categories')).toEqual(
        await ok('/api/v1/studiodot-assets/categories', 'studiodot-assets-categories'),
      );
      expect(await ok('/api/v1/icons/categories/', 'icon-categories')).toEqual(await ok('/api/v1/icons/categories', 'icon-categories'));
    });

    it('every route of the contract is answered through its public path', async () => {
      for (const r of routesOf('registries')) {
        const path = r.path.replace('{key}', 'X');
        const query = r.name.endsWith('search') ? '?q=a' : r.name === 'icons-by-path' ? '?path=a' : '';
        const res = await GET(new Request(`http://t${path}${query}`));
        expect([200, 404], `${path}`).toContain(res.status);
        if (res.status === 404) expect(path.endsWith('/X') || r.name === 'icons-by-path', path).toBe(true);
      }
    });

    it.each([
      ['/api/v1/icons?category=weapons', ['category']],
      ['/api/v1/icons?page=0', ['page']],
      ['/api/v1/icons?limit=0', ['limit']],
      ['/api/v1/icons?limit=ten', ['limit']],
      ['/api/v1/icons?page=1&page=2', ['page']],
      ['/api/v1/icons?colour=red', ['colour']],
      ['/api/v1/icons?category=x&page=-1&foo=1', ['category', 'foo', 'page']],
      ['/api/v1/icons/search', ['q']],
      ['/api/v1/icons/search?q=%20', ['q']],
      ['/api/v1/icons/search?q=!!!', ['q']],
      ['/api/v1/icons/search?q=a&category=swords', ['category']],
      ['/api/v1/icons/by-path', ['path']],
      ['/api/v1/icons/categories?x=1', ['x']],
      ['/api/v1/icons/ICON-87FD-EA7D-0741?full=1', ['full']],
      ['/api/assets/search', ['q']],
      ['/api/v1/sprites?limit=-1', ['limit']],
      ['/api/v1/sprites/search?category=bosses', ['q']],
      ['/api/v1/characters?page=x', ['page']],
      ['/api/v1/stats?x=1', ['x']],
      ['/api/v1/studiodot-assets?type=texture', ['type']],
      ['/api/v1/studiodot-assets?page=1.5&search=a&search=b', ['page', 'search']],
    ])('400 INVALID_QUERY for %s', async (path, params) => {
      const r = await call<{ code: string; errors: { name: string }[] }>(path);
      expect(r.status).toBe(400);
      expect(r.res.headers.get('content-type')).toBe('application/problem+json');
      expect(r.body.code).toBe('INVALID_QUERY');
      expect(r.body.errors.map((e) => e.name).sort()).toEqual(params);
    });

    it.each([
      '/api/registries',
      '/api/registries?_route=nope',
      '/api/registries?_route=icon',
      '/api/registries?_route=sprite&_key=%20',
      '/api/v1/unknown',
      '/api/v1/icons/a/b',
      '/api/v1/sprites/SPRT-00000000-000000',
      '/api/v1/characters/nobody',
      '/api/assets/nothing',
    ])('404 NOT_FOUND for %s', async (path) => {
      const r = await call<{ code: string }>(path);
      expect([r.status, r.body.code]).toEqual([404, 'NOT_FOUND']);
    });

    it('only GET, HEAD and OPTIONS; ETag and 304', async () => {
      expect((await call('/api/v1/icons', undefined, { method: 'POST' })).status).toBe(405);
      expect((await call('/api/v1/icons', undefined, { method: 'OPTIONS' })).status).toBe(204);
      const first = await call('/api/v1/icons?category=weapon');
      const etag = first.res.headers.get('etag') ?? '';
      expect(first.res.headers.get('access-control-allow-origin')).toBe('*');
      expect(first.res.headers.get('cache-control')).toContain('max-age=300');
      expect((await call('/api/v1/icons?category=weapon', undefined, { headers: { 'If-None-Match': etag } })).status).toBe(304);
      const other = await call('/api/v1/icons?category=armor');
      expect(other.res.headers.get('etag')).not.toBe(etag);
    });
  });
});

// ======================================================================================
describe('without any registry source file', () => {
  const { files, issues } = derive({});

  beforeAll(async () => {
    await useOutput(files);
  });

  it('derivers emit every file, empty and schema-valid, and report nothing', () => {
    expect(issues).toEqual([]);
    expect(files).toHaveLength(4 + 16 + 4 + 2);
    for (const f of files) expect(schemaErrors('output', outputSchemaOf(f.path), f.body), f.path).toBeNull();
  });

  it('lists answer zero items, categories answer zeros, lookups 404', async () => {
    for (const [path, schema] of [
      ['/api/v1/icons', 'icons-list'],
      ['/api/v1/icons?category=ui', 'icons-list'],
      ['/api/v1/icons/search?q=sword', 'icons-search'],
      ['/api/v1/sprites', 'sprites-list'],
      ['/api/v1/sprites/search?q=demon', 'sprites-search'],
      ['/api/v1/characters', 'characters-list'],
      ['/api/v1/studiodot-assets', 'studiodot-assets-list'],
    ] as const) {
      expect(await ok<Listing>(path, schema), path).toMatchObject({ total: 0, count: 0, items: [] });
    }
    const cats = await ok<{ total: number; categories: { count: number }[] }>('/api/v1/icons/categories', 'icon-categories');
    expect(cats.total).toBe(0);
    expect(cats.categories).toHaveLength(16);
    expect(cats.categories.every((c) => c.count === 0)).toBe(true);
    expect(await ok('/api/v1/studiodot-assets/categories', 'studiodot-assets-categories')).toEqual({
      total: 0,
      types: { icon: 0, sprite: 0, model: 0, audio: 0, video: 0 },
      categories: [],
    });
    const stats = await ok<{ sprites: { total: number }; characters: { total: number }; icons: { total: number } }>(
      '/api/v1/stats',
      'registry-stats',
    );
    expect([stats.sprites.total, stats.characters.total, stats.icons.total]).toEqual([0, 0, 0]);
    for (const path of [
      `/api/v1/icons/${vectors.icon.pairs[0]?.id ?? ''}`,
      '/api/v1/icons/by-path?path=a.png',
      `/api/v1/sprites/${vectors.sprite.pairs[0]?.id ?? ''}`,
      '/api/assets/x',
    ]) {
      expect((await call(path)).status, path).toBe(404);
    }
  });

  it('a missing output folder is 503, not a crash', async () => {
    useCatalog(join(tmpdir(), 'registries-does-not-exist'));
    const r = await call<{ code: string }>('/api/v1/icons');
    expect([r.status, r.body.code]).toEqual([503, 'UPSTREAM_UNAVAILABLE']);
  });
});
