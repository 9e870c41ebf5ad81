/**
 * The route table's own lookup of a public path (docs/architecture.md, "Routing"; api/_lib/routing/table.ts),
 * which the entry helper uses for every request: case-insensitive matching, an optional trailing slash, keys
 * of one segment or many, percent-decoding of the key, literal dots, and the rewrites and names derived from
 * the table. Paths are those of spec §4.2-§4.6.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type * as Table from '../../api/_lib/routing/table.js';

/** The table is loaded on first use, so a table that fails to load fails the tests instead of the file's loading. */
let loaded: typeof Table | undefined;
let loadError: unknown;
beforeAll(async () => {
  try {
    loaded = await import('../../api/_lib/routing/table.js');
  } catch (e) {
    loadError = e;
  }
});
const tbl = (): typeof Table => {
  if (!loaded) throw loadError instanceof Error ? loadError : new Error('the route table did not load');
  return loaded;
};
const matchPath: typeof Table.matchPath = (p) => tbl().matchPath(p);
const at = (path: string): { entry?: string; name?: string; key?: string | undefined } | undefined => {
  const m = matchPath(path);
  return m && { entry: m.route.entry, name: m.route.name, key: m.key };
};

describe('matchPath', () => {
  it('matches a literal path, with or without one trailing slash, in any case', () => {
    expect(at('/api/search')).toEqual({ entry: 'catalog', name: 'search', key: undefined });
    expect(at('/api/search/')).toEqual({ entry: 'catalog', name: 'search', key: undefined });
    expect(at('/API/V1/Icons/Categories')).toEqual({ entry: 'registries', name: 'icons-categories', key: undefined });
  });

  it('takes a {key} of exactly one segment, percent-decoded', () => {
    expect(at('/v1/relics/Fire%20Ring')).toEqual({ entry: 'collections', name: 'relics-item', key: 'Fire Ring' });
    expect(at('/v1/relics/fire-ring/')).toEqual({ entry: 'collections', name: 'relics-item', key: 'fire-ring' });
    expect(at('/v1/relics/a%2Fb')).toEqual({ entry: 'collections', name: 'relics-item', key: 'a/b' });
    expect(at('/v1/relics/a/b')).toEqual({ entry: 'catalog', name: 'not-found', key: 'relics/a/b' });
  });

  it('takes a {key}.json segment without its suffix', () => {
    expect(at('/api/v1/relics/RELC-0001.json')).toEqual({ entry: 'collections', name: 'relics-file', key: 'RELC-0001' });
    expect(at('/api/v1/artifacts/warden%20aegis.json')).toEqual({ entry: 'collections', name: 'artifacts-file', key: 'warden aegis' });
    expect(at('/api/v1/enchants/a.b.json')).toEqual({ entry: 'collections', name: 'enchants-file', key: 'a.b' });
    expect(at('/api/v1/relics/.json')?.name).toBe('not-found');
    expect(at('/api/v1/relics/x.jsonx')?.name).toBe('not-found');
    expect(at('/api/v1/relics/a/b.json')?.name).toBe('not-found');
  });

  it('gives no key for a key that is not valid percent-encoding', () => {
    expect(at('/v1/relics/%E0%A4%A')).toEqual({ entry: 'collections', name: 'relics-item', key: undefined });
    expect(at('/api/%zz')).toEqual({ entry: 'catalog', name: 'not-found', key: undefined });
  });

  it('prefers literal paths over keys of the same prefix', () => {
    expect(at('/api/v1/icons/search')?.name).toBe('icons-search');
    expect(at('/api/v1/icons/by-path')?.name).toBe('icons-by-path');
    expect(at('/api/v1/icons/ICON-1')).toEqual({ entry: 'registries', name: 'icon', key: 'ICON-1' });
  });

  it('reads dots in a path literally', () => {
    expect(at('/api/v1/systems-catalog.json')?.name).toBe('retired');
    expect(at('/api/v1/systems-catalogXjson')).toEqual({ entry: 'catalog', name: 'not-found', key: 'v1/systems-catalogXjson' });
  });

  it('sends every other path under /api and /v1 to the not-found route, with or without a rest', () => {
    expect(at('/api')).toEqual({ entry: 'catalog', name: 'not-found', key: undefined });
    expect(at('/v1/')).toEqual({ entry: 'catalog', name: 'not-found', key: undefined });
    expect(at('/api/island/states')).toEqual({ entry: 'catalog', name: 'not-found', key: 'island/states' });
    expect(at('/api/characters/x/progress/more')).toEqual({ entry: 'catalog', name: 'not-found', key: 'characters/x/progress/more' });
  });

  it('matches whole paths only', () => {
    expect(matchPath('/apis')).toBeUndefined();
    expect(matchPath('/x/api/search')).toBeUndefined();
    expect(matchPath('/')).toBeUndefined();
    expect(matchPath('')).toBeUndefined();
    expect(at('/api/searchx')?.name).toBe('not-found');
  });
});

describe('the table', () => {
  it('declares methods, entries and a route for each spec path', () => {
    expect(tbl().METHODS).toEqual(['GET', 'POST', 'PUT', 'PATCH', 'DELETE']);
    expect(tbl().ENTRIES).toEqual(['catalog', 'collections', 'registries', 'wallet', 'admin', 'storage', 'player']);
    expect(
      tbl()
        .routesOf('catalog')
        .map((r) => r.name),
    ).toEqual(['search', 'stats', 'export', 'retired', 'not-found', 'not-found']);
    expect(
      tbl()
        .routesOf('collections')
        .map((r) => r.path),
    ).toEqual([
      '/v1/relics',
      '/v1/relics/{key}',
      '/api/v1/relics/{key}.json',
      '/v1/enchants',
      '/v1/enchants/{key}',
      '/api/v1/enchants/{key}.json',
      '/v1/infusions',
      '/v1/infusions/{key}',
      '/api/v1/infusions/{key}.json',
      '/v1/artifacts',
      '/v1/artifacts/{key}',
      '/api/v1/artifacts/{key}.json',
    ]);
    expect(tbl().routesOf('registries')).toHaveLength(16);
    expect(
      tbl()
        .routesOf('wallet')
        .map((r) => [r.path, r.methods]),
    ).toEqual([
      ['/api/wallet/verify-send-to-account', ['POST']],
      ['/api/wallet/overview', ['GET']],
    ]);
    expect(
      tbl()
        .routesOf('admin')
        .map((r) => [r.path, r.methods]),
    ).toEqual([
      ['/api/admin/accounts', ['POST']],
      ['/api/admin/accounts/{key}', ['GET']],
      ['/api/admin/grant-coin', ['POST']],
      ['/api/admin/session', ['POST']],
      ['/api/admin/players', ['GET']],
      ['/api/admin/players/{key}', ['GET']],
      ['/api/admin/players/{key}/wallet', ['GET']],
      ['/api/admin/players/{key}/bag', ['GET']],
      ['/api/admin/players/{key}/items', ['GET']],
      ['/api/admin/items/{key}/events', ['GET']],
      ['/api/admin/players/{key}/island', ['GET']],
      ['/api/admin/players/{key}/characters', ['GET']],
      ['/api/admin/players/{key}/revoke-sessions', ['POST']],
      ['/api/admin/players/{key}/ban', ['POST']],
      ['/api/admin/players/{key}/unban', ['POST']],
      ['/api/admin/players/{key}/erase', ['POST']],
      ['/api/admin/players/{key}/export', ['GET']],
      ['/api/admin/audit', ['GET']],
      ['/api/admin/reversals', ['POST']],
      ['/api/admin/ledger/verify', ['GET', 'POST']],
      ['/api/admin/ledger/health', ['GET']],
      ['/api/admin/bag-reversals', ['POST']],
      ['/api/admin/items/{key}/void', ['POST']],
    ]);
    expect(
      tbl()
        .routesOf('storage')
        .map((r) => [r.path, r.methods]),
    ).toEqual([
      ['/api/storage/upload', ['POST']],
      ['/api/storage/upload-multi', ['POST']],
      ['/api/storage/upload-zip', ['POST']],
      ['/api/storage/presign', ['POST']],
      ['/api/storage/list', ['GET']],
      ['/api/storage/register', ['POST']],
      ['/api/storage/index', ['GET']],
      ['/api/storage/{key+}', ['DELETE']],
    ]);
    expect(
      tbl()
        .routesOf('player')
        .map((r) => [r.path, r.methods]),
    ).toEqual([
      ['/api/island/spec', ['GET']],
      ['/api/island/state', ['GET', 'PATCH']],
      ['/api/island/export-from-rts', ['POST']],
      ['/api/characters', ['GET', 'POST']],
      ['/api/characters/{key}/progress', ['GET', 'PATCH']],
      ['/api/auth/external', ['POST']],
      ['/api/auth/external-link', ['POST']],
      ['/api/auth/logout', ['POST']],
      ['/api/uuid', ['POST']],
      ['/api/ledger/{key}', ['GET']],
      ['/api/ledger/{key}/events', ['POST']],
      ['/api/inventory', ['GET']],
      ['/api/inventory/grant', ['POST']],
      ['/api/inventory/consume', ['POST']],
      ['/api/account/recipes', ['GET', 'POST']],
      ['/api/account/export', ['GET']],
    ]);
  });

  it('accepts only GET on catalog routes, POST only where the ledger, storage and player state take a body, DELETE on stored objects, and answers 404 to every method on gone ones', () => {
    for (const r of tbl().ROUTES) {
      if (r.gone) expect(r.methods, r.path).toEqual(tbl().METHODS);
      else if (r.entry === 'storage')
        expect(r.methods, r.path).toEqual(r.name === 'list' || r.name === 'index' ? ['GET'] : r.name === 'object' ? ['DELETE'] : ['POST']);
      else if (
        ['wallet', 'admin'].includes(r.entry) &&
        ![
          'overview',
          'account',
          'players',
          'player',
          'player-wallet',
          'player-island',
          'player-characters',
          'player-bag',
          'player-items',
          'item-history',
          'player-export',
          'audit',
          'ledger-health',
        ].includes(r.name)
      )
        // the scheduled check: Vercel Cron's GET beside the operator's POST
        expect(r.methods, r.path).toEqual(r.name === 'ledger-verify' ? ['GET', 'POST'] : ['POST']);
      else if (r.entry === 'player')
        expect(r.methods[0], r.path).toBe(
          [
            'export-from-rts',
            'external',
            'external-link',
            'logout',
            'uuid',
            'item-events',
            'inventory-grant',
            'inventory-consume',
          ].includes(r.name)
            ? 'POST'
            : 'GET',
        );
      else expect(r.methods, r.path).toEqual(['GET']);
    }
    expect(
      tbl()
        .ROUTES.filter((r) => r.gone)
        .map((r) => r.path),
    ).toEqual(['/api/v1/systems-catalog.json', '/api/{key*}', '/v1/{key*}']);
  });

  it('knows which routes carry a key', () => {
    expect(
      tbl()
        .ROUTES.filter(tbl().hasKey)
        .map((r) => r.name),
    ).toEqual([
      'relics-item',
      'relics-file',
      'enchants-item',
      'enchants-file',
      'infusions-item',
      'infusions-file',
      'artifacts-item',
      'artifacts-file',
      'sprite',
      'character',
      'icon',
      'legacy-asset',
      'account',
      'player',
      'player-wallet',
      'player-bag',
      'player-items',
      'item-history',
      'player-island',
      'player-characters',
      'revoke-sessions',
      'ban',
      'unban',
      'erase',
      'player-export',
      'item-void',
      'object',
      'progress',
      'item',
      'item-events',
      'not-found',
      'not-found',
    ]);
  });
});

describe('Vercel rewrites', () => {
  it('spells keys the Vercel way', () => {
    expect(tbl().vercelSource('/v1/relics/{key}')).toBe('/v1/relics/:_key');
    expect(tbl().vercelSource('/a/{key+}')).toBe('/a/:_key+');
    expect(tbl().vercelSource('/api/{key*}')).toBe('/api/:_key*');
    expect(tbl().vercelSource('/api/search')).toBe('/api/search');
    expect(tbl().vercelSource('/api/v1/relics/{key}.json')).toBe('/api/v1/relics/:_key.json');
  });

  it('rewrites each path once onto its entry with the route name and the key', () => {
    const rewrites = tbl().vercelRewrites(() => true);
    expect(rewrites).toContainEqual({ source: '/v1/relics/:_key', destination: '/api/collections?_route=relics-item&_key=:_key' });
    expect(rewrites).toContainEqual({ source: '/api/search', destination: '/api/catalog?_route=search' });
    expect(rewrites.filter((r) => r.source === '/api/:_key*')).toEqual([
      { source: '/api/:_key*', destination: '/api/catalog?_route=not-found&_key=:_key' },
    ]);
    expect(new Set(rewrites.map((r) => r.source)).size).toBe(rewrites.length);
  });

  it('leaves out every route of a missing entry', () => {
    expect(tbl().vercelRewrites(() => false)).toEqual([]);
    expect(
      tbl()
        .vercelRewrites((e) => e === 'collections')
        .map((r) => r.destination.split('?')[0]),
    ).toEqual(Array(12).fill('/api/collections'));
  });
});
