/**
 * Registry reads used by `api/registries.ts` (spec 4.3, 4.5, 4.6). File paths and shapes live in
 * `api/_lib/formats/registries.ts`; the term index format in
 * `api/_lib/formats/term-index.ts`.
 */
// @ts-nocheck

export { ICON_CATEGORIES, ASSET_TYPES } from '../formats/registries.js';
export { listIcons, searchIcons, getIcon, getIconByPath, iconCategories, normalizeIconPath } from './icons.js';
export { listSprites, searchSprites, getSprite, listCharacters, getCharacter, registryStats } from './sprites.js';
export { listAssets, assetCategories } from './assets.js';
export { queryTerms } from '../formats/term-index.js';
