/**
 * The route table: every public path of the service, declared once (docs/architecture.md, "Routing").
 *
 * A route is a public path, the function entry file that answers it (`api/<entry>.ts`), a route name
 * unique within that entry, and the methods it accepts (HEAD comes with GET; OPTIONS preflight is
 * answered for every route). From this table:
 * - `npm run routes` writes `vercel.json`'s `rewrites` and per-entry `functions` (see
 *   {@link vercelRewrites}); `test/api/routing.test.ts` fails when the file drifts;
 * - `defineEntry` (`api/_lib/http/entry.ts`) looks a request up, dispatches on its method, answers
 *   preflight, 405 with a true `Allow`, and 404;
 * - the local server routes through the generated `vercel.json` with Vercel's own routing library.
 *
 * Path syntax: literal segments, `{key}` (exactly one segment), `{key}.json` (one segment ending in
 * `.json`, the key without it) and `{key+}` (one or more segments, `/` included, e.g. a storage key).
 * Matching is case-insensitive like Vercel's router; the key is percent-decoded. A route is public: a client cannot change what its path means, because the route
 * and key always come from the path (routing query parameters are ignored on public paths).
 *
 * Entries whose file does not exist yet are not rewritten: their paths fall through to the catalog
 * entry's not-found route (404 problem+json).
 */

/** HTTP methods a route may declare. HEAD is implied by GET; OPTIONS is answered by the entry helper. */
export const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
/** One declarable method. */
export type Method = (typeof METHODS)[number];

/**
 * Who may call a route (spec 5; docs/architecture.md, "Access"), declared with the route and applied by
 * the entry helper before the handler runs (the OpenAPI document's security comes from the same value):
 * - `public`: anyone, no credential read;
 * - `player`: a valid, non-guest bearer token of any role (spec 5.4);
 * - `game-server`: a token whose role is `server`, `admin` or `master`, or `X-Admin-Password` (spec 2.6:
 *   unique items and bag quantities change server-side only);
 * - `player-or-game-server`: a player's own token, or a game server's credentials acting for a player's
 *   account (what each may write of player state is the player service's field table);
 * - `support`: an operator who may look and export, not change: a token whose role is `support`,
 *   `admin` or `master`, or `X-Admin-Password`;
 * - `admin`: a token whose role is `admin` or `master`, or `X-Admin-Password` (spec 5.3);
 * - `cron`: a scheduled call, `Authorization: Bearer <CRON_SECRET>` as Vercel Cron sends it (no token of
 *   our issuer, no password; off while `CRON_SECRET` is unset; docs/architecture.md, "Scheduled verification").
 */
export const ACCESS = ['public', 'player', 'game-server', 'player-or-game-server', 'support', 'admin', 'cron'] as const;
/** One access level. */
export type Access = (typeof ACCESS)[number];

/** Function entry files, by name: `api/<name>.ts`, reachable as `/api/<name>` (Vercel skips `api/_lib`). */
export const ENTRIES = ['catalog', 'collections', 'registries', 'wallet', 'admin', 'storage', 'player'] as const;
/** One function entry name. */
export type EntryName = (typeof ENTRIES)[number];

/** One public route. */
export interface RouteDef {
  /** Public path pattern, e.g. `/v1/relics/{key}` (see the module header for the syntax). */
  readonly path: string;
  /** Entry file that answers it. */
  readonly entry: EntryName;
  /** Route name, unique within the entry (the handler table key and the `_route` query value). */
  readonly name: string;
  /** Methods the route accepts. */
  readonly methods: readonly Method[];
  /** Who may call it: one level for every method, or one per method (see {@link ACCESS}). */
  readonly access: Access | Readonly<Partial<Record<Method, Access>>>;
  /**
   * The status the route's write method answers when it changes something (201 for a creation, 204 for
   * a deletion without body; default 200): what the audit record written with the change says
   * (docs/architecture.md, "Audit log").
   */
  readonly changeStatus?: 201 | 204;
  /**
   * True for routes that answer 404 to every method, OPTIONS included (the retired systems catalog and
   * the catch-alls): nothing is served there, so nothing is allowed either.
   */
  readonly gone?: boolean;
}

const ALL: readonly Method[] = METHODS;
const GET: readonly Method[] = ['GET'];

const collectionRoutes = (['relics', 'enchants', 'infusions', 'artifacts'] as const).flatMap(
  (name) =>
    [
      { path: `/v1/${name}`, entry: 'collections', name, methods: GET, access: 'public' },
      { path: `/v1/${name}/{key}`, entry: 'collections', name: `${name}-item`, methods: GET, access: 'public' },
      // the static item file's path: answered here when the build wrote no file for it (itemFileBudget)
      { path: `/api/v1/${name}/{key}.json`, entry: 'collections', name: `${name}-file`, methods: GET, access: 'public' },
    ] as const,
);

const registry = (path: string, name: string): RouteDef => ({ path, entry: 'registries', name, methods: GET, access: 'public' });

/** Every public route, in matching order: literal paths before `{key}` ones of the same prefix, catch-alls last. */
export const ROUTES: readonly RouteDef[] = Object.freeze([
  // §4.4 search, stats, export
  { path: '/api/search', entry: 'catalog', name: 'search', methods: GET, access: 'public' },
  { path: '/api/stats', entry: 'catalog', name: 'stats', methods: GET, access: 'public' },
  { path: '/api/export', entry: 'catalog', name: 'export', methods: GET, access: 'public' },
  // §7, §9.3: the retired systems catalog is never emitted; a problem+json 404, not a CDN page
  { path: '/api/v1/systems-catalog.json', entry: 'catalog', name: 'retired', methods: ALL, gone: true, access: 'public' },
  // §4.2 item collections
  ...collectionRoutes,
  // §4.5 sprite registry
  registry('/api/v1/sprites', 'sprites'),
  registry('/api/v1/sprites/search', 'sprites-search'),
  registry('/api/v1/sprites/{key}', 'sprite'),
  registry('/api/v1/characters', 'characters'),
  registry('/api/v1/characters/{key}', 'character'),
  registry('/api/v1/stats', 'stats'),
  // §4.6 icon registry and legacy asset registry
  registry('/api/v1/icons', 'icons'),
  registry('/api/v1/icons/search', 'icons-search'),
  registry('/api/v1/icons/by-path', 'icons-by-path'),
  registry('/api/v1/icons/categories', 'icons-categories'),
  registry('/api/v1/icons/{key}', 'icon'),
  registry('/api/assets/categories', 'legacy-categories'),
  registry('/api/assets/search', 'legacy-search'),
  registry('/api/assets/{key}', 'legacy-asset'),
  // §4.3 asset search
  registry('/api/v1/studiodot-assets', 'studiodot-assets'),
  registry('/api/v1/studiodot-assets/categories', 'studiodot-assets-categories'),
  // §4.8 wallet ledger (spec 5.3: verify-send is admin only; the overview needs the caller's token)
  { path: '/api/wallet/verify-send-to-account', entry: 'wallet', name: 'verify-send', methods: ['POST'], access: 'admin' },
  { path: '/api/wallet/overview', entry: 'wallet', name: 'overview', methods: GET, access: 'player' },
  // §4.8 admin: accounts (spec 2.6, 2.8) and grant-coin
  { path: '/api/admin/accounts', entry: 'admin', name: 'accounts', methods: ['POST'], access: 'admin', changeStatus: 201 },
  { path: '/api/admin/accounts/{key}', entry: 'admin', name: 'account', methods: GET, access: 'support' },
  { path: '/api/admin/grant-coin', entry: 'admin', name: 'grant-coin', methods: ['POST'], access: 'admin' },
  // the operator console's sign-in: the admin password exchanged for a short-lived token (docs/architecture.md, "Operator console")
  { path: '/api/admin/session', entry: 'admin', name: 'session', methods: ['POST'], access: 'admin' },
  // player look-up (docs/architecture.md, "Player look-up")
  { path: '/api/admin/players', entry: 'admin', name: 'players', methods: GET, access: 'support' },
  { path: '/api/admin/players/{key}', entry: 'admin', name: 'player', methods: GET, access: 'support' },
  { path: '/api/admin/players/{key}/wallet', entry: 'admin', name: 'player-wallet', methods: GET, access: 'support' },
  { path: '/api/admin/players/{key}/bag', entry: 'admin', name: 'player-bag', methods: GET, access: 'support' },
  { path: '/api/admin/players/{key}/items', entry: 'admin', name: 'player-items', methods: GET, access: 'support' },
  { path: '/api/admin/items/{key}/events', entry: 'admin', name: 'item-history', methods: GET, access: 'support' },
  { path: '/api/admin/players/{key}/island', entry: 'admin', name: 'player-island', methods: GET, access: 'support' },
  { path: '/api/admin/players/{key}/characters', entry: 'admin', name: 'player-characters', methods: GET, access: 'support' },
  // sessions and bans (spec 5.3; docs/architecture.md, "Sessions and bans")
  { path: '/api/admin/players/{key}/revoke-sessions', entry: 'admin', name: 'revoke-sessions', methods: ['POST'], access: 'admin' },
  { path: '/api/admin/players/{key}/ban', entry: 'admin', name: 'ban', methods: ['POST'], access: 'admin' },
  { path: '/api/admin/players/{key}/unban', entry: 'admin', name: 'unban', methods: ['POST'], access: 'admin' },
  // data requests (GDPR articles 15 and 17; docs/architecture.md, "Erasure and the chain")
  { path: '/api/admin/players/{key}/erase', entry: 'admin', name: 'erase', methods: ['POST'], access: 'admin' },
  { path: '/api/admin/players/{key}/export', entry: 'admin', name: 'player-export', methods: GET, access: 'support' },
  // the audit log (spec 5.3; docs/architecture.md, "Audit log")
  { path: '/api/admin/audit', entry: 'admin', name: 'audit', methods: GET, access: 'support' },
  // reversals (spec 4.8, 8; docs/architecture.md, "Reversals")
  { path: '/api/admin/reversals', entry: 'admin', name: 'reversals', methods: ['POST'], access: 'admin' },
  // the scheduled ledger check: Vercel Cron's GET, an operator's POST, and its health (docs/architecture.md, "Scheduled verification")
  {
    path: '/api/admin/ledger/verify',
    entry: 'admin',
    name: 'ledger-verify',
    methods: ['GET', 'POST'],
    access: { GET: 'cron', POST: 'admin' },
  },
  { path: '/api/admin/ledger/health', entry: 'admin', name: 'ledger-health', methods: GET, access: 'support' },
  // corrections of player state (docs/architecture.md, "Bag reversals", "Voided items")
  { path: '/api/admin/bag-reversals', entry: 'admin', name: 'bag-reversals', methods: ['POST'], access: 'admin' },
  { path: '/api/admin/items/{key}/void', entry: 'admin', name: 'item-void', methods: ['POST'], access: 'admin' },
  // §4.7 storage (admin only, spec 5.6 shows none): the named routes before the key route
  { path: '/api/storage/upload', entry: 'storage', name: 'upload', methods: ['POST'], access: 'admin', changeStatus: 201 },
  { path: '/api/storage/upload-multi', entry: 'storage', name: 'upload-multi', methods: ['POST'], access: 'admin' },
  { path: '/api/storage/upload-zip', entry: 'storage', name: 'upload-zip', methods: ['POST'], access: 'admin' },
  { path: '/api/storage/presign', entry: 'storage', name: 'presign', methods: ['POST'], access: 'admin' },
  { path: '/api/storage/list', entry: 'storage', name: 'list', methods: GET, access: 'admin' },
  // §4.9 the metadata index of stored binaries
  { path: '/api/storage/register', entry: 'storage', name: 'register', methods: ['POST'], access: 'admin' },
  { path: '/api/storage/index', entry: 'storage', name: 'index', methods: GET, access: 'admin' },
  { path: '/api/storage/{key+}', entry: 'storage', name: 'object', methods: ['DELETE'], access: 'admin', changeStatus: 204 },
  // §2.9, §4.8 home island: the spec is public; the state acts for the caller's account only
  { path: '/api/island/spec', entry: 'player', name: 'spec', methods: GET, access: 'public' },
  { path: '/api/island/state', entry: 'player', name: 'state', methods: ['GET', 'PATCH'], access: 'player-or-game-server' },
  { path: '/api/island/export-from-rts', entry: 'player', name: 'export-from-rts', methods: ['POST'], access: 'player' },
  // §2.6, §2.8, §4.8 characters of the caller's account (characters.id is the only key)
  { path: '/api/characters', entry: 'player', name: 'characters', methods: ['GET', 'POST'], access: 'player' },
  { path: '/api/characters/{key}/progress', entry: 'player', name: 'progress', methods: ['GET', 'PATCH'], access: 'player-or-game-server' },
  // §4.8, §5.5 external login (no caller token) and link (the caller's token)
  { path: '/api/auth/external', entry: 'player', name: 'external', methods: ['POST'], access: 'public' },
  { path: '/api/auth/external-link', entry: 'player', name: 'external-link', methods: ['POST'], access: 'player' },
  { path: '/api/auth/logout', entry: 'player', name: 'logout', methods: ['POST'], access: 'player' },
  // §2.6, §4.8 unique items: minting and the item ledger (game servers and admins)
  { path: '/api/uuid', entry: 'player', name: 'uuid', methods: ['POST'], access: 'game-server', changeStatus: 201 },
  { path: '/api/ledger/{key}', entry: 'player', name: 'item', methods: GET, access: 'game-server' },
  { path: '/api/ledger/{key}/events', entry: 'player', name: 'item-events', methods: ['POST'], access: 'game-server', changeStatus: 201 },
  // §2.6, §2.8, §4.8 the account bag: read by its owner, changed by game servers
  { path: '/api/inventory', entry: 'player', name: 'inventory', methods: GET, access: 'player' },
  { path: '/api/inventory/grant', entry: 'player', name: 'inventory-grant', methods: ['POST'], access: 'game-server', changeStatus: 201 },
  {
    path: '/api/inventory/consume',
    entry: 'player',
    name: 'inventory-consume',
    methods: ['POST'],
    access: 'game-server',
    changeStatus: 201,
  },
  // §4.8 account-scoped state: learned recipes are read by the player, taught by game servers
  {
    path: '/api/account/recipes',
    entry: 'player',
    name: 'recipes',
    methods: ['GET', 'POST'],
    access: { GET: 'player-or-game-server', POST: 'game-server' },
    changeStatus: 201,
  },
  // a player's own data export (GDPR article 15; docs/architecture.md, "Player look-up")
  { path: '/api/account/export', entry: 'player', name: 'account-export', methods: GET, access: 'player' },
  // Anything else under the API answers a problem+json 404 (after static files and entry files).
  { path: '/api/{key*}', entry: 'catalog', name: 'not-found', methods: ALL, gone: true, access: 'public' },
  { path: '/v1/{key*}', entry: 'catalog', name: 'not-found', methods: ALL, gone: true, access: 'public' },
] satisfies RouteDef[]);

/** A request path matched against the table. */
export interface RouteMatch {
  readonly route: RouteDef;
  /** The `{key}` segment(s), percent-decoded; undefined when the route has none or it matched nothing. */
  readonly key: string | undefined;
}

/** Regex for the path syntax of {@link RouteDef}. @throws Error for any other placeholder. */
function compilePath(path: string): RegExp {
  let re = '^';
  for (const part of path.split('/').slice(1)) {
    if (part === '{key}') re += '/([^/]+)';
    else if (part === '{key}.json') re += '/([^/]+)\\.json';
    else if (part === '{key+}') re += '/([^/]+(?:/[^/]+)*)';
    else if (part === '{key*}') re += '(?:/([^/]+(?:/[^/]+)*))?';
    else if (/[{}:]/.test(part)) throw new Error(`Unsupported route placeholder "${part}" in ${path}`);
    else re += '/' + part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(re + '/?$', 'i');
}

const compiled = ROUTES.map((route) => ({ route, re: compilePath(route.path) }));

/** True when the route's path has a `{key}` placeholder. */
export function hasKey(route: RouteDef): boolean {
  return route.path.includes('{key');
}

/**
 * Match a public pathname (e.g. `/v1/relics/fire-ring`) against {@link ROUTES}.
 * @returns the first matching route and its decoded key (undefined when the key is not valid
 *   percent-encoding: such a request can name no item), or undefined when no route matches.
 */
export function matchPath(pathname: string): RouteMatch | undefined {
  for (const { route, re } of compiled) {
    const m = re.exec(pathname);
    if (!m) continue;
    const raw = m[1];
    if (raw === undefined || raw === '') return { route, key: undefined };
    try {
      return { route, key: decodeURIComponent(raw) };
    } catch {
      return { route, key: undefined };
    }
  }
  return undefined;
}

/** Who may call `method` of `route`. */
export function accessOf(route: RouteDef, method: Method): Access {
  if (typeof route.access === 'string') return route.access;
  const level = route.access[method];
  if (level === undefined) throw new Error(`Route ${route.entry}/${route.name} declares no access for ${method}.`);
  return level;
}

/** The routes of one entry, in table order. */
export function routesOf(entry: EntryName): RouteDef[] {
  return ROUTES.filter((r) => r.entry === entry);
}

/** One `rewrites` item of `vercel.json`. */
export interface VercelRewrite {
  readonly source: string;
  readonly destination: string;
}

/** The Vercel path pattern of a route path: `{key}` → `:_key`, `{key+}` → `:_key+`, `{key*}` → `:_key*`. */
export function vercelSource(path: string): string {
  return path.replace(/\{key([+*]?)\}/g, ':_key$1');
}

/**
 * The `rewrites` of `vercel.json`: one per route whose entry file exists, onto
 * `/api/<entry>?_route=<name>` plus `&_key=:_key` for keyed routes. The key parameter is named `_key`
 * so Vercel does not append it to the query under another name. Rewrites run after the filesystem, so
 * a static file of the same path wins.
 * @param entryExists whether `api/<entry>.ts` exists (routes of a missing entry are left out).
 */
export function vercelRewrites(entryExists: (entry: EntryName) => boolean): VercelRewrite[] {
  const out: VercelRewrite[] = [];
  for (const r of ROUTES) {
    if (!entryExists(r.entry)) continue;
    const source = vercelSource(r.path);
    if (out.some((o) => o.source === source)) continue;
    out.push({ source, destination: `/api/${r.entry}?_route=${r.name}${hasKey(r) ? '&_key=:_key' : ''}` });
  }
  return out;
}
