/**
 * The previous build read from a site that misbehaves (`build/pipeline/previous.ts`, module header): a
 * local HTTP server on 127.0.0.1 answers HTML with 200, redirects (to another host, to `file:`, in a
 * loop), an endless or oversized body, nothing at all, a manifest that lists paths outside the output
 * folder or thousands of files, a 404 for a listed file, a 500. Every failure but a 404 manifest stops
 * the read with a PreviousBuildError, nothing is written outside the scratch folder, and a URL that would
 * send the files over plain http off the loopback interface, or carries a password, is refused before any
 * request, without repeating the password.
 */
import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { isOutputPath } from '../../build/pipeline/changes.js';
import { fetchPreviousBuild, previousBase, PreviousBuildError } from '../../build/pipeline/previous.js';
import { buildCatalog } from '../../build/pipeline/index.js';
import { main as buildMain } from '../../build/cli.js';

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

let root: string;
let server: Server;
let site: string;
/** Per-path answers (path after the host, without the leading slash); anything else answers 404. */
let routes: Map<string, Handler>;
/** Paths requested, in order, and the most requests in flight at once. */
let hits: string[];
let inFlight = 0;
let peak = 0;

const sha = (text: string | Buffer): string => createHash('sha256').update(text).digest('hex');
const ID_A = 'a'.repeat(20);
const ID_B = 'b'.repeat(20);
const CURRENT = { buildId: 'c'.repeat(20), files: [] };

/** Answer `body` with 200 as JSON. */
const serve =
  (body: string | Buffer, type = 'application/json'): Handler =>
  (_req, res) =>
    void res.writeHead(200, { 'Content-Type': type }).end(body);
/** A file entry of a manifest for `body`. */
const entry = (path: string, body: string | Buffer) => ({ path, sha256: sha(body), bytes: Buffer.byteLength(body) });

/** A consistent published build: manifest, registry naming one definition file, version list, two kept copies. */
function publish(): void {
  const materials = JSON.stringify({ version: '1', materials: [] });
  const registry = JSON.stringify({ byUuid: { 'MATL-1': { kind: 'material', file: 'master-materials.json', pointer: '/materials/0' } } });
  const manifest = {
    buildId: ID_A,
    files: [entry('api/v1/master-registry.json', registry), entry('api/v1/master-materials.json', materials)],
  };
  routes.set('api/v1/game-data-manifest.json', serve(JSON.stringify(manifest)));
  routes.set('api/v1/master-registry.json', serve(registry));
  routes.set('api/v1/master-materials.json', serve(materials));
  routes.set('api/v1/versions.json', serve(JSON.stringify({ builds: [{ buildId: ID_A, previousBuildId: ID_B }, { buildId: ID_B }] })));
  // the kept copies of both builds the version list names, this one's included
  for (const id of [ID_A, ID_B]) {
    routes.set(
      `v/${id}/api/v1/game-data-manifest.json`,
      serve(JSON.stringify({ buildId: id, files: [entry('api/v1/master-materials.json', materials)] })),
    );
    routes.set(`v/${id}/api/v1/master-materials.json`, serve(materials));
    routes.set(`v/${id}/api/v1/changes.json`, serve('{}'));
  }
}

/** A fresh scratch folder inside its own parent, so that anything written beside it shows. */
async function scratch(): Promise<{ parent: string; into: string }> {
  const parent = await mkdtemp(join(root, 'run-'));
  const into = join(parent, 'scratch');
  await mkdir(into);
  return { parent, into };
}

const read = (into: string, options: Parameters<typeof fetchPreviousBuild>[4] = {}, base = site) =>
  fetchPreviousBuild(base, into, CURRENT, 3, options);

/** The rejection of `p`, which must be a PreviousBuildError. */
async function refusal(p: Promise<unknown>): Promise<PreviousBuildError> {
  const e = await p.then(
    () => undefined,
    (x: unknown) => x,
  );
  expect(e).toBeInstanceOf(PreviousBuildError);
  return e as PreviousBuildError;
}

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'previous-hostile-'));
  server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname.slice(1);
    hits.push(path);
    inFlight++;
    peak = Math.max(peak, inFlight);
    res.on('close', () => inFlight--);
    const h = routes.get(path);
    if (h) h(req, res);
    else res.writeHead(404, { 'Content-Type': 'text/html' }).end('<html>not found</html>');
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  site = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((ok) => server.close(ok));
  await rm(root, { recursive: true, force: true });
});
beforeEach(() => {
  routes = new Map();
  hits = [];
  peak = 0;
  publish();
});

describe('a previous build from a site that misbehaves', () => {
  it('reads a consistent site (the baseline every case below breaks)', async () => {
    const { into } = await scratch();
    expect(await read(into)).toEqual({ buildId: ID_A, files: 10 });
  });

  it('never writes outside the scratch folder, whatever paths a manifest lists', async () => {
    const body = '{}';
    for (const bad of [
      '../../../escape.json',
      '/etc/escape.json',
      'api/v1/..\\..\\escape.json',
      'api//v1/x.json',
      './x.json',
      'a/\u0000.json',
    ]) {
      publish();
      // a definition file of the registry, and a file of a kept copy
      const registry = JSON.stringify({ byUuid: { 'MATL-1': { kind: 'material', file: bad, pointer: '' } } });
      const manifest = { buildId: ID_A, files: [entry('api/v1/master-registry.json', registry), entry(`api/v1/${bad}`, body)] };
      routes.set('api/v1/game-data-manifest.json', serve(JSON.stringify(manifest)));
      routes.set('api/v1/master-registry.json', serve(registry));
      const { parent, into } = await scratch();
      expect((await refusal(read(into))).message, bad).toMatch(/a path outside the output folder/);
      expect(await readdir(parent), bad).toEqual(['scratch']);

      publish();
      routes.set(`v/${ID_B}/api/v1/game-data-manifest.json`, serve(JSON.stringify({ buildId: ID_B, files: [entry(bad, body)] })));
      const second = await scratch();
      expect((await refusal(read(second.into))).message, bad).toMatch(/a path outside the output folder/);
      expect(await readdir(second.parent), bad).toEqual(['scratch']);
    }
    // whatever the server made of the paths, none was asked for
    expect(hits.some((h) => h.includes('escape'))).toBe(false);
    // %2e%2e is a name, not a way up: it stays in the folder, as a file of that name
    publish();
    routes.set(`v/${ID_B}/api/v1/game-data-manifest.json`, serve(JSON.stringify({ buildId: ID_B, files: [entry('%2e%2e/x.json', body)] })));
    routes.set(`v/${ID_B}/%252e%252e/x.json`, serve(body));
    const { parent, into } = await scratch();
    await read(into);
    expect(existsSync(join(into, `v/${ID_B}/%2e%2e/x.json`))).toBe(true);
    expect(await readdir(parent)).toEqual(['scratch']);
  });

  it('stops on an HTML page answered with 200, naming the file', async () => {
    routes.set('api/v1/game-data-manifest.json', serve('<!doctype html><html>app shell</html>', 'text/html'));
    expect((await refusal(read((await scratch()).into))).message).toMatch(/game-data-manifest\.json is not JSON/);
    publish();
    routes.set('api/v1/versions.json', serve('<!doctype html><html>app shell</html>', 'text/html'));
    expect((await refusal(read((await scratch()).into))).message).toMatch(/versions\.json is not JSON/);
  });

  it('stops on a file whose sha256 or size is not the one listed, and on a manifest that is not a catalog manifest', async () => {
    routes.set('api/v1/master-registry.json', serve('{"byUuid":{}}'));
    expect((await refusal(read((await scratch()).into))).message).toMatch(/master-registry\.json is not the file its manifest lists/);
    publish();
    routes.set('api/v1/game-data-manifest.json', serve(JSON.stringify({ buildId: '../../x', files: [] })));
    expect((await refusal(read((await scratch()).into))).message).toMatch(/is not a catalog manifest/);
  });

  it('follows no redirect: to another host, to file:, in a loop', async () => {
    let elsewhere = 0;
    const other = createServer((_req, res) => void (elsewhere++, res.writeHead(200).end('{}')));
    await new Promise<void>((ok) => other.listen(0, '127.0.0.1', ok));
    const otherUrl = `http://localhost:${(other.address() as AddressInfo).port}`;
    try {
      const cases: [string, string][] = [
        [`${otherUrl}/api/v1/game-data-manifest.json`, `to http://localhost:`],
        ['file:///etc/passwd', 'to file://'],
        ['/api/v1/game-data-manifest.json', 'to http://127.0.0.1:'],
      ];
      for (const [location, to] of cases) {
        routes.set('api/v1/game-data-manifest.json', (_req, res) => void res.writeHead(302, { Location: location }).end());
        const message = (await refusal(read((await scratch()).into))).message;
        expect(message).toContain(`answered 302, a redirect ${to}`);
        expect(message).not.toContain('passwd');
      }
      // a listed file that redirects stops the build too
      publish();
      routes.set('api/v1/master-materials.json', (_req, res) => void res.writeHead(308, { Location: `${otherUrl}/x` }).end());
      expect((await refusal(read((await scratch()).into))).message).toMatch(/master-materials\.json answered 308/);
      expect(elsewhere).toBe(0);
    } finally {
      await new Promise((ok) => other.close(ok));
    }
  });

  it('stops on a body larger than its manifest lists, or than the largest file, without reading it all', async () => {
    let sent = 0;
    const endless: Handler = (_req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      const chunk = Buffer.alloc(64 * 1024, 0x20);
      const pump = (): void => {
        while (!res.destroyed && sent < 1024 * 1024 * 1024) {
          sent += chunk.length;
          if (!res.write(chunk)) return void res.once('drain', pump);
        }
        res.end();
      };
      pump();
    };
    routes.set('api/v1/master-materials.json', endless);
    expect((await refusal(read((await scratch()).into))).message).toMatch(
      /master-materials\.json is larger than the \d+ bytes its manifest lists/,
    );
    expect(sent).toBeLessThan(64 * 1024 * 1024);
    // an unlisted file (the manifest itself) is held to the largest file
    sent = 0;
    routes.set('api/v1/game-data-manifest.json', endless);
    expect((await refusal(read((await scratch()).into, { maxFileBytes: 1024 * 1024 }))).message).toMatch(/is larger than 1048576 bytes/);
    // a Content-Length beyond the limit is refused before the body
    publish();
    routes.set('api/v1/master-materials.json', (_req, res) => void res.writeHead(200, { 'Content-Length': '999999999' }).end());
    expect((await refusal(read((await scratch()).into))).message).toMatch(/is larger than/);
  }, 20_000);

  it('stops on a server that answers nothing, or trickles its body, within the time allowed', async () => {
    routes.set('api/v1/game-data-manifest.json', () => undefined);
    const t0 = Date.now();
    expect((await refusal(read((await scratch()).into, { timeoutMs: 300 }))).message).toMatch(/did not answer in full within 0\.3 s/);
    routes.set('api/v1/game-data-manifest.json', (_req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.write('{"buildId":');
      const t = setInterval(() => (res.destroyed ? clearInterval(t) : res.write(' ')), 50);
    });
    expect((await refusal(read((await scratch()).into, { timeoutMs: 300 }))).message).toMatch(/did not answer in full/);
    expect(Date.now() - t0).toBeLessThan(5_000);
  }, 10_000);

  it('reads a manifest listing thousands of files a few at a time, and stops at the first that fails', async () => {
    const files = Array.from({ length: 3000 }, (_, i) => entry(`api/v1/f/${i}.json`, `{"n":${i}}`));
    routes.set(`v/${ID_B}/api/v1/game-data-manifest.json`, serve(JSON.stringify({ buildId: ID_B, files })));
    for (const [i, f] of files.entries()) routes.set(`v/${ID_B}/${f.path}`, serve(`{"n":${i}}`));
    const { into } = await scratch();
    expect((await read(into, { concurrency: 8 })).files).toBe(4 + 3 + 1 + 3000 + 1);
    expect(peak).toBeLessThanOrEqual(8);
    routes.set(`v/${ID_B}/api/v1/f/10.json`, (_req, res) => void res.writeHead(500).end());
    hits = [];
    expect((await refusal(read((await scratch()).into, { concurrency: 8 }))).message).toMatch(/f\/10\.json answered 500/);
    expect(hits.filter((h) => h.startsWith(`v/${ID_B}/api/v1/f/`)).length).toBeLessThan(100);
  }, 60_000);

  it('stops on a 404 for any file the build names, and a 500 anywhere; only a 404 manifest makes a first build', async () => {
    for (const path of [
      'api/v1/master-registry.json',
      'api/v1/master-materials.json',
      'api/v1/versions.json',
      `v/${ID_B}/api/v1/game-data-manifest.json`,
      `v/${ID_B}/api/v1/master-materials.json`,
      `v/${ID_B}/api/v1/changes.json`,
    ]) {
      publish();
      routes.delete(path);
      expect((await refusal(read((await scratch()).into))).message, path).toContain(`${path} answered 404`);
      publish();
      routes.set(path, (_req, res) => void res.writeHead(500).end('<html>oops</html>'));
      expect((await refusal(read((await scratch()).into))).message, path).toContain(`${path} answered 500`);
    }
    routes.delete('api/v1/game-data-manifest.json');
    expect(await read((await scratch()).into)).toEqual({ buildId: null, files: 0 });
  });

  it('refuses a URL off https before any request, and never repeats a password it carries', async () => {
    const into = (await scratch()).into;
    for (const [url, why] of [
      ['http://game.example.com', /must be an https:\/\/ URL/],
      ['ftp://game.example.com', /must be an https:\/\/ URL/],
      ['file:///srv/dist', /must be an https:\/\/ URL/],
      ['https://deploy:hunter2-s3cr3t@game.example.com', /must not carry credentials/],
      [`${site}/?token=hunter2-s3cr3t`, /must not carry a query/],
      ['https://', /is not a URL/],
    ] as const) {
      const e = await refusal(read(into, {}, url));
      expect(e.message, url).toMatch(why);
      expect(e.message, url).not.toContain('hunter2');
    }
    expect(hits).toEqual([]);
    expect(previousBase(`${site}//`)).toBe(site);
    expect(previousBase('https://[::1]/')).toBe('https://[::1]');
    expect(isOutputPath('api/v1/a.json')).toBe(true);
    expect(isOutputPath('api/v1/../a.json')).toBe(false);
  });
});

describe('the build with a previous build it cannot read', () => {
  async function source(): Promise<string> {
    const src = await mkdtemp(join(root, 'src-'));
    await writeFile(
      join(src, 'catalog.config.json'),
      JSON.stringify({ name: 'p', base_url: 'https://catalog.test', cdn_url: 'https://cdn.test', namespaces: { skill: 's:', icon: 'i:' } }),
    );
    await writeFile(
      join(src, 'master-materials.json'),
      JSON.stringify({
        version: '1',
        materials: [{ uuid: 'MATL-20260101000000-000001-0000ABCD', id: 'mat-1', name: 'Iron', category: 'ore', tier: 1 }],
      }),
    );
    return src;
  }

  it('stops (exit 2) on --previous over plain http off the loopback interface, a mistyped folder or file:, writing no output', async () => {
    const src = await source();
    for (const previous of ['http://game.example.com', join(root, 'no-such-folder'), 'file:///srv/dist']) {
      const out = join(root, `out-${hits.length}-${Math.random().toString(36).slice(2)}`);
      await expect(buildCatalog({ src, out, reportFile: false, previous }), previous).rejects.toBeInstanceOf(PreviousBuildError);
      expect(existsSync(out), previous).toBe(false);
    }
    let err = '';
    const write = process.stderr.write.bind(process.stderr);
    process.stderr.write = (t: string) => ((err += t), true);
    try {
      expect(await buildMain(['--src', src, '--out', join(root, 'cli-out'), '--previous', 'http://game.example.com', '--quiet'])).toBe(2);
    } finally {
      process.stderr.write = write;
    }
    expect(err).toMatch(/must be an https:\/\/ URL/);
  });
});
