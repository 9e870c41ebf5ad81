// Response helpers every function shares (api/_lib/http/respond.ts): the caching pair and ETag/304 of
// public GETs (docs/api.md "Paths and headers", spec 4.2 and 8), CORS headers on every answer, the preflight, and the one
// error-to-response mapping with its bounds (RFC 9457 problem+json; docs/api.md "Errors").
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  cachedResponse,
  corsHeaders,
  etagOf,
  jsonResponse,
  notModified,
  plainJson,
  preflight,
  publicCacheHeaders,
  printable,
  toProblemResponse,
  truncate,
} from '../../api/_lib/http/respond.js';
import { parseQuery } from '../../api/_lib/http/params.js';
import { readJsonBody } from '../../api/_lib/http/body.js';
import { responseErrors } from '../helpers/game-api.js';
import { ServiceError, type ErrorCode, type FieldProblem } from '../../api/_lib/errors.js';
import { ConfigError } from '../../api/_lib/config.js';
import { useLogSink } from '../../api/_lib/log.js';

interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: string;
  instance?: string;
  errors?: { name: string; message: string; value?: string | string[] }[];
  errorsOmitted?: number;
}

const OPTS = { buildId: 'build-0123456789abcdef', canonical: 'search?q=oak' };
const get = (headers: Record<string, string> = {}, method = 'GET') => new Request('http://t/api/search?q=oak', { method, headers });
const list = (value: string | null) =>
  (value ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');

afterEach(() => vi.restoreAllMocks());

describe('headers on every response', () => {
  it('caches public answers for 300 s at the client and at the edge, with the same value', () => {
    expect(publicCacheHeaders()).toEqual({ 'Cache-Control': 'public, max-age=300', 'CDN-Cache-Control': 'public, max-age=300' });
  });

  it('allows any origin and exposes every header a client reads cross-origin', () => {
    const cors = corsHeaders();
    expect(cors['Access-Control-Allow-Origin']).toBe('*');
    const exposed = list(cors['Access-Control-Expose-Headers'] ?? null);
    for (const h of [
      'ETag',
      'Content-Disposition',
      'X-Limit-Requested',
      'X-Limit-Applied',
      'X-Build-Id',
      'Allow',
      'Location',
      'Retry-After',
    ]) {
      expect(exposed, h).toContain(h);
    }
  });

  it('answers a preflight with 204, the route methods, the request headers clients send, cached a day', async () => {
    const res = preflight('GET, HEAD, OPTIONS');
    expect(res.status).toBe(204);
    expect(await res.text()).toBe('');
    expect(res.headers.get('allow')).toBe('GET, HEAD, OPTIONS');
    expect(res.headers.get('access-control-allow-methods')).toBe('GET, HEAD, OPTIONS');
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(res.headers.get('access-control-max-age')).toBe('86400');
    expect(list(res.headers.get('access-control-expose-headers'))).toContain('ETag');
    const allowed = list(res.headers.get('access-control-allow-headers'));
    for (const h of ['Authorization', 'Content-Type', 'If-None-Match', 'If-Match', 'X-Admin-Password', 'Idempotency-Key'])
      expect(allowed, h).toContain(h);
  });
});

describe('ETag', () => {
  it('is a short strong tag of the build id and a hash of the canonical request', () => {
    const tag = etagOf('b'.repeat(40), 'search?q=oak');
    expect(tag).toMatch(/^"b{16}-[0-9a-f]{16}"$/);
    expect(etagOf('b'.repeat(40), 'search?q=oak')).toBe(tag);
    expect(etagOf('b'.repeat(40), 'search?q=elm')).not.toBe(tag);
    expect(etagOf('c'.repeat(40), 'search?q=oak')).not.toBe(tag);
    expect(etagOf('abc', 'x')).toMatch(/^"abc-[0-9a-f]{16}"$/);
  });

  it('matches If-None-Match exactly, in a list, as *, and with weak comparison', () => {
    const tag = '"abc-1"';
    const req = (inm?: string) => get(inm === undefined ? {} : { 'If-None-Match': inm });
    expect(notModified(req(), tag)).toBe(false);
    expect(notModified(req('"abc-1"'), tag)).toBe(true);
    expect(notModified(req('"zzz", "abc-1"'), tag)).toBe(true);
    expect(notModified(req('  "abc-1"  ,"zzz"'), tag)).toBe(true);
    expect(notModified(req('*'), tag)).toBe(true);
    expect(notModified(req('W/"abc-1"'), tag)).toBe(true);
    expect(notModified(req('"abc-1"'), 'W/"abc-1"')).toBe(true);
    expect(notModified(req('"abc-2"'), tag)).toBe(false);
    expect(notModified(req('"abc-2", W/"abc-3"'), tag)).toBe(false);
  });

  it('strips W/ only as a prefix', () => {
    expect(notModified(get({ 'If-None-Match': '"ab"' }), '"aW/b"')).toBe(false);
    expect(notModified(get({ 'If-None-Match': '"aW/b"' }), '"ab"')).toBe(false);
  });
});

describe('cached responses', () => {
  it('answers 200 with the body, JSON type, both cache headers, ETag, X-Build-Id, CORS and extra headers', async () => {
    const res = cachedResponse(get(), '{"a":1}', { ...OPTS, headers: { 'X-Limit-Applied': '200' } });
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('{"a":1}');
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(res.headers.get('cache-control')).toBe('public, max-age=300');
    expect(res.headers.get('cdn-cache-control')).toBe('public, max-age=300');
    expect(res.headers.get('etag')).toBe(etagOf(OPTS.buildId, OPTS.canonical));
    expect(res.headers.get('x-build-id')).toBe(OPTS.buildId);
    expect(res.headers.get('x-limit-applied')).toBe('200');
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(list(res.headers.get('access-control-expose-headers'))).toContain('X-Limit-Applied');
  });

  it('uses the content type it is given', () => {
    expect(cachedResponse(get(), 'a,b\r\n', { ...OPTS, contentType: 'text/csv; charset=utf-8' }).headers.get('content-type')).toBe(
      'text/csv; charset=utf-8',
    );
  });

  it('answers 304 without a body to a matching If-None-Match, keeping ETag and cache headers', async () => {
    const etag = etagOf(OPTS.buildId, OPTS.canonical);
    const res = cachedResponse(get({ 'If-None-Match': etag }), '{"a":1}', OPTS);
    expect(res.status).toBe(304);
    expect(await res.text()).toBe('');
    expect(res.headers.get('etag')).toBe(etag);
    expect(res.headers.get('cache-control')).toBe('public, max-age=300');
    expect(res.headers.get('cdn-cache-control')).toBe('public, max-age=300');
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
  });

  it('answers a stale If-None-Match (another build or another query) with a full 200', async () => {
    const stale = etagOf('another-build', OPTS.canonical);
    const res = cachedResponse(get({ 'If-None-Match': stale }), '{"a":1}', OPTS);
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('{"a":1}');
    const otherQuery = cachedResponse(get({ 'If-None-Match': etagOf(OPTS.buildId, 'search?q=elm') }), '{}', OPTS);
    expect(otherQuery.status).toBe(200);
  });

  it('answers HEAD with the headers of GET and no body', async () => {
    const res = cachedResponse(get({}, 'HEAD'), '{"a":1}', OPTS);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(res.headers.get('etag')).toBe(etagOf(OPTS.buildId, OPTS.canonical));
    expect(await res.text()).toBe('');
  });

  it('serialises a value as JSON', async () => {
    const res = jsonResponse(get(), { q: 'oak', n: [1, 2] }, OPTS);
    expect(await res.json()).toEqual({ q: 'oak', n: [1, 2] });
    expect(res.headers.get('etag')).toBe(etagOf(OPTS.buildId, OPTS.canonical));
  });

  it('sends uncached JSON for writes, status 200 by default', async () => {
    const res = plainJson({ ok: true });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ ok: true });
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    const created = plainJson({ id: 1 }, 201, { Location: '/x/1' });
    expect(created.status).toBe(201);
    expect(created.headers.get('location')).toBe('/x/1');
  });
});

describe('problem responses', () => {
  it('renders a ServiceError as problem+json with type, title, status, detail, code and instance', async () => {
    const res = toProblemResponse(new ServiceError('PAYLOAD_TOO_LARGE', 'too big'), new Request('http://t/api/x?y=1'));
    expect(res.status).toBe(413);
    expect(res.headers.get('content-type')).toBe('application/problem+json');
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('cdn-cache-control')).toBeNull();
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(list(res.headers.get('access-control-expose-headers'))).toContain('Allow');
    const body = (await res.json()) as Problem;
    expect(body).toEqual({
      type: expect.stringMatching(/^https:\/\/[^/]+\/payload-too-large$/) as string,
      title: expect.any(String) as string,
      status: 413,
      detail: 'too big',
      code: 'PAYLOAD_TOO_LARGE',
      instance: '/api/x',
    });
    expect(body.title.length).toBeGreaterThan(0);
  });

  it('gives each code its own problem type and title', async () => {
    const codes: ErrorCode[] = ['INVALID_QUERY', 'NOT_FOUND', 'METHOD_NOT_ALLOWED', 'UPSTREAM_UNAVAILABLE'];
    const bodies = await Promise.all(codes.map(async (c) => (await toProblemResponse(new ServiceError(c, 'x')).json()) as Problem));
    expect(new Set(bodies.map((b) => b.type)).size).toBe(codes.length);
    expect(new Set(bodies.map((b) => b.title)).size).toBe(codes.length);
    expect(bodies[0]!.type.endsWith('/invalid-query')).toBe(true);
    for (const b of bodies) expect(b.instance).toBeUndefined();
  });

  it('carries the headers of the error, e.g. Allow on a 405', () => {
    const res = toProblemResponse(new ServiceError('METHOD_NOT_ALLOWED', 'no', { headers: { Allow: 'GET, HEAD, OPTIONS' } }));
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('GET, HEAD, OPTIONS');
  });

  it('names no instance for a request whose URL cannot be parsed', async () => {
    const res = toProblemResponse(new ServiceError('NOT_FOUND', 'x'), { url: 'not a url' } as Request);
    expect(res.status).toBe(404);
    expect(((await res.json()) as Problem).instance).toBeUndefined();
  });

  it('turns an unknown failure into a 500 that leaks nothing, logged once', async () => {
    const lines: string[] = [];
    useLogSink((line) => void lines.push(line));
    try {
      const res = toProblemResponse(new TypeError('secret at /srv/app/api/_lib/x.ts:12'), new Request('http://t/api/search'));
      expect(res.status).toBe(500);
      expect(res.headers.get('content-type')).toBe('application/problem+json');
      const text = await res.text();
      expect(text).not.toMatch(/secret|\.ts|srv/);
      const body = JSON.parse(text) as Problem;
      expect(body).toMatchObject({ code: 'INTERNAL', status: 500, instance: '/api/search' });
      expect(body.detail.length).toBeGreaterThan(0);
      expect(body.errors).toBeUndefined();
      expect(lines).toHaveLength(1);
      expect(JSON.parse(lines[0]!)).toMatchObject({ event: 'server-error', status: 500, code: 'INTERNAL' });
      expect(lines[0]).toContain('secret at /srv/app/api/_lib/x.ts:12');
    } finally {
      useLogSink(undefined);
    }
  });

  it('turns a configuration error into a 503 that names no variable, logging what to set', async () => {
    const lines: string[] = [];
    useLogSink((line) => void lines.push(line));
    try {
      const res = toProblemResponse(new ConfigError([{ variable: 'UPSTASH_REDIS_REST_TOKEN', message: 'is required.' }]));
      expect(res.status).toBe(503);
      const text = await res.text();
      expect(text).not.toContain('UPSTASH');
      const body = JSON.parse(text) as Problem;
      expect(body.code).toBe('UPSTREAM_UNAVAILABLE');
      expect(body.detail.length).toBeGreaterThan(0);
      const events = lines.map((l) => JSON.parse(l) as { event: string; problems?: string[] });
      expect(events.map((e) => e.event)).toEqual(['configuration', 'server-error']);
      expect(events[0]!.problems).toEqual(['UPSTASH_REDIS_REST_TOKEN is required.']);
    } finally {
      useLogSink(undefined);
    }
  });
});

describe('problem bounds', () => {
  const problemsOf = (n: number): FieldProblem[] => Array.from({ length: n }, (_, i) => ({ name: `p${i}`, message: 'm' }));
  const body = async (e: ServiceError) => (await toProblemResponse(e).json()) as Problem;

  it('lists 20 problems and counts the rest; exactly 20 lists all with no count', async () => {
    const b21 = await body(new ServiceError('INVALID_QUERY', 'x', { errors: problemsOf(21) }));
    expect(b21.errors).toHaveLength(20);
    expect(b21.errors?.[19]?.name).toBe('p19');
    expect(b21.errorsOmitted).toBe(1);
    const b20 = await body(new ServiceError('INVALID_QUERY', 'x', { errors: problemsOf(20) }));
    expect(b20.errors).toHaveLength(20);
    expect(b20).not.toHaveProperty('errorsOmitted');
    const b0 = await body(new ServiceError('INVALID_QUERY', 'x'));
    expect(b0).not.toHaveProperty('errors');
  });

  it('cuts names and values to 100 characters, messages and detail to 600, and echoes 5 values at most', async () => {
    const b = await body(
      new ServiceError('INVALID_QUERY', 'd'.repeat(601), {
        errors: [
          { name: 'n'.repeat(101), message: 'm'.repeat(601), value: 'v'.repeat(101) },
          { name: 'tier', message: 'm'.repeat(600), value: ['1', '2', '3', '4', 'w'.repeat(101), '6', '7'] },
          { name: 'q', message: 'short' },
        ],
      }),
    );
    expect(b.detail).toBe('d'.repeat(599) + '…');
    const [first, second, third] = b.errors ?? [];
    expect(first).toEqual({ name: 'n'.repeat(99) + '…', message: 'm'.repeat(599) + '…', value: 'v'.repeat(99) + '…' });
    expect(second).toEqual({ name: 'tier', message: 'm'.repeat(600), value: ['1', '2', '3', '4', 'w'.repeat(99) + '…'] });
    expect(third).toEqual({ name: 'q', message: 'short' });
    expect(third).not.toHaveProperty('value');
  });

  it('keeps a detail of exactly 600 characters whole', async () => {
    expect((await body(new ServiceError('NOT_FOUND', 'd'.repeat(600)))).detail).toBe('d'.repeat(600));
  });

  it('cuts a long instance path to 100 characters', async () => {
    const res = toProblemResponse(new ServiceError('NOT_FOUND', 'x'), new Request(`http://t/${'p'.repeat(300)}`));
    const instance = ((await res.json()) as Problem).instance ?? '';
    expect(instance).toBe('/' + 'p'.repeat(98) + '…');
  });

  it('truncate defaults to 100 characters and marks a cut with one character', () => {
    expect(truncate('x'.repeat(100))).toBe('x'.repeat(100));
    expect(truncate('x'.repeat(101))).toBe('x'.repeat(99) + '…');
    expect(truncate('', 1)).toBe('');
    expect(truncate('ab', 1)).toBe('…');
  });

  it('never cuts between the two halves of a surrogate pair', () => {
    expect(truncate('ab😀cd', 4)).toBe('ab…');
    expect(truncate('abc😀d', 4)).toBe('abc…');
  });
});

describe('hostile echoes', () => {
  const HOSTILE = [
    'a\nb',
    'c\r\nd',
    'tab\there',
    'nul\u0000x',
    'del\u007f',
    'c1\u0085',
    'ls\u2028ps\u2029',
    'rlo\u202Eevil',
    'iso\u2066x\u2069',
    'lone\ud800',
    'mark\u200f',
  ];

  it('writes controls, separators, bidi characters and lone surrogates as \\uXXXX, and leaves the rest', () => {
    expect(printable('a\nb')).toBe('a\\u000Ab');
    expect(printable('rlo\u202Eevil')).toBe('rlo\\u202Eevil');
    expect(printable('lone\ud800')).toBe('lone\\uD800');
    expect(printable('Épée 😀 北 "q" <b>')).toBe('Épée 😀 北 "q" <b>');
  });

  it('keeps every problem body valid against the problem schema, whatever the request echoed', async () => {
    const bodies: unknown[] = [];
    // unknown query parameters, and bad values, named and echoed
    const query = new URLSearchParams();
    for (const h of HOSTILE) query.append(h, h);
    query.append('limit', 'x\ny');
    try {
      parseQuery(query, { limit: { kind: 'int', min: 1, max: 5 } });
    } catch (e) {
      bodies.push(await toProblemResponse(e, new Request('http://t/api/search%0Aevil')).json());
    }
    // unknown body fields, and a bad value of a known one
    const fields = Object.fromEntries(HOSTILE.map((h) => [h, h]));
    const request = new Request('http://t/api/wallet/verify-send-to-account', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ ...fields, purpose: 'x\u202E\n' }),
    });
    await readJsonBody(request, { schema: 'verify-send-to-account' }).catch(async (e: unknown) =>
      bodies.push(await toProblemResponse(e).json()),
    );
    // a message that carries them itself
    bodies.push(await toProblemResponse(new ServiceError('NOT_FOUND', `No item ${HOSTILE.join(' ')}.`)).json());
    expect(bodies).toHaveLength(3);
    for (const body of bodies) {
      expect(responseErrors('problem', body)).toEqual([]);
      // no string of it holds a control, a separator, a bidi character or a lone surrogate
      const strings: string[] = [];
      JSON.stringify(body, (_k, v: unknown) => (typeof v === 'string' ? (strings.push(v), v) : v));
      for (const str of strings) expect(str, str).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u2028-\u202e\u2066-\u2069\u200f]|\p{Cs}/u);
    }
  });
});
