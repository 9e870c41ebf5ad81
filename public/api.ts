/**
 * Every HTTP call of the catalog browser: one typed async function per endpoint or static file the page
 * reads, and the only module that calls `fetch`. No DOM code, no caching (the session cache is
 * `data.ts`), so a typed client can replace these bodies with re-exports.
 *
 * Paths are relative to the page's origin (the page is served beside the data, spec §4.1, §4.4-§4.6).
 * A non-2xx answer throws an {@link ApiError} carrying the RFC 9457 problem+json members
 * (`schemas/responses/problem.schema.json`); an aborted call rejects with the signal's `AbortError`.
 */
import type { CollectionName } from '../api/_lib/formats/collection-index.js';
import type { GameDataManifest } from '../api/_lib/formats/manifest.js';
import type { PublishedBuildReport } from '../api/_lib/formats/build-report.js';
import type { SearchAnswer } from './catalog-page.js';

/** One entry of a problem's `errors[]`: the offending query parameter, header or body pointer (`name`) and why. */
export interface ProblemField {
  readonly name: string;
  readonly message: string;
}

/**
 * A refused or failed call, shaped like the typed client's (`client/src/runtime.ts`): `status` (0 when no
 * answer came), `code` (the problem's `code`, e.g. `NOT_FOUND`, `INVALID_QUERY`; `HTTP_<status>` for an
 * answer that is not problem+json, `NETWORK_ERROR` when no answer came, `INVALID_RESPONSE` for a 2xx body
 * that is not JSON), `detail` (the problem's sentence), `errors` (per-parameter reasons, possibly empty),
 * `problem` (the problem body, when there was one).
 */
export class ApiError extends Error {
  readonly status: number;
  readonly code: string;
  readonly detail: string;
  readonly errors: readonly ProblemField[];
  readonly problem: Readonly<Record<string, unknown>> | undefined;

  constructor(status: number, code: string, detail: string, problem?: Readonly<Record<string, unknown>>) {
    super(`${code}: ${detail}`);
    this.name = 'ApiError';
    this.status = status;
    this.code = code;
    this.detail = detail;
    this.problem = problem;
    const errors = problem?.errors;
    this.errors = Array.isArray(errors)
      ? errors.filter((e): e is ProblemField => typeof (e as ProblemField | null)?.name === 'string' && typeof (e as ProblemField).message === 'string')
      : [];
  }
}

/** Body of `GET /api/stats` (`schemas/responses/stats.schema.json`, spec §4.4). */
export interface StatsAnswer {
  readonly catalog?: string;
  readonly totals: Readonly<Record<string, number>>;
  readonly definitions?: Readonly<Record<string, number>>;
  readonly statuses?: Readonly<Record<string, string>>;
}

/** `{category, count}` pairs of the registries. */
export interface CategoryCount {
  readonly category: string;
  readonly count: number;
}

/** Body of `GET /api/v1/stats` (`schemas/responses/registry-stats.schema.json`, spec §4.5). */
export interface RegistryStatsAnswer {
  readonly sprites: { readonly total: number; readonly derivedIds: number; readonly categories: readonly CategoryCount[] };
  readonly characters: { readonly total: number; readonly categories: readonly CategoryCount[] };
  readonly icons: { readonly total: number; readonly categories: readonly CategoryCount[] };
}

/** A record as the catalog holds it: a JSON object. */
export type CatalogRecord = Readonly<Record<string, unknown>>;

/** Body of a collection list (`schemas/responses/collection-list.schema.json`, spec §2.2, §4.2). */
export interface CollectionPage {
  readonly collection: string;
  readonly total: number;
  readonly count: number;
  readonly limit: number;
  readonly offset: number;
  readonly items: readonly CatalogRecord[];
}

/** Query of a collection list: `q`, the collection's filters by parameter name, `discovered`, `limit`, `offset` (spec §4.2). */
export type CollectionQuery = Readonly<Record<string, string | number | undefined>>;

/** One icon (`schemas/responses/icon.schema.json`, spec §2.6, §4.6). */
export interface IconAnswer {
  readonly iconUuid: string;
  readonly key: string;
  readonly path: string;
  readonly url: string;
  readonly category: string;
  readonly name: string;
  readonly tags: readonly string[];
}

/** One sprite (`schemas/responses/sprite.schema.json`, spec §2.3, §4.5). */
export interface SpriteAnswer {
  readonly uuid: string;
  readonly name: string;
  readonly path: string;
  readonly url: string;
  readonly category: string;
  readonly subcategory: string;
  readonly source: string;
}

/** One sprite character (`schemas/responses/character.schema.json`, spec §4.5). */
export interface CharacterAnswer {
  readonly uuid: string;
  readonly name: string;
  readonly category: string;
  readonly basePath: string;
  readonly animations: Readonly<Record<string, { readonly path: string; readonly uuid: string }>>;
}

/** A page of a registry list: `{ total, page, limit, count, category, items }` (README, "Sprite registry"). */
export interface RegistryPage<T> {
  readonly total: number;
  readonly page: number;
  readonly limit: number;
  readonly count: number;
  readonly category: string | null;
  readonly items: readonly T[];
}

/** Body of `GET /api/v1/icons/categories` (all 16 categories of spec §4.6, zero counts included). */
export interface IconCategoriesAnswer {
  readonly total: number;
  readonly categories: readonly CategoryCount[];
}

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

function problemOf(status: number, body: unknown): ApiError {
  const problem = typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as Readonly<Record<string, unknown>>) : undefined;
  const detail = typeof problem?.detail === 'string' && problem.detail !== '' ? problem.detail : `The service answered ${status}.`;
  const code = typeof problem?.code === 'string' ? problem.code : `HTTP_${status}`;
  return new ApiError(status, code, detail, problem);
}

/**
 * GET `path` and parse its JSON body.
 * @throws ApiError for a non-2xx answer (problem members when the body has them), a network failure
 *   (`status` 0, `NETWORK_ERROR`) or a 2xx body that is not JSON (`INVALID_RESPONSE`); the signal's
 *   `AbortError` when aborted.
 */
async function getJson<T>(path: string, signal?: AbortSignal): Promise<T> {
  let res: Response;
  try {
    res = await fetch(path, { headers: { Accept: 'application/json' }, ...(signal ? { signal } : {}) });
  } catch (e) {
    if (signal?.aborted) throw e;
    throw new ApiError(0, 'NETWORK_ERROR', `No answer from ${path}: ${(e as Error).message}.`);
  }
  const text = await res.text();
  let body: unknown = null;
  try {
    body = text === '' ? null : JSON.parse(text);
  } catch {
    if (res.ok) throw new ApiError(res.status, 'INVALID_RESPONSE', `${path} did not answer JSON.`);
  }
  if (!res.ok) throw problemOf(res.status, body);
  return body as T;
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
  return getJson(withQuery('/api/search', { q, type: type === 'all' ? undefined : type, limit }), signal);
}

/** `GET /api/stats`: totals per data category, definitions per kind, category statuses (spec §4.4). */
export function stats(signal?: AbortSignal): Promise<StatsAnswer> {
  return getJson('/api/stats', signal);
}

/** `GET /api/v1/stats`: sprite, character and icon totals per category (spec §4.5). */
export function registryStats(signal?: AbortSignal): Promise<RegistryStatsAnswer> {
  return getJson('/api/v1/stats', signal);
}

/**
 * `GET /v1/{name}` with `q`, filters, `discovered`, `limit` (1-500, default 50) and `offset` (spec §2.2, §4.2).
 * @throws ApiError 400 `INVALID_QUERY` naming each refused parameter; 503 when the collection is unavailable (§7).
 */
export function listCollection(name: CollectionName, query: CollectionQuery, signal?: AbortSignal): Promise<CollectionPage> {
  return getJson(collectionListUrl(name, query), signal);
}

/**
 * `GET /v1/{name}/{key}`: one item by uuid, id or name slug, as the collection allows (spec §4.2).
 * @throws ApiError 404 `NOT_FOUND` when no item has that key (§7).
 */
export function collectionItem(name: CollectionName, key: string, signal?: AbortSignal): Promise<CatalogRecord> {
  return getJson(collectionItemUrl(name, key), signal);
}

/**
 * A published static catalog file, parsed: `GET /api/v1/{path}` (spec §4.1).
 * @throws ApiError 404 when the build did not publish it (or it is retired, §9.3).
 */
export function catalogFile(path: string, signal?: AbortSignal): Promise<unknown> {
  return getJson(catalogFileUrl(path), signal);
}

/** The game-data manifest `/api/v1/game-data-manifest.json`: every published file, `cdnUrl`, build id (spec §4.1). */
export function gameDataManifest(signal?: AbortSignal): Promise<GameDataManifest> {
  return getJson(catalogFileUrl('game-data-manifest.json'), signal);
}

/** `GET /api/v1/icons?category=&page=&limit=` (spec §4.6). */
export function icons(query: RegistryQuery = {}, signal?: AbortSignal): Promise<RegistryPage<IconAnswer>> {
  return getJson(withQuery('/api/v1/icons', { ...query }), signal);
}

/** `GET /api/v1/icons/categories`: the 16 icon categories with counts (spec §4.6). */
export function iconCategories(signal?: AbortSignal): Promise<IconCategoriesAnswer> {
  return getJson('/api/v1/icons/categories', signal);
}

/**
 * `GET /api/v1/icons/{studioUuid}` (spec §4.6).
 * @throws ApiError 404 for an unknown ICON id.
 */
export function icon(key: string, signal?: AbortSignal): Promise<IconAnswer> {
  return getJson(iconUrl(key), signal);
}

/** `GET /api/v1/sprites?category=&page=&limit=` (spec §4.5). */
export function sprites(query: RegistryQuery = {}, signal?: AbortSignal): Promise<RegistryPage<SpriteAnswer>> {
  return getJson(withQuery('/api/v1/sprites', { ...query }), signal);
}

/**
 * `GET /api/v1/sprites/{uuid}` (spec §4.5).
 * @throws ApiError 404 for an unknown SPRT id.
 */
export function sprite(key: string, signal?: AbortSignal): Promise<SpriteAnswer> {
  return getJson(spriteUrl(key), signal);
}

/** `GET /api/v1/characters?category=&page=&limit=` (spec §4.5). */
export function characters(query: RegistryQuery = {}, signal?: AbortSignal): Promise<RegistryPage<CharacterAnswer>> {
  return getJson(withQuery('/api/v1/characters', { ...query }), signal);
}

/**
 * `GET /api/v1/characters/{uuid}` (spec §4.5).
 * @throws ApiError 404 for an unknown character id.
 */
export function character(key: string, signal?: AbortSignal): Promise<CharacterAnswer> {
  return getJson(characterUrl(key), signal);
}

/**
 * The report of the last build, `/api/v1/build-report.json` (format `build-report/1`): `ok` false only for a
 * failed build's report served by the local server while it serves the previous output.
 * @throws ApiError 404 when the output has no report (a build older than the report).
 */
export function buildReport(signal?: AbortSignal): Promise<PublishedBuildReport> {
  return getJson(BUILD_REPORT_URL, signal);
}
