/**
 * What each catalog source file is (spec 4.1, 9.3) and where its records live.
 *
 * File kinds decide severities and emission:
 * - `design`   weapons.json, skills.json, weaponSkills.json: design/legacy only, not the play catalog (9.3);
 *              their problems are capped at `warn`.
 * - `archived` deprecated files of 9.3 (attributes.json, weaponSkills.json, items-database.json,
 *              items-legacy.json, master-t0-items.json): emitted, listed in the manifest with their
 *              replacements; problems capped at `warn`.
 * - `retired`  the old systems catalog (9.3, 7): never emitted, so it answers 404.
 * - every other file (play catalogs, collections, registries, contracts, world and engine data): errors stay errors.
 */
import type { CategoryStatus } from '../../api/_lib/formats/manifest.js';
import { publishedFile } from '../../api/_lib/formats/layout.js';
import type { Reporter } from './types.js';

/** Kind of a catalog source file. */
export type FileKind = 'design' | 'archived' | 'retired' | 'collection' | 'registry' | 'contract' | 'play' | 'world' | 'engine' | 'data';

/** Deprecated files and their replacements (spec 9.3). */
export const ARCHIVED: Readonly<Record<string, readonly string[]>> = Object.freeze({
  'attributes.json': ['master-attributes.json'],
  'weaponSkills.json': ['master-weaponSkills.json'],
  'items-database.json': ['master-items.json'],
  'items-legacy.json': ['master-items.json'],
  'master-t0-items.json': ['t0-weapons.json', 'master-weapon-prefabs.json'],
});

/** Design/legacy-only files (spec 9.3): not the play catalog; play uses master-weapon-prefabs.json. */
const DESIGN_ONLY: ReadonlySet<string> = new Set(['weapons.json', 'skills.json', 'weaponSkills.json']);

const COLLECTION_FILES = new Set(['master-relics.json', 'master-enchants.json', 'master-infusions.json', 'master-artifacts.json']);
const REGISTRY_FILES = new Set([
  'sprites.json',
  'sprites2d.json',
  'spriteMaps.json',
  'sprite-ids.json',
  'sprite-characters.json',
  'studiodot-assets.json',
  'icon-sources.json',
  'master-registry.json',
  'effectSprites.json',
]);
const CONTRACT_FILES = new Set(['home-island-contract.json', 'uuid-law.json', 'account-game-uuid-contract.json']);
const WORLD_FILES = new Set(['classes.json', 'races.json', 'factions.json', 'attributes.json', 'professions.json']);
const ENGINE_FILES = new Set([
  'factionUnits.json',
  'nodeUpgrades.json',
  'tileMaps.json',
  'animations.json',
  'rendering.json',
  'controllers.json',
  'terrain.json',
  'ai.json',
  'ecs.json',
]);

/**
 * Kind of the file at `path` (relative to the source folder).
 * @param retired file names the catalog config declares retired (default `systems-catalog.json`).
 */
export function fileKind(path: string, retired: ReadonlySet<string>): FileKind {
  const name = path.split('/').pop() ?? path;
  if (retired.has(path) || retired.has(name)) return 'retired';
  if (DESIGN_ONLY.has(name)) return 'design';
  if (Object.hasOwn(ARCHIVED, name)) return 'archived';
  if (COLLECTION_FILES.has(name)) return 'collection';
  if (REGISTRY_FILES.has(name)) return 'registry';
  if (CONTRACT_FILES.has(name)) return 'contract';
  if (WORLD_FILES.has(name)) return 'world';
  if (ENGINE_FILES.has(name)) return 'engine';
  if (name.startsWith('master-') || name.startsWith('warlords-') || name === 't0-weapons.json' || name === 'weapon-stat-bridge.json')
    return 'play';
  return 'data';
}

/**
 * Report every retired file (rule `catalog/retired-file`: not published, answers 404) and every deprecated one
 * (rule `catalog/archived-file`: published for old clients, with its replacements), spec 9.3.
 * @param kinds kind of every collected source file, by path relative to the source folder.
 */
export function reportFileKinds(kinds: ReadonlyMap<string, FileKind>, report: Reporter): void {
  for (const [p, k] of kinds) {
    if (k === 'retired')
      report({
        rule: 'catalog/retired-file',
        file: p,
        pointer: '',
        message: `${p} is retired (spec 9.3): it is not published and ${publishedFile(p)} answers 404. Use warlords-catalog and the master-* files.`,
      });
    const name = p.split('/').pop() ?? p;
    if (k === 'archived' || Object.hasOwn(ARCHIVED, name)) {
      report({
        rule: 'catalog/archived-file',
        file: p,
        pointer: '',
        message: `${p} is deprecated (spec 9.3); replaced by ${ARCHIVED[name]?.join(' + ') ?? '?'}. Published for old clients only.`,
      });
    }
  }
}

/** True for kinds whose problems are capped at `warn` (spec 9.3 design/legacy and archived files). */
export function isLegacyKind(kind: FileKind | undefined): boolean {
  return kind === 'design' || kind === 'archived';
}

export { RECORD_SOURCES, recordsAt, type RecordSource } from '../../api/_lib/formats/record-sources.js';

/** Category statuses (spec 3). */
export const CATEGORY_STATUS: Readonly<Record<string, CategoryStatus>> = Object.freeze({
  weapons: 'live',
  'harvest tools': 'live',
  consumables: 'live',
  materials: 'live',
  relics: 'live',
  enchants: 'live',
  artifacts: 'live',
  buildings: 'live',
  mounts: 'live',
  armor: 'catalog-live',
  'armor prefabs': 'planned',
  drops: 'partial',
});

/** Runtime catalog load order (spec 4.1) with the file each step reads (null: not a catalog file). */
export const LOAD_ORDER: readonly { readonly name: string; readonly file: string | null }[] = Object.freeze([
  { name: 'games library', file: null },
  { name: 'canonical items manifest', file: 'canonical-items-manifest.json' },
  { name: 'master-attributes', file: 'master-attributes.json' },
  { name: 'master-weapon-prefabs', file: 'master-weapon-prefabs.json' },
  { name: 'master-items', file: 'master-items.json' },
  { name: 'master-weaponSkills', file: 'master-weaponSkills.json' },
  { name: 'weapon-stat-bridge', file: 'weapon-stat-bridge.json' },
  { name: 'master-harvest-nodes', file: 'master-harvest-nodes.json' },
  { name: 'master-recipes', file: 'master-recipes.json' },
  { name: 'master-materials', file: 'master-materials.json' },
  { name: 'master-armor', file: 'master-armor.json' },
  { name: 'master-consumables', file: 'master-consumables.json' },
  { name: 'systems bridge', file: null },
]);

/** Version labels of spec 9.2; a catalog config may override any of them. */
export const DEFAULT_VERSIONS: Readonly<Record<string, string>> = Object.freeze({
  interface: '2.4.0',
  package: '4.0.0',
  homeIslandContract: '1.4.0',
  homeIslandSpec: '2.2.0',
  identifierLaw: '2026-09-06',
  accountContract: '2026-09-06',
  iconRegistry: '1.0.0',
});
