/**
 * Opening a collection index (`collection-index/3`, `api/_lib/formats/collection-file.ts`; spec §4.2) so that
 * a cold function answers its first request without reading what that request does not need
 * (docs/architecture.md, "Scale"):
 * - at open: the header and every section's bounds are checked, every position list is checked (strictly
 *   increasing, below n), the filter and hidden sets are built, and the bytes before the items section are
 *   kept in memory as one buffer that the typed-array sections view in place (no copy); from a file, the
 *   search text and the lookup keys are read into that buffer only when first needed;
 * - on first use: the term and fragment dictionaries (with their substring indexes, groups and gaps), the
 *   decoded search text, and the order check of the lookup keys; a failed check there answers 503 from
 *   then on;
 * - per request: the items of a page or a lookup, read by position from the items section (from the file by
 *   positioned reads, or from the bytes given); the runs of items read lately are kept, up to
 *   {@link ITEM_CACHE_CHARS}, so a warm function answers a hot page or item from memory.
 *
 * Corrupt files fail at open with a `CorruptIndex` error (the store answers 503) or, for what is checked on
 * first use, with a `ServiceError` `UPSTREAM_UNAVAILABLE` (503) from the query.
 * Sections are little-endian: a big-endian host refuses every index at open.
 */
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { endianness } from 'node:os';
import { ServiceError } from '../errors.js';
import { COLLECTION_DEFS, isCollectionName, isSingleTerm, type CollectionDef, type CollectionName } from '../formats/collection-index.js';
import { headerOf, INDEX_FORMAT, PREFIX_BYTES, SECTION_NAMES, type SectionName } from '../formats/collection-file.js';
import { isRecord } from '../util/json.js';
import { FRAGMENT_RE, gapsOf, groupsOf, makeDictionary, type Dictionary } from './dictionary.js';
import { makeSet, type PosSet } from './positions.js';

/** A collection index ready for queries (see the module docstring for what is read when). */
export interface LoadedCollection {
  readonly name: CollectionName;
  readonly def: CollectionDef;
  /** Source dataset name, the response's `collection`. */
  readonly dataset: string;
  /** Number of items. */
  readonly n: number;
  /** Terms and their postings (built on first use). */
  readonly terms: Dictionary;
  /** Fragments around non-term characters (`of frost`, `ice.`) and their postings (built on first use). */
  readonly fragments: Dictionary;
  /**
   * Gaps: the distinct maximal runs of non-term characters of the search fields (`, `, `-`, `.`), each with
   * the items holding it; derived from the fragments on first use (each fragment holds exactly one gap).
   */
  readonly gaps: Dictionary;
  /** Query parameter → folded value → positions. */
  readonly filters: ReadonlyMap<string, ReadonlyMap<string, PosSet>>;
  /** Positions shown in lists by default (undefined when nothing is hidden). */
  readonly visible: PosSet | undefined;
  /** `{"collection":"<dataset>","total":` */
  readonly bodyPrefix: string;
  /** Folded search text of the item at position `p` (its fields joined by `\n`). */
  searchText(p: number): string;
  /** The item at position `p` as `JSON.stringify(item)`: the bytes of its lookup response. */
  item(p: number): string;
  /** The items at `positions` (ascending), each as {@link item}, joined by `,`. */
  itemsJoined(positions: readonly number[]): string;
  /** Position of the item whose folded lookup key is `folded`, or undefined. */
  keyPosition(folded: string): number | undefined;
  /**
   * Reads of the items section so far: one per run of items not in the item cache (neighbours closer than
   * 16 KiB read together; {@link ITEM_CACHE_CHARS}); for operators and tests.
   */
  readonly reads: number;
}

class CorruptIndex extends Error {
  override readonly name = 'CorruptIndex';
}

function fail(what: string): never {
  throw new CorruptIndex(`collection index: ${what}`);
}

/** {@link headerOf}, its refusals as `CorruptIndex`. */
function parseHeader(bytes: Uint8Array): unknown {
  try {
    return headerOf(bytes);
  } catch (e) {
    throw new CorruptIndex((e as Error).message);
  }
}

const isCount = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;

/**
 * Reads the file's bytes `[start, end)` (inside the items section) and decodes each of `runs` (pairs of
 * file offsets within that span, ascending) as UTF-8.
 */
type ReadRuns = (start: number, end: number, runs: readonly number[]) => string[];

/** Runs of the items section closer than this many bytes are read together. */
const READ_GAP = 16 * 1024;

/**
 * Characters of item text a collection keeps from its reads (8 Mi, about 8 MB of ASCII JSON): a warm
 * function answers a page or an item it answered lately without reading the file again; the least
 * recently used runs go first.
 */
export const ITEM_CACHE_CHARS = 8 * 1024 * 1024;

/**
 * Check the header and sections of `core` (the file's bytes up to the items section, at least) and build
 * the collection (module docstring).
 * @param core bytes starting at the file's first byte; its buffer offset must be a multiple of 8.
 * @param fileBytes size of the whole file.
 * @param readRuns how items are read.
 */
/** Sections `openIndex` leaves unread until first use: the folded search text and the lookup keys. */
const DEFERRED = ['search', 'keys'] as const;
/** One deferred section. */
type Deferred = (typeof DEFERRED)[number];

function decode(
  core: Uint8Array,
  fileBytes: number,
  readRuns: ReadRuns,
  expected: CollectionName | undefined,
  fill: (section: Deferred, offset: number, bytes: number) => void = () => undefined,
): LoadedCollection {
  if (endianness() !== 'LE') fail('this host is big-endian; the sections are little-endian');
  if (core.byteOffset % 8 !== 0) fail('bytes are not 8-byte aligned');
  const buf = Buffer.from(core.buffer, core.byteOffset, core.byteLength);
  const raw = parseHeader(core);
  const headerBytes = buf.readUInt32LE(8);
  if (!isRecord(raw)) fail('the header is not an object');
  if (raw.format !== INDEX_FORMAT) fail(`format is ${JSON.stringify(raw.format)}, expected ${INDEX_FORMAT}`);
  const name = raw.collection;
  if (typeof name !== 'string' || !isCollectionName(name)) fail('unknown collection');
  if (expected !== undefined && name !== expected) fail(`holds ${name}, expected ${expected}`);
  const def = COLLECTION_DEFS[name];
  if (raw.dataset !== def.dataset) fail(`dataset is not ${def.dataset}`);
  const { n, terms: termCount, fragments: fragmentCount, keys: keyCount } = raw;
  if (!isCount(n) || !isCount(termCount) || !isCount(fragmentCount) || !isCount(keyCount))
    fail('n, terms, fragments and keys are not counts');

  // Sections: in file order, aligned, not overlapping, the items last and ending with the file.
  if (!isRecord(raw.sections)) fail('sections is not an object');
  const at = {} as Record<SectionName, readonly [number, number]>;
  let end = PREFIX_BYTES + headerBytes;
  for (const s of SECTION_NAMES) {
    const v: unknown = raw.sections[s];
    if (!Array.isArray(v) || v.length !== 2 || !isCount(v[0]) || !isCount(v[1])) fail(`sections.${s} is not [offset, length]`);
    if (v[0] % 8 !== 0 || v[0] < end) fail(`sections.${s} is misplaced`);
    at[s] = [v[0], v[1]];
    end = v[0] + v[1];
  }
  const itemsAt = at.items[0];
  if (end !== fileBytes) fail(`the items section ends at ${end}, the file at ${fileBytes}`);
  if (buf.length < itemsAt) fail('bytes before the items section are missing');
  const sized: [SectionName, number][] = [
    ['termStarts', (termCount + 1) * 4],
    ['fragmentStarts', (fragmentCount + 1) * 4],
    ['searchStarts', (n + 1) * 4],
    ['keyStarts', (keyCount + 1) * 4],
    ['keyPositions', keyCount * 4],
    ['itemStarts', (n + 1) * 8],
  ];
  for (const [s, bytes] of sized) if (at[s][1] !== bytes) fail(`sections.${s} is ${at[s][1]} bytes, expected ${bytes}`);
  if (at.postings[1] % 4 !== 0) fail('sections.postings is not a whole number of Int32');
  const i32 = (s: SectionName): Int32Array => new Int32Array(core.buffer, core.byteOffset + at[s][0], at[s][1] / 4);
  const utf8 = (s: SectionName): string => buf.toString('utf8', at[s][0], at[s][0] + at[s][1]);
  const postings = i32('postings');
  const P = postings.length;

  /** Check `postings[a .. b)` is a strictly increasing list of positions below n. */
  const checkRun = (a: number, b: number, what: string): void => {
    let prev = -1;
    for (let i = a; i < b; i++) {
      const p = postings[i]!;
      if (p <= prev || p >= n) fail(`${what} is not a strictly increasing list of positions below ${n}`);
      prev = p;
    }
  };
  const checkStarts = (starts: Int32Array, first: number, last: number, what: string): void => {
    if (starts[0] !== first || starts[starts.length - 1] !== last) fail(`${what} do not span their section`);
    for (let i = 1; i < starts.length; i++) if (starts[i]! < starts[i - 1]!) fail(`${what} decrease at ${i}`);
  };
  const range = (v: unknown, what: string): [number, number] => {
    if (!Array.isArray(v) || v.length !== 2 || !isCount(v[0]) || !isCount(v[1]) || v[0] > v[1] || v[1] > P)
      fail(`${what} is not a run of postings`);
    return [v[0], v[1]];
  };

  const termStarts = i32('termStarts');
  const fragmentStarts = i32('fragmentStarts');
  checkStarts(termStarts, 0, termStarts[termCount]!, 'termStarts');
  checkStarts(fragmentStarts, termStarts[termCount]!, fragmentStarts[fragmentCount]!, 'fragmentStarts');
  if (fragmentStarts[fragmentCount]! > P) fail('fragmentStarts run past the postings');
  for (let t = 0; t < termCount; t++) checkRun(termStarts[t]!, termStarts[t + 1]!, `terms postings[${t}]`);
  for (let f = 0; f < fragmentCount; f++) checkRun(fragmentStarts[f]!, fragmentStarts[f + 1]!, `fragments postings[${f}]`);
  const listOf = (a: number, b: number): PosSet => makeSet(postings.subarray(a, b), n);

  if (!isRecord(raw.filters)) fail('filters is not an object');
  const filters = new Map<string, Map<string, PosSet>>();
  for (const f of def.filters) {
    const byValue: unknown = raw.filters[f.param];
    if (byValue === undefined) continue;
    if (!isRecord(byValue)) fail(`filters.${f.param} is not an object`);
    const m = new Map<string, PosSet>();
    for (const [value, v] of Object.entries(byValue)) {
      const [a, b] = range(v, `filters.${f.param}.${value}`);
      checkRun(a, b, `filters.${f.param}.${value}`);
      m.set(value, listOf(a, b));
    }
    filters.set(f.param, m);
  }

  const [ha, hb] = range(raw.hidden, 'hidden');
  checkRun(ha, hb, 'hidden');
  let visible: PosSet | undefined;
  if (hb > ha) {
    const list = new Int32Array(n - (hb - ha));
    let k = 0;
    let h = ha;
    for (let p = 0; p < n; p++) {
      if (h < hb && postings[h] === p) h++;
      else list[k++] = p;
    }
    visible = makeSet(list, n);
  }

  const searchStarts = i32('searchStarts');
  checkStarts(searchStarts, 0, searchStarts[n]!, 'searchStarts');
  const keyStarts = i32('keyStarts');
  const keyPositions = i32('keyPositions');
  checkStarts(keyStarts, 0, at.keys[1], 'keyStarts');
  for (let k = 0; k < keyCount; k++) if (keyPositions[k]! >= n || keyPositions[k]! < 0) fail(`keyPositions[${k}] is not a position`);
  const itemStarts = new Float64Array(core.buffer, core.byteOffset + at.itemStarts[0], n + 1);
  if (itemStarts[0] !== 1 || itemStarts[n] !== (n === 0 ? 1 : at.items[1])) fail('itemStarts do not span the items section');
  for (let p = 1; p <= n; p++) if (!(itemStarts[p]! > itemStarts[p - 1]!)) fail(`itemStarts do not increase at ${p}`);

  // Built on first use; a failed check there is remembered and answers 503 from then on.
  const lazy = <T>(what: string, build: () => T): (() => T) => {
    let done: { value: T } | { error: ServiceError } | undefined;
    return () => {
      if (!done) {
        try {
          done = { value: build() };
        } catch (cause) {
          if (!(cause instanceof CorruptIndex)) throw cause;
          done = {
            error: new ServiceError('UPSTREAM_UNAVAILABLE', `The ${name} collection index is corrupt (${what}); rebuild the catalog.`, {
              cause,
            }),
          };
        }
      }
      if ('error' in done) throw done.error;
      return done.value;
    };
  };
  const dictionary = (s: 'terms' | 'fragments', count: number, starts: Int32Array, valid: (e: string) => boolean): Dictionary => {
    const text = utf8(s);
    const entries = count === 0 && text === '' ? [] : text.split('\n');
    if (entries.length !== count) fail(`${s} holds ${entries.length} entries, the header says ${count}`);
    entries.forEach((e, i) => {
      if (!valid(e)) fail(`${s}[${i}] is malformed`);
      if (i > 0 && !(entries[i - 1]! < e)) fail(`${s} are not sorted and distinct at ${i}`);
    });
    return makeDictionary(
      entries,
      entries.map((_, i) => listOf(starts[i]!, starts[i + 1]!)),
    );
  };
  const terms = lazy('terms', () => dictionary('terms', termCount, termStarts, isSingleTerm));
  const fragments = lazy('fragments', () => {
    const plain = dictionary('fragments', fragmentCount, fragmentStarts, (f) => FRAGMENT_RE.test(f));
    return { ...plain, groups: groupsOf(plain, n) };
  });
  const gaps = lazy('fragments', () => gapsOf(fragments(), n));
  const search = lazy('search', () => {
    fill('search', at.search[0], at.search[1]);
    const text = utf8('search');
    if (text.length !== searchStarts[n]) fail(`the search text is ${text.length} code units, searchStarts end at ${searchStarts[n]}`);
    return text;
  });
  const keysChecked = lazy('keys', () => {
    fill('keys', at.keys[0], at.keys[1]);
    for (let k = 1; k < keyCount; k++) {
      // key k (the source range) against key k - 1 (the target range): it must come after
      if (
        buf.compare(
          buf,
          at.keys[0] + keyStarts[k - 1]!,
          at.keys[0] + keyStarts[k]!,
          at.keys[0] + keyStarts[k]!,
          at.keys[0] + keyStarts[k + 1]!,
        ) <= 0
      ) {
        fail(`keys are not sorted and distinct at ${k}`);
      }
    }
    return true;
  });

  let reads = 0;
  // Recently read runs of items, newest last (a Map keeps insertion order), up to ITEM_CACHE_CHARS.
  const cache = new Map<string, string>();
  let cachedChars = 0;
  const itemsJoined = (positions: readonly number[]): string => {
    if (positions.length === 0) return '';
    // runs of consecutive positions: [start byte, end byte) pairs, and their text once known
    const runs: number[] = [];
    for (let i = 0; i < positions.length;) {
      let j = i;
      while (j + 1 < positions.length && positions[j + 1] === positions[j]! + 1) j++;
      runs.push(itemsAt + itemStarts[positions[i]!]!, itemsAt + itemStarts[positions[j]! + 1]! - 1);
      i = j + 1;
    }
    const texts: string[] = new Array<string>(runs.length >> 1);
    const missing: number[] = [];
    for (let k = 0; k < texts.length; k++) {
      const key = `${runs[2 * k]},${runs[2 * k + 1]}`;
      const hit = cache.get(key);
      if (hit === undefined) missing.push(k);
      else {
        cache.delete(key);
        cache.set(key, hit);
        texts[k] = hit;
      }
    }
    for (let m = 0; m < missing.length;) {
      // runs still to read that lie close together are one read
      let e = m + 1;
      while (e < missing.length && runs[2 * missing[e]!]! - runs[2 * missing[e - 1]! + 1]! < READ_GAP) e++;
      const group = missing.slice(m, e);
      const span: number[] = [];
      for (const k of group) span.push(runs[2 * k]!, runs[2 * k + 1]!);
      const parts = readRuns(span[0]!, span[span.length - 1]!, span);
      reads++;
      group.forEach((k, g) => {
        const text = parts[g]!;
        texts[k] = text;
        if (text.length <= ITEM_CACHE_CHARS) {
          cache.set(`${runs[2 * k]},${runs[2 * k + 1]}`, text);
          cachedChars += text.length;
        }
      });
      m = e;
    }
    for (const [key, text] of cache) {
      if (cachedChars <= ITEM_CACHE_CHARS) break;
      cache.delete(key);
      cachedChars -= text.length;
    }
    return texts.join(',');
  };

  return {
    name,
    def,
    dataset: def.dataset,
    n,
    get terms() {
      return terms();
    },
    get fragments() {
      return fragments();
    },
    get gaps() {
      return gaps();
    },
    filters,
    visible,
    bodyPrefix: `{"collection":${JSON.stringify(def.dataset)},"total":`,
    get reads() {
      return reads;
    },
    searchText: (p) => search().slice(searchStarts[p], searchStarts[p + 1]),
    item: (p) => itemsJoined([p]),
    itemsJoined,
    keyPosition(folded) {
      keysChecked();
      const target = Buffer.from(folded, 'utf8');
      const base = at.keys[0];
      let lo = 0;
      let hi = keyCount - 1;
      while (lo <= hi) {
        const mid = (lo + hi) >>> 1;
        const c = buf.compare(target, 0, target.length, base + keyStarts[mid]!, base + keyStarts[mid + 1]!);
        if (c === 0) return keyPositions[mid];
        if (c < 0) lo = mid + 1;
        else hi = mid - 1;
      }
      return undefined;
    },
  };
}

/**
 * A collection index held in memory (tests, benchmarks): `bytes` is the whole file
 * (`encodeCollectionIndex`). Copies the bytes once when their offset is not 8-byte aligned.
 * @param expected the collection the file must describe, when known.
 * @throws Error (`CorruptIndex`) when the bytes are not a well-formed `collection-index/3` file (module docstring).
 */
export function loadIndex(bytes: Uint8Array, expected?: CollectionName): LoadedCollection {
  const core = bytes.byteOffset % 8 === 0 ? bytes : new Uint8Array(bytes);
  const view = Buffer.from(core.buffer, core.byteOffset, core.byteLength);
  return decode(
    core,
    core.byteLength,
    (_start, _end, runs) => {
      const out: string[] = [];
      for (let i = 0; i < runs.length; i += 2) out.push(view.toString('utf8', runs[i], runs[i + 1]));
      return out;
    },
    expected,
  );
}

/** Closes the file of an opened index once the index is garbage. */
const closer = new FinalizationRegistry<number>((fd) => {
  try {
    closeSync(fd);
  } catch {
    // already closed
  }
});

/** Fill `into` from `fd` at `position`, looping over short reads. @throws Error on a read error or an early end of file */
function readFully(fd: number, into: Uint8Array, position: number): void {
  let done = 0;
  while (done < into.length) {
    const got = readSync(fd, into, done, into.length - done, position + done);
    if (got === 0) throw new CorruptIndex('collection index: the file ends early');
    done += got;
  }
}

/**
 * Open the collection index file at `file`: reads the header and the bytes before the items section but the
 * search text and the lookup keys, which are read on first use, and keeps the file open for those and the
 * item reads (closed when the index is garbage).
 * @param expected the collection the file must describe, when known.
 * @throws Error from the file system (missing, unreadable) or `CorruptIndex` (module docstring); item reads
 *   that fail later throw `ServiceError` `UPSTREAM_UNAVAILABLE`.
 */
export function openIndex(file: string, expected?: CollectionName): LoadedCollection {
  const fd = openSync(file, 'r');
  try {
    const size = fstatSync(fd).size;
    const prefix = Buffer.alloc(Math.min(size, PREFIX_BYTES));
    readFully(fd, prefix, 0);
    // the header's length as the prefix says it (headerOf checks the magic), at most the file
    const front = new Uint8Array(prefix.length < PREFIX_BYTES ? prefix.length : Math.min(size, PREFIX_BYTES + prefix.readUInt32LE(8)));
    readFully(fd, front, 0);
    const header = parseHeader(front);
    const itemsAt: unknown =
      isRecord(header) && isRecord(header.sections) && Array.isArray(header.sections.items) ? header.sections.items[0] : undefined;
    if (!isCount(itemsAt) || itemsAt > size) fail('sections.items is not [offset, length]');
    // Everything before the items, but the deferred sections, which are read into their place on first
    // use (pages of the buffer never written take no memory). A header whose deferred sections do not lie
    // in order inside that span has everything read, and the checks of `decode` refuse it.
    const core = new Uint8Array(new ArrayBuffer(itemsAt));
    const sections = (header as { sections: Record<string, unknown> }).sections;
    const spans = DEFERRED.map((s) => sections[s]);
    let from = 0;
    const deferred = new Set<Deferred>();
    const inOrder = spans.every(
      (v) => Array.isArray(v) && isCount(v[0]) && isCount(v[1]) && v[0] >= PREFIX_BYTES && v[0] + v[1] <= itemsAt,
    );
    if (inOrder && (spans[0] as number[])[0]! + (spans[0] as number[])[1]! <= (spans[1] as number[])[0]!) {
      DEFERRED.forEach((s, i) => {
        const [offset, bytes] = spans[i] as [number, number];
        readFully(fd, core.subarray(from, offset), from);
        from = offset + bytes;
        deferred.add(s);
      });
    }
    readFully(fd, core.subarray(from), from);
    const fill = (section: Deferred, offset: number, bytes: number): void => {
      if (!deferred.delete(section)) return;
      try {
        readFully(fd, core.subarray(offset, offset + bytes), offset);
      } catch (cause) {
        throw new CorruptIndex(`collection index: the ${section} section cannot be read (${(cause as Error).message})`);
      }
    };
    const index = decode(
      core,
      size,
      (start, end, runs) => {
        const chunk = Buffer.allocUnsafe(end - start);
        try {
          readFully(fd, chunk, start);
        } catch (cause) {
          throw new ServiceError('UPSTREAM_UNAVAILABLE', `The ${expected ?? 'collection'} items cannot be read; try again.`, { cause });
        }
        const out: string[] = [];
        for (let i = 0; i < runs.length; i += 2) out.push(chunk.toString('utf8', runs[i]! - start, runs[i + 1]! - start));
        return out;
      },
      expected,
      fill,
    );
    closer.register(index, fd);
    return index;
  } catch (e) {
    closeSync(fd);
    throw e;
  }
}
