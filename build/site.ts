/**
 * Build the static site into an output folder: the catalog browser (`index.html`, its bundled script
 * under `assets/`), the API reference page (`docs/`, rendering the OpenAPI document), every schema under
 * `schemas/` (vite.config.ts), and the OpenAPI document itself (`api/openapi.json`, `build/openapi/`).
 * Called by the catalog build on its staging folder before the atomic swap, so the pages ship with the
 * data and the API they describe.
 */
import { mkdir, readFile, readdir, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { dirname, join, resolve } from 'node:path';
import { build } from 'vite';
import { OPENAPI_FILE, openApiDocument } from './openapi/document.js';

/** The Vite configuration file of the site. */
const SITE_CONFIG = fileURLToPath(new URL('../vite.config.ts', import.meta.url));

/** The repository root (holding `schemas/` and `package.json`). */
const ROOT = fileURLToPath(new URL('..', import.meta.url));

/**
 * The OpenAPI document of this repository's routes and schemas, as the site publishes it
 * (`info.version` from package.json).
 * @throws Error when the operation and route tables disagree, or a schema is missing or not JSON.
 */
export async function repositoryOpenApi(): Promise<Record<string, unknown>> {
  const pkg = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as { version: string };
  const names = new Map<string, Record<string, unknown>>();
  // the generator asks for schemas one by one and synchronously: read the folders it can name first
  for (const dir of ['requests', 'responses', 'output', 'catalog']) {
    for (const f of await readdir(join(ROOT, 'schemas', dir))) {
      if (f.endsWith('.schema.json'))
        names.set(
          `${dir}/${f.slice(0, -'.schema.json'.length)}`,
          JSON.parse(await readFile(join(ROOT, 'schemas', dir, f), 'utf8')) as Record<string, unknown>,
        );
    }
  }
  return openApiDocument({
    version: pkg.version,
    schema: (name) => {
      const s = names.get(name);
      if (!s) throw new Error(`No schema schemas/${name}.schema.json`);
      return s;
    },
  });
}

/**
 * Run Vite's production build of `site/` (with `public/` copied as it is) into `outDir` without emptying it (files already there,
 * such as `api/v1/**`, stay; files of the same name are overwritten), then write the OpenAPI document.
 * @param outDir output folder, absolute or relative to the working directory.
 * @throws Error from Vite when a page or its script does not build, or a schema cannot be copied; Error
 *   from {@link repositoryOpenApi}.
 */
export async function buildSite(outDir: string): Promise<void> {
  const document = await repositoryOpenApi();
  await build({
    configFile: SITE_CONFIG,
    logLevel: 'warn',
    build: { outDir: resolve(outDir), emptyOutDir: false },
  });
  const file = join(resolve(outDir), OPENAPI_FILE);
  await mkdir(dirname(file), { recursive: true });
  await writeFile(file, JSON.stringify(document, null, 2) + '\n');
}
