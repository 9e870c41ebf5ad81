/**
 * Deterministic island generation (spec 2.9): the first state of an account's home island, and the RTS
 * export (`POST /api/island/export-from-rts`). The same inputs always give the same bytes: every value
 * comes from a mulberry32 stream (`api/_lib/util/prng.ts`) seeded from the inputs, coordinates are
 * rounded to centimetres, and nothing reads the clock.
 *
 * Frame: metres, origin at the world's centre, x east and z south; the 3D world spans ±512 m
 * (`warlords3dWorldSizeM` 1024), the RTS core ±100 m (`rtsWorldSizeM` 200). The RTS heightmap is
 * 128 × 128 heights, row-major (row = z, column = x), cell centres evenly spread over the core.
 */
import { createHash } from 'node:crypto';
import { createRng, type Rng } from '../util/prng.js';
import {
  foundationOfBiome,
  ISLAND_SCALE,
  MOUNTAIN_TRIAD,
  REGROW_ANCHORS,
  SIZE_FOUNDATIONS,
  ZONE_TYPES,
  type FoundationId,
  type SizeFoundation,
} from './spec.js';

/** A point in metres (see the module header). */
export interface Position {
  readonly x: number;
  readonly z: number;
  readonly y?: number;
}

/** The RTS export record kept in the state. */
export interface RtsExport {
  readonly gridX: number;
  readonly gridZ: number;
  readonly seed: number;
  readonly biome: string;
  readonly foundationId: FoundationId;
  readonly resolution: 128;
  readonly sizeM: 200;
  /** sha256 (hex) of the heights as JSON text: a client compares it to know its copy is current. */
  readonly heightmapSha256: string;
  readonly scatterCount: number;
  /** Whether the heights came from the seed or from the client. */
  readonly source: 'seed' | 'client';
}

/** The RTS heightmap member. */
export interface RtsHeightmap {
  readonly resolution: 128;
  readonly sizeM: 200;
  readonly heightsM: readonly number[];
}

/** One placed nature prop of the RTS core. */
export interface ScatterItem {
  readonly kind: string;
  readonly x: number;
  readonly z: number;
  readonly scale: number;
  readonly rotationY: number;
}

/** An island state (schema `schemas/requests/island-state.schema.json`; spec 2.9 state fields). */
export interface IslandState {
  readonly seed: number;
  readonly nodes: readonly { id: string; kind: string; position: Position; zone?: string }[];
  readonly animals: readonly { id: string; species: string; position: Position }[];
  readonly terrainZones: readonly { id: string; type: string; center: Position; radiusM: number }[];
  readonly campPosition?: Position;
  readonly clearings: readonly { id: string; center: Position; radiusM: number }[];
  readonly mountainTriad: { readonly peaks: readonly { x: number; z: number; heightM: number }[] };
  readonly rtsHeightmap?: RtsHeightmap;
  readonly rtsNatureScatter: readonly ScatterItem[];
  readonly rtsExport?: RtsExport;
  readonly regrowRegions: readonly { id: string; anchor: string; center: Position; radiusM: number; regrowSeconds: number }[];
  readonly stats: Readonly<Record<string, number>>;
}

const cm = (v: number) => Math.round(v * 100) / 100;
const HALF_WORLD = ISLAND_SCALE.warlords3dWorldSizeM / 2;
const HALF_RTS = ISLAND_SCALE.rtsWorldSizeM / 2;
const RES = ISLAND_SCALE.rtsHeightmapResolution;

/** A 32-bit seed from any text (the first four bytes of its sha256). */
export function seedOf(text: string): number {
  return createHash('sha256').update(text).digest().readUInt32BE(0);
}

/** The seed of an account's first island: from its `accounts.id`, so a re-created island is the same. */
export function islandSeedOf(accountId: string): number {
  return seedOf(`home-island:${accountId}`);
}

/** A point within `radius` of `center`, inside the world. */
function around(rng: Rng, center: Position, radius: number): Position {
  const angle = rng.next() * 2 * Math.PI;
  const r = Math.sqrt(rng.next()) * radius;
  const clamp = (v: number) => Math.max(-HALF_WORLD, Math.min(HALF_WORLD, v));
  return { x: cm(clamp(center.x + Math.cos(angle) * r)), z: cm(clamp(center.z + Math.sin(angle) * r)) };
}

/** Harvest node kinds per zone type. */
const NODE_KINDS: Readonly<Record<string, readonly string[]>> = {
  mountain: ['ore_vein', 'stone_outcrop'],
  forest: ['timber', 'herb_patch'],
  field: ['fiber_grass', 'herb_patch'],
  shore: ['shell_bed', 'driftwood'],
  water: ['fishing_spot'],
  clearing: ['berry_bush'],
};
const SPECIES = ['deer', 'boar', 'rabbit', 'goat', 'gull', 'crab'];

/**
 * The first state of an island (spec 2.9): six terrain zones (one of each type), `harvestZoneCount`
 * (19) harvest nodes spread over them, eight animals, the camp on its plateau, three clearings, the
 * mountain triad at its three offsets, one regrow region per anchor; no RTS export yet.
 * @param seed unsigned 32-bit seed ({@link islandSeedOf}).
 */
export function initialIsland(seed: number): IslandState {
  const rng = createRng(seed);
  const triadCenter = { x: cm((rng.next() - 0.5) * 200), z: cm(-150 - rng.next() * 100) };
  const peaks = MOUNTAIN_TRIAD.peakOffsetsM.map((o) => ({
    x: cm(triadCenter.x + o.x),
    z: cm(triadCenter.z + o.z),
    heightM: MOUNTAIN_TRIAD.peakHeightM,
  }));
  const camp = { x: cm((rng.next() - 0.5) * 100), z: cm(100 + rng.next() * 60) };
  const zoneCenters: Record<string, Position> = {
    mountain: triadCenter,
    forest: { x: cm(-250 + rng.next() * 60), z: cm(-40 + rng.next() * 80) },
    field: { x: cm(220 + rng.next() * 60), z: cm(-40 + rng.next() * 80) },
    shore: { x: cm(-60 + rng.next() * 120), z: cm(380 + rng.next() * 40) },
    water: { x: cm(-60 + rng.next() * 120), z: cm(460 + rng.next() * 20) },
    clearing: camp,
  };
  const terrainZones = ZONE_TYPES.map((type) => ({
    id: `zone-${type}`,
    type,
    center: zoneCenters[type]!,
    radiusM: type === 'clearing' ? ISLAND_SCALE.campPlateauRadiusM : 120,
  }));
  const nodes = Array.from({ length: ISLAND_SCALE.harvestZoneCount }, (_, i) => {
    const zone = ZONE_TYPES[i % ZONE_TYPES.length]!;
    return {
      id: `node-${String(i + 1).padStart(2, '0')}`,
      kind: rng.pick(NODE_KINDS[zone]!),
      position: around(rng, zoneCenters[zone]!, 100),
      zone,
    };
  });
  const animals = Array.from({ length: 8 }, (_, i) => ({
    id: `animal-${i + 1}`,
    species: rng.pick(SPECIES),
    position: around(rng, zoneCenters[i % 2 === 0 ? 'forest' : 'field']!, 110),
  }));
  const clearings = Array.from({ length: 3 }, (_, i) => ({
    id: `clearing-${i + 1}`,
    center: around(rng, { x: 0, z: 0 }, 300),
    radiusM: cm(20 + rng.next() * 20),
  }));
  const anchorZone: Record<string, string> = { forest_grove: 'forest', quarry: 'mountain', beach_shells: 'shore' };
  const regrowRegions = REGROW_ANCHORS.map((anchor) => ({
    id: `regrow-${anchor}`,
    anchor,
    center: zoneCenters[anchorZone[anchor]!]!,
    radiusM: 60,
    regrowSeconds: 3600,
  }));
  return {
    seed,
    nodes,
    animals,
    terrainZones,
    campPosition: camp,
    clearings,
    mountainTriad: { peaks },
    rtsNatureScatter: [],
    regrowRegions,
    stats: { nodes: nodes.length, animals: animals.length, exports: 0 },
  };
}

/** Input of {@link exportFromRts} (schema `island-export-from-rts`). */
export interface RtsExportInput {
  readonly gridX: number;
  readonly gridZ: number;
  readonly seed: number;
  readonly biome: string;
  readonly heightmap?: readonly number[];
}

/** The three members an RTS export writes. */
export interface RtsExportResult {
  readonly rtsExport: RtsExport;
  readonly rtsHeightmap: RtsHeightmap;
  readonly rtsNatureScatter: readonly ScatterItem[];
}

/** Value noise over a 9 × 9 lattice, smoothly interpolated; 0-1. */
function noiseField(rng: Rng): (u: number, v: number) => number {
  const N = 9;
  const lattice = Array.from({ length: N * N }, () => rng.next());
  const smooth = (t: number) => t * t * (3 - 2 * t);
  return (u, v) => {
    const x = u * (N - 1);
    const z = v * (N - 1);
    const x0 = Math.min(N - 2, Math.floor(x));
    const z0 = Math.min(N - 2, Math.floor(z));
    const tx = smooth(x - x0);
    const tz = smooth(z - z0);
    const at = (i: number, j: number) => lattice[j * N + i]!;
    const top = at(x0, z0) * (1 - tx) + at(x0 + 1, z0) * tx;
    const bottom = at(x0, z0 + 1) * (1 - tx) + at(x0 + 1, z0 + 1) * tx;
    return top * (1 - tz) + bottom * tz;
  };
}

/** Heights of the RTS core from the seed: land in the middle falling to the sea at the edges, within the foundation's elevation range. */
function seededHeights(rng: Rng, foundation: SizeFoundation): number[] {
  const noise = noiseField(rng);
  const heights: number[] = [];
  for (let row = 0; row < RES; row++) {
    for (let col = 0; col < RES; col++) {
      const u = col / (RES - 1);
      const v = row / (RES - 1);
      const d = Math.hypot(u - 0.5, v - 0.5) / Math.SQRT1_2; // 0 at the centre, 1 at a corner
      const land = Math.max(0, 1 - d / foundation.landmassFill) ** 0.8;
      const t = Math.max(0, Math.min(1, 0.35 * noise(u, v) + 0.65 * land));
      heights.push(cm(foundation.minElevationM + t * (foundation.maxElevationM - foundation.minElevationM)));
    }
  }
  return heights;
}

/** Nature props per biome class of the foundation. */
const SCATTER_KINDS: Readonly<Record<FoundationId, readonly string[]>> = {
  driftwood_bay: ['palm_trunk', 'palm_frond', 'beach_rock', 'dune_grass'],
  ironfang_spire: ['pine', 'boulder', 'dead_tree', 'fern'],
};

/**
 * Derive the RTS export (spec 2.9, 4.8): the foundation from the biome, the heightmap from the seed and
 * the grid cell (or the client's own heights), and a nature scatter on the land cells.
 * @throws RangeError for a biome that resolves to no foundation (the handler's schema refuses it first).
 */
export function exportFromRts(input: RtsExportInput): RtsExportResult {
  const foundationId = foundationOfBiome(input.biome);
  if (!foundationId) throw new RangeError(`Unknown biome ${input.biome}`);
  const foundation = SIZE_FOUNDATIONS.find((f) => f.id === foundationId)!;
  const rng = createRng(seedOf(`rts:${input.seed}:${input.gridX}:${input.gridZ}:${foundationId}`));
  const heightsM = input.heightmap ? [...input.heightmap] : seededHeights(rng, foundation);
  const cell = ISLAND_SCALE.rtsWorldSizeM / RES;
  const kinds = SCATTER_KINDS[foundationId];
  const target = Math.round(400 * foundation.landmassFill);
  const scatter: ScatterItem[] = [];
  for (let tries = 0; scatter.length < target && tries < target * 8; tries++) {
    const col = rng.int(RES);
    const row = rng.int(RES);
    const kind = rng.pick(kinds);
    const scale = cm(0.6 + rng.next() * 0.8);
    const rotationY = cm(rng.next() * 6.28);
    // props stand on land above the beach band's waterline only
    if (heightsM[row * RES + col]! <= 0.5) continue;
    scatter.push({ kind, x: cm(-HALF_RTS + (col + 0.5) * cell), z: cm(-HALF_RTS + (row + 0.5) * cell), scale, rotationY });
  }
  return {
    rtsExport: {
      gridX: input.gridX,
      gridZ: input.gridZ,
      seed: input.seed,
      biome: input.biome,
      foundationId,
      resolution: 128,
      sizeM: 200,
      heightmapSha256: createHash('sha256').update(JSON.stringify(heightsM)).digest('hex'),
      scatterCount: scatter.length,
      source: input.heightmap ? 'client' : 'seed',
    },
    rtsHeightmap: { resolution: 128, sizeM: 200, heightsM },
    rtsNatureScatter: scatter,
  };
}
