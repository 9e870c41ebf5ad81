/**
 * Asset manifest deriver (build/derive/assets.ts, spec §2.4, §4.3) called directly on small in-memory
 * sources: which assets are listed (string id, name, category and url, known type, first of a repeated
 * id), the defaults served for mistyped optional fields, the order of the index and of the categories
 * body, and the checks of the declared totals (`totalAssets`, `types`, `categories`) against the asset
 * list as written, each reported with its pointer.
 */
import { describe, expect, it } from 'vitest';
import { ASSET_RULES, ASSETS_SOURCE_FILE, deriveAssets } from '../../build/derive/assets.js';
import type { IssueInput } from '../../build/pipeline/types.js';
import { testConfig } from '../helpers/config.js';

function run(source: unknown): { issues: IssueInput[]; index: Record<string, unknown>; categories: Record<string, unknown> } {
  const issues: IssueInput[] = [];
  const docs = new Map(source === undefined ? [] : [[ASSETS_SOURCE_FILE, { path: ASSETS_SOURCE_FILE, text: '', data: source }]]);
  const files = deriveAssets({ config: testConfig(), docs, report: (i) => issues.push(i) });
  // every problem explains itself to the content author
  for (const i of issues) {
    expect(i.file).toBe(ASSETS_SOURCE_FILE);
    expect(i.message.length, i.rule).toBeGreaterThan(20);
  }
  expect(files.map((f) => f.path)).toEqual(['api/v1/asset-index.json', 'api/v1/asset-categories.json']);
  return { issues, index: files[0]!.body as Record<string, unknown>, categories: files[1]!.body as Record<string, unknown> };
}

const asset = (id: string, type: string, category: string, extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  id,
  name: `${id} name`,
  type,
  category,
  subcategory: 'sub',
  url: `https://cdn.test/${id}`,
  previewUrl: null,
  tags: ['t'],
  format: 'png',
  sizeBytes: 10,
  metadata: { w: 1 },
  ...extra,
});

/** A source whose declared totals agree with `assets`. */
function consistent(assets: Record<string, unknown>[], extra: Record<string, unknown> = {}): Record<string, unknown> {
  const types: Record<string, number> = {};
  const combos = new Map<string, { type: string; category: string; count: number }>();
  for (const a of assets) {
    types[a.type as string] = (types[a.type as string] ?? 0) + 1;
    const k = `${String(a.type)}/${String(a.category)}`;
    combos.set(k, { type: a.type as string, category: a.category as string, count: (combos.get(k)?.count ?? 0) + 1 });
  }
  return {
    version: '3',
    generated: 'x',
    baseUrl: 'https://cdn.test',
    totalAssets: assets.length,
    types,
    categories: [...combos.values()],
    assets,
    ...extra,
  };
}

const problems = (issues: IssueInput[]): string[] => issues.map((i) => `${i.rule} ${i.pointer}`);

describe('asset rules', () => {
  it('have the spec default severities and are described', () => {
    expect(Object.fromEntries(ASSET_RULES.map((r) => [r.name, r.severity]))).toEqual({
      'assets/source-shape': 'error',
      'assets/field-type': 'warn',
      'assets/unknown-type': 'error',
      'assets/duplicate-id': 'error',
      'assets/count-mismatch': 'error',
    });
    for (const r of ASSET_RULES) expect(r.description.length, r.name).toBeGreaterThan(20);
  });
});

describe('listed assets', () => {
  it('emits both files empty without a source', () => {
    const r = run(undefined);
    expect(r.issues).toEqual([]);
    expect(r.index).toEqual({ version: null, baseUrl: null, total: 0, assets: [] });
    expect(r.categories).toEqual({ total: 0, types: { icon: 0, sprite: 0, model: 0, audio: 0, video: 0 }, categories: [] });
  });

  it('keeps version and base URL, and every field of a well-formed asset', () => {
    const a = asset('A', 'icon', 'weapons', { previewUrl: 'https://cdn.test/p' });
    const r = run(consistent([a]));
    expect(r.issues).toEqual([]);
    expect(r.index).toEqual({ version: '3', baseUrl: 'https://cdn.test', total: 1, assets: [a] });
  });

  it('ignores a non-string version or base URL', () => {
    const r = run(consistent([], { version: 3, baseUrl: 5 }));
    expect(r.index).toMatchObject({ version: null, baseUrl: null });
  });

  it('orders by type (spec order), category, name and id, in code units', () => {
    const list = [
      asset('z', 'video', 'a'),
      asset('b', 'icon', 'b'),
      asset('a2', 'icon', 'a', { name: 'same' }),
      asset('a1', 'icon', 'a', { name: 'same' }),
      asset('c', 'icon', 'B'),
      asset('m', 'model', 'a'),
      asset('s', 'sprite', 'z'),
    ];
    const r = run(consistent(list));
    expect((r.index.assets as { id: string }[]).map((x) => x.id)).toEqual(['c', 'a1', 'a2', 'b', 's', 'm', 'z']);
    expect(r.categories).toEqual({
      total: 7,
      types: { icon: 4, sprite: 1, model: 1, audio: 0, video: 1 },
      categories: [
        { type: 'icon', category: 'B', count: 1 },
        { type: 'icon', category: 'a', count: 2 },
        { type: 'icon', category: 'b', count: 1 },
        { type: 'sprite', category: 'z', count: 1 },
        { type: 'model', category: 'a', count: 1 },
        { type: 'video', category: 'a', count: 1 },
      ],
    });
  });

  it('leaves out assets without a usable id, name, category, url or type, and repeats of an id', () => {
    const list: unknown[] = [
      asset('ok', 'audio', 'music'),
      asset(' ', 'audio', 'music'),
      asset('n', 'audio', 'music', { name: ' ' }),
      asset('u', 'audio', 'music', { url: '' }),
      asset('c', 'audio', 'music', { category: 5 }),
      asset('t', 'texture', 'music'),
      asset('ok', 'audio', 'music'),
      [],
      asset('blankcat', 'audio', ''),
    ];
    const r = run({
      totalAssets: 9,
      types: { audio: 7, texture: 1 },
      categories: [
        { type: 'audio', category: 'music', count: 5 },
        { type: 'texture', category: 'music', count: 1 },
        { type: 'audio', category: '', count: 1 },
      ],
      assets: list,
    });
    expect(problems(r.issues)).toEqual([
      'assets/source-shape /assets/1/id',
      'assets/source-shape /assets/2/name',
      'assets/source-shape /assets/3/url',
      'assets/source-shape /assets/4/category',
      'assets/unknown-type /assets/5/type',
      'assets/duplicate-id /assets/6/id',
      'assets/source-shape /assets/7',
      'assets/unknown-type /types/texture',
    ]);
    expect(r.issues[5]!.message).toContain('/assets/0');
    expect(r.issues[4]!.message).toContain('"texture"');
    expect(r.issues[4]!.message).toContain('icon, sprite, model, audio, video');
    expect(r.issues[0]!.message).toContain('needs a non-blank string "id"');
    expect(r.issues[3]!.message).toContain('needs a string "category"');
    expect((r.index.assets as { id: string }[]).map((x) => x.id)).toEqual(['blankcat', 'ok']);
  });

  it('serves defaults for mistyped optional fields, saying what is served', () => {
    const r = run(
      consistent([
        asset('a', 'icon', 'c', { subcategory: undefined, previewUrl: 5, tags: ['x', 1], format: null, sizeBytes: -1, metadata: [] }),
        asset('b', 'icon', 'c', { tags: 'x', sizeBytes: 1.5 }),
        asset('d', 'icon', 'c', { sizeBytes: 0, tags: [] }),
      ]),
    );
    expect(problems(r.issues)).toEqual([
      'assets/field-type /assets/0/subcategory',
      'assets/field-type /assets/0/previewUrl',
      'assets/field-type /assets/0/tags',
      'assets/field-type /assets/0/format',
      'assets/field-type /assets/0/sizeBytes',
      'assets/field-type /assets/0/metadata',
      'assets/field-type /assets/1/tags',
      'assets/field-type /assets/1/sizeBytes',
    ]);
    const said = r.issues.map((i) => i.message);
    expect(said[0]).toContain('is missing; "" is served');
    expect(said[1]).toContain('is not a URL string or null; null is served');
    expect(said[2]).toContain('is not an array of strings; [] is served');
    expect(said[3]).toContain('is not a string; "" is served');
    expect(said[4]).toContain('is not a whole number of bytes; null is served');
    expect(said[5]).toContain('is not an object; {} is served');
    const [a, b, d] = r.index.assets as Record<string, unknown>[];
    expect(a).toMatchObject({ subcategory: '', previewUrl: null, tags: [], format: '', sizeBytes: null, metadata: {} });
    expect(b).toMatchObject({ tags: [], sizeBytes: null });
    expect(d).toMatchObject({ sizeBytes: 0, tags: [] });
  });
});

describe('source shape', () => {
  it('refuses a source that is not an object, or whose assets are not an array', () => {
    expect(problems(run([1]).issues)).toEqual(['assets/source-shape ']);
    const r = run({ totalAssets: 0, types: {}, categories: [], assets: {} });
    expect(problems(r.issues)).toEqual(['assets/source-shape /assets']);
    expect(r.index.total).toBe(0);
  });
});

describe('declared totals', () => {
  const list = [asset('a', 'icon', 'x'), asset('b', 'icon', 'y'), asset('c', 'model', 'x')];

  it('accept totals that agree with the list', () => {
    expect(run(consistent(list)).issues).toEqual([]);
  });

  it('totalAssets: missing, not an integer, or wrong', () => {
    expect(problems(run(consistent(list, { totalAssets: undefined })).issues)).toEqual(['assets/source-shape ']);
    expect(problems(run(consistent(list, { totalAssets: 2.5 })).issues)).toEqual(['assets/source-shape /totalAssets']);
    const wrong = run(consistent(list, { totalAssets: 4 }));
    expect(problems(wrong.issues)).toEqual(['assets/count-mismatch /totalAssets']);
    expect(wrong.issues[0]!.message).toContain('set it to 3');
  });

  it('types: missing, not an object, unknown, not an integer, wrong or absent counts', () => {
    expect(problems(run(consistent(list, { types: undefined })).issues)).toEqual(['assets/source-shape ']);
    expect(problems(run(consistent(list, { types: [] })).issues)).toEqual(['assets/source-shape /types']);
    const r = run(consistent(list, { types: { icon: 2.5, model: 2, sprite: 0, gif: 0 } }));
    expect(problems(r.issues)).toEqual([
      'assets/unknown-type /types/gif',
      'assets/source-shape /types/icon',
      'assets/count-mismatch /types/model',
    ]);
    expect(r.issues[2]!.message).toContain('types.model is 2 but 1');
    expect(r.issues[0]!.message).toContain('(icon, sprite, model, audio, video)');
    const none = run(consistent(list, { types: { icon: 2, model: 1, video: 1 } }));
    expect(problems(none.issues)).toEqual(['assets/count-mismatch /types/video']);
    expect(problems(run(consistent(list, { types: [] })).issues)).toEqual(['assets/source-shape /types']);
    expect(run(consistent(list, { types: [] })).issues[0]!.message).toContain('{ icon, sprite, model, audio, video }');
    const absent = run(consistent(list, { types: { icon: 2 } }));
    expect(problems(absent.issues)).toEqual(['assets/count-mismatch /types']);
    expect(absent.issues[0]!.message).toContain('types.model is missing');
  });

  it('categories: missing, not an array, bad rows, repeated rows, wrong counts, missing rows', () => {
    expect(problems(run(consistent(list, { categories: undefined })).issues)).toEqual(['assets/source-shape ']);
    expect(problems(run(consistent(list, { categories: {} })).issues)).toEqual(['assets/source-shape /categories']);
    const rows = [
      { type: 'icon', category: 'x', count: 1 },
      { type: 'icon', category: 'x', count: 1 },
      { type: 'icon', category: 'y', count: 3 },
      { type: 'icon', category: 'z', count: 0 },
      'row',
      { type: 1, category: 'x', count: 1 },
      { type: 'icon', category: 2, count: 1 },
      { type: 'icon', category: 'q', count: 1.5 },
    ];
    const r = run(consistent(list, { categories: rows }));
    expect(problems(r.issues)).toEqual([
      'assets/count-mismatch /categories/1',
      'assets/count-mismatch /categories/2/count',
      'assets/source-shape /categories/4',
      'assets/source-shape /categories/5',
      'assets/source-shape /categories/6',
      'assets/source-shape /categories/7',
      'assets/count-mismatch /categories',
    ]);
    expect(r.issues[0]!.message).toContain('/categories/0');
    expect(r.issues[1]!.message).toContain('set it to 1');
    expect(r.issues[6]!.message).toContain('"type": "model", "category": "x", "count": 1');
  });

  it('lists missing category rows sorted by type and category', () => {
    const many = [asset('a', 'model', 'b'), asset('b', 'model', 'a'), asset('c', 'icon', 'z')];
    const r = run(consistent(many, { categories: [] }));
    expect(r.issues.map((i) => i.message.match(/no row for (\S+),/)?.[1])).toEqual(['icon/z', 'model/a', 'model/b']);
  });

  it('counts assets as written, including those left out of the index', () => {
    const written = [asset('a', 'icon', 'x'), asset('a', 'icon', 'x'), { id: 'b', type: 'icon' }, { id: 'c', type: 3, category: 'x' }];
    const r = run({ totalAssets: 4, types: { icon: 3 }, categories: [{ type: 'icon', category: 'x', count: 2 }], assets: written });
    expect(problems(r.issues).filter((p) => !p.includes('/assets/'))).toEqual([]);
  });
});

describe('a build published under another {cdn_url}', () => {
  const source = consistent([
    asset('a', 'model', 'weapons', { url: 'https://cdn.test/models/a.glb', previewUrl: 'https://cdn.test/previews/a.png' }),
    asset('b', 'video', 'cinematics', { url: 'https://elsewhere.test/v.mp4', previewUrl: 'https://cdn.test.evil/p.png' }),
    asset('c', 'icon', 'ui', { url: 'https://cdn.test', previewUrl: null }),
  ]);
  const derive = (sourceCdnUrl: string | undefined) => {
    const config = { ...testConfig(), cdnUrl: 'http://localhost:3000/storage', ...(sourceCdnUrl ? { sourceCdnUrl } : {}) };
    const docs = new Map([[ASSETS_SOURCE_FILE, { path: ASSETS_SOURCE_FILE, text: '', data: source }]]);
    return deriveAssets({ config, docs, report: () => undefined });
  };

  it("moves the URLs on the config's cdn_url to the build's, in the index and the published manifest, and no other", () => {
    const files = derive('https://cdn.test');
    expect(files.map((f) => f.path)).toEqual(['api/v1/asset-index.json', 'api/v1/asset-categories.json', 'api/v1/studiodot-assets.json']);
    const index = files[0]!.body as { baseUrl: string; assets: Record<string, unknown>[] };
    expect(index.baseUrl).toBe('http://localhost:3000/storage');
    const byId = new Map(index.assets.map((a) => [a.id, a]));
    expect(byId.get('a')).toMatchObject({
      url: 'http://localhost:3000/storage/models/a.glb',
      previewUrl: 'http://localhost:3000/storage/previews/a.png',
    });
    // another host, and a host that only starts with the same letters, are kept as written
    expect(byId.get('b')).toMatchObject({ url: 'https://elsewhere.test/v.mp4', previewUrl: 'https://cdn.test.evil/p.png' });
    expect(byId.get('c')).toMatchObject({ url: 'http://localhost:3000/storage', previewUrl: null });
    const published = files[2]!;
    expect(published.raw).toBe(true);
    const doc = JSON.parse(published.body as string) as { baseUrl: string; assets: Record<string, unknown>[] };
    // every member as written but the moved URLs, in the source's order
    expect(doc).toEqual({
      ...source,
      baseUrl: 'http://localhost:3000/storage',
      assets: (source.assets as Record<string, unknown>[]).map((a) => ({
        ...a,
        url: byId.get(a.id as string)!.url,
        previewUrl: byId.get(a.id as string)!.previewUrl,
      })),
    });
    expect(Object.keys(doc)).toEqual(Object.keys(source));
  });

  it('publishes the source as written when the build keeps the config’s cdn_url', () => {
    const files = derive(undefined);
    expect(files.map((f) => f.path)).toEqual(['api/v1/asset-index.json', 'api/v1/asset-categories.json']);
    expect((files[0]!.body as { baseUrl: string }).baseUrl).toBe('https://cdn.test');
  });
});
