/**
 * The content of a collection index (spec §2.2, §3, §4.2, §8) and the per-collection facts both sides need:
 * which filters, search fields and lookup keys each collection has, and the text folding of search text,
 * query text, filter values and lookup keys. Pure: no I/O.
 *
 * Computed by: `build/derive/collections.ts` (`indexCollection`, one index per collection plus one static item
 * file per lookup key, `collectionItemFile`), and laid out as bytes by `collection-file.ts` (format
 * `collection-index/3`, `collectionIndexFile(name)` = `api/v1/collections/{name}.cidx`). Read by:
 * `api/_lib/collections/load.ts` (`openIndex`, `loadIndex`) for `/v1/{name}` and `/v1/{name}/{key}`
 * (`api/collections.ts`).
 *
 * Shape: see {@link CollectionIndexData}. Positions are 0-based indexes into `items`; string offsets and the
 * sort order of terms and fragments are UTF-16 code units.
 *
 * Folding (one rule for search text, query text, filter values and lookup keys, so both sides agree;
 * `foldForMatch` in `api/_lib/text/fold.ts`):
 * 1. lower case; Unicode compatibility decomposition (NFKD) and removal of combining marks, so accents
 *    vanish (`Épée` → `epee`) and ligatures open (`ﬁ` → `fi`);
 * 2. letters without a decomposition are spelled out: ß→ss, æ→ae, œ→oe, ø→o, đ/ð→d, ł→l, þ→th, ı→i, ħ→h, ŧ→t;
 * 3. apostrophes (`'`, `’`, `ʼ`) are removed (`Engineer's` → `engineers`).
 * Search text and `q` additionally collapse every run of white space and control characters into one
 * space and are trimmed.
 *
 * Name slug (lookup key of relics, enchants and artifacts): the record's own `slug` string when it has
 * a non-blank one, otherwise derived from `name`: folded as above, every run of characters other than
 * `a`-`z` and `0`-`9` becomes one `-`, leading and trailing `-` are trimmed (`Relic of Frost T2` →
 * `relic-of-frost-t2`, `Épée d'Or` → `epee-dor`). A name that leaves nothing gives no slug.
 */
import { foldForMatch } from '../text/fold.js';

/** The four item collections, in spec order (§4.2). */
export const COLLECTION_NAMES = Object.freeze(['relics', 'enchants', 'infusions', 'artifacts'] as const);
/** One collection name. */
export type CollectionName = (typeof COLLECTION_NAMES)[number];

/** Kind of a filter: an enumerated word, a free word, or the integer tier 1-8 (spec 4.2, 8). */
export type FilterKind = 'enum' | 'string' | 'tier';

/** What every filter names: its query parameter and the top-level record field it reads. */
interface FilterBase {
  /** Query parameter name, e.g. `artifactType`. */
  readonly param: string;
  /** Record field read, top level, e.g. `artifactType`. */
  readonly field: string;
}

/** One filter of a collection (spec 4.2): an `enum` filter lists its allowed values, in their declared spelling. */
export type FilterDef =
  | (FilterBase & { readonly kind: 'enum'; readonly values: readonly string[] })
  | (FilterBase & { readonly kind: Exclude<FilterKind, 'enum'> });

/** Kind of a lookup key (spec 4.2 single-item lookups). */
export type KeyKind = 'uuid' | 'id' | 'slug';

/** Everything the build and the functions need to know about one collection. */
export interface CollectionDef {
  readonly name: CollectionName;
  /** Source dataset name, the response's `collection` member (spec 2.2), e.g. `master-relics`. */
  readonly dataset: string;
  /** Top-level array of the source file holding the items, e.g. `relics`. */
  readonly arrayKey: string;
  /** Fields `q` searches (spec 4.2). */
  readonly searchFields: readonly string[];
  /** Filters in the order of spec 4.2's table. */
  readonly filters: readonly FilterDef[];
  /**
   * Lookup key kinds in precedence order: when two items claim the same folded key (a build error,
   * rule `collections/duplicate-key`), the claim made by the earlier kind, then the earlier item, wins.
   */
  readonly keyKinds: readonly KeyKind[];
  /** True for artifacts: items with `discovery.hiddenUntilFound: true` are left out of lists unless `discovered=all` (spec 3, 4.2). */
  readonly hideUndiscovered: boolean;
}

/** Tier filter, shared by the four collections (spec 4.2, 8: integer 1-8). */
const TIER: FilterDef = { param: 'tier', field: 'tier', kind: 'tier' };

/** The four collections (spec 4.2 table). */
export const COLLECTION_DEFS: Readonly<Record<CollectionName, CollectionDef>> = Object.freeze({
  relics: {
    name: 'relics',
    dataset: 'master-relics',
    arrayKey: 'relics',
    searchFields: ['name', 'id', 'description'],
    filters: [
      { param: 'category', field: 'category', kind: 'enum', values: ['elemental', 'combat', 'defensive', 'utility'] },
      TIER,
      { param: 'element', field: 'element', kind: 'string' },
      { param: 'slot', field: 'slot', kind: 'enum', values: ['relic'] },
    ],
    keyKinds: ['uuid', 'id', 'slug'],
    hideUndiscovered: false,
  },
  enchants: {
    name: 'enchants',
    dataset: 'master-enchants',
    arrayKey: 'enchants',
    searchFields: ['name', 'id', 'description'],
    filters: [
      { param: 'category', field: 'category', kind: 'string' },
      TIER,
      { param: 'target', field: 'target', kind: 'enum', values: ['weapon', 'armor'] },
    ],
    keyKinds: ['uuid', 'id', 'slug'],
    hideUndiscovered: false,
  },
  infusions: {
    name: 'infusions',
    dataset: 'master-infusions',
    arrayKey: 'infusions',
    searchFields: ['name', 'id', 'description'],
    filters: [
      TIER,
      { param: 'scope', field: 'scope', kind: 'enum', values: ['universal', 'profession'] },
      { param: 'profession', field: 'profession', kind: 'string' },
    ],
    keyKinds: ['uuid', 'id'],
    hideUndiscovered: false,
  },
  artifacts: {
    name: 'artifacts',
    dataset: 'master-artifacts',
    arrayKey: 'artifacts',
    searchFields: ['name', 'description'],
    filters: [
      TIER,
      { param: 'artifactType', field: 'artifactType', kind: 'string' },
      { param: 'subtype', field: 'subtype', kind: 'string' },
      { param: 'handedness', field: 'handedness', kind: 'enum', values: ['1h', '2h', 'offhand'] },
    ],
    keyKinds: ['uuid', 'slug'],
    hideUndiscovered: true,
  },
} satisfies Record<CollectionName, CollectionDef>);

/** True when `name` is one of the four collections. */
export function isCollectionName(name: string): name is CollectionName {
  return Object.hasOwn(COLLECTION_DEFS, name);
}

/**
 * What a collection index holds (laid out as bytes by `collection-file.ts`). Positions are 0-based indexes
 * into `items`, which keeps the catalog order (the order of every list response). Every position list is
 * strictly increasing.
 */
export interface CollectionIndexData {
  readonly collection: CollectionName;
  /** Source dataset name (the response's `collection`). */
  readonly dataset: string;
  /** Every item as `JSON.stringify(item)`, catalog order: the exact bytes a lookup returns. */
  readonly items: readonly string[];
  /** Per item: the folded text of each search field that holds a string, joined by `\n`. */
  readonly search: readonly string[];
  /** Sorted distinct terms (maximal runs of letters and digits) of all search texts. */
  readonly terms: readonly string[];
  /** Per term (same order as `terms`): positions of the items whose search text holds it. */
  readonly postings: readonly (readonly number[])[];
  /**
   * Sorted distinct fragments of the search fields around every stretch of characters that are not letters
   * or digits, spelled as in the folded text: two neighbouring terms with what lies between (`of frost`,
   * `relic-frost`), a field's first term with what precedes it (`(rare`), its last term with what follows
   * (`ice.`), or a whole field without terms. Every non-term character of a search text lies in one of them,
   * and each holds exactly one run of non-term characters (its gap). Sort order: UTF-16 code units.
   */
  readonly fragments: readonly string[];
  /** Per fragment (same order as `fragments`): positions of the items whose search text holds it. */
  readonly fragmentPostings: readonly (readonly number[])[];
  /** Query parameter → folded value (tier: decimal digits) → positions of the items holding it. */
  readonly filters: Readonly<Record<string, Readonly<Record<string, readonly number[]>>>>;
  /** Folded lookup key → position. */
  readonly keys: Readonly<Record<string, number>>;
  /** Positions of items with `discovery.hiddenUntilFound: true` (artifacts; empty elsewhere). */
  readonly hidden: readonly number[];
}

const SPACE_RE = /[\s\p{Cc}]+/gu;
const NON_SLUG_RE = /[^a-z0-9]+/g;
const EDGE_DASH_RE = /^-+|-+$/g;

/** Fold `s` (module rules 1-3, `foldForMatch`) and collapse white space and control characters to single spaces, trimmed: search text and `q`. */
export function foldText(s: string): string {
  return isFoldedAsLowerCase(s) ? s.toLowerCase() : foldForMatch(s).replace(SPACE_RE, ' ').trim();
}

/**
 * True when {@link foldText} of `s` is just its lower case: printable ASCII without apostrophes, leading or
 * trailing spaces or two spaces in a row (the usual `q`, checked in one pass instead of four).
 */
function isFoldedAsLowerCase(s: string): boolean {
  let prev = 0x20;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x20 || c > 0x7e || c === 0x27 || (c === 0x20 && prev === 0x20)) return false;
    prev = c;
  }
  return prev !== 0x20;
}

/** Comparison form of a lookup key or filter value: {@link foldText}. `Relic-Frost` and `relic-frost` are one key. */
export function foldKey(s: string): string {
  return foldText(s);
}

/** Name slug (module docstring): lower case, accents folded, runs of non-`[a-z0-9]` → one `-`, trimmed; `''` when nothing is left. */
export function slugify(name: string): string {
  return foldForMatch(name).replace(NON_SLUG_RE, '-').replace(EDGE_DASH_RE, '');
}

const TERM_RE = /[\p{L}\p{N}]+/gu;

/** Terms of a folded text with their offsets: `[term, start, end)` triples in order. */
export function termSpans(folded: string): { term: string; start: number; end: number }[] {
  const out: { term: string; start: number; end: number }[] = [];
  for (const m of folded.matchAll(TERM_RE)) out.push({ term: m[0], start: m.index, end: m.index + m[0].length });
  return out;
}

/** True when the whole of `s` is one term (letters and digits only, non-empty). */
export function isSingleTerm(s: string): boolean {
  return SINGLE_TERM_RE.test(s);
}
const SINGLE_TERM_RE = /^[\p{L}\p{N}]+$/u;
