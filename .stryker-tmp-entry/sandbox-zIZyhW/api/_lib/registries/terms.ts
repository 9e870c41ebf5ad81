/**
 * The matcher of the icon and sprite term indexes (format, builder and tokeniser:
 * `api/_lib/formats/term-index.ts`). Used by `/api/v1/icons/search` and `/api/v1/sprites/search` (spec 4.5, 4.6).
 *
 * Matching: every query word must match a term of the record, exactly (2 points) or as a prefix
 * (1 point); the score is the sum over the query words.
 */
// @ts-nocheck

import type { TermIndexFile } from '../formats/term-index.js';
import { isList } from './paging.js';
import { lowerBound } from '../util/sorted.js';

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
