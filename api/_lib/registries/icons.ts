/**
 * Icon registry reads (spec 4.6): list, search, lookup by ICON id, lookup by path, categories.
 * Data comes from the files of `api/_lib/formats/registries.ts`, loaded once per process through the catalog store
 * (503 UPSTREAM_UNAVAILABLE when a file is missing or corrupt).
 */
import { readCatalogJson } from '../catalog/store.js';
import { ServiceError } from '../errors.js';
import {
  ICON_CATEGORIES,
  ICON_CATEGORY_INDEX_FILE,
  ICON_PATH_INDEX_FILE,
  ICON_REGISTRY_FILE,
  ICON_SEARCH_INDEX_FILE,
  iconShardFile,
  registryIdKey,
  type CategoryCount,
  type IconCategory,
  type IconCategoryIndexFile,
  type IconPathIndexFile,
  type IconRecord,
  type IconRegistryFile,
  type IconShardFile,
} from '../formats/registries.js';
import type { TermIndexFile } from '../formats/term-index.js';
import { compareCodeUnits } from '../util/sorted.js';
import { isList, paginate, type Page } from './paging.js';
import { TermMatcher } from './terms.js';

interface IconData {
  readonly icons: readonly IconRecord[];
  readonly byId: ReadonlyMap<string, IconRecord>;
}

function loadRegistry(): Promise<IconData> {
  return readCatalogJson(ICON_REGISTRY_FILE, (raw) => {
    const file = raw as IconRegistryFile;
    if (!isList(file.icons)) throw new TypeError('icon registry without icons');
    return { icons: file.icons, byId: new Map(file.icons.map((i) => [i.iconUuid, i])) };
  });
}

/** Icons list body: a page plus the category filter echoed (null when absent). */
export interface IconListBody extends Page<IconRecord> {
  readonly category: IconCategory | null;
}

/**
 * A page of icons sorted by ICON id, optionally of one category (read from that category's shard).
 * @param page 1-based; @param limit page size.
 */
export async function listIcons(category: IconCategory | undefined, page: number, limit: number): Promise<IconListBody> {
  const icons = category ? (await readCatalogJson<IconShardFile>(iconShardFile(category))).icons : (await loadRegistry()).icons;
  if (!isList(icons)) throw new ServiceError('UPSTREAM_UNAVAILABLE', 'Icon data is corrupt; rebuild the catalog.');
  return { ...paginate(icons, page, limit), category: category ?? null };
}

/** Search body: the query and filter echoed, then a page of the matches, best first. */
export interface IconSearchBody extends Page<IconRecord> {
  readonly query: string;
  readonly category: IconCategory | null;
}

/**
 * Icons matching every word of `words` (normalised query words, see `api/_lib/formats/term-index.ts`) in name, tags, path or
 * category, optionally of one category; sorted by score (exact word 2, prefix 1, summed), then name, then id.
 */
export async function searchIcons(
  query: string,
  words: readonly string[],
  category: IconCategory | undefined,
  page: number,
  limit: number,
): Promise<IconSearchBody> {
  const [matcher, data] = await Promise.all([
    readCatalogJson(ICON_SEARCH_INDEX_FILE, (raw) => new TermMatcher(raw as TermIndexFile)),
    loadRegistry(),
  ]);
  const hits: { icon: IconRecord; score: number }[] = [];
  for (const [pos, score] of matcher.match(words)) {
    const icon = data.byId.get(matcher.ids[pos] ?? '');
    if (icon && (!category || icon.category === category)) hits.push({ icon, score });
  }
  hits.sort(
    (a, b) => b.score - a.score || compareCodeUnits(a.icon.name, b.icon.name) || compareCodeUnits(a.icon.iconUuid, b.icon.iconUuid),
  );
  return {
    query,
    category: category ?? null,
    ...paginate(
      hits.map((h) => h.icon),
      page,
      limit,
    ),
  };
}

/**
 * The icon with ICON id `id` (case-insensitive).
 * @throws ServiceError `NOT_FOUND` when no icon has that id.
 */
export async function getIcon(id: string): Promise<IconRecord> {
  const icon = (await loadRegistry()).byId.get(registryIdKey(id));
  if (!icon)
    throw new ServiceError('NOT_FOUND', `No icon has the id "${id}". Icon ids look like ICON-XXXX-XXXX-XXXX; list them at /api/v1/icons.`);
  return icon;
}

/**
 * Normalise a by-path query to the form stored in the path index: trims blanks, drops the CDN base
 * (`urlPrefix`, as in an icon's `url`, then percent-decodes the rest) and leading slashes. The result is looked up as an object key
 * (`game-assets/icons/a/b.png`) or as a path below the key prefix (`a/b.png`); matching is case-sensitive
 * like object-storage keys.
 */
export function normalizeIconPath(path: string, urlPrefix: string): string {
  let p = path.trim();
  if (urlPrefix && p.startsWith(urlPrefix)) {
    p = p.slice(urlPrefix.length);
    try {
      p = decodeURIComponent(p);
    } catch {
      // not percent-encoded after all: look it up as given
    }
  }
  return p.replace(/^\/+/, '');
}

/**
 * The icon stored at `path` (object key, path below the key prefix, or full CDN URL; leading slashes ignored).
 * @throws ServiceError `NOT_FOUND` when no icon has that path.
 */
export async function getIconByPath(path: string): Promise<IconRecord> {
  const index = await readCatalogJson<IconPathIndexFile>(ICON_PATH_INDEX_FILE);
  const key = normalizeIconPath(path, typeof index.urlPrefix === 'string' ? index.urlPrefix : '');
  const id = Object.hasOwn(index.paths ?? {}, key) ? index.paths[key] : undefined;
  const icon = id === undefined ? undefined : (await loadRegistry()).byId.get(id);
  if (!icon) {
    throw new ServiceError(
      'NOT_FOUND',
      `No icon has the path "${path}". Give the object key (e.g. "${index.keyPrefix}folder/file.png") or the path below "${index.keyPrefix}".`,
    );
  }
  return icon;
}

/** Icon categories body: all 16 categories in spec order with their counts; `total` is the number of icons. */
export interface IconCategoriesBody {
  readonly total: number;
  readonly categories: readonly CategoryCount[];
}

/** Counts of all 16 icon categories (zero-count ones included), from the category index. */
export async function iconCategories(): Promise<IconCategoriesBody> {
  return readCatalogJson(ICON_CATEGORY_INDEX_FILE, (raw) => {
    const file = raw as IconCategoryIndexFile;
    if (!isList(file.categories)) throw new TypeError('icon category index without categories');
    const count = new Map(file.categories.map((c) => [c.category, c.count]));
    const categories = ICON_CATEGORIES.map((category) => ({ category, count: count.get(category) ?? 0 }));
    return { total: categories.reduce((n, c) => n + c.count, 0), categories };
  });
}
