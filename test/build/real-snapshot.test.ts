/**
 * The build over the real snapshot with our config for it: it builds, the report lists
 * every known flaw precisely (file, line, pointer) whatever its severity, the derived ids reproduce the
 * id vectors, and search over the output finds real items by exact name, prefix and one typo.
 * Expectations are computed here from the raw files, independently of the build's code.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildCatalog, type BuildReport } from '../../build/pipeline/index.js';
import { loadSearchIndex, type SearchEngine } from '../../api/_lib/search/index.js';
import { ID_VECTORS, REAL_CONFIG, REAL_OUT, REAL_SRC } from '../helpers/catalog.js';

type Json = Record<string, unknown>;
const raw = async (f: string): Promise<{ text: string; data: Json }> => {
  const text = await readFile(join(REAL_SRC, f), 'utf8');
  return { text, data: JSON.parse(text) as Json };
};

let report: BuildReport;
let engine: SearchEngine;

beforeAll(async () => {
  // A report-only build (same input and config as the shared test build) to inspect every issue.
  report = await buildCatalog({ src: REAL_SRC, out: join(REAL_OUT, '..', 'real-report-only'), config: REAL_CONFIG, reportFile: false });
  engine = loadSearchIndex(JSON.parse(await readFile(join(REAL_OUT, 'api/v1/search-index.json'), 'utf8')));
});

describe('real snapshot build', () => {
  it('builds with our config and publishes every source file', async () => {
    expect(report.ok).toBe(true);
    expect(report.issues.filter((i) => i.severity === 'error')).toEqual([]);
    const { readdir } = await import('node:fs/promises');
    for (const f of await readdir(REAL_SRC)) expect(report.outputs).toContain(`api/v1/${f}`);
  });

  it('reports every artifact keyed outside the ARTF family, at the line of its uuid', async () => {
    const { text, data } = await raw('master-artifacts.json');
    const arts = data.artifacts as { uuid: string }[];
    const lines = text.split('\n');
    const expected = arts
      .map((a, i) => ({ a, i }))
      .filter(({ a }) => !a.uuid.startsWith('ARTF-'))
      .map(({ a, i }) => ({ pointer: `/artifacts/${i}/uuid`, line: lines.findIndex((l) => l.includes(`"uuid": "${a.uuid}"`)) + 1 }));
    expect(expected.length).toBeGreaterThan(0);
    const got = report.issues.filter((i) => i.rule === 'law/definition-prefix' && i.file === 'master-artifacts.json');
    expect(got.map((i) => ({ pointer: i.pointer, line: i.line }))).toEqual(expected);
    expect(new Set(got.map((i) => i.severity))).toEqual(new Set(['warn']));
  });

  it('reports every recipe material that master-materials does not define', async () => {
    const mats = new Set(((await raw('master-materials.json')).data.materials as { uuid: string }[]).map((m) => m.uuid));
    const recipes = (await raw('master-recipes.json')).data.recipes as { materials?: { uuid: string }[] }[];
    const expected: string[] = [];
    recipes.forEach((r, i) => r.materials?.forEach((m, j) => !mats.has(m.uuid) && expected.push(`/recipes/${i}/materials/${j}/uuid`)));
    const got = report.issues.filter(
      (i) => i.rule === 'law/unresolved-ref' && i.file === 'master-recipes.json' && /\/materials\/\d+\/uuid$/.test(i.pointer),
    );
    expect(got.map((i) => i.pointer).sort()).toEqual(expected.sort());
  });

  it('reports the duplicate keys of the account contract', () => {
    const got = report.issues.filter((i) => i.rule === 'json/duplicate-key');
    expect(got.map((i) => `${i.file}${i.pointer}`)).toEqual([
      'account-game-uuid-contract.json/version',
      'account-game-uuid-contract.json/identity/itemDefinition',
    ]);
  });

  it('derives SKIL ids that reproduce every skill pair of the id vectors', async () => {
    const vectors = JSON.parse(await readFile(ID_VECTORS, 'utf8')) as { skill: { pairs: { input: string; id: string }[] } };
    const emitted = JSON.parse(await readFile(join(REAL_OUT, 'api/v1/master-weaponSkills.json'), 'utf8')) as {
      weaponTypes: { slots: { skills: { id: string; grudgeUuid: string }[] }[] }[];
    };
    const byId = new Map(emitted.weaponTypes.flatMap((w) => w.slots.flatMap((s) => s.skills.map((k) => [k.id, k.grudgeUuid] as const))));
    for (const p of vectors.skill.pairs) expect(byId.get(p.input)).toBe(p.id);
  });

  it('search finds real items by exact name, by prefix and with one typo', async () => {
    const armor = ((await raw('master-armor.json')).data.items as { uuid: string; name: string }[]).filter((a) => a.name.length >= 8);
    const samples = [armor[0]!, armor[Math.floor(armor.length / 2)]!, armor[armor.length - 1]!];
    for (const a of samples) {
      const exact = engine.search(a.name, { type: 'all', limit: 10 });
      expect(exact.results[0]?.name.toLowerCase()).toBe(a.name.toLowerCase());
      const prefix = a.name.slice(0, 5);
      const pre = engine.search(prefix, { type: 'armor', limit: 200 });
      expect(pre.results.every((r) => r.type === 'armor')).toBe(true);
      expect(pre.totalResults).toBeGreaterThanOrEqual(armor.filter((x) => x.name.toLowerCase().startsWith(prefix.toLowerCase())).length);
      const word = a.name.split(' ')[0]!;
      const typo = word.slice(0, 2) + word[3] + word[2] + word.slice(4); // transpose two letters
      const fuzzy = engine.search(typo, { type: 'armor', limit: 200 });
      expect(fuzzy.results.some((r) => r.name.toLowerCase().split(' ').includes(word.toLowerCase()))).toBe(true);
    }
    const byId = engine.search(samples[0]!.uuid, { type: 'all', limit: 5 });
    expect(byId.results[0]?.id).toBe(samples[0]!.uuid);
  });
});
