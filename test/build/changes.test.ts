/**
 * The change feed and the versioned copies of the catalog (`api/_lib/formats/changes.ts`,
 * `build/pipeline/changes.ts`): builds of a small catalog into one output folder, one after another,
 * as a studio publishes them; and the comparison itself on hand-made sides.
 */
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { buildCatalog } from '../../build/pipeline/index.js';
import { compareBuilds, type BuildSide, type ChangeFeed, type RegistryPlace, type VersionList } from '../../api/_lib/formats/changes.js';
import { publishedFile } from '../../api/_lib/formats/layout.js';

const dirs: string[] = [];
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

const ts = (p: string, n: number): string => `${p}-20260101000000-${n.toString(16).toUpperCase().padStart(6, '0')}-0000ABCD`;
const material = (n: number, name: string): Record<string, unknown> => ({
  uuid: ts('MATL', n),
  id: `mat-${n}`,
  name,
  category: 'ore',
  tier: 1,
});
const relic = (n: number, name: string): Record<string, unknown> => ({
  uuid: ts('RELC', n),
  id: `relic-${n}`,
  name,
  category: 'combat',
  tier: 2,
  description: 'd',
});

/** A publishing studio: one source folder and one output folder, rebuilt after each change. */
async function studio(keepBuilds?: number): Promise<{ publish: (files: Record<string, unknown>) => Promise<string>; out: string }> {
  const root = await mkdtemp(join(tmpdir(), 'changes-'));
  dirs.push(root);
  const src = join(root, 'src');
  const out = join(root, 'dist');
  await mkdir(src);
  const config = {
    name: 'changes',
    base_url: 'https://catalog.test',
    cdn_url: 'https://cdn.test',
    namespaces: { skill: 's:', icon: 'i:' },
    ...(keepBuilds ? { keepBuilds } : {}),
  };
  await writeFile(join(src, 'catalog.config.json'), JSON.stringify(config));
  return {
    out,
    async publish(files) {
      for (const [name, v] of Object.entries(files)) {
        if (v === undefined) await rm(join(src, name), { force: true });
        else await writeFile(join(src, name), JSON.stringify(v, null, 2));
      }
      const r = await buildCatalog({ src, out, reportFile: false });
      expect(r.issues.filter((i) => i.severity === 'error')).toEqual([]);
      return r.buildId!;
    },
  };
}

const json = async <T>(file: string): Promise<T> => JSON.parse(await readFile(file, 'utf8')) as T;
const sha = (b: Buffer): string => createHash('sha256').update(b).digest('hex');

describe('the change feed of successive builds', () => {
  it('a first build adds every file and definition; the next names what changed, with both builds ids and hashes', async () => {
    const s = await studio();
    const first = await s.publish({
      'master-materials.json': { version: '1', materials: [material(1, 'Iron Ore'), material(2, 'Copper Ore'), material(3, 'Tin Ore')] },
      'master-relics.json': { relics: [relic(1, 'Relic of Frost')] },
    });
    const f1 = await json<ChangeFeed>(join(s.out, 'api/v1/changes.json'));
    expect(f1).toMatchObject({ format: 'game-data-changes/1', buildId: first, previousBuildId: null });
    expect(f1.kinds.material).toEqual({ added: [ts('MATL', 1), ts('MATL', 2), ts('MATL', 3)], removed: [], changed: [] });
    expect(f1.kinds.relic).toEqual({ added: [ts('RELC', 1)], removed: [], changed: [] });
    const manifest1 = await json<{ files: { path: string; bytes: number; sha256: string }[] }>(
      join(s.out, 'api/v1/game-data-manifest.json'),
    );
    expect(f1.files.added).toEqual(manifest1.files);
    expect(f1.files.removed).toEqual([]);
    expect(f1.files.changed).toEqual([]);

    // Copper changes, Tin goes, Gold comes; the relics file is untouched
    const materials1 = await readFile(join(s.out, 'api/v1/master-materials.json'));
    const second = await s.publish({
      'master-materials.json': {
        version: '1',
        materials: [material(1, 'Iron Ore'), material(2, 'Copper Ore, refined'), material(4, 'Gold Ore')],
      },
    });
    expect(second).not.toBe(first);
    const f2 = await json<ChangeFeed>(join(s.out, 'api/v1/changes.json'));
    expect(f2).toMatchObject({ buildId: second, previousBuildId: first });
    expect(f2.kinds).toEqual({ material: { added: [ts('MATL', 4)], removed: [ts('MATL', 3)], changed: [ts('MATL', 2)] } });
    const materials2 = await readFile(join(s.out, 'api/v1/master-materials.json'));
    expect(f2.files.changed).toContainEqual({
      path: 'api/v1/master-materials.json',
      bytes: materials2.length,
      sha256: sha(materials2),
      previousSha256: sha(materials1),
    });
    expect(f2.files.changed.map((f) => f.path)).not.toContain('api/v1/master-relics.json');
    expect(f2.files.added).toEqual([]);
    // a consumer holding the first build reaches the second by the feed alone
    const held = new Map(manifest1.files.map((f) => [f.path, f.sha256]));
    for (const f of f2.files.changed) {
      expect(held.get(f.path)).toBe(f.previousSha256);
      held.set(f.path, f.sha256);
    }
    for (const f of f2.files.removed) held.delete(f.path);
    for (const f of f2.files.added) held.set(f.path, f.sha256);
    const manifest2 = await json<{ files: { path: string; sha256: string }[] }>(join(s.out, 'api/v1/game-data-manifest.json'));
    expect(held).toEqual(new Map(manifest2.files.map((f) => [f.path, f.sha256])));

    // the same sources again: the same build id, and a feed with nothing in it
    expect(await s.publish({})).toBe(second);
    const f3 = await json<ChangeFeed>(join(s.out, 'api/v1/changes.json'));
    expect(f3).toEqual({
      format: 'game-data-changes/1',
      buildId: second,
      previousBuildId: second,
      kinds: {},
      files: { added: [], removed: [], changed: [] },
    });
  }, 60_000);

  it('a file removed with its definitions lists both', async () => {
    const s = await studio();
    const first = await s.publish({
      'master-materials.json': { version: '1', materials: [material(1, 'Iron Ore')] },
      'master-relics.json': { relics: [relic(1, 'R1'), relic(2, 'R2')] },
    });
    await s.publish({ 'master-relics.json': undefined });
    const feed = await json<ChangeFeed>(join(s.out, 'api/v1/changes.json'));
    expect(feed.previousBuildId).toBe(first);
    expect(feed.kinds.relic).toEqual({ added: [], removed: [ts('RELC', 1), ts('RELC', 2)], changed: [] });
    expect(feed.kinds.material).toBeUndefined();
    expect(feed.files.removed.map((f) => f.path)).toEqual(
      expect.arrayContaining(['api/v1/master-relics.json', 'api/v1/collections/relics.cidx', 'api/v1/relics/relic-1.json']),
    );
  }, 60_000);
});

describe('a damaged previous output', () => {
  const materials = { version: '1', materials: [material(1, 'Iron Ore'), material(2, 'Copper Ore')] };

  it('whose manifest is not JSON, or has no build id or file list, makes a first build, and the build still succeeds', async () => {
    const s = await studio();
    const first = await s.publish({ 'master-materials.json': materials });
    const manifest = await readFile(join(s.out, 'api/v1/game-data-manifest.json'), 'utf8');
    const parsed = JSON.parse(manifest) as Record<string, unknown>;
    for (const broken of ['{"buildId":', JSON.stringify({ ...parsed, buildId: 7 }), JSON.stringify({ ...parsed, files: {} }), '[]']) {
      await writeFile(join(s.out, 'api/v1/game-data-manifest.json'), broken);
      const id = await s.publish({});
      const feed = await json<ChangeFeed>(join(s.out, 'api/v1/changes.json'));
      expect(feed, broken).toMatchObject({ buildId: id, previousBuildId: null });
      expect(feed.kinds.material!.added).toEqual([ts('MATL', 1), ts('MATL', 2)]);
    }
    // a version list that is not a list keeps no earlier build
    await writeFile(join(s.out, 'api/v1/versions.json'), JSON.stringify({ builds: { 0: { buildId: first } } }));
    await s.publish({});
    expect((await json<VersionList>(join(s.out, 'api/v1/versions.json'))).builds).toEqual([{ buildId: first, previousBuildId: first }]);
  }, 60_000);

  it('keeps what it can read of a hand-edited manifest, registry and version list, and follows no path out of v/', async () => {
    const s = await studio();
    const first = await s.publish({ 'master-materials.json': materials });
    const manifestPath = join(s.out, 'api/v1/game-data-manifest.json');
    const manifest = await json<{ buildId: string; files: unknown[] }>(manifestPath);
    const keptFile = manifest.files.find((f) => (f as { path: string }).path === 'api/v1/master-materials.json');
    // entries without a path, a hash or a size are dropped: the files they named count as added
    const badFiles = [
      { path: 'api/v1/stats.json', sha256: 'x' },
      { path: 'api/v1/search-index.json', sha256: 7, bytes: 1 },
      { path: 7, sha256: 'y', bytes: 1 },
      { sha256: 'y', bytes: 1 },
      'z',
    ];
    await writeFile(manifestPath, JSON.stringify({ ...manifest, files: [keptFile, ...badFiles] }));
    const registryPath = join(s.out, 'api/v1/master-registry.json');
    const registry = await json<{ byUuid: Record<string, unknown> }>(registryPath);
    // a registry entry without a kind, file or pointer is not a definition of the previous build
    const bad = {
      'MATL-GONE': 'x',
      'MATL-K': { kind: 7, file: 'master-materials.json', pointer: '/materials/0' },
      'MATL-F': { kind: 'material', file: 7, pointer: '/materials/0' },
      'MATL-P': { kind: 'material', file: 'master-materials.json', pointer: 7 },
    };
    await writeFile(
      registryPath,
      JSON.stringify({
        ...registry,
        byUuid: {
          ...registry.byUuid,
          ...bad,
          [ts('MATL', 2)]: { kind: 'material', file: 'master-materials.json' },
          'MATL-OLD': { kind: 'material', file: 'master-materials.json', pointer: '/materials/9' },
        },
      }),
    );
    // folders beside v/ that version ids with `..` would reach
    const hex = 'a'.repeat(20);
    for (const d of ['escape', `escape/${hex}`]) {
      await mkdir(join(s.out, d, 'api/v1'), { recursive: true });
      await writeFile(join(s.out, d, 'api/v1/game-data-manifest.json'), '{}');
    }
    const versions = await json<VersionList>(join(s.out, 'api/v1/versions.json'));
    const badIds = ['../escape', `${hex}/../../escape`, `../escape/${hex}`, 'f'.repeat(20), 'F'.repeat(20)];
    await writeFile(
      join(s.out, 'api/v1/versions.json'),
      JSON.stringify({ builds: [...versions.builds, ...badIds.map((buildId) => ({ buildId, previousBuildId: null })), { buildId: 7 }, 7] }),
    );

    const second = await s.publish({
      'master-materials.json': { version: '1', materials: [material(1, 'Iron Ore, refined'), material(2, 'Copper Ore')] },
    });
    const feed = await json<ChangeFeed>(join(s.out, 'api/v1/changes.json'));
    expect(feed.previousBuildId).toBe(first);
    // MATL-2 had no readable previous entry: added; MATL-OLD is gone; MATL-1 changed
    expect(feed.kinds.material).toEqual({ added: [ts('MATL', 2)], removed: ['MATL-OLD'], changed: [ts('MATL', 1)] });
    expect(feed.files.added.map((f) => f.path)).toEqual(expect.arrayContaining(['api/v1/stats.json', 'api/v1/search-index.json']));
    expect(feed.files.changed.map((f) => f.path)).toEqual(['api/v1/master-materials.json']);
    expect(feed.files.removed).toEqual([]);
    // the version list keeps the first build; the path out of v/ and the unkept ids are dropped
    expect((await json<VersionList>(join(s.out, 'api/v1/versions.json'))).builds).toEqual([
      { buildId: second, previousBuildId: first },
      { buildId: first, previousBuildId: null },
    ]);
    expect(existsSync(join(s.out, 'v', 'f'.repeat(20)))).toBe(false);
  }, 60_000);
});

describe('a previous registry that names files outside the output folder', () => {
  it('is not followed there: a definition whose previous file is outside counts as changed', async () => {
    const materials = { version: '1', materials: [material(1, 'Iron Ore')] };
    const s = await studio();
    await s.publish({ 'master-materials.json': materials });
    const published = join(s.out, 'api/v1/master-materials.json');
    // beside the output folder, a copy of what the next build publishes again
    await writeFile(join(s.out, '..', 'outside.json'), await readFile(published));
    const registryPath = join(s.out, 'api/v1/master-registry.json');
    const registry = await json<{ byUuid: Record<string, { file: string }> }>(registryPath);
    const id = ts('MATL', 1);
    registry.byUuid[id] = { ...registry.byUuid[id]!, file: '../../../outside.json' };
    await writeFile(registryPath, JSON.stringify(registry));
    await s.publish({ 'master-materials.json': materials });
    const feed = await json<ChangeFeed>(join(s.out, 'api/v1/changes.json'));
    expect(feed.kinds.material?.changed).toEqual([id]);
  }, 60_000);
});

describe('versioned copies under v/{buildId}/', () => {
  it('keep each build as published, the configured number of builds, newest first', async () => {
    const s = await studio(2);
    const ids: string[] = [];
    for (const name of ['Iron Ore', 'Iron Ore, smelted', 'Iron Ingot'])
      ids.push(
        await s.publish({
          'master-materials.json': { version: '1', materials: [material(1, name)] },
          'master-relics.json': { relics: [relic(1, 'R1')] },
        }),
      );
    const list = await json<VersionList>(join(s.out, 'api/v1/versions.json'));
    expect(list.builds).toEqual([
      { buildId: ids[2], previousBuildId: ids[1] },
      { buildId: ids[1], previousBuildId: ids[0] },
    ]);
    expect(existsSync(join(s.out, 'v', ids[0]!))).toBe(false);
    // the copy of the kept older build is the file it published, its manifest and its own feed
    const old = await json<{ materials: { name: string }[] }>(join(s.out, `v/${ids[1]}/api/v1/master-materials.json`));
    expect(old.materials[0]!.name).toBe('Iron Ore, smelted');
    expect((await json<ChangeFeed>(join(s.out, `v/${ids[1]}/api/v1/changes.json`))).previousBuildId).toBe(ids[0]);
    expect((await json<{ buildId: string }>(join(s.out, `v/${ids[1]}/api/v1/game-data-manifest.json`))).buildId).toBe(ids[1]);
    // this build's copy is its catalog: every file of its table but the serving structures and exports
    const manifest = await json<{ files: { path: string }[] }>(join(s.out, 'api/v1/game-data-manifest.json'));
    const serving = [
      'api/v1/relics/relic-1.json',
      'api/v1/collections/relics.cidx',
      'api/v1/search-index.json',
      'api/v1/icon-search-index.json',
      'api/v1/exports/materials.json',
      'api/v1/exports/full/materials.csv',
    ];
    expect(manifest.files.map((f) => f.path)).toEqual(
      expect.arrayContaining([...serving, 'api/v1/master-relics.json', 'api/v1/master-registry.json', 'api/v1/icon-registry.json']),
    );
    for (const f of manifest.files) {
      const copy = join(s.out, 'v', ids[2]!, f.path);
      if (serving.includes(f.path) || /^api\/v1\/(exports|relics)\//.test(f.path) || f.path.endsWith('search-index.json'))
        expect(existsSync(copy), f.path).toBe(false);
      else expect(await readFile(copy), f.path).toEqual(await readFile(join(s.out, f.path)));
    }
  }, 90_000);
});

describe('compareBuilds', () => {
  const file = (path: string, sha256: string) => ({ path, bytes: 1, sha256 });
  const side = (
    buildId: string,
    defs: [string, RegistryPlace][],
    records: Record<string, string>,
    files = [file('api/v1/a.json', 'a1')],
  ): BuildSide & { reads: string[] } => {
    const reads: string[] = [];
    return {
      buildId,
      files,
      definitions: new Map(defs),
      reads,
      record: (id) => {
        reads.push(id);
        return records[id];
      },
    };
  };
  const entry = (kind: string, pointer = '/x/0', f = 'a.json'): RegistryPlace => ({ kind, file: f, pointer });

  it('reads no record of a file whose hash is the same, and compares those of a changed file', () => {
    const before = side(
      'b1',
      [
        ['A', entry('weapons')],
        ['B', entry('weapons', '/x/1')],
      ],
      { A: '{"a":1}', B: '{"b":1}' },
    );
    const same = side(
      'b2',
      [
        ['A', entry('weapons')],
        ['B', entry('weapons', '/x/1')],
      ],
      { A: '{"a":2}', B: '{"b":1}' },
    );
    expect(compareBuilds(same, before, publishedFile).kinds).toEqual({});
    expect(same.reads).toEqual([]);
    const changed = side(
      'b2',
      [
        ['A', entry('weapons')],
        ['B', entry('weapons', '/x/1')],
      ],
      { A: '{"a":2}', B: '{"b":1}' },
      [file('api/v1/a.json', 'a2')],
    );
    expect(compareBuilds(changed, before, publishedFile).kinds).toEqual({ weapons: { added: [], removed: [], changed: ['A'] } });
    expect(changed.reads.sort()).toEqual(['A', 'B']);
  });

  it('counts a definition that moved to another kind, file or pointer', () => {
    const before = side(
      'b1',
      [
        ['A', entry('weapons')],
        ['B', entry('weapons', '/x/1')],
        ['C', entry('armor', '/y/0')],
      ],
      { A: '1', B: '2', C: '3' },
    );
    const after = side(
      'b2',
      [
        ['A', entry('tools')],
        ['B', entry('weapons', '/x/0')],
        ['C', entry('armor', '/y/0', 'b.json')],
      ],
      { A: '1', B: '2', C: '3' },
      [file('api/v1/a.json', 'a1'), file('api/v1/b.json', 'b1')],
    );
    // A changed kind; B and C moved but their records are the same
    expect(compareBuilds(after, before, publishedFile).kinds).toEqual({ tools: { added: [], removed: [], changed: ['A'] } });
    const differs = side('b2', [['B', entry('weapons', '/x/0')]], { B: '22' });
    expect(compareBuilds(differs, before, publishedFile).kinds).toEqual({
      weapons: { added: [], removed: ['A'], changed: ['B'] },
      armor: { added: [], removed: ['C'], changed: [] },
    });
  });

  it('sorts ids and files by code unit, and a file whose record cannot be read counts as changed', () => {
    const ids = ['q', 'b', 'Z', 'é', 'a'];
    const before = side(
      'b1',
      [
        ...ids.map((i): [string, RegistryPlace] => [`c-${i}`, entry('k')]),
        ...ids.map((i): [string, RegistryPlace] => [`r-${i}`, entry('k')]),
      ],
      {},
      [
        file('api/v1/z.json', '1'),
        file('api/v1/r2.json', '1'),
        file('api/v1/R1.json', '1'),
        file('api/v1/c2.json', 'x'),
        file('api/v1/a.json', 'a1'),
        file('api/v1/C1.json', 'x'),
      ],
    );
    const after = side(
      'b2',
      [
        ...ids.map((i): [string, RegistryPlace] => [`c-${i}`, entry('k')]),
        ...ids.map((i): [string, RegistryPlace] => [`n-${i}`, entry('k')]),
      ],
      {},
      [
        file('api/v1/y.json', '2'),
        file('api/v1/c2.json', 'y'),
        file('api/v1/a.json', 'a2'),
        file('api/v1/Y.json', '3'),
        file('api/v1/C1.json', 'y'),
        file('api/v1/x.json', '4'),
      ],
    );
    // every record unreadable on this side: a changed file's definitions all count as changed
    const feed = compareBuilds(after, { ...before, record: () => '1' }, publishedFile);
    const order = ['Z', 'a', 'b', 'q', 'é'];
    expect(feed.kinds.k).toEqual({
      added: order.map((i) => `n-${i}`),
      removed: order.map((i) => `r-${i}`),
      changed: order.map((i) => `c-${i}`),
    });
    expect(feed.files.added.map((f) => f.path)).toEqual(['api/v1/Y.json', 'api/v1/x.json', 'api/v1/y.json']);
    expect(feed.files.removed.map((f) => f.path)).toEqual(['api/v1/R1.json', 'api/v1/r2.json', 'api/v1/z.json']);
    expect(feed.files.changed.map((f) => f.path)).toEqual(['api/v1/C1.json', 'api/v1/a.json', 'api/v1/c2.json']);
    expect(feed.files.changed[1]).toEqual({ path: 'api/v1/a.json', bytes: 1, sha256: 'a2', previousSha256: 'a1' });
    expect(feed.files.removed[2]).toEqual(file('api/v1/z.json', '1'));
  });
});
