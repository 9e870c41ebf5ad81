/**
 * Core derivations of the catalog build, pure: derived skill ids written into the emitted
 * master-weaponSkills.json, the master registry (every definition id → file and pointer), the canonical
 * items manifest, search records and the search index, export records and the stats body
 * ({@link deriveCore} runs them all). File paths: `api/_lib/formats/layout.ts`; shapes: the other modules of
 * `api/_lib/formats/`.
 */
import { csvColumns, exportCsvText, exportJsonText, filterRecords } from '../../api/_lib/export/index.js';
import { COLLECTION_DEFS, COLLECTION_NAMES } from '../../api/_lib/formats/collection-index.js';
import { EXPORT_TYPES, type ExportFile, type ExportType } from '../../api/_lib/formats/export.js';
import {
  CANONICAL_ITEMS_FILE,
  MASTER_REGISTRY_FILE,
  SEARCH_INDEX_FILE,
  STATS_FILE,
  WEAPON_SKILLS_FILE,
  exportFile,
  fullExportFile,
} from '../../api/_lib/formats/layout.js';
import { SEARCH_TYPES, buildSearchIndex, type SearchType } from '../../api/_lib/formats/search-index.js';
import type { StatsFile } from '../../api/_lib/formats/stats.js';
import { sortKeys } from '../../api/_lib/util/json.js';
import { byCodeUnits } from '../../api/_lib/util/sorted.js';
import { CATEGORY_STATUS, RECORD_SOURCES, recordsAt, type RecordSource } from '../pipeline/layout.js';
import type { Definition, LawResult } from '../pipeline/law.js';
import type { CatalogConfig, Emitted, SourceDoc } from '../pipeline/types.js';
import { ASSETS_SOURCE_FILE } from './assets.js';
import { SPRITE_CHARACTERS_FILE, spriteIdsOf } from './sprites.js';

/** A record found for a search/export type, with where it lives. */
export interface TypedRecord {
  readonly type: SearchType;
  readonly id: string;
  readonly name: string;
  readonly file: string;
  readonly pointer: string;
  readonly record: Record<string, unknown>;
}

/** The first present source of a type (play catalog before design template, spec 9.3). */
function sourceOf(docs: ReadonlyMap<string, SourceDoc>, sources: readonly RecordSource[]): RecordSource | undefined {
  return sources.find((s) => docs.get(s.file)?.data !== undefined);
}

/**
 * Every record of every search type (spec 4.4), in catalog order.
 * Ids: the first present id field; skills use their derived SKIL id (`@skill`), sprites their SPRT id (`@sprite`).
 */
export function collectTypedRecords(
  docs: ReadonlyMap<string, SourceDoc>,
  config: CatalogConfig,
  law: LawResult,
): Map<SearchType, TypedRecord[]> {
  const out = new Map<SearchType, TypedRecord[]>();
  const spriteIds = spriteIdsOf(docs, config.namespaces.sprite);
  for (const type of SEARCH_TYPES) {
    const list: TypedRecord[] = [];
    const src = sourceOf(docs, RECORD_SOURCES[type]);
    if (src) {
      for (const { record, pointer } of recordsAt(docs.get(src.file)!.data, src.arrays)) {
        let id: string | undefined;
        for (const f of src.idFields) {
          if (f === '@skill') id = law.skillIds.get(pointer);
          else if (f === '@sprite') id = typeof record.path === 'string' ? spriteIds.get(record.path) : undefined;
          else if (typeof record[f] === 'string' && record[f] !== '') id = record[f];
          if (id) break;
        }
        const name = typeof record.name === 'string' ? record.name : undefined;
        if (id && name) list.push({ type, id, name, file: src.file, pointer, record });
      }
    }
    out.set(type, list);
  }
  return out;
}

/** The emitted master-weaponSkills.json: the source with the derived SKIL id in `uuidField` on every skill. */
function deriveSkillsFile(docs: ReadonlyMap<string, SourceDoc>, config: CatalogConfig, law: LawResult): Emitted[] {
  const doc = docs.get('master-weaponSkills.json');
  if (!doc || doc.data === undefined || law.skillIds.size === 0) return [];
  const copy = structuredClone(doc.data);
  for (const { record, pointer } of recordsAt(copy, [['weaponTypes', '*', 'slots', '*', 'skills']])) {
    const id = law.skillIds.get(pointer);
    if (id) record[config.uuidField] = id;
  }
  return [{ path: WEAPON_SKILLS_FILE, body: JSON.stringify(copy, null, 2) + '\n', raw: true }];
}

/** master-registry.json: every definition id → kind, name, category, tier, file and pointer (ids sorted). */
function deriveRegistry(law: LawResult, config: CatalogConfig): Emitted {
  const defs = [...law.definitions.values()].sort(byCodeUnits((d) => d.id));
  const totals: Record<string, number> = {};
  const byUuid: Record<string, Omit<Definition, 'id'>> = {};
  for (const d of defs) {
    totals[d.kind] = (totals[d.kind] ?? 0) + 1;
    const { id, ...rest } = d;
    byUuid[id] = { ...rest, alsoIn: [...rest.alsoIn].sort() };
  }
  return {
    path: MASTER_REGISTRY_FILE,
    body: { version: config.versions.package ?? '4.0.0', total: defs.length, totals: sortKeys(totals), byUuid },
  };
}

/** canonical-items-manifest.json: the item definition catalog (spec 2.6, 4.1 load order step 2) by family. */
function deriveCanonicalItems(law: LawResult, config: CatalogConfig): Emitted {
  const families: Record<string, number> = {};
  const items: {
    uuid: string;
    family: string;
    name: string | null;
    kind: string;
    category: string | null;
    tier: number | null;
    file: string;
  }[] = [];
  for (const d of law.definitions.values()) {
    const fam = /^(ITEM|FOOD|POTN|CONS)-/.exec(d.id)?.[1];
    if (!fam) continue;
    families[fam] = (families[fam] ?? 0) + 1;
    items.push({ uuid: d.id, family: fam, name: d.name, kind: d.kind, category: d.category, tier: d.tier, file: d.file });
  }
  items.sort((a, b) => (a.uuid < b.uuid ? -1 : 1));
  return {
    path: CANONICAL_ITEMS_FILE,
    body: {
      version: config.versions.package ?? '4.0.0',
      catalog: 'master-items.json',
      total: items.length,
      families: sortKeys(families),
      items,
    },
  };
}

/**
 * Export files (spec 4.4, `api/_lib/formats/export.ts`): `{type, columns, records}` per export type, `columns` from
 * `csvColumns`; and the unfiltered `/api/export` bodies of each type in JSON and CSV (`fullExportFile`),
 * which the function serves as they are.
 */
function deriveExports(records: ReadonlyMap<SearchType, TypedRecord[]>): Emitted[] {
  return EXPORT_TYPES.flatMap((type: ExportType) => {
    const recs = (records.get(type) ?? []).map((r) => r.record);
    const body: ExportFile = { type, columns: csvColumns(recs), records: recs };
    // the unfiltered answers of /api/export, byte for byte what the function would stream (spec 4.4)
    const all = filterRecords(recs, {});
    return [
      { path: exportFile(type), body },
      {
        path: fullExportFile(type, 'json'),
        body: exportJsonText({ type, total: all.length, filters: { tier: null, category: null } }, all),
        raw: true,
      },
      { path: fullExportFile(type, 'csv'), body: exportCsvText(body.columns, all), raw: true },
    ];
  });
}

/** The `/api/search` index (spec 4.4, `api/_lib/formats/search-index.ts`) over every typed record. */
function deriveSearchIndex(records: ReadonlyMap<SearchType, TypedRecord[]>): Emitted {
  return {
    path: SEARCH_INDEX_FILE,
    body: buildSearchIndex([...records.values()].flat().map((r) => ({ type: r.type, id: r.id, name: r.name }))),
  };
}

/**
 * Stats body of `/api/stats` (spec 4.4; 4.10 leaves it open; `api/_lib/formats/stats.ts`):
 * `{catalog, totals, definitions, statuses}`: `totals` counts every data category (search types, the four
 * collections, recipes, items, icons, assets, characters), `definitions` counts definition ids per kind,
 * `statuses` are the category statuses of spec 3.
 */
function deriveStats(args: {
  config: CatalogConfig;
  records: ReadonlyMap<SearchType, TypedRecord[]>;
  law: LawResult;
  docs: ReadonlyMap<string, SourceDoc>;
}): Emitted {
  const { docs, law } = args;
  const count = (file: string, arrays: string[][]): number => {
    const d = docs.get(file)?.data;
    return d === undefined ? 0 : [...recordsAt(d, arrays)].length;
  };
  const totals: Record<string, number> = {};
  for (const t of SEARCH_TYPES) totals[t] = args.records.get(t)?.length ?? 0;
  for (const name of COLLECTION_NAMES) totals[name] = count(`${COLLECTION_DEFS[name].dataset}.json`, [[COLLECTION_DEFS[name].arrayKey]]);
  totals.recipes = count('master-recipes.json', [['recipes']]);
  totals.items = count('master-items.json', [['items']]);
  totals.icons = law.iconIds.size;
  totals.assets = count(ASSETS_SOURCE_FILE, [['assets']]);
  totals.characters = count(SPRITE_CHARACTERS_FILE, [['characters']]);
  const definitions: Record<string, number> = {};
  for (const d of law.definitions.values()) definitions[d.kind] = (definitions[d.kind] ?? 0) + 1;
  const body: StatsFile = {
    catalog: args.config.name,
    totals: sortKeys(totals),
    definitions: sortKeys(definitions),
    statuses: CATEGORY_STATUS,
  };
  return { path: STATS_FILE, body };
}

/**
 * Every core output, in emission order: the weapon skills file with SKIL ids, the master registry, the canonical
 * items manifest, the export files, the stats file and the search index.
 * @param docs the live (published) source files; @param records the typed records of {@link collectTypedRecords}.
 */
export function deriveCore(args: {
  config: CatalogConfig;
  docs: ReadonlyMap<string, SourceDoc>;
  law: LawResult;
  records: ReadonlyMap<SearchType, TypedRecord[]>;
}): Emitted[] {
  const { config, docs, law, records } = args;
  return [
    ...deriveSkillsFile(docs, config, law),
    deriveRegistry(law, config),
    deriveCanonicalItems(law, config),
    ...deriveExports(records),
    deriveStats({ config, records, law, docs }),
    deriveSearchIndex(records),
  ];
}
