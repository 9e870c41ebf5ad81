// The OpenAPI document (build/openapi/): valid OpenAPI 3.1 by a well-kept validator, one operation per
// route method, every schema a component compiled from the schema files, every example valid, and, against
// the sample catalog through the local server's routing, every operation answers only what the document
// says: the statuses it lists, problem bodies of the Problem schema with a listed code, 2xx bodies of the
// listed schema.
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { componentName, openApiPath, operationAccess, pairOperations, paramSchema } from '../../build/openapi/document.js';
import { OPERATIONS, STATIC_FILES, type OperationSpec } from '../../build/openapi/operations.js';
import { ROUTES } from '../../api/_lib/routing/table.js';
import { loadServiceConfig, useServiceConfig } from '../../api/_lib/config.js';
import { THROTTLE_UNLIMITED } from '../helpers/backends.js';
import { mintToken } from '../../api/_lib/auth/tokens.js';
import { createLocalHandler } from '../../dev/server.js';
import { REPO_ROOT, SAMPLE_OUT } from '../helpers/catalog.js';
import { expectDocumented as oracleCheck, openApiOracle, type Doc, type Json, type OpenApiOracle } from '../helpers/openapi.js';

let doc: Doc;
let oracle: OpenApiOracle;
const paramValidator = new Ajv2020({ strict: false });

beforeAll(async () => {
  oracle = await openApiOracle();
  doc = oracle.doc;
});

/** The validator of a component, compiled from the document itself (so its `$ref`s must resolve there). */
const component = (name: string) => oracle.component(name);

describe('document', () => {
  it('is valid OpenAPI 3.1 for @seriousme/openapi-schema-validator', async () => {
    const result = await new Validator().validate(doc);
    expect(result.errors).toBeUndefined();
    expect(result.valid).toBe(true);
    expect((doc as unknown as Json).openapi).toBe('3.1.0');
  });

  it('has one operation for every method of every served route, and nothing else', () => {
    const want = ROUTES.filter((r) => !r.gone).flatMap((r) => r.methods.map((m) => `${m.toLowerCase()} ${openApiPath(r)}`));
    const staticPaths = STATIC_FILES.map((f) => `get ${f.path}`);
    const have = Object.entries(doc.paths).flatMap(([path, ops]) => Object.keys(ops).map((m) => `${m} ${path}`));
    expect(have.sort()).toEqual([...want, ...staticPaths].sort());
    expect(pairOperations()).toHaveLength(want.length);
    const ids = have.map((k) => {
      const [m, p] = k.split(' ') as [string, string];
      return doc.paths[p]![m]!.operationId as string;
    });
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('describes each query parameter with the very rules the handler parses it by', () => {
    for (const { route, op } of pairOperations()) {
      const params = (doc.paths[openApiPath(route)]![op.method.toLowerCase()]!.parameters ?? []) as {
        name: string;
        in: string;
        required: boolean;
        schema: Json;
      }[];
      const query = params.filter((p) => p.in === 'query');
      const specs = { ...op.query };
      expect(query.map((p) => p.name).sort()).toEqual(Object.keys(specs).sort());
      for (const p of query) {
        expect(p.schema).toEqual(paramSchema(specs[p.name]!));
        expect(p.required).toBe(specs[p.name]!.required === true);
      }
      expect(params.some((p) => p.in === 'path')).toBe(route.path.includes('{key'));
    }
    // spot checks against the parameters the search handler parses
    const search = doc.paths['/api/search']!.get!.parameters as { name: string; schema: Json }[];
    expect(search.find((p) => p.name === 'limit')!.schema).toEqual({ type: 'integer', minimum: 1, maximum: 200, default: 50 });
    expect(search.find((p) => p.name === 'q')!.schema).toEqual({ type: 'string', maxLength: 200, pattern: '\\S' });
  });

  it('holds every schema file it names as a component, with $id and $schema dropped and $refs pointed at components', async () => {
    const names = Object.keys(doc.components.schemas);
    expect(names).toContain('Problem');
    expect(names).toContain('SearchResponse');
    expect(names).toContain('VerifySendToAccountRequest');
    expect(names).toContain('BuildReportFile');
    for (const dir of ['requests', 'responses', 'output']) {
      for (const f of await readdir(join(REPO_ROOT, 'schemas', dir))) {
        const name = componentName(`${dir}/${f.replace('.schema.json', '')}`);
        if (!(name in doc.components.schemas)) continue;
        const file = JSON.parse(await readFile(join(REPO_ROOT, 'schemas', dir, f), 'utf8')) as Json;
        const rest = Object.fromEntries(Object.entries(file).filter(([k]) => k !== '$id' && k !== '$schema'));
        const text = JSON.stringify(doc.components.schemas[name]);
        expect(text).not.toContain('schemas.game-data.dev');
        // the same schema once the references are put back as they are written in the file
        expect(Object.keys(doc.components.schemas[name]!)).toEqual(Object.keys(rest));
        expect(doc.components.schemas[name]!.description).toEqual(rest.description);
      }
    }
    for (const name of names) expect(() => component(name)).not.toThrow();
  });

  it('names every request and response schema the operations use, and only schemas that exist', async () => {
    const used = new Set<string>();
    for (const op of OPERATIONS) {
      for (const s of op.success) if (s.schema) used.add(s.schema);
      if (op.body) used.add(op.body.schema);
    }
    for (const s of used) await expect(readFile(join(REPO_ROOT, 'schemas', `${s}.schema.json`), 'utf8')).resolves.toContain('"$id"');
    // every request schema a handler validates with is documented
    const requestFiles = (await readdir(join(REPO_ROOT, 'schemas/requests'))).map((f) => `requests/${f.replace('.schema.json', '')}`);
    const components = new Set(Object.keys(doc.components.schemas));
    for (const r of requestFiles) expect(components.has(componentName(r)), r).toBe(true);
  });

  it('gives every JSON body an example its schema accepts, and every query example passes its parameters', () => {
    for (const op of OPERATIONS) {
      if (op.body?.kind === 'json') {
        const v = component(componentName(op.body.schema));
        expect(v(op.body.example), `${op.operationId}: ${JSON.stringify(v.errors)}`).toBe(true);
      }
      for (const [name, value] of Object.entries(op.queryExample ?? {})) {
        const spec = { ...op.query }[name];
        expect(spec, `${op.operationId} example names ${name}`).toBeDefined();
        const schema = paramSchema(spec!);
        const v = paramValidator.compile(schema);
        expect(v(spec!.kind === 'int' ? Number(value) : value), `${op.operationId}.${name}=${value}`).toBe(true);
      }
    }
  });

  it('lists problem answers by status with the codes of each, as problem+json', () => {
    const grant = doc.paths['/api/admin/grant-coin']!.post!.responses as Record<
      string,
      { description: string; content?: Json; headers?: Json }
    >;
    expect(Object.keys(grant).sort()).toEqual(['200', '400', '401', '403', '404', '409', '413', '415', '422', '429', '503']);
    expect(grant['422']!.description).toContain('IDEMPOTENCY_KEY_REUSED');
    expect(grant['400']!.description).toContain('INVALID_BODY');
    expect(grant['401']!.headers).toHaveProperty('WWW-Authenticate');
    expect(grant['503']!.content).toEqual({ 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } });
    expect(doc.paths['/api/admin/grant-coin']!.post!.security).toEqual([{ bearerAuth: [] }, { adminPassword: [] }]);
    expect(doc.paths['/api/wallet/overview']!.get!.security).toEqual([{ bearerAuth: [] }]);
    expect(doc.paths['/api/search']!.get!.security).toEqual([]);
    const search = doc.paths['/api/search']!.get!.responses as Record<string, unknown>;
    expect(Object.keys(search).sort()).toEqual(['200', '304', '400', '503']);
  });
});

// ---------------------------------------------------------------------------------------------------------
// every operation against the sample catalog, through production routing

const ADMIN_PASSWORD = 'openapi-admin-password-0001';
let dataDir: string;
let handle: (r: Request) => Promise<Response>;
let playerToken: string;
let studioId: string;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'openapi-'));
  const env = { ...THROTTLE_UNLIMITED, DATA_DIR: dataDir, JWT_SECRET: 'openapi-test-secret-openapi-test-secret-0001', ADMIN_PASSWORD };
  handle = await createLocalHandler({ out: SAMPLE_OUT, env });
  const config = loadServiceConfig({ ...env, CATALOG_DIR: SAMPLE_OUT });
  const created = await handle(
    new Request('http://t/api/admin/accounts', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'X-Admin-Password': ADMIN_PASSWORD },
      body: JSON.stringify({ displayName: 'Doc Walker' }),
    }),
  );
  expect(created.status).toBe(201);
  studioId = ((await created.json()) as { account: { studioId: string } }).account.studioId;
  playerToken = await mintToken(config.jwt, { subject: studioId, role: 'player' });
});

afterAll(async () => {
  useServiceConfig(undefined);
  await rm(dataDir, { recursive: true, force: true });
});

/** The operation's example key (examples name records of the sample catalog), or a stand-in. */
function keyFor(op: OperationSpec): string {
  // an operator route's example account is this test's account
  if (op.entry === 'admin' && op.keyExample?.startsWith('STUDIO_')) return studioId;
  return op.keyExample ?? 'x';
}

function urlOf(path: string, key: string, query: Readonly<Record<string, string>> = {}): string {
  const q = new URLSearchParams(query).toString();
  return `http://t${path.replace('{key}', encodeURIComponent(key).replace(/%2F/g, '/'))}${q ? `?${q}` : ''}`;
}

/** Check an answer against the document (`test/helpers/openapi.ts`). */
const expectDocumented = (op: OperationSpec, res: Response, what: string) => oracleCheck(oracle, op, res, what);

describe('every operation answers what the document says', () => {
  it('without credentials, body or query', async () => {
    for (const { route, op } of pairOperations()) {
      const res = await handle(new Request(urlOf(openApiPath(route), keyFor(op)), { method: op.method }));
      await expectDocumented(op, res, 'bare');
      if (operationAccess(op) !== 'public') expect(res.status, op.operationId).toBe(401);
    }
  });

  it('with an unknown query parameter where the handler takes a fixed set', async () => {
    for (const { route, op } of pairOperations()) {
      // a `-file` route shares its path with a static file, which the CDN serves whatever the query
      if (!op.query || operationAccess(op) !== 'public' || op.route.endsWith('-file')) continue;
      const res = await handle(
        new Request(urlOf(openApiPath(route), keyFor(op), { ...op.queryExample, bogus: '1' }), { method: op.method }),
      );
      expect(res.status, op.operationId).toBe(400);
      await expectDocumented(op, res, 'unknown parameter');
    }
  });

  it('with the example query, the example body and the credentials it needs', async () => {
    const succeeded: string[] = [];
    for (const { route, op } of pairOperations()) {
      const headers: Record<string, string> = {};
      if (operationAccess(op) === 'player') headers.Authorization = `Bearer ${playerToken}`;
      if (['admin', 'support', 'game-server'].includes(operationAccess(op))) headers['X-Admin-Password'] = ADMIN_PASSWORD;
      let body: BodyInit | undefined;
      if (op.body?.kind === 'json') {
        headers['Content-Type'] = op.body.mediaTypes?.[0] ?? 'application/json';
        // the example's account is this test's account, so account-bound operations can succeed
        body = JSON.stringify(op.body.example).replaceAll('STUDIO_7Q2M4K9X', studioId);
      } else if (op.body?.kind === 'multipart') {
        const form = new FormData();
        form.set(op.body.files.field, new Blob(['{"a":1}'], { type: 'application/json' }), 'doc.json');
        form.set('folder', 'docs/examples');
        body = form;
      }
      if (op.ifMatch) headers['If-Match'] = '"0"';
      const res = await handle(
        new Request(urlOf(openApiPath(route), keyFor(op), op.queryExample), { method: op.method, headers, ...(body ? { body } : {}) }),
      );
      if (res.status < 300) succeeded.push(op.operationId);
      // the examples of public reads name records of the sample catalog
      if (operationAccess(op) === 'public' && op.method === 'GET') expect(res.status, `${op.operationId} example`).toBe(200);
      await expectDocumented(op, res, 'example');
    }
    // most operations succeed with their examples on the sample catalog
    expect(succeeded.length, succeeded.join(' ')).toBeGreaterThan(OPERATIONS.length * 0.6);
  });
});

describe('published', () => {
  it('the build of the site writes the document at api/openapi.json and the reference page at docs/', async () => {
    const { buildCatalog } = await import('../../build/pipeline/index.js');
    const out = await mkdtemp(join(tmpdir(), 'openapi-site-'));
    try {
      const report = await buildCatalog({ src: join(REPO_ROOT, 'catalog-src'), out: join(out, 'dist'), site: true, reportFile: false });
      expect(report.ok).toBe(true);
      expect(JSON.parse(await readFile(join(out, 'dist/api/openapi.json'), 'utf8'))).toEqual(doc);
      const page = await readFile(join(out, 'dist/docs/index.html'), 'utf8');
      expect(page).toContain('<main id="reference"');
      expect((await readFile(join(out, 'dist/docs/scalar-standalone.js'))).length).toBeGreaterThan(100_000);
    } finally {
      await rm(out, { recursive: true, force: true });
    }
  });
});
