/**
 * Storage routes (spec 4.7, 5.6; `api/storage.ts`) through the entry's handlers on the `local` storage,
 * with every refusal the routes promise: no admin rights (401/403), an HTML page named `.png`, a PNG named
 * `.jpg`, a file one byte over the limit (413, nothing stored, exactly the limit stored), 51 files (413),
 * a client that goes away mid-upload (nothing stored), traversal names in keys and in an archive, a zip
 * of 20 MB of zeros, too many entries, a nested archive, a symbolic link; archives skip directories,
 * `__MACOSX/` and dot-files. Every refusal is problem+json 4xx; every success matches its schema in
 * `schemas/responses/`.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { loadServiceConfig, PROJECT_ROOT, useServiceConfig, type ServiceConfig } from '../../api/_lib/config.js';
import { mintToken } from '../../api/_lib/auth/tokens.js';
import { storage } from '../../api/_lib/storage/store.js';
import * as entry from '../../api/storage.js';
import { glb, html, mp3, patchName, png, zip } from '../helpers/media.js';

const SECRET = 'test-secret-0123456789-abcdefghijklmnop';
const PASSWORD = 'admin-password-0123456789';
const LIMIT = 64 * 1024;
let dataDir: string;
let config: ServiceConfig;

beforeAll(() => {
  dataDir = mkdtempSync(join(tmpdir(), 'storage-api-'));
});
afterAll(() => {
  useServiceConfig(undefined);
  rmSync(dataDir, { recursive: true, force: true });
});
const configEnv = () => ({
  DATA_DIR: dataDir,
  JWT_SECRET: SECRET,
  ADMIN_PASSWORD: PASSWORD,
  STORAGE_DRIVER: 'local',
  STORE_DRIVER: 'sqlite',
  STORAGE_PUBLIC_URL: 'http://cdn.test/storage',
  STORAGE_MAX_FILE_BYTES: String(LIMIT),
});
beforeEach(() => {
  config = loadServiceConfig(configEnv());
  useServiceConfig(config);
});

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;
const ajv = addFormats(new Ajv2020({ allErrors: true, strict: true }));
for (const name of [
  'storage-upload',
  'storage-upload-multi',
  'storage-upload-zip',
  'storage-list',
  'storage-presign',
  'storage-register',
  'storage-index',
]) {
  ajv.addSchema(JSON.parse(readFileSync(join(PROJECT_ROOT, 'schemas', 'responses', `${name}.schema.json`), 'utf8')) as object, name);
}

type Body = Record<string, unknown> & {
  code?: string;
  results?: { status: string; code?: string; key?: string; name: string }[];
  items?: { key: string }[];
};

const admin = { 'X-Admin-Password': PASSWORD };

/** Send `init` to the route `path` (`/api/storage/...`) and read the answer; successes are checked against `schema`. */
async function call(
  method: 'GET' | 'POST' | 'DELETE',
  path: string,
  init: { body?: BodyInit; headers?: Record<string, string> } = {},
  schema?: string,
): Promise<{ status: number; body: Body; headers: Headers }> {
  const request = new Request(`http://localhost${path}`, {
    method,
    headers: { ...admin, ...init.headers },
    ...(init.body ? { body: init.body } : {}),
  });
  const res = await entry[method](request);
  const text = await res.text();
  const body = (text ? JSON.parse(text) : {}) as Body;
  if (res.status >= 400) expect(res.headers.get('content-type'), `${method} ${path}`).toContain('application/problem+json');
  if (schema && res.status < 300) {
    const validate = ajv.getSchema(schema)!;
    expect(validate(body) ? [] : validate.errors, `${path} against ${schema}`).toEqual([]);
  }
  return { status: res.status, body, headers: res.headers };
}

function form(files: readonly [string, Buffer, string?][], fields: Record<string, string> = {}, field = 'file'): FormData {
  const f = new FormData();
  for (const [k, v] of Object.entries(fields)) f.append(k, v);
  for (const [name, bytes, type] of files)
    f.append(field, new Blob([new Uint8Array(bytes)], { type: type ?? 'application/octet-stream' }), name);
  return f;
}

const keysUnder = async (prefix: string) =>
  (await (await storage()).list({ prefix, startAfter: undefined, limit: 1000 })).items.map((i) => i.key);
const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

describe('POST /api/storage/upload', () => {
  it('stores one file under its folder and answers key, url, size, sniffed type, etag and sha256', async () => {
    const bytes = png(4, 4);
    const r = await call(
      'POST',
      '/api/storage/upload',
      { body: form([['anvil.png', bytes, 'text/plain']], { folder: '/era1/icons/' }) },
      'storage-upload',
    );
    expect(r.status).toBe(201);
    expect(r.body).toEqual({
      key: 'era1/icons/anvil.png',
      url: 'http://cdn.test/storage/era1/icons/anvil.png',
      size: bytes.length,
      contentType: 'image/png',
      etag: `"${createHash('md5').update(bytes).digest('hex')}"`,
      sha256: sha(bytes),
    });
    expect(r.headers.get('location')).toBe('http://cdn.test/storage/era1/icons/anvil.png');
    const got = await (await storage()).get('era1/icons/anvil.png');
    const chunks: Buffer[] = [];
    for await (const c of got!.body as AsyncIterable<Buffer>) chunks.push(c);
    expect(Buffer.concat(chunks).equals(bytes)).toBe(true);
  });

  it('refuses an HTML page named .png and a PNG named .jpg with 415, storing nothing', async () => {
    const page = await call('POST', '/api/storage/upload', { body: form([['evil.png', html(), 'image/png']], { folder: 'refused' }) });
    expect(page.status).toBe(415);
    expect(page.body.code).toBe('UNSUPPORTED_MEDIA_TYPE');
    expect(JSON.stringify(page.body.errors)).toContain('UNKNOWN_TYPE');
    const mislabelled = await call('POST', '/api/storage/upload', { body: form([['photo.jpg', png()]], { folder: 'refused' }) });
    expect(mislabelled.status).toBe(415);
    expect(JSON.stringify(mislabelled.body.errors)).toContain('EXTENSION_MISMATCH');
    const archive = await call('POST', '/api/storage/upload', {
      body: form([['pack.png', await zip([{ name: 'a.png', data: png() }])]], { folder: 'refused' }),
    });
    expect(archive.status).toBe(415);
    expect(JSON.stringify(archive.body.errors)).toContain('TYPE_NOT_ALLOWED');
    expect(await keysUnder('refused/')).toEqual([]);
  });

  it('takes a file of exactly the limit and refuses one byte more with 413, storing nothing', async () => {
    const exact = await call('POST', '/api/storage/upload', { body: form([['big.glb', glb(LIMIT)]], { folder: 'limit' }) });
    expect(exact.status).toBe(201);
    expect(exact.body.size).toBe(LIMIT);
    const over = await call('POST', '/api/storage/upload', { body: form([['bigger.glb', glb(LIMIT + 1)]], { folder: 'limit' }) });
    expect(over.status).toBe(413);
    expect(over.body.code).toBe('PAYLOAD_TOO_LARGE');
    expect(await keysUnder('limit/')).toEqual(['limit/big.glb']);
  });

  it('refuses keys that leave their folder or break the key rules, and unknown fields', async () => {
    for (const folder of ['../etc', 'a/../../b', 'a\\b', 'a//b', 'a/./b', 'x\u0001y']) {
      const r = await call('POST', '/api/storage/upload', { body: form([['ok.png', png()]], { folder }) });
      expect(r.status, folder).toBe(400);
      expect(r.body.code, folder).toBe('INVALID_BODY');
    }
    const unknown = await call('POST', '/api/storage/upload', { body: form([['ok.png', png()]], { folder: 'a', colour: 'red' }) });
    expect(unknown.status).toBe(400);
    const none = await call('POST', '/api/storage/upload', { body: form([], { folder: 'a' }) });
    expect(none.status).toBe(400);
    const twoFiles = await call('POST', '/api/storage/upload', {
      body: form([
        ['a.png', png()],
        ['b.png', png()],
      ]),
    });
    expect(twoFiles.status).toBe(413);
    const wrongField = await call('POST', '/api/storage/upload', { body: form([['a.png', png()]], {}, 'upload') });
    expect(wrongField.status).toBe(400);
    const notMultipart = await call('POST', '/api/storage/upload', {
      body: JSON.stringify({ a: 1 }),
      headers: { 'Content-Type': 'application/json' },
    });
    expect(notMultipart.status).toBe(415);
    expect(await keysUnder('')).not.toContainEqual(expect.stringContaining('ok.png'));
  });

  it('stores nothing when the client goes away in the middle of the file', async () => {
    const boundary = 'xBOUNDARYx';
    const head = Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="folder"\r\n\r\ncut\r\n--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="half.png"\r\nContent-Type: image/png\r\n\r\n`,
    );
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(head);
        controller.enqueue(png(64, 64).subarray(0, 200));
        setTimeout(() => controller.error(new Error('connection reset')), 20);
      },
    });
    const request = new Request('http://localhost/api/storage/upload', {
      method: 'POST',
      headers: { ...admin, 'Content-Type': `multipart/form-data; boundary=${boundary}` },
      body,
      duplex: 'half',
    } as RequestInit);
    const res = await entry.POST(request);
    expect(res.status).toBe(400);
    expect(await keysUnder('cut/')).toEqual([]);
  });

  it('answers a malformed multipart body with 400, never a 5xx', async () => {
    const raw = (body: string, type = 'multipart/form-data; boundary=zz') =>
      entry.POST(new Request('http://localhost/api/storage/upload', { method: 'POST', headers: { ...admin, 'Content-Type': type }, body }));
    const cases: [string, string?][] = [
      ['garbage without any boundary'],
      ['--zz\r\nContent-Disposition: form-data; name="file"; filename="a.png"\r\n\r\n\x89PNG'],
      ['--zz\r\nno headers end here'],
      ['--zz--\r\n'],
      ['', 'multipart/form-data; boundary=zz'],
      ['--zz\r\n', 'multipart/form-data'],
    ];
    for (const [body, type] of cases) {
      const res = await raw(body, type);
      expect(res.status, JSON.stringify(body)).toBeGreaterThanOrEqual(400);
      expect(res.status, JSON.stringify(body)).toBeLessThan(500);
      expect(res.headers.get('content-type')).toContain('application/problem+json');
    }
    expect(await keysUnder('')).not.toContainEqual('a.png');
  });

  it('admits admins only, before reading the body', async () => {
    const anon = new Request('http://localhost/api/storage/upload', { method: 'POST', body: form([['a.png', png()]], { folder: 'anon' }) });
    expect((await entry.POST(anon)).status).toBe(401);
    const player = await mintToken(config.jwt, { subject: 'STUDIO_PLAYER', role: 'player' });
    const asPlayer = new Request('http://localhost/api/storage/upload', {
      method: 'POST',
      headers: { Authorization: `Bearer ${player}` },
      body: form([['a.png', png()]], { folder: 'anon' }),
    });
    expect((await entry.POST(asPlayer)).status).toBe(403);
    const wrong = new Request('http://localhost/api/storage/upload', {
      method: 'POST',
      headers: { 'X-Admin-Password': 'not-the-password-at-all' },
      body: form([['a.png', png()]], { folder: 'anon' }),
    });
    expect((await entry.POST(wrong)).status).toBe(401);
    const master = await mintToken(config.jwt, { subject: 'STUDIO_MASTER', role: 'master' });
    const asMaster = new Request('http://localhost/api/storage/upload', {
      method: 'POST',
      headers: { Authorization: `Bearer ${master}` },
      body: form([['a.png', png()]], { folder: 'anon' }),
    });
    expect((await entry.POST(asMaster)).status).toBe(201);
    expect(await keysUnder('anon/')).toEqual(['anon/a.png']);
  });
});

describe('POST /api/storage/upload-multi', () => {
  it('stores each acceptable file and refuses the rest, one result per file in order', async () => {
    const files: [string, Buffer][] = [
      ['one.png', png(2, 2, 1)],
      ['evil.png', html()],
      ['song.mp3', mp3()],
      ['one.png', png(2, 2, 2)],
      ['model.glb', glb()],
    ];
    const r = await call('POST', '/api/storage/upload-multi', { body: form(files, { folder: 'multi' }, 'files') }, 'storage-upload-multi');
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ stored: 3, refused: 2 });
    expect(r.body.results!.map((x) => [x.name, x.status, x.code ?? null])).toEqual([
      ['one.png', 'stored', null],
      ['evil.png', 'refused', 'UNKNOWN_TYPE'],
      ['song.mp3', 'stored', null],
      ['one.png', 'refused', 'DUPLICATE_KEY'],
      ['model.glb', 'stored', null],
    ]);
    expect(await keysUnder('multi/')).toEqual(['multi/model.glb', 'multi/one.png', 'multi/song.mp3']);
  });

  it('takes 50 files and refuses 51 with 413, storing none of them', async () => {
    const fifty = Array.from({ length: 50 }, (_, i): [string, Buffer] => [`f${i}.png`, png(1, 1, i)]);
    const ok = await call('POST', '/api/storage/upload-multi', { body: form(fifty, { folder: 'fifty' }, 'files') });
    expect(ok.body.stored).toBe(50);
    const fiftyOne = Array.from({ length: 51 }, (_, i): [string, Buffer] => [`f${i}.png`, png(1, 1, i)]);
    const over = await call('POST', '/api/storage/upload-multi', { body: form(fiftyOne, { folder: 'fifty-one' }, 'files') });
    expect(over.status).toBe(413);
    expect(await keysUnder('fifty-one/')).toEqual([]);
  });
});

describe('POST /api/storage/upload-zip', () => {
  const send = async (archive: Buffer, folder = 'zips') =>
    call('POST', '/api/storage/upload-zip', { body: form([['pack.zip', archive, 'application/zip']], { folder }) }, 'storage-upload-zip');

  it('stores entries under the folder, keeping their paths, and skips directories, __MACOSX and dot-files', async () => {
    const archive = await zip([
      { name: 'models/', data: Buffer.alloc(0) },
      { name: 'models/anvil.glb', data: glb(4096) },
      { name: 'icons/anvil.png', data: png() },
      { name: 'readme.png', data: html() },
      { name: '__MACOSX/icons/._anvil.png', data: Buffer.from('x') },
      { name: '.DS_Store', data: Buffer.from('x') },
      { name: 'icons/.hidden/x.png', data: png() },
    ]);
    const r = await send(archive, 'era2');
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ folder: 'era2', stored: 2, refused: 1, skipped: { directories: 1, macos: 1, dotfiles: 2 } });
    expect(r.body.results!.map((x) => [x.name, x.status, x.key])).toEqual([
      ['models/anvil.glb', 'stored', 'era2/models/anvil.glb'],
      ['icons/anvil.png', 'stored', 'era2/icons/anvil.png'],
      ['readme.png', 'refused', 'era2/readme.png'],
    ]);
    expect(await keysUnder('era2/')).toEqual(['era2/icons/anvil.png', 'era2/models/anvil.glb']);
  });

  it('refuses the whole archive, storing nothing, for a traversal name, a link, a bomb, too many entries or a nested archive', async () => {
    const traversal = patchName(
      await zip([
        { name: 'ok.png', data: png() },
        { name: 'aa/x.png', data: png() },
      ]),
      'aa/x.png',
      '../x.png',
    );
    const link = await zip([
      { name: 'ok.png', data: png() },
      { name: 'link.png', data: Buffer.from('/etc/passwd'), mode: 0o120777 },
    ]);
    const bomb = await zip([
      { name: 'ok.png', data: png() },
      { name: 'zeros.png', data: Buffer.alloc(20 * 1024 * 1024) },
    ]);
    const many = await zip(Array.from({ length: 1001 }, (_, i) => ({ name: `f${i}.png`, data: Buffer.from('x'), compress: false })));
    const nested = await zip([
      { name: 'ok.png', data: png() },
      { name: 'inner.png', data: await zip([{ name: 'a.png', data: png() }]), compress: false },
    ]);
    const absolute = patchName(await zip([{ name: 'xetc/a.png', data: png() }]), 'xetc/a.png', '/etc/a.png');
    for (const [what, archive] of Object.entries({ traversal, link, bomb, many, nested, absolute })) {
      // the archive of 1,001 entries is itself larger than this suite's file limit: raise it for that one
      if (what === 'many') useServiceConfig(loadServiceConfig({ ...configEnv(), STORAGE_MAX_FILE_BYTES: String(1024 * 1024) }));
      const r = await send(archive, `bad-${what}`);
      expect(r.status, what).toBe(400);
      expect(r.body.code, what).toBe('INVALID_BODY');
      expect(await keysUnder(`bad-${what}/`), what).toEqual([]);
    }
    expect(await keysUnder('')).not.toContainEqual(expect.stringMatching(/(^|\/)x\.png$/));
  }, 60_000);

  it('needs a folder and a readable archive', async () => {
    const r = await call('POST', '/api/storage/upload-zip', { body: form([['pack.zip', await zip([{ name: 'a.png', data: png() }])]]) });
    expect(r.status).toBe(400);
    const junk = await send(Buffer.from('not a zip at all'));
    expect(junk.status).toBe(400);
  });
});

describe('GET /api/storage/list and DELETE /api/storage/{key}', () => {
  it('pages in key order with an opaque cursor, and deletes idempotently', async () => {
    // a file name's folders are dropped (the form's folder field places files); sub/z.png comes on its own
    const names = ['b.png', 'a.png', 'c d.png', 'é.png'];
    await call('POST', '/api/storage/upload-multi', {
      body: form(
        names.map((n, i): [string, Buffer] => [n, png(1, 1, 100 + i)]),
        { folder: 'listing' },
        'files',
      ),
    });
    await call('POST', '/api/storage/upload', { body: form([['z.png', png(1, 1, 7)]], { folder: 'listing/sub' }) });
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const q: string = `prefix=listing/&limit=2${cursor ? `&cursor=${cursor}` : ''}`;
      const page = await call('GET', `/api/storage/list?${q}`, {}, 'storage-list');
      expect(page.status).toBe(200);
      expect(page.headers.get('cache-control')).toBe('no-store');
      seen.push(...page.body.items!.map((i) => i.key));
      cursor = page.body.cursor as string | null;
      expect(page.body.hasMore).toBe(cursor !== null);
    } while (cursor);
    expect(seen).toEqual(['listing/a.png', 'listing/b.png', 'listing/c d.png', 'listing/sub/z.png', 'listing/é.png']);
    const clamped = await call('GET', '/api/storage/list?limit=5000');
    expect(clamped.headers.get('x-limit-applied')).toBe('1000');
    expect((await call('GET', '/api/storage/list?cursor=%2F%2F')).status).toBe(400);
    expect((await call('GET', '/api/storage/list?limit=0')).status).toBe(400);

    const gone = await call('DELETE', '/api/storage/listing/c%20d.png');
    expect(gone.status).toBe(204);
    expect((await call('DELETE', '/api/storage/listing/c%20d.png')).status).toBe(204);
    expect(await keysUnder('listing/')).not.toContain('listing/c d.png');
    // (a URL's "%2E%2E" segment is folded away by URL parsing before any route sees it)
    expect((await call('DELETE', '/api/storage/listing/a%5Cb.png')).status).toBe(400);
    expect((await call('DELETE', '/api/storage/listing%2F%2Fa.png')).status).toBe(400);
    expect((await call('DELETE', '/api/storage/listing/%01.png')).status).toBe(400);
    const anon = await entry.DELETE(new Request('http://localhost/api/storage/listing/a.png', { method: 'DELETE' }));
    expect(anon.status).toBe(401);
    expect(await keysUnder('listing/')).toContain('listing/a.png');
  });
});

describe('POST /api/storage/presign on the local storage', () => {
  it('checks the key and type, then says presigned uploads need the s3 storage', async () => {
    const json = (b: unknown) => ({ body: JSON.stringify(b), headers: { 'Content-Type': 'application/json' } });
    expect(
      (await call('POST', '/api/storage/presign', json({ key: 'big/movie.mp4', contentType: 'video/mp4', size: 10_000_000 }))).status,
    ).toBe(409);
    expect((await call('POST', '/api/storage/presign', json({ key: '../movie.mp4', contentType: 'video/mp4', size: 1 }))).status).toBe(400);
    expect((await call('POST', '/api/storage/presign', json({ key: 'big/movie.mp4', contentType: 'text/html', size: 1 }))).status).toBe(
      415,
    );
    expect((await call('POST', '/api/storage/presign', json({ key: 'big/page.html', contentType: 'text/html', size: 1 }))).status).toBe(
      415,
    );
    expect((await call('POST', '/api/storage/presign', json({ key: 'big/movie.mp4', contentType: 'video/mp4', size: 0 }))).status).toBe(
      400,
    );
  });
});

describe('POST /api/storage/register and GET /api/storage/index', () => {
  const json = (b: unknown) => ({ body: JSON.stringify(b), headers: { 'Content-Type': 'application/json' } });

  it('registers stored binaries with what the storage reports, refuses keys with no object, and pages the index', async () => {
    await call('POST', '/api/storage/upload-multi', {
      body: form(
        [
          ['anvil.glb', glb(300)],
          ['anvil.png', png()],
        ],
        { folder: 'reg' },
        'files',
      ),
    });
    const r = await call(
      'POST',
      '/api/storage/register',
      json({
        entries: [
          { key: 'reg/anvil.glb', purpose: 'play' },
          { key: 'reg/ghost.glb', purpose: 'play' },
          { key: 'reg/anvil.png', purpose: 'author' },
          { key: '../x.glb', purpose: 'play' },
        ],
      }),
      'storage-register',
    );
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ registered: 2, refused: 2 });
    expect(r.body.results!.map((x) => [x.key, x.status, x.code ?? null])).toEqual([
      ['reg/anvil.glb', 'created', null],
      ['reg/ghost.glb', 'refused', 'NOT_STORED'],
      ['reg/anvil.png', 'created', null],
      ['../x.glb', 'refused', 'INVALID_KEY'],
    ]);
    expect(r.body.results![0]).toMatchObject({ contentType: 'model/gltf-binary', size: 300, purpose: 'play' });
    const again = await call(
      'POST',
      '/api/storage/register',
      json({ entries: [{ key: 'reg/anvil.glb', purpose: 'isolate' }] }),
      'storage-register',
    );
    expect(again.body.results![0]).toMatchObject({ status: 'updated', purpose: 'isolate' });

    const page1 = await call('GET', '/api/storage/index?prefix=reg/&limit=1', {}, 'storage-index');
    expect(page1.body.items!.map((i) => i.key)).toEqual(['reg/anvil.glb']);
    expect(page1.body.hasMore).toBe(true);
    const page2 = await call('GET', `/api/storage/index?prefix=reg/&limit=1&cursor=${page1.body.cursor as string}`, {}, 'storage-index');
    expect(page2.body).toMatchObject({ items: [{ key: 'reg/anvil.png', purpose: 'author' }], cursor: null, hasMore: false });
    // deleting a binary unregisters it
    expect((await call('DELETE', '/api/storage/reg/anvil.png')).status).toBe(204);
    expect((await call('GET', '/api/storage/index?prefix=reg/')).body.items!.map((i) => i.key)).toEqual(['reg/anvil.glb']);
  });

  it('refuses a batch over 100, an empty one, a repeated key and an unknown purpose, registering nothing', async () => {
    const many = Array.from({ length: 101 }, (_, i) => ({ key: `reg2/${i}.glb`, purpose: 'play' }));
    for (const body of [
      { entries: many },
      { entries: [] },
      {
        entries: [
          { key: 'reg2/a.glb', purpose: 'play' },
          { key: 'reg2/a.glb', purpose: 'author' },
        ],
      },
      { entries: [{ key: 'reg2/a.glb', purpose: 'sell' }] },
    ]) {
      const r = await call('POST', '/api/storage/register', json(body));
      expect(r.status).toBe(400);
      expect(r.body.code).toBe('INVALID_BODY');
    }
    expect((await call('GET', '/api/storage/index?prefix=reg2/')).body.items).toEqual([]);
    const anon = await entry.GET(new Request('http://localhost/api/storage/index'));
    expect(anon.status).toBe(401);
  });
});
