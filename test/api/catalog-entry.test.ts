/**
 * The catalog function (api/catalog.ts; spec §4.4, §7, §9.3) at its edges: the largest values each
 * parameter accepts, export files of the wrong shape answered 503 rather than served, the exact CSV and
 * JSON bodies of a filtered export, and 404 details that name the path asked or the replacement of the
 * retired systems catalog.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type * as Catalog from '../../api/catalog.js';
import { MANIFEST_FILE, SEARCH_INDEX_FILE, STATS_FILE, exportFile } from '../../api/_lib/formats/index.js';
import { buildSearchIndex } from '../../api/_lib/formats/search-index.js';
import { dropOutput, exportOutputs, serveOutput } from '../helpers/registry-output.js';

const RECORDS = [
  { uuid: 'W1', name: 'Oak Bow', category: 'Bows', tier: 1 },
  { uuid: 'W2', name: 'Iron Sword', category: 'swords', tier: 8 },
  { uuid: 'W3', name: 'Steel Sword', category: 'Swords', tier: 8 },
];

let dir: string | undefined;
async function serve(overrides: Readonly<Record<string, unknown>> = {}): Promise<void> {
  if (dir) await dropOutput(dir);
  dir = await serveOutput({
    [MANIFEST_FILE]: { buildId: 'b1d0000000000000000001' },
    [SEARCH_INDEX_FILE]: buildSearchIndex(RECORDS.map((r) => ({ type: 'weapons' as const, id: r.uuid, name: r.name }))),
    [STATS_FILE]: { catalog: 'test', totals: { weapons: 3 }, definitions: {}, statuses: {} },
    ...exportOutputs('weapons', RECORDS, ['uuid', 'name', 'category', 'tier']),
    ...overrides,
  });
}
afterEach(async () => {
  if (dir) await dropOutput(dir);
  dir = undefined;
});

/** The entry is loaded on first use, so an entry that fails to load fails the tests instead of the file's loading. */
const entry = (): Promise<typeof Catalog> => import('../../api/catalog.js');
const get = async (path: string): Promise<Response> => (await entry()).GET(new Request(`http://t${path}`));
const detail = async (res: Response): Promise<string> => ((await res.json()) as { detail: string }).detail;

describe('parameter bounds', () => {
  it('accepts the largest values of q, tier and category', async () => {
    await serve();
    expect((await get(`/api/search?q=${'a'.repeat(200)}`)).status).toBe(200);
    expect((await get('/api/search?q=oak&limit=1')).status).toBe(200);
    expect((await get('/api/export?type=weapons&tier=1')).status).toBe(200);
    expect((await get('/api/export?type=weapons&tier=8')).status).toBe(200);
    expect((await get(`/api/export?type=weapons&category=${'c'.repeat(200)}`)).status).toBe(200);
    expect((await get(`/api/export?type=weapons&category=${'c'.repeat(201)}`)).status).toBe(400);
    expect((await get('/api/export?type=WEAPONS&format=CSV')).status).toBe(200);
  });

  it('searches one type when asked and all types by default', async () => {
    await serve();
    const body = (await (await get('/api/search?q=sword&type=armor')).json()) as { type: string; totalResults: number };
    expect(body).toMatchObject({ type: 'armor', totalResults: 0 });
    const all = (await (await get('/api/search?q=sword&limit=1')).json()) as { totalResults: number; results: unknown[] };
    expect(all.totalResults).toBe(2);
    expect(all.results).toEqual([{ type: 'weapons', id: 'W2', name: 'Iron Sword' }]);
  });
});

describe('export files of the wrong shape', () => {
  it.each([
    ['no object', null],
    ['a string', '"weapons"'],
    ['a number', '5'],
    ['columns missing', { type: 'weapons', records: [] }],
    ['a column that is not a string', { type: 'weapons', columns: ['uuid', 3], records: [] }],
    ['records missing', { type: 'weapons', columns: ['uuid'] }],
    ['records not a list', { type: 'weapons', columns: ['uuid'], records: {} }],
  ])('answers 503 for %s (a filtered export reads the export file)', async (_, file) => {
    await serve({ [exportFile('weapons')]: file });
    const res = await get('/api/export?type=weapons&tier=1');
    expect(res.status).toBe(503);
    expect(((await res.json()) as { code: string }).code).toBe('UPSTREAM_UNAVAILABLE');
  });

  it('serves a file with no columns and no records', async () => {
    await serve(exportOutputs('weapons', [], []));
    expect(await (await get('/api/export?type=weapons&format=csv')).text()).toBe('\r\n');
    expect(await (await get('/api/export?type=weapons&format=csv&tier=2')).text()).toBe('\r\n');
  });
});

describe('filtered exports', () => {
  it('writes the CSV of the matching records under the file columns', async () => {
    await serve();
    const res = await get('/api/export?type=weapons&format=csv&tier=8&category=SWORDS');
    expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(res.headers.get('content-disposition')).toBe('attachment; filename="weapons-t8-swords.csv"');
    expect(await res.text()).toBe('uuid,name,category,tier\r\nW2,Iron Sword,swords,8\r\nW3,Steel Sword,Swords,8\r\n');
  });

  it('echoes the filters in the JSON body', async () => {
    await serve();
    const body: unknown = await (await get('/api/export?type=weapons&tier=1&category=bows')).json();
    expect(body).toEqual({ type: 'weapons', total: 1, filters: { tier: 1, category: 'bows' }, records: [RECORDS[0]] });
  });

  it('gives the JSON and the CSV of one query different ETags', async () => {
    await serve();
    const json = (await get('/api/export?type=weapons')).headers.get('etag');
    const csv = (await get('/api/export?type=weapons&format=csv')).headers.get('etag');
    expect(json).toBeTruthy();
    expect(csv).not.toBe(json);
  });
});

describe('404 details', () => {
  it('names the path asked and the endpoints there are', async () => {
    await serve();
    const res = await get('/api/nothing-here');
    expect(res.status).toBe(404);
    const text = await detail(res);
    expect(text).toContain('/api/nothing-here');
    expect(text).toContain('/api/search');
  });

  it('bounds a long path in the detail', async () => {
    await serve();
    const long = `/api/${'x'.repeat(5000)}`;
    const text = await detail(await get(long));
    expect(text.length).toBeLessThan(1000);
    expect(text).toContain('/api/xxx');
  });

  it('says the systems catalog is retired and what replaces it, for every method', async () => {
    await serve();
    for (const res of [
      await get('/api/v1/systems-catalog.json'),
      await (await entry()).POST(new Request('http://t/api/v1/systems-catalog.json', { method: 'POST' })),
    ]) {
      expect(res.status).toBe(404);
      const text = await detail(res);
      expect(text).toContain('retired');
      expect(text).toContain('warlords-catalog.json');
    }
  });
});
