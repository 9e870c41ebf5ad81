/**
 * Locale-free ordering and binary search over strings, shared by the build (deterministic output order) and
 * the functions (dictionary lookups of the search, collection and registry indexes; spec §4.2, §4.4-4.6).
 * Every comparison is by UTF-16 code units, so results never depend on a locale. Pure.
 */

/** Ascending comparison of two strings by UTF-16 code units: -1, 0 or 1. */
export function compareCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Comparator of values by a string key, in code-unit order (see {@link compareCodeUnits}). */
export function byCodeUnits<T>(key: (value: T) => string): (a: T, b: T) => number {
  return (a, b) => compareCodeUnits(key(a), key(b));
}

/**
 * First index `i` in `[lo, hi)` with `sorted[i] >= key`, or `hi` when there is none. Strings compare by
 * code units, numbers by value.
 * @param sorted values in ascending order (at least within `[lo, hi)`).
 * @param lo first index searched, default 0; @param hi end of the range, default `sorted.length`.
 */
export function lowerBound<T extends string | number>(sorted: readonly T[], key: T, lo = 0, hi = sorted.length): number {
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (sorted[mid]! < key) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * End of the run of entries that start with `prefix`, from `from` on: the first index `i` in `[from, hi)` whose
 * entry does not start with `prefix`, or `hi`. In a sorted list the entries with a prefix are adjacent, so with
 * `from = lowerBound(sorted, prefix)` the run `[from, result)` is every entry starting with `prefix`.
 * @param hi end of the range, default `sorted.length`.
 */
export function prefixEnd(sorted: readonly string[], prefix: string, from: number, hi = sorted.length): number {
  let lo = from;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (sorted[mid]!.startsWith(prefix)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
