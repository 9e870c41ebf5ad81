/**
 * What the catalog browser reads once per session, and how an item page finds its record. No DOM; every
 * call goes through `api.ts`. Files are cached as promises for the life of the page (a failed read is
 * forgotten, so it is tried again on the next view).
 *
 * An item page's record (see `kinds.ts` for the per-kind rule, spec §4.1, §4.2, §4.5, §4.6):
 * 1. relics, enchants, infusions, artifacts: `GET /v1/{collection}/{key}`;
 * 2. sprites, icons, characters: `GET /api/v1/{sprites|icons|characters}/{key}`;
 * 3. the other kinds: the kind's static files (`STATIC_SOURCES`) that the game-data manifest lists, read
 *    once, searched for the record whose `uuid`/`id` (then own `*Uuid`) is the id; failing that, the
 *    master registry's `byUuid[id]` names the file and pointer (e.g. a skill by its derived SKIL id, an
 *    item of a kind without its own file).
 */
import { COLLECTION_DEFS, type CollectionName } from '../api/_lib/formats/collection-index.js';
import type { GameDataManifestFile as GameDataManifest } from '../client/src/index.js';
import { isRecord, valueAtPointer } from '../api/_lib/util/json.js';
import * as api from './api.js';
import type { RegistryEntry } from '../api/_lib/formats/changes.js';
import { ApiError, type CatalogRecord } from './api.js';
import { KIND_LABELS, STATIC_SOURCES, isCollectionKind, isStaticKind, kindOfRegistryKind, type ItemKind } from './kinds.js';
import { findRecord, recordsAt, type RecordImage } from './records.js';

const files = new Map<string, Promise<unknown>>();
let manifestPromise: Promise<GameDataManifest | null> | undefined;

function remember<T>(map: Map<string, Promise<unknown>>, key: string, load: () => Promise<T>): Promise<T> {
  let hit = map.get(key) as Promise<T> | undefined;
  if (!hit) {
    hit = load();
    map.set(key, hit);
    hit.catch(() => map.delete(key));
  }
  return hit;
}

/**
 * The game-data manifest (`/api/v1/game-data-manifest.json`, spec §4.1), read once; null when the output
 * has none (then every file is assumed published and `{cdn_url}` is unknown).
 */
export function manifest(): Promise<GameDataManifest | null> {
  if (!manifestPromise) {
    manifestPromise = api.gameDataManifest().catch((e: unknown) => {
      if (e instanceof ApiError && e.status === 404) return null;
      // anything else (the network, a 5xx) is tried again by the next reader
      manifestPromise = undefined;
      throw e;
    });
  }
  return manifestPromise;
}

/** `{cdn_url}` of the catalog (the manifest's `cdnUrl`), or undefined. */
export async function cdnUrl(): Promise<string | undefined> {
  return (await manifest().catch(() => null))?.cdnUrl || undefined;
}

/** True when the manifest lists `/api/v1/{file}` (or there is no manifest to ask). */
export async function isPublished(file: string): Promise<boolean> {
  const m = await manifest().catch(() => null);
  if (!m) return true;
  return m.files.some((f) => f.path === `api/v1/${file}`);
}

/** A static catalog file (relative to `/api/v1/`), parsed, read once per session. */
export function staticFile(file: string): Promise<unknown> {
  return remember(files, file, () => api.catalogFile(file));
}

/** One entry of the master registry (`master-registry.json` `byUuid`). */
export type { RegistryEntry } from '../api/_lib/formats/changes.js';

/** The master registry's `byUuid` map, read once; an empty map when the build did not publish it. */
export async function masterRegistry(): Promise<Readonly<Record<string, RegistryEntry>>> {
  if (!(await isPublished('master-registry.json'))) return {};
  const body = await staticFile('master-registry.json');
  const by = isRecord(body) && isRecord(body.byUuid) ? body.byUuid : {};
  return by as Readonly<Record<string, RegistryEntry>>;
}

/** Where an item page's record came from: the URL of its raw JSON and, for a static file, its pointer. */
export interface ItemSource {
  readonly url: string;
  readonly pointer?: string;
}

/** A resolved item: the record, the kind it turned out to be, the registry's kind when it was asked, the source. */
export interface ResolvedItem {
  readonly record: CatalogRecord;
  readonly kind: ItemKind;
  readonly label: string;
  readonly source: ItemSource;
}

/**
 * The record an item page for `kind` and `id` shows (module header for the order of places).
 * @throws ApiError 404 `NOT_FOUND` when no place has it; any ApiError of the reads.
 */
export async function resolveItem(kind: ItemKind, id: string, signal?: AbortSignal): Promise<ResolvedItem> {
  const label = KIND_LABELS[kind];
  if (isCollectionKind(kind)) {
    return { record: await api.collectionItem(kind, id, signal), kind, label, source: { url: api.collectionItemUrl(kind, id) } };
  }
  if (kind === 'sprites') return { record: { ...(await api.sprite(id, signal)) }, kind, label, source: { url: api.spriteUrl(id) } };
  if (kind === 'icons') return { record: { ...(await api.icon(id, signal)) }, kind, label, source: { url: api.iconUrl(id) } };
  if (kind === 'characters')
    return { record: { ...(await api.character(id, signal)) }, kind, label, source: { url: api.characterUrl(id) } };
  if (isStaticKind(kind)) {
    for (const src of STATIC_SOURCES[kind]) {
      if (!(await isPublished(src.file))) continue;
      const found = findRecord(await staticFile(src.file), src.arrays, id);
      if (found) return { record: found.record, kind, label, source: { url: api.catalogFileUrl(src.file), pointer: found.pointer } };
    }
  }
  const entry = (await masterRegistry())[id];
  if (entry) {
    const pageKind = kindOfRegistryKind(entry.kind);
    if (isCollectionKind(pageKind)) return resolveItem(pageKind, id, signal);
    const record = valueAtPointer(await staticFile(entry.file), entry.pointer);
    if (isRecord(record)) {
      return {
        record,
        kind: pageKind,
        label: pageKind === 'definitions' ? entry.kind : KIND_LABELS[pageKind],
        source: { url: api.catalogFileUrl(entry.file), pointer: entry.pointer },
      };
    }
  }
  throw new ApiError(404, 'NOT_FOUND', `No ${label.toLowerCase()} has the id ${id} in this catalog.`);
}

const iconUrls = new Map<string, Promise<unknown>>();

/** ICON id → the icon's `url` on `{cdn_url}` (spec §4.6), remembered; undefined when the registry has no such icon. */
export function iconImageUrl(iconId: string): Promise<string | undefined> {
  return remember<string | undefined>(iconUrls, iconId, () =>
    api.icon(iconId).then(
      (i) => i.url,
      (e: unknown) => {
        if (e instanceof ApiError && e.status === 404) return undefined;
        throw e;
      },
    ),
  );
}

let modelPreviews: Promise<ReadonlyMap<string, string>> | undefined;

/**
 * A model binary's URL → its preview's URL, from the asset manifest (`studiodot-assets.json`, spec §2.4: the
 * model assets whose `previewUrl` is a string), read once; an empty map when the build did not publish it.
 */
function modelPreviewMap(): Promise<ReadonlyMap<string, string>> {
  if (!modelPreviews) {
    modelPreviews = (async () => {
      if (!(await isPublished('studiodot-assets.json'))) return new Map<string, string>();
      const body = await staticFile('studiodot-assets.json');
      const assets = isRecord(body) && Array.isArray(body.assets) ? (body.assets as unknown[]).filter(isRecord) : [];
      return new Map(
        assets
          .filter((a) => a.type === 'model' && typeof a.url === 'string' && typeof a.previewUrl === 'string')
          .map((a) => [a.url as string, a.previewUrl as string]),
      );
    })();
    modelPreviews.catch(() => (modelPreviews = undefined));
  }
  return modelPreviews;
}

/**
 * The URL of a record's picture (`recordImage`, records.ts): a URL as it is, an icon's through the icon
 * registry ({@link iconImageUrl}), a model's preview through the asset manifest; undefined for none (the
 * page keeps its placeholder). A failed read rejects the promise (the placeholder says so).
 */
export function recordImageUrl(image: RecordImage): string | Promise<string | undefined> | undefined {
  switch (image.type) {
    case 'url':
      return image.url;
    case 'icon':
      return iconImageUrl(image.id);
    case 'model':
      return modelPreviewMap().then((m) => m.get(image.url));
    default:
      return undefined;
  }
}

/**
 * The distinct values of a collection's free-word filters in its static file (`master-{collection}.json`),
 * by query parameter, sorted, for the filter suggestions (spec §4.2). Multi-valued fields (`weapon|armor`)
 * contribute each value. Empty when the file is not published.
 */
export async function collectionFilterValues(name: CollectionName): Promise<Record<string, string[]>> {
  const def = COLLECTION_DEFS[name];
  const file = `${def.dataset}.json`;
  const out: Record<string, string[]> = {};
  if (!(await isPublished(file))) return out;
  const records = recordsAt(await staticFile(file), [[def.arrayKey]]);
  for (const f of def.filters) {
    if (f.kind !== 'string') continue;
    const values = new Set<string>();
    for (const { record } of records) {
      const v = record[f.field];
      if (typeof v === 'string') for (const part of v.split('|')) if (part.trim() !== '') values.add(part.trim());
    }
    out[f.param] = [...values].sort((a, b) => a.localeCompare(b, 'en'));
  }
  return out;
}
