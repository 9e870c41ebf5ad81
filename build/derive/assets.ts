/**
 * Asset manifest derivation (spec 2.4, 4.3): the index read by `/api/v1/studiodot-assets` and the body of
 * `/api/v1/studiodot-assets/categories`.
 *
 * Source: `studiodot-assets.json` (spec 2.4) `{ version, generated, baseUrl, totalAssets, types, categories, assets }`.
 * Without it both outputs are emitted empty.
 *
 * An asset whose `id`, `name`, `type`, `category` or `url` is missing or wrong, or whose id repeats an
 * earlier one, is reported and left out. Other fields that are missing or mistyped are reported
 * (`assets/field-type`, warn) and normalised: subcategory "", previewUrl null, tags [], format "",
 * sizeBytes null, metadata {}. The declared totals (`totalAssets`, `types`, `categories`) are checked
 * against the asset list as written (every asset with a string type/category counts); the served
 * categories body is counted from the assets that were kept.
 *
 * A build that publishes under another `{cdn_url}` than its config's (`CatalogConfig.sourceCdnUrl`, e.g.
 * `npm start` serving the sample's binaries from local storage, docs/architecture.md "Sample binaries")
 * moves `baseUrl` and every asset's `url` and `previewUrl` on the config's `cdn_url` to the build's, in the
 * index and in the published `studiodot-assets.json` (binaries live on `{cdn_url}`, spec §1.4, §4.9); a URL
 * on any other host is kept as written.
 */
import { publishedFile } from '../../api/_lib/formats/layout.js';
import { isRecord, jsonPointer as pointer } from '../../api/_lib/util/json.js';
import { compareCodeUnits as cmp } from '../../api/_lib/util/sorted.js';
import type { DeriveContext, Deriver, Emitted, RuleDef } from '../pipeline/types.js';
import {
  ASSET_CATEGORIES_FILE,
  ASSET_INDEX_FILE,
  ASSET_TYPES,
  type AssetCategoriesBody,
  type AssetCategoryCount,
  type AssetIndexFile,
  type AssetRecord,
  type AssetType,
} from '../../api/_lib/formats/registries.js';

/** Asset manifest source file (spec 2.4). */
export const ASSETS_SOURCE_FILE = 'studiodot-assets.json';

/** Rules checked by {@link deriveAssets}. */
export const ASSET_RULES: readonly RuleDef[] = [
  {
    name: 'assets/source-shape',
    severity: 'error',
    description: 'studiodot-assets.json has the shape of spec 2.4 and every asset a string id, name, category and url.',
  },
  {
    name: 'assets/field-type',
    severity: 'warn',
    description:
      'Every asset has subcategory, previewUrl (string or null), tags (strings), format, sizeBytes (integer ≥ 0) and metadata (object) as spec 2.4 types them.',
  },
  {
    name: 'assets/unknown-type',
    severity: 'error',
    description: 'Every asset type (and every key of `types`) is one of icon, sprite, model, audio, video (spec 2.4).',
  },
  { name: 'assets/duplicate-id', severity: 'error', description: 'No asset id is listed twice.' },
  {
    name: 'assets/count-mismatch',
    severity: 'error',
    description: '`totalAssets`, the `types` counts and the `categories` rows agree with the asset list (spec 2.4).',
  },
];

function isAssetType(value: unknown): value is AssetType {
  return typeof value === 'string' && (ASSET_TYPES as readonly string[]).includes(value);
}

const comboKey = (type: string, category: string): string => `${type}\u0000${category}`;

/**
 * The URL mover of a build (module header): `url` on `from` (the host itself or a path under it) re-rooted
 * on `to`; any other value as it is. Identity when `from` is undefined.
 */
export function cdnMover(from: string | undefined, to: string): <T>(url: T) => T {
  if (from === undefined) return (url) => url;
  return <T>(url: T): T =>
    typeof url === 'string' && (url === from || url.startsWith(`${from}/`)) ? (`${to}${url.slice(from.length)}` as T) : url;
}

/**
 * Derive the asset index and the asset categories body.
 * Pure: reads `ctx.docs`, reports through `ctx.report` with the rules of {@link ASSET_RULES}, never throws on bad input.
 * @returns `asset-index.json` and `asset-categories.json` (see `api/_lib/formats/registries.ts`).
 */
export const deriveAssets: Deriver = (ctx: DeriveContext): readonly Emitted[] => {
  const file = ASSETS_SOURCE_FILE;
  const report = (rule: string, ptr: string, message: string): void => ctx.report({ rule, file, pointer: ptr, message });
  const data = ctx.docs.get(file)?.data;

  const move = cdnMover(ctx.config.sourceCdnUrl, ctx.config.cdnUrl);
  let raw: readonly unknown[] = [];
  let version: string | null = null;
  let baseUrl: string | null = null;
  if (data !== undefined) {
    if (!isRecord(data))
      report(
        'assets/source-shape',
        '',
        `${file} must be an object { version, generated, baseUrl, totalAssets, types, categories, assets }; no asset is listed.`,
      );
    else {
      if (typeof data.version === 'string') version = data.version;
      if (typeof data.baseUrl === 'string') baseUrl = move(data.baseUrl);
      if (Array.isArray(data.assets)) raw = data.assets;
      else report('assets/source-shape', '/assets', '"assets" must be an array of assets (spec 2.4); no asset is listed.');
    }
  }

  const kept: AssetRecord[] = [];
  const seen = new Map<string, number>();
  raw.forEach((a, i) => {
    const at = (...rest: (string | number)[]): string => pointer('assets', i, ...rest);
    if (!isRecord(a)) {
      report('assets/source-shape', at(), `asset ${i} must be an object (spec 2.4); it is not listed.`);
      return;
    }
    let bad = false;
    for (const field of ['id', 'name', 'category', 'url'] as const) {
      const v = a[field];
      if (typeof v !== 'string' || (field !== 'category' && v.trim() === '')) {
        report(
          'assets/source-shape',
          at(field),
          `asset ${i} needs a${field === 'category' ? '' : ' non-blank'} string "${field}"; it is not listed.`,
        );
        bad = true;
      }
    }
    if (!isAssetType(a.type)) {
      report(
        'assets/unknown-type',
        at('type'),
        `asset ${i} has type ${JSON.stringify(a.type)}; use one of ${ASSET_TYPES.join(', ')}. It is not listed.`,
      );
      bad = true;
    }
    if (bad) return;
    const id = a.id as string;
    const first = seen.get(id);
    if (first !== undefined) {
      report(
        'assets/duplicate-id',
        at('id'),
        `id "${id}" is already used by /assets/${first}; give each asset its own id. This one is not listed.`,
      );
      return;
    }
    seen.set(id, i);

    const warn = (field: string, expected: string, used: string): void =>
      report(
        'assets/field-type',
        at(field),
        `"${field}" of asset "${id}" ${a[field] === undefined ? 'is missing' : 'is not ' + expected}; ${used} is served.`,
      );
    let subcategory = '';
    if (typeof a.subcategory === 'string') subcategory = a.subcategory;
    else warn('subcategory', 'a string', '""');
    let previewUrl: string | null = null;
    if (typeof a.previewUrl === 'string' || a.previewUrl === null) previewUrl = a.previewUrl;
    else warn('previewUrl', 'a URL string or null', 'null');
    let tags: string[] = [];
    if (Array.isArray(a.tags) && a.tags.every((t) => typeof t === 'string')) tags = a.tags;
    else warn('tags', 'an array of strings', '[]');
    let format = '';
    if (typeof a.format === 'string') format = a.format;
    else warn('format', 'a string', '""');
    let sizeBytes: number | null = null;
    if (Number.isSafeInteger(a.sizeBytes) && (a.sizeBytes as number) >= 0) sizeBytes = a.sizeBytes as number;
    else warn('sizeBytes', 'a whole number of bytes', 'null');
    let metadata: Record<string, unknown> = {};
    if (isRecord(a.metadata)) metadata = a.metadata;
    else warn('metadata', 'an object', '{}');

    kept.push({
      id,
      name: a.name as string,
      type: a.type as AssetType,
      category: a.category as string,
      subcategory,
      url: move(a.url as string),
      previewUrl: move(previewUrl),
      tags,
      format,
      sizeBytes,
      metadata,
    });
  });

  if (isRecord(data)) checkDeclaredCounts(data, raw, report);

  const typeRank = (t: AssetType): number => ASSET_TYPES.indexOf(t);
  kept.sort((x, y) => typeRank(x.type) - typeRank(y.type) || cmp(x.category, y.category) || cmp(x.name, y.name) || cmp(x.id, y.id));

  const types = Object.fromEntries(ASSET_TYPES.map((t) => [t, 0])) as Record<AssetType, number>;
  const combos = new Map<string, AssetCategoryCount>();
  for (const a of kept) {
    types[a.type] += 1;
    const k = comboKey(a.type, a.category);
    const c = combos.get(k);
    combos.set(k, { type: a.type, category: a.category, count: (c?.count ?? 0) + 1 });
  }
  // `kept` is sorted by type, then category, so the combinations are already in that order
  const categories = [...combos.values()];

  const index: AssetIndexFile = { version, baseUrl, total: kept.length, assets: kept };
  const body: AssetCategoriesBody = { total: kept.length, types, categories };
  const out: Emitted[] = [
    { path: ASSET_INDEX_FILE, body: index },
    { path: ASSET_CATEGORIES_FILE, body },
  ];
  if (ctx.config.sourceCdnUrl !== undefined && isRecord(data)) {
    // the published source with its URLs moved; every other member as written
    const assets = Array.isArray(data.assets)
      ? data.assets.map((a: unknown) => (isRecord(a) ? { ...a, url: move(a.url), previewUrl: move(a.previewUrl) } : a))
      : data.assets;
    const moved = { ...data, baseUrl: move(data.baseUrl), assets };
    out.push({ path: publishedFile(file), body: JSON.stringify(moved, null, 2) + '\n', raw: true });
  }
  return out;
};

/** Compare `totalAssets`, `types` and `categories` with the asset list as written. */
function checkDeclaredCounts(
  data: Record<string, unknown>,
  raw: readonly unknown[],
  report: (rule: string, ptr: string, message: string) => void,
): void {
  const actualType = new Map<string, number>();
  const actualCombo = new Map<string, { type: string; category: string; count: number }>();
  for (const a of raw) {
    if (!isRecord(a) || typeof a.type !== 'string') continue;
    actualType.set(a.type, (actualType.get(a.type) ?? 0) + 1);
    if (typeof a.category !== 'string') continue;
    const k = comboKey(a.type, a.category);
    const c = actualCombo.get(k);
    actualCombo.set(k, { type: a.type, category: a.category, count: (c?.count ?? 0) + 1 });
  }

  if (!Number.isInteger(data.totalAssets))
    report(
      'assets/source-shape',
      data.totalAssets === undefined ? '' : '/totalAssets',
      `totalAssets must be an integer (the file lists ${raw.length} assets).`,
    );
  else if (data.totalAssets !== raw.length)
    report(
      'assets/count-mismatch',
      '/totalAssets',
      `totalAssets is ${String(data.totalAssets)} but ${raw.length} assets are listed; set it to ${raw.length}.`,
    );

  if (!isRecord(data.types))
    report(
      'assets/source-shape',
      data.types === undefined ? '' : '/types',
      `types must be an object of counts { ${ASSET_TYPES.join(', ')} }.`,
    );
  else {
    for (const t of Object.keys(data.types)) {
      if (!isAssetType(t))
        report(
          'assets/unknown-type',
          pointer('types', t),
          `types has a count for "${t}", which is not an asset type (${ASSET_TYPES.join(', ')}).`,
        );
    }
    for (const t of new Set<string>([...Object.keys(data.types), ...actualType.keys()])) {
      const declared = data.types[t];
      const actual = actualType.get(t) ?? 0;
      if (declared === undefined && actual === 0) continue;
      if (declared !== undefined && !Number.isInteger(declared))
        report('assets/source-shape', pointer('types', t), `types.${t} must be an integer (${actual} assets have that type).`);
      else if (declared !== actual)
        report(
          'assets/count-mismatch',
          declared === undefined ? '/types' : pointer('types', t),
          `types.${t} is ${declared === undefined ? 'missing' : JSON.stringify(declared)} but ${actual} assets have type "${t}"; set it to ${actual}.`,
        );
    }
  }

  if (!Array.isArray(data.categories)) {
    report(
      'assets/source-shape',
      data.categories === undefined ? '' : '/categories',
      'categories must be an array of { type, category, count }.',
    );
    return;
  }
  const listed = new Map<string, number>();
  (data.categories as unknown[]).forEach((row, i) => {
    if (!isRecord(row) || typeof row.type !== 'string' || typeof row.category !== 'string' || !Number.isInteger(row.count)) {
      report(
        'assets/source-shape',
        pointer('categories', i),
        `categories row ${i} must be { type: string, category: string, count: integer }.`,
      );
      return;
    }
    const k = comboKey(row.type, row.category);
    const prev = listed.get(k);
    if (prev !== undefined) {
      report(
        'assets/count-mismatch',
        pointer('categories', i),
        `${row.type}/${row.category} is already counted at /categories/${prev}; list each type and category once.`,
      );
      return;
    }
    listed.set(k, i);
    const actual = actualCombo.get(k)?.count ?? 0;
    if (row.count !== actual) {
      report(
        'assets/count-mismatch',
        pointer('categories', i, 'count'),
        `${row.type}/${row.category} says count ${String(row.count)} but ${actual} assets have that type and category; set it to ${actual}.`,
      );
    }
  });
  const missing = [...actualCombo.entries()].filter(([k]) => !listed.has(k)).map(([, c]) => c);
  for (const c of missing.sort((x, y) => cmp(x.type, y.type) || cmp(x.category, y.category))) {
    report(
      'assets/count-mismatch',
      '/categories',
      `categories has no row for ${c.type}/${c.category}, which has ${c.count} assets; add { "type": "${c.type}", "category": "${c.category}", "count": ${c.count} }.`,
    );
  }
}
