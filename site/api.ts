/**
 * Every HTTP call of the catalog browser: one typed async function per endpoint or static file the page
 * reads, each a call of the typed client (`client/`, generated from the service's OpenAPI document), so a
 * change of a route or a schema that breaks clients breaks the page's tests. No DOM code, no caching (the
 * session cache is `data.ts`).
 *
 * Paths are relative to the page's origin (the page is served beside the data, spec §4.1, §4.4-§4.6).
 * A non-2xx answer throws the client's {@link ApiError} carrying the RFC 9457 problem+json members
 * (`schemas/responses/problem.schema.json`) and the problem's `code`; an aborted call rejects with the
 * signal's `AbortError`. The URL helpers give the addresses the page links to (raw JSON, item pages).
 */
import type { CollectionName } from '../api/_lib/formats/collection-index.js';
import type { PublishedBuildReport } from '../api/_lib/formats/build-report.js';
import {
  ApiError,
  GameDataClient,
  type ApiResponse,
  type CallOptions,
  type CharacterResponse,
  type CollectionListResponse,
  type GameDataManifestFile,
  type IconCategoriesResponse,
  type IconResponse,
  type ListRelicsArgs,
  type RegistryStatsResponse,
  type SearchArgs,
  type SpriteResponse,
  type StatsResponse,
} from '../client/src/index.js';
import type { SearchAnswer } from './catalog-page.js';

export { ApiError, type ProblemField } from '../client/src/index.js';

/** Body of `GET /api/stats` (`schemas/responses/stats.schema.json`, spec §4.4). */
export type StatsAnswer = StatsResponse;

/** `{category, count}` pairs of the registries. */
export interface CategoryCount {
  readonly category: string;
  readonly count: number;
}

/** Body of `GET /api/v1/stats` (`schemas/responses/registry-stats.schema.json`, spec §4.5). */
export type RegistryStatsAnswer = RegistryStatsResponse;

/** A record as the catalog holds it: a JSON object. */
export type CatalogRecord = Readonly<Record<string, unknown>>;

/** Body of a collection list (`schemas/responses/collection-list.schema.json`, spec §2.2, §4.2). */
export type CollectionPage = CollectionListResponse;

/** Query of a collection list: `q`, the collection's filters by parameter name, `discovered`, `limit`, `offset` (spec §4.2). */
export type CollectionQuery = Readonly<Record<string, string | number | undefined>>;

/** One icon (`schemas/responses/icon.schema.json`, spec §2.6, §4.6). */
export type IconAnswer = IconResponse;

/** One sprite (`schemas/responses/sprite.schema.json`, spec §2.3, §4.5). */
export type SpriteAnswer = SpriteResponse;

/** One sprite character (`schemas/responses/character.schema.json`, spec §4.5). */
export type CharacterAnswer = CharacterResponse;

/** A page of a registry list: `{ total, page, limit, count, category, items }` (the OpenAPI document, `/docs/`). */
export interface RegistryPage<T> {
  readonly total: number;
  readonly page: number;
  readonly limit: number;
  readonly count: number;
  readonly category: string | null;
  readonly items: readonly T[];
}

/** Body of `GET /api/v1/icons/categories` (all 16 categories of spec §4.6, zero counts included). */
export type IconCategoriesAnswer = IconCategoriesResponse;

/** Query of a registry list: optional `category`, `page` (1-based), `limit` (1-500). */
export interface RegistryQuery {
  readonly category?: string;
  readonly page?: number;
  readonly limit?: number;
}

function withQuery(path: string, query: Readonly<Record<string, string | number | undefined>>): string {
  const p = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== '') p.set(k, String(v));
  const s = p.toString();
  return s === '' ? path : `${path}?${s}`;
}

/** The page's client: the service at the page's own origin, no credentials (every call here is public). */
const client = new GameDataClient();

/** Per-call options of an optional signal. */
const withSignal = (signal: AbortSignal | undefined): CallOptions => (signal ? { signal } : {});

/**
 * The JSON body of a call made with the typed client.
 * @throws ApiError as the client throws it (the problem's `code`; `NETWORK_ERROR` when nothing answered), and
 *   `INVALID_RESPONSE` for a success whose body is not JSON (the client hands such bodies over as text).
 */
async function json<T>(call: Promise<ApiResponse<T>>, what: string): Promise<T> {
  const res = await call;
  if (typeof res.body === 'string') throw new ApiError(res.status, 'INVALID_RESPONSE', `${what} did not answer JSON.`);
  return res.body;
}

/** URL of a published static catalog file: `/api/v1/{path}` (spec §4.1), `path` relative to `/api/v1/`. */
export function catalogFileUrl(path: string): string {
  return `/api/v1/${path.replace(/^\/+/, '').split('/').map(encodeURIComponent).join('/')}`;
}

/** URL of a collection item: `/v1/{name}/{key}` (spec §4.2 single-item lookups). */
export function collectionItemUrl(name: CollectionName, key: string): string {
  return `/v1/${name}/${encodeURIComponent(key)}`;
}

/** URL of a collection list with its query (spec §4.2); empty members are left out. */
export function collectionListUrl(name: CollectionName, query: CollectionQuery): string {
  return withQuery(`/v1/${name}`, query);
}

/** URL of a sprite: `/api/v1/sprites/{uuid}` (spec §4.5). */
export function spriteUrl(key: string): string {
  return `/api/v1/sprites/${encodeURIComponent(key)}`;
}

/** URL of an icon: `/api/v1/icons/{studioUuid}` (spec §4.6). */
export function iconUrl(key: string): string {
  return `/api/v1/icons/${encodeURIComponent(key)}`;
}

/** URL of a sprite character: `/api/v1/characters/{uuid}` (spec §4.5). */
export function characterUrl(key: string): string {
  return `/api/v1/characters/${encodeURIComponent(key)}`;
}

/** URL of the published build report (`api/_lib/formats/build-report.ts`). */
export const BUILD_REPORT_URL = '/api/v1/build-report.json';

/**
 * `GET /api/search?q=&type=&limit=` (spec §2.5, §4.4): `type` left out when `all`; `limit` 1-200, default 50.
 * @throws ApiError 400 `INVALID_QUERY` for a blank or over-long `q`.
 */
export function search(q: string, type = 'all', limit = 50, signal?: AbortSignal): Promise<SearchAnswer> {
  const query: SearchArgs['query'] = { q, limit, ...(type === 'all' ? {} : { type: type as NonNullable<SearchArgs['query']['type']> }) };
  return json(client.search({ query }, withSignal(signal)), '/api/search');
}

/** `GET /api/stats`: totals per data category, definitions per kind, category statuses (spec §4.4). */
export function stats(signal?: AbortSignal): Promise<StatsAnswer> {
  return json(client.getStats(withSignal(signal)), '/api/stats');
}

/** `GET /api/v1/stats`: sprite, character and icon totals per category (spec §4.5). */
export function registryStats(signal?: AbortSignal): Promise<RegistryStatsAnswer> {
  return json(client.getRegistryStats(withSignal(signal)), '/api/v1/stats');
}

/**
 * `GET /v1/{name}` with `q`, filters, `discovered`, `limit` (1-500, default 50) and `offset` (spec §2.2, §4.2).
 * @throws ApiError 400 `INVALID_QUERY` naming each refused parameter; 503 when the collection is unavailable (§7).
 */
export function listCollection(name: CollectionName, query: CollectionQuery, signal?: AbortSignal): Promise<CollectionPage> {
  // the query's members are the collection's own parameters (`kinds.ts` builds them from §4.2); the service refuses others
  const args = { query: query as ListRelicsArgs['query'] };
  const options = withSignal(signal);
  const calls = {
    relics: () => client.listRelics(args, options),
    enchants: () => client.listEnchants(args, options),
    infusions: () => client.listInfusions(args, options),
    artifacts: () => client.listArtifacts(args, options),
  };
  return json(calls[name](), `/v1/${name}`);
}

/**
 * `GET /v1/{name}/{key}`: one item by uuid, id or name slug, as the collection allows (spec §4.2).
 * @throws ApiError 404 `NOT_FOUND` when no item has that key (§7).
 */
export function collectionItem(name: CollectionName, key: string, signal?: AbortSignal): Promise<CatalogRecord> {
  const options = withSignal(signal);
  const calls = {
    relics: () => client.getRelic({ key }, options),
    enchants: () => client.getEnchant({ key }, options),
    infusions: () => client.getInfusion({ key }, options),
    artifacts: () => client.getArtifact({ key }, options),
  };
  return json(calls[name](), collectionItemUrl(name, key));
}

/**
 * A published static catalog file, parsed: `GET /api/v1/{path}` (spec §4.1).
 * @throws ApiError 404 when the build did not publish it (or it is retired, §9.3).
 */
export function catalogFile(path: string, signal?: AbortSignal): Promise<unknown> {
  return json(client.getCatalogFile({ file: path.replace(/^\/+/, '') }, withSignal(signal)), catalogFileUrl(path));
}

/** The game-data manifest `/api/v1/game-data-manifest.json`: every published file, `cdnUrl`, build id (spec §4.1). */
export function gameDataManifest(signal?: AbortSignal): Promise<GameDataManifestFile> {
  return json(client.getManifest(withSignal(signal)), catalogFileUrl('game-data-manifest.json'));
}

/** `GET /api/v1/icons?category=&page=&limit=` (spec §4.6). */
export function icons(query: RegistryQuery = {}, signal?: AbortSignal): Promise<RegistryPage<IconAnswer>> {
  return json(
    client.listIcons({ query: query as NonNullable<Parameters<GameDataClient['listIcons']>[0]>['query'] }, withSignal(signal)),
    '/api/v1/icons',
  );
}

/** `GET /api/v1/icons/categories`: the 16 icon categories with counts (spec §4.6). */
export function iconCategories(signal?: AbortSignal): Promise<IconCategoriesAnswer> {
  return json(client.listIconCategories(withSignal(signal)), '/api/v1/icons/categories');
}

/**
 * `GET /api/v1/icons/{studioUuid}` (spec §4.6).
 * @throws ApiError 404 for an unknown ICON id.
 */
export function icon(key: string, signal?: AbortSignal): Promise<IconAnswer> {
  return json(client.getIcon({ key }, withSignal(signal)), iconUrl(key));
}

/** `GET /api/v1/sprites?category=&page=&limit=` (spec §4.5). */
export function sprites(query: RegistryQuery = {}, signal?: AbortSignal): Promise<RegistryPage<SpriteAnswer>> {
  return json(client.listSprites({ query }, withSignal(signal)), '/api/v1/sprites');
}

/**
 * `GET /api/v1/sprites/{uuid}` (spec §4.5).
 * @throws ApiError 404 for an unknown SPRT id.
 */
export function sprite(key: string, signal?: AbortSignal): Promise<SpriteAnswer> {
  return json(client.getSprite({ key }, withSignal(signal)), spriteUrl(key));
}

/** `GET /api/v1/characters?category=&page=&limit=` (spec §4.5). */
export function characters(query: RegistryQuery = {}, signal?: AbortSignal): Promise<RegistryPage<CharacterAnswer>> {
  return json(client.listSpriteCharacters({ query }, withSignal(signal)), '/api/v1/characters');
}

/**
 * `GET /api/v1/characters/{uuid}` (spec §4.5).
 * @throws ApiError 404 for an unknown character id.
 */
export function character(key: string, signal?: AbortSignal): Promise<CharacterAnswer> {
  return json(client.getSpriteCharacter({ key }, withSignal(signal)), characterUrl(key));
}

/**
 * The report of the last build, `/api/v1/build-report.json` (format `build-report/1`): `ok` false only for a
 * failed build's report served by the local server while it serves the previous output.
 * @throws ApiError 404 when the output has no report (a build older than the report).
 */
export function buildReport(signal?: AbortSignal): Promise<PublishedBuildReport> {
  return json(client.getBuildReport(withSignal(signal)), BUILD_REPORT_URL);
}
