/**
 * Reading one catalog record for its item page, pure (no DOM, no I/O): finding it in a static file, laying
 * its fields out for reading, extracting its references to other records and binaries, and choosing its
 * image. Identifier families: spec §2.6; prefab references: §2.7; binaries on `{cdn_url}`: §1.4, §4.9.
 */
import { cdnFileUrl } from '../api/_lib/formats/registries.js';
import { escapePointer, isRecord } from '../api/_lib/util/json.js';
import { recordsAt as walkRecords } from '../api/_lib/formats/record-sources.js';
import { kindOfId, recordIdentifiers, type ItemKind, matchStrength, type RecordSource } from './kinds.js';

/** A record with its RFC 6901 pointer inside its file. */
export interface Located {
  readonly record: Readonly<Record<string, unknown>>;
  readonly pointer: string;
}

/**
 * Every record of `doc` under the array paths of a {@link RecordSource}, in document order, with its pointer:
 * the build's own walk (`api/_lib/formats/record-sources.ts`, spec §4.4), so pointers agree with the master registry.
 */
export function recordsAt(doc: unknown, arrays: RecordSource['arrays']): Located[] {
  return [...walkRecords(doc, arrays)];
}

/**
 * The record of `doc` (under `arrays`) that a page for `id` shows: the first whose `uuid` or `id` equals
 * `id`, else the first with another own id member equal to it (`studioUuid`, …); undefined when none.
 */
export function findRecord(doc: unknown, arrays: RecordSource['arrays'], id: string): Located | undefined {
  let second: Located | undefined;
  for (const loc of recordsAt(doc, arrays)) {
    const s = matchStrength(loc.record, id);
    if (s === 1) return loc;
    if (s === 2) second ??= loc;
  }
  return second;
}

/** A scalar, a list, or a group of named fields. */
export type FieldValue =
  | { readonly kind: 'text'; readonly text: string; readonly pointer: string; readonly empty?: true }
  | { readonly kind: 'list'; readonly items: readonly FieldValue[]; readonly more: number }
  | { readonly kind: 'group'; readonly fields: readonly Field[] };

/** One named field: its member name, a label for reading, its pointer in the record, its value. */
export interface Field {
  readonly key: string;
  readonly label: string;
  readonly pointer: string;
  readonly value: FieldValue;
}

/** At most this many entries of one array are laid out; the rest are counted in `more`. */
export const MAX_LIST_ITEMS = 100;

/**
 * A member name as a label: camelCase, snake_case and kebab-case split into lower-case words with the first
 * one capitalised (`damagePerTier` → `Damage per tier`, `hp_regen` → `Hp regen`); upper-case runs stay
 * (`critBase` → `Crit base`, `totalHP` → `Total HP`).
 */
export function fieldLabel(key: string): string {
  const words = key
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .split(/[\s_-]+/)
    .filter((w) => w !== '')
    .map((w) => (/^[A-Z0-9]+$/.test(w) && w.length > 1 ? w : w.toLowerCase()));
  if (words.length === 0) return key;
  const first = words[0]!;
  words[0] = first.charAt(0).toUpperCase() + first.slice(1);
  return words.join(' ');
}

/** Text of a scalar: strings as they are, numbers in plain decimal, `yes`/`no`, `none` for null. */
export function scalarText(value: unknown): string {
  if (value === null || value === undefined) return 'none';
  if (typeof value === 'boolean') return value ? 'yes' : 'no';
  if (typeof value === 'number') return String(value);
  if (typeof value === 'string') return value;
  return JSON.stringify(value);
}

function layoutValue(value: unknown, pointer: string): FieldValue {
  if (Array.isArray(value)) {
    const shown = value.slice(0, MAX_LIST_ITEMS);
    return { kind: 'list', items: shown.map((v: unknown, i) => layoutValue(v, `${pointer}/${i}`)), more: value.length - shown.length };
  }
  if (isRecord(value)) {
    return { kind: 'group', fields: Object.entries(value).map(([k, v]) => field(k, v, `${pointer}/${escapePointer(k)}`)) };
  }
  const text = scalarText(value);
  return value === null || value === '' ? { kind: 'text', text, pointer, empty: true } : { kind: 'text', text, pointer };
}

function field(key: string, value: unknown, pointer: string): Field {
  return { key, label: fieldLabel(key), pointer, value: layoutValue(value, pointer) };
}

/**
 * The fields of a record laid out for reading: every top-level member except those in `omit` (the name and
 * description shown in the heading, the identifiers shown on their own), scalars first in record order,
 * then objects and arrays in record order. Pointers are relative to the record (`/stats/damage`).
 * Arrays longer than {@link MAX_LIST_ITEMS} are cut, with the count of the rest.
 */
export function layoutFields(record: Readonly<Record<string, unknown>>, omit: ReadonlySet<string> = new Set()): Field[] {
  const entries = Object.entries(record).filter(([k]) => !omit.has(k));
  const nested = (v: unknown): boolean => typeof v === 'object' && v !== null;
  return [...entries.filter(([, v]) => !nested(v)), ...entries.filter(([, v]) => nested(v))].map(([k, v]) =>
    field(k, v, `/${escapePointer(k)}`),
  );
}

/** Where a reference leads: another item page, or a binary on the CDN (or another absolute URL). */
export type RefTarget =
  { readonly type: 'item'; readonly kind: ItemKind; readonly id: string } | { readonly type: 'asset'; readonly url: string };

/** A reference of a record to another record or a binary, with the context to describe it. */
export interface Reference {
  /** Pointer of the referring string inside the record, e.g. `/materials/0/uuid`. */
  readonly pointer: string;
  /** Member holding it, e.g. `uuid`, `recipeUuid`, `modelRef`. */
  readonly member: string;
  /** The referring text as written. */
  readonly value: string;
  readonly target: RefTarget;
  /** The `name` of the object holding the reference, when it is not the record itself (e.g. a recipe material's name). */
  readonly name?: string;
  /** The other scalar members of that object, e.g. `quantity 3`, `chance 0.6`. */
  readonly notes: readonly string[];
  /** Where it sits, for reading: the labels of the path, e.g. `Materials › 1 › Uuid`. */
  readonly where: string;
}

/** An object-storage key or URL of a binary: path segments ending in a file extension. */
const ASSET_KEY = /^(?:https?:\/\/[^/\s]+)?\/?(?:[^/\s?#]+\/)*[^/\s?#]+\.[A-Za-z0-9]{2,5}(?:[?#].*)?$/;

/** True when `value` is an absolute http(s) URL. */
function isAbsoluteUrl(value: string): boolean {
  return /^https?:\/\//i.test(value);
}

/**
 * URL of a binary named by `value`: an absolute http(s) URL as it is; an object-storage key or path on
 * `{cdn_url}` (`cdnFileUrl`, spec §4.9); undefined when `value` is neither (or no CDN is known).
 */
export function assetUrl(value: string, cdnUrl: string | undefined): string | undefined {
  if (!ASSET_KEY.test(value) || !value.includes('/')) return undefined;
  if (isAbsoluteUrl(value)) return value;
  return cdnUrl ? cdnFileUrl(cdnUrl, value) : undefined;
}

/**
 * The references of a record (spec §2.6, §2.7): every string anywhere in it that is a definition, icon or
 * sprite id of another record (`recipeUuid`, recipe `materials[].uuid`, `resultItemId`, `iconUuid`, drops'
 * `materialUuid`/`itemUuid`, a `modelRef` naming an item, character animations' sprite ids), and every
 * object-storage key or URL of a binary (`modelRef`, `soundRef`, `modelPath`, `icon`, …) as a CDN link.
 * The record's own identifiers are not references; null references are skipped (§2.7); a binary named twice
 * (an icon's `url` and `key`) is listed once. Document order.
 * @param cdnUrl `{cdn_url}` of the catalog (the game-data manifest's `cdnUrl`); without it keys are not linked.
 */
export function recordReferences(record: Readonly<Record<string, unknown>>, cdnUrl?: string): Reference[] {
  const own = new Set(
    recordIdentifiers(record)
      .filter(([k]) => k !== 'baseUuid')
      .map(([, v]) => v),
  );
  const out: Reference[] = [];
  const assets = new Set<string>();
  const walk = (node: unknown, ptr: string, labels: string[], holder: Readonly<Record<string, unknown>>, member: string): void => {
    if (typeof node === 'string') {
      if (node === '') return;
      const topLevel = holder === record;
      if (topLevel && own.has(node)) return;
      const kind = kindOfId(node);
      let target: RefTarget | undefined;
      if (kind) target = { type: 'item', kind, id: node };
      // an icon's `path` is relative to its key prefix: its `key` and `url` name the binary (spec §4.6)
      else if (!(topLevel && member === 'path' && typeof record.key === 'string')) {
        const url = assetUrl(node, cdnUrl);
        if (url && !assets.has(url)) target = { type: 'asset', url };
        if (url) assets.add(url);
      }
      if (!target) return;
      const name = !topLevel && typeof holder.name === 'string' && member !== 'name' ? holder.name : undefined;
      const notes = topLevel
        ? []
        : Object.entries(holder)
            .filter(([k, v]) => k !== member && k !== 'name' && (typeof v === 'number' || typeof v === 'boolean'))
            .map(([k, v]) => `${fieldLabel(k).toLowerCase()} ${scalarText(v)}`);
      out.push({ pointer: ptr, member, value: node, target, ...(name ? { name } : {}), notes, where: labels.join(' › ') });
      return;
    }
    if (Array.isArray(node)) {
      node.forEach((v: unknown, i) => walk(v, `${ptr}/${i}`, [...labels, String(i + 1)], holder, member));
    } else if (isRecord(node)) {
      for (const [k, v] of Object.entries(node)) walk(v, `${ptr}/${escapePointer(k)}`, [...labels, fieldLabel(k)], node, k);
    }
  };
  for (const [k, v] of Object.entries(record)) walk(v, `/${escapePointer(k)}`, [fieldLabel(k)], record, k);
  return out;
}

/**
 * The image of a record: a URL, the ICON id of an icon to look up in the registry, the URL of a model whose
 * preview the asset manifest may hold (`previewUrl`, spec §2.4), or none.
 */
export type RecordImage =
  | { readonly type: 'url'; readonly url: string }
  | { readonly type: 'icon'; readonly id: string }
  | { readonly type: 'model'; readonly url: string }
  | { readonly type: 'none' };

/** Members that may hold a record's image, in order of preference. */
const IMAGE_MEMBERS = ['iconUrl', 'icon', 'iconPath', 'imageUrl', 'image', 'previewUrl', 'spriteUrl'] as const;
/** Members that may name a record's model binary (spec §2.7 `modelRef`), in order of preference. */
const MODEL_MEMBERS = ['modelRef', 'modelPath', 'model'] as const;

/**
 * Where a record's picture comes from (binaries live on `{cdn_url}`, spec §1.4): an icon or sprite answer's
 * own `url`; a character's first animation sheet; an `iconUuid` (looked up in the icon registry, §4.6);
 * else the first image member ({@link IMAGE_MEMBERS}) holding an absolute URL or an object-storage key on
 * the CDN; else the first model member ({@link MODEL_MEMBERS}) naming a binary, as `model` (its preview is
 * looked up in the asset manifest). `none` when the record names no image.
 */
export function recordImage(record: Readonly<Record<string, unknown>>, kind: ItemKind, cdnUrl?: string): RecordImage {
  if ((kind === 'icons' || kind === 'sprites') && typeof record.url === 'string' && record.url !== '')
    return { type: 'url', url: record.url };
  if (kind === 'characters' && isRecord(record.animations)) {
    const first = Object.values(record.animations).find((a) => isRecord(a) && typeof a.path === 'string') as { path: string } | undefined;
    const url = first ? assetUrl(first.path, cdnUrl) : undefined;
    if (url) return { type: 'url', url };
  }
  if (typeof record.iconUuid === 'string' && kindOfId(record.iconUuid) === 'icons') return { type: 'icon', id: record.iconUuid };
  for (const m of IMAGE_MEMBERS) {
    const v = record[m];
    const url = typeof v === 'string' ? assetUrl(v, cdnUrl) : undefined;
    if (url) return { type: 'url', url };
  }
  for (const m of MODEL_MEMBERS) {
    const v = record[m];
    const url = typeof v === 'string' ? assetUrl(v, cdnUrl) : undefined;
    if (url) return { type: 'model', url };
  }
  return { type: 'none' };
}

/** The display name of a record: `name`, else `title`, else `baseName`, else its first identifier, else `fallback`. */
export function recordName(record: Readonly<Record<string, unknown>>, fallback: string): string {
  for (const k of ['name', 'title', 'baseName']) {
    const v = record[k];
    if (typeof v === 'string' && v.trim() !== '') return v;
  }
  return recordIdentifiers(record)[0]?.[1] ?? fallback;
}

/** The one-line summary under an item's heading: tier (with its label) and category or type, when present. */
export function recordSummary(record: Readonly<Record<string, unknown>>): string {
  const parts: string[] = [];
  if (typeof record.tier === 'number')
    parts.push(`Tier ${record.tier}${typeof record.tierLabel === 'string' ? ` (${record.tierLabel})` : ''}`);
  for (const k of ['category', 'type', 'subCategory', 'slotType', 'artifactType', 'subcategory']) {
    const v = record[k];
    if (typeof v === 'string' && v !== '' && !parts.includes(v)) parts.push(v);
  }
  return parts.join(' · ');
}

/** The reading text of a record: `description`, else `lore`, else `''`. */
export function recordDescription(record: Readonly<Record<string, unknown>>): string {
  for (const k of ['description', 'lore']) {
    const v = record[k];
    if (typeof v === 'string' && v.trim() !== '') return v;
  }
  return '';
}
