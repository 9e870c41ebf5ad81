/**
 * Icon registry derivation (spec 2.6 ICON family, 4.1, 4.6, 9.2).
 *
 * Source: `icon-sources.json` `{ version, keyPrefix, icons: [{ key, category, name, tags[] }] }` where `key`
 * is the object-storage key (`game-assets/icons/<folder>/<file>.png`) and `category` one of the 16 of
 * spec 4.6; `name` defaults to the file name without extension, `tags` to []. Without that file every output is still emitted, empty (zero icons, all 16 categories at 0).
 *
 * Every icon gets `ICON-XXXX-XXXX-XXXX` = SHA-1(`config.namespaces.icon` + key) (see `build/pipeline/ids.ts`).
 * An icon that breaks a per-icon rule (shape, key format, key prefix, duplicate key, unknown category,
 * duplicate id) is reported and left out of every output, whatever the rule's configured severity;
 * the message says so. Output files and shapes: `api/_lib/formats/registries.ts`.
 */
import { isRecord, jsonPointer as pointer } from '../../api/_lib/util/json.js';
import { byCodeUnits } from '../../api/_lib/util/sorted.js';
import { deriveIconId } from '../pipeline/ids.js';
import type { DeriveContext, Deriver, Emitted, RuleDef } from '../pipeline/types.js';
import {
  ICON_CATEGORIES,
  ICON_CATEGORY_INDEX_FILE,
  ICON_PATH_INDEX_FILE,
  ICON_REGISTRY_FILE,
  ICON_SEARCH_INDEX_FILE,
  iconShardFile,
  isIconCategory,
  type IconCategory,
  type IconCategoryIndexFile,
  type IconPathIndexFile,
  type IconRecord,
  type IconRegistryFile,
  type IconShardFile,
  cdnFileUrl,
} from '../../api/_lib/formats/registries.js';
import { buildTermIndex } from '../../api/_lib/formats/term-index.js';

/** Source file of the icon registry, relative to the catalog source folder. */
export const ICON_SOURCE_FILE = 'icon-sources.json';
/** Key prefix assumed when the source names none. */
const DEFAULT_ICON_KEY_PREFIX = 'game-assets/icons/';
/** Icon registry version when the catalog config has no `versions.iconRegistry` (spec 9.2). */
const DEFAULT_ICON_REGISTRY_VERSION = '1.0.0';

/** Rules checked by {@link deriveIcons}. */
export const ICON_RULES: readonly RuleDef[] = [
  {
    name: 'icons/source-shape',
    severity: 'error',
    description:
      'icon-sources.json is an object with an `icons` array whose entries have a string key and category, an optional non-blank name and optional string-array tags (spec 4.6).',
  },
  {
    name: 'icons/key-format',
    severity: 'error',
    description:
      'An icon key is a clean object-storage key: no leading slash, backslash, empty, `.` or `..` segment, surrounding blanks or control characters (spec 2.6).',
  },
  {
    name: 'icons/key-prefix',
    severity: 'error',
    description: 'Every icon key starts with the key prefix (`game-assets/icons/`) and names a file below it (spec 2.6).',
  },
  { name: 'icons/duplicate-key', severity: 'error', description: 'No object-storage key is listed twice (one ICON id per key, spec 2.6).' },
  {
    name: 'icons/unknown-category',
    severity: 'error',
    description: 'Every icon category is one of the 16 icon categories of spec 4.6 (exact lower-case spelling).',
  },
  { name: 'icons/duplicate-id', severity: 'error', description: 'No two keys derive the same ICON id (spec 2.6).' },
  {
    name: 'icons/ambiguous-path',
    severity: 'warn',
    description: "A path relative to the key prefix does not equal another icon's full key (by-path lookups would resolve to the key).",
  },
];

const CONTROL = /[\u0000-\u001f\u007f]/;

function keyFormatProblem(key: string): string | undefined {
  if (key !== key.trim()) return 'has leading or trailing blanks';
  if (CONTROL.test(key)) return 'contains a control character';
  if (key.includes('\\')) return 'contains a backslash';
  if (key.startsWith('/')) return 'starts with a slash';
  if (key.split('/').some((s) => s === '' || s === '.' || s === '..')) return 'has an empty, "." or ".." segment';
  return undefined;
}

/** File name of a key without its extension: the display name of an icon that has none. */
function fileStem(key: string): string {
  const file = key.slice(key.lastIndexOf('/') + 1);
  const dot = file.lastIndexOf('.');
  return dot > 0 ? file.slice(0, dot) : file;
}

interface Accepted {
  readonly record: IconRecord;
  readonly index: number;
}

/**
 * Derive the icon registry, path index, category index, search index and the 16 category shards.
 * Pure: reads `ctx.docs` and `ctx.config` (`namespaces.icon`, `uuidField`, `cdnUrl`, `versions.iconRegistry`),
 * reports through `ctx.report` with the rules of {@link ICON_RULES}, never throws on bad input.
 * @returns 4 + 16 files (see `api/_lib/formats/registries.ts`).
 */
export const deriveIcons: Deriver = (ctx: DeriveContext): readonly Emitted[] => {
  const file = ICON_SOURCE_FILE;
  const report = (rule: string, ptr: string, message: string): void => ctx.report({ rule, file, pointer: ptr, message });
  const version = ctx.config.versions.iconRegistry ?? DEFAULT_ICON_REGISTRY_VERSION;
  const uuidField = ctx.config.uuidField;
  const cdn = ctx.config.cdnUrl.replace(/\/+$/, '');
  const ns = ctx.config.namespaces.icon;

  let keyPrefix = DEFAULT_ICON_KEY_PREFIX;
  let entries: readonly unknown[] = [];
  const data = ctx.docs.get(file)?.data;
  if (data !== undefined) {
    if (!isRecord(data))
      report('icons/source-shape', '', `${file} must be an object { version, keyPrefix, icons: [...] }; no icon is registered.`);
    else {
      if (data.keyPrefix !== undefined) {
        if (
          typeof data.keyPrefix === 'string' &&
          data.keyPrefix.endsWith('/') &&
          keyFormatProblem(data.keyPrefix.slice(0, -1)) === undefined
        ) {
          keyPrefix = data.keyPrefix;
        } else {
          report(
            'icons/source-shape',
            '/keyPrefix',
            `keyPrefix must be an object-storage folder ending in "/" such as "${DEFAULT_ICON_KEY_PREFIX}"; "${DEFAULT_ICON_KEY_PREFIX}" is used instead.`,
          );
        }
      }
      if (Array.isArray(data.icons)) entries = data.icons;
      else report('icons/source-shape', '/icons', `"icons" must be an array of { key, category, name, tags }; no icon is registered.`);
    }
  }

  const byKey = new Map<string, number>();
  const byId = new Map<string, Accepted>();
  entries.forEach((entry, i) => {
    const at = (...rest: (string | number)[]): string => pointer('icons', i, ...rest);
    if (!isRecord(entry)) {
      report('icons/source-shape', at(), `icon ${i} must be an object { key, category, name, tags }; it is not registered.`);
      return;
    }
    let bad = false;
    const { key, category, name, tags } = entry;
    if (typeof key !== 'string' || key === '') {
      report(
        'icons/source-shape',
        at('key'),
        `icon ${i} needs "key", the object-storage key (e.g. "${keyPrefix}folder/file.png"); it is not registered.`,
      );
      bad = true;
    }
    if (name !== undefined && (typeof name !== 'string' || name.trim() === '')) {
      report(
        'icons/source-shape',
        at('name'),
        `"name" of icon ${i} must be a non-blank string (or absent: the file name is used); it is not registered.`,
      );
      bad = true;
    }
    if (typeof category !== 'string') {
      report(
        'icons/source-shape',
        at('category'),
        `icon ${i} needs "category", one of: ${ICON_CATEGORIES.join(', ')}; it is not registered.`,
      );
      bad = true;
    }
    let tagList: string[] = [];
    if (tags !== undefined) {
      if (!Array.isArray(tags)) {
        report('icons/source-shape', at('tags'), `"tags" of icon ${i} must be an array of strings; the icon is not registered.`);
        bad = true;
      } else {
        tags.forEach((t, j) => {
          if (typeof t !== 'string') {
            report('icons/source-shape', at('tags', j), `tag ${j} of icon ${i} must be a string; the icon is not registered.`);
            bad = true;
          }
        });
        tagList = tags.filter((t): t is string => typeof t === 'string');
      }
    }
    if (bad || typeof key !== 'string' || typeof category !== 'string') return;

    const formatProblem = keyFormatProblem(key);
    if (formatProblem) {
      report(
        'icons/key-format',
        at('key'),
        `key "${key}" ${formatProblem}; write the exact object-storage key. The icon is not registered.`,
      );
      return;
    }
    if (!key.startsWith(keyPrefix)) {
      report(
        'icons/key-prefix',
        at('key'),
        `key "${key}" is not a file under "${keyPrefix}"; icon keys are full object-storage keys starting with the key prefix. The icon is not registered.`,
      );
      return;
    }
    const first = byKey.get(key);
    if (first !== undefined) {
      report(
        'icons/duplicate-key',
        at('key'),
        `key "${key}" is already listed at /icons/${first}; remove one. This entry is not registered.`,
      );
      return;
    }
    byKey.set(key, i);
    if (!isIconCategory(category)) {
      report(
        'icons/unknown-category',
        at('category'),
        `category "${category}" is not an icon category; use one of: ${ICON_CATEGORIES.join(', ')}. The icon is not registered.`,
      );
      return;
    }
    const id = deriveIconId(ns, key);
    const clash = byId.get(id);
    if (clash) {
      report(
        'icons/duplicate-id',
        at('key'),
        `key "${key}" derives ${id}, the id of "${clash.record.key}" (/icons/${clash.index}); rename one. This entry is not registered.`,
      );
      return;
    }
    const record: IconRecord = {
      [uuidField]: id,
      iconUuid: id,
      key,
      path: key.slice(keyPrefix.length),
      url: cdnFileUrl(cdn, key),
      category,
      name: typeof name === 'string' ? name : fileStem(key),
      tags: tagList,
    };
    byId.set(id, { record, index: i });
  });

  const accepted = [...byId.values()].sort(byCodeUnits((a) => a.record.iconUuid));
  const icons = accepted.map((a) => a.record);

  // Path index: every key, then every relative path that is not someone's key.
  const pathMap = new Map<string, string>();
  for (const icon of icons) pathMap.set(icon.key, icon.iconUuid);
  for (const { record, index } of accepted) {
    const taken = pathMap.get(record.path);
    if (taken !== undefined && taken !== record.iconUuid) {
      report(
        'icons/ambiguous-path',
        pointer('icons', index, 'key'),
        `the relative path "${record.path}" is also the full key of ${taken}; by-path lookups of "${record.path}" return ${taken}. Use the full key for this icon.`,
      );
    } else pathMap.set(record.path, record.iconUuid);
  }
  const paths: Record<string, string> = {};
  for (const p of [...pathMap.keys()].sort()) paths[p] = pathMap.get(p) as string;

  const perCategory = new Map<IconCategory, IconRecord[]>(ICON_CATEGORIES.map((c) => [c, []]));
  for (const icon of icons) perCategory.get(icon.category)?.push(icon);

  const registry: IconRegistryFile = { version, uuidField, keyPrefix, count: icons.length, icons };
  const pathIndex: IconPathIndexFile = { version, keyPrefix, urlPrefix: `${cdn}/`, count: pathMap.size, paths };
  const categoryIndex: IconCategoryIndexFile = {
    version,
    total: icons.length,
    categories: ICON_CATEGORIES.map((category) => {
      const list = perCategory.get(category) ?? [];
      return { category, count: list.length, ids: list.map((r) => r.iconUuid) };
    }),
  };
  const searchIndex = buildTermIndex(
    version,
    icons.map((r) => r.iconUuid),
    (i) => {
      const r = icons[i] as IconRecord;
      return [r.name, ...r.tags, r.path.replace(/\.[^./]+$/, ''), r.category];
    },
  );
  const shards: Emitted[] = ICON_CATEGORIES.map((category) => {
    const list = perCategory.get(category) ?? [];
    const body: IconShardFile = { version, category, count: list.length, icons: list };
    return { path: iconShardFile(category), body };
  });

  return [
    { path: ICON_REGISTRY_FILE, body: registry },
    { path: ICON_PATH_INDEX_FILE, body: pathIndex },
    { path: ICON_CATEGORY_INDEX_FILE, body: categoryIndex },
    { path: ICON_SEARCH_INDEX_FILE, body: searchIndex },
    ...shards,
  ];
};
