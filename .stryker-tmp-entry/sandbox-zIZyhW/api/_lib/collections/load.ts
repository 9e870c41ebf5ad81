/**
 * Loading a collection index (`collection-index/2`, `api/_lib/formats/collection-index.ts`; spec §4.2): every
 * field of the parsed file is checked, then the in-memory structures are built once per process: position
 * sets with bitsets, dictionaries with their substring indexes, the gaps and the fragment groups derived from
 * the fragments, filter and key maps, and the visible positions. Pure: the caller reads the file.
 */
// @ts-nocheck

import { COLLECTION_DEFS, INDEX_FORMAT, isCollectionName, isSingleTerm, type CollectionDef, type CollectionName } from '../formats/collection-index.js';
import { isRecord } from '../util/json.js';
import { FRAGMENT_RE, gapsOf, groupsOf, makeDictionary, type Dictionary } from './dictionary.js';
import { makeSet, type PosSet } from './positions.js';

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

class CorruptIndex extends Error {
  override readonly name = 'CorruptIndex';
}

function fail(what: string): never {
  throw new CorruptIndex(`collection index: ${what}`);
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

/**
 * Check a parsed collection index file (`api/_lib/formats/collection-index.ts`; spec §4.2) and build the
 * in-memory structures (bitsets, maps, joined terms; the gaps and the fragment groups, derived from the
 * fragments). Linear in the file size.
 * @param raw the parsed JSON of `collectionIndexFile(name)`.
 * @param expected the collection the file must describe, when known.
 * @throws Error when the file is not a well-formed `collection-index/2` index (the store turns this into 503),
 *         including terms or fragments out of code-unit order or repeated, and fragments without exactly one gap.
 */
export function loadIndex(raw: unknown, expected?: CollectionName): LoadedCollection {
  if (!isRecord(raw)) fail('not an object');
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

  if (!isRecord(raw.filters)) fail('filters is not an object');
  const filters = new Map<string, Map<string, PosSet>>();
  for (const f of def.filters) {
    const byValue: unknown = raw.filters[f.param];
    if (byValue === undefined) continue;
    if (!isRecord(byValue)) fail(`filters.${f.param} is not an object`);
    const m = new Map<string, PosSet>();
    for (const [value, list] of Object.entries(byValue)) m.set(value, makeSet(positions(list, n, `filters.${f.param}.${value}`), n));
    filters.set(f.param, m);
  }

  if (!isRecord(raw.keys)) fail('keys is not an object');
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
