/**
 * The sample catalog builds clean: no errors, only the expected archived/retired
 * notices, every source file published (the retired one excepted), stats equal to counts taken from
 * the raw sources, and the ids the search index returns for sprites and skills are the registry's.
 */
import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildCatalog, type BuildReport } from '../../build/pipeline/index.js';
import { loadSearchIndex, type SearchEngine } from '../../api/_lib/search/index.js';
import { SAMPLE_OUT, SAMPLE_SRC } from '../helpers/catalog.js';

type Json = Record<string, unknown>;
const src = async (f: string): Promise<Json> => JSON.parse(await readFile(join(SAMPLE_SRC, f), 'utf8')) as Json;
const out = async (f: string): Promise<Json> => JSON.parse(await readFile(join(SAMPLE_OUT, 'api/v1', f), 'utf8')) as Json;

let report: BuildReport;
let engine: SearchEngine;
beforeAll(async () => {
  report = await buildCatalog({ src: SAMPLE_SRC, out: join(SAMPLE_OUT, '..', 'sample-report-only'), reportFile: false });
  engine = loadSearchIndex(await out('search-index.json'));
});

describe('sample catalog build', () => {
  it('has no errors and only the archived and retired notices', () => {
    expect(report.ok).toBe(true);
    expect(
      report.issues
        .filter((i) => i.severity !== 'off')
        .map((i) => `${i.rule} ${i.file}`)
        .sort(),
    ).toEqual([
      'catalog/archived-file attributes.json',
      'catalog/archived-file weaponSkills.json',
      'catalog/retired-file systems-catalog.json',
    ]);
  });

  it('publishes every source file except the retired one', async () => {
    const files = (await readdir(SAMPLE_SRC)).filter((f) => f.endsWith('.json') && f !== 'catalog.config.json');
    for (const f of files) {
      if (f === 'systems-catalog.json') expect(report.outputs).not.toContain(`api/v1/${f}`);
      else expect(report.outputs).toContain(`api/v1/${f}`);
    }
  });

  it('stats count every category as the raw sources do', async () => {
    const stats = (await out('stats.json')) as { totals: Record<string, number> };
    const len = async (f: string, k: string): Promise<number> => ((await src(f))[k] as unknown[]).length;
    expect(stats.totals.relics).toBe(await len('master-relics.json', 'relics'));
    expect(stats.totals.artifacts).toBe(await len('master-artifacts.json', 'artifacts'));
    expect(stats.totals.armor).toBe(await len('master-armor.json', 'items'));
    expect(stats.totals.materials).toBe(await len('master-materials.json', 'materials'));
    expect(stats.totals.enemies).toBe(await len('enemies.json', 'enemies'));
    expect(stats.totals.bosses).toBe(await len('bosses.json', 'bosses'));
    expect(stats.totals.icons).toBe(await len('icon-sources.json', 'icons'));
    const sprites = (await src('sprites2d.json')) as { totalSprites: number };
    expect(stats.totals.sprites).toBe(sprites.totalSprites);
    const skills = (await src('master-weaponSkills.json')) as { weaponTypes: { slots: { skills: unknown[] }[] }[] };
    expect(stats.totals.skills).toBe(skills.weaponTypes.flatMap((w) => w.slots.flatMap((s) => s.skills)).length);
  });

  it('search returns the sprite registry ids and the derived skill ids', async () => {
    const reg = (await out('sprite-registry.json')) as { sprites: { uuid: string; name: string }[] };
    for (const s of reg.sprites) {
      const hit = engine.search(s.uuid, { type: 'sprites', limit: 5 });
      expect(hit.results[0]).toEqual({ type: 'sprites', id: s.uuid, name: s.name });
    }
    const skills = (await out('master-weaponSkills.json')) as {
      weaponTypes: { slots: { skills: { studioUuid: string; name: string }[] }[] }[];
    };
    for (const k of skills.weaponTypes.flatMap((w) => w.slots.flatMap((s) => s.skills))) {
      expect(engine.search(k.studioUuid, { type: 'skills', limit: 5 }).results[0]).toEqual({
        type: 'skills',
        id: k.studioUuid,
        name: k.name,
      });
    }
  });
});
