/**
 * The term index shared by the build (which writes `icon-search-index.json` and
 * `sprite-search-index.json`) and the functions (which query them): one tokeniser, one index format
 * ({@link TermIndexFile}), one matcher. Used by `/api/v1/icons/search` and `/api/v1/sprites/search` (spec 4.5, 4.6).
 *
 * Normalisation: Unicode NFKD with combining marks removed, lower case, words split on anything that
 * is not a letter or digit. Indexed text also yields the parts of a word split at camelCase and
 * letter/digit boundaries (`A_Armor04` → `a`, `armor04`, `armor`, `04`), so a query for either form hits.
 *
 * Matching: every query word must match a term of the record, exactly (2 points) or as a prefix
 * (1 point); the score is the sum over the query words.
 */
import type { TermIndexFile } from '../formats/registries.js';
import { isList } from './paging.js';
import { foldAccentsAndCase, stripAccents } from '../text/fold.js';
import { lowerBound } from '../util/sorted.js';

const NON_WORD = /[^\p{L}\p{N}]+/u;
const SUBWORD = /(?<=\p{Ll})(?=\p{Lu})|(?<=\p{Lu})(?=\p{Lu}\p{Ll})|(?<=\p{L})(?=\p{N})|(?<=\p{N})(?=\p{L})/u;

/** Terms under which `text` is indexed: whole words and their camelCase / letter-digit parts, lower case, unique. */
function indexTerms(text: string): string[] {
  const out = new Set<string>();
  for (const word of stripAccents(text).split(NON_WORD)) {
    if (!word) continue;
    out.add(word.toLowerCase());
    const parts = word.split(SUBWORD);
    if (parts.length > 1) for (const p of parts) if (p) out.add(p.toLowerCase());
  }
  return [...out];
}

/** Normalised words of a query (no sub-word splitting), unique, in order; empty when `q` has no letter or digit. */
export function queryTerms(q: string): string[] {
  return [...new Set(foldAccentsAndCase(q).split(NON_WORD).filter(Boolean))];
}

/**
 * Build a {@link TermIndexFile}: `ids[i]` is indexed under every term of `textsOf(i)`.
 * Terms are inserted in sorted order and postings are ascending, so the output is deterministic.
 */
export function buildTermIndex(version: string, ids: readonly string[], textsOf: (i: number) => readonly string[]): TermIndexFile {
  const map = new Map<string, number[]>();
  ids.forEach((_, i) => {
    const terms = new Set<string>();
    for (const t of textsOf(i)) for (const term of indexTerms(t)) terms.add(term);
    for (const term of terms) {
      let list = map.get(term);
      if (!list) map.set(term, (list = []));
      list.push(i);
    }
  });
  const terms: Record<string, number[]> = {};
  for (const term of [...map.keys()].sort()) terms[term] = map.get(term) ?? [];
  return { version, count: ids.length, ids: [...ids], terms };
}

/** A loaded term index, ready to answer queries. */
export class TermMatcher {
  private readonly sorted: readonly string[];
  private readonly terms: Readonly<Record<string, readonly number[]>>;
  /** Ids in index order (`postings` point into this). */
  readonly ids: readonly string[];

  /** @throws TypeError when `index` is not a term index. */
  constructor(index: TermIndexFile) {
    if (!isList(index.ids) || typeof index.terms !== 'object' || index.terms === null) throw new TypeError('not a term index');
    this.ids = index.ids;
    this.terms = index.terms;
    this.sorted = Object.keys(index.terms).sort();
  }

  /**
   * Positions (into {@link ids}) of the records matching every word of `words`, with their scores
   * (per word: 2 for an exact term, 1 for a prefix of a term). Empty `words` match nothing.
   */
  match(words: readonly string[]): Map<number, number> {
    let result: Map<number, number> | undefined;
    for (const word of words) {
      const scores = new Map<number, number>();
      for (let i = lowerBound(this.sorted, word); i < this.sorted.length; i++) {
        const term = this.sorted[i] as string;
        if (!term.startsWith(word)) break;
        const points = term === word ? 2 : 1;
        for (const pos of this.terms[term] ?? []) scores.set(pos, Math.max(scores.get(pos) ?? 0, points));
      }
      if (result === undefined) result = scores;
      else {
        const next = new Map<number, number>();
        for (const [pos, s] of result) {
          const add = scores.get(pos);
          if (add !== undefined) next.set(pos, s + add);
        }
        result = next;
      }
      if (result.size === 0) break;
    }
    return result ?? new Map<number, number>();
  }
}
