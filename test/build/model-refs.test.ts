/**
 * Rule `assets/model-ref` (`build/derive/model-refs.ts`, spec 4.9): with an exported asset index named in
 * the catalog config, a `modelRef` that is neither an item id nor a registered key is an error naming its
 * file and pointer; without an index nothing is checked; an index file that cannot be read or has another
 * shape stops the build as a config error.
 */
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { buildCatalog, CatalogConfigError } from '../../build/pipeline/index.js';

const dirs: string[] = [];
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

const CONFIG = { name: 'tiny', base_url: 'https://catalog.test', cdn_url: 'https://cdn.test', namespaces: { skill: 's:', icon: 'i:' } };
const ts = (p: string, n: number): string => `${p}-20260101000000-${n.toString(16).toUpperCase().padStart(6, '0')}-0000ABCD`;
const item = (n: number, modelRef: string | null) => ({
  uuid: ts('ITEM', n),
  name: `Blade ${n}`,
  category: 'swords',
  type: 'weapon',
  tier: 1,
  prefab: { modelRef },
});

async function catalog(config: object, index?: unknown): Promise<{ src: string; out: string }> {
  const root = await mkdtemp(join(tmpdir(), 'model-refs-'));
  dirs.push(root);
  const src = join(root, 'src');
  await mkdir(src);
  await writeFile(join(src, 'catalog.config.json'), JSON.stringify(config));
  if (index !== undefined) await writeFile(join(root, 'asset-index.json'), typeof index === 'string' ? index : JSON.stringify(index));
  const items = [item(1, 'models/era1/anvil.glb'), item(2, 'models/era1/missing.glb'), item(3, ts('ITEM', 1)), item(4, null)];
  await writeFile(join(src, 'master-items.json'), JSON.stringify({ version: '1', items }));
  return { src, out: join(root, 'dist') };
}

const INDEX = {
  version: 1,
  entries: [
    {
      key: 'models/era1/anvil.glb',
      purpose: 'play',
      contentType: 'model/gltf-binary',
      size: 1,
      etag: '"x"',
      registeredAt: '2026-11-23T00:00:00.000Z',
    },
  ],
};

describe('assets/model-ref', () => {
  it('reports a modelRef that is no registered key, and no other', async () => {
    const { src, out } = await catalog({ ...CONFIG, assetIndex: '../asset-index.json' }, INDEX);
    const r = await buildCatalog({ src, out, reportFile: false });
    const found = r.issues.filter((i) => i.rule === 'assets/model-ref');
    expect(found.map((i) => [i.file, i.pointer, i.severity])).toEqual([['master-items.json', '/items/1/prefab/modelRef', 'error']]);
    expect(found[0]!.message).toContain('models/era1/missing.glb');
    expect(found[0]!.line).toBe(1);
    expect(r.ok).toBe(false);
  });

  it('checks nothing without an index', async () => {
    const { src, out } = await catalog(CONFIG);
    const r = await buildCatalog({ src, out, reportFile: false });
    expect(r.issues.filter((i) => i.rule === 'assets/model-ref')).toEqual([]);
  });

  it('stops the build with a config error for an index it cannot read or that has another shape', async () => {
    for (const index of [undefined, '{not json', { version: 2, entries: [] }, { version: 1, entries: [{ id: 'x' }] }]) {
      const { src, out } = await catalog({ ...CONFIG, assetIndex: '../asset-index.json' }, index);
      await expect(buildCatalog({ src, out, reportFile: false }), JSON.stringify(index)).rejects.toBeInstanceOf(CatalogConfigError);
    }
  });
});
