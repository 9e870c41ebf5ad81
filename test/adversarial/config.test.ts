/**
 * Production configuration fails loudly (spec 1.7, 1.8: the ledger and player state have one owner;
 * `api/_lib/config.ts` rule 1 and docs/deploy.md; docs/architecture.md "Configuration";
 * `api/_lib/config.ts`), attacked as a careless operator would deploy: a Vercel environment that names the
 * embedded SQLite store explicitly, or names no driver at all but carries the local tools' `LOCAL_RUNTIME`
 * marker copied from a development `.env`. Every route of every stateful entry (the route table walked
 * whole, with credentials and bodies it would take) answers 503 problem+json naming nothing internal,
 * nothing is written to the data folder, the operator's log says what to set once, and the public island
 * contract keeps answering. With the store named properly only storage stays off.
 */
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { loadServiceConfig, useEnvironment, useServiceConfig } from '../../api/_lib/config.js';
import type { EntryExports } from '../../api/_lib/http/entry.js';
import { mintToken } from '../../api/_lib/auth/tokens.js';
import { ROUTES, type Method } from '../../api/_lib/routing/table.js';
import * as storageEntry from '../../api/storage.js';
import { SAMPLE_OUT } from '../helpers/catalog.js';
import { SECRET } from '../helpers/game-api.js';
import { captureLog } from '../helpers/log.js';
import { png, zip } from '../helpers/media.js';
import { ADMIN_PASSWORD, admin, call, HERO, ITEM_DEFINITION, MATERIAL, onEachStore, player, wallet } from './helpers.js';

const storage = storageEntry as unknown as EntryExports;
const log = captureLog();
afterAll(() => useServiceConfig(undefined));

const STUDIO = 'STUDIO_7QF3K2M9X4D1H8TB';
const UUID = '7d6a3c58-0b8e-4c1f-9a41-7f0e5d2b9c10';
const password = { 'X-Admin-Password': ADMIN_PASSWORD };
const CRON_SECRET = 'cron-Q7v2Lk9pX4mZ8rT1';

/** A multipart body holding `files` in `field`, and `fields`. */
function form(field: string, files: [string, Buffer][], fields: Record<string, string> = {}): FormData {
  const f = new FormData();
  for (const [k, v] of Object.entries(fields)) f.append(k, v);
  for (const [name, bytes] of files) f.append(field, new Blob([new Uint8Array(bytes)]), name);
  return f;
}

/** What each stateful route is sent: entry, path, who, and a body it would take. */
type Send = (player: Record<string, string>) => Promise<{ status: number; body: Record<string, unknown> }>;
const raw = (entry: EntryExports, method: Method, path: string, headers: Record<string, string>, body?: BodyInit) =>
  entry[method](new Request(`http://t${path}`, { method, headers, ...(body ? { body } : {}) })).then(async (r) => ({
    status: r.status,
    body: (await r.json()) as Record<string, unknown>,
  }));

const SENDS: Record<string, Send> = {
  'wallet/verify-send POST': () =>
    call(wallet, 'POST', '/api/wallet/verify-send-to-account', {
      body: { studioId: STUDIO, amount: 1, purpose: 'test', idempotencyKey: 'config-send-01' },
      headers: password,
    }),
  'wallet/overview GET': (p) => call(wallet, 'GET', '/api/wallet/overview', { headers: p }),
  'admin/accounts POST': () => call(admin, 'POST', '/api/admin/accounts', { body: { displayName: 'Ada' }, headers: password }),
  'admin/account GET': () => call(admin, 'GET', `/api/admin/accounts/${STUDIO}`, { headers: password }),
  'admin/players GET': () => call(admin, 'GET', '/api/admin/players?q=ada', { headers: password }),
  'admin/player GET': () => call(admin, 'GET', `/api/admin/players/${STUDIO}`, { headers: password }),
  'admin/player-wallet GET': () => call(admin, 'GET', `/api/admin/players/${STUDIO}/wallet`, { headers: password }),
  'admin/audit GET': () => call(admin, 'GET', '/api/admin/audit', { headers: password }),
  'admin/player-bag GET': () => call(admin, 'GET', `/api/admin/players/${STUDIO}/bag`, { headers: password }),
  'admin/player-items GET': () => call(admin, 'GET', `/api/admin/players/${STUDIO}/items`, { headers: password }),
  'admin/item-history GET': () => call(admin, 'GET', `/api/admin/items/${UUID}/events`, { headers: password }),
  'admin/bag-reversals POST': () =>
    call(admin, 'POST', '/api/admin/bag-reversals', {
      body: { studioId: STUDIO, sourceRef: 'bag-grant:config-grant-2', reason: 'r', idempotencyKey: 'config-bag-rev-1' },
      headers: password,
    }),
  'admin/item-void POST': () =>
    call(admin, 'POST', `/api/admin/items/${UUID}/void`, { body: { reason: 'r', idempotencyKey: 'config-void-01' }, headers: password }),
  'admin/player-island GET': () => call(admin, 'GET', `/api/admin/players/${STUDIO}/island`, { headers: password }),
  'admin/player-characters GET': () => call(admin, 'GET', `/api/admin/players/${STUDIO}/characters`, { headers: password }),
  'admin/session POST': () => call(admin, 'POST', '/api/admin/session', { headers: password }),
  'admin/grant-coin POST': () =>
    call(admin, 'POST', '/api/admin/grant-coin', {
      body: { studioId: STUDIO, amount: 1, reason: 'r', idempotencyKey: 'config-grant-1' },
      headers: password,
    }),
  'admin/revoke-sessions POST': () =>
    call(admin, 'POST', `/api/admin/players/${STUDIO}/revoke-sessions`, {
      body: { reason: 'r', idempotencyKey: 'config-revoke-1' },
      headers: password,
    }),
  'admin/ban POST': () =>
    call(admin, 'POST', `/api/admin/players/${STUDIO}/ban`, { body: { reason: 'r', idempotencyKey: 'config-ban-01' }, headers: password }),
  'admin/unban POST': () =>
    call(admin, 'POST', `/api/admin/players/${STUDIO}/unban`, {
      body: { reason: 'r', idempotencyKey: 'config-unban-1' },
      headers: password,
    }),
  'admin/erase POST': () =>
    call(admin, 'POST', `/api/admin/players/${STUDIO}/erase`, {
      body: { reason: 'r', idempotencyKey: 'config-erase-1' },
      headers: password,
    }),
  'admin/player-export GET': () => call(admin, 'GET', `/api/admin/players/${STUDIO}/export`, { headers: password }),
  'player/account-export GET': (p) => call(player, 'GET', '/api/account/export', { headers: p }),
  'admin/reversals POST': () =>
    call(admin, 'POST', '/api/admin/reversals', {
      body: { entryId: '9b2f4c1e-3d5a-4e7b-8c9d-0a1b2c3d4e5f', reason: 'r', idempotencyKey: 'config-reverse-1' },
      headers: password,
    }),
  'admin/ledger-verify GET': () => call(admin, 'GET', '/api/admin/ledger/verify', { headers: { Authorization: `Bearer ${CRON_SECRET}` } }),
  'admin/ledger-verify POST': () => call(admin, 'POST', '/api/admin/ledger/verify', { headers: password }),
  'admin/ledger-health GET': () => call(admin, 'GET', '/api/admin/ledger/health', { headers: password }),
  'player/logout POST': (p) => call(player, 'POST', '/api/auth/logout', { headers: p }),
  'storage/upload POST': () => raw(storage, 'POST', '/api/storage/upload', password, form('file', [['a.png', png()]], { folder: 'cfg' })),
  'storage/upload-multi POST': () => raw(storage, 'POST', '/api/storage/upload-multi', password, form('files', [['a.png', png()]])),
  'storage/upload-zip POST': async () =>
    raw(
      storage,
      'POST',
      '/api/storage/upload-zip',
      password,
      form('file', [['p.zip', await zip([{ name: 'a.png', data: png() }])]], { folder: 'cfg' }),
    ),
  'storage/presign POST': () =>
    raw(
      storage,
      'POST',
      '/api/storage/presign',
      { ...password, 'Content-Type': 'application/json' },
      JSON.stringify({ key: 'cfg/a.png', contentType: 'image/png', size: 10 }),
    ),
  'storage/list GET': () => raw(storage, 'GET', '/api/storage/list', password),
  'storage/register POST': () =>
    raw(
      storage,
      'POST',
      '/api/storage/register',
      { ...password, 'Content-Type': 'application/json' },
      JSON.stringify({ entries: [{ key: 'cfg/a.png', purpose: 'play' }] }),
    ),
  'storage/index GET': () => raw(storage, 'GET', '/api/storage/index', password),
  'storage/object DELETE': () => raw(storage, 'DELETE', '/api/storage/cfg/a.png', password),
  'player/state GET': () => call(player, 'GET', `/api/island/state?studioId=${STUDIO}`, { headers: password }),
  'player/state PATCH': () =>
    call(player, 'PATCH', `/api/island/state?studioId=${STUDIO}`, {
      body: { stats: { visits: 1 } },
      headers: { ...password, 'If-Match': '"1"' },
    }),
  'player/export-from-rts POST': (p) =>
    call(player, 'POST', '/api/island/export-from-rts', {
      body: { gridX: 0, gridZ: 0, seed: 1, biome: 'beach' },
      headers: { ...p, 'If-Match': '"1"' },
    }),
  'player/characters GET': (p) => call(player, 'GET', '/api/characters?era=warlords', { headers: p }),
  'player/characters POST': (p) => call(player, 'POST', '/api/characters', { body: HERO, headers: p }),
  'player/progress GET': () => call(player, 'GET', `/api/characters/${UUID}/progress`, { headers: password }),
  'player/progress PATCH': () =>
    call(player, 'PATCH', `/api/characters/${UUID}/progress`, {
      body: { idempotencyKey: 'config-prog-01', progress: { attributes: { STR: 1 } } },
      headers: { ...password, 'If-Match': '"1"' },
    }),
  'player/external POST': () =>
    call(player, 'POST', '/api/auth/external', { body: { token: 'eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJ4In0.c2ln' } }),
  'player/external-link POST': (p) =>
    call(player, 'POST', '/api/auth/external-link', { body: { token: 'eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJ4In0.c2ln' }, headers: p }),
  'player/uuid POST': () =>
    call(player, 'POST', '/api/uuid', {
      body: { definitionId: ITEM_DEFINITION, studioId: STUDIO, idempotencyKey: 'config-mint-01' },
      headers: password,
    }),
  'player/item GET': () => call(player, 'GET', `/api/ledger/${UUID}`, { headers: password }),
  'player/item-events POST': () =>
    call(player, 'POST', `/api/ledger/${UUID}/events`, {
      body: { event: 'consumed', idempotencyKey: 'config-event-1' },
      headers: password,
    }),
  'player/inventory GET': (p) => call(player, 'GET', '/api/inventory', { headers: p }),
  'player/inventory-grant POST': () =>
    call(player, 'POST', '/api/inventory/grant', {
      body: { studioId: STUDIO, definitionId: MATERIAL, quantity: 1, idempotencyKey: 'config-grant-2' },
      headers: password,
    }),
  'player/inventory-consume POST': () =>
    call(player, 'POST', '/api/inventory/consume', {
      body: { studioId: STUDIO, definitionId: MATERIAL, quantity: 1, idempotencyKey: 'config-take-01' },
      headers: password,
    }),
  'player/recipes GET': () => call(player, 'GET', `/api/account/recipes?studioId=${STUDIO}`, { headers: password }),
  'player/recipes POST': () =>
    call(player, 'POST', '/api/account/recipes', {
      body: { studioId: STUDIO, recipeId: 'RECP-20260601100000-000123-64A3D698' },
      headers: password,
    }),
};

/** Every route and method of the stateful entries but the public island contract. */
const STATEFUL = ROUTES.filter((r) => ['wallet', 'admin', 'storage', 'player'].includes(r.entry) && r.name !== 'spec').flatMap((r) =>
  r.methods.map((m) => `${r.entry}/${r.name} ${m}`),
);

it('has a request for every route and method of the stateful entries', () => {
  expect(Object.keys(SENDS).sort()).toEqual([...STATEFUL].sort());
});

/** Send every stateful route under the environment in force; the answers by route. */
async function sendAll(): Promise<Record<string, string>> {
  const token = await mintToken(loadServiceConfig({ JWT_SECRET: SECRET }).jwt, { subject: STUDIO, role: 'player' });
  const out: Record<string, string> = {};
  for (const [name, send] of Object.entries(SENDS)) {
    const r = await send({ Authorization: `Bearer ${token}` });
    out[name] = `${r.status} ${String(r.body.code)}`;
    if (r.status === 503)
      expect(String(r.body.detail), name).not.toMatch(/[A-Z]{2,}_[A-Z_]+|sqlite|redis|DATA_DIR|LOCAL_RUNTIME|try again/i);
  }
  return out;
}

/** The files in `dir` (none when it was never made). */
const filesIn = (dir: string) => (existsSync(dir) ? readdirSync(dir) : []);

/**
 * Every stateful route answering 503; the operator session as `session` says: it keeps no state (it signs a
 * token with the secret), so it answers while the configuration stands, whatever the stores.
 */
const unavailable = (session = '503 UPSTREAM_UNAVAILABLE') =>
  Object.fromEntries(STATEFUL.map((k) => [k, k === 'admin/session POST' ? session : '503 UPSTREAM_UNAVAILABLE']));

onEachStore('a careless production configuration', (store) => {
  const dirs: string[] = [];
  afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));
  const base = () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'adv-config-'));
    dirs.push(dataDir);
    return { CATALOG_DIR: SAMPLE_OUT, JWT_SECRET: SECRET, ADMIN_PASSWORD, CRON_SECRET, DATA_DIR: dataDir, VERCEL: '1' };
  };

  it('answers 503 on every stateful route on Vercel when no driver is named, the local marker copied along or not; nothing is written', async () => {
    await store.fresh();
    for (const extra of [{ LOCAL_RUNTIME: '1' }, {}, { LOCAL_RUNTIME: '1', VERCEL_ENV: 'production', NODE_ENV: 'production' }]) {
      const env = { ...base(), ...extra };
      log.lines.length = 0;
      useEnvironment(env);
      expect(await sendAll(), JSON.stringify(extra)).toEqual(unavailable('200 undefined'));
      expect(filesIn(env.DATA_DIR), JSON.stringify(extra)).toEqual([]);
      const problems = log.events('configuration').flatMap((l) => l.problems as string[]);
      expect(problems.map((p) => p.split(' ')[0])).toEqual(['STORE_DRIVER', 'STORAGE_DRIVER']);
      expect((await call(player, 'GET', '/api/island/spec')).status).toBe(200);
    }
  });

  it(`answers 503 on every stateful route on Vercel when ${store.name === 'sqlite' ? 'the embedded store is named' : 'the store is named but storage is not'}`, async () => {
    await store.fresh();
    const env = { ...base(), ...store.env(), VERCEL: '1', LOCAL_RUNTIME: '1' };
    log.lines.length = 0;
    useEnvironment(env);
    const answers = await sendAll();
    if (store.name === 'sqlite') {
      expect(answers).toEqual(unavailable());
      expect(filesIn(env.DATA_DIR)).toEqual([]);
      const [line, ...again] = log.events('configuration');
      expect(again).toEqual([]);
      expect((line!.problems as string[]).map((p) => p.split(' ')[0])).toContain('STORE_DRIVER');
    } else {
      // the store answers; storage, which has no driver on Vercel, does not
      expect(answers['admin/accounts POST']).toBe('201 undefined');
      for (const [name, answer] of Object.entries(answers).filter(([n]) => n.startsWith('storage/') && n !== 'storage/index GET'))
        expect(answer, name).toBe('503 UPSTREAM_UNAVAILABLE');
      expect(
        log
          .events('configuration')
          .flatMap((l) => l.problems as string[])
          .map((p) => p.split(' ')[0]),
      ).toEqual(['STORAGE_DRIVER']);
    }
  });
});
