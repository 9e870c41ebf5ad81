/**
 * Search engine units (spec 4.4, 2.5): matching, ranking tiers, tie-breaks, filters, the index file.
 */
import { describe, expect, it } from 'vitest';
import { buildSearchIndex, loadSearchIndex, tokenize, type SearchEngine, type SearchRecord } from '../../api/_lib/search/index.js';

const RECORDS: readonly SearchRecord[] = [
  { type: 'weapons', id: 'ITEM-0001', name: 'Iron Sword' },
  { type: 'weapons', id: 'ITEM-0002', name: 'Iron Sword T2' },
  { type: 'weapons', id: 'ITEM-0003', name: 'Ironclad Sword' },
  { type: 'weapons', id: 'ITEM-0004', name: 'Bloodfeud Blade' },
  { type: 'weapons', id: 'ITEM-0005', name: 'Blade' },
  { type: 'weapons', id: 'ITEM-0006', name: 'Bladestorm' },
  { type: 'weapons', id: 'ITEM-0007', name: 'Blaze Rod' },
  { type: 'armor', id: 'ITEM-0101', name: 'Iron Helm' },
  { type: 'armor', id: 'ITEM-0102', name: 'Frost Relic Helm' },
  { type: 'armor', id: 'ITEM-0103', name: 'Relic of Frost' },
  { type: 'armor', id: 'ITEM-0104', name: 'Frostbite Greaves' },
  { type: 'materials', id: 'MATL-0001', name: 'Iron Ore' },
  { type: 'materials', id: 'MATL-0002', name: 'Épée Shard' },
  { type: 'consumables', id: 'FOOD-0001', name: "Engineer's Toolkit" },
  { type: 'skills', id: 'sword_vengeful_slash', name: 'Vengeful Slash' },
  { type: 'skills', id: 'blade', name: 'Whirling Edge' },
  { type: 'skills', id: 'DUP-1', name: 'Twin Strike' },
  { type: 'enemies', id: 'DUP-1', name: 'Twin Strike' },
];

function engineOf(records: readonly SearchRecord[] = RECORDS): SearchEngine {
  // through JSON, exactly as the function reads the built file
  return loadSearchIndex(JSON.parse(JSON.stringify(buildSearchIndex(records))));
}

function names(q: string, type: SearchRecord['type'] | 'all' = 'all', limit = 50, engine = engineOf()): string[] {
  return engine.search(q, { type, limit }).results.map((r) => r.name);
}

describe('terms', () => {
  it('folds case and accents, splits on punctuation, drops apostrophes', () => {
    expect(tokenize('ÉPÉE, de-Fer!')).toEqual(['epee', 'de', 'fer']);
    expect(tokenize("Engineer's Toolkit")).toEqual(['engineers', 'toolkit']);
    expect(tokenize('Straße Øre')).toEqual(['strasse', 'ore']);
    expect(tokenize(' -- ')).toEqual([]);
  });
});

describe('ranking', () => {
  it('puts the exact name first, then names starting with the query, then words elsewhere, then typos', () => {
    const engine = engineOf();
    // "Whirling Edge" has id "blade": an exact id match ranks with the exact names, after "Blade" (shorter name)
    expect(names('blade', 'all', 50, engine)).toEqual(['Blade', 'Whirling Edge', 'Bladestorm', 'Bloodfeud Blade', 'Blaze Rod']);
    expect(engine.search('blade', { type: 'all', limit: 50 }).totalResults).toBe(5);
  });

  it('ranks an exact id match first and finds it whatever the case and punctuation', () => {
    const engine = engineOf();
    expect(engine.search('item-0004', { type: 'all', limit: 5 }).results[0]).toEqual({
      type: 'weapons',
      id: 'ITEM-0004',
      name: 'Bloodfeud Blade',
    });
    expect(engine.search('Sword Vengeful Slash', { type: 'all', limit: 5 }).results[0]?.id).toBe('sword_vengeful_slash');
    const blade = engine.search('blade', { type: 'all', limit: 50 }).results;
    expect(blade.findIndex((r) => r.id === 'blade')).toBe(1);
  });

  it('orders by whole-word start before prefix start, and breaks ties by shorter name then name then id', () => {
    expect(names('iron')).toEqual(['Iron Ore', 'Iron Helm', 'Iron Sword', 'Iron Sword T2', 'Ironclad Sword']);
    expect(names('iron sw')).toEqual(['Iron Sword', 'Iron Sword T2', 'Ironclad Sword']);
  });

  it('puts the name as typed before names with the same terms in other letters', () => {
    const engine = engineOf([
      ...RECORDS,
      { type: 'armor', id: 'A-1', name: 'Þorn Cloak' },
      { type: 'armor', id: 'A-2', name: 'Thorn Cloak' },
    ]);
    expect(names('Þorn Cloak', 'all', 50, engine)).toEqual(['Þorn Cloak', 'Thorn Cloak']);
    expect(names('THORN cloak', 'all', 50, engine)).toEqual(['Thorn Cloak', 'Þorn Cloak']);
  });

  it('returns every record of duplicate ids, each once, in a stable order', () => {
    const res = engineOf().search('twin strike', { type: 'all', limit: 10 });
    expect(res.results).toEqual([
      { type: 'enemies', id: 'DUP-1', name: 'Twin Strike' }, // type order of the contract breaks the last tie
      { type: 'skills', id: 'DUP-1', name: 'Twin Strike' },
    ]);
  });
});

describe('multi-term queries', () => {
  it('match records that contain every term, in any order, full-name matches first', () => {
    expect(names('frost relic')).toEqual(['Frost Relic Helm', 'Relic of Frost']);
    expect(names('relic frost')).toEqual(['Relic of Frost', 'Frost Relic Helm']);
    expect(names('frost greaves helm')).toEqual([]);
  });

  it('let each term match by prefix or within one typo', () => {
    // both only within one typo per term: same tier, shorter name first
    expect(names('frst relc')).toEqual(['Relic of Frost', 'Frost Relic Helm']);
    expect(names('bloodfued bl')).toEqual(['Bloodfeud Blade']);
  });
});

describe('typos (one edit)', () => {
  it.each([
    ['substitution', 'bloodfeed'],
    ['insertion', 'bloodfeudd'],
    ['deletion', 'bloodfed'],
    ['transposition', 'bloodfued'],
  ])('%s finds the record', (_kind, q) => {
    expect(names(q)).toEqual(['Bloodfeud Blade']);
  });

  it('does not accept two edits, nor typos in very short terms', () => {
    expect(names('bloodfue')).toEqual([]); // two edits from "bloodfeud", not a prefix
    expect(names('xr')).toEqual([]);
  });
});

describe('filters and limits', () => {
  it('filters by type', () => {
    const engine = engineOf();
    expect(names('iron', 'armor', 50, engine)).toEqual(['Iron Helm']);
    expect(names('iron', 'materials', 50, engine)).toEqual(['Iron Ore']);
    expect(names('iron', 'bosses', 50, engine)).toEqual([]);
    expect(engine.search('iron', { type: 'armor', limit: 50 }).totalResults).toBe(1);
  });

  it('counts every match in totalResults, whatever the limit', () => {
    const engine = engineOf();
    const all = engine.search('iron', { type: 'all', limit: 50 });
    const two = engine.search('iron', { type: 'all', limit: 2 });
    const none = engine.search('iron', { type: 'all', limit: 0 });
    expect(all.totalResults).toBe(5);
    expect(two.totalResults).toBe(5);
    expect(none.totalResults).toBe(5);
    expect(two.results).toEqual(all.results.slice(0, 2));
    expect(none.results).toEqual([]);
  });

  it('ignores case and accents in queries', () => {
    expect(names('EPEE')).toEqual(['Épée Shard']);
    expect(names('épée shard')).toEqual(['Épée Shard']);
    expect(names('engineers')).toEqual(["Engineer's Toolkit"]);
    expect(names("ENGINEER'S tool")).toEqual(["Engineer's Toolkit"]);
  });

  it('finds nothing for unknown words or a query without letters', () => {
    const engine = engineOf();
    expect(engine.search('zzzqqq', { type: 'all', limit: 10 })).toEqual({ totalResults: 0, results: [] });
    expect(engine.search('?!', { type: 'all', limit: 10 })).toEqual({ totalResults: 0, results: [] });
  });

  it('rejects an unknown type', () => {
    expect(() => engineOf().search('iron', { type: 'nope' as 'all', limit: 10 })).toThrow(RangeError);
  });
});

describe('index file', () => {
  it('is deterministic: same records in any order give the same JSON', () => {
    const a = JSON.stringify(buildSearchIndex(RECORDS));
    const b = JSON.stringify(buildSearchIndex([...RECORDS].reverse()));
    expect(b).toBe(a);
    expect(engineOf().size).toBe(RECORDS.length);
  });

  it('gives back every id exactly as written, whatever it shares with its neighbours', () => {
    const ids = ['ITEM-20260601-000001-AB', 'ITEM-20260601-000001-AC', 'ITEM-2026', 'Épée-1', 'épée-1', '😀-a', '😁-b', ''];
    const records = ids.map((id, i): SearchRecord => ({ type: 'weapons', id, name: `Relic ${String.fromCharCode(97 + i)}` }));
    const found = engineOf(records).search('relic', { type: 'all', limit: 50 }).results;
    expect(found.map((r) => r.id).sort()).toEqual([...ids].sort());
    expect(found).toEqual(expect.arrayContaining(records));
  });

  it('rejects a corrupt or foreign file', () => {
    const good = JSON.parse(JSON.stringify(buildSearchIndex(RECORDS))) as Record<string, unknown>;
    const broken = (patch: (f: Record<string, unknown>) => void): unknown => {
      const f = structuredClone(good);
      patch(f);
      return f;
    };
    expect(() => loadSearchIndex(good)).not.toThrow();
    expect(() => loadSearchIndex(null)).toThrow(Error);
    expect(() => loadSearchIndex([])).toThrow(Error);
    expect(() => loadSearchIndex(broken((f) => (f.version = 2)))).toThrow(/version/);
    expect(() => loadSearchIndex(broken((f) => (f.format = 'other')))).toThrow(/format/);
    expect(() => loadSearchIndex(broken((f) => (f.terms = [...(f.terms as string[])].reverse())))).toThrow(/terms/);
    expect(() => loadSearchIndex(broken((f) => ((f.tokens as number[])[1] = 10_000)))).toThrow(/tokens/);
    expect(() => loadSearchIndex(broken((f) => (f.tokens as number[]).push(0)))).toThrow(/tokens/);
    expect(() => loadSearchIndex(broken((f) => (f.docs as { name: string[] }).name.pop()))).toThrow(/docs/);
    expect(() => loadSearchIndex(broken((f) => (f.ids as { suffix: string[] }).suffix.pop()))).toThrow(/ids/);
    expect(() => loadSearchIndex(broken((f) => ((f.ids as { shared: number[] }).shared[0] = 3)))).toThrow(/ids/);
    expect(() => loadSearchIndex(broken((f) => ((f.docs as { type: number[] }).type[0] = 99)))).toThrow(/docs/);
    expect(() =>
      loadSearchIndex(broken((f) => ((f.ids as { order: number[] }).order[0] = (f.ids as { order: number[] }).order[1] as number))),
    ).toThrow(/ids/);
    expect(() => loadSearchIndex(broken((f) => (f.types = ['weapons', 'weapons'])))).toThrow(/types/);
  });

  it('rejects records of an unknown type at build time', () => {
    expect(() => buildSearchIndex([{ type: 'relics' as 'weapons', id: 'x', name: 'y' }])).toThrow(/type/);
  });
});
