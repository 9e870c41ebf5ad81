/**
 * Request bodies checked against their JSON Schema (docs/architecture.md, "Request bodies"): the schemas
 * of `schemas/requests/` (JSON Schema 2020-12, `additionalProperties: false`, so unknown fields are
 * refused), compiled with Ajv (`allErrors`, `verbose`, `ajv-formats`) ahead of time into
 * `request-validators.js` by `npm run validators` (`dev/request-validators.ts`; a test fails when it is out
 * of date), so a cold function loads neither Ajv nor the schemas. The HTTP body reader (`http/body.ts`)
 * and domain code that checks a merged document (a patched island) both use {@link checkBody}; every
 * refusal is 400 `INVALID_BODY` naming every bad field as a JSON pointer.
 */
import type { ErrorObject, ValidateFunction } from 'ajv/dist/2020.js';
import requestValidators from './request-validators.js';
import { ServiceError, type FieldProblem } from '../errors.js';
import { applyStoredText, normalizeStoredText } from './stored-text.js';

/**
 * The compiled validator of a request schema (`request-validators.js`, generated from every file of
 * `schemas/requests/`, so a schema may `$ref` another's `$defs`).
 * @throws Error for a name that is not a schema file's (a defect of the caller, not of the request).
 */
export function requestValidator(name: string): ValidateFunction {
  if (!/^[a-z0-9-]+$/.test(name)) throw new Error(`Bad request schema name "${name}"`);
  const v = Object.hasOwn(requestValidators, name) ? requestValidators[name] : undefined;
  if (!v) throw new Error(`No request schema "${name}"`);
  return v;
}

/** A 400 `INVALID_BODY` naming `errors`. */
export function invalid(message: string, errors: readonly FieldProblem[]): ServiceError {
  return new ServiceError('INVALID_BODY', message, { errors });
}

const escapePointer = (s: string): string => s.replace(/~/g, '~0').replace(/\//g, '~1');

/** `"a"`, `"a" or "b"`, `"a", "b" or "c"`. */
const orList = (names: readonly string[]): string =>
  names
    .map((n) => `"${n}"`)
    .join(', ')
    .replace(/, ([^,]*)$/, ' or $1');

/** `a string`, `an integer`, … of a JSON Schema type name. */
const TYPE_WORDS: Readonly<Record<string, string>> = {
  string: 'a string',
  integer: 'an integer',
  number: 'a number',
  boolean: 'true or false',
  object: 'an object',
  array: 'an array',
  null: 'null',
};

/**
 * One sentence for a broken keyword, from its parameters (never Ajv's own message text, which is not a
 * sentence: "must match pattern", "property name must be valid"). Starts with "Must" where it can.
 */
function sentence(keyword: string, params: Record<string, unknown>, schema: unknown): string {
  const limit = params.limit as number;
  const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;
  switch (keyword) {
    case 'type': {
      const types = String(params.type).split(',');
      return `Must be ${types.map((t) => TYPE_WORDS[t] ?? t).join(' or ')}.`;
    }
    case 'enum':
      return `Must be one of: ${((params.allowedValues as unknown[]) ?? []).map((v) => JSON.stringify(v)).join(', ')}.`;
    case 'const':
      return `Must be ${JSON.stringify(params.allowedValue)}.`;
    case 'minimum':
      return `Must be at least ${limit}.`;
    case 'maximum':
      return `Must be at most ${limit}.`;
    case 'exclusiveMinimum':
      return `Must be greater than ${limit}.`;
    case 'exclusiveMaximum':
      return `Must be less than ${limit}.`;
    case 'multipleOf':
      return `Must be a multiple of ${String(params.multipleOf)}.`;
    case 'minLength':
      return `Must be at least ${plural(limit, 'character', 'characters')} long.`;
    case 'maxLength':
      return `Must be at most ${plural(limit, 'character', 'characters')} long.`;
    case 'pattern':
      return `Must match the pattern ${String(params.pattern)}.`;
    case 'format':
      return `Must be a valid ${String(params.format)}.`;
    case 'minItems':
      return `Must hold at least ${plural(limit, 'item', 'items')}.`;
    case 'maxItems':
      return `Must hold at most ${plural(limit, 'item', 'items')}.`;
    case 'uniqueItems':
      return `Must not repeat an item: items ${String(params.j)} and ${String(params.i)} are the same.`;
    case 'minProperties':
      return `Must hold at least ${plural(limit, 'field', 'fields')}.`;
    case 'maxProperties':
      return `Must hold at most ${plural(limit, 'field', 'fields')}.`;
    case 'not': {
      const together = (schema as { required?: unknown } | undefined)?.required;
      return Array.isArray(together) && together.length > 1
        ? `Must not hold ${together.map((n) => `"${String(n)}"`).join(' and ')} together; send one of them.`
        : 'Must not take this shape.';
    }
    case 'false schema':
      return 'Must not be here.';
    default:
      return `Must satisfy the rule "${keyword}".`;
  }
}

/**
 * One field problem per Ajv error, named by JSON pointer (`''` for the whole body); `anyOf` and `oneOf`
 * alternatives collapse into one problem each. A `oneOf` whose alternatives each require one member
 * ("exactly one of `studioId` or `accountId`") names the member to add (none sent) or to remove (several
 * sent). The validator runs with `verbose`, so an error carries its schema and data.
 */
function fieldProblems(errors: readonly ErrorObject[]): FieldProblem[] {
  const anyOfPaths = errors.filter((e) => e.keyword === 'anyOf' || e.keyword === 'oneOf').map((e) => e.schemaPath + '/');
  const out: FieldProblem[] = [];
  for (const e of errors) {
    if (anyOfPaths.some((p) => e.schemaPath.startsWith(p))) continue;
    const params = e.params as Record<string, unknown>;
    let name = e.instancePath;
    let message: string;
    switch (e.keyword) {
      case 'required':
        name += '/' + escapePointer(String(params.missingProperty));
        message = `"${String(params.missingProperty)}" is required.`;
        break;
      case 'additionalProperties':
        name += '/' + escapePointer(String(params.additionalProperty));
        message = `Unknown field "${String(params.additionalProperty)}"; remove it.`;
        break;
      case 'anyOf': {
        const sub = errors.filter((x) => x.keyword === 'required' && x.schemaPath.startsWith(e.schemaPath + '/'));
        const names = sub.map((x) => `"${String((x.params as Record<string, unknown>).missingProperty)}"`);
        message = names.length > 0 ? `One of ${names.join(' or ')} is required.` : `Must match one of the allowed shapes.`;
        break;
      }
      case 'oneOf': {
        const names = [...new Set(((e.schema as { required?: string[] }[] | undefined) ?? []).flatMap((alt) => alt.required ?? []))];
        const data = e.data as Record<string, unknown> | null;
        const sent = names.filter((n) => data !== null && typeof data === 'object' && Object.hasOwn(data, n));
        if (names.length === 0) {
          message = 'Must match exactly one of the allowed shapes.';
        } else if (sent.length > 1) {
          name += '/' + escapePointer(sent[sent.length - 1]!);
          message = `Send exactly one of ${orList(names)}, not ${sent.length === 2 ? 'both' : 'several'}.`;
        } else {
          name += '/' + escapePointer(names[0]!);
          message = `One of ${orList(names)} is required.`;
        }
        break;
      }
      case 'propertyNames':
        // the broken rule of the name itself is its own error (below), named by the field
        continue;
      default:
        message = sentence(e.keyword, params, e.schema);
    }
    // an error about a field's name (under `propertyNames`) names the field, and says it of the name
    const propertyName = (e as ErrorObject & { propertyName?: unknown }).propertyName;
    if (typeof propertyName === 'string') {
      name += '/' + escapePointer(propertyName);
      message = `The field name "${propertyName}" ${message.charAt(0).toLowerCase()}${message.slice(1)}`;
    }
    out.push({ name, message });
  }
  return out;
}

/**
 * Check a value already read (a parsed JSON body, or the text fields of a multipart form as an object)
 * against a request schema.
 * @param schema a schema name (`schemas/requests/<schema>.schema.json`); its stored-text fields (`stored-text.ts`) are checked
 *   and replaced by their stored form in `value`.
 * @param precheck see {@link BodyOptions.precheck}.
 * @throws ServiceError 400 INVALID_BODY with every bad field as a JSON pointer.
 */
export function checkBody<T>(schema: string, value: unknown, precheck?: (value: unknown) => readonly FieldProblem[]): T {
  const validate = requestValidator(schema);
  // the schema judges stored text in the form it is stored in (NFC)
  normalizeStoredText(schema, value);
  const early = precheck?.(value) ?? [];
  const valid = validate(value);
  // the stored-text rule runs on a value the schema took (its strings are where the schema says)
  const text = valid ? applyStoredText(schema, value) : [];
  if (!valid || early.length > 0 || text.length > 0) {
    const named = new Set(early.map((p) => p.name));
    const problems = [...early, ...fieldProblems(validate.errors ?? []).filter((p) => !named.has(p.name)), ...text];
    throw invalid(
      `${problems.length} invalid field(s) in the body: ${problems
        .slice(0, 10)
        .map((p) => p.name || '(the body)')
        .join(', ')}.`,
      problems,
    );
  }
  return value as T;
}
