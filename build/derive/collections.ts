/**
 * Derive stage of the four item collections (spec 2.2, 3, 4.2): from `master-{relics,enchants,infusions,artifacts}.json`
 * it emits, per collection,
 * - the collection index `collectionIndexFile(name)` (`api/v1/collections/{name}.cidx`, format
 *   `collection-index/3`: a JSON header, schema `schemas/output/collection-index.schema.json`, and binary sections,
 *   `api/_lib/formats/collection-file.ts`) that `/v1/{name}` reads: items pre-serialised in catalog order, folded search text, term → positions,
 *   fragment around non-term characters (`of frost`) → positions, filter value → positions, folded lookup key → position, hidden artifact positions;
 * - one static file per lookup key for CDN consumers, `collectionItemFile(name, key)`
 *   (`api/v1/{name}/{key}.json`), whose bytes are `JSON.stringify(item)`: exactly the body of
 *   `GET /v1/{name}/{key}`. The file name uses the key as the record spells it (id, uuid) or the name slug;
 *   static paths are case-sensitive, the function compares keys folded (case and accents). Item files are
 *   written while they fit the catalog config's `itemFileBudget` (see {@link deriveCollections}); the
 *   collections function answers `api/v1/{name}/{key}.json` too (a rewrite after the filesystem), so a
 *   path without a file still gets the same bytes.
 *
 * Lookup keys (spec 4.2): relics and enchants by uuid, id or name slug; infusions by uuid or id;
 * artifacts by uuid or name slug. Slug rule: `slugify` in `api/_lib/formats/collection-index.ts` (the record's own
 * `slug` when present, else derived from `name`). Hidden artifacts keep their lookup keys and files: spec 3
 * hides them from list results only.
 *
 * Problems reported (rule table {@link collectionRules}): a dataset without its item array (`collections/shape`,
 * the collection is then not emitted and its function answers 503), an item that is not an object
 * (`collections/shape`, left out), two items claiming one folded key (`collections/duplicate-key`; the key
 * stays with the first claimant, by key kind uuid → id → slug and then catalog order), items without any
 * lookup key (`collections/missing-key`), filter fields holding values no filter can select
 * (`collections/filter-value`), a collection whose item files do not fit the budget
 * (`collections/item-files-over-budget`). A missing dataset file emits nothing and reports nothing (collect owns that).
 *
 * Output is deterministic: sorted terms, fragments and keys, sorted object keys, bytes written as-is (`raw: true`).
 */
import { collectionIndexFile, collectionItemFile } from '../../api/_lib/formats/layout.js';
import { escapePointer as seg, isRecord, sortKeys } from '../../api/_lib/util/json.js';
import { byCodeUnits, compareCodeUnits } from '../../api/_lib/util/sorted.js';
import {
  COLLECTION_DEFS,
  COLLECTION_NAMES,
  foldKey,
  foldText,
  slugify,
  termSpans,
  type CollectionDef,
  type CollectionIndexData,
  type CollectionName,
  type FilterDef,
  type KeyKind,
} from '../../api/_lib/formats/collection-index.js';
import { encodeCollectionIndex } from '../../api/_lib/formats/collection-file.js';
import type { DeriveContext, Deriver, Emitted, RuleDef } from '../pipeline/types.js';

/** Rules of this stage with their default severities. */
export const collectionRules: RuleDef[] = [
  {
    name: 'collections/shape',
    severity: 'error',
    description:
      'A collection dataset is an object whose item array (relics, enchants, infusions, artifacts) holds objects (spec 2.2, 4.2).',
  },
  {
    name: 'collections/duplicate-key',
    severity: 'error',
    description:
      'No two items of a collection share a lookup key (id, uuid or name slug, compared without case and accents), so every lookup and static item file names one item (spec 4.2).',
  },
  {
    name: 'collections/missing-key',
    severity: 'warn',
    description: 'Every collection item has at least one lookup key of its collection (spec 4.2), else no single lookup can reach it.',
  },
  {
    name: 'collections/item-files-over-budget',
    severity: 'warn',
    description:
      'The static item files of every collection fit the item file budget (itemFileBudget in catalog.config.json); a collection that does not gets none, and its item paths are answered by the collections function with the same bytes.',
  },
  {
    name: 'collections/filter-value',
    severity: 'warn',
    description:
      'Filter fields hold values their filter can select: tier an integer 1-8, enumerated fields one of the spec 4.2 values, words as strings (spec 4.2, 8).',
  },
];

/** A problem found while indexing one dataset: rule, JSON pointer into the dataset file, message. */
export interface CollectionProblem {
  readonly rule: string;
  readonly pointer: string;
  readonly message: string;
}

/** What {@link indexCollection} produces for one collection. */
export interface IndexedCollection {
  /** The index's content. */
  readonly index: CollectionIndexData;
  /** The index file as emitted (`encodeCollectionIndex`, deterministic). */
  readonly file: Buffer;
  /** Static item files, one per claimed lookup key, sorted by path. */
  readonly itemFiles: readonly Emitted[];
}

/** Folded values a record holds for `filter` ([] when missing or null). Several values: arrays and `a|b` strings. */
function filterValues(filter: FilterDef, raw: unknown, pointer: string, problems: CollectionProblem[]): string[] {
  if (raw === undefined || raw === null) return [];
  if (filter.kind === 'tier') {
    if (typeof raw === 'number' && Number.isInteger(raw) && raw >= 1 && raw <= 8) return [String(raw)];
    problems.push({
      rule: 'collections/filter-value',
      pointer,
      message: `"${filter.field}" is ${JSON.stringify(raw)}; the tier filter selects integers 1 to 8 only, so no tier query finds this item. Write an integer 1-8 or null.`,
    });
    return [];
  }
  const parts: string[] = [];
  const take = (v: unknown): boolean => {
    if (typeof v === 'string') {
      for (const p of v.split('|')) {
        const f = foldKey(p);
        if (f !== '') parts.push(f);
      }
      return true;
    }
    if (typeof v === 'number' && Number.isFinite(v)) {
      parts.push(String(v));
      return true;
    }
    return false;
  };
  let ok = true;
  // every element is read, so that the words after one that is not a word stay selectable
  if (Array.isArray(raw)) for (const v of raw) ok = (v === null || take(v)) && ok;
  else ok = take(raw);
  if (!ok) {
    problems.push({
      rule: 'collections/filter-value',
      pointer,
      message: `"${filter.field}" holds ${JSON.stringify(raw)}; the ${filter.param} filter reads words (a string, "a|b" or an array of strings), so parts of it cannot be selected.`,
    });
  }
  const distinct = [...new Set(parts)];
  if (filter.kind === 'enum') {
    const allowed = new Set(filter.values.map(foldKey));
    const outside = distinct.filter((v) => !allowed.has(v));
    if (outside.length > 0) {
      problems.push({
        rule: 'collections/filter-value',
        pointer,
        message: `"${filter.field}" holds ${outside.map((v) => JSON.stringify(v)).join(', ')}, outside the ${filter.param} values ${filter.values.join(', ')} (spec 4.2); no ${filter.param} query selects ${outside.length > 1 ? 'them' : 'it'}.`,
      });
      return distinct.filter((v) => allowed.has(v));
    }
  }
  return distinct;
}

/** The lookup keys a record offers, in `keyKinds` order, as spelled in the record, with the field each comes from. */
function keysOf(def: CollectionDef, item: Record<string, unknown>): { kind: KeyKind; field: string; spelled: string }[] {
  const out: { kind: KeyKind; field: string; spelled: string }[] = [];
  for (const kind of def.keyKinds) {
    if (kind === 'slug') {
      const own = item.slug;
      if (typeof own === 'string' && own.trim() !== '') out.push({ kind, field: 'slug', spelled: own.trim() });
      else if (typeof item.name === 'string') {
        const s = slugify(item.name);
        if (s !== '') out.push({ kind, field: 'name', spelled: s });
      }
    } else {
      const v = item[kind];
      if (typeof v === 'string' && v.trim() !== '') out.push({ kind, field: kind, spelled: v.trim() });
    }
  }
  return out;
}

/**
 * Index one collection's dataset (pure). `data` is the parsed `master-{name}.json`.
 * @returns the index and the static item files, or `undefined` when `data` has no item array
 *          (then one `collections/shape` problem at pointer `''` is added to `problems`).
 */
export function indexCollection(name: CollectionName, data: unknown, problems: CollectionProblem[] = []): IndexedCollection | undefined {
  const def = COLLECTION_DEFS[name];
  const array = isRecord(data) ? data[def.arrayKey] : undefined;
  if (!Array.isArray(array)) {
    problems.push({
      rule: 'collections/shape',
      pointer: '',
      message: `${def.dataset}.json has no "${def.arrayKey}" array of items, so /v1/${name} has no data and answers 503. Put the items in a top-level "${def.arrayKey}" array.`,
    });
    return undefined;
  }

  const items: string[] = [];
  const search: string[] = [];
  const termPositions = new Map<string, number[]>();
  const fragmentPositions = new Map<string, number[]>();
  const add = (map: Map<string, number[]>, key: string, pos: number): void => {
    const list = map.get(key);
    if (!list) map.set(key, [pos]);
    else if (list[list.length - 1] !== pos) list.push(pos);
  };
  const filterPositions = new Map<string, Map<string, number[]>>(def.filters.map((f) => [f.param, new Map()]));
  const hidden: number[] = [];
  const keyed: { pos: number; source: number; item: Record<string, unknown>; keys: ReturnType<typeof keysOf> }[] = [];

  array.forEach((item: unknown, source) => {
    const base = `/${seg(def.arrayKey)}/${source}`;
    if (!isRecord(item)) {
      problems.push({
        rule: 'collections/shape',
        pointer: base,
        message: `Item ${source} of "${def.arrayKey}" is ${item === null ? 'null' : Array.isArray(item) ? 'an array' : typeof item}, not an object; it is left out of /v1/${name}.`,
      });
      return;
    }
    const pos = items.length;
    items.push(JSON.stringify(item));

    const texts: string[] = [];
    for (const field of def.searchFields) {
      const v = item[field];
      if (typeof v === 'string') {
        const t = foldText(v);
        if (t !== '') texts.push(t);
      }
    }
    const text = texts.join('\n');
    search.push(text);
    for (const field of texts) {
      const spans = termSpans(field);
      if (spans.length === 0) {
        add(fragmentPositions, field, pos);
        continue;
      }
      const first = spans[0]!;
      const last = spans[spans.length - 1]!;
      if (first.start > 0) add(fragmentPositions, field.slice(0, first.end), pos);
      for (let i = 0; i < spans.length; i++) {
        const a = spans[i]!;
        add(termPositions, a.term, pos);
        const b = spans[i + 1];
        if (b) add(fragmentPositions, field.slice(a.start, b.end), pos);
      }
      if (last.end < field.length) add(fragmentPositions, field.slice(last.start), pos);
    }

    for (const f of def.filters) {
      const byValue = filterPositions.get(f.param)!;
      for (const v of filterValues(f, item[f.field], `${base}/${seg(f.field)}`, problems)) {
        let list = byValue.get(v);
        if (!list) byValue.set(v, (list = []));
        list.push(pos);
      }
    }

    if (def.hideUndiscovered) {
      const d = item.discovery;
      if (isRecord(d) && d.hiddenUntilFound === true) hidden.push(pos);
    }

    const keys = keysOf(def, item);
    if (keys.length === 0) {
      problems.push({
        rule: 'collections/missing-key',
        pointer: base,
        message: `This item has no lookup key (${def.keyKinds.map((k) => (k === 'slug' ? 'name' : k)).join(', ')}), so /v1/${name}/{key} cannot reach it. Give it ${def.keyKinds.includes('uuid') ? 'a uuid' : 'an id'}.`,
      });
    }
    keyed.push({ pos, source, item, keys });
  });

  // Claim keys by kind, then catalog order: an exact uuid or id beats another item's slug.
  const claims = new Map<string, { pos: number; source: number; spelled: string; kind: KeyKind }>();
  for (const kind of def.keyKinds) {
    for (const k of keyed) {
      for (const key of k.keys) {
        if (key.kind !== kind) continue;
        const folded = foldKey(key.spelled);
        const prior = claims.get(folded);
        if (!prior) claims.set(folded, { pos: k.pos, source: k.source, spelled: key.spelled, kind });
        else if (prior.pos !== k.pos) {
          problems.push({
            rule: 'collections/duplicate-key',
            pointer: `/${seg(def.arrayKey)}/${k.source}/${seg(key.field)}`,
            message: `Lookup key "${key.spelled}" (${kind}${key.field === 'name' ? ' from the name' : ''}) of item ${k.source} is already the ${prior.kind} of item ${prior.source} (/${def.arrayKey}/${prior.source}); /v1/${name}/${key.spelled} and its static file keep item ${prior.source}. Make the ${key.field} unique.`,
          });
        }
      }
    }
  }

  const terms = [...termPositions.keys()].sort(compareCodeUnits);
  const fragments = [...fragmentPositions.keys()].sort(compareCodeUnits);
  const index: CollectionIndexData = {
    collection: name,
    dataset: def.dataset,
    items,
    search,
    terms,
    postings: terms.map((t) => termPositions.get(t)!),
    fragments,
    fragmentPostings: fragments.map((t) => fragmentPositions.get(t)!),
    filters: sortKeys(Object.fromEntries([...filterPositions].map(([param, byValue]) => [param, sortKeys(Object.fromEntries(byValue))]))),
    keys: sortKeys(Object.fromEntries([...claims].map(([folded, c]) => [folded, c.pos]))),
    hidden,
  };
  const itemFiles: Emitted[] = [...claims.values()]
    .map((c) => ({ path: collectionItemFile(name, c.spelled), body: items[c.pos]!, raw: true }))
    .sort(byCodeUnits((f) => f.path));
  return { index, file: encodeCollectionIndex(index), itemFiles };
}

/**
 * The derive stage (see module docstring): for each collection whose dataset file parsed, its index file,
 * and its static item files while they fit the configuration's `itemFileBudget` (summed over the
 * collections, smallest first, ties in collection order; a collection that does not fit emits none and is
 * reported under `collections/item-files-over-budget`, its item paths answered by the collections
 * function with the same bytes). Problems go to `ctx.report` with the dataset's file name.
 */
export const deriveCollections: Deriver = (ctx: DeriveContext) => {
  const out: Emitted[] = [];
  const indexed: { name: CollectionName; file: string; files: readonly Emitted[] }[] = [];
  for (const name of COLLECTION_NAMES) {
    const file = `${COLLECTION_DEFS[name].dataset}.json`;
    const doc = ctx.docs.get(file);
    if (!doc || doc.data === undefined) continue;
    const problems: CollectionProblem[] = [];
    const built = indexCollection(name, doc.data, problems);
    for (const p of problems) ctx.report({ rule: p.rule, file, pointer: p.pointer, message: p.message });
    if (!built) continue;
    out.push({ path: collectionIndexFile(name), body: built.file, raw: true });
    indexed.push({ name, file, files: built.itemFiles });
  }
  let left = ctx.config.itemFileBudget;
  for (const c of [...indexed].sort((a, b) => a.files.length - b.files.length)) {
    if (c.files.length <= left) {
      left -= c.files.length;
      for (const f of c.files) out.push(f); // a loop: spreading 100,000s of files overflows the call stack
      continue;
    }
    ctx.report({
      rule: 'collections/item-files-over-budget',
      file: c.file,
      pointer: '',
      message: `${c.files.length} static item files of /api/v1/${c.name}/{key}.json do not fit the item file budget (${left} of itemFileBudget ${ctx.config.itemFileBudget} left), so none are written; the collections function answers those paths with the same bytes. Raise itemFileBudget in catalog.config.json to publish them as files.`,
    });
  }
  return out;
};
