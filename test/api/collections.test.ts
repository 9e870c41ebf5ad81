// Item collections /v1/relics|enchants|infusions|artifacts (spec 2.2, 3, 4.2, 7, 8) over small inline
// catalogs: the build stage derives the index and static item files into a temp output folder, then the
// function is called with `new Request`. Expectations come from the inline records.
import { testConfig } from '../helpers/config.js';
import { createRng } from '../../api/_lib/util/prng.js';
import { mkdtemp, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { GET } from '../../api/collections.js';
import { useCatalog } from '../helpers/service.js';
import { MANIFEST_FILE, collectionIndexFile, collectionItemFile, type CollectionName } from '../../api/_lib/formats/index.js';
import { foldText, loadIndex, queryCollection, slugify } from '../../api/_lib/collections/index.js';
import { collectionRules, deriveCollections, indexCollection } from '../../build/derive/collections.js';
import type { DeriveContext, Emitted, IssueInput, SourceDoc } from '../../build/pipeline/types.js';
import { serialise } from '../../build/pipeline/emit.js';
import { encodeCollectionIndex, headerOf } from '../../api/_lib/formats/collection-file.js';

const repo = resolve(import.meta.dirname, '../..');
const ajv = new Ajv2020({ allErrors: true, allowUnionTypes: true });
for (const name of ['collection-item', 'collection-list']) {
  ajv.addSchema(JSON.parse(readFileSync(join(repo, `schemas/responses/${name}.schema.json`), 'utf8')) as object);
}
ajv.addSchema(JSON.parse(readFileSync(join(repo, 'schemas/output/collection-index.schema.json'), 'utf8')) as object);
function schemaErrors(id: string, body: unknown): unknown {
  const v = ajv.getSchema(`https://schemas.game-data.dev/${id}.schema.json`);
  if (!v) throw new Error(`schema ${id} missing`);
  return v(body) ? null : v.errors;
}

const CONFIG = testConfig();

type Rec = Record<string, unknown>;

// Relics: mixed case and accents, a multi-valued element, missing/null element, a value outside the
// category enum, an out-of-range tier, a name whose slug collides with another relic's id, a non-object.
const RELICS: unknown[] = [
  {
    uuid: 'RELC-0001',
    id: 'relic-frost',
    name: 'Relic of Frost',
    category: 'elemental',
    tier: 1,
    element: 'frost',
    slot: 'relic',
    description: 'Channels the chill of winter.',
  },
  {
    uuid: 'RELC-0002',
    id: 'relic-frost-t3',
    name: 'Relic of Frost T3',
    category: 'Elemental',
    tier: 3,
    element: 'Frost',
    slot: 'relic',
    description: 'A colder chill.',
  },
  {
    uuid: 'RELC-0003',
    id: 'relic-ember',
    name: 'Ember Relic',
    category: 'combat',
    tier: 3,
    element: 'fire|holy',
    slot: 'relic',
    description: 'Burns with sacred flame.',
  },
  {
    uuid: 'RELC-0004',
    id: 'sigil-epee',
    name: "Sigil of Épée d'Or",
    category: 'defensive',
    tier: 3,
    element: null,
    slot: 'relic',
    description: 'Wards the bearer.',
  },
  {
    uuid: 'RELC-0005',
    id: 'charm-cafe',
    name: 'Wanderer Charm',
    category: 'utility',
    tier: 8,
    description: 'Smells of the Café   du Nord.',
  },
  {
    uuid: 'RELC-0006',
    id: 'relic-odd',
    name: 'Odd Relic',
    category: 'mystic',
    tier: 9,
    element: 'arcane',
    slot: 'relic',
    description: 'Frost? No.',
  },
  {
    uuid: 'RELC-0007',
    id: 'relic-frost-copy',
    name: 'Relic Frost',
    category: 'utility',
    tier: 2,
    element: 'holy',
    slot: 'relic',
    description: 'Imitation.',
  },
  null,
];
const ENCHANTS: Rec[] = [
  {
    uuid: 'ENCH-0001',
    id: 'enchant-strength',
    name: 'Strength Enchant',
    category: 'enchant',
    tier: 1,
    target: 'weapon|armor',
    description: 'Binds might to weapon or armor.',
  },
  {
    uuid: 'ENCH-0002',
    id: 'enchant-edge',
    name: 'Edge Enchant',
    category: 'Enchant',
    tier: 2,
    target: 'weapon',
    description: 'Sharper edges.',
  },
  {
    uuid: 'ENCH-0003',
    id: 'enchant-ward',
    name: 'Ward Rune',
    category: 'rune',
    tier: 2,
    target: ['armor'],
    description: 'Hardens plates.',
  },
  { uuid: 'ENCH-0004', id: 'enchant-blank', name: 'Blank Enchant', category: 'enchant', tier: 3, description: 'No target yet.' },
  {
    uuid: 'ENCH-0005',
    id: 'enchant-bulwark',
    name: 'Bulwark Enchant',
    category: 'enchant',
    tier: 3,
    target: 'ARMOR',
    description: 'Stout.',
  },
];
const INFUSIONS: Rec[] = [
  {
    uuid: 'INFU-0001',
    id: 'minor-infusion',
    name: 'Minor Infusion Essence',
    tier: 1,
    scope: 'universal',
    profession: null,
    description: 'Dropped by common foes.',
  },
  {
    uuid: 'INFU-0002',
    id: 'forge-infusion',
    name: 'Forge Infusion Essence',
    tier: 3,
    scope: 'profession',
    profession: 'Miner',
    description: 'Hot from the forge.',
  },
  {
    uuid: 'INFU-0003',
    id: 'verdant-infusion',
    name: 'Verdant Infusion Essence',
    tier: 3,
    scope: 'Profession',
    profession: 'forester',
    description: 'Green.',
  },
  {
    uuid: 'INFU-0004',
    id: 'arcane-infusion',
    name: 'Arcane Infusion Essence',
    tier: 4,
    scope: 'profession',
    profession: 'Mystic',
    description: 'Humming.',
  },
  { name: 'Nameless Essence', tier: 2, scope: 'universal', description: 'Cannot be looked up.' },
];
const ARTIFACTS: Rec[] = [
  {
    uuid: 'ARTF-0001',
    name: 'Voidspire',
    artifactType: 'arcane',
    subtype: 'staff',
    handedness: '2h',
    tier: null,
    description: 'Staff of the void.',
    discovery: { hiddenUntilFound: true },
  },
  {
    uuid: 'ARTF-0002',
    id: 'artifact-sun',
    name: 'Sun Blade',
    artifactType: 'martial',
    subtype: 'sword',
    handedness: '1h',
    tier: 4,
    description: 'Bright steel.',
    discovery: { hiddenUntilFound: false },
  },
  {
    uuid: 'ARTF-0003',
    slug: 'warden-aegis',
    name: 'Warden Shield',
    artifactType: 'Martial',
    subtype: 'Shield',
    handedness: 'offhand',
    tier: 4,
    description: 'Holds the line.',
  },
  {
    uuid: 'ARTF-0004',
    name: 'Ether Heart',
    artifactType: 'arcane',
    tier: 2,
    description: 'A pulsing void crystal.',
    discovery: { hiddenUntilFound: true },
  },
];
const DATA: Record<CollectionName, Rec> = {
  relics: { version: '1', relics: RELICS },
  enchants: { enchants: ENCHANTS },
  infusions: { infusions: INFUSIONS },
  artifacts: { artifacts: ARTIFACTS },
};

function docsOf(data: Partial<Record<CollectionName, unknown>>): Map<string, SourceDoc> {
  const docs = new Map<string, SourceDoc>();
  for (const [name, value] of Object.entries(data)) {
    const text = JSON.stringify(value, null, 2);
    docs.set(`master-${name}.json`, { path: `master-${name}.json`, text, data: value });
  }
  return docs;
}

function derive(data: Partial<Record<CollectionName, unknown>>): { emitted: readonly Emitted[]; issues: IssueInput[] } {
  const issues: IssueInput[] = [];
  const ctx: DeriveContext = { config: CONFIG, docs: docsOf(data), report: (i) => void issues.push(i) };
  return { emitted: deriveCollections(ctx), issues };
}

/** Write emitted files as the build's emit stage does: raw strings as-is, other values as JSON. */
async function writeOutput(root: string, emitted: readonly Emitted[], manifest = true): Promise<void> {
  for (const e of emitted) {
    await mkdir(join(root, e.path, '..'), { recursive: true });
    await writeFile(join(root, e.path), serialise(e).bytes);
  }
  if (manifest) {
    await mkdir(join(root, MANIFEST_FILE, '..'), { recursive: true });
    await writeFile(join(root, MANIFEST_FILE), JSON.stringify({ buildId: 'test' }));
  }
}

let dir: string;
let built: { emitted: readonly Emitted[]; issues: IssueInput[] };
const temps: string[] = [];

beforeAll(async () => {
  built = derive(DATA);
  dir = await mkdtemp(join(tmpdir(), 'collections-'));
  temps.push(dir);
  await writeOutput(dir, built.emitted);
  useCatalog(dir);
});
afterAll(async () => {
  useCatalog(undefined);
  for (const d of temps) await rm(d, { recursive: true, force: true });
});

interface Got {
  status: number;
  headers: Headers;
  text: string;
  body: Rec;
}
async function get(path: string, init?: RequestInit): Promise<Got> {
  const res = await GET(new Request(`http://t${path}`, init));
  const text = await res.text();
  return { status: res.status, headers: res.headers, text, body: text ? (JSON.parse(text) as Rec) : {} };
}
/** A 200 list, checked against the list schema and for byte-identity with JSON.stringify. */
async function list(path: string): Promise<{ body: Rec; keys: string[]; headers: Headers }> {
  const r = await get(path);
  expect(r.status, `${path}: ${r.text}`).toBe(200);
  expect(schemaErrors('responses/collection-list', r.body)).toBeNull();
  expect(r.text).toBe(JSON.stringify(r.body));
  const items = r.body.items as Rec[];
  return { body: r.body, keys: items.map((i) => String(i.uuid ?? i.id ?? i.name)), headers: r.headers };
}
async function uuids(path: string): Promise<string[]> {
  return (await list(path)).keys;
}

describe('build stage', () => {
  it('emits one index per collection and a static file per lookup key', () => {
    const paths = built.emitted.map((e) => e.path);
    for (const name of ['relics', 'enchants', 'infusions', 'artifacts'] as const) expect(paths).toContain(collectionIndexFile(name));
    expect(paths).toContain(collectionItemFile('relics', 'relic-frost'));
    expect(paths).toContain(collectionItemFile('relics', 'RELC-0001'));
    expect(paths).toContain(collectionItemFile('relics', 'relic-of-frost'));
    expect(paths).toContain(collectionItemFile('artifacts', 'warden-aegis'));
    expect(paths).not.toContain(collectionItemFile('artifacts', 'warden-shield'));
    expect(paths).not.toContain(collectionItemFile('infusions', 'minor-infusion-essence'));
    expect(new Set(paths).size).toBe(paths.length);
  });

  it('writes indexes that follow the index schema', () => {
    for (const e of built.emitted.filter((x) => x.path.includes('/collections/'))) {
      expect(e.raw).toBe(true);
      expect(schemaErrors('output/collection-index', headerOf(e.body as Buffer))).toBeNull();
    }
  });

  it('is deterministic', () => {
    const again = derive(DATA).emitted;
    expect(again.map((e) => [e.path, e.body])).toEqual(built.emitted.map((e) => [e.path, e.body]));
  });

  it('reports a name slug that collides with another item id, and keeps the key with the id', () => {
    const dup = built.issues.filter((i) => i.rule === 'collections/duplicate-key');
    expect(dup).toEqual([expect.objectContaining({ file: 'master-relics.json', pointer: '/relics/6/name' })]);
    const file = built.emitted.find((e) => e.path === collectionItemFile('relics', 'relic-frost'));
    expect(JSON.parse(file?.body as string)).toEqual(RELICS[0]);
  });

  it('reports filter values no filter can select, non-object items and items without keys', () => {
    const by = (rule: string): string[] => built.issues.filter((i) => i.rule === rule).map((i) => `${i.file}#${i.pointer}`);
    expect(by('collections/filter-value').sort()).toEqual(['master-relics.json#/relics/5/category', 'master-relics.json#/relics/5/tier']);
    expect(by('collections/shape')).toEqual(['master-relics.json#/relics/7']);
    expect(by('collections/missing-key')).toEqual(['master-infusions.json#/infusions/4']);
    const names = new Set(collectionRules.map((r) => r.name));
    for (const i of built.issues) expect(names.has(i.rule)).toBe(true);
    expect(collectionRules.find((r) => r.name === 'collections/duplicate-key')?.severity).toBe('error');
  });

  it('reports a dataset without its array at the file root and emits nothing for it; a missing file emits and reports nothing', () => {
    const r = derive({ relics: { relicz: [] }, enchants: DATA.enchants });
    expect(r.issues).toEqual([expect.objectContaining({ rule: 'collections/shape', file: 'master-relics.json', pointer: '' })]);
    expect(r.emitted.some((e) => e.path.startsWith('api/v1/relics/') || e.path === collectionIndexFile('relics'))).toBe(false);
    expect(r.emitted.some((e) => e.path === collectionIndexFile('enchants'))).toBe(true);
    expect(r.emitted.some((e) => e.path === collectionIndexFile('artifacts'))).toBe(false);
  });

  it('derives slugs: lower case, accents folded, non-alphanumerics to one dash, trimmed', () => {
    expect(slugify("  Sigil of Épée d'Or!! ")).toBe('sigil-of-epee-dor');
    expect(slugify('Relic of Frost T2')).toBe('relic-of-frost-t2');
    expect(slugify('---')).toBe('');
  });
});

describe('list filters (spec 4.2)', () => {
  it('lists everything in catalog order without filters', async () => {
    const r = await list('/v1/relics');
    expect(r.keys).toEqual(['RELC-0001', 'RELC-0002', 'RELC-0003', 'RELC-0004', 'RELC-0005', 'RELC-0006', 'RELC-0007']);
    expect(r.body).toMatchObject({ collection: 'master-relics', total: 7, count: 7, limit: 50, offset: 0 });
    expect(r.headers.get('cache-control')).toMatch(/^public, max-age=300\b/);
    expect(r.headers.get('access-control-allow-origin')).toBe('*');
    expect(r.headers.get('content-type')).toMatch(/^application\/json/);
    expect(r.headers.get('x-limit-applied')).toBeNull();
  });

  it('relics: category (enum, any case), tier, element (words, several values), slot', async () => {
    expect(await uuids('/v1/relics?category=elemental')).toEqual(['RELC-0001', 'RELC-0002']);
    expect(await uuids('/v1/relics?category=ELEMENTAL')).toEqual(['RELC-0001', 'RELC-0002']);
    expect(await uuids('/v1/relics?category=utility')).toEqual(['RELC-0005', 'RELC-0007']);
    expect(await uuids('/v1/relics?tier=3')).toEqual(['RELC-0002', 'RELC-0003', 'RELC-0004']);
    expect(await uuids('/v1/relics?tier=8')).toEqual(['RELC-0005']);
    expect(await uuids('/v1/relics?element=FROST')).toEqual(['RELC-0001', 'RELC-0002']);
    expect(await uuids('/v1/relics?element=holy')).toEqual(['RELC-0003', 'RELC-0007']);
    expect(await uuids('/v1/relics?element=fire')).toEqual(['RELC-0003']);
    expect(await uuids('/v1/relics?element=fire%7Choly')).toEqual([]);
    expect(await uuids('/v1/relics?slot=relic')).toEqual(['RELC-0001', 'RELC-0002', 'RELC-0003', 'RELC-0004', 'RELC-0006', 'RELC-0007']);
  });

  it('a record without the field, or with null, matches no value of that filter', async () => {
    expect(await uuids('/v1/relics?element=arcane')).toEqual(['RELC-0006']);
    for (const e of ['null', 'undefined']) expect(await uuids(`/v1/relics?element=${e}`)).not.toContain('RELC-0004');
    expect(await uuids('/v1/enchants?target=armor')).not.toContain('ENCH-0004');
    expect(await uuids('/v1/artifacts?handedness=2h&discovered=all')).toEqual(['ARTF-0001']);
    expect(await uuids('/v1/infusions?profession=null')).toEqual([]);
  });

  it('values outside the enum in the data are never selected (reported at build)', async () => {
    expect(await uuids('/v1/relics?tier=3&category=combat')).toEqual(['RELC-0003']);
    const total = (await list('/v1/relics')).body.total as number;
    let sum = 0;
    for (const c of ['elemental', 'combat', 'defensive', 'utility']) sum += (await list(`/v1/relics?category=${c}`)).body.total as number;
    expect(sum).toBe(total - 1);
  });

  it('enchants: category (free word, any case), tier, target matches each of several values', async () => {
    expect(await uuids('/v1/enchants?category=ENCHANT')).toEqual(['ENCH-0001', 'ENCH-0002', 'ENCH-0004', 'ENCH-0005']);
    expect(await uuids('/v1/enchants?category=rune')).toEqual(['ENCH-0003']);
    expect(await uuids('/v1/enchants?tier=2')).toEqual(['ENCH-0002', 'ENCH-0003']);
    expect(await uuids('/v1/enchants?target=weapon')).toEqual(['ENCH-0001', 'ENCH-0002']);
    expect(await uuids('/v1/enchants?target=armor')).toEqual(['ENCH-0001', 'ENCH-0003', 'ENCH-0005']);
    expect(await uuids('/v1/enchants?target=Armor&tier=3')).toEqual(['ENCH-0005']);
  });

  it('infusions: tier, scope (enum, any case), profession (word, any case)', async () => {
    expect(await uuids('/v1/infusions?scope=profession')).toEqual(['INFU-0002', 'INFU-0003', 'INFU-0004']);
    expect(await uuids('/v1/infusions?scope=universal')).toEqual(['INFU-0001', 'Nameless Essence']);
    expect(await uuids('/v1/infusions?profession=FORESTER')).toEqual(['INFU-0003']);
    expect(await uuids('/v1/infusions?profession=miner&scope=Profession&tier=3')).toEqual(['INFU-0002']);
    expect(await uuids('/v1/infusions?tier=3')).toEqual(['INFU-0002', 'INFU-0003']);
  });

  it('artifacts: tier, artifactType, subtype, handedness', async () => {
    expect(await uuids('/v1/artifacts?artifactType=MARTIAL')).toEqual(['ARTF-0002', 'ARTF-0003']);
    expect(await uuids('/v1/artifacts?subtype=shield')).toEqual(['ARTF-0003']);
    expect(await uuids('/v1/artifacts?handedness=1H')).toEqual(['ARTF-0002']);
    expect(await uuids('/v1/artifacts?handedness=offhand')).toEqual(['ARTF-0003']);
    expect(await uuids('/v1/artifacts?tier=4')).toEqual(['ARTF-0002', 'ARTF-0003']);
    expect(await uuids('/v1/artifacts?tier=2')).toEqual([]);
    expect(await uuids('/v1/artifacts?tier=2&discovered=all')).toEqual(['ARTF-0004']);
  });

  it('hides undiscovered artifacts unless discovered=all', async () => {
    const hidden = await list('/v1/artifacts');
    expect(hidden.keys).toEqual(['ARTF-0002', 'ARTF-0003']);
    expect(hidden.body.total).toBe(2);
    const all = await list('/v1/artifacts?discovered=ALL');
    expect(all.keys).toEqual(['ARTF-0001', 'ARTF-0002', 'ARTF-0003', 'ARTF-0004']);
    expect(await uuids('/v1/artifacts?artifactType=arcane')).toEqual([]);
    expect(await uuids('/v1/artifacts?artifactType=arcane&discovered=all')).toEqual(['ARTF-0001', 'ARTF-0004']);
  });

  it('combines filters with AND', async () => {
    expect(await uuids('/v1/relics?category=elemental&tier=3')).toEqual(['RELC-0002']);
    expect(await uuids('/v1/relics?category=elemental&tier=3&element=fire')).toEqual([]);
    expect(await uuids('/v1/relics?tier=3&q=ember&element=holy&slot=relic&category=combat')).toEqual(['RELC-0003']);
  });
});

describe('q (spec 4.2)', () => {
  it('searches name, id and description of relics, enchants and infusions, without case and accents', async () => {
    expect(await uuids('/v1/relics?q=FROST')).toEqual(['RELC-0001', 'RELC-0002', 'RELC-0006', 'RELC-0007']);
    expect(await uuids('/v1/relics?q=frost-t3')).toEqual(['RELC-0002']);
    expect(await uuids('/v1/relics?q=sacred')).toEqual(['RELC-0003']);
    expect(await uuids('/v1/relics?q=epee')).toEqual(['RELC-0004']);
    expect(await uuids('/v1/relics?q=%C3%89P%C3%89E%20D%27OR')).toEqual(['RELC-0004']);
    expect(await uuids('/v1/relics?q=cafe%20du')).toEqual(['RELC-0005']);
    expect(await uuids('/v1/relics?q=of%20fro')).toEqual(['RELC-0001', 'RELC-0002']);
    expect(await uuids('/v1/relics?q=ill')).toEqual(['RELC-0001', 'RELC-0002']);
    expect(await uuids('/v1/enchants?q=enchant-ward')).toEqual(['ENCH-0003']);
    expect(await uuids('/v1/infusions?q=forge')).toEqual(['INFU-0002']);
    expect(await uuids('/v1/relics?q=?')).toEqual(['RELC-0006']);
    expect(await uuids('/v1/relics?q=zzz')).toEqual([]);
  });

  it('does not match across two fields, nor fields it does not search', async () => {
    // name "Relic of Frost" followed by id "relic-frost": "frost relic" exists only across the boundary.
    expect(await uuids('/v1/relics?q=frost%20relic')).toEqual([]);
    expect(await uuids('/v1/relics?q=RELC')).toEqual([]);
    expect(await uuids('/v1/relics?q=elemental')).toEqual([]);
  });

  it('searches name or description of artifacts, not their ids', async () => {
    expect(await uuids('/v1/artifacts?q=void&discovered=all')).toEqual(['ARTF-0001', 'ARTF-0004']);
    expect(await uuids('/v1/artifacts?q=void')).toEqual([]);
    expect(await uuids('/v1/artifacts?q=line')).toEqual(['ARTF-0003']);
    expect(await uuids('/v1/artifacts?q=artifact-sun')).toEqual([]);
    expect(await uuids('/v1/artifacts?q=ARTF')).toEqual([]);
  });
});

describe('paging (spec 4.2, 8)', () => {
  it('pages with limit and offset; total counts every match', async () => {
    const p = await list('/v1/relics?limit=2&offset=1');
    expect(p.keys).toEqual(['RELC-0002', 'RELC-0003']);
    expect(p.body).toMatchObject({ total: 7, count: 2, limit: 2, offset: 1 });
    const f = await list('/v1/relics?tier=3&limit=2&offset=2');
    expect(f.keys).toEqual(['RELC-0004']);
    expect(f.body).toMatchObject({ total: 3, count: 1, limit: 2, offset: 2 });
    const past = await list('/v1/relics?offset=100');
    expect(past.body).toMatchObject({ total: 7, count: 0, offset: 100, items: [] });
  });

  it('clamps a limit above 500 and says so', async () => {
    const r = await list('/v1/relics?limit=501');
    expect(r.body.limit).toBe(500);
    expect(r.body.count).toBe(7);
    expect(r.headers.get('x-limit-requested')).toBe('501');
    expect(r.headers.get('x-limit-applied')).toBe('500');
  });
});

describe('single lookups (spec 4.2, 7)', () => {
  async function item(path: string): Promise<Rec> {
    const r = await get(path);
    expect(r.status, `${path}: ${r.text}`).toBe(200);
    expect(schemaErrors('responses/collection-item', r.body)).toBeNull();
    expect(r.headers.get('cache-control')).toMatch(/^public, max-age=300\b/);
    expect(r.headers.get('access-control-allow-origin')).toBe('*');
    return r.body;
  }
  it('relics and enchants by id, uuid or name slug, any case', async () => {
    for (const key of ['relic-frost-t3', 'RELC-0002', 'relc-0002', 'relic-of-frost-t3', 'Relic-Of-Frost-T3']) {
      expect(await item(`/v1/relics/${key}`)).toEqual(RELICS[1]);
    }
    expect(await item(`/v1/relics/sigil-of-epee-dor`)).toEqual(RELICS[3]);
    expect(await item(`/v1/relics/${encodeURIComponent('Sigil-of-Épée-dOr')}`)).toEqual(RELICS[3]);
    for (const key of ['enchant-ward', 'ENCH-0003', 'ward-rune']) expect(await item(`/v1/enchants/${key}`)).toEqual(ENCHANTS[2]);
  });

  it('a colliding slug answers with the item whose id it is', async () => {
    expect(await item('/v1/relics/relic-frost')).toEqual(RELICS[0]);
    expect(await item('/v1/relics/relic-frost-copy')).toEqual(RELICS[6]);
  });

  it('infusions by id or uuid only', async () => {
    expect(await item('/v1/infusions/forge-infusion')).toEqual(INFUSIONS[1]);
    expect(await item('/v1/infusions/INFU-0002')).toEqual(INFUSIONS[1]);
    expect((await get('/v1/infusions/forge-infusion-essence')).status).toBe(404);
  });

  it('artifacts by uuid or name slug (own slug first), hidden ones included; not by id', async () => {
    expect(await item('/v1/artifacts/ARTF-0001')).toEqual(ARTIFACTS[0]);
    expect(await item('/v1/artifacts/voidspire')).toEqual(ARTIFACTS[0]);
    expect(await item('/v1/artifacts/ether-heart')).toEqual(ARTIFACTS[3]);
    expect(await item('/v1/artifacts/warden-aegis')).toEqual(ARTIFACTS[2]);
    expect((await get('/v1/artifacts/warden-shield')).status).toBe(404);
    expect((await get('/v1/artifacts/artifact-sun')).status).toBe(404);
  });

  it('404 NOT_FOUND with CORS when nothing matches', async () => {
    for (const path of ['/v1/relics/nope', '/v1/enchants/relic-frost', '/v1/artifacts/%E2%9C%97']) {
      const r = await get(path);
      expect(r.status).toBe(404);
      expect(r.body.code).toBe('NOT_FOUND');
      expect(r.headers.get('content-type')).toBe('application/problem+json');
      expect(r.headers.get('access-control-allow-origin')).toBe('*');
    }
  });

  it('serves every static item file byte for byte', async () => {
    const files = built.emitted.filter((e) => !e.path.includes('/collections/'));
    expect(files.length).toBeGreaterThan(30);
    for (const f of files) {
      const m = /^api\/v1\/([a-z]+)\/(.+)\.json$/.exec(f.path);
      expect(m).not.toBeNull();
      const r = await get(`/v1/${m![1]}/${m![2]}`);
      expect(r.status).toBe(200);
      expect(r.text).toBe(await readFile(join(dir, f.path), 'utf8'));
      expect(r.text).toBe(JSON.stringify(r.body));
    }
  });
});

describe('routing', () => {
  it('reads _route and _key from the rewrite', async () => {
    const l = await get('/api/collections?_route=enchants&tier=1');
    expect(l.status).toBe(200);
    expect((l.body.items as Rec[]).map((i) => i.uuid)).toEqual(['ENCH-0001']);
    const k = await get('/api/collections?_route=relics-item&_key=RELC-0003');
    expect(k.body).toEqual(RELICS[2]);
  });

  it('a public path means its own route: routing parameters a client adds are ignored', async () => {
    const list = await get('/v1/relics?_key=relic-frost');
    expect(list.status).toBe(200);
    expect(list.body.collection).toBe('master-relics');
    expect(list.body.total).toBe((await get('/v1/relics')).body.total);
    const other = await get('/v1/relics?_route=enchants-item&_key=ENCH-0001');
    expect(other.body.collection).toBe('master-relics');
    const item = await get('/v1/relics/relic-frost?_route=relics&_key=RELC-0003');
    expect(item.body.uuid).toBe('RELC-0001');
  });

  it('a list route on the entry path ignores _key', async () => {
    const r = await get('/api/collections?_route=relics&_key=RELC-0003');
    expect(r.body.collection).toBe('master-relics');
  });

  it('404 for an unknown collection or path', async () => {
    for (const path of ['/api/collections?_route=weapons', '/v1/weapons', '/v1/relics/a/b', '/api/collections']) {
      const r = await get(path);
      expect(r.status, path).toBe(404);
      expect(r.body.code).toBe('NOT_FOUND');
    }
  });
});

describe('bad parameters (spec 4.2, 8): 400 INVALID_QUERY listing every bad one', () => {
  const rows: [string, string[]][] = [
    ['/v1/relics?tier=0', ['tier']],
    ['/v1/relics?tier=9', ['tier']],
    ['/v1/relics?tier=abc', ['tier']],
    ['/v1/relics?tier=3.0', ['tier']],
    ['/v1/relics?limit=-1', ['limit']],
    ['/v1/relics?limit=0', ['limit']],
    ['/v1/relics?offset=x', ['offset']],
    ['/v1/relics?offset=-1', ['offset']],
    ['/v1/relics?category=mystic', ['category']],
    ['/v1/relics?slot=amulet', ['slot']],
    ['/v1/enchants?target=ring', ['target']],
    ['/v1/enchants?target=weapon%7Carmor', ['target']],
    ['/v1/infusions?scope=guild', ['scope']],
    ['/v1/artifacts?handedness=3h', ['handedness']],
    ['/v1/artifacts?discovered=yes', ['discovered']],
    ['/v1/relics?tier=1&tier=2', ['tier']],
    ['/v1/relics?q=a&q=b', ['q']],
    ['/v1/relics?target=weapon', ['target']],
    ['/v1/relics?discovered=all', ['discovered']],
    ['/v1/enchants?element=fire&slot=relic', ['element', 'slot']],
    ['/v1/infusions?category=x', ['category']],
    ['/v1/artifacts?category=x&element=y&scope=universal&profession=z', ['category', 'element', 'scope', 'profession']],
    ['/v1/relics?teir=3', ['teir']],
    ['/v1/relics?tier=0&limit=-1&offset=x&category=mystic&foo=1', ['tier', 'limit', 'offset', 'category', 'foo']],
    ['/v1/relics/relic-frost?tier=1', ['tier']],
    ['/api/collections?_route=artifacts-item&_key=voidspire&discovered=all', ['discovered']],
    [`/v1/relics?q=${'x'.repeat(201)}`, ['q']],
  ];
  it.each(rows)('%s', async (path, names) => {
    const r = await get(path);
    expect(r.status).toBe(400);
    expect(r.body.code).toBe('INVALID_QUERY');
    expect(r.headers.get('access-control-allow-origin')).toBe('*');
    expect(r.headers.get('content-type')).toBe('application/problem+json');
    const errors = r.body.errors as { name: string }[];
    expect(new Set(errors.map((e) => e.name))).toEqual(new Set(names));
    expect(errors).toHaveLength(names.length);
  });

  it('ignores parameters starting with _ (routing, cache busters)', async () => {
    expect((await get('/v1/relics?_=1699&tier=1')).status).toBe(200);
  });
});

describe('caching and CORS', () => {
  it('answers 304 to a matching If-None-Match, and a different ETag for another query', async () => {
    const first = await get('/v1/relics?tier=3');
    const etag = first.headers.get('etag');
    expect(etag).toBeTruthy();
    const again = await get('/v1/relics?tier=3', { headers: { 'If-None-Match': etag! } });
    expect(again.status).toBe(304);
    expect(again.text).toBe('');
    expect(again.headers.get('access-control-allow-origin')).toBe('*');
    expect(again.headers.get('etag')).toBe(etag);
    expect((await get('/v1/relics?tier=1')).headers.get('etag')).not.toBe(etag);
    // the same effective query spelled differently shares the ETag
    expect((await get('/v1/relics?tier=3&limit=50&offset=0')).headers.get('etag')).toBe(etag);
    const item = await get('/v1/relics/relic-frost');
    const i304 = await get('/v1/relics/relic-frost', { headers: { 'If-None-Match': item.headers.get('etag')! } });
    expect(i304.status).toBe(304);
  });

  it('answers preflight with CORS', async () => {
    for (const path of ['/v1/relics', '/v1/artifacts/voidspire']) {
      const res = await GET(
        new Request(`http://t${path}`, { method: 'OPTIONS', headers: { Origin: 'http://x', 'Access-Control-Request-Method': 'GET' } }),
      );
      expect(res.status).toBe(204);
      expect(res.headers.get('access-control-allow-origin')).toBe('*');
      expect(res.headers.get('access-control-allow-methods')).toContain('GET');
    }
  });

  it('405 with CORS for other methods', async () => {
    const res = await GET(new Request('http://t/v1/relics', { method: 'POST' }));
    expect(res.status).toBe(405);
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
  });
});

describe('503 UPSTREAM_UNAVAILABLE (spec 7)', () => {
  async function outage(setup: (root: string) => Promise<void>): Promise<void> {
    const root = await mkdtemp(join(tmpdir(), 'collections-503-'));
    temps.push(root);
    await setup(root);
    useCatalog(root);
    try {
      for (const path of ['/v1/relics', '/v1/relics?tier=3', '/v1/relics/relic-frost', '/api/collections?_route=relics&_key=RELC-0001']) {
        const r = await get(path);
        expect(r.status, path).toBe(503);
        expect(r.body.code).toBe('UPSTREAM_UNAVAILABLE');
        expect(r.headers.get('access-control-allow-origin')).toBe('*');
      }
      // other collections are unaffected
      expect((await get('/v1/enchants')).status).toBe(200);
    } finally {
      useCatalog(dir);
    }
  }
  const others = (): Emitted[] => built.emitted.filter((e) => !e.path.includes('relics'));

  it('when the index is missing', async () => {
    await outage((root) => writeOutput(root, others()));
  });
  const goodFile = (): Buffer => built.emitted.find((e) => e.path === collectionIndexFile('relics'))!.body as Buffer;
  it('when the index is cut short or is an index of the previous format', async () => {
    for (const bytes of [
      goodFile().subarray(0, goodFile().length - 1),
      goodFile().subarray(0, 40),
      Buffer.from('{"format":"collection-index/2","items":['),
    ]) {
      await outage(async (root) => {
        await writeOutput(root, others());
        await writeFile(join(root, collectionIndexFile('relics')), bytes);
      });
    }
  });
  it('when the index is of the wrong shape', async () => {
    const rebuilt = (change: (h: Rec) => void): Buffer => {
      const file = Buffer.from(goodFile());
      const h = headerOf(file) as Rec;
      change(h);
      const json = Buffer.from(JSON.stringify(h));
      // the changes keep the header's length, so the sections stay where they are
      expect(json.length).toBe(file.readUInt32LE(8));
      json.copy(file, 12);
      return file;
    };
    const index = built.emitted.find((e) => e.path === collectionIndexFile('relics'))!;
    const data = indexCollection('relics', { relics: RELICS })!.index;
    for (const bad of [
      rebuilt((h) => void (h.format = 'collection-index/4')),
      rebuilt((h) => void (h.collection = 'swords')),
      encodeCollectionIndex({ ...data, postings: [[5, 2], ...data.postings.slice(1)] }),
      encodeCollectionIndex({ ...data, keys: { ...data.keys, a: 999 } }),
    ]) {
      expect(Buffer.compare(bad, index.body as Buffer)).not.toBe(0);
      await outage(async (root) => {
        await writeOutput(root, others());
        await writeFile(join(root, collectionIndexFile('relics')), bad);
      });
    }
  });
  it('when the manifest is missing', async () => {
    const root = await mkdtemp(join(tmpdir(), 'collections-503-'));
    temps.push(root);
    await writeOutput(root, built.emitted, false);
    useCatalog(root);
    try {
      expect((await get('/v1/relics')).status).toBe(503);
      expect((await get('/v1/relics/relic-frost')).status).toBe(503);
    } finally {
      useCatalog(dir);
    }
  });
});

// The engine against a plain reference over a seeded collection large enough to take every path
// (sorted lists, bitsets, probing, AND, multi-term q with confirmation, deep offsets).
describe('engine matches a plain filter over a generated collection', () => {
  const rand = createRng(42).next;
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;
  const WORDS = ['frost', 'Flame', 'stone', 'Éclat', 'void', 'ward', 'ember', 'gale', 'sun', 'moon'];
  const N = 3000;
  const items: Rec[] = Array.from({ length: N }, (_, i) => {
    const a = pick(WORDS);
    const b = pick(WORDS);
    const r: Rec = {
      uuid: `RELC-${i}`,
      id: `relic-${i}`,
      name: `${a} ${b} Relic`,
      description: `${pick(WORDS)} of the ${pick(WORDS)}, ${pick(WORDS)} the ${pick(WORDS)} of ${pick(WORDS)}.`,
      tier: 1 + Math.floor(rand() * 8),
    };
    if (rand() < 0.1) r.description = `(${pick(WORDS)}) ${String(r.description)}`;
    if (rand() < 0.01) r.description = '...';
    const c = rand();
    if (c < 0.9) r.category = pick(['elemental', 'combat', 'defensive', 'utility']);
    if (rand() < 0.3) r.element = pick(['fire', 'frost', 'fire|frost', 'holy']);
    if (rand() < 0.02) r.element = 'rare';
    r.slot = 'relic';
    return r;
  });
  const idx = loadIndex(indexCollection('relics', { relics: items })!.file);

  function reference(q: Rec): Rec[] {
    return items.filter((r) => {
      if (q.tier !== undefined && r.tier !== q.tier) return false;
      if (q.category !== undefined && r.category !== q.category) return false;
      if (q.element !== undefined && !(typeof r.element === 'string' && r.element.split('|').includes(q.element as string))) return false;
      if (q.q !== undefined) {
        const fq = foldText(q.q as string);
        const fields = ['name', 'id', 'description'].map((f) => foldText(String(r[f])));
        if (!fields.some((t) => t.includes(fq))) return false;
      }
      return true;
    });
  }

  const queries: Rec[] = [];
  for (let i = 0; i < 300; i++) {
    const q: Rec = {};
    if (rand() < 0.5) q.tier = 1 + Math.floor(rand() * 8);
    if (rand() < 0.4) q.category = pick(['elemental', 'combat', 'defensive', 'utility']);
    if (rand() < 0.3) q.element = pick(['fire', 'frost', 'holy', 'rare']);
    if (rand() < 0.6) {
      q.q = pick([
        'fro',
        'FLAME',
        'eclat',
        'e',
        'relic-1',
        'of the',
        'ne re',
        'sun moon',
        'd.',
        'relic-29',
        'x',
        'e r',
        'stone relic',
        'ward of the w',
        'n  m',
        '.',
        '-2',
        'of',
        'the moon.',
        'flame-',
        'c of t',
        'the moon,',
        'gale of the moon',
        'moon of stone',
        'ward, sun',
        ', sun the',
        'of the ward.',
        'e, s',
        'n of s',
        'stone.',
        '(',
        '(ward',
        ') sun',
        'd) w',
        '..',
        '...',
        '-',
        ', ',
        'x) x',
      ]);
    }
    q.offset = pick([0, 0, 3, 40, 700, 2990]);
    q.limit = pick([1, 7, 50, 500]);
    queries.push(q);
  }

  it.each(queries.map((q) => [JSON.stringify(q), q] as const))('%s', (_label, q) => {
    const expected = reference(q);
    const r = queryCollection(idx, q as never);
    expect(r.total).toBe(expected.length);
    const page = expected.slice(q.offset as number, (q.offset as number) + (q.limit as number));
    expect(JSON.parse(r.body)).toEqual({
      collection: 'master-relics',
      total: expected.length,
      count: page.length,
      limit: q.limit,
      offset: q.offset,
      items: page,
    });
  });
});

// `q` over a generated collection built to reach every way the engine answers it (term postings, gaps,
// one fragment window, several windows by exact, prefix and containment lookups, narrowing by sample,
// fragment groups), each query compared with a brute-force substring scan of the same items, folded here
// with a reference written from the format rules.
describe('q matches a brute-force substring scan', () => {
  const SPECIAL: Record<string, string> = { ß: 'ss', æ: 'ae', œ: 'oe', ø: 'o', đ: 'd', ð: 'd', ł: 'l', þ: 'th', ı: 'i', ħ: 'h', ŧ: 't' };
  /** Format rules 1-3 and the white-space rule of search text and `q` (lower case also after NFKD: `𝒜` → `a`). */
  const refFold = (s: string): string =>
    s
      .toLowerCase()
      .normalize('NFKD')
      .replace(/\p{M}/gu, '')
      .toLowerCase()
      .replace(/[ßæœøđðłþıħŧ]/g, (c) => SPECIAL[c]!)
      .replace(/['’ʼ]/g, '')
      .replace(/[\s\p{Cc}]+/gu, ' ')
      .trim();

  const rand = createRng(7).next;
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;
  const ADJ = ['Ancient', 'Gilded', 'Hollow', 'Épée', 'Straße', 'Æther', "Engineer's", 'Frozen', 'Ashen', 'Runed', 'Pale', 'Wild'];
  const NOUN = ['Amulet', 'Idol', 'Sigil', 'Charm', 'Totem', 'Talisman', 'Seal', 'Crest', 'Orb', 'Rune'];
  const THEME = ['Frost', 'Flame', 'Storms', 'Stone', 'the Arcane', 'Light', 'Fury', 'the Blade', 'Haste', 'Plenty'];
  const PLACE = ['endless winter', 'a dying star', 'the deep forge', 'forgotten kings', 'the old roads', 'the sunken temple'];
  const GIFT = ['protection against ice', 'sharper strikes', 'a steadier hand', 'quicker steps', 'keener senses'];
  const N = 3000;
  const items: Rec[] = Array.from({ length: N }, (_, i) => {
    const adj = pick(ADJ);
    const noun = pick(NOUN);
    const theme = pick(THEME);
    const tier = 1 + (i % 8);
    let description: unknown = `${pick(['Channels', 'Holds', 'Binds'])} the ${pick(['chill', 'heat', 'song'])} of ${pick(PLACE)}, granting ${pick(GIFT)}.`;
    const r = rand();
    if (r < 0.05) description = `(rare) ${String(description)}`;
    else if (r < 0.08) description = `${String(description)} Really?!  Yes — twice / thrice…`;
    else if (r < 0.09) description = '...';
    else if (r < 0.1) description = ' - ';
    else if (r < 0.11) description = null;
    else if (r < 0.12) description = 42;
    else if (r < 0.13) description = 'Forged in 東京-タワー, 𝒜rcane ſtuff\tand  ﬁre.';
    return {
      uuid: `RELC-${i}`,
      id: `${slugify(noun)}-${slugify(adj)}-${slugify(theme)}${tier > 1 ? `-t${tier}` : ''}`,
      name: `${adj} ${noun} of ${theme}${tier > 1 ? ` T${tier}` : ''}`,
      description,
      tier,
      category: pick(['elemental', 'combat', 'defensive', 'utility']),
    };
  });
  const built = indexCollection('relics', { relics: items })!;
  const file = built.index;
  const idx = loadIndex(built.file);
  const texts = items.map((r) => ['name', 'id', 'description'].map((f) => (typeof r[f] === 'string' ? refFold(r[f]) : '')));

  function check(q: string, extra: { tier?: number } = {}): number {
    const fq = refFold(q);
    const expected = items.filter(
      (r, i) => (extra.tier === undefined || r.tier === extra.tier) && texts[i]!.some((t) => t !== '' && t.includes(fq)),
    );
    const got = queryCollection(idx, { limit: 500, offset: 0, q, ...extra });
    expect(got.total, JSON.stringify(q)).toBe(expected.length);
    expect(
      got.positions.map((p) => items[p]),
      JSON.stringify(q),
    ).toEqual(expected.slice(0, 500));
    return expected.length;
  }

  it('folds q as the format rules say, also along the plain-ASCII shortcut', () => {
    const chars = ['a', 'B', 'z', '0', ' ', ' ', "'", '-', '.', ',', '~', '\t', 'É', '’', 'ß'];
    for (let k = 0; k < 2000; k++) {
      let s = '';
      const len = Math.floor(rand() * 12);
      for (let j = 0; j < len; j++) s += pick(chars.slice(0, k % 2 === 0 ? 10 : chars.length));
      expect(foldText(s), JSON.stringify(s)).toBe(refFold(s));
    }
  });

  it('q of punctuation only (answered from the runs of non-letters between words)', () => {
    let matched = 0;
    for (const q of ['-', '.', ',', ', ', ' - ', '...', '(', ')', ') (', '?!', '--', '—', '…', '/', '-.', ' , ', '·'])
      matched += check(q) > 0 ? 1 : 0;
    expect(matched).toBeGreaterThan(10);
  });

  it('q longer than any indexed fragment', () => {
    const longest = Math.max(...file.fragments.map((f) => f.length));
    const qs = [
      ...items.slice(0, 40).flatMap((r) => (typeof r.description === 'string' ? [r.description, `${String(r.description)} x`] : [])),
      `${String(items[5]!.name)} ${String(items[5]!.description)}`,
      'the deep forge, granting a steadier hand. '.repeat(4).trim(),
    ];
    let matched = 0;
    for (const q of qs) {
      if (refFold(q).length <= longest) continue;
      matched += check(q) > 0 ? 1 : 0;
    }
    expect(matched).toBeGreaterThan(5);
  });

  it('names typed in full, in any case and spacing', () => {
    for (const r of items.filter((_, i) => i % 97 === 0)) {
      const name = String(r.name);
      expect(check(name)).toBeGreaterThan(0);
      check(name.toUpperCase());
      check(`  ${name.replace(/ /g, '   ')}  `);
      check(`${name}.`);
      check(`${name} T9`);
      check(`${name.slice(2)}`);
      check(name, { tier: r.tier as number });
    }
  });

  it('a gap and one letter at either end of q (whole fragment groups)', () => {
    // Precondition of the grouped union: the fragments holding `-t` are many and hold over n/8 items together.
    const withDashT = file.fragments.map((f, i) => [f, i] as const).filter(([f]) => f.includes('-t'));
    expect(withDashT.length).toBeGreaterThan(50);
    expect(withDashT.reduce((s, [, i]) => s + file.fragmentPostings[i]!.length, 0)).toBeGreaterThan(N / 8);
    for (const q of ['-t', 't-', '-a', 'e-', ', g', 's,', '-t2', 'e-t', 'n of', 'f t', '(r', 'e.', ' .', 'y?!']) check(q);
  });

  it('phrases whose windows come together, and q of several windows', () => {
    for (const q of [
      'of the old roads, granting a steadier hand.',
      'the old roads, granting a steadier',
      'of endless winter, granting protection against ice.',
      'amulet of fro',
      'ancient amulet of the arcane t',
      'amulet-ancient-the-arcane-t3',
      'mulet-ancient-the',
      ', granting a',
      'heat of a dying star, granting quicker steps. really?! yes',
      'rare) binds the',
      'epee sigil of stone t2',
      'strasse',
      'ÆTHER orb of light t5',
      'engineers seal',
      "ENGINEER'S SEAL OF",
      'forged in 東京-タワー, arcane',
      '東京-タ',
      'stuff and fire.',
      'tower of frost',
    ])
      check(q);
  });

  it('substrings cut anywhere from the fields', () => {
    for (let k = 0; k < 400; k++) {
      const i = Math.floor(rand() * N);
      const t = pick(texts[i]!.filter((x) => x !== '').concat(['']));
      if (t === '') continue;
      const start = Math.floor(rand() * t.length);
      const len = 1 + Math.floor(rand() * Math.min(60, t.length - start));
      let q = t.slice(start, start + len);
      if (rand() < 0.3) q = q.toUpperCase();
      if (rand() < 0.1) q = `${q}zq`;
      expect(check(q, rand() < 0.2 ? { tier: 1 + Math.floor(rand() * 8) } : {}), q).toBeGreaterThanOrEqual(0);
    }
  });

  it('refuses indexes whose fragments are out of order or hold two gaps', () => {
    // fragments are checked on first use: the query that needs them answers 503 and names the cause
    const good = built.index;
    const causeOf = (run: () => unknown): string => {
      try {
        run();
      } catch (e) {
        return `${(e as { code?: string }).code} ${((e as Error).cause as Error).message}`;
      }
      return 'no error';
    };
    const reversed = loadIndex(
      encodeCollectionIndex({ ...good, fragments: [...good.fragments].reverse(), fragmentPostings: [...good.fragmentPostings].reverse() }),
    );
    expect(causeOf(() => reversed.fragments)).toMatch(/^UPSTREAM_UNAVAILABLE .*sorted/);
    const twoGaps = [...good.fragments];
    twoGaps[0] = 'a-b-c';
    const malformed = loadIndex(encodeCollectionIndex({ ...good, fragments: twoGaps }));
    expect(causeOf(() => queryCollection(malformed, { limit: 5, offset: 0, q: 'of fr' }))).toMatch(/^UPSTREAM_UNAVAILABLE .*malformed/);
  });
});
