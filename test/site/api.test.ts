// The catalog browser's HTTP layer (site/api.ts) and its session reads (site/data.ts) against the local
// server over the sample catalog's test build: answers as the endpoints send them, refusals as ApiError with
// the problem's code and reasons, and item pages' records found where kinds.ts says. The page calls relative
// URLs; here `fetch` resolves them against the server.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startServer, type RunningServer } from '../../dev/server.js';
import * as api from '../../site/api.js';
import { ApiError } from '../../site/api.js';
import { collectionFilterValues, resolveItem } from '../../site/data.js';
import { useCatalog } from '../helpers/service.js';
import { REPO_ROOT, SAMPLE_OUT, SAMPLE_SRC } from '../helpers/catalog.js';

type Rec = Record<string, unknown>;

let server: RunningServer;
let base: string;
const realFetch = globalThis.fetch;

async function raw(path: string): Promise<unknown> {
  const res = await realFetch(`${base}${path}`);
  return res.json();
}

async function src(file: string): Promise<Rec> {
  return JSON.parse(await readFile(join(SAMPLE_SRC, file), 'utf8')) as Rec;
}

/** The ApiError a call rejects with. */
async function refusal(call: Promise<unknown>): Promise<ApiError> {
  const e: unknown = await call.then(
    () => new Error('the call succeeded'),
    (x: unknown) => x,
  );
  expect(e).toBeInstanceOf(ApiError);
  return e as ApiError;
}

beforeAll(async () => {
  server = await startServer({ out: SAMPLE_OUT, port: 0, root: REPO_ROOT, host: '127.0.0.1' });
  base = `http://127.0.0.1:${server.port}`;
  vi.stubGlobal('fetch', (input: string, init?: RequestInit) => realFetch(new URL(input, base), init));
});

afterAll(async () => {
  vi.unstubAllGlobals();
  await server?.close();
  useCatalog(undefined);
});

describe('api.ts', () => {
  it('returns the answers of search, stats, collections, registries and static files as the service sends them', async () => {
    expect(await api.search('ember', 'all', 5)).toEqual(await raw('/api/search?q=ember&limit=5'));
    expect(await api.search('ember', 'bosses')).toEqual(await raw('/api/search?q=ember&type=bosses&limit=50'));
    expect(await api.stats()).toEqual(await raw('/api/stats'));
    expect(await api.registryStats()).toEqual(await raw('/api/v1/stats'));
    expect(await api.listCollection('relics', { tier: 2, category: 'elemental', limit: 3, q: undefined })).toEqual(
      await raw('/v1/relics?tier=2&category=elemental&limit=3'),
    );
    expect(await api.collectionItem('relics', 'relic-ember')).toEqual(await raw('/v1/relics/relic-ember'));
    expect(await api.icons({ category: 'weapon', page: 2, limit: 3 })).toEqual(await raw('/api/v1/icons?category=weapon&page=2&limit=3'));
    expect(await api.iconCategories()).toEqual(await raw('/api/v1/icons/categories'));
    expect(await api.sprites({ limit: 2 })).toEqual(await raw('/api/v1/sprites?limit=2'));
    expect(await api.characters()).toEqual(await raw('/api/v1/characters'));
    expect(await api.catalogFile('master-relics.json')).toEqual(
      JSON.parse(await readFile(join(SAMPLE_OUT, 'api/v1/master-relics.json'), 'utf8')),
    );
    expect(await api.gameDataManifest()).toEqual(JSON.parse(await readFile(join(SAMPLE_OUT, 'api/v1/game-data-manifest.json'), 'utf8')));
    expect(await api.buildReport()).toEqual(JSON.parse(await readFile(join(SAMPLE_OUT, 'api/v1/build-report.json'), 'utf8')));
    const icon = (await api.icons({ limit: 1 })).items[0]!;
    expect(await api.icon(icon.iconUuid)).toEqual(icon);
    const sprite = (await api.sprites({ limit: 1 })).items[0]!;
    expect(await api.sprite(sprite.uuid)).toEqual(sprite);
  });

  it("refuses with the problem's status, code, detail and per-parameter reasons", async () => {
    const blank = await refusal(api.search('   '));
    expect([blank.status, blank.code]).toEqual([400, 'INVALID_QUERY']);
    expect(blank.errors.map((e) => e.name)).toEqual(['q']);
    const problem = (await raw('/api/search?q=%20%20%20&limit=50')) as { detail: string };
    expect(blank.detail).toBe(problem.detail);

    const tier = await refusal(api.listCollection('relics', { tier: 9 }));
    expect([tier.status, tier.code, tier.errors.map((e) => e.name)]).toEqual([400, 'INVALID_QUERY', ['tier']]);
    const missing = await refusal(api.collectionItem('relics', 'no-such-relic'));
    expect([missing.status, missing.code]).toEqual([404, 'NOT_FOUND']);
    const file = await refusal(api.catalogFile('systems-catalog.json'));
    expect([file.status, file.code]).toEqual([404, 'NOT_FOUND']);
  });

  it('says INVALID_RESPONSE for a success that is not JSON, NETWORK_ERROR when nothing answers, and passes aborts through', async () => {
    const csv = await refusal(api.catalogFile('exports/full/weapons.csv'));
    expect([csv.status, csv.code]).toEqual([200, 'INVALID_RESPONSE']);
    vi.stubGlobal('fetch', () => Promise.reject(new TypeError('fetch failed')));
    try {
      const down = await refusal(api.stats());
      expect([down.status, down.code]).toEqual([0, 'NETWORK_ERROR']);
    } finally {
      vi.stubGlobal('fetch', (input: string, init?: RequestInit) => realFetch(new URL(input, base), init));
    }
    const ctl = new AbortController();
    ctl.abort();
    await expect(api.stats(ctl.signal)).rejects.toMatchObject({ name: 'AbortError' });
  });
});

describe('data.ts', () => {
  it('finds records of static kinds in their files, by uuid, id or a derived id', async () => {
    const weapon = ((await src('master-weapons.json')).items as Rec[])[0]!;
    expect(await resolveItem('weapons', weapon.uuid as string)).toMatchObject({
      record: weapon,
      kind: 'weapons',
      source: { url: '/api/v1/master-weapons.json', pointer: '/items/0' },
    });
    const boss = ((await src('bosses.json')).bosses as Rec[])[1]!;
    expect((await resolveItem('bosses', boss.id as string)).record).toEqual(boss);
    const found = await resolveItem('skills', 'SKIL-A415-7550-C923');
    expect(found.record.studioUuid).toBe('SKIL-A415-7550-C923');
  });

  it("asks the master registry for ids outside the kind's files, and says 404 when nobody has the id", async () => {
    const recipe = ((await src('master-recipes.json')).recipes as Rec[])[2]!;
    expect(await resolveItem('definitions', recipe.uuid as string)).toMatchObject({ record: recipe, kind: 'recipes' });
    const relic = ((await src('master-relics.json')).relics as Rec[])[0]!;
    // a relic id opened as an item is read from its collection
    expect(await resolveItem('items', relic.uuid as string)).toMatchObject({
      record: relic,
      kind: 'relics',
      source: { url: `/v1/relics/${String(relic.uuid)}` },
    });
    const none = await refusal(resolveItem('weapons', 'ITEM-NOPE'));
    expect([none.status, none.code]).toEqual([404, 'NOT_FOUND']);
  });

  it("suggests the free-word filter values found in a collection's static file", async () => {
    const relics = (await src('master-relics.json')).relics as Rec[];
    const elements = [...new Set(relics.map((r) => r.element).filter((e): e is string => typeof e === 'string'))].sort((a, b) =>
      a.localeCompare(b, 'en'),
    );
    expect(await collectionFilterValues('relics')).toEqual({ element: elements });
    const infusions = (await src('master-infusions.json')).infusions as Rec[];
    expect((await collectionFilterValues('infusions')).profession).toEqual(
      [...new Set(infusions.map((r) => r.profession).filter((e): e is string => typeof e === 'string'))].sort((a, b) =>
        a.localeCompare(b, 'en'),
      ),
    );
  });
});
