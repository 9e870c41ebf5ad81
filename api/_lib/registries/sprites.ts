/**
 * Sprite registry reads (spec 4.5): sprites (list, search, lookup), characters (list, lookup) and the
 * registry stats. Data comes from the files of `api/_lib/formats/registries.ts`, loaded once per process through the
 * catalog store (503 UPSTREAM_UNAVAILABLE when a file is missing or corrupt).
 *
 * Category filters compare case-insensitively with the categories present in the data; a category
 * that no record has gives an empty list, not an error (the set of categories is data, not a closed enum).
 */
import { readCatalogJson } from '../catalog/store.js';
import { ServiceError } from '../errors.js';
import {
  CHARACTER_REGISTRY_FILE,
  SPRITE_REGISTRY_FILE,
  SPRITE_SEARCH_INDEX_FILE,
  SPRITE_STATS_FILE,
  registryIdKey,
  type CharacterRecord,
  type CharacterRegistryFile,
  type RegistryStatsBody,
  type SpriteRecord,
  type SpriteRegistryFile,
  type SpriteStatsFile,
} from '../formats/registries.js';
import type { TermIndexFile } from '../formats/term-index.js';
import { iconCategories } from './icons.js';
import { compareCodeUnits } from '../util/sorted.js';
import { isList, paginate, type Page } from './paging.js';
import { TermMatcher } from './terms.js';

interface Indexed<T> {
  readonly all: readonly T[];
  readonly byId: ReadonlyMap<string, T>;
  /** Lower-cased category → records, in registry order. */
  readonly byCategory: ReadonlyMap<string, readonly T[]>;
}

function indexBy<T extends { uuid: string; category: string }>(list: readonly T[]): Indexed<T> {
  const byCategory = new Map<string, T[]>();
  for (const r of list) {
    const k = r.category.toLowerCase();
    let l = byCategory.get(k);
    if (!l) byCategory.set(k, (l = []));
    l.push(r);
  }
  return { all: list, byId: new Map(list.map((r) => [r.uuid, r])), byCategory };
}

function loadSprites(): Promise<Indexed<SpriteRecord>> {
  return readCatalogJson(SPRITE_REGISTRY_FILE, (raw) => {
    const file = raw as SpriteRegistryFile;
    if (!isList(file.sprites)) throw new TypeError('sprite registry without sprites');
    return indexBy(file.sprites);
  });
}

function loadCharacters(): Promise<Indexed<CharacterRecord>> {
  return readCatalogJson(CHARACTER_REGISTRY_FILE, (raw) => {
    const file = raw as CharacterRegistryFile;
    if (!isList(file.characters)) throw new TypeError('character registry without characters');
    return indexBy(file.characters);
  });
}

function pick<T>(data: Indexed<T>, category: string | undefined): readonly T[] {
  return category === undefined ? data.all : (data.byCategory.get(category.toLowerCase()) ?? []);
}

/** List body: a page plus the category filter echoed as given (null when absent). */
export interface FilteredPage<T> extends Page<T> {
  readonly category: string | null;
}

/** A page of sprites sorted by path, optionally of one category. */
export async function listSprites(category: string | undefined, page: number, limit: number): Promise<FilteredPage<SpriteRecord>> {
  return { ...paginate(pick(await loadSprites(), category), page, limit), category: category ?? null };
}

/** Search body: the query and filter echoed, then a page of the matches, best first. */
export interface SpriteSearchBody extends FilteredPage<SpriteRecord> {
  readonly query: string;
}

/**
 * Sprites matching every word of `words` (normalised, see `api/_lib/formats/term-index.ts`) in name, path, category,
 * subcategory or source, optionally of one category; sorted by score, then name, then path.
 */
export async function searchSprites(
  query: string,
  words: readonly string[],
  category: string | undefined,
  page: number,
  limit: number,
): Promise<SpriteSearchBody> {
  const [matcher, data] = await Promise.all([
    readCatalogJson(SPRITE_SEARCH_INDEX_FILE, (raw) => new TermMatcher(raw as TermIndexFile)),
    loadSprites(),
  ]);
  const want = category?.toLowerCase();
  const hits: { sprite: SpriteRecord; score: number }[] = [];
  for (const [pos, score] of matcher.match(words)) {
    const sprite = data.byId.get(matcher.ids[pos] ?? '');
    if (sprite && (want === undefined || sprite.category.toLowerCase() === want)) hits.push({ sprite, score });
  }
  hits.sort(
    (a, b) => b.score - a.score || compareCodeUnits(a.sprite.name, b.sprite.name) || compareCodeUnits(a.sprite.path, b.sprite.path),
  );
  return {
    query,
    category: category ?? null,
    ...paginate(
      hits.map((h) => h.sprite),
      page,
      limit,
    ),
  };
}

/**
 * The sprite with SPRT id `uuid` (case-insensitive).
 * @throws ServiceError `NOT_FOUND` when no sprite has that id.
 */
export async function getSprite(uuid: string): Promise<SpriteRecord> {
  const sprite = (await loadSprites()).byId.get(registryIdKey(uuid));
  if (!sprite)
    throw new ServiceError(
      'NOT_FOUND',
      `No sprite has the id "${uuid}". Sprite ids look like SPRT-XXXXXXXX-XXXXXX; list them at /api/v1/sprites.`,
    );
  return sprite;
}

/** A page of characters sorted by name, optionally of one category. */
export async function listCharacters(category: string | undefined, page: number, limit: number): Promise<FilteredPage<CharacterRecord>> {
  return { ...paginate(pick(await loadCharacters(), category), page, limit), category: category ?? null };
}

/**
 * The character with uuid `uuid` (the SPRT id of its base path, case-insensitive).
 * @throws ServiceError `NOT_FOUND` when no character has that id.
 */
export async function getCharacter(uuid: string): Promise<CharacterRecord> {
  const character = (await loadCharacters()).byId.get(registryIdKey(uuid));
  if (!character) throw new ServiceError('NOT_FOUND', `No character has the id "${uuid}". List characters at /api/v1/characters.`);
  return character;
}

/** Body of `/api/v1/stats`: sprite and character totals per category and icon totals for all 16 categories. */
export async function registryStats(): Promise<RegistryStatsBody> {
  const [spriteStats, icons] = await Promise.all([readCatalogJson<SpriteStatsFile>(SPRITE_STATS_FILE), iconCategories()]);
  return { sprites: spriteStats.sprites, characters: spriteStats.characters, icons };
}
