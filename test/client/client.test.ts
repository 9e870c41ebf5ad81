// The typed client (client/): generated from the OpenAPI document and up to date with it, one method per
// operation, and used against the local server over the sample catalog as a game client and an operator
// would: catalog files, search, export, collections, registries, accounts, verify-send with its replay,
// the overview with the account's own token, storage, and every refusal as the problem's code.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError, GameDataClient, OPERATION_IDS, fillPath } from '../../client/src/index.js';
import { CLIENT_FILE, renderRepositoryClient } from '../../dev/client.js';
import { repositoryOpenApi } from '../../build/site.js';
import { loadServiceConfig } from '../../api/_lib/config.js';
import { mintToken } from '../../api/_lib/auth/tokens.js';
import { startServer, type RunningServer } from '../../dev/server.js';
import { REPO_ROOT, SAMPLE_OUT, SAMPLE_SRC } from '../helpers/catalog.js';
import { useCatalog } from '../helpers/service.js';
import { refusal } from '../helpers/client.js';
import { png } from '../helpers/media.js';

const ADMIN_PASSWORD = 'client-test-admin-password-01';
const SECRET = 'client-test-secret-client-test-secret-000001';
let server: RunningServer;
let dataDir: string;
let anon: GameDataClient;
let admin: GameDataClient;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'client-'));
  server = await startServer({ out: SAMPLE_OUT, port: 0, env: { DATA_DIR: dataDir, JWT_SECRET: SECRET, ADMIN_PASSWORD } });
  anon = new GameDataClient({ baseUrl: server.url });
  admin = new GameDataClient({ baseUrl: server.url, adminPassword: ADMIN_PASSWORD });
});

afterAll(async () => {
  await server?.close();
  useCatalog(undefined);
  await rm(dataDir, { recursive: true, force: true });
});

describe('generated', () => {
  it('is up to date with the OpenAPI document', async () => {
    expect(await readFile(join(REPO_ROOT, CLIENT_FILE), 'utf8')).toBe(await renderRepositoryClient());
  });

  it('has one method per operation of the document, named by its operationId', async () => {
    const doc = (await repositoryOpenApi()) as { paths: Record<string, Record<string, { operationId: string }>> };
    const ids = Object.values(doc.paths).flatMap((ops) => Object.values(ops).map((o) => o.operationId));
    expect([...OPERATION_IDS].sort()).toEqual(ids.sort());
    const methods = Object.getOwnPropertyNames(GameDataClient.prototype).filter((n) => n !== 'constructor');
    expect(methods.sort()).toEqual(ids.sort());
  });

  it('compiles on its own into the files its package.json publishes, which load as an ES module', async () => {
    const { execFile } = await import('node:child_process');
    const { promisify } = await import('node:util');
    const { pathToFileURL } = await import('node:url');
    const out = await mkdtemp(join(tmpdir(), 'client-dist-'));
    try {
      await promisify(execFile)(process.execPath, [
        join(REPO_ROOT, 'node_modules/typescript/bin/tsc'),
        '-p',
        join(REPO_ROOT, 'client/tsconfig.json'),
        '--outDir',
        out,
      ]);
      const pkg = JSON.parse(await readFile(join(REPO_ROOT, 'client/package.json'), 'utf8')) as {
        type: string;
        exports: { '.': { types: string; import: string } };
        files: string[];
      };
      expect(pkg.type).toBe('module');
      expect(pkg.files).toContain('dist');
      const built = (p: string): string => join(out, p.replace(/^\.\/dist\//, ''));
      await expect(readFile(built(pkg.exports['.'].types), 'utf8')).resolves.toContain('GameDataClient');
      const mod = (await import(pathToFileURL(built(pkg.exports['.'].import)).href)) as {
        GameDataClient: unknown;
        ApiError: unknown;
        OPERATION_IDS: readonly string[];
      };
      expect(typeof mod.GameDataClient).toBe('function');
      expect(typeof mod.ApiError).toBe('function');
      expect(mod.OPERATION_IDS).toEqual(OPERATION_IDS);
    } finally {
      await rm(out, { recursive: true, force: true });
    }
  });

  it('fills path parameters percent-encoded, keeping / only in multi-segment ones, and refuses an empty one', () => {
    expect(fillPath('/v1/relics/{key}', { key: 'a b/c' })).toBe('/v1/relics/a%20b%2Fc');
    expect(fillPath('/api/storage/{key}', { key: 'era1/a b.glb' }, ['key'])).toBe('/api/storage/era1/a%20b.glb');
    expect(() => fillPath('/v1/relics/{key}', { key: '' })).toThrow(ApiError);
  });
});

describe('catalog', () => {
  it('reads the manifest and a catalog file, searches, and exports JSON and CSV', async () => {
    const manifest = await anon.getManifest();
    expect(manifest.status).toBe(200);
    expect(manifest.body.buildId).toMatch(/^[0-9a-f]{20}$/);
    const weapons = JSON.parse(await readFile(join(SAMPLE_SRC, 'master-weapons.json'), 'utf8')) as {
      items: { uuid: string; name: string }[];
    };
    const file = await anon.getCatalogFile({ file: 'master-weapons.json' });
    expect(file.body).toEqual(weapons);
    const first = weapons.items[0]!;
    const found = await anon.search({ query: { q: first.name, type: 'weapons', limit: 5 } });
    expect(found.body.results[0]).toEqual({ type: 'weapons', id: first.uuid, name: first.name });
    const json = await anon.exportRecords({ query: { type: 'weapons' } });
    expect(typeof json.body).toBe('object');
    const csv = await anon.exportRecords({ query: { type: 'weapons', format: 'csv' } });
    expect(csv.headers.get('content-type')).toMatch(/^text\/csv/);
    expect(csv.body).toBe(await readFile(join(SAMPLE_OUT, 'api/v1/exports/full/weapons.csv'), 'utf8'));
    const report = await anon.getBuildReport();
    expect(report.body.ok).toBe(true);
  });

  it('pages a filtered collection and looks an item up by its key', async () => {
    const all = (JSON.parse(await readFile(join(SAMPLE_SRC, 'master-relics.json'), 'utf8')) as { relics: { uuid: string; tier: number }[] })
      .relics;
    const tier = all[0]!.tier;
    const page = await anon.listRelics({ query: { tier, limit: 1, offset: 0 } });
    expect(page.body.total).toBe(all.filter((r) => r.tier === tier).length);
    expect(page.body.items).toHaveLength(1);
    const one = await anon.getRelic({ key: (page.body.items[0] as { uuid: string }).uuid });
    expect(one.body).toEqual(page.body.items[0]);
    const icons = await anon.listIconCategories();
    expect(icons.body.categories.length).toBeGreaterThan(0);
  });

  it('surfaces refusals as the problem code with every offending field', async () => {
    const bad = await refusal(anon.listRelics({ query: { tier: 99 } }));
    expect(bad).toMatchObject({ status: 400, code: 'INVALID_QUERY' });
    expect(bad.errors.map((e) => e.name)).toEqual(['tier']);
    const missing = await refusal(anon.getRelic({ key: 'no-such-relic' }));
    expect(missing).toMatchObject({ status: 404, code: 'NOT_FOUND' });
    const offline = await refusal(new GameDataClient({ baseUrl: 'http://127.0.0.1:9' }).getStats());
    expect(offline).toMatchObject({ status: 0, code: 'NETWORK_ERROR' });
  });
});

describe('ledger and storage', () => {
  it('creates an account, credits it once per key, and reads the overview with its own token', async () => {
    const created = await admin.createAccount({ body: { displayName: 'Client Walker' } });
    expect(created.status).toBe(201);
    const { studioId } = created.body.account;
    const body = { studioId, amount: 40, purpose: 'verify' as const, idempotencyKey: 'client-test-credit-0001' };
    const credit = await admin.verifySendToAccount({ body });
    expect(credit.body).toMatchObject({ idempotent: false, amount: 40, balance: 40 });
    const replay = await admin.verifySendToAccount({ body });
    expect(replay.body).toMatchObject({ idempotent: true, balance: 40, entryId: credit.body.entryId });
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    const reused = await refusal(admin.verifySendToAccount({ body: { ...body, amount: 41 } }));
    expect(reused.code).toBe('IDEMPOTENCY_KEY_REUSED');

    const jwt = loadServiceConfig({ JWT_SECRET: SECRET, DATA_DIR: dataDir }).jwt;
    const player = new GameDataClient({ baseUrl: server.url, token: () => mintToken(jwt, { subject: studioId, role: 'player' }) });
    const overview = await player.getWalletOverview({ query: { limit: 10 } });
    expect(overview.body.balance).toBe(40);
    expect(overview.body.transactions).toHaveLength(1);
    // the password is never sent to a player route, and a client without credentials is refused
    expect((await refusal(admin.getWalletOverview())).code).toBe('UNAUTHORIZED');
    expect((await refusal(anon.createAccount({ body: { displayName: 'Nobody' } }))).code).toBe('UNAUTHORIZED');
  });

  it('uploads a file under a folder and deletes it by a key holding /', async () => {
    const file = new File([new Uint8Array(png())], 'note.png', { type: 'image/png' });
    const stored = await admin.uploadObject({ file, fields: { folder: 'client/test' } });
    expect(stored.status).toBe(201);
    expect(stored.body.key).toBe('client/test/note.png');
    const listed = await admin.listObjects({ query: { prefix: 'client/' } });
    expect(listed.body.items.map((i) => i.key)).toEqual(['client/test/note.png']);
    const gone = await admin.deleteObject({ key: stored.body.key });
    expect(gone.status).toBe(204);
    expect((await admin.listObjects({ query: { prefix: 'client/' } })).body.items).toEqual([]);
  });
});
