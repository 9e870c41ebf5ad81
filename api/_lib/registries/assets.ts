/**
 * Asset search reads (spec 4.3): the filtered, paged asset list and the categories with counts.
 * Data comes from `asset-index.json` and `asset-categories.json` (see `api/_lib/formats/registries.ts`), loaded once per
 * process (503 UPSTREAM_UNAVAILABLE when missing or corrupt).
 *
 * Filters: `type` exact; `category` case-insensitive exact; `search` case- and accent-insensitive, every
 * blank-separated word must occur (as a substring) in the asset's id, name, category, subcategory,
 * format or one of its tags. Order: the index order (type in spec order, category, name, id).
 */
import { readCatalogJson } from '../catalog/store.js';
import { foldAccentsAndCase } from '../text/fold.js';
import {
  ASSET_CATEGORIES_FILE,
  ASSET_INDEX_FILE,
  type AssetCategoriesBody,
  type AssetIndexFile,
  type AssetRecord,
  type AssetType,
} from '../formats/registries.js';
import { isList, paginate, type Page } from './paging.js';

interface AssetData {
  readonly assets: readonly AssetRecord[];
  /** Folded search text per asset, same order as `assets`. */
  readonly haystacks: readonly string[];
}

function loadAssets(): Promise<AssetData> {
  return readCatalogJson(ASSET_INDEX_FILE, (raw) => {
    const file = raw as AssetIndexFile;
    if (!isList(file.assets)) throw new TypeError('asset index without assets');
    const haystacks = file.assets.map((a) => foldAccentsAndCase([a.id, a.name, a.category, a.subcategory, a.format, ...a.tags].join('\n')));
    return { assets: file.assets, haystacks };
  });
}

/** Filters of {@link listAssets}; absent ones do not filter. */
export interface AssetFilters {
  readonly type?: AssetType | undefined;
  readonly category?: string | undefined;
  readonly search?: string | undefined;
}

/** Asset list body: a page plus every filter echoed (null when absent). */
export interface AssetListBody extends Page<AssetRecord> {
  readonly type: AssetType | null;
  readonly category: string | null;
  readonly search: string | null;
}

/** A page of the assets that pass every filter. */
export async function listAssets(filters: AssetFilters, page: number, limit: number): Promise<AssetListBody> {
  const { assets, haystacks } = await loadAssets();
  const category = filters.category?.toLowerCase();
  const words = filters.search === undefined ? [] : foldAccentsAndCase(filters.search).split(/\s+/).filter(Boolean);
  const matched = assets.filter(
    (a, i) =>
      (filters.type === undefined || a.type === filters.type) &&
      (category === undefined || a.category.toLowerCase() === category) &&
      words.every((w) => haystacks[i]!.includes(w)),
  );
  return {
    ...paginate(matched, page, limit),
    type: filters.type ?? null,
    category: filters.category ?? null,
    search: filters.search ?? null,
  };
}

/** Body of `/api/v1/studiodot-assets/categories`: `{ total, types, categories: [{ type, category, count }] }`. */
export function assetCategories(): Promise<AssetCategoriesBody> {
  return readCatalogJson<AssetCategoriesBody>(ASSET_CATEGORIES_FILE);
}
