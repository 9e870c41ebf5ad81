/**
 * The build's rule table and severity resolution (build/pipeline/rules.ts): the default severity of
 * every core rule, what a catalog config may change globally (`rules`, by name or by area `schema/*`)
 * and per file (`overrides`, first matching glob that names the rule wins; `*`, `**`, `?` globs with
 * literal dots), the cap at `warn` for design/legacy and archived files (spec §9.3), and the refusal
 * of rule names the build does not know.
 */
import { describe, expect, it } from 'vitest';
import { CORE_RULES, RuleBook } from '../../build/pipeline/rules.js';
import type { CatalogConfig, RuleDef, Severity } from '../../build/pipeline/types.js';
import { testConfig } from '../helpers/config.js';

const book = (fields: Partial<CatalogConfig> = {}, rules: readonly RuleDef[] = CORE_RULES): RuleBook =>
  new RuleBook(rules, testConfig(fields));

/** One override per call: `files` globs → the given rule severities. */
const override = (files: string[], rules: Record<string, Severity>): CatalogConfig['overrides'][number] => ({ files, rules });

describe('core rules', () => {
  it('have the default severities the spec sets', () => {
    const defaults = Object.fromEntries(CORE_RULES.map((r) => [r.name, r.severity]));
    expect(defaults).toEqual({
      'json/syntax': 'error',
      'json/duplicate-key': 'error',
      'json/encoding': 'error',
      'schema/required': 'error',
      'schema/type': 'error',
      'schema/enum': 'error',
      'schema/const': 'error',
      'schema/range': 'error',
      'schema/format': 'error',
      'schema/other': 'error',
      'catalog/retired-file': 'warn',
      'catalog/archived-file': 'warn',
      'catalog/no-schema': 'off',
      'law/definition-prefix': 'error',
      'law/id-format': 'error',
      'law/duplicate-id': 'error',
      'law/instance-id': 'error',
      'law/placeholder': 'error',
      'law/derived-id-mismatch': 'error',
      'law/unresolved-ref': 'error',
      'registry/stale-entry': 'warn',
    });
  });

  it('each say in a sentence what they check (the report lists them for content authors)', () => {
    for (const r of CORE_RULES) {
      expect(r.description.length, r.name).toBeGreaterThan(30);
      expect(r.description, r.name).toMatch(/\.$/);
    }
    expect(new Set(CORE_RULES.map((r) => r.description)).size).toBe(CORE_RULES.length);
  });
});

describe('RuleBook', () => {
  it('knows every rule it was given, and only those', () => {
    const b = book();
    expect(b.all().map((r) => r.name)).toEqual(CORE_RULES.map((r) => r.name));
    expect(b.has('json/syntax')).toBe(true);
    expect(b.has('json/nothing')).toBe(false);
  });

  it('uses the default severity when the config says nothing; an unknown rule counts as an error', () => {
    const b = book();
    expect(b.severity('catalog/no-schema', 'a.json', false)).toBe('off');
    expect(b.severity('catalog/retired-file', 'a.json', false)).toBe('warn');
    expect(b.severity('json/syntax', 'a.json', false)).toBe('error');
    expect(b.severity('made/up', 'a.json', false)).toBe('error');
  });

  it('applies config.rules by name and by area, the name before the area', () => {
    const b = book({ rules: { 'schema/*': 'warn', 'schema/enum': 'off', 'catalog/no-schema': 'error' } });
    expect(b.severity('schema/type', 'a.json', false)).toBe('warn');
    expect(b.severity('schema/enum', 'a.json', false)).toBe('off');
    expect(b.severity('catalog/no-schema', 'a.json', false)).toBe('error');
    expect(b.severity('json/syntax', 'a.json', false)).toBe('error');
  });

  it('applies the first override whose glob matches the file and names the rule', () => {
    const b = book({
      rules: { 'law/placeholder': 'warn' },
      overrides: [
        override(['legacy/*.json'], { 'schema/type': 'off' }),
        override(['legacy/old.json'], { 'law/placeholder': 'off' }),
        override(['legacy/old.json'], { 'law/placeholder': 'error' }),
        override(['**/deep.json'], { 'law/*': 'off' }),
      ],
    });
    // first override matches but does not name the rule: the next one decides
    expect(b.severity('law/placeholder', 'legacy/old.json', false)).toBe('off');
    expect(b.severity('schema/type', 'legacy/old.json', false)).toBe('off');
    // no override matches: the global setting
    expect(b.severity('law/placeholder', 'other.json', false)).toBe('warn');
    expect(b.severity('schema/type', 'other.json', false)).toBe('error');
    // area name inside an override
    expect(b.severity('law/placeholder', 'a/b/deep.json', false)).toBe('off');
    expect(b.severity('law/id-format', 'deep.json', false)).toBe('off');
  });

  it('reads override globs: `*` stays within a segment, `**` crosses segments, `?` is one character, dots are literal', () => {
    const b = book({
      overrides: [
        override(['one/*.json'], { 'json/syntax': 'off' }),
        override(['deep/**'], { 'json/encoding': 'off' }),
        override(['t?.json'], { 'json/duplicate-key': 'off' }),
        override(['x.json'], { 'schema/type': 'off' }),
        override(['y1.json', 'y2.json'], { 'law/id-format': 'off' }),
        override(['a/**/z.json'], { 'schema/enum': 'off' }),
        override(['(p)+[q].json'], { 'schema/const': 'off' }),
        override(['{a}|^$\\.json'], { 'schema/format': 'off' }),
      ],
    });
    const sev = (rule: string, file: string): Severity => b.severity(rule, file, false);
    expect(sev('json/syntax', 'one/a.json')).toBe('off');
    expect(sev('json/syntax', 'one/two/a.json')).toBe('error');
    expect(sev('json/syntax', 'pre/one/a.json')).toBe('error');
    expect(sev('json/syntax', 'one/a.jsonx')).toBe('error');
    expect(sev('json/encoding', 'deep/a/b/c.json')).toBe('off');
    expect(sev('json/encoding', 'deeper/a.json')).toBe('error');
    expect(sev('json/duplicate-key', 't1.json')).toBe('off');
    expect(sev('json/duplicate-key', 't12.json')).toBe('error');
    expect(sev('json/duplicate-key', 't/.json')).toBe('error');
    expect(sev('schema/type', 'x.json')).toBe('off');
    expect(sev('schema/type', 'xajson')).toBe('error');
    expect(sev('law/id-format', 'y2.json')).toBe('off');
    expect(sev('law/id-format', 'y1.json')).toBe('off');
    expect(sev('law/id-format', 'y3.json')).toBe('error');
    expect(sev('schema/enum', 'a/z.json')).toBe('off');
    expect(sev('schema/enum', 'a/b/c/z.json')).toBe('off');
    expect(sev('schema/enum', 'a/bz.json')).toBe('error');
    expect(sev('schema/const', '(p)+[q].json')).toBe('off');
    expect(sev('schema/const', 'pp[q].json')).toBe('error');
    expect(sev('schema/format', '{a}|^$\\.json')).toBe('off');
    expect(sev('schema/format', 'a')).toBe('error');
    expect(sev('schema/format', '{a}|^$\\xjson')).toBe('error');
  });

  it('caps a legacy file at warn, leaving warn and off as they are', () => {
    const b = book({ rules: { 'schema/type': 'off' } });
    expect(b.severity('json/syntax', 'weapons.json', true)).toBe('warn');
    expect(b.severity('catalog/retired-file', 'weapons.json', true)).toBe('warn');
    expect(b.severity('schema/type', 'weapons.json', true)).toBe('off');
    expect(b.severity('catalog/no-schema', 'weapons.json', true)).toBe('off');
  });

  it('refuses config keys that name no rule, listing each once with the known rules', () => {
    const make =
      (fields: Partial<CatalogConfig>): (() => RuleBook) =>
      () =>
        book(fields);
    expect(make({ rules: { 'json/syntax': 'warn', 'schema/*': 'off', 'law/*': 'off' } })).not.toThrow();
    let message = '';
    try {
      book({ rules: { 'json/sintax': 'warn' }, overrides: [override(['a.json'], { 'json/sintax': 'off', 'bogus/*': 'off' })] });
    } catch (e) {
      message = (e as Error).message;
    }
    expect(message).toContain('json/sintax');
    expect(message).toContain('bogus/*');
    expect(message).toContain('json/sintax, bogus/*.');
    expect(message.split('json/sintax').length).toBe(2);
    expect(message).toContain('json/syntax, json/duplicate-key, json/encoding');
    expect(message).toContain('registry/stale-entry');
    // an area needs a known rule in it; a name without the `/*` is not an area
    expect(make({ rules: { 'schema/type*': 'off' } })).toThrow(/schema\/type\*/);
    expect(make({ rules: { 'sch/*': 'off' } })).toThrow(/sch\/\*/);
    expect(make({ rules: { json: 'off' } })).toThrow(/json/);
    expect(() =>
      book({ rules: { 'extra/rule': 'off' } }, [...CORE_RULES, { name: 'extra/rule', severity: 'warn', description: 'x' }]),
    ).not.toThrow();
  });
});
