/**
 * Position sets of the item collections (spec §4.2; `api/_lib/collections/positions.ts`): membership,
 * intersections (filters and `q` ANDed), unions (`q` held by several strings), pages (`offset`, `limit`) and
 * samples, each compared with a plain reference over small seeded sets, including positions at word edges
 * (0, 31, 32, 63) and full 32-bit words. Also pins the module's cost model where it decides the shape of a
 * set: a bitset of ceil(n/32) words once a set holds at least n/32 positions, lists for cheap probes.
 */
import { describe, expect, it } from 'vitest';
import { createRng } from '../../api/_lib/util/prng.js';
import {
  EMPTY,
  has,
  intersect,
  intersect2,
  makeSet,
  page,
  sampleOf,
  unionSets,
  type PosSet,
} from '../../api/_lib/collections/positions.js';

/** Every position of `set` below `n`, ascending, read through `has` (the only way a query reads a set). */
function members(set: PosSet, n: number): number[] {
  const out: number[] = [];
  for (let p = 0; p < n; p++) if (has(set, p)) out.push(p);
  return out;
}

/** The positions a set describes, checking that its list, bitset and size agree. */
function contents(set: PosSet, n: number): number[] {
  const viaHas = members(set, n);
  if (set.list) expect(Array.from(set.list)).toEqual(viaHas);
  if (set.bits) {
    const fromBits: number[] = [];
    for (let p = 0; p < set.bits.length * 32; p++) if ((set.bits[p >>> 5]! >>> (p & 31)) & 1) fromBits.push(p);
    expect(fromBits).toEqual(viaHas);
  }
  expect(set.size).toBe(viaHas.length);
  return viaHas;
}

/** `count` distinct positions below `n`, ascending. */
function randomList(rand: () => number, n: number, count: number): number[] {
  const s = new Set<number>();
  while (s.size < Math.min(count, n)) s.add(Math.floor(rand() * n));
  return [...s].sort((a, b) => a - b);
}

const listOnly = (list: number[]): PosSet => ({ size: list.length, list, bits: undefined });

function bitsOnly(list: number[], n: number): PosSet {
  const bits = new Uint32Array((n + 31) >>> 5);
  for (const p of list) bits[p >>> 5]! |= 1 << (p & 31);
  return { size: list.length, list: undefined, bits };
}

const and = (...lists: number[][]): number[] => lists[0]!.filter((p) => lists.every((l) => l.includes(p)));
const or = (...lists: number[][]): number[] => [...new Set(lists.flat())].sort((a, b) => a - b);

describe('makeSet', () => {
  it('keeps the list as given and adds a bitset of ceil(n/32) words exactly when it holds at least n/32 positions', () => {
    const list = new Int32Array([0, 31, 32, 63, 64]);
    const dense = makeSet(list, 100);
    expect(dense.list).toBe(list);
    expect(dense.size).toBe(5);
    expect(dense.bits).toBeInstanceOf(Uint32Array);
    expect(dense.bits!.length).toBe(4);
    expect(contents(dense, 100)).toEqual([0, 31, 32, 63, 64]);
    // 5 positions over 160 items: 5 * 32 = 160, still dense; over 161 items, sparse.
    expect(makeSet(list, 160).bits!.length).toBe(5);
    const sparse = makeSet(list, 161);
    expect(sparse.bits).toBeUndefined();
    expect(contents(sparse, 161)).toEqual([0, 31, 32, 63, 64]);
  });

  it('an empty list over no items has no bitset and holds nothing', () => {
    const s = makeSet([], 0);
    expect(s.bits).toBeUndefined();
    expect(s.size).toBe(0);
    expect(has(s, 0)).toBe(false);
  });
});

describe('has', () => {
  it('finds every member and nothing else, in lists of every length and in bitsets', () => {
    const rand = createRng(11).next;
    for (const n of [1, 2, 3, 7, 33, 64, 65, 200]) {
      for (const count of [0, 1, 2, 3, 4, 5, 8, 17, n]) {
        const list = randomList(rand, n, count);
        for (const set of [listOnly(list), bitsOnly(list, n)]) {
          for (let p = -1; p <= n; p++) expect(has(set, p), `${n} ${JSON.stringify(list)} ${p}`).toBe(list.includes(p));
        }
      }
    }
  });

  it('reads the high bit of a word', () => {
    const set = bitsOnly([31, 63], 64);
    expect(members(set, 64)).toEqual([31, 63]);
  });
});

describe('intersect (filters and q ANDed)', () => {
  it('no sets means no constraint; one set is answered as it is', () => {
    expect(intersect([], 10)).toBeUndefined();
    const one = listOnly([1, 2]);
    expect(intersect([one], 10)).toBe(one);
  });

  it('any empty set empties the result', () => {
    expect(intersect([listOnly([1, 2, 3]), EMPTY, bitsOnly([1, 2], 64)], 64)).toBe(EMPTY);
    expect(intersect([listOnly([1, 2, 3]), listOnly([])], 64)!.size).toBe(0);
  });

  it('matches the reference for sparse, dense and mixed sets, two to four at a time', () => {
    const rand = createRng(5).next;
    for (let k = 0; k < 300; k++) {
      const n = 1 + Math.floor(rand() * 300);
      const count = 2 + Math.floor(rand() * 3);
      const lists = Array.from({ length: count }, () => randomList(rand, n, Math.floor(rand() * rand() * n) + 1));
      const sets = lists.map((l) => {
        const r = rand();
        return r < 0.4 ? listOnly(l) : r < 0.6 ? bitsOnly(l, n) : makeSet(l, n);
      });
      const got = intersect(sets, n)!;
      expect(contents(got, n), JSON.stringify({ n, lists })).toEqual(and(...lists));
    }
  });

  it('sorts the sets by size, smallest first, and probes the smallest list when that is cheap', () => {
    const big = makeSet(
      Array.from({ length: 200 }, (_, i) => i),
      256,
    );
    const small = listOnly([3, 100, 250]);
    const sets = [big, small];
    const got = intersect(sets, 256)!;
    expect(sets[0]).toBe(small);
    expect(got.list).toEqual([3, 100]);
    expect(got.bits).toBeUndefined();
    // 8 words: 3 probes of one other set cost less than half of 2 × 8 word steps.
    const at = (m: number): PosSet => listOnly(Array.from({ length: m }, (_, i) => i * 3));
    expect(
      intersect(
        [
          at(8),
          makeSet(
            Array.from({ length: 256 }, (_, i) => i),
            256,
          ),
        ],
        256,
      )!.list,
    ).toHaveLength(8);
    // 9 positions against one set over 8 words: 9 > 8, so the bitsets are ANDed.
    const anded = intersect(
      [
        at(9),
        makeSet(
          Array.from({ length: 256 }, (_, i) => i),
          256,
        ),
      ],
      256,
    )!;
    expect(anded.list).toBeUndefined();
    expect(contents(anded, 256)).toEqual(Array.from({ length: 9 }, (_, i) => i * 3));
  });

  it('ANDs bitsets of three or more sets and counts the result, full words included', () => {
    const n = 128;
    const all = Array.from({ length: n }, (_, i) => i);
    const evens = all.filter((p) => p % 2 === 0);
    const low = all.filter((p) => p < 96);
    const sets = [makeSet(all, n), makeSet(low, n), makeSet(evens, n)];
    const got = intersect(sets, n)!;
    expect(got.list).toBeUndefined();
    expect(contents(got, n)).toEqual(evens.filter((p) => p < 96));
    const full = intersect([makeSet(all, n), makeSet(all, n), makeSet(all, n)], n)!;
    expect(full.size).toBe(n);
    // A list-only smallest set is turned into a bitset for the AND.
    const viaList = intersect([listOnly(low), makeSet(all, n), makeSet(evens, n)], n)!;
    expect(contents(viaList, n)).toEqual(evens.filter((p) => p < 96));
  });
});

describe('intersect2 (candidates narrowed by one window)', () => {
  it('matches the reference whatever the order and shape of its arguments', () => {
    const rand = createRng(9).next;
    for (let k = 0; k < 400; k++) {
      const n = 1 + Math.floor(rand() * 400);
      const a = randomList(rand, n, Math.floor(rand() * rand() * n) + (rand() < 0.1 ? 0 : 1));
      const b = randomList(rand, n, Math.floor(rand() * n) + 1);
      const shape = (l: number[]): PosSet => {
        const r = rand();
        return r < 0.4 ? listOnly(l) : r < 0.6 ? bitsOnly(l, n) : makeSet(l, n);
      };
      const x = shape(a);
      const y = shape(b);
      expect(contents(intersect2(x, y, n), n), JSON.stringify({ n, a, b })).toEqual(and(a, b));
      expect(contents(intersect2(y, x, n), n)).toEqual(and(a, b));
    }
  });

  it('gallops through long lists: runs, gaps and members at both ends', () => {
    const n = 5000;
    const long = Array.from({ length: 2000 }, (_, i) => i * 2 + 1);
    for (const short of [
      [1],
      [3999],
      [0, 4000],
      [1, 2, 3, 4, 5, 6, 7, 8, 9],
      [17, 1001, 1003, 3001, 3999],
      [2, 4, 6],
      [3997, 3999, 4001],
    ]) {
      expect(contents(intersect2(listOnly(short), listOnly(long), n), n), JSON.stringify(short)).toEqual(and(short, long));
    }
  });

  it('an empty side gives the empty set', () => {
    expect(intersect2(listOnly([1, 2]), EMPTY, 10)).toBe(EMPTY);
    expect(intersect2(EMPTY, bitsOnly([1], 10), 10)).toBe(EMPTY);
  });

  it('tests a list against a bitset bit by bit, and ANDs two bitsets once the shorter set outgrows the word count', () => {
    const n = 320; // 10 words
    const dense = makeSet(
      Array.from({ length: 200 }, (_, i) => i + 10),
      n,
    );
    // Ten positions in a dense set of ten words: still probed bit by bit.
    const ten = [0, 5, 10, 31, 32, 63, 209, 210, 300, 319];
    const probe = intersect2(makeSet(ten, n), dense, n);
    expect(probe.list).toEqual([10, 31, 32, 63, 209]);
    expect(probe.bits).toBeUndefined();
    // Eleven: the two bitsets are ANDed.
    const both = intersect2(makeSet([...ten, 311], n), dense, n);
    expect(both.list).toBeUndefined();
    expect(contents(both, n)).toEqual([10, 31, 32, 63, 209]);
    // A longer list without a bitset is probed all the same.
    const sparse = intersect2(listOnly([...ten, 311]), dense, n);
    expect(sparse.list).toEqual([10, 31, 32, 63, 209]);
  });

  it('builds the missing bitset from a list when ANDing', () => {
    const n = 64;
    const a = makeSet([1, 2, 3, 4, 5, 6], n);
    const b = listOnly([2, 4, 6, 8, 10, 12, 14, 16]);
    const got = intersect2(a, b, n);
    expect(contents(got, n)).toEqual([2, 4, 6]);
  });
});

describe('unionSets (q held by several strings)', () => {
  it('one set is answered as it is', () => {
    const s = listOnly([4]);
    expect(unionSets([s], 100)).toBe(s);
  });

  it('merges sparse lists into one sorted list without repeats', () => {
    const got = unionSets([listOnly([5, 90]), listOnly([1, 5, 40]), listOnly([90, 91])], 1000);
    expect(got.bits).toBeUndefined();
    expect(got.list).toEqual([1, 5, 40, 90, 91]);
    expect(got.size).toBe(5);
    // Int32Array sort is numeric, so 10 comes after 9.
    expect(unionSets([listOnly([10]), listOnly([9])], 1000).list).toEqual([9, 10]);
  });

  it('switches to a bitset at n/32 positions in all, or with one dense set', () => {
    // 3 positions over 96 items: 3 × 32 = 96, a bitset.
    const atLimit = unionSets([listOnly([1]), listOnly([2, 95])], 96);
    expect(atLimit.list).toBeUndefined();
    expect(contents(atLimit, 96)).toEqual([1, 2, 95]);
    const below = unionSets([listOnly([1]), listOnly([2, 95])], 97);
    expect(below.list).toEqual([1, 2, 95]);
    const withDense = unionSets([listOnly([1]), bitsOnly([2], 10_000)], 10_000);
    expect(withDense.list).toBeUndefined();
    expect(contents(withDense, 10_000)).toEqual([1, 2]);
  });

  it('matches the reference for mixes of dense and sparse sets, with full words', () => {
    const rand = createRng(3).next;
    for (let k = 0; k < 300; k++) {
      const n = 1 + Math.floor(rand() * 300);
      const count = 2 + Math.floor(rand() * 4);
      const lists = Array.from({ length: count }, () => {
        const r = rand();
        if (r < 0.1) return Array.from({ length: n }, (_, i) => i);
        if (r < 0.2) return Array.from({ length: Math.min(n, 64) }, (_, i) => i);
        return randomList(rand, n, Math.floor(rand() * rand() * n) + 1);
      });
      const sets = lists.map((l) => (rand() < 0.5 ? listOnly(l) : makeSet(l, n)));
      expect(contents(unionSets(sets, n), n), JSON.stringify({ n, lists })).toEqual(or(...lists));
    }
  });

  it('a word filled by one set is not changed by the others, and the count is right', () => {
    const n = 96;
    const first = Array.from({ length: 32 }, (_, i) => i);
    const got = unionSets([makeSet(first, n), makeSet([0, 5, 40], n), makeSet([31, 64, 95], n)], n);
    expect(contents(got, n)).toEqual(or(first, [40], [64, 95]));
    expect(got.size).toBe(35);
  });
});

describe('page (offset and limit)', () => {
  it('pages all items when there is no constraint', () => {
    expect(page(undefined, 10, 0, 3)).toEqual([0, 1, 2]);
    expect(page(undefined, 10, 8, 5)).toEqual([8, 9]);
    expect(page(undefined, 10, 10, 5)).toEqual([]);
    expect(page(undefined, 10, 3, 1)).toEqual([3]);
  });

  it('slices a list', () => {
    const s = listOnly([2, 4, 6, 8]);
    expect(page(s, 10, 1, 2)).toEqual([4, 6]);
    expect(page(s, 10, 3, 5)).toEqual([8]);
    expect(page(s, 10, 4, 5)).toEqual([]);
  });

  it('walks a bitset: skips whole words and bits within a word, stops at the limit', () => {
    const rand = createRng(21).next;
    for (let k = 0; k < 300; k++) {
      const n = 1 + Math.floor(rand() * 200);
      const list = rand() < 0.2 ? Array.from({ length: n }, (_, i) => i) : randomList(rand, n, Math.floor(rand() * n) + 1);
      const offset = Math.floor(rand() * (list.length + 2));
      const limit = 1 + Math.floor(rand() * 40);
      expect(page(bitsOnly(list, n), n, offset, limit), JSON.stringify({ n, list, offset, limit })).toEqual(
        list.slice(offset, offset + limit),
      );
    }
  });

  it('an offset that lands exactly on a word boundary or inside a full word', () => {
    const n = 96;
    const all = Array.from({ length: n }, (_, i) => i);
    const s = bitsOnly(all, n);
    expect(page(s, n, 32, 2)).toEqual([32, 33]);
    expect(page(s, n, 31, 2)).toEqual([31, 32]);
    expect(page(s, n, 33, 1)).toEqual([33]);
    expect(page(s, n, 95, 10)).toEqual([95]);
    const sparse = bitsOnly([3, 40, 70], n);
    expect(page(sparse, n, 1, 1)).toEqual([40]);
    expect(page(sparse, n, 2, 5)).toEqual([70]);
    expect(page(sparse, n, 3, 5)).toEqual([]);
  });
});

describe('sampleOf', () => {
  it('takes k positions spread evenly over a list', () => {
    const list = Array.from({ length: 100 }, (_, i) => i * 2);
    expect(sampleOf(listOnly(list), 4)).toEqual([0, 50, 100, 150]);
    expect(sampleOf(listOnly([7, 9]), 4)).toEqual([7, 7, 9, 9]);
  });

  it('takes the first member at or after evenly spread words of a bitset, ascending, at most one per word', () => {
    const n = 320; // 10 words
    const list = [5, 40, 41, 100, 200, 319];
    expect(sampleOf(bitsOnly(list, n), 5)).toEqual([5, 100, 200, 319]);
    expect(sampleOf(bitsOnly(list, n), 10)).toEqual([5, 40, 100, 200, 319]);
    expect(sampleOf(bitsOnly([0, 1, 2], 64), 3)).toEqual([0]);
    expect(sampleOf(bitsOnly([31, 63], 64), 2)).toEqual([31, 63]);
    expect(sampleOf(bitsOnly([], 64), 2)).toEqual([]);
  });
});
