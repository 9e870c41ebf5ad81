/**
 * `q` of the item collections (spec §4.2: folded substring of one search field): how a query is cut into
 * windows around its non-term characters, how each window is looked up among the fragments of the index
 * (exact, prefix or containment), and how the candidates are narrowed and confirmed. Pure.
 *
 * `q` that is one run of letters and digits is answered from the term postings alone; `q` without letters or
 * digits from the gaps (runs of other characters) derived at load; other `q` from the postings of fragments
 * around their non-term characters (see {@link qSet}): whole-word windows by exact or prefix lookup, the
 * rarest windows intersected, the few candidates left confirmed by one substring test each.
 */
import { foldText, termSpans } from '../formats/collection-index.js';
import { unionContaining, unionOf, entriesContaining, type Dictionary } from './dictionary.js';
import type { LoadedCollection } from './load.js';
import { lowerBound, prefixEnd } from '../util/sorted.js';
import { EMPTY, has, intersect2, makeSet, sampleOf, type PosSet } from './positions.js';

/**
 * Maximal runs of letters and digits of a folded `q` as `[start0, end0, start1, end1, …]`. Printable
 * ASCII is classified by character code (folded text holds no capitals); anything else by the Unicode
 * classes of `termSpans`.
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
    const term = (c >= 0x61 && c <= 0x7a) || (c >= 0x30 && c <= 0x39);
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
    const first = dict.exact.get(text) ?? lowerBound(entries, text);
    let lo = first;
    // Usually none or a few: step over them before halving.
    while (lo < entries.length && lo < first + 4 && entries[lo]!.startsWith(text)) lo++;
    if (lo === first + 4) lo = prefixEnd(entries, text, lo);
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
  const out: number[] = [];
  if (candidates.list) {
    const list = candidates.list;
    for (let i = 0; i < list.length; i++) if (index.searchText(list[i]!).includes(fq)) out.push(list[i]!);
  } else {
    const bits = candidates.bits!;
    for (let w = 0; w < bits.length; w++) {
      let word = bits[w]!;
      while (word !== 0) {
        const low = word & -word;
        const p = (w << 5) + 31 - Math.clz32(low);
        if (index.searchText(p).includes(fq)) out.push(p);
        word ^= low;
      }
    }
  }
  return makeSet(out, index.n);
}

/**
 * Items matching `q` (spec §4.2: folded substring of one search field; `q` as parsed, at most 200 characters),
 * or undefined when `q` folds to nothing (no constraint).
 * @throws ServiceError `UPSTREAM_UNAVAILABLE` when a dictionary or the search text proves corrupt on first use (`load.ts`).
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
export function qSet(index: LoadedCollection, q: string): PosSet | undefined {
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
