/**
 * Order statistics shared by the benchmarks: the nearest-rank quantile of sorted samples and the median
 * of unsorted ones (units are the samples' own, e.g. milliseconds).
 */

/** Nearest-rank `q` quantile (0 < q ≤ 1) of ascending `sorted`; NaN for no samples. */
export function quantile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] as number;
}

/** Median (nearest rank) of `xs` in any order; NaN for no samples. */
export function median(xs: readonly number[]): number {
  return quantile(
    [...xs].sort((a, b) => a - b),
    0.5,
  );
}
