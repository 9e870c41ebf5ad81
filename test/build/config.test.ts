/**
 * The catalog config (build/pipeline/config.ts, docs/guides/catalog.md "The catalog config"): what a content author gets
 * from `catalog.config.json`. Pins the refusal of a missing, malformed or schema-breaking file (every
 * problem listed with its pointer, the file named), and the defaults and normalisation of a valid
 * one: hosts without trailing slashes, the `sprite:` namespace, `studioUuid`, the retired systems
 * catalog, empty rule maps, version labels of spec §9.2 merged with the config's, all frozen.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CatalogConfigError, DEFAULT_ITEM_FILE_BUDGET, loadCatalogConfig } from '../../build/pipeline/config.js';
import { DEFAULT_VERSIONS } from '../../build/pipeline/layout.js';

const dirs: string[] = [];
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

async function configFile(body: unknown): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'config-'));
  dirs.push(dir);
  const file = join(dir, 'catalog.config.json');
  await writeFile(file, typeof body === 'string' ? body : JSON.stringify(body));
  return file;
}

const MINIMAL = { name: 'demo', base_url: 'https://catalog.test', cdn_url: 'https://cdn.test', namespaces: { skill: 'sk:', icon: 'ic:' } };

async function refusal(body: unknown): Promise<CatalogConfigError> {
  const file = await configFile(body);
  const e = await loadCatalogConfig(file).then(
    () => null,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(CatalogConfigError);
  const err = e as CatalogConfigError;
  expect(err.file).toBe(file);
  expect(err.name).toBe('CatalogConfigError');
  expect(err.message).toContain(file);
  for (const p of err.problems) expect(err.message).toContain(`\n  ${p}`);
  return err;
}

describe('loadCatalogConfig: refusals', () => {
  it('refuses a missing file', async () => {
    const missing = join(tmpdir(), 'no-such-dir-for-config', 'catalog.config.json');
    const e = (await loadCatalogConfig(missing).catch((x: unknown) => x)) as CatalogConfigError;
    expect(e).toBeInstanceOf(CatalogConfigError);
    expect(e.problems).toHaveLength(1);
    expect(e.problems[0]).toMatch(/ENOENT/);
  });

  it('refuses text that is not JSON', async () => {
    const e = await refusal('{ name: demo }');
    expect(e.problems).toHaveLength(1);
    expect(e.problems[0]).toMatch(/JSON/);
  });

  it('lists every schema problem at once, each with its pointer (/ for the whole file)', async () => {
    const e = await refusal({
      name: '',
      base_url: 'not a url',
      namespaces: { skill: 'sk:' },
      extra: 1,
      rules: { 'json/syntax': 'loud' },
      itemFileBudget: -1,
    });
    const pointers = e.problems.map((p) => p.split(' ')[0]);
    expect(pointers).toContain('/');
    expect(pointers).toContain('/name');
    expect(pointers).toContain('/base_url');
    expect(pointers).toContain('/namespaces');
    expect(pointers).toContain('/rules/json~1syntax');
    expect(pointers).toContain('/itemFileBudget');
    expect(e.problems.find((p) => p.startsWith('/name '))).toMatch(/fewer than 1/);
    expect(e.problems.some((p) => p.startsWith('/ ') && p.includes('cdn_url'))).toBe(true);
  });
});

describe('loadCatalogConfig: defaults and normalisation', () => {
  it('fills every default for a minimal config', async () => {
    const c = await loadCatalogConfig(await configFile(MINIMAL));
    expect(c).toEqual({
      name: 'demo',
      baseUrl: 'https://catalog.test',
      cdnUrl: 'https://cdn.test',
      namespaces: { skill: 'sk:', icon: 'ic:', sprite: 'sprite:' },
      uuidField: 'studioUuid',
      retired: ['systems-catalog.json'],
      rules: {},
      overrides: [],
      versions: DEFAULT_VERSIONS,
      itemFileBudget: 10_000,
      keepBuilds: 3,
    });
    expect(DEFAULT_ITEM_FILE_BUDGET).toBe(10_000);
    expect(Object.isFrozen(c)).toBe(true);
    expect(Object.isFrozen(c.namespaces)).toBe(true);
    expect(Object.isFrozen(c.rules)).toBe(true);
    expect(Object.isFrozen(c.versions)).toBe(true);
    expect(Object.isFrozen(c.retired)).toBe(true);
  });

  it('keeps what the config sets and strips every trailing slash of the hosts', async () => {
    const c = await loadCatalogConfig(
      await configFile({
        ...MINIMAL,
        base_url: 'https://catalog.test/v//',
        cdn_url: 'https://cdn.test//',
        namespaces: { skill: 'sk:', icon: 'ic:', sprite: 'sp:' },
        uuidField: 'brandUuid',
        retired: ['old.json'],
        rules: { 'schema/*': 'warn' },
        overrides: [{ files: ['legacy/*.json'], rules: { 'json/syntax': 'off' }, reason: 'old' }],
        versions: { package: '9.9.9', extra: '1' },
        itemFileBudget: 0,
      }),
    );
    expect(c.itemFileBudget).toBe(0);
    expect(c.baseUrl).toBe('https://catalog.test/v');
    expect(c.cdnUrl).toBe('https://cdn.test');
    expect(c.namespaces.sprite).toBe('sp:');
    expect(c.uuidField).toBe('brandUuid');
    expect(c.retired).toEqual(['old.json']);
    expect(c.rules).toEqual({ 'schema/*': 'warn' });
    expect(c.overrides).toEqual([{ files: ['legacy/*.json'], rules: { 'json/syntax': 'off' } }]);
    expect(Object.isFrozen(c.overrides)).toBe(true);
    expect(Object.isFrozen(c.overrides[0])).toBe(true);
    expect(Object.isFrozen(c.overrides[0]!.rules)).toBe(true);
    expect(c.versions).toEqual({ ...DEFAULT_VERSIONS, package: '9.9.9', extra: '1' });
  });
});
