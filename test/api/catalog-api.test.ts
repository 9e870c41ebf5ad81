// Handler calls of api/catalog.ts (search, stats, export; spec 4.4, 2.5, 7, 8) over a hand-written
// catalog output folder. Expectations come from the inline records, never from the handler.
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { DELETE, GET, OPTIONS, POST } from '../../api/catalog.js';
import { useCatalog } from '../helpers/service.js';
import { exportOutputs } from '../helpers/registry-output.js';
import { MANIFEST_FILE, SEARCH_INDEX_FILE, STATS_FILE } from '../../api/_lib/formats/index.js';
import { buildSearchIndex, loadSearchIndex, type SearchRecord } from '../../api/_lib/search/index.js';
import { csvColumns, flattenRecord } from '../../api/_lib/export/index.js';

const repo = resolve(import.meta.dirname, '../..');
const ajv = new Ajv2020({ allErrors: true, allowUnionTypes: true });
for (const name of ['search', 'stats', 'export']) {
  ajv.addSchema(JSON.parse(readFileSync(join(repo, `schemas/responses/${name}.schema.json`), 'utf8')) as object);
}
function schemaErrors(name: string, body: unknown): unknown {
  const v = ajv.getSchema(`https://schemas.game-data.dev/responses/${name}.schema.json`);
  if (!v) throw new Error(`schema ${name} missing`);
  return v(body) ? null : v.errors;
}

const BUILD_ID = 'b1d0000000000000feedface';

// Weapons: a name with a comma and a quote, a description with a line break, tiers and categories.
const WEAPONS = [
  {
    uuid: 'ITEM-1',
    name: 'Ember Blade, the "Bright"',
    type: 'weapon',
    category: 'Swords',
    tier: 1,
    stats: { damage: 10, crit: 2 },
    abilities: ['Slash', 'Parry'],
  },
  { uuid: 'ITEM-2', name: 'Frost Blade', type: 'weapon', category: 'swords', tier: 2, stats: { damage: 14 }, description: 'Cold\nsteel' },
  { uuid: 'ITEM-3', name: 'Oak Bow', type: 'weapon', category: 'bows', tier: 2, stats: { damage: 9, range: 30 } },
  { uuid: 'ITEM-4', name: 'Iron Axe', type: 'weapon', category: 'axes', tier: 3, drops: [{ item: 'MATL-1', chance: 0.5 }] },
];
// Search records: 250 "blade" records so that a clamped limit is observable.
const SEARCH_RECORDS: SearchRecord[] = [
  ...WEAPONS.map((w) => ({ type: 'weapons' as const, id: w.uuid, name: w.name })),
  { type: 'armor', id: 'ITEM-A1', name: 'Blade Ward Helm' },
  { type: 'materials', id: 'MATL-1', name: 'Iron Ore' },
  ...Array.from({ length: 250 }, (_, i) => ({
    type: 'skills' as const,
    id: `SKIL-${String(i).padStart(4, '0')}`,
    name: `Blade Dance ${i}`,
  })),
];
const STATS = {
  catalog: 'test',
  totals: { weapons: 4, armor: 1, materials: 1, consumables: 0, enemies: 0, bosses: 0, skills: 250, sprites: 0 },
};

let dir: string;
let emptyDir: string;

async function put(root: string, rel: string, value: unknown): Promise<void> {
  await mkdir(join(root, rel, '..'), { recursive: true });
  await writeFile(join(root, rel), JSON.stringify(value));
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'catalog-api-'));
  emptyDir = await mkdtemp(join(tmpdir(), 'catalog-api-empty-'));
  await put(dir, MANIFEST_FILE, { buildId: BUILD_ID });
  await put(dir, SEARCH_INDEX_FILE, buildSearchIndex(SEARCH_RECORDS));
  await put(dir, STATS_FILE, STATS);
  for (const [path, value] of Object.entries({ ...exportOutputs('weapons', WEAPONS), ...exportOutputs('armor', [], []) })) {
    if (typeof value === 'string') {
      await mkdir(join(dir, path, '..'), { recursive: true });
      await writeFile(join(dir, path), value);
    } else await put(dir, path, value);
  }
  useCatalog(dir);
});
afterAll(async () => {
  useCatalog(undefined);
  await rm(dir, { recursive: true, force: true });
  await rm(emptyDir, { recursive: true, force: true });
});

const get = (path: string, init?: RequestInit) => GET(new Request(`http://t${path}`, init));
async function problem(res: Response): Promise<{ code: string; status: number; errors?: { name: string }[] }> {
  expect(res.headers.get('content-type')).toBe('application/problem+json');
  expect(res.headers.get('access-control-allow-origin')).toBe('*');
  return (await res.json()) as { code: string; status: number; errors?: { name: string }[] };
}

describe('GET /api/search', () => {
  it('answers the search response of spec 2.5 with what the engine finds', async () => {
    const res = await get('/api/search?q=blade&type=weapons&limit=2');
    expect(res.status).toBe(200);
    const body = (await res.json()) as { query: string; type: string; totalResults: number; results: SearchRecord[] };
    expect(schemaErrors('search', body)).toBeNull();
    const engine = loadSearchIndex(buildSearchIndex(SEARCH_RECORDS));
    const expected = engine.search('blade', { type: 'weapons', limit: 2 });
    expect(body).toEqual({ query: 'blade', type: 'weapons', totalResults: expected.totalResults, results: expected.results });
    expect(body.results.every((r) => r.type === 'weapons')).toBe(true);
    // the inline data has exactly two weapons named "... Blade ..."
    expect(body.totalResults).toBe(WEAPONS.filter((w) => /blade/i.test(w.name)).length);
    expect(res.headers.get('cache-control')).toBe('public, max-age=300');
    expect(res.headers.get('cdn-cache-control')).toBe('public, max-age=300');
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
  });

  it('defaults type to all and limit to 50', async () => {
    const body = (await (await get('/api/search?q=blade')).json()) as { type: string; totalResults: number; results: unknown[] };
    expect(body.type).toBe('all');
    expect(body.totalResults).toBe(SEARCH_RECORDS.filter((r) => /blade/i.test(r.name)).length);
    expect(body.results).toHaveLength(50);
  });

  it('lowers a limit above 200 to 200 and says so in headers', async () => {
    const res = await get('/api/search?q=blade&limit=500');
    expect(res.status).toBe(200);
    expect(res.headers.get('x-limit-requested')).toBe('500');
    expect(res.headers.get('x-limit-applied')).toBe('200');
    const body = (await res.json()) as { results: unknown[] };
    expect(body.results).toHaveLength(200);
    const plain = await get('/api/search?q=blade&limit=200');
    expect(plain.headers.get('x-limit-applied')).toBeNull();
  });

  it('answers the same through the rewritten form /api/catalog?_route=search', async () => {
    const a: unknown = await (await get('/api/search?q=iron')).json();
    const b: unknown = await (await get('/api/catalog?_route=search&q=iron')).json();
    expect(b).toEqual(a);
  });

  it('gives 304 for a matching If-None-Match and a different ETag for another query', async () => {
    const first = await get('/api/search?q=oak');
    const etag = first.headers.get('etag');
    expect(etag).toBeTruthy();
    const again = await get('/api/search?q=oak', { headers: { 'If-None-Match': etag! } });
    expect(again.status).toBe(304);
    expect(again.headers.get('etag')).toBe(etag);
    expect(await again.text()).toBe('');
    const other = await get('/api/search?q=oak&type=weapons');
    expect(other.headers.get('etag')).not.toBe(etag);
  });

  it('answers HEAD without a body and OPTIONS as a CORS preflight', async () => {
    const head = await get('/api/search?q=oak', { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
    const pre = await OPTIONS(new Request('http://t/api/search', { method: 'OPTIONS' }));
    expect(pre.status).toBe(204);
    expect(pre.headers.get('access-control-allow-methods')).toContain('GET');
    expect(pre.headers.get('access-control-allow-origin')).toBe('*');
  });

  it('answers 503 when the catalog output is missing', async () => {
    useCatalog(emptyDir);
    try {
      const res = await get('/api/search?q=oak');
      expect(res.status).toBe(503);
      expect((await problem(res)).code).toBe('UPSTREAM_UNAVAILABLE');
    } finally {
      useCatalog(dir);
    }
  });
});

describe('bad parameters → 400 INVALID_QUERY naming every bad parameter', () => {
  const cases: [string, string[]][] = [
    ['/api/search', ['q']],
    ['/api/search?q=', ['q']],
    ['/api/search?q=%20%20', ['q']],
    ['/api/search?q=a&type=potions', ['type']],
    ['/api/search?q=a&limit=0', ['limit']],
    ['/api/search?q=a&limit=abc', ['limit']],
    ['/api/search?q=a&limit=1.5', ['limit']],
    ['/api/search?q=a&q=b', ['q']],
    ['/api/search?q=a&qq=b', ['qq']],
    [`/api/search?q=${'x'.repeat(201)}`, ['q']],
    ['/api/search?type=bogus&limit=-1', ['limit', 'q', 'type']],
    ['/api/stats?verbose=1', ['verbose']],
    ['/api/export', ['type']],
    ['/api/export?type=sprites', ['type']],
    ['/api/export?type=weapons&tier=0', ['tier']],
    ['/api/export?type=weapons&tier=9', ['tier']],
    ['/api/export?type=weapons&tier=two', ['tier']],
    ['/api/export?type=weapons&format=xml', ['format']],
    ['/api/export?type=weapons&tier=1&tier=2', ['tier']],
    ['/api/export?tier=0&format=pdf', ['format', 'tier', 'type']],
  ];
  it.each(cases)('%s → %j', async (path, names) => {
    const res = await get(path);
    expect(res.status).toBe(400);
    const p = await problem(res);
    expect(p.code).toBe('INVALID_QUERY');
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect((p.errors ?? []).map((e) => e.name).sort()).toEqual(names);
  });

  it('ignores routing and cache-buster parameters that start with "_"', async () => {
    expect((await get('/api/search?q=oak&_=123&_route=search')).status).toBe(200);
  });
});

describe('GET /api/stats', () => {
  it('serves the stats file of the build', async () => {
    const res = await get('/api/stats');
    expect(res.status).toBe(200);
    const body: unknown = await res.json();
    expect(body).toEqual(STATS);
    expect(schemaErrors('stats', body)).toBeNull();
    expect(res.headers.get('etag')).toBeTruthy();
  });
});

interface ExportBody {
  type: string;
  total: number;
  filters: { tier: number | null; category: string | null };
  records: (typeof WEAPONS)[number][];
}

describe('GET /api/export', () => {
  it('exports every record of a type as JSON by default', async () => {
    const res = await get('/api/export?type=weapons');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    const body = (await res.json()) as ExportBody;
    expect(schemaErrors('export', body)).toBeNull();
    expect(body).toEqual({ type: 'weapons', total: WEAPONS.length, filters: { tier: null, category: null }, records: WEAPONS });
  });

  it('filters by tier and by category case-insensitively', async () => {
    const byTier = (await (await get('/api/export?type=weapons&tier=2')).json()) as ExportBody;
    expect(byTier.records).toEqual(WEAPONS.filter((w) => w.tier === 2));
    expect(byTier.total).toBe(byTier.records.length);
    expect(byTier.filters).toEqual({ tier: 2, category: null });
    const byCat = (await (await get('/api/export?type=weapons&category=SWORDS')).json()) as ExportBody;
    expect(byCat.records.map((r) => r.uuid)).toEqual(WEAPONS.filter((w) => w.category.toLowerCase() === 'swords').map((w) => w.uuid));
    const both = (await (await get('/api/export?type=weapons&category=swords&tier=2')).json()) as ExportBody;
    expect(both.records.map((r) => r.uuid)).toEqual(['ITEM-2']);
    const none = (await (await get('/api/export?type=weapons&category=maces')).json()) as ExportBody;
    expect(none).toMatchObject({ total: 0, records: [] });
    const empty = (await (await get('/api/export?type=armor')).json()) as ExportBody;
    expect(empty).toEqual({ type: 'armor', total: 0, filters: { tier: null, category: null }, records: [] });
  });

  it('exports CSV per RFC 4180: header row of columns, CRLF, quoted comma/quote/line break', async () => {
    const res = await get('/api/export?type=weapons&format=csv');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(res.headers.get('content-disposition')).toBe('attachment; filename="weapons.csv"');
    const text = await res.text();
    const columns = csvColumns(WEAPONS);
    const lines = text.split('\r\n');
    expect(lines[0]).toBe(columns.join(','));
    expect(lines).toHaveLength(WEAPONS.length + 2); // header, rows, final empty after the last CRLF
    expect(lines.at(-1)).toBe('');
    expect(text).toContain('"Ember Blade, the ""Bright"""');
    expect(text).toContain('"Cold\nsteel"');
    // every row has as many cells as there are columns (parsed with a minimal RFC 4180 reader)
    const rows = parseCsv(text);
    expect(rows[0]).toEqual(columns);
    expect(rows.slice(1)).toEqual(WEAPONS.map((w) => flattenRecord(w, columns)));
  });

  it('names the CSV file after the type and filters', async () => {
    const res = await get('/api/export?type=weapons&format=csv&tier=2&category=Swords');
    expect(res.headers.get('content-disposition')).toBe('attachment; filename="weapons-t2-swords.csv"');
    const rows = parseCsv(await res.text());
    expect(rows.slice(1).map((r) => r[0])).toEqual(['ITEM-2']);
  });

  it('answers 503 when the export file is missing', async () => {
    const res = await get('/api/export?type=bosses');
    expect(res.status).toBe(503);
    expect((await problem(res)).code).toBe('UPSTREAM_UNAVAILABLE');
  });
});

describe('404 and 405', () => {
  it('answers 404 problem+json for the retired systems catalog, for every method', async () => {
    for (const res of [
      await get('/api/v1/systems-catalog.json'),
      await get('/api/catalog?_route=retired'),
      await POST(new Request('http://t/api/v1/systems-catalog.json', { method: 'POST' })),
    ]) {
      expect(res.status).toBe(404);
      expect((await problem(res)).code).toBe('NOT_FOUND');
    }
  });

  it('answers 404 for unrouted API paths and for the bare entry', async () => {
    for (const path of ['/api/nothing-here', '/v1/unknown', '/api/catalog', '/api/catalog?_route=bogus']) {
      const res = await get(path);
      expect(res.status, path).toBe(404);
      expect((await problem(res)).code).toBe('NOT_FOUND');
    }
    const del = await DELETE(new Request('http://t/api/storage/x', { method: 'DELETE' }));
    expect(del.status).toBe(404);
  });

  it('answers 405 with Allow for other methods on search, stats and export', async () => {
    const res = await POST(new Request('http://t/api/search?q=a', { method: 'POST' }));
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('GET, HEAD, OPTIONS');
    expect((await problem(res)).code).toBe('METHOD_NOT_ALLOWED');
  });
});

/** Minimal RFC 4180 reader for the assertions above (quoted fields, doubled quotes, CRLF rows). */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let i = 0;
  let quoted = false;
  while (i < text.length) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i += 2;
      } else if (c === '"') {
        quoted = false;
        i++;
      } else {
        field += c;
        i++;
      }
    } else if (c === '"') {
      quoted = true;
      i++;
    } else if (c === ',') {
      row.push(field);
      field = '';
      i++;
    } else if (c === '\r' && text[i + 1] === '\n') {
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
      i += 2;
    } else {
      field += c;
      i++;
    }
  }
  if (field !== '' || row.length > 0) rows.push([...row, field]);
  return rows;
}
