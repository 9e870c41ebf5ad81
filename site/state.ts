/**
 * The catalog browser's state in the query string of `/`, pure: one page, every view addressable, so a
 * view can be shared, reloaded and reached with Back and Forward (pushed with `history.pushState`).
 *
 * | view | query | reads |
 * |---|---|---|
 * | home | `/` | manifest, endpoints (§4.1, §4.4) |
 * | search | `?view=search&q=…&type=weapons` | `/api/search` (§4.4) |
 * | collection | `?view=collection&name=relics&q=…&tier=3&…&discovered=all&limit=20&offset=20` | `/v1/{name}` (§4.2) |
 * | item | `?view=item&kind=weapons&id=…` | see `kinds.ts` |
 * | stats | `?view=stats` | `/api/stats`, `/api/v1/stats` (§4.4, §4.5) |
 * | icons | `?view=icons&category=weapon&page=2` | `/api/v1/icons` (§4.6) |
 * | sprites | `?view=sprites&category=effects&page=2` | `/api/v1/sprites`, `/api/v1/characters` (§4.5) |
 * | report | `?view=report&severity=warn&rule=schema/required` | `/api/v1/build-report.json` |
 *
 * Decoding is lenient: an unknown view opens home, a value a control cannot show (a tier of 9, a category
 * outside an enum) is dropped, and the old page's links (`/?q=blade&type=weapons`) open the search view.
 * Encoding is canonical: members in a fixed order, defaults left out.
 */
import { COLLECTION_DEFS, COLLECTION_NAMES, type CollectionName, type FilterDef } from '../api/_lib/formats/collection-index.js';
import { ICON_CATEGORIES, type IconCategory } from '../api/_lib/formats/registries.js';
import { SEARCH_TYPES, type SearchType } from '../api/_lib/formats/search-index.js';
import type { ReportSeverity } from '../api/_lib/formats/build-report.js';
import { isItemKind, type ItemKind } from './kinds.js';

/** Page sizes offered for collection lists; {@link DEFAULT_LIMIT} is used when the address names none. */
export const PAGE_SIZES = [10, 20, 50, 100] as const;
/** Default page size of collection lists. */
export const DEFAULT_LIMIT = 20;
/** Largest `limit` of the collections (spec §4.2, §8). */
export const MAX_LIMIT = 500;
/** Longest text kept for a free-text filter or query (the search endpoint's bound, §4.4). */
export const MAX_TEXT = 200;

/** Search type filter: `all` or one search type (spec §4.4). */
export type SearchTypeFilter = 'all' | SearchType;

/** The state of the page: which view, and that view's parameters. */
export type PageState =
  | { readonly view: 'home' }
  | { readonly view: 'search'; readonly q: string; readonly type: SearchTypeFilter }
  | {
      readonly view: 'collection';
      readonly name: CollectionName;
      readonly q: string;
      /** Filter values by query parameter, only filters of this collection (spec §4.2), declared spelling for enums. */
      readonly filters: Readonly<Record<string, string>>;
      /** Artifacts only: include undiscovered ones (`discovered=all`). */
      readonly discovered: boolean;
      readonly limit: number;
      readonly offset: number;
    }
  | { readonly view: 'item'; readonly kind: ItemKind; readonly id: string }
  | { readonly view: 'stats' }
  | { readonly view: 'icons'; readonly category: IconCategory | ''; readonly page: number }
  | { readonly view: 'sprites'; readonly category: string; readonly page: number }
  | { readonly view: 'report'; readonly severity: ReportSeverity | ''; readonly rule: string };

/** Names of the views. */
export type ViewName = PageState['view'];

/** A collection's view at its first page with no filter. */
export function collectionState(name: CollectionName): Extract<PageState, { view: 'collection' }> {
  return { view: 'collection', name, q: '', filters: {}, discovered: false, limit: DEFAULT_LIMIT, offset: 0 };
}

function text(p: URLSearchParams, key: string): string {
  return (p.get(key) ?? '').trim().slice(0, MAX_TEXT);
}

function int(p: URLSearchParams, key: string, min: number, max: number, fallback: number): number {
  const raw = p.get(key);
  if (raw === null || !/^\d{1,9}$/.test(raw.trim())) return fallback;
  const n = Number(raw.trim());
  return n < min || n > max ? fallback : n;
}

/**
 * The value a filter control can hold for `raw`, or undefined: enum values in their declared spelling
 * (case-insensitive), tiers 1-8, free words trimmed and at most {@link MAX_TEXT} characters.
 */
export function filterValue(def: FilterDef, raw: string | null): string | undefined {
  const v = (raw ?? '').trim();
  if (v === '') return undefined;
  if (def.kind === 'enum') return def.values.find((x) => x.toLowerCase() === v.toLowerCase());
  if (def.kind === 'tier') return /^[1-8]$/.test(v) ? v : undefined;
  return v.slice(0, MAX_TEXT);
}

/**
 * The page state a query string describes (`location.search`, with or without `?`). Never throws;
 * see the module header for what is dropped.
 */
export function parseState(search: string): PageState {
  const p = new URLSearchParams(search);
  const view = p.get('view');
  switch (view) {
    case 'search':
      return { view: 'search', q: text(p, 'q'), type: searchType(p.get('type')) };
    case 'collection': {
      const name = p.get('name');
      if (!(COLLECTION_NAMES as readonly string[]).includes(name ?? '')) return { view: 'home' };
      const def = COLLECTION_DEFS[name as CollectionName];
      const filters: Record<string, string> = {};
      for (const f of def.filters) {
        const v = filterValue(f, p.get(f.param));
        if (v !== undefined) filters[f.param] = v;
      }
      return {
        view: 'collection',
        name: def.name,
        q: text(p, 'q'),
        filters,
        discovered: def.hideUndiscovered && p.get('discovered') === 'all',
        limit: int(p, 'limit', 1, MAX_LIMIT, DEFAULT_LIMIT),
        offset: int(p, 'offset', 0, 1e9, 0),
      };
    }
    case 'item': {
      const kind = p.get('kind');
      const id = (p.get('id') ?? '').trim();
      return isItemKind(kind) && id !== '' ? { view: 'item', kind, id } : { view: 'home' };
    }
    case 'stats':
      return { view: 'stats' };
    case 'icons': {
      const c = p.get('category') ?? '';
      return {
        view: 'icons',
        category: (ICON_CATEGORIES as readonly string[]).includes(c) ? (c as IconCategory) : '',
        page: int(p, 'page', 1, 1e6, 1),
      };
    }
    case 'sprites':
      return { view: 'sprites', category: text(p, 'category'), page: int(p, 'page', 1, 1e6, 1) };
    case 'report': {
      const s = p.get('severity');
      return { view: 'report', severity: s === 'error' || s === 'warn' || s === 'off' ? s : '', rule: text(p, 'rule') };
    }
    default:
      // the old page's shared search links
      if (view === null && text(p, 'q') !== '') return { view: 'search', q: text(p, 'q'), type: searchType(p.get('type')) };
      return { view: 'home' };
  }
}

function searchType(raw: string | null): SearchTypeFilter {
  return (SEARCH_TYPES as readonly string[]).includes(raw ?? '') ? (raw as SearchType) : 'all';
}

/**
 * The canonical query string of a state, with its `?` (empty for home): `view` first, then the view's
 * members in a fixed order, defaults (`type=all`, `offset=0`, `limit` {@link DEFAULT_LIMIT}, `page=1`,
 * empty values) left out; collection filters in the order of spec §4.2's table.
 */
export function stateQuery(state: PageState): string {
  const p = new URLSearchParams();
  const set = (k: string, v: string | number, skip: string | number = ''): void => {
    if (v !== skip && v !== '') p.set(k, String(v));
  };
  switch (state.view) {
    case 'home':
      return '';
    case 'search':
      p.set('view', 'search');
      set('q', state.q);
      set('type', state.type, 'all');
      break;
    case 'collection':
      p.set('view', 'collection');
      p.set('name', state.name);
      set('q', state.q);
      for (const f of COLLECTION_DEFS[state.name].filters) set(f.param, state.filters[f.param] ?? '');
      if (state.discovered && COLLECTION_DEFS[state.name].hideUndiscovered) p.set('discovered', 'all');
      set('limit', state.limit, DEFAULT_LIMIT);
      set('offset', state.offset, 0);
      break;
    case 'item':
      p.set('view', 'item');
      p.set('kind', state.kind);
      p.set('id', state.id);
      break;
    case 'stats':
      p.set('view', 'stats');
      break;
    case 'icons':
    case 'sprites':
      p.set('view', state.view);
      set('category', state.category);
      set('page', state.page, 1);
      break;
    case 'report':
      p.set('view', 'report');
      set('severity', state.severity);
      set('rule', state.rule);
      break;
  }
  return `?${p.toString()}`;
}

/** The address of a state, relative to the origin: `/` plus {@link stateQuery}. */
export function stateHref(state: PageState): string {
  return `/${stateQuery(state)}`;
}

/** The page of an item: `/?view=item&kind=…&id=…`. */
export function itemHref(kind: ItemKind, id: string): string {
  return stateHref({ view: 'item', kind, id });
}

/**
 * The query of a collection list for `/v1/{name}` (spec §4.2): `q`, the filters, `discovered=all`, `limit`,
 * `offset` (empty members left out, `limit` always sent).
 */
export function collectionApiQuery(state: Extract<PageState, { view: 'collection' }>): Record<string, string | number> {
  const q: Record<string, string | number> = {};
  if (state.q !== '') q.q = state.q;
  for (const f of COLLECTION_DEFS[state.name].filters) {
    const v = state.filters[f.param];
    if (v) q[f.param] = v;
  }
  if (state.discovered && COLLECTION_DEFS[state.name].hideUndiscovered) q.discovered = 'all';
  q.limit = state.limit;
  if (state.offset > 0) q.offset = state.offset;
  return q;
}

/** Where a list stands: 1-based `from`/`to` of the shown items (0/0 when none), the offsets of the previous and next pages (null at the ends), page numbers. */
export interface PageInfo {
  readonly from: number;
  readonly to: number;
  readonly prev: number | null;
  readonly next: number | null;
  readonly page: number;
  readonly pages: number;
}

/**
 * Paging of an offset list (spec §2.2): `total` items after filtering, `count` in this page, at `offset` with
 * page size `limit`. An offset past the end has `from`/`to` 0 and a `prev` that leads back to the last page.
 */
export function pageInfo(total: number, count: number, offset: number, limit: number): PageInfo {
  const pages = Math.max(1, Math.ceil(total / limit));
  const page = Math.floor(offset / limit) + 1;
  const from = count > 0 ? offset + 1 : 0;
  const to = count > 0 ? offset + count : 0;
  const prev = offset <= 0 ? null : offset >= total ? Math.max(0, (pages - 1) * limit) : Math.max(0, offset - limit);
  const next = offset + limit < total ? offset + limit : null;
  return { from, to, prev, next, page, pages };
}
