/**
 * Export files (`exportFile(type)` = `api/v1/exports/{type}.json`, schema `schemas/output/export-file.schema.json`;
 * spec §4.4 `GET /api/export`).
 *
 * Written by: `deriveExports` in `build/derive/core.ts`, one file per export type, with the column set fixed
 * by `csvColumns` (`api/_lib/export/index.ts`). Read by: `api/catalog.ts` (`/api/export`), which filters the
 * records and streams them as JSON or CSV.
 *
 * Shape: `{ type, columns, records }`: `records` the source records of that type in catalog order, as
 * authored (play catalog before design template, §9.3); `columns` the stable CSV column names (dotted
 * paths for nested objects, identifying columns first). No units: values are copied as authored.
 */
// @ts-nocheck


/** The export types of `/api/export`, in spec order (§4.4): the search types without sprites. */
export const EXPORT_TYPES = ['weapons', 'armor', 'materials', 'consumables', 'enemies', 'bosses', 'skills'] as const;
/** One export type. */
export type ExportType = (typeof EXPORT_TYPES)[number];

/** The JSON shape of one export file. */
export interface ExportFile {
  readonly type: ExportType;
  /** CSV column names, unique, identifying columns (`uuid`, `id`, `name`, `type`, `category`, `tier`) first. */
  readonly columns: readonly string[];
  /** The records of the type, as authored, catalog order. */
  readonly records: readonly Record<string, unknown>[];
}
