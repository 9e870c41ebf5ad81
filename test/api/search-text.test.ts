/**
 * Term rules of the search (spec §4.4; `api/_lib/search/text.ts`): how names and queries are cut into terms
 * (the same rules on both sides), the comparison key of a whole name, and the one-edit test behind fuzzy
 * matches (one substitution, insertion, deletion or transposition of adjacent characters), checked against a
 * plain optimal-string-alignment distance table.
 */
import { describe, expect, it } from 'vitest';
import { isOneEditApart, textKey, tokenize } from '../../api/_lib/text/terms.js';
import { createRng } from '../../api/_lib/util/prng.js';

/** Optimal string alignment distance (restricted Damerau-Levenshtein), by the textbook table. */
function osa(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i]![j] = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d[i]![j] = Math.min(d[i]![j]!, d[i - 2]![j - 2]! + 1);
    }
  }
  return d[a.length]![b.length]!;
}

describe('tokenize', () => {
  it('cuts at every character that is not a letter or digit, folded, with no empty terms', () => {
    expect(tokenize('Iron-Sword T2')).toEqual(['iron', 'sword', 't2']);
    expect(tokenize('  --Iron__Sword!!  ')).toEqual(['iron', 'sword']);
    expect(tokenize("Engineer's Toolkit")).toEqual(['engineers', 'toolkit']);
    expect(tokenize('Épée-Straße ÆTHER')).toEqual(['epee', 'strasse', 'aether']);
    expect(tokenize('東京 タワー·x')).toEqual(['東京', 'タワー', 'x']);
    expect(tokenize('  ')).toEqual([]);
    expect(tokenize('')).toEqual([]);
    expect(tokenize('--é--')).toEqual(['e']);
    expect(tokenize('a.b,c')).toEqual(['a', 'b', 'c']);
    expect(tokenize('x²')).toEqual(['x2']);
    expect(tokenize('𝒜rcane ℌoly-Widget™')).toEqual(['arcane', 'holy', 'widgettm']);
  });
});

describe('textKey', () => {
  it('joins the terms by one space', () => {
    expect(textKey('Iron-Sword')).toBe('iron sword');
    expect(textKey('  Épée,  d’Or ')).toBe('epee dor');
    expect(textKey('--')).toBe('');
  });
});

describe('isOneEditApart', () => {
  it('hand-made cases of each edit, at the start, middle and end', () => {
    const yes: [string, string][] = [
      ['sword', 'swerd'],
      ['sword', 'xword'],
      ['sword', 'swore'],
      ['sword', 'swrod'],
      ['sword', 'wsord'],
      ['sword', 'swodr'],
      ['sword', 'swords'],
      ['sword', 'ssword'],
      ['sword', 'sord'],
      ['sword', 'word'],
      ['sword', 'swor'],
      ['a', ''],
      ['', 'a'],
      ['ab', 'ba'],
    ];
    const no: [string, string][] = [
      ['sword', 'sword'],
      ['', ''],
      ['sword', 'swxrx'],
      ['sword', 'wsrod'],
      ['sword', 'swordss'],
      ['sword', 'sor'],
      ['sword', 'xswordx'],
      ['abc', 'cba'],
      ['abcd', 'badc'],
      ['abcd', 'bacx'],
      ['sword', 'swodx'],
      ['sword', 'sxrd'],
      ['ab', 'bc'],
      ['abc', 'bca'],
    ];
    for (const [a, b] of yes) {
      expect(isOneEditApart(a, b), `${a} ${b}`).toBe(true);
      expect(isOneEditApart(b, a), `${b} ${a}`).toBe(true);
    }
    for (const [a, b] of no) {
      expect(isOneEditApart(a, b), `${a} ${b}`).toBe(false);
      expect(isOneEditApart(b, a), `${b} ${a}`).toBe(false);
    }
  });

  it('agrees with the distance table on seeded words over a small alphabet', () => {
    const rand = createRng(123).next;
    const word = (): string => Array.from({ length: Math.floor(rand() * 6) }, () => 'abc'[Math.floor(rand() * 3)]!).join('');
    for (let k = 0; k < 4000; k++) {
      const a = word();
      let b = word();
      if (rand() < 0.5) {
        // one random edit of a, to reach distance 1 often
        const i = Math.floor(rand() * (a.length + 1));
        const r = rand();
        const c = 'abc'[Math.floor(rand() * 3)]!;
        b =
          r < 0.25
            ? a.slice(0, i) + c + a.slice(i)
            : r < 0.5
              ? a.slice(0, i) + a.slice(i + 1)
              : r < 0.75
                ? a.slice(0, i) + c + a.slice(i + 1)
                : a.slice(0, i) + a.slice(i + 1, i + 2) + a.slice(i, i + 1) + a.slice(i + 2);
      }
      expect(isOneEditApart(a, b), `${a} ${b}`).toBe(osa(a, b) === 1);
    }
  });
});
