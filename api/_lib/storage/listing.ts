/**
 * Paged listings of keyed items in key order (spec 4.7 `GET /api/storage/list`, 4.9 the metadata
 * index): the storage and the asset index list the same way, `{ items, cursor, hasMore }` as
 * `@vercel/blob` does (docs/architecture.md, "Storage"). The cursor is the base64url text of the last key
 * listed, so a page never repeats or skips a key however objects change between calls.
 */
import { ServiceError } from '../errors.js';
import { keyProblem } from './keys.js';

/** Something that lists pages of keyed items after a key: the storage, the asset index. */
export interface PagedSource<T extends { readonly key: string }> {
  list(options: {
    prefix: string;
    startAfter: string | undefined;
    limit: number;
  }): Promise<{ readonly items: readonly T[]; readonly hasMore: boolean }>;
}

/** A listing page as answered. */
export interface ListingPage<T> {
  readonly items: readonly T[];
  /** Opaque cursor of the next page, or null on the last. */
  readonly cursor: string | null;
  readonly hasMore: boolean;
}

/** The cursor after `key`. */
export function encodeListCursor(key: string): string {
  return Buffer.from(key, 'utf8').toString('base64url');
}

/**
 * The key a cursor names.
 * @throws ServiceError INVALID_QUERY when the text is not a cursor of this API (not canonical base64url
 *   of a valid key).
 */
export function decodeListCursor(cursor: string): string {
  const key = Buffer.from(cursor, 'base64url').toString('utf8');
  if (encodeListCursor(key) !== cursor || keyProblem(key) !== undefined) {
    throw new ServiceError('INVALID_QUERY', 'The cursor is not a cursor of this listing; start again without one.', {
      errors: [{ name: 'cursor', message: 'Not a cursor of this API.' }],
    });
  }
  return key;
}

/**
 * One page of `source`: items whose key starts with `prefix` (default ''), after the cursor's key, at
 * most `limit`, with the cursor after the last item when more follow.
 * @throws ServiceError INVALID_QUERY for a bad cursor; what the source throws (503)
 */
export async function listPage<T extends { readonly key: string }>(
  source: PagedSource<T>,
  query: { readonly prefix?: string | undefined; readonly cursor?: string | undefined; readonly limit: number },
): Promise<ListingPage<T>> {
  const startAfter = query.cursor === undefined ? undefined : decodeListCursor(query.cursor);
  const page = await source.list({ prefix: query.prefix ?? '', startAfter, limit: query.limit });
  const last = page.items.at(-1);
  return { items: page.items, cursor: page.hasMore && last ? encodeListCursor(last.key) : null, hasMore: page.hasMore };
}
