/**
 * Item collections `/v1/relics|enchants|infusions|artifacts` (spec 2.2, 3, 4.2, 7, 8): format definitions (`api/_lib/formats/collection-index.ts`),
 * parameter specs, query engine, and the loader of the build's collection index.
 */
import type { CollectionName } from '../formats/collection-index.js';
import { collectionIndexFile } from '../formats/layout.js';
import { openCatalogFile } from '../catalog/store.js';
import { openIndex, type LoadedCollection } from './load.js';

export {
  COLLECTION_DEFS,
  COLLECTION_NAMES,
  isCollectionName,
  foldKey,
  foldText,
  slugify,
  type CollectionDef,
  type CollectionIndexData,
} from '../formats/collection-index.js';
export { loadIndex, openIndex, type LoadedCollection } from './load.js';
export { queryCollection, lookupItem, type CollectionQuery, type QueryResult } from './query.js';

/**
 * The collection index of `name` from the catalog output folder, opened and checked once per process
 * (`openIndex`: the items stay on disk and are read per request).
 * @throws ServiceError `UPSTREAM_UNAVAILABLE` (503, spec 7) when the file is missing, unreadable or not a valid index.
 */
export function loadCollection(name: CollectionName): Promise<LoadedCollection> {
  return openCatalogFile(collectionIndexFile(name), (file) => openIndex(file, name));
}
