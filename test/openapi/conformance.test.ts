/**
 * The published OpenAPI document is a contract every answer keeps (docs/architecture.md, "API
 * description"): requests generated from the document itself, valid and invalid (fast-check over each
 * operation's parameters, credentials, `If-Match` and body schema, with hostile strings mixed in), sent
 * through the local server's production routing over the sample catalog, and every answer checked against
 * the document: a listed status, a declared media type, a body of the listed schema, a problem of the
 * Problem schema with a listed code (`test/helpers/openapi.ts`). Beside it, the rules the document states
 * for every operation at once: a body type it does not list is 415, a repeated parameter is 400, and a
 * request sent twice with the same idempotency key answers the same.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { componentName, openApiPath, operationAccess, pairOperations, paramSchema } from '../../build/openapi/document.js';
import type { OperationSpec } from '../../build/openapi/operations.js';
import type { RouteDef } from '../../api/_lib/routing/table.js';
import { loadServiceConfig, useServiceConfig } from '../../api/_lib/config.js';
import { mintToken } from '../../api/_lib/auth/tokens.js';
import { createLocalHandler } from '../../dev/server.js';
import { THROTTLE_UNLIMITED } from '../helpers/backends.js';
import { SAMPLE_OUT } from '../helpers/catalog.js';
import { expectDocumented, openApiOracle, type OpenApiOracle } from '../helpers/openapi.js';
import { arbitraryOf, hostileString, invalidVariants } from '../helpers/schema-arbitrary.js';

const ADMIN_PASSWORD = 'conformance-Hq7vT2mX9kLp4RzW';
const CRON_SECRET = 'conformance-cron-Vb3nK8qZ2xLw5R';
/** Runs per operation of the generated requests (valid and invalid mixed). */
const RUNS = Number(process.env.CONFORMANCE_RUNS ?? 30);

let oracle: OpenApiOracle;
let dataDir: string;
let handle: (r: Request) => Promise<Response>;
let studioId: string;
const auth: Record<'player' | 'server' | 'leaver', string> = { player: '', server: '', leaver: '' };

beforeAll(async () => {
  oracle = await openApiOracle();
  dataDir = await mkdtemp(join(tmpdir(), 'conformance-'));
  const env = { ...THROTTLE_UNLIMITED, DATA_DIR: dataDir, JWT_SECRET: 'conformance-secret-Kd8wQ3nV6yHt1ZmB', ADMIN_PASSWORD, CRON_SECRET };
  handle = await createLocalHandler({ out: SAMPLE_OUT, env });
  const config = loadServiceConfig({ ...env, CATALOG_DIR: SAMPLE_OUT });
  const made = await handle(
    new Request('http://t/api/admin/accounts', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'X-Admin-Password': ADMIN_PASSWORD },
      body: JSON.stringify({ displayName: 'Conformance' }),
    }),
  );
  studioId = ((await made.json()) as { account: { studioId: string } }).account.studioId;
  auth.player = `Bearer ${await mintToken(config.jwt, { subject: studioId, role: 'player' })}`;
  auth.server = `Bearer ${await mintToken(config.jwt, { subject: 'STUDIO_CONFORMANCE_SERVER', role: 'server' })}`;
  // a logout revokes its account's tokens: it is sent with an account of its own
  const leaver = await handle(
    new Request('http://t/api/admin/accounts', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'X-Admin-Password': ADMIN_PASSWORD },
      body: JSON.stringify({ displayName: 'Leaver' }),
    }),
  );
  const leaverId = ((await leaver.json()) as { account: { studioId: string } }).account.studioId;
  auth.leaver = `Bearer ${await mintToken(config.jwt, { subject: leaverId, role: 'player' })}`;
}, 60_000);

afterAll(async () => {
  useServiceConfig(undefined);
  await rm(dataDir, { recursive: true, force: true });
});

/** A request to build: everything generated, kept as data so a failure prints it. */
interface Sent {
  readonly key?: string;
  readonly query: readonly [string, string][];
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: string;
}

/**
 * `text` percent-encoded as a client would put it in a path: UTF-8, and a lone surrogate as the bytes of
 * its WTF-8 form (`%ED%A0%80`), which no UTF-8 decoder takes.
 */
function percentEncoded(text: string): string {
  let out = '';
  for (const ch of text) {
    const code = ch.codePointAt(0)!;
    if (code >= 0xd800 && code <= 0xdfff)
      out += [0xe0 | (code >> 12), 0x80 | ((code >> 6) & 0x3f), 0x80 | (code & 0x3f)]
        .map((b) => `%${b.toString(16).toUpperCase()}`)
        .join('');
    else out += encodeURIComponent(ch);
  }
  return out;
}

function requestOf(route: RouteDef, op: OperationSpec, sent: Sent): Request {
  const key = percentEncoded(sent.key ?? op.keyExample ?? 'x');
  const path = openApiPath(route).replace('{key}', route.path.includes('{key+}') ? key.replace(/%2F/g, '/') : key);
  const query = new URLSearchParams(sent.query as [string, string][]).toString();
  return new Request(`http://t${path}${query ? `?${query}` : ''}`, {
    method: op.method,
    headers: sent.headers,
    ...(sent.body !== undefined ? { body: sent.body } : {}),
  });
}

/** The credentials an operation needs (a game server acting for the test account where both may call). */
function credentialsFor(op: OperationSpec): Record<string, string> {
  switch (operationAccess(op)) {
    case 'public':
      return {};
    case 'player':
      return { Authorization: op.operationId === 'logout' ? auth.leaver : auth.player };
    case 'player-or-game-server':
      return { Authorization: auth.player };
    case 'game-server':
      return { Authorization: auth.server };
    case 'cron':
      return { Authorization: `Bearer ${CRON_SECRET}` };
    default:
      return { 'X-Admin-Password': ADMIN_PASSWORD };
  }
}

/** The example body of a JSON operation, bound to the test account, with a fresh idempotency key. */
function exampleBody(op: OperationSpec, n: number): unknown {
  if (op.body?.kind !== 'json') return undefined;
  const text = JSON.stringify(op.body.example).replaceAll('STUDIO_7Q2M4K9XB3D8F1ZA', studioId);
  const body = JSON.parse(text) as Record<string, unknown>;
  if (typeof body.idempotencyKey === 'string') body.idempotencyKey = `conformance-${op.operationId}-${n}`;
  return body;
}

/** Arbitrary requests of `op`: mostly well-formed (from its example or its schemas), some hostile. */
function sentOf(route: RouteDef, op: OperationSpec): fc.Arbitrary<Sent> {
  const query = fc
    .tuple(
      ...Object.entries(op.query ?? {}).map(([name, spec]) =>
        fc.oneof(
          { weight: 3, arbitrary: fc.constant(op.queryExample?.[name] === undefined ? [] : [[name, op.queryExample[name]]]) },
          { weight: 2, arbitrary: arbitraryOf(paramSchema(spec), oracle.resolve).map((v) => [[name, String(v)]]) },
          { weight: 1, arbitrary: hostileString().map((v) => [[name, v]]) },
          { weight: 1, arbitrary: fc.constant([]) },
        ),
      ),
    )
    .chain((parts) =>
      fc.oneof(
        { weight: 6, arbitrary: fc.constant(parts.flat() as [string, string][]) },
        { weight: 1, arbitrary: hostileString().map((name) => [...(parts.flat() as [string, string][]), [name || 'x', '1']]) },
      ),
    );
  const headers = fc.oneof(
    { weight: 8, arbitrary: fc.constant(credentialsFor(op)) },
    { weight: 1, arbitrary: fc.constant({}) },
    { weight: 1, arbitrary: hostileString().map((t) => ({ Authorization: `Bearer ${t.replace(/[^\x21-\x7e]/g, '')}x` })) },
  );
  // a URL cannot carry a `.` or `..` segment (RFC 3986 §5.2.4), and the document says no key is one
  const segments = (key: string) => (route.path.includes('{key+}') ? key.split('/') : [key]);
  const sendable = (key: string) => !segments(key).some((s) => s === '.' || s === '..');
  const key = op.key
    ? fc.oneof({ weight: 3, arbitrary: fc.constant(undefined) }, fc.uuid(), hostileString().filter(sendable))
    : fc.constant(undefined);
  const ifMatch = op.ifMatch
    ? fc.constantFrom<Record<string, string>>({ 'If-Match': '"0"' }, { 'If-Match': '"1"' }, { 'If-Match': '*' }, {})
    : fc.constant({});
  let body: fc.Arbitrary<{ body?: string; type?: string }> = fc.constant({});
  if (op.body?.kind === 'json') {
    const bodySpec = op.body;
    const schema = { $ref: `#/components/schemas/${componentName(bodySpec.schema)}` };
    const valid = oracle.component(componentName(bodySpec.schema));
    const generated = arbitraryOf(schema, oracle.resolve).filter((v) => valid(v));
    const types = bodySpec.mediaTypes ?? ['application/json'];
    body = fc
      .tuple(
        fc.oneof(
          { weight: 3, arbitrary: fc.nat().map((n) => exampleBody(op, n)) },
          { weight: 2, arbitrary: generated },
          { weight: 2, arbitrary: fc.nat().chain((n) => invalidVariants(exampleBody(op, n), schema, oracle.resolve)) },
        ),
        fc.constantFrom(...types),
      )
      .map(([value, type]) => ({ body: JSON.stringify(value), type }));
  }
  return fc.record({ query, headers, key, ifMatch, body }).map(({ query, headers, key, ifMatch, body }) => ({
    ...(key !== undefined ? { key } : {}),
    query: query as [string, string][],
    headers: { ...headers, ...ifMatch, ...(body.type ? { 'Content-Type': body.type } : {}) },
    ...(body.body !== undefined ? { body: body.body } : {}),
  }));
}

/** Statuses a generated request may answer beside the document's promise that nothing a client sends is a 5xx. */
const SERVER_FAULTS_ALLOWED: Readonly<Record<string, readonly number[]>> = {
  // external login is off on this deployment: the document lists its 503
  externalLogin: [503],
  linkExternalIdentity: [503],
};

describe('generated requests answer what the document says', () => {
  for (const { route, op } of pairOperations()) {
    // multipart bodies are generated by the storage suites; their refusals are checked here
    it(`${op.method} ${openApiPath(route)} (${op.operationId})`, async () => {
      await fc.assert(
        fc.asyncProperty(sentOf(route, op), async (sent) => {
          const res = await handle(requestOf(route, op, sent));
          if (res.status >= 500)
            expect(SERVER_FAULTS_ALLOWED[op.operationId] ?? [], `${res.status} for ${JSON.stringify(sent)}`).toContain(res.status);
          await expectDocumented(oracle, op, res, JSON.stringify(sent).slice(0, 300));
        }),
        { numRuns: RUNS },
      );
    });
  }
});

describe('rules every operation keeps', () => {
  it('takes only the body types it lists: any other is 415', async () => {
    let checked = 0;
    for (const { route, op } of pairOperations()) {
      if (op.body?.kind !== 'json') continue;
      const listed = op.body.mediaTypes ?? ['application/json'];
      for (const type of [
        'text/plain',
        'application/x-www-form-urlencoded',
        'application/merge-patch+json',
        'application/vnd.api+json',
        'multipart/form-data; boundary=x',
      ]) {
        if (listed.includes(type)) continue;
        const res = await handle(
          requestOf(route, op, {
            query: Object.entries(op.queryExample ?? {}),
            headers: { ...credentialsFor(op), 'Content-Type': type, ...(op.ifMatch ? { 'If-Match': '"0"' } : {}) },
            body: JSON.stringify(exampleBody(op, 0)),
          }),
        );
        expect(res.status, `${op.operationId} as ${type}`).toBe(415);
        await expectDocumented(oracle, op, res, type);
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(40);
  });

  it('refuses a parameter given twice, wherever it is taken', async () => {
    let checked = 0;
    for (const { route, op } of pairOperations()) {
      for (const name of Object.keys(op.query ?? {})) {
        // a `-file` route shares its path with a static file, which the CDN serves whatever the query
        if (op.route.endsWith('-file')) continue;
        const value = op.queryExample?.[name] ?? '1';
        const res = await handle(
          requestOf(route, op, {
            query: [
              [name, value],
              [name, value],
            ],
            headers: {
              ...credentialsFor(op),
              ...(op.ifMatch ? { 'If-Match': '"0"' } : {}),
              ...(op.body ? { 'Content-Type': 'application/json' } : {}),
            },
            ...(op.body ? { body: JSON.stringify(exampleBody(op, 0)) } : {}),
          }),
        );
        expect([res.status, op.operationId, name]).toEqual([400, op.operationId, name]);
        expect(((await res.clone().json()) as { code: string }).code).toBe('INVALID_QUERY');
        await expectDocumented(oracle, op, res, `${name} twice`);
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(30);
  });

  it('answers a request sent again with the same idempotency key as it answered it the first time', async () => {
    const idempotent = pairOperations().filter(
      ({ op }) => op.body?.kind === 'json' && JSON.stringify(op.body.example).includes('idempotencyKey'),
    );
    expect(idempotent.length).toBeGreaterThan(8);
    for (const { route, op } of idempotent) {
      await fc.assert(
        fc.asyncProperty(
          fc.nat(),
          fc.boolean().chain((server) => fc.constant(server)),
          async (n, asServer) => {
            const headers = {
              ...(asServer && operationAccess(op) === 'player-or-game-server' ? { Authorization: auth.server } : credentialsFor(op)),
              'Content-Type': 'application/json',
              ...(op.ifMatch ? { 'If-Match': '"1"' } : {}),
            };
            const sent = { query: Object.entries(op.queryExample ?? {}), headers, body: JSON.stringify(exampleBody(op, n + 1000)) };
            const first = await handle(requestOf(route, op, sent));
            const again = await handle(requestOf(route, op, sent));
            // the same answer, but for the request's own id and the flag that says it is a replay (spec 4.8)
            const strip = async (r: Response) => {
              const body = (await r.json()) as Record<string, unknown>;
              delete body.requestId;
              delete body.idempotent;
              return body;
            };
            // a creation's replay answers 200 where the operation documents it (spec 4.8); everything else the first status
            const documented = op.success.map((s) => s.status);
            const replayStatus = first.status === 201 && documented.includes(200) ? 200 : first.status;
            expect([again.status, await strip(again)], `${op.operationId}`).toEqual([replayStatus, await strip(first)]);
            if (first.status < 300) expect(again.headers.get('idempotent-replayed'), op.operationId).toBe('true');
          },
        ),
        { numRuns: 5 },
      );
    }
  });
});
