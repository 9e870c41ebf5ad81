/**
 * Who writes each field of player state (spec 1.8: player state is owned by the game API; 2.8, 2.9;
 * docs/architecture.md, "Who writes player state", shows this table). The rule: whatever
 * confers power or value (progression, equipment, recipes, items, coin, derived terrain) is written by a
 * game server or derived by the service, and checked against the catalog and the item ledger; what the
 * player freely chooses (camp position, the layout of clearings, skill loadouts) the player writes.
 *
 * Writers: `player` (the player's own token; game servers may write these too), `game-server` (a token
 * whose role is `server`, `admin` or `master`, or the admin password) and `service` (derived by the
 * service itself: no request writes it directly).
 */
import { ServiceError, type FieldProblem } from '../errors.js';
import type { IslandState } from '../island/generate.js';
import type { Progress } from './types.js';

/** Who may write a field. */
export type Writer = 'player' | 'game-server' | 'service';

/** Who acts in a request: the player, or a game server (acting for the player's account). */
export type Actor = 'player' | 'game-server';

/** One field's writer, and why, in words for a refusal. */
export interface FieldAuthority {
  readonly writer: Writer;
  /** What the field is, and where it comes from, as the end of a sentence. */
  readonly why: string;
}

/** The home island's fields (spec 2.9). */
export const ISLAND_AUTHORITY: Readonly<Record<keyof IslandState, FieldAuthority>> = Object.freeze({
  seed: { writer: 'service', why: 'is fixed when the island is made from the account' },
  terrainZones: { writer: 'service', why: 'is generated from the seed' },
  mountainTriad: { writer: 'service', why: 'is generated from the seed' },
  rtsHeightmap: { writer: 'service', why: 'is derived by POST /api/island/export-from-rts' },
  rtsNatureScatter: { writer: 'service', why: 'is derived by POST /api/island/export-from-rts' },
  rtsExport: { writer: 'service', why: 'is derived by POST /api/island/export-from-rts, with its hash' },
  campPosition: { writer: 'player', why: 'is the player’s choice' },
  clearings: { writer: 'player', why: 'is the layout the player chooses' },
  nodes: { writer: 'game-server', why: 'is harvest state a game server keeps' },
  animals: { writer: 'game-server', why: 'is world state a game server keeps' },
  regrowRegions: { writer: 'game-server', why: 'is world state a game server keeps' },
  stats: { writer: 'game-server', why: 'is counters a game server keeps' },
});

/** A character's progress (spec 2.8). */
export const PROGRESS_AUTHORITY: Readonly<Record<keyof Progress, FieldAuthority>> = Object.freeze({
  attributes: { writer: 'game-server', why: 'is progression a game server writes' },
  profession_levels: { writer: 'game-server', why: 'is progression a game server writes' },
  weapon_mastery: { writer: 'game-server', why: 'is progression a game server writes' },
  equipment_on_body: { writer: 'game-server', why: 'is equipment a game server writes, checked against the item ledger' },
  skill_loadouts: { writer: 'player', why: 'is the player’s choice among catalog skills' },
});

/**
 * Refuse the fields of `fields` that `actor` may not write under `table`.
 * @param pointer the JSON pointer of the object the fields are members of (e.g. `/progress`).
 * @throws ServiceError FORBIDDEN (403) naming every such field and who writes it
 */
export function checkAuthority(
  table: Readonly<Record<string, FieldAuthority>>,
  fields: readonly string[],
  actor: Actor,
  pointer = '',
): void {
  const problems: FieldProblem[] = [];
  for (const field of fields) {
    const rule = table[field];
    if (!rule || rule.writer === 'player' || (rule.writer === 'game-server' && actor === 'game-server')) continue;
    const who = rule.writer === 'service' ? 'no request writes it' : 'only a game server writes it';
    problems.push({ name: `${pointer}/${field}`, message: `"${field}" ${rule.why}: ${who}.` });
  }
  if (problems.length > 0) {
    const writable = Object.entries(table)
      .filter(([, r]) => r.writer === 'player' || (r.writer === 'game-server' && actor === 'game-server'))
      .map(([f]) => f);
    throw new ServiceError(
      'FORBIDDEN',
      `This ${actor === 'player' ? 'player token' : 'game server'} may not write ${problems.map((p) => p.name).join(', ')}; it may write ${writable.join(', ')}.`,
      { errors: problems },
    );
  }
}
