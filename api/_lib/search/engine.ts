/**
 * The in-memory search engine behind `GET /api/search` (spec 4.4, response 2.5), built once per
 * process from a validated index file (`api/_lib/formats/search-index.ts`).
 *
 * Matching. The query is cut into terms like names are (`text.ts`; at most {@link MAX_QUERY_TERMS}
 * terms are used). A record matches when
 * - its id key equals the query key (`textKey(id) === textKey(q)`: case, accents and punctuation
 *   ignored), or
 * - every query term matches some term of its name: exactly, as a prefix, or, for query terms of
 *   at least {@link MIN_FUZZY_LENGTH} characters, within one edit (substitution, insertion,
 *   deletion or transposition of two adjacent characters).
 *
 * Ranking (tier first, then the record's precomputed rank):
 * 0. exact: the whole name equals the query (same terms in the same order), or the id matches;
 *    among these, a name or id equal to the query as typed (trimmed, case aside) ranks first, so
 *    `Þorn Cloak` finds `Þorn Cloak` before `Thorn Cloak` although both have the same terms;
 * 1. name starts with the query's words: the query terms equal the name's first terms, and the name
 *    has more terms (`blood` → `Blood Rush`);
 * 2. name prefix: as 1, but the last query term is only a prefix of its name term (`blood` →
 *    `Bloodmaul`, `iron sw` → `Iron Sword T2`);
 * 3. every query term equals a name term (any position and order);
 * 4. every query term equals or prefixes a name term, at least one only as a prefix;
 * 5. at least one query term matches only within one edit.
 * Within a tier: shorter normalised name, then normalised name, then name, then id, then type
 * (the rank order of the index file).
 *
 * How it stays fast: the dictionary is sorted (prefix = one binary-searched range), fuzzy candidates
 * come from a scan of the dictionary terms of length L-1..L+1 with an early-exit edit check, the
 * query term with the fewest postings drives the candidate set and the other terms are checked on
 * each candidate's few forward-index terms, and the top `limit` are kept in a bounded heap keyed by
 * (tier, rank), so no full sort happens. Scratch buffers are reused across queries (generation
 * stamps instead of clearing; the stamps are bytes, so the buffers are cleared once every
 * {@link GENERATIONS} queries).
 */
import { SEARCH_TYPES, type SearchRecord, type SearchType, type ValidIndex } from '../formats/search-index.js';
import { lowerBound, prefixEnd } from '../util/sorted.js';
import { isOneEditApart, tokenize } from '../text/terms.js';

/** At most this many query terms are used; further terms are ignored. */
export const MAX_QUERY_TERMS = 10;
/** Query terms shorter than this match exactly or by prefix only, never within one edit. */
export const MIN_FUZZY_LENGTH = 3;

const KIND_EXACT = 0;
const KIND_PREFIX = 1;
const KIND_FUZZY = 2;
const NO_MATCH = 3;

/** Queries between two clearings of the scratch stamps: a stamp is one byte, generations run 1-255. */
export const GENERATIONS = 255;

/** Options of one search: the type filter and the number of results wanted (clamped to ≥ 0). */
export interface SearchOptions {
  readonly type: SearchType | 'all';
  readonly limit: number;
}

/** Result of one search: the number of every matching record, and the best `limit` of them. */
export interface SearchResult {
  readonly totalResults: number;
  readonly results: SearchRecord[];
}

/** A loaded search index (spec 4.4). */
export interface SearchEngine {
  /** Number of records in the index. */
  readonly size: number;
  /**
   * Records matching `q`, best first (see the module docs for matching and ranking).
   * A query without letters or digits matches nothing.
   * @throws RangeError when `options.type` is neither `all` nor a search type.
   */
  search(q: string, options: SearchOptions): SearchResult;
}

interface QueryTerm {
  readonly text: string;
  /** Index of the equal dictionary term, or -1. */
  exact: number;
  /** Dictionary range [lo, hi) of terms starting with the query term (includes `exact`). */
  lo: number;
  hi: number;
  /** Dictionary terms this query term matches (any kind). */
  readonly matched: number[];
  /** Sum of the posting lengths of `matched` (estimate of candidates). */
  cost: number;
}

/** Build an engine over a validated index. Cost: linear in the index size (postings inversion). */
export function createEngine(ix: ValidIndex): SearchEngine {
  const { terms, docId, docName, types } = ix;
  const n = docId.length;
  const d = terms.length;
  const docType = Uint8Array.from(ix.docType);

  // forward index: tokOff[doc]..tokOff[doc+1] in tok
  const tokOff = new Int32Array(n + 1);
  const tok = new Int32Array(ix.tokens.length - n);
  const postCount = new Int32Array(d + 1);
  {
    let p = 0;
    let q = 0;
    const src = ix.tokens;
    for (let doc = 0; doc < n; doc++) {
      const count = src[p++] as number;
      tokOff[doc] = q;
      for (let k = 0; k < count; k++) {
        const t = src[p++] as number;
        tok[q++] = t;
      }
    }
    tokOff[n] = q;
  }
  // inverted postings (docs ascending, each doc once per term)
  const lastDoc = new Int32Array(d).fill(-1);
  for (let doc = 0; doc < n; doc++) {
    for (let k = tokOff[doc] as number, end = tokOff[doc + 1] as number; k < end; k++) {
      const t = tok[k] as number;
      if (lastDoc[t] !== doc) {
        lastDoc[t] = doc;
        postCount[t + 1]!++;
      }
    }
  }
  const postOff = new Int32Array(d + 1);
  for (let t = 0; t < d; t++) postOff[t + 1] = (postOff[t] as number) + (postCount[t + 1] as number);
  const post = new Int32Array(postOff[d] as number);
  {
    const fill = postOff.slice(0, d);
    lastDoc.fill(-1);
    for (let doc = 0; doc < n; doc++) {
      for (let k = tokOff[doc] as number, end = tokOff[doc + 1] as number; k < end; k++) {
        const t = tok[k] as number;
        if (lastDoc[t] !== doc) {
          lastDoc[t] = doc;
          post[fill[t]!++] = doc;
        }
      }
    }
  }

  // dictionary terms grouped by length (for the one-edit scan)
  let maxLen = 0;
  for (const t of terms) if (t.length > maxLen) maxLen = t.length;
  const byLenCount = new Int32Array(maxLen + 2);
  for (const t of terms) byLenCount[t.length + 1]!++;
  for (let l = 1; l < byLenCount.length; l++) byLenCount[l] = (byLenCount[l] as number) + (byLenCount[l - 1] as number);
  const byLenOff = byLenCount.slice();
  const byLen = new Int32Array(d);
  {
    const fill = byLenCount.slice();
    for (let t = 0; t < d; t++) byLen[fill[terms[t]!.length]!++] = t;
  }

  const idOrder = Int32Array.from(ix.idOrder);
  const idKeyCache: (string | undefined)[] = new Array<string | undefined>(n);
  const idKey = (doc: number): string => (idKeyCache[doc] ??= tokenize(docId[doc] as string).join(' '));

  // scratch, reused by every query
  let gen = 0;
  const docStamp = new Uint8Array(n);
  const termStamp: Uint8Array[] = [];
  const termKind: Uint8Array[] = [];
  for (let j = 0; j < MAX_QUERY_TERMS; j++) {
    termStamp.push(new Uint8Array(d));
    termKind.push(new Uint8Array(d));
  }

  const nextGen = (): number => {
    if (gen === GENERATIONS) {
      gen = 0;
      docStamp.fill(0);
      for (const s of termStamp) s.fill(0);
    }
    return ++gen;
  };

  const prepareTerm = (j: number, text: string, g: number): QueryTerm => {
    const stamp = termStamp[j] as Uint8Array;
    const kind = termKind[j] as Uint8Array;
    const lo = lowerBound(terms, text);
    const hi = prefixEnd(terms, text, lo);
    // terms[lo] is the first term ≥ text: the equal one if there is one (past the end it is undefined)
    const qt: QueryTerm = { text, exact: terms[lo] === text ? lo : -1, lo, hi, matched: [], cost: 0 };
    for (let t = lo; t < hi; t++) {
      stamp[t] = g;
      kind[t] = t === qt.exact ? KIND_EXACT : KIND_PREFIX;
      qt.matched.push(t);
      qt.cost += (postOff[t + 1] as number) - (postOff[t] as number);
    }
    const len = text.length;
    if (len >= MIN_FUZZY_LENGTH) {
      const from = byLenOff[Math.min(len - 1, maxLen + 1)] as number;
      const to = byLenOff[Math.min(len + 2, maxLen + 1)] as number;
      for (let k = from; k < to; k++) {
        const t = byLen[k] as number;
        if (stamp[t] === g) continue;
        if (isOneEditApart(text, terms[t] as string)) {
          stamp[t] = g;
          kind[t] = KIND_FUZZY;
          qt.matched.push(t);
          qt.cost += (postOff[t + 1] as number) - (postOff[t] as number);
        }
      }
    }
    return qt;
  };

  const search = (q: string, options: SearchOptions): SearchResult => {
    let typeFilter = -1;
    if (options.type !== 'all') {
      if (!(SEARCH_TYPES as readonly string[]).includes(options.type))
        throw new RangeError(`Unknown search type ${JSON.stringify(options.type)}.`);
      typeFilter = types.indexOf(options.type);
      if (typeFilter < 0) return { totalResults: 0, results: [] };
    }
    const limit = Number.isFinite(options.limit) ? Math.max(0, Math.floor(options.limit)) : 0;
    const allTerms = tokenize(q);
    if (allTerms.length === 0) return { totalResults: 0, results: [] };
    const qTerms = allTerms.slice(0, MAX_QUERY_TERMS);
    const typed = q.trim().toLowerCase();
    const asTyped = (text: string): boolean => text.toLowerCase() === typed;
    const g = nextGen();
    const heap = new TopK(limit);
    let total = 0;

    // exact id matches (tier 0)
    const key = allTerms.join(' ');
    {
      let lo = 0;
      let hi = n;
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if (idKey(idOrder[mid] as number) < key) lo = mid + 1;
        else hi = mid;
      }
      for (let i = lo; i < n; i++) {
        const doc = idOrder[i] as number;
        if (idKey(doc) !== key) break;
        docStamp[doc] = g;
        if (typeFilter >= 0 && docType[doc] !== typeFilter) continue;
        total++;
        heap.offer((asTyped(docId[doc] as string) ? 0 : 1) * n + doc);
      }
    }

    // name matches
    const prepared: QueryTerm[] = [];
    let driver = -1;
    for (let j = 0; j < qTerms.length; j++) {
      const qt = prepareTerm(j, qTerms[j] as string, g);
      prepared.push(qt);
      if (driver < 0 || qt.cost < (prepared[driver] as QueryTerm).cost) driver = j;
    }
    const nq = prepared.length;
    const last = prepared[nq - 1] as QueryTerm;
    for (const t of (prepared[driver] as QueryTerm).matched) {
      for (let k = postOff[t] as number, kEnd = postOff[t + 1] as number; k < kEnd; k++) {
        const doc = post[k] as number;
        if (docStamp[doc] === g) continue;
        docStamp[doc] = g;
        if (typeFilter >= 0 && docType[doc] !== typeFilter) continue;
        const off = tokOff[doc] as number;
        const end = tokOff[doc + 1] as number;
        // the weakest of the query terms' best matches on this name (NO_MATCH ranks weakest)
        let worst = KIND_EXACT;
        for (let j = 0; j < nq; j++) {
          const stamp = termStamp[j] as Uint8Array;
          const kind = termKind[j] as Uint8Array;
          let best = NO_MATCH;
          for (let p = off; p < end; p++) {
            const tt = tok[p] as number;
            if (stamp[tt] === g) best = Math.min(best, kind[tt] as number);
          }
          worst = Math.max(worst, best);
        }
        if (worst === NO_MATCH) continue;
        // internal tiers: 0 exact as typed, 1 exact by terms, then the documented tiers 1-5 as 2-6
        let tier = worst === KIND_EXACT ? 4 : worst === KIND_PREFIX ? 5 : 6;
        if (end - off >= nq) {
          let phrase = true;
          for (let j = 0; j < nq - 1; j++) {
            if (tok[off + j] !== (prepared[j] as QueryTerm).exact) {
              phrase = false;
              break;
            }
          }
          if (phrase) {
            const lt = tok[off + nq - 1] as number;
            if (lt === last.exact) tier = end - off === nq ? (asTyped(docName[doc] as string) ? 0 : 1) : 2;
            else if (lt >= last.lo && lt < last.hi) tier = 3;
          }
        }
        total++;
        heap.offer(tier * n + doc);
      }
    }

    const results = heap.sorted().map((key): SearchRecord => {
      const doc = key % n;
      return { type: types[docType[doc] as number] as SearchType, id: docId[doc] as string, name: docName[doc] as string };
    });
    return { totalResults: total, results };
  };

  return { size: n, search };
}

/** Bounded max-heap keeping the `k` smallest numeric keys offered. */
class TopK {
  private readonly heap: number[] = [];
  constructor(private readonly k: number) {}

  offer(key: number): void {
    const h = this.heap;
    if (h.length < this.k) {
      h.push(key);
      let i = h.length - 1;
      while (i > 0) {
        const parent = (i - 1) >> 1;
        if ((h[parent] as number) >= key) break;
        h[i] = h[parent] as number;
        i = parent;
      }
      h[i] = key;
      return;
    }
    if (this.k === 0 || key >= (h[0] as number)) return;
    // replace the root and sift down
    let i = 0;
    const len = h.length;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= len) break;
      const r = l + 1;
      const c = r < len && (h[r] as number) > (h[l] as number) ? r : l;
      if ((h[c] as number) <= key) break;
      h[i] = h[c] as number;
      i = c;
    }
    h[i] = key;
  }

  /** The keys kept, ascending; the heap is spent (call once). */
  sorted(): number[] {
    return this.heap.sort((a, b) => a - b);
  }
}
