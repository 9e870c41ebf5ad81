/**
 * The asset registry files (spec §2.3, §2.4, §2.6, §4.1, §4.3, §4.5, §4.6, §9.2): where the build writes every
 * registry file (relative to the output folder), the shapes of those files, the icon categories and asset types,
 * and the CDN URL rule of their `url` fields.
 *
 * Written by: `build/derive/icons.ts` (icon files), `build/derive/sprites.ts` (sprite, character and sprite stats
 * files), `build/derive/assets.ts` (asset index and categories); the two term indexes through `buildTermIndex`
 * (`term-index.ts`). Read by: `api/_lib/registries/{icons,sprites,assets}.ts` for
 * `api/registries.ts`, through the catalog store. Nothing else spells these paths.
 *
 * Emitted files (all JSON, under `api/v1/`, i.e. `{base_url}/api/v1/<file>`):
 * - `icon-registry.json`            every icon, sorted by ICON id ({@link IconRegistryFile}; §4.1, §4.6)
 * - `icon-path-index.json`          accepted path form → ICON id ({@link IconPathIndexFile})
 * - `icon-category-index.json`      the 16 categories (spec order) with counts and ids ({@link IconCategoryIndexFile})
 * - `icon-search-index.json`        term → icon postings for `/api/v1/icons/search` (`term-index.ts`)
 * - `icon-shards/{category}.json`   one file per category, all 16 always present ({@link IconShardFile})
 * - `sprite-registry.json`          every sprite with its SPRT id, sorted by path ({@link SpriteRegistryFile})
 * - `sprite-search-index.json`      term → sprite postings for `/api/v1/sprites/search` (`term-index.ts`)
 * - `character-registry.json`       sprite characters with uuid and resolved animations ({@link CharacterRegistryFile})
 * - `sprite-stats.json`             sprite and character totals, the sprite part of `/api/v1/stats` ({@link SpriteStatsFile})
 * - `asset-index.json`              validated asset manifest entries for `/api/v1/studiodot-assets` ({@link AssetIndexFile})
 * - `asset-categories.json`         body of `/api/v1/studiodot-assets/categories` ({@link AssetCategoriesBody})
 * Counts are numbers of records; `sizeBytes` is bytes; positions in term indexes are 0-based indexes into `ids`.
 */
import { API_V1_DIR } from './layout.js';

/** Icon registry file (spec 4.1 `icon-registry.json`). */
export const ICON_REGISTRY_FILE = `${API_V1_DIR}/icon-registry.json`;
/** Icon path index file (spec 4.1 `icon-path-index.json`). */
export const ICON_PATH_INDEX_FILE = `${API_V1_DIR}/icon-path-index.json`;
/** Icon category index file (spec 4.1 `icon-category-index.json`). */
export const ICON_CATEGORY_INDEX_FILE = `${API_V1_DIR}/icon-category-index.json`;
/** Icon search index file (spec 4.1 `icon-search-index.json`). */
export const ICON_SEARCH_INDEX_FILE = `${API_V1_DIR}/icon-search-index.json`;
/** Path of the shard of one icon category (spec 4.1 `icon-shards/{category}.json`). */
export function iconShardFile(category: IconCategory): string {
  return `${API_V1_DIR}/icon-shards/${category}.json`;
}
/** Sprite registry file (sprites of `sprites2d.json` with their SPRT ids). */
export const SPRITE_REGISTRY_FILE = `${API_V1_DIR}/sprite-registry.json`;
/** Sprite search index file. */
export const SPRITE_SEARCH_INDEX_FILE = `${API_V1_DIR}/sprite-search-index.json`;
/** Character registry file (characters of `sprite-characters.json` with ids). */
export const CHARACTER_REGISTRY_FILE = `${API_V1_DIR}/character-registry.json`;
/** Sprite and character totals (the sprite part of the `/api/v1/stats` body). */
export const SPRITE_STATS_FILE = `${API_V1_DIR}/sprite-stats.json`;
/** Asset index file read by `/api/v1/studiodot-assets`. */
export const ASSET_INDEX_FILE = `${API_V1_DIR}/asset-index.json`;
/** Body of `/api/v1/studiodot-assets/categories`. */
export const ASSET_CATEGORIES_FILE = `${API_V1_DIR}/asset-categories.json`;

/** The 16 icon categories in spec 4.6 order (the order of every per-category list). */
export const ICON_CATEGORIES = [
  'misc',
  'race',
  'ability',
  'armor',
  'consumable',
  'faction',
  'item',
  'material',
  'entity',
  'class',
  'weapon',
  'profession',
  'sigil',
  'skill',
  'spell',
  'ui',
] as const;
/** One icon category (spec 4.6). */
export type IconCategory = (typeof ICON_CATEGORIES)[number];
/** True when `value` is one of the 16 icon categories (exact spelling). */
export function isIconCategory(value: unknown): value is IconCategory {
  return typeof value === 'string' && (ICON_CATEGORIES as readonly string[]).includes(value);
}

/** The asset types of the asset manifest (spec 2.4), in the order used for sorting. */
export const ASSET_TYPES = ['icon', 'sprite', 'model', 'audio', 'video'] as const;
/** One asset type. */
export type AssetType = (typeof ASSET_TYPES)[number];

/** `{ category, count }`: one row of a categories list. */
export interface CategoryCount {
  readonly category: string;
  readonly count: number;
}

/**
 * One icon (spec 2.6 ICON family). The ICON id appears twice: as `iconUuid` and under the configured
 * id field (`studioUuid` by default, `grudgeUuid` for a branded studio); the index signature is that field.
 */
export interface IconRecord {
  /** ICON-XXXX-XXXX-XXXX from SHA-1(icon namespace + key). */
  readonly iconUuid: string;
  /** Object-storage key, e.g. `game-assets/icons/abilities/a.png`. */
  readonly key: string;
  /** Key without the key prefix, e.g. `abilities/a.png`. */
  readonly path: string;
  /** `{cdn_url}/{key}`, each key segment percent-encoded (the same text for plain names). */
  readonly url: string;
  readonly category: IconCategory;
  readonly name: string;
  readonly tags: readonly string[];
  readonly [idField: string]: string | readonly string[];
}

/** `icon-registry.json`: every icon sorted by id. */
export interface IconRegistryFile {
  /** Icon registry version (spec 9.2, `1.0.0` unless configured). */
  readonly version: string;
  /** Name of the field that carries the ICON id besides `iconUuid` (catalog config `uuidField`). */
  readonly uuidField: string;
  /** Key prefix of every icon key, e.g. `game-assets/icons/`. */
  readonly keyPrefix: string;
  readonly count: number;
  readonly icons: readonly IconRecord[];
}

/**
 * `icon-path-index.json`: accepted path form → ICON id. Two forms per icon are listed: the object key
 * (`game-assets/icons/a/b.png`) and the path relative to the key prefix (`a/b.png`); when a relative
 * path equals another icon's key, the key wins. Readers also strip `urlPrefix` (the CDN base plus `/`)
 * and leading slashes before looking up (see `normalizeIconPath`).
 */
export interface IconPathIndexFile {
  readonly version: string;
  readonly keyPrefix: string;
  /** `{cdn_url}/`: a full icon URL with this prefix is looked up by the key after it. */
  readonly urlPrefix: string;
  /** Number of entries in `paths`. */
  readonly count: number;
  readonly paths: Readonly<Record<string, string>>;
}

/** One row of `icon-category-index.json`. */
export interface IconCategoryEntry {
  readonly category: IconCategory;
  readonly count: number;
  /** ICON ids of the category, sorted. */
  readonly ids: readonly string[];
}

/** `icon-category-index.json`: all 16 categories in spec order, zero-count ones included. */
export interface IconCategoryIndexFile {
  readonly version: string;
  /** Number of icons. */
  readonly total: number;
  readonly categories: readonly IconCategoryEntry[];
}

/** `icon-shards/{category}.json`: the icons of one category, sorted by id. */
export interface IconShardFile {
  readonly version: string;
  readonly category: IconCategory;
  readonly count: number;
  readonly icons: readonly IconRecord[];
}

/** One sprite of `sprites2d.json` (spec 2.3) with its registry id. */
export interface SpriteRecord {
  /** SPRT-{8hex}-{6hex}: kept from `sprite-ids.json`, or derived from the path (spec 2.6). */
  readonly uuid: string;
  readonly name: string;
  /** Sprite path as authored, e.g. `/sprites/bosses/boss-demon/take_hit.png`. */
  readonly path: string;
  /** `{cdn_url}{path}`, each path segment percent-encoded (the same text for plain names). */
  readonly url: string;
  readonly category: string;
  readonly subcategory: string;
  readonly source: string;
}

/** `sprite-registry.json`: every sprite sorted by path. */
export interface SpriteRegistryFile {
  readonly version: string;
  /** `generatedAt` of `sprites2d.json`, or null without one. */
  readonly generatedAt: string | null;
  readonly total: number;
  /** Categories sorted by name, with counts. */
  readonly categories: readonly CategoryCount[];
  readonly sprites: readonly SpriteRecord[];
}

/** One animation of a character: the sprite path and its SPRT id (null when no sprite has that path). */
export interface CharacterAnimation {
  readonly path: string;
  readonly uuid: string | null;
}

/** One sprite character with its id (the SPRT id of its base path). */
export interface CharacterRecord {
  readonly uuid: string;
  readonly name: string;
  readonly category: string;
  /** e.g. `/sprites/characters/knight/`. */
  readonly basePath: string;
  /** Animation name → sprite. */
  readonly animations: Readonly<Record<string, CharacterAnimation>>;
}

/** `character-registry.json`: characters sorted by name, then uuid. */
export interface CharacterRegistryFile {
  readonly version: string;
  readonly total: number;
  readonly categories: readonly CategoryCount[];
  readonly characters: readonly CharacterRecord[];
}

/** `{ total, categories }` block of the stats body. */
export interface TotalsBlock {
  readonly total: number;
  readonly categories: readonly CategoryCount[];
}

/** `sprite-stats.json`: sprite and character totals per category. */
export interface SpriteStatsFile {
  readonly sprites: TotalsBlock & {
    /** Sprites whose id was derived from the path in this build (no entry in `sprite-ids.json`). */
    readonly derivedIds: number;
  };
  readonly characters: TotalsBlock;
}

/** Body of `/api/v1/stats`: {@link SpriteStatsFile} plus icon totals for all 16 categories. */
export interface RegistryStatsBody extends SpriteStatsFile {
  readonly icons: TotalsBlock;
}

/** One asset of the asset manifest (spec 2.4), normalised. */
export interface AssetRecord {
  readonly id: string;
  readonly name: string;
  readonly type: AssetType;
  readonly category: string;
  readonly subcategory: string;
  readonly url: string;
  readonly previewUrl: string | null;
  readonly tags: readonly string[];
  readonly format: string;
  /** Size in bytes, or null when the manifest has none. */
  readonly sizeBytes: number | null;
  readonly metadata: Readonly<Record<string, unknown>>;
}

/** `asset-index.json`: assets sorted by type (spec order), category, name, id. */
export interface AssetIndexFile {
  /** `version` of the manifest, or null. */
  readonly version: string | null;
  /** `baseUrl` of the manifest, or null. */
  readonly baseUrl: string | null;
  readonly total: number;
  readonly assets: readonly AssetRecord[];
}

/** One row of the asset categories body. */
export interface AssetCategoryCount {
  readonly type: AssetType;
  readonly category: string;
  readonly count: number;
}

/** `asset-categories.json` = body of `/api/v1/studiodot-assets/categories`, counted from the assets. */
export interface AssetCategoriesBody {
  readonly total: number;
  /** Count per type, all five present. */
  readonly types: Readonly<Record<AssetType, number>>;
  /** Rows sorted by type (spec order), then category. */
  readonly categories: readonly AssetCategoryCount[];
}

/**
 * Lookup form of an ICON or SPRT id as a client writes it (spec §2.6): blanks trimmed, upper case, since the
 * registries store every id in upper-case hex (`icon-x` finds `ICON-…`).
 */
export function registryIdKey(id: string): string {
  return id.trim().toUpperCase();
}

/**
 * URL of a binary on the CDN (spec 4.9 `{cdn_url}/{key}`): `cdnBase` without trailing slashes, `/`, then
 * the key or path without leading slashes, each segment percent-encoded (the same text for plain names).
 */
export function cdnFileUrl(cdnBase: string, keyOrPath: string): string {
  const base = cdnBase.replace(/\/+$/, '');
  return `${base}/${keyOrPath.replace(/^\/+/, '').split('/').map(encodeURIComponent).join('/')}`;
}
