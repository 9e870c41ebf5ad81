/**
 * The authoring CLI (`dev/assets.ts`, spec 4.9) against the local server (`dev/server.ts`, `local`
 * storage, SQLite index) and a local HTTP server that stands in for the CDN: a file the CDN serves is
 * registered and its key printed for `modelRef`; one the CDN answers with an HTML page and one it answers
 * 404 are named on stderr and not registered; a file storage refuses is named too; `export` writes the
 * index for the catalog build; `register` batches over 100 keys.
 */
import { createServer, type Server } from 'node:http';
import { mkdtemp, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useServiceConfig } from '../../api/_lib/config.js';
import { main } from '../../dev/assets.js';
import { startServer, type RunningServer } from '../../dev/server.js';
import { glb, html, png } from '../helpers/media.js';

const SECRET = 'assets-cli-secret-0123456789-abcdefghij';
let root: string;
let server: RunningServer;
let cdn: Server;
let cdnUrl: string;
let env: Record<string, string>;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'assets-cli-'));
  const out = join(root, 'out');
  await mkdir(out);
  env = { DATA_DIR: join(root, 'data'), JWT_SECRET: SECRET, STORAGE_DRIVER: 'local', STORE_DRIVER: 'sqlite' };
  server = await startServer({ out, port: 0, env });
  // the CDN stand-in: an HTML page for keys containing "page", 404 for keys containing "lost", else the file
  cdn = createServer((req, res) => {
    if (req.url!.includes('page')) res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' }).end('<html></html>');
    else if (req.url!.includes('lost')) res.writeHead(404).end();
    else res.writeHead(200, { 'Content-Type': 'model/gltf-binary' }).end();
  });
  await new Promise<void>((r) => cdn.listen(0, '127.0.0.1', r));
  const a = cdn.address();
  cdnUrl = `http://127.0.0.1:${typeof a === 'object' && a ? a.port : 0}`;
}, 60_000);
afterAll(async () => {
  await server?.close();
  await new Promise((r) => cdn?.close(r));
  useServiceConfig(undefined);
  await rm(root, { recursive: true, force: true });
});

async function run(args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await main([...args, '--base', server.url], { env, out: (t) => void (out += t), err: (t) => void (err += t) });
  return { code, out, err };
}

describe('npm run assets', () => {
  it('uploads a folder under the era prefix, checks each key on the CDN, registers what passes and prints the keys', async () => {
    const dir = join(root, 'models');
    await mkdir(join(dir, 'weapons'), { recursive: true });
    await writeFile(join(dir, 'weapons', 'anvil.glb'), glb(500));
    await writeFile(join(dir, 'weapons', 'page.glb'), glb(200));
    await writeFile(join(dir, 'lost.glb'), glb(100));
    await writeFile(join(dir, 'notes.png'), html());
    await writeFile(join(dir, '.DS_Store'), 'x');
    const r = await run(['upload', dir, '--era', 'era3/models', '--purpose', 'isolate', '--cdn', cdnUrl]);
    expect(r.code).toBe(1);
    expect(r.out).toBe('era3/models/weapons/anvil.glb\tweapons/anvil.glb\n');
    expect(r.err).toMatch(/weapons\/page\.glb: uploaded as era3\/models\/weapons\/page\.glb, but HEAD .* answered an HTML page/);
    expect(r.err).toMatch(/lost\.glb: uploaded as era3\/models\/lost\.glb, but HEAD .* answered 404/);
    expect(r.err).toMatch(/notes\.png: not uploaded: 415/);
    expect(r.err).not.toContain('DS_Store');

    const file = join(root, 'asset-index.json');
    const ex = await run(['export', '--out', file]);
    expect(ex.code).toBe(0);
    const index = JSON.parse(await readFile(file, 'utf8')) as {
      version: number;
      entries: { key: string; purpose: string; size: number }[];
    };
    expect(index.version).toBe(1);
    expect(index.entries.map((e) => [e.key, e.purpose, e.size])).toEqual([['era3/models/weapons/anvil.glb', 'isolate', 500]]);
  });

  it('checks keys on the CDN alone, and on the local server that serves the local storage', async () => {
    const ok = await run(['check', 'era3/models/weapons/anvil.glb', '--cdn', `${server.url}/storage`]);
    expect(ok).toMatchObject({ code: 0, out: 'era3/models/weapons/anvil.glb\tok\n' });
    const bad = await run(['check', 'a/page.glb', 'b/lost.glb', 'c/fine.glb', '--cdn', cdnUrl]);
    expect(bad.code).toBe(1);
    expect(bad.out).toBe('c/fine.glb\tok\n');
    expect(bad.err.split('\n').filter(Boolean)).toHaveLength(2);
  });

  it('registers more than 100 keys in batches of at most 100', async () => {
    const dir = join(root, 'many');
    await mkdir(dir);
    for (let i = 0; i < 101; i++) await writeFile(join(dir, `i${String(i).padStart(3, '0')}.png`), png(1, 1, i));
    const up = await run(['upload', dir, '--era', 'era4', '--cdn', cdnUrl]);
    expect(up.code).toBe(0);
    expect(up.out.trim().split('\n')).toHaveLength(101);
    const again = await run([
      'register',
      ...up.out
        .trim()
        .split('\n')
        .map((l) => l.split('\t')[0]!),
      '--purpose',
      'author',
    ]);
    expect(again.code).toBe(0);
    expect(again.out.trim().split('\n')).toHaveLength(101);
  });

  it('refuses bad arguments with exit code 2, and says when the service cannot be reached', async () => {
    expect((await run(['upload', join(root, 'models')])).code).toBe(2);
    expect((await run(['register', 'a.glb', '--purpose', 'sell'])).code).toBe(2);
    expect((await run(['nothing'])).code).toBe(2);
    expect((await run(['export'])).code).toBe(2);
    const gone = await main(['register', 'a.glb', '--base', 'http://127.0.0.1:9'], { env, out: () => undefined, err: () => undefined });
    expect(gone).toBe(3);
  });
});
