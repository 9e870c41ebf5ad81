/**
 * The kinds of item the catalog browser shows a page for, and where each one's records come from. Pure.
 *
 * How an item page finds its record (spec §4.1, §4.2, §4.5, §4.6):
 * - relics, enchants, infusions, artifacts: the collection's single-item lookup `/v1/{collection}/{key}`;
 * - sprites, icons, characters: the registries, `/api/v1/sprites/{uuid}`, `/api/v1/icons/{studioUuid}`,
 *   `/api/v1/characters/{uuid}`;
 * - every other kind (weapons, armor, materials, consumables, skills, enemies, bosses, recipes, items,
 *   attributes, definitions): the kind's static files under `/api/v1/` ({@link STATIC_SOURCES}, the first
 *   one the game-data manifest lists is read once per session), where the record is the one whose `uuid`
 *   or `id` (then another own id member) equals the page's id; when none does, the master registry
 *   (`master-registry.json`: every definition id → file and JSON pointer) names the file and the place.
 */
import { COLLECTION_NAMES, type CollectionName } from '../api/_lib/formats/collection-index.js';
import { SEARCH_TYPES, type SearchType } from '../api/_lib/formats/search-index.js';
import { RECORD_SOURCES, type RecordSource as BuildRecordSource } from '../api/_lib/formats/record-sources.js';

/** Kinds read from the registries' per-item endpoints (spec §4.5, §4.6). */
export const REGISTRY_KINDS = ['sprites', 'icons', 'characters'] as const;
/** Kinds read from static catalog files (spec §4.1). */
export const STATIC_KINDS = [
  'weapons',
  'armor',
  'materials',
  'consumables',
  'skills',
  'enemies',
  'bosses',
  'recipes',
  'items',
  'attributes',
  'definitions',
] as const;
/** Every kind with an item page. */
export const ITEM_KINDS = [...STATIC_KINDS, ...COLLECTION_NAMES, ...REGISTRY_KINDS] as const;
/** One kind of item page. */
export type ItemKind = (typeof ITEM_KINDS)[number];
/** A kind read from static files. */
export type StaticKind = (typeof STATIC_KINDS)[number];

/** True when `value` names a kind with an item page. */
export function isItemKind(value: unknown): value is ItemKind {
  return typeof value === 'string' && (ITEM_KINDS as readonly string[]).includes(value);
}

/** True for the four item collections (spec §4.2). */
export function isCollectionKind(kind: ItemKind): kind is CollectionName {
  return (COLLECTION_NAMES as readonly string[]).includes(kind);
}

/** True for the kinds read from static files. */
export function isStaticKind(kind: ItemKind): kind is StaticKind {
  return (STATIC_KINDS as readonly string[]).includes(kind);
}

/** Singular label of each kind, for headings ("Weapon", "Relic"). */
export const KIND_LABELS: Readonly<Record<ItemKind, string>> = Object.freeze({
  weapons: 'Weapon',
  armor: 'Armor',
  materials: 'Material',
  consumables: 'Consumable',
  skills: 'Skill',
  enemies: 'Enemy',
  bosses: 'Boss',
  recipes: 'Recipe',
  items: 'Item',
  attributes: 'Attribute',
  definitions: 'Definition',
  relics: 'Relic',
  enchants: 'Enchant',
  infusions: 'Infusion',
  artifacts: 'Artifact',
  sprites: 'Sprite',
  icons: 'Icon',
  characters: 'Sprite character',
});

/**
 * One place records of a kind live: a file relative to `/api/v1/` and the path of the record arrays inside
 * it (`*` fans out over every element or member at that level); the build's own type, without its id fields.
 */
export type RecordSource = Pick<BuildRecordSource, 'file' | 'arrays'>;

/**
 * Static files of each kind read from files, in order of preference (the play catalog before the design
 * template, spec §9.3). The search types are the build's record sources (§4.4, `api/_lib/formats/record-sources.ts`);
 * recipes, items and attributes are the master catalogs of §4.1; `definitions` has no file of its
 * own and is found through the master registry only.
 */
export const STATIC_SOURCES: Readonly<Record<StaticKind, readonly RecordSource[]>> = Object.freeze({
  weapons: RECORD_SOURCES.weapons,
  armor: RECORD_SOURCES.armor,
  materials: RECORD_SOURCES.materials,
  consumables: RECORD_SOURCES.consumables,
  enemies: RECORD_SOURCES.enemies,
  bosses: RECORD_SOURCES.bosses,
  skills: RECORD_SOURCES.skills,
  recipes: [{ file: 'master-recipes.json', arrays: [['recipes']] }],
  items: [{ file: 'master-items.json', arrays: [['items']] }],
  attributes: [{ file: 'master-attributes.json', arrays: [['attributes']] }],
  definitions: [],
});

/** The search types of `/api/search` (spec §4.4), each of which is an item kind of the same name. */
export const SEARCH_KINDS: readonly SearchType[] = SEARCH_TYPES;

/**
 * Definition-id families (spec §2.6) and the kind of page that shows them; `ITEM-*` may be a weapon, an
 * armor piece or an artifact, so it opens as `items` unless the master registry says more.
 */
export const ID_FAMILIES: readonly (readonly [prefix: string, kind: ItemKind])[] = Object.freeze([
  ['ITEM-', 'items'],
  ['FOOD-', 'consumables'],
  ['POTN-', 'consumables'],
  ['CONS-', 'consumables'],
  ['MATL-', 'materials'],
  ['RECP-', 'recipes'],
  ['SKIL-', 'skills'],
  ['RELC-', 'relics'],
  ['ENCH-', 'enchants'],
  ['INFU-', 'infusions'],
  ['ARTF-', 'artifacts'],
  ['ATTR-', 'attributes'],
  ['ICON-', 'icons'],
  ['SPRT-', 'sprites'],
  ['NODE-', 'definitions'],
  ['PFAB-', 'definitions'],
  ['BLDG-', 'definitions'],
  ['MNT-', 'definitions'],
]);

/** Shape of a definition or registry id: an upper-case family prefix, a dash, then upper-case hex and dashes. */
const ID_SHAPE = /^[A-Z]{3,4}-[0-9A-Z]+(?:-[0-9A-Z]+)+$/;

/**
 * The kind of page for an identifier by its family (spec §2.6), or undefined when `id` is no definition,
 * icon or sprite id (e.g. an object-storage key, a name, a bare UUID).
 */
export function kindOfId(id: string): ItemKind | undefined {
  if (!ID_SHAPE.test(id)) return undefined;
  return ID_FAMILIES.find(([prefix]) => id.startsWith(prefix))?.[1];
}

/** Kind of page for each kind the master registry names (`master-registry.json` `byUuid[id].kind`). */
const REGISTRY_KIND_PAGES: Readonly<Record<string, ItemKind>> = Object.freeze({
  weapon: 'weapons',
  armor: 'armor',
  material: 'materials',
  consumable: 'consumables',
  food: 'consumables',
  potion: 'consumables',
  recipe: 'recipes',
  skill: 'skills',
  relic: 'relics',
  enchant: 'enchants',
  infusion: 'infusions',
  artifact: 'artifacts',
  attribute: 'attributes',
});

/** The kind of page for a master-registry kind (`weapon` → `weapons`); kinds without their own page → `definitions`. */
export function kindOfRegistryKind(registryKind: string): ItemKind {
  return REGISTRY_KIND_PAGES[registryKind] ?? 'definitions';
}

/** Object members that name another record, never the record itself (spec §2.6, §2.7). */
export const REFERENCE_MEMBERS: ReadonlySet<string> = new Set([
  'baseUuid',
  'iconUuid',
  'recipeUuid',
  'resultItemId',
  'materialUuid',
  'itemUuid',
  'modelRef',
  'vfxRef',
  'overlayRef',
  'impactRef',
  'soundRef',
  'projectileRef',
]);

/**
 * The id a page uses for a record: `uuid`, then `id`, then the first other top-level string member whose
 * name ends in `Uuid` and names the record itself (not one of {@link REFERENCE_MEMBERS}), e.g. `studioUuid`.
 * Undefined when the record has none.
 */
export function recordKey(record: Readonly<Record<string, unknown>>): string | undefined {
  for (const k of ['uuid', 'id']) {
    const v = record[k];
    if (typeof v === 'string' && v !== '') return v;
  }
  return ownIdMembers(record)[0]?.[1];
}

/** Top-level `*Uuid` string members naming the record itself, in member order. */
function ownIdMembers(record: Readonly<Record<string, unknown>>): [string, string][] {
  return Object.entries(record).filter(
    (e): e is [string, string] => e[0].endsWith('Uuid') && !REFERENCE_MEMBERS.has(e[0]) && typeof e[1] === 'string' && e[1] !== '',
  );
}

/**
 * The identifiers of a record, as `[member, value]` pairs in display order: `uuid`, `id`, other own `*Uuid`
 * members (`studioUuid`, `grudgeUuid`, `iconUuid` of an icon, …), `slug`, `baseUuid` when it differs from `uuid`.
 */
export function recordIdentifiers(record: Readonly<Record<string, unknown>>): [string, string][] {
  const out: [string, string][] = [];
  const seen = new Set<string>();
  const add = (k: string): void => {
    const v = record[k];
    if (typeof v === 'string' && v !== '' && !seen.has(k)) {
      seen.add(k);
      out.push([k, v]);
    }
  };
  add('uuid');
  add('id');
  for (const [k] of ownIdMembers(record)) add(k);
  if (typeof record.iconUuid === 'string' && typeof record.key === 'string') add('iconUuid');
  add('slug');
  if (record.baseUuid !== record.uuid) add('baseUuid');
  return out;
}

/**
 * Whether `record` is the one a page for `id` shows: its `uuid` or `id` equals `id` (`strength` 1), or another
 * own id member does (`strength` 2, e.g. a skill's derived `studioUuid`); 0 when none does.
 */
export function matchStrength(record: Readonly<Record<string, unknown>>, id: string): 0 | 1 | 2 {
  if (record.uuid === id || record.id === id) return 1;
  return ownIdMembers(record).some(([, v]) => v === id) ? 2 : 0;
}
