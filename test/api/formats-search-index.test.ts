/**
 * The `/api/search` index file (spec §2.5, §4.4; api/_lib/formats/search-index.ts): the order in which the
 * build stores records (the documented tie-break of equal matches), the front-coded ids a client gets back
 * exactly as written, and the reader's check of the file: a broken or foreign file is refused naming the
 * first problem (the function then answers 503), a good one gives back every column.
 */
import { describe, expect, it } from 'vitest';
import { SEARCH_TYPES, buildSearchIndex, validateSearchIndex, type SearchRecord } from '../../api/_lib/formats/search-index.js';

/** A parsed index file open to any corruption. */
interface Raw {
  format: unknown;
  version: unknown;
  types: unknown;
  terms: unknown[];
  docs: { type: unknown[]; name: unknown[] };
  tokens: unknown[];
  ids: Record<'order' | 'shared' | 'suffix', unknown[]>;
}
type Loose = Record<string, unknown>;

const rec = (type: SearchRecord['type'], id: string, name: string): SearchRecord => ({ type, id, name });

describe('buildSearchIndex', () => {
  it('lists the search types in spec order', () => {
    expect(SEARCH_TYPES).toEqual(['weapons', 'armor', 'materials', 'consumables', 'enemies', 'bosses', 'skills', 'sprites']);
    expect(buildSearchIndex([]).types).toEqual([...SEARCH_TYPES]);
  });

  it('marks the file with its format and version', () => {
    const file = buildSearchIndex([]);
    expect(file.format).toBe('game-data-search-index');
    expect(file.version).toBe(1);
    expect(file).toEqual({
      format: 'game-data-search-index',
      version: 1,
      types: [...SEARCH_TYPES],
      terms: [],
      docs: { type: [], name: [] },
      tokens: [],
      ids: { order: [], shared: [], suffix: [] },
    });
  });

  it('stores records in rank order: shorter name, then name, then name as written, then id, then type', () => {
    const file = buildSearchIndex([
      rec('armor', 'B', 'Iron Sword'),
      rec('weapons', 'B', 'Iron Sword'),
      rec('weapons', 'A', 'Iron Sword'),
      rec('weapons', 'C', 'iron sword'),
      rec('weapons', 'D', 'Iron Swords'),
      rec('weapons', 'E', 'Axe'),
      rec('weapons', 'F', 'Bow'),
    ]);
    expect(file.docs.name).toEqual(['Axe', 'Bow', 'Iron Sword', 'Iron Sword', 'Iron Sword', 'iron sword', 'Iron Swords']);
    const ids = validateSearchIndex(JSON.parse(JSON.stringify(file))).docId;
    expect(ids).toEqual(['E', 'F', 'A', 'B', 'B', 'C', 'D']);
    expect(file.docs.type).toEqual([0, 0, 0, 0, 1, 0, 0]);
  });

  it('compares name lengths with the spaces between words counted', () => {
    const file = buildSearchIndex([rec('weapons', 'A', 'Ab Cd'), rec('weapons', 'B', 'Abcd')]);
    expect(file.docs.name).toEqual(['Abcd', 'Ab Cd']);
  });

  it('stores the first id whole, whatever letter it starts with', () => {
    for (const id of ['Stryker-1', 'S', 'ITEM-1']) {
      const file = buildSearchIndex([rec('weapons', id, 'x')]);
      expect(file.ids, id).toEqual({ order: [0], shared: [0], suffix: [id] });
    }
  });

  it('shares a whole previous id when the next one ends in the same lone surrogate', () => {
    const file = buildSearchIndex([rec('weapons', 'a😀', 'b'), rec('weapons', 'a\uD83D', 'c')]);
    expect(file.ids).toEqual({ order: [0, 1], shared: [0, 2], suffix: ['a😀', ''] });
  });

  it('keeps a dictionary of distinct terms sorted by code units and the terms of every name in order', () => {
    const file = buildSearchIndex([rec('weapons', 'W1', 'Blade of Blade'), rec('skills', 'S1', 'Zap')]);
    expect(file.terms).toEqual(['blade', 'of', 'zap']);
    // record "Zap" ranks first (shorter name); counts precede the term indexes
    expect(file.tokens).toEqual([1, 2, 3, 0, 1, 0]);
  });

  it('front-codes ids in id order, sharing common prefixes', () => {
    const file = buildSearchIndex([rec('weapons', 'ITEM-100', 'a'), rec('weapons', 'ITEM-101', 'b'), rec('weapons', 'ITEM-2', 'c')]);
    expect(file.ids).toEqual({ order: [0, 1, 2], shared: [0, 7, 5], suffix: ['ITEM-100', '1', '2'] });
  });

  it('never splits a surrogate pair between the shared prefix and the suffix', () => {
    const file = buildSearchIndex([rec('weapons', 'x😀a', 'a'), rec('weapons', 'x😁b', 'b')]);
    expect(file.ids.shared).toEqual([0, 1]);
    expect(file.ids.suffix).toEqual(['x😀a', '😁b']);
    expect(validateSearchIndex(JSON.parse(JSON.stringify(file))).docId).toEqual(['x😀a', 'x😁b']);
  });

  it('refuses a record of another type or without a string id and name, naming the record', () => {
    expect(() => buildSearchIndex([rec('weapons', 'a', 'b'), { type: 'relics', id: 'x', name: 'y' } as unknown as SearchRecord])).toThrow(
      /record 1 has type "relics", which is not a search type \(weapons, armor/,
    );
    expect(() => buildSearchIndex([{ type: 'weapons', id: 5, name: 'y' } as unknown as SearchRecord])).toThrow(
      /record 0 needs a string id and a string name/,
    );
    expect(() => buildSearchIndex([{ type: 'weapons', id: 'x', name: null } as unknown as SearchRecord])).toThrow(
      /record 0 needs a string id/,
    );
  });
});

describe('validateSearchIndex', () => {
  const RECORDS = [rec('weapons', 'W-1', 'Iron Sword'), rec('armor', 'A-1', 'Iron Helm'), rec('skills', 'S-1', 'Slash')];
  const good = (): Raw => JSON.parse(JSON.stringify(buildSearchIndex(RECORDS))) as Raw;
  const refusal = (patch: (f: Raw) => void): string => {
    const f = good();
    patch(f);
    try {
      validateSearchIndex(f);
    } catch (e) {
      return (e as Error).message;
    }
    return 'accepted';
  };

  it('gives back every column of a good file, with the ids decoded', () => {
    const file = good();
    const v = validateSearchIndex(file);
    expect(v.types).toEqual(file.types);
    expect(v.terms).toEqual(file.terms);
    expect(v.docType).toEqual(file.docs.type);
    expect(v.docName).toEqual(['Slash', 'Iron Helm', 'Iron Sword']);
    expect(v.docId).toEqual(['S-1', 'A-1', 'W-1']);
    expect(v.tokens).toEqual(file.tokens);
    expect(v.idOrder).toEqual(file.ids.order);
  });

  it('accepts a file with fewer types, records without terms and an empty id', () => {
    const file = buildSearchIndex([rec('skills', '', '!!!'), rec('skills', 'x', 'y')]);
    const f = JSON.parse(JSON.stringify(file)) as Raw;
    f.types = [...SEARCH_TYPES].reverse();
    expect([...validateSearchIndex(f).docId].sort()).toEqual(['', 'x']);
  });

  it('says the file must be rebuilt', () => {
    expect(refusal((f) => (f.format = 'x'))).toMatch(
      /^The search index file is invalid \(format is not "game-data-search-index"\); rebuild the catalog\.$/,
    );
  });

  it('refuses what is not a version-1 index object', () => {
    for (const raw of [null, [], 'x', 3]) expect(() => validateSearchIndex(raw)).toThrow(/not a JSON object/);
    expect(refusal((f) => (f.version = 2))).toContain('version 2 is not 1');
    expect(refusal((f) => (f.version = '1'))).toContain('version "1" is not 1');
  });

  it('refuses a bad list of types', () => {
    expect(refusal((f) => (f.types = 'weapons'))).toContain('types is not a list of 1 to 255 search types');
    expect(refusal((f) => (f.types = []))).toContain('types is not a list of 1 to 255');
    expect(refusal((f) => (f.types = Array<string>(256).fill('weapons')))).toContain('types is not a list of 1 to 255');
    expect(refusal((f) => (f.types = Array<string>(255).fill('weapons')))).toContain('types has duplicates');
    expect(refusal((f) => (f.types = ['weapons', 'relics']))).toContain('types has "relics", not a search type');
    expect(refusal((f) => (f.types = [1]))).toContain('types has 1, not a search type');
  });

  it('refuses a dictionary that is not strictly sorted or holds empty terms', () => {
    expect(refusal((f) => ((f as unknown as Loose).terms = 'x'))).toContain('terms is not a list');
    expect(refusal((f) => (f.terms[0] = ''))).toContain('terms[0] is not a non-empty string');
    expect(refusal((f) => (f.terms[1] = 7))).toContain('terms[1] is not a non-empty string');
    expect(refusal((f) => (f.terms[1] = f.terms[0]))).toContain('terms[1] is not after terms[0]');
  });

  it('refuses docs columns that are missing, uneven or out of range', () => {
    expect(refusal((f) => ((f as unknown as Loose).docs = null))).toContain('docs is not an object');
    expect(refusal((f) => ((f as unknown as Loose).docs = 'x'))).toContain('docs is not an object');
    expect(refusal((f) => ((f.docs as Loose).type = {}))).toContain('docs.type or docs.name is not a list');
    expect(refusal((f) => ((f.docs as Loose).name = 'x'))).toContain('docs.type or docs.name is not a list');
    expect(refusal((f) => void f.docs.type.pop())).toContain('docs columns differ in length');
    expect(refusal((f) => (f.docs.type[1] = 8))).toContain('docs.type[1] is out of range');
    expect(refusal((f) => (f.docs.type[2] = -1))).toContain('docs.type[2] is out of range');
    expect(refusal((f) => (f.docs.type[0] = 0.5))).toContain('docs.type[0] is out of range');
    expect(refusal((f) => (f.docs.type[0] = '0'))).toContain('docs.type[0] is out of range');
    expect(refusal((f) => (f.docs.type[0] = 7))).toBe('accepted');
    expect(refusal((f) => (f.docs.name[2] = 5))).toContain('docs.name[2] is not a string');
  });

  it('refuses tokens that do not describe every record with valid term indexes', () => {
    expect(refusal((f) => ((f as unknown as Loose).tokens = {}))).toContain('tokens is not a list');
    // tokens: "slash" (1 term), "iron helm" (2), "iron sword" (2)
    expect(refusal((f) => (f.tokens[0] = -1))).toContain('bad term count for record 0');
    expect(refusal((f) => (f.tokens[2] = 9))).toContain('bad term count for record 1');
    expect(refusal((f) => (f.tokens[5] = 3))).toContain('bad term count for record 2');
    expect(refusal((f) => (f.tokens[5] = 2))).toBe('accepted');
    expect(refusal((f) => (f.tokens[1] = f.terms.length))).toContain(`tokens[1] is not a term index`);
    expect(refusal((f) => (f.tokens[4] = -1))).toContain(`tokens[4] is not a term index`);
    expect(refusal((f) => (f.tokens[1] = f.terms.length - 1))).toBe('accepted');
    expect(refusal((f) => void f.tokens.push(0))).toContain('tokens is longer than its records');
  });

  it('refuses ids that are not a permutation of the records or do not decode', () => {
    expect(refusal((f) => ((f as unknown as Loose).ids = null))).toContain('ids is not an object');
    expect(refusal((f) => ((f as unknown as Loose).ids = 'x'))).toContain('ids is not an object');
    for (const col of ['order', 'shared', 'suffix'] as const) {
      expect(
        refusal((f) => ((f.ids as Loose)[col] = {})),
        col,
      ).toContain('ids.order, ids.shared or ids.suffix is not a list of every record');
      expect(
        refusal((f) => void f.ids[col].pop()),
        col,
      ).toContain('is not a list of every record');
      expect(
        refusal((f) => ((f.ids as Loose)[col] = 'xyz')),
        col,
      ).toContain('is not a list of every record');
    }
    expect(refusal((f) => (f.ids.order[0] = f.ids.order[1]))).toContain('ids.order is not a permutation of the records');
    expect(refusal((f) => (f.ids.order[0] = 3))).toContain('ids.order is not a permutation');
    expect(refusal((f) => (f.ids.shared[0] = 1))).toContain('ids.shared[0] or ids.suffix[0] is out of range');
    expect(refusal((f) => (f.ids.suffix[1] = 1))).toContain('ids.shared[1] or ids.suffix[1] is out of range');
    expect(refusal((f) => (f.ids.shared[1] = -1))).toContain('ids.shared[1] or ids.suffix[1] is out of range');
  });

  it('decodes an id that takes the whole of the previous one as its prefix', () => {
    const f = good();
    // ids in id order: A-1, S-1, W-1; make the second one "A-1x" = all 3 characters of "A-1" plus "x"
    f.ids.shared[1] = 3;
    f.ids.suffix[1] = 'x';
    f.ids.shared[2] = 0;
    const v = validateSearchIndex(f);
    expect(v.docId[f.ids.order[1] as number]).toBe('A-1x');
  });
});
