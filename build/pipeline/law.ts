/**
 * Stage 3, the identifier law (spec 2.6, 2.7, 4.9): family prefixes per field,
 * definition ids never instance ids, null references allowed and no invented placeholders, derived
 * SKIL ids equal their SHA-1 derivation, and references between catalogs resolve. The stage also
 * gathers every definition id with its file and pointer (the master registry's input).
 *
 * Pure: reads parsed documents, reports problems, returns the definition table and derived skill ids.
 */
import type { RegistryEntry } from '../../api/_lib/formats/changes.js';
import { deriveIconId, deriveSkillId, GROUPED_ID_RE, TIMESTAMP_ID_RE } from './ids.js';
import { escapePointer } from '../../api/_lib/util/json.js';
import { recordsAt } from './layout.js';
import type { CatalogConfig, Reporter, SourceDoc } from './types.js';

/** A definition catalog: where its records are, which id field and families they use (spec 2.6). */
interface DefinitionCatalog {
  readonly file: string;
  readonly arrays: readonly (readonly string[])[];
  /** Id field; `@uuidField` = the configured SKIL/ICON field. */
  readonly idField: string;
  /** Allowed families; empty = spec 2.6 names none (ids gathered for the registry, not checked). */
  readonly families: readonly string[];
  readonly kind: string;
}

/** Definition catalogs in registry precedence order (the first file that defines an id is its home). */
const DEFINITION_CATALOGS: readonly DefinitionCatalog[] = [
  { file: 'master-items.json', arrays: [['items']], idField: 'uuid', families: ['ITEM', 'FOOD', 'POTN', 'CONS'], kind: 'item' },
  { file: 'master-weapons.json', arrays: [['items']], idField: 'uuid', families: ['ITEM'], kind: 'weapon' },
  { file: 'master-weapon-prefabs.json', arrays: [['items'], ['prefabs']], idField: 'uuid', families: ['ITEM'], kind: 'weapon-prefab' },
  { file: 'master-armor.json', arrays: [['items']], idField: 'uuid', families: ['ITEM'], kind: 'armor' },
  {
    file: 'master-consumables.json',
    arrays: [['items'], ['consumables']],
    idField: 'uuid',
    families: ['FOOD', 'POTN', 'CONS'],
    kind: 'consumable',
  },
  { file: 'master-materials.json', arrays: [['materials'], ['items']], idField: 'uuid', families: ['MATL'], kind: 'material' },
  { file: 'master-recipes.json', arrays: [['recipes']], idField: 'uuid', families: ['RECP'], kind: 'recipe' },
  { file: 'master-relics.json', arrays: [['relics']], idField: 'uuid', families: ['RELC'], kind: 'relic' },
  { file: 'master-enchants.json', arrays: [['enchants']], idField: 'uuid', families: ['ENCH'], kind: 'enchant' },
  { file: 'master-infusions.json', arrays: [['infusions']], idField: 'uuid', families: ['INFU'], kind: 'infusion' },
  { file: 'master-artifacts.json', arrays: [['artifacts']], idField: 'uuid', families: ['ARTF'], kind: 'artifact' },
  { file: 'master-attributes.json', arrays: [['attributes']], idField: 'uuid', families: ['ATTR'], kind: 'attribute' },
  { file: 'master-buildings.json', arrays: [['buildings'], ['items']], idField: 'uuid', families: ['BLDG'], kind: 'building' },
  { file: 'master-mounts.json', arrays: [['mounts'], ['items']], idField: 'uuid', families: ['MNT'], kind: 'mount' },
  { file: 'master-harvest-nodes.json', arrays: [['nodes'], ['items']], idField: 'nodeUuid', families: ['NODE'], kind: 'harvest-node' },
  {
    file: 'master-weaponSkills.json',
    arrays: [['weaponTypes', '*', 'slots', '*', 'skills']],
    idField: '@uuidField',
    families: ['SKIL'],
    kind: 'skill',
  },
  {
    file: 'master-skillTrees.json',
    arrays: [['skillTrees', '*', 'tiers', '*', 'skills']],
    idField: 'uuid',
    families: ['SKIL'],
    kind: 'class-skill',
  },
  {
    file: 'master-professions.json',
    arrays: [['crafting', '*', 'skillTree']],
    idField: 'uuid',
    families: ['NODE'],
    kind: 'profession-node',
  },
  // spec 2.6 names no family for classes and professions: ids are gathered, not prefix-checked
  { file: 'master-skillTrees.json', arrays: [['skillTrees', '*']], idField: 'uuid', families: [], kind: 'class' },
  {
    file: 'master-professions.json',
    arrays: [
      ['crafting', '*'],
      ['gathering', '*'],
    ],
    idField: 'uuid',
    families: [],
    kind: 'profession',
  },
];

/** Families of reference fields wherever they appear in a definition catalog (spec 2.6, 2.7). */
const REFERENCE_FIELDS: Readonly<Record<string, { families: readonly string[]; grouped?: boolean; nullable: boolean }>> = {
  recipeUuid: { families: ['RECP'], nullable: true },
  resultItemId: { families: ['ITEM', 'FOOD', 'POTN', 'CONS'], nullable: false },
  materialUuid: { families: ['MATL'], nullable: false },
  itemUuid: { families: ['ITEM', 'FOOD', 'POTN', 'CONS'], nullable: false },
  iconUuid: { families: ['ICON'], grouped: true, nullable: true },
  nodeUuid: { families: ['NODE'], nullable: false },
  prefabId: { families: ['PFAB'], nullable: false },
  vfxRef: { families: ['VFX'], nullable: true },
  overlayRef: { families: ['VFX-STY'], nullable: true },
};

/** Prefab-block fields that may be null and must never hold a placeholder (spec 2.7). */
const PREFAB_FIELDS = new Set(['modelRef', 'vfxRef', 'overlayRef', 'impactRef', 'animationClip', 'soundRef', 'projectileRef']);

/** Strings that are placeholders, not references (spec 2.7: "no placeholder is invented"). */
const PLACEHOLDER_RE =
  /^(?:|\s+|todo|tbd|tba|placeholder|none|null|nil|n\/?a|undefined|unknown|missing|x{3,}|-+|\?+|0)$|placeholder|lorem ipsum/i;

/** One definition found in the catalogs: its id and its master registry entry (`api/_lib/formats/changes.ts`). */
export interface Definition extends Omit<RegistryEntry, 'alsoIn'> {
  readonly id: string;
  /** Other files that define the same id (e.g. master-weapons rows repeated in master-items). */
  readonly alsoIn: string[];
}

/** Result of the law stage. */
export interface LawResult {
  /** Every definition id → its home definition, in precedence order of {@link DEFINITION_CATALOGS}. */
  readonly definitions: Map<string, Definition>;
  /** Skill pointer (in master-weaponSkills.json) → derived SKIL id. */
  readonly skillIds: Map<string, string>;
  /** Every ICON id defined by the icon source file. */
  readonly iconIds: Set<string>;
}

function familyOf(id: string): string | null {
  if (id.startsWith('VFX-STY-')) return 'VFX-STY';
  const m = /^([A-Z]+)-/.exec(id);
  return m ? m[1]! : null;
}

function familyMatches(id: string, families: readonly string[]): boolean {
  return families.some((f) => id.startsWith(f + '-'));
}

/**
 * Check the identifier law over every parsed document and gather definitions.
 * Legacy/design and archived files are checked too (severity capping happens in the rule book).
 */
export function checkLaw(docs: ReadonlyMap<string, SourceDoc>, config: CatalogConfig, report: Reporter): LawResult {
  const definitions = new Map<string, Definition>();
  const skillIds = new Map<string, string>();
  const iconIds = new Set<string>();
  const uuidField = config.uuidField;
  const instanceField =
    uuidField
      .replace(/Uuid$/, '')
      .replace(/([A-Z])/g, '_$1')
      .toLowerCase() + '_uuid';

  // Icons defined by the icon source (spec 2.6: ICON from the namespaced object-storage key).
  const iconDoc = docs.get('icon-sources.json')?.data as { icons?: unknown } | undefined;
  if (iconDoc && Array.isArray(iconDoc.icons)) {
    for (const icon of iconDoc.icons as unknown[]) {
      const key = (icon as { key?: unknown } | null)?.key;
      if (typeof key === 'string') iconIds.add(deriveIconId(config.namespaces.icon, key));
    }
  }

  // 1. Definition ids: family prefix, format, duplicates; SKIL derivation.
  for (const cat of DEFINITION_CATALOGS) {
    const doc = docs.get(cat.file);
    if (!doc || doc.data === undefined) continue;
    const seen = new Map<string, string>();
    const idField = cat.idField === '@uuidField' ? uuidField : cat.idField;
    for (const { record, pointer } of recordsAt(doc.data, cat.arrays)) {
      let id = record[idField];
      if (cat.kind === 'skill') {
        const skillKey = record.id;
        if (typeof skillKey !== 'string' || skillKey === '') {
          report({
            rule: 'law/unresolved-ref',
            file: cat.file,
            pointer: `${pointer}/id`,
            message: 'Skill has no string "id"; its SKIL id cannot be derived (spec 2.6).',
          });
          continue;
        }
        const derived = deriveSkillId(config.namespaces.skill, skillKey);
        if (id !== undefined && id !== null && id !== derived) {
          report({
            rule: 'law/derived-id-mismatch',
            file: cat.file,
            pointer: `${pointer}/${escapePointer(idField)}`,
            message: `Stored ${idField} ${JSON.stringify(id)} differs from the derived ${derived} = SHA-1("${config.namespaces.skill}${skillKey}"); remove it to let the build derive it, or fix the namespace.`,
          });
        }
        skillIds.set(pointer, derived);
        id = derived;
      }
      if (typeof id !== 'string' || id === '') {
        report({
          rule: 'law/definition-prefix',
          file: cat.file,
          pointer: `${pointer}/${escapePointer(idField)}`,
          message: `Missing definition id "${idField}"; expected a ${cat.families.join('/')}-* id (spec 2.6).`,
        });
        continue;
      }
      const idPtr = `${pointer}/${escapePointer(idField)}`;
      if (cat.families.length === 0) {
        // no family to check
      } else if (!familyMatches(id, cat.families)) {
        report({
          rule: 'law/definition-prefix',
          file: cat.file,
          pointer: idPtr,
          message: `${cat.kind} id ${JSON.stringify(id)} has family ${familyOf(id) ?? '(none)'}; ${cat.file} defines ${cat.families.join('/')}-* ids (spec 2.6).`,
        });
      } else if (cat.kind !== 'skill' && !TIMESTAMP_ID_RE.test(id)) {
        report({
          rule: 'law/id-format',
          file: cat.file,
          pointer: idPtr,
          message: `Id ${JSON.stringify(id)} does not match the timestamp family format PREFIX-<14 digits>-<6 hex>-<8 hex>.`,
        });
      }
      const prev = seen.get(id);
      if (prev !== undefined) {
        report({
          rule: 'law/duplicate-id',
          file: cat.file,
          pointer: idPtr,
          message: `Id ${id} is defined again; first at ${prev}. A definition id names one record.`,
        });
        continue;
      }
      seen.set(id, pointer);
      const home = definitions.get(id);
      if (home) {
        if (home.file !== cat.file) home.alsoIn.push(cat.file);
        continue;
      }
      definitions.set(id, {
        id,
        kind: typeof record.type === 'string' && cat.kind === 'item' ? record.type : cat.kind,
        file: cat.file,
        pointer,
        name: typeof record.name === 'string' ? record.name : null,
        category: typeof record.category === 'string' ? record.category : null,
        tier: typeof record.tier === 'number' ? record.tier : null,
        alsoIn: [],
      });
    }
  }

  // 2. Reference fields, placeholders, instance ids, everywhere in non-contract files.
  const materialIds = idsOfKind(definitions, ['material']);
  const itemIds = new Set(
    [...definitions.values()]
      .filter(
        (d) =>
          ['item', 'weapon', 'armor', 'consumable', 'weapon-prefab', 'food', 'potion', 'artifact'].includes(d.kind) ||
          /^(ITEM|FOOD|POTN|CONS)-/.test(d.id),
      )
      .map((d) => d.id),
  );
  const recipeIds = idsOfKind(definitions, ['recipe']);
  const have = (f: string): boolean => docs.get(f)?.data !== undefined;
  const resolvers: Record<string, { ids: Set<string>; what: string; active: boolean }> = {
    materialUuid: { ids: materialIds, what: 'master-materials', active: have('master-materials.json') },
    resultItemId: { ids: itemIds, what: 'the item catalogs', active: have('master-items.json') },
    itemUuid: { ids: itemIds, what: 'the item catalogs', active: have('master-items.json') },
    recipeUuid: { ids: recipeIds, what: 'master-recipes', active: have('master-recipes.json') },
    iconUuid: { ids: iconIds, what: 'the icon registry (icon-sources.json)', active: iconDoc !== undefined },
  };

  for (const doc of docs.values()) {
    if (doc.data === undefined) continue;
    const name = doc.path.split('/').pop() ?? doc.path;
    if (['uuid-law.json', 'account-game-uuid-contract.json', 'master-registry.json', 'home-island-contract.json'].includes(name)) continue;
    const inRecipes = name === 'master-recipes.json';
    const wanted = (key: string, parentKey: string | null): boolean =>
      key === instanceField ||
      key === 'studio_uuid' ||
      PREFAB_FIELDS.has(key) ||
      Object.hasOwn(REFERENCE_FIELDS, key) ||
      (inRecipes && parentKey === 'materials' && key === 'uuid');
    walkFields(doc.data, wanted, (key, value, ptr, parentKey) => {
      if (key === instanceField || key === 'studio_uuid') {
        report({
          rule: 'law/instance-id',
          file: doc.path,
          pointer: ptr,
          message: `"${key}" is an item instance id, minted only by the server ledger; definition catalogs never hold one (spec 2.6).`,
        });
        return;
      }
      const isPrefab = PREFAB_FIELDS.has(key);
      const ref =
        (Object.hasOwn(REFERENCE_FIELDS, key) ? REFERENCE_FIELDS[key] : undefined) ??
        (inRecipes && parentKey === 'materials' && key === 'uuid' ? { families: ['MATL'], nullable: false } : undefined);
      if (!ref && !isPrefab) return;
      if (value === null) {
        if (ref && !ref.nullable && !isPrefab)
          report({
            rule: 'law/unresolved-ref',
            file: doc.path,
            pointer: ptr,
            message: `"${key}" must reference a ${ref.families.join('/')}-* definition; null is not allowed here.`,
          });
        return;
      }
      if (typeof value !== 'string') return;
      if (PLACEHOLDER_RE.test(value.trim())) {
        report({
          rule: 'law/placeholder',
          file: doc.path,
          pointer: ptr,
          message: `${JSON.stringify(value)} is a placeholder; an unused reference is null (spec 2.7).`,
        });
        return;
      }
      if (key === 'animationClip' && !/^[^/\s]+\/[^/\s]+$/.test(value)) {
        report({
          rule: 'law/id-format',
          file: doc.path,
          pointer: ptr,
          message: `animationClip ${JSON.stringify(value)} must be "{pack}/{role}" (spec 2.7).`,
        });
        return;
      }
      if (!ref) return;
      if (!familyMatches(value, ref.families)) {
        report({
          rule: 'law/definition-prefix',
          file: doc.path,
          pointer: ptr,
          message: `"${key}" holds ${JSON.stringify(value)}; expected a ${ref.families.join('/')}-* id (spec 2.6).`,
        });
        return;
      }
      if (ref.grouped && !GROUPED_ID_RE.test(value)) {
        report({
          rule: 'law/id-format',
          file: doc.path,
          pointer: ptr,
          message: `${JSON.stringify(value)} must match ${ref.families[0]}-XXXX-XXXX-XXXX (spec 2.6).`,
        });
        return;
      }
      const resolverKey = inRecipes && parentKey === 'materials' && key === 'uuid' ? 'materialUuid' : key;
      const res = resolvers[resolverKey];
      if (res?.active && !res.ids.has(value)) {
        report({ rule: 'law/unresolved-ref', file: doc.path, pointer: ptr, message: `"${key}" ${value} is not defined in ${res.what}.` });
      }
    });
  }
  // 3. A source master registry is replaced by the derived one; entries no catalog defines are stale.
  const registry = docs.get('master-registry.json')?.data as { byUuid?: unknown } | undefined;
  if (registry && registry.byUuid && typeof registry.byUuid === 'object' && definitions.size > 0) {
    for (const id of Object.keys(registry.byUuid)) {
      if (!definitions.has(id)) {
        report({
          rule: 'registry/stale-entry',
          file: 'master-registry.json',
          pointer: `/byUuid/${escapePointer(id)}`,
          message: `${id} is listed in the registry but no catalog defines it; the published registry is derived from the catalogs.`,
        });
      }
    }
  }
  return { definitions, skillIds, iconIds };
}

function idsOfKind(defs: ReadonlyMap<string, Definition>, kinds: readonly string[]): Set<string> {
  const out = new Set<string>();
  for (const d of defs.values()) if (kinds.includes(d.kind)) out.add(d.id);
  return out;
}

/**
 * Depth-first walk calling `fn(key, value, pointer, parentKey)` for every object member whose key
 * `wanted(key)` accepts. Pointers are built only for those members (the walk itself keeps a segment stack).
 */
function walkFields(
  node: unknown,
  wanted: (key: string, parentKey: string | null) => boolean,
  fn: (key: string, value: unknown, pointer: string, parentKey: string | null) => void,
): void {
  const segs: string[] = [];
  const pointer = (): string => (segs.length ? '/' + segs.map(escapePointer).join('/') : '');
  const visit = (n: unknown, parentKey: string | null): void => {
    if (Array.isArray(n)) {
      for (let i = 0; i < n.length; i++) {
        const v: unknown = n[i];
        if (v && typeof v === 'object') {
          segs.push(String(i));
          visit(v, parentKey);
          segs.pop();
        }
      }
      return;
    }
    for (const key in n as Record<string, unknown>) {
      const v = (n as Record<string, unknown>)[key];
      segs.push(key);
      if (wanted(key, parentKey)) fn(key, v, pointer(), parentKey);
      if (v && typeof v === 'object') visit(v, key);
      segs.pop();
    }
  };
  if (node && typeof node === 'object') visit(node, null);
}
