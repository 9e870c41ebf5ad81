// How the console pictures a home island (site/admin/island.ts; spec 2.9): where points fall on a canvas,
// and the RTS heightmap shaded by height (water, sand, grass, rock, snow) and by slope (lit from the
// north-west, 45° up, never darker than the ambient share).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { exportFromRts, initialIsland } from '../../api/_lib/island/generate.js';
import { ISLAND_SCALE } from '../../api/_lib/island/spec.js';
import {
  AMBIENT,
  BEACH_M,
  HEIGHTMAP_RESOLUTION,
  OTHER_ZONE_COLOUR,
  RTS_SIZE_M,
  WORLD_SIZE_M,
  ZONE_COLOURS,
  heightRange,
  heightTint,
  hillshade,
  shadeHeightmap,
  toCanvas,
  toPixels,
  within,
  zoneColour,
} from '../../site/admin/island.js';

describe('the frame', () => {
  it('is the spec’s: a 1024 m world, a 200 m RTS core, 128 heights a side, six zone types', () => {
    expect([WORLD_SIZE_M, RTS_SIZE_M, HEIGHTMAP_RESOLUTION]).toEqual([
      ISLAND_SCALE.warlords3dWorldSizeM,
      ISLAND_SCALE.rtsWorldSizeM,
      ISLAND_SCALE.rtsHeightmapResolution,
    ]);
    expect(ZONE_COLOURS).toEqual({
      mountain: '#8a7f72',
      forest: '#2f7d3b',
      field: '#b5c25a',
      shore: '#e3cf8f',
      water: '#3f7fbf',
      clearing: '#9ad17e',
    });
    expect(zoneColour('forest')).toBe('#2f7d3b');
    expect(zoneColour('lava')).toBe(OTHER_ZONE_COLOUR);
    expect(OTHER_ZONE_COLOUR).toBe('#999999');
  });

  it('puts the origin at the centre, east to the right and south down', () => {
    expect(toCanvas({ x: 0, z: 0 }, 1024, 360)).toEqual({ px: 180, py: 180 });
    expect(toCanvas({ x: -512, z: -512 }, 1024, 360)).toEqual({ px: 0, py: 0 });
    expect(toCanvas({ x: 512, z: 512 }, 1024, 360)).toEqual({ px: 360, py: 360 });
    expect(toCanvas({ x: 256, z: -128 }, 1024, 400)).toEqual({ px: 300, py: 150 });
    expect(toCanvas({ x: -50, z: 100 }, 200, 200)).toEqual({ px: 50, py: 200 });
    expect(toPixels(88, 1024, 1024)).toBe(88);
    expect(toPixels(100, 200, 360)).toBe(180);
  });

  it('knows what lies within a square around the origin, edges included', () => {
    expect(within({ x: 100, z: -100 }, 200)).toBe(true);
    expect(within({ x: 100.01, z: 0 }, 200)).toBe(false);
    expect(within({ x: 0, z: -100.01 }, 200)).toBe(false);
    const camp = initialIsland(42).campPosition!;
    expect(within(camp, WORLD_SIZE_M)).toBe(true);
  });
});

describe('heights', () => {
  it('finds the lowest and highest', () => {
    expect(heightRange([3, -7, 12.5, 0])).toEqual({ min: -7, max: 12.5 });
    expect(heightRange([4])).toEqual({ min: 4, max: 4 });
    expect(heightRange([])).toEqual({ min: 0, max: 0 });
  });

  it('tints water from deep to shallow, a sand beach, then grass, rock and snow towards the top', () => {
    expect(heightTint(-30, -30, 80)).toEqual([24, 66, 122]);
    expect(heightTint(-0.0001, -30, 80).map(Math.round)).toEqual([86, 156, 214]);
    expect(heightTint(-15, -30, 80)).toEqual([55, 111, 168]);
    expect(heightTint(0, -30, 80)).toEqual([226, 207, 143]);
    expect(heightTint(BEACH_M, -30, 80)).toEqual([226, 207, 143]);
    expect(heightTint(BEACH_M + 0.001, -30, 80).map(Math.round)).toEqual([86, 150, 70]);
    // halfway up the land: rock
    expect(heightTint(BEACH_M + 0.5 * (80 - BEACH_M), -30, 80)).toEqual([128, 112, 96]);
    expect(heightTint(BEACH_M + 0.25 * (80 - BEACH_M), -30, 80)).toEqual([107, 131, 83]);
    expect(heightTint(80, -30, 80).map(Math.round)).toEqual([244, 244, 240]);
    expect(heightTint(BEACH_M + 0.85 * (80 - BEACH_M), -30, 80).map(Math.round)).toEqual([128, 112, 96]);
    // rock all the way from half to 85 % of the way up, then towards snow
    expect(heightTint(BEACH_M + 0.7 * (80 - BEACH_M), -30, 80)).toEqual([128, 112, 96]);
    expect(heightTint(BEACH_M + 0.925 * (80 - BEACH_M), -30, 80).map(Math.round)).toEqual([186, 178, 168]);
    // an island no higher than its beach is all sand above the sea
    expect(heightTint(1, -5, 1)).toEqual([226, 207, 143]);
    expect(heightTint(3, -5, 2)).toEqual([86, 150, 70]);
  });

  it('lights a flat ground at the sun’s sine, a slope facing the north-west fully and one facing away not at all', () => {
    expect(hillshade(0, 0)).toBeCloseTo(Math.SQRT1_2, 12);
    // rising to the south-east at the sun's own angle: facing it squarely
    const t = 1 / Math.tan(Math.PI / 4);
    expect(hillshade(t * Math.SQRT1_2, t * Math.SQRT1_2)).toBeCloseTo(1, 12);
    expect(hillshade(-10, -10)).toBe(0);
    expect(hillshade(1, 0)).toBeGreaterThan(hillshade(0, 0));
    expect(hillshade(-1, 0)).toBeLessThan(hillshade(0, 0));
    expect(hillshade(0, 1)).toBeGreaterThan(hillshade(0, 0));
    expect(hillshade(0, -1)).toBeLessThan(hillshade(0, 0));
    fc.assert(
      fc.property(fc.double({ min: -50, max: 50, noNaN: true }), fc.double({ min: -50, max: 50, noNaN: true }), (dx, dz) => {
        const s = hillshade(dx, dz);
        expect(s).toBeGreaterThanOrEqual(0);
        expect(s).toBeLessThanOrEqual(1 + 1e-12);
      }),
    );
  });
});

describe('shadeHeightmap', () => {
  it('refuses heights that are not resolution² of them', () => {
    expect(() => shadeHeightmap([1, 2, 3], 2, 10)).toThrow(new RangeError('A heightmap of resolution 2 has 4 heights, not 3.'));
  });

  it('gives one opaque pixel per height, flat land at the ambient share plus the lit share, water unshaded', () => {
    const flat = shadeHeightmap(new Array(9).fill(10), 3, 30);
    expect(flat).toHaveLength(36);
    const light = AMBIENT + (1 - AMBIENT) * Math.SQRT1_2;
    // flat land at the top of its range is snow
    expect([...flat.subarray(0, 4)]).toEqual([Math.round(244 * light), Math.round(244 * light), Math.round(240 * light), 255]);
    const water = shadeHeightmap([-5, -1, -3, -2], 2, 2);
    expect([...water.subarray(0, 4)]).toEqual([24, 66, 122, 255]);
    expect([...water.subarray(4, 8)]).toEqual([...heightTint(-1, -5, -1).map(Math.round), 255]);
    for (let i = 3; i < water.length; i += 4) expect(water[i]).toBe(255);
  });

  it('measures slopes in metres per metre over the cell the heights cover, at the edges too', () => {
    // a plane rising 1 m per metre eastwards (cells of 2 m), and one rising 1 m per metre southwards
    const res = 4;
    const cell = 2;
    // the east plane starts at the sea level: a height of 0 is land, and shaded
    const east = Array.from({ length: res * res }, (_, i) => (i % res) * cell);
    const south = Array.from({ length: res * res }, (_, i) => 3 + Math.floor(i / res) * cell);
    const lit = (dx: number, dz: number, h: number, min: number, max: number) =>
      heightTint(h, min, max).map((c) => Math.round(c * (AMBIENT + (1 - AMBIENT) * hillshade(dx, dz))));
    const e = shadeHeightmap(east, res, res * cell);
    const s = shadeHeightmap(south, res, res * cell);
    for (const [row, col] of [
      [0, 0],
      [1, 2],
      [3, 3],
    ] as const) {
      const i = (row * res + col) * 4;
      expect([...e.subarray(i, i + 3)], `east ${row},${col}`).toEqual(lit(1, 0, east[row * res + col]!, 0, 6));
      expect([...s.subarray(i, i + 3)], `south ${row},${col}`).toEqual(lit(0, 1, south[row * res + col]!, 3, 9));
    }
  });

  it('shades the slopes of a ridge: the side facing the north-west light brighter than the side facing away', () => {
    // a ridge running north-south along the middle column, rising from the sea at both edges
    const res = 5;
    const heights = Array.from({ length: res * res }, (_, i) => [3, 20, 40, 20, 3][i % res]!);
    const px = shadeHeightmap(heights, res, 50);
    const red = (row: number, col: number) => px[(row * res + col) * 4]!;
    // column 1 rises eastwards (faces west), column 3 falls eastwards (faces east)
    expect(red(2, 1)).toBeGreaterThan(red(2, 3));
    expect(red(2, 3)).toBeGreaterThanOrEqual(Math.floor(heightTint(20, 3, 40)[0] * AMBIENT));
  });

  it('shades the heightmap an RTS export writes, every pixel opaque', () => {
    const { rtsHeightmap } = exportFromRts({ gridX: 1, gridZ: 2, seed: 77, biome: 'forest' });
    const px = shadeHeightmap(rtsHeightmap.heightsM, rtsHeightmap.resolution, rtsHeightmap.sizeM);
    expect(px).toHaveLength(128 * 128 * 4);
    for (let i = 3; i < px.length; i += 4) expect(px[i]).toBe(255);
    // water at a corner, land at the centre
    const corner = [...px.subarray(0, 3)];
    const centre = 64 * 128 + 64;
    expect(corner[2]).toBeGreaterThan(corner[0]!);
    expect(px[centre * 4 + 2]).toBeLessThan(px[centre * 4 + 1]!);
  });
});
