// The local server (dev/server.ts) over raw TCP: every malformed request gets a complete response with a
// problem+json body and CORS headers (or a documented non-error answer), never an empty body, a bare close
// or an echo of what was sent; keep-alive connections keep working after a 4xx.
import { connect, type Socket } from 'node:net';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALLOWED_METHODS, clientErrorResponse, isValidHost, startServer, type RunningServer } from '../../dev/server.js';
import { useCatalog } from '../helpers/service.js';

let out: string;
let server: RunningServer;
const sockets = new Set<Socket>();

/** Marker put in the bytes of malformed requests; no response body may contain it. */
const MARK = 'zq7secret';
const FILE_TEXT = 'hello';

beforeAll(async () => {
  out = await mkdtemp(join(tmpdir(), 'serve-malformed-'));
  await writeFile(join(out, 'index.html'), '<!doctype html><title>Catalog</title>');
  await writeFile(join(out, 'a.txt'), FILE_TEXT);
  server = await startServer({ out, port: 0 });
});

afterAll(async () => {
  for (const socket of sockets) socket.destroy();
  await server?.close();
  useCatalog(undefined);
  await rm(out, { recursive: true, force: true });
});

interface RawResponse {
  readonly status: number;
  /** Header names in lower case. */
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

/** Split complete responses off the front of `data`; `rest` is what is left (an incomplete response). */
function parseResponses(data: Buffer, heads: readonly string[]): { responses: RawResponse[]; rest: Buffer } {
  const responses: RawResponse[] = [];
  let rest = data;
  for (;;) {
    const end = rest.indexOf('\r\n\r\n');
    if (end < 0) break;
    const [statusLine = '', ...lines] = rest.subarray(0, end).toString('latin1').split('\r\n');
    const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1]);
    const headers: Record<string, string> = {};
    for (const line of lines) {
      const colon = line.indexOf(':');
      headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
    }
    const bodyless = status < 200 || status === 204 || status === 304 || heads[responses.filter((r) => r.status >= 200).length] === 'HEAD';
    const length = bodyless ? 0 : Number(headers['content-length'] ?? NaN);
    if (Number.isNaN(length)) throw new Error(`response without Content-Length: ${statusLine}`);
    if (rest.length < end + 4 + length) break;
    responses.push({ status, headers, body: rest.subarray(end + 4, end + 4 + length).toString('utf8') });
    rest = rest.subarray(end + 4 + length);
  }
  return { responses, rest };
}

/**
 * Open a raw connection, write `bytes`, and read until `count` final responses (1xx interim answers are
 * returned too) have arrived. Resolves with the responses and whether the server closed the connection.
 */
function exchange(
  bytes: string | Buffer,
  count = 1,
  methods: readonly string[] = [],
): Promise<{ responses: RawResponse[]; closed: boolean }> {
  return new Promise((resolve, reject) => {
    const socket = connect(server.port, '127.0.0.1');
    sockets.add(socket);
    let data = Buffer.alloc(0);
    let responses: RawResponse[] = [];
    let settled = false;
    const finish = (closed: boolean): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      sockets.delete(socket);
      resolve({ responses, closed });
    };
    const timer = setTimeout(() => {
      settled = true;
      socket.destroy();
      reject(new Error(`no complete answer; got ${JSON.stringify(data.toString('latin1').slice(0, 200))}`));
    }, 5000);
    socket.on('data', (chunk: Buffer) => {
      data = Buffer.concat([data, chunk]);
      const parsed = parseResponses(data, methods);
      responses = parsed.responses;
      if (responses.filter((r) => r.status >= 200).length >= count) {
        // Give a closing server the chance to be seen closing (it ends right after the last byte).
        if (responses.at(-1)?.headers.connection === 'close') socket.once('end', () => finish(true));
        else finish(false);
      }
    });
    socket.on('end', () => finish(true));
    socket.on('error', () => finish(true));
    socket.write(bytes);
  });
}

/** The one final response to `bytes`. */
async function answer(bytes: string | Buffer): Promise<RawResponse> {
  const { responses } = await exchange(bytes);
  const finals = responses.filter((r) => r.status >= 200);
  expect(finals).toHaveLength(1);
  return finals[0]!;
}

function expectProblem(res: RawResponse, status: number, code: string, sent: string | Buffer): void {
  expect(res.status).toBe(status);
  expect(res.headers['content-type']).toBe('application/problem+json');
  expect(res.headers['access-control-allow-origin']).toBe('*');
  expect(res.headers['cache-control']).toBe('no-store');
  const problem = JSON.parse(res.body) as { code: string; status: number; title: string; detail: string };
  expect(problem.code).toBe(code);
  expect(problem.status).toBe(status);
  expect(problem.detail.length).toBeGreaterThan(0);
  // Everything but the fixed `type` URI (whose host ends in `.dev/`) must name nothing sent and nothing internal.
  const text = JSON.stringify({ ...problem, type: undefined });
  expect(text).not.toContain(MARK);
  expect(text).not.toContain(typeof sent === 'string' ? sent.split('\r\n')[0] : sent.subarray(0, 40).toString('latin1').split('\r\n')[0]);
  for (const leak of ['dev/', '.ts', 'vercel.json', out, 'node_modules', 'Parse Error', 'HPE_']) expect(text).not.toContain(leak);
}

const HOST = 'Host: localhost\r\n';

describe("requests Node's HTTP parser refuses", () => {
  const cases: ReadonlyArray<{ name: string; bytes: string | Buffer; status: number; code: string }> = [
    { name: 'a bad method token', bytes: `G@T /${MARK} HTTP/1.1\r\n${HOST}\r\n`, status: 400, code: 'BAD_REQUEST' },
    { name: 'a method the parser does not know', bytes: `BREW /${MARK} HTTP/1.1\r\n${HOST}\r\n`, status: 400, code: 'BAD_REQUEST' },
    {
      name: 'a non-numeric Content-Length',
      bytes: `POST /a.txt HTTP/1.1\r\n${HOST}Content-Length: ${MARK}\r\n\r\n`,
      status: 400,
      code: 'BAD_REQUEST',
    },
    {
      name: 'two different Content-Length values',
      bytes: `POST /a.txt HTTP/1.1\r\n${HOST}Content-Length: 3\r\nContent-Length: 9\r\n\r\n${MARK}`,
      status: 400,
      code: 'BAD_REQUEST',
    },
    {
      name: 'Content-Length with Transfer-Encoding',
      bytes: `POST /a.txt HTTP/1.1\r\n${HOST}Content-Length: 9\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n`,
      status: 400,
      code: 'BAD_REQUEST',
    },
    {
      name: 'a bad chunk size to a static file',
      bytes: `POST /a.txt HTTP/1.1\r\n${HOST}Transfer-Encoding: chunked\r\n\r\nzz\r\n${MARK}\r\n0\r\n\r\n`,
      status: 400,
      code: 'BAD_REQUEST',
    },
    {
      name: 'a bad chunk size to a function',
      bytes: `POST /api/search HTTP/1.1\r\n${HOST}Transfer-Encoding: chunked\r\n\r\nzz\r\n${MARK}\r\n0\r\n\r\n`,
      status: 400,
      code: 'BAD_REQUEST',
    },
    {
      name: 'a control character in a header value',
      bytes: `GET / HTTP/1.1\r\n${HOST}X-Note: ${MARK}\x01${MARK}\r\n\r\n`,
      status: 400,
      code: 'BAD_REQUEST',
    },
    { name: 'a folded header line', bytes: `GET / HTTP/1.1\r\n${HOST}X-Note: a\r\n ${MARK}\r\n\r\n`, status: 400, code: 'BAD_REQUEST' },
    { name: 'a request line that is not HTTP', bytes: `hello ${MARK}\r\n\r\n`, status: 400, code: 'BAD_REQUEST' },
    { name: 'another protocol in the request line', bytes: `GET /${MARK} FTP/1.0\r\n${HOST}\r\n`, status: 400, code: 'BAD_REQUEST' },
    { name: 'a space inside the target', bytes: `GET /${MARK} x HTTP/1.1\r\n${HOST}\r\n`, status: 400, code: 'BAD_REQUEST' },
    { name: 'an authority-form target outside CONNECT', bytes: `GET ${MARK}:80 HTTP/1.1\r\n${HOST}\r\n`, status: 400, code: 'BAD_REQUEST' },
    { name: 'an HTTP/2 preface', bytes: 'PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n', status: 400, code: 'BAD_REQUEST' },
    {
      name: 'headers over the size limit',
      bytes: `GET / HTTP/1.1\r\n${HOST}X-Big: ${MARK}${'a'.repeat(20_000)}\r\n\r\n`,
      status: 431,
      code: 'HEADERS_TOO_LARGE',
    },
  ];

  it.each(cases)('$name → $status $code, then the connection closes', async ({ bytes, status, code }) => {
    const { responses, closed } = await exchange(bytes);
    expect(responses).toHaveLength(1);
    expectProblem(responses[0]!, status, code, bytes);
    expect(responses[0]!.headers.connection).toBe('close');
    expect(responses[0]!.headers['content-length']).toBe(String(Buffer.byteLength(responses[0]!.body)));
    expect(closed).toBe(true);
  });
});

describe('requests the server refuses itself', () => {
  const cases: ReadonlyArray<{ name: string; bytes: string; status: number; code: string; allow?: string }> = [
    { name: 'no Host header', bytes: `GET /${MARK} HTTP/1.1\r\n\r\n`, status: 400, code: 'BAD_REQUEST' },
    { name: 'an empty Host header', bytes: `GET /${MARK} HTTP/1.1\r\nHost:\r\n\r\n`, status: 400, code: 'BAD_REQUEST' },
    { name: 'a Host that is not host[:port]', bytes: `GET / HTTP/1.1\r\nHost: ${MARK} x/../y\r\n\r\n`, status: 400, code: 'BAD_REQUEST' },
    { name: 'a Host with a bad port', bytes: `GET / HTTP/1.1\r\nHost: ${MARK}:99999\r\n\r\n`, status: 400, code: 'BAD_REQUEST' },
    { name: 'a Host with user info', bytes: `GET / HTTP/1.1\r\nHost: ${MARK}@localhost\r\n\r\n`, status: 400, code: 'BAD_REQUEST' },
    { name: 'two Host headers', bytes: `GET / HTTP/1.1\r\n${HOST}Host: ${MARK}\r\n\r\n`, status: 400, code: 'BAD_REQUEST' },
    { name: 'a backslash in the path', bytes: `GET /${MARK}\\..\\a.txt HTTP/1.1\r\n${HOST}\r\n`, status: 400, code: 'BAD_REQUEST' },
    { name: 'an asterisk target outside OPTIONS', bytes: `GET * HTTP/1.1\r\n${HOST}\r\n`, status: 400, code: 'BAD_REQUEST' },
    {
      name: 'an absolute target of another scheme',
      bytes: `GET ftp://${MARK}/a.txt HTTP/1.1\r\n${HOST}\r\n`,
      status: 400,
      code: 'BAD_REQUEST',
    },
    {
      name: 'an Expect other than 100-continue',
      bytes: `GET /a.txt HTTP/1.1\r\n${HOST}Expect: ${MARK}\r\n\r\n`,
      status: 417,
      code: 'EXPECTATION_FAILED',
    },
    {
      name: 'CONNECT',
      bytes: `CONNECT ${MARK}.example:443 HTTP/1.1\r\nHost: ${MARK}.example:443\r\n\r\n`,
      status: 405,
      code: 'METHOD_NOT_ALLOWED',
      allow: ALLOWED_METHODS,
    },
    {
      name: 'TRACE',
      bytes: `TRACE /a.txt HTTP/1.1\r\n${HOST}X-Note: ${MARK}\r\n\r\n`,
      status: 405,
      code: 'METHOD_NOT_ALLOWED',
      allow: ALLOWED_METHODS,
    },
    {
      name: 'PROPFIND',
      bytes: `PROPFIND /api/search HTTP/1.1\r\n${HOST}\r\n`,
      status: 405,
      code: 'METHOD_NOT_ALLOWED',
      allow: ALLOWED_METHODS,
    },
    {
      name: 'an unknown method on a missing path',
      bytes: `MKCOL /${MARK}/ HTTP/1.1\r\n${HOST}\r\n`,
      status: 405,
      code: 'METHOD_NOT_ALLOWED',
      allow: ALLOWED_METHODS,
    },
  ];

  it.each(cases)('$name → $status $code', async ({ bytes, status, code, allow }) => {
    const res = await answer(bytes);
    expectProblem(res, status, code, bytes);
    if (allow) expect(res.headers.allow).toBe(allow);
  });
});

describe('requests that are unusual but valid', () => {
  it('OPTIONS * → 204 with Allow and CORS', async () => {
    const res = await answer(`OPTIONS * HTTP/1.1\r\n${HOST}\r\n`);
    expect(res.status).toBe(204);
    expect(res.headers.allow).toBe('GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS');
    expect(res.headers['access-control-allow-origin']).toBe('*');
    expect(res.body).toBe('');
  });

  it('an absolute-form target is served from this server, never fetched', async () => {
    const res = await answer(`GET http://${MARK}.invalid:1/a.txt HTTP/1.1\r\n${HOST}\r\n`);
    expect(res.status).toBe(200);
    expect(res.body).toBe(FILE_TEXT);
    const missing = await answer(`GET http://127.0.0.1:1/nothing HTTP/1.1\r\n${HOST}\r\n`);
    expect(missing.status).toBe(404);
    expect(JSON.parse(missing.body)).toMatchObject({ code: 'NOT_FOUND', instance: '/nothing' });
  });

  it('Expect: 100-continue gets 100 Continue, then the answer', async () => {
    const { responses } = await exchange(`POST /a.txt HTTP/1.1\r\n${HOST}Expect: 100-continue\r\nContent-Length: 5\r\n\r\n12345`);
    expect(responses.map((r) => r.status)).toEqual([100, 405]);
    expectProblem(responses[1]!, 405, 'METHOD_NOT_ALLOWED', '12345');
  });

  it('a request refused before 100 Continue gets the problem without 100, and the connection closes', async () => {
    const bytes = `PROPFIND /a.txt HTTP/1.1\r\n${HOST}Expect: 100-continue\r\nContent-Length: 9\r\n\r\n`;
    const { responses, closed } = await exchange(bytes);
    expect(responses.map((r) => r.status)).toEqual([405]);
    expectProblem(responses[0]!, 405, 'METHOD_NOT_ALLOWED', bytes);
    expect(responses[0]!.headers.connection).toBe('close');
    expect(closed).toBe(true);
  });

  it('a HEAD refused before routing gets the problem headers without a body', async () => {
    const { responses } = await exchange(`HEAD /a.txt HTTP/1.1\r\nHost: a b\r\n\r\n${'GET /a.txt HTTP/1.1\r\n' + HOST}\r\n`, 2, [
      'HEAD',
      'GET',
    ]);
    expect(responses.map((r) => r.status)).toEqual([400, 200]);
    expect(responses[0]!.headers['content-type']).toBe('application/problem+json');
    expect(responses[0]!.body).toBe('');
    expect(responses[1]!.body).toBe(FILE_TEXT);
  });

  it('HTTP/1.0 without Host is served', async () => {
    const res = await answer('GET /a.txt HTTP/1.0\r\n\r\n');
    expect(res.status).toBe(200);
    expect(res.body).toBe(FILE_TEXT);
  });
});

describe('keep-alive after a 4xx', () => {
  const next = `GET /a.txt HTTP/1.1\r\n${HOST}\r\n`;
  const cases: ReadonlyArray<{ name: string; first: string; status: number }> = [
    { name: 'a body sent to a static file (405)', first: `POST /a.txt HTTP/1.1\r\n${HOST}Content-Length: 10\r\n\r\n${MARK}x`, status: 405 },
    {
      name: 'a chunked body sent to a static file (405)',
      first: `PUT /a.txt HTTP/1.1\r\n${HOST}Transfer-Encoding: chunked\r\n\r\n5\r\n${MARK.slice(0, 5)}\r\n0\r\n\r\n`,
      status: 405,
    },
    { name: 'a body sent with GET (200)', first: `GET /a.txt HTTP/1.1\r\n${HOST}Content-Length: 9\r\n\r\n${MARK}`, status: 200 },
    { name: 'an unknown method (405)', first: `TRACE /a.txt HTTP/1.1\r\n${HOST}\r\n`, status: 405 },
    { name: 'a bad Host (400)', first: `GET / HTTP/1.1\r\nHost: a b\r\n\r\n`, status: 400 },
    { name: 'a missing file (404)', first: `GET /none HTTP/1.1\r\n${HOST}\r\n`, status: 404 },
    { name: 'a HEAD to a missing file (404)', first: `HEAD /none HTTP/1.1\r\n${HOST}\r\n`, status: 404 },
  ];

  it.each(cases)('$name, then a GET on the same connection', async ({ first, status }) => {
    const method = first.slice(0, first.indexOf(' '));
    const { responses } = await exchange(first + next, 2, [method, 'GET']);
    expect(responses.map((r) => r.status)).toEqual([status, 200]);
    if (status >= 400) expect(responses[0]!.headers['access-control-allow-origin']).toBe('*');
    expect(responses[0]!.headers.connection).not.toBe('close');
    expect(responses[1]!.body).toBe(FILE_TEXT);
  });
});

describe('clientErrorResponse', () => {
  it('answers a slow request with a 408 text with CORS, and a reset connection with nothing', async () => {
    const timeout = await clientErrorResponse(Object.assign(new Error('timeout'), { code: 'ERR_HTTP_REQUEST_TIMEOUT' }));
    expect(timeout).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n/);
    expect(timeout).toContain('\r\nAccess-Control-Allow-Origin: *\r\n');
    expect(timeout).toContain('\r\nConnection: close\r\n');
    const [head = '', body = ''] = timeout!.split('\r\n\r\n');
    expect(head).toContain(`Content-Length: ${Buffer.byteLength(body)}`);
    expect(await clientErrorResponse(Object.assign(new Error('reset'), { code: 'ECONNRESET' }))).toBeUndefined();
  });

  it('answers oversized chunk extensions with 413 problem+json', async () => {
    const raw = await clientErrorResponse(Object.assign(new Error('x'), { code: 'HPE_CHUNK_EXTENSIONS_OVERFLOW' }));
    expect(raw).toMatch(/^HTTP\/1\.1 413 Payload Too Large\r\n/);
    expect(JSON.parse(raw!.split('\r\n\r\n')[1]!)).toMatchObject({ status: 413, code: 'PAYLOAD_TOO_LARGE' });
  });
});

describe('isValidHost', () => {
  it('accepts names, addresses and ports; refuses the rest', () => {
    for (const ok of ['localhost', 'localhost:3000', '127.0.0.1:8080', '[::1]:3000', '[::1]', 'my-box.local', 'a'])
      expect(isValidHost(ok), ok).toBe(true);
    for (const bad of ['', 'a b', 'a/b', 'user@host', 'host:99999', 'host:', '[::1', 'host:port', '-a', 'a..b:1:2', 'x\\y'])
      expect(isValidHost(bad), bad).toBe(false);
  });
});
