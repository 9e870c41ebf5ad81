/**
 * A real browser for end-to-end tests of the catalog browser page: Debian's Chromium
 * (`apt-get install chromium`, installed by `.ci/run` through `APT_PACKAGES`) driven by `playwright-core`.
 * Playwright's own browser downloads are not used.
 */
// @ts-nocheck

import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

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
