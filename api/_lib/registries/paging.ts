/**
 * Page-based paging shared by the registry lists (spec 4.3 `page` default 1; 4.5, 4.6 `page`, `limit`).
 * Pages are 1-based; a page past the end is an empty page (200), not an error.
 */

/** A page of a list: `total` items matched, `count` of them in `items`. */
export interface Page<T> {
  /** Number of items matching the filters. */
  readonly total: number;
  /** 1-based page number served. */
  readonly page: number;
  /** Page size applied (after clamping). */
  readonly limit: number;
  /** Number of items in this page. */
  readonly count: number;
  readonly items: readonly T[];
}

/**
 * The `page`-th slice of `limit` items of `all`.
 * @param page 1-based page number (≥ 1).
 * @param limit page size (≥ 1).
 */
export function paginate<T>(all: readonly T[], page: number, limit: number): Page<T> {
  const start = (page - 1) * limit;
  const items = all.slice(start, start + limit);
  return { total: all.length, page, limit, count: items.length, items };
}

/** True when `value` is an array (without narrowing: registry files are typed by their format, this guards corrupt files). */
export function isList(value: unknown): boolean {
  return Array.isArray(value);
}
