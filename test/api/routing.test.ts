// vercel.json proves, through Vercel's own @vercel/routing-utils, that every public path of the spec
// (4.1-4.8) reaches the right place: static catalog files under dist/, or the right function entry
// with the right _route/_key; and that the retired systems catalog is never a file (spec 7, 9.3).
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { getTransformedRoutes, type Route } from '@vercel/routing-utils';
import { createResolver, toRelativeFile, type Resolution } from '../../dev/resolve.js';
import { ENTRIES, ROUTES, matchPath, vercelRewrites } from '../../api/_lib/routing/table.js';
import { ENTRY_CATALOG_FILES, ENTRY_PROJECT_FILES } from '../../api/_lib/routing/bundles.js';
import { globOf, renderVercelConfig, renderVercelJson, vercelCrons } from '../../dev/vercel-config.js';
import picomatch from 'picomatch';
import { Ajv } from 'ajv';
import { functionsSchema } from '@vercel/build-utils';
import { exportFile, collectionItemFile, MANIFEST_FILE, SEARCH_INDEX_FILE, STATS_FILE } from '../../api/_lib/formats/index.js';

const repo = resolve(import.meta.dirname, '../..');
const config = JSON.parse(readFileSync(join(repo, 'vercel.json'), 'utf8')) as {
  rewrites: unknown;
  functions: Record<string, { includeFiles?: string; maxDuration?: number }>;
  outputDirectory: string;
  buildCommand: string;
  cleanUrls?: boolean;
  trailingSlash?: boolean;
};
const transformed = getTransformedRoutes(config as Parameters<typeof getTransformedRoutes>[0]);
const COLLECTIONS = ['relics', 'enchants', 'infusions', 'artifacts'];

// A representative output folder: catalog files of spec 4.1 plus the derived files of the contract.
const DIST_FILES = new Set([
  'index.html',
  ...[
    'weapons.json',
    'armor.json',
    'materials.json',
    'consumables.json',
    'weaponSkills.json',
    'skills.json',
    'enemies.json',
    'bosses.json',
    'sprites.json',
    'sprites2d.json',
    'spriteMaps.json',
    'classes.json',
    'factionUnits.json',
    'studiodot-assets.json',
    'sprite-characters.json',
    'master-items.json',
    'master-relics.json',
    'warlords-catalog.json',
    'icon-registry.json',
    'icon-shards/weapon.json',
    'home-island-contract.json',
    'uuid-law.json',
    'stats.json',
  ].map((f) => `api/v1/${f}`),
  MANIFEST_FILE,
  SEARCH_INDEX_FILE,
  STATS_FILE,
  exportFile('weapons'),
  collectionItemFile('relics', 'fire-ring'),
  'schemas/responses/search.schema.json',
]);

const resolveAs = (routes: readonly Route[], functions: readonly string[]) =>
  createResolver(routes, { isFile: (rel) => DIST_FILES.has(rel), hasFunction: (name) => functions.includes(name) });
const resolveAllPaths = resolveAs(transformed.routes ?? [], ENTRIES);
/** Resolve `path` (which may carry a query) with every entry file present. */
const resolveAll = (method: string, path: string): Promise<Resolution> => {
  const u = new URL(path, 'http://h');
  return resolveAllPaths(method, u.pathname, u.search);
};

function fn(r: Resolution): { entry: string; route: string | null; key: string | null; query: URLSearchParams } {
  if (r.kind !== 'function') throw new Error(`expected a function, got ${JSON.stringify(r)}`);
  const query = new URLSearchParams(r.search);
  return { entry: r.entry, route: query.get('_route'), key: query.get('_key'), query };
}

describe('vercel.json', () => {
  it('is valid for Vercel routing', () => {
    expect(transformed.error).toBeNull();
    expect(transformed.routes?.length).toBeGreaterThan(0);
  });

  it('is exactly what `npm run routes` writes from the route table', () => {
    expect(readFileSync(join(repo, 'vercel.json'), 'utf8')).toBe(renderVercelJson());
  });

  it('has one rewrite per distinct public path, onto an entry file that exists', () => {
    expect(config.rewrites).toEqual(vercelRewrites(() => true));
    const sources = ROUTES.map((r) => r.path.replace(/\{key([+*]?)\}/g, ':_key$1'));
    expect((config.rewrites as { source: string }[]).map((r) => r.source)).toEqual([...new Set(sources)]);
  });

  it('leaves out the routes of an entry whose file does not exist', () => {
    const onlyCatalog = vercelRewrites((e) => e === 'catalog');
    expect(onlyCatalog.every((r) => r.destination.startsWith('/api/catalog?'))).toBe(true);
    expect(onlyCatalog.map((r) => r.source)).toEqual([
      '/api/search',
      '/api/stats',
      '/api/export',
      '/api/v1/systems-catalog.json',
      '/api/:_key*',
      '/v1/:_key*',
    ]);
  });

  it('builds with npm run build into dist and bundles each function with only its own catalog files', () => {
    expect(config.buildCommand).toBe('npm run build');
    expect(config.outputDirectory).toBe('dist');
    expect(Object.keys(config.functions).sort()).toEqual(ENTRIES.map((e) => `api/${e}.ts`).sort());
    const sample = [
      ...DIST_FILES,
      'api/v1/classes.json',
      'api/v1/master-recipes.json',
      'api/v1/collections/relics.cidx',
      'api/v1/exports/armor.json',
      'api/v1/icon-registry.json',
      'api/v1/sprite-stats.json',
    ].map((f) => `dist/${f}`);
    for (const entry of ENTRIES) {
      const settings = config.functions[`api/${entry}.ts`]!;
      // entries that serve the catalog bundle its files; the ledger entries bundle none (no includeFiles)
      expect(settings.includeFiles === undefined, entry).toBe(
        ENTRY_CATALOG_FILES[entry].length === 0 && ENTRY_PROJECT_FILES[entry].length === 0,
      );
      if (settings.includeFiles === undefined) continue;
      const own = picomatch(ENTRY_CATALOG_FILES[entry].map((f) => `dist/${f}`));
      const bundled = picomatch(settings.includeFiles);
      expect(
        sample.filter((f) => bundled(f)),
        entry,
      ).toEqual(sample.filter((f) => own(f)));
      expect(sample.filter((f) => bundled(f)).length > 1, entry).toBe(true);
      expect(settings.maxDuration).toBeGreaterThan(0);
    }
  });

  it("passes Vercel's own schema of the functions block (includeFiles is one string of at most 256 characters)", () => {
    const ajv = new Ajv({ strict: false });
    const valid = ajv.validate(functionsSchema, config.functions);
    expect(ajv.errors ?? []).toEqual([]);
    expect(valid).toBe(true);
  });

  it('renders includeFiles globs around the common folder and extension, and refuses one Vercel would reject', () => {
    expect(globOf(['dist/a.json'])).toBe('dist/a.json');
    expect(globOf(['dist/api/v1/a.json', 'dist/api/v1/b/*.json'])).toBe('dist/api/v1/{a,b/*}.json');
    expect(globOf(['dist/x/a.json', 'dist/y/b.txt'])).toBe('dist/{x/a.json,y/b.txt}');
    expect(() => globOf(Array.from({ length: 40 }, (_, i) => `dist/api/v1/file-number-${i}.json`))).toThrow(/256/);
  });

  it('declares the daily ledger check for Vercel Cron, on a route whose GET only the cron secret opens', () => {
    expect(renderVercelConfig().crons).toEqual([{ path: '/api/admin/ledger/verify', schedule: '17 4 * * *' }]);
    expect(matchPath('/api/admin/ledger/verify')?.route.access).toEqual({ GET: 'cron', POST: 'admin' });
    // a job must name a keyless route of the table whose GET has the cron access
    for (const route of ['no-such-route', 'ledger-health', 'reversals', 'account'])
      expect(() => vercelCrons([{ entry: 'admin', route, schedule: '0 0 * * *' }]), route).toThrow(/cron access/);
  });

  it('keeps clean URLs off, so /api/v1/stats and /api/v1/sprites stay functions next to stats.json and sprites.json', async () => {
    expect(config.cleanUrls).not.toBe(true);
    expect(fn(await resolveAll('GET', '/api/v1/stats')).route).toBe('stats');
    expect(fn(await resolveAll('GET', '/api/v1/sprites')).route).toBe('sprites');
  });

  it('sends static files to clients with a 300 s public cache, and the same to the edge through CDN-Cache-Control', async () => {
    const r = await resolveAll('GET', '/api/v1/weapons.json');
    expect(r.headers['cache-control']).toBe('public, max-age=300');
    expect(r.headers['cdn-cache-control']).toBe('public, max-age=300');
    expect(JSON.stringify(config)).not.toContain('s-maxage');
  });
});

describe('spec 4.1: static catalog files are served from dist/', () => {
  const files = [
    'weapons.json',
    'armor.json',
    'skills.json',
    'sprites2d.json',
    'studiodot-assets.json',
    'master-relics.json',
    'warlords-catalog.json',
    'icon-shards/weapon.json',
    'game-data-manifest.json',
    'stats.json',
    'relics/fire-ring.json',
  ];
  it.each(files)('/api/v1/%s', async (file) => {
    const r = await resolveAll('GET', `/api/v1/${file}`);
    expect(r).toMatchObject({ kind: 'static', file: `api/v1/${file}` });
    expect(r.headers['access-control-allow-origin']).toBe('*');
  });

  it('serves the site and the schemas', async () => {
    expect(await resolveAll('GET', '/')).toMatchObject({ kind: 'static', file: 'index.html' });
    expect(await resolveAll('GET', '/schemas/responses/search.schema.json')).toMatchObject({ kind: 'static' });
  });
});

describe('spec 7, 9.3: the retired systems catalog', () => {
  it('is never a file: it reaches the catalog function, which answers 404', async () => {
    const r = await resolveAll('GET', '/api/v1/systems-catalog.json');
    expect(r.kind).not.toBe('static');
    expect(fn(r)).toMatchObject({ entry: 'catalog', route: 'retired' });
  });

  it('stays the retired answer with a query added', async () => {
    expect(fn(await resolveAll('GET', '/api/v1/systems-catalog.json?x=1')).route).toBe('retired');
  });
});

// [method, path, entry, _route, _key]
type Case = [string, string, string, string, string | null];
const CASES: Case[] = [
  // 4.2 item collections (+ lookups by id, uuid or slug)
  ...COLLECTIONS.flatMap((name): Case[] => [
    ['GET', `/v1/${name}`, 'collections', name, null],
    ['GET', `/v1/${name}/some-slug`, 'collections', `${name}-item`, 'some-slug'],
  ]),
  ['GET', '/v1/relics/RELC-0001', 'collections', 'relics-item', 'RELC-0001'],
  ['GET', '/v1/relics/Fire%20Ring', 'collections', 'relics-item', 'Fire Ring'],
  // a static item file's path the build wrote no file for (itemFileBudget): the collections function
  ...COLLECTIONS.map((name): Case => ['GET', `/api/v1/${name}/no-such-file.json`, 'collections', `${name}-file`, 'no-such-file']),
  ['GET', '/api/v1/relics/Fire%20Ring.json', 'collections', 'relics-file', 'Fire Ring'],
  // 4.3 asset search
  ['GET', '/api/v1/studiodot-assets', 'registries', 'studiodot-assets', null],
  ['GET', '/api/v1/studiodot-assets/categories', 'registries', 'studiodot-assets-categories', null],
  // 4.4 search, stats, export
  ['GET', '/api/search', 'catalog', 'search', null],
  ['GET', '/api/stats', 'catalog', 'stats', null],
  ['GET', '/api/export', 'catalog', 'export', null],
  // 4.5 sprite registry
  ['GET', '/api/v1/sprites', 'registries', 'sprites', null],
  ['GET', '/api/v1/sprites/search', 'registries', 'sprites-search', null],
  ['GET', '/api/v1/sprites/SPRT-0a1b2c3d-4e5f60', 'registries', 'sprite', 'SPRT-0a1b2c3d-4e5f60'],
  ['GET', '/api/v1/characters', 'registries', 'characters', null],
  ['GET', '/api/v1/characters/2b6f0cc9-04b3-4c0f-8d1e-7f5e0c1a9b11', 'registries', 'character', '2b6f0cc9-04b3-4c0f-8d1e-7f5e0c1a9b11'],
  ['GET', '/api/v1/stats', 'registries', 'stats', null],
  // 4.6 icon registry and legacy assets
  ['GET', '/api/v1/icons', 'registries', 'icons', null],
  ['GET', '/api/v1/icons/search', 'registries', 'icons-search', null],
  ['GET', '/api/v1/icons/by-path', 'registries', 'icons-by-path', null],
  ['GET', '/api/v1/icons/categories', 'registries', 'icons-categories', null],
  ['GET', '/api/v1/icons/ICON-AB12-CD34-EF56', 'registries', 'icon', 'ICON-AB12-CD34-EF56'],
  ['GET', '/api/assets/categories', 'registries', 'legacy-categories', null],
  ['GET', '/api/assets/search', 'registries', 'legacy-search', null],
  ['GET', '/api/assets/3f0c9a1e-8d7b-4c2a-9e6f-1b2c3d4e5f60', 'registries', 'legacy-asset', '3f0c9a1e-8d7b-4c2a-9e6f-1b2c3d4e5f60'],
  // 4.8 wallet and admin
  ['POST', '/api/wallet/verify-send-to-account', 'wallet', 'verify-send', null],
  ['GET', '/api/wallet/overview', 'wallet', 'overview', null],
  ['POST', '/api/admin/accounts', 'admin', 'accounts', null],
  ['GET', '/api/admin/accounts/STUDIO_7QF3K2M9X4D1H8TB', 'admin', 'account', 'STUDIO_7QF3K2M9X4D1H8TB'],
  ['POST', '/api/admin/grant-coin', 'admin', 'grant-coin', null],
  ['POST', '/api/admin/session', 'admin', 'session', null],
  ['GET', '/api/admin/players', 'admin', 'players', null],
  ['GET', '/api/admin/audit', 'admin', 'audit', null],
  ['GET', '/api/admin/players/STUDIO_7QF3K2M9X4D1H8TB', 'admin', 'player', 'STUDIO_7QF3K2M9X4D1H8TB'],
  ['GET', '/api/admin/players/STUDIO_7QF3K2M9X4D1H8TB/wallet', 'admin', 'player-wallet', 'STUDIO_7QF3K2M9X4D1H8TB'],
  ['GET', '/api/admin/players/STUDIO_7QF3K2M9X4D1H8TB/bag', 'admin', 'player-bag', 'STUDIO_7QF3K2M9X4D1H8TB'],
  ['GET', '/api/admin/players/STUDIO_7QF3K2M9X4D1H8TB/items', 'admin', 'player-items', 'STUDIO_7QF3K2M9X4D1H8TB'],
  ['GET', '/api/admin/items/3f0c9a1e-8d7b-4c2a-9e6f-1b2c3d4e5f60/events', 'admin', 'item-history', '3f0c9a1e-8d7b-4c2a-9e6f-1b2c3d4e5f60'],
  ['GET', '/api/admin/players/STUDIO_7QF3K2M9X4D1H8TB/island', 'admin', 'player-island', 'STUDIO_7QF3K2M9X4D1H8TB'],
  ['GET', '/api/admin/players/STUDIO_7QF3K2M9X4D1H8TB/characters', 'admin', 'player-characters', 'STUDIO_7QF3K2M9X4D1H8TB'],
  ['POST', '/api/admin/players/STUDIO_7QF3K2M9X4D1H8TB/revoke-sessions', 'admin', 'revoke-sessions', 'STUDIO_7QF3K2M9X4D1H8TB'],
  ['POST', '/api/admin/players/STUDIO_7QF3K2M9X4D1H8TB/ban', 'admin', 'ban', 'STUDIO_7QF3K2M9X4D1H8TB'],
  ['POST', '/api/admin/players/STUDIO_7QF3K2M9X4D1H8TB/unban', 'admin', 'unban', 'STUDIO_7QF3K2M9X4D1H8TB'],
  ['POST', '/api/admin/players/STUDIO_7QF3K2M9X4D1H8TB/erase', 'admin', 'erase', 'STUDIO_7QF3K2M9X4D1H8TB'],
  ['GET', '/api/admin/players/STUDIO_7QF3K2M9X4D1H8TB/export', 'admin', 'player-export', 'STUDIO_7QF3K2M9X4D1H8TB'],
  ['GET', '/api/account/export', 'player', 'account-export', null],
  ['POST', '/api/admin/reversals', 'admin', 'reversals', null],
  ['GET', '/api/admin/ledger/verify', 'admin', 'ledger-verify', null],
  ['POST', '/api/admin/ledger/verify', 'admin', 'ledger-verify', null],
  ['GET', '/api/admin/ledger/health', 'admin', 'ledger-health', null],
  ['POST', '/api/admin/bag-reversals', 'admin', 'bag-reversals', null],
  ['POST', '/api/admin/items/3f0c9a1e-8d7b-4c2a-9e6f-1b2c3d4e5f60/void', 'admin', 'item-void', '3f0c9a1e-8d7b-4c2a-9e6f-1b2c3d4e5f60'],
  // 2.9, 4.8 player state: island, characters (a key in the middle of the path), account recipes
  ['GET', '/api/island/spec', 'player', 'spec', null],
  ['PATCH', '/api/island/state', 'player', 'state', null],
  ['POST', '/api/island/export-from-rts', 'player', 'export-from-rts', null],
  ['POST', '/api/characters', 'player', 'characters', null],
  ['PATCH', '/api/characters/2b6f0cc9-04b3-4c0f-8d1e-7f5e0c1a9b11/progress', 'player', 'progress', '2b6f0cc9-04b3-4c0f-8d1e-7f5e0c1a9b11'],
  ['GET', '/api/account/recipes', 'player', 'recipes', null],
  ['POST', '/api/auth/external', 'player', 'external', null],
  ['POST', '/api/auth/external-link', 'player', 'external-link', null],
  ['POST', '/api/auth/logout', 'player', 'logout', null],
  ['POST', '/api/uuid', 'player', 'uuid', null],
  ['GET', '/api/inventory', 'player', 'inventory', null],
  ['POST', '/api/inventory/grant', 'player', 'inventory-grant', null],
  ['POST', '/api/inventory/consume', 'player', 'inventory-consume', null],
  ['GET', '/api/ledger/2b6f0cc9-04b3-4c0f-8d1e-7f5e0c1a9b11', 'player', 'item', '2b6f0cc9-04b3-4c0f-8d1e-7f5e0c1a9b11'],
  ['POST', '/api/ledger/2b6f0cc9-04b3-4c0f-8d1e-7f5e0c1a9b11/events', 'player', 'item-events', '2b6f0cc9-04b3-4c0f-8d1e-7f5e0c1a9b11'],
  // 4.7 storage: the named routes, and keys with folders, spaces and non-ASCII characters
  ['POST', '/api/storage/upload', 'storage', 'upload', null],
  ['POST', '/api/storage/upload-multi', 'storage', 'upload-multi', null],
  ['POST', '/api/storage/upload-zip', 'storage', 'upload-zip', null],
  ['POST', '/api/storage/presign', 'storage', 'presign', null],
  ['GET', '/api/storage/list', 'storage', 'list', null],
  ['POST', '/api/storage/register', 'storage', 'register', null],
  ['GET', '/api/storage/index', 'storage', 'index', null],
  ['DELETE', '/api/storage/era1/models/anvil.glb', 'storage', 'object', 'era1/models/anvil.glb'],
  ['DELETE', '/api/storage/era1/%C3%89p%C3%A9e%20de%20feu.png', 'storage', 'object', 'era1/Épée de feu.png'],
  // everything else under the API: a problem+json 404
  ['GET', '/api/nope', 'catalog', 'not-found', 'nope'],
  ['GET', '/v1/unknown-collection', 'catalog', 'not-found', 'unknown-collection'],
  ['GET', '/api/v1/missing-file.json', 'catalog', 'not-found', 'v1/missing-file.json'],
  ['POST', '/api/wallet/send', 'catalog', 'not-found', 'wallet/send'],
];

describe('spec 4.2-4.8: every public path reaches its entry file with _route and _key', () => {
  it.each(CASES)('%s %s → api/%s.ts _route=%s _key=%s', async (method, path, entry, route, key) => {
    const r = fn(await resolveAll(method, path));
    expect(r).toMatchObject({ entry, route, key });
    // the entry helper's own lookup of the public path agrees with Vercel's routing
    const m = matchPath(new URL(path, 'http://h').pathname);
    expect({ entry: m?.route.entry, route: m?.route.name, key: m?.key }).toEqual({ entry, route, key: key ?? undefined });
  });

  it('keeps the client query and lets rewrite parameters win over client ones', async () => {
    const r = fn(await resolveAll('GET', '/v1/relics/fire?_route=enchants&_key=x&tier=3&q=fire'));
    expect(r.route).toBe('relics-item');
    expect(r.key).toBe('fire');
    expect(r.query.getAll('_route')).toEqual(['relics-item']);
    expect(r.query.get('tier')).toBe('3');
    expect(r.query.get('q')).toBe('fire');
  });

  it('matches paths case-insensitively, like Vercel', async () => {
    expect(fn(await resolveAll('GET', '/API/Search')).route).toBe('search');
  });

  it('covers every route of the table with at least one case', () => {
    const covered = new Set(
      CASES.map(([, path]) => {
        const m = matchPath(path);
        return `${m?.route.entry}:${m?.route.name}`;
      }),
    );
    covered.add('catalog:retired');
    for (const r of ROUTES) expect(covered, r.path).toContain(`${r.entry}:${r.name}`);
  });
});

describe('entry files', () => {
  it('reaches an entry directly at /api/<name> before any rewrite', async () => {
    expect(fn(await resolveAll('GET', '/api/catalog?_route=stats'))).toMatchObject({ entry: 'catalog', route: 'stats' });
  });

  it('never routes to a shared module under api/_lib', async () => {
    const r = await resolveAll('GET', '/api/_lib');
    expect(fn(r).entry).toBe('catalog');
    expect(fn(r).route).toBe('not-found');
  });

  it('falls back to the not-found answer while an entry file does not exist yet', async () => {
    const onlyCatalog = resolveAs(transformed.routes ?? [], ['catalog']);
    expect(fn(await onlyCatalog('GET', '/v1/relics'))).toMatchObject({ entry: 'catalog', route: 'not-found' });
  });

  it('exist for every entry of the table, each declaring its routes through the entry helper', () => {
    for (const entry of ENTRIES)
      expect(readFileSync(join(repo, `api/${entry}.ts`), 'utf8'), entry).toMatch(new RegExp(`defineEntry\\(\\s*'${entry}'`));
  });
});

describe('toRelativeFile', () => {
  it('maps paths to files and refuses escapes', () => {
    expect(toRelativeFile('/')).toBe('index.html');
    expect(toRelativeFile('/docs/')).toBe('docs/index.html');
    expect(toRelativeFile('/api/v1/a%20b.json')).toBe('api/v1/a b.json');
    for (const bad of ['/../x', '/a/%2e%2e/b', '/%2e%2e%2fetc', '/a\\b', '/.env', '/%E0%A4%A'])
      expect(toRelativeFile(bad), bad).toBeUndefined();
  });
});
