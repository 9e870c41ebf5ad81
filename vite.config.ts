/**
 * Vite configuration of the static site page (`public/` → output folder root).
 *
 * - `root: public`: `public/index.html` is the catalog browser, `public/main.ts` its script;
 *   `public/docs/index.html` the API reference page (`/docs/`). Scripts are bundled under `assets/` with
 *   hashed names, so two builds of the same sources are byte-identical.
 * - `publicDir: false`: `public/` is the source root here, not a folder of files copied as they are.
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
    rollupOptions: {
      input: { main: here('./public/index.html'), docs: here('./public/docs/index.html') },
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
