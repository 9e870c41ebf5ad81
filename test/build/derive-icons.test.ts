/**
 * Icon registry deriver (build/derive/icons.ts, spec §2.6 ICON family, §4.1, §4.6) called directly on
 * small in-memory sources: which keys are refused and why (blanks, control characters, backslash,
 * leading slash, empty/./.. segments, outside the key prefix, repeated), the key prefix a source may
 * set, names defaulting to the file stem, tags, the fields of a registered icon (configured id field,
 * relative path, CDN URL), the path index with ambiguous relative paths, the category index and
 * shards, and the words the icon search index holds.
 */
import { describe, expect, it } from 'vitest';
import { ICON_RULES, ICON_SOURCE_FILE, deriveIcons } from '../../build/derive/icons.js';
import { deriveIconId } from '../../build/pipeline/ids.js';
import type { CatalogConfig, Emitted, IssueInput } from '../../build/pipeline/types.js';
import { testConfig } from '../helpers/config.js';

const P = 'game-assets/icons/';

function run(
  source: unknown,
  config: CatalogConfig = testConfig(),
): { files: readonly Emitted[]; issues: IssueInput[]; body: (path: string) => Record<string, unknown> } {
  const issues: IssueInput[] = [];
  const docs = new Map(
    source === undefined ? [] : [[ICON_SOURCE_FILE, { path: ICON_SOURCE_FILE, text: JSON.stringify(source), data: source }]],
  );
  const files = deriveIcons({ config, docs, report: (i) => issues.push(i) });
  // every problem explains itself to the content author
  for (const i of issues) {
    expect(i.file).toBe(ICON_SOURCE_FILE);
    expect(i.message.length, i.rule).toBeGreaterThan(20);
  }
  const body = (path: string): Record<string, unknown> => files.find((f) => f.path === `api/v1/${path}`)!.body as Record<string, unknown>;
  return { files, issues, body };
}

const keysOf = (r: ReturnType<typeof run>): string[] => (r.body('icon-registry.json').icons as { key: string }[]).map((i) => i.key);
const problems = (r: ReturnType<typeof run>): string[] => r.issues.map((i) => `${i.rule} ${i.pointer}`);

describe('icon rules', () => {
  it('are error by default, ambiguous paths warn, each described', () => {
    expect(Object.fromEntries(ICON_RULES.map((r) => [r.name, r.severity]))).toEqual({
      'icons/source-shape': 'error',
      'icons/key-format': 'error',
      'icons/key-prefix': 'error',
      'icons/duplicate-key': 'error',
      'icons/unknown-category': 'error',
      'icons/duplicate-id': 'error',
      'icons/ambiguous-path': 'warn',
    });
    for (const r of ICON_RULES) expect(r.description.length, r.name).toBeGreaterThan(30);
  });
});

describe('refused keys', () => {
  it('names the problem of each unclean key and registers none of them', () => {
    const bad = [
      ` ${P}a.png`,
      `${P}a.png `,
      `${P}a\u0001.png`,
      `${P}a\u007f.png`,
      `${P}a\\b.png`,
      `/${P}a.png`,
      `${P}a//b.png`,
      `${P}./b.png`,
      `${P}../b.png`,
      `${P}a/`,
    ];
    const r = run({ icons: bad.map((key) => ({ key, category: 'ui' })) });
    expect(keysOf(r)).toEqual([]);
    expect(r.issues.map((i) => i.rule)).toEqual(bad.map(() => 'icons/key-format'));
    expect(r.issues.map((i) => i.pointer)).toEqual(bad.map((_, i) => `/icons/${i}/key`));
    const why = r.issues.map((i) => i.message);
    expect(why[0]).toContain('blanks');
    expect(why[1]).toContain('blanks');
    expect(why[2]).toContain('control character');
    expect(why[3]).toContain('control character');
    expect(why[4]).toContain('backslash');
    expect(why[5]).toContain('slash');
    for (const m of why.slice(6)) expect(m).toContain('segment');
    for (const m of why) expect(m).toContain('not registered');
  });

  it('refuses keys outside the prefix, a repeated key and an unknown category, naming the first entry', () => {
    const r = run({
      icons: [
        { key: `${P}a.png`, category: 'ui' },
        { key: 'other/a.png', category: 'ui' },
        { key: `${P}a.png`, category: 'misc' },
        { key: `${P}b.png`, category: 'UI' },
        { key: `${P}b.png`, category: 'ui' },
      ],
    });
    expect(problems(r)).toEqual([
      'icons/key-prefix /icons/1/key',
      'icons/duplicate-key /icons/2/key',
      'icons/unknown-category /icons/3/category',
      'icons/duplicate-key /icons/4/key',
    ]);
    expect(r.issues[1]!.message).toContain('/icons/0');
    expect(r.issues[0]!.message).toContain(P);
    expect(r.issues[2]!.message).toContain('"UI"');
    expect(keysOf(r)).toEqual([`${P}a.png`]);
  });

  it('refuses entries of the wrong shape, reporting every field at once', () => {
    const r = run({
      icons: [
        null,
        { key: '', category: 'ui' },
        { key: 5, category: 7, name: '', tags: 'x' },
        { key: `${P}t.png`, category: 'ui', tags: ['ok', 1, 'fine', null] },
        { key: `${P}n.png`, category: 'ui', name: 3 },
        { key: `${P}b.png`, category: 'ui', name: '  ' },
        { key: `${P}x.png`, category: 'ui', tags: 'x' },
        { key: `${P}good.png`, category: 'ui', tags: [] },
      ],
    });
    expect(problems(r)).toEqual([
      'icons/source-shape /icons/0',
      'icons/source-shape /icons/1/key',
      'icons/source-shape /icons/2/key',
      'icons/source-shape /icons/2/name',
      'icons/source-shape /icons/2/category',
      'icons/source-shape /icons/2/tags',
      'icons/source-shape /icons/3/tags/1',
      'icons/source-shape /icons/3/tags/3',
      'icons/source-shape /icons/4/name',
      'icons/source-shape /icons/5/name',
      'icons/source-shape /icons/6/tags',
    ]);
    expect(r.issues[4]!.message).toContain('misc, race, ability');
    expect(keysOf(r)).toEqual([`${P}good.png`]);
  });
});

describe('source shape and key prefix', () => {
  it('emits every file empty without a source, reporting nothing', () => {
    const r = run(undefined);
    expect(r.issues).toEqual([]);
    expect(r.files).toHaveLength(20);
    expect(r.body('icon-registry.json')).toEqual({ version: '1.0.0', uuidField: 'studioUuid', keyPrefix: P, count: 0, icons: [] });
  });

  it('takes a clean folder as key prefix and refuses others, falling back to the default', () => {
    const own = run({
      keyPrefix: 'art/icons/',
      icons: [
        { key: 'art/icons/x.png', category: 'ui' },
        { key: `${P}x.png`, category: 'ui' },
      ],
    });
    expect(own.issues.map((i) => i.rule)).toEqual(['icons/key-prefix']);
    expect(own.body('icon-registry.json')).toMatchObject({ keyPrefix: 'art/icons/', count: 1 });
    expect((own.body('icon-registry.json').icons as { path: string }[])[0]!.path).toBe('x.png');
    for (const keyPrefix of ['art/icons', '/art/', 'a//', 7, ' art/']) {
      const r = run({ keyPrefix, icons: [{ key: `${P}x.png`, category: 'ui' }] });
      expect(problems(r), String(keyPrefix)).toEqual(['icons/source-shape /keyPrefix']);
      expect(r.body('icon-registry.json').keyPrefix).toBe(P);
      expect(keysOf(r)).toEqual([`${P}x.png`]);
    }
  });

  it('refuses a source that is not an object or has no icon array', () => {
    expect(problems(run('x'))).toEqual(['icons/source-shape ']);
    expect(problems(run({ icons: {} }))).toEqual(['icons/source-shape /icons']);
  });
});

describe('registered icons', () => {
  const config = testConfig({
    uuidField: 'brandUuid',
    cdnUrl: 'https://cdn.test//',
    namespaces: { skill: 's:', icon: 'ns:', sprite: 'p:' },
    versions: { iconRegistry: '2.0.0' },
  });
  // derived inside each test (never while the suite is collected), so that every run sees the code under test
  const derived = (): { r: ReturnType<typeof run>; icons: Record<string, unknown>[]; byKey: Record<string, Record<string, unknown>> } => {
    const r = run(
      {
        icons: [
          { key: `${P}weapons/Fire Sword.png`, category: 'weapon', tags: ['Blade', 'fire'] },
          { key: `${P}ui/.hidden`, category: 'ui', name: 'Hidden' },
          { key: `${P}ui/plain`, category: 'ui' },
          { key: `${P}ui/.dot`, category: 'ui' },
          { key: `${P}a.b/c.d.png`, category: 'misc' },
        ],
      },
      config,
    );
    const icons = r.body('icon-registry.json').icons as Record<string, unknown>[];
    const byKey = Object.fromEntries(icons.map((i) => [i.key as string, i]));
    return { r, icons, byKey };
  };

  it('carry their id in the configured field, relative path, CDN URL, category, name and tags', () => {
    const { byKey } = derived();
    const key = `${P}weapons/Fire Sword.png`;
    const id = deriveIconId('ns:', key);
    expect(byKey[key]).toEqual({
      brandUuid: id,
      iconUuid: id,
      key,
      path: 'weapons/Fire Sword.png',
      url: `https://cdn.test/${P}weapons/Fire%20Sword.png`,
      category: 'weapon',
      name: 'Fire Sword',
      tags: ['Blade', 'fire'],
    });
  });

  it('default the name to the file name without extension', () => {
    const { byKey } = derived();
    expect(byKey[`${P}ui/.hidden`]!.name).toBe('Hidden');
    expect(byKey[`${P}ui/plain`]!.name).toBe('plain');
    expect(byKey[`${P}ui/plain`]!.tags).toEqual([]);
    expect(byKey[`${P}ui/.dot`]!.name).toBe('.dot');
    expect(byKey[`${P}a.b/c.d.png`]!.name).toBe('c.d');
  });

  it('are sorted by id; the registry carries version, id field, prefix and count', () => {
    const { r, icons } = derived();
    const ids = icons.map((i) => i.iconUuid as string);
    expect(ids).toEqual([...ids].sort());
    expect(r.body('icon-registry.json')).toMatchObject({ version: '2.0.0', uuidField: 'brandUuid', keyPrefix: P, count: 5 });
    expect(r.issues).toEqual([]);
  });

  it('are indexed by key and by relative path', () => {
    const { r, byKey } = derived();
    const idx = r.body('icon-path-index.json');
    expect(idx).toMatchObject({ version: '2.0.0', keyPrefix: P, urlPrefix: 'https://cdn.test/', count: 10 });
    const paths = idx.paths as Record<string, string>;
    expect(Object.keys(paths)).toEqual(Object.keys(paths).sort());
    expect(paths['weapons/Fire Sword.png']).toBe(byKey[`${P}weapons/Fire Sword.png`]!.iconUuid);
    expect(paths[`${P}ui/plain`]).toBe(byKey[`${P}ui/plain`]!.iconUuid);
  });

  it('are listed per category in spec order, with a shard per category', () => {
    const { r, byKey } = derived();
    const cat = r.body('icon-category-index.json');
    expect(cat.version).toBe('2.0.0');
    expect(cat.total).toBe(5);
    const cats = cat.categories as { category: string; count: number; ids: string[] }[];
    expect(cats).toHaveLength(16);
    expect(cats[0]).toEqual({ category: 'misc', count: 1, ids: [byKey[`${P}a.b/c.d.png`]!.iconUuid] });
    expect(cats.find((c) => c.category === 'ui')!.count).toBe(3);
    expect(cats.find((c) => c.category === 'race')).toEqual({ category: 'race', count: 0, ids: [] });
    const shard = r.body('icon-shards/ui.json');
    expect(shard).toMatchObject({ version: '2.0.0', category: 'ui', count: 3 });
    expect((shard.icons as { category: string }[]).every((i) => i.category === 'ui')).toBe(true);
    expect(r.files.slice(4).map((f) => f.path)).toEqual(cats.map((c) => `api/v1/icon-shards/${c.category}.json`));
  });

  it('are searchable by name, tags, path without extension and category', () => {
    const { r, byKey } = derived();
    const s = r.body('icon-search-index.json');
    expect(s.version).toBe('2.0.0');
    expect(s.count).toBe(5);
    const terms = s.terms as Record<string, number[]>;
    const idsOf = (term: string): string[] => (terms[term] ?? []).map((i) => (s.ids as string[])[i]!);
    const sword = byKey[`${P}weapons/Fire Sword.png`]!.iconUuid;
    for (const term of ['fire', 'sword', 'blade', 'weapons', 'weapon']) expect(idsOf(term), term).toContain(sword);
    const swordAt = (s.ids as string[]).indexOf(sword as string);
    expect(Object.keys(terms).filter((t) => terms[t]!.includes(swordAt))).toEqual(['blade', 'fire', 'sword', 'weapon', 'weapons']);
    expect(terms.png).toBeUndefined();
    expect(idsOf('d')).toEqual([byKey[`${P}a.b/c.d.png`]!.iconUuid]);
    expect(idsOf('ui')).toHaveLength(3);
  });
});

describe('ambiguous relative paths', () => {
  it("warns when a relative path is another icon's full key, which by-path lookups return", () => {
    const r = run({
      icons: [
        { key: `${P}${P}a.png`, category: 'ui' },
        { key: `${P}a.png`, category: 'ui' },
      ],
    });
    expect(problems(r)).toEqual(['icons/ambiguous-path /icons/0/key']);
    const paths = r.body('icon-path-index.json').paths as Record<string, string>;
    expect(paths[`${P}a.png`]).toBe(deriveIconId('i:', `${P}a.png`));
    expect(paths['a.png']).toBe(deriveIconId('i:', `${P}a.png`));
    expect(r.issues[0]!.message).toContain(deriveIconId('i:', `${P}a.png`));
    expect(keysOf(r)).toHaveLength(2);
  });
});
