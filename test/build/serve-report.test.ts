// The build report as an author sees it through the local server (dev/server.ts): the output's published
// report after a good build; a failed build's report, with its errors, while the previous output is served.
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { buildCatalog } from '../../build/pipeline/index.js';
import { publishedBuildReport } from '../../api/_lib/formats/build-report.js';
import { startServer, type RunningServer } from '../../dev/server.js';
import { useCatalog } from '../helpers/service.js';

const CONFIG = { name: 'tiny', base_url: 'https://catalog.test', cdn_url: 'https://cdn.test', namespaces: { skill: 's:', icon: 'i:' } };
const ITEMS = {
  version: '1',
  items: [{ uuid: 'ITEM-20260101000000-000001-0000ABCD', name: 'Blade', category: 'swords', type: 'weapon', tier: 1 }],
};

const cleanup: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const f of cleanup.reverse()) await f();
  useCatalog(undefined);
});

async function catalog(): Promise<{ src: string; out: string }> {
  const root = await mkdtemp(join(tmpdir(), 'serve-report-'));
  cleanup.push(() => rm(root, { recursive: true, force: true }));
  const src = join(root, 'src');
  await mkdir(src);
  await writeFile(join(src, 'catalog.config.json'), JSON.stringify(CONFIG));
  await writeFile(join(src, 'master-items.json'), JSON.stringify(ITEMS));
  await writeFile(join(src, 'systems-catalog.json'), '{}');
  return { src, out: join(root, 'dist') };
}

async function serve(out: string, report?: Parameters<typeof startServer>[0]['buildReport']): Promise<RunningServer> {
  const server = await startServer({ out, port: 0, ...(report ? { buildReport: report } : {}) });
  cleanup.push(() => server.close());
  return server;
}

describe('build report through the local server', () => {
  it("answers the output's published report after a good build", async () => {
    const { src, out } = await catalog();
    await buildCatalog({ src, out, reportFile: false });
    const server = await serve(out);
    const res = await fetch(`${server.url}/api/v1/build-report.json`);
    expect(res.status).toBe(200);
    expect(await res.text()).toBe(await readFile(join(out, 'api/v1/build-report.json'), 'utf8'));
  });

  it("answers a failed build's report, errors included, in place of the kept output's, for GET and HEAD only", async () => {
    const { src, out } = await catalog();
    await buildCatalog({ src, out, reportFile: false });
    await writeFile(join(src, 'master-items.json'), '{"items": [}');
    const failed = await buildCatalog({ src, out, reportFile: false });
    expect(failed.ok).toBe(false);
    const server = await serve(out, publishedBuildReport(failed));
    const res = await fetch(`${server.url}/api/v1/build-report.json`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(res.headers.get('cache-control')).toBe('no-store');
    const body = (await res.json()) as {
      ok: boolean;
      buildId: string | null;
      stats: { errors: number; outputs: number };
      issues: { file: string; rule: string; severity: string; line: number }[];
    };
    expect(body).toMatchObject({ ok: false, buildId: null, stats: { errors: 1, outputs: 0 } });
    expect(body.issues).toContainEqual(
      expect.objectContaining({ file: 'master-items.json', rule: 'json/syntax', severity: 'error', line: 1 }),
    );
    const head = await fetch(`${server.url}/api/v1/build-report.json`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
    // other methods go to the static file's own answer (405), and the rest of the output is the kept one
    expect((await fetch(`${server.url}/api/v1/build-report.json`, { method: 'POST' })).status).toBe(405);
    expect((await fetch(`${server.url}/api/v1/master-items.json`)).status).toBe(200);
  });
});
