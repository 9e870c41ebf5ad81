/**
 * Item collections (spec 2.2, 3, 4.2, 7, 8).
 *
 * Paths (public, rewritten by `vercel.json` to `/api/collections?_route={name}[&_key={key}]`; the public
 * path itself is also understood when `_route` is absent):
 * - `GET /v1/relics`     q (name, id, description), category (elemental|combat|defensive|utility), tier (1-8), element, slot (relic)
 * - `GET /v1/enchants`   q (name, id, description), category, tier (1-8), target (weapon|armor)
 * - `GET /v1/infusions`  q (name, id, description), tier (1-8), scope (universal|profession), profession
 * - `GET /v1/artifacts`  q (name, description), tier (1-8), artifactType, subtype, handedness (1h|2h|offhand), discovered (all)
 *   every list also takes `limit` (1-500, default 50, above 500 clamped with `X-Limit-Requested`/`X-Limit-Applied`)
 *   and `offset` (≥ 0, default 0). Filters combine with AND; words compare without case and accents.
 * - `GET /v1/relics/{key}`, `/v1/enchants/{key}` (uuid, id or name slug), `/v1/infusions/{key}` (uuid or id),
 *   `/v1/artifacts/{key}` (uuid or name slug); keys compare without case and accents; hidden artifacts are
 *   found by lookup (spec 3 hides them from lists only). No parameters.
 * - `OPTIONS` preflight on every path; `HEAD` like `GET` without a body.
 *
 * Responses: 200 list `{collection, total, count, limit, offset, items}` (schema
 * `schemas/responses/collection-list.schema.json`) or the item object (`collection-item.schema.json`), with
 * `Cache-Control: public, max-age=300, s-maxage=300`, `ETag` (304 on `If-None-Match`) and CORS headers.
 * Errors (problem+json, CORS, `no-store`): 400 INVALID_QUERY (every bad, repeated or unknown parameter in
 * `errors[]`), 404 NOT_FOUND (unknown collection or no item with that key), 405 METHOD_NOT_ALLOWED,
 * 503 UPSTREAM_UNAVAILABLE (collection index or manifest missing or corrupt).
 */
import { cachedResponse, clampHeaders, handle, parseQuery, ServiceError } from './_lib/http/index.js';
import { catalogBuildId } from './_lib/catalog/store.js';
import type { CollectionName } from './_lib/formats/index.js';
import {
  COLLECTION_NAMES,
  LOOKUP_PARAM_SPEC,
  isCollectionName,
  listParamSpec,
  loadCollection,
  lookupItem,
  queryCollection,
  type CollectionQuery,
} from './_lib/collections/index.js';

const PATH_RE = /^\/v1\/([^/]+)(?:\/([^/]+))?\/?$/;

function notFound(what: string): ServiceError {
  return new ServiceError('NOT_FOUND', what);
}

/** The collection and optional item key a request addresses, from `_route`/`_key` or the public path. */
function route(url: URL): { name: CollectionName; key: string | undefined } {
  const known = `Collections: ${COLLECTION_NAMES.map((n) => `/v1/${n}`).join(', ')}.`;
  const r = url.searchParams.get('_route');
  if (r !== null) {
    if (!isCollectionName(r)) throw notFound(`No collection "${r}". ${known}`);
    const key = url.searchParams.get('_key');
    return { name: r, key: key === null || key === '' ? undefined : key };
  }
  const m = PATH_RE.exec(url.pathname);
  if (!m || !isCollectionName(m[1]!)) throw notFound(`No collection at ${url.pathname}. ${known}`);
  let key: string | undefined;
  if (m[2] !== undefined) {
    try {
      key = decodeURIComponent(m[2]);
    } catch (cause) {
      throw new ServiceError('NOT_FOUND', `The item key in ${url.pathname} is not valid percent-encoding.`, { cause });
    }
  }
  return { name: m[1], key };
}

/** `GET /v1/{name}` and `GET /v1/{name}/{key}` (see the file header). */
export const GET = handle(async (request: Request) => {
  const url = new URL(request.url);
  const { name, key } = route(url);
  if (key === undefined) {
    const parsed = parseQuery(url.searchParams, listParamSpec(name));
    const index = await loadCollection(name);
    const result = queryCollection(index, parsed.values as CollectionQuery);
    const buildId = await catalogBuildId();
    return cachedResponse(request, result.body, {
      buildId,
      canonical: `/v1/${name}?${parsed.canonical}`,
      headers: clampHeaders(parsed.clamped),
    });
  }
  parseQuery(url.searchParams, LOOKUP_PARAM_SPEC);
  const index = await loadCollection(name);
  const body = lookupItem(index, key);
  if (body === undefined) {
    throw notFound(`No item of /v1/${name} has the key "${key}". Look items up by ${index.def.keyKinds.map((k) => (k === 'slug' ? 'name slug' : k)).join(', ')}.`);
  }
  const buildId = await catalogBuildId();
  return cachedResponse(request, body, { buildId, canonical: `/v1/${name}/${encodeURIComponent(key)}` });
});

/** Preflight and HEAD go through the same handler (`handle` answers `OPTIONS`). */
export const OPTIONS = GET;
export const HEAD = GET;
