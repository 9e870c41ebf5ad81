/**
 * The item collections entry (`api/collections.ts`; spec §4.2, §7, §8) over a tiny catalog written to a temp
 * folder: the ETag of a list and of a lookup follows the canonical query (so equal queries share it and
 * different ones do not, also across collections), a clamped limit is reported, HEAD has no body, lookups
 * take no parameters, and a 404 names the key asked for and the kinds of keys the collection is looked up by.
 */
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { etagOf } from '../../api/_lib/http/respond.js';
import { MANIFEST_FILE, collectionIndexFile, COLLECTION_NAMES } from '../../api/_lib/formats/index.js';
import { indexCollection } from '../../build/derive/collections.js';

const BUILD = 'build-0123456789abcdef-tail';
const DATA = {
  relics: [{ uuid: 'RELC-1', id: 'relic-frost', name: 'Relic of Frost', tier: 1, description: 'Cold.' }],
  enchants: [{ uuid: 'ENCH-1', id: 'enchant-edge', name: 'Edge Enchant', tier: 1, description: 'Sharp.' }],
  infusions: [{ uuid: 'INFU-1', id: 'minor-infusion', name: 'Minor Essence', tier: 1, description: 'Small.' }],
  artifacts: [{ uuid: 'ARTF-1', name: 'Sun Blade', tier: 1, description: 'Bright.' }],
};

type Handler = (request: Request) => Promise<Response>;
let GET: Handler;
let HEAD: Handler;
let useCatalog: (dir: string | undefined) => void;
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'collections-entry-'));
  for (const name of COLLECTION_NAMES) {
    const file = join(dir, collectionIndexFile(name));
    await mkdir(join(file, '..'), { recursive: true });
    await writeFile(file, indexCollection(name, { [name]: DATA[name] })!.file);
  }
  await mkdir(join(dir, MANIFEST_FILE, '..'), { recursive: true });
  await writeFile(join(dir, MANIFEST_FILE), JSON.stringify({ buildId: BUILD }));
});
beforeEach(async () => {
  // Loaded afresh for each test, so that an entry table or parameter spec that fails to build fails the tests.
  vi.resetModules();
  ({ useCatalog } = await import('../helpers/service.js'));
  ({ GET, HEAD } = await import('../../api/collections.js'));
  useCatalog(dir);
});
afterAll(async () => {
  useCatalog(undefined);
  await rm(dir, { recursive: true, force: true });
});

const get = (path: string, init?: RequestInit): Promise<Response> => GET(new Request(`http://t${path}`, init));

describe('lists', () => {
  it('carry the ETag of the build and the canonical query, parameters sorted, defaults filled in', async () => {
    const r = await get('/v1/relics?tier=1&q=frost');
    expect(r.status).toBe(200);
    expect(r.headers.get('etag')).toBe(etagOf(BUILD, '/v1/relics?limit=50&offset=0&q=frost&tier=1'));
    expect(r.headers.get('x-limit-requested')).toBeNull();
    expect(JSON.parse(await r.text())).toMatchObject({ collection: 'master-relics', total: 1 });
    const e = await get('/v1/enchants?tier=1&q=frost');
    expect(e.headers.get('etag')).toBe(etagOf(BUILD, '/v1/enchants?limit=50&offset=0&q=frost&tier=1'));
  });

  it('report a clamped limit', async () => {
    const r = await get('/v1/artifacts?limit=9000');
    expect(r.headers.get('x-limit-requested')).toBe('9000');
    expect(r.headers.get('x-limit-applied')).toBe('500');
    expect(r.headers.get('etag')).toBe(etagOf(BUILD, '/v1/artifacts?limit=500&offset=0'));
  });

  it('HEAD answers like GET without a body', async () => {
    const r = await HEAD(new Request('http://t/v1/infusions', { method: 'HEAD' }));
    expect(r.status).toBe(200);
    expect(await r.text()).toBe('');
    expect(r.headers.get('etag')).toBe(etagOf(BUILD, '/v1/infusions?limit=50&offset=0'));
  });

  it('refuse unknown parameters', async () => {
    const r = await get('/v1/infusions?category=x');
    expect(r.status).toBe(400);
    expect(((await r.json()) as { code: string }).code).toBe('INVALID_QUERY');
  });
});

describe('lookups', () => {
  it('carry the ETag of the build and the key as asked, URL-encoded', async () => {
    const r = await get('/v1/relics/Relic-Frost');
    expect(r.status).toBe(200);
    expect(await r.text()).toBe(JSON.stringify(DATA.relics[0]));
    expect(r.headers.get('etag')).toBe(etagOf(BUILD, '/v1/relics/Relic-Frost'));
    const spaced = await get('/v1/artifacts/sun%20blade');
    expect(spaced.status).toBe(404);
    const slug = await get('/v1/artifacts/SUN-BLADE');
    expect(slug.headers.get('etag')).toBe(etagOf(BUILD, '/v1/artifacts/SUN-BLADE'));
    const viaRoute = await get('/api/collections?_route=enchants-item&_key=enchant%20edge%2F1');
    expect(viaRoute.status).toBe(404);
  });

  it('take no parameters', async () => {
    const r = await get('/v1/relics/relic-frost?tier=1');
    expect(r.status).toBe(400);
    expect(((await r.json()) as { code: string }).code).toBe('INVALID_QUERY');
  });

  it('404 names the key asked for and how the collection is looked up', async () => {
    const cases = [
      ['/v1/relics/nope', 'relics', 'nope', 'uuid, id, name slug'],
      ['/v1/infusions/minor-essence', 'infusions', 'minor-essence', 'uuid, id'],
      ['/v1/artifacts/artifact-sun', 'artifacts', 'artifact-sun', 'uuid, name slug'],
    ] as const;
    for (const [path, name, key, kinds] of cases) {
      const r = await get(path);
      expect(r.status).toBe(404);
      const body = (await r.json()) as { code: string; detail: string };
      expect(body.code).toBe('NOT_FOUND');
      expect(body.detail).toContain(`/v1/${name}`);
      expect(body.detail).toContain(`"${key}"`);
      expect(body.detail).toContain(`by ${kinds}.`);
    }
  });
});
