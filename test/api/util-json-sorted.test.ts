/**
 * Shared helpers for parsed JSON and locale-free ordering (`api/_lib/util/json.ts`, `api/_lib/util/sorted.ts`):
 * the plain-object test, RFC 6901 pointers as build problems name them (spec §2.7), keys sorted for
 * deterministic output, code-unit comparison (never a locale's), and the binary searches the dictionary
 * lookups of the search, collection and registry indexes rely on (spec §4.2, §4.4-4.6), checked against a
 * linear scan.
 */
import { describe, expect, it } from 'vitest';
import { escapePointer, isRecord, jsonPointer, pointerSegments, valueAtPointer, sortKeys } from '../../api/_lib/util/json.js';
import { byCodeUnits, compareCodeUnits, lowerBound, prefixEnd } from '../../api/_lib/util/sorted.js';
import { createRng } from '../../api/_lib/util/prng.js';

describe('isRecord', () => {
  it('is true for objects only: not null, arrays or primitives', () => {
    expect(isRecord({})).toBe(true);
    expect(isRecord({ a: 1 })).toBe(true);
    expect(isRecord(Object.create(null))).toBe(true);
    for (const v of [null, undefined, [], [1], 'x', 1, true]) expect(isRecord(v), JSON.stringify(v)).toBe(false);
  });
});

describe('JSON pointers (RFC 6901)', () => {
  it('escapes ~ and / in every place of a segment, ~ first', () => {
    expect(escapePointer('a/b/c')).toBe('a~1b~1c');
    expect(escapePointer('~~')).toBe('~0~0');
    expect(escapePointer('~1')).toBe('~01');
    expect(escapePointer('/~')).toBe('~1~0');
    expect(escapePointer(3)).toBe('3');
    expect(escapePointer('')).toBe('');
  });

  it('builds pointers from segments and reads them back', () => {
    expect(jsonPointer()).toBe('');
    expect(jsonPointer('icons', 3, 'key')).toBe('/icons/3/key');
    expect(jsonPointer('a/b', '~x', '')).toBe('/a~1b/~0x/');
    expect(pointerSegments('')).toEqual([]);
    expect(pointerSegments('/')).toEqual(['']);
    expect(pointerSegments('/icons/3/key')).toEqual(['icons', '3', 'key']);
    expect(pointerSegments('/a~1b~1c/~0x~0/~01')).toEqual(['a/b/c', '~x~', '~1']);
    for (const segs of [['a/b', '~x', ''], ['~01', '/~'], ['plain']]) expect(pointerSegments(jsonPointer(...segs))).toEqual(segs);
  });
});

describe('sortKeys', () => {
  it('copies an object with its keys in code-unit order, values kept', () => {
    const src = { b: 1, a: 2, B: 3, é: 4, '10': 5, '9': 6 };
    const out = sortKeys(src);
    expect(out).not.toBe(src);
    expect(out).toEqual(src);
    // Integer-like keys come first in any JS object; the others follow in code-unit order.
    expect(Object.keys(out)).toEqual(['9', '10', 'B', 'a', 'b', 'é']);
    expect(JSON.stringify(sortKeys({ z: 'a', y: { b: 1 }, x: null }))).toBe('{"x":null,"y":{"b":1},"z":"a"}');
  });
});

describe('code-unit order', () => {
  it('compares by UTF-16 code units: -1, 0 or 1', () => {
    expect(compareCodeUnits('a', 'b')).toBe(-1);
    expect(compareCodeUnits('b', 'a')).toBe(1);
    expect(compareCodeUnits('a', 'a')).toBe(0);
    expect(compareCodeUnits('Z', 'a')).toBe(-1);
    expect(compareCodeUnits('a', 'ab')).toBe(-1);
    // A locale would put é next to e; code units put it after z.
    expect(['é', 'z', 'e'].sort(compareCodeUnits)).toEqual(['e', 'z', 'é']);
    // U+FF21 sorts after a surrogate pair's high unit U+D83D in code units, though its code point is lower.
    expect(compareCodeUnits('\uFF21', '😀')).toBe(1);
  });

  it('orders values by a string key', () => {
    const rows = [{ k: 'b' }, { k: 'a' }, { k: 'é' }, { k: 'B' }];
    expect(rows.sort(byCodeUnits((r) => r.k)).map((r) => r.k)).toEqual(['B', 'a', 'b', 'é']);
    expect(byCodeUnits((r: { k: string }) => r.k)({ k: 'x' }, { k: 'x' })).toBe(0);
  });
});

describe('lowerBound and prefixEnd', () => {
  it('agree with a linear scan over sorted lists and sub-ranges', () => {
    const rand = createRng(99).next;
    const alphabet = ['a', 'b', 'c', 'é'];
    const word = (): string =>
      Array.from({ length: Math.floor(rand() * 4) }, () => alphabet[Math.floor(rand() * alphabet.length)]!).join('');
    for (let k = 0; k < 300; k++) {
      const list = [...new Set(Array.from({ length: Math.floor(rand() * 12) }, word))].sort(compareCodeUnits);
      const key = word();
      const lo = Math.floor(rand() * (list.length + 1));
      const hi = lo + Math.floor(rand() * (list.length - lo + 1));
      const label = JSON.stringify({ list, key, lo, hi });
      const scanFrom = (from: number, to: number): number => {
        let i = from;
        while (i < to && list[i]! < key) i++;
        return i;
      };
      expect(lowerBound(list, key), label).toBe(scanFrom(0, list.length));
      expect(lowerBound(list, key, lo, hi), label).toBe(scanFrom(lo, hi));
      const start = scanFrom(0, list.length);
      let end = start;
      while (end < list.length && list[end]!.startsWith(key)) end++;
      expect(prefixEnd(list, key, start), label).toBe(end);
      const capped = Math.max(start, Math.min(hi, end + 1));
      let endCapped = start;
      while (endCapped < capped && list[endCapped]!.startsWith(key)) endCapped++;
      expect(prefixEnd(list, key, start, capped), label).toBe(endCapped);
    }
  });

  it('hand-made cases: before all, after all, equal entries, a run of prefixed entries', () => {
    const list = ['ab', 'abc', 'abd', 'ac', 'b'];
    expect(lowerBound(list, '')).toBe(0);
    expect(lowerBound(list, 'a')).toBe(0);
    expect(lowerBound(list, 'abc')).toBe(1);
    expect(lowerBound(list, 'abca')).toBe(2);
    expect(lowerBound(list, 'c')).toBe(5);
    expect(lowerBound(list, 'abc', 2)).toBe(2);
    expect(lowerBound(list, 'c', 0, 3)).toBe(3);
    expect(prefixEnd(list, 'ab', 0)).toBe(3);
    expect(prefixEnd(list, 'ab', 0, 2)).toBe(2);
    expect(prefixEnd(list, 'a', 0)).toBe(4);
    expect(prefixEnd(list, 'b', 4)).toBe(5);
    expect(prefixEnd(list, 'x', 5)).toBe(5);
    expect(prefixEnd([], 'x', 0)).toBe(0);
  });
});

describe('valueAtPointer', () => {
  const doc = { a: [{ 'b/c': 1, 'd~e': [null, 0] }], toString: 'own' };
  it('follows members and items, escapes included, and answers undefined where the path stops', () => {
    expect(valueAtPointer(doc, '')).toBe(doc);
    expect(valueAtPointer(doc, '/a/0/b~1c')).toBe(1);
    expect(valueAtPointer(doc, '/a/0/d~0e/1')).toBe(0);
    expect(valueAtPointer(doc, '/a/0/d~0e/0')).toBeNull();
    expect(valueAtPointer(doc, '/toString')).toBe('own');
    expect(valueAtPointer(doc, '/a/1')).toBeUndefined();
    expect(valueAtPointer(doc, '/a/0/b~1c/x')).toBeUndefined();
    expect(valueAtPointer(doc, '/a/0/constructor')).toBeUndefined();
    expect(valueAtPointer(doc, '/missing/0')).toBeUndefined();
    expect(valueAtPointer('text', '/0')).toBeUndefined();
  });
});
