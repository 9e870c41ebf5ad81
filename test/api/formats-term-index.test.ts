/**
 * The term index of the icon and sprite searches (spec §4.5, §4.6; api/_lib/formats/term-index.ts): which
 * words a record is found by (whole words, their camelCase and letter/digit parts, accents and case folded),
 * how a query is cut into words, and the deterministic shape of the index file the build writes.
 */
import { describe, expect, it } from 'vitest';
import { buildTermIndex, queryTerms } from '../../api/_lib/formats/term-index.js';

const termsOf = (...texts: string[]): string[] => Object.keys(buildTermIndex('1', ['X'], () => texts).terms);

describe('indexed terms', () => {
  it('indexes whole words and their camelCase and letter/digit parts, in lower case', () => {
    expect(termsOf('A_Armor04')).toEqual(['04', 'a', 'armor', 'armor04']);
    expect(termsOf('fireBall')).toEqual(['ball', 'fire', 'fireball']);
    expect(termsOf('HTMLParser')).toEqual(['html', 'htmlparser', 'parser']);
    expect(termsOf('04abc')).toEqual(['04', '04abc', 'abc']);
  });

  it('folds accents and splits on anything that is not a letter or digit', () => {
    expect(termsOf('Épée  d’Or/big-AXE')).toEqual(['axe', 'big', 'd', 'epee', 'or']);
  });

  it('never indexes an empty term, whatever surrounds the words', () => {
    expect(termsOf('__sword__', '', '--')).toEqual(['sword']);
  });
});

describe('query words', () => {
  it('folds accents and case and splits on non-word characters, keeping order without repeats', () => {
    expect(queryTerms('  Épée, SWORD épée-fireBall ')).toEqual(['epee', 'sword', 'fireball']);
  });

  it('gives no words for a query without letters or digits', () => {
    expect(queryTerms(' -_/ ')).toEqual([]);
    expect(queryTerms('')).toEqual([]);
  });
});

describe('the index file', () => {
  it('lists ids in registry order, terms sorted, postings ascending and unique per record', () => {
    const texts = [['Sword Two', 'sword'], ['Axe'], ['sword axe']];
    const index = buildTermIndex('2.0.0', ['ID-B', 'ID-A', 'ID-C'], (i) => texts[i] ?? []);
    expect(index.version).toBe('2.0.0');
    expect(index.count).toBe(3);
    expect(index.ids).toEqual(['ID-B', 'ID-A', 'ID-C']);
    expect(Object.keys(index.terms)).toEqual(['axe', 'sword', 'two']);
    expect(index.terms).toEqual({ axe: [1, 2], sword: [0, 2], two: [0] });
  });

  it('copies the ids, so the caller may change its list afterwards', () => {
    const ids = ['A'];
    const index = buildTermIndex('1', ids, () => ['a']);
    ids.push('B');
    expect(index.ids).toEqual(['A']);
  });

  it('is empty for no records', () => {
    expect(buildTermIndex('1', [], () => ['x'])).toEqual({ version: '1', count: 0, ids: [], terms: {} });
  });
});
