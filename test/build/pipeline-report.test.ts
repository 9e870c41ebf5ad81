/**
 * The build report of `buildCatalog` (build/pipeline/index.ts, docs/architecture.md "Build") on tiny
 * catalogs: progress events in stage order with file and record counts, which config file is read and
 * skipped, the stats (errors, warnings, off, records as distinct places), issues sorted by file, line,
 * column and rule with severities from the rule table and file kinds, the report file (default beside
 * the output, a chosen path, or none), the published and derived outputs, and a failed emit that
 * leaves no staging folder behind.
 */
import { mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { buildCatalog, CatalogConfigError, type ProgressEvent } from '../../build/pipeline/index.js';
import { CORE_RULES } from '../../build/pipeline/rules.js';

const dirs: string[] = [];
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

const CONFIG = { name: 'tiny', base_url: 'https://catalog.test', cdn_url: 'https://cdn.test', namespaces: { skill: 's:', icon: 'i:' } };
const ts = (p: string, n: number): string => `${p}-20260101000000-${n.toString(16).toUpperCase().padStart(6, '0')}-0000ABCD`;
const ITEMS = { version: '1', items: [{ uuid: ts('ITEM', 1), name: 'Blade', category: 'swords', type: 'weapon', tier: 1 }] };

/** A temp root with `src/` holding `files` (name → JSON value or raw text) and the config (unless `config` is null). */
async function catalog(
  files: Record<string, unknown>,
  config: object | null = CONFIG,
): Promise<{ root: string; src: string; out: string }> {
  const root = await mkdtemp(join(tmpdir(), 'pipeline-'));
  dirs.push(root);
  const src = join(root, 'src');
  await mkdir(src);
  if (config) await writeFile(join(src, 'catalog.config.json'), JSON.stringify(config));
  for (const [name, v] of Object.entries(files)) {
    await mkdir(join(src, name, '..'), { recursive: true });
    await writeFile(join(src, name), typeof v === 'string' ? v : JSON.stringify(v, null, 2));
  }
  return { root, src, out: join(root, 'dist') };
}

describe('progress and stats', () => {
  it('reports each stage in order with the files and records known so far', async () => {
    const { src, out } = await catalog({ 'master-items.json': ITEMS, 'notes.json': { a: 1 } });
    const events: ProgressEvent[] = [];
    const r = await buildCatalog({ src, out, reportFile: false, onProgress: (e) => events.push(e) });
    expect(r.ok).toBe(true);
    expect(events.map((e) => e.stage)).toEqual(['config', 'collect', 'validate', 'law', 'derive', 'emit', 'done']);
    expect(events[0]).toEqual({ stage: 'config', files: 0, records: 0 });
    expect(events[2]).toEqual({ stage: 'validate', files: 2, records: 0 });
    expect(events[4]).toEqual({ stage: 'derive', files: 2, records: 1 });
    expect(events[6]).toEqual({ stage: 'done', files: 2, records: 1 });
    expect(r.stats).toMatchObject({ files: 2, records: 1, errors: 0, warnings: 0, off: 1 });
    expect(r.stats.outputs).toBe(r.outputs.length);
    expect(r.stats.seconds).toBeGreaterThan(0);
  });

  it('builds the static site page into the output when asked, as its own stage after emit', async () => {
    const { src, out } = await catalog({ 'master-items.json': ITEMS });
    const events: string[] = [];
    const r = await buildCatalog({ src, out, reportFile: false, site: true, onProgress: (e) => events.push(e.stage) });
    expect(r.ok).toBe(true);
    expect(events.slice(-3)).toEqual(['emit', 'site', 'done']);
    expect(await readFile(join(out, 'index.html'), 'utf8')).toMatch(/<html/i);
    const plain = await catalog({ 'master-items.json': ITEMS });
    await buildCatalog({ src: plain.src, out: plain.out, reportFile: false });
    await expect(readFile(join(plain.out, 'index.html'), 'utf8')).rejects.toMatchObject({ code: 'ENOENT' });
  }, 120_000);

  it('reports its own wall time in seconds', async () => {
    const { src, out } = await catalog({ 'master-items.json': ITEMS });
    const t0 = performance.now();
    const r = await buildCatalog({ src, out, reportFile: false });
    const elapsed = (performance.now() - t0) / 1000;
    expect(r.stats.seconds).toBeGreaterThan(0);
    expect(r.stats.seconds).toBeLessThanOrEqual(elapsed);
  });

  it('counts a record once whether it is a definition, a search record or both', async () => {
    const { src, out } = await catalog({
      'master-items.json': ITEMS,
      'enemies.json': {
        enemies: [
          { id: 'wolf', name: 'Wolf' },
          { id: 'bear', name: 'Bear' },
        ],
      },
    });
    const r = await buildCatalog({ src, out, reportFile: false });
    expect(r.stats.records).toBe(3);
    // two definitions are two records
    const two = await catalog({
      'master-items.json': {
        ...ITEMS,
        items: [...ITEMS.items, { uuid: ts('ITEM', 2), name: 'Axe', category: 'axes', type: 'weapon', tier: 1 }],
      },
      'enemies.json': { enemies: [{ id: 'wolf', name: 'Wolf' }] },
    });
    expect((await buildCatalog({ src: two.src, out: two.out, reportFile: false })).stats.records).toBe(3);
  });

  it('counts errors, warnings and off problems apart', async () => {
    const { src, out } = await catalog({ 'weapons.json': '{"a": 1, "a": 2}', 'x.json': '{"b": 1, "b": 2}', 'systems-catalog.json': {} });
    const r = await buildCatalog({ src, out, reportFile: false });
    expect(r.ok).toBe(false);
    expect(r.stats.errors).toBe(1);
    // retired file, and in the design file weapons.json two schema problems and the duplicate key, capped
    expect(r.stats.warnings).toBe(4);
    expect(r.stats.off).toBe(1);
    expect(r.issues).toHaveLength(6);
    expect(r.outputs).toEqual([]);
    expect(r.buildId).toBeNull();
    expect(r.stats.outputs).toBe(0);
  });
});

describe('issues', () => {
  it('are sorted by file, line, column and rule, each located and with its severity', async () => {
    const { src, out } = await catalog({
      'b.json': '{\n  "k": 1,\n  "k": 2\n}',
      'a.json': '[\n  1,\n  2 3\n]',
      'weapons.json': '{"k": 1, "k": 2}',
      'c.json': '\uFEFF{}',
    });
    const r = await buildCatalog({ src, out, reportFile: false });
    const seen = r.issues.map((i) => `${i.file}:${i.line}:${i.column} ${i.rule} ${i.severity}`);
    expect(seen).toEqual([
      'a.json:3:5 json/syntax error',
      'b.json:1:1 catalog/no-schema off',
      'b.json:3:3 json/duplicate-key error',
      'c.json:1:1 catalog/no-schema off',
      'c.json:1:1 json/encoding error',
      'weapons.json:1:1 schema/required warn',
      'weapons.json:1:1 schema/required warn',
      'weapons.json:1:10 json/duplicate-key warn',
    ]);
    expect(r.src).toBe(src);
    expect(r.out).toBe(out);
  });
});

describe('published build report', () => {
  it('is api/v1/build-report.json: every problem with its place, rule and severity, the counts, the build id, and nothing of the machine', async () => {
    const { root, src, out } = await catalog({ 'master-items.json': ITEMS, 'x.json': '{"b": 1}', 'systems-catalog.json': {} });
    const r = await buildCatalog({ src, out, reportFile: false });
    expect(r.ok).toBe(true);
    const text = await readFile(join(out, 'api/v1/build-report.json'), 'utf8');
    const published = JSON.parse(text) as Record<string, unknown>;
    expect(Object.keys(published)).toEqual(['format', 'ok', 'buildId', 'stats', 'issues']);
    expect(published.format).toBe('build-report/1');
    expect(published.ok).toBe(true);
    expect(published.buildId).toBe(r.buildId);
    const { seconds, ...counts } = r.stats;
    expect(seconds).toBeGreaterThan(0);
    expect(published.stats).toEqual(counts);
    expect(counts.outputs).toBe(r.outputs.length);
    expect(r.outputs).toContain('api/v1/build-report.json');
    expect(published.issues).toEqual(
      r.issues.map(({ file, line, column, pointer, rule, severity, message }) => ({
        file,
        line,
        column,
        pointer,
        rule,
        severity,
        message,
      })),
    );
    expect((published.issues as { severity: string }[]).map((i) => i.severity).sort()).toEqual(['off', 'warn']);
    expect(text).not.toContain(root);
  });

  it('has the same bytes for two builds of the same input, and is not written by a failed build', async () => {
    const a = await catalog({ 'master-items.json': ITEMS, 'systems-catalog.json': {} });
    const b = await catalog({ 'master-items.json': ITEMS, 'systems-catalog.json': {} });
    await buildCatalog({ src: a.src, out: a.out, reportFile: false });
    await buildCatalog({ src: b.src, out: b.out, reportFile: false });
    expect(await readFile(join(a.out, 'api/v1/build-report.json'), 'utf8')).toBe(
      await readFile(join(b.out, 'api/v1/build-report.json'), 'utf8'),
    );
    await writeFile(join(a.src, 'master-items.json'), '{"items": [}');
    const failed = await buildCatalog({ src: a.src, out: a.out, reportFile: false });
    expect(failed.ok).toBe(false);
    const kept = JSON.parse(await readFile(join(a.out, 'api/v1/build-report.json'), 'utf8')) as { ok: boolean; stats: { errors: number } };
    expect(kept).toMatchObject({ ok: true, stats: { errors: 0 } });
  });
});

describe('config file', () => {
  it('reads catalog.config.json from the source folder and does not treat it as a catalog file', async () => {
    const { src, out } = await catalog({ 'master-items.json': ITEMS });
    const r = await buildCatalog({ src, out, reportFile: false });
    expect(r.outputs).not.toContain('api/v1/catalog.config.json');
    expect(r.stats.files).toBe(1);
  });

  it('reads a config from elsewhere, and publishes a file of the source folder that only looks like one', async () => {
    const { root, src, out } = await catalog({ 'master-items.json': ITEMS, 'catalog.config.json': { name: 'data' } }, null);
    const config = join(root, 'elsewhere.json');
    await writeFile(config, JSON.stringify({ ...CONFIG, name: 'elsewhere' }));
    const r = await buildCatalog({ src, out, config, reportFile: false });
    expect(r.ok).toBe(true);
    expect(r.outputs).toContain('api/v1/catalog.config.json');
    const m = JSON.parse(await readFile(join(out, 'api/v1/game-data-manifest.json'), 'utf8')) as { catalog: string };
    expect(m.catalog).toBe('elsewhere');
  });

  it('skips a config in a sub folder of the source folder', async () => {
    const { src, out } = await catalog({ 'master-items.json': ITEMS, 'cfg/build.json': CONFIG }, null);
    const r = await buildCatalog({ src, out, config: join(src, 'cfg/build.json'), reportFile: false });
    expect(r.ok).toBe(true);
    expect(r.outputs).not.toContain('api/v1/cfg/build.json');
  });

  it('refuses to build without a usable config, writing nothing', async () => {
    const { root, src, out } = await catalog({ 'master-items.json': ITEMS }, null);
    await expect(buildCatalog({ src, out })).rejects.toBeInstanceOf(CatalogConfigError);
    expect((await readdir(root)).sort()).toEqual(['src']);
  });
});

describe('report file', () => {
  it('is written beside the output folder by default, with the rules', async () => {
    const { root, src, out } = await catalog({ 'master-items.json': ITEMS });
    const r = await buildCatalog({ src, out });
    expect(r.reportFile).toBe(`${out}-report.json`);
    const text = await readFile(r.reportFile!, 'utf8');
    expect(text.endsWith('}\n')).toBe(true);
    expect(text).toContain('\n  "ok": true');
    const written = JSON.parse(text) as {
      ok: boolean;
      buildId: string;
      outputs: string[];
      rules: { name: string }[];
      stats: { files: number };
    };
    expect(written).toMatchObject({ ok: true, buildId: r.buildId, outputs: r.outputs, stats: { files: 1 } });
    expect(written.rules.map((x) => x.name)).toEqual(expect.arrayContaining(CORE_RULES.map((x) => x.name)));
    expect(written.rules.map((x) => x.name)).toContain('icons/source-shape');
    expect((await readdir(root)).sort()).toEqual(['dist', 'dist-report.json', 'src']);
  });

  it('goes where asked, creating its folder, or nowhere', async () => {
    const { root, src, out } = await catalog({ 'master-items.json': ITEMS });
    const r = await buildCatalog({ src, out, reportFile: join(root, 'reports/deep/r.json') });
    expect(r.reportFile).toBe(join(root, 'reports/deep/r.json'));
    expect(JSON.parse(await readFile(r.reportFile!, 'utf8'))).toMatchObject({ ok: true });
    const none = await buildCatalog({ src, out, reportFile: false });
    expect(none.reportFile).toBeNull();
    expect((await readdir(root)).sort()).toEqual(['dist', 'reports', 'src']);
  });
});

describe('outputs', () => {
  it('publishes every live source file as written, derived files, and the manifest; never a retired file', async () => {
    const text = '{\n  "version": "1", "items": []\n}';
    const { src, out } = await catalog({ 'master-items.json': text, 'sub/extra.json': { x: 1 }, 'systems-catalog.json': {} });
    const r = await buildCatalog({ src, out, reportFile: false });
    expect(r.outputs).toEqual([...r.outputs].sort());
    expect(r.outputs).toEqual(
      expect.arrayContaining([
        'api/v1/master-items.json',
        'api/v1/sub/extra.json',
        'api/v1/game-data-manifest.json',
        'api/v1/master-registry.json',
        'api/v1/icon-registry.json',
      ]),
    );
    expect(r.outputs).not.toContain('api/v1/systems-catalog.json');
    expect(await readFile(join(out, 'api/v1/master-items.json'), 'utf8')).toBe(text);
    const m = JSON.parse(await readFile(join(out, 'api/v1/game-data-manifest.json'), 'utf8')) as {
      buildId: string;
      files: { path: string }[];
      retired: string[];
    };
    expect(m.buildId).toBe(r.buildId);
    expect(m.files.map((f) => f.path)).not.toContain('api/v1/game-data-manifest.json');
    expect(m.files).toHaveLength(r.outputs.filter((p) => p.startsWith('api/v1/')).length - 4); // not the manifest, the change feed, the version list nor the build report
    expect(m.retired).toEqual(['systems-catalog.json']);
    const stats = JSON.parse(await readFile(join(out, 'api/v1/stats.json'), 'utf8')) as { totals: Record<string, number> };
    expect(stats.totals.items).toBe(0);
  });

  it('leaves no staging folder when the output cannot be written, and says why', async () => {
    const { root, src } = await catalog({ 'master-items.json': ITEMS });
    await writeFile(join(root, 'blocker'), 'x');
    await expect(buildCatalog({ src, out: join(root, 'blocker', 'dist'), reportFile: false })).rejects.toMatchObject({ code: 'ENOTDIR' });
    expect((await readdir(root)).sort()).toEqual(['blocker', 'src']);
  });

  it('removes the staging folder when a file cannot be written, keeping the previous output', async () => {
    const { root, src, out } = await catalog({ 'master-items.json': ITEMS });
    const first = await buildCatalog({ src, out, reportFile: false });
    expect(first.ok).toBe(true);
    // a source folder named like a derived file: the derived file cannot be written over it
    await mkdir(join(src, 'icon-registry.json'));
    await writeFile(join(src, 'icon-registry.json', 'a.json'), '{}');
    await expect(buildCatalog({ src, out, reportFile: false })).rejects.toMatchObject({ code: 'EISDIR' });
    expect((await readdir(root)).sort()).toEqual(['dist', 'src']);
    expect(JSON.parse(await readFile(join(out, 'api/v1/game-data-manifest.json'), 'utf8'))).toMatchObject({ buildId: first.buildId });
  });
});
