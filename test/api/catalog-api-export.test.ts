// Pure units of api/_lib/export (spec §4.4): column set, cells, filters, file names and the streamed bodies,
// then the same as a consumer of the CSV or JSON download sees it: the column order, what each kind of value
// becomes in a cell, RFC 4180 quoting with CRLF, which records a tier or category filter keeps, the file name
// of the download, and the streamed JSON body cut into batches that still join to one JSON document.
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
      new Set([
        'uuid',
        'id',
        'name',
        'type',
        'category',
        'tier',
        'Alpha',
        'meta',
        'stats.critBase',
        'stats.damageBase',
        'stats.nested.deep',
        'stats.speedBase',
        'zeta',
      ]),
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
    expect(flattenRecord(record, cols)).toEqual([
      'text',
      '1.5',
      'false',
      '',
      ['x', '2', 'true'].join(ARRAY_SEPARATOR),
      '[{"k":1}]',
      '4',
      '',
      '',
    ]);
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

// As a consumer of the download sees it.
async function chunks(stream: ReadableStream<Uint8Array>): Promise<string[]> {
  const out: string[] = [];
  const dec = new TextDecoder();
  for await (const c of stream as unknown as AsyncIterable<Uint8Array>) out.push(dec.decode(c));
  return out;
}

describe('columns', () => {
  it('starts with uuid, id, name, type, category, tier (those present), then the rest', () => {
    expect(IDENTIFYING_COLUMNS).toEqual(['uuid', 'id', 'name', 'type', 'category', 'tier']);
    expect(csvColumns([{ zz: 1, tier: 1, aa: 2, name: 'n', uuid: 'u' }])).toEqual(['uuid', 'name', 'tier', 'aa', 'zz']);
    expect(csvColumns([{ category: 'c', id: 'i', type: 't' }])).toEqual(['id', 'type', 'category']);
  });

  it('sorts the rest by name ignoring case, upper case first on a tie', () => {
    expect(csvColumns([{ b: 1, a: 1, B: 1, C: 1, A: 1 }])).toEqual(['A', 'a', 'B', 'b', 'C']);
    expect(csvColumns([{ beta: 1, Alpha: 1, gamma: 1 }])).toEqual(['Alpha', 'beta', 'gamma']);
  });

  it('gives nested values dotted columns to any depth and keeps an empty object as one column', () => {
    expect(csvColumns([{ stats: { attack: { min: 1, max: 2 } }, meta: {}, list: [1] }])).toEqual([
      'list',
      'meta',
      'stats.attack.max',
      'stats.attack.min',
    ]);
  });

  it('has no columns without object records', () => {
    expect(csvColumns([])).toEqual([]);
    expect(csvColumns([null, 'x', 3])).toEqual([]);
  });
});

describe('cells', () => {
  it('writes numbers, booleans and big integers as their text, null and missing as empty', () => {
    expect(flattenRecord({ n: 0, f: -2.5, t: true, b: 10n, z: null }, ['n', 'f', 't', 'b', 'z', 'gone'])).toEqual([
      '0',
      '-2.5',
      'true',
      '10',
      '',
      '',
    ]);
  });

  it('joins arrays of scalars with " | ", null elements empty, and writes other arrays as JSON', () => {
    expect(ARRAY_SEPARATOR).toBe(' | ');
    expect(flattenRecord({ a: ['x', null, 3, false] }, ['a'])).toEqual(['x |  | 3 | false']);
    expect(flattenRecord({ a: [] }, ['a'])).toEqual(['']);
    expect(flattenRecord({ a: [['x']] }, ['a'])).toEqual(['[["x"]]']);
    expect(flattenRecord({ a: ['x', { k: 1 }] }, ['a'])).toEqual(['["x",{"k":1}]']);
  });

  it('writes an object under a column of its own as JSON, an empty one as an empty cell', () => {
    expect(flattenRecord({ s: { d: 1 }, e: {} }, ['s', 'e'])).toEqual(['{"d":1}', '']);
  });

  it('leaves cells of values JSON has no text for empty', () => {
    expect(flattenRecord({ f: () => 1, s: Symbol('x') }, ['f', 's'])).toEqual(['', '']);
  });

  it('reads only the record’s own fields, never inherited ones', () => {
    expect(flattenRecord({ a: { b: 1 } }, ['toString', 'a.constructor', 'a.b.c', 'a.b'])).toEqual(['', '', '', '1']);
  });
});

describe('filters', () => {
  const ids = (rs: unknown[]): unknown[] => rs.map((r) => (r as { id: unknown }).id);

  it('matches a tier given as a number or as a string of digits with blanks', () => {
    const records = [
      { id: 1, tier: 3 },
      { id: 2, tier: ' 3 ' },
      { id: 3, tier: '3a' },
      { id: 4, tier: '03' },
      { id: 5 },
      { id: 6, tier: '' },
      { id: 7, tier: 'a3' },
      { id: 8, tier: [3] },
      { id: 9, tier: '3 3' },
      { id: 10, tier: null },
      { id: 11, tier: '0x3' },
      { id: 12, tier: '3e0' },
      { id: 13, tier: '+3' },
      { id: 14, tier: '3.0' },
    ];
    expect(ids(filterRecords(records, { tier: 3 }))).toEqual([1, 2, 4]);
  });

  it('compares the category trimmed and case-insensitively, and ignores a blank filter', () => {
    const records = [
      { id: 1, category: 'Heavy' },
      { id: 2, category: ' heavy ' },
      { id: 3, category: 'light' },
      { id: 4, category: 5 },
      { id: 5 },
    ];
    expect(ids(filterRecords(records, { category: ' HEAVY ' }))).toEqual([1, 2]);
    expect(ids(filterRecords(records, { category: '' }))).toEqual([1, 2, 3, 4, 5]);
    expect(ids(filterRecords(records, { category: '   ' }))).toEqual([1, 2, 3, 4, 5]);
  });

  it('combines tier and category and drops values that are not records', () => {
    const records = [
      { id: 1, tier: 2, category: 'a' },
      { id: 2, tier: 2, category: 'b' },
      { id: 3, tier: 1, category: 'a' },
      null,
      'x',
      [1],
    ];
    expect(ids(filterRecords(records, { tier: 2, category: 'A' }))).toEqual([1]);
    expect(filterRecords(records, {})).toHaveLength(3);
  });
});

describe('download file name', () => {
  it('reduces the category to a-z, 0-9 and single dashes, without dashes at the ends', () => {
    expect(csvFileName('skills', { category: '--Fire & Ice--' })).toBe('skills-fire-ice.csv');
    expect(csvFileName('skills', { category: '!!!' })).toBe('skills.csv');
    expect(csvFileName('skills', { category: '' })).toBe('skills.csv');
    expect(csvFileName('bosses', { tier: 8, category: 'Elite' })).toBe('bosses-t8-elite.csv');
  });
});

describe('CSV body', () => {
  it('quotes fields with a comma, a quote, CR or LF, doubling quotes, and ends every row with CRLF', async () => {
    const records = [{ a: 'x,y', b: 'say "hi"', c: 'line\nbreak', d: 'cr\rhere', e: 'plain' }];
    const text = (await chunks(exportCsvStream(['a', 'b', 'c', 'd', 'e'], records))).join('');
    expect(text).toBe('a,b,c,d,e\r\n"x,y","say ""hi""","line\nbreak","cr\rhere",plain\r\n');
  });

  it('sends the header, then the rows in batches of 500', async () => {
    expect(EXPORT_BATCH).toBe(500);
    const records = Array.from({ length: EXPORT_BATCH + 1 }, (_, i) => ({ id: i }));
    const parts = await chunks(exportCsvStream(['id'], records));
    expect(parts).toHaveLength(3);
    expect(parts[0]).toBe('id\r\n');
    expect(parts[1]?.split('\r\n')).toHaveLength(EXPORT_BATCH + 1);
    expect(parts[2]).toBe(`${EXPORT_BATCH}\r\n`);
  });

  it('is only the header row without records', async () => {
    expect(await chunks(exportCsvStream(['id', 'name'], []))).toEqual(['id,name\r\n']);
  });
});

describe('JSON body', () => {
  const head = { type: 'armor' as const, total: 2, filters: { tier: 2, category: 'heavy' } };

  it('streams the head, each batch and the end as one JSON document', async () => {
    const records = Array.from({ length: EXPORT_BATCH + 2 }, (_, i) => ({ id: i }));
    const parts = await chunks(exportJsonStream({ ...head, total: records.length }, records));
    expect(parts).toHaveLength(4);
    expect(parts[0]).toBe('{"type":"armor","total":502,"filters":{"tier":2,"category":"heavy"},"records":[');
    expect(parts[2]).toBe(',{"id":500},{"id":501}');
    expect(parts[3]).toBe(']}');
    expect(JSON.parse(parts.join(''))).toEqual({ ...head, total: records.length, records });
  });

  it('writes a missing record as null', async () => {
    const text = (await chunks(exportJsonStream(head, [undefined, { id: 1 }]))).join('');
    expect(text).toBe('{"type":"armor","total":2,"filters":{"tier":2,"category":"heavy"},"records":[null,{"id":1}]}');
  });
});
