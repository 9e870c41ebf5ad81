// Item collections over the real catalog snapshot (read-only, ../shared/fixtures/objectstore/api/v1):
// the build stage derives from the real files, the function answers from a temp output folder, and every
// expectation is computed here from the raw files with plain code.
import { testConfig } from '../helpers/config.js';
import { REAL_SRC } from '../helpers/catalog.js';
import { mkdtemp, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { GET } from '../../api/collections.js';
import { useCatalog } from '../helpers/service.js';
import { MANIFEST_FILE, type CollectionName } from '../../api/_lib/formats/index.js';
import { deriveCollections } from '../../build/derive/collections.js';
import { loadIndex } from '../../api/_lib/collections/load.js';
import type { Emitted, IssueInput, SourceDoc } from '../../build/pipeline/types.js';
import { serialise } from '../../build/pipeline/emit.js';

const REPO = resolve(import.meta.dirname, '../..');
const REAL = REAL_SRC;
const NAMES = ['relics', 'enchants', 'infusions', 'artifacts'] as const;
type Rec = Record<string, unknown>;

const ajv = new Ajv2020({ allErrors: true, allowUnionTypes: true });
for (const name of ['collection-item', 'collection-list']) {
  ajv.addSchema(JSON.parse(readFileSync(join(REPO, `schemas/responses/${name}.schema.json`), 'utf8')) as object);
}
const validList = ajv.getSchema('https://schemas.game-data.dev/responses/collection-list.schema.json')!;
const validItem = ajv.getSchema('https://schemas.game-data.dev/responses/collection-item.schema.json')!;

const CONFIG = testConfig({ name: 'real', uuidField: 'grudgeUuid' });

const raw = {} as Record<CollectionName, Rec[]>;
let dir: string;
let emitted: readonly Emitted[];
const issues: IssueInput[] = [];

beforeAll(async () => {
  const docs = new Map<string, SourceDoc>();
  for (const name of NAMES) {
    const path = `master-${name}.json`;
    const text = await readFile(join(REAL, path), 'utf8');
    const data = JSON.parse(text) as Rec;
    docs.set(path, { path, text, data });
    raw[name] = data[name] as Rec[];
  }
  emitted = deriveCollections({ config: CONFIG, docs, report: (i) => void issues.push(i) });
  dir = await mkdtemp(join(tmpdir(), 'collections-real-'));
  for (const e of emitted) {
    await mkdir(join(dir, e.path, '..'), { recursive: true });
    await writeFile(join(dir, e.path), serialise(e).bytes);
  }
  await writeFile(join(dir, MANIFEST_FILE), JSON.stringify({ buildId: 'real-test' }));
  useCatalog(dir);
});
afterAll(async () => {
  useCatalog(undefined);
  await rm(dir, { recursive: true, force: true });
});

async function get(path: string): Promise<{ status: number; text: string; body: Rec }> {
  const res = await GET(new Request(`http://t${path}`));
  const text = await res.text();
  return { status: res.status, text, body: JSON.parse(text) as Rec };
}
/** Every item of a filtered list (paging through it), checked against the schema. */
async function all(path: string): Promise<{ total: number; items: Rec[] }> {
  const items: Rec[] = [];
  let total = -1;
  for (let offset = 0; ; offset += 500) {
    const r = await get(`${path}${path.includes('?') ? '&' : '?'}limit=500&offset=${offset}`);
    expect(r.status, `${path}: ${r.text.slice(0, 300)}`).toBe(200);
    expect(validList(r.body), JSON.stringify(validList.errors)).toBe(true);
    total = r.body.total as number;
    items.push(...(r.body.items as Rec[]));
    if (items.length >= total) break;
  }
  return { total, items };
}

// Plain reference semantics, written independently of the product code.
const low = (v: unknown): string => String(v).toLowerCase();
function valuesOf(v: unknown): string[] {
  if (v === null || v === undefined) return [];
  if (Array.isArray(v)) return v.flatMap(valuesOf);
  if (typeof v !== 'string' && typeof v !== 'number') return [];
  return String(v)
    .split('|')
    .map((s) => s.trim().toLowerCase())
    .filter((s) => s !== '');
}
function distinct(name: CollectionName, field: string): string[] {
  return [...new Set(raw[name].flatMap((r) => valuesOf(r[field])))].sort();
}
function slug(name: string): string {
  return name
    .toLowerCase()
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
}
const hiddenOf = (r: Rec): boolean => (r.discovery as Rec | undefined)?.hiddenUntilFound === true;

describe('build over the real snapshot', () => {
  it('indexes every item and reports no key collisions the raw data does not have', () => {
    for (const name of NAMES) {
      const idx = loadIndex(emitted.find((e) => e.path === `api/v1/collections/${name}.cidx`)!.body as Buffer, name);
      expect(JSON.parse(`[${idx.itemsJoined(Array.from({ length: idx.n }, (_, p) => p))}]`)).toEqual(raw[name]);
    }
    const keyCount = (name: CollectionName, fields: ('id' | 'uuid' | 'slug')[]): number => {
      const seen = new Map<string, Set<number>>();
      raw[name].forEach((r, i) => {
        for (const f of fields) {
          const k = f === 'slug' ? slug(String(r.name)) : typeof r[f] === 'string' ? low(r[f]) : '';
          if (k) seen.set(k, (seen.get(k) ?? new Set()).add(i));
        }
      });
      return [...seen.values()].filter((s) => s.size > 1).length;
    };
    const expectedDup =
      keyCount('relics', ['id', 'uuid', 'slug']) +
      keyCount('enchants', ['id', 'uuid', 'slug']) +
      keyCount('infusions', ['id', 'uuid']) +
      keyCount('artifacts', ['uuid', 'slug']);
    expect(issues.filter((i) => i.rule === 'collections/duplicate-key')).toHaveLength(expectedDup);
    expect(issues.filter((i) => i.rule === 'collections/shape')).toEqual([]);
  });
});

describe('lists over the real snapshot (spec 4.2)', () => {
  it('totals without filters; artifacts hide undiscovered ones unless discovered=all', async () => {
    for (const name of ['relics', 'enchants', 'infusions'] as const) {
      const r = await all(`/v1/${name}`);
      expect(r.total).toBe(raw[name].length);
      expect(r.items).toEqual(raw[name]);
    }
    const visible = raw.artifacts.filter((r) => !hiddenOf(r));
    expect((await all('/v1/artifacts')).items).toEqual(visible);
    expect((await all('/v1/artifacts?discovered=all')).items).toEqual(raw.artifacts);
  });

  const cases: [CollectionName, string, string][] = [
    ['relics', 'category', 'category'],
    ['relics', 'element', 'element'],
    ['relics', 'tier', 'tier'],
    ['relics', 'slot', 'slot'],
    ['enchants', 'category', 'category'],
    ['enchants', 'tier', 'tier'],
    ['enchants', 'target', 'target'],
    ['infusions', 'tier', 'tier'],
    ['infusions', 'scope', 'scope'],
    ['infusions', 'profession', 'profession'],
    ['artifacts', 'artifactType', 'artifactType'],
  ];
  it.each(cases)('%s by %s: each value selects exactly the raw items holding it', async (name, param, field) => {
    const values = distinct(name, field);
    expect(values.length).toBeGreaterThan(0);
    for (const v of values) {
      const expected = raw[name].filter((r) => valuesOf(r[field]).includes(v) && !(name === 'artifacts' && hiddenOf(r)));
      const got = await all(`/v1/${name}?${param}=${encodeURIComponent(v.toUpperCase())}`);
      expect(got.total, `${param}=${v}`).toBe(expected.length);
      expect(got.items).toEqual(expected);
    }
  });

  it('counts per value add up to the items that hold one', async () => {
    const withElement = raw.relics.filter((r) => valuesOf(r.element).length > 0).length;
    let sum = 0;
    for (const v of distinct('relics', 'element')) sum += (await all(`/v1/relics?element=${v}`)).total;
    expect(sum).toBe(withElement);
    const bothTargets = raw.enchants.filter((r) => valuesOf(r.target).length > 1).length;
    expect(bothTargets).toBeGreaterThan(0);
    const w = (await all('/v1/enchants?target=weapon')).total;
    const a = (await all('/v1/enchants?target=armor')).total;
    expect(w + a).toBe(raw.enchants.reduce((n, r) => n + valuesOf(r.target).length, 0));
  });

  it('combines filters with AND', async () => {
    for (const c of distinct('relics', 'category')) {
      for (const t of [1, 5, 8]) {
        const expected = raw.relics.filter((r) => low(r.category) === c && r.tier === t);
        expect((await all(`/v1/relics?category=${c}&tier=${t}&slot=relic`)).items).toEqual(expected.filter((r) => low(r.slot) === 'relic'));
      }
    }
    const exp = raw.infusions.filter((r) => low(r.scope) === 'profession' && r.tier === 3 && low(r.profession) === 'miner');
    expect((await all('/v1/infusions?scope=profession&tier=3&profession=Miner')).items).toEqual(exp);
  });

  it('artifacts: tier, subtype and handedness select only items holding them', async () => {
    for (const t of [1, 2, 3, 4, 5, 6, 7, 8]) {
      expect((await all(`/v1/artifacts?tier=${t}&discovered=all`)).items).toEqual(raw.artifacts.filter((r) => r.tier === t));
    }
    for (const h of ['1h', '2h', 'offhand']) {
      expect((await all(`/v1/artifacts?handedness=${h}&discovered=all`)).items).toEqual(
        raw.artifacts.filter((r) => valuesOf(r.handedness).includes(h)),
      );
    }
    expect((await all('/v1/artifacts?subtype=staff&discovered=all')).items).toEqual(
      raw.artifacts.filter((r) => valuesOf(r.subtype).includes('staff')),
    );
  });

  it('q searches the named fields', async () => {
    const search = (name: CollectionName, fields: string[], q: string): Rec[] =>
      raw[name].filter((r) =>
        fields.some((f) => {
          const v = r[f];
          return typeof v === 'string' && v.toLowerCase().includes(q);
        }),
      );
    for (const q of ['frost', 'relic-frost-t', 'winter', 't3', 'of ', 'e']) {
      expect((await all(`/v1/relics?q=${encodeURIComponent(q.trim() === q ? q.toUpperCase() : q)}`)).items, q).toEqual(
        search('relics', ['name', 'id', 'description'], q.trim()),
      );
    }
    for (const q of ['strength', 'enchant-', 'armor'])
      expect((await all(`/v1/enchants?q=${q}`)).items, q).toEqual(search('enchants', ['name', 'id', 'description'], q));
    for (const q of ['essence', 'forge'])
      expect((await all(`/v1/infusions?q=${q}`)).items, q).toEqual(search('infusions', ['name', 'id', 'description'], q));
    for (const q of ['void', 'staff', 'item-']) {
      expect((await all(`/v1/artifacts?q=${q}&discovered=all`)).items, q).toEqual(search('artifacts', ['name', 'description'], q));
    }
  });

  it('pages in catalog order', async () => {
    const page = await get('/v1/relics?limit=7&offset=130');
    expect(page.body).toMatchObject({
      total: raw.relics.length,
      count: raw.relics.length - 130,
      limit: 7,
      offset: 130,
      items: raw.relics.slice(130, 137),
    });
    expect(page.text).toBe(JSON.stringify(page.body));
  });
});

describe('lookups over the real snapshot (spec 4.2, 7)', () => {
  async function lookup(name: CollectionName, key: string): Promise<Rec> {
    const r = await get(`/v1/${name}/${encodeURIComponent(key)}`);
    expect(r.status, `${name}/${key}`).toBe(200);
    expect(validItem(r.body), JSON.stringify(validItem.errors)).toBe(true);
    return r.body;
  }
  it('relics and enchants by id, uuid and name slug', async () => {
    for (const name of ['relics', 'enchants'] as const) {
      for (const r of raw[name]) {
        for (const key of [r.id, r.uuid, slug(String(r.name)), low(r.uuid)] as string[]) expect(await lookup(name, key)).toEqual(r);
      }
    }
  });
  it('infusions by id and uuid, not by name slug', async () => {
    for (const r of raw.infusions) {
      for (const key of [r.id, r.uuid] as string[]) expect(await lookup('infusions', key)).toEqual(r);
      const s = slug(String(r.name));
      if (!raw.infusions.some((x) => x.id === s)) expect((await get(`/v1/infusions/${s}`)).status).toBe(404);
    }
  });
  it('artifacts by uuid and name slug, hidden ones too', async () => {
    expect(raw.artifacts.some(hiddenOf)).toBe(true);
    for (const r of raw.artifacts)
      for (const key of [r.uuid, slug(String(r.name))] as string[]) expect(await lookup('artifacts', key)).toEqual(r);
  });
  it('404 for keys of another collection and unknown keys', async () => {
    for (const [name, key] of [
      ['relics', String(raw.enchants[0]!.id)],
      ['enchants', String(raw.relics[0]!.uuid)],
      ['infusions', String(raw.relics[0]!.id)],
      ['artifacts', String(raw.relics[0]!.uuid)],
      ['relics', 'relic-does-not-exist'],
    ]) {
      const r = await get(`/v1/${name}/${key}`);
      expect(r.status, `${name}/${key}`).toBe(404);
      expect(r.body.code).toBe('NOT_FOUND');
    }
  });
  it('static item files equal the lookup bodies', async () => {
    const files = emitted.filter((e) => !e.path.includes('/collections/'));
    const keyKinds: Record<CollectionName, number> = { relics: 3, enchants: 3, infusions: 2, artifacts: 2 };
    expect(files).toHaveLength(NAMES.reduce((n, c) => n + raw[c].length * keyKinds[c], 0));
    for (const f of files.filter((_, i) => i % 7 === 0)) {
      const m = /^api\/v1\/([a-z]+)\/(.+)\.json$/.exec(f.path)!;
      const r = await get(`/v1/${m[1]}/${m[2]}`);
      expect(r.text).toBe(f.body);
    }
  });
});

describe('bad parameters over the real snapshot', () => {
  it.each([
    ['/v1/relics?tier=0', ['tier']],
    ['/v1/relics?tier=9', ['tier']],
    ['/v1/relics?tier=abc', ['tier']],
    ['/v1/relics?limit=-1', ['limit']],
    ['/v1/relics?offset=x', ['offset']],
    ['/v1/relics?category=enchant', ['category']],
    ['/v1/enchants?target=shield', ['target']],
    ['/v1/infusions?scope=all', ['scope']],
    ['/v1/artifacts?handedness=both', ['handedness']],
    ['/v1/artifacts?discovered=true', ['discovered']],
    ['/v1/relics?element=fire&element=frost', ['element']],
    ['/v1/infusions?element=fire&category=x', ['element', 'category']],
    ['/v1/enchants?tier=0&limit=-1&offset=x&target=x&scope=universal', ['tier', 'limit', 'offset', 'target', 'scope']],
  ] as [string, string[]][])('%s', async (path, names) => {
    const r = await get(path);
    expect(r.status).toBe(400);
    expect(r.body.code).toBe('INVALID_QUERY');
    expect((r.body.errors as { name: string }[]).map((e) => e.name).sort()).toEqual([...names].sort());
  });
});
