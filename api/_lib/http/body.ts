/**
 * The one reader of JSON request bodies (docs/architecture.md, "Request bodies"). Every refusal is a
 * problem+json 4xx, and a refused body changes nothing (the handler never sees it):
 *
 * | condition | status | code |
 * |---|---|---|
 * | `Content-Type` is not one of the route's media types (`application/json`; a merge patch also `application/merge-patch+json`), or names a charset other than UTF-8 | 415 | UNSUPPORTED_MEDIA_TYPE |
 * | `Content-Length` or the bytes read exceed the cap (default 64 KiB) | 413 | PAYLOAD_TOO_LARGE |
 * | empty body, bytes that are not UTF-8, or malformed JSON (line, column and offset named) | 400 | INVALID_BODY |
 * | arrays and objects nested more than `MAX_BODY_DEPTH` (32) levels deep | 400 | INVALID_BODY |
 * | the value breaks the route's JSON Schema in `schemas/requests/` | 400 | INVALID_BODY, every bad field in `errors[]` as a JSON pointer |
 *
 * Request schemas are JSON Schema 2020-12 files `schemas/requests/<name>.schema.json`, checked by
 * `api/_lib/validation/check.ts` (compiled ahead of time; unknown fields are refused).
 */
import { parse as parseJsonc, printParseErrorCode, type ParseError } from 'jsonc-parser';
import { ServiceError, type FieldProblem } from '../errors.js';
import { checkBody, invalid, requestValidator } from '../validation/check.js';
import { noteIdempotencyKey } from '../util/audit-scope.js';

/** Default byte cap of a JSON body: 64 KiB. */
export const DEFAULT_BODY_LIMIT_BYTES = 64 * 1024;

/** Most levels of arrays and objects a JSON body may nest (no request schema goes near it). */
export const MAX_BODY_DEPTH = 32;

/**
 * How deep the arrays and objects of JSON text nest (a scalar is 0), counted on the text itself, so
 * before any parser recurses into it and whether or not the text is valid JSON (brackets inside strings
 * do not count); stops counting past `limit`.
 */
export function jsonDepth(text: string, limit: number = MAX_BODY_DEPTH): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // a backslash escapes the next character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > deepest && (deepest = depth) > limit) return deepest;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return deepest;
}

/** Options of {@link readJsonBody}. */
export interface BodyOptions {
  /** Request schema name: `schemas/requests/<schema>.schema.json`. */
  readonly schema: string;
  /** Byte cap; default {@link DEFAULT_BODY_LIMIT_BYTES}. */
  readonly maxBytes?: number;
  /**
   * Rules the schema cannot word well (e.g. "this field is account-scoped"), run on the parsed value:
   * their problems are reported with the schema's, all at once, and replace the schema's problem at the
   * same pointer.
   */
  readonly precheck?: (value: unknown) => readonly FieldProblem[];
  /**
   * The media types the route takes, as its OpenAPI operation declares them (`build/openapi/operations.ts`
   * reads the same constant); default {@link JSON_TYPES}. Any other is 415.
   */
  readonly mediaTypes?: readonly string[];
}

/** The media type of a JSON body. */
export const JSON_TYPES: readonly string[] = Object.freeze(['application/json']);
/** The media types of a JSON merge patch (RFC 7396), plain JSON taken too. */
export const MERGE_PATCH_TYPES: readonly string[] = Object.freeze(['application/merge-patch+json', 'application/json']);

function checkContentType(request: Request, mediaTypes: readonly string[]): void {
  const raw = request.headers.get('content-type') ?? '';
  const [type = '', ...params] = raw.split(';').map((p) => p.trim().toLowerCase());
  const charset = params
    .find((p) => p.startsWith('charset='))
    ?.slice('charset='.length)
    .replace(/"/g, '');
  if (!mediaTypes.includes(type) || (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8')) {
    const named = mediaTypes.join(' or ');
    const accepted = mediaTypes.join(', ');
    throw new ServiceError('UNSUPPORTED_MEDIA_TYPE', `Send the body as JSON with Content-Type: ${named} (UTF-8).`, {
      headers: { [request.method === 'PATCH' ? 'Accept-Patch' : 'Accept-Post']: accepted },
    });
  }
}

/** The body's bytes, refusing more than `maxBytes` without reading past the cap. @throws ServiceError PAYLOAD_TOO_LARGE */
async function readCapped(request: Request, maxBytes: number): Promise<Uint8Array> {
  const tooLarge = () => new ServiceError('PAYLOAD_TOO_LARGE', `The body is larger than ${maxBytes} bytes.`);
  const declared = request.headers.get('content-length');
  if (declared !== null && /^\d+$/.test(declared.trim()) && Number(declared) > maxBytes) throw tooLarge();
  if (request.body === null) return new Uint8Array(0);
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel();
      throw tooLarge();
    }
    chunks.push(value);
  }
  const out = new Uint8Array(total);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.byteLength;
  }
  return out;
}

/** Line and column (both 1-based) of a UTF-16 offset in `text`. */
function lineColumn(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let start = 0;
  for (let i = 0; i < offset && i < text.length; i++) {
    if (text.charCodeAt(i) === 10) {
      line++;
      start = i + 1;
    }
  }
  return { line, column: offset - start + 1 };
}

/** Parse strict JSON, naming the position of the first error, and refuse deep nesting. @throws ServiceError INVALID_BODY */
function parseJson(text: string): unknown {
  // counted first: the position finder below recurses, and would overflow on deep malformed text
  if (jsonDepth(text) > MAX_BODY_DEPTH) {
    throw invalid(`The body nests arrays and objects more than ${MAX_BODY_DEPTH} levels deep; no request takes that.`, [
      { name: '', message: `Nested more than ${MAX_BODY_DEPTH} levels deep.` },
    ]);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    const errors: ParseError[] = [];
    parseJsonc(text, errors, { disallowComments: true, allowTrailingComma: false, allowEmptyContent: false });
    const first = errors[0];
    const offset = first?.offset ?? 0;
    const { line, column } = lineColumn(text, offset);
    const what = first ? printParseErrorCode(first.error) : 'InvalidSymbol';
    throw invalid(`The body is not valid JSON: ${what} at line ${line}, column ${column} (offset ${offset}).`, [
      { name: '', message: `${what} at line ${line}, column ${column} (offset ${offset}).` },
    ]);
  }
  return value;
}

/**
 * Read, parse and validate the JSON body of `request`.
 * @returns the body, valid against `schemas/requests/<options.schema>.schema.json`.
 * @throws ServiceError 415 UNSUPPORTED_MEDIA_TYPE, 413 PAYLOAD_TOO_LARGE, 400 INVALID_BODY (see the module header).
 */
export async function readJsonBody<T>(request: Request, options: BodyOptions): Promise<T> {
  requestValidator(options.schema); // a bad schema name is the caller's defect: thrown before the body is read
  checkContentType(request, options.mediaTypes ?? JSON_TYPES);
  const bytes = await readCapped(request, options.maxBytes ?? DEFAULT_BODY_LIMIT_BYTES);
  if (bytes.byteLength === 0) throw invalid('A JSON body is required.', [{ name: '', message: 'The body is empty.' }]);
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(bytes);
  } catch {
    throw invalid('The body is not UTF-8 text.', [{ name: '', message: 'The body is not UTF-8 text.' }]);
  }
  const body = checkBody<T>(options.schema, parseJson(text), options.precheck);
  // the key goes into the request's audit record (docs/architecture.md, "Audit log")
  const key = (body as { idempotencyKey?: unknown }).idempotencyKey;
  if (typeof key === 'string') noteIdempotencyKey(key);
  return body;
}
