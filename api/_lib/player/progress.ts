/**
 * What a character's progress may hold (spec 2.8; spec 4.1 names the eight attributes): the merged
 * document is checked whole against `schemas/requests/character-progress.schema.json` (its caps hold for
 * the document, not only for one patch) and held to {@link PROGRESS_MAX_BYTES}; the fields a request
 * changes are checked against the published catalog: attribute codes (STR, INT, VIT, DEX, END, WIS, AGI,
 * TAC), profession ids (`professions.json` or `master-professions.json`), weapon types and skills
 * (`master-weaponSkills.json`, the derived `studioUuid` of each skill). Equipment is checked against the
 * item ledger by the store, in the write itself (`PlayerStore.saveProgress`).
 */
import { readCatalogJson } from '../catalog/store.js';
import { ServiceError, type FieldProblem } from '../errors.js';
import { checkBody } from '../validation/check.js';
import type { Progress } from './types.js';

/** Most bytes of a character's progress as JSON (UTF-8). */
export const PROGRESS_MAX_BYTES = 64 * 1024;

/** The eight attributes of spec 4.1, by code. */
export const ATTRIBUTE_CODES: readonly string[] = Object.freeze(['STR', 'INT', 'VIT', 'DEX', 'END', 'WIS', 'AGI', 'TAC']);

/** Ids a progress field's keys and values must name. */
export interface ProgressCatalog {
  readonly professions: ReadonlySet<string>;
  readonly weaponTypes: ReadonlySet<string>;
  readonly skills: ReadonlySet<string>;
}

const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const idOf = (v: unknown): string | undefined =>
  typeof v === 'string' ? v : typeof (v as { id?: unknown } | null)?.id === 'string' ? (v as { id: string }).id : undefined;

/** Profession ids of a professions file: arrays of `{ id }` or of names, or an object keyed by name. */
function professionIds(raw: unknown): Set<string> {
  const out = new Set<string>();
  for (const part of ['gathering', 'crafting']) {
    const v = (raw as Record<string, unknown> | null)?.[part];
    const ids = Array.isArray(v) ? v.map(idOf) : v && typeof v === 'object' ? Object.keys(v) : [];
    for (const id of ids) if (id) out.add(id);
  }
  return out;
}

/** The catalog's progress ids, read once per process. @throws ServiceError 503 naming a missing catalog file */
export async function progressCatalog(): Promise<ProgressCatalog> {
  const professions = await readCatalogJson('api/v1/professions.json', professionIds).catch(() =>
    readCatalogJson('api/v1/master-professions.json', professionIds),
  );
  const weapons = await readCatalogJson('api/v1/master-weaponSkills.json', (raw) => {
    const weaponTypes = new Set<string>();
    const skills = new Set<string>();
    for (const t of list((raw as { weaponTypes?: unknown } | null)?.weaponTypes)) {
      const id = idOf(t);
      if (id) weaponTypes.add(id);
      for (const slot of list((t as { slots?: unknown }).slots))
        for (const skill of list((slot as { skills?: unknown }).skills)) {
          const uuid = (skill as { studioUuid?: unknown }).studioUuid;
          if (typeof uuid === 'string') skills.add(uuid);
        }
    }
    return { weaponTypes, skills };
  });
  return { professions, ...weapons };
}

/**
 * Check a merged progress document whole: its schema with the document's caps, its size, and the catalog
 * ids of the fields `changed` names.
 * @throws ServiceError 400 INVALID_BODY naming every bad field (pointers under `/progress`), 413
 *   PAYLOAD_TOO_LARGE beyond {@link PROGRESS_MAX_BYTES}, 503 when the catalog cannot be read
 */
export async function checkProgress(progress: Progress, changed: ReadonlySet<string>): Promise<Progress> {
  try {
    checkBody('character-progress', progress);
  } catch (e) {
    if (e instanceof ServiceError && e.errors) {
      const errors = e.errors.map((p) => ({ ...p, name: `/progress${p.name}` }));
      throw new ServiceError(
        'INVALID_BODY',
        `The progress after this change would break its bounds: ${errors.map((p) => p.name).join(', ')}.`,
        { errors },
      );
    }
    throw e;
  }
  const bytes = Buffer.byteLength(JSON.stringify(progress));
  if (bytes > PROGRESS_MAX_BYTES)
    throw new ServiceError(
      'PAYLOAD_TOO_LARGE',
      `The progress after this change would be ${bytes} bytes; a character's progress holds at most ${PROGRESS_MAX_BYTES}.`,
    );
  const catalog = await progressCatalog();
  const problems: FieldProblem[] = [];
  const unknown = (field: string, names: Iterable<string>, known: (n: string) => boolean, what: string) => {
    for (const n of names) if (!known(n)) problems.push({ name: `/progress/${field}/${n}`, message: `"${n}" is not ${what}.` });
  };
  if (changed.has('attributes'))
    unknown(
      'attributes',
      Object.keys(progress.attributes),
      (n) => ATTRIBUTE_CODES.includes(n),
      'an attribute (STR, INT, VIT, DEX, END, WIS, AGI, TAC)',
    );
  if (changed.has('profession_levels'))
    unknown('profession_levels', Object.keys(progress.profession_levels), (n) => catalog.professions.has(n), 'a profession of the catalog');
  if (changed.has('weapon_mastery'))
    unknown(
      'weapon_mastery',
      Object.keys(progress.weapon_mastery),
      (n) => catalog.weaponTypes.has(n),
      'a weapon type of the catalog (master-weaponSkills.json)',
    );
  if (changed.has('skill_loadouts'))
    progress.skill_loadouts.forEach((loadout, i) =>
      loadout.skills.forEach((skill, j) => {
        if (!catalog.skills.has(skill))
          problems.push({
            name: `/progress/skill_loadouts/${i}/skills/${j}`,
            message: `"${skill}" is not a skill of the catalog (master-weaponSkills.json).`,
          });
      }),
    );
  if (problems.length > 0)
    throw new ServiceError(
      'INVALID_BODY',
      `${problems.length} id(s) the catalog does not define: ${problems
        .slice(0, 10)
        .map((p) => p.name)
        .join(', ')}.`,
      { errors: problems.slice(0, 100) },
    );
  return progress;
}
