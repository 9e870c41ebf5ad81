/**
 * Sprite and character registry deriver (build/derive/sprites.ts, spec §2.3, §2.6 SPRT family, §4.5)
 * called directly on small in-memory sources: the sprites registered from `sprites2d.json` (category
 * from the key they sit under, defaults for missing text fields, first of a repeated path), declared
 * counts, the ids kept from `sprite-ids.json` and those derived (also when a derived id is already
 * taken), stale ids, characters (unique base paths, base-path form, animations resolved or null),
 * the order and category counts of every output, the sprite search words and the stats.
 */
import { describe, expect, it } from 'vitest';
import {
  SPRITE_CHARACTERS_FILE,
  SPRITE_IDS_FILE,
  SPRITE_RULES,
  SPRITES_SOURCE_FILE,
  deriveSprites,
  spriteIdsOf,
} from '../../build/derive/sprites.js';
import { deriveSpriteId } from '../../build/pipeline/ids.js';
import type { IssueInput, SourceDoc } from '../../build/pipeline/types.js';
import { testConfig } from '../helpers/config.js';

const NS = 'p:';
const docsOf = (files: Record<string, unknown>): Map<string, SourceDoc> =>
  new Map(
    Object.entries(files)
      .filter(([, v]) => v !== undefined)
      .map(([path, data]) => [path, { path, text: '', data }]),
  );

function run(files: { sprites?: unknown; ids?: unknown; characters?: unknown }, versions: Record<string, string> = {}) {
  const issues: IssueInput[] = [];
  const out = deriveSprites({
    config: testConfig({ versions, cdnUrl: 'https://cdn.test/' }),
    docs: docsOf({ [SPRITES_SOURCE_FILE]: files.sprites, [SPRITE_IDS_FILE]: files.ids, [SPRITE_CHARACTERS_FILE]: files.characters }),
    report: (i) => issues.push(i),
  });
  const body = <T = Record<string, unknown>>(name: string): T => out.find((f) => f.path === `api/v1/${name}`)!.body as T;
  return { out, issues, body, problems: issues.map((i) => `${i.rule} ${i.file} ${i.pointer}`) };
}

const item = (name: string, path: string, extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  name,
  path,
  subcategory: 'sub',
  source: 'src',
  ...extra,
});
/** sprites2d.json with consistent counts; an item without `category` gets the key it sits under. */
const sheet = (cats: Record<string, unknown[]>, extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  totalSprites: Object.values(cats).reduce((n, l) => n + l.length, 0),
  generatedAt: '2026-01-01T00:00:00Z',
  categories: Object.fromEntries(
    Object.entries(cats).map(([k, items]) => [
      k,
      {
        count: items.length,
        items: items.map((it) => (typeof it === 'object' && it !== null && !('category' in it) ? { ...it, category: k } : it)),
      },
    ]),
  ),
  ...extra,
});

describe('sprite rules', () => {
  it('have the spec default severities and are described', () => {
    expect(Object.fromEntries(SPRITE_RULES.map((r) => [r.name, r.severity]))).toEqual({
      'sprites/source-shape': 'error',
      'sprites/id-format': 'error',
      'sprites/duplicate-id': 'error',
      'sprites/duplicate-path': 'error',
      'sprites/stale-id': 'warn',
      'sprites/count-mismatch': 'error',
      'sprites/category-mismatch': 'warn',
      'sprites/duplicate-character': 'error',
      'sprites/character-base-path': 'warn',
      'sprites/unknown-animation': 'warn',
    });
    for (const r of SPRITE_RULES) expect(r.description.length, r.name).toBeGreaterThan(30);
  });
});

describe('without sources', () => {
  it('emits the four files empty and reports nothing', () => {
    const r = run({});
    expect(r.issues).toEqual([]);
    expect(r.out.map((f) => f.path)).toEqual([
      'api/v1/sprite-registry.json',
      'api/v1/sprite-search-index.json',
      'api/v1/character-registry.json',
      'api/v1/sprite-stats.json',
    ]);
    expect(r.body('sprite-registry.json')).toEqual({ version: '1.0.0', generatedAt: null, total: 0, categories: [], sprites: [] });
    expect(r.body('character-registry.json')).toEqual({ version: '1.0.0', total: 0, categories: [], characters: [] });
    expect(r.body('sprite-stats.json')).toEqual({
      sprites: { total: 0, derivedIds: 0, categories: [] },
      characters: { total: 0, categories: [] },
    });
  });
});

describe('sprites2d.json', () => {
  it('registers sprites sorted by path, under the category they sit in, with ids, URLs and text fields', () => {
    const r = run(
      {
        sprites: sheet({
          ui: [item('B', '/s/b.png', { category: 'ui' }), item('A', '/s/a b.png', { category: 'ui', subcategory: 1, source: null })],
          fx: [item('C', '/s/c.png', { category: 'fx' })],
        }),
      },
      { spriteRegistry: '5.0.0' },
    );
    const reg = r.body<{ version: string; generatedAt: string; total: number; categories: unknown[]; sprites: Record<string, unknown>[] }>(
      'sprite-registry.json',
    );
    expect(reg.version).toBe('5.0.0');
    expect(reg.generatedAt).toBe('2026-01-01T00:00:00Z');
    expect(reg.total).toBe(3);
    expect(reg.categories).toEqual([
      { category: 'fx', count: 1 },
      { category: 'ui', count: 2 },
    ]);
    expect(reg.sprites.map((s) => s.path)).toEqual(['/s/a b.png', '/s/b.png', '/s/c.png']);
    expect(reg.sprites[0]).toEqual({
      uuid: deriveSpriteId(NS, '/s/a b.png'),
      name: 'A',
      path: '/s/a b.png',
      url: 'https://cdn.test/s/a%20b.png',
      category: 'ui',
      subcategory: '',
      source: '',
    });
    expect(r.problems).toEqual([
      `sprites/source-shape ${SPRITES_SOURCE_FILE} /categories/ui/items/1/subcategory`,
      `sprites/source-shape ${SPRITES_SOURCE_FILE} /categories/ui/items/1/source`,
    ]);
    expect(r.issues[0]!.message).toContain('"" is used');
  });

  it('refuses items without a name or path, repeats of a path, and reports a category that disagrees', () => {
    const r = run({
      sprites: sheet({
        a: [
          item('A', '/s/a.png', { category: 'x' }),
          item(' ', '/s/n.png'),
          item('P', ''),
          item('Dup', '/s/a.png'),
          'x',
          item('C', '/s/c.png', { category: 7 }),
          item('N', 5 as unknown as string),
        ],
      }),
    });
    expect(r.problems.map((p) => p.split(' ').slice(0, 1).concat(p.split(' ').slice(2)).join(' '))).toEqual([
      'sprites/category-mismatch /categories/a/items/0/category',
      'sprites/source-shape /categories/a/items/1/name',
      'sprites/source-shape /categories/a/items/2/path',
      'sprites/duplicate-path /categories/a/items/3/path',
      'sprites/source-shape /categories/a/items/4',
      'sprites/source-shape /categories/a/items/5/category',
      'sprites/source-shape /categories/a/items/6/path',
    ]);
    expect(r.issues[3]!.message).toContain('/categories/a/items/0');
    expect(r.issues[0]!.message).toContain('"x"');
    const reg = r.body<{ sprites: { path: string; category: string }[] }>('sprite-registry.json');
    expect(reg.sprites.map((s) => `${s.path}:${s.category}`)).toEqual(['/s/a.png:a', '/s/c.png:a']);
  });

  it('checks the declared counts and the shape of the file', () => {
    const counts = run({
      sprites: {
        totalSprites: 5,
        categories: { a: { count: 2, items: [item('A', '/s/a.png', { category: 'a' })] }, b: { count: 'one', items: [] }, c: { items: 3 } },
      },
    });
    expect(counts.problems.map((p) => p.split(' ').slice(0, 1).concat(p.split(' ').slice(2)).join(' '))).toEqual([
      'sprites/count-mismatch /categories/a/count',
      'sprites/source-shape /categories/b/count',
      'sprites/source-shape /categories/c',
      'sprites/count-mismatch /totalSprites',
    ]);
    expect(counts.issues[0]!.message).toContain('set count to 1');
    expect(counts.issues[3]!.message).toContain('set it to 1');
    expect(run({ sprites: sheet({}, { totalSprites: undefined }) }).problems).toEqual([`sprites/source-shape ${SPRITES_SOURCE_FILE} `]);
    expect(run({ sprites: sheet({}, { totalSprites: 1.5 }) }).problems).toEqual([
      `sprites/source-shape ${SPRITES_SOURCE_FILE} /totalSprites`,
    ]);
    expect(run({ sprites: sheet({}, { generatedAt: 5 }) }).problems).toEqual([`sprites/source-shape ${SPRITES_SOURCE_FILE} /generatedAt`]);
    expect(
      run({ sprites: sheet({}, { generatedAt: undefined }) }).body<{ generatedAt: unknown }>('sprite-registry.json').generatedAt,
    ).toBeNull();
    expect(run({ sprites: [] }).problems).toEqual([`sprites/source-shape ${SPRITES_SOURCE_FILE} `]);
    expect(run({ sprites: { categories: [] } }).problems).toEqual([`sprites/source-shape ${SPRITES_SOURCE_FILE} /categories`]);
  });
});

describe('ids', () => {
  it('keeps well-formed ids, derives the rest, and counts what was derived', () => {
    const r = run({
      sprites: sheet({ a: [item('A', '/s/a.png'), item('B', '/s/b.png')] }),
      ids: { ids: { '/s/a.png': 'SPRT-00000000-000001' } },
    });
    const reg = r.body<{ sprites: { path: string; uuid: string }[] }>('sprite-registry.json');
    expect(reg.sprites.map((s) => s.uuid)).toEqual(['SPRT-00000000-000001', deriveSpriteId(NS, '/s/b.png')]);
    expect(r.body<{ sprites: { derivedIds: number } }>('sprite-stats.json').sprites.derivedIds).toBe(1);
    expect(r.issues).toEqual([]);
    expect(
      spriteIdsOf(
        docsOf({
          [SPRITES_SOURCE_FILE]: sheet({ a: [item('A', '/s/a.png'), item('B', '/s/b.png')] }),
          [SPRITE_IDS_FILE]: { ids: { '/s/a.png': 'SPRT-00000000-000001' } },
        }),
        NS,
      ),
    ).toEqual(
      new Map([
        ['/s/a.png', 'SPRT-00000000-000001'],
        ['/s/b.png', deriveSpriteId(NS, '/s/b.png')],
      ]),
    );
  });

  it('refuses malformed and shared ids; the path then gets a derived id', () => {
    const r = run({
      sprites: sheet({ a: [item('A', '/s/a.png'), item('B', '/s/b.png'), item('C', '/s/c.png')] }),
      ids: {
        ids: { '/s/a.png': 'SPRT-0000000a-000001', '/s/b.png': 'SPRT-00000000-000002', '/s/c.png': 'SPRT-00000000-000002', '/s/d.png': 7 },
      },
    });
    expect(r.problems).toEqual([
      `sprites/id-format ${SPRITE_IDS_FILE} /ids/~1s~1a.png`,
      `sprites/duplicate-id ${SPRITE_IDS_FILE} /ids/~1s~1c.png`,
      `sprites/id-format ${SPRITE_IDS_FILE} /ids/~1s~1d.png`,
    ]);
    expect(r.issues[1]!.message).toContain('"/s/b.png"');
    const ids = r.body<{ sprites: { uuid: string }[] }>('sprite-registry.json').sprites.map((s) => s.uuid);
    expect(ids).toEqual([deriveSpriteId(NS, '/s/a.png'), 'SPRT-00000000-000002', deriveSpriteId(NS, '/s/c.png')]);
  });

  it('never hands out a kept id again: a derived id already taken becomes the id of path#1', () => {
    const taken = deriveSpriteId(NS, '/s/new.png');
    const r = run({ sprites: sheet({ a: [item('N', '/s/new.png')] }), ids: { ids: { '/s/old.png': taken } } });
    expect(r.problems).toEqual([
      `sprites/duplicate-id ${SPRITE_IDS_FILE} /ids/~1s~1old.png`,
      `sprites/stale-id ${SPRITE_IDS_FILE} /ids/~1s~1old.png`,
    ]);
    expect(r.issues[0]!.message).toContain('/s/new.png#1');
    expect(r.body<{ sprites: { uuid: string }[] }>('sprite-registry.json').sprites[0]!.uuid).toBe(deriveSpriteId(NS, '/s/new.png#1'));
    // and #2 when #1 is taken too
    const both = run({
      sprites: sheet({ a: [item('N', '/s/new.png')] }),
      ids: { ids: { '/s/o1.png': taken, '/s/o2.png': deriveSpriteId(NS, '/s/new.png#1') } },
    });
    expect(both.body<{ sprites: { uuid: string }[] }>('sprite-registry.json').sprites[0]!.uuid).toBe(deriveSpriteId(NS, '/s/new.png#2'));
  });

  it('warns about ids of paths that are neither sprites nor character base paths', () => {
    const r = run({
      sprites: sheet({ a: [item('A', '/s/a.png')] }),
      ids: {
        ids: {
          '/s/a.png': 'SPRT-00000000-000001',
          '/sprites/characters/k/': 'SPRT-00000000-000002',
          '/s/gone.png': 'SPRT-00000000-000003',
        },
      },
      characters: { characters: [{ name: 'K', category: 'c', basePath: '/sprites/characters/k/', animations: {} }] },
    });
    expect(r.problems).toEqual([`sprites/stale-id ${SPRITE_IDS_FILE} /ids/~1s~1gone.png`]);
    expect(r.body<{ characters: { uuid: string }[] }>('character-registry.json').characters[0]!.uuid).toBe('SPRT-00000000-000002');
  });

  it('refuses an ids file of the wrong shape and derives every id', () => {
    expect(run({ ids: [] }).problems).toEqual([`sprites/source-shape ${SPRITE_IDS_FILE} `]);
    const r = run({ sprites: sheet({ a: [item('A', '/s/a.png')] }), ids: { ids: [] } });
    expect(r.problems).toEqual([`sprites/source-shape ${SPRITE_IDS_FILE} /ids`]);
    expect(r.body<{ sprites: { uuid: string }[] }>('sprite-registry.json').sprites[0]!.uuid).toBe(deriveSpriteId(NS, '/s/a.png'));
  });
});

describe('characters', () => {
  const sprites = sheet({ a: [item('Idle', '/s/idle.png'), item('Run', '/s/run.png')] });

  it('resolve animations to sprite ids (null when unknown), sorted by animation name', () => {
    const r = run({
      sprites,
      characters: {
        characters: [
          {
            name: 'Kay',
            category: 'heroes',
            basePath: '/sprites/characters/kay/',
            animations: { run: '/s/run.png', idle: '/s/idle.png', fly: '/s/fly.png' },
          },
        ],
      },
    });
    expect(r.problems).toEqual([`sprites/unknown-animation ${SPRITE_CHARACTERS_FILE} /characters/0/animations/fly`]);
    const c = r.body<{ characters: Record<string, unknown>[] }>('character-registry.json').characters[0]!;
    expect(c).toEqual({
      uuid: deriveSpriteId(NS, '/sprites/characters/kay/'),
      name: 'Kay',
      category: 'heroes',
      basePath: '/sprites/characters/kay/',
      animations: {
        fly: { path: '/s/fly.png', uuid: null },
        idle: { path: '/s/idle.png', uuid: deriveSpriteId(NS, '/s/idle.png') },
        run: { path: '/s/run.png', uuid: deriveSpriteId(NS, '/s/run.png') },
      },
    });
    expect(Object.keys(c.animations as object)).toEqual(['fly', 'idle', 'run']);
  });

  it('refuse characters without name, category, base path or animations, or with a repeated base path', () => {
    const ok = (name: string, basePath: string, extra: Record<string, unknown> = {}): Record<string, unknown> => ({
      name,
      category: 'c',
      basePath,
      animations: {},
      ...extra,
    });
    const r = run({
      sprites,
      characters: {
        characters: [
          ok('A', '/sprites/characters/a/'),
          ok(' ', '/sprites/characters/b/'),
          ok('C', '/sprites/characters/c/', { category: 1 }),
          ok('D', ''),
          ok('E', '/sprites/characters/e/', { animations: [] }),
          ok('F', '/sprites/characters/f/', { animations: { idle: '', run: 4 } }),
          ok('G', '/sprites/characters/a/'),
          3,
          ok('H', '/chars/h/'),
          ok('I', '/sprites/characters/i/j/'),
          ok('J', '/sprites/characters//'),
          ok('K', 'x/sprites/characters/k/'),
        ],
      },
    });
    expect(r.problems.map((p) => p.split(' ').slice(0, 1).concat(p.split(' ').slice(2)).join(' '))).toEqual([
      'sprites/source-shape /characters/1/name',
      'sprites/source-shape /characters/2/category',
      'sprites/source-shape /characters/3/basePath',
      'sprites/source-shape /characters/4/animations',
      'sprites/source-shape /characters/5/animations/idle',
      'sprites/source-shape /characters/5/animations/run',
      'sprites/duplicate-character /characters/6/basePath',
      'sprites/source-shape /characters/7',
      'sprites/character-base-path /characters/8/basePath',
      'sprites/character-base-path /characters/9/basePath',
      'sprites/character-base-path /characters/10/basePath',
      'sprites/character-base-path /characters/11/basePath',
    ]);
    expect(r.issues[6]!.message).toContain('/characters/0');
    const names = r.body<{ characters: { name: string }[] }>('character-registry.json').characters.map((c) => c.name);
    expect(names).toEqual(['A', 'H', 'I', 'J', 'K']);
  });

  it('are sorted by name, then id, and counted per category', () => {
    const r = run({
      characters: {
        characters: [
          { name: 'b', category: 'y', basePath: '/sprites/characters/b/', animations: {} },
          { name: 'a', category: 'z', basePath: '/sprites/characters/a2/', animations: {} },
          { name: 'a', category: 'z', basePath: '/sprites/characters/a1/', animations: {} },
          { name: 'B', category: 'z', basePath: '/sprites/characters/B/', animations: {} },
        ],
      },
    });
    const reg = r.body<{ total: number; categories: unknown[]; characters: { name: string; uuid: string }[] }>('character-registry.json');
    expect(reg.characters.map((c) => c.name)).toEqual(['B', 'a', 'a', 'b']);
    const [, a1, a2] = reg.characters;
    expect(a1!.uuid < a2!.uuid).toBe(true);
    expect(reg.total).toBe(4);
    expect(reg.categories).toEqual([
      { category: 'y', count: 1 },
      { category: 'z', count: 3 },
    ]);
    expect(r.body<{ characters: unknown }>('sprite-stats.json').characters).toEqual({
      total: 4,
      categories: [
        { category: 'y', count: 1 },
        { category: 'z', count: 3 },
      ],
    });
    expect(r.body<{ sprites: { derivedIds: number } }>('sprite-stats.json').sprites.derivedIds).toBe(0);
  });

  it('refuse a characters file of the wrong shape', () => {
    expect(run({ characters: 'x' }).problems).toEqual([`sprites/source-shape ${SPRITE_CHARACTERS_FILE} `]);
    expect(run({ characters: { characters: {} } }).problems).toEqual([`sprites/source-shape ${SPRITE_CHARACTERS_FILE} /characters`]);
  });
});

describe('sprite search index', () => {
  it('holds name, path without extension, category, subcategory and source words', () => {
    const r = run({
      sprites: sheet({ Monsters: [item('Fire Drake', '/sprites/dragon.v2.png', { subcategory: 'Flying', source: 'Studio' })] }),
    });
    const s = r.body<{ version: string; count: number; terms: Record<string, number[]> }>('sprite-search-index.json');
    expect(s.version).toBe('1.0.0');
    expect(s.count).toBe(1);
    for (const t of ['fire', 'drake', 'sprites', 'dragon', 'v2', 'monsters', 'flying', 'studio']) expect(s.terms[t], t).toEqual([0]);
    expect(s.terms.png).toBeUndefined();
  });
});
