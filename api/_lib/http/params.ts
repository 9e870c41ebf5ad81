/**
 * Declarative query-parameter parsing that reports every bad parameter at once.
 *
 * Policy (documented in docs/api.md, "Query parameters"):
 * - A parameter given more than once is an error (`tier=1&tier=2` → 400), never "last one wins".
 * - Unknown parameters are an error (a typo such as `teir=3` must not silently return unfiltered data),
 *   except names that start with `_`: those are reserved for routing (`_route`, `_key` added by the
 *   `vercel.json` rewrites) and for cache busters (`_=1699…`) and are ignored.
 * - Empty values (`tier=`) count as absent for optional parameters and as missing for required ones.
 * - Values are taken as sent, never trimmed: the OpenAPI document's schema is the rule (` 3` is no
 *   integer, ` Armor` no value of an enumeration, and a string's length counts every character).
 * - Integers are base-10 digits only (`3`, not `3.0`, `0x3` or ` 3`).
 * - A limit above its maximum is clamped (spec 8 leaves this open) and reported through
 *   `clamped`, which handlers turn into `X-Limit-Requested` / `X-Limit-Applied` headers.
 */
import { ServiceError, type FieldProblem } from '../errors.js';
import { truncate } from './respond.js';

/** Integer parameter: inclusive `min`/`max`; `clamp` lowers values above `max` instead of rejecting them. */
export interface IntParam {
  readonly kind: 'int';
  readonly min: number;
  readonly max: number;
  readonly default?: number;
  readonly required?: boolean;
  readonly clamp?: boolean;
}
/** Enumerated parameter; values compare case-insensitively and are returned in their declared spelling. */
export interface EnumParam {
  readonly kind: 'enum';
  readonly values: readonly string[];
  readonly default?: string;
  readonly required?: boolean;
}
/**
 * Free string parameter, taken as sent; `maxLength` in UTF-16 code units (default 200); `pattern` the value
 * must match, and `patternRule` the refusal's words for it (what the value must do, e.g. `contain a letter`).
 */
export interface StringParam {
  readonly kind: 'string';
  readonly required?: boolean;
  readonly maxLength?: number;
  readonly pattern?: RegExp;
  readonly patternRule?: string;
}
/** One declared parameter. */
export type ParamSpec = IntParam | EnumParam | StringParam;

type ValueOf<S extends ParamSpec> = S extends IntParam ? number : string;
type HasDefault<S> = S extends { default: unknown } ? true : S extends { required: true } ? true : false;

/** Parsed parameters: present-or-defaulted ones are definite, the rest may be undefined. */
export type Parsed<T extends Record<string, ParamSpec>> = {
  [K in keyof T]: HasDefault<T[K]> extends true ? ValueOf<T[K]> : ValueOf<T[K]> | undefined;
};

/** Result of {@link parseQuery}: the values, the canonical query string, and any clamp applied. */
export interface ParseResult<T extends Record<string, ParamSpec>> {
  readonly values: Parsed<T>;
  /** Sorted `name=value` pairs of the effective values (defaults included): the ETag's input. */
  readonly canonical: string;
  /** Parameters whose value was lowered to the maximum: name → [requested as sent (trimmed), applied]. */
  readonly clamped: Readonly<Record<string, readonly [string, number]>>;
}

const INT_RE = /^-?\d+$/;

/**
 * Parse and validate `params` against `spec`, collecting every problem.
 * @throws ServiceError `INVALID_QUERY` with one {@link FieldProblem} per bad, repeated, missing or unknown parameter.
 * @throws TypeError when a given parameter's spec has a kind other than `int`, `enum` or `string` (a defect
 *   of the spec, not of the request).
 */
export function parseQuery<T extends Record<string, ParamSpec>>(params: URLSearchParams, spec: T): ParseResult<T> {
  const problems: FieldProblem[] = [];
  const out: Record<string, string | number | undefined> = {};
  const clamped: Record<string, readonly [string, number]> = {};
  const seen = new Set<string>();
  for (const name of params.keys()) {
    if (seen.has(name)) continue;
    seen.add(name);
    if (name.startsWith('_')) continue;
    if (!Object.hasOwn(spec, name)) {
      const known = Object.keys(spec);
      problems.push({
        name,
        message: `Unknown parameter "${name}". Known parameters: ${known.length ? known.join(', ') : 'none'}.`,
        value: params.getAll(name),
      });
    }
  }
  for (const [name, s] of Object.entries(spec)) {
    const all = params.getAll(name);
    if (all.length > 1) {
      problems.push({ name, message: `"${name}" was given ${all.length} times; give it once.`, value: all });
      continue;
    }
    // taken as sent: the document's schema is the rule, and " 3" is no integer (nothing is trimmed)
    const raw = all[0] ?? '';
    if (raw === '') {
      if (s.required) problems.push({ name, message: `"${name}" is required and must not be blank.` });
      else out[name] = s.kind === 'string' ? undefined : s.default;
      continue;
    }
    if (s.kind === 'int') {
      if (!INT_RE.test(raw)) {
        problems.push({ name, message: `"${name}" must be a whole number from ${s.min} to ${s.max}.`, value: raw });
        continue;
      }
      const n = Number(raw);
      if (n > s.max && s.clamp) {
        clamped[name] = [raw, s.max];
        out[name] = s.max;
      } else if (n < s.min || n > s.max || !Number.isSafeInteger(n)) {
        problems.push({ name, message: `"${name}" must be a whole number from ${s.min} to ${s.max}.`, value: raw });
      } else out[name] = n;
    } else if (s.kind === 'enum') {
      const lower = raw.toLowerCase();
      const hit = s.values.find((v) => v.toLowerCase() === lower);
      if (hit === undefined) problems.push({ name, message: `"${name}" must be one of: ${s.values.join(', ')}.`, value: raw });
      else out[name] = hit;
    } else if (s.kind === 'string') {
      const max = s.maxLength ?? 200;
      if (raw.length > max) problems.push({ name, message: `"${name}" must be at most ${max} characters.`, value: raw.slice(0, 40) + '…' });
      else if (s.pattern && !s.pattern.test(raw))
        problems.push({ name, message: `"${name}" must ${s.patternRule ?? `match ${s.pattern.source}`}.`, value: raw.slice(0, 40) });
      else out[name] = raw;
    } else {
      throw new TypeError(`Parameter "${name}" has the unknown kind ${JSON.stringify((s as { kind: unknown }).kind)} in its spec.`);
    }
  }
  if (problems.length > 0) {
    const names = problems.slice(0, 10).map((p) => truncate(p.name, 40));
    const more = problems.length > names.length ? ` and ${problems.length - names.length} more` : '';
    throw new ServiceError('INVALID_QUERY', `${problems.length} invalid query parameter(s): ${names.join(', ')}${more}.`, {
      errors: problems,
    });
  }
  const canonical = Object.keys(out)
    .filter((k) => out[k] !== undefined)
    .sort()
    .map((k) => `${k}=${encodeURIComponent(String(out[k]))}`)
    .join('&');
  return { values: out as Parsed<T>, canonical, clamped };
}

/** Most characters of the raw value echoed in `X-Limit-Requested`. */
export const REQUESTED_LIMIT_MAX_CHARS = 32;

/**
 * `X-Limit-Requested` / `X-Limit-Applied` headers for a clamped limit, or `{}` when nothing was clamped.
 * `X-Limit-Requested` carries the raw string as sent (`99999999999999999999999`, never `1e+23`), cut to
 * {@link REQUESTED_LIMIT_MAX_CHARS} characters (ending in `...`: header values are ASCII).
 */
export function clampHeaders(clamped: Readonly<Record<string, readonly [string, number]>>, name = 'limit'): Record<string, string> {
  const c = clamped[name];
  if (!c) return {};
  const raw = c[0].length > REQUESTED_LIMIT_MAX_CHARS ? c[0].slice(0, REQUESTED_LIMIT_MAX_CHARS - 3) + '...' : c[0];
  return { 'X-Limit-Requested': raw, 'X-Limit-Applied': String(c[1]) };
}
