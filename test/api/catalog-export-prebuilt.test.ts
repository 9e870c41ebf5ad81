/**
 * Prebuilt exports (spec 4.4; docs/architecture.md, "Scale"): the build writes the unfiltered
 * `/api/export` body of every type in JSON and CSV, byte for byte what the streamed answer would be, and
 * the function sends that file as it is (from memory up to 16 MiB, streamed from disk beyond), with the
 * same headers, ETag and 304 as any export; filtered exports are still computed. Runs on a copy of the
 * sample build's output, so that files can be changed under the function.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GET } from '../../api/catalog.js';
import { BODY_CACHE_MAX_BYTES } from '../../api/_lib/catalog/store.js';
import { exportCsvText, exportJsonText, filterRecords } from '../../api/_lib/export/index.js';
import { EXPORT_TYPES, exportFile, fullExportFile, type ExportFile } from '../../api/_lib/formats/index.js';
import { SAMPLE_OUT } from '../helpers/catalog.js';
import { useCatalog } from '../helpers/service.js';

let out = '';
const get = (query: string, headers: Record<string, string> = {}) => GET(new Request(`http://t/api/export?${query}`, { headers }));

beforeAll(() => {
  out = join(mkdtempSync(join(tmpdir(), 'export-prebuilt-')), 'dist');
  cpSync(SAMPLE_OUT, out, { recursive: true });
  useCatalog(out);
});
afterAll(() => {
  useCatalog(undefined);
  rmSync(join(out, '..'), { recursive: true, force: true });
});

describe('the prebuilt unfiltered exports', () => {
  it('hold exactly the body the streamed export would send, for every type and format', () => {
    for (const type of EXPORT_TYPES) {
      const file = JSON.parse(readFileSync(join(out, exportFile(type)), 'utf8')) as ExportFile;
      const all = filterRecords(file.records, {});
      expect(readFileSync(join(out, fullExportFile(type, 'json')), 'utf8')).toBe(
        exportJsonText({ type, total: all.length, filters: { tier: null, category: null } }, all),
      );
      expect(readFileSync(join(out, fullExportFile(type, 'csv')), 'utf8')).toBe(exportCsvText(file.columns, all));
      expect(JSON.parse(readFileSync(join(out, fullExportFile(type, 'json')), 'utf8'))).toEqual({
        type,
        total: all.length,
        filters: { tier: null, category: null },
        records: all,
      });
    }
  });

  it('are what the function answers, with the headers of a download', async () => {
    const csv = await get('type=weapons&format=csv');
    expect(csv.status).toBe(200);
    expect(csv.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(csv.headers.get('content-disposition')).toBe('attachment; filename="weapons.csv"');
    expect(csv.headers.get('cache-control')).toBe('public, max-age=300');
    expect(await csv.text()).toBe(readFileSync(join(out, fullExportFile('weapons', 'csv')), 'utf8'));
    const json = await get('type=armor');
    expect(json.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(await json.text()).toBe(readFileSync(join(out, fullExportFile('armor', 'json')), 'utf8'));
    const etag = json.headers.get('etag')!;
    expect((await get('type=armor', { 'If-None-Match': etag })).status).toBe(304);
    expect(await (await GET(new Request('http://t/api/export?type=armor', { method: 'HEAD' }))).text()).toBe('');
  });

  it('are sent as built, never rebuilt: the function answers what the file holds', async () => {
    writeFileSync(join(out, fullExportFile('skills', 'csv')), 'id\r\nfrom-the-file\r\n');
    writeFileSync(join(out, fullExportFile('skills', 'json')), '{"from":"the file"}');
    expect(await (await get('type=skills&format=csv')).text()).toBe('id\r\nfrom-the-file\r\n');
    expect(await (await get('type=skills&format=json')).text()).toBe('{"from":"the file"}');
  });

  it('streams a file beyond the memory bound from disk, whole', async () => {
    const big = 'x'.repeat(BODY_CACHE_MAX_BYTES + 1);
    writeFileSync(join(out, fullExportFile('bosses', 'csv')), big);
    const res = await get('type=bosses&format=csv');
    expect(res.status).toBe(200);
    expect(res.body).not.toBeNull();
    expect((await res.text()).length).toBe(big.length);
  });

  it('answers 503 when the prebuilt file is missing, and still filters when a filter is given', async () => {
    rmSync(join(out, fullExportFile('enemies', 'json')));
    const missing = await get('type=enemies');
    expect(missing.status).toBe(503);
    expect(((await missing.json()) as { code: string }).code).toBe('UPSTREAM_UNAVAILABLE');
    const file = JSON.parse(readFileSync(join(out, exportFile('weapons')), 'utf8')) as ExportFile;
    const tier = (file.records.find((r) => typeof r.tier === 'number')?.tier as number | undefined) ?? 1;
    const filtered = (await (await get(`type=weapons&tier=${tier}`)).json()) as { total: number; filters: unknown };
    expect(filtered.filters).toEqual({ tier, category: null });
    expect(filtered.total).toBe(filterRecords(file.records, { tier }).length);
  });
});
