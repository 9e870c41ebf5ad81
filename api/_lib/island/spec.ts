/**
 * The home island contract served by `GET /api/island/spec` (spec 2.9, 4.8): spec version 2.2.0,
 * contract 1.4.0. The game API owns these values (player state is checked against them: positions
 * within the world, the heightmap's resolution, the two foundations); the catalog's
 * `home-island-contract.json` is their published copy, and a test holds the sample catalog's copy equal
 * to this one.
 *
 * Biome → foundation resolution (2.9: "coastal biomes resolve to driftwood_bay; highland/cold/dark
 * biomes to ironfang_spire"). The biome classes and their biomes, chosen from the foundations'
 * preferred biomes:
 * - coastal: beach, tropical, plains, storm → `driftwood_bay`
 * - highland: forest, volcanic → `ironfang_spire`
 * - cold: winter, frozen → `ironfang_spire`
 * - dark: abyssal, nexus → `ironfang_spire`
 *
 * A biome outside these lists is refused (400), never defaulted.
 */

/** Version of the island spec (2.9). */
export const ISLAND_SPEC_VERSION = '2.2.0';
/** Version of the home-island contract. */
export const ISLAND_CONTRACT_VERSION = '1.4.0';

/** Scale constants (2.9), metres unless named otherwise. */
export const ISLAND_SCALE = Object.freeze({
  warlords3dWorldSizeM: 1024,
  rtsWorldSizeM: 200,
  rtsHeightmapResolution: 128,
  mountainTriadIslandFraction: 0.1,
  mountainPeakHeightM: 20,
  dungeonEntranceHeightM: 4,
  networkRoomSizeM: 1024,
  logicalMapPercent: 100,
  harvestZoneCount: 19,
  campPlateauRadiusM: 88,
  characterReferenceHeightM: 2,
});

/** The two foundation ids, the only ones allowed (2.9). */
export const FOUNDATION_IDS = ['driftwood_bay', 'ironfang_spire'] as const;
/** One foundation id. */
export type FoundationId = (typeof FOUNDATION_IDS)[number];

/** One size foundation with every column of 2.9. */
export interface SizeFoundation {
  readonly id: FoundationId;
  readonly worldSizeM: number;
  readonly rtsCoreSizeM: number;
  readonly characterHeightM: number;
  readonly mountainPeakHeightM: number;
  /** Share of the world that is land, 0-1. */
  readonly landmassFill: number;
  readonly maxElevationM: number;
  readonly minElevationM: number;
  readonly beachBandDepthM: number;
  /** Share of the island under the mountain triad, 0-1. */
  readonly mountainFootprintFraction: number;
  readonly preferredBiomes: readonly string[];
}

const shared = { worldSizeM: 1024, rtsCoreSizeM: 200, characterHeightM: 2, mountainPeakHeightM: 20 } as const;

/** Both size foundations (2.9). */
export const SIZE_FOUNDATIONS: readonly SizeFoundation[] = Object.freeze([
  {
    id: 'driftwood_bay',
    ...shared,
    landmassFill: 0.58,
    maxElevationM: 48,
    minElevationM: -28,
    beachBandDepthM: 28,
    mountainFootprintFraction: 0.08,
    preferredBiomes: ['beach', 'tropical', 'plains', 'storm'],
  },
  {
    id: 'ironfang_spire',
    ...shared,
    landmassFill: 0.72,
    maxElevationM: 80,
    minElevationM: -30,
    beachBandDepthM: 14,
    mountainFootprintFraction: 0.12,
    preferredBiomes: ['forest', 'winter', 'frozen', 'volcanic', 'abyssal', 'nexus'],
  },
]);

/** Zone types of `terrainZones` (2.9). */
export const ZONE_TYPES = ['mountain', 'forest', 'field', 'shore', 'water', 'clearing'] as const;
/** Regrow anchors of `regrowRegions` (2.9). */
export const REGROW_ANCHORS = ['forest_grove', 'quarry', 'beach_shells'] as const;
/** The state fields (2.9), the only members of an island state. */
export const STATE_FIELDS = [
  'seed',
  'nodes',
  'animals',
  'terrainZones',
  'campPosition',
  'clearings',
  'mountainTriad',
  'rtsHeightmap',
  'rtsNatureScatter',
  'rtsExport',
  'regrowRegions',
  'stats',
] as const;

/** Biome classes and the foundation each resolves to (2.9). */
export const BIOME_RESOLUTION: Readonly<Record<'coastal' | 'highland' | 'cold' | 'dark', FoundationId>> = Object.freeze({
  coastal: 'driftwood_bay',
  highland: 'ironfang_spire',
  cold: 'ironfang_spire',
  dark: 'ironfang_spire',
});

/** The biomes of each class (see the module header). */
export const BIOME_CLASSES: Readonly<Record<keyof typeof BIOME_RESOLUTION, readonly string[]>> = Object.freeze({
  coastal: ['beach', 'tropical', 'plains', 'storm'],
  highland: ['forest', 'volcanic'],
  cold: ['winter', 'frozen'],
  dark: ['abyssal', 'nexus'],
});

/** Every biome name an export may send: the classes and their biomes. */
export const BIOMES: readonly string[] = Object.freeze([...Object.keys(BIOME_CLASSES), ...Object.values(BIOME_CLASSES).flat()]);

/** The three mountain peaks: x offsets -55, 0, 55 m at z 0, each `mountainPeakHeightM` high (2.9). */
export const MOUNTAIN_TRIAD = Object.freeze({
  peakCount: 3,
  peakHeightM: 20,
  peakOffsetsM: Object.freeze([Object.freeze({ x: -55, z: 0 }), Object.freeze({ x: 0, z: 0 }), Object.freeze({ x: 55, z: 0 })]),
});

/**
 * The foundation a biome or biome class resolves to.
 * @returns the foundation id, or undefined for a name that is neither (the caller refuses it).
 */
export function foundationOfBiome(biome: string): FoundationId | undefined {
  for (const [cls, biomes] of Object.entries(BIOME_CLASSES) as [keyof typeof BIOME_RESOLUTION, readonly string[]][]) {
    if (cls === biome || biomes.includes(biome)) return BIOME_RESOLUTION[cls];
  }
  return undefined;
}

/** The body of `GET /api/island/spec` (schema `responses/island-spec`). */
export function islandSpec() {
  return {
    specVersion: ISLAND_SPEC_VERSION,
    contractVersion: ISLAND_CONTRACT_VERSION,
    scale: ISLAND_SCALE,
    sizeFoundations: SIZE_FOUNDATIONS,
    biomeResolution: BIOME_RESOLUTION,
    biomeClasses: BIOME_CLASSES,
    zoneTypes: ZONE_TYPES,
    regrowAnchors: REGROW_ANCHORS,
    mountainTriad: MOUNTAIN_TRIAD,
    stateFields: STATE_FIELDS,
    characterScale: {
      referenceHeightM: ISLAND_SCALE.characterReferenceHeightM,
      rule: 'Props, animals and models are scaled relative to the 2 m character reference height.',
    },
  };
}
