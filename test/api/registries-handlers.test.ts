/**
 * The registry functions (api/registries.ts over api/_lib/registries/; spec §4.3, §4.5, §4.6) answering a
 * client over small hand-written registry files: the order of search results on equal scores, category
 * filters in any case, lookups by id in any case and with blanks, icon lookups by path, URL or CDN URL,
 * the bounds of every query parameter, refusals of parameters a route does not take, ETags shared by
 * requests that mean the same, and 503 for registry files that are missing a list.
 */
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { MANIFEST_FILE } from '../../api/_lib/formats/layout.js';
import {
  ASSET_CATEGORIES_FILE,
  ASSET_INDEX_FILE,
  CHARACTER_REGISTRY_FILE,
  ICON_CATEGORY_INDEX_FILE,
  ICON_PATH_INDEX_FILE,
  ICON_REGISTRY_FILE,
  ICON_SEARCH_INDEX_FILE,
  SPRITE_REGISTRY_FILE,
  SPRITE_SEARCH_INDEX_FILE,
  SPRITE_STATS_FILE,
  iconShardFile,
} from '../../api/_lib/formats/registries.js';
import { buildTermIndex } from '../../api/_lib/formats/term-index.js';
import { normalizeIconPath } from '../../api/_lib/registries/icons.js';
import { dropOutput, serveOutput } from '../helpers/registry-output.js';

interface Json {
  [k: string]: unknown;
}
interface Listing {
  total: number;
  page: number;
  limit: number;
  count: number;
  items: Json[];
  [k: string]: unknown;
}

const CDN = 'https://cdn.test/';
const icon = (
  n: number,
  name: string,
  category: string,
  tags: string[],
  key = `game-assets/icons/${category}/${name.replace(/ /g, '_')}-${n}.png`,
): Json => ({
  studioUuid: `ICON-000${n}-0000-0000`,
  iconUuid: `ICON-000${n}-0000-0000`,
  key,
  path: key.slice('game-assets/icons/'.length),
  url: CDN + key,
  category,
  name,
  tags,
});
const ICONS = [
  icon(1, 'Sword', 'weapon', ['blade']),
  icon(2, 'Sword', 'weapon', ['blade']),
  icon(3, 'Axe', 'weapon', ['blade']),
  icon(4, 'Blade Ward', 'armor', ['shield']),
  icon(5, 'Odd', 'misc', [], 'game-assets/icons/misc/100%zz.png'),
];
const iconTerms = buildTermIndex(
  '1',
  ICONS.map((i) => i.iconUuid as string),
  (i) => {
    const x = ICONS[i] as Json;
    return [x.name as string, ...(x.tags as string[]), x.category as string];
  },
);

const sprite = (uuid: string, name: string, path: string, category: string): Json => ({
  uuid,
  name,
  path,
  url: CDN + path.slice(1),
  category,
  subcategory: 'sub',
  source: 'pack',
});
const SPRITES = [
  sprite('SPRT-0000000A-000001', 'Fire Burst', '/sprites/b/fire.png', 'Effects'),
  sprite('SPRT-0000000B-000002', 'Fire Burst', '/sprites/a/fire.png', 'effects'),
  sprite('SPRT-0000000C-000003', 'Fireball', '/sprites/c/fireball.png', 'spells'),
  sprite('SPRT-0000000D-000004', 'Ice', '/sprites/d/ice.png', 'spells'),
];
const spriteTerms = buildTermIndex(
  '1',
  SPRITES.map((s) => s.uuid as string),
  (i) => {
    const s = SPRITES[i] as Json;
    return [s.name as string, s.category as string];
  },
);
const CHARACTERS = [
  { uuid: 'SPRT-0000000E-000005', name: 'Knight', category: 'Heroes', basePath: '/sprites/k/', animations: {} },
  { uuid: 'SPRT-0000000F-000006', name: 'Demon', category: 'bosses', basePath: '/sprites/d/', animations: {} },
];
const asset = (id: string, name: string, type: string, category: string, extra: Json = {}): Json => ({
  id,
  name,
  type,
  category,
  subcategory: '',
  url: `${CDN}a/${id}`,
  previewUrl: null,
  tags: [],
  format: 'png',
  sizeBytes: null,
  metadata: {},
  ...extra,
});
const ASSETS = [
  asset('A1', 'Épée Longue', 'icon', 'Weapons', { tags: ['steel'] }),
  asset('A2', 'Short Bow', 'icon', 'weapons', { subcategory: 'ranged' }),
  asset('A3', 'Dragon', 'model', 'Creatures', { format: 'glb' }),
  asset('A4', 'Roar', 'audio', 'creatures'),
];

function files(overrides: Readonly<Record<string, unknown>> = {}): Record<string, unknown> {
  return {
    [MANIFEST_FILE]: { buildId: 'b1d0000000000000000000' },
    [ICON_REGISTRY_FILE]: { version: '1', uuidField: 'studioUuid', keyPrefix: 'game-assets/icons/', count: ICONS.length, icons: ICONS },
    [iconShardFile('weapon')]: { version: '1', category: 'weapon', count: 3, icons: ICONS.slice(0, 3) },
    [ICON_PATH_INDEX_FILE]: {
      version: '1',
      keyPrefix: 'game-assets/icons/',
      urlPrefix: CDN,
      count: 4,
      paths: Object.fromEntries(
        ICONS.flatMap((i): [string, unknown][] => [
          [String(i.key), i.iconUuid],
          [String(i.path), i.iconUuid],
        ]),
      ),
    },
    [ICON_CATEGORY_INDEX_FILE]: {
      version: '1',
      total: 5,
      categories: [
        { category: 'weapon', count: 3, ids: [] },
        { category: 'armor', count: 1, ids: [] },
        { category: 'misc', count: 1, ids: [] },
      ],
    },
    [ICON_SEARCH_INDEX_FILE]: iconTerms,
    [SPRITE_REGISTRY_FILE]: { version: '1', generatedAt: null, total: SPRITES.length, categories: [], sprites: SPRITES },
    [SPRITE_SEARCH_INDEX_FILE]: spriteTerms,
    [CHARACTER_REGISTRY_FILE]: { version: '1', total: 2, categories: [], characters: CHARACTERS },
    [SPRITE_STATS_FILE]: { sprites: { total: 4, derivedIds: 1, categories: [] }, characters: { total: 2, categories: [] } },
    [ASSET_INDEX_FILE]: { version: null, baseUrl: null, total: ASSETS.length, assets: ASSETS },
    [ASSET_CATEGORIES_FILE]: { total: 4, types: { icon: 2, sprite: 0, model: 1, audio: 1, video: 0 }, categories: [] },
    ...overrides,
  };
}

let dir: string | undefined;
async function serve(overrides: Readonly<Record<string, unknown>> = {}): Promise<void> {
  if (dir) await dropOutput(dir);
  dir = await serveOutput(files(overrides));
}
afterEach(async () => {
  if (dir) await dropOutput(dir);
  dir = undefined;
});
afterAll(async () => {
  if (dir) await dropOutput(dir);
});

/** The entry is loaded on first use, so an entry that fails to load fails the tests instead of the file's loading. */
async function call(path: string, init?: RequestInit): Promise<{ status: number; body: Json; res: Response }> {
  const { GET } = await import('../../api/registries.js');
  const res = await GET(new Request(`http://t${path}`, init));
  const text = await res.text();
  return { status: res.status, body: (text ? JSON.parse(text) : null) as Json, res };
}
async function ok<T = Json>(path: string): Promise<T> {
  const r = await call(path);
  expect(r.status, `${path}: ${JSON.stringify(r.body)}`).toBe(200);
  return r.body as T;
}
async function status(path: string): Promise<number> {
  return (await call(path)).status;
}
const ids = (l: Listing, field = 'iconUuid'): unknown[] => l.items.map((i) => i[field]);

describe('icons', () => {
  it('ranks search results by score, then name, then id', async () => {
    await serve();
    // "blade": exact tag of 1, 2, 3 and exact name word of 4
    expect(ids(await ok<Listing>('/api/v1/icons/search?q=blade'))).toEqual([
      'ICON-0003-0000-0000',
      'ICON-0004-0000-0000',
      'ICON-0001-0000-0000',
      'ICON-0002-0000-0000',
    ]);
    // "sword blade": 4 points for 1 and 2; "bla": prefix only
    expect(ids(await ok<Listing>('/api/v1/icons/search?q=sword%20blade'))).toEqual(['ICON-0001-0000-0000', 'ICON-0002-0000-0000']);
    const weapon = await ok<Listing>('/api/v1/icons/search?q=bla%20weapon');
    expect(ids(weapon)).toEqual(['ICON-0003-0000-0000', 'ICON-0001-0000-0000', 'ICON-0002-0000-0000']);
  });

  it('keeps only the asked category in a search, and echoes query and category', async () => {
    await serve();
    const b = await ok<Listing>('/api/v1/icons/search?q=blade&category=armor');
    expect(b).toMatchObject({ query: 'blade', category: 'armor', total: 1 });
    expect(ids(b)).toEqual(['ICON-0004-0000-0000']);
    expect(await ok('/api/assets/search?q=blade&category=misc')).toMatchObject({ query: 'blade', category: 'misc', total: 0, items: [] });
  });

  it('refuses a search without a letter or digit, naming q', async () => {
    await serve();
    const r = await call('/api/v1/icons/search?q=%20-%20');
    expect(r.status).toBe(400);
    expect(r.body.code).toBe('INVALID_QUERY');
    expect(r.body.errors).toEqual([{ name: 'q', message: '"q" must contain at least one letter or digit.', value: ' - ' }]);
    expect(r.body.detail).toContain('q');
  });

  it('lists one category from its shard, echoing it', async () => {
    await serve();
    const b = await ok<Listing>('/api/v1/icons?category=weapon&limit=2');
    expect(b).toMatchObject({ total: 3, count: 2, limit: 2, page: 1, category: 'weapon' });
    expect((await ok<Listing>('/api/v1/icons')).category).toBeNull();
  });

  it('looks an icon up by id in any case and with blanks around it', async () => {
    await serve();
    expect((await ok('/api/v1/icons/icon-0002-0000-0000')).name).toBe('Sword');
    expect((await ok('/api/v1/icons/%20ICON-0002-0000-0000%20')).iconUuid).toBe('ICON-0002-0000-0000');
    expect((await ok('/api/assets/Icon-0004-0000-0000')).name).toBe('Blade Ward');
    const miss = await call('/api/v1/icons/ICON-9');
    expect(miss.status).toBe(404);
    expect(miss.body.detail).toContain('"ICON-9"');
  });

  it('answers 404 for a key of blanks only', async () => {
    await serve();
    for (const path of ['/api/v1/icons/%20', '/api/v1/sprites/%20%20', '/api/v1/characters/%09', '/api/assets/%20']) {
      const r = await call(path);
      expect(r.status, path).toBe(404);
      expect(r.body.detail, path).toContain('Nothing is served at');
    }
  });

  it('looks an icon up by key, path below the prefix, or full CDN URL (percent-encoded or not)', async () => {
    await serve();
    const q = (p: string): string => `/api/v1/icons/by-path?path=${encodeURIComponent(p)}`;
    expect((await ok(q('game-assets/icons/weapon/Axe-3.png'))).iconUuid).toBe('ICON-0003-0000-0000');
    expect((await ok(q('  //weapon/Axe-3.png '))).iconUuid).toBe('ICON-0003-0000-0000');
    expect((await ok(q(`${CDN}game-assets/icons/armor/Blade_Ward-4.png`))).iconUuid).toBe('ICON-0004-0000-0000');
    expect((await ok(q(`${CDN}game-assets/icons/armor/Blade%5FWard-4.png`))).iconUuid).toBe('ICON-0004-0000-0000');
    // not valid percent-encoding after the CDN base: looked up as given
    expect((await ok(q(`${CDN}game-assets/icons/misc/100%zz.png`))).iconUuid).toBe('ICON-0005-0000-0000');
    // percent-decoding applies to CDN URLs only
    expect(await status(q('armor/Blade%5FWard-4.png'))).toBe(404);
  });

  it('names the path asked and the key prefix when no icon has that path', async () => {
    await serve();
    const r = await call(`/api/v1/icons/by-path?path=${encodeURIComponent('nope.png')}`);
    expect(r.status).toBe(404);
    expect(r.body.detail).toContain('"nope.png"');
    expect(r.body.detail).toContain('game-assets/icons/');
  });

  it('finds nothing by path when the path index names an icon the registry lacks, or has no paths', async () => {
    await serve({
      [ICON_PATH_INDEX_FILE]: { version: '1', keyPrefix: 'p/', urlPrefix: CDN, count: 1, paths: { 'x.png': 'ICON-7777-0000-0000' } },
    });
    expect(await status('/api/v1/icons/by-path?path=x.png')).toBe(404);
    await serve({ [ICON_PATH_INDEX_FILE]: { version: '1', keyPrefix: 'p/', count: 0 } });
    expect(await status('/api/v1/icons/by-path?path=x.png')).toBe(404);
  });

  it('does not strip a CDN base when the path index has none', async () => {
    const withoutPrefix = { version: '1', keyPrefix: 'game-assets/icons/', count: 1, paths: { 'a%20b.png': 'ICON-0001-0000-0000' } };
    await serve({ [ICON_PATH_INDEX_FILE]: withoutPrefix });
    expect((await ok(`/api/v1/icons/by-path?path=${encodeURIComponent('a%20b.png')}`)).iconUuid).toBe('ICON-0001-0000-0000');
    await serve({ [ICON_PATH_INDEX_FILE]: { ...withoutPrefix, urlPrefix: '' } });
    expect((await ok(`/api/v1/icons/by-path?path=${encodeURIComponent('a%20b.png')}`)).iconUuid).toBe('ICON-0001-0000-0000');
  });

  it('ignores a CDN base of the path index that is not a string', async () => {
    await serve({
      [ICON_PATH_INDEX_FILE]: { version: '1', keyPrefix: 'p/', urlPrefix: 7, count: 1, paths: { '7x.png': 'ICON-0001-0000-0000' } },
    });
    expect((await ok('/api/v1/icons/by-path?path=7x.png')).iconUuid).toBe('ICON-0001-0000-0000');
  });

  it('normalises a path on its own: blanks trimmed, CDN base and leading slashes dropped', () => {
    expect(normalizeIconPath('  a/b.png ', '')).toBe('a/b.png');
    expect(normalizeIconPath(' https://cdn.test/x%20y.png', 'https://cdn.test/')).toBe('x y.png');
    expect(normalizeIconPath('///a.png', 'https://cdn.test/')).toBe('a.png');
    expect(normalizeIconPath('a%20b.png', 'https://cdn.test/')).toBe('a%20b.png');
  });

  it('counts all 16 categories, zero for those the index lacks, and totals them', async () => {
    await serve();
    const b = await ok<{ total: number; categories: { category: string; count: number }[] }>('/api/v1/icons/categories');
    expect(b.total).toBe(5);
    expect(b.categories).toHaveLength(16);
    expect(b.categories[0]).toEqual({ category: 'misc', count: 1 });
    expect(b.categories.find((c) => c.category === 'weapon')).toEqual({ category: 'weapon', count: 3 });
    expect(b.categories.find((c) => c.category === 'ui')).toEqual({ category: 'ui', count: 0 });
    expect(await ok('/api/assets/categories')).toEqual(b);
  });
});

describe('sprites and characters', () => {
  it('filters lists by category in any case and echoes the category as given', async () => {
    await serve();
    const b = await ok<Listing>('/api/v1/sprites?category=EFFECTS');
    expect(b).toMatchObject({ total: 2, category: 'EFFECTS' });
    expect(ids(b, 'uuid')).toEqual(['SPRT-0000000A-000001', 'SPRT-0000000B-000002']);
    expect(await ok('/api/v1/sprites?category=nothing')).toMatchObject({ total: 0, items: [], category: 'nothing' });
    expect((await ok<Listing>('/api/v1/sprites')).total).toBe(4);
    const heroes = await ok<Listing>('/api/v1/characters?category=heroes');
    expect(heroes).toMatchObject({ total: 1, category: 'heroes' });
    expect(ids(heroes, 'name')).toEqual(['Knight']);
    expect(await ok('/api/v1/characters')).toMatchObject({ total: 2, category: null });
  });

  it('ranks sprite search results by score, then name, then path, within a category in any case', async () => {
    await serve();
    expect(ids(await ok<Listing>('/api/v1/sprites/search?q=fire'), 'uuid')).toEqual([
      'SPRT-0000000B-000002',
      'SPRT-0000000A-000001',
      'SPRT-0000000C-000003',
    ]);
    const spells = await ok<Listing>('/api/v1/sprites/search?q=fire&category=Spells');
    expect(spells).toMatchObject({ query: 'fire', category: 'Spells', total: 1 });
    expect(ids(spells, 'uuid')).toEqual(['SPRT-0000000C-000003']);
    expect((await ok('/api/v1/sprites/search?q=fire')).category).toBeNull();
  });

  it('looks sprites and characters up by id in any case', async () => {
    await serve();
    expect((await ok('/api/v1/sprites/sprt-0000000c-000003')).name).toBe('Fireball');
    expect((await ok('/api/v1/characters/sprt-0000000f-000006')).name).toBe('Demon');
    const s = await call('/api/v1/sprites/SPRT-1');
    expect(s.status).toBe(404);
    expect(s.body.detail).toContain('"SPRT-1"');
    const c = await call('/api/v1/characters/SPRT-2');
    expect(c.status).toBe(404);
    expect(c.body.detail).toContain('"SPRT-2"');
  });

  it('answers the registry stats from the sprite stats and the icon categories', async () => {
    await serve();
    const b = await ok<Json>('/api/v1/stats');
    expect(b.sprites).toEqual({ total: 4, derivedIds: 1, categories: [] });
    expect(b.characters).toEqual({ total: 2, categories: [] });
    expect((b.icons as Json).total).toBe(5);
  });
});

describe('asset search', () => {
  it('filters by type, category in any case and every search word, accents folded', async () => {
    await serve();
    const ids2 = async (q: string): Promise<unknown[]> => ids(await ok<Listing>(`/api/v1/studiodot-assets${q}`), 'id');
    expect(await ids2('?type=icon')).toEqual(['A1', 'A2']);
    expect(await ids2('?category=WEAPONS')).toEqual(['A1', 'A2']);
    expect(await ids2('?category=creatures&type=audio')).toEqual(['A4']);
    expect(await ids2('?search=EPEE%20steel')).toEqual(['A1']);
    expect(await ids2('?search=ranged')).toEqual(['A2']);
    expect(await ids2('?search=glb')).toEqual(['A3']);
    expect(await ids2('?search=a1')).toEqual(['A1']);
    expect(await ids2('?search=bow%20ranged%20weapons')).toEqual(['A2']);
    expect(await ids2('?search=bow%20dragon')).toEqual([]);
    // a word must lie within one field, never across two
    expect(await ids2('?search=a1epee')).toEqual([]);
    expect(await ids2('?search=bowweapons')).toEqual([]);
    expect(await ids2('?search=%20')).toEqual(['A1', 'A2', 'A3', 'A4']);
  });

  it('echoes every filter, null when absent, and pages 200 by default', async () => {
    await serve();
    expect(await ok('/api/v1/studiodot-assets')).toMatchObject({ type: null, category: null, search: null, limit: 200, page: 1, total: 4 });
    expect(await ok('/api/v1/studiodot-assets?type=model&category=Creatures&search=drag')).toMatchObject({
      type: 'model',
      category: 'Creatures',
      search: 'drag',
      total: 1,
    });
  });

  it('serves the categories file as it is', async () => {
    await serve();
    expect(await ok('/api/v1/studiodot-assets/categories')).toEqual(files()[ASSET_CATEGORIES_FILE]);
  });
});

describe('query parameters', () => {
  it('refuses parameters a route does not take', async () => {
    await serve();
    for (const path of [
      '/api/v1/sprites/SPRT-0000000C-000003',
      '/api/v1/characters/SPRT-0000000F-000006',
      '/api/v1/stats',
      '/api/v1/icons/categories',
      '/api/assets/categories',
      '/api/v1/icons/ICON-0001-0000-0000',
      '/api/assets/ICON-0001-0000-0000',
      '/api/v1/studiodot-assets/categories',
      '/api/v1/sprites',
      '/api/v1/characters',
      '/api/v1/icons',
      '/api/v1/studiodot-assets',
      '/api/v1/icons/by-path?path=x',
    ]) {
      const r = await call(`${path}${path.includes('?') ? '&' : '?'}extra=1`);
      expect(r.status, path).toBe(400);
      expect(r.body.code, path).toBe('INVALID_QUERY');
    }
  });

  it('bounds page, limit, q, category and path', async () => {
    await serve();
    expect(await status('/api/v1/sprites?page=1000000')).toBe(200);
    expect(await status('/api/v1/sprites?page=1000001')).toBe(400);
    expect(await status('/api/v1/sprites?page=0')).toBe(400);
    expect(await status('/api/v1/sprites?limit=0')).toBe(400);
    expect((await ok<Listing>('/api/v1/sprites')).limit).toBe(50);
    expect((await ok<Listing>('/api/v1/characters?limit=501')).limit).toBe(500);
    expect((await ok<Listing>('/api/v1/studiodot-assets?limit=501')).limit).toBe(500);
    expect(await status('/api/v1/studiodot-assets?limit=0')).toBe(400);
    expect(await status(`/api/v1/sprites/search?q=${'a'.repeat(200)}`)).toBe(200);
    expect(await status(`/api/v1/sprites/search?q=${'a'.repeat(201)}`)).toBe(400);
    expect(await status('/api/v1/sprites/search')).toBe(400);
    expect(await status('/api/v1/icons/search')).toBe(400);
    expect(await status('/api/assets/search')).toBe(400);
    expect(await status(`/api/v1/sprites?category=${'c'.repeat(100)}`)).toBe(200);
    expect(await status(`/api/v1/sprites?category=${'c'.repeat(101)}`)).toBe(400);
    expect(await status(`/api/v1/studiodot-assets?search=${'s'.repeat(101)}`)).toBe(400);
    expect(await status('/api/v1/icons?category=weapons')).toBe(400);
    expect(await status('/api/v1/studiodot-assets?type=texture')).toBe(400);
    expect(await status(`/api/v1/icons/by-path?path=${'p'.repeat(1024)}`)).toBe(404);
    expect(await status(`/api/v1/icons/by-path?path=${'p'.repeat(1025)}`)).toBe(400);
    expect(await status('/api/v1/icons/by-path')).toBe(400);
  });

  it('reports a clamped limit on every paged route', async () => {
    await serve();
    for (const path of [
      '/api/v1/sprites/search?q=fire&',
      '/api/v1/icons/search?q=blade&',
      '/api/assets/search?q=blade&',
      '/api/v1/icons?',
      '/api/v1/sprites?',
      '/api/v1/characters?',
      '/api/v1/studiodot-assets?',
    ]) {
      const r = await call(`${path}limit=900`);
      expect(r.status, path).toBe(200);
      expect(r.res.headers.get('x-limit-requested'), path).toBe('900');
      expect(r.res.headers.get('x-limit-applied'), path).toBe('500');
    }
  });
});

describe('caching', () => {
  const etag = async (path: string): Promise<string | null> => (await call(path)).res.headers.get('etag');

  it('gives lookups of one id in any case the same ETag, and other ids or routes another', async () => {
    await serve();
    const a = await etag('/api/v1/icons/ICON-0001-0000-0000');
    expect(a).toBeTruthy();
    expect(await etag('/api/v1/icons/icon-0001-0000-0000')).toBe(a);
    expect(await etag('/api/v1/icons/ICON-0002-0000-0000')).not.toBe(a);
    expect(await etag('/api/assets/ICON-0001-0000-0000')).not.toBe(a);
    expect(await etag('/api/v1/sprites/sprt-0000000c-000003')).toBe(await etag('/api/v1/sprites/SPRT-0000000C-000003'));
    expect(await etag('/api/v1/characters/sprt-0000000f-000006')).toBe(await etag('/api/v1/characters/SPRT-0000000F-000006'));
  });

  it('gives different queries different ETags and the same query the same', async () => {
    await serve();
    expect(await etag('/api/v1/sprites?page=1')).toBe(await etag('/api/v1/sprites'));
    expect(await etag('/api/v1/sprites?page=2')).not.toBe(await etag('/api/v1/sprites'));
    expect(await etag('/api/v1/icons/categories')).not.toBe(await etag('/api/assets/categories'));
    expect(await etag('/api/v1/stats')).not.toBe(await etag('/api/v1/studiodot-assets/categories'));
    expect(await etag('/api/v1/icons/by-path?path=x.png')).toBeNull();
    const byPath = await etag(`/api/v1/icons/by-path?path=${encodeURIComponent('weapon/Axe-3.png')}`);
    expect(byPath).not.toBe(await etag(`/api/v1/icons/by-path?path=${encodeURIComponent('armor/Blade_Ward-4.png')}`));
  });

  it('answers 304 when the client holds the current ETag', async () => {
    await serve();
    const tag = (await etag('/api/v1/stats')) ?? '';
    expect((await call('/api/v1/stats', { headers: { 'If-None-Match': tag } })).status).toBe(304);
  });
});

describe('registry files without their list', () => {
  it('answers 503 for a sprite or character list that is not a list, even an empty text', async () => {
    for (const [file, path, key] of [
      [SPRITE_REGISTRY_FILE, '/api/v1/sprites', 'sprites'],
      [CHARACTER_REGISTRY_FILE, '/api/v1/characters', 'characters'],
    ] as const) {
      await serve({ [file]: { version: '1', total: 0, categories: [], [key]: '' } });
      expect((await call(path)).status, file).toBe(503);
    }
  });

  it('answers 503 for each', async () => {
    const broken: [string, string][] = [
      [ICON_REGISTRY_FILE, '/api/v1/icons'],
      [iconShardFile('weapon'), '/api/v1/icons?category=weapon'],
      [ICON_CATEGORY_INDEX_FILE, '/api/v1/icons/categories'],
      [SPRITE_REGISTRY_FILE, '/api/v1/sprites'],
      [CHARACTER_REGISTRY_FILE, '/api/v1/characters'],
      [ASSET_INDEX_FILE, '/api/v1/studiodot-assets'],
      [ICON_SEARCH_INDEX_FILE, '/api/v1/icons/search?q=blade'],
      [SPRITE_SEARCH_INDEX_FILE, '/api/v1/sprites/search?q=fire'],
    ];
    for (const [file, path] of broken) {
      await serve({ [file]: { version: '1', count: 0 } });
      const r = await call(path);
      expect(r.status, file).toBe(503);
      expect(r.body.code, file).toBe('UPSTREAM_UNAVAILABLE');
      expect(r.body.detail, file).toMatch(/rebuild the catalog/);
    }
  });
});
