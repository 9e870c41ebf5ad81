/**
 * Dictionaries of a loaded collection index (spec §4.2 `q`): sorted distinct strings (terms, fragments, gaps),
 * each with the position set of the items holding it, and the ways to find the strings that contain a
 * needle: an in-memory index of their three-character substrings (built at load) or a scan of the joined
 * strings. Unions of many sparse fragments (`q=-t`) use groups of fragments precomputed at load
 * (see {@link Groups}). Pure. Strings and offsets are UTF-16 code units.
 */
import { compareCodeUnits } from '../util/sorted.js';
import { EMPTY, unionSets, type PosSet } from './positions.js';

/**
 * Sorted distinct strings (code-unit order) with one position set per string, and the structures that find
 * the strings holding a needle: joined by `\n` (`starts[i]` is the offset of string i), a map of 3-unit
 * substrings, an exact map, and running sums of the set sizes.
 */
export interface Dictionary {
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

/**
 * Indexes of the dictionary strings that contain `needle` (which holds no line feed), ascending. Needles of
 * three or more code units take the entries of the rarest of their three-unit substrings side by side (and
 * the last) and confirm each with a substring test; shorter ones scan the joined entries with `indexOf`.
 */
export function entriesContaining(dict: Dictionary, needle: string): number[] {
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
export function unionOf(dict: Dictionary, hits: ArrayLike<number>, n: number): PosSet {
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

/** Items (of `n`) holding a dictionary string that contains `needle` (code units, no line feed); empty when none does. */
export function unionContaining(dict: Dictionary, needle: string, n: number): PosSet {
  return unionOf(dict, entriesContaining(dict, needle), n);
}

/**
 * A {@link Dictionary} over `entries` (sorted, distinct, without line feeds) and their position sets (same
 * order): joins them, indexes their three-code-unit substrings and sums the set sizes. No groups.
 */
export function makeDictionary(entries: readonly string[], postings: readonly PosSet[]): Dictionary {
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

/** A fragment: optional term, one run of non-term characters (its gap, captured), optional term. */
export const FRAGMENT_RE = /^[\p{L}\p{N}]*([^\p{L}\p{N}\n]+)[\p{L}\p{N}]*$/u;

/** Fragment `f` cut at its gap: `[term before, gap, term after]` (terms may be empty). */
function cut(f: string): [string, string, string] {
  const gap = FRAGMENT_RE.exec(f)![1]!;
  const at = f.indexOf(gap);
  return [f.slice(0, at), gap, f.slice(at + gap.length)];
}

/**
 * The {@link Groups} of a fragment dictionary over `n` items, built once at load: fragments grouped by their gap
 * and the unit after it, or the unit before it and the gap; groups holding fewer than n/GROUP_SHARE items dropped.
 */
export function groupsOf(fragments: Dictionary, n: number): Groups {
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
    sets.push(
      unionSets(
        list.map((f) => fragments.postings[f]!),
        n,
      ),
    );
  }
  return { of, members: Int32Array.from(members), sets };
}

/**
 * The gaps of a fragment dictionary over `n` items, built once at load: each fragment's run of non-term
 * characters (`, `, `-`), sorted by code units, with the union of the items of the fragments holding it.
 * These answer a `q` without letters or digits (spec §4.2).
 */
export function gapsOf(fragments: Dictionary, n: number): Dictionary {
  const byGap = new Map<string, number[]>();
  fragments.entries.forEach((f, i) => {
    const gap = cut(f)[1];
    const l = byGap.get(gap);
    if (l) l.push(i);
    else byGap.set(gap, [i]);
  });
  const entries = [...byGap.keys()].sort(compareCodeUnits);
  return makeDictionary(
    entries,
    entries.map((g) => unionOf(fragments, byGap.get(g)!, n)),
  );
}
