// End-to-end through the local server (dev/server.ts) over a hand-made output folder: static files,
// vercel.json headers, function routes via rewrites, 404s as problem+json.
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseServeArgs, startServer, withClientAddress, type RunningServer } from '../../dev/server.js';
import { useCatalog } from '../helpers/service.js';
import { MANIFEST_FILE, SEARCH_INDEX_FILE, STATS_FILE } from '../../api/_lib/formats/index.js';
import { buildSearchIndex } from '../../api/_lib/search/index.js';

let out: string;
let bareRoot: string;
let server: RunningServer;
let bare: RunningServer;

const WEAPONS_FILE = { version: '1', categories: { swords: { craftedBy: 'Smith', category: 'swords', items: [] } } };
const STATS = { catalog: 'serve-test', totals: { weapons: 2 } };

async function put(root: string, rel: string, text: string): Promise<void> {
  await mkdir(join(root, rel, '..'), { recursive: true });
  await writeFile(join(root, rel), text);
}

beforeAll(async () => {
  out = await mkdtemp(join(tmpdir(), 'serve-out-'));
  await put(out, 'index.html', '<!doctype html><title>Catalog</title>');
  await put(out, 'api/v1/weapons.json', JSON.stringify(WEAPONS_FILE));
  await put(out, MANIFEST_FILE, JSON.stringify({ buildId: 'serve0000000000000000' }));
  await put(out, STATS_FILE, JSON.stringify(STATS));
  await put(
    out,
    SEARCH_INDEX_FILE,
    JSON.stringify(
      buildSearchIndex([
        { type: 'weapons', id: 'ITEM-1', name: 'Oak Staff' },
        { type: 'weapons', id: 'ITEM-2', name: 'Iron Sword' },
      ]),
    ),
  );
  // A static file at a path a rewrite also matches: the file wins, as on Vercel.
  await put(out, 'v1/relics', 'static relics');
  server = await startServer({ out, port: 0 });

  // A second repository root whose only rewrite points at a function that does not exist.
  bareRoot = await mkdtemp(join(tmpdir(), 'serve-root-'));
  await mkdir(join(bareRoot, 'api'));
  await put(bareRoot, 'vercel.json', JSON.stringify({ rewrites: [{ source: '/ghost', destination: '/api/ghost?_route=x' }] }));
  bare = await startServer({ out, root: bareRoot, port: 0 });
});

afterAll(async () => {
  await server?.close();
  await bare?.close();
  useCatalog(undefined);
  await rm(out, { recursive: true, force: true });
  await rm(bareRoot, { recursive: true, force: true });
});

const get = (path: string, init?: RequestInit) => fetch(server.url + path, init);

async function expectProblem(res: Response, status: number, code: string): Promise<void> {
  expect(res.status).toBe(status);
  expect(res.headers.get('content-type')).toBe('application/problem+json');
  expect(((await res.json()) as { code: string }).code).toBe(code);
}

describe('local server', () => {
  it('prints a localhost URL on the bound port', () => {
    expect(server.url).toBe(`http://localhost:${server.port}`);
    expect(server.port).toBeGreaterThan(0);
  });

  it('serves static catalog files with their content type, vercel.json headers and ETag/304', async () => {
    const res = await get('/api/v1/weapons.json');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(res.headers.get('cache-control')).toBe('public, max-age=300');
    expect(res.headers.get('cdn-cache-control')).toBe('public, max-age=300');
    expect(await res.json()).toEqual(WEAPONS_FILE);
    const etag = res.headers.get('etag');
    expect(etag).toBeTruthy();
    const again = await get('/api/v1/weapons.json', { headers: { 'If-None-Match': etag! } });
    expect(again.status).toBe(304);
    const head = await get('/api/v1/weapons.json', { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-length')).toBe(String(JSON.stringify(WEAPONS_FILE).length));
  });

  it('serves index.html for /', async () => {
    const res = await get('/');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(await res.text()).toContain('<title>Catalog</title>');
  });

  it('runs a function through a rewrite with the client query merged in', async () => {
    const res = await get('/api/search?q=oak&limit=5');
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(await res.json()).toEqual({
      query: 'oak',
      type: 'all',
      totalResults: 1,
      results: [{ type: 'weapons', id: 'ITEM-1', name: 'Oak Staff' }],
    });
    const stats = await get('/api/stats');
    expect(await stats.json()).toEqual(STATS);
  });

  it('lets the rewrite parameters win over a client _route', async () => {
    const res = await get('/api/stats?_route=search');
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual(STATS);
  });

  it('reaches an entry file directly at /api/<name>', async () => {
    const res = await get('/api/catalog?_route=stats');
    expect(await res.json()).toEqual(STATS);
  });

  it('answers the retired systems catalog with a problem+json 404 that is not cached', async () => {
    const res = await get('/api/v1/systems-catalog.json');
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    await expectProblem(res, 404, 'NOT_FOUND');
  });

  it('answers problem+json 404 for API paths whose function is not there yet and for missing files', async () => {
    await expectProblem(await get('/api/inventory/nothing-here'), 404, 'NOT_FOUND');
    await expectProblem(await get('/api/island/state'), 401, 'UNAUTHORIZED');
    await expectProblem(await get('/api/v1/no-such-file.json'), 404, 'NOT_FOUND');
    await expectProblem(await get('/nothing/here'), 404, 'NOT_FOUND');
    await expectProblem(await fetch(bare.url + '/ghost'), 404, 'NOT_FOUND');
    await expectProblem(await fetch(bare.url + '/api/ghost'), 404, 'NOT_FOUND');
  });

  it('serves a static file before a rewrite of the same path', async () => {
    const res = await get('/v1/relics');
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('static relics');
  });

  it('never serves files outside the output folder', async () => {
    for (const path of ['/..%2f..%2fetc%2fpasswd', '/%2e%2e/%2e%2e/etc/passwd', '/api/v1/..%5c..%5cpackage.json']) {
      const res = await get(path);
      expect(res.status, path).toBe(404);
      await res.body?.cancel();
    }
  });

  it('answers a method the function does not export with 405', async () => {
    const res = await get('/api/search?q=oak', { method: 'POST' });
    await expectProblem(res, 405, 'METHOD_NOT_ALLOWED');
  });
});

describe('withClientAddress', () => {
  it("hands a function the socket's address as Vercel's edge does, dropping what the client claimed", async () => {
    const claimed = new Request('http://t/api/x', {
      method: 'POST',
      body: 'kept',
      headers: { 'x-real-ip': '203.0.113.1', 'x-forwarded-for': '203.0.113.2, 10.0.0.1', 'x-other': 'kept' },
    });
    const seen = withClientAddress(claimed, '::ffff:127.0.0.1');
    expect([seen.headers.get('x-real-ip'), seen.headers.get('x-forwarded-for'), seen.headers.get('x-other')]).toEqual([
      '127.0.0.1',
      '127.0.0.1',
      'kept',
    ]);
    expect(await seen.text()).toBe('kept');
    expect(withClientAddress(new Request('http://t/', { headers: { 'x-real-ip': '203.0.113.1' } }), '::1').headers.get('x-real-ip')).toBe(
      '::1',
    );
    const none = withClientAddress(new Request('http://t/', { headers: { 'x-real-ip': '203.0.113.1' } }), undefined);
    expect([none.headers.get('x-real-ip'), none.headers.get('x-forwarded-for')]).toEqual([null, null]);
  });
});

describe('parseServeArgs', () => {
  it('reads options, PORT and defaults', () => {
    expect(parseServeArgs([], {})).toEqual({ src: 'catalog-src', out: 'dist', port: 3000, build: true });
    expect(parseServeArgs(['--src', 's', '--out', 'o', '--config', 'c.json', '--no-build'], { PORT: '8080' })).toEqual({
      src: 's',
      out: 'o',
      config: 'c.json',
      port: 8080,
      build: false,
    });
    expect(parseServeArgs(['--port', '0'], { PORT: '9' }).port).toBe(0);
    expect(() => parseServeArgs(['--port', 'x'])).toThrow(TypeError);
    expect(() => parseServeArgs(['--bogus'])).toThrow(TypeError);
  });
});
