/**
 * Where the records of each search and export type live in the catalog (spec §4.4), and the walk that finds
 * them: shared by the build (search index, exports, master registry pointers) and the catalog browser (item
 * pages read the same files and find the same records at the same pointers). Pure.
 */
import { escapePointer, isRecord } from '../util/json.js';
import type { SearchType } from './search-index.js';

/**
 * Where the records of each searchable/exportable type live: candidate files in order of preference
 * (the first present file wins, so the play catalog beats the design template) and the path of the
 * record arrays inside (`*` = every element/member at that level).
 */
export interface RecordSource {
  readonly file: string;
  /** Path segments from the root to the record array(s); `*` fans out over array items or object values (a trailing `*` yields the member objects themselves). */
  readonly arrays: readonly (readonly string[])[];
  /** Field holding the record's id (first present wins). */
  readonly idFields: readonly string[];
}

/** Record sources per search/export type (spec 4.4). */
export const RECORD_SOURCES: Readonly<Record<SearchType, readonly RecordSource[]>> = Object.freeze({
  weapons: [
    { file: 'master-weapons.json', arrays: [['items']], idFields: ['uuid', 'id'] },
    { file: 'weapons.json', arrays: [['categories', '*', 'items']], idFields: ['id', 'uuid'] },
  ],
  armor: [
    { file: 'master-armor.json', arrays: [['items']], idFields: ['uuid', 'id'] },
    { file: 'armor.json', arrays: [['items'], ['armor']], idFields: ['uuid', 'id'] },
  ],
  materials: [
    { file: 'master-materials.json', arrays: [['materials'], ['items']], idFields: ['uuid', 'id'] },
    { file: 'materials.json', arrays: [['materials'], ['items']], idFields: ['uuid', 'id'] },
  ],
  consumables: [
    { file: 'master-consumables.json', arrays: [['items'], ['consumables']], idFields: ['uuid', 'id'] },
    { file: 'consumables.json', arrays: [['items'], ['consumables']], idFields: ['uuid', 'id'] },
  ],
  enemies: [{ file: 'enemies.json', arrays: [['enemies'], ['tiers', '*', 'enemies']], idFields: ['uuid', 'id'] }],
  bosses: [{ file: 'bosses.json', arrays: [['bosses']], idFields: ['uuid', 'id'] }],
  skills: [
    { file: 'master-weaponSkills.json', arrays: [['weaponTypes', '*', 'slots', '*', 'skills']], idFields: ['@skill', 'id'] },
    { file: 'skills.json', arrays: [['skills']], idFields: ['id', 'uuid'] },
  ],
  sprites: [{ file: 'sprites2d.json', arrays: [['categories', '*', 'items']], idFields: ['@sprite'] }],
});

/** Walk `arrays` paths in `data`, yielding each record with its JSON pointer. */
export function* recordsAt(
  data: unknown,
  arrays: readonly (readonly string[])[],
): Generator<{ record: Record<string, unknown>; pointer: string }> {
  for (const segs of arrays) yield* walk(data, segs, 0, '');
}

function* walk(
  node: unknown,
  segs: readonly string[],
  i: number,
  ptr: string,
): Generator<{ record: Record<string, unknown>; pointer: string }> {
  if (i === segs.length) {
    // a path ending in `*` over an object map yields each member object as a record
    if (segs[i - 1] === '*' && isRecord(node)) {
      yield { record: node, pointer: ptr };
      return;
    }
    if (Array.isArray(node)) {
      for (let k = 0; k < node.length; k++) {
        const r: unknown = node[k];
        if (isRecord(r)) yield { record: r, pointer: `${ptr}/${k}` };
      }
    }
    return;
  }
  if (!node || typeof node !== 'object') return;
  const seg = segs[i]!;
  if (seg === '*') {
    if (Array.isArray(node)) for (let k = 0; k < node.length; k++) yield* walk(node[k], segs, i + 1, `${ptr}/${k}`);
    else for (const [k, v] of Object.entries(node)) yield* walk(v, segs, i + 1, `${ptr}/${escapePointer(k)}`);
  } else if (Object.hasOwn(node, seg)) {
    yield* walk((node as Record<string, unknown>)[seg], segs, i + 1, `${ptr}/${escapePointer(seg)}`);
  }
}
