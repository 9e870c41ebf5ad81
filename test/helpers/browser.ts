/**
 * A real browser for end-to-end tests of the catalog browser page: Debian's Chromium
 * (`apt-get install chromium`, installed by `.ci/run` through `APT_PACKAGES`) driven by `playwright-core`.
 * Playwright's own browser downloads are not used.
 */
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { buildCatalog } from '../../build/pipeline/index.js';
import { startServer, type RunningServer } from '../../dev/server.js';
import { REPO_ROOT } from './catalog.js';
import { useCatalog } from './service.js';

/** Where Debian installs Chromium. */
export const CHROMIUM_PATH = '/usr/bin/chromium';

/**
 * Command-line flags: headless, no sandbox (tests run as root in containers), no GPU, and no
 * background traffic (component updates, sync, QUIC), so a run talks only to the local server.
 */
export const CHROMIUM_ARGS: readonly string[] = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
];

/** True when Debian's Chromium is installed on this machine. */
export const hasChromium: boolean = existsSync(CHROMIUM_PATH);

/** True under CI (`CI` set to anything but empty, `0` or `false`), where Chromium must be present. */
export const inCi: boolean = !['', '0', 'false'].includes((process.env.CI ?? '').trim().toLowerCase());

/**
 * Launch Debian's Chromium with {@link CHROMIUM_ARGS} and a fresh, temporary profile (removed on close).
 * @throws Error when {@link CHROMIUM_PATH} is missing (the message says how to install it), or when the
 *   browser does not start.
 */
export async function launchChromium(): Promise<Browser> {
  if (!hasChromium) {
    throw new Error(`Chromium is missing at ${CHROMIUM_PATH}: install it with "apt-get install -y chromium" (.ci/run does this in CI).`);
  }
  return chromium.launch({ executablePath: CHROMIUM_PATH, args: [...CHROMIUM_ARGS], timeout: 30_000 });
}

/** A valid 1×1 PNG (one opaque pixel), for answering image requests in tests. */
export const PNG_1X1: Buffer = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
  'base64',
);

/** Viewport of the desktop screenshots and checks. */
export const DESKTOP = { width: 1280, height: 900 } as const;
/** Viewport of the phone screenshots and checks (a 390 px wide phone). */
export const PHONE = { width: 390, height: 844 } as const;

/** A browser context and its first page, with what the page's script threw. */
export interface TestPage {
  readonly context: BrowserContext;
  readonly page: Page;
  /** Uncaught exceptions of the page's script, in order. */
  readonly errors: Error[];
  /** Requests the page made to hosts other than `origin` (answered with a network error). */
  readonly offsite: string[];
}

/**
 * A fresh context on `origin` (the local server) with a fixed viewport, locale and time zone, light colours
 * and reduced motion, where every request to another host fails as a network error (nothing leaves
 * 127.0.0.1; tests route the `{cdn_url}` images they want to answer with `page.route`).
 */
export async function openPage(browser: Browser, origin: string, viewport: { width: number; height: number } = DESKTOP): Promise<TestPage> {
  const context = await browser.newContext({
    baseURL: origin,
    viewport,
    locale: 'en-US',
    timezoneId: 'UTC',
    colorScheme: 'light',
    reducedMotion: 'reduce',
  });
  context.setDefaultTimeout(10_000);
  const offsite: string[] = [];
  await context.route(
    (url) => url.origin !== origin,
    (route) => {
      offsite.push(route.request().url());
      return route.abort('internetdisconnected');
    },
  );
  const page = await context.newPage();
  const errors: Error[] = [];
  page.on('pageerror', (e) => errors.push(e));
  return { context, page, errors, offsite };
}

/** Where screenshots are saved (test artifacts), relative to the repository root. */
export const SCREENSHOT_DIR = '.tmp/screenshots';

/**
 * Save a screenshot as `{dir}/{name}.png` (the folder is created) and return its bytes: the whole page, or
 * only the window with `fullPage: false` (for pages tens of thousands of pixels long).
 * @param dir absolute folder, normally `join(REPO_ROOT, SCREENSHOT_DIR)`.
 */
export async function saveScreenshot(
  page: Page,
  dir: string,
  name: string,
  options: { readonly fullPage?: boolean } = {},
): Promise<Buffer> {
  await mkdir(dir, { recursive: true });
  const png = await page.screenshot({ fullPage: options.fullPage ?? true, animations: 'disabled' });
  await writeFile(join(dir, `${name}.png`), png);
  return png;
}

/** The page's scroll width and the window's inner width (a page wider than its window scrolls sideways). */
export function pageWidths(page: Page): Promise<{ scrollWidth: number; innerWidth: number }> {
  return page.evaluate(() => ({ scrollWidth: document.documentElement.scrollWidth, innerWidth: window.innerWidth }));
}

/** A catalog built with its site into a temporary folder, served on 127.0.0.1, and a browser, for one suite. */
export interface BrowserSite {
  readonly browser: Browser;
  /** `http://127.0.0.1:<port>`. */
  readonly base: string;
  /** The temporary folder (removed after the suite) and the output folder inside it. */
  readonly tmp: string;
  readonly out: string;
  /** A fresh page on {@link base}, or on `origin` (see {@link openPage}), closed after the test. */
  newPage(viewport?: { width: number; height: number }, origin?: string): Promise<TestPage>;
}

/**
 * Register a browser suite's hooks (call inside `describe`): before all, build `catalog.src` (with
 * `catalog.config`) and the site into a temporary folder, serve it with the local server (under
 * `catalog.env` when given) and launch
 * Chromium; after each test, close its pages and fail the test when a page's script threw; after all, stop
 * everything and remove the folder.
 * @throws Error (in the before-all hook) when the catalog does not build.
 */
export function useBrowserSite(catalog: {
  readonly src: string;
  readonly config?: string;
  /**
   * The functions' environment (e.g. `JWT_SECRET`, `ADMIN_PASSWORD`), with a `DATA_DIR` in the suite's
   * temporary folder unless it names one; default the local tools' environment (`dev/local-env.ts`).
   */
  readonly env?: Readonly<Record<string, string>>;
}): BrowserSite {
  const state: { browser?: Browser; server?: RunningServer; base?: string; tmp?: string; out?: string; open: TestPage[] } = { open: [] };
  const need = <T>(v: T | undefined): T => {
    if (v === undefined) throw new Error('the browser site is not up (its beforeAll failed or has not run)');
    return v;
  };
  beforeAll(async () => {
    state.browser = await launchChromium();
    state.tmp = await mkdtemp(join(tmpdir(), 'browser-site-'));
    state.out = join(state.tmp, 'dist');
    const report = await buildCatalog({
      src: catalog.src,
      out: state.out,
      ...(catalog.config ? { config: catalog.config } : {}),
      site: true,
      reportFile: false,
    });
    if (!report.ok) throw new Error(`${catalog.src} did not build: ${report.stats.errors} errors`);
    const env = catalog.env ? { DATA_DIR: join(state.tmp, 'data'), ...catalog.env } : undefined;
    state.server = await startServer({ out: state.out, port: 0, root: REPO_ROOT, host: '127.0.0.1', ...(env ? { env } : {}) });
    state.base = `http://127.0.0.1:${state.server.port}`;
  });
  afterEach(async () => {
    const errors = state.open.flatMap((o) => o.errors.map((e) => e.message));
    for (const o of state.open) await o.context.close();
    state.open = [];
    // an uncaught exception in the page's script fails the test that caused it
    expect(errors).toEqual([]);
  });
  afterAll(async () => {
    await state.browser?.close();
    await state.server?.close();
    useCatalog(undefined);
    if (state.tmp) await rm(state.tmp, { recursive: true, force: true });
  });
  return {
    get browser() {
      return need(state.browser);
    },
    get base() {
      return need(state.base);
    },
    get tmp() {
      return need(state.tmp);
    },
    get out() {
      return need(state.out);
    },
    async newPage(viewport = DESKTOP, origin?: string) {
      const o = await openPage(need(state.browser), origin ?? need(state.base), viewport);
      state.open.push(o);
      return o;
    },
  };
}

/** Wait until the page's current view has shown what it loads (`#view` and its parts are busy until then). */
export async function settled(page: Page): Promise<void> {
  await page.waitForSelector('#view:not([aria-busy])');
  await page.waitForFunction(() => document.querySelectorAll('#view [aria-busy="true"]').length === 0);
}

/** The page address's query as an object. */
export function addressQuery(page: Page): Record<string, string> {
  return Object.fromEntries(new URL(page.url()).searchParams);
}
