/**
 * Catalog function: search, stats and export (spec §4.4), plus the 404 answers of the API.
 *
 * Paths (declared in `api/_lib/routing/table.ts`; `vercel.json` rewrites them onto `/api/catalog?_route=…`):
 * - `GET /api/search`  `q` string, required, 1-200 characters with one that is not white space; `type` all|weapons|armor|materials|
 *   consumables|enemies|bosses|skills|sprites (default all); `limit` integer 1-200 (default 50; larger
 *   values are lowered to 200 and reported in `X-Limit-Requested`/`X-Limit-Applied`).
 *   200 `{ query, type, totalResults, results: [{ type, id, name }] }` (§2.5; schema
 *   `schemas/responses/search.schema.json`).
 * - `GET /api/stats`   no parameters. 200: the stats file of the build (total counts for every data
 *   category; schema `schemas/responses/stats.schema.json`).
 * - `GET /api/export`  `type` weapons|armor|materials|consumables|enemies|bosses|skills, required;
 *   `tier` integer 1-8; `category` string (case-insensitive equality with the record's category);
 *   `format` json|csv (default json).
 *   200 JSON `{ type, total, filters: { tier, category }, records }` (schema
 *   `schemas/responses/export.schema.json`) or CSV (`text/csv; charset=utf-8`, RFC 4180, header row,
 *   `Content-Disposition: attachment; filename="<type>[-t<tier>][-<category>].csv"`). Without `tier` and
 *   `category` the body is the build's prebuilt file (`api/v1/exports/full/{type}.{json,csv}`), sent
 *   unchanged (from memory up to 16 MiB, streamed from disk beyond); filtered exports are streamed.
 * - `/api/v1/systems-catalog.json`  the retired systems catalog (§7, §9.3): 404 for every method.
 * - any other `/api/*` or `/v1/*` path no rule serves: 404 for every method.
 *
 * Every response carries CORS headers; 200s carry `Cache-Control: public, max-age=300` (and the same
 * `CDN-Cache-Control` for the edge) and an ETag from the catalog build id and the canonical query (304 on
 * `If-None-Match`).
 * Errors (RFC 9457 problem+json, code in `code`): 400 INVALID_QUERY (every bad, missing, repeated or
 * unknown parameter listed in `errors[]`), 404 NOT_FOUND, 405 METHOD_NOT_ALLOWED (other methods on
 * search/stats/export), 503 UPSTREAM_UNAVAILABLE (catalog output missing or corrupt).
 */
import {
  SEARCH_INDEX_FILE,
  SEARCH_TYPES,
  STATS_FILE,
  EXPORT_TYPES,
  exportFile,
  fullExportFile,
  type ExportFile,
  type ExportType,
} from './_lib/formats/index.js';
import { catalogBuildId, readCatalogBody, readCatalogJson } from './_lib/catalog/store.js';
import {
  ServiceError,
  cachedResponse,
  clampHeaders,
  defineEntry,
  jsonResponse,
  parseQuery,
  truncate,
  type RouteContext,
} from './_lib/http/index.js';
import { loadSearchIndex } from './_lib/search/index.js';
import { csvFileName, exportCsvStream, exportJsonStream, filterRecords } from './_lib/export/index.js';

/** Largest `limit` of `/api/search` (spec §8). */
const SEARCH_LIMIT_MAX = 200;
/** Default `limit` of `/api/search` (spec §8). */
const SEARCH_LIMIT_DEFAULT = 50;

/** Query parameters of `GET /api/search` (also read by the OpenAPI document, `build/openapi/`). */
export const SEARCH_PARAMS = {
  q: { kind: 'string', required: true, maxLength: 200, pattern: /\S/, patternRule: 'contain a character other than white space' },
  type: { kind: 'enum', values: ['all', ...SEARCH_TYPES], default: 'all' },
  limit: { kind: 'int', min: 1, max: SEARCH_LIMIT_MAX, default: SEARCH_LIMIT_DEFAULT, clamp: true },
} as const;

/** Query parameters of `GET /api/export` (also read by the OpenAPI document). */
export const EXPORT_PARAMS = {
  type: { kind: 'enum', values: EXPORT_TYPES, required: true },
  tier: { kind: 'int', min: 1, max: 8 },
  category: { kind: 'string', maxLength: 200 },
  format: { kind: 'enum', values: ['json', 'csv'], default: 'json' },
} as const;

/** Check the shape of an export file (`ExportFile`) read from the catalog. @throws Error when it is not one (a 503). */
function parseExportFile(raw: unknown): ExportFile {
  const o = raw as Partial<ExportFile> | null;
  // a value that is not an object has no `columns` list either
  if (!Array.isArray(o?.columns) || !o.columns.every((c) => typeof c === 'string') || !Array.isArray(o.records)) {
    throw new Error('export file must be { type, columns: string[], records: [] }');
  }
  return o as ExportFile;
}

async function search(request: Request, url: URL): Promise<Response> {
  const { values, canonical, clamped } = parseQuery(url.searchParams, SEARCH_PARAMS);
  const [buildId, engine] = await Promise.all([catalogBuildId(), readCatalogJson(SEARCH_INDEX_FILE, loadSearchIndex)]);
  const found = engine.search(values.q, { type: values.type as (typeof SEARCH_TYPES)[number] | 'all', limit: values.limit });
  const body = {
    query: values.q,
    type: values.type,
    totalResults: found.totalResults,
    results: found.results.map((r) => ({ type: r.type, id: r.id, name: r.name })),
  };
  return jsonResponse(request, body, { buildId, canonical: `search?${canonical}`, headers: clampHeaders(clamped) });
}

async function stats(request: Request, url: URL): Promise<Response> {
  const { canonical } = parseQuery(url.searchParams, {});
  const [buildId, body] = await Promise.all([catalogBuildId(), readCatalogJson<unknown>(STATS_FILE)]);
  return jsonResponse(request, body, { buildId, canonical: `stats?${canonical}` });
}

async function exportRecords(request: Request, url: URL): Promise<Response> {
  const { values, canonical } = parseQuery(url.searchParams, EXPORT_PARAMS);
  const type = values.type as ExportType;
  const filters = { tier: values.tier, category: values.category };
  const csv = values.format === 'csv';
  const csvOptions = {
    contentType: 'text/csv; charset=utf-8',
    headers: { 'Content-Disposition': `attachment; filename="${csvFileName(type, filters)}"` },
  };
  if (filters.tier === undefined && filters.category === undefined) {
    // the unfiltered export was built with the catalog: sent as it is, never rebuilt
    const [buildId, body] = await Promise.all([catalogBuildId(), readCatalogBody(fullExportFile(type, csv ? 'csv' : 'json'))]);
    return cachedResponse(request, body, { buildId, canonical: `export?${canonical}`, ...(csv ? csvOptions : {}) });
  }
  const [buildId, file] = await Promise.all([catalogBuildId(), readCatalogJson(exportFile(type), parseExportFile)]);
  const records = filterRecords(file.records, filters);
  const options = { buildId, canonical: `export?${canonical}` };
  if (csv) return cachedResponse(request, exportCsvStream(file.columns, records), { ...options, ...csvOptions });
  const head = { type, total: records.length, filters: { tier: values.tier ?? null, category: values.category ?? null } };
  return cachedResponse(request, exportJsonStream(head, records), options);
}

function notFound({ url, route }: RouteContext): never {
  if (route.name === 'retired') {
    throw new ServiceError(
      'NOT_FOUND',
      'The systems catalog is retired (spec 9.3). Use warlords-catalog.json and the master-* files under /api/v1/.',
    );
  }
  throw new ServiceError(
    'NOT_FOUND',
    `Nothing is served at ${truncate(url.pathname)}. See /api/v1/game-data-manifest.json for the catalog files; the endpoints are /api/search, /api/stats and /api/export.`,
  );
}

/** The method exports (see the file header); every one dispatches through the route table. */
export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = defineEntry('catalog', {
  search: { GET: ({ request, url }) => search(request, url) },
  stats: { GET: ({ request, url }) => stats(request, url) },
  export: { GET: ({ request, url }) => exportRecords(request, url) },
  retired: { GET: notFound },
  'not-found': { GET: notFound },
});
