/**
 * Every derived output has a JSON Schema and follows it, for the sample catalog and
 * the real snapshot: the manifest, registry, canonical items, stats, search index, exports,
 * collection indexes and item files, icon, sprite, character and asset registries. Source files
 * published as they are keep their catalog schema (checked for the sample; the real snapshot's own
 * flaws are the build report's business).
 */
import { readFile, readdir } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Ajv2020 } from 'ajv/dist/2020.js';
import { createSchemaRegistry, catalogSchemaId } from '../../build/pipeline/validate.js';
import { REAL_OUT, SAMPLE_OUT, SAMPLE_SRC, REAL_SRC } from '../helpers/catalog.js';
import { headerOf } from '../../api/_lib/formats/collection-file.js';

const OUT = 'https://schemas.game-data.dev/output/';
const RESP = 'https://schemas.game-data.dev/responses/';

/** Schema `$id` of a derived output path (relative to api/v1), `csv` for a prebuilt CSV export, or null when the file is a source copy. */
function schemaOf(path: string): string | null {
  const fixed: Record<string, string> = {
    'game-data-manifest.json': 'game-data-manifest',
    'master-registry.json': 'master-registry',
    'canonical-items-manifest.json': 'canonical-items-manifest',
    'stats.json': 'stats',
    'search-index.json': 'search-index',
    'icon-registry.json': 'icon-registry',
    'icon-path-index.json': 'icon-path-index',
    'icon-category-index.json': 'icon-category-index',
    'icon-search-index.json': 'term-index',
    'sprite-registry.json': 'sprite-registry',
    'sprite-search-index.json': 'term-index',
    'character-registry.json': 'character-registry',
    'sprite-stats.json': 'sprite-stats',
    'asset-index.json': 'asset-index',
    'asset-categories.json': 'asset-categories',
    'changes.json': 'changes',
    'versions.json': 'versions',
    'build-report.json': 'build-report',
  };
  if (fixed[path]) return OUT + fixed[path] + '.schema.json';
  if (/^exports\/full\/[a-z]+\.json$/.test(path)) return RESP + 'export.schema.json';
  if (path.startsWith('exports/full/')) return 'csv';
  if (path.startsWith('exports/')) return OUT + 'export-file.schema.json';
  if (/^collections\/[a-z]+\.cidx$/.test(path)) return OUT + 'collection-index.schema.json';
  if (path.startsWith('icon-shards/')) return OUT + 'icon-shard.schema.json';
  if (/^(relics|enchants|infusions|artifacts)\//.test(path)) return RESP + 'collection-item.schema.json';
  return null;
}

async function files(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((e) => e.isFile())
    .map((e) => relative(dir, join(e.parentPath, e.name)).split(sep).join('/'))
    .sort();
}

let ajv: Ajv2020;
beforeAll(async () => {
  ajv = await createSchemaRegistry();
});

describe.each([
  ['sample', SAMPLE_OUT, SAMPLE_SRC, true],
  ['real snapshot', REAL_OUT, REAL_SRC, false],
] as const)('%s output', (_name, out, src, checkSources) => {
  it('has a schema for every derived file, and every file follows its schema', async () => {
    const api = join(out, 'api/v1');
    const sources = new Set((await files(src)).filter((f) => f.endsWith('.json')));
    const emitted = await files(api);
    expect(emitted.length).toBeGreaterThan(sources.size);
    const failures: string[] = [];
    let derived = 0;
    for (const f of emitted) {
      let id = schemaOf(f);
      if (id === null) {
        expect(sources.has(f), `${f} is neither a source file nor a known derived output`).toBe(true);
        if (!checkSources) continue;
        id = catalogSchemaId(f);
      } else derived++;
      if (id === 'csv') {
        // a CSV export: RFC 4180 with CRLF line ends, a header row first
        const text = await readFile(join(api, f), 'utf8');
        if (!/\r\n$/.test(text) && text !== '') failures.push(`${f}: not CRLF-terminated`);
        continue;
      }
      const validate = ajv.getSchema(id);
      expect(validate, `no schema ${id} for ${f}`).toBeDefined();
      // a collection index is binary after its JSON header, which the schema describes
      const data: unknown = f.endsWith('.cidx') ? headerOf(await readFile(join(api, f))) : JSON.parse(await readFile(join(api, f), 'utf8'));
      if (!validate!(data)) failures.push(`${f}: ${ajv.errorsText(validate!.errors)}`);
    }
    expect(derived).toBeGreaterThan(20);
    expect(failures).toEqual([]);
  });
});
