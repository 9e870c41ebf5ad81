/**
 * The OpenAPI 3.1 document of the service (`/api/openapi.json`), generated from the route table
 * (`api/_lib/routing/table.ts`), the operation table (`./operations.ts`) and the JSON Schemas under
 * `schemas/` (no schema is written twice: each one used becomes a component as it is, with its `$ref`s
 * pointed at components). The build writes it with the site (`build/site.ts`); the typed client is
 * generated from it (`client/`); `/docs` renders it.
 *
 * Shape: `openapi: 3.1.0`, JSON Schema 2020-12 as the dialect; one path per route (`{key}`, `{key+}` become
 * a `key` path parameter); per operation its query parameters (from the handler's `ParamSpec`s), `If-Match`
 * / `If-None-Match` where the route uses them, the body, every success, 304 for cacheable answers, and
 * every refusal as `application/problem+json` (`Problem`, RFC 9457) with the codes it can carry (§7);
 * security `bearerAuth` (JWT, §5.2-§5.4), `adminPassword` (`X-Admin-Password`, §5.3) and `cronSecret` (the scheduled
 * ledger check's `Authorization: Bearer <CRON_SECRET>`). A path parameter
 * that may hold `/` (a storage key, a catalog file path) carries `x-multi-segment: true`.
 */
import { STATUS_OF, type ErrorCode } from '../../api/_lib/errors.js';
import type { ParamSpec } from '../../api/_lib/http/params.js';
import { accessOf, ROUTES, type Access, type RouteDef } from '../../api/_lib/routing/table.js';
import { OPERATIONS, STATIC_FILES, TAGS, type OperationSpec, type StaticFileSpec } from './operations.js';

/** A JSON object. */
type Json = Record<string, unknown>;

/** Base of every schema `$id` under `schemas/`. */
export const SCHEMA_ID_BASE = 'https://schemas.game-data.dev/';

/** Path of the document in the output. */
export const OPENAPI_FILE = 'api/openapi.json';

/** Problem component and its media type (RFC 9457). */
const PROBLEM = 'responses/problem';
const PROBLEM_TYPE = 'application/problem+json';

/**
 * Component name of a schema name: `responses/search` → `SearchResponse`, `requests/create-account` →
 * `CreateAccountRequest`, `output/changes` → `ChangesFile`, `responses/problem` → `Problem`.
 * @throws Error for a name outside `requests/`, `responses/`, `output/` and `catalog/`.
 */
export function componentName(schema: string): string {
  if (schema === PROBLEM) return 'Problem';
  const m = /^(requests|responses|output|catalog)\/([a-z0-9-]+)$/.exec(schema);
  if (!m) throw new Error(`Not a schema name: ${schema}`);
  const pascal = m[2]!.replace(/(^|-)([a-z0-9])/g, (_s, _d: string, c: string) => c.toUpperCase());
  const suffix = { requests: 'Request', responses: 'Response', output: 'File', catalog: 'CatalogFile' }[m[1] as 'requests'];
  return pascal + suffix;
}

/** `#/components/schemas/<name>` of a schema name. */
const refTo = (schema: string): Json => ({ $ref: `#/components/schemas/${componentName(schema)}` });

/**
 * The schema name of a `$ref` inside the schema `fromId`, with its fragment: `["responses/icon", "#/$defs/x"]`.
 * @throws Error for a reference outside `schemas/`.
 */
function resolveRef(ref: string, fromId: string): [schema: string, fragment: string] {
  const url = new URL(ref, fromId);
  if (!url.href.startsWith(SCHEMA_ID_BASE) || !url.pathname.endsWith('.schema.json'))
    throw new Error(`${fromId}: $ref ${ref} leaves ${SCHEMA_ID_BASE}`);
  return [url.pathname.slice(1, -'.schema.json'.length), url.hash];
}

/** A copy of `node` with every `$ref` pointed at its component, collecting the schema names it reaches. */
function rewriteRefs(node: unknown, fromId: string, reached: Set<string>): unknown {
  if (Array.isArray(node)) return node.map((v) => rewriteRefs(v, fromId, reached));
  if (typeof node !== 'object' || node === null) return node;
  const out: Json = {};
  for (const [k, v] of Object.entries(node)) {
    if (k === '$ref' && typeof v === 'string') {
      const [schema, fragment] = resolveRef(v, fromId);
      reached.add(schema);
      out[k] = `#/components/schemas/${componentName(schema)}${fragment ? fragment.slice(1) : ''}`;
    } else out[k] = rewriteRefs(v, fromId, reached);
  }
  return out;
}

/** OpenAPI schema of a query parameter's `ParamSpec` (the handler's own rules, `api/_lib/http/params.ts`). */
export function paramSchema(spec: ParamSpec): Json {
  switch (spec.kind) {
    case 'int':
      return { type: 'integer', minimum: spec.min, maximum: spec.max, ...(spec.default !== undefined ? { default: spec.default } : {}) };
    case 'enum':
      return { type: 'string', enum: [...spec.values], ...(spec.default !== undefined ? { default: spec.default } : {}) };
    case 'string':
      return { type: 'string', maxLength: spec.maxLength ?? 200, ...(spec.pattern ? { pattern: spec.pattern.source } : {}) };
  }
}

/** What a parameter's schema cannot say of how `parseQuery` reads it (`api/_lib/http/params.ts`). */
function paramDescription(name: string, spec: ParamSpec): string | undefined {
  if (spec.kind === 'int' && spec.clamp) return `Above ${spec.max}, lowered to ${spec.max} (see \`X-Limit-Applied\`).`;
  if (spec.kind === 'enum') return 'Compared without case.';
  if (name === 'cursor') return 'The opaque `cursor` of the previous page.';
  return undefined;
}

function queryParameters(op: OperationSpec): Json[] {
  return Object.entries(op.query ?? {}).map(([name, spec]) => {
    const description = paramDescription(name, spec);
    const example = op.queryExample?.[name];
    return {
      name,
      in: 'query',
      required: spec.required === true,
      schema: paramSchema(spec),
      ...(description ? { description } : {}),
      ...(example !== undefined ? { example: spec.kind === 'int' ? Number(example) : example } : {}),
    };
  });
}

/**
 * Who may call an operation: the access its route declares for its method (`api/_lib/routing/table.ts`).
 * @throws Error when no route of the table is the operation's
 */
export function operationAccess(op: OperationSpec, routes: readonly RouteDef[] = ROUTES): Access {
  const route = routes.find((r) => r.entry === op.entry && r.name === op.route);
  if (!route) throw new Error(`Operation ${op.operationId} names no route ${op.entry}/${op.route}.`);
  return accessOf(route, op.method);
}

/** Every refusal code an operation can answer (the module header): its own plus those that follow from it. */
export function errorCodes(op: OperationSpec): ErrorCode[] {
  const codes = new Set<ErrorCode>(op.errors ?? []);
  const access = operationAccess(op);
  if (access === 'player') {
    codes.add('UNAUTHORIZED');
    codes.add('ACCOUNT_SUSPENDED');
  }
  if (access === 'player-or-game-server') {
    // a player naming another account, or a field outside the caller's authority (api/_lib/player/authority.ts)
    codes.add('UNAUTHORIZED');
    codes.add('FORBIDDEN');
    codes.add('ACCOUNT_SUSPENDED');
  }
  if (access === 'admin' || access === 'support' || access === 'game-server') {
    codes.add('UNAUTHORIZED');
    codes.add('FORBIDDEN');
  }
  if (access === 'cron') codes.add('UNAUTHORIZED');
  // a game server's token writes to no banned account (docs/architecture.md, "Sessions and bans")
  if (access === 'game-server' && op.method !== 'GET') codes.add('ACCOUNT_SUSPENDED');
  if (op.query) codes.add('INVALID_QUERY');
  if (op.key) codes.add('NOT_FOUND');
  if (op.body) {
    codes.add('INVALID_BODY');
    codes.add('PAYLOAD_TOO_LARGE');
    codes.add('UNSUPPORTED_MEDIA_TYPE');
  }
  if (op.ifMatch) {
    codes.add('PRECONDITION_FAILED');
    codes.add('PRECONDITION_REQUIRED');
  }
  // the throttle (api/_lib/throttle/policy.ts): credentials after too many failures, and writes
  if (access !== 'public' || op.method !== 'GET') codes.add('TOO_MANY_REQUESTS');
  codes.add('UPSTREAM_UNAVAILABLE');
  return [...codes].sort((a, b) => STATUS_OF[a] - STATUS_OF[b] || (a < b ? -1 : 1));
}

/** Entries whose answers come from the published catalog (`api/_lib/http/respond.ts` `cachedResponse`). */
const CATALOG_ENTRIES: ReadonlySet<string> = new Set(['catalog', 'collections', 'registries']);

const REASONS: Readonly<Record<number, string>> = {
  400: 'Bad request',
  401: 'Missing or invalid credentials',
  403: 'Valid credentials that may not do this (a role, a field outside its authority, a suspended account)',
  404: 'Not found',
  409: 'Conflict with the current state',
  412: 'The `If-Match` revision is stale',
  413: 'Body too large',
  415: 'Media type not taken',
  422: 'Idempotency key reused with another request',
  428: '`If-Match` is required',
  429: 'Too many failed sign-ins or changes; wait `Retry-After` seconds',
  503: 'Store or catalog data unavailable; nothing changed, retry',
};

function problemResponses(op: OperationSpec): Record<string, Json> {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of errorCodes(op)) byStatus.set(STATUS_OF[code], [...(byStatus.get(STATUS_OF[code]) ?? []), code]);
  const out: Record<string, Json> = {};
  for (const [status, codes] of byStatus) {
    out[String(status)] = {
      description: `${REASONS[status] ?? 'Refused'}: ${codes.map((c) => `\`${c}\``).join(', ')}.`,
      ...(status === 401
        ? { headers: { 'WWW-Authenticate': { description: 'The scheme and realm to authenticate with.', schema: { type: 'string' } } } }
        : {}),
      ...(status === 429
        ? {
            headers: {
              'Retry-After': { description: 'Seconds to wait; waiting that long is always enough.', schema: { type: 'integer' } },
            },
          }
        : {}),
      ...(status === 412
        ? {
            headers: {
              ETag: { description: 'The current revision: read the state again, then retry with it.', schema: { type: 'string' } },
            },
          }
        : {}),
      content: { [PROBLEM_TYPE]: { schema: refTo(PROBLEM) } },
    };
  }
  return out;
}

/** `catalog`: the answer comes from the published catalog and names its build (`X-Build-Id`). */
function headerObjects(headers: Readonly<Record<string, string>> | undefined, cacheable: boolean, catalog: boolean): Json | undefined {
  const all: Record<string, Json> = {};
  if (cacheable) {
    all.ETag = {
      description: 'Changes when the answer changes (with the build and the query); send it as `If-None-Match` for a 304.',
      schema: { type: 'string' },
    };
    all['Cache-Control'] = { description: '`public, max-age=300`.', schema: { type: 'string' } };
    all['CDN-Cache-Control'] = { description: 'The same, for the edge.', schema: { type: 'string' } };
    if (catalog) all['X-Build-Id'] = { description: 'The catalog build that answered.', schema: { type: 'string' } };
  }
  for (const [name, description] of Object.entries(headers ?? {})) all[name] = { description, schema: { type: 'string' } };
  return Object.keys(all).length ? all : undefined;
}

function successResponses(op: OperationSpec): Record<string, Json> {
  const out: Record<string, Json> = {};
  for (const s of op.success) {
    const headers = headerObjects(s.headers, op.cacheable === true, CATALOG_ENTRIES.has(op.entry));
    const content: Json = {};
    if (s.schema) content['application/json'] = { schema: refTo(s.schema) };
    if (s.alternative) content[s.alternative.mediaType] = { schema: { type: 'string', description: s.alternative.description } };
    out[String(s.status)] = { description: s.description, ...(headers ? { headers } : {}), ...(s.schema ? { content } : {}) };
  }
  if (op.cacheable) out['304'] = { description: 'Not modified: the `If-None-Match` ETag is current.' };
  return out;
}

function requestBody(op: OperationSpec, schemaOf: (name: string) => Json): Json | undefined {
  const body = op.body;
  if (!body) return undefined;
  if (body.kind === 'json') {
    const content: Json = {};
    for (const type of body.mediaTypes ?? ['application/json']) content[type] = { schema: refTo(body.schema), example: body.example };
    const merged = body.merged
      ? `Once merged into the stored document, the result must match \`${componentName(body.merged)}\`.`
      : undefined;
    return { required: true, ...(merged ? { description: merged } : {}), content };
  }
  const fields = componentName(body.schema);
  const fieldsRequired = schemaOf(body.schema).required;
  const file = { type: 'string', contentMediaType: 'application/octet-stream', description: body.files.description };
  return {
    required: true,
    content: {
      'multipart/form-data': {
        schema: {
          type: 'object',
          description: `The file part(s) in \`${body.files.field}\`; the text fields as \`${fields}\`.`,
          required: [body.files.field, ...(Array.isArray(fieldsRequired) ? (fieldsRequired as string[]) : [])],
          properties: {
            [body.files.field]:
              body.files.max === 1 ? file : { type: 'array', minItems: body.files.min, maxItems: body.files.max, items: file },
            folder: { $ref: `#/components/schemas/${fields}/properties/folder` },
          },
        },
      },
    },
  };
}

const SECURITY: Readonly<Record<Access, Json[]>> = {
  public: [],
  player: [{ bearerAuth: [] }],
  admin: [{ bearerAuth: [] }, { adminPassword: [] }],
  support: [{ bearerAuth: [] }, { adminPassword: [] }],
  'game-server': [{ bearerAuth: [] }, { adminPassword: [] }],
  'player-or-game-server': [{ bearerAuth: [] }, { adminPassword: [] }],
  cron: [{ cronSecret: [] }],
};

const ACCESS_NOTE: Readonly<Record<Access, string>> = {
  public: '',
  player: 'Needs the caller’s token (not a guest).',
  admin: 'Admin only: a token whose role is admin or master, or `X-Admin-Password`. A request with a token is judged by the token alone.',
  support: 'Operators: a token whose role is support, admin or master, or `X-Admin-Password`. Support may look, never change.',
  'game-server': 'Game servers: a token whose role is server, admin or master, or `X-Admin-Password`.',
  'player-or-game-server':
    'A player’s own token (not a guest), or a game server’s credentials (a token whose role is server, admin or master, or `X-Admin-Password`) acting for the account; what each may write is listed in the description.',
  cron: 'Scheduled calls only: `Authorization: Bearer <CRON_SECRET>`, as Vercel Cron sends it (off while `CRON_SECRET` is unset).',
};

/** The OpenAPI path of a route: `{key}`, `{key+}` → `{key}`. */
export function openApiPath(route: RouteDef): string {
  return route.path.replace(/\{key[+*]?\}/g, '{key}');
}

function operationObject(route: RouteDef, op: OperationSpec, schemaOf: (name: string) => Json): Json {
  const parameters: Json[] = [];
  if (op.key) {
    const multiSegment = route.path.includes('{key+}');
    parameters.push({
      name: 'key',
      in: 'path',
      required: true,
      description: op.key,
      // a `.` or `..` segment is removed from every URL before it is sent (RFC 3986 §5.2.4), so no key is one
      schema: multiSegment
        ? { type: 'string', minLength: 1, not: { pattern: '(^|/)\\.{1,2}(/|$)' } }
        : { type: 'string', minLength: 1, not: { enum: ['.', '..'] } },
      ...(op.keyExample ? { example: op.keyExample } : {}),
      // a `{key+}` route takes `/` inside its key: clients keep those unencoded
      ...(multiSegment ? { 'x-multi-segment': true } : {}),
    });
  }
  parameters.push(...queryParameters(op));
  if (op.ifMatch)
    parameters.push({
      name: 'If-Match',
      in: 'header',
      required: true,
      description: 'The current `ETag` (not `*`).',
      schema: { type: 'string' },
    });
  if (op.cacheable)
    parameters.push({
      name: 'If-None-Match',
      in: 'header',
      required: false,
      description: 'An `ETag` of an earlier answer.',
      schema: { type: 'string' },
    });
  const access = accessOf(route, op.method);
  const description = [op.description ?? '', ACCESS_NOTE[access]].filter(Boolean).join('\n\n');
  const body = requestBody(op, schemaOf);
  return {
    operationId: op.operationId,
    summary: op.summary,
    ...(description ? { description } : {}),
    tags: [op.tag],
    ...(parameters.length ? { parameters } : {}),
    ...(body ? { requestBody: body } : {}),
    responses: { ...successResponses(op), ...problemResponses(op) },
    security: SECURITY[access],
    'x-route': `${route.entry}/${route.name}`,
  };
}

function staticObject(file: StaticFileSpec): Json {
  return {
    operationId: file.operationId,
    summary: file.summary,
    ...(file.description ? { description: file.description } : {}),
    tags: ['static files'],
    ...(file.file
      ? {
          parameters: [
            {
              name: 'file',
              in: 'path',
              required: true,
              description: file.file,
              schema: { type: 'string', minLength: 1 },
              example: 'master-items.json',
              'x-multi-segment': true,
            },
          ],
        }
      : {}),
    responses: {
      '200': { description: 'The file.', content: { 'application/json': { schema: file.schema ? refTo(file.schema) : {} } } },
      '304': { description: 'Not modified.' },
      '404': { description: 'No such file: `NOT_FOUND`.', content: { [PROBLEM_TYPE]: { schema: refTo(PROBLEM) } } },
    },
    security: [],
  };
}

/**
 * The operation of each route and method, in route table order (default: this service's tables).
 * @throws Error naming every route method without an operation, every operation without a route, and every
 *   repeated operationId.
 */
export function pairOperations(
  routes: readonly RouteDef[] = ROUTES,
  operations: readonly OperationSpec[] = OPERATIONS,
  statics: readonly StaticFileSpec[] = STATIC_FILES,
): { route: RouteDef; op: OperationSpec }[] {
  const problems: string[] = [];
  const pairs: { route: RouteDef; op: OperationSpec }[] = [];
  const used = new Set<OperationSpec>();
  for (const route of routes) {
    if (route.gone) continue;
    for (const method of route.methods) {
      const op = operations.find((o) => o.entry === route.entry && o.route === route.name && o.method === method);
      if (!op) problems.push(`${method} ${route.path} (${route.entry}/${route.name}) has no operation`);
      else {
        used.add(op);
        pairs.push({ route, op });
      }
    }
  }
  for (const op of operations)
    if (!used.has(op)) problems.push(`operation ${op.operationId} names no route method (${op.entry}/${op.route} ${op.method})`);
  const ids = [...operations.map((o) => o.operationId), ...statics.map((f) => f.operationId)];
  for (const id of new Set(ids)) if (ids.indexOf(id) !== ids.lastIndexOf(id)) problems.push(`operationId ${id} is used twice`);
  if (problems.length) throw new Error(`The operation table does not match the route table:\n${problems.join('\n')}`);
  return pairs;
}

/** Options of {@link openApiDocument}. */
export interface DocumentOptions {
  /** `info.version`: the service's version (package.json). */
  readonly version: string;
  /** The JSON Schema of a schema name (`responses/search` → the parsed `schemas/responses/search.schema.json`). */
  readonly schema: (name: string) => Json;
}

/**
 * The OpenAPI 3.1 document (see the module header). Deterministic: the same tables and schemas give the same
 * document, key for key.
 * @throws Error when the operation table and the route table disagree ({@link pairOperations}), or a schema
 *   `$ref` leaves `schemas/`.
 */
export function openApiDocument(options: DocumentOptions): Json {
  const paths: Record<string, Json> = {};
  const wanted = new Set<string>([PROBLEM]);
  for (const { route, op } of pairOperations()) {
    const path = openApiPath(route);
    paths[path] = { ...paths[path], [op.method.toLowerCase()]: operationObject(route, op, options.schema) };
    for (const s of op.success) if (s.schema) wanted.add(s.schema);
    if (op.body) wanted.add(op.body.schema);
    if (op.body?.kind === 'json' && op.body.merged) wanted.add(op.body.merged);
  }
  for (const f of STATIC_FILES) {
    paths[f.path] = { get: staticObject(f) };
    if (f.schema) wanted.add(f.schema);
  }
  const schemas: Record<string, unknown> = {};
  const queue = [...wanted].sort();
  const seen = new Set(queue);
  while (queue.length) {
    const name = queue.shift()!;
    const raw = options.schema(name);
    const id = typeof raw.$id === 'string' ? raw.$id : `${SCHEMA_ID_BASE}${name}.schema.json`;
    const reached = new Set<string>();
    const rewritten = rewriteRefs(raw, id, reached) as Json;
    delete rewritten.$id;
    delete rewritten.$schema;
    schemas[componentName(name)] = rewritten;
    for (const r of [...reached].sort()) {
      if (!seen.has(r)) {
        seen.add(r);
        queue.push(r);
      }
    }
  }
  const sortedSchemas = Object.fromEntries(Object.entries(schemas).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  return {
    openapi: '3.1.0',
    jsonSchemaDialect: 'https://json-schema.org/draft/2020-12/schema',
    info: {
      title: 'Game-data service',
      version: options.version,
      summary: 'Game-data catalog, asset registries, and the account ledger and player state.',
      description:
        'The catalog is static JSON under `/api/v1/` (every file in the game-data manifest); the functions below search, filter, ' +
        'export and page it, and keep the stateful half (ledger, accounts, storage, player state). Every refusal is RFC 9457 ' +
        'problem+json with a stable `code`. The JSON Schemas referenced here are also published under `/schemas/`.',
    },
    servers: [{ url: '/', description: 'This deployment' }],
    tags: Object.entries(TAGS).map(([name, description]) => ({ name, description })),
    paths,
    components: {
      schemas: sortedSchemas,
      securitySchemes: {
        bearerAuth: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'JWT',
          description: 'A token of our issuer (§5.2): `npm run token` mints one for development.',
        },
        adminPassword: {
          type: 'apiKey',
          in: 'header',
          name: 'X-Admin-Password',
          description: '`ADMIN_PASSWORD` (off when unset); admin and game-server routes only.',
        },
        cronSecret: {
          type: 'http',
          scheme: 'bearer',
          description: '`CRON_SECRET` (off when unset), as Vercel Cron sends it; the scheduled ledger check’s `GET` only.',
        },
      },
    },
  };
}
