/**
 * How the console pictures a home island (spec 2.9; docs/architecture.md, "Operator console"), pure: where a
 * point of the island falls on a canvas, and the RTS heightmap turned into shaded pixels. The canvas itself
 * is drawn by the player view (`views/island.ts`); these are the numbers, tested alone.
 *
 * Frame (as `api/_lib/island/generate.ts` writes the state): metres, origin at the world's centre, x east and
 * z south; the world spans ±512 m (`warlords3dWorldSizeM` 1024), the RTS core ±100 m (`rtsWorldSizeM` 200).
 * The heightmap is `resolution` × `resolution` heights (128), row-major: row = z (north first), column = x
 * (west first), heights in metres from -30 to 80, sea level 0.
 *
 * Shading: a hypsometric tint (deep water, shallow water, sand within 2 m of the sea, grass, rock, snow
 * above 85 % of the way to the highest point) multiplied by a hillshade: Lambert's cosine of the slope's
 * normal with a light from the north-west (azimuth 315°) 45° above the horizon, so slopes facing the light
 * are bright and slopes facing away dark, with an ambient floor of 35 % so nothing goes black. Water is
 * left flat.
 */

/** Side of the 3D world, metres (spec 2.9 `warlords3dWorldSizeM`). */
export const WORLD_SIZE_M = 1024;
/** Side of the RTS core, metres (spec 2.9 `rtsWorldSizeM`). */
export const RTS_SIZE_M = 200;
/** Heights per side of the RTS heightmap (spec 2.9 `rtsHeightmapResolution`). */
export const HEIGHTMAP_RESOLUTION = 128;

/** Fill colour of each zone type (spec 2.9 zone types), CSS colours. */
export const ZONE_COLOURS: Readonly<Record<string, string>> = Object.freeze({
  mountain: '#8a7f72',
  forest: '#2f7d3b',
  field: '#b5c25a',
  shore: '#e3cf8f',
  water: '#3f7fbf',
  clearing: '#9ad17e',
});

/** Colour of a zone type not in {@link ZONE_COLOURS}. */
export const OTHER_ZONE_COLOUR = '#999999';

/** A point of the island, metres (see the module header). */
export interface IslandPoint {
  readonly x: number;
  readonly z: number;
}

/** A point on a canvas, pixels from its top-left corner. */
export interface CanvasPoint {
  readonly px: number;
  readonly py: number;
}

/**
 * Where `p` falls on a square canvas of `sizePx` pixels showing a square of `spanM` metres centred on the
 * world's origin: east to the right, south down.
 */
export function toCanvas(p: IslandPoint, spanM: number, sizePx: number): CanvasPoint {
  return { px: (p.x / spanM + 0.5) * sizePx, py: (p.z / spanM + 0.5) * sizePx };
}

/** A length of `metres` on that canvas, pixels. */
export function toPixels(metres: number, spanM: number, sizePx: number): number {
  return (metres / spanM) * sizePx;
}

/** True when `p` lies within the square of `spanM` metres centred on the origin (edges included). */
export function within(p: IslandPoint, spanM: number): boolean {
  return Math.abs(p.x) <= spanM / 2 && Math.abs(p.z) <= spanM / 2;
}

/** The lowest and highest of `heights` (0 and 0 for none). */
export function heightRange(heights: readonly number[]): { readonly min: number; readonly max: number } {
  if (heights.length === 0) return { min: 0, max: 0 };
  let min = Infinity;
  let max = -Infinity;
  for (const h of heights) {
    min = Math.min(min, h);
    max = Math.max(max, h);
  }
  return { min, max };
}

/** An RGB colour, 0-255 each. */
export type Rgb = readonly [number, number, number];

const DEEP: Rgb = [24, 66, 122];
const SHALLOW: Rgb = [86, 156, 214];
const SAND: Rgb = [226, 207, 143];
const GRASS: Rgb = [86, 150, 70];
const ROCK: Rgb = [128, 112, 96];
const SNOW: Rgb = [244, 244, 240];

/** Heights up to this many metres above the sea are beach. */
export const BEACH_M = 2;

/** The colour `t` of the way from `a` to `b` (0 ≤ t ≤ 1). */
function mix(a: Rgb, b: Rgb, t: number): Rgb {
  return [a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t, a[2] + (b[2] - a[2]) * t];
}

/**
 * The tint of a height `h` (metres) on an island whose heights run from `min` to `max` (`min` ≤ `h` ≤ `max`):
 * water from deep (at `min`) to shallow (at the sea level), sand up to {@link BEACH_M}, then grass to rock to
 * snow towards `max`.
 */
export function heightTint(h: number, min: number, max: number): Rgb {
  if (h < 0) return mix(DEEP, SHALLOW, 1 - h / min);
  if (h <= BEACH_M) return SAND;
  const t = max > BEACH_M ? (h - BEACH_M) / (max - BEACH_M) : 0;
  if (t < 0.5) return mix(GRASS, ROCK, t / 0.5);
  if (t < 0.85) return ROCK;
  return mix(ROCK, SNOW, (t - 0.85) / 0.15);
}

/** Direction of the light, radians: azimuth 315° (from the north-west), 45° above the horizon. */
const AZIMUTH = (315 * Math.PI) / 180;
const ALTITUDE = (45 * Math.PI) / 180;
/** The light's direction as a unit vector (x east, y up, z south). */
const LIGHT = [Math.cos(ALTITUDE) * Math.sin(AZIMUTH), Math.sin(ALTITUDE), -Math.cos(ALTITUDE) * Math.cos(AZIMUTH)] as const;
/** Shading never darker than this share of the tint. */
export const AMBIENT = 0.35;

/**
 * The brightness of a slope whose height rises by `dx` metres per metre eastwards and `dz` per metre
 * southwards: the cosine between its normal and the light (see the module header), 0 (facing away) to 1.
 */
export function hillshade(dx: number, dz: number): number {
  // the surface y = f(x, z) has the normal (-dx, 1, -dz)
  const len = Math.hypot(dx, 1, dz);
  const cos = (-dx * LIGHT[0] + LIGHT[1] - dz * LIGHT[2]) / len;
  return Math.max(0, cos);
}

/**
 * The RTS heightmap as RGBA pixels, one per height (`resolution` × `resolution`, row-major as the heights),
 * tinted by height and shaded by slope (see the module header), opaque.
 * @param heights the heights, metres, row-major.
 * @param resolution heights per side.
 * @param sizeM the side of the square the heights cover, metres (the cell is `sizeM / resolution`).
 * @throws RangeError when there are not `resolution`² heights.
 */
export function shadeHeightmap(heights: readonly number[], resolution: number, sizeM: number): Uint8ClampedArray {
  if (heights.length !== resolution * resolution)
    throw new RangeError(`A heightmap of resolution ${resolution} has ${resolution * resolution} heights, not ${heights.length}.`);
  const { min, max } = heightRange(heights);
  const cell = sizeM / resolution;
  const at = (row: number, col: number): number =>
    heights[Math.max(0, Math.min(resolution - 1, row)) * resolution + Math.max(0, Math.min(resolution - 1, col))]!;
  const out = new Uint8ClampedArray(resolution * resolution * 4);
  for (let row = 0; row < resolution; row++) {
    for (let col = 0; col < resolution; col++) {
      const h = at(row, col);
      const tint = heightTint(h, min, max);
      let light = 1;
      if (h >= 0) {
        // central differences (one-sided at the edges), metres per metre
        const dx = (at(row, col + 1) - at(row, col - 1)) / ((Math.min(resolution - 1, col + 1) - Math.max(0, col - 1)) * cell);
        const dz = (at(row + 1, col) - at(row - 1, col)) / ((Math.min(resolution - 1, row + 1) - Math.max(0, row - 1)) * cell);
        light = AMBIENT + (1 - AMBIENT) * hillshade(dx, dz);
      }
      const i = (row * resolution + col) * 4;
      out[i] = Math.round(tint[0] * light);
      out[i + 1] = Math.round(tint[1] * light);
      out[i + 2] = Math.round(tint[2] * light);
      out[i + 3] = 255;
    }
  }
  return out;
}

/** The fill colour of a zone type. */
export function zoneColour(type: string): string {
  return ZONE_COLOURS[type] ?? OTHER_ZONE_COLOUR;
}
