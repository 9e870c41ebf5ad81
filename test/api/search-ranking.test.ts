/**
 * Search ranking and selection (spec §4.4 `GET /api/search`, response §2.5), on small inline record
 * sets built so that the precomputed rank (shorter name first) points the other way from the match
 * tiers: only a correct tier order gives the expected lists. Complements `search.test.ts`.
 *
 * Tiers, best first (see `api/_lib/search/engine.ts`): exact name or id (as typed before by terms),
 * name starting with the query's words, name starting with the query with the last word a prefix,
 * every word anywhere, every word anywhere with some only as a prefix, some word only within one edit.
 */
import { describe, expect, it } from 'vitest';
import { buildSearchIndex, loadSearchIndex, MAX_QUERY_TERMS, type SearchEngine, type SearchRecord } from '../../api/_lib/search/index.js';
import { GENERATIONS } from '../../api/_lib/search/engine.js';
import { SEARCH_TYPES } from '../../api/_lib/formats/index.js';

function engineOf(records: readonly SearchRecord[]): SearchEngine {
  return loadSearchIndex(JSON.parse(JSON.stringify(buildSearchIndex(records))));
}

const rec = (name: string, id = name.toLowerCase().replace(/\W+/g, '-'), type: SearchRecord['type'] = 'weapons'): SearchRecord => ({
  type,
  id,
  name,
});

function names(engine: SearchEngine, q: string, type: SearchRecord['type'] | 'all' = 'all', limit = 50): string[] {
  return engine.search(q, { type, limit }).results.map((r) => r.name);
}

describe('tiers against each other', () => {
  // Longest names in the best tiers, so the rank order (shorter first) would reverse every tier.
  const records = [
    rec('Relik Frost'), // some word only within one edit
    rec('Relics of Frost'), // every word, one only as a prefix
    rec('Relic of the Cold Frost'), // every word, anywhere
    rec('Frost Relicsmith Anvil'), // starts with the query, last word a prefix
    rec('Frost Relic Helm of Winter'), // starts with the query's words, longer
    rec('Frost Relic'), // exact
  ];
  const engine = engineOf(records);

  it('orders exact, starts-with words, starts-with prefix, words anywhere, prefixes anywhere, typos', () => {
    expect(names(engine, 'frost relic')).toEqual([
      'Frost Relic',
      'Frost Relic Helm of Winter',
      'Frost Relicsmith Anvil',
      'Relic of the Cold Frost',
      'Relics of Frost',
      'Relik Frost',
    ]);
  });

  it('treats a last word with no equal word in any name as a prefix only, wherever it matches', () => {
    // "relicsm" is a prefix of "relicsmith" only (and one edit from "relics"): starting with the query beats words anywhere
    const more = engineOf([...records, rec('Relicsmith Frost'), rec('Frost Apple Relicsmith')]);
    expect(names(more, 'frost relicsm')).toEqual([
      'Frost Relicsmith Anvil',
      'Relicsmith Frost',
      'Frost Apple Relicsmith',
      'Relics of Frost',
    ]);
  });

  it('does not take the first word starting with a query word for an exact word', () => {
    const engine2 = engineOf([rec('A Much Longer Blade Name'), rec('Old Blades')]);
    expect(names(engine2, 'blad')).toEqual(['Old Blades', 'A Much Longer Blade Name']);
  });

  it('checks every word of a longer query against the start of the name', () => {
    const engine3 = engineOf([rec('Two One Three'), rec('One Two Three Four'), rec('One Two Three')]);
    expect(names(engine3, 'one two three')).toEqual(['One Two Three', 'One Two Three Four', 'Two One Three']);
  });

  it('ranks a whole-id match above names that only start with the query', () => {
    const engine4 = engineOf([rec('Longer Name Here', 'Flame!'), rec('Flame Sword')]);
    expect(names(engine4, 'flame')).toEqual(['Longer Name Here', 'Flame Sword']);
  });

  it('does not let a name shorter than the query borrow words from the next record', () => {
    // "iron ir": both words match the one word of "Iron"; "Iron Irons" starts with the query
    const engine5 = engineOf([rec('Ax'), rec('Iron'), rec('Iron Irons')]);
    expect(names(engine5, 'iron ir')).toEqual(['Iron Irons', 'Iron']);
    // "Iron" is followed, in rank order, by a record with "sword"
    const engine6 = engineOf([rec('Iron'), rec('Sword Xy')]);
    expect(names(engine6, 'iron sword')).toEqual([]);
    expect(names(engine6, 'iron')).toEqual(['Iron']);
  });

  it('keeps that order whatever the record order given to the build', () => {
    expect(names(engineOf([...records].reverse()), 'frost relic')).toEqual(names(engine, 'frost relic'));
  });

  it('ranks every word found anywhere above a prefix, and a prefix above a typo, word order aside', () => {
    expect(names(engine, 'relic frost')).toEqual([
      'Frost Relic', // every word, anywhere: shortest first within the tier
      'Relic of the Cold Frost', // starts with "relic", but "frost" is not next: every word, anywhere
      'Frost Relic Helm of Winter',
      'Relics of Frost', // "relic" only as a prefix
      'Frost Relicsmith Anvil',
      'Relik Frost', // "relic" only within one edit
    ]);
  });
});

describe('a query word matching several words of one name', () => {
  it('takes the best match of each query word, wherever the name repeats its prefix', () => {
    // "blade" is exact on one word and only a prefix of the other: the name holds every word
    const engine = engineOf([rec('Bladed Iron'), rec('Old Bladed Blade Iron'), rec('Old Blade Bladed Iron')]);
    expect(names(engine, 'iron blade')).toEqual(['Old Blade Bladed Iron', 'Old Bladed Blade Iron', 'Bladed Iron']);
  });

  it('prefers an exact word to a typo of it in the same name', () => {
    const engine = engineOf([rec('Blabe Iron'), rec('Old Blabe Blade Iron'), rec('Old Blade Blabe Iron')]);
    expect(names(engine, 'iron blade')).toEqual(['Old Blabe Blade Iron', 'Old Blade Blabe Iron', 'Blabe Iron']);
  });

  it('prefers a prefix to a typo of the same word in the same name', () => {
    const engine = engineOf([rec('Blabe Iron'), rec('Old Blabe Blades Iron'), rec('Old Blades Blabe Iron')]);
    expect(names(engine, 'iron blade')).toEqual(['Old Blabe Blades Iron', 'Old Blades Blabe Iron', 'Blabe Iron']);
  });
});

describe('names that repeat a word', () => {
  it('lists a record once when several of its words match the query', () => {
    const engine = engineOf([rec('Old Bladed Blade'), rec('Blade'), rec('Blades Blades')]);
    expect(engine.search('blade', { type: 'all', limit: 10 })).toEqual({
      totalResults: 3,
      results: [rec('Blade'), rec('Blades Blades'), rec('Old Bladed Blade')],
    });
  });

  it('still finds the other records that share the repeated word’s neighbours in the dictionary', () => {
    const engine = engineOf([rec('Ab', 'R-1'), rec('Aa Aa', 'R-2'), rec('Ac Ab Ab', 'R-3')]);
    expect(names(engine, 'ab')).toEqual(['Ab', 'Ac Ab Ab']);
    expect(names(engine, 'aa')).toEqual(['Aa Aa']);
    expect(names(engine, 'ac')).toEqual(['Ac Ab Ab']);
  });
});

describe('exact names and ids', () => {
  it('puts a name equal to the query as typed first, even against an equal-length spelling', () => {
    const engine = engineOf([rec('Iron Sword', 'a'), rec('Iron-Sword', 'b'), rec('IRON SWORD!', 'c')]);
    // same words, so the same tier by terms; the rank order alone would be 'IRON SWORD!', 'Iron Sword', 'Iron-Sword'
    expect(names(engine, 'iron-sword')).toEqual(['Iron-Sword', 'IRON SWORD!', 'Iron Sword']);
    expect(names(engine, 'Iron Sword')).toEqual(['Iron Sword', 'IRON SWORD!', 'Iron-Sword']);
    expect(names(engine, '  iron sword!  ')).toEqual(['IRON SWORD!', 'Iron Sword', 'Iron-Sword']);
    // spaces around the query are not part of what was typed
    expect(names(engine, '  iron-sword ')).toEqual(['Iron-Sword', 'IRON SWORD!', 'Iron Sword']);
  });

  it('puts an id equal to the query as typed before an id equal by its words', () => {
    const engine = engineOf([rec('Z', 'ITEM 7'), rec('Y', 'item-7'), rec('Item Seven', 'x')]);
    expect(engine.search('item-7', { type: 'all', limit: 10 }).results.map((r) => r.id)).toEqual(['item-7', 'ITEM 7']);
    expect(engine.search('Item 7', { type: 'all', limit: 10 }).results.map((r) => r.id)).toEqual(['ITEM 7', 'item-7']);
  });

  it('ranks an id typed as is together with names typed as is, by rank', () => {
    const engine = engineOf([rec('Longer Name Here', 'flame'), rec('Flame'), rec('flames')]);
    expect(names(engine, 'flame')).toEqual(['Flame', 'Longer Name Here', 'flames']);
    expect(names(engine, 'FLAME')).toEqual(['Flame', 'Longer Name Here', 'flames']);
  });

  it('finds every record whose id has the query words, among ids before and after it in id order', () => {
    const ids = ['a-1', 'a-2', 'B-3', 'b 3', 'c-4', 'c-40', 'd-5'];
    const engine = engineOf(ids.map((id, i) => rec(`Name ${String.fromCharCode(97 + i)}`, id)));
    const ofId = (q: string): string[] =>
      engine
        .search(q, { type: 'all', limit: 10 })
        .results.map((r) => r.id)
        .sort();
    expect(ofId('a-1')).toEqual(['a-1']);
    expect(ofId('b-3')).toEqual(['B-3', 'b 3']);
    expect(ofId('c 4')).toEqual(['c-4']);
    expect(ofId('d-5')).toEqual(['d-5']);
    expect(ofId('e-6')).toEqual([]);
    expect(ofId('0-0')).toEqual([]);
  });

  it('applies the type filter to id matches, and counts an id that also matches by name once', () => {
    const engine = engineOf([
      rec('Ember', 'ember', 'weapons'),
      rec('Ember Staff', 'ITEM-1', 'weapons'),
      rec('Ash', 'ember', 'armor'),
      rec('Ember Cloak', 'ITEM-2', 'armor'),
    ]);
    expect(engine.search('ember', { type: 'all', limit: 10 })).toEqual({
      totalResults: 4,
      results: [
        rec('Ash', 'ember', 'armor'),
        rec('Ember', 'ember', 'weapons'),
        rec('Ember Cloak', 'ITEM-2', 'armor'),
        rec('Ember Staff', 'ITEM-1', 'weapons'),
      ],
    });
    expect(engine.search('ember', { type: 'armor', limit: 10 })).toEqual({
      totalResults: 2,
      results: [rec('Ash', 'ember', 'armor'), rec('Ember Cloak', 'ITEM-2', 'armor')],
    });
    expect(engine.search('item-1', { type: 'armor', limit: 10 })).toEqual({ totalResults: 0, results: [] });
    expect(engine.search('item-1', { type: 'weapons', limit: 10 })).toEqual({
      totalResults: 1,
      results: [rec('Ember Staff', 'ITEM-1', 'weapons')],
    });
    // the first search type is a filter like any other
    expect(engine.search('ember', { type: 'weapons', limit: 10 })).toEqual({
      totalResults: 2,
      results: [rec('Ember', 'ember', 'weapons'), rec('Ember Staff', 'ITEM-1', 'weapons')],
    });
    expect(engine.search('item-2', { type: 'weapons', limit: 10 })).toEqual({ totalResults: 0, results: [] });
  });
});

describe('the best `limit` results', () => {
  // Many records in every tier, given to the build shuffled, so the candidates reach the selection in no useful order.
  const words = ['storm', 'stormy', 'storms', 'sturm', 'strom'];
  const records: SearchRecord[] = [];
  let k = 0;
  for (const a of words) {
    for (const b of ['blade', 'edge', 'axe', 'bow', 'staff', 'wand']) {
      records.push(rec(`${a} ${b}`, `W-${k++}`));
      records.push(rec(`${b} of the ${a}`, `W-${k++}`));
    }
  }
  records.push(rec('Storm', 'W-storm'));
  const shuffled = records
    .map((r, i) => ({ r, key: (i * 7919) % records.length }))
    .sort((a, b) => a.key - b.key)
    .map((x) => x.r);
  const engine = engineOf(shuffled);
  const all = engine.search('storm', { type: 'all', limit: 1000 });

  it('finds every match', () => {
    expect(all.totalResults).toBe(records.length);
    expect(all.results).toHaveLength(records.length);
    expect(new Set(all.results.map((r) => r.id)).size).toBe(records.length);
  });

  it('returns, for every limit, the first `limit` of the full ranking', () => {
    for (let limit = 0; limit <= records.length + 1; limit++) {
      const some = engine.search('storm', { type: 'all', limit });
      expect(some.totalResults).toBe(records.length);
      expect(some.results).toEqual(all.results.slice(0, limit));
    }
  });

  it('orders the full ranking by tier, then shorter name, then name', () => {
    const tier = (name: string): number => {
      const [first, ...rest] = name.toLowerCase().split(' ');
      if (name === 'Storm') return 0;
      if (first === 'storm') return 1;
      if (first === 'stormy' || first === 'storms') return 2;
      if (rest.includes('storm')) return 3;
      if (rest.includes('stormy') || rest.includes('storms')) return 4;
      return 5;
    };
    const expected = [...records].sort(
      (a, b) => tier(a.name) - tier(b.name) || a.name.length - b.name.length || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0),
    );
    expect(all.results.map((r) => r.name)).toEqual(expected.map((r) => r.name));
  });

  it('takes the whole part of a fractional limit, and nothing for a negative or non-number limit', () => {
    expect(engine.search('storm', { type: 'all', limit: 2.9 }).results).toEqual(all.results.slice(0, 2));
    for (const limit of [-1, Number.NaN])
      expect(engine.search('storm', { type: 'all', limit })).toEqual({ totalResults: records.length, results: [] });
  });
});

describe('query words', () => {
  const ten = ['one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten'];

  it(`uses the first ${MAX_QUERY_TERMS} words of a query and ignores the rest`, () => {
    const engine = engineOf([rec(ten.join(' ')), rec(ten.slice(0, 9).join(' '))]);
    expect(names(engine, [...ten, 'zzzz'].join(' '))).toEqual([ten.join(' ')]);
    expect(names(engine, [...ten, 'eleven', 'twelve'].join(' '))).toEqual([ten.join(' ')]);
    // the tenth word still counts
    expect(names(engine, [...ten.slice(0, 9), 'zzzz'].join(' '))).toEqual([]);
  });

  it('matches a whole id of more than ten words', () => {
    const id = [...ten, 'eleven'].join('-');
    const engine = engineOf([rec('Counting', id), rec('Other', [...ten, 'twelve'].join('-'))]);
    expect(engine.search([...ten, 'eleven'].join(' '), { type: 'all', limit: 5 }).results.map((r) => r.id)).toEqual([id]);
  });

  it('finds a typo of three letters or more against shorter and longer words, including the longest', () => {
    const engine = engineOf([rec('Ox Cart'), rec('Bladestorm'), rec('Yew')]);
    expect(names(engine, 'oxe')).toEqual(['Ox Cart']); // one letter more than "ox"
    expect(names(engine, 'ye')).toEqual(['Yew']); // a prefix, not a typo
    expect(names(engine, 'yaw')).toEqual(['Yew']);
    expect(names(engine, 'bladestorms')).toEqual(['Bladestorm']); // one letter more than the longest word
    expect(names(engine, 'bladestormss')).toEqual([]);
    expect(names(engine, 'bladestrm')).toEqual(['Bladestorm']);
    expect(names(engine, 'ox')).toEqual(['Ox Cart']);
    expect(names(engine, 'xo')).toEqual([]); // two letters: exact or prefix only
  });

  it('needs every query word to match the same name', () => {
    const engine = engineOf([rec('Iron Sword'), rec('Steel Axe'), rec('Iron Axe')]);
    expect(names(engine, 'axe iron')).toEqual(['Iron Axe']);
    expect(names(engine, 'steel sword')).toEqual([]);
    expect(names(engine, 'iron qqqq')).toEqual([]);
  });

  it('answers many queries in a row from one engine the same way', () => {
    const engine = engineOf([rec('Iron Sword'), rec('Iron Axe'), rec('Sword of Iron')]);
    const first = ['iron', 'sword', 'iron sword', 'irn', 'axe'].map((q) => names(engine, q));
    for (let i = 0; i < 3; i++) expect(['iron', 'sword', 'iron sword', 'irn', 'axe'].map((q) => names(engine, q))).toEqual(first);
    expect(first).toEqual([
      ['Iron Axe', 'Iron Sword', 'Sword of Iron'],
      ['Sword of Iron', 'Iron Sword'],
      ['Iron Sword', 'Sword of Iron'],
      ['Iron Axe', 'Iron Sword', 'Sword of Iron'],
      ['Iron Axe'],
    ]);
  });
});

describe('type filter', () => {
  it('finds nothing for a search type that the index file does not list', () => {
    const file = JSON.parse(JSON.stringify(buildSearchIndex([rec('Iron Sword'), rec('Iron Axe')]))) as {
      types: string[];
      docs: { type: number[] };
    };
    expect(file.docs.type).toEqual([0, 0]);
    expect(SEARCH_TYPES[0]).toBe('weapons');
    file.types = ['weapons'];
    const engine = loadSearchIndex(file);
    expect(engine.search('iron', { type: 'armor', limit: 10 })).toEqual({ totalResults: 0, results: [] });
    expect(engine.search('iron', { type: 'weapons', limit: 10 }).totalResults).toBe(2);
    expect(() => engine.search('iron', { type: 'relics' as 'all', limit: 10 })).toThrow(RangeError);
    // the error names the type it does not know
    expect(() => engine.search('iron', { type: 'relics' as 'all', limit: 10 })).toThrow(/"relics"/);
  });
});

describe('the name as typed', () => {
  it('comes first even when lower-casing changes its length (İ)', () => {
    const engine = engineOf([rec('Izmir Blade', 'a'), rec('İzmir Blade', 'b')]);
    expect(names(engine, 'İzmir Blade')).toEqual(['İzmir Blade', 'Izmir Blade']);
    expect(names(engine, 'Izmir Blade')).toEqual(['Izmir Blade', 'İzmir Blade']);
  });
});

describe('scratch reuse across many queries', () => {
  const records = [rec('Iron Axe'), rec('Axe Blade'), rec('Very Old Blad'), rec('Iron Sword'), rec('Swords')];
  const fresh = (q: string) => engineOf(records).search(q, { type: 'all', limit: 10 });
  const ask = (engine: SearchEngine, q: string) => engine.search(q, { type: 'all', limit: 10 });

  it('answers as a fresh engine does after the stamps wrap around, however the earlier cycles used them', () => {
    const engine = engineOf(records);
    // generation 1 of the first cycle marks the axe documents and the term "axe"
    expect(ask(engine, 'axe')).toEqual(fresh('axe'));
    for (let i = 1; i < GENERATIONS; i++) ask(engine, 'sword');
    // generation 1 again: a document marked in the last cycle is not "already seen" in this one
    expect(ask(engine, 'axe').results.map((r) => r.name)).toEqual(['Axe Blade', 'Iron Axe']);
    for (let i = 1; i < GENERATIONS; i++) ask(engine, 'sword');
    // and the term "axe" marked then does not lend "Axe Blade" an exact match for "blad"
    expect(ask(engine, 'blad').results.map((r) => r.name)).toEqual(['Very Old Blad', 'Axe Blade']);
    expect(fresh('blad').results.map((r) => r.name)).toEqual(['Very Old Blad', 'Axe Blade']);
    for (let i = 0; i < 2 * GENERATIONS; i++)
      expect(ask(engine, ['iron', 'swrd', 'axe blade'][i % 3]!)).toEqual(fresh(['iron', 'swrd', 'axe blade'][i % 3]!));
  });
});
