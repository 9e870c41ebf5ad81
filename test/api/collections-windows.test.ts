/**
 * `q` of the item collections (spec §4.2: a folded substring of one search field;
 * `api/_lib/collections/windows.ts`). Every way a `q` is answered (term postings, gaps, one fragment window,
 * several windows by exact, prefix and containment lookups, narrowing, confirmation) is compared with a plain
 * substring scan of the search texts. The module's cost model is pinned by counting the search texts a query
 * confirms: few candidates are confirmed directly, up to two further windows narrow a mid-sized candidate set
 * without sampling, and a large one is narrowed first by the window a sample says keeps the fewest.
 */
import { describe, expect, it } from 'vitest';
import { createRng } from '../../api/_lib/util/prng.js';
import { indexCollection } from '../../build/derive/collections.js';
import { loadIndex, type LoadedCollection } from '../../api/_lib/collections/load.js';
import { qSet } from '../../api/_lib/collections/windows.js';
import { has } from '../../api/_lib/collections/positions.js';
import { foldText } from '../../api/_lib/formats/collection-index.js';

type Rec = Record<string, unknown>;

function load(items: Rec[]): LoadedCollection {
  return loadIndex(indexCollection('relics', { relics: items })!.file);
}

/** Positions matching `q` by a plain scan (search texts are already folded; fields are joined by a line feed `q` never holds). */
function reference(index: LoadedCollection, q: string): number[] | undefined {
  const fq = foldText(q);
  if (fq === '') return undefined;
  return texts(index).flatMap((t, p) => (t.includes(fq) ? [p] : []));
}

/** Every item's search text. */
function texts(index: LoadedCollection): string[] {
  return Array.from({ length: index.n }, (_, p) => index.searchText(p));
}

function answer(index: LoadedCollection, q: string): number[] | undefined {
  const s = qSet(index, q);
  if (s === undefined) return undefined;
  const out: number[] = [];
  for (let p = 0; p < index.n; p++) if (has(s, p)) out.push(p);
  expect(s.size, q).toBe(out.length);
  return out;
}

/** `index` whose search texts count how often a query reads them (one read per confirmed candidate). */
function counting(index: LoadedCollection): { index: LoadedCollection; reads: () => number } {
  let reads = 0;
  return {
    index: {
      ...index,
      searchText: (p) => {
        reads++;
        return index.searchText(p);
      },
    },
    reads: () => {
      const r = reads;
      reads = 0;
      return r;
    },
  };
}

describe('q against a plain substring scan', () => {
  const rand = createRng(2024).next;
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;
  const WORDS = ['frost', 'fro', 'frosty', 'ember', 'of', 'the', 'a', 'sun', 'moon', 'Épée', 'stone', 'ston', 'Widget™'];
  const GAPS = [' ', ' ', ' ', ', ', '-', '. ', ' (', ') ', ' - ', '? ', ': ', '_', '@', '[', '~', '|', '{'];
  const N = 700;
  const items: Rec[] = Array.from({ length: N }, (_, i) => {
    let d = pick(WORDS);
    const len = 1 + Math.floor(rand() * 7);
    for (let k = 0; k < len; k++) d += pick(GAPS) + pick(WORDS);
    if (rand() < 0.3) d += pick(['.', '!', '', '?!']);
    if (rand() < 0.05) d = pick(['...', ' - ', '(', '東京-タワー']);
    return { uuid: `RELC-${i}`, id: `relic-${i}`, name: `${pick(WORDS)} ${pick(WORDS)}`, description: d, tier: 1 + (i % 8) };
  });
  const index = load(items);

  it('hand-picked q of every shape', () => {
    const qs = [
      'frost',
      'fro',
      'ro',
      'r',
      'x',
      'épée',
      'EPEE', // one run: terms
      '-',
      ', ',
      '. ',
      ' (',
      ') ',
      '.',
      '...',
      '?!',
      '—',
      ' - ', // no letters: gaps
      'frost.',
      'of,',
      '(sun',
      'frost-',
      '-frost',
      ', the',
      ') a', // a run and a gap at one end
      'of frost',
      'the-sun',
      'a, moon',
      'ston stone', // two whole runs
      'of the sun',
      'frost of the moon',
      'the sun, the',
      'a stone-of',
      'sun moon frost ember', // several windows
      'of the s',
      'f the sun',
      'rost of',
      'ost of the mo',
      'e sun, a', // windows cut inside words
      'sun (frost) a',
      'of the sun.',
      'the moon!',
      ' the sun ',
      'the  sun',
      'fro fro',
      'a a a a',
      'a a',
      'zz of',
      'of zz',
      'of the zz',
      'zz the of',
      '東京-タ',
      'タワー',
      '京-',
      '東京',
      'relic-1',
      'relic-12 ',
      'frost\nsun',
      'sun~the',
      'a|moon',
      'of{the',
      'sun? the',
      'of_the',
      'a@sun',
      'moon[a',
      'e: a',
      'frost_',
      '[sun',
      ': ',
      '?',
      'widget™ of',
      'WIDGETTM the',
      'the widgettm',
      'of widget™ a',
      'gettm', // capitals from compatibility forms fold to lower case
    ];
    for (const q of qs) expect(answer(index, q), JSON.stringify(q)).toEqual(reference(index, q));
  });

  it('q that folds to nothing is no constraint', () => {
    expect(qSet(index, '')).toBeUndefined();
    expect(qSet(index, '  \t ')).toBeUndefined();
  });

  it('substrings cut anywhere from the search texts', () => {
    for (let k = 0; k < 600; k++) {
      const t = index.searchText(Math.floor(rand() * N)).split('\n')[Math.floor(rand() * 3)] ?? '';
      if (t === '') continue;
      const start = Math.floor(rand() * t.length);
      let q = t.slice(start, start + 1 + Math.floor(rand() * 30));
      if (rand() < 0.2) q = q.toUpperCase();
      if (rand() < 0.1) q = `${q}q`;
      expect(answer(index, q), JSON.stringify(q)).toEqual(reference(index, q));
    }
  });

  it('phrases stitched from words and gaps, most of them matching nothing', () => {
    for (let k = 0; k < 800; k++) {
      let q = rand() < 0.3 ? pick(GAPS) : '';
      const len = 1 + Math.floor(rand() * 4);
      for (let j = 0; j < len; j++) q += (j > 0 ? pick(GAPS) : '') + pick(WORDS);
      if (rand() < 0.3) q += pick(GAPS);
      if (rand() < 0.3) q = q.slice(Math.floor(rand() * 3));
      expect(answer(index, q), JSON.stringify(q)).toEqual(reference(index, q));
    }
  });
});

describe('cost: q answered without confirming', () => {
  it('one run, no run, or one window reads no search text', () => {
    const base = phrased([
      [40, ['of the frost', 'sun, moon']],
      [40, ['the frost', 'a-b']],
    ]);
    const { index, reads } = counting(base);
    for (const q of ['frost', 'fro', 'n7', 'n1', ', ', '-', '.', 'frost.', ', moon', 'of the', 'the frost', 'sun, moon', 'e fro']) {
      expect(answer(index, q), q).toEqual(reference(base, q));
      reads();
      qSet(index, q);
      expect(reads(), q).toBe(0);
    }
    // Two windows: the candidates are confirmed.
    reads();
    qSet(index, 'of the frost');
    expect(reads()).toBeGreaterThan(0);
  });
});

describe('windows found by prefix among many fragments', () => {
  it('a last window held by the last fragments of the dictionary', () => {
    const index = load([
      { uuid: 'RELC-1', id: 'x1', name: 'n1', description: 'one zzz top' },
      { uuid: 'RELC-2', id: 'x2', name: 'n2', description: 'one zzz' },
    ]);
    expect(index.fragments.entries.at(-1)).toBe('zzz top');
    for (const q of ['one zzz t', 'one zzz top', 'one zzz to', 'one zzz x']) expect(answer(index, q), q).toEqual(reference(index, q));
  });

  it('a last window that starts many fragments, and one that starts exactly four or five', () => {
    const items: Rec[] = [];
    const tails = ['aa', 'ab', 'ac', 'ad', 'ae', 'af', 'ag', 'ah', 'b', 'ba'];
    tails.forEach((t, i) => items.push({ uuid: `RELC-${i}`, id: `x${i}`, name: `n${i}`, description: `one zed-${t}` }));
    ['ca', 'cb', 'cc', 'cd'].forEach((t, i) => items.push({ uuid: `RELC-C${i}`, id: `y${i}`, name: `m${i}`, description: `one zed-${t}` }));
    ['da', 'db', 'dc', 'dd', 'de'].forEach((t, i) =>
      items.push({ uuid: `RELC-D${i}`, id: `z${i}`, name: `k${i}`, description: `one zed-${t}` }),
    );
    items.push(
      { uuid: 'RELC-E', id: 'w0', name: 'j0', description: 'one zed-e' },
      { uuid: 'RELC-F', id: 'w1', name: 'j1', description: 'zed-a one' },
    );
    const index = load(items);
    for (const q of [
      'one zed-a',
      'one zed-',
      'e zed-a',
      'ne zed-b',
      'one zed-c',
      'one zed-d',
      'one zed-e',
      'one zed-ca',
      'one zed-aa',
      'one zed-ah',
      'one zed-ba',
      'one zed-z',
      'e zed-d',
      'zed-a one',
      'zed-a on',
      'one zed-dd',
      'one zed-de',
    ]) {
      expect(answer(index, q), q).toEqual(reference(index, q));
    }
  });
});

/** Items whose descriptions are the sentences each group lists, repeated `count` times: `[count, sentences]`. */
function phrased(groups: readonly (readonly [number, readonly string[]])[]): LoadedCollection {
  const items: Rec[] = [];
  for (const [count, sentences] of groups) {
    for (let k = 0; k < count; k++) {
      const i = items.length;
      items.push({ uuid: `RELC-${i}`, id: `r${i}`, name: `n${i}`, description: sentences.map((s) => `${s}.`).join(' ') });
    }
  }
  return load(items);
}

describe('cost: the search texts a q of several windows confirms', () => {
  const Q = 'a1 b1 c1 d1 e1';
  const AB = 'a1 b1';
  const BC = 'b1 c1';
  const CD = 'c1 d1';
  const DE = 'd1 e1';

  it('at most 32 candidates are confirmed directly; 33 are narrowed first', () => {
    for (const [rare, expected] of [
      [32, 32],
      [33, 10],
    ] as const) {
      const base = phrased([
        [10, [Q]],
        [rare - 10, [AB]],
        [50, [BC, CD, DE]],
      ]);
      const { index, reads } = counting(base);
      expect(answer(index, Q)).toEqual(reference(base, Q));
      reads();
      qSet(index, Q);
      expect(reads(), `${rare}`).toBe(expected);
    }
  });

  it('a mid-sized candidate set is narrowed by the next two rarest windows only', () => {
    const base = phrased([
      [10, [Q]],
      [30, [AB, BC, CD, DE]],
      [20, [AB, BC, CD]],
      [20, [AB, BC]],
      [20, [AB]],
      [40, [BC]],
      [80, [CD]],
      [120, [DE]],
    ]);
    // Bounds: AB 100, BC 120, CD 140, DE 160. AB ∩ BC = 80, ∩ CD = 60; DE would leave 40.
    const { index, reads } = counting(base);
    expect(answer(index, Q)).toEqual(Array.from({ length: 10 }, (_, i) => i));
    reads();
    qSet(index, Q);
    expect(reads()).toBe(60);
  });

  it('a window held by several fragments narrows few candidates by testing each of them', () => {
    const Q5 = 'a1 b1 c1 d1 e';
    const base = phrased([
      [5, [Q]],
      [15, [AB, BC, CD, 'd1 e2']],
      [20, [AB, BC, CD]],
      [40, ['d1 e1']],
      [30, ['d1 e2']],
      [110, [BC, CD]],
    ]);
    // Bounds: AB 40, `d1 e` (d1 e1 and d1 e2) 90, BC 150, CD 150: the 40 candidates are tested against both fragments.
    const { index, reads } = counting(base);
    expect(answer(index, Q5)).toEqual([0, 1, 2, 3, 4]);
    reads();
    qSet(index, Q5);
    expect(reads()).toBe(20);
  });

  it('a mid-sized set of exactly 256 candidates is narrowed blind, without a sample', () => {
    const groups: [number, string[]][] = [];
    for (let p = 0; p < 256; p++)
      groups.push([1, p % 4 === 0 && p < 16 ? [Q] : p % 4 === 0 ? [AB, BC, CD, DE] : p % 2 === 0 ? [AB, BC, CD] : [AB, BC]]);
    groups.push([10, [BC]], [200, [CD]], [300, [DE]]);
    const base = phrased(groups);
    const { index, reads } = counting(base);
    expect(answer(index, Q)).toEqual([0, 4, 8, 12]);
    reads();
    qSet(index, Q);
    // BC keeps all 256, CD half of them; DE (a quarter) is not reached.
    expect(reads()).toBe(128);
  });

  it('a large set is narrowed by the next rarest window when it keeps 25 of the 32 sampled candidates', () => {
    // AB holds items 0-319; the sample takes every tenth. BC leaves out 0, 10, …, 60 (7 of the sample).
    const groups: [number, string[]][] = [];
    for (let p = 0; p < 320; p++) groups.push([1, p >= 1 && p <= 4 ? [Q] : p % 10 === 0 && p <= 60 ? [AB, CD, DE] : [AB, BC, CD, DE]]);
    groups.push([20, [BC]], [30, [CD]], [40, [DE]]);
    const base = phrased(groups);
    const { index, reads } = counting(base);
    expect(answer(index, Q)).toEqual([1, 2, 3, 4]);
    reads();
    qSet(index, Q);
    expect(reads()).toBe(313);
  });

  it('while sampling, a window held by more than eight fragments is left to the confirmation', () => {
    const Q5 = 'a1 b1 c1 d1 e';
    const readsWith = (fragments: number): number => {
      const groups: [number, string[]][] = [];
      for (let p = 0; p < 300; p++) groups.push([1, p < 4 ? [Q] : p % 4 === 0 ? [AB, BC, CD, 'd1 e2'] : [AB, BC, CD]]);
      groups.push([10, [BC]], [20, [CD]]);
      for (let k = 1; k <= fragments; k++) groups.push([40, [`d1 e${k}`]]);
      const base = phrased(groups);
      const { index, reads } = counting(base);
      expect(answer(index, Q5)).toEqual([0, 1, 2, 3]);
      reads();
      qSet(index, Q5);
      return reads();
    };
    // Eight fragments: sampled, and it keeps a quarter (every fourth item and the four whole phrases).
    expect(readsWith(8)).toBe(78);
    // Nine: not sampled; BC and CD keep everything, so all 300 candidates are confirmed.
    expect(readsWith(9)).toBe(300);
  });

  it('each window is bounded by the fragments its lookup may use: whole, starting or containing it', () => {
    // Near misses that only a looser lookup would count: `b1 c10` starts with `b1 c1`, `xa1 b1` and `xd1 e1`
    // contain `a1 b1` and `d1 e1`; `a1 q1` shares only the first run. Bounds: BC 50 (exact), DE 60 (prefix), AB 300 (containment), CD 400.
    const base = phrased([
      [5, [Q]],
      [15, [AB, BC, DE]],
      [15, [BC, DE]],
      [10, [AB, BC]],
      [5, [BC]],
      [10, [AB, DE, CD]],
      [10, [AB, DE]],
      [5, [DE]],
      [385, [CD]],
      [250, ['xa1 b1']],
      [500, ['b1 c10']],
      [350, ['xd1 e1']],
      [100, ['a1 q1']],
    ]);
    const { index, reads } = counting(base);
    expect(answer(index, Q)).toEqual([0, 1, 2, 3, 4]);
    reads();
    qSet(index, Q);
    // BC first, then DE (35 left), then AB (20 left).
    expect(reads()).toBe(20);
  });

  it('a window after the last run counts: the rarest may be the one that ends q', () => {
    const Q3 = 'a1 b1 zz!';
    const base = phrased([
      [3, ['a1 b1 zz!']],
      [37, [AB, 'b1 zz']],
      [40, [AB]],
      [40, ['b1 zz']],
      [10, ['q zz']],
    ]);
    // Bounds: `zz!` 3 (its fragment is `zz!.`), `b1 zz` 80, `a1 b1` 80.
    const { index, reads } = counting(base);
    expect(answer(index, Q3)).toEqual([0, 1, 2]);
    reads();
    qSet(index, Q3);
    expect(reads()).toBe(3);
  });

  it('windows of equal bound keep their order in q', () => {
    const base = phrased([
      [5, [Q]],
      [20, [BC, CD, DE]],
      [10, [BC, CD, AB]],
      [5, [BC, CD]],
      [20, [CD]],
      [55, [DE]],
      [65, [AB]],
    ]);
    // Bounds: BC 40, CD 60, DE 80, AB 80. DE comes before AB in q's windows (AB, the first, is looked up last).
    const { index, reads } = counting(base);
    expect(answer(index, Q)).toEqual([0, 1, 2, 3, 4]);
    reads();
    qSet(index, Q);
    expect(reads()).toBe(25);
  });

  it('a large candidate set is narrowed by the window a sample finds narrowest, skipping one that keeps them all', () => {
    // AB (300) is the rarest window; BC holds all of AB, CD every second and DE every fourth of AB's items.
    const groups: [number, string[]][] = [[4, [Q]]];
    for (let i = 4; i < 300; i++) groups.push([1, i % 4 === 0 ? [AB, BC, CD, DE] : i % 2 === 0 ? [AB, BC, CD] : [AB, BC]]);
    groups.push([20, [BC]], [200, [CD]], [300, [DE]]);
    const base = phrased(groups);
    const { index, reads } = counting(base);
    expect(answer(index, Q)).toEqual([0, 1, 2, 3]);
    reads();
    qSet(index, Q);
    // DE leaves 78 (the 4 whole phrases and every fourth of the rest); then BC and CD, blind, leave them all.
    expect(reads()).toBe(78);
  });

  it('stops narrowing a large set when no window keeps less than four fifths of the sample', () => {
    const groups: [number, string[]][] = [[4, [Q]]];
    // BC keeps 27 of every 32 of AB's items: 84 %, above the share worth intersecting.
    for (let i = 4; i < 320; i++) groups.push([1, i % 32 < 27 ? [AB, BC, CD, DE] : [AB, CD, DE]]);
    groups.push([100, [BC]], [100, [CD]], [120, [DE]]);
    const base = phrased(groups);
    const { index, reads } = counting(base);
    expect(answer(index, Q)).toEqual([0, 1, 2, 3]);
    reads();
    qSet(index, Q);
    expect(reads()).toBe(320);
  });
});
