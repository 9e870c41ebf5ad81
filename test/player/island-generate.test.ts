/**
 * Island generation (spec 2.9; `api/_lib/island/generate.ts`): the first state of an island and the RTS
 * export, held to the geometry the module documents (zones, nodes, animals, clearings and regrow regions
 * where they belong; the mountain triad at the spec's offsets; a heightmap of land in the middle and sea
 * at the corners within the foundation's elevations; props on land cell centres), to the spec's biome
 * lists, and to determinism: the same inputs give the same bytes in every release, pinned by digests of
 * a few islands and exports (a deliberate change to the generator changes them and the spec version).
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { exportFromRts, initialIsland, islandSeedOf, seedOf, type Position } from '../../api/_lib/island/generate.js';
import {
  BIOME_CLASSES,
  BIOMES,
  foundationOfBiome,
  islandSpec,
  ISLAND_SCALE,
  SIZE_FOUNDATIONS,
  ZONE_TYPES,
} from '../../api/_lib/island/spec.js';

const sha = (v: unknown) => createHash('sha256').update(JSON.stringify(v)).digest('hex');
const dist = (a: Position, b: Position) => Math.hypot(a.x - b.x, a.z - b.z);
const seeds = fc.integer({ min: 0, max: 0xffffffff });
const SEEDS = Array.from({ length: 40 }, (_, i) => seedOf(`sample-${i}`));

describe('the first island of a seed', () => {
  it('puts every zone, node, animal, clearing and regrow region where the module header says, for any seed', () => {
    fc.assert(
      fc.property(seeds, (seed) => {
        const s = initialIsland(seed);
        const zone = Object.fromEntries(s.terrainZones.map((z) => [z.type, z]));
        expect(s.seed).toBe(seed);
        expect(s.terrainZones.map((z) => [z.id, z.type, z.radiusM])).toEqual(
          ZONE_TYPES.map((t) => [`zone-${t}`, t, t === 'clearing' ? ISLAND_SCALE.campPlateauRadiusM : 120]),
        );
        const c = (t: string) => zone[t]!.center;
        expect(c('mountain').x).toBeGreaterThanOrEqual(-100);
        expect(c('mountain').x).toBeLessThanOrEqual(100);
        expect(c('mountain').z).toBeGreaterThanOrEqual(-250);
        expect(c('mountain').z).toBeLessThanOrEqual(-150);
        expect(c('clearing')).toEqual(s.campPosition);
        expect(s.campPosition!.x).toBeGreaterThanOrEqual(-50);
        expect(s.campPosition!.x).toBeLessThanOrEqual(50);
        expect(s.campPosition!.z).toBeGreaterThanOrEqual(100);
        expect(s.campPosition!.z).toBeLessThanOrEqual(160);
        const box = (p: Position, x0: number, x1: number, z0: number, z1: number) => p.x >= x0 && p.x <= x1 && p.z >= z0 && p.z <= z1;
        expect(box(c('forest'), -250, -190, -40, 40)).toBe(true);
        expect(box(c('field'), 220, 280, -40, 40)).toBe(true);
        expect(box(c('shore'), -60, 60, 380, 420)).toBe(true);
        expect(box(c('water'), -60, 60, 460, 480)).toBe(true);
        expect(s.mountainTriad.peaks).toEqual(
          [-55, 0, 55].map((dx) => ({ x: Math.round((c('mountain').x + dx) * 100) / 100, z: c('mountain').z, heightM: 20 })),
        );
        expect(s.nodes.map((n) => n.id)).toEqual(Array.from({ length: 19 }, (_, i) => `node-${String(i + 1).padStart(2, '0')}`));
        s.nodes.forEach((n, i) => {
          expect(n.zone).toBe(ZONE_TYPES[i % 6]);
          expect(dist(n.position, c(n.zone!))).toBeLessThanOrEqual(100.02);
        });
        expect(s.animals.map((a) => a.id)).toEqual(Array.from({ length: 8 }, (_, i) => `animal-${i + 1}`));
        s.animals.forEach((a, i) => expect(dist(a.position, c(i % 2 === 0 ? 'forest' : 'field'))).toBeLessThanOrEqual(110.02));
        expect(s.clearings.map((x) => x.id)).toEqual(['clearing-1', 'clearing-2', 'clearing-3']);
        for (const cl of s.clearings) {
          expect(dist(cl.center, { x: 0, z: 0 })).toBeLessThanOrEqual(300.02);
          expect(cl.radiusM).toBeGreaterThanOrEqual(20);
          expect(cl.radiusM).toBeLessThanOrEqual(40);
        }
        expect(s.regrowRegions.map((r) => [r.id, r.anchor, r.center, r.radiusM, r.regrowSeconds])).toEqual([
          ['regrow-forest_grove', 'forest_grove', c('forest'), 60, 3600],
          ['regrow-quarry', 'quarry', c('mountain'), 60, 3600],
          ['regrow-beach_shells', 'beach_shells', c('shore'), 60, 3600],
        ]);
        expect(s.stats).toEqual({ nodes: 19, animals: 8, exports: 0 });
        expect(s.rtsNatureScatter).toEqual([]);
      }),
      { numRuns: 60, seed: 20261123 },
    );
  });

  it('spreads nodes over the whole disc around their zone, in every direction', () => {
    const offsets = SEEDS.flatMap((seed) => {
      const s = initialIsland(seed);
      const zone = Object.fromEntries(s.terrainZones.map((z) => [z.type, z.center]));
      return s.nodes.map((n) => ({ x: n.position.x - zone[n.zone!]!.x, z: n.position.z - zone[n.zone!]!.z }));
    });
    for (const [sx, sz] of [
      [1, 1],
      [1, -1],
      [-1, 1],
      [-1, -1],
    ])
      expect(offsets.filter((o) => Math.sign(o.x) === sx && Math.sign(o.z) === sz).length).toBeGreaterThan(offsets.length / 8);
    expect(Math.max(...offsets.map((o) => Math.hypot(o.x, o.z)))).toBeGreaterThan(90);
  });

  it('derives the seed of an account from its id, and gives different accounts different islands', () => {
    expect(islandSeedOf('00000000-0000-4000-8000-000000000001')).toBe(seedOf('home-island:00000000-0000-4000-8000-000000000001'));
    expect(seedOf('x')).toBe(createHash('sha256').update('x').digest().readUInt32BE(0));
    expect(initialIsland(1)).not.toEqual(initialIsland(2));
    expect(initialIsland(7)).toEqual(initialIsland(7));
  });
});

describe('the RTS export', () => {
  const cell = 200 / 128;

  it('raises land in the middle and keeps the corners low, within the foundation, with props on land cell centres', () => {
    for (const biome of ['coastal', 'winter']) {
      const f = SIZE_FOUNDATIONS.find((x) => x.id === foundationOfBiome(biome))!;
      for (const seed of SEEDS.slice(0, 8)) {
        const out = exportFromRts({ gridX: 3, gridZ: -2, seed, biome });
        const h = out.rtsHeightmap.heightsM;
        expect(out.rtsHeightmap).toMatchObject({ resolution: 128, sizeM: 200 });
        expect(h).toHaveLength(128 * 128);
        expect(Math.min(...h)).toBeGreaterThanOrEqual(f.minElevationM);
        expect(Math.max(...h)).toBeLessThanOrEqual(f.maxElevationM);
        const at = (row: number, col: number) => h[row * 128 + col]!;
        const range = f.maxElevationM - f.minElevationM;
        // at the corners only the noise (weight 0.35) lifts the floor; in the middle the land (0.65) does
        for (const [r, c] of [
          [0, 0],
          [0, 127],
          [127, 0],
          [127, 127],
        ])
          expect(at(r!, c!)).toBeLessThanOrEqual(f.minElevationM + 0.35 * range + 0.01);
        expect(at(64, 64)).toBeGreaterThanOrEqual(f.minElevationM + 0.65 * range - 1);
        // smooth: neighbours along a row differ by little
        let steepest = 0;
        for (let i = 1; i < h.length; i++) if (i % 128 !== 0) steepest = Math.max(steepest, Math.abs(h[i]! - h[i - 1]!));
        expect(steepest).toBeLessThan(6);
        expect(out.rtsNatureScatter).toHaveLength(Math.round(400 * f.landmassFill));
        for (const p of out.rtsNatureScatter) {
          const col = (p.x + 100) / cell - 0.5;
          const row = (p.z + 100) / cell - 0.5;
          expect(Math.abs(col - Math.round(col))).toBeLessThan(0.01);
          expect(Math.abs(row - Math.round(row))).toBeLessThan(0.01);
          expect(at(Math.round(row), Math.round(col))).toBeGreaterThan(0.5);
          expect(p.scale).toBeGreaterThanOrEqual(0.6);
          expect(p.scale).toBeLessThanOrEqual(1.4);
          expect(p.rotationY).toBeGreaterThanOrEqual(0);
          expect(p.rotationY).toBeLessThanOrEqual(6.28);
        }
        const kinds =
          f.id === 'driftwood_bay' ? ['beach_rock', 'dune_grass', 'palm_frond', 'palm_trunk'] : ['boulder', 'dead_tree', 'fern', 'pine'];
        expect([...new Set(out.rtsNatureScatter.map((p) => p.kind))].sort()).toEqual(kinds);
        expect(out.rtsExport).toEqual({
          gridX: 3,
          gridZ: -2,
          seed,
          biome,
          foundationId: f.id,
          resolution: 128,
          sizeM: 200,
          heightmapSha256: sha(h),
          scatterCount: out.rtsNatureScatter.length,
          source: 'seed',
        });
      }
    }
  });

  it('spreads props over the whole land, not one corner of it', () => {
    const out = exportFromRts({ gridX: 0, gridZ: 0, seed: 42, biome: 'beach' });
    const xs = out.rtsNatureScatter.map((p) => p.x);
    const zs = out.rtsNatureScatter.map((p) => p.z);
    expect(Math.min(...xs)).toBeLessThan(-30);
    expect(Math.max(...xs)).toBeGreaterThan(30);
    expect(Math.min(...zs)).toBeLessThan(-30);
    expect(Math.max(...zs)).toBeGreaterThan(30);
  });

  it("keeps the client's heights as sent, places props only where they are land, and stops looking when there is none", () => {
    const flat = Array.from({ length: 128 * 128 }, (_, i) => (i % 128 < 64 ? 0.5 : 0.51));
    const out = exportFromRts({ gridX: 1, gridZ: 1, seed: 5, biome: 'nexus', heightmap: flat });
    expect(out.rtsHeightmap.heightsM).toEqual(flat);
    expect(out.rtsExport.source).toBe('client');
    expect(out.rtsExport.foundationId).toBe('ironfang_spire');
    expect(out.rtsNatureScatter.length).toBe(288);
    for (const p of out.rtsNatureScatter) expect(p.x).toBeGreaterThan(0);
    const sea = exportFromRts({ gridX: 1, gridZ: 1, seed: 5, biome: 'nexus', heightmap: flat.map(() => -1) });
    expect(sea.rtsNatureScatter).toEqual([]);
    expect(sea.rtsExport.scatterCount).toBe(0);
    // one land cell: found within the bounded number of tries, or not at all, never an endless search
    const one = flat.map(() => -1);
    one[64 * 128 + 64] = 3;
    const few = exportFromRts({ gridX: 1, gridZ: 1, seed: 5, biome: 'nexus', heightmap: one });
    for (const p of few.rtsNatureScatter)
      expect([p.x, p.z]).toEqual([Math.round((-100 + 64.5 * cell) * 100) / 100, Math.round((-100 + 64.5 * cell) * 100) / 100]);
    expect(few.rtsNatureScatter.length).toBeLessThanOrEqual(1);
  });

  it("derives from the seed, the grid cell and the biome's foundation, and refuses a biome with none", () => {
    const base = { gridX: 0, gridZ: 0, seed: 9, biome: 'beach' };
    const digest = (over: object) => exportFromRts({ ...base, ...over }).rtsExport.heightmapSha256;
    const d0 = digest({});
    expect(digest({ gridX: 1 })).not.toBe(d0);
    expect(digest({ gridZ: 1 })).not.toBe(d0);
    expect(digest({ seed: 10 })).not.toBe(d0);
    expect(digest({ biome: 'forest' })).not.toBe(d0);
    expect(digest({ biome: 'tropical' })).toBe(d0); // the same foundation
    expect(() => exportFromRts({ ...base, biome: 'lunar' })).toThrow(new RangeError('Unknown biome lunar'));
  });
});

describe('the spec values', () => {
  it('names every biome the schema accepts, and each resolves to a foundation', () => {
    const schema = JSON.parse(readFileSync('schemas/requests/island-state.schema.json', 'utf8')) as {
      $defs: { biome: { enum: string[] } };
    };
    expect([...BIOMES].sort()).toEqual([...schema.$defs.biome.enum].sort());
    expect(BIOMES).toEqual([...Object.keys(BIOME_CLASSES), ...Object.values(BIOME_CLASSES).flat()]);
    for (const b of BIOMES) expect(foundationOfBiome(b)).toBeDefined();
  });

  it('serves the spec body with its versions', () => {
    expect(islandSpec()).toMatchObject({ specVersion: '2.2.0', contractVersion: '1.4.0', zoneTypes: ZONE_TYPES });
  });
});

describe('determinism across releases', () => {
  // Digests of the generator's output for fixed inputs. They change only with a deliberate change to
  // the generator, which also bumps the island spec version: a client may keep a derived export by its
  // inputs and a stored island by its seed.
  it('gives the same islands and exports as every earlier release', () => {
    expect([1, 20261123, 0xffffffff].map((seed) => sha(initialIsland(seed)))).toEqual(GOLDEN.islands);
    expect(
      [
        { gridX: 0, gridZ: 0, seed: 1, biome: 'coastal' },
        { gridX: -4, gridZ: 7, seed: 123456, biome: 'frozen' },
      ].map((input) => sha(exportFromRts(input))),
    ).toEqual(GOLDEN.exports);
  });
});

const GOLDEN = {
  islands: [
    '99baac0bd36526dc42eb9655e36f31faca00f20f07b08ae660751fdea4faca79',
    'c735ffd33d102ec782abf5a45b69cc92aaaf4b1118e9b561f62aca176f28be05',
    '12305758f9b67d2b7d40e4b19e92153895e7b9438f4dffa7e356676da5038f2c',
  ],
  exports: [
    '71920ad4f9bc6c29cbf8364cadead9e02a9a7b811b6138002dd26d09f69f9553',
    '8cd0407bc7459886a36767ee3d4f7e40125dadce774ac7ab2fb35ece91824870',
  ],
};
