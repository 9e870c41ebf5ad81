/** Seeded pseudo-random numbers (mulberry32): same seed, same sequence. Used by the island generator (spec 2.9), the benchmarks and generated test data. */
export interface Rng {
  /** Uniform float in [0, 1). */
  readonly next: () => number;
  /** Uniform integer in [0, n). */
  readonly int: (n: number) => number;
  /** One element of a non-empty list. */
  readonly pick: <T>(items: readonly T[]) => T;
}

/** A generator seeded with a 32-bit integer. */
export function createRng(seed: number): Rng {
  let a = seed >>> 0;
  const next = (): number => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (n: number): number => Math.floor(next() * n);
  return { next, int, pick: <T>(items: readonly T[]): T => items[int(items.length)] as T };
}
