/**
 * The stats file (`STATS_FILE` = `api/v1/stats.json`, schema `schemas/output/stats.schema.json`), served as is
 * by `GET /api/stats` (spec §4.4; §4.10 leaves the body open).
 *
 * Written by: `deriveStats` in `build/derive/core.ts`. Read by: `api/catalog.ts` (`/api/stats`), which serves
 * the parsed value unchanged.
 *
 * Shape: `{ catalog, totals, definitions, statuses }`, keys of every map sorted by code point:
 * - `totals`       record counts per data category: every search type (§4.4), the four collections (§4.2),
 *                  recipes, items, icons, assets, characters;
 * - `definitions`  definition ids per kind (§2.6);
 * - `statuses`     catalog category statuses (§3).
 * Counts are plain integers (number of records), never bytes.
 */
// @ts-nocheck

import type { CategoryStatus } from './manifest.js';

/** The JSON shape of the stats file. */
export interface StatsFile {
  /** Human name of the catalog (catalog config `name`). */
  readonly catalog: string;
  /** Record count per data category. */
  readonly totals: Readonly<Record<string, number>>;
  /** Definition id count per definition kind. */
  readonly definitions: Readonly<Record<string, number>>;
  /** Category → status (§3). */
  readonly statuses: Readonly<Record<string, CategoryStatus>>;
}
