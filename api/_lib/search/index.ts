/**
 * Search over catalog records for `GET /api/search` (spec 4.4; response items spec 2.5).
 *
 * The build calls {@link buildSearchIndex} and writes `JSON.stringify` of the result to the search
 * index file (`SEARCH_INDEX_FILE`, `api/_lib/formats/layout.ts`); the function reads that file once per process and
 * keeps the engine from {@link loadSearchIndex}. File format: `api/_lib/formats/search-index.ts`; matching, ranking and
 * tie-breaking: `engine.ts`; term rules (case, accents, punctuation): `text.ts`.
 */
import { createEngine, type SearchEngine } from './engine.js';
import { validateSearchIndex } from '../formats/search-index.js';

export { buildSearchIndex, type SearchIndexFile, type SearchRecord } from '../formats/search-index.js';
export { MAX_QUERY_TERMS, MIN_FUZZY_LENGTH, type SearchEngine, type SearchOptions, type SearchResult } from './engine.js';
export { tokenize } from '../text/terms.js';

/**
 * Turn a parsed search index file into a ready engine (validates the whole file first; linear in
 * its size).
 * @throws Error when `raw` is not a valid version-1 search index (wrong marker or version, a column
 *   of the wrong shape, an index out of range, an unsorted dictionary).
 */
export function loadSearchIndex(raw: unknown): SearchEngine {
  return createEngine(validateSearchIndex(raw));
}
