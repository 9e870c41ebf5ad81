/**
 * Text folding shared by every matcher (`api/_lib/text/fold.ts`; search spec §4.4, collection `q` and keys
 * §4.2, registry and asset searches §4.3, §4.5-4.6): case, accents and compatibility forms folded, letters
 * without a decomposition spelled out, apostrophes dropped, so that "Épée", "epee" and "EPEE" compare equal;
 * the plain-ASCII fast path must give the same result as the full rules.
 */
import { describe, expect, it } from 'vitest';
import { foldAccentsAndCase, foldForMatch, isPrintableAscii, stripAccents } from '../../api/_lib/text/fold.js';

describe('stripAccents', () => {
  it('removes combining marks and opens compatibility forms, keeping case', () => {
    expect(stripAccents('Épée')).toBe('Epee');
    expect(stripAccents('ﬁne Ǆ')).toBe('fine DZ');
    expect(stripAccents('e\u0301\u0302x')).toBe('ex');
    expect(stripAccents('Straße')).toBe('Straße');
    expect(stripAccents("Plain ASCII ~ text's")).toBe("Plain ASCII ~ text's");
    // A tab is not printable ASCII: it takes the full path and is kept.
    expect(stripAccents('a\tb')).toBe('a\tb');
  });
});

describe('foldAccentsAndCase', () => {
  it('lower-cases after removing accents; special letters and apostrophes stay', () => {
    expect(foldAccentsAndCase('Épée')).toBe('epee');
    expect(foldAccentsAndCase("ÆTHER Straße's")).toBe("æther straße's");
    expect(foldAccentsAndCase('IRON')).toBe('iron');
  });
});

describe('foldForMatch', () => {
  it('spells out every letter that has no decomposition, in upper case too', () => {
    const cases: [string, string][] = [
      ['ß', 'ss'],
      ['æ', 'ae'],
      ['Æ', 'ae'],
      ['œ', 'oe'],
      ['Œ', 'oe'],
      ['ø', 'o'],
      ['Ø', 'o'],
      ['đ', 'd'],
      ['Đ', 'd'],
      ['ð', 'd'],
      ['Ð', 'd'],
      ['ł', 'l'],
      ['Ł', 'l'],
      ['þ', 'th'],
      ['Þ', 'th'],
      ['ı', 'i'],
      ['ħ', 'h'],
      ['Ħ', 'h'],
      ['ŧ', 't'],
      ['Ŧ', 't'],
    ];
    for (const [from, to] of cases) {
      expect(foldForMatch(from), from).toBe(to);
      expect(foldForMatch(`x${from}${from}y`), from).toBe(`x${to}${to}y`);
    }
  });

  it('folds case, accents, ligatures and width; drops the three apostrophes everywhere', () => {
    expect(foldForMatch('Épée')).toBe('epee');
    expect(foldForMatch('ÉPÉE')).toBe('epee');
    expect(foldForMatch('Ａｂｃ ﬁre')).toBe('abc fire');
    expect(foldForMatch("Engineer's")).toBe('engineers');
    expect(foldForMatch('It’s ʼtwasʼ')).toBe('its twas');
    expect(foldForMatch("rock'n'roll")).toBe('rocknroll');
    expect(foldForMatch("'''")).toBe('');
    expect(foldForMatch('Ǫ̃')).toBe('o');
  });

  it('ends in lower case where a compatibility form opens into capitals (℡, ™, 𝒜, ℌ, ㎓)', () => {
    expect(foldForMatch('℡')).toBe('tel');
    expect(foldForMatch('Widget™')).toBe('widgettm');
    expect(foldForMatch('𝒜rcane ℌoly ㎓')).toBe('arcane holy ghz');
    expect(foldForMatch('𝒜rcane')).toBe(foldForMatch('ARCANE'));
  });

  it('keeps white space and other punctuation as they are', () => {
    expect(foldForMatch('Iron  Sword, T2!')).toBe('iron  sword, t2!');
    expect(foldForMatch('Épée\t-  x')).toBe('epee\t-  x');
    expect(foldForMatch('東京-タワー')).toBe('東京-タワー');
  });

  it('gives the same result on the ASCII fast path as by the full rules', () => {
    for (let c = 0x20; c <= 0x7e; c++) {
      const ch = String.fromCharCode(c);
      const full = ch
        .toLowerCase()
        .normalize('NFKD')
        .replace(/\p{M}+/gu, '')
        .replace(/['’ʼ]/g, '');
      expect(foldForMatch(`A${ch}z`)).toBe(`a${full}z`);
    }
  });
});

describe('isPrintableAscii', () => {
  it('is true for space through tilde only, the empty text included', () => {
    expect(isPrintableAscii('')).toBe(true);
    expect(isPrintableAscii(' ~Az09')).toBe(true);
    expect(isPrintableAscii(String.fromCharCode(0x7f))).toBe(false);
    expect(isPrintableAscii(String.fromCharCode(0x1f))).toBe(false);
    expect(isPrintableAscii('a\nb')).toBe(false);
    expect(isPrintableAscii('abc\t')).toBe(false);
    expect(isPrintableAscii('\tabc')).toBe(false);
    expect(isPrintableAscii('épée')).toBe(false);
    expect(isPrintableAscii('ab é cd')).toBe(false);
  });
});
