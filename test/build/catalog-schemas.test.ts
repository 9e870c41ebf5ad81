/**
 * Catalog source schemas (`schemas/catalog/*.schema.json`, JSON Schema 2020-12) against our sample
 * catalog (`catalog-src/`) and the real snapshot.
 *
 * - every schema compiles with all of them registered in one Ajv instance (strict mode, formats);
 * - every sample file has a schema and validates against it;
 * - deliberately broken copies of sample files fail with the expected keyword at the expected place
 *   (spec 2.1 weapon field, 4.2 tier range, 2.2 hiddenUntilFound, 2.9 constant, 2.4 asset type, 2.7 prefab);
 * - the sample covers what the spec shows (tiers 1-8 per collection, both discovery states, 16 icon categories);
 * - every real snapshot file has a schema; which real files deviate from the spec is printed, not asserted
 *   (the real data has known flaws, which the build reports).
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { REAL_SRC, REPO_ROOT, SAMPLE_SRC } from '../helpers/catalog.js';

const addFormats = addFormatsModule.default;
const SCHEMA_DIR = join(REPO_ROOT, 'schemas/catalog');
const SCHEMA_BASE = 'https://schemas.game-data.dev/catalog/';
/** Sample files that are not catalog source documents. */
const NOT_CATALOG = new Set(['catalog.config.json']);
/** File kinds present in the real snapshot (the snapshot's files); each needs a schema even without a sample file. */
const REAL_KINDS = [
  'master-armor',
  'master-weapons',
  'master-items',
  'master-consumables',
  'master-materials',
  'master-recipes',
  'master-registry',
  'master-weaponSkills',
  'master-skillTrees',
  'master-professions',
  'master-attributes',
  'master-relics',
  'master-enchants',
  'master-infusions',
  'master-artifacts',
  'weapons',
  'home-island-contract',
  'uuid-law',
  'account-game-uuid-contract',
];

type Json = Record<string, unknown>;
const readJson = (file: string): unknown => JSON.parse(readFileSync(file, 'utf8'));
const schemaFiles = readdirSync(SCHEMA_DIR)
  .filter((f) => f.endsWith('.schema.json'))
  .sort();
const schemas = schemaFiles.map((f) => ({ file: f, schema: readJson(join(SCHEMA_DIR, f)) as { $id?: unknown; $schema?: unknown } }));
const sampleFiles = readdirSync(SAMPLE_SRC)
  .filter((f) => f.endsWith('.json') && !NOT_CATALOG.has(f))
  .sort();

/** One Ajv with every catalog schema registered by `$id` (strict: unknown keywords and loose types are errors). */
function registry(): Ajv2020 {
  const ajv = new Ajv2020({ allErrors: true, strict: true, strictTypes: true, allowUnionTypes: true });
  addFormats(ajv);
  for (const { schema } of schemas) ajv.addSchema(schema as object);
  return ajv;
}
const ajv = registry();
const stemOf = (file: string): string => file.replace(/\.json$/, '');
function validatorFor(file: string): ValidateFunction | undefined {
  return ajv.getSchema(`${SCHEMA_BASE}${stemOf(file)}.schema.json`);
}
const sample = (file: string): Json => readJson(join(SAMPLE_SRC, file)) as Json;
/** Follow `path` (keys and indexes) inside a JSON value; throws when a step is missing (broken test setup). */
function at(value: unknown, path: readonly (string | number)[]): Json {
  let node: unknown = value;
  for (const step of path) {
    if (node === null || typeof node !== 'object') throw new Error(`No ${String(step)} in ${JSON.stringify(path)}`);
    node = (node as Record<string | number, unknown>)[step];
  }
  if (node === null || typeof node !== 'object') throw new Error(`No object at ${JSON.stringify(path)}`);
  return node as Json;
}
function errorsOf(file: string, data: unknown): ErrorObject[] {
  const validate = validatorFor(file);
  if (!validate) throw new Error(`No schema for ${file}`);
  return validate(data) ? [] : [...(validate.errors ?? [])];
}

describe('catalog schemas', () => {
  it('are draft 2020-12 documents with the $id of their file name', () => {
    expect(schemas.length).toBeGreaterThan(0);
    for (const { file, schema } of schemas) {
      expect(schema.$schema, file).toBe('https://json-schema.org/draft/2020-12/schema');
      expect(schema.$id, file).toBe(`${SCHEMA_BASE}${file}`);
    }
  });

  it('all compile with every schema registered', () => {
    const fresh = registry();
    for (const { file, schema } of schemas) {
      expect(() => fresh.getSchema(schema.$id as string), file).not.toThrow();
      expect(typeof fresh.getSchema(schema.$id as string), file).toBe('function');
    }
  });

  it('cover every file kind of the real snapshot', () => {
    for (const kind of REAL_KINDS) expect(validatorFor(`${kind}.json`), kind).toBeTypeOf('function');
  });

  it('do not encode identifier families (the identifier law checks those)', () => {
    const text = schemaFiles.map((f) => readFileSync(join(SCHEMA_DIR, f), 'utf8')).join('\n');
    expect(text).not.toMatch(/"pattern":\s*"[^"]*\b(ITEM|MATL|RECP|RELC|ENCH|INFU|ARTF|SKIL|ICON|SPRT|ATTR|FOOD|POTN|CONS)\b/);
  });
});

describe('sample catalog', () => {
  it('has a schema for every file', () => {
    expect(sampleFiles.length).toBeGreaterThan(0);
    expect(sampleFiles.filter((f) => !validatorFor(f))).toEqual([]);
  });

  it.each(sampleFiles)('%s validates against its schema', (file) => {
    expect(errorsOf(file, sample(file))).toEqual([]);
  });

  it('covers tiers 1-8 in each collection, both discovery states, every handedness and all 16 icon categories', () => {
    for (const [file, key] of [
      ['master-relics.json', 'relics'],
      ['master-enchants.json', 'enchants'],
      ['master-infusions.json', 'infusions'],
      ['master-artifacts.json', 'artifacts'],
    ] as const) {
      const tiers = new Set((sample(file)[key] as Json[]).map((r) => r.tier));
      expect([...tiers].sort(), file).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    }
    const artifacts = sample('master-artifacts.json').artifacts as Json[];
    expect(new Set(artifacts.map((a) => at(a, ['discovery']).hiddenUntilFound))).toEqual(new Set([true, false]));
    expect(new Set(artifacts.map((a) => a.handedness))).toEqual(new Set(['1h', '2h', 'offhand']));
    expect(artifacts.some((a) => !('subtype' in a))).toBe(true);
    const iconCategories = at(readJson(join(SCHEMA_DIR, 'defs.schema.json')), ['$defs', 'iconCategory']).enum as string[];
    expect(iconCategories).toHaveLength(16);
    const used = new Set((sample('icon-sources.json').icons as Json[]).map((i) => i.category));
    expect([...used].sort()).toEqual([...iconCategories].sort());
  });
});

describe('broken copies of sample files fail where they break the spec', () => {
  const cases: {
    name: string;
    file: string;
    mutate: (doc: Json) => void;
    keyword: string;
    instancePath: string;
    param?: [string, unknown];
  }[] = [
    {
      name: 'weapon without lore (2.1)',
      file: 'weapons.json',
      mutate: (d) => {
        delete at(d, ['categories', 'swords', 'items', 0]).lore;
      },
      keyword: 'required',
      instancePath: '/categories/swords/items/0',
      param: ['missingProperty', 'lore'],
    },
    {
      name: 'weapon stats.critBase as a string (2.1)',
      file: 'weapons.json',
      mutate: (d) => {
        at(d, ['categories', 'bows', 'items', 0, 'stats']).critBase = '5';
      },
      keyword: 'type',
      instancePath: '/categories/bows/items/0/stats/critBase',
    },
    {
      name: 'relic of tier 9 (4.2, 8)',
      file: 'master-relics.json',
      mutate: (d) => {
        at(d, ['relics', 3]).tier = 9;
      },
      keyword: 'maximum',
      instancePath: '/relics/3/tier',
    },
    {
      name: 'relic with an unknown category (4.2)',
      file: 'master-relics.json',
      mutate: (d) => {
        at(d, ['relics', 0]).category = 'Elemental';
      },
      keyword: 'enum',
      instancePath: '/relics/0/category',
    },
    {
      name: 'artifact hiddenUntilFound as a string (2.2)',
      file: 'master-artifacts.json',
      mutate: (d) => {
        at(d, ['artifacts', 1, 'discovery']).hiddenUntilFound = 'true';
      },
      keyword: 'type',
      instancePath: '/artifacts/1/discovery/hiddenUntilFound',
    },
    {
      name: 'enchant target outside weapon/armor (4.2)',
      file: 'master-enchants.json',
      mutate: (d) => {
        at(d, ['enchants', 0]).target = 'weapon|shield';
      },
      keyword: 'pattern',
      instancePath: '/enchants/0/target',
    },
    {
      name: 'home island with a different harvest zone count (2.9)',
      file: 'home-island-contract.json',
      mutate: (d) => {
        at(d, ['scale']).harvestZoneCount = 20;
      },
      keyword: 'const',
      instancePath: '/scale/harvestZoneCount',
    },
    {
      name: 'home island foundation with another landmass fill (2.9)',
      file: 'home-island-contract.json',
      mutate: (d) => {
        at(d, ['sizeFoundations', 1]).landmassFill = 0.7;
      },
      keyword: 'const',
      instancePath: '/sizeFoundations/1/landmassFill',
    },
    {
      name: 'asset of type texture (2.4)',
      file: 'studiodot-assets.json',
      mutate: (d) => {
        at(d, ['assets', 0]).type = 'texture';
      },
      keyword: 'enum',
      instancePath: '/assets/0/type',
    },
    {
      name: 'asset url that is not a URI (2.4)',
      file: 'studiodot-assets.json',
      mutate: (d) => {
        at(d, ['assets', 2]).url = 'not a uri';
      },
      keyword: 'format',
      instancePath: '/assets/2/url',
    },
    {
      name: 'weapon-skill prefab reference as a number (2.7)',
      file: 'master-weaponSkills.json',
      mutate: (d) => {
        at(d, ['weaponTypes', 0, 'slots', 0, 'skills', 0, 'prefab']).vfxRef = 0;
      },
      keyword: 'type',
      instancePath: '/weaponTypes/0/slots/0/skills/0/prefab/vfxRef',
    },
    {
      name: 'sprite without source (2.3)',
      file: 'sprites2d.json',
      mutate: (d) => {
        delete at(d, ['categories', 'effects', 'items', 0]).source;
      },
      keyword: 'required',
      instancePath: '/categories/effects/items/0',
      param: ['missingProperty', 'source'],
    },
  ];

  it.each(cases)('$name', ({ file, mutate, keyword, instancePath, param }) => {
    const original = sample(file);
    expect(errorsOf(file, original)).toEqual([]);
    const broken = structuredClone(original);
    mutate(broken);
    const errors = errorsOf(file, broken);
    const hit = errors.find((e) => e.keyword === keyword && e.instancePath === instancePath);
    expect(hit, JSON.stringify(errors.map((e) => [e.keyword, e.instancePath]))).toBeDefined();
    if (param) expect((hit?.params as Record<string, unknown>)[param[0]]).toBe(param[1]);
  });

  it('unknown fields stay allowed (the spec does not close any object)', () => {
    const doc = sample('master-relics.json');
    at(doc, ['relics', 0]).flavourText = 'extra';
    doc.curator = { note: 'extra' };
    expect(errorsOf('master-relics.json', doc)).toEqual([]);
  });
});

describe.skipIf(!existsSync(REAL_SRC))('real snapshot', () => {
  const realFiles = existsSync(REAL_SRC)
    ? readdirSync(REAL_SRC)
        .filter((f) => f.endsWith('.json'))
        .sort()
    : [];

  it('has a schema for every file, and its deviations from the spec are listed', () => {
    expect(realFiles.length).toBeGreaterThan(0);
    expect(realFiles.filter((f) => !validatorFor(f))).toEqual([]);
    const lines: string[] = [];
    for (const file of realFiles) {
      const errors = errorsOf(file, readJson(join(REAL_SRC, file)));
      if (!errors.length) continue;
      const byKind = new Map<string, number>();
      for (const e of errors) {
        const what =
          e.keyword === 'required' ? `missing ${String((e.params as Json).missingProperty)}` : `${e.keyword} (${e.message ?? ''})`;
        const where = e.instancePath.replace(/\/categories\/[^/]+/g, '/categories/*').replace(/\/\d+(?=\/|$)/g, '/*') || '/';
        const key = `${where} ${what}`;
        byKind.set(key, (byKind.get(key) ?? 0) + 1);
      }
      lines.push(`${file}: ${errors.length} errors`, ...[...byKind].map(([k, n]) => `  ${n} x ${k}`));
    }
    console.info(`Real snapshot files failing their schema:\n${lines.join('\n') || '  (none)'}`);
  });
});
