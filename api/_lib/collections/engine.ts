/**
 * Query engine of the item collections (spec 2.2, 3, 4.2): pure functions over a loaded collection
 * index (format `collection-index/2`, see `format.ts`). No I/O.
 *
 * Semantics:
 * - Filters combine with AND. Word filters compare folded (case and accents ignored, `format.ts`);
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
 * postings alone; other `q` from the postings of fragments around their non-term characters (see `qSet`).
 * Dictionary strings (terms, fragments) containing a needle are found through an in-memory index of their
 * three-character substrings, built at load.
 * The body is composed from pre-serialised items by string concatenation and is byte-identical to
 * `JSON.stringify` of the response object.
 */
import type { CollectionName } from '../contract/index.js';
import {
  COLLECTION_DEFS,
  INDEX_FORMAT,
  foldKey,
  foldText,
  isCollectionName,
  isSingleTerm,
  termSpans,
  type CollectionDef,
} from './format.js';

/** A set of item positions: sorted list and, when dense, the same set as a bitset. */
interface PosSet {
  readonly size: number;
  /** Strictly increasing positions; absent only for sets built as bitsets. */
  readonly list: Int32Array | undefined;
  /** Bit p set ⇔ position p in the set; present when dense or built as a bitset. */
  readonly bits: Uint32Array | undefined;
}

/** Strings joined by `\n` (`starts[i]` is the offset of string i) with one position set per string. */
interface Dictionary {
  readonly entries: readonly string[];
  readonly blob: string;
  readonly starts: Int32Array;
  /** Every 3-code-unit substring of the entries → indexes of the entries holding it (ascending). */
  readonly grams: ReadonlyMap<string, Int32Array>;
  readonly postings: readonly PosSet[];
}

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

const EMPTY: PosSet = { size: 0, list: new Int32Array(0), bits: undefined };

function popcount(x: number): number {
  x -= (x >>> 1) & 0x55555555;
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  return Math.imul((x + (x >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24;
}

function bitsFromList(list: Int32Array, words: number): Uint32Array {
  const bits = new Uint32Array(words);
  for (let i = 0; i < list.length; i++) {
    const p = list[i]!;
    bits[p >>> 5]! |= 1 << (p & 31);
  }
  return bits;
}

function makeSet(list: Int32Array, n: number): PosSet {
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

/** Intersection of `sets` (undefined = no constraint, i.e. every item). */
function intersect(sets: PosSet[], n: number): PosSet | undefined {
  if (sets.length === 0) return undefined;
  sets.sort((a, b) => a.size - b.size);
  const small = sets[0]!;
  if (small.size === 0) return EMPTY;
  if (sets.length === 1) return small;
  const words = (n + 31) >>> 5;
  if (small.list && small.size * (sets.length - 1) <= (words * sets.length) / 2) {
    const list = small.list;
    const out = new Int32Array(list.length);
    let k = 0;
    outer: for (let i = 0; i < list.length; i++) {
      const p = list[i]!;
      for (let j = 1; j < sets.length; j++) if (!has(sets[j]!, p)) continue outer;
      out[k++] = p;
    }
    return { size: k, list: out.subarray(0, k), bits: undefined };
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
 * Indexes of the dictionary strings that contain `needle` (which holds no line feed). Needles of three or
 * more code units take the entries of their rarest three-unit substring and confirm each with a substring
 * test; shorter ones scan the joined entries with `indexOf`.
 */
function entriesContaining(dict: Dictionary, needle: string): number[] {
  const out: number[] = [];
  if (needle.length >= 3) {
    let cand: Int32Array | undefined;
    for (let i = 0; i + 3 <= needle.length; i++) {
      const l = dict.grams.get(needle.slice(i, i + 3));
      if (!l) return out;
      if (!cand || l.length < cand.length) cand = l;
    }
    const entries = dict.entries;
    for (let i = 0; i < cand!.length; i++) if (entries[cand![i]!]!.includes(needle)) out.push(cand![i]!);
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

/** Items holding a dictionary string that contains `needle`: the union of those strings' postings. */
function unionContaining(dict: Dictionary, needle: string, n: number): PosSet {
  const hits = entriesContaining(dict, needle);
  if (hits.length === 0) return EMPTY;
  if (hits.length === 1) return dict.postings[hits[0]!]!;
  let sum = 0;
  let dense = false;
  for (const t of hits) {
    const s = dict.postings[t]!;
    sum += s.size;
    if (s.bits) dense = true;
  }
  if (dense || sum * 32 >= n) {
    const words = (n + 31) >>> 5;
    const acc = new Uint32Array(words);
    const denseSets: PosSet[] = [];
    for (const t of hits) {
      const s = dict.postings[t]!;
      if (s.bits) denseSets.push(s);
      else {
        const list = s.list!;
        for (let i = 0; i < list.length; i++) acc[list[i]! >>> 5]! |= 1 << (list[i]! & 31);
      }
    }
    // Word by word, largest sets first, stopping at a full word: a common fragment (one letter) is
    // usually covered by its first string, so this costs about one pass over the words.
    denseSets.sort((a, b) => b.size - a.size);
    const bitsets = denseSets.map((s) => s.bits!);
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
  const merged = new Int32Array(sum);
  let k = 0;
  for (const t of hits) {
    merged.set(dict.postings[t]!.list!, k);
    k += dict.postings[t]!.size;
  }
  merged.sort();
  let m = 0;
  for (let i = 0; i < merged.length; i++) if (i === 0 || merged[i] !== merged[m - 1]) merged[m++] = merged[i]!;
  return { size: m, list: merged.subarray(0, m), bits: undefined };
}

/**
 * Items matching `q` (undefined when `q` folds to nothing: no constraint).
 * - One run of letters and digits: the union of the postings of the terms containing it (exact).
 * - Otherwise `q` is cut into windows, one around each stretch of non-term characters: the runs on either
 *   side with the stretch between (`of fro` → `of fro`; `, granting` → `, granting`; `a-b-c` → `a-b`, `b-c`).
 *   Any occurrence of a window in a search text lies inside one fragment (see the index format), so the
 *   items holding a fragment that contains the window are exactly the items whose text contains the window.
 *   One window is therefore exact; several are intersected and each candidate is confirmed by a substring
 *   test of its search text.
 */
function qSet(index: LoadedCollection, q: string): PosSet | undefined {
  const fq = foldText(q);
  if (fq === '') return undefined;
  const n = index.n;
  if (isSingleTerm(fq)) return unionContaining(index.terms, fq, n);
  const runs = termSpans(fq);
  const windows: string[] = [];
  if (runs.length === 0) windows.push(fq);
  else {
    const first = runs[0]!;
    const last = runs[runs.length - 1]!;
    if (first.start > 0) windows.push(fq.slice(0, first.end));
    for (let i = 0; i + 1 < runs.length; i++) windows.push(fq.slice(runs[i]!.start, runs[i + 1]!.end));
    if (last.end < fq.length) windows.push(fq.slice(last.start));
  }
  if (windows.length === 1) return unionContaining(index.fragments, windows[0]!, n);
  // Longest windows first (usually the rarest); once few candidates remain, confirming them is cheaper
  // than looking up the remaining windows.
  windows.sort((a, b) => b.length - a.length);
  let candidates: PosSet | undefined;
  for (const w of windows) {
    const set = unionContaining(index.fragments, w, n);
    candidates = candidates ? intersect([candidates, set], n)! : set;
    if (candidates.size <= CONFIRM_DIRECTLY) break;
  }
  if (!candidates || candidates.size === 0) return EMPTY;
  const search = index.search;
  const out: number[] = [];
  if (candidates.list) {
    const list = candidates.list;
    for (let i = 0; i < list.length; i++) if (search[list[i]!]!.includes(fq)) out.push(list[i]!);
  } else {
    for (const p of page(candidates, n, 0, candidates.size)) if (search[p]!.includes(fq)) out.push(p);
  }
  return makeSet(Int32Array.from(out), n);
}

/** Candidate count below which `q` stops narrowing by further windows and confirms candidates directly. */
const CONFIRM_DIRECTLY = 32;

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

function dictionary(entries: unknown, lists: unknown, what: string, n: number, valid: (s: string) => boolean): Dictionary {
  const strs = strings(entries, what);
  if (!Array.isArray(lists) || lists.length !== strs.length) fail(`${what} and their postings differ in length`);
  const starts = new Int32Array(strs.length);
  let offset = 0;
  strs.forEach((t, i) => {
    if (!valid(t)) fail(`${what}[${i}] is malformed`);
    starts[i] = offset;
    offset += t.length + 1;
  });
  const grams = new Map<string, number[]>();
  strs.forEach((t, i) => {
    for (let j = 0; j + 3 <= t.length; j++) {
      const g = t.slice(j, j + 3);
      const l = grams.get(g);
      if (!l) grams.set(g, [i]);
      else if (l[l.length - 1] !== i) l.push(i);
    }
  });
  const raw: unknown[] = lists;
  return {
    entries: strs,
    blob: strs.join('\n'),
    starts,
    grams: new Map([...grams].map(([g, l]) => [g, Int32Array.from(l)])),
    postings: raw.map((v, i) => makeSet(positions(v, n, `${what} postings[${i}]`), n)),
  };
}

/**
 * Check a parsed index file and build the in-memory structures (bitsets, maps, joined terms).
 * @param expected the collection the file must describe, when known.
 * @throws Error when the file is not a well-formed `collection-index/2` index (the store turns this into 503).
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
  const fragments = dictionary(raw.fragments, raw.fragmentPostings, 'fragments', n, (f) => !f.includes('\n') && !isSingleTerm(f) && f !== '');

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
    filters,
    keys,
    visible,
    bodyPrefix: `{"collection":${JSON.stringify(def.dataset)},"total":`,
  };
}
