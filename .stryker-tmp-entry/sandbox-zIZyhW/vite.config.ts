/**
 * Vite configuration of the static site page (`public/` → output folder root).
 *
 * - `root: public`: `public/index.html` is the page, `public/main.ts` its script (bundled, hashed names
 *   under `assets/`, so two builds of the same sources are byte-identical).
 * - `publicDir: false`: `public/` is the source root here, not a folder of files copied as they are.
 * - `emptyOutDir: false`: the page is built into the catalog output, which already holds `api/v1/**`.
 * - `schemas/**` is copied to `/schemas/...` with its folder structure (`structured: true`; without it
 *   nested folders are flattened), so CDN consumers can fetch the response and catalog schemas.
 *
 * `npx vite build` builds into `dist/`; the catalog build calls `buildSite(outDir)` (build/site.ts).
 */
// @ts-nocheck

import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';
import { viteStaticCopy } from 'vite-plugin-static-copy';

const here = (p: string): string => fileURLToPath(new URL(p, import.meta.url));

export default defineConfig({
  root: here('./public'),
  base: '/',
  publicDir: false,
  logLevel: 'warn',
  build: {
    outDir: here('./dist'),
    emptyOutDir: false,
    target: 'es2022',
    sourcemap: false,
    reportCompressedSize: false,
  },
  plugins: [
    viteStaticCopy({
      structured: true,
      targets: [{ src: '../schemas/**/*.json', dest: 'schemas', rename: { stripBase: 1 } }],
    }),
  ],
});
