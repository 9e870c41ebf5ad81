// vercel.json proves, through Vercel's own @vercel/routing-utils, that every public path of the spec
// (4.1-4.8) reaches the right place: static catalog files under dist/, or the right function entry
// with the right _route/_key; and that the retired systems catalog is never a file (spec 7, 9.3).
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { getTransformedRoutes, type Route } from '@vercel/routing-utils';
import { createResolver, toRelativeFile, type Resolution } from '../api/_lib/routing/resolve.js';
import {
  CATALOG_ROUTES as C,
  COLLECTION_ROUTES,
  ENTRIES,
  REGISTRY_ROUTES as R,
  ROUTE_RULES,
  STORAGE_ROUTES as S,
  WALLET_ROUTES as W,
  matchPublicPath,
  vercelRewrites,
} from '../api/_lib/routing/routes.js';
import { REGISTRY_ROUTES as REGISTRY_TABLE } from '../api/_lib/registries/contract.js';
import { exportFile, collectionItemFile, MANIFEST_FILE, SEARCH_INDEX_FILE, STATS_FILE } from '../api/_lib/formats/index.js';

const repo = resolve(import.meta.dirname, '..');
const config = JSON.parse(readFileSync(join(repo, 'vercel.json'), 'utf8')) as {
  rewrites: unknown;
  functions: Record<string, { includeFiles?: string; maxDuration?: number }>;
  outputDirectory: string;
  buildCommand: string;
  cleanUrls?: boolean;
  trailingSlash?: boolean;
};
const transformed = getTransformedRoutes(config as Parameters<typeof getTransformedRoutes>[0]);

// A representative output folder: catalog files of spec 4.1 plus the derived files of the contract.
const DIST_FILES = new Set([
  'index.html',
  ...[
    'weapons.json', 'armor.json', 'materials.json', 'consumables.json', 'weaponSkills.json', 'skills.json',
    'enemies.json', 'bosses.json', 'sprites.json', 'sprites2d.json', 'spriteMaps.json', 'classes.json',
    'factionUnits.json', 'studiodot-assets.json', 'sprite-characters.json', 'master-items.json',
    'master-relics.json', 'warlords-catalog.json', 'icon-registry.json', 'icon-shards/weapon.json',
    'home-island-contract.json', 'uuid-law.json', 'stats.json',
  ].map((f) => `api/v1/${f}`),
  MANIFEST_FILE, SEARCH_INDEX_FILE, STATS_FILE, exportFile('weapons'), collectionItemFile('relics', 'fire-ring'),
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

  it('has exactly the rewrites of the route table (api/_lib/routing/routes.ts)', () => {
    expect(config.rewrites).toEqual(vercelRewrites());
  });

  it('builds with npm run build into dist and ships the catalog output with every function', () => {
    expect(config.buildCommand).toBe('npm run build');
    expect(config.outputDirectory).toBe('dist');
    const fns = Object.entries(config.functions);
    expect(fns).toHaveLength(1);
    const [glob, settings] = fns[0]!;
    expect(glob).toBe('api/*.ts');
    expect(settings.includeFiles).toBe('dist/api/v1/**');
    expect(settings.maxDuration).toBeGreaterThan(0);
  });

  it('keeps clean URLs off, so /api/v1/stats and /api/v1/sprites stay functions next to stats.json and sprites.json', async () => {
    expect(config.cleanUrls).not.toBe(true);
    expect(fn(await resolveAll('GET', '/api/v1/stats')).route).toBe(R.spriteStats);
    expect(fn(await resolveAll('GET', '/api/v1/sprites')).route).toBe(R.sprites);
  });
});

describe('spec 4.1: static catalog files are served from dist/', () => {
  const files = [
    'weapons.json', 'armor.json', 'skills.json', 'sprites2d.json', 'studiodot-assets.json', 'master-relics.json',
    'warlords-catalog.json', 'icon-shards/weapon.json', 'game-data-manifest.json', 'stats.json', 'relics/fire-ring.json',
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
    expect(fn(r)).toMatchObject({ entry: 'catalog', route: C.retired });
  });

  it('stays the retired answer with a query added', async () => {
    expect(fn(await resolveAll('GET', '/api/v1/systems-catalog.json?x=1')).route).toBe(C.retired);
  });
});

// [method, path, entry, _route, _key]
type Case = [string, string, string, string, string | null];
const CASES: Case[] = [
  // 4.2 item collections (+ lookups by id, uuid or slug)
  ...Object.values(COLLECTION_ROUTES).flatMap((name): Case[] => [
    ['GET', `/v1/${name}`, 'collections', name, null],
    ['GET', `/v1/${name}/some-slug`, 'collections', name, 'some-slug'],
  ]),
  ['GET', '/v1/relics/RELC-0001', 'collections', 'relics', 'RELC-0001'],
  ['GET', '/v1/relics/Fire%20Ring', 'collections', 'relics', 'Fire Ring'],
  // 4.3 asset search
  ['GET', '/api/v1/studiodot-assets', 'registries', R.studiodotAssets, null],
  ['GET', '/api/v1/studiodot-assets/categories', 'registries', R.studiodotAssetsCategories, null],
  // 4.4 search, stats, export
  ['GET', '/api/search', 'catalog', C.search, null],
  ['GET', '/api/stats', 'catalog', C.stats, null],
  ['GET', '/api/export', 'catalog', C.export, null],
  // 4.5 sprite registry
  ['GET', '/api/v1/sprites', 'registries', R.sprites, null],
  ['GET', '/api/v1/sprites/search', 'registries', R.spritesSearch, null],
  ['GET', '/api/v1/sprites/SPRT-0a1b2c3d-4e5f60', 'registries', R.sprite, 'SPRT-0a1b2c3d-4e5f60'],
  ['GET', '/api/v1/characters', 'registries', R.characters, null],
  ['GET', '/api/v1/characters/2b6f0cc9-04b3-4c0f-8d1e-7f5e0c1a9b11', 'registries', R.character, '2b6f0cc9-04b3-4c0f-8d1e-7f5e0c1a9b11'],
  ['GET', '/api/v1/stats', 'registries', R.spriteStats, null],
  // 4.6 icon registry and legacy assets
  ['GET', '/api/v1/icons', 'registries', R.icons, null],
  ['GET', '/api/v1/icons/search', 'registries', R.iconsSearch, null],
  ['GET', '/api/v1/icons/by-path', 'registries', R.iconsByPath, null],
  ['GET', '/api/v1/icons/categories', 'registries', R.iconCategories, null],
  ['GET', '/api/v1/icons/ICON-AB12-CD34-EF56', 'registries', R.icon, 'ICON-AB12-CD34-EF56'],
  ['GET', '/api/assets/categories', 'registries', R.assetsCategories, null],
  ['GET', '/api/assets/search', 'registries', R.assetsSearch, null],
  ['GET', '/api/assets/3f0c9a1e-8d7b-4c2a-9e6f-1b2c3d4e5f60', 'registries', R.asset, '3f0c9a1e-8d7b-4c2a-9e6f-1b2c3d4e5f60'],
  // 4.7 storage (keys may contain slashes)
  ['POST', '/api/storage/upload', 'storage', S.upload, null],
  ['POST', '/api/storage/upload-multi', 'storage', S.uploadMulti, null],
  ['POST', '/api/storage/upload-zip', 'storage', S.uploadZip, null],
  ['GET', '/api/storage/list', 'storage', S.list, null],
  ['DELETE', '/api/storage/voxel/models/tree.glb', 'storage', S.object, 'voxel/models/tree.glb'],
  ['DELETE', '/api/storage/one.png', 'storage', S.object, 'one.png'],
  // 4.8 wallet
  ['POST', '/api/wallet/verify-send-to-account', 'wallet', W.verifySendToAccount, null],
  ['GET', '/api/wallet/overview', 'wallet', W.overview, null],
  // everything else under the API: a problem+json 404 from the catalog function
  ['GET', '/api/nope', 'catalog', C.notFound, 'nope'],
  ['GET', '/v1/unknown-collection', 'catalog', C.notFound, 'unknown-collection'],
  ['GET', '/api/v1/missing-file.json', 'catalog', C.notFound, 'v1/missing-file.json'],
];

describe('spec 4.2-4.8: every public path reaches its entry file with _route and _key', () => {
  it.each(CASES)('%s %s → api/%s.ts _route=%s _key=%s', async (method, path, entry, route, key) => {
    const r = fn(await resolveAll(method, path));
    expect(r).toMatchObject({ entry, route, key });
    // the handlers' own fallback (no _route, public path) agrees with Vercel's routing
    const m = matchPublicPath(new URL(path, 'http://h').pathname);
    expect(m).toEqual({ entry, route, key: key ?? undefined });
  });

  it('keeps the client query and lets rewrite parameters win over client ones', async () => {
    const r = fn(await resolveAll('GET', '/v1/relics/fire?_route=enchants&_key=x&tier=3&q=fire'));
    expect(r.route).toBe('relics');
    expect(r.key).toBe('fire');
    expect(r.query.getAll('_route')).toEqual(['relics']);
    expect(r.query.get('tier')).toBe('3');
    expect(r.query.get('q')).toBe('fire');
  });

  it('matches paths case-insensitively, like Vercel', async () => {
    expect(fn(await resolveAll('GET', '/API/Search')).route).toBe(C.search);
  });

  it('covers every rule of the route table with at least one case', () => {
    const covered = new Set(CASES.map(([, path]) => {
      const m = matchPublicPath(path);
      return `${m?.entry}:${m?.route}`;
    }));
    covered.add(`catalog:${C.retired}`);
    for (const rule of ROUTE_RULES) expect(covered, rule.source).toContain(`${rule.entry}:${rule.route}`);
  });
});

describe('agreement with the entry files\' own route tables', () => {
  it('gives every registry path the _route name api/registries.ts expects', () => {
    for (const { route, path } of REGISTRY_TABLE) {
      const rule = ROUTE_RULES.find((r) => r.source === path.replace(/:key$/, ':_key'));
      expect(rule, path).toMatchObject({ entry: 'registries', route });
    }
    const registryRules = ROUTE_RULES.filter((r) => r.entry === 'registries');
    expect(registryRules).toHaveLength(REGISTRY_TABLE.length);
  });
});

describe('entry files', () => {
  it('reaches an entry directly at /api/<name> before any rewrite', async () => {
    expect(fn(await resolveAll('GET', '/api/catalog?_route=stats'))).toMatchObject({ entry: 'catalog', route: 'stats' });
  });

  it('never routes to a shared module under api/_lib', async () => {
    const r = await resolveAll('GET', '/api/_lib');
    expect(fn(r).entry).toBe('catalog');
    expect(fn(r).route).toBe(C.notFound);
  });

  it('falls back to the not-found answer while an entry file does not exist yet', async () => {
    const onlyCatalog = resolveAs(transformed.routes ?? [], ['catalog']);
    expect(fn(await onlyCatalog('POST', '/api/storage/upload'))).toMatchObject({ entry: 'catalog', route: C.notFound });
    expect(fn(await onlyCatalog('GET', '/v1/relics'))).toMatchObject({ entry: 'catalog', route: C.notFound });
  });

  it('exist for the catalog family (the others land with their functions)', () => {
    expect(readFileSync(join(repo, 'api/catalog.ts'), 'utf8')).toContain('export const GET');
  });
});

describe('toRelativeFile', () => {
  it('maps paths to files and refuses escapes', () => {
    expect(toRelativeFile('/')).toBe('index.html');
    expect(toRelativeFile('/docs/')).toBe('docs/index.html');
    expect(toRelativeFile('/api/v1/a%20b.json')).toBe('api/v1/a b.json');
    for (const bad of ['/../x', '/a/%2e%2e/b', '/%2e%2e%2fetc', '/a\\b', '/.env', '/%E0%A4%A']) expect(toRelativeFile(bad), bad).toBeUndefined();
  });
});
