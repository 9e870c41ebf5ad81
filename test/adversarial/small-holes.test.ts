/**
 * Smaller holes, attacked through the entries on both stores (docs/architecture.md "The store kit": the
 * data folder 0700, its files 0600; "Errors": `X-Content-Type-Options: nosniff` on every answer of a
 * function entry, and `CDN-Cache-Control: no-store` on every answer that does not set its own, so no
 * error is kept at the edge, whose `vercel.json` headers give every `/api/v1/*` path a cache time;
 * `api/player.ts`: every player route refuses a query parameter it does not take). A careless operator runs
 * the service under a permissive umask, or in a data folder made beforehand; a client adds parameters.
 */
import { chmodSync, existsSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import type { EntryExports } from '../../api/_lib/http/entry.js';
import { ROUTES, type Method } from '../../api/_lib/routing/table.js';
import * as catalogEntry from '../../api/catalog.js';
import * as collectionsEntry from '../../api/collections.js';
import * as registriesEntry from '../../api/registries.js';
import * as storageEntry from '../../api/storage.js';
import { png } from '../helpers/media.js';
import {
  ADMIN_PASSWORD,
  admin,
  adminAuth,
  call,
  callRaw,
  mintFor,
  newCharacter,
  newPlayer,
  onEachStore,
  player,
  quietLog,
  serverAuth,
  wallet,
} from './helpers.js';

quietLog();

const ENTRIES: Record<string, EntryExports> = {
  wallet,
  admin,
  player,
  storage: storageEntry,
  catalog: catalogEntry,
  collections: collectionsEntry,
  registries: registriesEntry,
};

/** Every folder (`/` at the end) and file under `dir` with its permission bits in octal: `path mode`. */
function modes(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    out.push(`${d}/ ${(statSync(d).mode & 0o777).toString(8)}`);
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else out.push(`${p} ${(statSync(p).mode & 0o777).toString(8)}`);
    }
  };
  walk(dir);
  return out;
}

/** Some of every kind of stateful write: accounts, credits, player state, items, the throttle's own counts. */
async function work(config: Parameters<typeof adminAuth>[0]): Promise<void> {
  const ada = await newPlayer(config, 'Ada');
  const server = await serverAuth(config);
  expect(
    (
      await call(admin, 'POST', '/api/admin/grant-coin', {
        body: { studioId: ada.studioId, amount: 1, reason: 'r', idempotencyKey: 'holes-grant-01' },
        headers: await adminAuth(config),
      })
    ).status,
  ).toBe(200);
  expect((await call(player, 'GET', '/api/island/state', { headers: ada.auth })).status).toBe(200);
  await newCharacter(ada.auth);
  await mintFor(server, ada.studioId, 'holes-mint-0001');
  expect(
    (await call(admin, 'POST', '/api/admin/grant-coin', { body: {}, headers: { 'X-Admin-Password': 'wrong-password-0123456' } })).status,
  ).toBe(401);
}

const previousUmask = process.umask();
afterEach(() => void process.umask(previousUmask));

onEachStore('small holes', (store) => {
  it('keeps the data folder 0700 and every file in it 0600 under a permissive umask; on Redis writes nothing there', async () => {
    process.umask(0o000);
    const config = await store.fresh(
      store.name === 'sqlite' ? { STORAGE_DRIVER: 'local', STORAGE_PUBLIC_URL: 'http://cdn.test/storage' } : {},
    );
    await work(config);
    const dataDir = store.env().DATA_DIR!;
    if (store.name === 'redis') {
      expect(existsSync(dataDir) ? readdirSync(dataDir) : []).toEqual([]);
      return;
    }
    const form = new FormData();
    form.append('folder', 'holes');
    form.append('file', new Blob([new Uint8Array(png())]), 'a.png');
    const up = await ENTRIES.storage!.POST(
      new Request('http://t/api/storage/upload', { method: 'POST', headers: { 'X-Admin-Password': ADMIN_PASSWORD }, body: form }),
    );
    expect(up.status).toBe(201);
    const found = modes(dataDir);
    expect(found.some((m) => m.includes('ledger.sqlite-wal '))).toBe(true);
    expect(found.some((m) => m.includes('/storage/'))).toBe(true);
    expect(found.filter((m) => !(m.includes('/ ') ? m.endsWith(' 700') : m.endsWith(' 600')))).toEqual([]);
  });

  it('tightens a data folder an operator made beforehand with a loose mode to 0700', async () => {
    await store.fresh();
    const dataDir = store.env().DATA_DIR!;
    if (store.name === 'redis') {
      // nothing embedded is kept on Redis: the folder is not the store's to touch
      expect(existsSync(dataDir)).toBe(false);
      return;
    }
    mkdirSync(dataDir, { recursive: true });
    chmodSync(dataDir, 0o755);
    await work(await store.fresh({ DATA_DIR: dataDir }));
    expect((statSync(dataDir).mode & 0o777).toString(8)).toBe('700');
    expect((statSync(join(dataDir, 'ledger.sqlite')).mode & 0o777).toString(8)).toBe('600');
  });

  it('sends nosniff on every answer, and keeps every refusal out of caches, the edge included, on every route of every entry', async () => {
    const config = await store.fresh({ RATE_LIMIT_AUTH_FAILURES: '1' });
    const ada = await newPlayer(config, 'Ada');
    const answers: [string, Response][] = [];
    const send = async (entry: string, method: string, path: string, init: RequestInit = {}) =>
      answers.push([`${method} ${path}`, await ENTRIES[entry]![method as Method](new Request(`http://t${path}`, { method, ...init }))]);
    for (const route of ROUTES) {
      const path = route.path.replace(/\{key[+*]?\}/, 'no-such-key-7');
      for (const method of route.methods) {
        await send(route.entry, method, path, { headers: { 'x-real-ip': '192.0.2.200' } });
        if (method === 'GET') await send(route.entry, 'HEAD', path, { headers: { 'x-real-ip': '192.0.2.200' } });
      }
      await send(route.entry, 'OPTIONS', path, { headers: { 'x-real-ip': '192.0.2.200' } });
      if (!route.methods.includes('PUT')) await send(route.entry, 'PUT', path, { headers: { 'x-real-ip': '192.0.2.200' } });
    }
    // a guess spending the budget of failed sign-ins, then a 429; a body too deep; a wrong type; too large
    for (let i = 0; i < 2; i++)
      await send('admin', 'POST', '/api/admin/grant-coin', {
        headers: { 'X-Admin-Password': 'wrong-0123456789abc', 'x-real-ip': '192.0.2.201' },
      });
    const own = { ...ada.auth, 'x-real-ip': '192.0.2.202' };
    await send('player', 'PATCH', '/api/island/state', {
      headers: { ...own, 'If-Match': '"1"', 'Content-Type': 'application/json' },
      body: '{"stats":' + '['.repeat(10_000),
    });
    await send('player', 'POST', '/api/characters', { headers: { ...own, 'Content-Type': 'text/plain' }, body: 'x' });
    await send('player', 'POST', '/api/characters', {
      headers: { ...own, 'Content-Type': 'application/json' },
      body: `"${'x'.repeat(70_000)}"`,
    });
    const statuses = new Set(answers.map(([, r]) => r.status));
    for (const s of [200, 204, 400, 401, 404, 405, 413, 415, 429]) expect(statuses, String(s)).toContain(s);
    const holes: string[] = [];
    for (const [what, r] of answers) {
      if (r.headers.get('x-content-type-options') !== 'nosniff') holes.push(`${what} ${r.status}: no nosniff`);
      if (r.status >= 400 && r.headers.get('cdn-cache-control') !== 'no-store')
        holes.push(`${what} ${r.status}: CDN-Cache-Control ${r.headers.get('cdn-cache-control')}`);
      if (r.status >= 400 && r.headers.get('cache-control') !== 'no-store')
        holes.push(`${what} ${r.status}: Cache-Control ${r.headers.get('cache-control')}`);
      await r.body?.cancel();
    }
    expect(holes).toEqual([]);
  });

  it('refuses a query parameter a player route does not take with 400 INVALID_QUERY, on every player route, changing nothing', async () => {
    const config = await store.fresh();
    const server = await serverAuth(config);
    const ada = await newPlayer(config, 'Ada');
    const character = await newCharacter(ada.auth);
    const item = await mintFor(server, ada.studioId, 'holes-query-mint');
    const keys: Record<string, string> = { progress: character, item, 'item-events': item };
    const answered: Record<string, string> = {};
    for (const route of ROUTES.filter((r) => r.entry === 'player')) {
      const path = route.path.replace('{key}', keys[route.name] ?? '');
      for (const method of route.methods) {
        const credentials = route.access === 'public' ? {} : route.access === 'player' ? ada.auth : server;
        const taken = ['state', 'recipes'].includes(route.name) && !(route.name === 'recipes' && method === 'POST');
        for (const query of [
          'bogus=1',
          ...(taken ? [`studioId=${ada.studioId}&studioId=${ada.studioId}`] : ['studioId=' + ada.studioId]),
        ]) {
          const sep = path.includes('?') ? '&' : '?';
          const extra =
            route.name === 'characters' && method === 'GET'
              ? 'era=warlords&'
              : taken && !query.startsWith('studioId')
                ? `studioId=${ada.studioId}&`
                : '';
          const target = `${path}${sep}${extra}${query}`;
          const headers = { ...credentials, 'If-Match': '"1"' };
          const r =
            method === 'GET' ? await call(player, 'GET', target, { headers }) : await callRaw(player, method, target, '{}', headers);
          answered[`${method} ${route.path}?${query.split('=')[0]}`] = `${r.status} ${String(r.body.code)}`;
        }
      }
    }
    expect(answered).toEqual(Object.fromEntries(Object.keys(answered).map((k) => [k, '400 INVALID_QUERY'])));
    expect((await call(player, 'GET', '/api/island/state', { headers: ada.auth })).body.revision).toBe(1);
  });
});
