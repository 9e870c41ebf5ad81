/**
 * Stage 2, validate: one Ajv (JSON Schema 2020-12) instance with every schema of
 * `schemas/` registered by `$id`; each catalog file is checked against
 * `https://schemas.game-data.dev/catalog/<file stem>.schema.json` when that schema exists.
 * Every failure is reported (allErrors), mapped to a `schema/<kind>` rule.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import { addFormats } from './config.js';
import { listJsonFiles } from './collect.js';
import type { Reporter, SourceDoc } from './types.js';

/** Folder holding every schema of the project. */
const SCHEMAS_DIR = fileURLToPath(new URL('../../schemas/', import.meta.url));

/** `$id` of the schema for a catalog source file. */
export function catalogSchemaId(path: string): string {
  const stem = (path.split('/').pop() ?? path).replace(/\.json$/, '');
  return `https://schemas.game-data.dev/catalog/${stem}.schema.json`;
}

/**
 * One Ajv instance with every schema under `schemas/` registered (compiled lazily by `$id`).
 * @throws Error when a schema file is not JSON or has no `$id`.
 */
export async function createSchemaRegistry(dir = SCHEMAS_DIR): Promise<Ajv2020> {
  const ajv = new Ajv2020({ allErrors: true, strict: false, allowUnionTypes: true });
  addFormats(ajv);
  for (const f of await listJsonFiles(dir)) {
    const schema = JSON.parse(await readFile(join(dir, f), 'utf8')) as { $id?: string };
    if (typeof schema.$id !== 'string') throw new Error(`Schema ${f} has no $id.`);
    ajv.addSchema(schema);
  }
  return ajv;
}

/** Map an Ajv keyword to a rule name of `rules.ts`. */
function ruleOf(keyword: string): string {
  switch (keyword) {
    case 'required':
    case 'dependentRequired':
      return 'schema/required';
    case 'type':
      return 'schema/type';
    case 'enum':
      return 'schema/enum';
    case 'const':
      return 'schema/const';
    case 'minimum':
    case 'maximum':
    case 'exclusiveMinimum':
    case 'exclusiveMaximum':
    case 'minItems':
    case 'maxItems':
    case 'minLength':
    case 'maxLength':
      return 'schema/range';
    case 'format':
    case 'pattern':
      return 'schema/format';
    default:
      return 'schema/other';
  }
}

function describe(e: ErrorObject): { pointer: string; message: string } {
  const p = e.params as Record<string, unknown>;
  switch (e.keyword) {
    case 'required':
      return { pointer: e.instancePath, message: `Missing required field "${String(p.missingProperty)}".` };
    case 'enum':
      return {
        pointer: e.instancePath,
        message: `Must be one of ${(p.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}.`,
      };
    case 'const':
      return { pointer: e.instancePath, message: `Must equal ${JSON.stringify(p.allowedValue)} (fixed by the spec).` };
    case 'additionalProperties':
      return {
        pointer: `${e.instancePath}/${String(p.additionalProperty)}`,
        message: `Unexpected field "${String(p.additionalProperty)}".`,
      };
    default:
      return { pointer: e.instancePath, message: `${e.message ?? 'is invalid'}.`.replace(/\.\.$/, '.') };
  }
}

/**
 * Validate every parsed document that has a schema; report `catalog/no-schema` for the rest.
 * @returns number of documents validated.
 */
export function validateDocs(ajv: Ajv2020, docs: Iterable<SourceDoc>, report: Reporter): number {
  let n = 0;
  const cache = new Map<string, ValidateFunction | null>();
  for (const doc of docs) {
    if (doc.data === undefined) continue;
    const id = catalogSchemaId(doc.path);
    let fn = cache.get(id);
    if (fn === undefined) {
      fn = ajv.getSchema(id) ?? null;
      cache.set(id, fn);
    }
    if (!fn) {
      report({
        rule: 'catalog/no-schema',
        file: doc.path,
        pointer: '',
        message:
          'No schema for this file; the spec does not show its shape (4.10), so only JSON syntax and the identifier law are checked.',
      });
      continue;
    }
    n++;
    if (fn(doc.data)) continue;
    const seen = new Set<string>();
    for (const e of fn.errors ?? []) {
      if (e.keyword === 'if' || e.keyword === 'anyOf' || e.keyword === 'oneOf' || e.keyword === 'allOf') continue;
      const { pointer, message } = describe(e);
      const key = `${e.keyword}|${pointer}|${message}`;
      if (seen.has(key)) continue;
      seen.add(key);
      report({ rule: ruleOf(e.keyword), file: doc.path, pointer, message: `${message} (schema ${e.schemaPath})` });
    }
  }
  return n;
}
