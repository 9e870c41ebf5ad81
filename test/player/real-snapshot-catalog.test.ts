/**
 * The real studio snapshot tells the truth about what it lacks (spec §4.1, §7; api/_lib/catalog/store.ts):
 * its build has no classes.json, races.json or factions.json, so creating a character answers 503 naming
 * the three files and saying to add them to the catalog source folder, not to run a build that already ran.
 * The whole class: every catalog file a route reads, missing from an output a build wrote, is named by the
 * source file it comes from; with no build at all the answer says to run one.
 */
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { EntryExports } from '../../api/_lib/http/entry.js';
import * as playerEntry from '../../api/player.js';
import { openCatalogFile, readCatalogAll, readCatalogJson } from '../../api/_lib/catalog/store.js';
import { progressCatalog } from '../../api/_lib/player/progress.js';
import { ENTRY_CATALOG_FILES } from '../../api/_lib/routing/bundles.js';
import { ServiceError } from '../../api/_lib/errors.js';
import { REAL_OUT, SAMPLE_OUT } from '../helpers/catalog.js';
import { call, gameApiSuite, newPlayer } from '../helpers/game-api.js';
import { useCatalog } from '../helpers/service.js';

const player = playerEntry as unknown as EntryExports;
const hero = { era: 'warlords', name: 'Ada', classId: 'warrior', raceId: 'human', factionId: 'crusade' };
const WORLD =
  'This catalog has no classes.json, races.json and factions.json (the classes a character is created with, spec §4.1; ' +
  'the races a character is created with, spec §4.1; the factions and the races each admits, spec §4.1): its source folder had none ' +
  'when it was built. Add classes.json, races.json and factions.json to the catalog source folder (catalog-src/ unless the build was ' +
  'given --src), then run the catalog build again.';

describe('a character on the real snapshot', () => {
  const suite = gameApiSuite({ CATALOG_DIR: REAL_OUT });

  it('is refused with a 503 that names the three missing world files and what to add, and nothing is written', async () => {
    for (const f of ['classes.json', 'races.json', 'factions.json']) expect(existsSync(join(REAL_OUT, 'api/v1', f)), f).toBe(false);
    const p = await newPlayer(suite.config);
    const r = await call(player, 'POST', '/api/characters', { body: hero, headers: p.auth });
    expect([r.status, r.body.code, r.body.detail]).toEqual([503, 'UPSTREAM_UNAVAILABLE', WORLD]);
    expect(String(r.body.detail)).not.toMatch(/^Catalog data/);
    const chars = await call(player, 'GET', '/api/characters?era=warlords', { headers: p.auth });
    expect(chars.body.characters).toEqual([]);
  });
});

describe('every catalog file a route reads, missing', () => {
  const dir = mkdtempSync(join(tmpdir(), 'missing-catalog-'));
  afterAll(() => {
    useCatalog(undefined);
    rmSync(dir, { recursive: true, force: true });
  });

  /** A copy of the sample build without `rel`; with `manifest: false`, without its manifest too (no build ran). */
  function outputWithout(rel: string, manifest = true): string {
    const out = join(dir, `${rel.replace(/\W/g, '_')}-${String(manifest)}`);
    cpSync(SAMPLE_OUT, out, { recursive: true });
    rmSync(join(out, rel), { force: true });
    if (!manifest) rmSync(join(out, 'api/v1/game-data-manifest.json'));
    useCatalog(out);
    return out;
  }
  async function refusal(p: Promise<unknown>): Promise<ServiceError> {
    const e = await p.then(
      () => undefined,
      (x: unknown) => x,
    );
    expect(e).toBeInstanceOf(ServiceError);
    return e as ServiceError;
  }

  // the files the entries read, as their bundles list them (a glob stands for one file of its kind)
  const cases: [rel: string, source: string][] = [
    ['api/v1/classes.json', 'classes.json'],
    ['api/v1/races.json', 'races.json'],
    ['api/v1/factions.json', 'factions.json'],
    ['api/v1/master-recipes.json', 'master-recipes.json'],
    ['api/v1/master-materials.json', 'master-materials.json'],
    ['api/v1/master-weaponSkills.json', 'master-weaponSkills.json'],
    ['api/v1/icon-registry.json', 'icon-sources.json'],
    ['api/v1/icon-shards/weapon.json', 'icon-sources.json'],
    ['api/v1/sprite-registry.json', 'sprites2d.json and sprite-ids.json'],
    ['api/v1/character-registry.json', 'sprite-characters.json'],
    ['api/v1/asset-index.json', 'studiodot-assets.json'],
  ];

  it('covers the files of the player bundle', () => {
    const listed = ENTRY_CATALOG_FILES.player.join(' ');
    for (const f of ['classes', 'races', 'factions', 'master-recipes', 'master-materials']) expect(listed).toContain(f);
  });

  it.each(cases)('%s: names %s and says to add it to the catalog source folder', async (rel, source) => {
    outputWithout(rel);
    const e = await refusal(readCatalogJson(rel));
    expect(e.code).toBe('UPSTREAM_UNAVAILABLE');
    expect(e.message).toMatch(new RegExp(`^This catalog has no ${source} \\(.+\\): its source folder had none when it was built\\. `));
    expect(e.message).toContain(`Add ${source} to the catalog source folder (catalog-src/ unless the build was given --src)`);
    expect(e.message.length).toBeLessThanOrEqual(600);
  });

  it('names the collection source for a missing collection index', async () => {
    outputWithout('api/v1/collections/relics.cidx');
    const e = await refusal(openCatalogFile('api/v1/collections/relics.cidx', (f) => readFileSync(f)));
    expect(e.message).toMatch(/^This catalog has no master-relics\.json \(the relics collection, spec §4\.2\)/);
  });

  it('names master-professions.json when neither professions file is there', async () => {
    const out = outputWithout('api/v1/master-professions.json');
    rmSync(join(out, 'api/v1/professions.json'), { force: true });
    const e = await refusal(progressCatalog());
    expect(e.message).toMatch(
      /^This catalog has no master-professions\.json \(the crafting and gathering professions, also read from professions\.json/,
    );
  });

  it('says to rebuild when a file every build writes is missing, and to run the build when none ran', async () => {
    outputWithout('api/v1/stats.json');
    expect((await refusal(readCatalogJson('api/v1/stats.json'))).message).toBe(
      'Catalog data "api/v1/stats.json" is missing from the build output; rebuild the catalog.',
    );
    outputWithout('api/v1/classes.json', false);
    expect((await refusal(readCatalogJson('api/v1/classes.json'))).message).toBe(
      'Catalog data "api/v1/classes.json" is not available; run the catalog build.',
    );
  });
});

describe('readCatalogAll', () => {
  const dir = mkdtempSync(join(tmpdir(), 'catalog-all-'));
  afterAll(() => {
    useCatalog(undefined);
    rmSync(dir, { recursive: true, force: true });
  });
  /** A copy of the sample build without the files `gone`, with `api/v1/stats.json` made a folder (a read error that is not a missing file). */
  function output(name: string, gone: readonly string[]): void {
    const out = join(dir, name);
    cpSync(SAMPLE_OUT, out, { recursive: true });
    for (const f of gone) rmSync(join(out, 'api/v1', f), { force: true });
    rmSync(join(out, 'api/v1/stats.json'));
    mkdirSync(join(out, 'api/v1/stats.json'));
    useCatalog(out);
  }
  const settle = (p: Promise<unknown>): Promise<unknown> =>
    p.then(
      () => undefined,
      (e: unknown) => e,
    );

  it('answers every value in order when every read succeeds', async () => {
    output('ok', []);
    const [a, b] = await readCatalogAll([readCatalogJson<{ races: unknown[] }>('api/v1/races.json'), Promise.resolve(7)] as const);
    expect([Array.isArray(a.races), b]).toEqual([true, 7]);
  });

  it('names every lacked file in one 503, keeping the first failure as its cause', async () => {
    output('two', ['classes.json', 'races.json']);
    const e = (await settle(
      readCatalogAll([readCatalogJson('api/v1/classes.json'), readCatalogJson('api/v1/races.json')] as const),
    )) as ServiceError;
    expect(e.message).toMatch(/^This catalog has no classes\.json and races\.json \(the classes .*; the races .*\): /);
    expect((e.cause as ServiceError).message).toMatch(/^This catalog has no classes\.json \(/);
  });

  it('throws the first failure as it is when at most one failure names a lacked file', async () => {
    output('one', ['classes.json']);
    const lacked = (await settle(readCatalogJson('api/v1/classes.json'))) as ServiceError;
    const one = (await settle(readCatalogAll([readCatalogJson('api/v1/classes.json'), Promise.resolve(1)] as const))) as ServiceError;
    // the read's own error (its cause the missing file), not a new one wrapping it
    expect([one.message, (one.cause as NodeJS.ErrnoException).code]).toEqual([lacked.message, 'ENOENT']);
    const other = new Error('not a catalog error');
    expect(await settle(readCatalogAll([Promise.reject(other), readCatalogJson('api/v1/classes.json')] as const))).toBe(other);
    const unreadable = (await settle(
      readCatalogAll([readCatalogJson('api/v1/stats.json'), readCatalogJson('api/v1/classes.json')] as const),
    )) as ServiceError;
    expect(unreadable.message).toBe('Catalog data "api/v1/stats.json" is not available; run the catalog build.');
    expect(unreadable.cause).toBeDefined();
  });

  it('keeps the cause of a lacked file and of a file missing from the build output', async () => {
    output('causes', ['classes.json', 'search-index.json']);
    for (const f of ['api/v1/classes.json', 'api/v1/search-index.json']) {
      const e = (await settle(readCatalogJson(f))) as ServiceError;
      expect((e.cause as NodeJS.ErrnoException).code, f).toBe('ENOENT');
    }
  });
});
