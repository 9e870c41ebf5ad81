/**
 * Text normalisation shared by the search index build and the query side (spec 4.4), so that a name
 * and a query are cut into terms by exactly the same rules.
 *
 * Rules, in order:
 * 1. Unicode compatibility decomposition (NFKD) and removal of combining marks: accents vanish
 *    (`Épée` → `epee`), ligatures open up (`ﬁ` → `fi`).
 * 2. Lower case, then a few letters without a decomposition are folded: ß→ss, æ→ae, œ→oe, ø→o,
 *    đ/ð→d, ł→l, þ→th, ı→i, ħ→h, ŧ→t.
 * 3. Apostrophes (`'`, `’`, `ʼ`) are removed, so `Engineer's` is the single term `engineers`.
 * 4. Every other character that is not a letter or a digit separates terms.
 * Pure-ASCII text takes a fast path with the same result.
 */

import { foldForMatch, isPrintableAscii } from './fold.js';

// one separator character per split: the empty parts between neighbours are dropped with the rest
const ASCII_SEPARATORS = /[^a-z0-9]/;
const SEPARATORS = /[^\p{L}\p{N}]/u;

/**
 * Cut `text` into normalised search terms (see the module rules). Never throws; returns `[]` when
 * the text has no letters or digits.
 */
export function tokenize(text: string): string[] {
  const parts = foldForMatch(text).split(isPrintableAscii(text) ? ASCII_SEPARATORS : SEPARATORS);
  const out: string[] = [];
  for (const p of parts) if (p !== '') out.push(p);
  return out;
}

/** The comparison key of a whole text: its terms joined by one space (`"Iron-Sword"` → `"iron sword"`). */
export function textKey(text: string): string {
  return tokenize(text).join(' ');
}

/**
 * True when `a` and `b` differ by exactly one edit: one substitution, one insertion, one deletion or
 * one transposition of adjacent characters (optimal string alignment distance 1). Equal strings
 * give false. Runs in O(length) with an early exit at the second difference.
 */
export function isOneEditApart(a: string, b: string): boolean {
  const la = a.length;
  const lb = b.length;
  if (la === lb) {
    let i = 0;
    while (i < la && a.charCodeAt(i) === b.charCodeAt(i)) i++;
    if (i === la) return false;
    // substitution at i: the rest must be equal
    let j = i + 1;
    while (j < la && a.charCodeAt(j) === b.charCodeAt(j)) j++;
    if (j === la) return true;
    // transposition of i and i+1: the rest after i+1 must be equal
    if (j !== i + 1 || a.charCodeAt(i) !== b.charCodeAt(i + 1) || a.charCodeAt(i + 1) !== b.charCodeAt(i)) return false;
    for (j = i + 2; j < la; j++) if (a.charCodeAt(j) !== b.charCodeAt(j)) return false;
    return true;
  }
  if (la === lb + 1) return oneDeletion(a, b);
  if (lb === la + 1) return oneDeletion(b, a);
  return false;
}

/** `long` minus one character equals `short` (lengths differ by exactly one). */
function oneDeletion(long: string, short: string): boolean {
  const ls = short.length;
  let i = 0;
  while (i < ls && long.charCodeAt(i) === short.charCodeAt(i)) i++;
  for (let j = i; j < ls; j++) if (long.charCodeAt(j + 1) !== short.charCodeAt(j)) return false;
  return true;
}
