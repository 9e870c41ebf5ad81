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
import { applyStoredText } from './stored-text.js';

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
      case 'enum':
        message = `Must be one of: ${((params.allowedValues as unknown[]) ?? []).map((v) => JSON.stringify(v)).join(', ')}.`;
        break;
      default:
        message = `Must ${e.message ?? 'be valid'}.`.replace(/^Must must/, 'Must');
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
