/**
 * Vite configuration of the static site (`site/` → output folder root).
 *
 * - `root: site`: `site/index.html` is the catalog browser, `site/main.ts` its script;
 *   `site/docs/index.html` the API reference page (`/docs/`); `site/admin/index.html` the operator console
 *   (`/admin/`, docs/architecture.md "Operator console"). Scripts are bundled under `assets/` with
 *   hashed names, so two builds of the same sources are byte-identical.
 * - `publicDir: public`: files Vite copies to the output root as they are (the favicon, `robots.txt`).
 * - `emptyOutDir: false`: the page is built into the catalog output, which already holds `api/v1/**`.
 * - `schemas/**` is copied to `/schemas/...` with its folder structure (`structured: true`; without it
 *   nested folders are flattened), so CDN consumers can fetch the response and catalog schemas.
 * - Scalar's standalone API reference bundle (`@scalar/api-reference`) is copied to
 *   `/docs/scalar-standalone.js` as it is: the docs page loads it from this site, never from a CDN.
 *
 * `npx vite build` builds into `dist/`; the catalog build calls `buildSite(outDir)` (build/site.ts).
 */
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';
import { viteStaticCopy } from 'vite-plugin-static-copy';

const here = (p: string): string => fileURLToPath(new URL(p, import.meta.url));

export default defineConfig({
  root: here('./site'),
  base: '/',
  publicDir: here('./public'),
  logLevel: 'warn',
  build: {
    outDir: here('./dist'),
    emptyOutDir: false,
    target: 'es2022',
    sourcemap: false,
    reportCompressedSize: false,
    rollupOptions: {
      input: { main: here('./site/index.html'), docs: here('./site/docs/index.html'), admin: here('./site/admin/index.html') },
    },
  },
  plugins: [
    viteStaticCopy({
      structured: true,
      targets: [{ src: '../schemas/**/*.json', dest: 'schemas', rename: { stripBase: 1 } }],
    }),
    viteStaticCopy({
      targets: [{ src: '../node_modules/@scalar/api-reference/dist/browser/standalone.js', dest: 'docs', rename: 'scalar-standalone.js' }],
    }),
  ],
});
