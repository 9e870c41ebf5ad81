/**
 * The game API's player-state operations (spec 1.8, 2.6, 2.8, 2.9, 4.8), between the entry file
 * (`api/player.ts`) and the stores, which it takes as parameters with the parsed request: the caller's
 * account, the revision rules (strong `ETag`, `If-Match` required), merge patches, catalog checks, and
 * the answers.
 *
 * Concurrency (RFC 9110 13.1.1, RFC 6585 3): a state change names the revision it was made from in
 * `If-Match`: no header is 428 PRECONDITION_REQUIRED; `*` is refused the same way (it would let a client
 * overwrite what it never read); a stale revision is 412 PRECONDITION_FAILED, with the current `ETag`.
 * ETags are strong: `"<revision>"`; a weak validator (`W/"3"`) never matches.
 */
import { createHash } from 'node:crypto';
import { readCatalogAll, readCatalogJson } from '../catalog/store.js';
import { systemClock, type Clock } from '../stores/clock.js';
import { requestFingerprint } from '../stores/idempotency.js';
import { ServiceError, type FieldProblem } from '../errors.js';
import { CROCKFORD, mintUuid } from '../ledger/ids.js';
import type { Principal } from '../auth/tokens.js';
import { accountOfToken, suspended } from '../ledger/service.js';
import type { Account, LedgerStore } from '../ledger/types.js';
import { checkBody } from '../validation/check.js';
import { exportFromRts, initialIsland, islandSeedOf, type IslandState, type RtsExportInput } from '../island/generate.js';
import { SIZE_FOUNDATIONS, foundationOfBiome } from '../island/spec.js';
import { mergePatch, type Json } from '../util/merge-patch.js';
import {
  type Character,
  type Era,
  type IslandDoc,
  type LearnedRecipe,
  type PlayerStore,
  type Progress,
  type ProgressSaveOutcome,
  wornItems,
} from './types.js';
import { checkAuthority, ISLAND_AUTHORITY, PROGRESS_AUTHORITY, type Actor } from './authority.js';
import { checkProgress } from './progress.js';
import { noteAuditAccount } from '../util/audit-scope.js';

/** Most characters of one era per account (POST /api/characters answers 409 beyond it). */
export const CHARACTER_SLOTS_PER_ERA = 4;

/** Account-scoped fields of 2.8: refused on a character. */
export const ACCOUNT_SCOPED_FIELDS = [
  'bag',
  'resources',
  'inventory',
  'learned_recipes',
  'wallet',
  'soft_balance',
  'home_island',
  'camps_owner',
  'ledger',
] as const;

/** The progress of a new character: every character-scoped field empty. */
export const EMPTY_PROGRESS: Progress = Object.freeze({
  attributes: {},
  profession_levels: {},
  equipment_on_body: {},
  weapon_mastery: {},
  skill_loadouts: [],
});

/** The strong ETag of a revision. */
export const revisionTag = (revision: number): string => `"${revision}"`;

/**
 * The revisions an `If-Match` header names (RFC 9110 13.1.1: a list of entity tags).
 * @throws ServiceError PRECONDITION_REQUIRED (428) when the header is absent, empty or `*`.
 */
export function ifMatchRevisions(header: string | null): number[] {
  const value = header?.trim() ?? '';
  if (value === '' || value === '*') {
    throw new ServiceError(
      'PRECONDITION_REQUIRED',
      'Send If-Match with the ETag of the state you read (GET it first); "*" is not accepted here, so no change overwrites what its sender never saw.',
    );
  }
  const out: number[] = [];
  for (const part of value.split(',')) {
    const m = /^"(\d{1,15})"$/.exec(part.trim());
    if (m) out.push(Number(m[1]));
  }
  return out;
}

function stale(current: number): ServiceError {
  return new ServiceError(
    'PRECONDITION_FAILED',
    `The state changed since it was read (now revision ${current}); GET it again and re-apply the change.`,
    { headers: { ETag: revisionTag(current) } },
  );
}

/**
 * The caller's account: its token's subject, checked against the account's sessions and ban
 * (`accountOfToken`, spec 5.3).
 * @throws ServiceError NOT_FOUND when no account has this studio id; 401 for a revoked token; 403
 *   ACCOUNT_SUSPENDED while the account is banned; 503
 */
export function callerAccount(ledger: LedgerStore, principal: Principal): Promise<Account> {
  return accountOfToken(ledger, principal);
}

/** Who acts in a player-state request: a player (with its token's subject, a studio id) or a game server. */
export type ActingCaller = { readonly actor: 'player'; readonly principal: Principal } | { readonly actor: 'game-server' };

/**
 * The account a player-state request acts for: a player's own (its token's subject; a `studioId` it
 * sends must be that account's), or the account a game server names with `studioId`.
 * @throws ServiceError 400 INVALID_QUERY (a game server without `studioId`), 403 (a player naming another
 *   account), 404 (no such account), 503
 */
export async function actingAccount(ledger: LedgerStore, who: ActingCaller, studioId: string | undefined): Promise<Account> {
  if (who.actor === 'player') {
    if (studioId !== undefined && studioId !== who.principal.subject)
      throw new ServiceError(
        'FORBIDDEN',
        "A player's token acts for its own account only; studioId names the account a game server acts for.",
      );
    return callerAccount(ledger, who.principal);
  }
  if (studioId === undefined)
    throw new ServiceError('INVALID_QUERY', 'A game server names the account it acts for: ?studioId=STUDIO_….', {
      errors: [{ name: 'studioId', message: 'Required for a game server.' }],
    });
  const account = await ledger.findAccount({ studioId });
  if (!account) throw new ServiceError('NOT_FOUND', 'No account has this studioId.');
  noteAuditAccount(account.accountId);
  return account;
}

/**
 * The account of the character a request acts on: for a player, its own account (another account's
 * character is then not found); for a game server, the character's owner.
 * @throws ServiceError 404 (no such character, or not the player's), 503
 */
export async function characterAccount(ledger: LedgerStore, store: PlayerStore, who: ActingCaller, characterId: string): Promise<Account> {
  if (who.actor === 'player') return callerAccount(ledger, who.principal);
  const owner = await store.characterOwner(characterId);
  const account = owner === undefined ? undefined : await ledger.findAccount({ accountId: owner });
  if (!account) throw new ServiceError('NOT_FOUND', 'No character has this id.');
  noteAuditAccount(account.accountId);
  return account;
}

// ---------------------------------------------------------------- island (2.9)

/** The account's island, created on first read from its deterministic seed (revision 1). */
export function readIsland(store: PlayerStore, account: Account, clock: Clock = systemClock): Promise<IslandDoc> {
  return store.island(account.accountId, () => ({
    state: initialIsland(islandSeedOf(account.accountId)),
    revision: 1,
    updatedAt: clock().toISOString(),
  }));
}

/**
 * Save `state` over the revision `If-Match` names.
 * @throws ServiceError 412, 428, 404 (no island), 403 ACCOUNT_SUSPENDED (a store view that refuses a banned account), 503
 */
async function saveIsland(
  store: PlayerStore,
  account: Account,
  ifMatch: string | null,
  next: (current: IslandState) => IslandState,
  clock: Clock,
): Promise<IslandDoc> {
  const revisions = ifMatchRevisions(ifMatch);
  const current = await readIsland(store, account, clock);
  if (!revisions.includes(current.revision)) throw stale(current.revision);
  const state = next(current.state);
  const out = await store.saveIsland(account.accountId, {
    expectedRevision: current.revision,
    state,
    writeId: mintUuid(),
    at: clock().toISOString(),
  });
  if (out.status === 'saved') return out.doc;
  if (out.status === 'stale') throw stale(out.revision);
  if (out.status === 'suspended') throw suspended(out.ban);
  throw new ServiceError('NOT_FOUND', 'This account has no island.');
}

/** Most bytes of an island's state as JSON (UTF-8): a full heightmap and nature scatter fit with room to spare. */
export const ISLAND_MAX_BYTES = 1024 * 1024;

/**
 * Apply a JSON merge patch (RFC 7396) to the island state. Who may write which field is
 * `ISLAND_AUTHORITY` (`authority.ts`); the merged state must match the state schema whole and stay within
 * {@link ISLAND_MAX_BYTES}.
 * @throws ServiceError 403 (a field the actor may not write), 400 INVALID_BODY naming every bad field of
 *   the merged state, 413, 412, 428, 503
 */
export function patchIsland(
  store: PlayerStore,
  account: Account,
  ifMatch: string | null,
  patch: Record<string, Json>,
  actor: Actor,
  clock: Clock = systemClock,
): Promise<IslandDoc> {
  checkAuthority(ISLAND_AUTHORITY, Object.keys(patch), actor);
  return saveIsland(store, account, ifMatch, (current) => checkedIsland(mergePatch(current as unknown as Json, patch)), clock);
}

/**
 * An island state as it would be stored, checked whole: the state schema with its caps, and
 * {@link ISLAND_MAX_BYTES}. Every write of the island goes through it, the service's own derivations too.
 * @throws ServiceError 400 INVALID_BODY naming every bad field, 413 PAYLOAD_TOO_LARGE
 */
function checkedIsland(value: unknown): IslandState {
  const state = checkBody<IslandState>('island-state', value);
  const bytes = Buffer.byteLength(JSON.stringify(state));
  if (bytes > ISLAND_MAX_BYTES)
    throw new ServiceError(
      'PAYLOAD_TOO_LARGE',
      `The island after this change would be ${bytes} bytes; an island holds at most ${ISLAND_MAX_BYTES}.`,
    );
  return state;
}

/**
 * Derive and store the RTS export (spec 2.9): `rtsExport`, `rtsHeightmap`, `rtsNatureScatter`, and count
 * it in `stats.exports`; the island after it is checked whole, as a patch's is.
 * @throws ServiceError 400 when a sent height is outside the biome's foundation's elevation range or the
 *   island after the export breaks its schema's caps, 413 beyond {@link ISLAND_MAX_BYTES}, 412, 428, 503
 */
export function exportIsland(
  store: PlayerStore,
  account: Account,
  ifMatch: string | null,
  input: RtsExportInput,
  clock: Clock = systemClock,
): Promise<IslandDoc> {
  if (input.heightmap) {
    const foundation = SIZE_FOUNDATIONS.find((f) => f.id === foundationOfBiome(input.biome))!;
    const problems: FieldProblem[] = [];
    input.heightmap.forEach((h, i) => {
      if (h < foundation.minElevationM || h > foundation.maxElevationM)
        problems.push({
          name: `/heightmap/${i}`,
          message: `Height ${h} m is outside ${foundation.id}'s range ${foundation.minElevationM} to ${foundation.maxElevationM} m.`,
        });
    });
    if (problems.length > 0)
      throw new ServiceError('INVALID_BODY', `${problems.length} height(s) outside the foundation's elevation range.`, {
        errors: problems.slice(0, 100),
      });
  }
  const derived = exportFromRts(input);
  return saveIsland(
    store,
    account,
    ifMatch,
    // checked whole like a patch: the derived terrain and the export counter must fit the island's caps
    (current) => checkedIsland({ ...current, ...derived, stats: { ...current.stats, exports: (current.stats.exports ?? 0) + 1 } }),
    clock,
  );
}

// ---------------------------------------------------------------- characters (2.6, 2.8)

/** `characters.studio_code` of a character id: `STDG-` and eight Crockford base32 digits of its SHA-1. */
export function studioCodeOf(characterId: string): string {
  const bytes = createHash('sha1').update(`character:${characterId}`).digest();
  let bits = 0n;
  for (let i = 0; i < 5; i++) bits = (bits << 8n) | BigInt(bytes[i]!);
  let code = '';
  for (let i = 0; i < 8; i++) {
    code = CROCKFORD[Number(bits & 31n)]! + code;
    bits >>= 5n;
  }
  return `STDG-${code.slice(0, 4)}-${code.slice(4)}`;
}

const UUID_KEY = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The character id of a path key: an RFC 4122 uuid (lower-cased).
 * @throws ServiceError BAD_REQUEST for an `STDG-*` display stamp (never a key, spec 2.6) or anything else
 */
export function characterIdOf(key: string | undefined): string {
  const k = key ?? '';
  if (/^STDG-/i.test(k)) {
    throw new ServiceError(
      'BAD_REQUEST',
      `"${k.slice(0, 40)}" is a character display stamp (characters.studio_code), which is never a key; use the character's id (characters.id, a uuid).`,
    );
  }
  if (!UUID_KEY.test(k)) throw new ServiceError('BAD_REQUEST', 'A character is named by its id (characters.id), an RFC 4122 uuid.');
  return k.toLowerCase();
}

interface WorldDefinitions {
  readonly classes: ReadonlySet<string>;
  readonly races: ReadonlySet<string>;
  /** faction id → its race ids. */
  readonly factions: ReadonlyMap<string, ReadonlySet<string>>;
}

const ids = (raw: unknown, member: string): { id: string; races?: string[] }[] => {
  const list = (raw as Record<string, unknown> | null)?.[member];
  if (!Array.isArray(list)) throw new Error(`${member} is not a list`);
  return list as { id: string; races?: string[] }[];
};

/** The world definitions of the published catalog (classes, races, factions), read once per process. */
async function worldDefinitions(): Promise<WorldDefinitions> {
  // every missing file named at once (a catalog without classes.json often lacks races.json and factions.json too)
  const [classes, races, factions] = await readCatalogAll([
    readCatalogJson('api/v1/classes.json', (raw) => new Set(ids(raw, 'classes').map((c) => c.id))),
    readCatalogJson('api/v1/races.json', (raw) => new Set(ids(raw, 'races').map((r) => r.id))),
    readCatalogJson('api/v1/factions.json', (raw) => new Map(ids(raw, 'factions').map((f) => [f.id, new Set(f.races ?? [])] as const))),
  ] as const);
  return { classes, races, factions };
}

/** Body of POST /api/characters (schema `character-create`). */
export interface CreateCharacterBody {
  readonly era: Era;
  readonly name: string;
  readonly classId: string;
  readonly raceId: string;
  readonly factionId: string;
  readonly idempotencyKey?: string;
}

/**
 * Create a character for the account (spec 2.6, 2.8).
 * @returns the character and whether it was created now (false for a replay of the idempotency key).
 * @throws ServiceError 400 INVALID_BODY (every id the catalog does not define, a race outside its faction),
 *   409 CONFLICT (every slot of the era taken), 422 IDEMPOTENCY_KEY_REUSED, 503 (catalog or store)
 */
export async function createCharacter(
  store: PlayerStore,
  account: Account,
  body: CreateCharacterBody,
  clock: Clock = systemClock,
): Promise<{ character: Character; created: boolean }> {
  const world = await worldDefinitions();
  const problems: FieldProblem[] = [];
  if (!world.classes.has(body.classId))
    problems.push({ name: '/classId', message: `No class "${body.classId}" in the catalog (classes.json).` });
  if (!world.races.has(body.raceId)) problems.push({ name: '/raceId', message: `No race "${body.raceId}" in the catalog (races.json).` });
  const factionRaces = world.factions.get(body.factionId);
  if (!factionRaces) problems.push({ name: '/factionId', message: `No faction "${body.factionId}" in the catalog (factions.json).` });
  else if (world.races.has(body.raceId) && !factionRaces.has(body.raceId))
    problems.push({ name: '/raceId', message: `Race "${body.raceId}" does not belong to faction "${body.factionId}".` });
  if (problems.length > 0)
    throw new ServiceError('INVALID_BODY', `${problems.length} invalid field(s) in the body: ${problems.map((p) => p.name).join(', ')}.`, {
      errors: problems,
    });
  const at = clock().toISOString();
  const id = mintUuid();
  const character: Character = {
    id,
    studioCode: studioCodeOf(id),
    accountId: account.accountId,
    era: body.era,
    name: body.name,
    classId: body.classId,
    raceId: body.raceId,
    factionId: body.factionId,
    createdAt: at,
    progress: EMPTY_PROGRESS,
    progressRevision: 1,
    updatedAt: at,
  };
  const { idempotencyKey: clientKey, ...request } = body;
  const out = await store.createCharacter({
    character,
    slotsPerEra: CHARACTER_SLOTS_PER_ERA,
    clientKey,
    fingerprint: requestFingerprint(request),
  });
  switch (out.status) {
    case 'created':
      return { character: out.character, created: true };
    case 'replayed':
      return { character: out.character, created: false };
    case 'full':
      throw new ServiceError('CONFLICT', `Every character slot of the ${body.era} era is taken (${out.slotsPerEra} per era).`);
    default:
      throw new ServiceError(
        'IDEMPOTENCY_KEY_REUSED',
        'This idempotency key already created a character from another request; use a new key.',
      );
  }
}

/** A character as the API answers it (the list and the creation). */
export function characterView(c: Character) {
  return {
    id: c.id,
    studioCode: c.studioCode,
    era: c.era,
    name: c.name,
    classId: c.classId,
    raceId: c.raceId,
    factionId: c.factionId,
    createdAt: c.createdAt,
    progress_revision: c.progressRevision,
  };
}

/** The character-scoped fields of 2.8 with `progress_revision` (GET /api/characters/{id}/progress). */
export function progressView(c: Character) {
  return { characterId: c.id, game_era: c.era, ...c.progress, progress_revision: c.progressRevision, updatedAt: c.updatedAt };
}

/** One of the caller's characters. @throws ServiceError NOT_FOUND (also for another account's: no existence leak) */
export async function ownCharacter(store: PlayerStore, account: Account, characterId: string): Promise<Character> {
  const c = await store.character(account.accountId, characterId);
  if (!c) throw new ServiceError('NOT_FOUND', 'You have no character with this id.');
  return c;
}

/** Problems of a progress patch that names account-scoped fields (spec 2.8). */
export function accountScopedProblems(body: unknown): FieldProblem[] {
  const progress = (body as { progress?: unknown } | null)?.progress;
  if (typeof progress !== 'object' || progress === null || Array.isArray(progress)) return [];
  return Object.keys(progress)
    .filter((k) => (ACCOUNT_SCOPED_FIELDS as readonly string[]).includes(k))
    .map((k) => ({
      name: `/progress/${k}`,
      message: `"${k}" is account-scoped (spec 2.8): it belongs to the account, never to a character.`,
    }));
}

/** Body of PATCH /api/characters/{id}/progress (schema `character-progress-patch`). */
export interface ProgressPatchBody {
  readonly idempotencyKey: string;
  readonly progress: Record<string, Json>;
}

/**
 * Apply a merge patch to a character's progress over the revision `If-Match` names, once per key
 * (spec 2.8). A member set to null empties the field. Who may write which field is `PROGRESS_AUTHORITY`
 * (`authority.ts`): a player's token its skill loadouts, a game server every field. The merged progress is
 * checked whole (`progress.ts`: caps, size, catalog ids of the changed fields), and the items it wears
 * against the item ledger in the write itself. A key used before answers its replay whatever the
 * character's progress is now.
 * @returns the character after the save (as it stands, for a replay) and whether this request replayed an earlier one.
 * @throws ServiceError 403 (a field the actor may not write; ACCOUNT_SUSPENDED through a store view that
 *   refuses a banned account, `refusingBanned`), 400 (bounds, catalog ids, equipment), 404, 412 (with the
 *   current ETag), 413, 428, 422 IDEMPOTENCY_KEY_REUSED, 503
 */
export async function patchProgress(
  store: PlayerStore,
  account: Account,
  characterId: string,
  ifMatch: string | null,
  body: ProgressPatchBody,
  actor: Actor,
  clock: Clock = systemClock,
): Promise<{ character: Character; replayed: boolean }> {
  const revisions = ifMatchRevisions(ifMatch);
  checkAuthority(PROGRESS_AUTHORITY, Object.keys(body.progress), actor, '/progress');
  // the key is bound to the request as sent: the patch and the revision it names
  const fingerprint = requestFingerprint([body.progress, revisions]);
  const current = await ownCharacter(store, account, characterId);
  const expected = revisions.includes(current.progressRevision) ? current.progressRevision : (revisions[0] ?? -1);
  let progress: Progress;
  try {
    const merged = mergePatch(current.progress as unknown as Json, body.progress) as unknown as Partial<Progress>;
    progress = await checkProgress({ ...EMPTY_PROGRESS, ...merged }, new Set(Object.keys(body.progress)));
  } catch (e) {
    // a refusal that depends on the progress now: a key used before still answers its replay
    const known =
      e instanceof ServiceError ? await store.progressRecord(account.accountId, characterId, body.idempotencyKey, fingerprint) : undefined;
    if (!known) throw e;
    return progressAnswer(known);
  }
  const out = await store.saveProgress(account.accountId, characterId, {
    expectedRevision: expected,
    progress,
    idempotencyKey: body.idempotencyKey,
    fingerprint,
    at: clock().toISOString(),
    equipment: wornItems(progress),
    // what the document the patch was merged into wore: the write refuses any other revision
    unequip: wornItems(current.progress).filter((id) => !Object.values(progress.equipment_on_body).includes(id)),
  });
  return progressAnswer(out);
}

/** The answer of a progress save's outcome. @throws ServiceError as {@link patchProgress} */
function progressAnswer(out: ProgressSaveOutcome): { character: Character; replayed: boolean } {
  switch (out.status) {
    case 'created':
      return { character: out.character, replayed: false };
    case 'replayed':
      // the character as it stands: the first save's answer unless later saves followed it
      return { character: out.character, replayed: true };
    case 'stale':
      throw stale(out.revision);
    case 'equipment-refused': {
      const why = {
        missing: 'is not a minted item',
        'not-owned': 'belongs to another account',
        state: 'is consumed, destroyed, voided, or worn by another character',
      };
      throw new ServiceError(
        'INVALID_BODY',
        `${out.refused.length} item(s) this character would wear cannot be worn: ${out.refused.map((r) => r.studioUuid).join(', ')}.`,
        {
          errors: out.refused.map((r) => ({
            name: '/progress/equipment_on_body',
            message: `${r.studioUuid} ${why[r.reason]}.`,
            value: r.studioUuid,
          })),
        },
      );
    }
    case 'key-reused':
      throw new ServiceError('IDEMPOTENCY_KEY_REUSED', 'This idempotency key was used for another change; use a new key.');
    case 'suspended':
      throw suspended(out.ban);
    default:
      throw new ServiceError('NOT_FOUND', 'You have no character with this id.');
  }
}

// ---------------------------------------------------------------- recipes (4.8)

/** Recipe ids of the published catalog's master-recipes.json, read once per process. */
function catalogRecipeIds(): Promise<ReadonlySet<string>> {
  return readCatalogJson('api/v1/master-recipes.json', (raw) => {
    const list = (raw as { recipes?: unknown } | null)?.recipes;
    if (!Array.isArray(list)) throw new Error('recipes is not a list');
    return new Set((list as { uuid?: unknown }[]).map((r) => r.uuid).filter((u): u is string => typeof u === 'string'));
  });
}

/** Body of POST /api/account/recipes (schema `recipe-learn`): the account by exactly one selector, and the recipe. */
export interface RecipeLearnBody {
  readonly studioId?: string;
  readonly accountId?: string;
  readonly recipeId: string;
}

/**
 * Teach an account a recipe of the catalog (a game server's write: recipes confer power); learning it
 * again changes nothing and answers the first time.
 * @throws ServiceError 400 INVALID_BODY when the catalog has no such recipe, 404 (no such account), 403
 *   ACCOUNT_SUSPENDED (a store view that refuses a banned account, `refusingBanned`), 503
 */
export async function learnRecipe(
  store: PlayerStore,
  ledger: LedgerStore,
  body: RecipeLearnBody,
  clock: Clock = systemClock,
): Promise<{ learned: boolean; recipe: LearnedRecipe }> {
  if (!(await catalogRecipeIds()).has(body.recipeId)) {
    throw new ServiceError('INVALID_BODY', `No recipe ${body.recipeId.slice(0, 80)} in the catalog.`, {
      errors: [{ name: '/recipeId', message: 'Not a recipe of the published catalog (master-recipes.json).' }],
    });
  }
  const account = await ledger.findAccount(body.studioId !== undefined ? { studioId: body.studioId } : { accountId: body.accountId! });
  if (!account) throw new ServiceError('NOT_FOUND', `No account has this ${body.studioId !== undefined ? 'studioId' : 'accountId'}.`);
  noteAuditAccount(account.accountId);
  const out = await store.learnRecipe(account.accountId, body.recipeId, clock().toISOString());
  if ('status' in out) throw suspended(out.ban);
  return out;
}
