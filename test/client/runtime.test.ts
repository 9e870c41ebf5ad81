// The typed client's transport (client/src/runtime.ts) against a recording fetch: which credentials go to
// which operation, how the URL, query and bodies are made, and how every kind of answer comes back:
// parsed bodies, problems as ApiError codes, answers that are not problems, 304, no answer, an abort.
import { describe, expect, it } from 'vitest';
import { ApiError, fillPath, send, type Call, type ClientOptions } from '../../client/src/runtime.js';
import { refusal } from '../helpers/client.js';

interface Sent {
  readonly url: string;
  readonly method: string;
  readonly headers: Headers;
  readonly body: unknown;
}

/** A fetch that records each request and answers `answer`. */
function recorder(answer: () => Response | Promise<Response>): { fetch: typeof fetch; sent: Sent[] } {
  const sent: Sent[] = [];
  const f = (async (input: RequestInfo | URL, init?: RequestInit) => {
    sent.push({
      url: input instanceof Request ? input.url : input.toString(),
      method: init?.method ?? 'GET',
      headers: new Headers(init?.headers),
      body: init?.body,
    });
    return answer();
  }) as typeof fetch;
  return { fetch: f, sent };
}

const ok = (): Response => new Response('{"a":1}', { status: 200, headers: { 'Content-Type': 'application/json' } });
const GET = (security: Call['security'], extra: Partial<Call> = {}): Call => ({ method: 'GET', path: '/x', security, ...extra });

async function one(options: Omit<ClientOptions, 'fetch'>, call: Call, answer: () => Response = ok): Promise<Sent> {
  const r = recorder(answer);
  await send({ ...options, fetch: r.fetch }, call);
  expect(r.sent).toHaveLength(1);
  return r.sent[0]!;
}

describe('credentials', () => {
  it('sends the token to token operations and admin operations, and nothing to public ones', async () => {
    expect((await one({ token: 'tok' }, GET('token'))).headers.get('authorization')).toBe('Bearer tok');
    expect((await one({ token: 'tok' }, GET('token-or-password'))).headers.get('authorization')).toBe('Bearer tok');
    const pub = await one({ token: 'tok', adminPassword: 'pw' }, GET('none'));
    expect(pub.headers.get('authorization')).toBeNull();
    expect(pub.headers.get('x-admin-password')).toBeNull();
  });

  it('asks a token function for each call, and sends nothing when it has none', async () => {
    let n = 0;
    const token = (): Promise<string | undefined> => Promise.resolve(++n === 1 ? `t${n}` : undefined);
    expect((await one({ token }, GET('token'))).headers.get('authorization')).toBe('Bearer t1');
    expect((await one({ token }, GET('token'))).headers.get('authorization')).toBeNull();
    expect(n).toBe(2);
  });

  it('sends the admin password only to admin operations, and only without a token', async () => {
    expect((await one({ adminPassword: 'pw' }, GET('token-or-password'))).headers.get('x-admin-password')).toBe('pw');
    expect((await one({ adminPassword: 'pw' }, GET('token'))).headers.get('x-admin-password')).toBeNull();
    const both = await one({ adminPassword: 'pw', token: 'tok' }, GET('token-or-password'));
    expect(both.headers.get('x-admin-password')).toBeNull();
    expect(both.headers.get('authorization')).toBe('Bearer tok');
  });
});

describe('requests', () => {
  it('joins the base URL, the filled path and the query, leaving out empty values', async () => {
    const s = await one(
      { baseUrl: 'http://svc.test/root//' },
      GET('none', { path: '/v1/{key}', params: { key: 'a b' }, query: { tier: 3, q: '', x: undefined, name: 'é&' } }),
    );
    expect(s.url).toBe('http://svc.test/root/v1/a%20b?tier=3&name=%C3%A9%26');
    expect(s.method).toBe('GET');
    expect((await one({}, GET('none', { query: {} }))).url).toBe('/x');
  });

  it('sends JSON with its media type, a form as it is, and the headers of the client, the operation and the call', async () => {
    const json = await one(
      { headers: { 'X-Client': 'c', 'X-Both': 'client' } },
      {
        method: 'PATCH',
        path: '/p',
        security: 'none',
        json: { a: [1] },
        mediaType: 'application/merge-patch+json',
        headers: { 'If-Match': '"3"', 'X-Skip': undefined },
      },
    );
    expect(json.method).toBe('PATCH');
    expect(json.body).toBe('{"a":[1]}');
    expect(json.headers.get('content-type')).toBe('application/merge-patch+json');
    expect(json.headers.get('if-match')).toBe('"3"');
    expect(json.headers.has('x-skip')).toBe(false);
    expect(json.headers.get('x-client')).toBe('c');
    expect(json.headers.get('accept')).toContain('application/json');
    expect((await one({}, { method: 'POST', path: '/p', security: 'none', json: null })).headers.get('content-type')).toBe(
      'application/json',
    );
    const form = new FormData();
    form.set('f', 'v');
    const multi = await one({}, { method: 'POST', path: '/u', security: 'none', form });
    expect(multi.body).toBe(form);
    expect(multi.headers.has('content-type')).toBe(false);
    const r = recorder(ok);
    await send({ fetch: r.fetch, headers: { 'X-Both': 'client' } }, GET('none', { headers: { 'X-Both': 'op' } }), {
      headers: { 'X-Both': 'call' },
    });
    expect(r.sent[0]!.headers.get('x-both')).toBe('call');
  });

  it('fills path parameters, keeping / only where the operation allows it, and refuses a missing one', () => {
    expect(fillPath('/a/{key}/b/{file}', { key: 'x/y', file: 'm/n.json' }, ['file'])).toBe('/a/x%2Fy/b/m/n.json');
    const e = (() => {
      try {
        fillPath('/a/{key}', {});
      } catch (x) {
        return x as ApiError;
      }
      return undefined;
    })();
    expect(e).toBeInstanceOf(ApiError);
    expect(e).toMatchObject({ status: 0, code: 'INVALID_ARGUMENT' });
    expect(e!.detail).toBe('The path parameter "key" is required.');
    expect(() => fillPath('/a/{file}', { file: '' })).toThrow('INVALID_ARGUMENT: The path parameter "file" is required.');
  });
});

describe('answers', () => {
  it('parses JSON, keeps text as text, gives 204 no body, and hands back status and headers', async () => {
    const r = recorder(
      () => new Response('{"b":2}', { status: 201, headers: { 'Content-Type': 'application/json; charset=utf-8', ETag: '"7"' } }),
    );
    const res = await send<{ b: number }>({ fetch: r.fetch }, GET('none'));
    expect(res).toMatchObject({ status: 201, body: { b: 2 } });
    expect(res.headers.get('etag')).toBe('"7"');
    const csv = await send(
      { fetch: recorder(() => new Response('a,b\n', { headers: { 'Content-Type': 'text/csv' } })).fetch },
      GET('none'),
    );
    expect(csv.body).toBe('a,b\n');
    const none = await send({ fetch: recorder(() => new Response(null, { status: 204 })).fetch }, GET('none'));
    expect(none).toMatchObject({ status: 204, body: undefined });
  });

  it('rejects a problem with its status, code, detail, fields, body and headers', async () => {
    const problem = {
      type: 'https://errors.game-data.dev/invalid-query',
      title: 'Invalid query',
      status: 400,
      detail: 'Fix tier.',
      code: 'INVALID_QUERY',
      errors: [{ name: 'tier', message: 'too big' }, { name: 3, message: 'number name' }, { name: 'n' }, null],
    };
    const e = await refusal(
      send(
        {
          fetch: recorder(
            () =>
              new Response(JSON.stringify(problem), {
                status: 400,
                headers: { 'Content-Type': 'application/problem+json', 'Retry-After': '1' },
              }),
          ).fetch,
        },
        GET('none'),
      ),
    );
    expect(e).toMatchObject({
      name: 'ApiError',
      status: 400,
      code: 'INVALID_QUERY',
      detail: 'Fix tier.',
      message: 'INVALID_QUERY: Fix tier.',
    });
    expect(e.errors).toEqual([{ name: 'tier', message: 'too big' }]);
    expect(e.problem).toEqual(problem);
    expect(e.headers?.get('retry-after')).toBe('1');
  });

  it('names an answer that is not a problem by its status', async () => {
    const html = await refusal(
      send(
        {
          fetch: recorder(
            () =>
              new Response('<h1>bad gateway</h1>', { status: 502, statusText: 'Bad Gateway', headers: { 'Content-Type': 'text/html' } }),
          ).fetch,
        },
        GET('none'),
      ),
    );
    expect(html).toMatchObject({
      status: 502,
      code: 'HTTP_502',
      detail: 'The service answered 502 Bad Gateway.',
      problem: undefined,
      errors: [],
    });
    const bare = await refusal(send({ fetch: recorder(() => new Response('', { status: 404 })).fetch }, GET('none')));
    expect(bare).toMatchObject({ code: 'HTTP_404', detail: 'The service answered 404.' });
    const list = await refusal(
      send(
        { fetch: recorder(() => new Response('[1]', { status: 409, headers: { 'Content-Type': 'application/json' } })).fetch },
        GET('none'),
      ),
    );
    expect(list).toMatchObject({ code: 'HTTP_409', problem: undefined });
    const broken = await refusal(
      send(
        { fetch: recorder(() => new Response('{', { status: 500, headers: { 'Content-Type': 'application/json' } })).fetch },
        GET('none'),
      ),
    );
    expect(broken).toMatchObject({ code: 'HTTP_500', problem: undefined });
    const noCode = await refusal(
      send(
        {
          fetch: recorder(
            () => new Response('{"detail":"Gone for good."}', { status: 410, headers: { 'Content-Type': 'application/json' } }),
          ).fetch,
        },
        GET('none'),
      ),
    );
    expect(noCode).toMatchObject({ code: 'HTTP_410', detail: 'Gone for good.' });
    // a problem's members are read only from a JSON answer, and only from an object
    const plain = await refusal(
      send(
        {
          fetch: recorder(() => new Response('{"code":"X","detail":"Y."}', { status: 400, headers: { 'Content-Type': 'text/plain' } }))
            .fetch,
        },
        GET('none'),
      ),
    );
    expect(plain).toMatchObject({ code: 'HTTP_400', problem: undefined });
    const untyped = await refusal(
      send({ fetch: recorder(() => new Response('{"code":"X","detail":"Y."}', { status: 400 })).fetch }, GET('none')),
    );
    expect(untyped).toMatchObject({ code: 'HTTP_400' });
    for (const body of ['null', '"text"', '7']) {
      const odd = await refusal(
        send(
          { fetch: recorder(() => new Response(body, { status: 400, headers: { 'Content-Type': 'application/json' } })).fetch },
          GET('none'),
        ),
      );
      expect(odd, body).toMatchObject({ code: 'HTTP_400', problem: undefined });
    }
    const three = await refusal(send({ fetch: recorder(() => new Response(null, { status: 300 })).fetch }, GET('none')));
    expect(three.code).toBe('HTTP_300');
    const redirect = await refusal(
      send({ fetch: recorder(() => new Response(null, { status: 308, headers: { Location: '/y' } })).fetch }, GET('none')),
    );
    expect(redirect.code).toBe('HTTP_308');
  });

  it('says NOT_MODIFIED for a 304 and NETWORK_ERROR when nothing answered, and passes an abort through', async () => {
    const nm = await refusal(
      send({ fetch: recorder(() => new Response(null, { status: 304, headers: { ETag: '"1"' } })).fetch }, GET('none')),
    );
    expect(nm).toMatchObject({
      status: 304,
      code: 'NOT_MODIFIED',
      detail: 'The resource has not changed since the ETag sent in If-None-Match.',
    });
    expect(nm.headers?.get('etag')).toBe('"1"');
    const down = await refusal(
      send({ baseUrl: 'http://svc.test', fetch: recorder(() => Promise.reject(new TypeError('fetch failed'))).fetch }, GET('none')),
    );
    expect(down).toMatchObject({ status: 0, code: 'NETWORK_ERROR', detail: 'No answer from http://svc.test/x: fetch failed' });
    const controller = new AbortController();
    const reason = new Error('stop');
    controller.abort(reason);
    const aborted = send({ fetch: recorder(() => Promise.reject(new DOMException('aborted', 'AbortError'))).fetch }, GET('none'), {
      signal: controller.signal,
    });
    await expect(aborted).rejects.toBe(reason);
  });
});
