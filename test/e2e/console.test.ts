// The operator console (/admin/, site/admin/; docs/architecture.md, "Operator console") in a real browser:
// the sample catalog and the site are built into a temporary folder and served by the local server with an
// embedded store, an admin password and a signing secret; Debian's Chromium uses the console as an operator
// would: signing in with the password (only a short-lived token is kept, for the tab), finding a player by
// keyboard, reading the player's page, granting coin through its confirmation, a double click and a lost
// answer that still apply once, a reversal and the 409 of a second one, a support token that sees no action
// control, a refused token that returns to the sign-in and back, labels and keyboard reach, and the phone
// width; the whole of an operator's day (grant, reversal, ban, unban, export, erasure) found again in the
// audit log; a bag grant reversed and an item voided through the page, each refused in place the second
// time; the ledger health with a check run now; and, across the suite, no request of the page leaving the
// local server's origin but the catalog's icon images on its `{cdn_url}` (spec §1.8). Expectations come
// from the service's own answers and the catalog sources, never from the page's helpers.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page, Request as PageRequest } from 'playwright-core';
import { loadServiceConfig } from '../../api/_lib/config.js';
import { useLogSink } from '../../api/_lib/log.js';
import { mintToken, type Role } from '../../api/_lib/auth/tokens.js';
import { THROTTLE_UNLIMITED } from '../helpers/backends.js';
import { REPO_ROOT, SAMPLE_SRC } from '../helpers/catalog.js';
import {
  DESKTOP,
  PHONE,
  SCREENSHOT_DIR,
  hasChromium,
  inCi,
  pageWidths,
  saveScreenshot,
  settled,
  useBrowserSite,
} from '../helpers/browser.js';

const PASSWORD = 'console-e2e-Pw7qLx2Rm9Tz4Kc8';
const SECRET = 'console-e2e-secret-0123456789-abcdefghijk';
const MATERIAL = 'MATL-20260601090000-000101-F469B3E9';
const ITEM = 'ITEM-20260601093000-00010D-B1F512C1';
const RECIPE = 'RECP-20260601100000-000123-64A3D698';

type Json = Record<string, unknown>;

describe.skipIf(!hasChromium && !inCi)('operator console in Chromium', () => {
  // the local server runs in this process: its operator lines are not this suite's subject
  beforeAll(() => useLogSink(() => undefined));
  afterAll(() => useLogSink(undefined));
  const site = useBrowserSite({ src: SAMPLE_SRC, env: { JWT_SECRET: SECRET, ADMIN_PASSWORD: PASSWORD, ...THROTTLE_UNLIMITED } });
  const shots = join(REPO_ROOT, SCREENSHOT_DIR);
  const jwt = () => loadServiceConfig({ JWT_SECRET: SECRET }).jwt;
  const tokenFor = (sub: string, role: Role, ttlSeconds = 600) => mintToken(jwt(), { subject: sub, role, ttlSeconds });

  /** Call the service as the admin password would. */
  async function service(method: string, path: string, body?: unknown, headers: Record<string, string> = { 'X-Admin-Password': PASSWORD }) {
    const res = await fetch(`${site.base}${path}`, {
      method,
      headers: { ...headers, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    return { status: res.status, body: (text ? JSON.parse(text) : {}) as Json, headers: res.headers };
  }

  /** An account with a grant, a verify-send, a bag line, a unique item, a recipe, a character and an exported island. */
  async function seedPlayer(displayName: string, n: number): Promise<{ studioId: string; accountId: string }> {
    const made = await service('POST', '/api/admin/accounts', { displayName });
    expect(made.status).toBe(201);
    const account = made.body.account as { studioId: string; accountId: string };
    const studioId = account.studioId;
    expect(
      (await service('POST', '/api/admin/grant-coin', { studioId, amount: 5000, reason: 'outage', idempotencyKey: `seed-grant-${n}0000` }))
        .status,
    ).toBe(200);
    expect(
      (
        await service('POST', '/api/wallet/verify-send-to-account', {
          studioId,
          amount: 25,
          purpose: 'verify',
          idempotencyKey: `seed-verify-${n}000`,
        })
      ).status,
    ).toBe(200);
    expect(
      (
        await service('POST', '/api/inventory/grant', {
          studioId,
          definitionId: MATERIAL,
          quantity: 12,
          idempotencyKey: `seed-bag-${n}0000`,
        })
      ).status,
    ).toBe(201);
    expect((await service('POST', '/api/uuid', { studioId, definitionId: ITEM, idempotencyKey: `seed-mint-${n}0000` })).status).toBe(201);
    expect((await service('POST', '/api/account/recipes', { studioId, recipeId: RECIPE })).status).toBeLessThan(300);
    const player = { Authorization: `Bearer ${await tokenFor(studioId, 'player')}` };
    expect(
      (
        await service(
          'POST',
          '/api/characters',
          { era: 'warlords', name: 'Hero', classId: 'warrior', raceId: 'human', factionId: 'crusade' },
          player,
        )
      ).status,
    ).toBe(201);
    const island = await service('GET', '/api/island/state', undefined, player);
    const exported = await service(
      'POST',
      '/api/island/export-from-rts',
      { gridX: 1, gridZ: 2, seed: 77, biome: 'forest' },
      {
        ...player,
        'If-Match': island.headers.get('etag')!,
      },
    );
    expect(exported.status).toBe(200);
    return account;
  }

  /** The account's wallet entries as the service holds them, newest first. */
  async function entries(
    studioId: string,
  ): Promise<{ entryId: string; kind: string; amount: number; note: string; actor: string; reversedBy?: string }[]> {
    const r = await service('GET', `/api/admin/players/${studioId}/wallet?limit=200`);
    return r.body.transactions as never;
  }

  /** Every request a page of this suite made: its URL, its resource type and whether it carried credentials. */
  const requests: { url: string; type: string; credentials: boolean }[] = [];

  async function newPage(viewport: { width: number; height: number } = DESKTOP): Promise<Page> {
    const { context, page } = await site.newPage(viewport);
    context.on('request', (r) => {
      const headers = r.headers();
      requests.push({
        url: r.url(),
        type: r.resourceType(),
        credentials: headers.authorization !== undefined || headers['x-admin-password'] !== undefined,
      });
    });
    return page;
  }

  /** Wait a little over a second: a revocation covers tokens issued at or before its second. */
  const nextSecond = () => new Promise((r) => setTimeout(r, 1100));

  /** Sign in with the admin password from wherever `path` leads (the sign-in keeps `path` as its return address). */
  async function signIn(page: Page, path = '/admin/'): Promise<void> {
    await page.goto(path);
    await settled(page);
    await page.getByLabel('Admin password', { exact: true }).fill(PASSWORD);
    await page.getByLabel('Admin password', { exact: true }).press('Enter');
    await page.waitForFunction(() => new URLSearchParams(location.search).get('view') !== 'signin');
    await settled(page);
  }

  const view = (page: Page) => Object.fromEntries(new URL(page.url()).searchParams);

  it('signs in with the admin password, keeping only a 15-minute token for the tab, and forgets it on signing out', async () => {
    const page = await newPage();
    const exchanged: PageRequest[] = [];
    page.on('request', (r) => {
      if (new URL(r.url()).pathname === '/api/admin/session') exchanged.push(r);
    });
    await page.goto('/admin/');
    await settled(page);
    expect(view(page)).toEqual({ view: 'signin' });
    // a wrong password is refused in place, with the problem's title and detail
    await page.getByLabel('Admin password', { exact: true }).fill('not-the-password-at-all');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.locator('#password-status .problem').waitFor();
    expect(await page.locator('#password-status .problem-title').textContent()).toBe('Authentication required');
    expect(await page.locator('#password-status .problem-detail').textContent()).toContain('The credentials are not valid.');
    expect(await page.getByLabel('Admin password', { exact: true }).inputValue()).toBe('');
    await page.getByLabel('Admin password', { exact: true }).fill(PASSWORD);
    await page.getByLabel('Admin password', { exact: true }).press('Enter');
    await page.locator('#player-q').waitFor();
    await settled(page);
    expect(view(page)).toEqual({});
    expect(exchanged.map((r) => [r.method(), r.headers()['x-admin-password'] !== undefined])).toEqual([
      ['POST', true],
      ['POST', true],
    ]);
    const stored = await page.evaluate(() => ({
      session: Object.entries(sessionStorage) as [string, string][],
      local: Object.entries(localStorage) as [string, string][],
      cookies: document.cookie,
    }));
    expect(stored.local).toEqual([]);
    expect(stored.cookies).toBe('');
    expect(stored.session.map(([k]) => k)).toEqual(['console.operator-token']);
    expect(JSON.stringify(stored)).not.toContain(PASSWORD);
    const token: string = stored.session[0]![1];
    const claims = JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()) as Json;
    expect([claims.sub, claims.role, Number(claims.exp) - Number(claims.iat)]).toEqual(['admin-password', 'admin', 900]);
    expect(await page.locator('#who-name').textContent()).toBe('admin:admin-password');
    // every later call carries the token, never the password
    const calls: PageRequest[] = [];
    page.on('request', (r) => {
      if (new URL(r.url()).pathname.startsWith('/api/admin/players')) calls.push(r);
    });
    await page.keyboard.type('nobody-at-all');
    await page.locator('#search-status').filter({ hasText: 'No player matches' }).waitFor();
    expect(calls.length).toBeGreaterThan(0);
    for (const r of calls) {
      expect(r.headers()['x-admin-password']).toBeUndefined();
      expect(r.headers().authorization).toBe(`Bearer ${token}`);
    }
    await page.getByRole('button', { name: 'Sign out' }).click();
    await settled(page);
    expect(view(page)).toEqual({ view: 'signin' });
    expect(await page.locator('#signin-notice').textContent()).toBe('Signed out: the token is forgotten.');
    expect(await page.evaluate(() => Object.keys(sessionStorage))).toEqual([]);
    await saveScreenshot(page, shots, 'console-signin-1280');
  });

  it('is served at /admin/ as a static page that no other page may frame, with /admin sent there', async () => {
    const page = await fetch(`${site.base}/admin/`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(page.headers.get('x-frame-options')).toBe('DENY');
    expect(page.headers.get('content-security-policy')).toBe("frame-ancestors 'none'");
    expect(page.headers.get('referrer-policy')).toBe('no-referrer');
    expect(await page.text()).toContain('<title>Operator console</title>');
    const bare = await fetch(`${site.base}/admin`, { redirect: 'manual' });
    expect([bare.status, bare.headers.get('location')]).toEqual([308, '/admin/']);
  });

  it('finds a player by keyboard: / focuses the search, results come as you type one request at a time, arrows move, Enter opens', async () => {
    const ada = await seedPlayer('Adalind Keyboard', 1);
    await seedPlayer('Adalind Second', 2);
    const page = await newPage();
    await signIn(page, '/admin/?view=health');
    const searches: string[] = [];
    let inFlight = 0;
    let most = 0;
    page.on('request', (r) => {
      const u = new URL(r.url());
      if (u.pathname !== '/api/admin/players') return;
      searches.push(u.searchParams.get('q')!);
      most = Math.max(most, ++inFlight);
    });
    page.on('requestfinished', (r) => {
      if (new URL(r.url()).pathname === '/api/admin/players') inFlight--;
    });
    await page.locator('h1').click();
    await page.keyboard.press('/');
    await settled(page);
    expect(view(page)).toEqual({});
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('player-q');
    await page.keyboard.type('adalind', { delay: 30 });
    await page.locator('#search-status').filter({ hasText: '2 players match “adalind”' }).waitFor();
    expect(view(page)).toEqual({ view: 'search', q: 'adalind' });
    expect(most).toBe(1);
    expect(searches.at(-1)).toBe('adalind');
    expect(searches.length).toBeLessThanOrEqual(2);
    const options = page.getByRole('option');
    expect(await options.count()).toBe(2);
    expect(await options.nth(0).getAttribute('aria-selected')).toBe('true');
    await page.keyboard.press('ArrowDown');
    expect(await options.nth(1).getAttribute('aria-selected')).toBe('true');
    await page.keyboard.press('ArrowDown');
    expect(await options.nth(0).getAttribute('aria-selected')).toBe('true');
    await page.keyboard.press('ArrowUp');
    await page.keyboard.press('ArrowUp');
    expect(await page.locator('#player-q').getAttribute('aria-activedescendant')).toBe('player-option-0');
    await page.keyboard.press('Enter');
    await settled(page);
    expect(view(page)).toEqual({ view: 'player', key: ada.studioId });
    expect(await page.locator('h1').textContent()).toBe('Adalind Keyboard');
    // Back returns to the results, restored from the address
    await page.goBack();
    await settled(page);
    await page.locator('#search-status').filter({ hasText: '2 players match' }).waitFor();
    // an exact id opens on Enter without waiting for the list
    await page.locator('#player-q').fill('');
    await page.locator('#player-q').pressSequentially(ada.accountId);
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => new URLSearchParams(location.search).get('view') === 'player');
    await settled(page);
    expect(await page.locator('#studio-id').textContent()).toBe(ada.studioId);
  });

  it('opens a player: account and access, the wallet with who asked, the bag, items and recipes named from the catalog, characters with progress, the island drawn', async () => {
    const p = await seedPlayer('Opal Reader', 3);
    const page = await newPage();
    await signIn(page, `/admin/?view=player&key=${p.studioId}`);
    expect(view(page)).toEqual({ view: 'player', key: p.studioId });
    expect(await page.locator('h1').textContent()).toBe('Opal Reader');
    expect(await page.locator('#studio-id').textContent()).toBe(p.studioId);
    expect(await page.locator('#ban-state').textContent()).toBe('Not banned');
    expect(await page.locator('#balance').textContent()).toBe('Balance 5,025 coin');
    const held = await entries(p.studioId);
    const rows = page.locator('#wallet-table tbody tr');
    expect(await rows.evaluateAll((trs) => trs.map((tr) => (tr as HTMLElement).dataset.entry))).toEqual(held.map((e) => e.entryId));
    const grantRow = page.locator(`tr[data-entry="${held[1]!.entryId}"]`);
    expect(await grantRow.locator('td').allTextContents()).toEqual([
      expect.stringMatching(/^\d{4}-\d\d-\d\d \d\d:\d\d UTC$/),
      'Grant',
      '+5,000',
      '5,000',
      'admin-grant:seed-grant-30000',
      'outage',
      'admin-password',
      '—',
      'Reverse…',
    ]);
    // the kind filter is in the address
    await page.getByLabel('Kind', { exact: true }).selectOption('verify_send_to_account_wallet');
    await settled(page);
    expect(view(page)).toEqual({ view: 'player', key: p.studioId, kind: 'verify_send_to_account_wallet' });
    expect(await rows.count()).toBe(1);
    expect(await rows.first().locator('td').nth(1).textContent()).toBe('Verify-send');
    // names and icons come from the published catalog; each links to the catalog browser's item page
    const material = page.locator(`#bag-table .catalog-ref[data-id="${MATERIAL}"] a.catalog-name`);
    await material.waitFor();
    expect(await material.textContent()).toBe('Dusk Iron Ore');
    expect(await material.getAttribute('href')).toBe(`/?view=item&kind=materials&id=${MATERIAL}`);
    expect(await page.locator(`#bag-table tr[data-definition="${MATERIAL}"] td.num`).textContent()).toBe('12');
    const item = page.locator(`#items-table .catalog-ref[data-id="${ITEM}"] a.catalog-name`);
    await item.waitFor();
    expect(await item.textContent()).toBe('Ashmere Shortsword');
    const recipe = page.locator(`#recipe-list .catalog-ref[data-id="${RECIPE}"] a.catalog-name`);
    await recipe.waitFor();
    expect(await recipe.textContent()).toBe('Craft Ashmere Shortsword');
    expect(await recipe.getAttribute('href')).toBe(`/?view=item&kind=recipes&id=${RECIPE}`);
    expect(await page.locator('#characters article h3').allTextContents()).toEqual(['Hero']);
    // the owner history from the item ledger
    await page.locator('#items-table button', { hasText: 'Show' }).click();
    await page.locator('#items-table ol.history li').first().waitFor();
    expect(await page.locator('#items-table ol.history li').first().textContent()).toContain(`minted · owner ${p.accountId}`);
    // the island is a picture: both canvases drawn, with text alternatives
    for (const id of ['island-map', 'island-heightmap']) {
      const colours = await page.evaluate((cid) => {
        const c = document.getElementById(cid) as HTMLCanvasElement;
        const d = c.getContext('2d')!.getImageData(0, 0, c.width, c.height).data;
        const seen = new Set<string>();
        for (let i = 0; i < d.length; i += 4 * 97) seen.add(`${d[i]},${d[i + 1]},${d[i + 2]},${d[i + 3]}`);
        return seen.size;
      }, id);
      expect(colours, id).toBeGreaterThan(20);
      expect(await page.locator(`#${id}`).getAttribute('aria-label')).toMatch(
        id === 'island-map' ? /6 terrain zones/ : /heights from -?\d/,
      );
    }
    // the catalog browser's page opens from the link
    await page.locator('#bag-table a.catalog-name').click();
    await page.waitForURL(`**/?view=item&kind=materials&id=${MATERIAL}`);
    await settled(page);
    expect(await page.locator('h1').textContent()).toBe('Dusk Iron Ore');
  });

  it('grants coin after a confirmation that names the effect, then shows what the service holds', async () => {
    const p = await seedPlayer('Grace Granted', 4);
    const page = await newPage();
    await signIn(page, `/admin/?view=player&key=${p.studioId}`);
    await page.getByRole('button', { name: 'Grant coin…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Grant coin' });
    await dialog.waitFor();
    expect(await page.locator('#action-confirm').isDisabled()).toBe(true);
    await page.getByLabel('Amount (coin)', { exact: true }).fill('250');
    expect(await page.locator('#action-confirm').isDisabled()).toBe(true);
    await page.getByLabel('Reason', { exact: true }).fill('Compensation, ticket 9001');
    expect(await page.locator('#action-effect').textContent()).toBe(
      `Grant +250 coin to Grace Granted (${p.studioId}); balance 5,025 → 5,275.`,
    );
    expect(await page.locator('#action-confirm').textContent()).toBe('Grant 250 coin');
    await saveScreenshot(page, shots, 'console-grant-1280', { fullPage: false });
    await page.locator('#action-confirm').click();
    await dialog.waitFor({ state: 'detached' });
    await settled(page);
    const held = await entries(p.studioId);
    expect(held[0]).toMatchObject({
      kind: 'admin_grant_coin',
      amount: 250,
      note: 'Compensation, ticket 9001',
      actor: 'admin:admin-password',
    });
    expect(await page.locator('#balance').textContent()).toBe('Balance 5,275 coin');
    expect(await page.locator('#wallet-table tbody tr').first().getAttribute('data-entry')).toBe(held[0]!.entryId);
    expect(await page.evaluate(() => sessionStorage.getItem('console.pending-actions'))).toBeNull();
  });

  it('applies a double-clicked action once, and a retry after a lost answer once, with the same key', async () => {
    const p = await seedPlayer('Dora Double', 5);
    const page = await newPage();
    await signIn(page, `/admin/?view=player&key=${p.studioId}`);
    const before = (await entries(p.studioId)).length;
    const sent: Json[] = [];
    page.on('request', (r) => {
      if (new URL(r.url()).pathname === '/api/admin/grant-coin') sent.push(r.postDataJSON() as Json);
    });
    await page.getByRole('button', { name: 'Grant coin…' }).click();
    await page.getByLabel('Amount (coin)', { exact: true }).fill('10');
    await page.getByLabel('Reason', { exact: true }).fill('double click');
    await page.locator('#action-confirm').dblclick();
    await page.locator('#action-dialog').waitFor({ state: 'detached' });
    await settled(page);
    expect((await entries(p.studioId)).length).toBe(before + 1);
    expect(new Set(sent.map((b) => b.idempotencyKey)).size).toBe(1);

    // the answer is lost on the way back: the service applied the grant, the page saw a network error
    sent.length = 0;
    let lost = false;
    await page.route('**/api/admin/grant-coin', async (route) => {
      if (lost) return route.continue();
      lost = true;
      await route.fetch();
      await route.abort('connectionreset');
    });
    await page.getByRole('button', { name: 'Grant coin…' }).click();
    await page.getByLabel('Amount (coin)', { exact: true }).fill('20');
    await page.getByLabel('Reason', { exact: true }).fill('lost answer');
    await page.locator('#action-confirm').click();
    await page.locator('#action-status .problem').waitFor();
    expect(await page.locator('#action-status .problem-title').textContent()).toBe('No answer from the service');
    expect(await page.locator('#action-confirm').textContent()).toBe('Send the same request again');
    expect(await page.getByLabel('Reason', { exact: true }).isDisabled()).toBe(true);
    expect((await entries(p.studioId)).length).toBe(before + 2);
    const pending = JSON.parse((await page.evaluate(() => sessionStorage.getItem('console.pending-actions')))!) as { key: string }[];
    expect(pending.map((x) => x.key)).toEqual([sent[0]!.idempotencyKey]);
    await page.locator('#action-confirm').click();
    await page.locator('#action-dialog').waitFor({ state: 'detached' });
    await settled(page);
    expect(sent.map((b) => b.idempotencyKey)).toEqual([sent[0]!.idempotencyKey, sent[0]!.idempotencyKey]);
    const held = await entries(p.studioId);
    expect(held.length).toBe(before + 2);
    expect(held.filter((e) => e.note === 'lost answer')).toHaveLength(1);
    await expect.poll(() => page.locator('#status').textContent()).toContain('the first request had already done it');
    expect(await page.evaluate(() => sessionStorage.getItem('console.pending-actions'))).toBeNull();
  });

  it('reverses an entry, linking both ways; a second reversal is refused in place with 409, linking to the reversing entry', async () => {
    const p = await seedPlayer('Rex Reversed', 6);
    const grant = (await entries(p.studioId)).find((e) => e.kind === 'admin_grant_coin')!;
    const first = await newPage();
    const stale = await newPage();
    await signIn(first, `/admin/?view=player&key=${p.studioId}`);
    await signIn(stale, `/admin/?view=player&key=${p.studioId}`);
    await first.locator(`tr[data-entry="${grant.entryId}"] button[data-action="reversal"]`).click();
    await first.getByLabel('Reason', { exact: true }).fill('granted by mistake');
    const day = new Date().toISOString().slice(0, 10);
    expect(await first.locator('#action-effect').textContent()).toBe(
      `Reverse +5,000 coin granted ${day} by admin-password; balance 5,025 → 25.`,
    );
    await first.locator('#action-confirm').click();
    await first.locator('#action-dialog').waitFor({ state: 'detached' });
    await settled(first);
    const held = await entries(p.studioId);
    const reversal = held[0]!;
    expect(reversal).toMatchObject({ kind: 'reversal', amount: -5000 });
    expect(await first.locator('#balance').textContent()).toBe('Balance 25 coin');
    const reversedBy = first.locator(`tr[data-entry="${grant.entryId}"] a.reversed-by`);
    expect(await reversedBy.getAttribute('href')).toBe(`/admin/?view=player&key=${p.studioId}&entry=${reversal.entryId}`);
    expect(await first.locator(`tr[data-entry="${grant.entryId}"] button[data-action="reversal"]`).count()).toBe(0);
    await first.locator(`tr[data-entry="${reversal.entryId}"] a.reverses`).click();
    await settled(first);
    expect(await first.locator('tr.marked').getAttribute('data-entry')).toBe(grant.entryId);

    // the other tab still offers the reversal: the service refuses it, and the page says why and where
    await stale.locator(`tr[data-entry="${grant.entryId}"] button[data-action="reversal"]`).click();
    await stale.getByLabel('Reason', { exact: true }).fill('again');
    await stale.locator('#action-confirm').click();
    await stale.locator('#action-status .problem').waitFor();
    expect(await stale.locator('#action-status .problem-title').textContent()).toBe('Conflict');
    expect(await stale.locator('#action-status .problem-detail').textContent()).toContain(
      `Entry ${grant.entryId} was already reversed by admin:admin-password at`,
    );
    expect(await stale.locator('#action-status .problem').getAttribute('data-status')).toBe('409');
    expect((await entries(p.studioId)).length).toBe(held.length);
    await stale.locator('#reversing-entry').click();
    await settled(stale);
    expect(await stale.locator('tr.marked').getAttribute('data-entry')).toBe(reversal.entryId);
    expect(view(stale)).toMatchObject({ entry: reversal.entryId });
  });

  it('asks for the studio id to be typed before an erasure, and shows the erased account after', async () => {
    const p = await seedPlayer('Erin Erased', 7);
    const page = await newPage();
    await signIn(page, `/admin/?view=player&key=${p.studioId}`);
    await page.getByRole('button', { name: 'Erase…' }).click();
    await page.getByLabel('Reason', { exact: true }).fill('Data request 2026-118');
    expect(await page.locator('#action-confirm').isDisabled()).toBe(true);
    await page.getByLabel(`Type ${p.studioId} to confirm`, { exact: true }).fill(p.studioId.slice(0, -1));
    expect(await page.locator('#action-confirm').isDisabled()).toBe(true);
    await page.getByLabel(`Type ${p.studioId} to confirm`, { exact: true }).fill(p.studioId);
    await page.locator('#action-confirm').click();
    await page.locator('#action-dialog').waitFor({ state: 'detached' });
    await settled(page);
    expect(await page.locator('h1').textContent()).toBe('Erased account');
    expect(await page.locator('#actions [data-action]').count()).toBe(0);
    expect(await page.locator('#export').count()).toBe(1);
  });

  it('shows a support token every view read-only: the action controls are not in the page at all', async () => {
    const p = await seedPlayer('Sue Supported', 8);
    const page = await newPage();
    await page.goto(`/admin/?view=player&key=${p.studioId}&def=${MATERIAL}`);
    await settled(page);
    await page.getByLabel('Operator token', { exact: true }).fill(await tokenFor('STUDIO_SUPPORT0000000001', 'support'));
    await page.getByRole('button', { name: 'Use this token' }).click();
    await page.locator('#player-name').filter({ hasText: 'Sue Supported' }).waitFor();
    await settled(page);
    expect(await page.locator('#who-role').textContent()).toBe('read only');
    // the bag's history and the items' owner history are read, with no control to change them
    expect(await page.locator('#bag-table .bag-history tbody tr').count()).toBe(1);
    await page.locator('#items-table button', { hasText: 'Show' }).click();
    await page.locator('#items-table ol.history li').first().waitFor();
    expect(await page.locator('[data-action]').count()).toBe(0);
    expect(await page.locator('#wallet-table thead th').allTextContents()).not.toContain('Action');
    expect(await page.locator('#items-table thead th').allTextContents()).toEqual([
      'Item',
      'Instance',
      'State',
      'Character',
      'Minted',
      'Owner history',
    ]);
    expect(await page.locator('.bag-history thead th').allTextContents()).not.toContain('Action');
    expect(await page.locator('#pending').isHidden()).toBe(true);
    expect(await page.locator('#export').isVisible()).toBe(true);
    const download = page.waitForEvent('download');
    await page.locator('#export').click();
    const file = await download;
    expect(file.suggestedFilename()).toBe(`export-${p.studioId}.json`);
    for (const path of [
      '/admin/?view=search&q=Sue',
      '/admin/?view=audit',
      `/admin/?view=audit&account=${p.accountId}`,
      '/admin/?view=health',
    ]) {
      await page.goto(path);
      await settled(page);
      expect(await page.locator('[data-action]').count(), path).toBe(0);
      expect(await page.locator('#view button:not([type="submit"])').count(), path).toBe(0);
    }
    expect(await page.locator('#pass-text').count()).toBe(1);
    expect(await page.locator('#run-check').count()).toBe(0);
  });

  it('sends a refused token back to the sign-in, keeping the page, and returns there once signed in', async () => {
    const p = await seedPlayer('Tom Timeout', 9);
    const page = await newPage();
    await signIn(page);
    // a token the service does not take (another signer), which the page cannot tell from a good one
    const forged = await mintToken(loadServiceConfig({ JWT_SECRET: 'another-secret-0123456789-abcdefghijklmn' }).jwt, {
      subject: 'admin-password',
      role: 'admin',
    });
    await page.evaluate((t) => sessionStorage.setItem('console.operator-token', t), forged);
    const target = `/admin/?view=player&key=${p.studioId}&kind=admin_grant_coin`;
    await page.goto(target);
    await page.waitForFunction(() => new URLSearchParams(location.search).get('view') === 'signin');
    await settled(page);
    expect(view(page)).toEqual({ view: 'signin', back: target });
    expect(await page.locator('#signin-notice').textContent()).toContain('The service refused the session (401)');
    expect(await page.evaluate(() => sessionStorage.getItem('console.operator-token'))).toBeNull();
    await page.getByLabel('Admin password', { exact: true }).fill(PASSWORD);
    await page.getByLabel('Admin password', { exact: true }).press('Enter');
    await page.waitForFunction(() => new URLSearchParams(location.search).get('view') === 'player');
    await settled(page);
    expect(`${new URL(page.url()).pathname}${new URL(page.url()).search}`).toBe(target);
    expect(await page.locator('h1').textContent()).toBe('Tom Timeout');
  });

  it('labels every field, names every button and reaches every control by keyboard', async () => {
    const p = await seedPlayer('Lia Labels', 10);
    const page = await newPage();
    await page.goto('/admin/');
    await settled(page);
    const check = async (where: string) => {
      const problems = await page.evaluate(() => {
        const out: string[] = [];
        const scope = document.querySelector('dialog[open]') ?? document;
        for (const el of scope.querySelectorAll<HTMLElement>('input, select, textarea')) {
          if ((el as HTMLInputElement).type === 'hidden' || el.closest('[hidden]')) continue;
          const labelled = (el as HTMLInputElement).labels?.length || el.getAttribute('aria-label') || el.getAttribute('aria-labelledby');
          if (!labelled) out.push(`unlabelled ${el.tagName} #${el.id}`);
        }
        for (const b of scope.querySelectorAll<HTMLElement>('button, a[href]')) {
          if (b.closest('[hidden]') || b.getClientRects().length === 0) continue;
          if ((b.textContent ?? '').trim() === '' && !b.getAttribute('aria-label')) out.push(`nameless ${b.tagName} #${b.id}`);
          if (b.tagName === 'BUTTON' && b.tabIndex < 0) out.push(`unreachable ${b.textContent}`);
        }
        return out;
      });
      expect(problems, where).toEqual([]);
    };
    await check('sign-in');
    await page.getByLabel('Admin password', { exact: true }).fill(PASSWORD);
    await page.getByLabel('Admin password', { exact: true }).press('Enter');
    await page.locator('#player-q').waitFor();
    await check('search');
    await page.goto(`/admin/?view=player&key=${p.studioId}`);
    await settled(page);
    await check('player');
    // Tab from the page's heading reaches the first action, and Enter opens its dialog with focus inside it
    await page.locator('h1').focus();
    let reached = false;
    for (let i = 0; i < 40 && !reached; i++) {
      await page.keyboard.press('Tab');
      reached = await page.evaluate(() => (document.activeElement as HTMLElement | null)?.dataset.action === 'grant-coin');
    }
    expect(reached).toBe(true);
    await page.keyboard.press('Enter');
    await page.locator('#action-dialog').waitFor();
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('action-amount');
    await check('grant dialog');
    await page.keyboard.press('Escape');
    await page.locator('#action-dialog').waitFor({ state: 'detached' });
    expect(await page.evaluate(() => (document.activeElement as HTMLElement | null)?.dataset.action)).toBe('grant-coin');

    // the bag's history and the items by keyboard: a History button opens it in place (and in the address),
    // Tab reaches a grant's reversal and an item's void, Enter opens each dialog with focus on its first field
    const tabTo = async (test: string): Promise<boolean> => {
      for (let i = 0; i < 80; i++) {
        await page.keyboard.press('Tab');
        if (await page.evaluate(test)) return true;
      }
      return false;
    };
    await page.locator('h1').focus();
    expect(await tabTo(`document.activeElement?.getAttribute('aria-label') === 'History of ${MATERIAL}'`)).toBe(true);
    await page.keyboard.press('Enter');
    await page.locator('#bag-table .bag-history').waitFor();
    expect(view(page)).toMatchObject({ def: MATERIAL });
    expect(await page.evaluate(() => document.activeElement?.getAttribute('aria-expanded'))).toBe('true');
    await check('player with the bag history open');
    for (const action of ['bag-reversal', 'item-void']) {
      expect(await tabTo(`document.activeElement?.dataset.action === '${action}'`), action).toBe(true);
      await page.keyboard.press('Enter');
      await page.locator('#action-dialog').waitFor();
      expect(await page.evaluate(() => document.activeElement?.id)).toBe('action-reason');
      await check(`${action} dialog`);
      await page.keyboard.press('Escape');
      await page.locator('#action-dialog').waitFor({ state: 'detached' });
      expect(await page.evaluate(() => (document.activeElement as HTMLElement | null)?.dataset.action)).toBe(action);
    }
    for (const path of ['/admin/?view=audit', '/admin/?view=health']) {
      await page.goto(path);
      await settled(page);
      await check(path);
    }
  });

  it('walks an operator’s day: find, grant, reverse, ban (the player refused), unban, export, erase, and every write in the audit log', async () => {
    const p = await seedPlayer('Wanda Wholeday', 12);
    const page = await newPage();
    await signIn(page);
    await page.keyboard.type('Wanda Whole');
    await page.locator('#search-status').filter({ hasText: '1 player matches' }).waitFor();
    await page.keyboard.press('Enter');
    await settled(page);
    expect(view(page)).toEqual({ view: 'player', key: p.studioId });
    const act = async (button: string, reason: string) => {
      await page.getByRole('button', { name: button, exact: true }).click();
      await page.getByLabel('Reason', { exact: true }).fill(reason);
      await page.locator('#action-confirm').click();
      await page.locator('#action-dialog').waitFor({ state: 'detached' });
      await settled(page);
    };
    await page.getByRole('button', { name: 'Grant coin…' }).click();
    await page.getByLabel('Amount (coin)', { exact: true }).fill('300');
    await page.getByLabel('Reason', { exact: true }).fill('goodwill');
    await page.locator('#action-confirm').click();
    await page.locator('#action-dialog').waitFor({ state: 'detached' });
    await settled(page);
    const grant = (await entries(p.studioId))[0]!;
    expect(grant).toMatchObject({ kind: 'admin_grant_coin', amount: 300, note: 'goodwill' });
    expect(await page.locator('#wallet-table tbody tr').first().getAttribute('data-entry')).toBe(grant.entryId);
    expect(await page.locator('#balance').textContent()).toBe('Balance 5,325 coin');
    await page.locator(`tr[data-entry="${grant.entryId}"] button[data-action="reversal"]`).click();
    await page.getByLabel('Reason', { exact: true }).fill('goodwill granted twice');
    await page.locator('#action-confirm').click();
    await page.locator('#action-dialog').waitFor({ state: 'detached' });
    await settled(page);
    expect(await page.locator('#balance').textContent()).toBe('Balance 5,025 coin');
    expect((await entries(p.studioId))[0]).toMatchObject({ kind: 'reversal', amount: -300 });

    await act('Ban…', 'chargeback fraud');
    expect(await page.locator('#ban-state').textContent()).toMatch(/^Banned without end/);
    // a token issued after the ban: the service refuses the player (403), then lets them in once it is lifted
    await nextSecond();
    const player = { Authorization: `Bearer ${await tokenFor(p.studioId, 'player')}` };
    const refused = await service('GET', '/api/island/state', undefined, player);
    expect([refused.status, refused.body.code]).toEqual([403, 'ACCOUNT_SUSPENDED']);
    await act('Lift the ban…', 'appeal upheld');
    expect(await page.locator('#ban-state').textContent()).not.toMatch(/^Banned/);
    expect((await service('GET', '/api/island/state', undefined, player)).status).toBe(200);

    const download = page.waitForEvent('download');
    await page.locator('#export').click();
    const file = await download;
    expect(file.suggestedFilename()).toBe(`export-${p.studioId}.json`);
    const exported = JSON.parse(await readFile(await file.path(), 'utf8')) as { account: { studioId: string; accountId: string } };
    expect(exported.account).toMatchObject({ studioId: p.studioId, accountId: p.accountId, displayName: 'Wanda Wholeday' });

    await page.getByRole('button', { name: 'Erase…' }).click();
    await page.getByLabel('Reason', { exact: true }).fill('Data request 2026-200');
    await page.getByLabel(`Type ${p.studioId} to confirm`, { exact: true }).fill(p.studioId);
    await page.locator('#action-confirm').click();
    await page.locator('#action-dialog').waitFor({ state: 'detached' });
    await settled(page);
    expect(await page.locator('h1').textContent()).toBe('Erased account');

    // the player's audit records: every write of the day, newest first, by this operator, each changing something
    await page.locator('#player-audit').click();
    await settled(page);
    expect(view(page)).toEqual({ view: 'audit', account: p.accountId });
    const rows = page.locator('#audit-table tbody tr');
    const routes = await rows.evaluateAll((trs) => trs.map((tr) => (tr as HTMLElement).dataset.route));
    const day = ['admin/erase', 'admin/unban', 'admin/ban', 'admin/reversals', 'admin/grant-coin'];
    expect(routes.slice(0, 5)).toEqual(day);
    const held = await service('GET', `/api/admin/audit?account=${p.accountId}&limit=200`);
    const records = held.body.records as { id: string; route: string; idempotencyKey: string; requestId: string }[];
    expect(routes).toEqual(records.map((r) => r.route));
    // the export is a read: the audit log keeps writes only
    expect(routes).not.toContain('admin/player-export');
    for (const [i, route] of day.entries()) {
      const cells = await rows.nth(i).locator('td').allTextContents();
      expect(cells.slice(1, 8), route).toEqual([
        'admin:admin-password',
        `POST ${route}`,
        p.accountId,
        '200',
        'changed',
        records[i]!.idempotencyKey,
        records[i]!.requestId,
      ]);
      expect(records[i]!.idempotencyKey).toMatch(/^console-/);
    }
    // a record links to the player's page and to the records of its actor and route
    expect(await rows.first().locator('a.audit-account').getAttribute('href')).toBe(`/admin/?view=player&key=${p.accountId}`);
    await rows.first().locator('a.audit-route').click();
    await settled(page);
    expect(view(page)).toEqual({ view: 'audit', account: p.accountId, route: 'admin/erase' });
    expect(await rows.count()).toBe(1);
  });

  it('reverses a bag grant and voids an item through the page; a second reversal or void is refused in place with 409', async () => {
    const p = await seedPlayer('Bea Bagged', 13);
    expect(
      (
        await service('POST', '/api/inventory/grant', {
          studioId: p.studioId,
          definitionId: MATERIAL,
          quantity: 5,
          idempotencyKey: 'bag-five-13000',
        })
      ).status,
    ).toBe(201);
    const items = (await service('GET', `/api/admin/players/${p.studioId}/items`)).body.items as { studioUuid: string }[];
    const uuid = items[0]!.studioUuid;
    const path = `/admin/?view=player&key=${p.studioId}&def=${MATERIAL}`;
    const first = await newPage();
    const stale = await newPage();
    await signIn(first, path);
    await signIn(stale, path);
    const history = (page: Page) => page.locator(`#bag-table tr[data-history="${MATERIAL}"]`);
    expect(
      await history(first)
        .locator('tbody tr')
        .evaluateAll((trs) => trs.map((tr) => (tr as HTMLElement).dataset.ref)),
    ).toEqual(['bag-grant:bag-five-13000', 'bag-grant:seed-bag-130000']);
    expect(await first.locator(`#bag-table tr[data-definition="${MATERIAL}"] td.num`).textContent()).toBe('17');
    const reverse = (page: Page) => page.locator('button[data-action="bag-reversal"][data-ref="bag-grant:bag-five-13000"]');
    await reverse(first).click();
    await first.getByLabel('Reason', { exact: true }).fill('granted twice');
    const day = new Date().toISOString().slice(0, 10);
    expect(await first.locator('#action-effect').textContent()).toBe(
      `Take back 5 × Dusk Iron Ore granted ${day} (bag-grant:bag-five-13000) from Bea Bagged (${p.studioId}); held 17 → 12.`,
    );
    expect(await first.locator('#action-confirm').textContent()).toBe('Take back 5');
    await first.locator('#action-confirm').click();
    await first.locator('#action-dialog').waitFor({ state: 'detached' });
    await settled(first);
    expect(await first.locator(`#bag-table tr[data-definition="${MATERIAL}"] td.num`).textContent()).toBe('12');
    const bag = (await service('GET', `/api/admin/players/${p.studioId}/bag?definitionId=${MATERIAL}`)).body.entries as {
      sourceRef: string;
      kind: string;
      reverses?: string;
    }[];
    expect(bag[0]).toMatchObject({ kind: 'reversal', reverses: 'bag-grant:bag-five-13000' });
    const reversal = bag[0]!.sourceRef;
    expect(await history(first).locator(`tr[data-ref="${reversal}"] td`).allTextContents()).toEqual([
      expect.stringMatching(/UTC$/),
      'Reversal',
      '−5',
      '12',
      reversal,
      'reverses bag-grant:bag-five-13000',
      '“granted twice” by admin:admin-password',
      '',
    ]);
    expect(await history(first).locator('tr[data-ref="bag-grant:bag-five-13000"] a.reversed-by').textContent()).toBe(reversal);
    expect(await reverse(first).count()).toBe(0);

    // the other tab still offers it: the service refuses, the page says why and links to the reversal
    await reverse(stale).click();
    await stale.getByLabel('Reason', { exact: true }).fill('again');
    await stale.locator('#action-confirm').click();
    await stale.locator('#action-status .problem').waitFor();
    expect(await stale.locator('#action-status .problem-title').textContent()).toBe('Conflict');
    expect(await stale.locator('#action-status .problem-detail').textContent()).toContain(
      'The grant bag-grant:bag-five-13000 was already reversed by admin:admin-password at',
    );
    expect(await stale.locator('#action-status .problem').getAttribute('data-status')).toBe('409');
    await stale.locator('#reversing-entry').click();
    await settled(stale);
    expect(view(stale)).toMatchObject({ def: MATERIAL, bagRef: reversal });
    expect(await stale.locator('tr.marked').getAttribute('data-ref')).toBe(reversal);

    // a void, then the stale tab's second void
    const voidButton = (page: Page) => page.locator(`button[data-action="item-void"][data-item="${uuid}"]`);
    await voidButton(first).click();
    await first.getByLabel('Reason', { exact: true }).fill('duplicated by a trade exploit');
    expect(await first.locator('#action-effect').textContent()).toBe(
      `Void Ashmere Shortsword (item ${uuid}, owned) of Bea Bagged (${p.studioId}): it is no longer owned or wearable, no event may follow, and it stays in its history.`,
    );
    await first.locator('#action-confirm').click();
    await first.locator('#action-dialog').waitFor({ state: 'detached' });
    await settled(first);
    expect(await first.locator(`#item-${uuid}`).getAttribute('data-state')).toBe('voided');
    expect(await voidButton(first).count()).toBe(0);
    await first.locator(`#item-${uuid} button`, { hasText: 'Show' }).click();
    await first.locator(`#item-history-${uuid} li`).first().waitFor();
    expect(await first.locator(`#item-history-${uuid} li`).first().textContent()).toContain(
      `voided · owner ${p.accountId} · “duplicated by a trade exploit” by admin:admin-password`,
    );
    await first.getByLabel('State', { exact: true }).selectOption('voided');
    await settled(first);
    expect(view(first)).toMatchObject({ items: 'voided' });
    expect(await first.locator('#items-table tbody tr[data-item]').count()).toBe(1);
    await first.getByLabel('State', { exact: true }).selectOption('owned');
    await first.locator('#items-empty').waitFor();

    await voidButton(stale).click();
    await stale.getByLabel('Reason', { exact: true }).fill('again');
    await stale.locator('#action-confirm').click();
    await stale.locator('#action-status .problem').waitFor();
    expect(await stale.locator('#action-status .problem-title').textContent()).toBe('Conflict');
    expect(await stale.locator('#action-status .problem-detail').textContent()).toContain('The item is voided');
    expect(await stale.locator('#action-status .problem').getAttribute('data-status')).toBe('409');
  });

  it('shows the ledger health and runs a check now for an admin, by keyboard, with the run the service answered', async () => {
    await seedPlayer('Hal Health', 14);
    const page = await newPage();
    await signIn(page, '/admin/?view=health');
    expect(await page.locator('#pass-text').textContent()).toMatch(/^(No check has run yet\.|Pass \d+, started .*)$/);
    await page.locator('h1').focus();
    let reached = false;
    for (let i = 0; i < 20 && !reached; i++) {
      await page.keyboard.press('Tab');
      reached = await page.evaluate(() => document.activeElement?.id === 'run-check');
    }
    expect(reached).toBe(true);
    await page.keyboard.press('Enter');
    await page.locator('#action-dialog').waitFor();
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('action-confirm');
    expect(await page.locator('#action-effect').textContent()).toMatch(
      /^Run the ledger check now: it (starts|continues) (the first pass|pass \d+)/,
    );
    await page.keyboard.press('Escape');
    await page.locator('#action-dialog').waitFor({ state: 'detached' });
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('run-check');
    const answered = page.waitForResponse(
      (r) => new URL(r.url()).pathname === '/api/admin/ledger/verify' && r.request().method() === 'POST',
    );
    await page.keyboard.press('Enter');
    await page.locator('#action-dialog').waitFor();
    await page.keyboard.press('Enter');
    const run = (await (await answered).json()) as { runId: string; trigger: string; failures: unknown[] };
    expect(run.trigger).toBe('operator');
    await page.locator('#check-run .run-text').waitFor();
    expect(await page.locator('#check-run .run-text').textContent()).toMatch(/^Run by an operator, /);
    await settled(page);
    const health = (await service('GET', '/api/admin/ledger/health')).body as { results: { runId: string }[] };
    expect(health.results[0]!.runId).toBe(run.runId);
    expect(await page.locator('#runs > li').first().getAttribute('data-run')).toBe(run.runId);
    expect(await page.locator('#runs > li').count()).toBe(health.results.length);
  });

  it('filters and pages the audit log by keyboard, with the filters and the cursor in the address', async () => {
    const p = await seedPlayer('Kit Keys', 15);
    const page = await newPage();
    await signIn(page, '/admin/?view=audit');
    // read after the sign-in, which is a record of its own
    const all = (await service('GET', '/api/admin/audit?limit=200')).body.records as { id: string }[];
    expect(all.length).toBeGreaterThan(50);
    expect(await page.locator('#audit-table tbody tr').evaluateAll((trs) => trs.map((tr) => (tr as HTMLElement).dataset.record))).toEqual(
      all.slice(0, 50).map((r) => r.id),
    );
    // Older records: the next page from the service's cursor, kept in the address
    await page.locator('#audit-older').focus();
    await page.keyboard.press('Enter');
    await settled(page);
    expect(Object.keys(view(page))).toEqual(['view', 'cursor']);
    expect(await page.locator('#audit-table tbody tr').first().getAttribute('data-record')).toBe(all[50]!.id);
    await page.locator('#audit-newest').focus();
    await page.keyboard.press('Enter');
    await settled(page);
    expect(view(page)).toEqual({ view: 'audit' });
    // the filter form by keyboard alone: Tab into it, type, Enter
    await page.locator('h1').focus();
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('audit-actor');
    await page.keyboard.type('admin-password');
    await page.keyboard.press('Tab');
    await page.keyboard.type(p.studioId);
    await page.keyboard.press('Tab');
    await page.keyboard.type('admin/grant-coin');
    await page.keyboard.press('Enter');
    await settled(page);
    expect(view(page)).toEqual({ view: 'audit', actor: 'admin-password', account: p.studioId, route: 'admin/grant-coin' });
    expect(await page.locator('#audit-table tbody tr').count()).toBe(1);
    // a time filter: the field is read as UTC and the address keeps the ISO time
    await page.getByLabel('Before (UTC)', { exact: true }).fill('2000-01-01T00:00');
    await page.getByLabel('Before (UTC)', { exact: true }).press('Enter');
    await settled(page);
    expect(view(page)).toMatchObject({ to: '2000-01-01T00:00:00Z' });
    expect(await page.locator('#audit-empty').textContent()).toBe('No records match these filters.');
    // what the service refuses is said in place
    await page.goto('/admin/?view=audit&account=STUDIO_NOBODY0000000000');
    await settled(page);
    expect(await page.locator('#audit .problem').getAttribute('data-status')).toBe('404');
  });

  it('fits a 390 px wide phone without sideways scrolling, and saves screenshots at 1280 and 390 px', async () => {
    const p = await seedPlayer('Pia Phone', 11);
    for (const viewport of [DESKTOP, PHONE]) {
      const page = await newPage(viewport);
      await signIn(page, `/admin/?view=player&key=${p.studioId}`);
      await page.locator('#bag-table a.catalog-name').waitFor();
      for (const [name, path] of [
        ['player', `/admin/?view=player&key=${p.studioId}`],
        ['search', '/admin/?view=search&q=Pia'],
        ['bag', `/admin/?view=player&key=${p.studioId}&def=${MATERIAL}`],
        ['audit', '/admin/?view=audit'],
        ['health', '/admin/?view=health'],
      ] as const) {
        await page.goto(path);
        await settled(page);
        if (name === 'bag') {
          await page.locator(`#items-table button`, { hasText: 'Show' }).click();
          await page.locator('#items-table ol.history li').first().waitFor();
        }
        const { scrollWidth, innerWidth } = await pageWidths(page);
        expect(scrollWidth, `${name} at ${viewport.width}px`).toBeLessThanOrEqual(innerWidth);
        await saveScreenshot(page, shots, `console-${name}-${viewport.width}`);
      }
    }
  });

  it('made no request, across the suite, that left the local server’s origin, but icon images on the catalog’s {cdn_url}', () => {
    expect(requests.length).toBeGreaterThan(100);
    const cdn = 'https://cdn.emberfall.example';
    const elsewhere = requests.filter((r) => new URL(r.url).origin !== site.base);
    // binaries live on {cdn_url} (spec §1.8): the catalog's icons, as images, with no credential
    for (const r of elsewhere) expect([new URL(r.url).origin, r.type, r.credentials], r.url).toEqual([cdn, 'image', false]);
    expect(requests.filter((r) => new URL(r.url).origin === site.base).length).toBeGreaterThan(100);
  });
});
