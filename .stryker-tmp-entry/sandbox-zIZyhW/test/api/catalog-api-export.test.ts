// @ts-nocheck
// Pure units of api/_lib/export: column set, cells, filters, file names and the streamed bodies.
import { describe, expect, it } from 'vitest';
import {
  ARRAY_SEPARATOR,
  EXPORT_BATCH,
  IDENTIFYING_COLUMNS,
  csvColumns,
  csvFileName,
  exportCsvStream,
  exportJsonStream,
  filterRecords,
  flattenRecord,
} from '../../api/_lib/export/index.js';

describe('csvColumns', () => {
  const records = [
    { zeta: 1, name: 'A', stats: { damageBase: 3, speedBase: 1 }, uuid: 'U1', Alpha: true },
    { id: 'a', tier: 2, category: 'c', type: 't', stats: { critBase: 0.5, nested: { deep: 1 } }, meta: {} },
  ];

  it('puts identifying columns first, in their fixed order, then the rest by name', () => {
    const cols = csvColumns(records);
    const ident = IDENTIFYING_COLUMNS.filter((c) => cols.includes(c));
    expect(cols.slice(0, ident.length)).toEqual(ident);
    const rest = cols.slice(ident.length);
    expect(rest).toEqual([...rest].sort((a, b) => a.toLowerCase().localeCompare(b.toLowerCase(), 'en')));
  });

  it('flattens nested objects into dotted columns, keeps empty objects as one column, covers every record', () => {
    const cols = csvColumns(records);
    expect(new Set(cols)).toEqual(
      new Set(['uuid', 'id', 'name', 'type', 'category', 'tier', 'Alpha', 'meta', 'stats.critBase', 'stats.damageBase', 'stats.nested.deep', 'stats.speedBase', 'zeta']),
    );
    expect(cols.filter((c) => c === 'stats')).toHaveLength(0);
  });

  it('does not depend on the order of records or keys', () => {
    const shuffled = [...records].reverse().map((r) => Object.fromEntries(Object.entries(r).reverse()));
    expect(csvColumns(shuffled)).toEqual(csvColumns(records));
  });

  it('ignores non-object records', () => {
    expect(csvColumns([null, 3, 'x', ['a'], { a: 1 }])).toEqual(['a']);
  });
});

describe('flattenRecord', () => {
  it('writes scalars, joins scalar arrays, writes other arrays as JSON, leaves missing cells empty', () => {
    const record = { a: 'text', n: 1.5, b: false, nil: null, list: ['x', 2, true], objs: [{ k: 1 }], s: { d: 4 } };
    const cols = ['a', 'n', 'b', 'nil', 'list', 'objs', 's.d', 'missing', 's.nope'];
    expect(flattenRecord(record, cols)).toEqual(['text', '1.5', 'false', '', ['x', '2', 'true'].join(ARRAY_SEPARATOR), '[{"k":1}]', '4', '', '']);
  });

  it('reads a literal dotted key before walking nested objects', () => {
    expect(flattenRecord({ 'a.b': 'lit', a: { b: 'nested' } }, ['a.b'])).toEqual(['lit']);
  });

  it('gives one cell per column for any input', () => {
    expect(flattenRecord(null, ['a', 'b'])).toEqual(['', '']);
  });
});

describe('filterRecords', () => {
  const records = [
    { id: 1, tier: 1, category: 'Swords' },
    { id: 2, tier: '2', category: ' swords ' },
    { id: 3, tier: 2, category: 'bows' },
    { id: 4 },
  ];
  it('matches tier as number or numeric string and category case-insensitively', () => {
    expect(filterRecords(records, { tier: 2 }).map((r) => (r as { id: number }).id)).toEqual([2, 3]);
    expect(filterRecords(records, { category: 'SWORDS' }).map((r) => (r as { id: number }).id)).toEqual([1, 2]);
    expect(filterRecords(records, {}).map((r) => (r as { id: number }).id)).toEqual([1, 2, 3, 4]);
  });
});

describe('csvFileName', () => {
  it('is <type>[-t<tier>][-<category>].csv with a header-safe category', () => {
    expect(csvFileName('weapons', {})).toBe('weapons.csv');
    expect(csvFileName('armor', { tier: 3 })).toBe('armor-t3.csv');
    expect(csvFileName('armor', { tier: 3, category: 'Heavy "Plate"/Mail' })).toBe('armor-t3-heavy-plate-mail.csv');
  });
});

describe('streamed bodies', () => {
  const many = Array.from({ length: EXPORT_BATCH * 2 + 7 }, (_, i) => ({ id: `r${i}`, name: `Name ${i}`, tier: (i % 8) + 1 }));

  it('JSON stream equals JSON.stringify of the whole body, over several batches and when empty', async () => {
    const head = { type: 'weapons' as const, total: many.length, filters: { tier: null, category: null } };
    expect(await new Response(exportJsonStream(head, many)).text()).toBe(JSON.stringify({ ...head, records: many }));
    const none = { ...head, total: 0 };
    expect(await new Response(exportJsonStream(none, [])).text()).toBe(JSON.stringify({ ...none, records: [] }));
  });

  it('CSV stream has one header row and one CRLF-terminated row per record', async () => {
    const cols = csvColumns(many);
    const text = await new Response(exportCsvStream(cols, many)).text();
    const lines = text.split('\r\n');
    expect(lines[0]).toBe(cols.join(','));
    expect(lines).toHaveLength(many.length + 2);
    expect(lines[many.length]).toBe(flattenRecord(many.at(-1), cols).join(','));
  });
});
