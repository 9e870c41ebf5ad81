/**
 * A small hand-written output folder (registry files of api/_lib/formats/registries.ts, export files, the
 * manifest), for handler tests of api/registries.ts that need exact control over the data, including
 * corrupt files. Every file is given as a path relative to the output folder and its JSON value.
 */
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { useCatalog } from './service.js';
import { csvColumns, exportCsvText, exportJsonText, filterRecords } from '../../api/_lib/export/index.js';
import { exportFile, fullExportFile, type ExportType } from '../../api/_lib/formats/index.js';

/** Write `files` (relative path → JSON value, or raw text) to a new temporary folder and serve it. */
export async function serveOutput(files: Readonly<Record<string, unknown>>): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'registry-output-'));
  for (const [path, value] of Object.entries(files)) {
    const abs = join(dir, path);
    await mkdir(dirname(abs), { recursive: true });
    await writeFile(abs, typeof value === 'string' ? value : JSON.stringify(value));
  }
  useCatalog(dir);
  return dir;
}

/** Stop serving `dir` and delete it. */
export async function dropOutput(dir: string): Promise<void> {
  useCatalog(undefined);
  await rm(dir, { recursive: true, force: true });
}

/**
 * The files the build writes for one export type (spec 4.4): the export file and the prebuilt unfiltered
 * bodies in JSON and CSV, made by the same functions the build uses; a map of output path → content for
 * {@link serveOutput} (strings are written as they are).
 */
export function exportOutputs(
  type: ExportType,
  records: readonly Record<string, unknown>[],
  columns: readonly string[] = csvColumns(records),
): Record<string, unknown> {
  const all = filterRecords(records, {});
  return {
    [exportFile(type)]: { type, columns, records },
    [fullExportFile(type, 'json')]: exportJsonText({ type, total: all.length, filters: { tier: null, category: null } }, all),
    [fullExportFile(type, 'csv')]: exportCsvText(columns, all),
  };
}
