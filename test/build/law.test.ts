/**
 * The identifier law stage (`build/pipeline/law.ts`) on inline documents: which catalog defines which
 * identifier families (spec §2.6), definition ids in the timestamp format and never twice, derived SKIL
 * ids (§2.6), reference fields and the prefab block (null allowed where the spec says so, never a
 * placeholder; §2.7), references that resolve against the catalogs (§4.9), instance ids kept out of
 * definition catalogs (§2.6) and registry entries that no catalog defines.
 *
 * Assertions are on rule names and JSON pointers (what a content author acts on). Where a message must
 * carry the facts needed to fix the problem (the offending value, the families expected), the test
 * checks that those facts appear in it, never its wording.
 */
import { describe, expect, it } from 'vitest';
import { checkLaw, type LawResult } from '../../build/pipeline/law.js';
import { deriveIconId, deriveSkillId } from '../../build/pipeline/ids.js';
import type { IssueInput, SourceDoc } from '../../build/pipeline/types.js';
import { testConfig } from '../helpers/config.js';

const ts = (family: string, n = 1): string => `${family}-20260101000000-${n.toString(16).toUpperCase().padStart(6, '0')}-0000ABCD`;

interface Run extends LawResult {
  readonly issues: IssueInput[];
}

/** Run the law over `files` (path → parsed JSON; `undefined` = a file that did not parse). */
function law(files: Record<string, unknown>, config = testConfig()): Run {
  const docs = new Map<string, SourceDoc>();
  for (const [path, data] of Object.entries(files)) docs.set(path, { path, text: JSON.stringify(data) ?? '', data });
  const issues: IssueInput[] = [];
  const result = checkLaw(docs, config, (i) => issues.push(i));
  return { ...result, issues };
}

/** `[rule, file, pointer]` of every issue, in report order. */
function where(run: Run): [string, string, string][] {
  return run.issues.map((i) => [i.rule, i.file, i.pointer]);
}

// ---------------------------------------------------------------------------------------------
// Spec §2.6: the families each definition catalog may mint, and where its records live.

interface CatalogCase {
  readonly file: string;
  readonly kind: string;
  readonly families: readonly string[];
  /** Builds the document holding one record: the document, the record's pointer, the pointer of the id a filler record lacks. */
  readonly places: readonly ((rec: object, idField: string) => [unknown, string, string | null])[];
  readonly idField?: string;
}

/** The record second in the array at `key`, after a filler record without an id. */
const inArray =
  (key: string) =>
  (rec: object, idField: string): [unknown, string, string | null] => [
    { [key]: [{ name: 'filler' }, rec] },
    `/${key}/1`,
    `/${key}/0/${idField}`,
  ];

const CATALOGS: readonly CatalogCase[] = [
  { file: 'master-items.json', kind: 'item', families: ['ITEM', 'FOOD', 'POTN', 'CONS'], places: [inArray('items')] },
  { file: 'master-weapons.json', kind: 'weapon', families: ['ITEM'], places: [inArray('items')] },
  { file: 'master-weapon-prefabs.json', kind: 'weapon-prefab', families: ['ITEM'], places: [inArray('items'), inArray('prefabs')] },
  { file: 'master-armor.json', kind: 'armor', families: ['ITEM'], places: [inArray('items')] },
  {
    file: 'master-consumables.json',
    kind: 'consumable',
    families: ['FOOD', 'POTN', 'CONS'],
    places: [inArray('items'), inArray('consumables')],
  },
  { file: 'master-materials.json', kind: 'material', families: ['MATL'], places: [inArray('materials'), inArray('items')] },
  { file: 'master-recipes.json', kind: 'recipe', families: ['RECP'], places: [inArray('recipes')] },
  { file: 'master-relics.json', kind: 'relic', families: ['RELC'], places: [inArray('relics')] },
  { file: 'master-enchants.json', kind: 'enchant', families: ['ENCH'], places: [inArray('enchants')] },
  { file: 'master-infusions.json', kind: 'infusion', families: ['INFU'], places: [inArray('infusions')] },
  { file: 'master-artifacts.json', kind: 'artifact', families: ['ARTF'], places: [inArray('artifacts')] },
  { file: 'master-attributes.json', kind: 'attribute', families: ['ATTR'], places: [inArray('attributes')] },
  { file: 'master-buildings.json', kind: 'building', families: ['BLDG'], places: [inArray('buildings'), inArray('items')] },
  { file: 'master-mounts.json', kind: 'mount', families: ['MNT'], places: [inArray('mounts'), inArray('items')] },
  {
    file: 'master-harvest-nodes.json',
    kind: 'harvest-node',
    families: ['NODE'],
    idField: 'nodeUuid',
    places: [inArray('nodes'), inArray('items')],
  },
  {
    file: 'master-skillTrees.json',
    kind: 'class-skill',
    families: ['SKIL'],
    places: [(rec) => [{ skillTrees: [{ uuid: 'knight', tiers: [{ skills: [rec] }] }] }, '/skillTrees/0/tiers/0/skills/0', null]],
  },
  {
    file: 'master-professions.json',
    kind: 'profession-node',
    families: ['NODE'],
    places: [(rec) => [{ crafting: { smithing: { uuid: 'smithing', skillTree: [rec] } } }, '/crafting/smithing/skillTree/0', null]],
  },
];

describe('definition catalogs (spec §2.6)', () => {
  for (const c of CATALOGS) {
    const idField = c.idField ?? 'uuid';
    describe(c.file, () => {
      c.places.forEach((place, p) => {
        it(`defines ${c.families.join('/')}-* ids (records at place ${p + 1})`, () => {
          for (const family of c.families) {
            const id = ts(family, p + 1);
            const [doc, pointer, filler] = place({ [idField]: id, name: `A ${family}`, category: 'cat', tier: 2 }, idField);
            const run = law({ [c.file]: doc });
            // a record without an id is the only problem
            expect(where(run)).toEqual(filler ? [['law/definition-prefix', c.file, filler]] : []);
            expect(run.definitions.get(id)).toEqual({
              id,
              kind: c.kind,
              file: c.file,
              pointer,
              name: `A ${family}`,
              category: 'cat',
              tier: 2,
              alsoIn: [],
            });
          }
        });
      });

      it('rejects ids of another family, naming the families it defines', () => {
        const other = c.families.includes('RECP') ? 'RELC' : 'RECP';
        const [doc, pointer] = c.places[0]!({ [idField]: ts(other) }, idField);
        const run = law({ [c.file]: doc });
        const issue = run.issues.find((i) => i.pointer === `${pointer}/${idField}`);
        expect(issue?.rule).toBe('law/definition-prefix');
        expect(issue?.message).toContain(ts(other));
        expect(issue?.message).toContain(`family ${other}`);
        expect(issue?.message).toContain(`${c.families.join('/')}-*`);
        expect(issue?.message).toContain(c.file);
        // still a definition (the build stops on the error; later stages see a complete table)
        expect(run.definitions.get(ts(other))?.kind).toBe(c.kind);
      });
    });
  }

  it('gathers mount definitions from mounts and items (their format is the known defect above)', () => {
    const run = law({ 'master-mounts.json': { mounts: [{ uuid: 'MNT-1' }], items: [{ uuid: 'MNT-2' }, { uuid: ts('ITEM') }] } });
    expect(where(run)).toEqual([
      ['law/id-format', 'master-mounts.json', '/mounts/0/uuid'],
      ['law/id-format', 'master-mounts.json', '/items/0/uuid'],
      ['law/definition-prefix', 'master-mounts.json', '/items/1/uuid'],
    ]);
    expect([...run.definitions.values()].map((d) => [d.id, d.kind, d.pointer])).toEqual([
      ['MNT-1', 'mount', '/mounts/0'],
      ['MNT-2', 'mount', '/items/0'],
      [ts('ITEM'), 'mount', '/items/1'],
    ]);
  });

  it('gathers class and profession ids without checking a family (spec §2.6 names none)', () => {
    const run = law({
      'master-skillTrees.json': { skillTrees: [{ uuid: 'knight', name: 'Knight' }, { uuid: 'class-7' }] },
      'master-professions.json': { crafting: { smithing: { uuid: 'smithing' } }, gathering: [{ uuid: 'mining' }] },
    });
    expect(run.issues).toEqual([]);
    expect([...run.definitions.values()].map((d) => [d.id, d.kind, d.file, d.pointer])).toEqual([
      ['knight', 'class', 'master-skillTrees.json', '/skillTrees/0'],
      ['class-7', 'class', 'master-skillTrees.json', '/skillTrees/1'],
      ['smithing', 'profession', 'master-professions.json', '/crafting/smithing'],
      ['mining', 'profession', 'master-professions.json', '/gathering/0'],
    ]);
  });

  it('reports a missing or empty id, naming the id field and the families expected', () => {
    const run = law({
      'master-relics.json': { relics: [{ name: 'No id' }, { uuid: '' }, { uuid: 42 }] },
      'master-harvest-nodes.json': { nodes: [{ uuid: ts('NODE') }] },
      'master-items.json': { items: [{ name: 'No id' }] },
    });
    // catalogs are checked in registry precedence order (master-items first)
    expect(where(run)).toEqual([
      ['law/definition-prefix', 'master-items.json', '/items/0/uuid'],
      ['law/definition-prefix', 'master-relics.json', '/relics/0/uuid'],
      ['law/definition-prefix', 'master-relics.json', '/relics/1/uuid'],
      ['law/definition-prefix', 'master-relics.json', '/relics/2/uuid'],
      ['law/definition-prefix', 'master-harvest-nodes.json', '/nodes/0/nodeUuid'],
    ]);
    expect(run.issues[0]!.message).toContain('ITEM/FOOD/POTN/CONS-*');
    expect(run.issues[1]!.message).toContain('"uuid"');
    expect(run.issues[1]!.message).toContain('RELC-*');
    expect(run.issues[4]!.message).toContain('"nodeUuid"');
    expect(run.definitions.size).toBe(0);
  });

  it('needs the family followed by a dash: a longer word or a bare family is another family', () => {
    const run = law({
      'master-relics.json': {
        relics: [
          { uuid: 'RELCX-20260101000000-000001-0000ABCD' },
          { uuid: 'RELC' },
          { uuid: 'relc-1' },
          { uuid: 'xRELC-20260101000000-000001-0000ABCD' },
        ],
      },
    });
    expect(where(run).map(([rule, , p]) => [rule, p])).toEqual([
      ['law/definition-prefix', '/relics/0/uuid'],
      ['law/definition-prefix', '/relics/1/uuid'],
      ['law/definition-prefix', '/relics/2/uuid'],
      ['law/definition-prefix', '/relics/3/uuid'],
    ]);
    expect(run.issues[0]!.message).toContain('family RELCX');
    expect(run.issues[1]!.message).toContain('family (none)');
    expect(run.issues[2]!.message).toContain('family (none)');
    expect(run.issues[3]!.message).toContain('family (none)'); // a family starts the id
  });

  it('names the two-part family of a trail overlay id found where it does not belong', () => {
    const run = law({ 'master-relics.json': { relics: [{ uuid: 'VFX-STY-0001' }, { uuid: 'VFX-0001' }] } });
    expect(run.issues[0]!.message).toContain('family VFX-STY;');
    expect(run.issues[1]!.message).toContain('family VFX;');
  });

  it('requires the timestamp format PREFIX-<14 digits>-<6 hex>-<8 hex> on stored definition ids', () => {
    const good = ts('RELC');
    const bad = [
      'RELC-1',
      'RELC-2026010100000-000001-0000ABCD',
      'RELC-20260101000000-00000g-0000ABCD',
      `${good}-1`,
      `x${good}`.replace('xRELC', 'RELC-x'),
    ];
    const run = law({ 'master-relics.json': { relics: [{ uuid: good }, ...bad.map((uuid) => ({ uuid }))] } });
    expect(where(run)).toEqual(bad.map((_, i) => ['law/id-format', 'master-relics.json', `/relics/${i + 1}/uuid`]));
    for (const [i, id] of bad.entries()) expect(run.issues[i]!.message).toContain(JSON.stringify(id));
  });

  it('reports an id defined twice in one catalog at the second record, naming the first', () => {
    const id = ts('RELC');
    const run = law({
      'master-relics.json': { relics: [{ uuid: id, name: 'First' }, { uuid: ts('RELC', 2) }, { uuid: id, name: 'Second' }] },
    });
    expect(where(run)).toEqual([['law/duplicate-id', 'master-relics.json', '/relics/2/uuid']]);
    expect(run.issues[0]!.message).toContain(id);
    expect(run.issues[0]!.message).toContain('/relics/0');
    expect(run.definitions.get(id)).toMatchObject({ name: 'First', pointer: '/relics/0', alsoIn: [] });
  });

  it('keeps the first catalog in precedence order as the home of an id, and lists the others', () => {
    const id = ts('ITEM');
    const run = law({
      'master-armor.json': { items: [{ uuid: id, name: 'From armor' }] },
      'master-weapons.json': { items: [{ uuid: id, name: 'From weapons' }] },
      'master-items.json': { items: [{ uuid: id, name: 'From items', type: 'weapon' }] },
    });
    expect(run.issues).toEqual([]);
    expect(run.definitions.get(id)).toEqual({
      id,
      kind: 'weapon',
      file: 'master-items.json',
      pointer: '/items/0',
      name: 'From items',
      category: null,
      tier: null,
      alsoIn: ['master-weapons.json', 'master-armor.json'],
    });
  });

  it('does not list a file as another home of its own id (classes and skills share master-skillTrees.json)', () => {
    const id = ts('SKIL');
    const run = law({ 'master-skillTrees.json': { skillTrees: [{ uuid: id, tiers: [{ skills: [{ uuid: id }] }] }] } });
    expect(run.issues).toEqual([]);
    expect(run.definitions.get(id)).toMatchObject({ kind: 'class-skill', pointer: '/skillTrees/0/tiers/0/skills/0', alsoIn: [] });
  });

  it('takes an item kind from its type in master-items only, and keeps name, category and tier only when typed right', () => {
    const run = law({
      'master-items.json': {
        items: [
          { uuid: ts('FOOD'), type: 'food', name: 7, category: ['x'], tier: '3' },
          { uuid: ts('ITEM'), type: 42 },
        ],
      },
      'master-relics.json': { relics: [{ uuid: ts('RELC'), type: 'food' }] },
    });
    expect(run.definitions.get(ts('FOOD'))).toMatchObject({ kind: 'food', name: null, category: null, tier: null });
    expect(run.definitions.get(ts('ITEM'))?.kind).toBe('item');
    expect(run.definitions.get(ts('RELC'))?.kind).toBe('relic');
  });

  it('skips files that did not parse', () => {
    const run = law({ 'master-relics.json': undefined, 'data.json': undefined, 'master-registry.json': undefined });
    expect(run.issues).toEqual([]);
    expect(run.definitions.size).toBe(0);
  });
});

// ---------------------------------------------------------------------------------------------
// Spec §2.6: SKIL ids are derived with SHA-1 from the namespaced skill id.

describe('derived skill ids (spec §2.6)', () => {
  const skills = (...records: object[]): unknown => ({ weaponTypes: { sword: { slots: [{ skills: records }] } } });
  const config = testConfig({ uuidField: 'brandUuid', namespaces: { skill: 'game-skill:', icon: 'i:', sprite: 'p:' } });

  it('derives the SKIL id of every skill from the skill namespace and its id, with no format check', () => {
    const run = law(
      {
        'master-weaponSkills.json': skills(
          { id: 'slash', name: 'Slash' },
          { id: 'parry', brandUuid: deriveSkillId('game-skill:', 'parry') },
        ),
      },
      config,
    );
    const slash = deriveSkillId('game-skill:', 'slash');
    const parry = deriveSkillId('game-skill:', 'parry');
    expect(run.issues).toEqual([]);
    expect(run.skillIds).toEqual(
      new Map([
        ['/weaponTypes/sword/slots/0/skills/0', slash],
        ['/weaponTypes/sword/slots/0/skills/1', parry],
      ]),
    );
    expect(run.definitions.get(slash)).toMatchObject({
      kind: 'skill',
      file: 'master-weaponSkills.json',
      pointer: '/weaponTypes/sword/slots/0/skills/0',
      name: 'Slash',
    });
    expect(run.definitions.get(parry)?.kind).toBe('skill');
  });

  it('reports a stored id in the configured field that differs from the derivation; null or absent is fine', () => {
    const run = law(
      {
        'master-weaponSkills.json': skills(
          { id: 'slash', brandUuid: 'SKIL-0000-0000-0000' },
          { id: 'parry', brandUuid: null },
          { id: 'kick', studioUuid: 'SKIL-0000-0000-0000' },
          { id: 'bash', brandUuid: '' },
        ),
      },
      config,
    );
    expect(where(run)).toEqual([
      ['law/derived-id-mismatch', 'master-weaponSkills.json', '/weaponTypes/sword/slots/0/skills/0/brandUuid'],
      ['law/derived-id-mismatch', 'master-weaponSkills.json', '/weaponTypes/sword/slots/0/skills/3/brandUuid'],
    ]);
    const msg = run.issues[0]!.message;
    expect(msg).toContain('"SKIL-0000-0000-0000"');
    expect(msg).toContain(deriveSkillId('game-skill:', 'slash'));
    expect(msg).toContain('game-skill:slash');
    // the derived id is used whatever was stored
    expect(run.skillIds.get('/weaponTypes/sword/slots/0/skills/0')).toBe(deriveSkillId('game-skill:', 'slash'));
    expect(run.definitions.has('SKIL-0000-0000-0000')).toBe(false);
  });

  it('reports a skill without a string id at its id field and derives nothing for it', () => {
    const run = law({ 'master-weaponSkills.json': skills({ name: 'Nameless' }, { id: '' }, { id: 3 }, { id: 'ok' }) }, config);
    expect(where(run)).toEqual(
      [0, 1, 2].map((k) => ['law/unresolved-ref', 'master-weaponSkills.json', `/weaponTypes/sword/slots/0/skills/${k}/id`]),
    );
    expect(run.issues[0]!.message).toContain('"id"');
    expect([...run.skillIds.keys()]).toEqual(['/weaponTypes/sword/slots/0/skills/3']);
    expect(run.definitions.size).toBe(1);
  });

  it('reports the same skill id twice as a duplicate definition', () => {
    const run = law(
      { 'master-weaponSkills.json': { weaponTypes: [{ slots: [{ skills: [{ id: 'slash' }] }, { skills: [{ id: 'slash' }] }] }] } },
      config,
    );
    expect(where(run)).toEqual([['law/duplicate-id', 'master-weaponSkills.json', '/weaponTypes/0/slots/1/skills/0/brandUuid']]);
  });
});

// ---------------------------------------------------------------------------------------------
// Spec §2.6, §2.7: reference fields, prefab block, instance ids.

describe('icons (spec §2.6)', () => {
  it('derives an ICON id from each string key of the icon source', () => {
    const config = testConfig({ namespaces: { skill: 's:', icon: 'assets:', sprite: 'p:' } });
    const run = law(
      { 'icon-sources.json': { icons: [{ key: 'icons/a.png' }, { key: 5 }, null, 'icons/b.png', { key: 'icons/c.png' }] } },
      config,
    );
    expect(run.iconIds).toEqual(new Set([deriveIconId('assets:', 'icons/a.png'), deriveIconId('assets:', 'icons/c.png')]));
  });

  it('has no icons when the icon source has no list', () => {
    expect(law({ 'icon-sources.json': { icons: { key: 'a.png' } } }).iconIds.size).toBe(0);
    expect(law({ 'icon-sources.json': null }).iconIds.size).toBe(0);
  });
});

describe('references (spec §2.6, §2.7)', () => {
  const icon = deriveIconId('i:', 'icons/a.png');
  const world = {
    'master-materials.json': { materials: [{ uuid: ts('MATL') }] },
    'master-items.json': {
      items: [
        { uuid: ts('ITEM'), type: 'gizmo' },
        { uuid: ts('POTN'), type: 'potion' },
      ],
    },
    'master-weapons.json': { items: [{ uuid: ts('ITEM', 9) }] },
    'master-recipes.json': { recipes: [{ uuid: ts('RECP'), resultItemId: ts('ITEM'), materials: [{ uuid: ts('MATL'), quantity: 2 }] }] },
    'icon-sources.json': { icons: [{ key: 'icons/a.png' }] },
  };

  it('accepts references that resolve in every catalog they name', () => {
    const run = law({
      ...world,
      'drops.json': {
        drops: [
          { itemUuid: ts('ITEM'), materialUuid: ts('MATL'), recipeUuid: ts('RECP'), iconUuid: icon },
          { itemUuid: ts('POTN'), resultItemId: ts('ITEM', 9) },
        ],
        nodes: [{ nodeUuid: ts('NODE', 5), prefabId: 'PFAB-BLDG-7', vfxRef: 'VFX-STY-1', overlayRef: 'VFX-STY-2' }],
      },
    });
    expect(run.issues).toEqual([]);
  });

  it('reports a reference that no catalog defines, naming the value and where it was looked up', () => {
    const run = law({
      ...world,
      'drops.json': {
        drops: [
          {
            itemUuid: ts('ITEM', 2),
            materialUuid: ts('MATL', 2),
            recipeUuid: ts('RECP', 2),
            iconUuid: deriveIconId('i:', 'icons/zzz.png'),
            resultItemId: ts('FOOD', 3),
          },
        ],
      },
    });
    expect(where(run)).toEqual(
      ['itemUuid', 'materialUuid', 'recipeUuid', 'iconUuid', 'resultItemId'].map((k) => [
        'law/unresolved-ref',
        'drops.json',
        `/drops/0/${k}`,
      ]),
    );
    expect(run.issues[0]!.message).toContain(ts('ITEM', 2));
    expect(run.issues[0]!.message).toContain('item catalogs');
    expect(run.issues[1]!.message).toContain('master-materials');
    expect(run.issues[2]!.message).toContain('master-recipes');
    expect(run.issues[3]!.message).toContain('icon-sources.json');
    expect(run.issues[4]!.message).toContain('item catalogs');
  });

  it('resolves material and recipe references only against master-materials and master-recipes', () => {
    // ids of the right family, defined (wrongly) by another catalog, do not count
    const run = law({
      'master-materials.json': { materials: [] },
      'master-recipes.json': { recipes: [] },
      'master-relics.json': { relics: [{ uuid: ts('MATL', 5) }, { uuid: ts('RECP', 5) }] },
      'drops.json': { drops: [{ materialUuid: ts('MATL', 5), recipeUuid: ts('RECP', 5) }] },
    });
    expect(where(run).filter(([, file]) => file === 'drops.json')).toEqual([
      ['law/unresolved-ref', 'drops.json', '/drops/0/materialUuid'],
      ['law/unresolved-ref', 'drops.json', '/drops/0/recipeUuid'],
    ]);
  });

  it('checks recipe materials as material references, in master-recipes only', () => {
    const run = law({
      ...world,
      'master-recipes.json': {
        recipes: [
          {
            uuid: ts('RECP'),
            materials: [{ uuid: ts('MATL', 2) }, { uuid: ts('ITEM') }, { uuid: null }],
            tools: [{ uuid: ts('MATL', 3) }],
          },
        ],
      },
      'quests.json': { quests: [{ materials: [{ uuid: ts('MATL', 2) }] }] },
    });
    expect(where(run)).toEqual([
      ['law/unresolved-ref', 'master-recipes.json', '/recipes/0/materials/0/uuid'],
      ['law/definition-prefix', 'master-recipes.json', '/recipes/0/materials/1/uuid'],
      ['law/unresolved-ref', 'master-recipes.json', '/recipes/0/materials/2/uuid'],
    ]);
    expect(run.issues[0]!.message).toContain('master-materials');
  });

  it('does not resolve against a catalog that is absent from the build', () => {
    const refs = {
      itemUuid: ts('ITEM', 2),
      resultItemId: ts('ITEM', 3),
      materialUuid: ts('MATL', 2),
      recipeUuid: ts('RECP', 2),
      iconUuid: icon,
    };
    expect(law({ 'drops.json': { drops: [refs] } }).issues).toEqual([]);
    // an item defined only in master-weapons is not looked up while master-items is absent
    expect(law({ 'master-weapons.json': { items: [{ uuid: ts('ITEM') }] }, 'drops.json': { drops: [refs] } }).issues).toEqual([]);
    // present catalogs are checked, even when they define nothing
    const present = law({
      'master-items.json': { items: [] },
      'master-materials.json': {},
      'master-recipes.json': { recipes: [] },
      'icon-sources.json': {},
      'drops.json': { drops: [refs] },
    });
    expect(where(present).map(([rule, , p]) => [rule, p])).toEqual(
      ['itemUuid', 'resultItemId', 'materialUuid', 'recipeUuid', 'iconUuid'].map((k) => ['law/unresolved-ref', `/drops/0/${k}`]),
    );
  });

  it('counts every definition whose id is in an item family as an item, whatever its catalog or type', () => {
    const run = law({
      'master-items.json': { items: [{ uuid: ts('ITEM'), type: 'gizmo' }] },
      'master-artifacts.json': { artifacts: [{ uuid: ts('CONS') }] },
      'master-relics.json': { relics: [{ uuid: ts('RELC') }] },
      'drops.json': { drops: [{ itemUuid: ts('ITEM') }, { itemUuid: ts('CONS') }, { itemUuid: ts('RELC') }] },
    });
    expect(where(run).filter(([, file]) => file === 'drops.json')).toEqual([['law/definition-prefix', 'drops.json', '/drops/2/itemUuid']]);
  });

  it('requires each reference field to hold its own family', () => {
    const cases: [string, string, string][] = [
      ['recipeUuid', ts('ITEM'), 'RECP'],
      ['resultItemId', ts('MATL'), 'ITEM/FOOD/POTN/CONS'],
      ['materialUuid', ts('ITEM'), 'MATL'],
      ['itemUuid', ts('RECP'), 'ITEM/FOOD/POTN/CONS'],
      ['iconUuid', 'SKIL-AAAA-BBBB-CCCC', 'ICON'],
      ['nodeUuid', ts('ITEM'), 'NODE'],
      ['prefabId', 'BLDG-1', 'PFAB'],
      ['vfxRef', 'FX-1', 'VFX'],
      ['overlayRef', 'VFX-1', 'VFX-STY'],
    ];
    const run = law({ 'data.json': { rows: cases.map(([key, value]) => ({ [key]: value })) } });
    expect(where(run)).toEqual(cases.map(([key], i) => ['law/definition-prefix', 'data.json', `/rows/${i}/${key}`]));
    cases.forEach(([, value, families], i) => {
      expect(run.issues[i]!.message).toContain(JSON.stringify(value));
      expect(run.issues[i]!.message).toContain(`${families}-*`);
    });
  });

  it('requires an icon reference in the form ICON-XXXX-XXXX-XXXX', () => {
    const run = law({ 'data.json': { a: { iconUuid: 'ICON-1234' }, b: { iconUuid: 'ICON-abcd-0000-0000' }, c: { iconUuid: icon } } });
    expect(where(run)).toEqual([
      ['law/id-format', 'data.json', '/a/iconUuid'],
      ['law/id-format', 'data.json', '/b/iconUuid'],
    ]);
    expect(run.issues[0]!.message).toContain('ICON-XXXX-XXXX-XXXX');
  });

  it('allows null only where a reference is optional', () => {
    const nullable = [
      'recipeUuid',
      'iconUuid',
      'vfxRef',
      'overlayRef',
      'modelRef',
      'impactRef',
      'animationClip',
      'soundRef',
      'projectileRef',
    ];
    const required = ['resultItemId', 'materialUuid', 'itemUuid', 'nodeUuid', 'prefabId'];
    const run = law({ ...world, 'data.json': Object.fromEntries([...nullable, ...required].map((k) => [k, null])) });
    expect(where(run)).toEqual(required.map((k) => ['law/unresolved-ref', 'data.json', `/${k}`]));
    expect(run.issues[0]!.message).toContain('ITEM/FOOD/POTN/CONS-*');
  });

  it('ignores reference fields that hold neither a string nor null', () => {
    expect(law({ ...world, 'data.json': { itemUuid: 5, modelRef: { key: 'x' }, materialUuid: false, vfxRef: [1] } }).issues).toEqual([]);
  });

  it('accepts any non-placeholder value in prefab fields that name no family', () => {
    const run = law({
      'data.json': {
        prefab: {
          modelRef: 'models/sword.glb',
          impactRef: 'fx-17',
          soundRef: 'swing',
          projectileRef: '1234',
          animationClip: 'humanoid/slash',
        },
      },
    });
    expect(run.issues).toEqual([]);
  });

  it('requires animationClip to be {pack}/{role}', () => {
    const bad = ['slash', 'a/b/c', 'a b/role', 'pack/ro le', '/role', 'pack/', 'pack//role'];
    const run = law({ 'data.json': { clips: bad.map((animationClip) => ({ animationClip })) } });
    expect(where(run)).toEqual(bad.map((_, i) => ['law/id-format', 'data.json', `/clips/${i}/animationClip`]));
    expect(run.issues[0]!.message).toContain('"slash"');
  });
});

describe('placeholders (spec §2.7: no placeholder is invented)', () => {
  const placeholders = [
    '',
    '   ',
    'TODO',
    'tbd',
    'TBA',
    'placeholder',
    'None',
    'null',
    'nil',
    'n/a',
    'NA',
    'undefined',
    'unknown',
    'missing',
    'xxx',
    'XXXXX',
    '-',
    '---',
    '?',
    '???',
    '0',
    ' todo ',
    'model_placeholder_01',
    'Lorem ipsum dolor',
  ];
  const ordinary = ['xx', 'nothing', 'none1', '00', 'n//a', 'lorem', 'tbdx', 'models/sword.glb', '-x', 'a?'];

  it.each(placeholders)('reports %j in a reference or prefab field', (value) => {
    const run = law({ 'data.json': { prefab: { modelRef: value }, refs: [{ itemUuid: value }] } });
    expect(where(run)).toEqual([
      ['law/placeholder', 'data.json', '/prefab/modelRef'],
      ['law/placeholder', 'data.json', '/refs/0/itemUuid'],
    ]);
    expect(run.issues[0]!.message).toContain(JSON.stringify(value));
  });

  it('checks every field of the prefab block', () => {
    const fields = ['modelRef', 'vfxRef', 'overlayRef', 'impactRef', 'animationClip', 'soundRef', 'projectileRef'];
    const run = law({
      'data.json': { prefab: Object.fromEntries(fields.map((f) => [f, 'TODO'])), other: { effectRef: 'TODO', model: 'TODO' } },
    });
    expect(where(run)).toEqual(fields.map((f) => ['law/placeholder', 'data.json', `/prefab/${f}`]));
  });

  it('accepts ordinary values that merely look short or odd', () => {
    const run = law({ 'data.json': { items: ordinary.map((modelRef) => ({ prefab: { modelRef } })) } });
    expect(run.issues).toEqual([]);
  });

  it('reports a placeholder before checking the family', () => {
    const run = law({ 'data.json': { vfxRef: 'TBD', overlayRef: 'none', prefabId: 'unknown' } });
    expect(run.issues.map((i) => i.rule)).toEqual(['law/placeholder', 'law/placeholder', 'law/placeholder']);
  });
});

describe('instance ids (spec §2.6: minted only by the server ledger)', () => {
  it('reports studio_uuid and the configured field in snake case, anywhere, whatever the value', () => {
    const run = law(
      {
        'data.json': { a: [{ studio_uuid: 'x' }], b: { deep: [[{ game_item_uuid: null }]] }, gameItemUuid: ts('ITEM'), item_uuid: 'y' },
        'master-relics.json': { relics: [{ uuid: ts('RELC'), studio_uuid: 5 }] },
      },
      testConfig({ uuidField: 'gameItemUuid' }),
    );
    expect(where(run)).toEqual([
      ['law/instance-id', 'data.json', '/a/0/studio_uuid'],
      ['law/instance-id', 'data.json', '/b/deep/0/0/game_item_uuid'],
      ['law/instance-id', 'master-relics.json', '/relics/0/studio_uuid'],
    ]);
    expect(run.issues[0]!.message).toContain('"studio_uuid"');
  });

  it('drops only the trailing "Uuid" of the configured field when naming its instance field', () => {
    const run = law({ 'data.json': { game_uuid_store_uuid: 1, game_store_uuid_uuid: 2 } }, testConfig({ uuidField: 'gameUuidStoreUuid' }));
    expect(where(run)).toEqual([['law/instance-id', 'data.json', '/game_uuid_store_uuid']]);
  });
});

describe('contract files', () => {
  it.each(['uuid-law.json', 'account-game-uuid-contract.json', 'home-island-contract.json', 'contracts/uuid-law.json'])(
    '%s may quote any reference, placeholder or instance id',
    (file) => {
      const run = law({
        ...{ 'master-items.json': { items: [] } },
        [file]: { example: { itemUuid: 'ITEM-1', modelRef: 'TODO', studio_uuid: 'x' } },
      });
      expect(run.issues).toEqual([]);
    },
  );
});

describe('walk pointers', () => {
  it('escapes "~" and "/" in keys and walks arrays at the root and inside arrays', () => {
    const run = law({ 'data.json': [{ 'a/b': { 'c~d': [{ modelRef: 'TODO' }] } }, 7, [[{ modelRef: 'none' }]]] });
    expect(where(run)).toEqual([
      ['law/placeholder', 'data.json', '/0/a~1b/c~0d/0/modelRef'],
      ['law/placeholder', 'data.json', '/2/0/0/modelRef'],
    ]);
  });

  it('reports a reference at the top level of a file with a one-segment pointer', () => {
    expect(where(law({ 'sub/dir/data.json': { modelRef: 'tbd' } }))).toEqual([['law/placeholder', 'sub/dir/data.json', '/modelRef']]);
  });
});

describe('source master registry', () => {
  const relic = ts('RELC');

  it('reports entries that no catalog defines (the published registry is derived)', () => {
    const run = law({
      'master-relics.json': { relics: [{ uuid: relic }] },
      'master-registry.json': { byUuid: { [relic]: {}, 'RELC-gone': {}, 'a/b~c': {} } },
    });
    expect(where(run)).toEqual([
      ['registry/stale-entry', 'master-registry.json', '/byUuid/RELC-gone'],
      ['registry/stale-entry', 'master-registry.json', '/byUuid/a~1b~0c'],
    ]);
    expect(run.issues[0]!.message).toContain('RELC-gone');
  });

  it('says nothing when no catalog defines anything, or when the registry has no entry map', () => {
    expect(law({ 'master-registry.json': { byUuid: { 'RELC-gone': {} } } }).issues).toEqual([]);
    const defs = { 'master-relics.json': { relics: [{ uuid: relic }] } };
    expect(law({ ...defs, 'master-registry.json': { byUuid: 'RELC-gone' } }).issues).toEqual([]);
    expect(law({ ...defs, 'master-registry.json': { byUuid: null } }).issues).toEqual([]);
    expect(law({ ...defs, 'master-registry.json': { entries: { 'RELC-gone': {} } } }).issues).toEqual([]);
    expect(law({ ...defs, 'master-registry.json': null }).issues).toEqual([]);
  });

  it('is not itself checked for references', () => {
    const run = law({
      'master-relics.json': { relics: [{ uuid: relic }] },
      'master-registry.json': { byUuid: { [relic]: { modelRef: 'TODO', studio_uuid: 'x' } } },
    });
    expect(run.issues).toEqual([]);
  });
});
