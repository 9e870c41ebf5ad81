/**
 * Catalog config: identifier namespaces, `base_url`, `cdn_url`, the field that
 * carries SKIL/ICON ids, retired files and rule severities. Read from `--config FILE` or, by default,
 * `catalog.config.json` in the source folder; validated whole against
 * `schemas/build/catalog-config.schema.json`.
 */
import { readFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { DEFAULT_RETIRED_FILES } from '../../api/_lib/formats/layout.js';
import { DEFAULT_VERSIONS } from './layout.js';
import { isPreviousUrl } from './previous.js';
import type { CatalogConfig, Severity } from './types.js';

/** Default config file name inside a source folder. */
export const CONFIG_FILE = 'catalog.config.json';

/**
 * Default of `itemFileBudget`: most static collection item files one build emits (10,000). Why this
 * number: docs/performance.md, "Limits of one deployment" and docs/architecture.md, "Scale".
 */
export const DEFAULT_ITEM_FILE_BUDGET = 10_000;

/**
 * Default of `keepBuilds`: builds whose catalog the output keeps under `v/{buildId}/` (3: this one and the
 * two before it), so a consumer a few builds behind still syncs by change feeds (`api/_lib/formats/changes.ts`).
 */
export const DEFAULT_KEEP_BUILDS = 3;

/** A config that cannot be used: every problem listed. */
export class CatalogConfigError extends Error {
  override readonly name = 'CatalogConfigError';
  constructor(
    readonly file: string,
    readonly problems: readonly string[],
  ) {
    super(`Invalid catalog config ${file}:\n${problems.map((p) => `  ${p}`).join('\n')}`);
  }
}

const SCHEMA_PATH = fileURLToPath(new URL('../../schemas/build/catalog-config.schema.json', import.meta.url));

/** Ajv's format plugin (CJS default export under NodeNext). */
export const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;

/**
 * Load and validate a catalog config file.
 * @throws CatalogConfigError when the file is missing, not JSON or not valid against the schema.
 */
export async function loadCatalogConfig(file: string): Promise<CatalogConfig> {
  let raw: unknown;
  try {
    raw = JSON.parse(await readFile(file, 'utf8'));
  } catch (e) {
    throw new CatalogConfigError(file, [(e as Error).message]);
  }
  const ajv = new Ajv2020({ allErrors: true, strict: false });
  addFormats(ajv);
  const validate = ajv.compile(JSON.parse(await readFile(SCHEMA_PATH, 'utf8')) as object);
  if (!validate(raw)) {
    throw new CatalogConfigError(
      file,
      (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message ?? ''}`),
    );
  }
  const config = normaliseConfig(raw as RawConfig, dirname(file));
  const indexPath = (raw as RawConfig).assetIndex;
  return indexPath === undefined
    ? config
    : Object.freeze({ ...config, assetIndex: await loadAssetIndex(file, resolve(dirname(file), indexPath)) });
}

/**
 * Read an exported asset index (`{ "version": 1, "entries": [{ "key": … }, …] }`, written by
 * `npm run assets -- export`).
 * @throws CatalogConfigError naming the config file when the index cannot be read or has another shape.
 */
async function loadAssetIndex(configFile: string, file: string): Promise<{ file: string; keys: ReadonlySet<string> }> {
  let data: unknown;
  try {
    data = JSON.parse(await readFile(file, 'utf8'));
  } catch (e) {
    throw new CatalogConfigError(configFile, [
      `/assetIndex: ${file} cannot be read as JSON (${(e as Error).message.slice(0, 200)}); export it with npm run assets -- export --out <file>.`,
    ]);
  }
  const entries = (data as { version?: unknown; entries?: unknown } | null)?.entries;
  if (
    (data as { version?: unknown } | null)?.version !== 1 ||
    !Array.isArray(entries) ||
    !entries.every((e) => typeof (e as { key?: unknown } | null)?.key === 'string')
  ) {
    throw new CatalogConfigError(configFile, [
      `/assetIndex: ${file} is not an exported asset index ({ "version": 1, "entries": [{ "key": … }] }).`,
    ]);
  }
  return Object.freeze({ file, keys: new Set((entries as { key: string }[]).map((e) => e.key)) });
}

interface RawConfig {
  name: string;
  base_url: string;
  cdn_url: string;
  namespaces: { skill: string; icon: string; sprite?: string };
  uuidField?: string;
  retired?: string[];
  rules?: Record<string, Severity>;
  overrides?: { files: string[]; rules: Record<string, Severity> }[];
  versions?: Record<string, string>;
  assetIndex?: string;
  itemFileBudget?: number;
  keepBuilds?: number;
  previousBuild?: string;
}

/**
 * Apply defaults and freeze. `retired` defaults to `['systems-catalog.json']`; a `previousBuild` folder
 * resolves against `dir`, the config file's folder (a URL stays as it is, without trailing slashes).
 */
function normaliseConfig(raw: RawConfig, dir: string): CatalogConfig {
  const previous = raw.previousBuild;
  return Object.freeze({
    name: raw.name,
    baseUrl: raw.base_url.replace(/\/+$/, ''),
    cdnUrl: raw.cdn_url.replace(/\/+$/, ''),
    namespaces: Object.freeze({ skill: raw.namespaces.skill, icon: raw.namespaces.icon, sprite: raw.namespaces.sprite ?? 'sprite:' }),
    uuidField: raw.uuidField ?? 'studioUuid',
    retired: Object.freeze(raw.retired ?? DEFAULT_RETIRED_FILES),
    rules: Object.freeze({ ...(raw.rules ?? {}) }),
    overrides: Object.freeze((raw.overrides ?? []).map((o) => Object.freeze({ files: o.files, rules: Object.freeze({ ...o.rules }) }))),
    versions: Object.freeze({ ...DEFAULT_VERSIONS, ...(raw.versions ?? {}) }),
    itemFileBudget: raw.itemFileBudget ?? DEFAULT_ITEM_FILE_BUDGET,
    keepBuilds: raw.keepBuilds ?? DEFAULT_KEEP_BUILDS,
    ...(previous === undefined ? {} : { previousBuild: isPreviousUrl(previous) ? previous.replace(/\/+$/, '') : resolve(dir, previous) }),
  });
}
