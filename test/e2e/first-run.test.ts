// A first run with pictures (docs/architecture.md, "Sample binaries"): `npm start` on a fresh data folder
// builds the sample catalog with the local storage as {cdn_url}, places catalog-src/cdn/ in it, and every
// picture the catalog browser's grids and item pages show (test/helpers/catalog-images.ts) is served by
// the local server with the bytes of its file; a key the storage lacks answers 404 (the page's placeholder).
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listCdnFiles } from '../../dev/cdn-files.js';
import { SAMPLE_SRC } from '../helpers/catalog.js';
import { catalogImages } from '../helpers/catalog-images.js';
import { startFirstRun, type FirstRun } from '../helpers/first-run.js';

type Rec = Record<string, unknown>;

let run: FirstRun;
beforeAll(async () => {
  run = await startFirstRun();
}, 150_000);
afterAll(async () => {
  await run?.stop();
});

/** The server's answer to `url` (a `localhost` URL), asked on 127.0.0.1, where it listens. */
function get(url: string): Promise<Response> {
  const u = new URL(url);
  u.hostname = '127.0.0.1';
  return fetch(u);
}

describe('npm start on a fresh machine (sample catalog)', () => {
  it('says where the catalog pictures are served and builds the catalog with that {cdn_url}', async () => {
    expect(run.log()).toContain(`files of catalog-src/cdn/ in local storage, served at ${run.url}/storage/ ({cdn_url})`);
    const manifest = (await (await get(`${run.url}/api/v1/game-data-manifest.json`)).json()) as Rec;
    expect(manifest.cdnUrl).toBe(`${run.url}/storage`);
  });

  it('serves every picture of the icon and sprite grids and of every item page, with the bytes of its file', async () => {
    const images = catalogImages(run.out);
    const icons = (JSON.parse(await readFile(join(SAMPLE_SRC, 'icon-sources.json'), 'utf8')) as { icons: unknown[] }).icons;
    const sprites = JSON.parse(await readFile(join(SAMPLE_SRC, 'sprites2d.json'), 'utf8')) as { totalSprites: number };
    expect(images.filter((i) => i.where.startsWith('icons grid')).length).toBe(icons.length);
    expect(images.filter((i) => i.where.startsWith('sprites grid')).length).toBe(sprites.totalSprites);
    // records that name an icon (iconUuid) and the sprite characters show pictures too
    // the asset manifest's previews are on the local {cdn_url} too, and the enemies without an icon show their model's
    const assets = JSON.parse(await readFile(join(SAMPLE_SRC, 'studiodot-assets.json'), 'utf8')) as { assets: Rec[] };
    expect(images.filter((i) => i.where.startsWith('asset manifest')).length).toBe(assets.assets.filter((a) => a.previewUrl).length);
    for (const kind of ['characters page', 'weapons page', 'skills page', 'enemies page'])
      expect(
        images.some((i) => i.where.startsWith(kind)),
        kind,
      ).toBe(true);
    const base = `${run.url}/storage/`;
    const failures: string[] = [];
    for (const url of new Set(images.map((i) => i.url))) {
      const where = images.find((i) => i.url === url)!.where;
      if (!url.startsWith(base)) {
        failures.push(`${where}: ${url} is not on the local {cdn_url}`);
        continue;
      }
      const res = await get(url);
      const body = Buffer.from(await res.arrayBuffer());
      const key = decodeURIComponent(url.slice(base.length));
      const file = await readFile(join(SAMPLE_SRC, 'cdn', key)).catch(() => undefined);
      if (res.status !== 200 || res.headers.get('content-type') !== 'image/png' || !file || !body.equals(file))
        failures.push(`${where}: ${url} answered ${res.status} ${res.headers.get('content-type')} (${body.length} bytes)`);
    }
    expect(failures).toEqual([]);
  });

  it('ships no file that no page and no asset preview shows', async () => {
    const shown = new Set(catalogImages(run.out).map((i) => decodeURIComponent(i.url.slice(`${run.url}/storage/`.length))));
    const shipped = (await listCdnFiles(SAMPLE_SRC)).map((f) => f.key);
    expect(shipped.filter((k) => !shown.has(k))).toEqual([]);
    expect(shipped.length).toBe(shown.size);
  });

  it('answers a key the storage does not hold with 404 problem+json (the page keeps its placeholder)', async () => {
    const res = await get(`${run.url}/storage/game-assets/icons/misc/never-drawn.png`);
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toContain('application/problem+json');
  });
});
