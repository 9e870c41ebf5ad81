/**
 * Problem positions (build/pipeline/locate.ts): every problem a content author reads names a 1-based
 * line and column (spec §6). Pins offsets on LF, CRLF and lone-CR files, the key position of a
 * property, array items, escaped pointer segments, the last of duplicate keys (as JSON.parse keeps
 * it), the nearest existing ancestor of a missing pointer, and 1:1 for text that does not parse.
 */
import { describe, expect, it } from 'vitest';
import { Locator } from '../../build/pipeline/locate.js';

describe('Locator.at (offsets)', () => {
  it('counts lines after LF, CRLF and a lone CR alike, columns from 1', () => {
    const text = 'ab\ncd\r\nef\rgh';
    const loc = new Locator(text);
    expect(loc.at(0)).toEqual({ line: 1, column: 1 });
    expect(loc.at(2)).toEqual({ line: 1, column: 3 });
    expect(loc.at(3)).toEqual({ line: 2, column: 1 });
    expect(loc.at(4)).toEqual({ line: 2, column: 2 });
    expect(loc.at(5)).toEqual({ line: 2, column: 3 });
    expect(loc.at(7)).toEqual({ line: 3, column: 1 });
    expect(loc.at(10)).toEqual({ line: 4, column: 1 });
    expect(loc.at(11)).toEqual({ line: 4, column: 2 });
  });

  it('finds the right line among many (first, middle, last, past the end)', () => {
    const lines = Array.from({ length: 9 }, (_, i) => `line${i}`);
    const text = lines.join('\n');
    const loc = new Locator(text);
    for (let i = 0; i < lines.length; i++) {
      const start = text.indexOf(`line${i}`);
      expect(loc.at(start)).toEqual({ line: i + 1, column: 1 });
      expect(loc.at(start + 4)).toEqual({ line: i + 1, column: 5 });
    }
    expect(loc.at(text.length + 3)).toEqual({ line: 9, column: 9 });
  });

  it('treats CR LF as one line end, not two', () => {
    const loc = new Locator('a\r\n\r\nb');
    expect(loc.at(5)).toEqual({ line: 3, column: 1 });
    expect(new Locator('a\r\rb').at(3)).toEqual({ line: 3, column: 1 });
  });
});

describe('Locator.locate (JSON pointers)', () => {
  const text = [
    '{',
    '  "items": [',
    '    { "id": "a" },',
    '    {',
    '      "id": "b",',
    '      "a/b": 1,',
    '      "m~n": 2',
    '    }',
    '  ],',
    '  "dup": 1,',
    '  "dup": 2',
    '}',
  ].join('\n');
  const loc = new Locator(text);

  it('names the whole file at the first character', () => {
    expect(loc.locate('')).toEqual({ line: 1, column: 1 });
  });

  it('names a property at its key and an array item at its value', () => {
    expect(loc.locate('/items')).toEqual({ line: 2, column: 3 });
    expect(loc.locate('/items/0')).toEqual({ line: 3, column: 5 });
    expect(loc.locate('/items/0/id')).toEqual({ line: 3, column: 7 });
    expect(loc.locate('/items/1')).toEqual({ line: 4, column: 5 });
    expect(loc.locate('/items/1/id')).toEqual({ line: 5, column: 7 });
  });

  it('reads escaped segments (~1 for /, ~0 for ~)', () => {
    expect(loc.locate('/items/1/a~1b')).toEqual({ line: 6, column: 7 });
    expect(loc.locate('/items/1/m~0n')).toEqual({ line: 7, column: 7 });
  });

  it('names the last of duplicate keys, the one JSON.parse keeps', () => {
    expect(loc.locate('/dup')).toEqual({ line: 11, column: 3 });
  });

  it('falls back to the nearest existing ancestor for a missing field or item', () => {
    expect(loc.locate('/items/1/missing')).toEqual({ line: 4, column: 5 });
    expect(loc.locate('/items/7/id')).toEqual({ line: 2, column: 3 });
    expect(loc.locate('/items/x')).toEqual({ line: 2, column: 3 });
    expect(loc.locate('/items/0/id/deeper')).toEqual({ line: 3, column: 7 });
    expect(loc.locate('/nothing/here')).toEqual({ line: 1, column: 1 });
  });

  it('does not walk into scalars or read non-numeric array segments', () => {
    const l = new Locator('[\n  "x",\n  [1, 2]\n]');
    expect(l.locate('/1/1')).toEqual({ line: 3, column: 7 });
    expect(l.locate('/0/length')).toEqual({ line: 2, column: 3 });
    expect(l.locate('/0/0')).toEqual({ line: 2, column: 3 });
    expect(l.locate('/1/0/0')).toEqual({ line: 3, column: 4 });
    expect(l.locate('/1/1x')).toEqual({ line: 3, column: 3 });
    expect(l.locate('/1/x1')).toEqual({ line: 3, column: 3 });
    // only plain digits name an array item, even where Number() would read more
    expect(l.locate('/1/+1')).toEqual({ line: 3, column: 3 });
    expect(l.locate('/1/1e0')).toEqual({ line: 3, column: 3 });
    expect(l.locate('/1/')).toEqual({ line: 3, column: 3 });
    const long = new Locator(`[${Array.from({ length: 12 }, (_, i) => `\n${i}`).join(',')}\n]`);
    expect(long.locate('/10')).toEqual({ line: 12, column: 1 });
  });

  it('answers line 1 column 1 for text that does not parse', () => {
    expect(new Locator('').locate('/a')).toEqual({ line: 1, column: 1 });
  });

  it('reuses its tree: later lookups agree with the first', () => {
    const l = new Locator('{\n "a": {\n  "b": 1\n }\n}');
    expect(l.locate('/a/b')).toEqual({ line: 3, column: 3 });
    expect(l.locate('/a')).toEqual({ line: 2, column: 2 });
    expect(l.at(0)).toEqual({ line: 1, column: 1 });
  });
});
