/**
 * `npm run client [-- --check]`: generate the typed client's operations and types
 * (`client/src/generated.ts`) from the service's OpenAPI document (`build/openapi/`, the same document the
 * site publishes at `/api/openapi.json`):
 * - every component schema becomes a TypeScript type (json-schema-to-typescript; the type's name is the
 *   component's, e.g. `SearchResponse`, `VerifySendToAccountRequest`, `Problem`);
 * - every operation becomes one method of `GameDataClient`, named by its `operationId`, taking one argument
 *   object (`key`/`file` for the path, `query`, `body`, `ifMatch`, the multipart files and fields) and
 *   resolving to `ApiResponse<T>` with `T` the union of its success bodies (`client/src/runtime.ts`).
 * A test fails when the committed file differs from a fresh generation (`test/api/client.test.ts`).
 */
import { pathToFileURL } from 'node:url';
import { compile, type JSONSchema } from 'json-schema-to-typescript';
import { repositoryOpenApi } from '../build/site.js';
import { generatedFileCli } from './generated-file.js';
import { wantsHelp } from './cli.js';

/** The generated file, relative to the project root. */
export const CLIENT_FILE = 'client/src/generated.ts';

type Json = Record<string, unknown>;

interface Parameter {
  readonly name: string;
  readonly in: 'path' | 'query' | 'header';
  readonly required: boolean;
  readonly description?: string;
  readonly schema: Json;
  readonly 'x-multi-segment'?: boolean;
}

interface Operation {
  readonly operationId: string;
  readonly summary: string;
  readonly description?: string;
  readonly parameters?: readonly Parameter[];
  readonly requestBody?: { readonly content: Record<string, { readonly schema: Json }> };
  readonly responses: Record<string, { readonly description: string; readonly content?: Record<string, { readonly schema: Json }> }>;
  readonly security: readonly Record<string, unknown>[];
}

const COMPONENT_REF = '#/components/schemas/';

/** `#/components/schemas/X` → `X`. */
const refName = (schema: Json | undefined): string | undefined =>
  typeof schema?.$ref === 'string' && schema.$ref.startsWith(COMPONENT_REF) ? schema.$ref.slice(COMPONENT_REF.length) : undefined;

/** Component refs pointed at `$defs` of one root schema, for json-schema-to-typescript. */
function toDefs(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(toDefs);
  if (typeof node !== 'object' || node === null) return node;
  return Object.fromEntries(
    Object.entries(node).map(([k, v]) => [k, k === '$ref' && typeof v === 'string' ? v.replace(COMPONENT_REF, '#/$defs/') : toDefs(v)]),
  );
}

/** TypeScript types of every component, one exported type per component name. */
async function componentTypes(components: Record<string, Json>): Promise<string> {
  const defs: Record<string, unknown> = {};
  for (const [name, schema] of Object.entries(components)) defs[name] = { ...(toDefs(schema) as Json), title: name };
  const root = {
    title: 'Components',
    type: 'object',
    additionalProperties: false,
    properties: Object.fromEntries(Object.keys(defs).map((k) => [k, { $ref: `#/$defs/${k}` }])),
    $defs: defs,
  };
  return compile(root as JSONSchema, 'Components', {
    bannerComment: '',
    additionalProperties: false,
    strictIndexSignatures: true,
    unreachableDefinitions: true,
    ignoreMinAndMaxItems: true,
    format: false,
    $refOptions: { resolve: { external: false } },
  });
}

/** The TypeScript type of a query or header parameter's schema. */
function paramType(schema: Json): string {
  if (Array.isArray(schema.enum)) return schema.enum.map((v) => JSON.stringify(v)).join(' | ');
  if (schema.type === 'integer' || schema.type === 'number') return 'number';
  return 'string';
}

/** A JSDoc block from lines, indented. */
function doc(lines: readonly string[], indent: string): string {
  const body = lines.flatMap((l) => l.split('\n')).map((l) => `${indent} *${l ? ` ${l.replace(/\*\//g, '*\\/')}` : ''}`);
  return `${indent}/**\n${body.join('\n')}\n${indent} */\n`;
}

const pascal = (id: string): string => id.charAt(0).toUpperCase() + id.slice(1);

/** The args interface, method and call description of one operation. */
function renderOperation(method: string, path: string, op: Operation, components: Record<string, Json>): { args: string; member: string } {
  const params = op.parameters ?? [];
  const pathParams = params.filter((p) => p.in === 'path');
  const query = params.filter((p) => p.in === 'query');
  const headers = params.filter((p) => p.in === 'header' && p.name === 'If-Match');
  const argsName = `${pascal(op.operationId)}Args`;
  // each member of the args interface, and whether it may be left out
  const fields: { text: string; optional: boolean }[] = [];
  for (const p of pathParams)
    fields.push({ text: `${doc([p.description ?? p.name], '  ')}  readonly ${p.name}: string;`, optional: false });
  if (query.length) {
    const required = query.some((p) => p.required);
    const members = query
      .map(
        (p) =>
          `${doc([p.description ?? `\`${p.name}\``], '    ')}    readonly ${JSON.stringify(p.name)}${p.required ? '' : '?'}: ${paramType(p.schema)};`,
      )
      .join('\n');
    fields.push({ text: `  /** Query parameters. */\n  readonly query${required ? '' : '?'}: {\n${members}\n  };`, optional: !required });
  }
  for (const h of headers)
    fields.push({ text: `${doc([`\`If-Match\`: ${h.description ?? ''}`], '  ')}  readonly ifMatch: string;`, optional: false });
  const content = op.requestBody?.content ?? {};
  const jsonType = Object.keys(content).find((t) => t.includes('json'));
  let form: { file: string; many: boolean } | undefined;
  if (jsonType) {
    fields.push({
      text: `  /** The request body. */\n  readonly body: ${refName(content[jsonType]!.schema) ?? 'unknown'};`,
      optional: false,
    });
  } else if (content['multipart/form-data']) {
    const schema = content['multipart/form-data'].schema as { required: string[]; properties: Record<string, Json> };
    const file = schema.required[0]!;
    const many = schema.properties[file]!.type === 'array';
    form = { file, many };
    const fieldsRef = (schema.properties.folder?.$ref as string | undefined)?.split('/')[3];
    fields.push({
      optional: false,
      text: `  /** ${many ? 'The files, each with its name (a \`File\` will do)' : 'The file, with its name (a \`File\` will do)'}. */\n  readonly ${file}: ${many ? 'readonly UploadFile[]' : 'UploadFile'};`,
    });
    const fieldsRequired =
      fieldsRef !== undefined && Array.isArray(components[fieldsRef]?.required) && (components[fieldsRef].required as unknown[]).length > 0;
    fields.push({
      text: `  /** The text fields. */\n  readonly fields${fieldsRequired ? '' : '?'}: ${fieldsRef ?? 'Record<string, string>'};`,
      optional: !fieldsRequired,
    });
  }
  const success = Object.entries(op.responses).filter(([s]) => /^2\d\d$/.test(s));
  const types = new Set<string>();
  for (const [status, r] of success) {
    if (status === '204') types.add('undefined');
    for (const [type, c] of Object.entries(r.content ?? {})) types.add(type.includes('json') ? (refName(c.schema) ?? 'unknown') : 'string');
  }
  const result = types.size ? [...types].join(' | ') : 'unknown';
  const security = op.security.length === 0 ? 'none' : op.security.some((s) => 'adminPassword' in s) ? 'token-or-password' : 'token';
  const hasArgs = fields.length > 0;
  const args = hasArgs
    ? `${doc([`Arguments of \`${op.operationId}\` (${method.toUpperCase()} ${path}).`], '')}export interface ${argsName} {\n${fields.map((f) => f.text).join('\n')}\n}\n`
    : '';
  const call: string[] = [`method: '${method.toUpperCase()}'`, `path: '${path}'`];
  if (pathParams.length) call.push(`params: { ${pathParams.map((p) => `${p.name}: args.${p.name}`).join(', ')} }`);
  const multi = pathParams.filter((p) => p['x-multi-segment']).map((p) => `'${p.name}'`);
  if (multi.length) call.push(`multiSegment: [${multi.join(', ')}]`);
  if (query.length) call.push('query: args.query');
  if (jsonType) {
    call.push('json: args.body');
    if (jsonType !== 'application/json') call.push(`mediaType: '${jsonType}'`);
  }
  if (form)
    call.push(`form: formOf(${JSON.stringify(form.file)}, ${form.many ? `args.${form.file}` : `[args.${form.file}]`}, args.fields)`);
  if (headers.length) call.push(`headers: { 'If-Match': args.ifMatch }`);
  call.push(`security: '${security}'`);
  const statuses = success.map(([s, r]) => `${s}: ${r.description}`);
  const lines = [`${op.summary}.`, '', `\`${method.toUpperCase()} ${path}\` (${statuses.join(' ')})`];
  if (op.description) lines.push('', op.description);
  lines.push("@throws ApiError with the problem's `code` for every refusal (see the OpenAPI document for the codes).");
  // an operation whose arguments are all optional takes none at all
  const optional = hasArgs && fields.every((f) => f.optional);
  const signature = hasArgs ? `args: ${argsName}${optional ? ' = {}' : ''}, options?: CallOptions` : 'options?: CallOptions';
  const member = `${doc(lines, '  ')}  ${op.operationId}(${signature}): Promise<ApiResponse<${result}>> {\n    return send(this.options, { ${call.join(', ')} }, options);\n  }\n`;
  return { args, member };
}

/**
 * The text of `client/src/generated.ts` for an OpenAPI document.
 * @throws Error when a schema cannot be turned into types.
 */
export async function renderClient(document: Json): Promise<string> {
  const components = (document.components as { schemas: Record<string, Json> }).schemas;
  const types = await componentTypes(components);
  const argsBlocks: string[] = [];
  const members: string[] = [];
  const paths = document.paths as Record<string, Record<string, Operation>>;
  for (const path of Object.keys(paths)) {
    for (const [method, op] of Object.entries(paths[path]!)) {
      const r = renderOperation(method, path, op, components);
      if (r.args) argsBlocks.push(r.args);
      members.push(r.member);
    }
  }
  const info = document.info as { title: string; version: string };
  return [
    `// Generated by \`npm run client\` from the OpenAPI document of ${info.title} ${info.version} (build/openapi/). Do not edit.`,
    '/* eslint-disable */',
    "import { send, type ApiResponse, type CallOptions, type ClientOptions, type UploadFile } from './runtime.js';",
    '',
    '// ---- types of the schemas (schemas/requests, schemas/responses, schemas/output)',
    '',
    types.trim(),
    '',
    '// ---- arguments of the operations',
    '',
    argsBlocks.join('\n'),
    '/** A multipart body: the files under `field`, then the text fields. */',
    'function formOf(field: string, files: readonly UploadFile[], fields: object | undefined): FormData {',
    '  const form = new FormData();',
    '  for (const f of files) form.append(field, f, f.name);',
    '  for (const [k, v] of Object.entries(fields ?? {})) if (v !== undefined) form.append(k, String(v));',
    '  return form;',
    '}',
    '',
    '/**',
    ' * The service, one method per operation of its OpenAPI document. Every method resolves to',
    " * `{ status, headers, body }` and rejects with an `ApiError` whose `code` is the problem's.",
    ' */',
    'export class GameDataClient {',
    '  /** Where and how to call the service (`runtime.ts`). */',
    '  readonly options: ClientOptions;',
    '',
    '  constructor(options: ClientOptions = {}) {',
    '    this.options = options;',
    '  }',
    '',
    members.join('\n'),
    '}',
    '',
    '/** Every operation id, as the methods of {@link GameDataClient} are named. */',
    `export const OPERATION_IDS = ${JSON.stringify(Object.values(paths).flatMap((ops) => Object.values(ops).map((o) => o.operationId)))} as const;`,
    '',
  ].join('\n');
}

/** The generated text for this repository's routes and schemas. */
export async function renderRepositoryClient(): Promise<string> {
  return renderClient(await repositoryOpenApi());
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  // `--help` answers before the OpenAPI document is built (dev/cli.ts)
  const text = wantsHelp(process.argv.slice(2)) ? '' : await renderRepositoryClient();
  process.exitCode = generatedFileCli(process.argv.slice(2), {
    file: CLIENT_FILE,
    source: 'the OpenAPI document',
    script: 'client',
    render: () => text,
  });
}
