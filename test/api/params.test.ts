// Query-parameter policy of every function (api/_lib/http/params.ts; docs/api.md "Query parameters"): every bad
// parameter at once, repeated and unknown names refused, `_`-prefixed names ignored, blank as absent,
// plain-digit integers with bounds, limits clamped and reported in X-Limit-* headers, string length
// limits (200 for q, 100 for word filters), and the canonical string behind the ETag.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clampHeaders, parseQuery, type ParamSpec } from '../../api/_lib/http/params.js';
import { PROBLEM_BOUNDS } from '../../api/_lib/http/respond.js';
import { ServiceError, type FieldProblem } from '../../api/_lib/errors.js';
import * as catalog from '../../api/catalog.js';
import * as registries from '../../api/registries.js';
import { SAMPLE_OUT } from '../helpers/catalog.js';
import { useCatalog } from '../helpers/service.js';

const SPEC = {
  q: { kind: 'string' },
  type: { kind: 'enum', values: ['all', 'Weapons', 'armor'], default: 'all' },
  tier: { kind: 'int', min: 1, max: 8 },
  limit: { kind: 'int', min: 1, max: 500, default: 50, clamp: true },
} as const satisfies Record<string, ParamSpec>;

const parse = <T extends Record<string, ParamSpec>>(query: string, spec: T) => parseQuery(new URLSearchParams(query), spec);

function refusal(query: string, spec: Record<string, ParamSpec> = SPEC): FieldProblem[] {
  try {
    parse(query, spec);
  } catch (e) {
    expect(e).toBeInstanceOf(ServiceError);
    expect((e as ServiceError).code).toBe('INVALID_QUERY');
    expect((e as ServiceError).status).toBe(400);
    return [...(e as ServiceError).errors];
  }
  throw new Error(`expected ${query} to be refused`);
}
const names = (query: string, spec?: Record<string, ParamSpec>) => refusal(query, spec).map((p) => p.name);

describe('defaults and absent parameters', () => {
  it('fills defaults, leaves optional parameters without one undefined', () => {
    const { values, clamped } = parse('', SPEC);
    expect(values).toEqual({ q: undefined, type: 'all', tier: undefined, limit: 50 });
    expect(clamped).toEqual({});
  });

  it('treats empty values as absent for optional parameters', () => {
    expect(parse('q=&type=&tier=&limit=', SPEC).values).toEqual({ q: undefined, type: 'all', tier: undefined, limit: 50 });
  });

  it('takes every value as sent: spaces are part of a string, and no integer or enumeration value', () => {
    expect(parse('q=%20%20', SPEC).values.q).toBe('  ');
    expect(parse('q=%20oak%20', SPEC).values.q).toBe(' oak ');
    expect(names('tier=%203%20')).toEqual(['tier']);
    expect(names('type=%20Armor')).toEqual(['type']);
    expect(names('limit=%2050')).toEqual(['limit']);
    // a string's bound counts the spaces too
    expect(names(`q=%20${'a'.repeat(200)}`)).toEqual(['q']);
  });

  it('refuses a required parameter that is missing or blank', () => {
    const spec = { q: { kind: 'string', required: true }, n: { kind: 'int', min: 0, max: 9, required: true } } as const;
    expect(names('', spec)).toEqual(['q', 'n']);
    expect(names('q=&n=', spec)).toEqual(['q', 'n']);
    expect(parse('q=a&n=0', spec).values).toEqual({ q: 'a', n: 0 });
  });

  it('parses a query with no declared parameters', () => {
    expect(parse('', {})).toEqual({ values: {}, canonical: '', clamped: {} });
  });
});

describe('repeated, unknown and reserved names', () => {
  it('refuses a parameter given more than once, echoing every value', () => {
    const problems = refusal('tier=1&tier=2');
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatchObject({ name: 'tier', value: ['1', '2'] });
  });

  it('refuses a repeated parameter even when one copy is blank', () => {
    expect(names('q=&q=a')).toEqual(['q']);
  });

  it('refuses an unknown name once, however often it is given, echoing its values', () => {
    const problems = refusal('teir=3&teir=4&tier=2');
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatchObject({ name: 'teir', value: ['3', '4'] });
    expect(problems[0]?.message).toContain('tier');
  });

  it('refuses any parameter on a route that takes none', () => {
    expect(names('x=1', {})).toEqual(['x']);
  });

  it('ignores names that start with "_" (routing and cache busters), but not names that merely contain one', () => {
    expect(parse('_=1699&_route=stats&_key=x&tier=2', SPEC).values.tier).toBe(2);
    expect(parse('_=1&_=2', SPEC).canonical).toBe('limit=50&type=all');
    expect(names('tier_=2&ti_er=3')).toEqual(['tier_', 'ti_er']);
  });

  it('lists every problem at once', () => {
    expect(names('tier=9&type=nope&zzz=1&limit=x').sort()).toEqual(['limit', 'tier', 'type', 'zzz']);
  });
});

describe('integers', () => {
  it('accepts base-10 digits within bounds', () => {
    expect(parse('tier=1', SPEC).values.tier).toBe(1);
    expect(parse('tier=8', SPEC).values.tier).toBe(8);
    expect(parse('tier=08', SPEC).values.tier).toBe(8);
  });

  it('refuses anything else, echoing the value', () => {
    for (const bad of ['0', '9', '3.0', '0x3', '3e0', 'a3', '3a', '+3', '- 3', '1 2', ' 3', '3 ']) {
      const problems = refusal(`tier=${encodeURIComponent(bad)}`);
      expect(problems, bad).toEqual([expect.objectContaining({ name: 'tier', value: bad })]);
    }
  });

  it('accepts a negative number where the range allows one', () => {
    const spec = { dx: { kind: 'int', min: -5, max: 5 } } as const;
    expect(parse('dx=-5', spec).values.dx).toBe(-5);
    expect(names('dx=-6', spec)).toEqual(['dx']);
    expect(names('dx=--1', spec)).toEqual(['dx']);
  });

  it('refuses an integer too large to represent exactly, even without an upper bound', () => {
    const spec = { n: { kind: 'int', min: 0, max: Number.POSITIVE_INFINITY } } as const;
    expect(parse('n=9007199254740991', spec).values.n).toBe(Number.MAX_SAFE_INTEGER);
    expect(names('n=9007199254740993', spec)).toEqual(['n']);
  });
});

describe('clamped limits', () => {
  it('keeps the maximum itself and lowers anything above it, recording what was sent', () => {
    const at = parse('limit=500', SPEC);
    expect(at.values.limit).toBe(500);
    expect(at.clamped).toEqual({});
    const over = parse('limit=501', SPEC);
    expect(over.values.limit).toBe(500);
    expect(over.clamped).toEqual({ limit: ['501', 500] });
    expect(over.canonical).toBe('limit=500&type=all');
  });

  it('refuses a limit below the minimum rather than raising it', () => {
    expect(names('limit=0')).toEqual(['limit']);
    expect(parse('limit=1', SPEC).values.limit).toBe(1);
  });

  it('refuses, not clamps, a parameter above its maximum that is not a clamped one', () => {
    expect(names('tier=9')).toEqual(['tier']);
  });

  it('turns a clamp into X-Limit-Requested (as sent, at most 32 characters) and X-Limit-Applied', () => {
    expect(clampHeaders({})).toEqual({});
    expect(clampHeaders({ limit: ['0600', 500] })).toEqual({ 'X-Limit-Requested': '0600', 'X-Limit-Applied': '500' });
    expect(clampHeaders({ limit: ['9'.repeat(32), 500] })['X-Limit-Requested']).toBe('9'.repeat(32));
    expect(clampHeaders({ limit: ['9'.repeat(33), 500] })['X-Limit-Requested']).toBe('9'.repeat(29) + '...');
  });

  it('reads the clamp of the parameter it is asked for', () => {
    expect(clampHeaders({ size: ['900', 100] }, 'size')).toEqual({ 'X-Limit-Requested': '900', 'X-Limit-Applied': '100' });
    expect(clampHeaders({ size: ['900', 100] })).toEqual({});
  });
});

describe('enumerations and strings', () => {
  it('compares enum values case-insensitively and returns the declared spelling', () => {
    expect(parse('type=WEAPONS', SPEC).values.type).toBe('Weapons');
    expect(parse('type=Armor', SPEC).values.type).toBe('armor');
    expect(refusal('type=weapon')).toEqual([expect.objectContaining({ name: 'type', value: 'weapon' })]);
  });

  it('accepts exactly 200 characters by default, refusing 201', () => {
    expect(parse(`q=${'a'.repeat(200)}`, SPEC).values.q).toBe('a'.repeat(200));
    const [problem] = refusal(`q=${'a'.repeat(201)}`);
    expect(problem?.name).toBe('q');
    const echoed = String(problem?.value);
    expect(echoed.length).toBeLessThanOrEqual(PROBLEM_BOUNDS.text);
    expect(echoed.startsWith('aaaa')).toBe(true);
    expect(echoed.endsWith('…')).toBe(true);
  });

  it('applies a declared maximum length', () => {
    const spec = { category: { kind: 'string', maxLength: 100 } } as const;
    expect(parse(`category=${'c'.repeat(100)}`, spec).values.category).toHaveLength(100);
    expect(names(`category=${'c'.repeat(101)}`, spec)).toEqual(['category']);
  });

  it('applies a declared pattern to the whole value', () => {
    const spec = { studioId: { kind: 'string', pattern: /^STUDIO_[0-9A-Z]{8,64}$/ } } as const;
    expect(parse('studioId=STUDIO_7Q2M4K9X', spec).values.studioId).toBe('STUDIO_7Q2M4K9X');
    const [problem] = refusal('studioId=STUDIO_lower', spec);
    expect(problem).toMatchObject({ name: 'studioId', value: 'STUDIO_lower' });
    expect(problem!.message).toContain('^STUDIO_[0-9A-Z]{8,64}$');
  });
});

describe('a spec with an unknown kind', () => {
  it('is a defect of the spec: a TypeError that names the parameter, not a client error', () => {
    const spec = { when: { kind: 'date' } } as unknown as Record<string, ParamSpec>;
    expect(() => parse('when=today', spec)).toThrow(TypeError);
    expect(() => parse('when=today', spec)).toThrow(/"when".*"date"/);
    // absent, the parameter is not read
    expect(parse('', spec).values).toEqual({ when: undefined });
  });
});

describe('canonical query', () => {
  it('lists effective values sorted by name, defaults included, absent ones left out, values encoded', () => {
    expect(parse('tier=3&q=fire%20%26%20ice', SPEC).canonical).toBe('limit=50&q=fire%20%26%20ice&tier=3&type=all');
    expect(parse('', SPEC).canonical).toBe('limit=50&type=all');
  });

  it('is the same for requests that mean the same', () => {
    const a = parse('type=WEAPONS&limit=050&q=oak', SPEC).canonical;
    expect(parse('q=oak&_=123&type=weapons&limit=50', SPEC).canonical).toBe(a);
    expect(parse('q=oak&type=armor', SPEC).canonical).not.toBe(a);
  });
});

describe('through the functions', () => {
  beforeAll(() => useCatalog(SAMPLE_OUT));
  afterAll(() => useCatalog(undefined));

  const code = async (res: Response) => ((await res.json()) as { code: string }).code;

  it('search takes a q of exactly 200 characters and refuses 201', async () => {
    expect((await catalog.GET(new Request(`http://t/api/search?q=${'a'.repeat(200)}`))).status).toBe(200);
    const res = await catalog.GET(new Request(`http://t/api/search?q=${'a'.repeat(201)}`));
    expect(res.status).toBe(400);
    expect(await code(res)).toBe('INVALID_QUERY');
  });

  it('a registry word filter takes 100 characters and refuses 101', async () => {
    expect((await registries.GET(new Request(`http://t/api/v1/sprites?category=${'c'.repeat(100)}`))).status).toBe(200);
    const res = await registries.GET(new Request(`http://t/api/v1/sprites?category=${'c'.repeat(101)}`));
    expect(res.status).toBe(400);
    expect(await code(res)).toBe('INVALID_QUERY');
  });

  it('gives requests that mean the same the same ETag', async () => {
    const a = await catalog.GET(new Request('http://t/api/search?q=oak&type=ALL&limit=050'));
    const b = await catalog.GET(new Request('http://t/api/search?q=oak&_=1'));
    expect(a.headers.get('etag')).toBe(b.headers.get('etag'));
  });
});

describe('what a refusal tells the client', () => {
  // FieldProblem.message says what was wrong and what to send instead: the name, the allowed range,
  // values or length, the parameters that exist. Asserted on those facts, not on wording.
  const message = (query: string, spec: Record<string, ParamSpec> = SPEC) => refusal(query, spec)[0]?.message ?? '';

  it('names the allowed range, values or length', () => {
    expect(message('tier=x')).toMatch(/tier[\s\S]*\b1\b[\s\S]*\b8\b/);
    expect(message('tier=9')).toMatch(/tier[\s\S]*\b1\b[\s\S]*\b8\b/);
    expect(message('type=x')).toMatch(/all[\s\S]*Weapons[\s\S]*armor/);
    expect(message(`q=${'a'.repeat(201)}`)).toMatch(/q[\s\S]*200/);
    expect(message('tier=1&tier=2')).toMatch(/tier[\s\S]*2/);
    expect(message('', { q: { kind: 'string', required: true } })).toContain('q');
  });

  it('lists the parameters that exist beside an unknown one, or says there are none', () => {
    const m = message('teir=3');
    for (const known of ['q', 'type', 'tier', 'limit']) expect(m).toContain(known);
    expect(message('x=1', {})).toMatch(/none/i);
  });

  it('names up to ten bad parameters in the detail and counts the rest', () => {
    const detail = (query: string) => {
      try {
        parse(query, {});
      } catch (e) {
        return (e as ServiceError).message;
      }
      return '';
    };
    const eleven = Array.from({ length: 11 }, (_, i) => `p${i}=1`).join('&');
    expect(detail(eleven)).toMatch(/\b11\b/);
    expect(detail(eleven)).toContain('p9');
    expect(detail(eleven)).not.toContain('p10');
    expect(detail(eleven)).toMatch(/\b1 more/);
    const ten = Array.from({ length: 10 }, (_, i) => `p${i}=1`).join('&');
    expect(detail(ten)).toContain('p9');
    expect(detail(ten)).not.toMatch(/more/);
    expect(detail(`${'n'.repeat(60)}=1`)).not.toContain('n'.repeat(41));
  });
});
