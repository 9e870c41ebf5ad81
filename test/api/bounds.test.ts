// Bounded answers to bad input (docs/architecture.md, "Errors"): an error body echoes only a bounded part
// of what the client sent; X-Limit-Requested carries the raw string, cut; no error names a source file or
// routing internals. Runs the real entries over the sample build.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as catalog from '../../api/catalog.js';
import * as collections from '../../api/collections.js';
import * as registries from '../../api/registries.js';
import { PROBLEM_BOUNDS, toProblemResponse, truncate } from '../../api/_lib/http/respond.js';
import { ServiceError } from '../../api/_lib/errors.js';
import { SAMPLE_OUT } from '../helpers/catalog.js';
import { useCatalog } from '../helpers/service.js';

beforeAll(() => useCatalog(SAMPLE_OUT));
afterAll(() => useCatalog(undefined));

interface Problem {
  code: string;
  detail: string;
  instance?: string;
  errors?: { name: string; message: string; value?: string | string[] }[];
  errorsOmitted?: number;
}

describe('error bodies echo a bounded part of the request', () => {
  it('300 unknown parameters: at most 20 listed, the rest counted, a small body', async () => {
    const query = Array.from({ length: 300 }, (_, i) => `unknown${i}=${'v'.repeat(200)}`).join('&');
    const res = await collections.GET(new Request(`http://t/v1/relics?${query}`));
    expect(res.status).toBe(400);
    const text = await res.text();
    expect(text.length).toBeLessThan(8_000);
    const body = JSON.parse(text) as Problem;
    expect(body.errors).toHaveLength(PROBLEM_BOUNDS.errors);
    expect(body.errorsOmitted).toBe(280);
    expect(body.detail).toContain('300 invalid query parameter(s)');
    expect(body.detail).toContain('and 290 more');
    for (const e of body.errors ?? []) {
      expect(e.message.length).toBeLessThanOrEqual(PROBLEM_BOUNDS.detail);
      for (const v of [e.value ?? []].flat()) expect(v.length).toBeLessThanOrEqual(PROBLEM_BOUNDS.text);
    }
  });

  it('a repeated parameter echoes at most 5 values, each cut', async () => {
    const query = Array.from({ length: 50 }, () => `tier=${'9'.repeat(500)}`).join('&');
    const body = (await (await collections.GET(new Request(`http://t/v1/relics?${query}`))).json()) as Problem;
    const tier = body.errors?.find((e) => e.name === 'tier');
    expect(tier?.value).toHaveLength(PROBLEM_BOUNDS.values);
    for (const v of tier?.value ?? []) expect(v.length).toBe(PROBLEM_BOUNDS.text);
  });

  it('a long unknown path is cut in detail and instance', async () => {
    const path = '/api/' + 'x'.repeat(5000);
    const body = (await (await catalog.GET(new Request(`http://t${path}`))).json()) as Problem;
    expect(body.code).toBe('NOT_FOUND');
    expect(body.instance?.length).toBe(PROBLEM_BOUNDS.text);
    expect(body.detail.length).toBeLessThan(400);
  });

  it('a long item key is cut in the 404 detail', async () => {
    const body = (await (await collections.GET(new Request(`http://t/v1/relics/${'k'.repeat(3000)}`))).json()) as Problem;
    expect(body.code).toBe('NOT_FOUND');
    expect(body.detail.length).toBeLessThan(400);
  });

  it('truncate marks the cut and leaves short text alone', () => {
    expect(truncate('abc', 3)).toBe('abc');
    expect(truncate('abcd', 3)).toBe('ab…');
    expect(truncate('x'.repeat(100))).toBe('x'.repeat(100));
    expect(truncate('x'.repeat(101))).toBe('x'.repeat(99) + '…');
  });

  it('cuts a long detail and names and values given by code', async () => {
    const e = new ServiceError('INVALID_QUERY', 'd'.repeat(5000), {
      errors: [{ name: 'n'.repeat(500), message: 'm', value: 'v'.repeat(500) }],
    });
    const body = (await toProblemResponse(e).json()) as Problem;
    expect(body.detail).toHaveLength(PROBLEM_BOUNDS.detail);
    expect(body.errors?.[0]?.name).toHaveLength(PROBLEM_BOUNDS.text);
    expect(body.errors?.[0]?.value).toHaveLength(PROBLEM_BOUNDS.text);
    expect(body.errorsOmitted).toBeUndefined();
  });
});

describe('X-Limit-Requested', () => {
  it('carries the raw string as sent, not a number rendering', async () => {
    const res = await collections.GET(new Request('http://t/v1/relics?limit=99999999999999999999999'));
    expect(res.status).toBe(200);
    expect(res.headers.get('x-limit-requested')).toBe('99999999999999999999999');
    expect(res.headers.get('x-limit-applied')).toBe('500');
  });

  it('cuts a very long limit to 32 characters', async () => {
    const res = await catalog.GET(new Request(`http://t/api/search?q=a&limit=${'9'.repeat(400)}`));
    expect(res.headers.get('x-limit-requested')).toBe('9'.repeat(29) + '...');
    expect(res.headers.get('x-limit-applied')).toBe('200');
  });

  it('keeps a small clamped value as sent', async () => {
    const res = await registries.GET(new Request('http://t/api/v1/icons?limit=0501'));
    expect(res.headers.get('x-limit-requested')).toBe('0501');
  });
});

describe('no source files or routing internals in error details', () => {
  it.each([
    ['PROPFIND', '/api/search?q=a'],
    ['POST', '/v1/relics'],
    ['DELETE', '/api/v1/icons'],
    ['GET', '/api/catalog'],
    ['GET', '/api/nowhere'],
    ['GET', '/v1/unknown'],
    ['PUT', '/api/v1/systems-catalog.json'],
  ])('%s %s', async (method, path) => {
    for (const entry of [catalog, collections, registries]) {
      const res = await entry.GET(new Request(`http://t${path}`, { method }));
      const text = await res.text();
      expect(res.status).toBeGreaterThanOrEqual(400);
      expect(text).not.toMatch(/\.ts\b|vercel\.json|_route|_lib|entry file/);
    }
  });
});
