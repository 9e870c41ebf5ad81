/**
 * Stage 2, validate (build/pipeline/validate.ts, spec §2, §6): which schema checks a catalog file
 * (`https://schemas.game-data.dev/catalog/<file stem>.schema.json`), the rule each failing JSON
 * Schema keyword is reported under (`schema/required`, `schema/type`, `schema/enum`, `schema/const`,
 * `schema/range`, `schema/format`, `schema/other`), the pointer and the facts each message carries
 * (missing field, allowed values, fixed value, unexpected field, schema path), one report per distinct
 * problem, `catalog/no-schema` for files without a schema, and a registry that refuses a schema
 * without `$id`.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Ajv2020 } from 'ajv/dist/2020.js';
import { catalogSchemaId, createSchemaRegistry, validateDocs } from '../../build/pipeline/validate.js';
import type { IssueInput, SourceDoc } from '../../build/pipeline/types.js';

const dirs: string[] = [];
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

async function schemaDir(schemas: Record<string, object>): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'schemas-'));
  dirs.push(dir);
  for (const [name, s] of Object.entries(schemas)) {
    await mkdir(join(dir, name, '..'), { recursive: true });
    await writeFile(join(dir, name), JSON.stringify(s));
  }
  return dir;
}

const THING = {
  $id: 'https://schemas.game-data.dev/catalog/thing.schema.json',
  type: 'object',
  required: ['name'],
  additionalProperties: false,
  dependentRequired: { a: ['b'] },
  properties: {
    name: { type: 'string', minLength: 2, maxLength: 5 },
    a: {},
    b: {},
    kind: { enum: ['x', 'y'] },
    fixed: { const: 'v1' },
    tier: { type: 'integer', minimum: 1, maximum: 8 },
    low: { type: 'number', exclusiveMinimum: 0, exclusiveMaximum: 1 },
    list: { type: 'array', minItems: 1, maxItems: 2 },
    when: { type: 'string', format: 'date-time' },
    code: { type: 'string', pattern: '^[A-Z]+$' },
    step: { type: 'number', multipleOf: 5 },
    either: { anyOf: [{ type: 'string' }, { type: 'number' }] },
    one: { oneOf: [{ type: 'string' }, { type: 'number' }] },
    all: { allOf: [{ type: 'string' }] },
    cond: { if: { type: 'string' }, then: { minLength: 3 } },
    dots: { type: 'string', pattern: '^a..b$' },
    twice: { anyOf: [{ type: 'string' }, { type: 'string', minLength: 1 }] },
  },
};

let ajv: Ajv2020;
beforeAll(async () => {
  ajv = await createSchemaRegistry(
    await schemaDir({ 'catalog/thing.schema.json': THING, 'other/unrelated.schema.json': { $id: 'https://x.test/u.json' } }),
  );
});

function run(docs: SourceDoc[]): { n: number; issues: IssueInput[] } {
  const issues: IssueInput[] = [];
  const n = validateDocs(ajv, docs, (i) => issues.push(i));
  return { n, issues };
}

const doc = (path: string, data: unknown): SourceDoc => ({ path, text: JSON.stringify(data), data });

/** Problems of one `thing.json` document: `rule pointer` pairs. */
function problems(data: unknown): IssueInput[] {
  return run([doc('thing.json', data)]).issues;
}

describe('catalogSchemaId', () => {
  it('is the catalog schema of the file stem, wherever the file sits', () => {
    expect(catalogSchemaId('master-relics.json')).toBe('https://schemas.game-data.dev/catalog/master-relics.schema.json');
    expect(catalogSchemaId('sub/dir/enemies.json')).toBe('https://schemas.game-data.dev/catalog/enemies.schema.json');
    expect(catalogSchemaId('a.json.json')).toBe('https://schemas.game-data.dev/catalog/a.json.schema.json');
    expect(catalogSchemaId('json.txt')).toBe('https://schemas.game-data.dev/catalog/json.txt.schema.json');
    expect(catalogSchemaId('a.json.x.json')).toBe('https://schemas.game-data.dev/catalog/a.json.x.schema.json');
    expect(catalogSchemaId('a-json')).toBe('https://schemas.game-data.dev/catalog/a-json.schema.json');
  });
});

describe('createSchemaRegistry', () => {
  it('registers every schema of the project by $id', async () => {
    const project = await createSchemaRegistry();
    expect(project.getSchema('https://schemas.game-data.dev/catalog/master-relics.schema.json')).toBeDefined();
    expect(project.getSchema('https://schemas.game-data.dev/build/catalog-config.schema.json')).toBeDefined();
  });

  it('refuses a schema file without $id, naming it', async () => {
    const dir = await schemaDir({ 'good.json': { $id: 'https://x.test/g.json' }, 'bad.json': { type: 'object' } });
    await expect(createSchemaRegistry(dir)).rejects.toThrow(/bad\.json/);
  });

  it('checks formats (date-time) and accepts union types', async () => {
    const dir = await schemaDir({
      'u.json': { $id: 'https://schemas.game-data.dev/catalog/u.schema.json', type: ['string', 'null'], format: 'date-time' },
    });
    const reg = await createSchemaRegistry(dir);
    const issues: IssueInput[] = [];
    validateDocs(reg, [doc('u.json', null), doc('u.json', '2026-01-01T00:00:00Z'), doc('u.json', 'soon')], (i) => issues.push(i));
    expect(issues.map((i) => i.rule)).toEqual(['schema/format']);
  });
});

describe('validateDocs', () => {
  it('accepts a valid document and counts only documents that have a schema', () => {
    const r = run([
      doc('thing.json', { name: 'ok' }),
      doc('sub/thing.json', { name: 'ok2' }),
      doc('free.json', { anything: 1 }),
      { path: 'thing.json', text: '{', data: undefined },
    ]);
    expect(r.n).toBe(2);
    expect(r.issues).toHaveLength(1);
    expect(r.issues[0]).toMatchObject({ rule: 'catalog/no-schema', file: 'free.json', pointer: '' });
    expect(r.issues[0]!.message.length).toBeGreaterThan(20);
  });

  it('reports a file without schema once per file', () => {
    const r = run([doc('free.json', 1), doc('other.json', 2), doc('free2/free.json', 3)]);
    expect(r.n).toBe(0);
    expect(r.issues.map((i) => `${i.rule} ${i.file}`)).toEqual([
      'catalog/no-schema free.json',
      'catalog/no-schema other.json',
      'catalog/no-schema free2/free.json',
    ]);
  });

  it('maps presence failures to schema/required with the missing field named', () => {
    const issues = problems({ a: 1 });
    expect(issues.map((i) => [i.rule, i.pointer])).toEqual([
      ['schema/required', ''],
      ['schema/required', ''],
    ]);
    expect(issues[0]!.message).toContain('"name"');
    expect(issues[1]!.message).toContain('property b');
    expect(issues[0]!.message).toContain('(schema #/required)');
    expect(issues[0]!.file).toBe('thing.json');
  });

  it('maps type, enum and const failures, naming allowed and fixed values', () => {
    const issues = problems({ name: 7, kind: 'z', fixed: 'v2' });
    const by = Object.fromEntries(issues.map((i) => [i.pointer, i]));
    expect(by['/name']).toMatchObject({ rule: 'schema/type' });
    expect(by['/name']!.message).toMatch(/^must be string\. \(schema #\/properties\/name\/type\)$/);
    expect(by['/kind']).toMatchObject({ rule: 'schema/enum' });
    expect(by['/kind']!.message).toMatch(/^Must be one of "x", "y"\. /);
    expect(by['/fixed']).toMatchObject({ rule: 'schema/const' });
    expect(by['/fixed']!.message).toContain('"v1"');
    expect(issues).toHaveLength(3);
  });

  it('maps every bound to schema/range', () => {
    const cases: [unknown, string][] = [
      [{ name: 'ok', tier: 0 }, '/tier'],
      [{ name: 'ok', tier: 9 }, '/tier'],
      [{ name: 'ok', low: 0 }, '/low'],
      [{ name: 'ok', low: 1 }, '/low'],
      [{ name: 'ok', list: [] }, '/list'],
      [{ name: 'ok', list: [1, 2, 3] }, '/list'],
      [{ name: 'o' }, '/name'],
      [{ name: 'toolong' }, '/name'],
    ];
    for (const [data, ptr] of cases)
      expect(
        problems(data).map((i) => [i.rule, i.pointer]),
        JSON.stringify(data),
      ).toEqual([['schema/range', ptr]]);
  });

  it('maps format and pattern to schema/format, anything else to schema/other', () => {
    expect(problems({ name: 'ok', when: 'yesterday' }).map((i) => [i.rule, i.pointer])).toEqual([['schema/format', '/when']]);
    expect(problems({ name: 'ok', code: 'abc' }).map((i) => [i.rule, i.pointer])).toEqual([['schema/format', '/code']]);
    expect(problems({ name: 'ok', step: 3 }).map((i) => [i.rule, i.pointer])).toEqual([['schema/other', '/step']]);
    const dots = problems({ name: 'ok', dots: 'zz' });
    expect(dots.map((i) => [i.rule, i.pointer])).toEqual([['schema/format', '/dots']]);
    expect(dots[0]!.message).toMatch(/^must match pattern "\^a\.\.b\$"\. \(schema /);
  });

  it('points an unexpected field at the field itself and names it', () => {
    const issues = problems({ name: 'ok', extra: 1 });
    expect(issues.map((i) => [i.rule, i.pointer])).toEqual([['schema/other', '/extra']]);
    expect(issues[0]!.message).toContain('"extra"');
  });

  it('leaves out the combinator summaries and keeps the failures under them', () => {
    const issues = problems({ name: 'ok', either: true, one: true, all: 1, cond: 'ab' });
    expect(issues.map((i) => [i.rule, i.pointer])).toEqual([
      ['schema/type', '/either'],
      ['schema/type', '/either'],
      ['schema/type', '/one'],
      ['schema/type', '/one'],
      ['schema/type', '/all'],
      ['schema/range', '/cond'],
    ]);
  });

  it('reports the same problem at the same place once', () => {
    expect(problems({ name: 'ok', twice: 1 }).map((i) => [i.rule, i.pointer])).toEqual([['schema/type', '/twice']]);
  });

  it('checks each document on its own, with every problem of each', () => {
    const r = run([doc('thing.json', { name: 1, kind: 'z' }), doc('b/thing.json', { name: 'ok', tier: 'x' })]);
    expect(r.issues.map((i) => `${i.file} ${i.pointer} ${i.rule}`)).toEqual([
      'thing.json /name schema/type',
      'thing.json /kind schema/enum',
      'b/thing.json /tier schema/type',
    ]);
  });
});
