/**
 * What each function entry bundles besides its code (docs/architecture.md, "Functions"): the catalog
 * files its routes read, as globs relative to the catalog output folder. `npm run routes` turns them into
 * the `includeFiles` of each entry in `vercel.json`, so a function carries only its own data (Vercel's
 * function size limit is 250 MB; bundling the whole catalog into every function breaks it at a few
 * hundred thousand records). `test/api/bundles.test.ts` records every file the routes of an entry read
 * and fails when one is not covered here, or when `@vercel/nft` traces catalog files into an entry.
 */
import { MANIFEST_FILE, SEARCH_INDEX_FILE, STATS_FILE, API_V1_DIR } from '../formats/layout.js';
import {
  ASSET_CATEGORIES_FILE,
  ASSET_INDEX_FILE,
  CHARACTER_REGISTRY_FILE,
  ICON_CATEGORY_INDEX_FILE,
  ICON_PATH_INDEX_FILE,
  ICON_REGISTRY_FILE,
  ICON_SEARCH_INDEX_FILE,
  SPRITE_REGISTRY_FILE,
  SPRITE_SEARCH_INDEX_FILE,
  SPRITE_STATS_FILE,
} from '../formats/registries.js';
import type { EntryName } from './table.js';

/** Catalog files each entry reads, as globs relative to the catalog output folder (`dist/`). */
export const ENTRY_CATALOG_FILES: Readonly<Record<EntryName, readonly string[]>> = Object.freeze({
  catalog: [MANIFEST_FILE, SEARCH_INDEX_FILE, STATS_FILE, `${API_V1_DIR}/exports/*.json`, `${API_V1_DIR}/exports/full/*`],
  collections: [MANIFEST_FILE, `${API_V1_DIR}/collections/*.cidx`],
  registries: [
    MANIFEST_FILE,
    ICON_REGISTRY_FILE,
    ICON_PATH_INDEX_FILE,
    ICON_CATEGORY_INDEX_FILE,
    ICON_SEARCH_INDEX_FILE,
    SPRITE_REGISTRY_FILE,
    SPRITE_SEARCH_INDEX_FILE,
    CHARACTER_REGISTRY_FILE,
    SPRITE_STATS_FILE,
    ASSET_INDEX_FILE,
    ASSET_CATEGORIES_FILE,
  ],
  wallet: [],
  admin: [],
  storage: [],
  player: [`${API_V1_DIR}/{classes,races,factions,master-recipes,master-materials,canonical-items-manifest}.json`],
});

/**
 * Files of the repository (not the catalog) an entry reads at run time, as globs relative to the
 * project root. None today: request bodies are checked by validators compiled ahead of time into a
 * module the entries import (`api/_lib/http/body.ts`), which the bundler follows like any import.
 */
export const ENTRY_PROJECT_FILES: Readonly<Record<EntryName, readonly string[]>> = Object.freeze({
  catalog: [],
  collections: [],
  registries: [],
  wallet: [],
  admin: [],
  storage: [],
  player: [],
});
