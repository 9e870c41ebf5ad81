/**
 * The published OpenAPI document as a test oracle (build/openapi/): the document itself, a validator of
 * each of its components compiled from the document (so every `$ref` must resolve there), and
 * {@link expectDocumented}, which holds an answer to what the document says of its operation.
 */
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { expect } from 'vitest';
import { repositoryOpenApi } from '../../build/site.js';
import { errorCodes } from '../../build/openapi/document.js';
import type { OperationSpec } from '../../build/openapi/operations.js';
import { STATUS_OF } from '../../api/_lib/errors.js';

export type Json = Record<string, unknown>;
/** The parts of the document the tests read. */
export type Doc = { paths: Record<string, Record<string, Json>>; components: { schemas: Record<string, Json> } };

const DOC_ID = 'https://openapi.test/document.json';

/** The document and the validators of its components. */
export interface OpenApiOracle {
  readonly doc: Doc;
  /** The validator of a component by name. @throws Error for an unknown component */
  component(name: string): ValidateFunction;
  /** The schema a `$ref` of the document points at (`#/components/schemas/…`, with any further pointer). */
  resolve: (ref: string) => Json;
  /** The document's operation object of `op`, and its path. */
  operation(op: OperationSpec): { path: string; object: Json };
}

/** Load the document of the repository and compile it. */
export async function openApiOracle(): Promise<OpenApiOracle> {
  const doc = (await repositoryOpenApi()) as unknown as Doc;
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats.default(ajv);
  ajv.addSchema({ ...doc, $id: DOC_ID });
  return {
    doc,
    component(name) {
      const v = ajv.getSchema(`${DOC_ID}#/components/schemas/${name}`);
      if (!v) throw new Error(`no component ${name}`);
      return v;
    },
    resolve(ref) {
      let node: unknown = doc;
      for (const part of ref.replace(/^#\//, '').split('/')) node = (node as Json)[part.replace(/~1/g, '/').replace(/~0/g, '~')];
      if (!node || typeof node !== 'object') throw new Error(`no schema at ${ref}`);
      return node as Json;
    },
    operation(op) {
      const method = op.method.toLowerCase();
      const hit = Object.entries(doc.paths).find(([, ops]) => ops[method]?.operationId === op.operationId);
      if (!hit) throw new Error(`no operation ${op.operationId}`);
      return { path: hit[0], object: hit[1][method] as Json };
    },
  };
}

/**
 * Check an answer against the document: a listed status; for a refusal, `application/problem+json` of the
 * Problem schema with a code the operation lists and the status of that code; for a success, a declared
 * media type and, for JSON, a body of the listed schema.
 */
export async function expectDocumented(oracle: OpenApiOracle, op: OperationSpec, res: Response, what: string): Promise<void> {
  const responses = oracle.operation(op).object.responses as Record<string, { content?: Record<string, { schema: { $ref?: string } }> }>;
  expect(Object.keys(responses), `${op.operationId} ${what}: status ${res.status}`).toContain(String(res.status));
  const type = res.headers.get('content-type') ?? '';
  if (res.status >= 400) {
    expect(type, `${op.operationId} ${what}`).toBe('application/problem+json');
    const body = (await res.json()) as { code: string };
    const v = oracle.component('Problem');
    expect(v(body), `${op.operationId} ${what}: ${JSON.stringify(v.errors)}`).toBe(true);
    expect(errorCodes(op), `${op.operationId} ${what}: ${body.code}`).toContain(body.code);
    expect(STATUS_OF[body.code as keyof typeof STATUS_OF]).toBe(res.status);
    return;
  }
  const content = responses[String(res.status)]!.content;
  if (content && res.status !== 304) {
    const declared = Object.keys(content);
    expect(
      declared.some((t) => type.split(';')[0] === t),
      `${op.operationId} ${what}: ${type} not among ${declared.join(', ')}`,
    ).toBe(true);
  }
  const ref = content?.['application/json']?.schema.$ref;
  if (ref && type.startsWith('application/json')) {
    const body: unknown = await res.json();
    const v = oracle.component(ref.split('/').pop()!);
    expect(v(body), `${op.operationId} ${what}: ${JSON.stringify(v.errors)?.slice(0, 400)}`).toBe(true);
  } else await res.arrayBuffer();
}
