/**
 * The public route table: which spec path (§4.1-4.8) reaches which function entry file, and with which
 * `_route` (operation) and `_key` (path segment such as an id) query parameters.
 *
 * This table is the single source of the `rewrites` of `vercel.json`: {@link vercelRewrites} renders it,
 * and `test/routing.test.ts` fails when `vercel.json` drifts from it. On Vercel and in the local server
 * (`npm start`), the rewrites run after the filesystem (static files under `dist/` win) and add
 * `_route`/`_key` to the query; routing parameters set by a rewrite take precedence over a client's
 * parameters of the same name.
 *
 * Handlers read the operation with {@link routeOf}: `_route`/`_key` when present, otherwise the public
 * path itself is matched against this table, so a direct call such as
 * `GET(new Request('http://t/v1/relics/abc'))` works without a server.
 *
 * Entry files (Vercel skips `api/_lib`, so few functions exist; the Hobby plan allows 12):
 * - `api/catalog.ts`      search, stats, export (§4.4), the retired systems catalog (§7, §9.3) and the
 *                         not-found answer for every unrouted `/api/*` and `/v1/*` path
 * - `api/collections.ts`  relics, enchants, infusions, artifacts (§4.2)
 * - `api/registries.ts`   sprites, characters, sprite stats, icons, legacy assets, asset manifest search (§4.3, 4.5, 4.6)
 * - `api/storage.ts`      uploads, list, delete (§4.7)
 * - `api/wallet.ts`       verify-send-to-account, overview (§4.8)
 */

/** Function entry files, by name: `api/<name>.ts`, reachable as `/api/<name>`. */
export const ENTRIES = ['catalog', 'collections', 'registries', 'storage', 'wallet'] as const;
/** One function entry name. */
export type EntryName = (typeof ENTRIES)[number];

/** `_route` values of `api/catalog.ts` (§4.4, §7). */
export const CATALOG_ROUTES = {
  search: 'search',
  stats: 'stats',
  export: 'export',
  /** The retired systems catalog `/api/v1/systems-catalog.json` (§7, §9.3): always 404. */
  retired: 'retired',
  /** Any `/api/*` or `/v1/*` path no other rule matched: 404 problem+json. */
  notFound: 'not-found',
} as const;

/** `_route` values of `api/collections.ts`: the collection name (§4.2); `_key` is the lookup id when present. */
export const COLLECTION_ROUTES = {
  relics: 'relics',
  enchants: 'enchants',
  infusions: 'infusions',
  artifacts: 'artifacts',
} as const;

/**
 * `_route` values of `api/registries.ts` (§4.3, §4.5, §4.6); `_key` carries `{uuid}` / `{studioUuid}`.
 * They equal the `route` names of `REGISTRY_ROUTES` in `api/_lib/registries/contract.ts` (checked by
 * `test/routing.test.ts`).
 */
export const REGISTRY_ROUTES = {
  /** GET /api/v1/sprites (category, page, limit) */
  sprites: 'sprites',
  /** GET /api/v1/sprites/search (q, category) */
  spritesSearch: 'sprites-search',
  /** GET /api/v1/sprites/{uuid} */
  sprite: 'sprite',
  /** GET /api/v1/characters (category) */
  characters: 'characters',
  /** GET /api/v1/characters/{uuid} */
  character: 'character',
  /** GET /api/v1/stats */
  spriteStats: 'stats',
  /** GET /api/v1/icons (category, page, limit) */
  icons: 'icons',
  /** GET /api/v1/icons/search (q, category) */
  iconsSearch: 'icons-search',
  /** GET /api/v1/icons/by-path (path) */
  iconsByPath: 'icons-by-path',
  /** GET /api/v1/icons/categories */
  iconCategories: 'icons-categories',
  /** GET /api/v1/icons/{studioUuid} */
  icon: 'icon',
  /** GET /api/assets/categories */
  assetsCategories: 'legacy-categories',
  /** GET /api/assets/search?q= */
  assetsSearch: 'legacy-search',
  /** GET /api/assets/{uuid} */
  asset: 'legacy-asset',
  /** GET /api/v1/studiodot-assets (type, category, search, page, limit) */
  studiodotAssets: 'studiodot-assets',
  /** GET /api/v1/studiodot-assets/categories */
  studiodotAssetsCategories: 'studiodot-assets-categories',
} as const;

/** `_route` values of `api/storage.ts` (§4.7); `object` carries the storage key (may contain `/`) in `_key`. */
export const STORAGE_ROUTES = {
  upload: 'upload',
  uploadMulti: 'upload-multi',
  uploadZip: 'upload-zip',
  list: 'list',
  /** DELETE /api/storage/{key} (and any other method on a key, for the handler to accept or refuse). */
  object: 'object',
} as const;

/** `_route` values of `api/wallet.ts` (§4.8). */
export const WALLET_ROUTES = {
  verifySendToAccount: 'verify-send-to-account',
  overview: 'overview',
} as const;

/**
 * One public path rule.
 * `source` uses the `vercel.json` path syntax, restricted to three segment forms: a literal, `:_key`
 * (exactly one segment) and `:_key+` (one or more segments, `/` included). The parameter is always
 * named `_key` so that Vercel does not also append it to the query under another name.
 */
export interface RouteRule {
  readonly source: string;
  readonly entry: EntryName;
  readonly route: string;
}

const C = CATALOG_ROUTES;
const R = REGISTRY_ROUTES;
const S = STORAGE_ROUTES;
const W = WALLET_ROUTES;

/** Every public path rule, in matching order (specific paths before `:_key` ones, catch-alls last). */
export const ROUTE_RULES: readonly RouteRule[] = Object.freeze([
  // §4.4 search, stats, export
  { source: '/api/search', entry: 'catalog', route: C.search },
  { source: '/api/stats', entry: 'catalog', route: C.stats },
  { source: '/api/export', entry: 'catalog', route: C.export },
  // §7, §9.3: the retired systems catalog is never emitted; answer a problem+json 404, not a CDN page
  { source: '/api/v1/systems-catalog.json', entry: 'catalog', route: C.retired },
  // §4.2 item collections
  ...Object.values(COLLECTION_ROUTES).flatMap((name) => [
    { source: `/v1/${name}`, entry: 'collections' as const, route: name },
    { source: `/v1/${name}/:_key`, entry: 'collections' as const, route: name },
  ]),
  // §4.5 sprite registry
  { source: '/api/v1/sprites', entry: 'registries', route: R.sprites },
  { source: '/api/v1/sprites/search', entry: 'registries', route: R.spritesSearch },
  { source: '/api/v1/sprites/:_key', entry: 'registries', route: R.sprite },
  { source: '/api/v1/characters', entry: 'registries', route: R.characters },
  { source: '/api/v1/characters/:_key', entry: 'registries', route: R.character },
  { source: '/api/v1/stats', entry: 'registries', route: R.spriteStats },
  // §4.6 icon registry and legacy asset registry
  { source: '/api/v1/icons', entry: 'registries', route: R.icons },
  { source: '/api/v1/icons/search', entry: 'registries', route: R.iconsSearch },
  { source: '/api/v1/icons/by-path', entry: 'registries', route: R.iconsByPath },
  { source: '/api/v1/icons/categories', entry: 'registries', route: R.iconCategories },
  { source: '/api/v1/icons/:_key', entry: 'registries', route: R.icon },
  { source: '/api/assets/categories', entry: 'registries', route: R.assetsCategories },
  { source: '/api/assets/search', entry: 'registries', route: R.assetsSearch },
  { source: '/api/assets/:_key', entry: 'registries', route: R.asset },
  // §4.3 asset search
  { source: '/api/v1/studiodot-assets', entry: 'registries', route: R.studiodotAssets },
  { source: '/api/v1/studiodot-assets/categories', entry: 'registries', route: R.studiodotAssetsCategories },
  // §4.7 storage
  { source: '/api/storage/upload', entry: 'storage', route: S.upload },
  { source: '/api/storage/upload-multi', entry: 'storage', route: S.uploadMulti },
  { source: '/api/storage/upload-zip', entry: 'storage', route: S.uploadZip },
  { source: '/api/storage/list', entry: 'storage', route: S.list },
  { source: '/api/storage/:_key+', entry: 'storage', route: S.object },
  // §4.8 wallet
  { source: '/api/wallet/verify-send-to-account', entry: 'wallet', route: W.verifySendToAccount },
  { source: '/api/wallet/overview', entry: 'wallet', route: W.overview },
  // Anything else under the API answers a problem+json 404 (after static files and entry files).
  { source: '/api/:_key*', entry: 'catalog', route: C.notFound },
  { source: '/v1/:_key*', entry: 'catalog', route: C.notFound },
] satisfies RouteRule[]);

/** One `rewrites` item of `vercel.json`. */
export interface VercelRewrite {
  readonly source: string;
  readonly destination: string;
}

/**
 * The `rewrites` array of `vercel.json`, rendered from {@link ROUTE_RULES}: destination
 * `/api/<entry>?_route=<route>` plus `&_key=:_key` for rules with a path parameter.
 */
export function vercelRewrites(): VercelRewrite[] {
  return ROUTE_RULES.map((r) => ({
    source: r.source,
    destination: `/api/${r.entry}?_route=${r.route}${r.source.includes(':_key') ? '&_key=:_key' : ''}`,
  }));
}

/** A public path matched against the table. */
export interface RouteMatch {
  readonly entry: EntryName;
  readonly route: string;
  /** The `_key` segment(s), percent-decoded; undefined when the rule has none or it matched nothing. */
  readonly key: string | undefined;
}

const compiled = ROUTE_RULES.map((rule) => ({ rule, re: compileSource(rule.source) }));

/** Regex for the restricted source syntax of {@link RouteRule}; case-insensitive like Vercel's router. */
function compileSource(source: string): RegExp {
  const parts = source.split('/').slice(1);
  let re = '^';
  for (const part of parts) {
    if (part === ':_key') re += '/([^/]+)';
    else if (part === ':_key+') re += '/([^/]+(?:/[^/]+)*)';
    else if (part === ':_key*') re += '(?:/([^/]+(?:/[^/]+)*))?';
    else if (part.startsWith(':')) throw new Error(`Unsupported route parameter "${part}" in ${source}`);
    else re += '/' + part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(re + '$', 'i');
}

function decodeSegment(raw: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}

/**
 * Match a public pathname (e.g. `/v1/relics/fire-ring`) against {@link ROUTE_RULES}.
 * @returns the first matching rule's entry, route and decoded key, or undefined.
 */
export function matchPublicPath(pathname: string): RouteMatch | undefined {
  for (const { rule, re } of compiled) {
    const m = re.exec(pathname);
    if (!m) continue;
    const raw = m[1];
    return { entry: rule.entry, route: rule.route, key: raw === undefined || raw === '' ? undefined : decodeSegment(raw) };
  }
  return undefined;
}

/**
 * The operation a request addresses within one entry file.
 * Reads `_route`/`_key` from the query (set by the rewrites); without `_route`, matches the public
 * pathname against the table and keeps the result only when it belongs to `entry`.
 * @returns `{ route, key }`; `route` is undefined when nothing applies (the handler answers 404).
 */
export function routeOf(request: Request | URL, entry: EntryName): { route: string | undefined; key: string | undefined } {
  const url = request instanceof URL ? request : new URL(request.url);
  const route = url.searchParams.get('_route');
  if (route !== null && route !== '') {
    const key = url.searchParams.get('_key');
    return { route, key: key === null || key === '' ? undefined : key };
  }
  const m = matchPublicPath(url.pathname);
  return m && m.entry === entry ? { route: m.route, key: m.key } : { route: undefined, key: undefined };
}
