/**
 * Item collections (spec 2.2, 3, 4.2, 7, 8).
 *
 * Paths (declared in `api/_lib/routing/table.ts`: route `{name}` for a list, `{name}-item` for a lookup):
 * - `GET /v1/relics`     q (name, id, description), category (elemental|combat|defensive|utility), tier (1-8), element, slot (relic)
 * - `GET /v1/enchants`   q (name, id, description), category, tier (1-8), target (weapon|armor)
 * - `GET /v1/infusions`  q (name, id, description), tier (1-8), scope (universal|profession), profession
 * - `GET /v1/artifacts`  q (name, description), tier (1-8), artifactType, subtype, handedness (1h|2h|offhand), discovered (all)
 *   every list also takes `limit` (1-500, default 50, above 500 clamped with `X-Limit-Requested`/`X-Limit-Applied`)
 *   and `offset` (≥ 0, default 0). Filters combine with AND; words compare without case and accents.
 * - `GET /v1/relics/{key}`, `/v1/enchants/{key}` (uuid, id or name slug), `/v1/infusions/{key}` (uuid or id),
 *   `/v1/artifacts/{key}` (uuid or name slug); keys compare without case and accents; hidden artifacts are
 *   found by lookup (spec 3 hides them from lists only). No parameters.
 * - `GET /api/v1/{name}/{key}.json`: the static item file's path (route `{name}-file`), reached only when the
 *   build wrote no file there (a rewrite runs after the filesystem; the catalog config's `itemFileBudget`):
 *   the same bytes as `/v1/{name}/{key}`, which are the bytes the file would hold.
 * - `OPTIONS` preflight on every path; `HEAD` like `GET` without a body.
 *
 * Responses: 200 list `{collection, total, count, limit, offset, items}` (schema
 * `schemas/responses/collection-list.schema.json`) or the item object (`collection-item.schema.json`), with
 * `Cache-Control: public, max-age=300` (and the same `CDN-Cache-Control` for the edge), `ETag` (304 on `If-None-Match`) and CORS headers.
 * Errors (problem+json, CORS, `no-store`): 400 INVALID_QUERY (every bad, repeated or unknown parameter in
 * `errors[]`), 404 NOT_FOUND (unknown collection or no item with that key), 405 METHOD_NOT_ALLOWED,
 * 503 UPSTREAM_UNAVAILABLE (collection index or manifest missing or corrupt).
 */
import { cachedResponse, clampHeaders, defineEntry, parseQuery, ServiceError, truncate, type RouteHandler } from './_lib/http/index.js';
import { catalogBuildId } from './_lib/catalog/store.js';
import type { CollectionName } from './_lib/formats/index.js';
import { LOOKUP_PARAM_SPEC, listParamSpec } from './_lib/http/collection-params.js';
import { loadCollection, lookupItem, queryCollection, type CollectionQuery } from './_lib/collections/index.js';

/** `GET /v1/{name}`: the filtered, paged list (spec 2.2, 4.2). */
function list(name: CollectionName): RouteHandler {
  return async ({ request, url }) => {
    const parsed = parseQuery(url.searchParams, listParamSpec(name));
    const index = await loadCollection(name);
    const result = queryCollection(index, parsed.values as CollectionQuery);
    const buildId = await catalogBuildId();
    return cachedResponse(request, result.body, {
      buildId,
      canonical: `/v1/${name}?${parsed.canonical}`,
      headers: clampHeaders(parsed.clamped),
    });
  };
}

/** `GET /v1/{name}/{key}`: one item by id, uuid or name slug (spec 4.2). */
function item(name: CollectionName): RouteHandler {
  return async ({ request, url, key = '' }) => {
    parseQuery(url.searchParams, LOOKUP_PARAM_SPEC);
    const index = await loadCollection(name);
    const body = lookupItem(index, key);
    if (body === undefined) {
      const kinds = index.def.keyKinds.map((k) => (k === 'slug' ? 'name slug' : k)).join(', ');
      throw new ServiceError('NOT_FOUND', `No item of /v1/${name} has the key "${truncate(key)}". Look items up by ${kinds}.`);
    }
    const buildId = await catalogBuildId();
    return cachedResponse(request, body, { buildId, canonical: `/v1/${name}/${encodeURIComponent(key)}` });
  };
}

/** The method exports (see the file header); every one dispatches through the route table. */
export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = defineEntry('collections', {
  relics: { GET: list('relics') },
  'relics-item': { GET: item('relics') },
  'relics-file': { GET: item('relics') },
  enchants: { GET: list('enchants') },
  'enchants-item': { GET: item('enchants') },
  'enchants-file': { GET: item('enchants') },
  infusions: { GET: list('infusions') },
  'infusions-item': { GET: item('infusions') },
  'infusions-file': { GET: item('infusions') },
  artifacts: { GET: list('artifacts') },
  'artifacts-item': { GET: item('artifacts') },
  'artifacts-file': { GET: item('artifacts') },
});
