/**
 * Dictionaries of a loaded collection index (spec §4.2 `q`; `api/_lib/collections/dictionary.ts`): which
 * strings hold a needle (by three-unit substrings or by a scan of the joined strings), the items of those
 * strings, the gaps of the fragments, and the groups of fragments that stand for many sparse ones. Small
 * hand-made and seeded dictionaries, every answer compared with a plain scan of the strings.
 */
import { describe, expect, it } from 'vitest';
import { createRng } from '../../api/_lib/util/prng.js';
import {
  entriesContaining,
  FRAGMENT_RE,
  gapsOf,
  groupsOf,
  makeDictionary,
  unionContaining,
  unionOf,
  type Dictionary,
} from '../../api/_lib/collections/dictionary.js';
import { EMPTY, has, makeSet, type PosSet } from '../../api/_lib/collections/positions.js';
import { compareCodeUnits } from '../../api/_lib/util/sorted.js';

function members(set: PosSet, n: number): number[] {
  const out: number[] = [];
  for (let p = 0; p < n; p++) if (has(set, p)) out.push(p);
  expect(set.size).toBe(out.length);
  return out;
}

const sorted = (xs: Iterable<string>): string[] => [...new Set(xs)].sort(compareCodeUnits);

/** A dictionary over `entries` (sorted here) with seeded position sets over `n` items. */
function dictOf(entries: string[], n: number, rand: () => number): { dict: Dictionary; lists: number[][] } {
  const strs = sorted(entries);
  const lists = strs.map(() => {
    const s = new Set<number>();
    const count = 1 + Math.floor(rand() * rand() * n);
    while (s.size < Math.min(count, n)) s.add(Math.floor(rand() * n));
    return [...s].sort((a, b) => a - b);
  });
  return {
    dict: makeDictionary(
      strs,
      lists.map((l) => makeSet(l, n)),
    ),
    lists,
  };
}

describe('makeDictionary', () => {
  it('joins the strings, records where each starts, maps each to its index and sums the set sizes', () => {
    const d = makeDictionary(['ab', 'abc', 'b'], [makeSet([0], 10), makeSet([1, 2], 10), makeSet([0, 1, 2, 3], 10)]);
    expect(d.blob).toBe('ab\nabc\nb');
    expect(Array.from(d.starts)).toEqual([0, 3, 7]);
    expect(Array.from(d.sizes)).toEqual([0, 1, 3, 7]);
    expect([...d.exact]).toEqual([
      ['ab', 0],
      ['abc', 1],
      ['b', 2],
    ]);
    expect(d.groups).toBeUndefined();
    expect(d.entries).toEqual(['ab', 'abc', 'b']);
  });

  it('indexes each three-unit substring once per string, ASCII and wider ones apart', () => {
    const d = makeDictionary(['aaaa', 'baaa', 'éaa'], [makeSet([0], 4), makeSet([1], 4), makeSet([2], 4)]);
    expect([...d.grams.values()].map((l) => Array.from(l))).toEqual([[0, 1], [1]]);
    expect([...d.wideGrams]).toEqual([['éaa', Int32Array.from([2])]]);
    expect(entriesContaining(d, 'aaa')).toEqual([0, 1]);
    expect(entriesContaining(d, 'aaaa')).toEqual([0]);
  });
});

describe('entriesContaining', () => {
  it('agrees with a plain scan for needles of every length, ASCII or not', () => {
    const rand = createRng(17).next;
    const alphabet = ['a', 'b', 'c', ' ', '-', 'é', '東'];
    const word = (max: number): string => {
      let s = '';
      const len = 1 + Math.floor(rand() * max);
      for (let i = 0; i < len; i++) s += alphabet[Math.floor(rand() * alphabet.length)]!;
      return s;
    };
    for (let k = 0; k < 60; k++) {
      const { dict } = dictOf(
        Array.from({ length: 1 + Math.floor(rand() * 25) }, () => word(9)),
        20,
        rand,
      );
      for (let j = 0; j < 40; j++) {
        const needle =
          rand() < 0.5
            ? word(8)
            : (() => {
                const e = dict.entries[Math.floor(rand() * dict.entries.length)]!;
                const at = Math.floor(rand() * e.length);
                return e.slice(at, at + 1 + Math.floor(rand() * 8));
              })();
        const expected = dict.entries.flatMap((e, i) => (e.includes(needle) ? [i] : []));
        expect(entriesContaining(dict, needle), JSON.stringify({ entries: dict.entries, needle })).toEqual(expected);
      }
    }
  });

  it('names each string once, however often it holds a short needle, first and last strings included', () => {
    const d = makeDictionary(['a-a-a', 'b', 'ca', 'xa-a'], [EMPTY, EMPTY, EMPTY, EMPTY]);
    expect(entriesContaining(d, 'a')).toEqual([0, 2, 3]);
    expect(entriesContaining(d, '-a')).toEqual([0, 3]);
    expect(entriesContaining(d, 'b')).toEqual([1]);
    expect(entriesContaining(d, 'x')).toEqual([3]);
    expect(entriesContaining(d, 'q')).toEqual([]);
    // A needle of two units never spans the line feed between two strings.
    expect(entriesContaining(d, 'bc')).toEqual([]);
  });

  it('a long needle must hold every three-unit substring, the last one included', () => {
    const d = makeDictionary(['abcdefg', 'abcdefx', 'bcdefg', 'xbcdefg'], [EMPTY, EMPTY, EMPTY, EMPTY]);
    expect(entriesContaining(d, 'abcdefg')).toEqual([0]);
    expect(entriesContaining(d, 'bcdefg')).toEqual([0, 2, 3]);
    expect(entriesContaining(d, 'abcd')).toEqual([0, 1]);
    expect(entriesContaining(d, 'cdefx')).toEqual([1]);
    expect(entriesContaining(d, 'abcdeg')).toEqual([]);
    expect(entriesContaining(d, 'zbc')).toEqual([]);
  });
});

describe('how strings holding a needle are found', () => {
  it('needles of three or more units come from the substring index alone, shorter ones from the joined strings', () => {
    const d = makeDictionary(['abc', 'abcd', 'xbcx'], [EMPTY, EMPTY, EMPTY]);
    // Without the joined strings, only the substring index can answer.
    const gramsOnly: Dictionary = { ...d, blob: '', starts: new Int32Array(0) };
    expect(entriesContaining(gramsOnly, 'abc')).toEqual([0, 1]);
    expect(entriesContaining(gramsOnly, 'bcx')).toEqual([2]);
    // Without the substring index, only the joined strings can answer.
    const scanOnly: Dictionary = { ...d, grams: new Map(), wideGrams: new Map() };
    expect(entriesContaining(scanOnly, 'bc')).toEqual([0, 1, 2]);
    expect(entriesContaining(scanOnly, 'x')).toEqual([2]);
  });

  it('a unit of 0x80 or above makes a wide substring, below it an ASCII one', () => {
    const d = makeDictionary(['a\u0080b', 'a\u007fb', '\u0080\u0080\u0080'], [EMPTY, EMPTY, EMPTY]);
    expect(entriesContaining(d, 'a\u0080b')).toEqual([0]);
    expect(entriesContaining(d, 'a\u007fb')).toEqual([1]);
    expect(entriesContaining(d, '\u0080\u0080\u0080')).toEqual([2]);
    expect([...d.wideGrams.keys()].sort()).toEqual(['a\u0080b', '\u0080\u0080\u0080'].sort());
    expect(d.grams.size).toBe(1);
  });
});

describe('unionOf and unionContaining', () => {
  it('no string: nothing; one string: its own set; several: the union', () => {
    const a = makeSet([1, 3], 10);
    const b = makeSet([3, 4], 10);
    const d = makeDictionary(['ab', 'bc'], [a, b]);
    expect(unionOf(d, [], 10)).toBe(EMPTY);
    expect(unionOf(d, [1], 10)).toBe(b);
    expect(members(unionOf(d, [0, 1], 10), 10)).toEqual([1, 3, 4]);
    expect(members(unionContaining(d, 'b', 10), 10)).toEqual([1, 3, 4]);
    expect(members(unionContaining(d, 'c', 10), 10)).toEqual([3, 4]);
    expect(unionContaining(d, 'z', 10).size).toBe(0);
  });
});

/** Fragments `<w>-t<k>` and `<w>, <x>` over n items, with fragment groups as loaded. */
function fragmentDict(n: number, seed: number): { dict: Dictionary; lists: number[][] } {
  const rand = createRng(seed).next;
  const words = ['ab', 'cd', 'ef', 'gh', 'ij', 'kl', 'mn', 'op'];
  const frags: string[] = [];
  for (const w of words) {
    for (const t of ['-t1', '-t2', '-u3', ', x', ', y', ' of']) frags.push(`${w}${t}`);
    frags.push(`(${w}`, `${w}.`);
  }
  frags.push('...', ' - ');
  const { dict, lists } = dictOf(frags, n, rand);
  return { dict: { ...dict, groups: groupsOf(dict, n) }, lists };
}

describe('fragment groups', () => {
  it('groups fragments by their gap and the unit after it, or the unit before it and the gap, when they hold n/8 items together', () => {
    const n = 32;
    const f = (list: number[]): PosSet => makeSet(list, n);
    // Five fragments of 2 items each: `-t` (a-t, b-t, z-t) holds 6 items, `e-` (e-x, e-y) 4.
    const dict = makeDictionary(['a-t', 'b-t', 'e-x', 'e-y', 'z-t'], [f([0, 1]), f([2, 3]), f([4, 5]), f([6, 7]), f([8, 9])]);
    const g = groupsOf(dict, n);
    // Over 32 items both reach 32/8: `-t` on side 0 (the unit after the gap), `e-` on side 1 (the unit before).
    expect(Array.from(g.members)).toEqual([3, 2]);
    expect(Array.from(g.of)).toEqual([0, -1, 0, -1, -1, 1, -1, 1, 0, -1]);
    expect(members(g.sets[0]!, n)).toEqual([0, 1, 2, 3, 8, 9]);
    expect(members(g.sets[1]!, n)).toEqual([4, 5, 6, 7]);
    // 4 × 8 = 32 < 33: `e-` is dropped; 6 × 8 = 48: `-t` is kept up to 48 items.
    expect(Array.from(groupsOf(dict, 33).members)).toEqual([3]);
    expect(Array.from(groupsOf(dict, 33).of)).toEqual([0, -1, 0, -1, -1, -1, -1, -1, 0, -1]);
    expect(Array.from(groupsOf(dict, 48).members)).toEqual([3]);
    const none = groupsOf(dict, 49);
    expect(Array.from(none.members)).toEqual([]);
    expect(Array.from(none.of)).toEqual(new Array(10).fill(-1));
    expect(none.sets).toEqual([]);
  });

  it('a fragment without a term on one side joins no group on that side; a lone fragment forms no group', () => {
    const n = 8;
    const dict = makeDictionary(['(ab', '-', 'ab.', 'cd.'], [makeSet([0], n), makeSet([1], n), makeSet([2], n), makeSet([3], n)]);
    expect(dict.entries).toEqual(['(ab', '-', 'ab.', 'cd.'].sort(compareCodeUnits));
    const g = groupsOf(dict, n);
    // `(ab` has no term before its gap, `-` none on either side, `ab.` and `cd.` differ in the unit before it: no shared key.
    expect(Array.from(g.members)).toEqual([]);
    const shared = makeDictionary(['ab.', 'cb.'], [makeSet([0], n), makeSet([1], n)]);
    const gs = groupsOf(shared, n);
    expect(Array.from(gs.members)).toEqual([2]);
    expect(Array.from(gs.of)).toEqual([-1, 0, -1, 0]);
  });

  it('hits that make up whole groups are answered by the sets of the groups, from n/8 items on', () => {
    const n = 48;
    const f = (list: number[]): PosSet => makeSet(list, n);
    // `-t`: a-t, b-t, z-t (6 items, 6 × 8 = 48); `e-`: e-x, e-y (4 items, below 48/8).
    const plain = makeDictionary(['a-t', 'b-t', 'e-x', 'e-y', 'z-t'], [f([0, 1]), f([2, 3]), f([4, 5]), f([6, 7]), f([8, 9])]);
    const dict: Dictionary = { ...plain, groups: groupsOf(plain, n) };
    const dashT = dict.groups!.sets[0]!;
    expect(unionOf(dict, [0, 1, 4], n)).toBe(dashT);
    expect(unionContaining(dict, '-t', n)).toBe(dashT);
    // Not the whole group: a union of its own.
    const part = unionOf(dict, [0, 1], n);
    expect(part).not.toBe(dashT);
    expect(members(part, n)).toEqual([0, 1, 2, 3]);
    // The whole group and a loose fragment.
    const more = unionOf(dict, [0, 1, 2, 4], n);
    expect(members(more, n)).toEqual([0, 1, 2, 3, 4, 5, 8, 9]);
  });

  it('a fragment of a whole group is not added again for its other side', () => {
    const n = 16;
    const f = (list: number[]): PosSet => makeSet(list, n);
    // `-t` (a-t, b-t) on side 0; `b-` (b-t, b-u) on side 1; only `-t` is whole among the hits.
    const plain = makeDictionary(['a-t', 'b-t', 'b-u'], [f([0]), f([1]), f([2])]);
    const dict: Dictionary = { ...plain, groups: groupsOf(plain, n) };
    expect(Array.from(dict.groups!.members)).toEqual([2, 2]);
    expect(unionOf(dict, [0, 1], n)).toBe(dict.groups!.sets[0]);
    expect(unionOf(dict, [1, 2], n)).toBe(dict.groups!.sets[1]);
    expect(members(unionOf(dict, [0, 1, 2], n), n)).toEqual([0, 1, 2]);
  });

  it('fragments without a term after or before their gap are never grouped on that side', () => {
    const n = 8;
    const f = (list: number[]): PosSet => makeSet(list, n);
    const g = groupsOf(makeDictionary(['(ab', '(cd', 'ab.', 'cd.'], [f([0]), f([1]), f([2]), f([3])]), n);
    expect(Array.from(g.members)).toEqual([]);
  });

  it('the union of many fragments is the same with groups as without', () => {
    for (const seed of [1, 2, 3, 4]) {
      for (const n of [40, 200, 3000]) {
        const { dict } = fragmentDict(n, seed);
        const plain: Dictionary = { ...dict, groups: undefined };
        for (const needle of ['-t', '-t1', 't', '-', ', ', 'b-', 'b, ', 'f', ' of', '.', '(', 'b.', '-u', 'x', 'e', 'ab', 'b-t2']) {
          const hits = entriesContaining(dict, needle);
          const expected = members(unionOf(plain, hits, n), n);
          const withGroups = unionOf(dict, hits, n);
          expect(members(withGroups, n), `${seed} ${n} ${needle}`).toEqual(expected);
          const reference = [...new Set(hits.flatMap((h) => members(dict.postings[h]!, n)))].sort((a, b) => a - b);
          expect(expected).toEqual(reference);
        }
      }
    }
  });

  it('a subset of one group leaves that group out of the union', () => {
    const n = 16;
    const dict0 = makeDictionary(['a-t', 'b-t', 'c-t'], [makeSet([0, 1], n), makeSet([2, 3], n), makeSet([4, 5], n)]);
    const dict: Dictionary = { ...dict0, groups: groupsOf(dict0, n) };
    expect(Array.from(dict.groups!.members)).toEqual([3]);
    expect(members(unionOf(dict, [0, 1], n), n)).toEqual([0, 1, 2, 3]);
    expect(members(unionOf(dict, [0, 2], n), n)).toEqual([0, 1, 4, 5]);
    expect(members(unionOf(dict, [0, 1, 2], n), n)).toEqual([0, 1, 2, 3, 4, 5]);
  });

  it('fragments of two whole groups and a loose one', () => {
    const n = 16;
    const entries = ['a-t', 'b-t', 'c-', 'c-u', 'e-v', 'e-w'];
    const sets = [[0], [1], [2], [3, 4], [5, 6], [7, 8, 9]].map((l) => makeSet(l, n));
    const dict0 = makeDictionary(entries, sets);
    const dict: Dictionary = { ...dict0, groups: groupsOf(dict0, n) };
    // `-t` (a-t, b-t: 2 items ≥ 2), `c-` (c-, c-u), `e-` (e-v, e-w).
    expect(Array.from(dict.groups!.members)).toEqual([2, 2, 2]);
    expect(members(unionOf(dict, [0, 1, 2, 3, 4, 5], n), n)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(members(unionOf(dict, [0, 1, 3, 4], n), n)).toEqual([0, 1, 3, 4, 5, 6]);
    expect(members(unionOf(dict, [1, 2, 3], n), n)).toEqual([1, 2, 3, 4]);
  });
});

describe('gapsOf (q without letters or digits)', () => {
  it('lists each distinct gap once, in code-unit order, with the items of the fragments holding it', () => {
    const n = 10;
    const dict = makeDictionary(
      ['(a', 'a, b', 'a-b', 'b, c', 'c.'].sort(compareCodeUnits),
      [[0], [1], [2], [3], [4]].map((l) => makeSet(l, n)),
    );
    const gaps = gapsOf(dict, n);
    expect(gaps.entries).toEqual(['(', ', ', '-', '.']);
    expect(gaps.entries.map((_, i) => members(gaps.postings[i]!, n))).toEqual([[0], [1, 3], [2], [4]]);
    expect(members(unionContaining(gaps, ',', n), n)).toEqual([1, 3]);
    expect(gaps.exact.get('-')).toBe(2);
  });

  it('sorts the gaps whatever the order of the fragments holding them', () => {
    const n = 4;
    const dict = makeDictionary(
      ['a.x', 'b-x', 'c x'],
      [[0], [1], [2]].map((l) => makeSet(l, n)),
    );
    expect(gapsOf(dict, n).entries).toEqual([' ', '-', '.']);
  });

  it('a fragment is a term, one gap, a term (either term may be missing); nothing else', () => {
    for (const ok of ['a-b', '(a', 'a.', '...', 'a, b', 'é—b', '東-京']) expect(FRAGMENT_RE.test(ok), ok).toBe(true);
    for (const bad of ['ab', 'a-b-c', 'a\nb', '', '-a-']) expect(FRAGMENT_RE.test(bad), bad).toBe(false);
    expect(FRAGMENT_RE.exec('ab, cd')![1]).toBe(', ');
  });
});
