/**
 * Pure helpers of the catalog browser page (`site/index.html`): the URLs it calls and how it reads
 * the answers. No DOM access here, so they run under the test runner too. Types and file paths come from
 * the shared formats (`api/_lib/formats/`), bundled into the page.
 */
import { EXPORT_TYPES as FORMAT_EXPORT_TYPES } from '../api/_lib/formats/export.js';
import { MANIFEST_FILE, publishedFile } from '../api/_lib/formats/layout.js';
import type { SearchResponse } from '../client/src/index.js';

/** Export types of `/api/export` (spec 4.4). */
export const EXPORT_TYPES = FORMAT_EXPORT_TYPES;

/** Static catalog files linked from the page (spec 4.1), relative to `/api/v1/`. */
export const FEATURED_FILES = [
  'game-data-manifest.json',
  'master-items.json',
  'master-weapon-prefabs.json',
  'master-armor.json',
  'master-materials.json',
  'master-consumables.json',
  'master-recipes.json',
  'master-relics.json',
  'master-enchants.json',
  'master-infusions.json',
  'master-artifacts.json',
  'warlords-catalog.json',
  'sprites2d.json',
  'studiodot-assets.json',
  'icon-registry.json',
  'home-island-contract.json',
] as const;

/**
 * The featured files that the build published, in {@link FEATURED_FILES} order, read from a game-data
 * manifest body (`files[].path` relative to the output folder, e.g. `api/v1/master-items.json`).
 * The manifest itself is always kept; a body that is not a manifest keeps the whole list.
 */
export function publishedFeaturedFiles(manifest: unknown): string[] {
  const files = (manifest as { files?: unknown } | null)?.files;
  if (!Array.isArray(files)) return [...FEATURED_FILES];
  const paths = new Set(files.map((f) => (f as { path?: unknown } | null)?.path).filter((p): p is string => typeof p === 'string'));
  return FEATURED_FILES.filter((f) => publishedFile(f) === MANIFEST_FILE || paths.has(publishedFile(f)));
}

/** Endpoints linked from the page, with a short description (spec 4.2-4.6). */
export const ENDPOINTS: readonly (readonly [path: string, what: string])[] = [
  ['/api/search?q=blade', 'search by name or id'],
  ['/api/stats', 'totals per data category'],
  ['/api/export?type=weapons', 'export records (JSON or CSV)'],
  ['/v1/relics?limit=20', 'relics, filterable and paged'],
  ['/v1/enchants?limit=20', 'enchants'],
  ['/v1/infusions?limit=20', 'infusions'],
  ['/v1/artifacts?limit=20', 'artifacts (hidden ones with discovered=all)'],
  ['/api/v1/sprites', 'sprite registry'],
  ['/api/v1/characters', 'sprite characters'],
  ['/api/v1/icons', 'icon registry'],
  ['/api/v1/icons/categories', 'icon categories'],
  ['/api/v1/studiodot-assets?limit=20', 'asset manifest search'],
];

/** The search response (spec 2.5), as the typed client reads it. */
export type SearchAnswer = SearchResponse;

/** URL of an export: `/api/export?type=<type>[&format=csv]`. */
export function exportUrl(type: string, format: 'json' | 'csv'): string {
  return `/api/export?type=${encodeURIComponent(type)}${format === 'csv' ? '&format=csv' : ''}`;
}

/**
 * The message to show for a failed call: the problem+json `detail` (RFC 9457) followed by the
 * message of every entry of `errors[]` when the body has them, otherwise the status line.
 */
export function problemMessage(status: number, body: unknown): string {
  if (typeof body === 'object' && body !== null) {
    const { detail, errors } = body as { detail?: unknown; errors?: unknown };
    const reasons = Array.isArray(errors)
      ? errors.map((e) => (e as { message?: unknown } | null)?.message).filter((m): m is string => typeof m === 'string' && m !== '')
      : [];
    if (typeof detail === 'string' && detail !== '') return reasons.length ? `${detail} ${reasons.join(' ')}` : detail;
    if (reasons.length) return reasons.join(' ');
  }
  return `The service answered ${status}.`;
}

/** Summary line of a search answer, e.g. `3 results for "blade"` or `Showing 50 of 120 results for "blade"`. */
export function searchSummary(answer: SearchAnswer): string {
  const shown = answer.results.length;
  const total = answer.totalResults;
  const what = `result${total === 1 ? '' : 's'} for "${answer.query}"${answer.type === 'all' ? '' : ` in ${answer.type}`}`;
  if (total === 0) return `No ${what}.`;
  return shown < total ? `Showing ${shown} of ${total} ${what}.` : `${total} ${what}.`;
}

/**
 * Rows of the totals table from a `/api/stats` body: `[category, count]` sorted by category;
 * reads `totals` (or the top level when there is none), keeping numeric members only.
 */
export function statsRows(body: unknown): [string, number][] {
  if (typeof body !== 'object' || body === null) return [];
  const totals = (body as { totals?: unknown }).totals;
  const source = typeof totals === 'object' && totals !== null ? totals : body;
  return Object.entries(source as Record<string, unknown>)
    .filter((e): e is [string, number] => typeof e[1] === 'number' && Number.isFinite(e[1]))
    .sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
}
