/**
 * Registry functions: sprites, characters and registry stats (spec 4.5), icons and the legacy asset
 * registry (spec 4.6), and the asset search (spec 4.3). One entry file; its routes are declared in
 * `api/_lib/routing/table.ts` (route names in the table below), so
 * `GET(new Request('http://t/api/v1/icons?category=weapon'))` works as a request through the CDN does.
 *
 * Paging (all lists): `page` integer ≥ 1 default 1 (a page past the end is empty); `limit` integer ≥ 1,
 * default 50 (200 for studiodot-assets), maximum 500; a larger limit is clamped to 500 and reported in
 * `X-Limit-Requested` / `X-Limit-Applied`. List bodies: `{ total, page, limit, count, items, …filters echoed }`.
 *
 * | Path | Route | Query | 200 body (schema in schemas/responses/) |
 * |---|---|---|---|
 * | GET /api/v1/sprites | sprites | category, page, limit | `{ total, page, limit, count, category, items: [sprite] }` (sprites-list) |
 * | GET /api/v1/sprites/search | sprites-search | q (required), category, page, limit | `{ query, category, total, page, limit, count, items }` best first (sprites-search) |
 * | GET /api/v1/sprites/{uuid} | sprite | - | sprite `{ uuid, name, path, url, category, subcategory, source }` (sprite) |
 * | GET /api/v1/characters | characters | category, page, limit | `{ total, page, limit, count, category, items: [character] }` (characters-list) |
 * | GET /api/v1/characters/{uuid} | character | - | character `{ uuid, name, category, basePath, animations: { <anim>: { path, uuid } } }` (character) |
 * | GET /api/v1/stats | stats | - | `{ sprites: { total, derivedIds, categories }, characters: { total, categories }, icons: { total, categories } }` (registry-stats) |
 * | GET /api/v1/icons | icons | category (one of the 16), page, limit | `{ total, page, limit, count, category, items: [icon] }` sorted by id (icons-list) |
 * | GET /api/v1/icons/search | icons-search | q (required), category, page, limit | `{ query, category, total, page, limit, count, items }` best first (icons-search) |
 * | GET /api/v1/icons/by-path | icons-by-path | path (required): object key, path below the key prefix, or CDN URL | icon (icon) |
 * | GET /api/v1/icons/categories | icons-categories | - | `{ total, categories: [{ category, count }] }`, all 16 (icon-categories) |
 * | GET /api/v1/icons/{studioUuid} | icon | - | icon `{ <uuidField>, iconUuid, key, path, url, category, name, tags }` (icon) |
 * | GET /api/assets/categories | legacy-categories | - | as /api/v1/icons/categories |
 * | GET /api/assets/search | legacy-search | q (required), category, page, limit | as /api/v1/icons/search |
 * | GET /api/assets/{uuid} | legacy-asset | - | as /api/v1/icons/{studioUuid} (the legacy asset registry is the icon registry by ICON id) |
 * | GET /api/v1/studiodot-assets | studiodot-assets | type (icon, sprite, model, audio, video), category, search, page, limit (default 200) | `{ total, page, limit, count, type, category, search, items: [asset] }` (studiodot-assets-list) |
 * | GET /api/v1/studiodot-assets/categories | studiodot-assets-categories | - | `{ total, types, categories: [{ type, category, count }] }` (studiodot-assets-categories) |
 *
 * Errors (application/problem+json, `code`): 400 INVALID_QUERY (unknown, repeated or bad parameter,
 * missing q/path, q without a letter or digit; every problem listed in `errors[]`), 404 NOT_FOUND (unknown
 * id or path, unknown route), 405 METHOD_NOT_ALLOWED (anything but GET/HEAD/OPTIONS), 503
 * UPSTREAM_UNAVAILABLE (registry files missing or corrupt: run the catalog build).
 * Responses carry CORS, `Cache-Control: public, max-age=300`, an ETag from the build id, and 304 on `If-None-Match`.
 */
import { catalogBuildId } from './_lib/catalog/store.js';
import { ServiceError, clampHeaders, defineEntry, jsonResponse, parseQuery, type ParamSpec, type RouteHandler } from './_lib/http/index.js';
import {
  ASSET_TYPES,
  ICON_CATEGORIES,
  assetCategories,
  getCharacter,
  getIcon,
  getIconByPath,
  getSprite,
  iconCategories,
  listAssets,
  listCharacters,
  listIcons,
  listSprites,
  queryTerms,
  registryStats,
  searchIcons,
  searchSprites,
} from './_lib/registries/index.js';

const PAGE = { kind: 'int', min: 1, max: 1_000_000, default: 1 } as const;
const LIMIT = { kind: 'int', min: 1, max: 500, default: 50, clamp: true } as const;
const ASSET_LIMIT = { kind: 'int', min: 1, max: 500, default: 200, clamp: true } as const;
const Q = { kind: 'string', required: true, maxLength: 200 } as const;
const ICON_CATEGORY = { kind: 'enum', values: ICON_CATEGORIES } as const;
const CATEGORY = { kind: 'string', maxLength: 100 } as const;

/** Query parameters of every route, by route name (also read by the OpenAPI document, `build/openapi/`). */
export const SPECS = {
  sprites: { category: CATEGORY, page: PAGE, limit: LIMIT },
  'sprites-search': { q: Q, category: CATEGORY, page: PAGE, limit: LIMIT },
  sprite: {},
  characters: { category: CATEGORY, page: PAGE, limit: LIMIT },
  character: {},
  stats: {},
  icons: { category: ICON_CATEGORY, page: PAGE, limit: LIMIT },
  'icons-search': { q: Q, category: ICON_CATEGORY, page: PAGE, limit: LIMIT },
  'icons-by-path': { path: { kind: 'string', required: true, maxLength: 1024 } },
  'icons-categories': {},
  icon: {},
  'legacy-categories': {},
  'legacy-search': { q: Q, category: ICON_CATEGORY, page: PAGE, limit: LIMIT },
  'legacy-asset': {},
  'studiodot-assets': { type: { kind: 'enum', values: ASSET_TYPES }, category: CATEGORY, search: CATEGORY, page: PAGE, limit: ASSET_LIMIT },
  'studiodot-assets-categories': {},
} as const satisfies Record<string, Record<string, ParamSpec>>;

/** One registry route name (spec 4.3, 4.5, 4.6), as declared in the route table. */
type RegistryRoute = keyof typeof SPECS;

/** Which operation a request asks for, and its path segment for lookups. */
interface Target {
  readonly route: RegistryRoute;
  readonly key: string | undefined;
}

/** Normalised query words of `q`. @throws INVALID_QUERY when `q` has no letter or digit. */
function words(q: string): string[] {
  const w = queryTerms(q);
  if (w.length === 0) {
    throw new ServiceError('INVALID_QUERY', '1 invalid query parameter(s): q.', {
      errors: [{ name: 'q', message: '"q" must contain at least one letter or digit.', value: q }],
    });
  }
  return w;
}

interface Answer {
  readonly body: unknown;
  readonly canonical: string;
  readonly headers?: Record<string, string>;
}

async function answer(t: Target, params: URLSearchParams): Promise<Answer> {
  const key = t.key ?? '';
  switch (t.route) {
    case 'sprites': {
      const { values: v, canonical, clamped } = parseQuery(params, SPECS.sprites);
      return { body: await listSprites(v.category, v.page, v.limit), canonical, headers: clampHeaders(clamped) };
    }
    case 'sprites-search': {
      const { values: v, canonical, clamped } = parseQuery(params, SPECS['sprites-search']);
      return { body: await searchSprites(v.q, words(v.q), v.category, v.page, v.limit), canonical, headers: clampHeaders(clamped) };
    }
    case 'sprite':
      parseQuery(params, SPECS.sprite);
      return { body: await getSprite(key), canonical: key.toUpperCase() };
    case 'characters': {
      const { values: v, canonical, clamped } = parseQuery(params, SPECS.characters);
      return { body: await listCharacters(v.category, v.page, v.limit), canonical, headers: clampHeaders(clamped) };
    }
    case 'character':
      parseQuery(params, SPECS.character);
      return { body: await getCharacter(key), canonical: key.toUpperCase() };
    case 'stats':
      parseQuery(params, SPECS.stats);
      return { body: await registryStats(), canonical: '' };
    case 'icons': {
      const { values: v, canonical, clamped } = parseQuery(params, SPECS.icons);
      return {
        body: await listIcons(v.category as (typeof ICON_CATEGORIES)[number] | undefined, v.page, v.limit),
        canonical,
        headers: clampHeaders(clamped),
      };
    }
    case 'icons-search':
    case 'legacy-search': {
      const { values: v, canonical, clamped } = parseQuery(params, SPECS[t.route]);
      const category = v.category as (typeof ICON_CATEGORIES)[number] | undefined;
      return { body: await searchIcons(v.q, words(v.q), category, v.page, v.limit), canonical, headers: clampHeaders(clamped) };
    }
    case 'icons-by-path': {
      const { values: v, canonical } = parseQuery(params, SPECS['icons-by-path']);
      return { body: await getIconByPath(v.path), canonical };
    }
    case 'icons-categories':
    case 'legacy-categories':
      parseQuery(params, SPECS[t.route]);
      return { body: await iconCategories(), canonical: '' };
    case 'icon':
    case 'legacy-asset':
      parseQuery(params, SPECS[t.route]);
      return { body: await getIcon(key), canonical: key.toUpperCase() };
    case 'studiodot-assets': {
      const { values: v, canonical, clamped } = parseQuery(params, SPECS['studiodot-assets']);
      const type = v.type as (typeof ASSET_TYPES)[number] | undefined;
      return {
        body: await listAssets({ type, category: v.category, search: v.search }, v.page, v.limit),
        canonical,
        headers: clampHeaders(clamped),
      };
    }
    case 'studiodot-assets-categories':
      parseQuery(params, SPECS['studiodot-assets-categories']);
      return { body: await assetCategories(), canonical: '' };
  }
}

/** The handler of one registry route: parse, answer, cacheable JSON with an ETag of the build. */
function route(name: RegistryRoute): RouteHandler {
  return async ({ request, url, key }) => {
    const t: Target = { route: name, key: key?.trim() };
    if (key !== undefined && t.key === '') throw new ServiceError('NOT_FOUND', `Nothing is served at ${url.pathname}.`);
    const a = await answer(t, url.searchParams);
    const buildId = await catalogBuildId();
    return jsonResponse(request, a.body, { buildId, canonical: `${t.route}/${a.canonical}`, headers: a.headers ?? {} });
  };
}

/**
 * The method exports of every registry path listed in the header (GET, HEAD; OPTIONS answers the
 * preflight; other methods 405). 200 JSON (or 304), or a problem: 400 INVALID_QUERY, 404 NOT_FOUND,
 * 405, 503 UPSTREAM_UNAVAILABLE.
 */
export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = defineEntry(
  'registries',
  Object.fromEntries((Object.keys(SPECS) as RegistryRoute[]).map((name) => [name, { GET: route(name) }])),
);
