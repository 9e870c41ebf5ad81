/**
 * The paging of every registry list (spec §4.3, §4.5, §4.6: 1-based `page`, `limit`, a page past the end is
 * empty) and the word matcher of the icon and sprite searches (api/_lib/registries/terms.ts): every query
 * word must hit a term, exactly (2 points) or as a prefix (1 point), and the scores add up.
 */
import { describe, expect, it } from 'vitest';
import { isList, paginate } from '../../api/_lib/registries/paging.js';
import { TermMatcher } from '../../api/_lib/registries/terms.js';
import type { TermIndexFile } from '../../api/_lib/formats/term-index.js';

describe('paginate', () => {
  const all = ['a', 'b', 'c', 'd', 'e'];

  it('serves the first page from the first item', () => {
    expect(paginate(all, 1, 2)).toEqual({ total: 5, page: 1, limit: 2, count: 2, items: ['a', 'b'] });
  });

  it('serves later pages in order and a short last page', () => {
    expect(paginate(all, 2, 2)).toEqual({ total: 5, page: 2, limit: 2, count: 2, items: ['c', 'd'] });
    expect(paginate(all, 3, 2)).toEqual({ total: 5, page: 3, limit: 2, count: 1, items: ['e'] });
  });

  it('answers an empty page past the end, still counting every match', () => {
    expect(paginate(all, 4, 2)).toEqual({ total: 5, page: 4, limit: 2, count: 0, items: [] });
    expect(paginate([], 1, 50)).toEqual({ total: 0, page: 1, limit: 50, count: 0, items: [] });
  });

  it('tells lists from other values', () => {
    expect(isList([])).toBe(true);
    for (const v of [undefined, null, {}, 'abc', { length: 0 }]) expect(isList(v), JSON.stringify(v)).toBe(false);
  });
});

function matcher(terms: Record<string, number[]>, ids: string[] = ['R0', 'R1', 'R2', 'R3']): TermMatcher {
  return new TermMatcher({ version: '1', count: ids.length, ids, terms });
}
const entries = (m: Map<number, number>): [number, number][] => [...m.entries()].sort((a, b) => a[0] - b[0]);

describe('TermMatcher', () => {
  it('scores an exact term 2 and a prefix of a term 1', () => {
    const m = matcher({ sword: [0], swordsman: [1], axe: [2] });
    expect(entries(m.match(['sword']))).toEqual([
      [0, 2],
      [1, 1],
    ]);
    expect(entries(m.match(['swo']))).toEqual([
      [0, 1],
      [1, 1],
    ]);
  });

  it('keeps the best score of a record that holds both the exact term and a longer one', () => {
    const m = matcher({ swords: [0], sword: [0] });
    expect(entries(m.match(['sword']))).toEqual([[0, 2]]);
  });

  it('finds terms whatever their order in the file', () => {
    const m = matcher({ zeta: [3], beta: [1], alpha: [0] });
    expect(entries(m.match(['alpha']))).toEqual([[0, 2]]);
    expect(entries(m.match(['zet']))).toEqual([[3, 1]]);
  });

  it('does not match a term that only contains the word later on', () => {
    const m = matcher({ ab: [0], b: [1], bc: [2], c: [3] });
    expect(entries(m.match(['b']))).toEqual([
      [1, 2],
      [2, 1],
    ]);
  });

  it('needs every word and adds their scores', () => {
    const m = matcher({ fire: [0, 1, 2], firebolt: [3], bolt: [1, 3], ball: [2] });
    expect(entries(m.match(['fire', 'bolt']))).toEqual([
      [1, 4],
      [3, 3],
    ]);
    expect(entries(m.match(['fire', 'b']))).toEqual([
      [1, 3],
      [2, 3],
      [3, 2],
    ]);
  });

  it('matches nothing for no words, or when one word hits nothing', () => {
    const m = matcher({ fire: [0] });
    expect(m.match([]).size).toBe(0);
    expect(m.match(['ice', 'fire']).size).toBe(0);
    expect(m.match(['fire', 'ice']).size).toBe(0);
  });

  it('exposes the ids the positions point into', () => {
    expect(matcher({}, ['ICON-1', 'ICON-2']).ids).toEqual(['ICON-1', 'ICON-2']);
  });

  it('refuses a value that is not a term index', () => {
    for (const bad of [{ ids: 'x', terms: {} }, { ids: [], terms: null }, { ids: [], terms: 'x' }, { terms: {} }, { ids: [] }]) {
      expect(() => new TermMatcher(bad as unknown as TermIndexFile), JSON.stringify(bad)).toThrow(TypeError);
    }
  });
});
