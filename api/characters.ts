/**
 * Characters of the caller's account (spec 2.6, 2.8, 4.8, 5.4). `characters.id` (an RFC 4122 uuid) is the
 * only key; an `STDG-*` display stamp given as a key is a 400 that says so; another account's character
 * is a 404 like one that does not exist.
 *
 * Paths (declared in `api/_lib/routing/table.ts`), all with the caller's token (not a guest):
 * - `GET /api/characters?era=warlords|voxel|nexus|armada`: `{ era, characters: [...] }`, oldest first;
 *   a missing or unknown era is 400 (never a default).
 * - `POST /api/characters`: `{ era, name, classId, raceId, factionId, idempotencyKey? }` (schema
 *   `character-create`; ids checked against the published catalog's classes, races and factions, the race
 *   within its faction); at most `CHARACTER_SLOTS_PER_ERA` (4) per era, then 409. 201 with the character
 *   and `Location`; a replay of the key answers 200 with the same character and `Idempotent-Replayed`.
 * - `GET /api/characters/{id}/progress`: the character-scoped fields of 2.8 (`attributes`,
 *   `profession_levels`, `equipment_on_body`, `weapon_mastery`, `skill_loadouts`, `game_era`) with
 *   `progress_revision`, served as `ETag: "<progress_revision>"`.
 * - `PATCH /api/characters/{id}/progress` (`If-Match` required): `{ idempotencyKey, progress }` where
 *   `progress` is a JSON merge patch of those fields; account-scoped fields (bag, wallet, resources, …)
 *   are refused. 200 with the new progress; the same key and request again answers the first result with
 *   `Idempotent-Replayed: true`; the same key with another change is 422.
 *
 * Errors (problem+json): 400 BAD_REQUEST / INVALID_QUERY / INVALID_BODY, 401, 404, 409 CONFLICT, 412
 * (with the current `ETag`), 413, 415, 422 IDEMPOTENCY_KEY_REUSED, 428, 503. A refused request changes
 * nothing.
 */
import { readJsonBody } from './_lib/http/body.js';
import { defineEntry, plainJson } from './_lib/http/index.js';
import {
  accountScopedProblems,
  playerCaller,
  characterIdOf,
  characterView,
  createCharacter,
  eraOf,
  ownCharacter,
  patchProgress,
  progressView,
  revisionTag,
  type CreateCharacterBody,
  type ProgressPatchBody,
} from './_lib/player/service.js';


/** The method exports (see the file header). */
export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = defineEntry('characters', {
  characters: {
    GET: async ({ request, url }) => {
      const { account, store } = await playerCaller(request);
      const era = eraOf(url.searchParams.get('era'));
      return plainJson({ era, characters: (await store.characters(account.accountId, era)).map(characterView) });
    },
    POST: async ({ request, url }) => {
      const { account, store } = await playerCaller(request);
      const body = await readJsonBody<CreateCharacterBody>(request, { schema: 'character-create' });
      const { character, created } = await createCharacter(store, account, body);
      const location = new URL(`/api/characters/${character.id}/progress`, url).pathname;
      return plainJson({ character: characterView(character), created }, created ? 201 : 200, created ? { Location: location } : { 'Idempotent-Replayed': 'true' });
    },
  },
  progress: {
    GET: async ({ request, key }) => {
      const { account, store } = await playerCaller(request);
      const c = await ownCharacter(store, account, characterIdOf(key));
      return plainJson(progressView(c), 200, { ETag: revisionTag(c.progressRevision) });
    },
    PATCH: async ({ request, key }) => {
      const { account, store } = await playerCaller(request);
      const id = characterIdOf(key);
      const body = await readJsonBody<ProgressPatchBody>(request, { schema: 'character-progress-patch', precheck: accountScopedProblems });
      const { character, replayed } = await patchProgress(store, account, id, request.headers.get('if-match'), body);
      return plainJson(progressView(character), 200, { ETag: revisionTag(character.progressRevision), ...(replayed ? { 'Idempotent-Replayed': 'true' } : {}) });
    },
  },
});
