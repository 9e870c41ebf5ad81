/**
 * The bytes of a collection index file (`collectionIndexFile(name)` = `api/v1/collections/{name}.cidx`,
 * format `collection-index/3`; spec §2.2, §3, §4.2, §8): what the build writes and the collections function
 * opens. The logical content is {@link CollectionIndexData} (`collection-index.ts`); this module lays it out
 * so that a reader never parses what a request does not need (docs/architecture.md, "Scale"):
 *
 * ```
 * offset 0   8 bytes   magic "GDCIDX03"
 * offset 8   uint32 LE byte length H of the header
 * offset 12  H bytes   header, UTF-8 JSON (CollectionIndexHeader; schema schemas/output/collection-index.schema.json)
 * then, each starting at a multiple of 8 bytes from the start of the file, in this order:
 *   postings        Int32 LE   every position list, one after the other: terms', fragments', filters', hidden
 *   termStarts      Int32 LE   terms + 1 indexes into postings: term i holds postings[termStarts[i] .. termStarts[i+1])
 *   fragmentStarts  Int32 LE   fragments + 1 indexes into postings, likewise
 *   terms           UTF-8      the sorted terms joined by a line feed
 *   fragments       UTF-8      the sorted fragments joined by a line feed
 *   searchStarts    Int32 LE   n + 1 UTF-16 offsets into the decoded search section: item p's search text
 *   search          UTF-8      every item's search text, one after the other
 *   keyStarts       Int32 LE   keys + 1 byte offsets into the keys section
 *   keyPositions    Int32 LE   keys positions, same order
 *   keys            UTF-8      the folded lookup keys, sorted by their UTF-8 bytes, one after the other
 *   itemStarts      Float64 LE n + 1 byte offsets into the items section: item p is the bytes
 *                              itemStarts[p] .. itemStarts[p+1] - 1 (the byte before the next start is the
 *                              `,` or `]` that follows it)
 *   items           UTF-8      `[` + the items as JSON.stringify(item), joined by `,` + `]`: the collection in
 *                              catalog order as one JSON array, so consecutive items are one read
 * ```
 * The items section is last, so everything a reader keeps in memory is one read of the bytes before it;
 * items are read per request by position. Strings that hold a lone UTF-16 surrogate are stored with U+FFFD in
 * its place (UTF-8 cannot hold it; the same code unit count, so offsets stay right).
 *
 * Written by `encodeCollectionIndex` (the build, `build/derive/collections.ts`). Read by
 * `api/_lib/collections/load.ts`, which checks the header and every section's bounds.
 */
import type { CollectionIndexData, CollectionName } from './collection-index.js';

/** The first 8 bytes of every collection index file. */
export const INDEX_MAGIC = 'GDCIDX03';

/** Version tag in the header; a reader rejects any other (the function then answers 503). */
export const INDEX_FORMAT = 'collection-index/3';

/** The sections, in file order (module docstring). */
export const SECTION_NAMES = Object.freeze([
  'postings',
  'termStarts',
  'fragmentStarts',
  'terms',
  'fragments',
  'searchStarts',
  'search',
  'keyStarts',
  'keyPositions',
  'keys',
  'itemStarts',
  'items',
] as const);

/** One section name. */
export type SectionName = (typeof SECTION_NAMES)[number];

/** `[first, end)`: a run of the postings section, in Int32 units. */
export type PostingRange = readonly [number, number];

/** The JSON header of a collection index file (module docstring). */
export interface CollectionIndexHeader {
  readonly format: typeof INDEX_FORMAT;
  readonly collection: CollectionName;
  /** Source dataset name (the response's `collection`). */
  readonly dataset: string;
  /** Number of items. */
  readonly n: number;
  /** Number of terms, fragments and lookup keys. */
  readonly terms: number;
  readonly fragments: number;
  readonly keys: number;
  /** Query parameter → folded value (tier: decimal digits) → the run of postings of the items holding it. */
  readonly filters: Readonly<Record<string, Readonly<Record<string, PostingRange>>>>;
  /** The run of postings of the hidden items (artifacts with `discovery.hiddenUntilFound: true`). */
  readonly hidden: PostingRange;
  /** Section → `[byte offset from the start of the file, byte length]`. */
  readonly sections: Readonly<Record<SectionName, readonly [number, number]>>;
}

/** Byte length of the fixed prefix: magic and header length. */
export const PREFIX_BYTES = 12;

/**
 * The parsed JSON header of the file whose first bytes are `bytes` (at least the prefix and the header).
 * @returns the header as parsed: unchecked beyond being JSON (readers check it; `load.ts`).
 * @throws Error when the bytes do not start with {@link INDEX_MAGIC}, the header runs past them, or it is not JSON.
 */
export function headerOf(bytes: Uint8Array): unknown {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (buf.length < PREFIX_BYTES || buf.toString('latin1', 0, 8) !== INDEX_MAGIC)
    throw new Error(`collection index: does not start with ${INDEX_MAGIC}`);
  const end = PREFIX_BYTES + buf.readUInt32LE(8);
  if (end > buf.length) throw new Error('collection index: the header runs past the end of the file');
  try {
    return JSON.parse(buf.toString('utf8', PREFIX_BYTES, end)) as unknown;
  } catch (cause) {
    throw new Error('collection index: the header is not JSON', { cause });
  }
}

const align8 = (x: number): number => (x + 7) & ~7;

function int32s(values: ArrayLike<number>): Buffer {
  const a = Int32Array.from(values);
  return Buffer.from(a.buffer, a.byteOffset, a.byteLength);
}

/**
 * Lay out `data` as a `collection-index/3` file (module docstring). Deterministic: the same data gives the
 * same bytes. Does not check `data` (the build made it; tests feed it malformed data on purpose).
 * @returns the file's bytes.
 */
export function encodeCollectionIndex(data: CollectionIndexData): Buffer {
  const n = data.items.length;
  const postings: number[] = [];
  const run = (list: readonly number[]): PostingRange => {
    const first = postings.length;
    for (const p of list) postings.push(p);
    return [first, postings.length];
  };
  const starts = (lists: readonly (readonly number[])[]): number[] => {
    const out = [postings.length];
    for (const l of lists) out.push(run(l)[1]);
    return out;
  };
  const termStarts = starts(data.postings);
  const fragmentStarts = starts(data.fragmentPostings);
  const filters: Record<string, Record<string, PostingRange>> = {};
  for (const [param, byValue] of Object.entries(data.filters)) {
    const out: Record<string, PostingRange> = {};
    for (const [value, list] of Object.entries(byValue)) out[value] = run(list);
    filters[param] = out;
  }
  const hidden = run(data.hidden);

  const searchStarts = [0];
  for (const s of data.search) searchStarts.push(searchStarts[searchStarts.length - 1]! + s.length);

  const keyEntries = Object.entries(data.keys).map(([k, p]) => ({ bytes: Buffer.from(k, 'utf8'), p }));
  keyEntries.sort((a, b) => Buffer.compare(a.bytes, b.bytes));
  const keyStarts = [0];
  for (const k of keyEntries) keyStarts.push(keyStarts[keyStarts.length - 1]! + k.bytes.length);

  // item by item: at 1,000,000 items the joined text would pass V8's longest string
  const itemStarts = new Float64Array(n + 1);
  let at = 1;
  for (let p = 0; p < n; p++) {
    itemStarts[p] = at;
    at += Buffer.byteLength(data.items[p]!, 'utf8') + 1;
  }
  itemStarts[n] = n === 0 ? 1 : at;
  const itemBytes = Buffer.allocUnsafe(n === 0 ? 2 : at);
  itemBytes[0] = 0x5b; // [
  for (let p = 0; p < n; p++) {
    const end = itemStarts[p]! + itemBytes.write(data.items[p]!, itemStarts[p]!, 'utf8');
    itemBytes[end] = p === n - 1 ? 0x5d : 0x2c; // ] after the last item, else ,
  }
  if (n === 0) itemBytes[1] = 0x5d;

  const bodies: Record<SectionName, Buffer> = {
    postings: int32s(postings),
    termStarts: int32s(termStarts),
    fragmentStarts: int32s(fragmentStarts),
    terms: Buffer.from(data.terms.join('\n'), 'utf8'),
    fragments: Buffer.from(data.fragments.join('\n'), 'utf8'),
    searchStarts: int32s(searchStarts),
    search: Buffer.from(data.search.join(''), 'utf8'),
    keyStarts: int32s(keyStarts),
    keyPositions: int32s(keyEntries.map((k) => k.p)),
    keys: Buffer.concat(keyEntries.map((k) => k.bytes)),
    itemStarts: Buffer.from(itemStarts.buffer),
    items: itemBytes,
  };

  // The header's length decides where the sections start, and the header names their offsets: lay the
  // sections out after a header of the previous guess's length until the length stops growing.
  const base = {
    format: INDEX_FORMAT as typeof INDEX_FORMAT,
    collection: data.collection,
    dataset: data.dataset,
    n,
    terms: data.terms.length,
    fragments: data.fragments.length,
    keys: keyEntries.length,
    filters,
    hidden,
  };
  let headerBytes = 0;
  for (;;) {
    let offset = align8(PREFIX_BYTES + headerBytes);
    const sections = {} as Record<SectionName, readonly [number, number]>;
    for (const name of SECTION_NAMES) {
      sections[name] = [offset, bodies[name].length];
      offset = align8(offset + bodies[name].length);
    }
    const header: CollectionIndexHeader = { ...base, sections };
    const json = Buffer.from(JSON.stringify(header), 'utf8');
    if (json.length > headerBytes) {
      headerBytes = json.length;
      continue;
    }
    const file = Buffer.alloc(sections.items[0] + sections.items[1]);
    file.write(INDEX_MAGIC, 0, 'latin1');
    file.writeUInt32LE(json.length, 8);
    json.copy(file, PREFIX_BYTES);
    for (const name of SECTION_NAMES) bodies[name].copy(file, sections[name][0]);
    return file;
  }
}
