/**
 * The player service's operations called directly (spec 2.6, 2.8, 2.9, 4.8; `api/_lib/player/service.ts`)
 * over SQLite stores and the sample catalog, with a stand-in store where an outcome arises only under a
 * race: whose account a request acts for, the island's revisions and derived export, character creation
 * with its catalog checks, slots and idempotency key, progress patches with their revision, replay and
 * equipment answers, and recipes.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Principal } from '../../api/_lib/auth/tokens.js';
import { mintUuid } from '../../api/_lib/ledger/ids.js';
import type { Account, LedgerStore } from '../../api/_lib/ledger/types.js';
import { initialIsland, islandSeedOf } from '../../api/_lib/island/generate.js';
import {
  actingAccount,
  characterAccount,
  characterView,
  createCharacter,
  EMPTY_PROGRESS,
  exportIsland,
  learnRecipe,
  ownCharacter,
  patchIsland,
  patchProgress,
  progressView,
  readIsland,
  studioCodeOf,
  type CreateCharacterBody,
} from '../../api/_lib/player/service.js';
import type { Character, IslandSave, PlayerStore, ProgressSave, ProgressSaveOutcome } from '../../api/_lib/player/types.js';
import { SAMPLE_OUT } from '../helpers/catalog.js';
import { refusal } from '../helpers/ledger-ops.js';
import { twoAccountsEachTest, withMethods } from '../helpers/player.js';

const RECIPE = (
  JSON.parse(readFileSync(join(SAMPLE_OUT, 'api/v1/master-recipes.json'), 'utf8')) as {
    recipes: { uuid: string }[];
  }
).recipes[0]!.uuid;
const T0 = '2026-11-24T09:00:00.000Z';
const clock = () => new Date(T0);

let ledger: LedgerStore;
let store: PlayerStore;
let ada: Account;
let bo: Account;
twoAccountsEachTest((v) => ({ ledger, store, ada, bo } = v));

const principalOf = (a: Account): Principal => ({
  subject: a.studioId,
  role: 'player',
  guest: false,
  issuedAt: Math.floor(Date.now() / 1000),
  expiresAt: Math.floor(Date.now() / 1000) + 600,
});
const asPlayer = (a: Account) => ({ actor: 'player' as const, principal: principalOf(a) });
const SERVER = { actor: 'game-server' as const };

const warrior = (over: Partial<CreateCharacterBody> = {}): CreateCharacterBody => ({
  era: 'warlords',
  name: 'Ada',
  classId: 'warrior',
  raceId: 'human',
  factionId: 'crusade',
  ...over,
});
/** `run`'s promise, or its synchronous throw as a rejection (patchIsland and exportIsland check their input before any await). */
const settled = <T>(run: () => Promise<T>): Promise<T> => Promise.resolve().then(run);
const characterOf = async (a: Account, over: Partial<CreateCharacterBody> = {}): Promise<Character> =>
  (await createCharacter(store, a, warrior(over), clock)).character;

describe('the account a request acts for', () => {
  it("is a player's own, whether or not it names its own studioId; another studioId is forbidden", async () => {
    expect(await actingAccount(ledger, asPlayer(ada), undefined)).toEqual(ada);
    expect(await actingAccount(ledger, asPlayer(ada), ada.studioId)).toEqual(ada);
    const e = await refusal(actingAccount(ledger, asPlayer(ada), bo.studioId));
    expect([e.code, e.message]).toEqual([
      'FORBIDDEN',
      "A player's token acts for its own account only; studioId names the account a game server acts for.",
    ]);
  });

  it('is the one a game server names, which it must name and which must exist', async () => {
    expect(await actingAccount(ledger, SERVER, bo.studioId)).toEqual(bo);
    const unnamed = await refusal(actingAccount(ledger, SERVER, undefined));
    expect([unnamed.code, unnamed.message, unnamed.errors]).toEqual([
      'INVALID_QUERY',
      'A game server names the account it acts for: ?studioId=STUDIO_….',
      [{ name: 'studioId', message: 'Required for a game server.' }],
    ]);
    const unknown = await refusal(actingAccount(ledger, SERVER, 'STUDIO_NOBODY001'));
    expect([unknown.code, unknown.message]).toEqual(['NOT_FOUND', 'No account has this studioId.']);
  });

  it("of a character is a player's own account, and for a game server the character's owner", async () => {
    const c = await characterOf(bo);
    expect(await characterAccount(ledger, store, asPlayer(ada), c.id)).toEqual(ada);
    expect(await characterAccount(ledger, store, SERVER, c.id)).toEqual(bo);
    const none = await refusal(characterAccount(ledger, store, SERVER, mintUuid()));
    expect([none.code, none.message]).toEqual(['NOT_FOUND', 'No character has this id.']);
    const orphan = withMethods(store, { characterOwner: () => Promise.resolve(mintUuid()) });
    expect((await refusal(characterAccount(ledger, orphan, SERVER, c.id))).message).toBe('No character has this id.');
  });
});

describe('the island', () => {
  it("is made on first read from the account's seed, at revision 1", async () => {
    const doc = await readIsland(store, ada, clock);
    expect(doc).toEqual({ state: initialIsland(islandSeedOf(ada.accountId)), revision: 1, updatedAt: T0 });
    expect((await readIsland(store, ada, () => new Date('2027-01-01T00:00:00.000Z'))).updatedAt).toBe(T0);
  });

  it('takes a patch over the revision If-Match names, and refuses a stale or missing one with the current ETag', async () => {
    const saved = await patchIsland(store, ada, '"7", "1"', { campPosition: { x: 1, z: 2 } }, 'player', clock);
    expect([saved.revision, saved.state.campPosition, saved.updatedAt]).toEqual([2, { x: 1, z: 2 }, T0]);
    const stale = await refusal(patchIsland(store, ada, '"1"', { campPosition: { x: 3, z: 4 } }, 'player', clock));
    expect([stale.code, stale.message, stale.headers]).toEqual([
      'PRECONDITION_FAILED',
      'The state changed since it was read (now revision 2); GET it again and re-apply the change.',
      { ETag: '"2"' },
    ]);
    expect((await refusal(patchIsland(store, ada, null, {}, 'player', clock))).code).toBe('PRECONDITION_REQUIRED');
    expect((await readIsland(store, ada, clock)).state.campPosition).toEqual({ x: 1, z: 2 });
  });

  it('refuses a field the actor may not write before reading anything, and a state that breaks its schema', async () => {
    const forbidden = await refusal(settled(() => patchIsland(store, ada, null, { nodes: [] }, 'player', clock)));
    expect([forbidden.code, forbidden.errors?.map((p) => p.name)]).toEqual(['FORBIDDEN', ['/nodes']]);
    const bad = await refusal(patchIsland(store, ada, '"1"', { stats: { '1st': 1 } }, 'game-server', clock));
    expect([bad.code, bad.errors?.map((p) => p.name)]).toEqual(['INVALID_BODY', ['/stats/1st']]);
    expect((await readIsland(store, ada, clock)).revision).toBe(1);
  });

  it('asks the store for the revision it read with a fresh write id, and answers a race lost in the store', async () => {
    const asked: IslandSave[] = [];
    const racing = withMethods(store, {
      saveIsland: (_: string, save: IslandSave) => {
        asked.push(save);
        return Promise.resolve({ status: 'stale' as const, revision: 5 });
      },
    });
    const e = await refusal(patchIsland(racing, ada, '"1"', { campPosition: { x: 1, z: 2 } }, 'player', clock));
    expect([e.code, e.headers]).toEqual(['PRECONDITION_FAILED', { ETag: '"5"' }]);
    expect(asked).toHaveLength(1);
    expect([asked[0]!.expectedRevision, asked[0]!.at, asked[0]!.state.campPosition]).toEqual([1, T0, { x: 1, z: 2 }]);
    expect(asked[0]!.writeId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    const gone = withMethods(store, { saveIsland: () => Promise.resolve({ status: 'missing' as const }) });
    const missing = await refusal(patchIsland(gone, ada, '"1"', {}, 'player', clock));
    expect([missing.code, missing.message]).toEqual(['NOT_FOUND', 'This account has no island.']);
  });

  it('exports from the RTS editor, counting each export, and refuses heights outside the foundation, bounds included', async () => {
    const input = { gridX: 0, gridZ: 0, seed: 1, biome: 'beach' };
    const first = await exportIsland(store, ada, '"1"', input, clock);
    expect([first.revision, first.state.stats.exports, first.state.rtsExport?.biome]).toEqual([2, 1, 'beach']);
    const second = await exportIsland(store, ada, '"2"', input, clock);
    expect(second.state.stats.exports).toBe(2);
    // driftwood_bay (beach): -28 to 48 m
    const heights = Array.from({ length: 150 }, (_, i) => (i < 2 ? [-28, 48][i]! : i % 2 ? 48.01 : -28.01));
    const e = await refusal(settled(() => exportIsland(store, ada, '"3"', { ...input, heightmap: heights }, clock)));
    expect([e.code, e.message]).toEqual(['INVALID_BODY', "148 height(s) outside the foundation's elevation range."]);
    expect(e.errors).toHaveLength(100);
    expect(e.errors[0]).toEqual({ name: '/heightmap/2', message: "Height -28.01 m is outside driftwood_bay's range -28 to 48 m." });
    expect(e.errors[1]!.name).toBe('/heightmap/3');
    expect((await readIsland(store, ada, clock)).revision).toBe(3);
  });

  it("takes sent heights within the range of the biome's own foundation", async () => {
    // forest is ironfang_spire's (-30 to 80 m); 60 m is above driftwood_bay's 48 m
    const heightmap = Array.from({ length: 128 * 128 }, () => 60);
    const saved = await exportIsland(store, ada, '"1"', { gridX: 0, gridZ: 0, seed: 1, biome: 'forest', heightmap }, clock);
    expect([saved.revision, saved.state.rtsExport?.foundationId, saved.state.rtsHeightmap?.heightsM.every((h) => h === 60)]).toEqual([
      2,
      'ironfang_spire',
      true,
    ]);
  });
});

describe('characters', () => {
  it('are created with their display stamp, empty progress at revision 1, and answered in their views', async () => {
    const { character, created } = await createCharacter(store, ada, warrior(), clock);
    expect(created).toBe(true);
    expect(character).toEqual({
      id: character.id,
      studioCode: studioCodeOf(character.id),
      accountId: ada.accountId,
      era: 'warlords',
      name: 'Ada',
      classId: 'warrior',
      raceId: 'human',
      factionId: 'crusade',
      createdAt: T0,
      progress: EMPTY_PROGRESS,
      progressRevision: 1,
      updatedAt: T0,
    });
    expect(characterView(character)).toEqual({
      id: character.id,
      studioCode: character.studioCode,
      era: 'warlords',
      name: 'Ada',
      classId: 'warrior',
      raceId: 'human',
      factionId: 'crusade',
      createdAt: T0,
      progress_revision: 1,
    });
    expect(progressView(character)).toEqual({
      characterId: character.id,
      game_era: 'warlords',
      ...EMPTY_PROGRESS,
      progress_revision: 1,
      updatedAt: T0,
    });
    expect(await ownCharacter(store, ada, character.id)).toEqual(character);
    const foreign = await refusal(ownCharacter(store, bo, character.id));
    expect([foreign.code, foreign.message]).toEqual(['NOT_FOUND', 'You have no character with this id.']);
  });

  it('name every id the catalog does not define, and a race outside its faction', async () => {
    const all = await refusal(createCharacter(store, ada, warrior({ classId: 'bard', raceId: 'orc', factionId: 'horde' }), clock));
    expect([all.code, all.message, all.errors]).toEqual([
      'INVALID_BODY',
      '3 invalid field(s) in the body: /classId, /raceId, /factionId.',
      [
        { name: '/classId', message: 'No class "bard" in the catalog (classes.json).' },
        { name: '/raceId', message: 'No race "orc" in the catalog (races.json).' },
        { name: '/factionId', message: 'No faction "horde" in the catalog (factions.json).' },
      ],
    ]);
    const outside = await refusal(createCharacter(store, ada, warrior({ raceId: 'sylvan' }), clock));
    expect(outside.errors).toEqual([{ name: '/raceId', message: 'Race "sylvan" does not belong to faction "crusade".' }]);
    const unknownRace = await refusal(createCharacter(store, ada, warrior({ raceId: 'orc' }), clock));
    expect(unknownRace.errors).toEqual([{ name: '/raceId', message: 'No race "orc" in the catalog (races.json).' }]);
    expect(await store.characters(ada.accountId, 'warlords')).toEqual([]);
  });

  it('replay the first creation for a key used with the same body, refuse it with another, and fill four slots per era', async () => {
    const first = await createCharacter(store, ada, warrior({ idempotencyKey: 'create-0001' }), clock);
    const again = await createCharacter(store, ada, warrior({ idempotencyKey: 'create-0001' }), clock);
    expect([again.created, again.character]).toEqual([false, first.character]);
    const reused = await refusal(createCharacter(store, ada, warrior({ name: 'Bea', idempotencyKey: 'create-0001' }), clock));
    expect([reused.code, reused.message]).toEqual([
      'IDEMPOTENCY_KEY_REUSED',
      'This idempotency key already created a character from another request; use a new key.',
    ]);
    for (let i = 0; i < 3; i++) await characterOf(ada);
    const full = await refusal(createCharacter(store, ada, warrior(), clock));
    expect([full.code, full.message]).toEqual(['CONFLICT', 'Every character slot of the warlords era is taken (4 per era).']);
    expect(await store.characters(ada.accountId, 'warlords')).toHaveLength(4);
  });
});

describe('progress patches', () => {
  const patch = (
    c: Character,
    ifMatch: string | null,
    progress: Record<string, never> | object,
    key = 'progress-0001',
    actor = 'game-server',
  ) => patchProgress(store, ada, c.id, ifMatch, { idempotencyKey: key, progress } as never, actor as 'player', clock);

  it('merge into the revision If-Match names, once per key, and refuse a stale revision with the current ETag', async () => {
    const c = await characterOf(ada);
    const first = await patch(c, '"4", "1"', { attributes: { STR: 12 } });
    expect([first.replayed, first.character.progressRevision, first.character.progress.attributes]).toEqual([false, 2, { STR: 12 }]);
    const replay = await patch(c, '"4", "1"', { attributes: { STR: 12 } });
    expect([replay.replayed, replay.character.progressRevision]).toEqual([true, 2]);
    const reused = await refusal(patch(c, '"2"', { attributes: { STR: 13 } }));
    expect([reused.code, reused.message]).toEqual([
      'IDEMPOTENCY_KEY_REUSED',
      'This idempotency key was used for another change; use a new key.',
    ]);
    // a list naming no strong revision saves nothing, even at the character's first revision
    const fresh = await characterOf(ada);
    const weak = await refusal(patch(fresh, 'W/"1"', { attributes: { DEX: 1 } }, 'progress-weak'));
    expect([weak.code, weak.headers]).toEqual(['PRECONDITION_FAILED', { ETag: '"1"' }]);
    for (const ifMatch of ['"1"', 'W/"2"']) {
      const stale = await refusal(patch(c, ifMatch, { attributes: { DEX: 1 } }, `progress-${ifMatch.length}`));
      expect([stale.code, stale.headers]).toEqual(['PRECONDITION_FAILED', { ETag: '"2"' }]);
    }
    const second = await patch(c, '"2"', { attributes: { DEX: 1 } }, 'progress-0002');
    expect(second.character.progress.attributes).toEqual({ STR: 12, DEX: 1 });
  });

  it('refuse a missing If-Match and a field the actor may not write before reading the character', async () => {
    const nobody = mintUuid();
    expect((await refusal(patch({ id: nobody } as Character, null, {}))).code).toBe('PRECONDITION_REQUIRED');
    const e = await refusal(patch({ id: nobody } as Character, '"1"', { attributes: { STR: 1 } }, 'k-1', 'player'));
    expect([e.code, e.errors?.map((p) => p.name)]).toEqual(['FORBIDDEN', ['/progress/attributes']]);
    const missing = await refusal(patch({ id: nobody } as Character, '"1"', { skill_loadouts: [] }, 'k-2', 'player'));
    expect([missing.code, missing.message]).toEqual(['NOT_FOUND', 'You have no character with this id.']);
  });

  it("answer a key's replay even when the progress as it stands would refuse the patch, and the refusal for a new key", async () => {
    const c = await characterOf(ada);
    await patch(c, '"1"', { skill_loadouts: [] });
    // the stored progress as a later, stricter bound would see it
    const stricter = withMethods(store, {
      character: async (a: string, id: string) => {
        const stored = (await store.character(a, id))!;
        return { ...stored, progress: { ...stored.progress, attributes: { STR: 10_000 } } };
      },
    });
    const again = (key: string, progress: object) =>
      patchProgress(stricter, ada, c.id, '"1"', { idempotencyKey: key, progress } as never, 'game-server', clock);
    expect((await again('progress-0001', { skill_loadouts: [] })).replayed).toBe(true);
    const reused = await refusal(again('progress-0001', { skill_loadouts: [{ name: 'x', skills: [] }] }));
    expect(reused.code).toBe('IDEMPOTENCY_KEY_REUSED');
    const fresh = await refusal(again('progress-0002', { skill_loadouts: [] }));
    expect([fresh.code, fresh.errors?.map((p) => p.name)]).toEqual(['INVALID_BODY', ['/progress/attributes/STR']]);
  });

  it('ask the store to wear what the merged progress wears and take off only what it no longer wears', async () => {
    const [x, y, z] = [mintUuid(), mintUuid(), mintUuid()];
    const c = await characterOf(ada);
    const asked: ProgressSave[] = [];
    const answer: { out: ProgressSaveOutcome } = { out: { status: 'created', character: c } };
    const wearing = withMethods(store, {
      character: () => Promise.resolve({ ...c, progress: { ...EMPTY_PROGRESS, equipment_on_body: { head: x, hand: y, ring: y } } }),
      saveProgress: (_a: string, _c: string, save: ProgressSave) => {
        asked.push(save);
        return Promise.resolve(answer.out);
      },
    });
    const send = (key: string) =>
      patchProgress(
        wearing,
        ada,
        c.id,
        '"1"',
        { idempotencyKey: key, progress: { equipment_on_body: { head: null, hand: z } } },
        'game-server',
        clock,
      );
    expect(await send('wear-0001')).toEqual({ character: c, replayed: false });
    expect(asked[0]).toMatchObject({ expectedRevision: 1, idempotencyKey: 'wear-0001', at: T0, equipment: [z, y], unequip: [x] });
    expect(asked[0]!.progress.equipment_on_body).toEqual({ hand: z, ring: y });

    answer.out = {
      status: 'equipment-refused',
      refused: [
        { studioUuid: z, reason: 'missing' },
        { studioUuid: y, reason: 'not-owned' },
        { studioUuid: x, reason: 'state' },
      ],
    };
    const refused = await refusal(send('wear-0002'));
    expect([refused.code, refused.message]).toEqual([
      'INVALID_BODY',
      `3 item(s) this character would wear cannot be worn: ${z}, ${y}, ${x}.`,
    ]);
    expect(refused.errors).toEqual([
      { name: '/progress/equipment_on_body', message: `${z} is not a minted item.`, value: z },
      { name: '/progress/equipment_on_body', message: `${y} belongs to another account.`, value: y },
      { name: '/progress/equipment_on_body', message: `${x} is consumed, destroyed, voided, or worn by another character.`, value: x },
    ]);
    answer.out = { status: 'missing' };
    expect((await refusal(send('wear-0003'))).message).toBe('You have no character with this id.');
  });
});

describe('recipes', () => {
  it('are learned once by an account named by either id; the first time is answered after it', async () => {
    const first = await learnRecipe(store, ledger, { studioId: ada.studioId, recipeId: RECIPE }, clock);
    expect(first).toEqual({ learned: true, recipe: { recipeId: RECIPE, learnedAt: T0 } });
    const again = await learnRecipe(store, ledger, { accountId: ada.accountId, recipeId: RECIPE }, () => new Date('2027-01-01T00:00:00Z'));
    expect(again).toEqual({ learned: false, recipe: { recipeId: RECIPE, learnedAt: T0 } });
  });

  it('refuse a recipe the catalog does not define, quoting at most 80 characters, and name the selector that found no account', async () => {
    const long = `RECP-${'X'.repeat(100)}`;
    const e = await refusal(learnRecipe(store, ledger, { studioId: ada.studioId, recipeId: long }, clock));
    expect([e.code, e.message, e.errors]).toEqual([
      'INVALID_BODY',
      `No recipe ${long.slice(0, 80)} in the catalog.`,
      [{ name: '/recipeId', message: 'Not a recipe of the published catalog (master-recipes.json).' }],
    ]);
    const byStudio = await refusal(learnRecipe(store, ledger, { studioId: 'STUDIO_NOBODY001', recipeId: RECIPE }, clock));
    expect([byStudio.code, byStudio.message]).toEqual(['NOT_FOUND', 'No account has this studioId.']);
    const byAccount = await refusal(learnRecipe(store, ledger, { accountId: mintUuid(), recipeId: RECIPE }, clock));
    expect(byAccount.message).toBe('No account has this accountId.');
  });
});
