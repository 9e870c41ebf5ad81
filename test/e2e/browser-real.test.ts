// The catalog browser over the real studio snapshot (shared fixture, built with its catalog config and the
// site into a temporary folder): a relic opened from its collection and a weapon found by search, each on
// its item page with its references; the snapshot's hundreds of build warnings by file and rule; phone
// width. Expectations come from the snapshot's source files and the HTTP answers. Its records name icons
// on hosts that tests cannot reach, so their pictures must stay placeholders.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { GameDataClient } from '../../client/src/index.js';
import { REAL_CONFIG, REAL_SRC, REPO_ROOT } from '../helpers/catalog.js';
import {
  PHONE,
  SCREENSHOT_DIR,
  addressQuery as query,
  hasChromium,
  inCi,
  pageWidths,
  saveScreenshot,
  settled,
  useBrowserSite,
  type TestPage,
} from '../helpers/browser.js';

type Rec = Record<string, unknown>;

async function records(file: string, array: string): Promise<Rec[]> {
  return (JSON.parse(await readFile(join(REAL_SRC, file), 'utf8')) as Rec)[array] as Rec[];
}

describe.skipIf(!hasChromium && !inCi)('catalog browser in Chromium (real studio snapshot)', () => {
  const site = useBrowserSite({ src: REAL_SRC, config: REAL_CONFIG });
  const newPage = (viewport?: { width: number; height: number }): Promise<TestPage> => site.newPage(viewport);

  it('opens a relic from its collection on its item page, with a placeholder for its unreachable icon', async () => {
    const relic = (await records('master-relics.json', 'relics'))[0]!;
    const { page, offsite } = await newPage();
    await page.goto('/?view=collection&name=relics');
    await settled(page);
    const first = page.locator('#collection-table tbody tr').first().locator('a');
    expect(await first.textContent()).toBe(relic.name);
    await first.click();
    await settled(page);
    expect(query(page)).toEqual({ view: 'item', kind: 'relics', id: relic.uuid });
    expect(await page.locator('h1').textContent()).toBe(relic.name);
    const ids = (await page.locator('.ids').textContent()) ?? '';
    expect(ids).toContain(String(relic.uuid));
    expect(ids).toContain(String(relic.id));
    expect(JSON.parse((await page.locator('pre.json').textContent()) ?? '')).toEqual(relic);
    // the icon's host is not reachable here: the same box stays, saying so, and no broken image is shown
    await expect.poll(() => page.locator('.item-head .thumb').getAttribute('data-state')).toBe('missing');
    expect(offsite).toContain(String(relic.iconUrl));
    expect(await page.locator('.item-head .thumb img').count()).toBe(0);
  });

  it('finds a weapon by search, opens it, follows its recipe, and says so when a material of the recipe is not in the snapshot', async () => {
    const weapon = (await records('master-weapons.json', 'items'))[0]!;
    const recipe = (await records('master-recipes.json', 'recipes')).find((r) => r.uuid === weapon.recipeUuid);
    expect(recipe).toBeDefined();
    const { page } = await newPage();
    await page.goto('/?view=search&type=weapons');
    await settled(page);
    await page.locator('#q').focus();
    await Promise.all([
      page.waitForResponse((r) => new URL(r.url()).pathname === '/api/search' && new URL(r.url()).searchParams.get('q') === weapon.name),
      page.keyboard.type(String(weapon.name)),
    ]);
    await settled(page);
    expect(query(page)).toEqual({ view: 'search', q: weapon.name, type: 'weapons' });
    const hit = page.locator('#search-results li', { has: page.locator('code', { hasText: String(weapon.uuid) }) }).locator('a');
    await hit.click();
    await settled(page);
    expect(query(page)).toEqual({ view: 'item', kind: 'weapons', id: weapon.uuid });
    expect(await page.locator('h1').textContent()).toBe(weapon.name);
    expect(await page.locator('#raw-link').textContent()).toBe('/api/v1/master-weapons.json');

    const link = page.locator(`#item-references a[href*="${String(weapon.recipeUuid)}"]`);
    expect(await link.count()).toBe(1);
    await link.click();
    await settled(page);
    expect(query(page).id).toBe(weapon.recipeUuid);
    expect(await page.locator('h1').textContent()).toBe(recipe!.name);

    // a recipe material may name a material the snapshot does not hold (its config turns that into a
    // warning): the page says it was not found rather than failing
    const material = (recipe!.materials as Rec[])[0]!;
    const known = (await records('master-materials.json', 'materials')).find((m) => m.uuid === material.uuid);
    await page.locator(`#item-references a[href*="${String(material.uuid)}"]`).click();
    await settled(page);
    expect(query(page)).toEqual({ view: 'item', kind: 'materials', id: material.uuid });
    expect(await page.locator('h1').textContent()).toBe(known ? known.name : 'Material not found');
  });

  it("lists the snapshot's warnings by file and narrows them to one rule", async () => {
    const report = (await new GameDataClient({ baseUrl: site.base }).getBuildReport()).body;
    const rules = [...new Set(report.issues.map((i) => i.rule))].sort();
    expect(report.issues.length).toBeGreaterThan(100);
    const { page } = await newPage();
    await page.goto('/?view=report');
    await settled(page);
    expect(await page.locator('.report-file tbody tr').count()).toBe(report.issues.length);
    expect(await page.locator('#r-rule option').evaluateAll((os) => os.map((o) => (o as HTMLOptionElement).value))).toEqual(['', ...rules]);
    const rule = 'law/unresolved-ref';
    expect(rules).toContain(rule);
    await page.getByLabel('Rule').selectOption(rule);
    await settled(page);
    expect(query(page)).toEqual({ view: 'report', rule });
    const kept = report.issues.filter((i) => i.rule === rule);
    expect(await page.locator('.report-file tbody tr').count()).toBe(kept.length);
    expect(await page.$$eval('.report-file', (s) => s.map((e) => (e as HTMLElement).dataset.file))).toEqual(
      [...new Set(kept.map((i) => i.file))].sort(),
    );
  });

  it("fits a 390 px wide phone on the snapshot's pages, and saves their screenshots", async () => {
    const weapon = (await records('master-weapons.json', 'items'))[0]!;
    const relic = (await records('master-relics.json', 'relics'))[0]!;
    const { page } = await newPage(PHONE);
    for (const [name, path] of [
      ['relic', `/?view=item&kind=relics&id=${String(relic.uuid)}`],
      ['weapon', `/?view=item&kind=weapons&id=${String(weapon.uuid)}`],
      ['enchants', '/?view=collection&name=enchants'],
      ['report', '/?view=report&rule=law/unresolved-ref'],
    ] as const) {
      await page.goto(path);
      await settled(page);
      const { scrollWidth, innerWidth } = await pageWidths(page);
      expect(scrollWidth, name).toBeLessThanOrEqual(innerWidth);
      // the report's hundreds of problems make a page too long to keep whole
      await saveScreenshot(page, join(REPO_ROOT, SCREENSHOT_DIR), `catalog-real-${name}-${PHONE.width}`, { fullPage: name !== 'report' });
    }
  });
});
