/**
 * Queries of the item collections (spec 2.2, 3, 4.2): list queries and single lookups, pure functions over a
 * collection index opened by `load.ts` (format `collection-index/3`, `api/_lib/formats/collection-file.ts`). The only I/O
 * is the read of a page's items from the index file (`LoadedCollection.itemsJoined`).
 *
 * Semantics:
 * - Filters combine with AND. Word filters compare folded (case and accents ignored, `api/_lib/formats/collection-index.ts`);
 *   `tier` compares the integer. A record field holding several values (`"weapon|armor"`, or an array)
 *   matches each of them. A record whose filter field is missing or null matches no value of that filter.
 * - `q`: folded substring of any one search field (relics, enchants, infusions: name, id, description;
 *   artifacts: name, description); a match never spans two fields. White space runs in `q` count as one space.
 * - Artifacts with `discovery.hiddenUntilFound: true` are left out of lists unless `discovered=all` (spec 3).
 * - Results keep catalog order; `total` counts every match, `items` holds `limit` of them from `offset`.
 *
 * Cost: filters and `q` become position sets (`positions.ts`; `q` through `windows.ts`), intersected smallest
 * first; the page is sliced from the result. The body is composed from pre-serialised items by string
 * concatenation and is byte-identical to `JSON.stringify` of the response object.
 */
import { foldKey } from '../formats/collection-index.js';
import type { LoadedCollection } from './load.js';
import { EMPTY, intersect, page, type PosSet } from './positions.js';
import { qSet } from './windows.js';

/** Parameters of {@link queryCollection}: `parseQuery` values of the collection's list spec (see `params.ts`). */
export interface CollectionQuery {
  readonly limit: number;
  readonly offset: number;
  readonly q?: string | undefined;
  readonly discovered?: string | number | undefined;
  /** Filter parameters by name (e.g. `tier: 3`, `category: 'elemental'`); undefined means not given. */
  readonly [param: string]: string | number | undefined;
}

/** Result of {@link queryCollection}. */
export interface QueryResult {
  readonly total: number;
  readonly count: number;
  readonly limit: number;
  readonly offset: number;
  /** Positions (catalog indexes) of this page's items. */
  readonly positions: readonly number[];
  /** The response body `{collection,total,count,limit,offset,items}` (spec 2.2), serialised. */
  readonly body: string;
}

/**
 * Run a list query (spec §4.2, §8) over a loaded collection: filters ANDed, `q`, hidden artifacts left out
 * unless `discovered` is given, results in catalog order.
 * @param query parsed parameters (`parseQuery` with `listParamSpec`): `limit` (1-500, default 50), `offset`
 *   (≥ 0, default 0), optional `q`, `discovered` (`all`) and filters; an unknown filter value matches nothing.
 * @returns totals, the page's positions and the serialised response body (spec §2.2).
 * @throws ServiceError `UPSTREAM_UNAVAILABLE` when the index proves corrupt on first use or its items cannot be read (`load.ts`).
 */
export function queryCollection(index: LoadedCollection, query: CollectionQuery): QueryResult {
  const sets: PosSet[] = [];
  for (const f of index.def.filters) {
    const v = query[f.param];
    if (v === undefined) continue;
    // tier values are integers, whose decimal text folds to itself
    sets.push(index.filters.get(f.param)?.get(foldKey(String(v))) ?? EMPTY);
  }
  if (index.visible && query.discovered === undefined) sets.push(index.visible);
  if (query.q !== undefined) {
    const s = qSet(index, query.q);
    if (s) sets.push(s);
  }
  const result = intersect(sets, index.n);
  const total = result === undefined ? index.n : result.size;
  const { limit, offset } = query;
  const positions = page(result, index.n, offset, limit);
  const items = index.itemsJoined(positions);
  const body = `${index.bodyPrefix}${total},"count":${positions.length},"limit":${limit},"offset":${offset},"items":[${items}]}`;
  return { total, count: positions.length, limit, offset, positions, body };
}

/**
 * The pre-serialised item that `key` names (spec 4.2 single lookups), compared folded (case and accents
 * ignored), or `undefined` (the caller answers 404 NOT_FOUND, spec §7). Hidden artifacts are found too: spec §3
 * hides them from lists only.
 */
export function lookupItem(index: LoadedCollection, key: string): string | undefined {
  const p = index.keyPosition(foldKey(key));
  return p === undefined ? undefined : index.item(p);
}
