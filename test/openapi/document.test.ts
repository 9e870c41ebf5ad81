// The OpenAPI generator's parts (build/openapi/document.ts): component names, parameter schemas, the refusal
// codes an operation lists, how `$ref`s are pointed at components, multipart bodies, cacheable answers and
// the static files, read from a document generated over small stand-in schemas.
import { describe, expect, it } from 'vitest';
import {
  OPENAPI_FILE,
  componentName,
  errorCodes,
  openApiDocument,
  openApiPath,
  pairOperations,
  paramSchema,
  SCHEMA_ID_BASE,
} from '../../build/openapi/document.js';
import { OPERATIONS, STATIC_FILES, type OperationSpec } from '../../build/openapi/operations.js';
import { ROUTES } from '../../api/_lib/routing/table.js';

type Json = Record<string, unknown>;

/** A stand-in schema for every name: an object with an `$id`, a `$schema`, and refs of every kind. */
function schemaOf(name: string): Json {
  const id = `${SCHEMA_ID_BASE}${name}.schema.json`;
  if (name === 'responses/problem') return { $id: id, $schema: 'x', type: 'object', properties: { code: { type: 'string' } } };
  if (name === 'responses/sprites-list')
    return {
      $id: id,
      type: 'object',
      properties: { items: { type: 'array', items: { $ref: 'sprite.schema.json' } }, self: { $ref: '#/$defs/s' } },
      $defs: { s: { type: 'string' } },
    };
  if (name === 'responses/search') return { $id: id, type: 'object', properties: { index: { $ref: '../output/term-index.schema.json' } } };
  if (name === 'responses/icons-list')
    return { $id: id, type: 'object', properties: { items: { anyOf: [{ $ref: 'icon.schema.json' }, { enum: ['a', 1, null] }] } } };
  if (name === 'responses/sprite')
    return { $id: id, type: 'object', properties: { icon: { $ref: `${SCHEMA_ID_BASE}responses/icon.schema.json#/properties/url` } } };
  if (name === 'requests/storage-upload-zip')
    return { $id: id, type: 'object', required: ['folder'], properties: { folder: { type: 'string' } } };
  return { $id: id, type: 'object', title: name };
}

interface Doc {
  info: Json;
  servers: Json[];
  tags: { name: string }[];
  paths: Record<string, Record<string, Json>>;
  components: { schemas: Record<string, Json>; securitySchemes: Json };
}
/**
 * The document over the stand-in schemas, made afresh inside each test that reads it (a generator that
 * throws fails that test; nothing is kept from one test to the next).
 */
const doc = (): Doc => openApiDocument({ version: '9.9.9', schema: schemaOf }) as unknown as Doc;
const op = (path: string, method = 'get'): Json => doc().paths[path]![method]!;
const spec = (id: string): OperationSpec => OPERATIONS.find((o) => o.operationId === id)!;

describe('names and parameters', () => {
  it('names components by folder and file', () => {
    expect(componentName('responses/problem')).toBe('Problem');
    expect(componentName('responses/search')).toBe('SearchResponse');
    expect(componentName('requests/verify-send-to-account')).toBe('VerifySendToAccountRequest');
    expect(componentName('output/game-data-manifest')).toBe('GameDataManifestFile');
    expect(componentName('catalog/master-items')).toBe('MasterItemsCatalogFile');
    expect(componentName('responses/icon-2x')).toBe('Icon2xResponse');
    for (const bad of ['build/catalog-config', 'responses/Search', 'responses', 'x/responses/search', 'responses/a_b'])
      expect(() => componentName(bad), bad).toThrow(`Not a schema name: ${bad}`);
  });

  it('describes each kind of query parameter with its own rules', () => {
    expect(paramSchema({ kind: 'int', min: 1, max: 8 })).toStrictEqual({ type: 'integer', minimum: 1, maximum: 8 });
    expect(paramSchema({ kind: 'int', min: 0, max: 9, default: 0 })).toStrictEqual({ type: 'integer', minimum: 0, maximum: 9, default: 0 });
    expect(paramSchema({ kind: 'enum', values: ['a', 'b'] })).toStrictEqual({ type: 'string', enum: ['a', 'b'] });
    expect(paramSchema({ kind: 'enum', values: ['a'], default: 'a' })).toStrictEqual({ type: 'string', enum: ['a'], default: 'a' });
    expect(paramSchema({ kind: 'string' })).toStrictEqual({ type: 'string', maxLength: 200 });
    expect(paramSchema({ kind: 'string', maxLength: 5 })).toStrictEqual({ type: 'string', maxLength: 5 });
    // an integer that is not clamped has nothing to say
    expect((op('/api/export').parameters as Json[]).find((p) => p.name === 'tier')).not.toHaveProperty('description');
    const search = op('/api/search').parameters as Json[];
    expect(search.find((p) => p.name === 'limit')).toMatchObject({
      in: 'query',
      required: false,
      description: 'Above 200, lowered to 200 (see `X-Limit-Applied`).',
      example: 10,
    });
    expect(search.find((p) => p.name === 'type')).toMatchObject({ description: 'Compared without case.', example: 'weapons' });
    expect(search.find((p) => p.name === 'q')).toMatchObject({ required: true, example: 'blade' });
    expect(search.find((p) => p.name === 'q')).not.toHaveProperty('description');
    // a parameter without an example has none
    expect((op('/api/export').parameters as Json[]).find((p) => p.name === 'category')).not.toHaveProperty('example');
    expect((op('/api/wallet/overview').parameters as Json[]).find((p) => p.name === 'cursor')).toMatchObject({
      description: 'The opaque `cursor` of the previous page.',
    });
  });

  it('turns every key placeholder into a `key` path parameter, marking the ones that hold /', () => {
    const storage = ROUTES.find((r) => r.name === 'object' && r.entry === 'storage')!;
    expect(openApiPath(storage)).toBe('/api/storage/{key}');
    expect(openApiPath(ROUTES.find((r) => r.name === 'relics-file')!)).toBe('/api/v1/relics/{key}.json');
    const del = (op('/api/storage/{key}', 'delete').parameters as Json[])[0]!;
    expect(del).toMatchObject({ name: 'key', in: 'path', required: true, 'x-multi-segment': true, example: 'era1/models/oak-staff.glb' });
    const relic = (op('/v1/relics/{key}').parameters as Json[])[0]!;
    expect(relic).toMatchObject({ name: 'key', in: 'path', required: true, schema: { type: 'string', minLength: 1 } });
    expect(relic).not.toHaveProperty('x-multi-segment');
    expect(op('/api/inventory')).not.toHaveProperty('parameters');
  });
});

describe('answers and refusals', () => {
  it('lists the refusals that follow from access, parameters, key, body and If-Match, by status then code', () => {
    expect(errorCodes(spec('getIslandSpec'))).toEqual(['INVALID_QUERY', 'UPSTREAM_UNAVAILABLE']);
    expect(errorCodes(spec('getIslandSpec'))).toEqual(errorCodes(spec('getStats')));
    // codes of one status in name order, whatever order they were declared in
    expect(errorCodes({ ...spec('getItem'), query: {}, errors: ['INVALID_BODY', 'CONFLICT', 'BAD_REQUEST'] })).toEqual([
      'BAD_REQUEST',
      'INVALID_BODY',
      'INVALID_QUERY',
      'UNAUTHORIZED',
      'FORBIDDEN',
      'NOT_FOUND',
      'CONFLICT',
      'TOO_MANY_REQUESTS',
      'UPSTREAM_UNAVAILABLE',
    ]);
    expect(errorCodes(spec('getStats'))).toEqual(['INVALID_QUERY', 'UPSTREAM_UNAVAILABLE']);
    // a public read is never throttled; anything that takes credentials, or writes, may be (429)
    expect(errorCodes(spec('getInventory'))).toEqual([
      'INVALID_QUERY',
      'UNAUTHORIZED',
      'ACCOUNT_SUSPENDED',
      'NOT_FOUND',
      'TOO_MANY_REQUESTS',
      'UPSTREAM_UNAVAILABLE',
    ]);
    expect(errorCodes(spec('listObjects'))).toEqual([
      'INVALID_QUERY',
      'UNAUTHORIZED',
      'FORBIDDEN',
      'TOO_MANY_REQUESTS',
      'UPSTREAM_UNAVAILABLE',
    ]);
    expect(errorCodes(spec('externalLogin'))).toContain('TOO_MANY_REQUESTS');
    expect(errorCodes(spec('getItem'))).toEqual([
      'BAD_REQUEST',
      'INVALID_QUERY',
      'UNAUTHORIZED',
      'FORBIDDEN',
      'NOT_FOUND',
      'TOO_MANY_REQUESTS',
      'UPSTREAM_UNAVAILABLE',
    ]);
    expect(errorCodes(spec('listCharacters'))).toEqual([
      'INVALID_QUERY',
      'UNAUTHORIZED',
      'ACCOUNT_SUSPENDED',
      'NOT_FOUND',
      'TOO_MANY_REQUESTS',
      'UPSTREAM_UNAVAILABLE',
    ]);
    expect(errorCodes(spec('deleteObject'))).toEqual([
      'INVALID_QUERY',
      'UNAUTHORIZED',
      'FORBIDDEN',
      'NOT_FOUND',
      'TOO_MANY_REQUESTS',
      'UPSTREAM_UNAVAILABLE',
    ]);
    // a player or a game server: 403 for a field outside the caller's authority, or a suspended account's token
    expect(errorCodes(spec('patchIslandState'))).toEqual([
      'INVALID_BODY',
      'INVALID_QUERY',
      'UNAUTHORIZED',
      'ACCOUNT_SUSPENDED',
      'FORBIDDEN',
      'NOT_FOUND',
      'PRECONDITION_FAILED',
      'PAYLOAD_TOO_LARGE',
      'UNSUPPORTED_MEDIA_TYPE',
      'PRECONDITION_REQUIRED',
      'TOO_MANY_REQUESTS',
      'UPSTREAM_UNAVAILABLE',
    ]);
  });

  it('says what each status means', () => {
    const grant = op('/api/admin/grant-coin', 'post').responses as Record<string, { description: string }>;
    expect(Object.fromEntries(Object.entries(grant).map(([k, v]) => [k, v.description]))).toEqual({
      '200': 'The grant (or its replay).',
      '400': 'Bad request: `INVALID_BODY`.',
      '401': 'Missing or invalid credentials: `UNAUTHORIZED`.',
      '403': 'Valid credentials that may not do this (a role, a field outside its authority, a suspended account): `FORBIDDEN`.',
      '404': 'Not found: `NOT_FOUND`.',
      '409': 'Conflict with the current state: `CONFLICT`.',
      '413': 'Body too large: `PAYLOAD_TOO_LARGE`.',
      '415': 'Media type not taken: `UNSUPPORTED_MEDIA_TYPE`.',
      '422': 'Idempotency key reused with another request: `IDEMPOTENCY_KEY_REUSED`.',
      '429': 'Too many failed sign-ins or changes; wait `Retry-After` seconds: `TOO_MANY_REQUESTS`.',
      '503': 'Store or catalog data unavailable; nothing changed, retry: `UPSTREAM_UNAVAILABLE`.',
    });
    expect((grant['401'] as Json).headers).toEqual({
      'WWW-Authenticate': { description: 'The scheme and realm to authenticate with.', schema: { type: 'string' } },
    });
  });

  it('groups refusals by status as problem+json, with WWW-Authenticate on 401', () => {
    const r = op('/api/island/state', 'patch').responses as Record<string, Json>;
    expect(Object.keys(r)).toEqual(['200', '400', '401', '403', '404', '412', '413', '415', '428', '429', '503']);
    expect(r['429']).toMatchObject({ headers: { 'Retry-After': { schema: { type: 'integer' } } } });
    expect(r['404']).not.toHaveProperty('headers');
    expect(r['401']).toMatchObject({
      description: 'Missing or invalid credentials: `UNAUTHORIZED`.',
      headers: { 'WWW-Authenticate': { schema: { type: 'string' } } },
    });
    expect(r['412']!.description).toBe('The `If-Match` revision is stale: `PRECONDITION_FAILED`.');
    expect(r['428']!.description).toBe('`If-Match` is required: `PRECONDITION_REQUIRED`.');
    expect(r['503']).toEqual({
      description: 'Store or catalog data unavailable; nothing changed, retry: `UPSTREAM_UNAVAILABLE`.',
      content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } },
    });
    expect(r['404']).not.toHaveProperty('headers');
    const items = op('/api/ledger/{key}').responses as Record<string, Json>;
    expect(items['400']!.description).toBe('Bad request: `BAD_REQUEST`, `INVALID_QUERY`.');
    expect((op('/api/characters').responses as Record<string, Json>)['400']!.description).toBe('Bad request: `INVALID_QUERY`.');
    // every query parameter is parsed strictly: an enum compares without case
    expect((op('/api/characters').parameters as Json[])[0]).toMatchObject({ name: 'era', description: 'Compared without case.' });
    expect((op('/api/storage/{key}', 'delete').responses as Record<string, Json>)['400']!.description).toBe(
      'Bad request: `INVALID_QUERY`.',
    );
    expect(r['412']!.headers).toEqual({
      ETag: { description: 'The current revision: read the state again, then retry with it.', schema: { type: 'string' } },
    });
    const params = op('/api/island/state', 'patch').parameters as Json[];
    expect(params).toContainEqual({
      name: 'If-Match',
      in: 'header',
      required: true,
      description: 'The current `ETag` (not `*`).',
      schema: { type: 'string' },
    });
  });

  it('names the build behind every catalog answer: search, collections and registries', () => {
    for (const path of ['/v1/relics', '/api/v1/icons'])
      expect(Object.keys((op(path).responses as Record<string, Json>)['200']!.headers as Json), path).toContain('X-Build-Id');
    expect(OPENAPI_FILE).toBe('api/openapi.json');
  });

  it('marks cacheable answers with ETag and Cache-Control, If-None-Match and 304; the others with none of them', () => {
    const search = op('/api/search');
    const ok = (search.responses as Record<string, Json>)['200']!;
    expect(Object.keys(ok.headers as Json)).toEqual([
      'ETag',
      'Cache-Control',
      'CDN-Cache-Control',
      'X-Build-Id',
      'X-Limit-Requested',
      'X-Limit-Applied',
    ]);
    const h = ok.headers as Record<string, Json>;
    expect(h.ETag).toEqual({
      description: 'Changes when the answer changes (with the build and the query); send it as `If-None-Match` for a 304.',
      schema: { type: 'string' },
    });
    expect(h['Cache-Control']).toEqual({ description: '`public, max-age=300`.', schema: { type: 'string' } });
    expect(h['CDN-Cache-Control']).toEqual({ description: 'The same, for the edge.', schema: { type: 'string' } });
    expect(h['X-Build-Id']).toEqual({ description: 'The catalog build that answered.', schema: { type: 'string' } });
    // the island spec is cacheable but not catalog data: no build id
    expect(Object.keys((op('/api/island/spec').responses as Record<string, Json>)['200']!.headers as Json)).toEqual([
      'ETag',
      'Cache-Control',
      'CDN-Cache-Control',
    ]);
    expect((search.responses as Record<string, Json>)['304']).toEqual({
      description: 'Not modified: the `If-None-Match` ETag is current.',
    });
    expect(search.parameters as Json[]).toContainEqual({
      name: 'If-None-Match',
      in: 'header',
      required: false,
      description: 'An `ETag` of an earlier answer.',
      schema: { type: 'string' },
    });
    const overview = op('/api/wallet/overview');
    expect(overview.responses).not.toHaveProperty('304');
    expect(Object.keys((overview.responses as Record<string, Json>)['200']!.headers as Json)).toEqual([
      'X-Limit-Requested',
      'X-Limit-Applied',
    ]);
    expect((op('/api/island/state').responses as Record<string, Json>)['200']!.headers).toEqual({
      ETag: { description: '`"<revision>"`: send it as `If-Match` to change the island.', schema: { type: 'string' } },
    });
    expect((op('/api/v1/sprites/{key}').responses as Record<string, Json>)['200']).toMatchObject({
      content: { 'application/json': { schema: { $ref: '#/components/schemas/SpriteResponse' } } },
    });
  });

  it('offers CSV beside JSON for the export, and no body for a 204', () => {
    const exp = (op('/api/export').responses as Record<string, Json>)['200']!;
    expect(Object.keys(exp.content as Json)).toEqual(['application/json', 'text/csv']);
    expect((exp.content as Record<string, Json>)['text/csv']!.schema).toEqual({
      type: 'string',
      description: 'With `format=csv`: RFC 4180, a header row, sent as an attachment.',
    });
    expect((op('/api/storage/{key}', 'delete').responses as Record<string, Json>)['204']).toEqual({
      description: 'Deleted, or there was nothing to delete.',
    });
  });

  it('describes bodies: JSON with its example under each media type, multipart with its file field and the text fields by reference', () => {
    const patch = op('/api/island/state', 'patch').requestBody as { required: boolean; content: Record<string, Json> };
    expect(patch.required).toBe(true);
    expect(Object.keys(patch.content)).toEqual(['application/merge-patch+json', 'application/json']);
    expect(patch.content['application/json']).toEqual({
      schema: { $ref: '#/components/schemas/IslandStatePatchRequest' },
      example: spec('patchIslandState').body!.kind === 'json' ? (spec('patchIslandState').body as { example: unknown }).example : null,
    });
    const one = (op('/api/storage/upload', 'post').requestBody as { content: Record<string, { schema: Json }> }).content[
      'multipart/form-data'
    ]!.schema;
    expect(one).toMatchObject({
      type: 'object',
      required: ['file'],
      properties: {
        file: { type: 'string', contentMediaType: 'application/octet-stream' },
        folder: { $ref: '#/components/schemas/StorageUploadRequest/properties/folder' },
      },
    });
    const many = (op('/api/storage/upload-multi', 'post').requestBody as { content: Record<string, { schema: Json }> }).content[
      'multipart/form-data'
    ]!.schema;
    expect((many.properties as Record<string, Json>).files).toMatchObject({
      type: 'array',
      minItems: 1,
      maxItems: 50,
      items: { type: 'string' },
    });
    expect(many.description).toBe('The file part(s) in `files`; the text fields as `StorageUploadRequest`.');
    // the text fields a form requires are required beside the file
    const zip = (op('/api/storage/upload-zip', 'post').requestBody as { content: Record<string, { schema: Json }> }).content[
      'multipart/form-data'
    ]!.schema;
    expect(zip.required).toEqual(['file', 'folder']);
    expect((zip.properties as Record<string, Json>).file!.description).toBe(
      'A zip archive; each entry is stored under the folder at its own path inside the archive.',
    );
    expect(one.required).toEqual(['file']);
    expect((op('/api/storage/upload', 'post').requestBody as Json).required).toBe(true);
    expect(op('/api/search')).not.toHaveProperty('requestBody');
    expect(Object.keys((op('/api/admin/accounts', 'post').requestBody as { content: Json }).content)).toEqual(['application/json']);
  });

  it('sets security by access and notes it in the description', () => {
    expect(op('/api/search').security).toEqual([]);
    expect(op('/api/search')).not.toHaveProperty('description', expect.stringContaining('Admin'));
    expect(op('/api/inventory').description).toBe('Needs the caller’s token (not a guest).');
    expect(op('/api/inventory').security).toEqual([{ bearerAuth: [] }]);
    expect(op('/api/admin/accounts/{key}').security).toEqual([{ bearerAuth: [] }, { adminPassword: [] }]);
    expect(op('/api/admin/grant-coin', 'post').description).toBe(
      `${spec('grantCoin').description!}\n\nAdmin only: a token whose role is admin or master, or \`X-Admin-Password\`. A request with a token is judged by the token alone.`,
    );
    expect(op('/api/island/spec')).not.toHaveProperty('description');
    expect(op('/api/uuid', 'post').security).toEqual([{ bearerAuth: [] }, { adminPassword: [] }]);
    expect(op('/api/uuid', 'post').description).toContain(
      'Game servers: a token whose role is server, admin or master, or `X-Admin-Password`.',
    );
    expect(op('/api/admin/accounts/{key}').description).toBe(
      'Operators: a token whose role is support, admin or master, or `X-Admin-Password`. Support may look, never change.',
    );
    expect(op('/api/admin/accounts/{key}')).toMatchObject({ operationId: 'getAccount', tags: ['admin'], 'x-route': 'admin/account' });
    expect(doc().components.securitySchemes).toMatchObject({
      bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
      adminPassword: { type: 'apiKey', in: 'header', name: 'X-Admin-Password' },
    });
  });
});

describe('components and the rest', () => {
  it('makes each schema reached a component, $id and $schema dropped, every $ref pointed inside the document', () => {
    const s = doc().components.schemas;
    expect(s.Problem).toEqual({ type: 'object', properties: { code: { type: 'string' } } });
    expect(s.SpritesListResponse).toEqual({
      type: 'object',
      properties: {
        items: { type: 'array', items: { $ref: '#/components/schemas/SpriteResponse' } },
        self: { $ref: '#/components/schemas/SpritesListResponse/$defs/s' },
      },
      $defs: { s: { type: 'string' } },
    });
    // reached only through another schema's $ref, with a fragment
    expect(s.SpriteResponse).toEqual({
      type: 'object',
      properties: { icon: { $ref: '#/components/schemas/IconResponse/properties/url' } },
    });
    expect(s.IconResponse).toEqual({ type: 'object', title: 'responses/icon' });
    expect(Object.keys(s)).toEqual([...Object.keys(s)].sort());
    // $refs inside arrays, and values that are not objects, kept in place
    expect(s.IconsListResponse).toEqual({
      type: 'object',
      properties: { items: { anyOf: [{ $ref: '#/components/schemas/IconResponse' }, { enum: ['a', 1, null] }] } },
    });
    // schemas named only by a request body, or only by a static file, are components too
    expect(s).toHaveProperty('CreateAccountRequest');
    expect(s).toHaveProperty('BuildReportFile');
    // a schema no operation names, reached only through another's $ref, is a component, in name order
    expect(s.SearchResponse).toEqual({ type: 'object', properties: { index: { $ref: '#/components/schemas/TermIndexFile' } } });
    expect(s.TermIndexFile).toEqual({ type: 'object', title: 'output/term-index' });
    expect(Object.keys(s).indexOf('TermIndexFile')).toBeLessThan(Object.keys(s).indexOf('VerifySendToAccountRequest'));
  });

  it('resolves the $refs of a schema without $id against the place of its file', () => {
    const noId = (name: string): Json =>
      name === 'responses/search' ? { type: 'object', properties: { hit: { $ref: 'icon.schema.json' } } } : { type: 'object' };
    const d = openApiDocument({ version: '1', schema: noId }) as { components: { schemas: Record<string, Json> } };
    expect(d.components.schemas.SearchResponse).toEqual({
      type: 'object',
      properties: { hit: { $ref: '#/components/schemas/IconResponse' } },
    });
    expect(d.components.schemas.IconResponse).toEqual({ type: 'object' });
  });

  it('refuses a $ref that leaves the schema folder', () => {
    const bad = (name: string): Json =>
      name === 'responses/search'
        ? { $id: `${SCHEMA_ID_BASE}responses/search.schema.json`, $ref: 'https://elsewhere.test/x.json' }
        : { type: 'object' };
    expect(() => openApiDocument({ version: '1', schema: bad })).toThrow(
      '$ref https://elsewhere.test/x.json leaves https://schemas.game-data.dev/',
    );
    const notSchema = (name: string): Json =>
      name === 'responses/search' ? { $id: `${SCHEMA_ID_BASE}responses/search.schema.json`, $ref: 'search.json' } : { type: 'object' };
    expect(() => openApiDocument({ version: '1', schema: notSchema })).toThrow('leaves');
  });

  it('describes the static files, the generic one with a multi-segment path', () => {
    for (const f of STATIC_FILES) expect(op(f.path)).toMatchObject({ operationId: f.operationId, tags: ['static files'], security: [] });
    expect((op('/api/v1/changes.json').responses as Record<string, Json>)['200']).toEqual({
      description: 'The file.',
      content: { 'application/json': { schema: { $ref: '#/components/schemas/ChangesFile' } } },
    });
    expect(op('/api/v1/changes.json').description).toBe('Sync protocol: `api/_lib/formats/changes.ts`.');
    expect(op('/api/v1/versions.json')).not.toHaveProperty('description');
    const any = op('/api/v1/{file}');
    expect((any.responses as Record<string, Json>)['200']).toEqual({
      description: 'The file.',
      content: { 'application/json': { schema: {} } },
    });
    expect(any.parameters).toEqual([
      {
        name: 'file',
        in: 'path',
        required: true,
        description: STATIC_FILES.find((f) => f.path === '/api/v1/{file}')!.file,
        schema: { type: 'string', minLength: 1 },
        example: 'master-items.json',
        'x-multi-segment': true,
      },
    ]);
    expect((any.responses as Record<string, Json>)['304']).toEqual({ description: 'Not modified.' });
    expect((any.responses as Record<string, Json>)['404']).toEqual({
      description: 'No such file: `NOT_FOUND`.',
      content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } },
    });
    expect(op('/api/v1/build-report.json')).not.toHaveProperty('parameters');
    expect(Object.keys(op('/api/v1/build-report.json').responses as Json)).toEqual(['200', '304', '404']);
  });

  it('pairs each route method with one operation, and names every mismatch at once', () => {
    const route = ROUTES.find((r) => r.name === 'stats' && r.entry === 'catalog')!;
    const stats = spec('getStats');
    expect(pairOperations([route], [stats], [])).toEqual([{ route, op: stats }]);
    const gone = ROUTES.find((r) => r.gone)!;
    expect(pairOperations([gone, route], [stats], [])).toHaveLength(1);
    const stray = { ...spec('search'), operationId: 'getStats' };
    expect(() =>
      pairOperations(
        [route, { ...route, methods: ['GET', 'POST'] }],
        [stats, stray],
        [{ path: '/x', operationId: 'getStats', summary: 's' }],
      ),
    ).toThrow(
      'The operation table does not match the route table:\n' +
        'POST /api/stats (catalog/stats) has no operation\n' +
        'operation getStats names no route method (catalog/search GET)\n' +
        'operationId getStats is used twice',
    );
  });

  it('has the info, server, tags and dialect a reader needs', () => {
    expect((doc() as unknown as Json).openapi).toBe('3.1.0');
    expect((doc() as unknown as Json).jsonSchemaDialect).toBe('https://json-schema.org/draft/2020-12/schema');
    expect(doc().info).toMatchObject({
      title: 'Game-data service',
      version: '9.9.9',
      summary: 'Game-data catalog, asset registries, and the account ledger and player state.',
    });
    expect(doc().info.description).toContain(
      'keep the stateful half (ledger, accounts, storage, player state). Every refusal is RFC 9457 ',
    );
    expect(doc().info.description).toMatch(
      /^The catalog is static JSON under `\/api\/v1\/`.*problem\+json with a stable `code`\. The JSON Schemas referenced here are also published under `\/schemas\/`\.$/,
    );
    expect(doc().components.securitySchemes).toMatchObject({
      bearerAuth: { description: 'A token of our issuer (§5.2): `npm run token` mints one for development.' },
      adminPassword: { description: '`ADMIN_PASSWORD` (off when unset); admin and game-server routes only.' },
    });
    expect(doc().servers).toEqual([{ url: '/', description: 'This deployment' }]);
    expect(doc().tags.map((t) => t.name)).toEqual([
      'catalog',
      'static files',
      'collections',
      'registries',
      'wallet',
      'admin',
      'storage',
      'player',
      'identity',
      'items',
    ]);
    // several methods of one path share it
    expect(Object.keys(doc().paths['/api/island/state']!)).toEqual(['get', 'patch']);
  });
});
