/**
 * Query engine of the item collections (spec 2.2, 3, 4.2): pure functions over a loaded collection
 * index (format `collection-index/2`, see `api/_lib/formats/collection-index.ts`). No I/O.
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
 * Cost model (n items, w = ceil(n/32) words): every position set is a sorted list and, when it holds at
 * least n/32 items, also a bitset. A single filter pages by slicing its list (O(limit)); several are
 * intersected by probing the smallest list against the others (O(smallest)) or, when that is larger,
 * by AND-ing bitsets (O(w) each). `q` that is one run of letters and digits is answered from the term
 * postings alone; `q` without letters or digits from the gaps (runs of other characters) derived at load;
 * other `q` from the postings of fragments around their non-term characters (see `qSet`): whole-word windows
 * by exact or prefix lookup, the rarest windows intersected, the few candidates left confirmed by one
 * substring test each. Dictionary strings (terms, fragments, gaps) containing a needle are found through an
 * in-memory index of their three-character substrings, built at load; unions of many sparse fragments
 * (`q=-t`) use groups of fragments precomputed at load (see {@link Groups}).
 * The body is composed from pre-serialised items by string concatenation and is byte-identical to
 * `JSON.stringify` of the response object.
 */
import {
  COLLECTION_DEFS,
  INDEX_FORMAT,
  foldKey,
  foldText,
  isCollectionName,
  isSingleTerm,
  termSpans,
  type CollectionDef,
  type CollectionName,
} from '../formats/collection-index.js';

/** Item positions, strictly increasing. */
type Positions = Int32Array | number[];

/** A set of item positions: sorted list and, when dense, the same set as a bitset. */
interface PosSet {
  readonly size: number;
  /**
   * Strictly increasing positions; absent only for sets built as bitsets. Loaded sets hold typed arrays;
   * sets built by a query hold plain arrays, which V8 allocates far more cheaply than small typed arrays.
   */
  readonly list: Positions | undefined;
  /** Bit p set ⇔ position p in the set; present when dense or built as a bitset. */
  readonly bits: Uint32Array | undefined;
}

/**
 * Sorted distinct strings (code-unit order) with one position set per string, and the structures that find
 * the strings holding a needle: joined by `\n` (`starts[i]` is the offset of string i), a map of 3-unit
 * substrings, an exact map, and running sums of the set sizes.
 */
interface Dictionary {
  readonly entries: readonly string[];
  readonly blob: string;
  readonly starts: Int32Array;
  /**
   * Every 3-code-unit substring of the entries → indexes of the entries holding it (ascending): keyed by
   * {@link asciiGram} when its three units are ASCII, by the substring itself in `wideGrams` otherwise.
   */
  readonly grams: ReadonlyMap<number, Int32Array>;
  readonly wideGrams: ReadonlyMap<string, Int32Array>;
  readonly postings: readonly PosSet[];
  /** Entry → its index. */
  readonly exact: ReadonlyMap<string, number>;
  /** `sizes[i]` = summed sizes of the position sets of entries `0 .. i-1` (length entries + 1). */
  readonly sizes: Float64Array;
  /** Large groups of entries with their unions (fragments only). */
  readonly groups: Groups | undefined;
}

/**
 * Groups of fragments that share their gap and the first code unit after it (`-t` of `frost-t2`,
 * `aegis-t3`, …) or the last code unit before it and the gap (`e-` of `stone-t2`, …), kept when the
 * fragments hold at least 1/{@link GROUP_SHARE} of the items together, with the union of their items.
 * A `q` that starts or ends with a gap and one letter (`-t`, `e-`) is held by hundreds of sparse fragments
 * whose union costs a pass over all their positions; the whole groups among them answer at once.
 * Each fragment is in at most one group per side, so there are at most 2·GROUP_SHARE·F/n groups (F: positions
 * in all fragment postings), each one n-bit bitset or a shorter list (100,000 generated relics: 51 groups, 0.6 MB).
 */
interface Groups {
  /** `of[2f]`: the group of fragment f by the unit after its gap, `of[2f + 1]` by the unit before; -1 for none. */
  readonly of: Int32Array;
  /** Fragments per group. */
  readonly members: Int32Array;
  /** Items per group. */
  readonly sets: readonly PosSet[];
}

/** See {@link Groups}: a group is kept when its fragments' set sizes add up to at least n / GROUP_SHARE; fragment unions that large use them. */
const GROUP_SHARE = 8;

/** A collection index ready for queries (built once per process by {@link loadIndex}). */
export interface LoadedCollection {
  readonly name: CollectionName;
  readonly def: CollectionDef;
  /** Source dataset name, the response's `collection`. */
  readonly dataset: string;
  /** Number of items. */
  readonly n: number;
  /** Pre-serialised items in catalog order. */
  readonly items: readonly string[];
  /** Folded search text per item. */
  readonly search: readonly string[];
  /** Terms and their postings. */
  readonly terms: Dictionary;
  /** Fragments around non-term characters (`of frost`, `ice.`) and their postings. */
  readonly fragments: Dictionary;
  /**
   * Gaps: the distinct maximal runs of non-term characters of the search fields (`, `, `-`, `.`), each with
   * the items holding it; derived at load from the fragments (each fragment holds exactly one gap).
   */
  readonly gaps: Dictionary;
  /** Query parameter → folded value → positions. */
  readonly filters: ReadonlyMap<string, ReadonlyMap<string, PosSet>>;
  /** Folded key → position. */
  readonly keys: ReadonlyMap<string, number>;
  /** Positions shown in lists by default (undefined when nothing is hidden). */
  readonly visible: PosSet | undefined;
  /** `{"collection":"<dataset>","total":` */
  readonly bodyPrefix: string;
}

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

const EMPTY: PosSet = { size: 0, list: [], bits: undefined };

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

function makeSet(list: Positions, n: number): PosSet {
  const words = (n + 31) >>> 5;
  return { size: list.length, list, bits: list.length * 32 >= n && n > 0 ? bitsFromList(list, words) : undefined };
}

function has(set: PosSet, p: number): boolean {
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

/** Intersection of `sets` (undefined = no constraint, i.e. every item). */
function intersect(sets: PosSet[], n: number): PosSet | undefined {
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

/** Positions `offset .. offset+limit-1` (in set order) of `set`, or of all n items when `set` is undefined. */
function page(set: PosSet | undefined, n: number, offset: number, limit: number): number[] {
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
 * Indexes of the dictionary strings that contain `needle` (which holds no line feed), ascending. Needles of
 * three or more code units take the entries of the rarest of their three-unit substrings side by side (and
 * the last) and confirm each with a substring test; shorter ones scan the joined entries with `indexOf`.
 */
function entriesContaining(dict: Dictionary, needle: string): number[] {
  const out: number[] = [];
  if (needle.length >= 3) {
    const { grams, wideGrams } = dict;
    let cand: Int32Array | undefined;
    // Substrings side by side, and the last one: each entry holding the needle holds them all.
    const last = needle.length - 3;
    for (let i = 0; ; i = Math.min(i + 3, last)) {
      const a = needle.charCodeAt(i);
      const b = needle.charCodeAt(i + 1);
      const c = needle.charCodeAt(i + 2);
      const l = (a | b | c) < 0x80 ? grams.get(asciiGram(a, b, c)) : wideGrams.get(needle.slice(i, i + 3));
      if (!l) return out;
      if (!cand || l.length < cand.length) cand = l;
      if (i === last) break;
    }
    const entries = dict.entries;
    for (let i = 0; i < cand.length; i++) if (entries[cand[i]!]!.includes(needle)) out.push(cand[i]!);
    return out;
  }
  const { blob, starts } = dict;
  let from = 0;
  for (;;) {
    const at = blob.indexOf(needle, from);
    if (at === -1) break;
    // last entry whose start <= at
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >>> 1;
      if (starts[mid]! <= at) lo = mid;
      else hi = mid - 1;
    }
    out.push(lo);
    from = lo + 1 < starts.length ? starts[lo + 1]! : blob.length;
  }
  return out;
}

/** Key of a 3-unit substring whose units are all below 0x80. */
function asciiGram(a: number, b: number, c: number): number {
  return (a << 14) | (b << 7) | c;
}

/**
 * Items holding any of the dictionary strings `hits` (ascending indexes): the union of their position sets.
 * When those sets are large together and the dictionary has {@link Groups}, every group all of whose strings
 * are hits stands for them with its precomputed union.
 */
function unionOf(dict: Dictionary, hits: ArrayLike<number>, n: number): PosSet {
  if (hits.length === 0) return EMPTY;
  const postings = dict.postings;
  if (hits.length === 1) return postings[hits[0]!]!;
  let sets: PosSet[] = [];
  let sum = 0;
  for (let h = 0; h < hits.length; h++) {
    const s = postings[hits[h]!]!;
    sets.push(s);
    sum += s.size;
  }
  if (dict.groups && sum * GROUP_SHARE >= n) sets = viaGroups(dict, dict.groups, hits) ?? sets;
  return unionSets(sets, n);
}

/**
 * The position sets whose union is the items of the strings `hits`, using `groups`: the sets of the groups
 * all of whose strings are hits, and the sets of the hits in no such group; undefined when no group is whole.
 */
function viaGroups(dict: Dictionary, groups: Groups, hits: ArrayLike<number>): PosSet[] | undefined {
  const { of, members } = groups;
  const seen = new Map<number, number>();
  for (let h = 0; h < hits.length; h++) {
    const f = hits[h]!;
    for (let side = 0; side < 2; side++) {
      const g = of[2 * f + side]!;
      if (g >= 0) seen.set(g, (seen.get(g) ?? 0) + 1);
    }
  }
  const whole = new Set<number>();
  const out: PosSet[] = [];
  for (const [g, count] of seen) {
    if (count === members[g]) {
      whole.add(g);
      out.push(groups.sets[g]!);
    }
  }
  if (whole.size === 0) return undefined;
  for (let h = 0; h < hits.length; h++) {
    const f = hits[h]!;
    if (!whole.has(of[2 * f]!) && !whole.has(of[2 * f + 1]!)) out.push(dict.postings[f]!);
  }
  return out;
}

/** Union of position sets: sparse ones merged and sorted; with a dense one or many positions, as a bitset. */
function unionSets(sets: readonly PosSet[], n: number): PosSet {
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

/** Items holding a dictionary string that contains `needle`. */
function unionContaining(dict: Dictionary, needle: string, n: number): PosSet {
  return unionOf(dict, entriesContaining(dict, needle), n);
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
 * Intersection of two position sets: list × bitset by bit tests, list × list by galloping through the longer
 * one, two bitsets (when the shorter set has more positions than words) by AND.
 */
function intersect2(a: PosSet, b: PosSet, n: number): PosSet {
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

/**
 * Maximal runs of letters and digits of a folded `q` as `[start0, end0, start1, end1, …]`. Printable
 * ASCII is classified by character code; anything else by the Unicode classes of `termSpans`.
 */
function runsOf(fq: string): number[] {
  const out: number[] = [];
  let start = -1;
  for (let i = 0; i < fq.length; i++) {
    const c = fq.charCodeAt(i);
    if (c >= 0x7f) {
      out.length = 0;
      for (const r of termSpans(fq)) out.push(r.start, r.end);
      return out;
    }
    const term = (c >= 0x61 && c <= 0x7a) || (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a);
    if (term) {
      if (start < 0) start = i;
    } else if (start >= 0) {
      out.push(start, i);
      start = -1;
    }
  }
  if (start >= 0) out.push(start, fq.length);
  return out;
}

/**
 * One window of a `q` (see {@link qSet}) with the fragments that may hold it: those found by containment
 * (`hits`), or, when found by exact or prefix lookup, the adjacent fragments `[lo, hi)`.
 */
interface Window {
  readonly hits: readonly number[] | undefined;
  readonly lo: number;
  readonly hi: number;
  /** Summed sizes of those fragments' position sets: an upper bound of the window's items. */
  readonly bound: number;
}

const NO_WINDOW: Window = { hits: undefined, lo: 0, hi: 0, bound: 0 };

/**
 * The fragments that may hold window `text`:
 * - both neighbouring runs whole words of `q` (a non-term character of `q` lies beyond each): an occurrence
 *   is a whole fragment, one exact lookup;
 * - the left run whole: an occurrence starts its fragment, so the fragments starting with `text`, adjacent
 *   in sorted order (the first by hash lookup when it is `text` itself, else by binary search; then a short
 *   scan, or a second binary search past four of them);
 * - otherwise every fragment containing `text`.
 */
function windowOf(dict: Dictionary, text: string, leftWhole: boolean, rightWhole: boolean): Window {
  if (leftWhole && rightWhole) {
    const i = dict.exact.get(text);
    return i === undefined ? NO_WINDOW : { hits: undefined, lo: i, hi: i + 1, bound: dict.postings[i]!.size };
  }
  if (leftWhole) {
    const entries = dict.entries;
    // The first entry starting with `text` is `text` itself when it is an entry (a name typed in full):
    // one hash lookup instead of a binary search.
    let lo = dict.exact.get(text) ?? 0;
    let hi = lo === 0 ? entries.length : lo;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (entries[mid]! < text) lo = mid + 1;
      else hi = mid;
    }
    const first = lo;
    // Usually none or a few: step over them before halving.
    while (lo < entries.length && lo < first + 4 && entries[lo]!.startsWith(text)) lo++;
    if (lo === first + 4) {
      hi = entries.length;
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if (entries[mid]!.startsWith(text)) lo = mid + 1;
        else hi = mid;
      }
    }
    return lo === first ? NO_WINDOW : { hits: undefined, lo: first, hi: lo, bound: dict.sizes[lo]! - dict.sizes[first]! };
  }
  const hits = entriesContaining(dict, text);
  let bound = 0;
  for (let i = 0; i < hits.length; i++) bound += dict.postings[hits[i]!]!.size;
  return bound === 0 ? NO_WINDOW : { hits, lo: 0, hi: 0, bound };
}

/** Number of fragments of window `w`. */
function fragmentCount(w: Window): number {
  return w.hits ? w.hits.length : w.hi - w.lo;
}

/** The k-th fragment of window `w`. */
function fragmentAt(w: Window, k: number): number {
  return w.hits ? w.hits[k]! : w.lo + k;
}

/** Items of window `w`: the union of its fragments' position sets. */
function windowSet(dict: Dictionary, w: Window, n: number): PosSet {
  const count = fragmentCount(w);
  if (count === 1) return dict.postings[fragmentAt(w, 0)]!;
  const hits: number[] = [];
  for (let k = 0; k < count; k++) hits.push(fragmentAt(w, k));
  return unionOf(dict, hits, n);
}

/** True when one of window `w`'s fragments holds position `p`. */
function inWindow(dict: Dictionary, w: Window, p: number): boolean {
  const count = fragmentCount(w);
  for (let k = 0; k < count; k++) if (has(dict.postings[fragmentAt(w, k)]!, p)) return true;
  return false;
}

/** Items of `candidates` whose search text contains `fq`, as a new set. */
function confirm(index: LoadedCollection, candidates: PosSet, fq: string): PosSet {
  const search = index.search;
  const out: number[] = [];
  if (candidates.list) {
    const list = candidates.list;
    for (let i = 0; i < list.length; i++) if (search[list[i]!]!.includes(fq)) out.push(list[i]!);
  } else {
    const bits = candidates.bits!;
    for (let w = 0; w < bits.length; w++) {
      let word = bits[w]!;
      while (word !== 0) {
        const low = word & -word;
        const p = (w << 5) + 31 - Math.clz32(low);
        if (search[p]!.includes(fq)) out.push(p);
        word ^= low;
      }
    }
  }
  return makeSet(out, index.n);
}

/**
 * Items matching `q` (undefined when `q` folds to nothing: no constraint).
 * - One run of letters and digits: the union of the postings of the terms containing it (exact).
 * - No letters or digits at all: an occurrence lies inside one gap, so the union of the gaps containing `q` (exact).
 * - Otherwise `q` is cut into windows, one around each stretch of non-term characters: the runs on either
 *   side with the stretch between (`of fro` → `of fro`; `, granting` → `, granting`; `a-b-c` → `a-b`, `b-c`).
 *   Any occurrence of a window in a search text lies inside one fragment (see the index format), so the
 *   items holding a fragment that contains the window are exactly the items whose text contains the window.
 *   One window (its sides are then the ends of `q`) is therefore exact. Several are looked up as
 *   {@link windowOf} says (all but the first have a whole left run, so exact or prefix lookups, done first:
 *   a window no fragment holds ends the search early), narrowed rarest first (see {@link narrow}), and the
 *   candidates left are confirmed by a substring test of their search text.
 */
function qSet(index: LoadedCollection, q: string): PosSet | undefined {
  const fq = foldText(q);
  if (fq === '') return undefined;
  const n = index.n;
  const runs = runsOf(fq);
  if (runs.length === 0) return unionContaining(index.gaps, fq, n);
  const end = fq.length;
  const last = runs.length - 2;
  if (runs.length === 2 && runs[0] === 0 && runs[1] === end) return unionContaining(index.terms, fq, n);
  const frag = index.fragments;
  if (runs.length === 2 && (runs[0] === 0 || runs[1] === end)) return unionContaining(frag, fq, n);
  if (runs.length === 4 && runs[0] === 0 && runs[3] === end) return unionContaining(frag, fq, n);
  const windows: Window[] = [];
  for (let i = runs[0] === 0 ? 2 : 0; i < last; i += 2) {
    const w = windowOf(frag, fq.slice(runs[i], runs[i + 3]), true, runs[i + 3]! < end);
    if (w.bound === 0) return EMPTY;
    windows.push(w);
  }
  if (runs[last + 1]! < end) {
    const w = windowOf(frag, fq.slice(runs[last]), true, false);
    if (w.bound === 0) return EMPTY;
    windows.push(w);
  }
  const first = windowOf(frag, fq.slice(0, runs[runs[0] === 0 ? 3 : 1]), false, false);
  if (first.bound === 0) return EMPTY;
  windows.push(first);
  // Insertion sort by bound: a handful of windows, cheaper than Array.prototype.sort.
  for (let i = 1; i < windows.length; i++) {
    const w = windows[i]!;
    let j = i;
    for (; j > 0 && windows[j - 1]!.bound > w.bound; j--) windows[j] = windows[j - 1]!;
    windows[j] = w;
  }
  const candidates = narrow(frag, windows, n);
  return candidates.size === 0 ? EMPTY : confirm(index, candidates, fq);
}

/** Candidate count below which `q` stops narrowing by further windows and confirms candidates directly. */
const CONFIRM_DIRECTLY = 32;
/** Above this many candidates, the next window is chosen by testing a sample of the candidates against each. */
const SAMPLE_ABOVE = 256;
/** Sample size of that test. */
const SAMPLE = 32;
/** A window keeping more than this share of the sampled candidates does not narrow enough to be worth intersecting. */
const NARROW_SHARE = 0.8;
/** Windows held by more fragments than this are left to the confirmation while narrowing a large candidate set. */
const PROBED_HITS = 8;
/** Windows intersected without sampling (few candidates), after the first. */
const BLIND_NARROW = 2;

/** Up to `k` positions of `set`, spread evenly over it. */
function sampleOf(set: PosSet, k: number): number[] {
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

/** `candidates` ∩ the items of window `w`: one fragment directly; several by probing each candidate when cheaper than forming their union. */
function restrict(dict: Dictionary, candidates: PosSet, w: Window, n: number): PosSet {
  const count = fragmentCount(w);
  if (count === 1) return intersect2(candidates, dict.postings[fragmentAt(w, 0)]!, n);
  if (candidates.list && candidates.size * count <= w.bound) {
    const list = candidates.list;
    const out: number[] = [];
    for (let i = 0; i < list.length; i++) if (inWindow(dict, w, list[i]!)) out.push(list[i]!);
    return { size: out.length, list: out, bits: undefined };
  }
  return intersect2(candidates, windowSet(dict, w, n), n);
}

/**
 * Candidates of a `q` of several windows (sorted by `bound`, rarest first): the items of the rarest window,
 * narrowed by further windows while that is cheaper than confirming. Few candidates (up to {@link SAMPLE_ABOVE})
 * are intersected with the next rarest windows; more are first tested, on a sample, against every window, and
 * intersected with the one keeping the smallest share, until none keeps less than {@link NARROW_SHARE}: the
 * windows of one phrase often come together (`a steadier` and `steadier hand`), so the rarest are not always
 * the ones that narrow.
 */
function narrow(dict: Dictionary, windows: readonly Window[], n: number): PosSet {
  let candidates = windowSet(dict, windows[0]!, n);
  const rest = windows.slice(1);
  let blind = 0;
  while (candidates.size > CONFIRM_DIRECTLY && rest.length > 0) {
    let pick = 0;
    if (candidates.size > SAMPLE_ABOVE) {
      const sample = sampleOf(candidates, SAMPLE);
      let best = Math.floor(sample.length * NARROW_SHARE) + 1;
      pick = -1;
      for (let j = 0; j < rest.length; j++) {
        const w = rest[j]!;
        if (fragmentCount(w) > PROBED_HITS) continue;
        let pass = 0;
        for (let i = 0; i < sample.length && pass < best; i++) if (inWindow(dict, w, sample[i]!)) pass++;
        if (pass < best) {
          best = pass;
          pick = j;
        }
      }
      if (pick < 0) break;
    } else if (blind++ >= BLIND_NARROW) break;
    candidates = restrict(dict, candidates, rest[pick]!, n);
    rest.splice(pick, 1);
  }
  return candidates;
}

/**
 * Run a list query (spec 4.2) over a loaded collection.
 * @param query parsed parameters: `limit` (1-500), `offset` (≥ 0), optional `q`, `discovered` (`all`) and filters.
 * @returns totals, the page's positions and the serialised response body.
 */
export function queryCollection(index: LoadedCollection, query: CollectionQuery): QueryResult {
  const sets: PosSet[] = [];
  for (const f of index.def.filters) {
    const v = query[f.param];
    if (v === undefined) continue;
    const key = f.kind === 'tier' ? String(v) : foldKey(String(v));
    sets.push(index.filters.get(f.param)?.get(key) ?? EMPTY);
  }
  if (index.visible && query.discovered === undefined) sets.push(index.visible);
  if (query.q !== undefined) {
    const s = qSet(index, query.q);
    if (s) sets.push(s);
  }
  const result = intersect(sets, index.n);
  const total = result === undefined ? index.n : result.size;
  const { limit, offset } = query;
  const positions = offset >= total ? [] : page(result, index.n, offset, limit);
  let items = '';
  for (let i = 0; i < positions.length; i++) items += (i === 0 ? '' : ',') + index.items[positions[i]!]!;
  const body = `${index.bodyPrefix}${total},"count":${positions.length},"limit":${limit},"offset":${offset},"items":[${items}]}`;
  return { total, count: positions.length, limit, offset, positions, body };
}

/**
 * The pre-serialised item that `key` names (spec 4.2 single lookups), compared folded (case and accents
 * ignored), or `undefined`. Hidden artifacts are found too: spec 3 hides them from lists only.
 */
export function lookupItem(index: LoadedCollection, key: string): string | undefined {
  const p = index.keys.get(foldKey(key));
  return p === undefined ? undefined : index.items[p];
}

class CorruptIndex extends Error {
  override readonly name = 'CorruptIndex';
}

function fail(what: string): never {
  throw new CorruptIndex(`collection index: ${what}`);
}

function isObj(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function positions(v: unknown, n: number, what: string): Int32Array {
  if (!Array.isArray(v)) fail(`${what} is not an array`);
  const out = new Int32Array(v.length);
  let prev = -1;
  for (let i = 0; i < v.length; i++) {
    const p: unknown = v[i];
    if (typeof p !== 'number' || !Number.isInteger(p) || p <= prev || p >= n) fail(`${what} is not a strictly increasing list of positions below ${n}`);
    out[i] = p;
    prev = p;
  }
  return out;
}

function strings(v: unknown, what: string): string[] {
  if (!Array.isArray(v) || !v.every((s): s is string => typeof s === 'string')) fail(`${what} is not an array of strings`);
  return v;
}

function makeDictionary(entries: readonly string[], postings: readonly PosSet[]): Dictionary {
  const starts = new Int32Array(entries.length);
  const sizes = new Float64Array(entries.length + 1);
  const exact = new Map<string, number>();
  const grams = new Map<number, number[]>();
  const wideGrams = new Map<string, number[]>();
  const note = <K>(map: Map<K, number[]>, key: K, i: number): void => {
    const l = map.get(key);
    if (!l) map.set(key, [i]);
    else if (l[l.length - 1] !== i) l.push(i);
  };
  let offset = 0;
  entries.forEach((t, i) => {
    starts[i] = offset;
    offset += t.length + 1;
    sizes[i + 1] = sizes[i]! + postings[i]!.size;
    exact.set(t, i);
    for (let j = 0; j + 3 <= t.length; j++) {
      const a = t.charCodeAt(j);
      const b = t.charCodeAt(j + 1);
      const c = t.charCodeAt(j + 2);
      if ((a | b | c) < 0x80) note(grams, asciiGram(a, b, c), i);
      else note(wideGrams, t.slice(j, j + 3), i);
    }
  });
  return {
    entries,
    blob: entries.join('\n'),
    starts,
    grams: new Map([...grams].map(([g, l]) => [g, Int32Array.from(l)])),
    wideGrams: new Map([...wideGrams].map(([g, l]) => [g, Int32Array.from(l)])),
    postings,
    exact,
    sizes,
    groups: undefined,
  };
}

function dictionary(entries: unknown, lists: unknown, what: string, n: number, valid: (s: string) => boolean): Dictionary {
  const strs = strings(entries, what);
  if (!Array.isArray(lists) || lists.length !== strs.length) fail(`${what} and their postings differ in length`);
  strs.forEach((t, i) => {
    if (!valid(t)) fail(`${what}[${i}] is malformed`);
    if (i > 0 && !(strs[i - 1]! < t)) fail(`${what} are not sorted and distinct at ${i}`);
  });
  const raw: unknown[] = lists;
  return makeDictionary(
    strs,
    raw.map((v, i) => makeSet(positions(v, n, `${what} postings[${i}]`), n)),
  );
}

/** A fragment: optional term, one run of non-term characters (its gap, captured), optional term. */
const FRAGMENT_RE = /^[\p{L}\p{N}]*([^\p{L}\p{N}\n]+)[\p{L}\p{N}]*$/u;

/** Fragment `f` cut at its gap: `[term before, gap, term after]` (terms may be empty). */
function cut(f: string): [string, string, string] {
  const gap = FRAGMENT_RE.exec(f)![1]!;
  const at = f.indexOf(gap);
  return [f.slice(0, at), gap, f.slice(at + gap.length)];
}

/** The {@link Groups} of a fragment dictionary. */
function groupsOf(fragments: Dictionary, n: number): Groups {
  const byKey = new Map<string, number[]>();
  const keys: string[] = [];
  fragments.entries.forEach((f) => {
    const [before, gap, after] = cut(f);
    // Gaps hold no line feed: it separates the parts of a key.
    keys.push(after === '' ? '' : `${gap}\n${after[0]!}\n`, before === '' ? '' : `\n${before[before.length - 1]!}\n${gap}`);
  });
  keys.forEach((key, k) => {
    if (key === '') return;
    const l = byKey.get(key);
    if (l) l.push(k >> 1);
    else byKey.set(key, [k >> 1]);
  });
  const of = new Int32Array(keys.length).fill(-1);
  const members: number[] = [];
  const sets: PosSet[] = [];
  for (const [key, list] of byKey) {
    if (list.length < 2) continue;
    let sum = 0;
    for (const f of list) sum += fragments.postings[f]!.size;
    if (sum * GROUP_SHARE < n) continue;
    const side = key.startsWith('\n') ? 1 : 0;
    for (const f of list) of[2 * f + side] = sets.length;
    members.push(list.length);
    sets.push(unionSets(list.map((f) => fragments.postings[f]!), n));
  }
  return { of, members: Int32Array.from(members), sets };
}

/** The gaps of a fragment dictionary: each fragment's run of non-term characters, with the union of the items of the fragments holding it. */
function gapsOf(fragments: Dictionary, n: number): Dictionary {
  const byGap = new Map<string, number[]>();
  fragments.entries.forEach((f, i) => {
    const gap = cut(f)[1];
    const l = byGap.get(gap);
    if (l) l.push(i);
    else byGap.set(gap, [i]);
  });
  const entries = [...byGap.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return makeDictionary(
    entries,
    entries.map((g) => unionOf(fragments, byGap.get(g)!, n)),
  );
}

/**
 * Check a parsed index file and build the in-memory structures (bitsets, maps, joined terms; the gaps and
 * the fragment groups, derived from the fragments).
 * @param expected the collection the file must describe, when known.
 * @throws Error when the file is not a well-formed `collection-index/2` index (the store turns this into 503),
 *         including terms or fragments out of code-unit order or repeated, and fragments without exactly one gap.
 */
export function loadIndex(raw: unknown, expected?: CollectionName): LoadedCollection {
  if (!isObj(raw)) fail('not an object');
  if (raw.format !== INDEX_FORMAT) fail(`format is ${JSON.stringify(raw.format)}, expected ${INDEX_FORMAT}`);
  const name = raw.collection;
  if (typeof name !== 'string' || !isCollectionName(name)) fail('unknown collection');
  if (expected !== undefined && name !== expected) fail(`holds ${name}, expected ${expected}`);
  const def = COLLECTION_DEFS[name];
  if (raw.dataset !== def.dataset) fail(`dataset is not ${def.dataset}`);
  const items = strings(raw.items, 'items');
  const n = items.length;
  const search = strings(raw.search, 'search');
  if (search.length !== n) fail('search and items differ in length');
  const terms = dictionary(raw.terms, raw.postings, 'terms', n, isSingleTerm);
  const plainFragments = dictionary(raw.fragments, raw.fragmentPostings, 'fragments', n, (f) => FRAGMENT_RE.test(f));
  const fragments: Dictionary = { ...plainFragments, groups: groupsOf(plainFragments, n) };
  const gaps = gapsOf(fragments, n);

  if (!isObj(raw.filters)) fail('filters is not an object');
  const filters = new Map<string, Map<string, PosSet>>();
  for (const f of def.filters) {
    const byValue: unknown = raw.filters[f.param];
    if (byValue === undefined) continue;
    if (!isObj(byValue)) fail(`filters.${f.param} is not an object`);
    const m = new Map<string, PosSet>();
    for (const [value, list] of Object.entries(byValue)) m.set(value, makeSet(positions(list, n, `filters.${f.param}.${value}`), n));
    filters.set(f.param, m);
  }

  if (!isObj(raw.keys)) fail('keys is not an object');
  const keys = new Map<string, number>();
  for (const [k, p] of Object.entries(raw.keys)) {
    if (typeof p !== 'number' || !Number.isInteger(p) || p < 0 || p >= n) fail(`keys.${k} is not a position`);
    keys.set(k, p);
  }

  const hidden = positions(raw.hidden, n, 'hidden');
  let visible: PosSet | undefined;
  if (hidden.length > 0) {
    const list = new Int32Array(n - hidden.length);
    let k = 0;
    let h = 0;
    for (let p = 0; p < n; p++) {
      if (h < hidden.length && hidden[h] === p) h++;
      else list[k++] = p;
    }
    visible = makeSet(list, n);
  }

  return {
    name,
    def,
    dataset: def.dataset,
    n,
    items,
    search,
    terms,
    fragments,
    gaps,
    filters,
    keys,
    visible,
    bodyPrefix: `{"collection":${JSON.stringify(def.dataset)},"total":`,
  };
}
