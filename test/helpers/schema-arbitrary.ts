/**
 * fast-check arbitraries of JSON values from JSON Schema 2020-12: the subset the request schemas and the
 * OpenAPI document's parameters use (`$ref` into the document, `type`, `enum`, `const`, `pattern`,
 * lengths, bounds, `format: uuid`, objects with `properties`, `required`, `additionalProperties`,
 * `propertyNames`, property counts, arrays with `items` and counts, `oneOf`/`anyOf` of alternatives and
 * `not: { required }`). What it makes aims to be valid; a caller that needs certainty filters with the
 * schema's own validator (`validValues`).
 *
 * {@link hostileString} and {@link invalidVariants} make what a hostile client sends: control characters,
 * line breaks, bidi overrides, lone surrogates, wrong types, missing and unknown fields, values past every
 * bound.
 */
import fc from 'fast-check';

/** A JSON Schema object (the subset above). */
export type Schema = Record<string, unknown>;

/** Resolves a `$ref` (e.g. `#/components/schemas/Foo/properties/bar`) to its schema. */
export type Resolve = (ref: string) => Schema;

/** Strings a hostile client sends: every class of character a service must not trip on. */
export const HOSTILE_STRINGS: readonly string[] = Object.freeze([
  '',
  ' ',
  'a\nb',
  'crlf\r\ninjected: 1',
  'tab\there',
  'nul\u0000byte',
  'del\u007f',
  'c1\u0085next',
  'ls\u2028ps\u2029',
  'rlo\u202Egnp.exe',
  'isolate\u2066x\u2069',
  'lone\ud800surrogate',
  'trail\udc00',
  'é vs e\u0301',
  'ＦＵＬＬ／ｗｉｄｔｈ．．',
  '../../etc/passwd',
  '<script>alert(1)</script>',
  "'; DROP TABLE accounts; --",
  '{"json":"inside"}',
  '%00%0a%2e%2e',
  '😀'.repeat(40),
  'x'.repeat(5000),
  '-1',
  '1e309',
  'NaN',
  'null',
  'STUDIO_',
  '00000000-0000-0000-0000-000000000000',
]);

/** One of {@link HOSTILE_STRINGS}, or a random string with such characters mixed in. */
export function hostileString(): fc.Arbitrary<string> {
  return fc.oneof(
    fc.constantFrom(...HOSTILE_STRINGS),
    fc.string({ unit: 'binary', maxLength: 40 }),
    fc
      .array(fc.constantFrom('a', '\n', '\u0000', '\u202E', '\ud800', 'é', '/', '.', '\\', '"', '%'), { maxLength: 30 })
      .map((a) => a.join('')),
  );
}

const TYPE_ORDER = ['object', 'array', 'string', 'integer', 'number', 'boolean', 'null'] as const;

/** Fold `allOf`-free alternatives into the base for an object: `oneOf`/`anyOf` with `required` and `not`. */
function alternatives(schema: Schema): Schema[] | undefined {
  const alts = (schema.oneOf ?? schema.anyOf) as Schema[] | undefined;
  return Array.isArray(alts) && alts.length > 0 ? alts : undefined;
}

/**
 * An arbitrary of values meant to be valid against `schema`.
 * @param depth recursion guard: past 6 levels containers come out empty or at their minimum.
 */
export function arbitraryOf(schema: Schema | boolean, resolve: Resolve, depth = 0): fc.Arbitrary<unknown> {
  if (schema === true) return fc.jsonValue({ maxDepth: 2 });
  if (schema === false) return fc.constant(undefined);
  if (typeof schema.$ref === 'string') {
    const { $ref, ...rest } = schema;
    return arbitraryOf({ ...resolve($ref), ...rest }, resolve, depth);
  }
  if (Object.hasOwn(schema, 'const')) return fc.constant(schema.const);
  if (Array.isArray(schema.enum)) return fc.constantFrom(...(schema.enum as unknown[]));
  const alts = alternatives(schema);
  if (alts) {
    const { oneOf: _o, anyOf: _a, ...base } = schema;
    void _o;
    void _a;
    // an alternative that only requires members (and forbids others) shapes the base object
    return fc.constantFrom(...alts).chain((alt) => {
      const merged: Schema = { ...base, ...alt, properties: { ...(base.properties as Schema), ...(alt.properties as Schema) } };
      const required = [...((base.required as string[]) ?? []), ...((alt.required as string[]) ?? [])];
      const forbidden = ((alt.not as Schema | undefined)?.required as string[] | undefined) ?? [];
      merged.required = required;
      delete merged.not;
      return arbitraryOf(merged, resolve, depth).map((v) => {
        if (v && typeof v === 'object' && !Array.isArray(v)) for (const f of forbidden) delete (v as Record<string, unknown>)[f];
        return v;
      });
    });
  }
  const types = Array.isArray(schema.type) ? (schema.type as string[]) : typeof schema.type === 'string' ? [schema.type] : undefined;
  if (types && types.length > 1) return fc.oneof(...types.map((t) => arbitraryOf({ ...schema, type: t }, resolve, depth)));
  const type =
    types?.[0] ??
    (schema.properties || schema.additionalProperties || schema.propertyNames
      ? 'object'
      : schema.items
        ? 'array'
        : schema.pattern || schema.format || schema.maxLength !== undefined
          ? 'string'
          : undefined);
  switch (type) {
    case 'string':
      return stringOf(schema);
    case 'integer': {
      const [min, max] = boundsOf(schema, true);
      return fc.integer({ min: Math.ceil(min), max: Math.floor(max) });
    }
    case 'number': {
      const [min, max] = boundsOf(schema, false);
      return fc.double({ min, max, noNaN: true, noDefaultInfinity: true });
    }
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array': {
      const item = arbitraryOf((schema.items as Schema) ?? true, resolve, depth + 1);
      const minLength = (schema.minItems as number) ?? 0;
      // a long fixed-size array (a heightmap) is one generated value repeated: valid, and cheap to shrink
      if (minLength > 64) return item.map((v) => Array.from({ length: minLength }, () => v));
      return fc.array(item, {
        minLength,
        maxLength: depth > 5 ? minLength : Math.max(minLength, Math.min((schema.maxItems as number) ?? 4, 4)),
      });
    }
    case 'object':
      return objectOf(schema, resolve, depth);
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}

/** The bounds of a number schema, `[low, high]` with `low <= high`, around `[-1000, 1000]` where the schema leaves them open. */
function boundsOf(schema: Schema, integer: boolean): [number, number] {
  const step = integer ? 1 : Number.EPSILON * 1024;
  let low =
    typeof schema.minimum === 'number'
      ? schema.minimum
      : typeof schema.exclusiveMinimum === 'number'
        ? schema.exclusiveMinimum + step
        : undefined;
  let high =
    typeof schema.maximum === 'number'
      ? schema.maximum
      : typeof schema.exclusiveMaximum === 'number'
        ? schema.exclusiveMaximum - step
        : undefined;
  low ??= Math.min(-1000, (high ?? 0) - 1000);
  high ??= Math.max(1000, low + 1000);
  low = Math.max(low, Number.MIN_SAFE_INTEGER);
  high = Math.min(high, Number.MAX_SAFE_INTEGER);
  return [low, Math.max(low, high)];
}

function stringOf(schema: Schema): fc.Arbitrary<string> {
  const min = (schema.minLength as number) ?? 0;
  const max = (schema.maxLength as number) ?? 64;
  if (schema.format === 'uuid') return fc.uuid();
  if (schema.format === 'date-time') return fc.date({ noInvalidDate: true }).map((d) => d.toISOString());
  if (typeof schema.pattern === 'string') {
    return fc.stringMatching(new RegExp(schema.pattern, 'u')).filter((s) => [...s].length >= min && [...s].length <= max);
  }
  return fc.string({ minLength: min, maxLength: Math.min(max, 64) });
}

function objectOf(schema: Schema, resolve: Resolve, depth: number): fc.Arbitrary<Record<string, unknown>> {
  const properties = (schema.properties as Record<string, Schema>) ?? {};
  const required = new Set((schema.required as string[]) ?? []);
  const known: Record<string, fc.Arbitrary<unknown>> = {};
  for (const [name, sub] of Object.entries(properties)) known[name] = arbitraryOf(sub, resolve, depth + 1);
  const record = fc.record(known, { requiredKeys: [...required].filter((k) => k in known) });
  const extra = schema.additionalProperties;
  const names = schema.propertyNames as Schema | undefined;
  if (extra && typeof extra === 'object' && depth < 6) {
    const key = names ? (arbitraryOf({ type: 'string', ...names }, resolve, depth) as fc.Arbitrary<string>) : fc.string({ maxLength: 12 });
    const maxKeys = Math.min((schema.maxProperties as number) ?? 4, 4);
    return fc
      .tuple(record, fc.dictionary(key, arbitraryOf(extra as Schema, resolve, depth + 1), { maxKeys }))
      .map(([r, d]) => ({ ...d, ...r }));
  }
  if (names && Array.isArray(names.enum) && Object.keys(known).length === 0) {
    // only the names are given (a merge patch of known members): some of them, with any JSON value
    const min = (schema.minProperties as number) ?? 0;
    return fc
      .uniqueArray(fc.constantFrom(...(names.enum as string[])), { minLength: Math.max(min, 0), maxLength: 3 })
      .chain((keys) =>
        fc.tuple(...keys.map(() => fc.jsonValue({ maxDepth: 2 }))).map((vals) => Object.fromEntries(keys.map((k, i) => [k, vals[i]]))),
      );
  }
  return record;
}

/** Values of `arbitraryOf(schema)` that `valid` accepts. */
export function validValues(schema: Schema, resolve: Resolve, valid: (v: unknown) => boolean): fc.Arbitrary<unknown> {
  return arbitraryOf(schema, resolve).filter(valid);
}

/**
 * Ways to break a valid value `v` of `schema`: drop a required member, give a member the wrong type or a
 * hostile string, add an unknown member with a hostile name, send another type whole, nest deep.
 */
export function invalidVariants(v: unknown, schema: Schema, resolve: Resolve): fc.Arbitrary<unknown> {
  const s = typeof schema.$ref === 'string' ? resolve(schema.$ref) : schema;
  const wholes = fc.constantFrom<unknown>(null, [], 'text', 42, true, [[[[[[[[]]]]]]]]);
  if (!v || typeof v !== 'object' || Array.isArray(v)) return fc.oneof(wholes, hostileString());
  const obj = v as Record<string, unknown>;
  const keys = Object.keys(obj);
  const required = ((s.required as string[]) ?? []).filter((k) => k in obj);
  const variants: fc.Arbitrary<unknown>[] = [
    wholes,
    hostileString().map((name) => ({ ...obj, [name || 'x']: 1 })),
    fc.constantFrom(...TYPE_ORDER).map((t) => ({ ...obj, __type: t })),
  ];
  if (required.length > 0)
    variants.push(
      fc.constantFrom(...required).map((k) => {
        const { [k]: _drop, ...rest } = obj;
        void _drop;
        return rest;
      }),
    );
  if (keys.length > 0) {
    variants.push(
      fc
        .tuple(fc.constantFrom(...keys), fc.oneof(hostileString(), fc.constantFrom<unknown>(null, -1, 2 ** 60, 1.5, [], {}, true)))
        .map(([k, bad]) => ({
          ...obj,
          [k]: bad,
        })),
    );
  }
  return fc.oneof(...variants);
}
