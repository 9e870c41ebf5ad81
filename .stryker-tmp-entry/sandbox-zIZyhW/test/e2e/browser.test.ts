// @ts-nocheck
// The catalog browser page (public/) in a real browser: the sample catalog is built with the site into a
// temporary folder, served by the local server (dev/server.ts), and used through Debian's Chromium as a
// person would: totals, search by name, search with a typo, blank and failing queries, links, and a
// screenshot in .tmp/screenshots/catalog-page.png. Expectations come from the catalog source files and
// from the HTTP answers the page itself received, never from the page's own helpers.
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Page, Response as PageResponse } from 'playwright-core';
import { buildCatalog } from '../../build/pipeline/index.js';
import { startServer, type RunningServer } from '../../dev/server.js';
import { useCatalog } from '../helpers/service.js';
import { REPO_ROOT, SAMPLE_SRC } from '../helpers/catalog.js';
import { hasChromium, inCi, launchChromium } from '../helpers/browser.js';

const SCREENSHOT = join(REPO_ROOT, '.tmp/screenshots/catalog-page.png');

interface Problem {
  readonly status: number;
  readonly detail: string;
  readonly code: string;
  readonly errors?: readonly { readonly name: string; readonly message: string }[];
}
interface SearchBody {
  readonly query: string;
  readonly totalResults: number;
  readonly results: readonly { type: string; id: string; name: string }[];
}
interface Manifest {
  readonly files: readonly { path: string; bytes: number; sha256: string }[];
}

/** A sample weapon, read from the catalog source (not from the build). */
async function sampleWeapon(): Promise<{ uuid: string; name: string }> {
  const raw = JSON.parse(await readFile(join(SAMPLE_SRC, 'master-weapons.json'), 'utf8')) as { items: { uuid: string; name: string }[] };
  const weapon = raw.items[0];
  if (!weapon) throw new Error('catalog-src/master-weapons.json has no items');
  return weapon;
}

/** The name with one letter dropped from the middle of its longest word (one typo). */
function withOneTypo(name: string): string {
  const words = name.split(' ');
  const longest = words.reduce((best, w, i) => (w.length > (words[best] ?? '').length ? i : best), 0);
  const word = words[longest]!;
  const at = Math.floor(word.length / 2);
  words[longest] = word.slice(0, at) + word.slice(at + 1);
  return words.join(' ');
}

const isSearch = (r: PageResponse): boolean => new URL(r.url()).pathname === '/api/search';

/** Wait until the page has rendered the answer of its search call (summary or error line). */
async function searchRendered(page: Page): Promise<void> {
  await page.waitForFunction(() => {
    const text = document.getElementById('search-status')?.textContent ?? '';
    return text !== '' && text !== 'Searching…';
  });
}

/** Type `query` into the search box like a person, press Enter, and return the answer the page received. */
async function typeAndSearch(page: Page, query: string): Promise<PageResponse> {
  const box = page.locator('#q');
  await box.fill('');
  await box.pressSequentially(query);
  const [answer] = await Promise.all([page.waitForResponse(isSearch), box.press('Enter')]);
  await searchRendered(page);
  return answer;
}

/** Rows of a table body as cell texts. */
function tableRows(page: Page, selector: string): Promise<string[][]> {
  return page.$$eval(`${selector} tbody tr`, (trs) => trs.map((tr) => [...(tr as HTMLTableRowElement).cells].map((c) => c.textContent ?? '')));
}

/** Every link on the page, as absolute URLs resolved by the browser. */
async function pageLinks(page: Page): Promise<URL[]> {
  // the static-file list is filled from the manifest after load
  await page.waitForSelector('#file-links a');
  return page.$$eval('a[href]', (as) => as.map((a) => (a as HTMLAnchorElement).href)).then((hrefs) => hrefs.map((h) => new URL(h)));
}

const isStaticFile = (u: URL): boolean => u.pathname.startsWith('/api/v1/') && u.pathname.endsWith('.json') || u.pathname.startsWith('/schemas/');

// Debian's Chromium is a system package: CI installs it (.ci/run, APT_PACKAGES), so there a missing
// browser fails (this test, and the suite's beforeAll). A developer machine without it skips the suite.
it.runIf(inCi)('has Debian\'s Chromium installed under CI', () => {
  expect(hasChromium).toBe(true);
});

describe.skipIf(!hasChromium && !inCi)('catalog browser page in Chromium', () => {
  let tmp: string;
  let out: string;
  let server: RunningServer;
  let base: string;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let pageErrors: Error[];

  beforeAll(async () => {
    browser = await launchChromium();
    tmp = await mkdtemp(join(tmpdir(), 'browser-page-'));
    out = join(tmp, 'dist');
    const report = await buildCatalog({ src: SAMPLE_SRC, out, site: true, reportFile: false });
    if (!report.ok) throw new Error(`The sample catalog did not build: ${report.stats.errors} errors`);
    server = await startServer({ out, port: 0, root: REPO_ROOT, host: '127.0.0.1' });
    base = `http://127.0.0.1:${server.port}`;
  });

  afterAll(async () => {
    await browser?.close();
    await server?.close();
    useCatalog(undefined);
    if (tmp) await rm(tmp, { recursive: true, force: true });
  });

  beforeEach(async () => {
    context = await browser.newContext({
      baseURL: base,
      viewport: { width: 1100, height: 900 },
      locale: 'en-US',
      timezoneId: 'UTC',
      colorScheme: 'light',
      reducedMotion: 'reduce',
    });
    context.setDefaultTimeout(10_000);
    page = await context.newPage();
    pageErrors = [];
    page.on('pageerror', (e) => pageErrors.push(e));
  });

  afterEach(async () => {
    await context?.close();
    // An uncaught exception in the page's script fails the test that caused it.
    expect(pageErrors.map((e) => e.message)).toEqual([]);
  });

  it('shows the totals that /api/stats reports, one row per category, sorted', async () => {
    await page.goto('/');
    expect(await page.title()).toBe('Game data catalog');
    await page.locator('#stats-table').waitFor({ state: 'visible' });

    const stats = (await (await fetch(`${base}/api/stats`)).json()) as { totals: Record<string, unknown> };
    const expected = Object.entries(stats.totals)
      .filter((e): e is [string, number] => typeof e[1] === 'number')
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    expect(expected.length).toBeGreaterThan(0);

    const rows = await tableRows(page, '#stats-table');
    expect(rows.map(([name, count]) => [name, Number((count ?? '').replaceAll(',', ''))])).toEqual(expected);
    expect(await page.locator('#stats-status').textContent()).toBe('');
    // The "Records" header lines up with its numbers.
    const [headerAlign, countAlign] = await page.$eval('#stats-table', (t) => {
      const table = t as HTMLTableElement;
      return [table.tHead?.rows[0]?.cells[1], table.tBodies[0]?.rows[0]?.cells[1]].map((c) => (c ? getComputedStyle(c).textAlign : ''));
    });
    expect(countAlign).toBe('right');
    expect(headerAlign).toBe(countAlign);
  });

  it('finds a sample weapon typed by its exact name as the first result, and keeps the query in the address', async () => {
    const weapon = await sampleWeapon();
    await page.goto('/');
    const answer = await typeAndSearch(page, weapon.name);
    expect(answer.status()).toBe(200);
    const body = (await answer.json()) as SearchBody;

    const rows = await tableRows(page, '#search-results');
    expect(rows[0]).toEqual(['weapons', weapon.uuid, weapon.name]);
    expect(rows).toHaveLength(body.results.length);
    expect(await page.locator('#search-results').isVisible()).toBe(true);
    const summary = await page.locator('#search-status').textContent();
    expect(summary).toContain(`"${weapon.name}"`);
    expect(summary).toContain(String(body.totalResults));
    expect(new URL(page.url()).searchParams.get('q')).toBe(weapon.name);
  });

  it('still finds the weapon first when the query has one typo', async () => {
    const weapon = await sampleWeapon();
    const typo = withOneTypo(weapon.name);
    expect(typo).not.toBe(weapon.name);
    await page.goto('/');
    const answer = await typeAndSearch(page, typo);
    expect(answer.status()).toBe(200);
    expect((await tableRows(page, '#search-results'))[0]).toEqual(['weapons', weapon.uuid, weapon.name]);
  });

  it('says so, and hides the table, when a type filter leaves no result', async () => {
    const weapon = await sampleWeapon();
    await page.goto('/');
    await page.selectOption('#type', 'bosses');
    const answer = await typeAndSearch(page, weapon.name);
    const body = (await answer.json()) as SearchBody;
    expect(body.totalResults).toBe(0);
    expect(await page.locator('#search-results').isHidden()).toBe(true);
    const summary = await page.locator('#search-status').textContent();
    expect(summary).toContain(`"${weapon.name}"`);
    expect(summary).toContain('bosses');
  });

  it('sends nothing for an empty or blank search box', async () => {
    const weapon = await sampleWeapon();
    const sent: string[] = [];
    page.on('request', (r) => {
      const u = new URL(r.url());
      if (u.pathname === '/api/search') sent.push(u.searchParams.get('q') ?? '');
    });
    await page.goto('/');
    const box = page.locator('#q');
    await box.press('Enter');
    expect(await box.evaluate((el) => (el as HTMLInputElement).validity.valueMissing)).toBe(true);
    await box.pressSequentially('   ');
    await box.press('Enter');
    // A real search afterwards: had either submit above sent a request, it would have been sent first.
    await typeAndSearch(page, weapon.name);
    expect(sent).toEqual([weapon.name]);
  });

  it.each([
    ['a blank query', '   '],
    ['a query over 200 characters', 'x'.repeat(201)],
  ])('shows the problem detail when a shared link carries %s', async (_what, q) => {
    const [answer] = await Promise.all([page.waitForResponse(isSearch), page.goto(`/?${new URLSearchParams({ q }).toString()}`)]);
    await searchRendered(page);
    expect(answer.status()).toBe(400);
    const problem = (await answer.json()) as Problem;
    expect(problem.code).toBe('INVALID_QUERY');
    const status = page.locator('#search-status');
    // the page shows the problem's detail, then why each parameter was refused
    expect(await status.textContent()).toBe([problem.detail, ...(problem.errors ?? []).map((e) => e.message)].join(' '));
    expect(problem.errors?.length).toBeGreaterThan(0);
    expect(await status.getAttribute('class')).toBe('error');
    expect(await page.locator('#search-results').isHidden()).toBe(true);
  });

  it('links to published static files that serve the published bytes, and to the schemas', async () => {
    await page.goto('/');
    const manifest = (await (await fetch(`${base}/api/v1/game-data-manifest.json`)).json()) as Manifest;
    // The manifest lists every published file with its SHA-256 (but not itself, which is compared with
    // the output folder); schemas are copied unchanged from the repository.
    const published = new Map(manifest.files.map((f) => [`/${f.path}`, f.sha256]));
    const manifestPath = '/api/v1/game-data-manifest.json';
    const links = (await pageLinks(page)).filter(isStaticFile);
    const checked = links.filter((u) => published.has(u.pathname) || u.pathname === manifestPath || u.pathname.startsWith('/schemas/'));
    expect(checked.map((u) => u.pathname)).toContain(manifestPath);
    expect(checked.filter((u) => published.has(u.pathname)).length).toBeGreaterThan(0);
    expect(checked.some((u) => u.pathname.startsWith('/schemas/'))).toBe(true);
    for (const u of checked) {
      const res = await fetch(u);
      expect(res.status, u.pathname).toBe(200);
      const bytes = Buffer.from(await res.arrayBuffer());
      const sha = published.get(u.pathname);
      if (sha) expect(createHash('sha256').update(bytes).digest('hex'), u.pathname).toBe(sha);
      else if (u.pathname === manifestPath) expect(bytes).toEqual(await readFile(join(out, u.pathname)));
      else expect(bytes.toString('utf8'), u.pathname).toBe(await readFile(join(REPO_ROOT, u.pathname), 'utf8'));
    }
  });

  it('links only to static files that exist', async () => {
    await page.goto('/');
    const broken: string[] = [];
    for (const u of (await pageLinks(page)).filter(isStaticFile)) {
      const res = await fetch(u, { method: 'HEAD' });
      if (res.status !== 200) broken.push(`${u.pathname} ${res.status}`);
    }
    expect(broken).toEqual([]);
  });

  it('links to endpoints and exports that answer 200 with JSON or CSV', async () => {
    await page.goto('/');
    const links = (await pageLinks(page)).filter((u) => !isStaticFile(u));
    expect(links.some((u) => u.pathname === '/api/export' && u.searchParams.get('format') === 'csv')).toBe(true);
    expect(links.some((u) => u.pathname === '/api/search')).toBe(true);
    for (const u of links) {
      expect(u.origin, u.href).toBe(base);
      const res = await fetch(u);
      expect(res.status, u.href).toBe(200);
      const type = res.headers.get('content-type') ?? '';
      expect(type, u.href).toMatch(u.searchParams.get('format') === 'csv' ? /^text\/csv/ : /^application\/json/);
      await res.arrayBuffer();
    }
  });

  it('opens a shared search link with its results and totals, as in the screenshot', async () => {
    const weapon = await sampleWeapon();
    const [answer] = await Promise.all([
      page.waitForResponse(isSearch),
      page.goto(`/?${new URLSearchParams({ q: weapon.name, type: 'weapons' }).toString()}`),
    ]);
    await searchRendered(page);
    await page.locator('#stats-table').waitFor({ state: 'visible' });
    expect(answer.status()).toBe(200);
    expect(await page.locator('#q').inputValue()).toBe(weapon.name);
    expect(await page.locator('#type').inputValue()).toBe('weapons');
    expect((await tableRows(page, '#search-results'))[0]).toEqual(['weapons', weapon.uuid, weapon.name]);

    await mkdir(join(SCREENSHOT, '..'), { recursive: true });
    const png = await page.screenshot({ fullPage: true, animations: 'disabled' });
    await writeFile(SCREENSHOT, png);
    expect(png.subarray(1, 4).toString('latin1')).toBe('PNG');
    expect(png.readUInt32BE(16)).toBe(1100);
  });
});
