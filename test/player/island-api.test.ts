/**
 * The island routes through their entry file (spec 2.9, 4.8, 5.4): the public spec and the sample
 * catalog's published copy agreeing with it; who may read and change a state (no token, a guest, an
 * expired token, a token without an account: refused, nothing created); the first read creating the
 * account's island from its deterministic seed; merge patches under `If-Match` (428, 412 with the current
 * ETag, one of two racing changes); every bad field at once with nothing written; and the RTS export.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { EntryExports } from '../../api/_lib/http/entry.js';
import { initialIsland, islandSeedOf } from '../../api/_lib/island/generate.js';
import * as playerEntry from '../../api/player.js';
import { SAMPLE_SRC } from '../helpers/catalog.js';
import { call, gameApiSuite, newPlayer, responseErrors, serverAuth, tokenFor } from '../helpers/game-api.js';

const island = playerEntry as unknown as EntryExports;
const suite = gameApiSuite();

const readState = async (auth: Record<string, string>) => {
  const r = await call(island, 'GET', '/api/island/state', { headers: auth });
  expect(r.status).toBe(200);
  expect(responseErrors('island-state', r.body)).toEqual([]);
  return r;
};

describe('GET /api/island/spec', () => {
  it("answers every value of 2.9, publicly and cacheably, equal to the catalog's published contract", async () => {
    const r = await call(island, 'GET', '/api/island/spec');
    expect(r.status).toBe(200);
    expect(responseErrors('island-spec', r.body)).toEqual([]);
    expect(r.headers.get('cache-control')).toBe('public, max-age=300');
    const published = JSON.parse(readFileSync(join(SAMPLE_SRC, 'home-island-contract.json'), 'utf8')) as Record<string, unknown>;
    expect(r.body.specVersion).toBe('2.2.0');
    expect(r.body.contractVersion).toBe('1.4.0');
    expect(published.version).toBe(r.body.contractVersion);
    expect(published.specVersion).toBe(r.body.specVersion);
    for (const k of [
      'scale',
      'sizeFoundations',
      'biomeResolution',
      'zoneTypes',
      'regrowAnchors',
      'mountainTriad',
      'stateFields',
      'characterScale',
    ])
      expect(r.body[k], k).toEqual(published[k]);
    expect(r.body.biomeClasses).toEqual({
      coastal: ['beach', 'tropical', 'plains', 'storm'],
      highland: ['forest', 'volcanic'],
      cold: ['winter', 'frozen'],
      dark: ['abyssal', 'nexus'],
    });
    const again = await call(island, 'GET', '/api/island/spec', { headers: { 'If-None-Match': r.headers.get('etag')! } });
    expect(again.status).toBe(304);
  });
});

describe('who may read and change an island', () => {
  it('refuses no token, a guest, an expired token and a token without an account, and creates nothing', async () => {
    const p = await newPlayer(suite.config);
    const guest = await tokenFor(suite.config, p.studioId, 'player', { guest: true });
    const expired = await tokenFor(suite.config, p.studioId, 'player', { now: Math.floor(Date.now() / 1000) - 7200, ttlSeconds: 60 });
    const stranger = await tokenFor(suite.config, 'STUDIO_NOBODY0000000000', 'player');
    for (const [method, path, body] of [
      ['GET', '/api/island/state', undefined],
      ['PATCH', '/api/island/state', { stats: { a: 1 } }],
      ['POST', '/api/island/export-from-rts', { gridX: 0, gridZ: 0, seed: 1, biome: 'beach' }],
    ] as const) {
      const none = await call(island, method, path, { body, headers: { 'If-Match': '"1"' } });
      expect(none.status, `${method} ${path} without a token`).toBe(401);
      expect(none.headers.get('www-authenticate')).toMatch(/^Bearer realm="game-api"/);
      for (const t of [guest, expired])
        expect((await call(island, method, path, { body, headers: { Authorization: `Bearer ${t}`, 'If-Match': '"1"' } })).status).toBe(401);
      expect((await call(island, method, path, { body, headers: { Authorization: `Bearer ${stranger}`, 'If-Match': '"1"' } })).status).toBe(
        404,
      );
    }
    // none of that created the island: its first read is revision 1 with the untouched first state
    const r = await readState(p.auth);
    expect(r.body.revision).toBe(1);
    expect(r.body.state).toEqual(JSON.parse(JSON.stringify(initialIsland(islandSeedOf(p.accountId)))));
  });
});

describe('GET and PATCH /api/island/state', () => {
  it("creates the island on the first read from the account's seed, served with a strong ETag, one per account", async () => {
    const a = await newPlayer(suite.config);
    const b = await newPlayer(suite.config, 'Bo');
    const first = await readState(a.auth);
    expect(first.headers.get('etag')).toBe('"1"');
    expect((first.body.state as { seed: number }).seed).toBe(islandSeedOf(a.accountId));
    expect((await readState(a.auth)).body).toEqual(first.body);
    expect((await readState(b.auth)).body.state).not.toEqual(first.body.state);
    expect(first.headers.get('cache-control')).toBe('no-store');
  });

  it('needs If-Match (428 without it or with *), refuses a stale one with the current ETag (412), and merges a patch', async () => {
    const p = await newPlayer(suite.config);
    const server = await serverAuth(suite.config);
    const path = `/api/island/state?studioId=${p.studioId}`;
    const before = await readState(p.auth);
    for (const ifMatch of [undefined, '*', '']) {
      const r = await call(island, 'PATCH', path, {
        body: { stats: { visits: 1 } },
        headers: { ...server, ...(ifMatch === undefined ? {} : { 'If-Match': ifMatch }) },
      });
      expect(r.status, `If-Match ${String(ifMatch)}`).toBe(428);
      expect(r.body.code).toBe('PRECONDITION_REQUIRED');
    }
    for (const ifMatch of ['"2"', 'W/"1"', '1']) {
      const r = await call(island, 'PATCH', path, {
        body: { stats: { visits: 1 } },
        headers: { ...server, 'If-Match': ifMatch },
      });
      expect(r.status, `If-Match ${ifMatch}`).toBe(412);
      expect(r.headers.get('etag')).toBe('"1"');
    }
    expect((await readState(p.auth)).body).toEqual(before.body);
    const r = await call(island, 'PATCH', path, {
      body: { stats: { visits: 3 }, campPosition: null, clearings: [{ id: 'c1', center: { x: 10, z: -20 }, radiusM: 15 }] },
      headers: { ...server, 'If-Match': '"7", "1"', 'Content-Type': 'application/merge-patch+json' },
    });
    expect(r.status).toBe(200);
    expect(responseErrors('island-state', r.body)).toEqual([]);
    expect(r.headers.get('etag')).toBe('"2"');
    const state = r.body.state as Record<string, unknown>;
    const old = before.body.state as Record<string, unknown>;
    expect(state.stats).toEqual({ ...(old.stats as object), visits: 3 });
    expect(state).not.toHaveProperty('campPosition');
    expect(state.clearings).toEqual([{ id: 'c1', center: { x: 10, z: -20 }, radiusM: 15 }]);
    expect(state.nodes).toEqual(old.nodes);
    expect((await readState(p.auth)).body).toEqual(r.body);
  });

  it("lets a player write its camp and clearings only; world state is a game server's; derived terrain is nobody's (403 naming each field)", async () => {
    const p = await newPlayer(suite.config);
    const server = await serverAuth(suite.config);
    const before = await readState(p.auth);
    const player = await call(island, 'PATCH', '/api/island/state', {
      body: { stats: { visits: 1 }, nodes: [], campPosition: { x: 1, z: 2 } },
      headers: { ...p.auth, 'If-Match': '"1"' },
    });
    expect([player.status, player.body.errors!.map((e) => e.name).sort()]).toEqual([403, ['/nodes', '/stats']]);
    expect(player.body.errors!.find((e) => e.name === '/stats')!.message).toBe(
      '"stats" is counters a game server keeps: only a game server writes it.',
    );
    // the terrain export with a forged hash, written directly: nobody may (POST /api/island/export-from-rts derives it)
    const rts = (before.body.state as { rtsExport?: unknown }).rtsExport;
    for (const headers of [p.auth, server]) {
      const forged = await call(island, 'PATCH', `/api/island/state${headers === server ? `?studioId=${p.studioId}` : ''}`, {
        body: { rtsExport: { ...(rts as object), heightmapSha256: '0'.repeat(64) }, seed: 1, terrainZones: [] },
        headers: { ...headers, 'If-Match': '"1"' },
      });
      expect([forged.status, forged.body.errors!.map((e) => e.name).sort()]).toEqual([403, ['/rtsExport', '/seed', '/terrainZones']]);
      expect(forged.body.errors!.find((e) => e.name === '/rtsExport')!.message).toBe(
        '"rtsExport" is derived by POST /api/island/export-from-rts, with its hash: no request writes it.',
      );
    }
    expect((await readState(p.auth)).body).toEqual(before.body);
    const camp = await call(island, 'PATCH', '/api/island/state', {
      body: { campPosition: { x: 1, z: 2 } },
      headers: { ...p.auth, 'If-Match': '"1"' },
    });
    expect([camp.status, (camp.body.state as { campPosition: unknown }).campPosition]).toEqual([200, { x: 1, z: 2 }]);
    // a player's token acts for its own island; a game server names the account
    expect((await call(island, 'GET', `/api/island/state?studioId=STUDIO_SOMEONE00000000`, { headers: p.auth })).status).toBe(403);
    expect((await call(island, 'GET', `/api/island/state?studioId=${p.studioId}`, { headers: p.auth })).status).toBe(200);
    expect((await call(island, 'GET', '/api/island/state', { headers: server })).status).toBe(400);
    expect((await call(island, 'GET', '/api/island/state?studioId=STUDIO_NOBODY0000000000', { headers: server })).status).toBe(404);
    expect((await call(island, 'GET', '/api/island/state?studioid=x', { headers: p.auth })).status).toBe(400);
  });

  it('names every bad field of the merged state at once and writes nothing', async () => {
    const p = await newPlayer(suite.config);
    const server = await serverAuth(suite.config);
    const path = `/api/island/state?studioId=${p.studioId}`;
    const before = await readState(p.auth);
    const patch = JSON.stringify({
      nodes: [{ id: 'n1', kind: 'ore', position: { x: 9999, z: 0 } }],
      clearings: [{ id: 'c1', center: { x: 0, z: 0 }, radiusM: -10 }],
      regrowRegions: [{ id: 'r1', anchor: 'volcano', center: { x: 0, z: 0 }, radiusM: 10, regrowSeconds: 60 }],
      stats: { ok: 2 },
    });
    // a member named __proto__ stays a member of the merged state, where the schema refuses it
    const r = await call(island, 'PATCH', path, {
      body: patch.replace('{"ok":2}', '{"__proto__":{"x":1},"ok":2}'),
      headers: { ...server, 'If-Match': '"1"' },
    });
    expect(r.status).toBe(400);
    const names = r.body.errors!.map((e) => e.name);
    for (const n of ['/nodes/0/position/x', '/clearings/0/radiusM', '/regrowRegions/0/anchor']) expect(names).toContain(n);
    expect(names).toContain('/stats/__proto__');
    for (const body of [{ mountains: [] }, {}, [], 'null', '{"stats": ']) {
      const bad = await call(island, 'PATCH', path, { body, headers: { ...server, 'If-Match': '"1"' } });
      expect(bad.status, JSON.stringify(body)).toBe(400);
    }
    // a patch nested deeper than any request takes is a 400, never a 5xx
    const deep = '{"stats":' + '{"a":'.repeat(5000) + '1' + '}'.repeat(5000) + '}';
    const nested = await call(island, 'PATCH', path, { body: deep, headers: { ...server, 'If-Match': '"1"' } });
    expect([nested.status, nested.body.detail]).toEqual([
      400,
      'The body nests arrays and objects more than 32 levels deep; no request takes that.',
    ]);
    expect((await readState(p.auth)).body).toEqual(before.body);
  });

  it('lets one of two PATCHes from the same revision through; the other is 412', async () => {
    const p = await newPlayer(suite.config);
    await readState(p.auth);
    const outs = await Promise.all(
      [1, 2].map((n) =>
        call(island, 'PATCH', '/api/island/state', { body: { campPosition: { x: n, z: 0 } }, headers: { ...p.auth, 'If-Match': '"1"' } }),
      ),
    );
    expect(outs.map((o) => o.status).sort()).toEqual([200, 412]);
    const winner = outs.find((o) => o.status === 200)!;
    expect((await readState(p.auth)).body).toEqual(winner.body);
  });
});

describe('POST /api/island/export-from-rts', () => {
  const body = { gridX: 3, gridZ: -2, seed: 424242, biome: 'winter' };

  it('names each missing field, refuses an unknown biome, and needs If-Match', async () => {
    const p = await newPlayer(suite.config);
    await readState(p.auth);
    const missing = await call(island, 'POST', '/api/island/export-from-rts', { body: {}, headers: { ...p.auth, 'If-Match': '"1"' } });
    expect(missing.status).toBe(400);
    expect(missing.body.errors!.map((e) => e.name).sort()).toEqual(['/biome', '/gridX', '/gridZ', '/seed']);
    const lava = await call(island, 'POST', '/api/island/export-from-rts', {
      body: { ...body, biome: 'lava', seed: -1 },
      headers: { ...p.auth, 'If-Match': '"1"' },
    });
    expect(lava.body.errors!.map((e) => e.name).sort()).toEqual(['/biome', '/seed']);
    expect((await call(island, 'POST', '/api/island/export-from-rts', { body, headers: p.auth })).status).toBe(428);
    expect((await readState(p.auth)).body.revision).toBe(1);
  });

  it('derives the export, heightmap and scatter from the seed, the same for the same input, and stores them', async () => {
    const a = await newPlayer(suite.config);
    const b = await newPlayer(suite.config, 'Bo');
    await readState(a.auth);
    await readState(b.auth);
    const ra = await call(island, 'POST', '/api/island/export-from-rts', { body, headers: { ...a.auth, 'If-Match': '"1"' } });
    const rb = await call(island, 'POST', '/api/island/export-from-rts', { body, headers: { ...b.auth, 'If-Match': '"1"' } });
    expect(ra.status).toBe(200);
    expect(responseErrors('island-state', ra.body)).toEqual([]);
    expect(ra.headers.get('etag')).toBe('"2"');
    const sa = ra.body.state as Record<string, { [k: string]: unknown }>;
    const sb = rb.body.state as Record<string, unknown>;
    for (const k of ['rtsExport', 'rtsHeightmap', 'rtsNatureScatter']) expect(sa[k], k).toEqual(sb[k]);
    expect(sa.rtsExport).toMatchObject({
      gridX: 3,
      gridZ: -2,
      seed: 424242,
      biome: 'winter',
      foundationId: 'ironfang_spire',
      resolution: 128,
      sizeM: 200,
      source: 'seed',
    });
    const heights = (sa.rtsHeightmap as { heightsM: number[] }).heightsM;
    expect(heights).toHaveLength(16384);
    expect(Math.min(...heights)).toBeGreaterThanOrEqual(-30);
    expect(Math.max(...heights)).toBeLessThanOrEqual(80);
    expect((sa.rtsNatureScatter as unknown as unknown[]).length).toBe(sa.rtsExport!.scatterCount);
    expect(sa.stats!.exports).toBe(1);
    // another seed or cell: other heights; a coastal biome: the other foundation
    const other = await call(island, 'POST', '/api/island/export-from-rts', {
      body: { ...body, seed: 1, biome: 'beach' },
      headers: { ...a.auth, 'If-Match': '"2"' },
    });
    const so = other.body.state as Record<string, { [k: string]: unknown }>;
    expect(so.rtsExport).toMatchObject({ foundationId: 'driftwood_bay', biome: 'beach' });
    expect(so.rtsHeightmap!.heightsM).not.toEqual(heights);
  });

  it("takes the client's heights within the foundation's range and refuses the ones outside it", async () => {
    const p = await newPlayer(suite.config);
    await readState(p.auth);
    const heights = Array.from({ length: 16384 }, (_, i) => (i % 7) - 3);
    heights[10] = 60; // above driftwood_bay's 48 m
    heights[20] = -29; // below its -28 m
    const bad = await call(island, 'POST', '/api/island/export-from-rts', {
      body: { ...body, biome: 'coastal', heightmap: heights },
      headers: { ...p.auth, 'If-Match': '"1"' },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.errors!.map((e) => e.name)).toEqual(['/heightmap/10', '/heightmap/20']);
    heights[10] = 48;
    heights[20] = -28;
    const ok = await call(island, 'POST', '/api/island/export-from-rts', {
      body: { ...body, biome: 'coastal', heightmap: heights },
      headers: { ...p.auth, 'If-Match': '"1"' },
    });
    expect(ok.status).toBe(200);
    const s = ok.body.state as Record<string, { [k: string]: unknown }>;
    expect(s.rtsHeightmap!.heightsM).toEqual(heights);
    expect(s.rtsExport).toMatchObject({ source: 'client', foundationId: 'driftwood_bay' });
  });
});
