/**
 * The search index file (`SEARCH_INDEX_FILE` = `api/v1/search-index.json`, schema
 * `schemas/output/search-index.schema.json`; spec §2.5, §4.4 `GET /api/search`): its shape, how the build
 * makes it ({@link buildSearchIndex}) and how a reader checks it ({@link validateSearchIndex}).
 *
 * Written by: the derive stage (`deriveSearchIndex` in `build/derive/core.ts`, from the typed records of every
 * search type). Read by: `api/catalog.ts` through `loadSearchIndex` (`api/_lib/search/index.ts`), once per process.
 *
 * Format, version 1 (one JSON object, keys in this order):
 * - `format`  `"game-data-search-index"`; `version` `1`.
 * - `types`   the search types, in order; a record's type is stored as an index into this list.
 * - `terms`   the term dictionary: every distinct normalised term (see `api/_lib/search/text.ts`) of every
 *             record name, sorted by UTF-16 code units, without duplicates (binary search, prefix ranges).
 * - `docs`    the records as two parallel columns `type` (indexes into `types`) and `name`, in
 *             **rank order**: the position of a record is its tie-break rank (see {@link compareRank}),
 *             so any list of positions sorted ascending is already in result order.
 * - `tokens`  the forward index, one entry per record in `docs` order: the number of terms of the
 *             name, then each term's index in `terms`, in name order (repeats kept, positions matter
 *             for whole-name matches). The reader derives the inverted postings from it.
 * - `ids`     the record ids, front-coded in id-key order (`textKey(id)`, then position) so that
 *             neighbours share their long common prefixes: `order[i]` is the record position of the
 *             i-th id, which is `previous id`.slice(0, `shared[i]`) + `suffix[i]`. The order also
 *             serves binary search of exact id matches.
 * Every index is a 0-based integer; lengths are UTF-16 code units.
 *
 * The build is pure and deterministic: the same records, in any order, give the same JSON text.
 */
import { textKey, tokenize } from '../text/terms.js';
import { isRecord } from '../util/json.js';
import { compareCodeUnits } from '../util/sorted.js';

/** The search types of `/api/search` besides `all`, in spec order (§4.4). */
export const SEARCH_TYPES = ['weapons', 'armor', 'materials', 'consumables', 'enemies', 'bosses', 'skills', 'sprites'] as const;
/** One search type. */
export type SearchType = (typeof SEARCH_TYPES)[number];

/** One searchable record (spec 2.5 result item). */
export interface SearchRecord {
  readonly type: SearchType;
  readonly id: string;
  readonly name: string;
}

/** Marker of the file format. */
const SEARCH_INDEX_FORMAT = 'game-data-search-index';
/** Current format version. */
const SEARCH_INDEX_VERSION = 1;

/** The JSON shape of the search index file (format version 1; see the module docs). */
export interface SearchIndexFile {
  readonly format: typeof SEARCH_INDEX_FORMAT;
  readonly version: typeof SEARCH_INDEX_VERSION;
  readonly types: readonly SearchType[];
  readonly terms: readonly string[];
  readonly docs: { readonly type: readonly number[]; readonly name: readonly string[] };
  readonly tokens: readonly number[];
  readonly ids: { readonly order: readonly number[]; readonly shared: readonly number[]; readonly suffix: readonly string[] };
}

interface Prepared {
  readonly rec: SearchRecord;
  readonly typeIndex: number;
  readonly terms: string[];
  readonly key: string;
  readonly idKey: string;
}

/**
 * Tie-break order of records with the same match tier (documented ranking, spec 4.4): shorter
 * normalised name first, then normalised name, then the name as written, then id, then type (all by
 * UTF-16 code units, so the order does not depend on a locale).
 */
function compareRank(a: Prepared, b: Prepared): number {
  return (
    a.key.length - b.key.length ||
    compareCodeUnits(a.key, b.key) ||
    compareCodeUnits(a.rec.name, b.rec.name) ||
    compareCodeUnits(a.rec.id, b.rec.id) ||
    a.typeIndex - b.typeIndex
  );
}

/**
 * Build the search index file from records (pure; spec 4.4). Records with the same id are kept
 * as separate entries. A name without letters or digits is findable by its id only.
 * @returns a JSON-serialisable value; `JSON.stringify` of it is identical for identical input sets.
 * @throws Error when a record has a type outside the search types or a non-string id or name.
 */
export function buildSearchIndex(records: readonly SearchRecord[]): SearchIndexFile {
  const typeIndexOf = new Map<string, number>(SEARCH_TYPES.map((t, i) => [t, i]));
  const prepared: Prepared[] = records.map((rec, i) => {
    const typeIndex = typeIndexOf.get(rec.type);
    if (typeIndex === undefined)
      throw new Error(`Search record ${i} has type "${String(rec.type)}", which is not a search type (${SEARCH_TYPES.join(', ')}).`);
    if (typeof rec.id !== 'string' || typeof rec.name !== 'string')
      throw new Error(`Search record ${i} needs a string id and a string name.`);
    const terms = tokenize(rec.name);
    return { rec, typeIndex, terms, key: terms.join(' '), idKey: textKey(rec.id) };
  });
  prepared.sort(compareRank);

  const dictionary = [...new Set(prepared.flatMap((p) => p.terms))].sort(compareCodeUnits);
  const termIndex = new Map(dictionary.map((t, i) => [t, i]));

  const tokens: number[] = [];
  for (const p of prepared) {
    tokens.push(p.terms.length);
    for (const t of p.terms) tokens.push(termIndex.get(t) as number);
  }
  const idOrder = prepared
    .map((_, i) => i)
    .sort((a, b) => compareCodeUnits((prepared[a] as Prepared).idKey, (prepared[b] as Prepared).idKey) || a - b);
  const shared: number[] = [];
  const suffix: string[] = [];
  let prev = '';
  for (const i of idOrder) {
    const id = (prepared[i] as Prepared).rec.id;
    let k = 0;
    const max = Math.min(prev.length, id.length);
    while (k < max && prev.charCodeAt(k) === id.charCodeAt(k)) k++;
    // never split a surrogate pair
    if (k > 0 && k < id.length && (id.charCodeAt(k - 1) & 0xfc00) === 0xd800) k--;
    shared.push(k);
    suffix.push(id.slice(k));
    prev = id;
  }

  return {
    format: SEARCH_INDEX_FORMAT,
    version: SEARCH_INDEX_VERSION,
    types: [...SEARCH_TYPES],
    terms: dictionary,
    docs: {
      type: prepared.map((p) => p.typeIndex),
      name: prepared.map((p) => p.rec.name),
    },
    tokens,
    ids: { order: idOrder, shared, suffix },
  };
}

/** Validated, typed view of a raw search index file. */
export interface ValidIndex {
  readonly types: readonly SearchType[];
  readonly terms: readonly string[];
  readonly docType: readonly number[];
  readonly docId: readonly string[];
  readonly docName: readonly string[];
  readonly tokens: readonly number[];
  readonly idOrder: readonly number[];
}

function fail(reason: string): never {
  throw new Error(`The search index file is invalid (${reason}); rebuild the catalog.`);
}

function isIntIn(v: unknown, lo: number, hi: number): v is number {
  return typeof v === 'number' && Number.isInteger(v) && v >= lo && v < hi;
}

/**
 * Check a parsed search index file (format marker, version, every column and index in range, the
 * dictionary strictly sorted, `ids.order` a permutation) and decodes the ids. Linear in the file size.
 * @throws Error naming the first problem found when the value is not a version-1 search index.
 */
export function validateSearchIndex(raw: unknown): ValidIndex {
  if (!isRecord(raw)) fail('not a JSON object');
  const o = raw;
  if (o.format !== SEARCH_INDEX_FORMAT) fail(`format is not "${SEARCH_INDEX_FORMAT}"`);
  if (o.version !== SEARCH_INDEX_VERSION) fail(`version ${JSON.stringify(o.version)} is not ${SEARCH_INDEX_VERSION}`);
  const { types, terms, docs, tokens, ids } = o;
  if (!Array.isArray(types) || types.length === 0 || types.length > 255) fail('types is not a list of 1 to 255 search types');
  const known = new Set<string>(SEARCH_TYPES);
  for (const t of types) if (typeof t !== 'string' || !known.has(t)) fail(`types has ${JSON.stringify(t)}, not a search type`);
  if (new Set(types).size !== types.length) fail('types has duplicates');
  if (!Array.isArray(terms)) fail('terms is not a list');
  for (let i = 0; i < terms.length; i++) {
    const t: unknown = terms[i];
    if (typeof t !== 'string' || t === '') fail(`terms[${i}] is not a non-empty string`);
    if (i > 0 && !((terms[i - 1] as string) < t)) fail(`terms[${i}] is not after terms[${i - 1}]`);
  }
  if (typeof docs !== 'object' || docs === null) fail('docs is not an object');
  const { type: docType, name: docName } = docs as Record<string, unknown>;
  if (!Array.isArray(docType) || !Array.isArray(docName)) fail('docs.type or docs.name is not a list');
  const n = docType.length;
  if (docName.length !== n) fail('docs columns differ in length');
  for (let i = 0; i < n; i++) {
    if (!isIntIn(docType[i], 0, types.length)) fail(`docs.type[${i}] is out of range`);
    if (typeof docName[i] !== 'string') fail(`docs.name[${i}] is not a string`);
  }
  if (!Array.isArray(tokens)) fail('tokens is not a list');
  let p = 0;
  for (let d = 0; d < n; d++) {
    const count: unknown = tokens[p];
    if (!isIntIn(count, 0, tokens.length - p)) fail(`tokens has a bad term count for record ${d}`);
    p++;
    for (const end = p + count; p < end; p++) if (!isIntIn(tokens[p], 0, terms.length)) fail(`tokens[${p}] is not a term index`);
  }
  if (p !== tokens.length) fail('tokens is longer than its records');
  if (typeof ids !== 'object' || ids === null) fail('ids is not an object');
  const { order: idOrder, shared, suffix } = ids as Record<string, unknown>;
  if (
    !Array.isArray(idOrder) ||
    !Array.isArray(shared) ||
    !Array.isArray(suffix) ||
    idOrder.length !== n ||
    shared.length !== n ||
    suffix.length !== n
  ) {
    fail('ids.order, ids.shared or ids.suffix is not a list of every record');
  }
  const seen = new Uint8Array(n);
  const docId = new Array<string>(n);
  let prev = '';
  for (let i = 0; i < n; i++) {
    const doc: unknown = idOrder[i];
    if (!isIntIn(doc, 0, n) || seen[doc] === 1) fail('ids.order is not a permutation of the records');
    seen[doc] = 1;
    const k: unknown = shared[i];
    const rest: unknown = suffix[i];
    if (!isIntIn(k, 0, prev.length + 1) || typeof rest !== 'string') fail(`ids.shared[${i}] or ids.suffix[${i}] is out of range`);
    prev = k === 0 ? rest : prev.slice(0, k) + rest;
    docId[doc] = prev;
  }
  return {
    types: types as SearchType[],
    terms: terms as string[],
    docType: docType as number[],
    docId,
    docName: docName as string[],
    tokens: tokens as number[],
    idOrder: idOrder as number[],
  };
}
