/**
 * The previous build read from a durable place (`build/pipeline/previous.ts`): a build into a fresh
 * output folder, as on a fresh build container, compares with the deployed site's own files fetched over
 * HTTP (catalog config `previousBuild` or `--previous`) and carries its kept versioned copies over, exactly
 * as a build over the replaced folder would; every fetched file is checked against its manifest; a site
 * that has published nothing makes a first build; a site that cannot be read stops the build.
 */
import { createServer, type Server } from 'node:http';
import { mkdir, mkdtemp, readFile, rm, writeFile, cp } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildCatalog } from '../../build/pipeline/index.js';
import { PreviousBuildError } from '../../build/pipeline/previous.js';
import { loadCatalogConfig } from '../../build/pipeline/config.js';
import type { ChangeFeed, VersionList } from '../../api/_lib/formats/changes.js';

const ts = (p: string, n: number): string => `${p}-20260101000000-${n.toString(16).toUpperCase().padStart(6, '0')}-0000ABCD`;
const material = (n: number, name: string) => ({ uuid: ts('MATL', n), id: `mat-${n}`, name, category: 'ore', tier: 1 });

let root: string;
let server: Server;
let site: string;
/** What the fake site serves: a folder, and per-path overrides (status or bytes). */
let served: { dir: string; override: Map<string, { status: number; body?: string }> };
const json = async <T>(file: string): Promise<T> => JSON.parse(await readFile(file, 'utf8')) as T;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'previous-'));
  served = { dir: join(root, 'none'), override: new Map() };
  server = createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname).slice(1);
    const o = served.override.get(path);
    if (o) {
      res.writeHead(o.status).end(o.body ?? '');
      return;
    }
    readFile(join(served.dir, path)).then(
      (b) => res.writeHead(200, { 'Content-Type': 'application/json' }).end(b),
      () => res.writeHead(404, { 'Content-Type': 'text/html' }).end('<html>not found</html>'),
    );
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  site = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((ok) => server.close(ok));
  await rm(root, { recursive: true, force: true });
});

/** A source folder with the given materials; returns its path. */
async function source(name: string, materials: ReturnType<typeof material>[], extra: Record<string, unknown> = {}): Promise<string> {
  const src = join(root, name);
  await mkdir(src, { recursive: true });
  const config = {
    name: 'previous',
    base_url: 'https://catalog.test',
    cdn_url: 'https://cdn.test',
    namespaces: { skill: 's:', icon: 'i:' },
    ...extra,
  };
  await writeFile(join(src, 'catalog.config.json'), JSON.stringify(config));
  await writeFile(join(src, 'master-materials.json'), JSON.stringify({ version: '1', materials }));
  return src;
}

describe('the previous build from the deployed site', () => {
  it('compares with the site’s files and carries its kept copies over, as a build over the replaced folder does', async () => {
    // two builds published to the site, one after the other, in one folder (what the site serves)
    const published = join(root, 'published');
    const a = await buildCatalog({
      src: await source('s1', [material(1, 'Iron Ore'), material(2, 'Tin Ore')]),
      out: published,
      reportFile: false,
    });
    const b = await buildCatalog({
      src: await source('s2', [material(1, 'Iron Ore'), material(2, 'Tin Ore, refined')]),
      out: published,
      reportFile: false,
    });
    expect(a.ok && b.ok).toBe(true);
    served = { dir: published, override: new Map() };

    // the next build on a fresh container: an empty output folder, the site named as the previous build
    const next = await source('s3', [material(1, 'Iron Ore'), material(2, 'Tin Ore, refined'), material(3, 'Copper Ore')]);
    const fresh = join(root, 'fresh');
    const c = await buildCatalog({ src: next, out: fresh, reportFile: false, previous: site });
    expect(c.ok).toBe(true);
    const feed = await json<ChangeFeed>(join(fresh, 'api/v1/changes.json'));
    expect(feed.previousBuildId).toBe(b.buildId);
    expect(feed.kinds.material).toEqual({ added: [ts('MATL', 3)], removed: [], changed: [] });
    const versions = await json<VersionList>(join(fresh, 'api/v1/versions.json'));
    expect(versions.builds.map((x) => x.buildId)).toEqual([c.buildId, b.buildId, a.buildId]);
    for (const id of [a.buildId!, b.buildId!]) expect(existsSync(join(fresh, `v/${id}/api/v1/game-data-manifest.json`)), id).toBe(true);

    // the same build over a copy of the replaced folder writes the same bytes
    const local = join(root, 'local');
    await cp(published, local, { recursive: true });
    await buildCatalog({ src: next, out: local, reportFile: false });
    for (const f of [
      'api/v1/changes.json',
      'api/v1/versions.json',
      `v/${a.buildId}/api/v1/changes.json`,
      `v/${b.buildId}/api/v1/master-materials.json`,
    ])
      expect(await readFile(join(fresh, f), 'utf8'), f).toBe(await readFile(join(local, f), 'utf8'));

    // without it, the fresh container's build would be a first build that drops the history
    const blind = join(root, 'blind');
    await buildCatalog({ src: next, out: blind, reportFile: false });
    expect((await json<ChangeFeed>(join(blind, 'api/v1/changes.json'))).previousBuildId).toBeNull();
    expect(existsSync(join(blind, `v/${b.buildId}`))).toBe(false);

    // the catalog config names it the same way
    const configured = await source('s4', [material(1, 'Iron Ore'), material(2, 'Tin Ore, refined'), material(3, 'Copper Ore')], {
      previousBuild: site + '/',
    });
    expect((await loadCatalogConfig(join(configured, 'catalog.config.json'))).previousBuild).toBe(site);
    const viaConfig = join(root, 'via-config');
    await buildCatalog({ src: configured, out: viaConfig, reportFile: false });
    expect((await json<ChangeFeed>(join(viaConfig, 'api/v1/changes.json'))).previousBuildId).toBe(b.buildId);

    // a fetched file that is not what the manifest lists (an error page, a newer deployment) stops the build
    served.override.set('api/v1/master-materials.json', { status: 200, body: '{"version":"1","materials":[]}' });
    await expect(buildCatalog({ src: next, out: join(root, 'tampered'), reportFile: false, previous: site })).rejects.toThrow(
      /master-materials\.json is not the file its manifest lists/,
    );
    served.override.clear();
    // a kept copy's file missing too
    served.override.set(`v/${a.buildId}/api/v1/game-data-manifest.json`.replace('game-data-manifest', 'master-materials'), { status: 404 });
    await expect(buildCatalog({ src: next, out: join(root, 'missing'), reportFile: false, previous: site })).rejects.toBeInstanceOf(
      PreviousBuildError,
    );
    served.override.clear();
    // a site that answers 5xx
    served.override.set('api/v1/game-data-manifest.json', { status: 503 });
    await expect(buildCatalog({ src: next, out: join(root, 'down'), reportFile: false, previous: site })).rejects.toThrow(/answered 503/);
    served.override.clear();
    expect(existsSync(join(root, 'down'))).toBe(false);
  });

  it('makes a first build when the site has published none (its manifest answers 404), and refuses an unreachable site', async () => {
    served = { dir: join(root, 'nothing'), override: new Map() };
    const out = join(root, 'first');
    const r = await buildCatalog({ src: await source('f1', [material(1, 'Iron Ore')]), out, reportFile: false, previous: site });
    expect(r.ok).toBe(true);
    expect((await json<ChangeFeed>(join(out, 'api/v1/changes.json'))).previousBuildId).toBeNull();
    await expect(
      buildCatalog({
        src: await source('f2', [material(1, 'Iron Ore')]),
        out: join(root, 'x'),
        reportFile: false,
        previous: 'http://127.0.0.1:9',
      }),
    ).rejects.toThrow(/cannot be reached/);
  });

  it('reads a folder as the previous output', async () => {
    const kept = join(root, 'kept');
    const a = await buildCatalog({ src: await source('d1', [material(1, 'Iron Ore')]), out: kept, reportFile: false });
    const out = join(root, 'from-folder');
    await buildCatalog({
      src: await source('d2', [material(1, 'Iron Ore'), material(2, 'Tin Ore')]),
      out,
      reportFile: false,
      previous: kept,
    });
    const feed = await json<ChangeFeed>(join(out, 'api/v1/changes.json'));
    expect(feed.previousBuildId).toBe(a.buildId);
    expect(feed.kinds.material!.added).toEqual([ts('MATL', 2)]);
  });

  it('refuses a previousBuild URL in plain http off the loopback interface', async () => {
    const src = await source('bad', [material(1, 'Iron Ore')], { previousBuild: 'http://game.example.com' });
    await expect(loadCatalogConfig(join(src, 'catalog.config.json'))).rejects.toThrow(/previousBuild/);
  });
});
