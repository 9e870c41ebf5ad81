/**
 * Catalog function: search, stats and export (spec §4.4), plus the 404 answers of the API.
 *
 * Paths (rewritten by `vercel.json` onto `/api/catalog?_route=…`, see `api/_lib/routing/routes.ts`):
 * - `GET /api/search`  `q` string, required, 1-200 characters; `type` all|weapons|armor|materials|
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
 *   `Content-Disposition: attachment; filename="<type>[-t<tier>][-<category>].csv"`). Streamed.
 * - `/api/v1/systems-catalog.json`  the retired systems catalog (§7, §9.3): 404 for every method.
 * - any other `/api/*` or `/v1/*` path no rule serves: 404 for every method.
 *
 * Every response carries CORS headers; 200s carry `Cache-Control: public, max-age=300, s-maxage=300`
 * and an ETag from the catalog build id and the canonical query (304 on `If-None-Match`).
 * Errors (RFC 9457 problem+json, code in `code`): 400 INVALID_QUERY (every bad, missing, repeated or
 * unknown parameter listed in `errors[]`), 404 NOT_FOUND, 405 METHOD_NOT_ALLOWED (other methods on
 * search/stats/export), 503 UPSTREAM_UNAVAILABLE (catalog output missing or corrupt).
 */
import { SEARCH_INDEX_FILE, SEARCH_TYPES, STATS_FILE, EXPORT_TYPES, exportFile, type ExportType } from './_lib/formats/index.js';
import { catalogBuildId, readCatalogJson } from './_lib/catalog/store.js';
import { ServiceError, cachedResponse, clampHeaders, handle, jsonResponse, parseQuery } from './_lib/http/index.js';
import { CATALOG_ROUTES, routeOf } from './_lib/routing/routes.js';
import { loadSearchIndex } from './_lib/search/index.js';
import { csvFileName, exportCsvStream, exportJsonStream, filterRecords } from './_lib/export/index.js';

/** Largest `limit` of `/api/search` (spec §8). */
export const SEARCH_LIMIT_MAX = 200;
/** Default `limit` of `/api/search` (spec §8). */
export const SEARCH_LIMIT_DEFAULT = 50;

const SEARCH_PARAMS = {
  q: { kind: 'string', required: true, maxLength: 200 },
  type: { kind: 'enum', values: ['all', ...SEARCH_TYPES], default: 'all' },
  limit: { kind: 'int', min: 1, max: SEARCH_LIMIT_MAX, default: SEARCH_LIMIT_DEFAULT, clamp: true },
} as const;

const EXPORT_PARAMS = {
  type: { kind: 'enum', values: EXPORT_TYPES, required: true },
  tier: { kind: 'int', min: 1, max: 8 },
  category: { kind: 'string', maxLength: 200 },
  format: { kind: 'enum', values: ['json', 'csv'], default: 'json' },
} as const;

/** Shape of an export file written by the build (`exportFile(type)`). */
interface ExportFileBody {
  readonly type: string;
  readonly columns: readonly string[];
  readonly records: readonly unknown[];
}

function parseExportFile(raw: unknown): ExportFileBody {
  const o = raw as Partial<ExportFileBody> | null;
  if (
    typeof o !== 'object' || o === null ||
    !Array.isArray(o.columns) || !o.columns.every((c) => typeof c === 'string') ||
    !Array.isArray(o.records)
  ) {
    throw new Error('export file must be { type, columns: string[], records: [] }');
  }
  return o as ExportFileBody;
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
  const [buildId, file] = await Promise.all([catalogBuildId(), readCatalogJson(exportFile(type), parseExportFile)]);
  const filters = { tier: values.tier, category: values.category };
  const records = filterRecords(file.records, filters);
  const options = { buildId, canonical: `export?${canonical}` };
  if (values.format === 'csv') {
    return cachedResponse(request, exportCsvStream(file.columns, records), {
      ...options,
      contentType: 'text/csv; charset=utf-8',
      headers: { 'Content-Disposition': `attachment; filename="${csvFileName(type, filters)}"` },
    });
  }
  const head = { type, total: records.length, filters: { tier: values.tier ?? null, category: values.category ?? null } };
  return cachedResponse(request, exportJsonStream(head, records), options);
}

function notFound(url: URL, route: string | undefined): never {
  if (route === CATALOG_ROUTES.retired) {
    throw new ServiceError(
      'NOT_FOUND',
      'The systems catalog is retired (spec 9.3). Use warlords-catalog.json and the master-* files under /api/v1/.',
    );
  }
  throw new ServiceError(
    'NOT_FOUND',
    `Nothing is served at ${url.pathname}. See /api/v1/game-data-manifest.json for the catalog files; the endpoints are /api/search, /api/stats and /api/export.`,
  );
}

async function dispatch(request: Request): Promise<Response> {
  const url = new URL(request.url);
  const { route } = routeOf(url, 'catalog');
  switch (route) {
    case CATALOG_ROUTES.search:
      return search(request, url);
    case CATALOG_ROUTES.stats:
      return stats(request, url);
    case CATALOG_ROUTES.export:
      return exportRecords(request, url);
    default:
      return notFound(url, route);
  }
}

const ALL_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];

/**
 * Other methods: 404 on the not-found routes (every method), 405 with `Allow: GET, HEAD, OPTIONS` on
 * search, stats and export.
 */
const other = handle((request) => {
  const url = new URL(request.url);
  const { route } = routeOf(url, 'catalog');
  if (route === CATALOG_ROUTES.search || route === CATALOG_ROUTES.stats || route === CATALOG_ROUTES.export) {
    throw new ServiceError('METHOD_NOT_ALLOWED', `${request.method} is not supported here; use GET.`, {
      headers: { Allow: 'GET, HEAD, OPTIONS' },
    });
  }
  return notFound(url, route);
}, ALL_METHODS);

/** GET/HEAD: search, stats, export, or 404 (see the file header). */
export const GET = handle(dispatch);
/** HEAD: as GET without a body. */
export const HEAD = GET;
/** CORS preflight (answered by `handle`). */
export const OPTIONS = GET;
/** POST: 405 on search/stats/export, 404 elsewhere. */
export const POST = other;
/** PUT: as POST. */
export const PUT = other;
/** PATCH: as POST. */
export const PATCH = other;
/** DELETE: as POST. */
export const DELETE = other;
