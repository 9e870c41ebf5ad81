// The catalog browser (site/) in a real browser: the sample catalog is built with the site into a
// temporary folder, served by the local server (dev/server.ts), and used through Debian's Chromium as a
// person would: search as you type, collection filters and paging with the state in the address, item
// pages of every kind, following references, pictures from the CDN, the icon grid, totals, the build
// report (and a failed build's report), the keyboard, phone width, and screenshots at 1280 and 390 px in
// .tmp/screenshots/; and the API reference page at /docs/; and, after npm start, the sample's own pictures from local storage. Expectations come from the catalog source files and from HTTP answers, never from the
// page's own helpers. Nothing leaves 127.0.0.1: other hosts fail as network errors unless a test routes them.
import { cp, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page, Response as PageResponse } from 'playwright-core';
import { localStorageAdapter } from '../../api/_lib/storage/local.js';
import { buildCatalog } from '../../build/pipeline/index.js';
import { publishedBuildReport } from '../../api/_lib/formats/build-report.js';
import { GameDataClient } from '../../client/src/index.js';
import { startServer } from '../../dev/server.js';
import { REPO_ROOT, SAMPLE_SRC } from '../helpers/catalog.js';
import {
  DESKTOP,
  PHONE,
  PNG_1X1,
  SCREENSHOT_DIR,
  addressQuery as query,
  hasChromium,
  inCi,
  launchChromium,
  openPage,
  pageWidths,
  saveScreenshot,
  settled,
  useBrowserSite,
} from '../helpers/browser.js';
import { startFirstRun, type FirstRun } from '../helpers/first-run.js';

type Rec = Record<string, unknown>;

/** A catalog source file of the sample, parsed. */
async function source(file: string): Promise<Rec> {
  return JSON.parse(await readFile(join(SAMPLE_SRC, file), 'utf8')) as Rec;
}

/** The records of a source file's top-level array. */
async function records(file: string, array: string): Promise<Rec[]> {
  return (await source(file))[array] as Rec[];
}

function str(v: unknown): string {
  if (typeof v !== 'string') throw new Error(`expected a string, got ${JSON.stringify(v)}`);
  return v;
}

/** Spec §4.2: the filters of each collection, as its table lists them (enum values where it names them). */
const SPEC_FILTERS: Readonly<Record<string, readonly (readonly [param: string, values?: readonly string[]])[]>> = {
  relics: [
    ['category', ['elemental', 'combat', 'defensive', 'utility']],
    ['tier', ['1', '2', '3', '4', '5', '6', '7', '8']],
    ['element'],
    ['slot', ['relic']],
  ],
  enchants: [['category'], ['tier', ['1', '2', '3', '4', '5', '6', '7', '8']], ['target', ['weapon', 'armor']]],
  infusions: [['tier', ['1', '2', '3', '4', '5', '6', '7', '8']], ['scope', ['universal', 'profession']], ['profession']],
  artifacts: [['tier', ['1', '2', '3', '4', '5', '6', '7', '8']], ['artifactType'], ['subtype'], ['handedness', ['1h', '2h', 'offhand']]],
};

const pathIs =
  (path: string) =>
  (r: PageResponse): boolean =>
    new URL(r.url()).pathname === path;

/** Names in the collection table, in order. */
function tableNames(page: Page): Promise<string[]> {
  return page.$$eval('#collection-table tbody tr:not(.skeleton) td:first-child', (tds) => tds.map((td) => td.textContent ?? ''));
}

// Debian's Chromium is a system package: CI installs it (.ci/run, APT_PACKAGES), so there a missing
// browser fails (this test, and the suite's beforeAll). A developer machine without it skips the suite.
it.runIf(inCi)("has Debian's Chromium installed under CI", () => {
  expect(hasChromium).toBe(true);
});

describe.skipIf(!hasChromium && !inCi)('catalog browser in Chromium (sample catalog)', () => {
  const site = useBrowserSite({ src: SAMPLE_SRC });
  const shots = join(REPO_ROOT, SCREENSHOT_DIR);

  async function newPage(viewport: { width: number; height: number } = DESKTOP): Promise<Page> {
    return (await site.newPage(viewport)).page;
  }

  /** The service through the typed client (client/), as any game client reads it. */
  const api = (): GameDataClient => new GameDataClient({ baseUrl: site.base });

  it('searches as you type (no Enter), narrows by type, and opens a result on its item page', async () => {
    const weapon = (await records('master-weapons.json', 'items'))[0]!;
    const name = str(weapon.name);
    const page = await newPage();
    await page.goto('/');
    await settled(page);
    await page.keyboard.press('/');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('q');

    const answered = page.waitForResponse((r) => pathIs('/api/search')(r) && new URL(r.url()).searchParams.get('q') === name);
    await page.keyboard.type(name, { delay: 20 });
    const answer = await answered;
    const body = (await answer.json()) as { totalResults: number; results: { type: string; id: string; name: string }[] };
    await expect.poll(() => page.locator('#search-results li a').count()).toBe(body.results.length);
    expect(query(page)).toEqual({ view: 'search', q: name });
    const first = page.locator('#search-results li').first();
    expect(await first.locator('a').textContent()).toBe(name);
    expect(await first.locator('code').textContent()).toBe(weapon.uuid);
    expect(await page.locator('#search-status').textContent()).toContain(String(body.totalResults));
    // typing stayed in the box: the search view did not take the focus
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('q');

    await Promise.all([page.waitForResponse(pathIs('/api/search')), page.selectOption('#type', 'bosses')]);
    await settled(page);
    expect(query(page)).toEqual({ view: 'search', q: name, type: 'bosses' });
    expect(await page.locator('#search-results li').count()).toBe(0);
    expect(await page.locator('#search-status').textContent()).toContain('bosses');

    await Promise.all([page.waitForResponse(pathIs('/api/search')), page.selectOption('#type', 'weapons')]);
    await settled(page);
    await first.locator('a').click();
    await settled(page);
    expect(query(page)).toEqual({ view: 'item', kind: 'weapons', id: weapon.uuid });
    expect(await page.locator('h1').textContent()).toBe(name);
    expect(await page.locator('.ids').textContent()).toContain(str(weapon.uuid));
    // Back returns to the results
    await page.goBack();
    await settled(page);
    expect(query(page).view).toBe('search');
    expect(await page.locator('#search-results li a').first().textContent()).toBe(name);
  });

  it('filters relics with the controls, pages through them, and keeps the view in the address across reload and Back', async () => {
    const relics = await records('master-relics.json', 'relics');
    const elemental = relics.filter((r) => r.category === 'elemental').map((r) => str(r.name));
    expect(elemental.length).toBeGreaterThan(5);
    const page = await newPage();
    await page.goto('/?view=collection&name=relics');
    await settled(page);
    expect(await tableNames(page)).toEqual(relics.slice(0, 20).map((r) => str(r.name)));

    await Promise.all([
      page.waitForResponse((r) => pathIs('/v1/relics')(r) && new URL(r.url()).searchParams.get('category') === 'elemental'),
      page.getByLabel('Category').selectOption('elemental'),
    ]);
    await settled(page);
    expect(query(page)).toEqual({ view: 'collection', name: 'relics', category: 'elemental' });
    expect(await tableNames(page)).toEqual(elemental.slice(0, 20));
    await Promise.all([
      page.waitForResponse((r) => pathIs('/v1/relics')(r) && new URL(r.url()).searchParams.get('limit') === '10'),
      page.getByLabel('Per page').selectOption('10'),
    ]);
    await settled(page);
    expect(query(page)).toEqual({ view: 'collection', name: 'relics', category: 'elemental', limit: '10' });
    expect(await tableNames(page)).toEqual(elemental.slice(0, 10));
    // a shared address may name any page size (1-500); the control follows it
    await page.goto('/?view=collection&name=relics&category=elemental&limit=5');
    await settled(page);
    expect(await tableNames(page)).toEqual(elemental.slice(0, 5));
    expect(await page.locator('#collection-status').textContent()).toBe(`Showing 1–5 of ${elemental.length} relics.`);
    expect(await page.getByLabel('Per page').inputValue()).toBe('5');

    await Promise.all([page.waitForResponse(pathIs('/v1/relics')), page.locator('.pager-top .next').click()]);
    await settled(page);
    expect(query(page)).toEqual({ view: 'collection', name: 'relics', category: 'elemental', limit: '5', offset: '5' });
    expect(await tableNames(page)).toEqual(elemental.slice(5, 10));
    expect(await page.locator('#collection-status').textContent()).toBe(
      `Showing 6–${Math.min(10, elemental.length)} of ${elemental.length} relics.`,
    );

    await page.reload();
    await settled(page);
    expect(await tableNames(page)).toEqual(elemental.slice(5, 10));
    expect(await page.getByLabel('Category').inputValue()).toBe('elemental');
    expect(await page.getByLabel('Per page').inputValue()).toBe('5');

    await page.goBack();
    await settled(page);
    expect(query(page)).toEqual({ view: 'collection', name: 'relics', category: 'elemental', limit: '5' });
    expect(await tableNames(page)).toEqual(elemental.slice(0, 5));

    // two filters combine (AND), and a change starts again at the first page
    await page.goForward();
    await settled(page);
    await Promise.all([
      page.waitForResponse((r) => pathIs('/v1/relics')(r) && new URL(r.url()).searchParams.get('tier') === '3'),
      page.getByLabel('Tier').selectOption('3'),
    ]);
    await settled(page);
    expect(query(page)).toEqual({ view: 'collection', name: 'relics', category: 'elemental', tier: '3', limit: '5' });
    expect(await tableNames(page)).toEqual(relics.filter((r) => r.category === 'elemental' && r.tier === 3).map((r) => str(r.name)));

    // a free-word filter reloads as you type, and keeps the focus in its field
    await page.getByLabel('Element').fill('');
    await Promise.all([
      page.waitForResponse((r) => pathIs('/v1/relics')(r) && new URL(r.url()).searchParams.get('element') === 'fire'),
      page.getByLabel('Element').pressSequentially('fire'),
    ]);
    await settled(page);
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('f-element');
    expect(await tableNames(page)).toEqual(
      relics
        .filter((r) => r.category === 'elemental' && r.tier === 3 && String(r.element).toLowerCase() === 'fire')
        .map((r) => str(r.name)),
    );
  });

  it('offers every filter of spec 4.2 as a control on each collection, and discovered=all for artifacts', async () => {
    const page = await newPage();
    for (const [name, filters] of Object.entries(SPEC_FILTERS)) {
      await page.goto(`/?view=collection&name=${name}`);
      await settled(page);
      const controls = await page.$$eval('#collection-filters [name]', (els) => els.map((e) => (e as HTMLInputElement).name));
      expect(controls, name).toEqual(['q', ...filters.map(([p]) => p), ...(name === 'artifacts' ? ['discovered'] : []), 'limit']);
      for (const [param, values] of filters) {
        const el = page.locator(`#collection-filters [name="${param}"]`);
        // every control has a label a screen reader announces
        expect(await el.evaluate((e) => (e as HTMLInputElement).labels?.[0]?.textContent ?? ''), `${name} ${param}`).not.toBe('');
        if (values)
          expect(await el.locator('option').evaluateAll((os) => os.map((o) => (o as HTMLOptionElement).value)), `${name} ${param}`).toEqual(
            ['', ...values],
          );
      }
    }
    // artifacts hide the undiscovered ones unless asked (spec 3, 4.2)
    const artifacts = await records('master-artifacts.json', 'artifacts');
    const hidden = artifacts.filter((a) => (a.discovery as Rec | undefined)?.hiddenUntilFound === true).length;
    expect(hidden).toBeGreaterThan(0);
    expect(await page.locator('#collection-status').textContent()).toBe(
      `Showing 1–${artifacts.length - hidden} of ${artifacts.length - hidden} artifacts.`,
    );
    await Promise.all([
      page.waitForResponse((r) => pathIs('/v1/artifacts')(r) && new URL(r.url()).searchParams.get('discovered') === 'all'),
      page.getByLabel('Include undiscovered').check(),
    ]);
    await settled(page);
    expect(query(page).discovered).toBe('all');
    expect(await page.locator('#collection-status').textContent()).toBe(`Showing 1–${artifacts.length} of ${artifacts.length} artifacts.`);
  });

  it('opens a weapon, follows its recipe, then a material of the recipe, and comes back', async () => {
    const weapon = (await records('master-weapons.json', 'items'))[0]!;
    const recipe = (await records('master-recipes.json', 'recipes')).find((r) => r.uuid === weapon.recipeUuid)!;
    expect(recipe).toBeDefined();
    const material = (recipe.materials as Rec[])[0]!;
    const materialRecord = (await records('master-materials.json', 'materials')).find((m) => m.uuid === material.uuid)!;
    const page = await newPage();
    await page.goto(`/?view=item&kind=weapons&id=${str(weapon.uuid)}`);
    await settled(page);
    expect(await page.locator('h1').textContent()).toBe(weapon.name);

    await page.locator(`#item-references a[href*="${str(recipe.uuid)}"]`).click();
    await settled(page);
    expect(query(page)).toMatchObject({ view: 'item', id: recipe.uuid });
    expect(await page.locator('h1').textContent()).toBe(recipe.name);
    // the recipe names its result and each of its materials as links
    const refs = await page.$$eval('#item-references a', (as) =>
      as.map((a) => new URL((a as HTMLAnchorElement).href).searchParams.get('id')),
    );
    expect(refs).toEqual(expect.arrayContaining([...(recipe.materials as Rec[]).map((m) => m.uuid), recipe.resultItemId]));
    // the focus moved to the new page's heading
    expect(await page.evaluate(() => document.activeElement?.tagName)).toBe('H1');

    await page
      .locator(`#item-references a[href*="${str(material.uuid)}"]`)
      .first()
      .click();
    await settled(page);
    expect(query(page)).toEqual({ view: 'item', kind: 'materials', id: material.uuid });
    expect(await page.locator('h1').textContent()).toBe(materialRecord.name);

    await page.goBack();
    await settled(page);
    expect(await page.locator('h1').textContent()).toBe(recipe.name);
    await page.goBack();
    await settled(page);
    expect(await page.locator('h1').textContent()).toBe(weapon.name);
  });

  it('has an item page for every kind of the catalog, showing the record it names', async () => {
    const first = async (file: string, array: string): Promise<Rec> => (await records(file, array))[0]!;
    const skills = ((await source('master-weaponSkills.json')).weaponTypes as Rec[]).flatMap((t) =>
      (t.slots as Rec[]).flatMap((s) => s.skills as Rec[]),
    );
    // a skill whose SKIL id the build derives (spec 2.6): its id comes from the search answer
    const derived = skills.find((s) => s.studioUuid === undefined)!;
    const hit = (await api().search({ query: { q: str(derived.name), type: 'skills' } })).body.results.find(
      (r) => r.name === derived.name,
    )!;
    const sprite = (await api().listSprites({ query: { limit: 1 } })).body.items[0]! as unknown as Rec;
    const icon = (await api().listIcons({ query: { limit: 1 } })).body.items[0]! as unknown as Rec;
    const character = (await api().listSpriteCharacters({ query: { limit: 1 } })).body.items[0]! as unknown as Rec;
    const hiddenArtifact = (await records('master-artifacts.json', 'artifacts')).find(
      (a) => (a.discovery as Rec).hiddenUntilFound === true,
    )!;
    const cases: [kind: string, id: string, name: string, record?: Rec][] = [];
    const add = (kind: string, r: Rec, idField = 'uuid', withRecord = true): void => {
      cases.push([kind, str(r[idField]), str(r.name), withRecord ? r : undefined]);
    };
    add('weapons', await first('master-weapons.json', 'items'));
    add('armor', await first('master-armor.json', 'items'));
    add('materials', await first('master-materials.json', 'materials'));
    add('consumables', await first('master-consumables.json', 'items'));
    add(
      'skills',
      skills.find((s) => typeof s.studioUuid === 'string')!,
      'studioUuid',
    );
    cases.push(['skills', hit.id, str(derived.name)]);
    add('enemies', await first('enemies.json', 'enemies'), 'id');
    add('bosses', await first('bosses.json', 'bosses'), 'id');
    add('recipes', await first('master-recipes.json', 'recipes'));
    add('attributes', await first('master-attributes.json', 'attributes'));
    add('relics', await first('master-relics.json', 'relics'));
    add('enchants', await first('master-enchants.json', 'enchants'));
    add('infusions', await first('master-infusions.json', 'infusions'));
    add('artifacts', hiddenArtifact);
    add('sprites', sprite);
    add('icons', icon, 'iconUuid');
    add('characters', character);

    const page = await newPage();
    for (const [kind, id, name, record] of cases) {
      await page.goto(`/?${new URLSearchParams({ view: 'item', kind, id }).toString()}`);
      await settled(page);
      expect(await page.locator('h1').textContent(), `${kind} ${id}`).toBe(name);
      expect(await page.locator('.ids').textContent(), `${kind} ${id}`).toContain(id);
      // the raw JSON link answers, and the JSON shown is the record as the catalog holds it
      const raw = await page.locator('#raw-link').getAttribute('href');
      const res = await fetch(`${site.base}${raw}`);
      expect(res.status, `${kind} raw ${raw}`).toBe(200);
      const shown = JSON.parse((await page.locator('pre.json').textContent()) ?? '') as Rec;
      if (record) expect(shown, `${kind} ${id}`).toEqual(record);
      else expect(Object.values(shown), `${kind} ${id}`).toContain(id);
      // its picture box is there, with an image or a placeholder, never a broken image
      expect(await page.locator('.item-head .thumb').count()).toBe(1);
    }
    // an id nobody has says so
    await page.goto('/?view=item&kind=weapons&id=ITEM-NOPE');
    await settled(page);
    expect(await page.locator('h1').textContent()).toBe('Weapon not found');
    expect(await page.locator('#item-error').textContent()).toContain('ITEM-NOPE');
  });

  it('says when an item cannot be read, with the problem the service answered', async () => {
    const weapon = (await records('master-weapons.json', 'items'))[0]!;
    const problem = {
      type: 'https://errors.game-data.dev/unavailable',
      title: 'Unavailable',
      status: 503,
      code: 'UNAVAILABLE',
      detail: 'The catalog is being replaced; try again in a minute.',
    };
    const page = await newPage();
    await page.route(`${site.base}/api/v1/master-weapons.json`, (route) =>
      route.fulfill({ status: 503, contentType: 'application/problem+json', body: JSON.stringify(problem) }),
    );
    await page.goto(`/?view=item&kind=weapons&id=${str(weapon.uuid)}`);
    await settled(page);
    expect(await page.locator('h1').textContent()).toBe('Weapon could not be read');
    expect(await page.locator('#item-error').textContent()).toBe(problem.detail);
    expect(await page.locator('.item-head .thumb').getAttribute('data-state')).toBe('none');
  });

  it('shows an image once the CDN answers, and keeps the same placeholder box when the binary is missing', async () => {
    const list = (await api().listIcons({ query: { category: 'weapon', limit: 48 } })).body;
    expect(list.items.length).toBeGreaterThan(1);
    const good = list.items[0]!;
    const missing = list.items[1]!;
    const page = await newPage();
    await page.route(good.url, (route) => route.fulfill({ status: 200, contentType: 'image/png', body: PNG_1X1 }));
    await page.route(missing.url, (route) => route.fulfill({ status: 404, contentType: 'text/plain', body: 'Not Found' }));
    await page.goto('/?view=icons&category=weapon');
    await settled(page);
    const tileOf = (id: string) => page.locator('#icon-grid li', { has: page.locator('code', { hasText: id }) }).locator('.thumb');
    await expect.poll(() => tileOf(good.iconUuid).getAttribute('data-state')).toBe('loaded');
    await expect.poll(() => tileOf(missing.iconUuid).getAttribute('data-state')).toBe('missing');
    expect(
      await tileOf(good.iconUuid)
        .locator('img')
        .evaluate((i) => [(i as HTMLImageElement).naturalWidth, getComputedStyle(i).opacity]),
    ).toEqual([1, '1']);
    expect(await tileOf(missing.iconUuid).textContent()).toBe('Image not available');
    expect(await tileOf(missing.iconUuid).locator('img').count()).toBe(0);
    // same box in both states
    const [a, b] = [await tileOf(good.iconUuid).boundingBox(), await tileOf(missing.iconUuid).boundingBox()];
    expect([a?.width, a?.height]).toEqual([b?.width, b?.height]);
    // no broken image anywhere: every <img> left on the page has loaded pixels
    await expect.poll(() => page.locator('#icon-grid .thumb[data-state="loading"]').count()).toBe(0);
    expect(await page.$$eval('img', (imgs) => imgs.filter((i) => !i.complete || i.naturalWidth === 0).length)).toBe(0);

    // an item's icon, looked up by its ICON id in the registry, on the item page
    const weapon = (await records('master-weapons.json', 'items')).find((w) => typeof w.iconUuid === 'string')!;
    const icon = (await api().getIcon({ key: str(weapon.iconUuid) })).body;
    await page.route(icon.url, (route) => route.fulfill({ status: 200, contentType: 'image/png', body: PNG_1X1 }));
    await page.goto(`/?view=item&kind=weapons&id=${str(weapon.uuid)}`);
    await settled(page);
    await expect.poll(() => page.locator('.item-head .thumb').getAttribute('data-state')).toBe('loaded');
    expect(await page.locator('.item-head .thumb img').getAttribute('src')).toBe(icon.url);
    expect(await page.locator('.item-head .thumb img').getAttribute('alt')).toBe(weapon.name);
  });

  it('shows the icons of each category as a grid, with the counts of the registry, and pages through all icons', async () => {
    const cats = (await api().listIconCategories()).body;
    const page = await newPage();
    await page.goto('/?view=icons');
    await settled(page);
    const tabs = await page.$$eval('.tabs a', (as) => as.map((a) => a.textContent ?? ''));
    expect(tabs).toEqual([`All (${cats.total})`, ...cats.categories.map((c) => `${c.category} (${c.count})`)]);
    const first = (await api().listIcons({ query: { limit: 48 } })).body;
    expect(await page.$$eval('#icon-grid .tile-name', (s) => s.map((e) => e.textContent))).toEqual(first.items.map((i) => i.name));

    const skill = cats.categories.find((c) => c.category === 'skill')!;
    await page.locator('.tabs a', { hasText: /^skill / }).click();
    await settled(page);
    expect(query(page)).toEqual({ view: 'icons', category: 'skill' });
    const skills = (await api().listIcons({ query: { category: 'skill', limit: 48 } })).body;
    expect(await page.locator('#icon-grid .tile').count()).toBe(skill.count);
    expect(await page.$$eval('#icon-grid .tile-name', (s) => s.map((e) => e.textContent))).toEqual(skills.items.map((i) => i.name));
    expect(await page.locator('.tabs a[aria-current="page"]').textContent()).toBe(`skill (${skill.count})`);

    // the whole registry in pages of 48
    await page.goto('/?view=icons');
    await settled(page);
    if (cats.total > 48) {
      await page.locator('.pager .next').click();
      await settled(page);
      expect(query(page)).toEqual({ view: 'icons', page: '2' });
      expect(await page.locator('#icon-grid .tile').count()).toBe(cats.total - 48);
    }
    // a tile opens the icon's item page
    await page.locator('#icon-grid .tile a').first().click();
    await settled(page);
    expect(query(page).kind).toBe('icons');
  });

  it('shows the totals that /api/stats and /api/v1/stats report', async () => {
    const stats = (await api().getStats()).body;
    const registry = (await api().getRegistryStats()).body;
    const page = await newPage();
    await page.goto('/?view=stats');
    await settled(page);
    const rows = await page.$$eval('#stats-table tbody tr', (trs) =>
      trs.map((tr) => [...(tr as HTMLTableRowElement).cells].map((c) => c.textContent ?? '')),
    );
    const expected = Object.entries(stats.totals).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    expect(rows.map(([n, c]) => [n, Number((c ?? '').replaceAll(',', ''))])).toEqual(expected);
    const defs = await page.$$eval('#definitions-table tbody tr', (trs) =>
      trs.map((tr) => [...(tr as HTMLTableRowElement).cells].map((c) => c.textContent ?? '')),
    );
    expect(Object.fromEntries(defs.map(([k, n]) => [k, Number(n)]))).toEqual(stats.definitions);
    expect(await page.locator('#registry-table').textContent()).toContain(String(registry.icons.total));
    expect(await page.locator('#view').textContent()).toContain(stats.catalog);
    // the numbers line up right, with their header
    const align = await page.$eval('#stats-table', (t) => {
      const table = t as HTMLTableElement;
      return [table.tHead!.rows[0]!.cells[1]!, table.tBodies[0]!.rows[0]!.cells[1]!].map((c) => getComputedStyle(c).textAlign);
    });
    expect(align).toEqual(['right', 'right']);
    // a collection's total leads to that collection
    await page.locator('#stats-table a', { hasText: 'relics' }).click();
    await settled(page);
    expect(query(page)).toEqual({ view: 'collection', name: 'relics' });
  });

  it('lists every problem of the last build by file, filterable by severity and by rule, with the filter in the address', async () => {
    const report = (await api().getBuildReport()).body;
    expect(report.issues.length).toBeGreaterThan(0);
    const page = await newPage();
    await page.goto('/?view=report');
    await settled(page);
    expect(await page.locator('#report-summary').textContent()).toContain('The build succeeded');
    expect(await page.locator('#report-summary').textContent()).toContain(str(report.buildId));
    const files = [...new Set(report.issues.map((i) => i.file))].sort();
    expect(await page.$$eval('.report-file', (s) => s.map((e) => (e as HTMLElement).dataset.file))).toEqual(files);
    // each problem: line:column, pointer, rule, severity, message
    const firstRow = report.issues.filter((i) => i.file === files[0]).sort((a, b) => a.line - b.line)[0]!;
    const cells = await page.locator('.report-file').first().locator('tbody tr').first().locator('td').allTextContents();
    expect(cells).toEqual([
      `${firstRow.line}:${firstRow.column}`,
      firstRow.pointer === '' ? '(whole file)' : firstRow.pointer,
      firstRow.rule,
      firstRow.severity,
      firstRow.message,
    ]);

    await page.getByLabel('Severity').selectOption('warn');
    await settled(page);
    expect(query(page)).toEqual({ view: 'report', severity: 'warn' });
    expect(await page.locator('.report-file tbody tr').count()).toBe(report.issues.filter((i) => i.severity === 'warn').length);

    const rules = [...new Set(report.issues.filter((i) => i.severity === 'warn').map((i) => i.rule))].sort();
    expect(await page.locator('#r-rule option').evaluateAll((os) => os.map((o) => (o as HTMLOptionElement).value))).toEqual(['', ...rules]);
    // with the keyboard: the first rule is one step down from "All rules"; the select keeps the focus
    const rule = rules[0]!;
    await page.getByLabel('Rule').focus();
    await page.keyboard.press('ArrowDown');
    await settled(page);
    expect(query(page)).toEqual({ view: 'report', severity: 'warn', rule });
    const kept = report.issues.filter((i) => i.severity === 'warn' && i.rule === rule);
    expect(await page.locator('.report-file tbody tr').count()).toBe(kept.length);
    expect(await page.$$eval('.report-file', (s) => s.map((e) => (e as HTMLElement).dataset.file))).toEqual(
      [...new Set(kept.map((i) => i.file))].sort(),
    );
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('r-rule');

    await page.reload();
    await settled(page);
    expect(await page.getByLabel('Rule').inputValue()).toBe(rule);
    expect(await page.locator('.report-file tbody tr').count()).toBe(kept.length);

    await page.getByLabel('Severity').selectOption('error');
    await settled(page);
    expect(await page.locator('.report-file').count()).toBe(report.issues.filter((i) => i.severity === 'error' && i.rule === rule).length);
    expect(await page.locator('#report-status').textContent()).toContain(`of ${report.issues.length} problems`);
  });

  it("shows a failed build's errors first while the local server serves the previous output", async () => {
    const src = join(site.tmp, 'broken-src');
    await cp(SAMPLE_SRC, src, { recursive: true });
    const relics = await readFile(join(src, 'master-relics.json'), 'utf8');
    await writeFile(join(src, 'master-relics.json'), relics.replace('"tier": 1,', '"tier": 1,,'));
    const failed = await buildCatalog({ src, out: join(site.tmp, 'broken-out'), site: false, reportFile: false });
    expect(failed.ok).toBe(false);
    const failing = await startServer({
      out: site.out,
      port: 0,
      root: REPO_ROOT,
      host: '127.0.0.1',
      buildReport: publishedBuildReport(failed),
    });
    try {
      const origin = `http://127.0.0.1:${failing.port}`;
      const report = (await new GameDataClient({ baseUrl: origin }).getBuildReport()).body;
      const errors = report.issues.filter((i) => i.severity === 'error');
      expect(errors.length).toBeGreaterThan(0);
      const o = await site.newPage(DESKTOP, origin);
      await o.page.goto('/?view=report&severity=error');
      await settled(o.page);
      const alert = o.page.getByRole('alert');
      expect(await alert.textContent()).toContain(`The last build failed with ${report.stats.errors} error`);
      expect(await o.page.locator('.report-file tbody tr').count()).toBe(errors.length);
      expect(await o.page.$$eval('.report-file', (s) => s.map((e) => (e as HTMLElement).dataset.file))).toEqual(
        [...new Set(errors.map((i) => i.file))].sort(),
      );
      const cells = await o.page.locator('.report-file tbody tr').first().locator('td').allTextContents();
      expect(cells.slice(0, 4)).toEqual([
        `${errors[0]!.line}:${errors[0]!.column}`,
        errors[0]!.pointer === '' ? '(whole file)' : errors[0]!.pointer,
        errors[0]!.rule,
        'error',
      ]);
    } finally {
      await failing.close();
    }
  });

  it('works from the keyboard: skip link, "/" to search, Tab to a result, Enter to open it, visible focus', async () => {
    const weapon = (await records('master-weapons.json', 'items'))[0]!;
    const page = await newPage();
    await page.goto('/');
    await settled(page);
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Skip to content');
    await page.keyboard.press('/');
    await page.keyboard.type(str(weapon.name));
    await page.waitForResponse(pathIs('/api/search'));
    await settled(page);
    await expect.poll(() => page.locator('#search-results a').count()).toBeGreaterThan(0);
    let reached = false;
    for (let i = 0; i < 30 && !reached; i++) {
      await page.keyboard.press('Tab');
      reached = await page.evaluate(() => document.activeElement?.closest('#search-results') !== null);
    }
    expect(reached).toBe(true);
    // the focused link is outlined
    expect(await page.evaluate(() => getComputedStyle(document.activeElement!).outlineStyle)).not.toBe('none');
    await page.keyboard.press('Enter');
    await settled(page);
    expect(query(page).view).toBe('item');
    expect(await page.locator('h1').textContent()).toBe(weapon.name);
    expect(await page.evaluate(() => document.activeElement?.tagName)).toBe('H1');
    // a select of the filters works with the keyboard alone
    await page.goto('/?view=collection&name=enchants');
    await settled(page);
    await page.getByLabel('Target').focus();
    await Promise.all([
      page.waitForResponse((r) => pathIs('/v1/enchants')(r) && new URL(r.url()).searchParams.get('target') === 'weapon'),
      page.keyboard.press('ArrowDown'),
    ]);
    await settled(page);
    expect(query(page)).toEqual({ view: 'collection', name: 'enchants', target: 'weapon' });
  });

  it('does not move the layout while a collection, an item page and the report load', async () => {
    const weapon = (await records('master-weapons.json', 'items'))[0]!;
    const page = await newPage();
    for (const path of [
      '/?view=collection&name=relics',
      `/?view=item&kind=weapons&id=${str(weapon.uuid)}`,
      '/?view=report',
      '/?view=icons',
    ]) {
      await page.goto(path);
      await settled(page);
      await page.waitForTimeout(200);
      const shift = await page.evaluate(
        () =>
          new Promise<number>((resolve) => {
            let sum = 0;
            new PerformanceObserver((list) => {
              for (const e of list.getEntries() as (PerformanceEntry & { value: number; hadRecentInput: boolean })[])
                if (!e.hadRecentInput) sum += e.value;
            }).observe({ type: 'layout-shift', buffered: true });
            setTimeout(() => resolve(sum), 100);
          }),
      );
      // the "good" bound of cumulative layout shift
      expect(shift, path).toBeLessThan(0.1);
    }
  });

  it('fits a 390 px wide phone without sideways scrolling, and saves screenshots at 1280 and 390 px', async () => {
    const weapon = (await records('master-weapons.json', 'items'))[0]!;
    const views: [name: string, path: string][] = [
      ['home', '/'],
      ['search', `/?view=search&q=${encodeURIComponent('ember')}`],
      ['relics', '/?view=collection&name=relics&category=elemental'],
      ['artifacts', '/?view=collection&name=artifacts&discovered=all'],
      ['weapon', `/?view=item&kind=weapons&id=${str(weapon.uuid)}`],
      ['icons', '/?view=icons&category=weapon'],
      ['sprites', '/?view=sprites'],
      ['stats', '/?view=stats'],
      ['report', '/?view=report'],
    ];
    for (const viewport of [DESKTOP, PHONE]) {
      const page = await newPage(viewport);
      for (const [name, path] of views) {
        await page.goto(path);
        await settled(page);
        const { scrollWidth, innerWidth } = await pageWidths(page);
        expect(scrollWidth, `${name} at ${viewport.width}px`).toBeLessThanOrEqual(innerWidth);
        const png = await saveScreenshot(page, shots, `catalog-${name}-${viewport.width}`);
        expect(png.subarray(1, 4).toString('latin1')).toBe('PNG');
        expect(png.readUInt32BE(16), name).toBe(viewport.width);
      }
    }
  });

  it('links to static files and endpoints that answer 200 from the home view', async () => {
    const page = await newPage();
    await page.goto('/');
    await settled(page);
    await page.waitForSelector('#file-links a');
    const links = (await page.$$eval('#view a[href], footer a[href]', (as) => as.map((a) => (a as HTMLAnchorElement).href))).map(
      (h) => new URL(h),
    );
    const outside = links.filter((u) => u.pathname !== '/');
    expect(outside.some((u) => u.pathname === '/api/export' && u.searchParams.get('format') === 'csv')).toBe(true);
    expect(outside.some((u) => u.pathname === '/api/v1/game-data-manifest.json')).toBe(true);
    const broken: string[] = [];
    for (const u of outside) {
      expect(u.origin, u.href).toBe(site.base);
      const res = await fetch(u);
      if (res.status !== 200) broken.push(`${u.pathname}${u.search} ${res.status}`);
      await res.arrayBuffer();
    }
    expect(broken).toEqual([]);
  });

  it('renders the API reference at /docs/ from the OpenAPI document, loading nothing from elsewhere', async () => {
    const o = await site.newPage();
    const res = await o.page.goto('/docs');
    expect(res?.status()).toBe(200);
    expect(new URL(o.page.url()).pathname).toBe('/docs/');
    const doc = (await (await fetch(`${site.base}/api/openapi.json`)).json()) as {
      paths: Record<string, Record<string, { summary: string }>>;
    };
    // every tag's first operation is listed by its summary
    await o.page.getByText(doc.paths['/api/search']!.get!.summary, { exact: true }).first().waitFor();
    await o.page
      .getByRole('button', { name: /wallet/i })
      .first()
      .click();
    await o.page.getByText(doc.paths['/api/wallet/verify-send-to-account']!.post!.summary, { exact: true }).first().waitFor();
    expect(await o.page.locator('#docs-status').count()).toBe(0);
    expect(o.offsite).toEqual([]);
    await saveScreenshot(o.page, shots, 'docs-1280', { fullPage: false });
  });
});

// The first run (npm start on a fresh data folder, test/helpers/first-run.ts): the sample catalog's own
// pictures come from the local storage at {cdn_url}, with no route stubbed; one the storage lost keeps the
// placeholder (docs/architecture.md, "Sample binaries").
describe.skipIf(!hasChromium && !inCi)('catalog browser in Chromium after npm start (sample pictures from local storage)', () => {
  let run: FirstRun | undefined;
  let browser: Browser | undefined;
  beforeAll(async () => {
    run = await startFirstRun();
    browser = await launchChromium();
  }, 150_000);
  afterAll(async () => {
    await browser?.close();
    await run?.stop();
  });

  it('loads every sample picture of the icon grid and an item page (naturalWidth > 0), and shows the placeholder for a lost one', async () => {
    const { url, data } = run!;
    const icons = (await (await fetch(`http://127.0.0.1:${run!.port}/api/v1/icons?category=weapon&limit=48`)).json()) as {
      items: { iconUuid: string; key: string; url: string }[];
    };
    expect(icons.items.length).toBeGreaterThan(1);
    for (const i of icons.items) expect(i.url.startsWith(`${url}/storage/`)).toBe(true);
    const lost = icons.items[1]!;
    await localStorageAdapter(join(data, 'storage'), `${url}/storage`).delete(lost.key);
    // the page on the origin the server names, so its {cdn_url} is the same origin (others fail as network errors)
    const { page, context, offsite, errors } = await openPage(browser!, url);
    try {
      await page.goto('/?view=icons&category=weapon');
      await settled(page);
      await expect.poll(() => page.locator('#icon-grid .thumb[data-state="loading"]').count()).toBe(0);
      const tileOf = (id: string) => page.locator('#icon-grid li', { has: page.locator('code', { hasText: id }) }).locator('.thumb');
      for (const i of icons.items.filter((x) => x !== lost)) {
        expect(await tileOf(i.iconUuid).getAttribute('data-state'), i.key).toBe('loaded');
        expect(
          await tileOf(i.iconUuid)
            .locator('img')
            .evaluate((img) => (img as HTMLImageElement).naturalWidth),
          i.key,
        ).toBe(64);
      }
      expect(await tileOf(lost.iconUuid).getAttribute('data-state')).toBe('missing');
      expect(await tileOf(lost.iconUuid).textContent()).toBe('Image not available');
      expect(await tileOf(lost.iconUuid).locator('img').count()).toBe(0);

      const weapon = (await records('master-weapons.json', 'items')).find(
        (w) => typeof w.iconUuid === 'string' && w.iconUuid !== lost.iconUuid,
      )!;
      await page.goto(`/?view=item&kind=weapons&id=${str(weapon.uuid)}`);
      await settled(page);
      await expect.poll(() => page.locator('.item-head .thumb').getAttribute('data-state')).toBe('loaded');
      expect(await page.locator('.item-head .thumb img').evaluate((img) => (img as HTMLImageElement).naturalWidth)).toBe(64);

      // an enemy with no icon shows its model's preview from the asset manifest; one whose model has none, the placeholder
      const assets = JSON.parse(await readFile(join(SAMPLE_SRC, 'studiodot-assets.json'), 'utf8')) as { assets: Rec[] };
      const previewed = new Set(assets.assets.filter((a) => a.type === 'model' && a.previewUrl).map((a) => str(a.url)));
      const enemies = await records('enemies.json', 'enemies');
      const shown = enemies.find((e) => previewed.has(`https://cdn.emberfall.example/${str(e.modelPath)}`))!;
      const bare = enemies.find((e) => !previewed.has(`https://cdn.emberfall.example/${str(e.modelPath)}`))!;
      await page.goto(`/?view=item&kind=enemies&id=${str(shown.id)}`);
      await settled(page);
      await expect.poll(() => page.locator('.item-head .thumb').getAttribute('data-state')).toBe('loaded');
      expect(await page.locator('.item-head .thumb img').getAttribute('src')).toMatch(new RegExp(`^${url}/storage/previews/models/`));
      expect(await page.locator('.item-head .thumb img').evaluate((img) => (img as HTMLImageElement).naturalWidth)).toBe(64);
      await page.goto(`/?view=item&kind=enemies&id=${str(bare.id)}`);
      await settled(page);
      await expect.poll(() => page.locator('.item-head .thumb').getAttribute('data-state')).not.toBe('loading');
      expect(await page.locator('.item-head .thumb img').count()).toBe(0);

      await page.goto('/?view=sprites');
      await settled(page);
      await expect.poll(() => page.locator('#sprite-grid .thumb[data-state="loading"]').count()).toBe(0);
      expect(await page.locator('#sprite-grid .thumb[data-state="loaded"]').count()).toBeGreaterThan(0);
      expect(await page.locator('#sprite-grid .thumb:not([data-state="loaded"])').count()).toBe(0);
      expect(await page.$$eval('img', (imgs) => imgs.filter((i) => !i.complete || i.naturalWidth === 0).length)).toBe(0);
      expect(offsite).toEqual([]);
      expect(errors.map((e) => e.message)).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
