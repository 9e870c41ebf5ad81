// The operator's log (api/_lib/log.ts; docs/architecture.md, "Logs"): every 5xx's cause logged once with
// the request id that X-Request-Id and the problem body carry, nothing secret in any line, and a bad
// configuration's problems logged once however many requests it refuses.
import { describe, expect, it, vi } from 'vitest';
import { ConfigError, loadServiceConfig, useEnvironment, useServiceConfig } from '../../api/_lib/config.js';
import { ServiceError } from '../../api/_lib/errors.js';
import { defineEntry, type EntryExports } from '../../api/_lib/http/entry.js';
import { REQUEST_ID_HEADER, requestIdOf } from '../../api/_lib/http/request-id.js';
import { toProblemResponse } from '../../api/_lib/http/respond.js';
import { causeChain, logEvent, redact, useLogSink } from '../../api/_lib/log.js';
import { captureLog } from '../helpers/log.js';

const log = captureLog();

const ADMIN_PASSWORD = 'log-admin-Hn4rX8cQ2vLm7TzW';
const JWT_SECRET = 'log-test-Vq8mT2xLr5NcW9pKd3ZgY7hB4sFj6aUe';
const UPSTASH_TOKEN = 'AX4sAAIjcDE2Yjk3NGQ5MGRhMmI0ZDk5OTI';
const JWT = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJTVFVESU9fWCJ9.c2lnbmF0dXJlLXNpZ25hdHVyZQ';

/** An entry over the catalog's routes whose search handler throws `error`. */
function failing(error: () => unknown): EntryExports {
  const ok = () => new Response('ok');
  return defineEntry('catalog', {
    search: {
      GET: () => {
        throw error();
      },
    },
    stats: { GET: ok },
    export: { GET: ok },
    retired: { GET: ok },
    'not-found': { GET: ok },
  });
}

describe('redact', () => {
  it('blanks the secrets in force, bearer and basic credentials, tokens, URL passwords and credential values', () => {
    useServiceConfig(
      loadServiceConfig({
        ADMIN_PASSWORD,
        JWT_SECRET,
        STORE_DRIVER: 'redis',
        UPSTASH_REDIS_REST_URL: 'https://eu1.upstash.io',
        UPSTASH_REDIS_REST_TOKEN: UPSTASH_TOKEN,
      }),
    );
    try {
      const text = [
        `the password is ${ADMIN_PASSWORD}, the key ${JWT_SECRET} and the token ${UPSTASH_TOKEN}`,
        `Authorization: Bearer ${JWT}`,
        'authorization: Basic dXNlcjpwYXNz',
        `a token in passing ${JWT}`,
        'fetch https://ops:hunter2-hunter2@db.example.com/x failed',
        'X-Admin-Password: guessed-password-1',
        '{"password":"p@ss-word-99","token":"tok-123456"}',
        'GET /file?X-Amz-Signature=abcdef0123&X-Amz-Credential=AKIA%2F2026',
      ].join('\n');
      const out = redact(text);
      for (const secret of [
        ADMIN_PASSWORD,
        JWT_SECRET,
        UPSTASH_TOKEN,
        JWT,
        'dXNlcjpwYXNz',
        'hunter2',
        'guessed-password-1',
        'p@ss-word-99',
        'tok-123456',
        'abcdef0123',
        'AKIA%2F2026',
      ])
        expect(out, secret).not.toContain(secret);
      expect(out).toContain('Authorization: [redacted]');
      expect(out).toContain('a token in passing [redacted]');
      expect(out).toContain('https://[redacted]@db.example.com/x');
      expect(out).toContain('X-Admin-Password: [redacted]');
    } finally {
      useServiceConfig(undefined);
    }
  });

  it('blanks the raw secret variables of an environment in force, even an invalid one', () => {
    useEnvironment({
      ADMIN_PASSWORD: 'too-short-pw',
      JWT_SECRET: 'changeme-changeme-changeme-changeme',
      REDIS_URL: 'redis://:Zr8-pass-Kq2@db.example.com:6379',
    });
    try {
      const out = redact('seen too-short-pw, changeme-changeme-changeme-changeme and Zr8-pass-Kq2');
      expect(out).toBe('seen [redacted], [redacted] and [redacted]');
    } finally {
      useServiceConfig(undefined);
    }
  });

  it('cuts a long text', () => {
    expect(redact('x'.repeat(5000)).length).toBe(2000);
  });
});

describe('the cause of every 5xx, logged once', () => {
  it('logs an unexpected failure once with its redacted cause chain and stack, and the request id the answer carries', async () => {
    useServiceConfig(loadServiceConfig({ ADMIN_PASSWORD }));
    try {
      const entry = failing(() => new TypeError(`boom near ${ADMIN_PASSWORD} with Bearer ${JWT}`, { cause: new Error('inner cause') }));
      const res = await entry.GET(
        new Request('http://t/api/search?q=secret-query&token=abc', { headers: { Authorization: `Bearer ${JWT}` } }),
      );
      expect(res.status).toBe(500);
      const body = (await res.json()) as { requestId: string; code: string; detail: string };
      expect(body.code).toBe('INTERNAL');
      expect(body.detail).not.toContain('boom');
      expect(body.requestId).toBe(res.headers.get(REQUEST_ID_HEADER));
      expect(log.lines).toHaveLength(1);
      const [line] = log.events('server-error');
      expect(line).toMatchObject({
        level: 'error',
        status: 500,
        code: 'INTERNAL',
        method: 'GET',
        path: '/api/search',
        route: 'catalog/search',
        requestId: body.requestId,
      });
      const cause = line!.cause as { name: string; message: string; stack?: string }[];
      expect(cause.map((c) => c.name)).toEqual(['ServiceError', 'TypeError', 'Error']);
      expect(cause[1]!.message).toBe('boom near [redacted] with Bearer [redacted]');
      expect(cause[1]!.stack).toContain('TypeError');
      expect(cause[2]!.message).toBe('inner cause');
      for (const secret of [ADMIN_PASSWORD, JWT, 'secret-query', 'token=abc']) expect(line!.raw).not.toContain(secret);
      expect(Date.parse(line!.at)).not.toBeNaN();
    } finally {
      useServiceConfig(undefined);
    }
  });

  it('logs a store 503 with its cause, and no 4xx at all', async () => {
    const down = failing(
      () =>
        new ServiceError('UPSTREAM_UNAVAILABLE', 'The ledger store cannot be reached; try again.', {
          cause: new Error('ECONNREFUSED 10.0.0.5:6379'),
        }),
    );
    const res = await down.GET(new Request('http://t/api/search?q=a'));
    expect(res.status).toBe(503);
    const [line] = log.events('server-error');
    expect((line!.cause as { message: string }[]).map((c) => c.message)).toEqual([
      'The ledger store cannot be reached; try again.',
      'ECONNREFUSED 10.0.0.5:6379',
    ]);
    const refused = failing(() => new ServiceError('NOT_FOUND', 'none'));
    expect((await refused.GET(new Request('http://t/api/search?q=a'))).status).toBe(404);
    expect(log.lines).toHaveLength(1);
  });

  it('logs a configuration problem once per configuration in force, and each 503 it causes with its own request id', async () => {
    const bad = new ConfigError([
      { variable: 'STORE_DRIVER', message: 'is not set; set STORE_DRIVER=redis.' },
      { variable: 'JWT_SECRET', message: 'is weak: it repeats a short pattern; set a random value.' },
    ]);
    const entry = failing(() => bad);
    const a = await entry.GET(new Request('http://t/api/search?q=a'));
    const b = await entry.GET(new Request('http://t/api/search?q=b'));
    for (const res of [a, b]) {
      expect(res.status).toBe(503);
      const body = (await res.json()) as { detail: string };
      expect(body.detail).not.toMatch(/STORE_DRIVER|JWT_SECRET|try again/);
      expect(res.headers.get('retry-after')).toBeNull();
    }
    expect(log.events('configuration')).toHaveLength(1);
    expect(log.events('configuration')[0]!.problems).toEqual([
      'STORE_DRIVER is not set; set STORE_DRIVER=redis.',
      'JWT_SECRET is weak: it repeats a short pattern; set a random value.',
    ]);
    const errors = log.events('server-error');
    expect(errors.map((l) => l.requestId)).toEqual([a.headers.get(REQUEST_ID_HEADER), b.headers.get(REQUEST_ID_HEADER)]);
    expect(errors[0]!.cause).toEqual([
      expect.objectContaining({ name: 'ServiceError', code: 'UPSTREAM_UNAVAILABLE' }),
      { name: 'ConfigError', message: 'The configuration is not valid (2 problems).', variables: ['STORE_DRIVER', 'JWT_SECRET'] },
    ]);
    // another configuration in force: its problems are news again
    useServiceConfig(undefined);
    await entry.GET(new Request('http://t/api/search?q=c'));
    expect(log.events('configuration')).toHaveLength(2);
  });

  it('logs a 5xx toProblemResponse answers without a request (the local server) with what it has', () => {
    toProblemResponse(new Error('disk full'));
    expect(log.events('server-error')[0]).toMatchObject({ status: 500, code: 'INTERNAL' });
    expect(log.events('server-error')[0]!.requestId).toBeUndefined();
  });
});

describe('the request id', () => {
  const ok = () => new Response('ok', { status: 200 });
  const entry = defineEntry('catalog', {
    search: { GET: ok },
    stats: { GET: () => Response.json({ frozen: true }) },
    export: { GET: ok },
    retired: { GET: ok },
    'not-found': {
      GET: () => {
        throw new ServiceError('NOT_FOUND', 'none');
      },
    },
  });

  it('is on every answer of an entry: 200, HEAD, preflight, 404, 405', async () => {
    const answers = [
      await entry.GET(new Request('http://t/api/search?q=a')),
      await entry.HEAD(new Request('http://t/api/search?q=a', { method: 'HEAD' })),
      await entry.OPTIONS(new Request('http://t/api/search', { method: 'OPTIONS' })),
      await entry.GET(new Request('http://t/api/nowhere')),
      await entry.POST(new Request('http://t/api/search', { method: 'POST' })),
    ];
    const ids = answers.map((r) => r.headers.get(REQUEST_ID_HEADER));
    for (const id of ids) expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(new Set(ids).size).toBe(ids.length);
    const problem = (await answers[3]!.json()) as { requestId: string };
    expect(problem.requestId).toBe(ids[3]);
    expect(answers[3]!.headers.get('access-control-expose-headers')).toContain('X-Request-Id');
  });

  it("takes Vercel's x-vercel-id on Vercel when well-formed, never a client's X-Request-Id, and a fresh id otherwise", async () => {
    const vercel = 'fra1::iad1::8x2kq-1768000000000-3f1c2a9b7d4e';
    const idOf = async (headers: Record<string, string>) =>
      (await entry.GET(new Request('http://t/api/search', { headers }))).headers.get(REQUEST_ID_HEADER);
    try {
      useEnvironment({ VERCEL: '1' });
      expect(await idOf({ 'x-vercel-id': vercel })).toBe(vercel);
      expect(await idOf({ 'X-Request-Id': 'mine' })).not.toBe('mine');
      for (const bad of ['a b', 'x'.repeat(129), '"><script>', 'id\u2028line'])
        expect(requestIdOf(new Request('http://t/', { headers: { 'x-vercel-id': bad.replace(/[^\x20-\x7e]/g, '') } }))).not.toBe(bad);
      // off Vercel nothing but the client sets the header: it is never taken (docs/architecture.md, "Logs")
      for (const env of [{}, { VERCEL: '0' }, { VERCEL: 'false' }, { LOCAL_RUNTIME: '1' }]) {
        useEnvironment(env);
        expect(await idOf({ 'x-vercel-id': vercel }), JSON.stringify(env)).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-/);
      }
    } finally {
      useServiceConfig(undefined);
    }
  });

  it('copies an answer whose headers cannot be changed', async () => {
    const frozen = await fetch('data:text/plain,hello');
    const e = defineEntry('catalog', {
      search: { GET: () => frozen },
      stats: { GET: ok },
      export: { GET: ok },
      retired: { GET: ok },
      'not-found': { GET: ok },
    });
    const res = await e.GET(new Request('http://t/api/search'));
    expect(res.headers.get(REQUEST_ID_HEADER)).toBeTruthy();
    expect(await res.text()).toBe('hello');
  });
});

describe('the sink', () => {
  it('writes one JSON line per event to the console by level when no sink is set', () => {
    useLogSink(undefined);
    const info = vi.spyOn(console, 'info').mockImplementation(() => undefined);
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    const error = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    try {
      logEvent('info', 'a', { n: 1 });
      logEvent('warn', 'b');
      logEvent('error', 'c', { skipped: undefined });
      expect(JSON.parse(String(info.mock.calls[0]![0]))).toMatchObject({ level: 'info', event: 'a', n: 1 });
      expect(JSON.parse(String(warn.mock.calls[0]![0]))).toMatchObject({ level: 'warn', event: 'b' });
      expect(Object.keys(JSON.parse(String(error.mock.calls[0]![0])) as object)).toEqual(['level', 'event', 'at']);
    } finally {
      vi.restoreAllMocks();
    }
  });

  it('keeps at most five causes, and names a thrown value that is not an error by its type', () => {
    let e: Error = new Error('0');
    for (let i = 1; i < 8; i++) e = new Error(String(i), { cause: e });
    expect(causeChain(e).map((c) => c.message)).toEqual(['7', '6', '5', '4', '3']);
    expect(causeChain(new Error('x', { cause: 42 }))[1]).toEqual({ name: 'number', message: 'A number was thrown.' });
  });
});
