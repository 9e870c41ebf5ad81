/**
 * Build the static site page into an output folder: `index.html`, its bundled script under
 * `assets/`, and every schema under `schemas/` (vite.config.ts). Called by the catalog build on its
 * staging folder before the atomic swap, so the page ships with the data it describes.
 */
// @ts-nocheck

import { fileURLToPath } from 'node:url';
import { resolve } from 'node:path';
import { build } from 'vite';

/** The Vite configuration file of the site. */
const SITE_CONFIG = fileURLToPath(new URL('../vite.config.ts', import.meta.url));

/**
 * Run Vite's production build of `public/` into `outDir` without emptying it (files already there,
 * such as `api/v1/**`, stay; files of the same name are overwritten).
 * @param outDir output folder, absolute or relative to the working directory.
 * @throws Error from Vite when the page or its script does not build, or a schema cannot be copied.
 */
export async function buildSite(outDir: string): Promise<void> {
  await build({
    configFile: SITE_CONFIG,
    logLevel: 'warn',
    build: { outDir: resolve(outDir), emptyOutDir: false },
  });
}
