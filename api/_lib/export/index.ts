/**
 * Export of catalog records as JSON or CSV (spec §4.4 `GET /api/export`).
 *
 * The build imports {@link csvColumns} to fix the column set of each export file
 * (`exportFile(type)` = `{ type, columns, records }`, see `api/_lib/formats/export.ts`); the function filters the
 * records and streams them with {@link exportJsonStream} or {@link exportCsvStream}.
 *
 * CSV shape (RFC 4180): one header row holding the column names, CRLF line ends, fields quoted when they
 * contain a comma, a double quote, CR or LF, quotes doubled. Cells:
 * - nested objects become dotted columns (`stats.damageBase`), to any depth;
 * - an array of scalars is joined with {@link ARRAY_SEPARATOR} (`" | "`); an array holding any object or
 *   array is written as its JSON text;
 * - `null`/missing → empty cell; booleans → `true`/`false`; numbers → their JSON text; strings as they are.
 * A column name that is a literal key containing `.` is read as that key first.
 *
 * Size: both bodies are streams built in batches of {@link EXPORT_BATCH} records. Vercel's 4.5 MB cap
 * applies to buffered function responses, not to streamed ones, so a large export is never cut off.
 */
import { stringify } from 'csv-stringify/sync';
import type { ExportType } from '../formats/export.js';
import { isRecord } from '../util/json.js';
import { compareCodeUnits } from '../util/sorted.js';

/** Separator between the elements of an array of scalars in one CSV cell. */
export const ARRAY_SEPARATOR = ' | ';

/** Columns that lead every export, in this order, when present in any record; the rest follow alphabetically. */
export const IDENTIFYING_COLUMNS: readonly string[] = Object.freeze(['uuid', 'id', 'name', 'type', 'category', 'tier']);

/** Records serialised per stream chunk. */
export const EXPORT_BATCH = 500;

function collectPaths(value: Record<string, unknown>, prefix: string, out: Set<string>): void {
  for (const [k, v] of Object.entries(value)) {
    const path = prefix === '' ? k : `${prefix}.${k}`;
    if (isRecord(v)) {
      if (Object.keys(v).length === 0) out.add(path);
      else collectPaths(v, path, out);
    } else out.add(path);
  }
}

/** Order of columns: identifying ones first, the rest by case-insensitive name, ties by code units. */
function compareColumns(a: string, b: string): number {
  const ia = IDENTIFYING_COLUMNS.indexOf(a);
  const ib = IDENTIFYING_COLUMNS.indexOf(b);
  if (ia !== -1 || ib !== -1) return (ia === -1 ? Infinity : ia) - (ib === -1 ? Infinity : ib);
  const la = a.toLowerCase();
  const lb = b.toLowerCase();
  return compareCodeUnits(la, lb) || compareCodeUnits(a, b);
}

/**
 * The stable column set of a list of records (pure; the build stores it with the records).
 * Every leaf path of every record becomes a column (nested objects → dotted paths; an empty object keeps
 * its own column); identifying columns (`uuid`, `id`, `name`, `type`, `category`, `tier`) come first,
 * the rest sorted by name. Non-object records are ignored.
 * @returns unique column names, deterministic for the same records in any order.
 */
export function csvColumns(records: readonly unknown[]): string[] {
  const paths = new Set<string>();
  for (const r of records) if (isRecord(r)) collectPaths(r, '', paths);
  return [...paths].sort(compareColumns);
}

function valueAt(record: Record<string, unknown>, column: string): unknown {
  if (Object.hasOwn(record, column)) return record[column];
  let cur: unknown = record;
  for (const part of column.split('.')) {
    if (!isRecord(cur) || !Object.hasOwn(cur, part)) return undefined;
    cur = cur[part];
  }
  return cur;
}

function cell(v: unknown): string {
  if (v === null || v === undefined) return '';
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint') return String(v);
  if (Array.isArray(v)) {
    const scalar = v.every((e) => e === null || ['string', 'number', 'boolean'].includes(typeof e));
    return scalar ? v.map((e) => (e === null ? '' : String(e))).join(ARRAY_SEPARATOR) : JSON.stringify(v);
  }
  if (isRecord(v)) return Object.keys(v).length === 0 ? '' : JSON.stringify(v);
  return '';
}

/**
 * One record as CSV cells, one per column (see the module header for cell rules).
 * @returns an array of strings as long as `columns`.
 */
export function flattenRecord(record: unknown, columns: readonly string[]): string[] {
  if (!isRecord(record)) return columns.map(() => '');
  return columns.map((c) => cell(valueAt(record, c)));
}

/** Filters of an export; undefined means "no filter". */
export interface ExportFilters {
  /** Tier, integer 1-8 (spec §8); matches `record.tier` as a number or a numeric string. */
  readonly tier?: number | undefined;
  /** Category, compared case-insensitively (after trimming) with `record.category`. */
  readonly category?: string | undefined;
}

/** Records that pass `filters` (pure, order kept). */
export function filterRecords(records: readonly unknown[], filters: ExportFilters): unknown[] {
  const cat = filters.category?.trim().toLowerCase();
  return records.filter((r) => {
    if (!isRecord(r)) return false;
    if (filters.tier !== undefined) {
      const t = r.tier;
      const n = typeof t === 'number' ? t : typeof t === 'string' && /^\s*\d+\s*$/.test(t) ? Number(t) : NaN;
      if (n !== filters.tier) return false;
    }
    if (cat !== undefined && cat !== '') {
      if (typeof r.category !== 'string' || r.category.trim().toLowerCase() !== cat) return false;
    }
    return true;
  });
}

/**
 * File name of a CSV export: `<type>[-t<tier>][-<category>].csv`; the category is lower-cased and
 * reduced to `a-z`, `0-9` and `-` so the name is safe in a `Content-Disposition` header.
 */
export function csvFileName(type: ExportType, filters: ExportFilters): string {
  let name: string = type;
  if (filters.tier !== undefined) name += `-t${filters.tier}`;
  const cat = (filters.category ?? '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
  if (cat !== '') name += `-${cat}`;
  return `${name}.csv`;
}

/** Stream `parts` (produced lazily, batch by batch) as UTF-8 bytes. */
function textStream(next: () => string | undefined): ReadableStream<Uint8Array> {
  const enc = new TextEncoder();
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      const chunk = next();
      if (chunk === undefined) controller.close();
      else controller.enqueue(enc.encode(chunk));
    },
  });
}

/** Body of the JSON export (spec §4.4; schema `schemas/responses/export.schema.json`). */
export interface ExportJsonHead {
  readonly type: ExportType;
  readonly total: number;
  readonly filters: { readonly tier: number | null; readonly category: string | null };
}

/** The chunks of a body, produced lazily, one per call; undefined at the end. */
type Parts = () => string | undefined;

/** Every chunk of `parts` joined: the whole body as one string (the build's prebuilt exports). */
function joinParts(parts: Parts): string {
  const out: string[] = [];
  for (let p = parts(); p !== undefined; p = parts()) out.push(p);
  return out.join('');
}

/** Chunks of the JSON export body, `EXPORT_BATCH` records at a time. */
function jsonParts(head: ExportJsonHead, records: readonly unknown[]): Parts {
  const prefix = JSON.stringify(head).slice(0, -1) + ',"records":[';
  let i = -1;
  return () => {
    if (i === -1) {
      i = 0;
      return prefix;
    }
    if (i > records.length) return undefined;
    if (i === records.length) {
      i++;
      return ']}';
    }
    const end = Math.min(records.length, i + EXPORT_BATCH);
    const part = records.slice(i, end).map((r) => JSON.stringify(r ?? null));
    const text = (i === 0 ? '' : ',') + part.join(',');
    i = end;
    return text;
  };
}

/**
 * The JSON export body `{ type, total, filters: { tier, category }, records }` as a byte stream,
 * serialised `EXPORT_BATCH` records at a time; the concatenation is exactly
 * `JSON.stringify({ ...head, records })`.
 */
export function exportJsonStream(head: ExportJsonHead, records: readonly unknown[]): ReadableStream<Uint8Array> {
  return textStream(jsonParts(head, records));
}

/** The same bytes as {@link exportJsonStream}, as one string (the build prebuilds the unfiltered export with it). */
export function exportJsonText(head: ExportJsonHead, records: readonly unknown[]): string {
  return joinParts(jsonParts(head, records));
}

const CSV_OPTIONS = { record_delimiter: '\r\n', quoted_match: /[\r\n]/ } as const;

/** Chunks of the CSV export: the header row, then `EXPORT_BATCH` rows at a time. */
function csvParts(columns: readonly string[], records: readonly unknown[]): Parts {
  let i = -1;
  return () => {
    if (i === -1) {
      i = 0;
      return stringify([[...columns]], CSV_OPTIONS);
    }
    if (i >= records.length) return undefined;
    const end = Math.min(records.length, i + EXPORT_BATCH);
    const rows = records.slice(i, end).map((r) => flattenRecord(r, columns));
    i = end;
    return stringify(rows, CSV_OPTIONS);
  };
}

/**
 * The CSV export as a byte stream: header row (`columns`) then one row per record, RFC 4180 with CRLF,
 * serialised `EXPORT_BATCH` rows at a time.
 */
export function exportCsvStream(columns: readonly string[], records: readonly unknown[]): ReadableStream<Uint8Array> {
  return textStream(csvParts(columns, records));
}

/** The same bytes as {@link exportCsvStream}, as one string (the build prebuilds the unfiltered export with it). */
export function exportCsvText(columns: readonly string[], records: readonly unknown[]): string {
  return joinParts(csvParts(columns, records));
}
