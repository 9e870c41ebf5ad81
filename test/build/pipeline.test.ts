/**
 * The catalog build on small inline catalogs: every problem at once with
 * file:line:column and pointer, severities and overrides, design/legacy capping, atomic output,
 * determinism, derived ids, manifest, archived and retired files.
 */
import { mkdtemp, readFile, readdir, writeFile, mkdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { buildCatalog, type BuildReport } from '../../build/pipeline/index.js';
import { deriveSkillId } from '../../build/pipeline/ids.js';

const dirs: string[] = [];
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

const CONFIG = {
  name: 'inline',
  base_url: 'https://catalog.test',
  cdn_url: 'https://cdn.test',
  namespaces: { skill: 'test-skill:', icon: 'test-asset:', sprite: 'test-sprite:' },
};

/** Write a catalog (file name → JSON value or raw text) to a fresh temp folder; returns src and out paths. */
async function catalog(files: Record<string, unknown>, config: object = CONFIG): Promise<{ src: string; out: string }> {
  const root = await mkdtemp(join(tmpdir(), 'catalog-'));
  dirs.push(root);
  const src = join(root, 'src');
  await mkdir(src);
  await writeFile(join(src, 'catalog.config.json'), JSON.stringify(config));
  for (const [name, v] of Object.entries(files)) {
    await mkdir(join(src, name, '..'), { recursive: true });
    await writeFile(join(src, name), typeof v === 'string' ? v : JSON.stringify(v, null, 2));
  }
  return { src, out: join(root, 'dist') };
}

const ts = (p: string, n: number): string => `${p}-20260101000000-${n.toString(16).toUpperCase().padStart(6, '0')}-0000ABCD`;

const MATERIALS = { version: '1', materials: [{ uuid: ts('MATL', 1), id: 'iron-ore', name: 'Iron Ore', category: 'ore', tier: 1 }] };
const RECIPES = {
  version: '1',
  recipes: [
    {
      uuid: ts('RECP', 1),
      name: 'Smelt',
      resultItemId: ts('ITEM', 1),
      materials: [{ uuid: ts('MATL', 1), name: 'Iron Ore', quantity: 2 }],
    },
  ],
};
const ITEMS = { version: '1', items: [{ uuid: ts('ITEM', 1), name: 'Iron Blade', category: 'swords', type: 'weapon', tier: 1 }] };

function find(report: BuildReport, rule: string): BuildReport['issues'][number][] {
  return report.issues.filter((i) => i.rule === rule);
}

describe('catalog build', () => {
  it('reports every problem at once, each with file, line, column and pointer, and publishes nothing', async () => {
    const badRecipes = structuredClone(RECIPES);
    badRecipes.recipes[0]!.materials[0]!.uuid = ts('MATL', 99);
    const { src, out } = await catalog({
      'master-materials.json': MATERIALS,
      'master-recipes.json': badRecipes,
      'master-items.json': { version: '1', items: [{ uuid: ts('RELC', 1), name: 'Wrong family', tier: 1 }] },
      'broken.json': '{\n  "a": 1,\n  "b": \n}',
    });
    const report = await buildCatalog({ src, out, reportFile: join(out, '..', 'report.json') });
    expect(report.ok).toBe(false);
    expect(report.outputs).toEqual([]);
    await expect(readdir(out)).rejects.toMatchObject({ code: 'ENOENT' });

    const syntax = find(report, 'json/syntax');
    expect(syntax).toHaveLength(1);
    expect(syntax[0]).toMatchObject({ file: 'broken.json', line: 4, column: 1, severity: 'error' });

    const unresolved = find(report, 'law/unresolved-ref');
    expect(unresolved.map((i) => i.pointer)).toContain('/recipes/0/materials/0/uuid');
    const u = unresolved.find((i) => i.pointer === '/recipes/0/materials/0/uuid')!;
    const recipeLines = JSON.stringify(badRecipes, null, 2).split('\n');
    expect(recipeLines[u.line - 1]).toContain(ts('MATL', 99));
    expect(recipeLines[u.line - 1]!.indexOf('"uuid"') + 1).toBe(u.column);

    // resultItemId now names an item that is not in master-items (which holds a RELC id instead)
    expect(unresolved.map((i) => i.pointer)).toContain('/recipes/0/resultItemId');
    expect(find(report, 'law/definition-prefix')).toEqual([
      expect.objectContaining({ file: 'master-items.json', pointer: '/items/0/uuid' }),
    ]);

    const written = JSON.parse(await readFile(join(out, '..', 'report.json'), 'utf8')) as { ok: boolean; issues: unknown[] };
    expect(written.ok).toBe(false);
    expect(written.issues).toHaveLength(report.issues.length);
  });

  it('leaves the previous output untouched when a later build fails, and replaces it when one succeeds', async () => {
    const { src, out } = await catalog({ 'master-materials.json': MATERIALS, 'master-recipes.json': RECIPES, 'master-items.json': ITEMS });
    const first = await buildCatalog({ src, out, reportFile: false });
    expect(first.ok).toBe(true);
    const manifest1 = await readFile(join(out, 'api/v1/game-data-manifest.json'), 'utf8');

    await writeFile(join(src, 'master-items.json'), '{"items": [');
    const failed = await buildCatalog({ src, out, reportFile: false });
    expect(failed.ok).toBe(false);
    expect(await readFile(join(out, 'api/v1/game-data-manifest.json'), 'utf8')).toBe(manifest1);

    await writeFile(join(src, 'master-items.json'), JSON.stringify({ ...ITEMS, note: 'changed' }));
    const second = await buildCatalog({ src, out, reportFile: false });
    expect(second.ok).toBe(true);
    expect(second.buildId).not.toBe(first.buildId);
    expect(JSON.parse(await readFile(join(out, 'api/v1/master-items.json'), 'utf8'))).toMatchObject({ note: 'changed' });
    expect((await readdir(join(out, '..'))).filter((n) => n.includes('staging') || n.includes('.old-'))).toEqual([]);
  });

  it('is deterministic: two builds of the same input are byte-identical', async () => {
    const files = { 'master-materials.json': MATERIALS, 'master-recipes.json': RECIPES, 'master-items.json': ITEMS };
    const a = await catalog(files);
    const b = await catalog(files);
    const ra = await buildCatalog({ src: a.src, out: a.out, reportFile: false });
    const rb = await buildCatalog({ src: b.src, out: b.out, reportFile: false });
    expect(ra.buildId).toBe(rb.buildId);
    expect(ra.outputs).toEqual(rb.outputs);
    for (const p of ra.outputs) expect(await readFile(join(a.out, p))).toEqual(await readFile(join(b.out, p)));
  });

  it('manifest lists every emitted file with bytes and SHA-256, statuses, load order and versions', async () => {
    const { src, out } = await catalog({ 'master-materials.json': MATERIALS, 'master-recipes.json': RECIPES, 'master-items.json': ITEMS });
    const report = await buildCatalog({ src, out, reportFile: false });
    const m = JSON.parse(await readFile(join(out, 'api/v1/game-data-manifest.json'), 'utf8')) as {
      buildId: string;
      files: { path: string; bytes: number; sha256: string }[];
      categories: Record<string, string>;
      loadOrder: { name: string; present: boolean }[];
      versions: Record<string, string>;
    };
    expect(m.buildId).toBe(report.buildId);
    // the manifest's table: every output but itself, the change feed, the version list, the build report and the versioned copies
    const aboutTheBuild = ['api/v1/game-data-manifest.json', 'api/v1/changes.json', 'api/v1/versions.json', 'api/v1/build-report.json'];
    expect(m.files.map((f) => f.path).sort()).toEqual(report.outputs.filter((p) => !aboutTheBuild.includes(p) && !p.startsWith('v/')));
    const { createHash } = await import('node:crypto');
    for (const f of m.files) {
      const bytes = await readFile(join(out, f.path));
      expect(f.bytes).toBe(bytes.length);
      expect(f.sha256).toBe(createHash('sha256').update(bytes).digest('hex'));
    }
    expect(m.categories).toMatchObject({ weapons: 'live', armor: 'catalog-live', 'armor prefabs': 'planned', drops: 'partial' });
    expect(m.loadOrder.map((s) => s.name)[0]).toBe('games library');
    expect(m.loadOrder.find((s) => s.name === 'master-items')?.present).toBe(true);
    expect(m.versions).toMatchObject({ interface: '2.4.0', package: '4.0.0', homeIslandContract: '1.4.0', iconRegistry: '1.0.0' });
  });

  it('derives SKIL ids into the emitted skills file and rejects a stored id that differs', async () => {
    const skills = (stored: string | undefined) => ({
      version: '1',
      weaponTypes: [
        {
          id: 'SWORD',
          name: 'Sword',
          slots: [{ type: 'primary', skills: [{ id: 'sword_test_cut', name: 'Test Cut', ...(stored ? { studioUuid: stored } : {}) }] }],
        },
      ],
    });
    const expected = deriveSkillId('test-skill:', 'sword_test_cut');
    const ok = await catalog({ 'master-weaponSkills.json': skills(undefined) });
    const r1 = await buildCatalog({ src: ok.src, out: ok.out, reportFile: false });
    expect(r1.ok).toBe(true);
    const emitted = JSON.parse(await readFile(join(ok.out, 'api/v1/master-weaponSkills.json'), 'utf8')) as ReturnType<typeof skills>;
    expect((emitted.weaponTypes[0]!.slots[0]!.skills[0] as { studioUuid?: string }).studioUuid).toBe(expected);

    const bad = await catalog({ 'master-weaponSkills.json': skills('SKIL-0000-0000-0000') });
    const r2 = await buildCatalog({ src: bad.src, out: bad.out, reportFile: false });
    expect(find(r2, 'law/derived-id-mismatch')).toEqual([
      expect.objectContaining({ pointer: '/weaponTypes/0/slots/0/skills/0/studioUuid', severity: 'error' }),
    ]);
  });

  it('checks placeholders, instance ids and reference families; null references are allowed', async () => {
    const items = {
      version: '1',
      items: [
        {
          uuid: ts('ITEM', 1),
          name: 'A',
          prefab: {
            modelRef: 'models/a.glb',
            vfxRef: null,
            overlayRef: null,
            impactRef: null,
            animationClip: 'sword/attack',
            soundRef: 'sfx/a',
            projectileRef: null,
          },
        },
        {
          uuid: ts('ITEM', 2),
          name: 'B',
          prefab: {
            modelRef: 'TODO',
            vfxRef: 'FX-1',
            overlayRef: null,
            impactRef: null,
            animationClip: 'attack',
            soundRef: null,
            projectileRef: null,
          },
        },
        { uuid: ts('ITEM', 3), name: 'C', studio_uuid: 'abc' },
        { uuid: ts('ITEM', 3), name: 'C again' },
      ],
    };
    const { src, out } = await catalog({ 'master-items.json': items });
    const r = await buildCatalog({ src, out, reportFile: false });
    expect(find(r, 'law/placeholder').map((i) => i.pointer)).toEqual(['/items/1/prefab/modelRef']);
    expect(find(r, 'law/definition-prefix').map((i) => i.pointer)).toEqual(['/items/1/prefab/vfxRef']);
    expect(find(r, 'law/id-format').map((i) => i.pointer)).toEqual(['/items/1/prefab/animationClip']);
    expect(find(r, 'law/instance-id').map((i) => i.pointer)).toEqual(['/items/2/studio_uuid']);
    expect(find(r, 'law/duplicate-id').map((i) => i.pointer)).toEqual(['/items/3/uuid']);
    expect(r.issues.filter((i) => i.pointer.startsWith('/items/0'))).toEqual([]);
  });

  it('caps problems in design/legacy files at warn, and a config can change severities (still listing every occurrence)', async () => {
    const files = {
      'weapons.json': { version: '1', categories: { swords: { items: [{ id: 'x', name: 'X', recipeUuid: 'TBD' }] } } },
      'master-items.json': { version: '1', items: [{ uuid: ts('ITEM', 1), name: 'A', recipeUuid: 'TBD' }] },
    };
    const strict = await catalog(files);
    const r1 = await buildCatalog({ src: strict.src, out: strict.out, reportFile: false });
    const ph1 = find(r1, 'law/placeholder');
    expect(ph1.map((i) => [i.file, i.severity])).toEqual([
      ['master-items.json', 'error'],
      ['weapons.json', 'warn'],
    ]);
    expect(r1.ok).toBe(false);

    const relaxed = await catalog(files, { ...CONFIG, overrides: [{ files: ['master-*.json'], rules: { 'law/placeholder': 'off' } }] });
    const r2 = await buildCatalog({ src: relaxed.src, out: relaxed.out, reportFile: false });
    expect(r2.ok).toBe(true);
    expect(find(r2, 'law/placeholder').map((i) => [i.file, i.severity, i.pointer])).toEqual([
      ['master-items.json', 'off', '/items/0/recipeUuid'],
      ['weapons.json', 'warn', '/categories/swords/items/0/recipeUuid'],
    ]);
  });

  it('rejects a config naming an unknown rule', async () => {
    const { src, out } = await catalog({ 'master-items.json': ITEMS }, { ...CONFIG, rules: { 'law/no-such-rule': 'off' } });
    await expect(buildCatalog({ src, out, reportFile: false })).rejects.toThrow(/Unknown rule name/);
  });

  it('emits archived files with their replacement named in the manifest, and never the retired systems catalog', async () => {
    const { src, out } = await catalog({
      'attributes.json': { version: '1', attributes: [{ id: 'STR', name: 'Strength' }] },
      'systems-catalog.json': { version: '0' },
      'master-items.json': ITEMS,
    });
    const r = await buildCatalog({ src, out, reportFile: false });
    expect(r.ok).toBe(true);
    expect(r.outputs).toContain('api/v1/attributes.json');
    expect(r.outputs).not.toContain('api/v1/systems-catalog.json');
    const m = JSON.parse(await readFile(join(out, 'api/v1/game-data-manifest.json'), 'utf8')) as { archived: unknown[] };
    expect(m.archived).toEqual([{ file: 'attributes.json', replacedBy: ['master-attributes.json'] }]);
    expect(find(r, 'catalog/retired-file')).toHaveLength(1);
  });

  it('derives the master registry from the catalogs and reports stale entries of a source registry', async () => {
    const { src, out } = await catalog({
      'master-items.json': ITEMS,
      'master-materials.json': MATERIALS,
      'master-registry.json': { version: '1', byUuid: { [ts('ITEM', 1)]: { kind: 'weapon' }, [ts('ITEM', 7)]: { kind: 'weapon' } } },
    });
    const r = await buildCatalog({ src, out, reportFile: false });
    expect(find(r, 'registry/stale-entry')).toEqual([expect.objectContaining({ pointer: `/byUuid/${ts('ITEM', 7)}`, severity: 'warn' })]);
    const reg = JSON.parse(await readFile(join(out, 'api/v1/master-registry.json'), 'utf8')) as {
      byUuid: Record<string, { file: string; pointer: string }>;
    };
    expect(Object.keys(reg.byUuid).sort()).toEqual([ts('ITEM', 1), ts('MATL', 1)]);
    expect(reg.byUuid[ts('MATL', 1)]).toMatchObject({ file: 'master-materials.json', pointer: '/materials/0' });
  });

  it('reports duplicate keys with their position', async () => {
    const { src, out } = await catalog({ 'master-items.json': '{\n  "version": "1",\n  "items": [],\n  "version": "2"\n}' });
    const r = await buildCatalog({ src, out, reportFile: false });
    expect(find(r, 'json/duplicate-key')).toEqual([
      expect.objectContaining({ pointer: '/version', line: 4, column: 3, severity: 'error' }),
    ]);
  });
});
