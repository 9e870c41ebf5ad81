/**
 * The term index of the icon and sprite searches (`ICON_SEARCH_INDEX_FILE` = `api/v1/icon-search-index.json`,
 * `SPRITE_SEARCH_INDEX_FILE` = `api/v1/sprite-search-index.json`, schema `schemas/output/term-index.schema.json`;
 * spec §4.5 `/api/v1/sprites/search`, §4.6 `/api/v1/icons/search`): its shape, how it is built
 * ({@link buildTermIndex}) and the one tokeniser of both sides ({@link queryTerms} for queries).
 *
 * Written by: `build/derive/icons.ts` (name, tags, path without extension, category of every icon) and
 * `build/derive/sprites.ts` (name, path without extension, category, subcategory, source of every sprite).
 * Read by: `TermMatcher` in `api/_lib/registries/terms.ts`, once per process.
 *
 * Shape: `{ version, count, ids, terms }`: `ids` in registry order; `terms` maps every term, keys sorted by code
 * units, to the ascending 0-based positions in `ids` of the records that carry it.
 *
 * Normalisation: Unicode NFKD with combining marks removed, lower case, words split on anything that
 * is not a letter or digit. Indexed text also yields the parts of a word split at camelCase and
 * letter/digit boundaries (`A_Armor04` → `a`, `armor04`, `armor`, `04`), so a query for either form hits.
 */
// @ts-nocheck

import { foldAccentsAndCase, stripAccents } from '../text/fold.js';

/**
 * A compact search index (icons and sprites): `ids` in registry order, and for every normalised term
 * (see {@link indexTerms}) the ascending positions in `ids` of the records that carry it.
 */
export interface TermIndexFile {
  readonly version: string;
  /** Number of ids. */
  readonly count: number;
  readonly ids: readonly string[];
  readonly terms: Readonly<Record<string, readonly number[]>>;
}

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
