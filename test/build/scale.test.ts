/**
 * The build at size (spec 3, 4.2; docs/architecture.md, "Scale"): the real snapshot with every item
 * collection replicated to 5,000 items (`dev/scale-catalog.ts`) goes through the whole pipeline and is
 * served by the collections function (past the item file budget, no item files are written, and the
 * function answers their paths with the bytes a file would hold); and the collections deriver takes a
 * dataset of 150,000 items, whose 450,000 static files once overflowed the call stack when spread into
 * one call. The 100,000- and 1,000,000-record runs live in `npm run bench`.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildCatalog, type BuildReport } from '../../build/pipeline/index.js';
import { deriveCollections } from '../../build/derive/collections.js';
import type { SourceDoc } from '../../build/pipeline/types.js';
import { writeScaledCatalog } from '../../dev/scale-catalog.js';
import { GET } from '../../api/collections.js';
import { loadIndex } from '../../api/_lib/collections/load.js';
import { COLLECTION_DEFS, COLLECTION_NAMES } from '../../api/_lib/formats/collection-index.js';
import { REAL_CONFIG, REAL_SRC } from '../helpers/catalog.js';
import { useCatalog } from '../helpers/service.js';
import { testConfig } from '../helpers/config.js';

const PER_COLLECTION = 5_000;
let dir = '';
let report: BuildReport;
let written: Readonly<Record<string, number>>;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'build-scale-'));
  written = writeScaledCatalog({ from: REAL_SRC, out: join(dir, 'src'), records: PER_COLLECTION, config: REAL_CONFIG });
  report = await buildCatalog({ src: join(dir, 'src'), out: join(dir, 'out'), reportFile: false });
  useCatalog(join(dir, 'out'));
}, 180_000);
afterAll(() => {
  useCatalog(undefined);
  rmSync(dir, { recursive: true, force: true });
});

describe('a catalog with every collection at 5,000 items', () => {
  it('builds without errors, with every item in its collection', () => {
    expect(written).toEqual(Object.fromEntries(COLLECTION_NAMES.map((n) => [`${COLLECTION_DEFS[n].dataset}.json`, PER_COLLECTION])));
    expect(report.issues.filter((i) => i.severity === 'error')).toEqual([]);
    expect(report.ok).toBe(true);
  });

  it('writes item files within the budget, smallest collection first, and reports each collection that did not fit', () => {
    // infusions have two lookup keys (uuid, id): 10,000 files, exactly the default budget; the others have more
    expect(readdirSync(join(dir, 'out/api/v1/infusions'))).toHaveLength(2 * PER_COLLECTION);
    const over = report.issues.filter((i) => i.rule === 'collections/item-files-over-budget');
    expect(over.map((i) => [i.file, i.severity, i.pointer])).toEqual(
      ['master-artifacts.json', 'master-enchants.json', 'master-relics.json'].map((f) => [f, 'warn', '']),
    );
    for (const i of over) {
      expect(i.message).toMatch(
        /^\d+ static item files of \/api\/v1\/(relics|enchants|artifacts)\/\{key\}\.json do not fit the item file budget \(0 of itemFileBudget 10000 left\), so none are written; the collections function answers those paths with the same bytes\./,
      );
      expect(existsSync(join(dir, 'out/api/v1', i.file.replace(/^master-|\.json$/g, '')))).toBe(false);
    }
  });

  it('serves pages and lookups of replicas, and the item files it did not write, with the bytes a file would hold', async () => {
    for (const name of COLLECTION_NAMES) {
      const items = (
        JSON.parse(readFileSync(join(dir, 'src', `${COLLECTION_DEFS[name].dataset}.json`), 'utf8')) as Record<string, unknown[]>
      )[COLLECTION_DEFS[name].arrayKey] as Record<string, unknown>[];
      // artifacts hidden until found are listed with discovered=all (spec 3, 4.2)
      const page = await GET(
        new Request(`http://t/v1/${name}?limit=200&offset=4800${COLLECTION_DEFS[name].hideUndiscovered ? '&discovered=all' : ''}`),
      );
      expect(page.status).toBe(200);
      const body = (await page.json()) as { total: number; items: unknown[] };
      expect([name, body.total, body.items.length]).toEqual([name, PER_COLLECTION, 200]);
      expect(body.items[199]).toEqual(items[PER_COLLECTION - 1]);
      const last = items[PER_COLLECTION - 1]!;
      const res = await GET(new Request(`http://t/v1/${name}/${String(last.uuid)}`));
      expect(res.status).toBe(200);
      const text = await res.text();
      expect(text).toBe(JSON.stringify(last));
      const file = await GET(new Request(`http://t/api/v1/${name}/${encodeURIComponent(String(last.uuid))}.json`));
      expect([file.status, await file.text()]).toEqual([200, text]);
    }
  });
});

describe('the collections deriver at 150,000 items', () => {
  it('derives the index and, within the budget, every static item file', () => {
    const relics = Array.from({ length: 150_000 }, (_, i) => ({
      uuid: `RELC-20260423030000-${i.toString(16).toUpperCase().padStart(6, '0')}-00000000`,
      id: `relic-${i}`,
      name: `Ember Relic ${i}`,
      category: 'utility',
      tier: 1 + (i % 8),
      slot: 'relic',
    }));
    const docs = new Map<string, SourceDoc>([['master-relics.json', { path: 'master-relics.json', text: '', data: { relics } }]]);
    const problems: unknown[] = [];
    const out = deriveCollections({
      config: testConfig({ name: 'scale', itemFileBudget: 3 * 150_000 }),
      docs,
      report: (p) => problems.push(p),
    });
    expect(problems).toEqual([]);
    expect(out).toHaveLength(1 + 3 * 150_000);
    expect(out[0]!.path).toBe('api/v1/collections/relics.cidx');
    expect(loadIndex(out[0]!.body as Buffer, 'relics').n).toBe(150_000);
  }, 120_000);
});
