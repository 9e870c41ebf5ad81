/**
 * Position sets of the item collections (spec §4.2): sets of item positions (0-based indexes into a loaded
 * collection's items, catalog order) as a strictly increasing list and, when dense, as a bitset. Pure.
 *
 * Cost model (n items, w = ceil(n/32) words): every loaded set is a sorted list and, when it holds at least
 * n/32 items, also a bitset. A single set pages by slicing its list (O(limit)); several are intersected by
 * probing the smallest list against the others (O(smallest)) or, when that is larger, by AND-ing bitsets
 * (O(w) each). Unions of sparse sets are merged lists; with a dense set or many positions, bitsets.
 */
// @ts-nocheck

/** Item positions, strictly increasing. */
type Positions = Int32Array | number[];

/** A set of item positions: sorted list and, when dense, the same set as a bitset. */
export interface PosSet {
  readonly size: number;
  /**
   * Strictly increasing positions; absent only for sets built as bitsets. Loaded sets hold typed arrays;
   * sets built by a query hold plain arrays, which V8 allocates far more cheaply than small typed arrays.
   */
  readonly list: Positions | undefined;
  /** Bit p set ⇔ position p in the set; present when dense or built as a bitset. */
  readonly bits: Uint32Array | undefined;
}

/** The empty position set. */
export const EMPTY: PosSet = { size: 0, list: [], bits: undefined };

function popcount(x: number): number {
  x -= (x >>> 1) & 0x55555555;
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  return Math.imul((x + (x >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24;
}

function bitsFromList(list: Positions, words: number): Uint32Array {
  const bits = new Uint32Array(words);
  for (let i = 0; i < list.length; i++) {
    const p = list[i]!;
    bits[p >>> 5]! |= 1 << (p & 31);
  }
  return bits;
}

/**
 * The position set of `list` (strictly increasing positions below `n`, kept as given), with a bitset of
 * ceil(n/32) words when it holds at least n/32 positions.
 */
export function makeSet(list: Positions, n: number): PosSet {
  const words = (n + 31) >>> 5;
  return { size: list.length, list, bits: list.length * 32 >= n && n > 0 ? bitsFromList(list, words) : undefined };
}

/** True when `set` holds position `p` (0-based item index): one bit test, or a binary search of the list. Never throws. */
export function has(set: PosSet, p: number): boolean {
  if (set.bits) return ((set.bits[p >>> 5]! >>> (p & 31)) & 1) === 1;
  const list = set.list!;
  let lo = 0;
  let hi = list.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const v = list[mid]!;
    if (v === p) return true;
    if (v < p) lo = mid + 1;
    else hi = mid - 1;
  }
  return false;
}

function bySize(a: PosSet, b: PosSet): number {
  return a.size - b.size;
}

/**
 * Intersection of `sets` over `n` items: the filters and `q` of one list query, ANDed (spec §4.2).
 * Sorts `sets` in place by size. Probes the smallest list against the others when that is cheap, else ANDs
 * bitsets of ceil(n/32) words.
 * @returns undefined for no sets (no constraint: every item), else the intersection (a list or a bitset).
 */
export function intersect(sets: PosSet[], n: number): PosSet | undefined {
  if (sets.length === 0) return undefined;
  sets.sort(bySize);
  const small = sets[0]!;
  if (small.size === 0) return EMPTY;
  if (sets.length === 1) return small;
  const words = (n + 31) >>> 5;
  if (small.list && small.size * (sets.length - 1) <= (words * sets.length) / 2) {
    const list = small.list;
    const out: number[] = [];
    outer: for (let i = 0; i < list.length; i++) {
      const p = list[i]!;
      for (let j = 1; j < sets.length; j++) if (!has(sets[j]!, p)) continue outer;
      out.push(p);
    }
    return { size: out.length, list: out, bits: undefined };
  }
  // AND the two smallest into a fresh bitset, then the rest in place; count during the last pass.
  const first = small.bits ?? bitsFromList(small.list!, words);
  const acc = new Uint32Array(words);
  let size = 0;
  for (let j = 1; j < sets.length; j++) {
    const s = sets[j]!;
    const b = s.bits ?? bitsFromList(s.list!, words);
    const src = j === 1 ? first : acc;
    if (j === sets.length - 1) {
      for (let w = 0; w < words; w++) size += popcount((acc[w] = src[w]! & b[w]!));
    } else for (let w = 0; w < words; w++) acc[w] = src[w]! & b[w]!;
  }
  return { size, list: undefined, bits: acc };
}

/**
 * One page of a result (spec §4.2 `offset`, `limit`): positions `offset .. offset+limit-1` of `set` in ascending
 * (catalog) order, or of all `n` items when `set` is undefined. Fewer (or none) past the end; never throws.
 */
export function page(set: PosSet | undefined, n: number, offset: number, limit: number): number[] {
  const out: number[] = [];
  if (set === undefined) {
    for (let p = offset; p < n && out.length < limit; p++) out.push(p);
    return out;
  }
  if (set.list) {
    const end = Math.min(set.list.length, offset + limit);
    for (let i = offset; i < end; i++) out.push(set.list[i]!);
    return out;
  }
  const bits = set.bits!;
  let skip = offset;
  for (let w = 0; w < bits.length && out.length < limit; w++) {
    let word = bits[w]!;
    if (word === 0) continue;
    if (skip > 0) {
      const c = popcount(word);
      if (skip >= c) {
        skip -= c;
        continue;
      }
      while (skip > 0) {
        word &= word - 1;
        skip--;
      }
    }
    while (word !== 0 && out.length < limit) {
      const low = word & -word;
      out.push((w << 5) + 31 - Math.clz32(low));
      word ^= low;
    }
  }
  return out;
}

/**
 * Union of position sets over `n` items: sparse ones merged and sorted (a list); with a dense one or at least
 * n/32 positions in all, a bitset of ceil(n/32) words. One set is returned as it is.
 */
export function unionSets(sets: readonly PosSet[], n: number): PosSet {
  if (sets.length === 1) return sets[0]!;
  let sum = 0;
  let dense = 0;
  for (let h = 0; h < sets.length; h++) {
    sum += sets[h]!.size;
    if (sets[h]!.bits) dense++;
  }
  if (dense === 0 && sum * 32 < n) {
    const merged = new Int32Array(sum);
    let k = 0;
    for (let h = 0; h < sets.length; h++) {
      const list = sets[h]!.list!;
      merged.set(list, k);
      k += list.length;
    }
    merged.sort();
    const out: number[] = [];
    for (let i = 0; i < merged.length; i++) if (i === 0 || merged[i] !== merged[i - 1]) out.push(merged[i]!);
    return { size: out.length, list: out, bits: undefined };
  }
  const words = (n + 31) >>> 5;
  const acc = new Uint32Array(words);
  const denseSets: PosSet[] = [];
  for (let h = 0; h < sets.length; h++) {
    const s = sets[h]!;
    if (s.bits) denseSets.push(s);
    else {
      const list = s.list!;
      for (let i = 0; i < list.length; i++) {
        const p = list[i]!;
        acc[p >>> 5]! |= 1 << (p & 31);
      }
    }
  }
  // Word by word, largest sets first, stopping at a full word: a common needle (one letter) is usually
  // covered by its first string, so this costs about one pass over the words.
  denseSets.sort(bySizeDescending);
  const bitsets = denseSets.map(bitsOf);
  const d = bitsets.length;
  let size = 0;
  for (let w = 0; w < words; w++) {
    let x = acc[w]! | 0;
    for (let j = 0; j < d && x !== -1; j++) x |= bitsets[j]![w]!;
    acc[w] = x;
    size += popcount(x);
  }
  return { size, list: undefined, bits: acc };
}

function bySizeDescending(a: PosSet, b: PosSet): number {
  return b.size - a.size;
}

function bitsOf(s: PosSet): Uint32Array {
  return s.bits!;
}

/** First index `i >= from` with `list[i] >= p` (or `list.length`), by galloping from `from`. */
function seek(list: Positions, from: number, p: number): number {
  let step = 1;
  let hi = from;
  while (hi < list.length && list[hi]! < p) {
    from = hi + 1;
    hi += step;
    step <<= 1;
  }
  if (hi > list.length) hi = list.length;
  while (from < hi) {
    const mid = (from + hi) >>> 1;
    if (list[mid]! < p) from = mid + 1;
    else hi = mid;
  }
  return from;
}

/**
 * Intersection of two position sets over `n` items: list × bitset by bit tests, list × list by galloping
 * through the longer one, two bitsets (when the shorter set has more positions than ceil(n/32) words) by AND.
 * @returns a new set (a list, or a bitset after an AND); never throws.
 */
export function intersect2(a: PosSet, b: PosSet, n: number): PosSet {
  if (a.size > b.size) {
    const t = a;
    a = b;
    b = t;
  }
  if (a.size === 0) return EMPTY;
  const words = (n + 31) >>> 5;
  // A list costs a test per position, a bitset AND a step per word: AND two bitsets once the list is longer.
  if (a.list && !(a.bits && b.bits && a.size > words)) {
    const list = a.list;
    const out: number[] = [];
    if (b.bits) {
      const bits = b.bits;
      for (let i = 0; i < list.length; i++) {
        const p = list[i]!;
        if ((bits[p >>> 5]! >>> (p & 31)) & 1) out.push(p);
      }
    } else {
      const other = b.list!;
      let j = 0;
      for (let i = 0; i < list.length && j < other.length; i++) {
        const p = list[i]!;
        j = seek(other, j, p);
        if (other[j] === p) out.push(p);
      }
    }
    return { size: out.length, list: out, bits: undefined };
  }
  const x = a.bits ?? bitsFromList(a.list!, words);
  const y = b.bits ?? bitsFromList(b.list!, words);
  const acc = new Uint32Array(words);
  let size = 0;
  for (let w = 0; w < words; w++) size += popcount((acc[w] = x[w]! & y[w]!));
  return { size, list: undefined, bits: acc };
}

/** Up to `k` positions of `set`, spread evenly over it, ascending (a sample to estimate how a window narrows). */
export function sampleOf(set: PosSet, k: number): number[] {
  const out: number[] = [];
  if (set.list) {
    const list = set.list;
    for (let i = 0; i < k; i++) out.push(list[Math.floor((i * list.length) / k)]!);
    return out;
  }
  const bits = set.bits!;
  let w = 0;
  for (let i = 0; i < k; i++) {
    w = Math.max(w, Math.floor((i * bits.length) / k));
    while (w < bits.length && bits[w] === 0) w++;
    if (w >= bits.length) break;
    const word = bits[w]!;
    out.push((w << 5) + 31 - Math.clz32(word & -word));
    w++;
  }
  return out;
}
