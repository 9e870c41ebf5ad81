// The entry helper (api/_lib/http/entry.ts) over the real route table: route lookup from the public path,
// method dispatch, OPTIONS preflight with the route's real methods, 405 with a true Allow, HEAD, 404, and
// the refusal of an entry whose handlers disagree with the table (docs/architecture.md, "Functions").
import { describe, expect, it } from 'vitest';
import { allowOf, defineEntry, type EntryExports } from '../../api/_lib/http/entry.js';
import { ServiceError } from '../../api/_lib/errors.js';
import { ROUTES, matchPath, routesOf, vercelSource, type RouteDef } from '../../api/_lib/routing/table.js';

const ok = (body: string) => () => new Response(body, { status: 200, headers: { 'X-Body': body } });

/** An entry over the catalog's routes that echoes which route answered. */
/** Built on first use, so a broken `defineEntry` fails the tests that use it rather than the file's loading. */
let built: EntryExports | undefined;
const entry = (): EntryExports =>
  (built ??= defineEntry('catalog', {
    search: { GET: ({ key, url }) => Response.json({ route: 'search', key: key ?? null, q: url.searchParams.get('q') }) },
    stats: { GET: ok('stats') },
    export: { GET: ok('export') },
    retired: {
      GET: () => {
        throw new ServiceError('NOT_FOUND', 'retired');
      },
    },
    'not-found': {
      GET: ({ key }) => {
        throw new ServiceError('NOT_FOUND', `none: ${key === undefined ? '(no key)' : key}`);
      },
    },
  }));

const call = (path: string, init?: RequestInit) => entry().GET(new Request(`http://t${path}`, init));

describe('route lookup', () => {
  it('answers a public path with its own route, whatever routing parameters the client adds', async () => {
    const res = await call('/api/search?q=oak&_route=stats&_key=x');
    expect(await res.json()).toEqual({ route: 'search', key: null, q: 'oak' });
  });

  it('reads _route on the entry path (as a Vercel rewrite hands it over); _key only for keyed routes', async () => {
    expect(await (await call('/api/catalog?_route=search&q=a&_key=zz')).json()).toEqual({ route: 'search', key: null, q: 'a' });
    expect((await call('/api/catalog?_route=stats')).headers.get('x-body')).toBe('stats');
  });

  it('404 for the bare entry path, an unknown _route, a route of another entry, or a path no route has', async () => {
    for (const path of ['/api/catalog', '/api/catalog?_route=bogus', '/api/catalog?_route=relics', '/v1/relics', '/nowhere']) {
      const res = await call(path);
      expect(res.status, path).toBe(404);
      expect(res.headers.get('content-type')).toBe('application/problem+json');
      expect(((await res.json()) as { code: string }).code).toBe('NOT_FOUND');
    }
  });

  it('gives the key of a catch-all to its handler, decoded', async () => {
    const res = await call('/api/some%20where/deep');
    expect(((await res.json()) as { detail: string }).detail).toBe('none: some where/deep');
  });

  it('matches case-insensitively and with a trailing slash', () => {
    expect(matchPath('/API/SEARCH')?.route.name).toBe('search');
    expect(matchPath('/v1/relics/')?.route.name).toBe('relics');
    expect(matchPath('/v1/relics/a/b')?.route.name).toBe('not-found');
  });

  it('refuses bad percent-encoding in a key as naming nothing', () => {
    expect(matchPath('/v1/relics/%E0%A4%A')).toEqual({
      route: expect.objectContaining({ name: 'relics-item' }) as RouteDef,
      key: undefined,
    });
  });
});

describe('keys of gone routes', () => {
  it('gives a catch-all no key when the entry path carries an empty _key, and the key when it has one', async () => {
    const none = (await (await call('/api/catalog?_route=not-found&_key=')).json()) as { detail: string };
    expect(none.detail).toBe('none: (no key)');
    const some = (await (await call('/api/catalog?_route=not-found&_key=a%2Fb')).json()) as { detail: string };
    expect(some.detail).toBe('none: a/b');
  });
});

describe('methods', () => {
  it('echoes at most 16 characters of an unknown method in the 405 detail', async () => {
    const method = 'PROPFIND'.repeat(8);
    const res = await entry().GET(new Request('http://t/api/stats', { method }));
    expect(res.status).toBe(405);
    const body = (await res.json()) as { detail: string };
    expect(body.detail).toContain(method.slice(0, 16));
    expect(body.detail).not.toContain(method.slice(0, 17));
  });

  it("answers OPTIONS with a preflight listing the route's real methods", async () => {
    const res = await entry().OPTIONS(new Request('http://t/api/search', { method: 'OPTIONS' }));
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-methods')).toBe('GET, HEAD, OPTIONS');
    expect(res.headers.get('allow')).toBe('GET, HEAD, OPTIONS');
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(res.headers.get('access-control-allow-headers')).toContain('Authorization');
  });

  it('answers a method the route does not declare with 405 and a true Allow, through every export', async () => {
    for (const method of ['POST', 'PUT', 'PATCH', 'DELETE'] as const) {
      const res = await entry()[method](new Request('http://t/api/stats', { method }));
      expect(res.status, method).toBe(405);
      expect(res.headers.get('allow')).toBe('GET, HEAD, OPTIONS');
      expect(res.headers.get('access-control-allow-origin')).toBe('*');
      const body = (await res.json()) as { code: string; detail: string };
      expect(body.code).toBe('METHOD_NOT_ALLOWED');
      expect(body.detail).not.toMatch(/\.ts|api\/|vercel/);
    }
  });

  it('runs GET for HEAD and drops the body, keeping status and headers', async () => {
    const res = await entry().HEAD(new Request('http://t/api/stats', { method: 'HEAD' }));
    expect(res.status).toBe(200);
    expect(res.headers.get('x-body')).toBe('stats');
    expect(await res.text()).toBe('');
  });

  it('answers every method on a gone route with 404, OPTIONS included', async () => {
    for (const method of ['GET', 'POST', 'DELETE', 'OPTIONS']) {
      const res = await call('/api/v1/systems-catalog.json', { method });
      expect(res.status, method).toBe(404);
    }
  });

  it('lists POST, PATCH and DELETE routes in Allow with HEAD only after GET', () => {
    const route = { path: '/x', entry: 'catalog', name: 'x', methods: ['GET', 'PATCH', 'DELETE'], access: 'public' } as const;
    expect(allowOf(route)).toBe('GET, HEAD, PATCH, DELETE, OPTIONS');
    expect(allowOf({ ...route, methods: ['POST'] })).toBe('POST, OPTIONS');
  });

  it('maps an unexpected failure to a 500 that leaks nothing', async () => {
    const broken = defineEntry('catalog', {
      search: {
        GET: () => {
          throw new Error('secret detail /etc/passwd');
        },
      },
      stats: { GET: ok('s') },
      export: { GET: ok('e') },
      retired: { GET: ok('r') },
      'not-found': { GET: ok('n') },
    });
    const errors: unknown[] = [];
    const original = console.error;
    console.error = (...args: unknown[]) => void errors.push(args);
    try {
      const res = await broken.GET(new Request('http://t/api/search?q=a'));
      expect(res.status).toBe(500);
      const text = await res.text();
      expect(text).not.toContain('secret');
      expect(text).not.toContain('passwd');
      expect(JSON.parse(text)).toMatchObject({ code: 'INTERNAL', status: 500 });
      expect(errors).toHaveLength(1);
    } finally {
      console.error = original;
    }
  });
});

describe('the table and the entries agree', () => {
  it('refuses at definition time a declared method without a handler, or a handler the table does not declare', () => {
    const all = {
      search: { GET: ok('') },
      stats: { GET: ok('') },
      export: { GET: ok('') },
      retired: { GET: ok('') },
      'not-found': { GET: ok('') },
    };
    expect(() => defineEntry('catalog', { ...all, stats: {} })).toThrow(/stats declares GET/);
    expect(() => defineEntry('catalog', { ...all, stats: { GET: ok(''), POST: ok('') } })).toThrow(/POST handler/);
    expect(() => defineEntry('catalog', { ...all, extra: { GET: ok('') } })).toThrow(/unknown route extra/);
    expect(() => defineEntry('catalog', all)).not.toThrow();
  });

  it('has unique route names within each entry and unique public paths', () => {
    for (const e of ['catalog', 'collections', 'registries'] as const) {
      const names = routesOf(e)
        .filter((r) => !r.gone)
        .map((r) => r.name);
      expect(new Set(names).size, e).toBe(names.length);
    }
    const paths = ROUTES.map((r) => r.path.toLowerCase());
    expect(new Set(paths).size).toBe(paths.length);
  });

  it("renders key placeholders in Vercel's syntax", () => {
    expect(vercelSource('/v1/relics/{key}')).toBe('/v1/relics/:_key');
    expect(vercelSource('/api/storage/{key+}')).toBe('/api/storage/:_key+');
    expect(vercelSource('/api/{key*}')).toBe('/api/:_key*');
  });
});

/** An entry over the collection routes (keyed item routes, no catch-all) that echoes route and key. */
const echo = ({ route, key }: { route: RouteDef; key: string | undefined }) => Response.json({ route: route.name, key: key ?? null });
let collections: EntryExports | undefined;
const callCollections = async (path: string, init?: RequestInit) => {
  collections ??= defineEntry('collections', Object.fromEntries(routesOf('collections').map((r) => [r.name, { GET: echo }])));
  return collections.GET(new Request(`http://t${path}`, init));
};

describe('keyed routes', () => {
  it('gives a keyed route its decoded key, from the public path and from the rewritten form', async () => {
    expect(await (await callCollections('/v1/relics/fire%20ring')).json()).toEqual({ route: 'relics-item', key: 'fire ring' });
    expect(await (await callCollections('/api/collections?_route=relics-item&_key=fire-ring')).json()).toEqual({
      route: 'relics-item',
      key: 'fire-ring',
    });
    expect(await (await callCollections('/api/collections?_route=relics&_key=fire-ring')).json()).toEqual({ route: 'relics', key: null });
  });

  it('answers 404 to a keyed route whose key is missing or names nothing', async () => {
    for (const path of ['/v1/relics/%E0%A4%A', '/api/collections?_route=relics-item', '/api/collections?_route=relics-item&_key=']) {
      const res = await callCollections(path);
      expect(res.status, path).toBe(404);
      expect(((await res.json()) as { code: string }).code).toBe('NOT_FOUND');
    }
  });

  it('reads the entry path in any case and with trailing slashes', async () => {
    expect(await (await callCollections('/API/Collections//?_route=enchants')).json()).toEqual({ route: 'enchants', key: null });
    expect((await call('/api/catalog/?_route=stats')).headers.get('x-body')).toBe('stats');
  });

  it('names the requested path as the problem instance', async () => {
    const res = await callCollections('/v1/nothing-here');
    expect(res.status).toBe(404);
    expect(((await res.json()) as { instance: string }).instance).toBe('/v1/nothing-here');
  });
});

describe('HEAD', () => {
  it('keeps status, status text and headers of a bodiless GET answer', async () => {
    const e = defineEntry('catalog', {
      search: { GET: () => new Response(null, { status: 304, statusText: 'Not Modified', headers: { ETag: '"x"' } }) },
      stats: { GET: () => new Response('body', { status: 202, statusText: 'Later', headers: { 'X-Body': 'stats' } }) },
      export: { GET: ok('e') },
      retired: { GET: ok('r') },
      'not-found': { GET: ok('n') },
    });
    const notModified = await e.HEAD(new Request('http://t/api/search', { method: 'HEAD' }));
    expect(notModified.status).toBe(304);
    expect(notModified.headers.get('etag')).toBe('"x"');
    const later = await e.HEAD(new Request('http://t/api/stats', { method: 'HEAD' }));
    expect(later.status).toBe(202);
    expect(later.statusText).toBe('Later');
    expect(later.headers.get('x-body')).toBe('stats');
    expect(await later.text()).toBe('');
    expect(await (await e.GET(new Request('http://t/api/stats'))).text()).toBe('body');
  });

  it('answers a method no route declares (PROPFIND) with 405 and a true Allow', async () => {
    const res = await entry().GET(new Request('http://t/api/stats', { method: 'PROPFIND' }));
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('GET, HEAD, OPTIONS');
  });
});

describe('entry definition', () => {
  it('refuses an entry missing a route altogether, and exports one frozen dispatcher per method', () => {
    const all = {
      search: { GET: ok('') },
      stats: { GET: ok('') },
      export: { GET: ok('') },
      retired: { GET: ok('') },
      'not-found': { GET: ok('') },
    };
    const withoutStats: Record<string, { GET: () => Response }> = { ...all };
    delete withoutStats.stats;
    expect(() => defineEntry('catalog', withoutStats)).toThrow(/stats declares GET/);
    const exports = defineEntry('catalog', all);
    expect(Object.isFrozen(exports)).toBe(true);
    expect(Object.keys(exports).sort()).toEqual(['DELETE', 'GET', 'HEAD', 'OPTIONS', 'PATCH', 'POST', 'PUT']);
    expect(new Set(Object.values(exports)).size).toBe(1);
  });
});

describe('headers of every answer', () => {
  const cacheable = defineEntry('catalog', {
    search: {
      GET: () => new Response('{}', { headers: { 'Cache-Control': 'public, max-age=300', 'CDN-Cache-Control': 'public, max-age=300' } }),
    },
    stats: { GET: ok('stats') },
    export: { GET: ok('export') },
    retired: { GET: ok('retired') },
    'not-found': {
      GET: () => {
        throw new ServiceError('NOT_FOUND', 'none');
      },
    },
  });

  it('carries nosniff on answers, refusals, preflights and HEADs alike', async () => {
    for (const [method, path] of [
      ['GET', '/api/search'],
      ['GET', '/api/stats'],
      ['GET', '/api/v1/missing.json'],
      ['OPTIONS', '/api/search'],
      ['HEAD', '/api/stats'],
      ['POST', '/api/search'],
    ] as const) {
      const res = await cacheable[method](new Request(`http://t${path}`, { method }));
      expect(res.headers.get('x-content-type-options'), `${method} ${path}`).toBe('nosniff');
    }
  });

  it('keeps the edge from storing an error or an answer that set no edge cache time of its own', async () => {
    const missing = await cacheable.GET(new Request('http://t/api/v1/missing.json'));
    expect(missing.status).toBe(404);
    expect(missing.headers.get('cdn-cache-control')).toBe('no-store');
    expect((await cacheable.GET(new Request('http://t/api/stats'))).headers.get('cdn-cache-control')).toBe('no-store');
    // an answer that set its own edge cache time keeps it
    expect((await cacheable.GET(new Request('http://t/api/search'))).headers.get('cdn-cache-control')).toBe('public, max-age=300');
  });

  it('sets them on a copy when the handler answered with immutable headers', async () => {
    const frozen = defineEntry('catalog', {
      search: { GET: () => Response.redirect('http://t/elsewhere', 302) },
      stats: { GET: ok('stats') },
      export: { GET: ok('export') },
      retired: { GET: ok('retired') },
      'not-found': { GET: ok('none') },
    });
    const res = await frozen.GET(new Request('http://t/api/search'));
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe('http://t/elsewhere');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });
});
