/**
 * Player state of the caller's account (spec 1.8, 2.6, 2.8, 2.9, 4.8, 5.4): the home island, characters
 * and learned recipes, in one function entry (one cold start and one bundle for the game client's state
 * calls; docs/architecture.md, "Functions"). Who may call each route is declared in the route table; who may
 * write which field of player state is `api/_lib/player/authority.ts` (a player writes what it freely
 * chooses, a game server what confers power or value; docs/architecture.md, "Who writes player state", has the table). A player's token
 * acts for its own account (a token whose studio id has no account is 404); a game server names the
 * account (`?studioId=` on the island and recipe reads, the character id on progress, a selector in a
 * body). Every route refuses a query parameter it does not take (400). A refused request changes nothing.
 *
 * Home island (spec 2.9):
 * - `GET /api/island/spec` (public): the island contract, spec 2.2.0 and contract 1.4.0, every value of
 *   2.9 (`api/_lib/island/spec.ts`); cacheable (`Cache-Control: public, max-age=300`, strong `ETag`).
 * - `GET /api/island/state` (the player, or a game server with `?studioId=`): `{ revision, updatedAt, state }`
 *   with `ETag: "<revision>"`; the first read creates the island from the account's deterministic seed.
 * - `PATCH /api/island/state` (`If-Match` required): a JSON merge patch (RFC 7396,
 *   `application/merge-patch+json` or `application/json`, at most 1 MiB) of the fields the caller may
 *   write (403 naming the others); the merged state must match `schemas/requests/island-state.schema.json`
 *   and stay within 1 MiB. 200 with the new state and `ETag`.
 * - `POST /api/island/export-from-rts` (`If-Match` required): `{ gridX, gridZ, seed, biome, heightmap? }`
 *   derives `rtsExport`, `rtsHeightmap` and `rtsNatureScatter` from the seed (or the sent heights, within
 *   the biome's foundation's elevation range) and stores them; 200 with the new state.
 *
 * Characters (spec 2.6, 2.8): `characters.id` (an RFC 4122 uuid) is the only key; an `STDG-*` display
 * stamp given as a key is a 400 that says so; another account's character is a 404 like a missing one.
 * - `GET /api/characters?era=warlords|voxel|nexus|armada`: `{ era, characters }`, oldest first; a missing
 *   or unknown era is 400 (never a default).
 * - `POST /api/characters`: `{ era, name, classId, raceId, factionId, idempotencyKey? }` (ids checked
 *   against the published catalog's classes, races and factions, the race within its faction); at most
 *   `CHARACTER_SLOTS_PER_ERA` (4) per era, then 409. 201 with `Location`; a replay of the key answers 200
 *   with the same character and `Idempotent-Replayed: true`; the key with another request is 422.
 * - `GET /api/characters/{id}/progress`: the character-scoped fields of 2.8 (`attributes`,
 *   `profession_levels`, `equipment_on_body`, `weapon_mastery`, `skill_loadouts`, `game_era`) with
 *   `progress_revision`, served as `ETag: "<progress_revision>"`.
 * - `PATCH /api/characters/{id}/progress` (`If-Match` required): `{ idempotencyKey, progress }`, a JSON
 *   merge patch of those fields; account-scoped fields (bag, wallet, resources, …) are refused. The same
 *   key and request again answers the first result with `Idempotent-Replayed: true`; another change is 422.
 *
 * Data export (GDPR article 15): `GET /api/account/export` (the player's own token): everything held
 * about the caller's account as one JSON document (`api/_lib/operations/lookup.ts`), as a download; who
 * asked for each wallet entry and a ban's reason are operators' to read, and left out.
 *
 * Learned recipes (spec 4.8):
 * - `GET /api/account/recipes`: `{ recipes: [{ recipeId, learnedAt }] }`, by time learned then id.
 * - `POST /api/account/recipes`: `{ recipeId }`, a `RECP-*` id of the published catalog's
 *   `master-recipes.json`. 201 `{ learned: true, recipe }`; learning it again is 200 `{ learned: false,
 *   recipe }` with the first time and changes nothing.
 *
 * External login (spec 5.5):
 * - `POST /api/auth/external` (no caller token): `{ token }`, the external platform's JWT, verified against
 *   its JWKS. 200 `{ token, tokenType, expiresIn, created, link, account, characters }`: our token for the
 *   identity's account (created on its first login; two simultaneous first logins get the same one).
 * - `POST /api/auth/external-link` (the caller's token): `{ token }`; binds the identity to the caller's
 *   account: 201 `{ linked: true, link }`, 200 when already bound to it, 409 when bound to another.
 *   The platform's token is never stored or logged.
 * - `POST /api/auth/logout` (the caller's token, no body): every token of the caller's account issued
 *   until now is refused from here on, on every device (spec 5.3, 5.4). 204.
 *
 * Unique items (spec 2.6, 4.8; game servers: a token whose role is `server`, `admin` or `master`, or
 * `X-Admin-Password`; `api/_lib/player/items.ts` has the transition table):
 * - `POST /api/uuid`: `{ definitionId, studioId | accountId, idempotencyKey }` mints a `studio_uuid` for an
 *   `ITEM-*` definition of the catalog, owned by the account. 201 `{ item, idempotent: false }`; the same
 *   key again answers the same item (200, `idempotent: true`, `Idempotent-Replayed`), forever.
 * - `GET /api/ledger/{studio_uuid}`: the item, its current owner and every event, oldest first.
 * - `POST /api/ledger/{studio_uuid}/events`: `{ event, idempotencyKey, characterId?, toStudioId? |
 *   toAccountId? }` records assigned, equipped, unequipped, transferred, consumed or destroyed; 409 when
 *   the item's state forbids it (nothing but reading after consumed, destroyed, or voided by an operator,
 *   `POST /api/admin/items/{studio_uuid}/void`).
 *
 * The account bag (spec 2.6, 2.8; `api/_lib/player/bag.ts`):
 * - `GET /api/inventory` (the caller's token): `{ stackables: [{ definitionId, quantity }], uniqueItems }`.
 * - `POST /api/inventory/grant` and `POST /api/inventory/consume` (game servers): `{ studioId | accountId,
 *   definitionId, quantity, idempotencyKey }`; 201 `{ entry, quantity, account, idempotent: false }`, the
 *   same key again answers the first entry (200); a consumption beyond the quantity held is 409.
 *
 * Bans (spec 5.3; docs/architecture.md, "Sessions and bans"): a banned account's player token is 403
 * `ACCOUNT_SUSPENDED` everywhere, and so is a game server's write to it (role `server`): checked before
 * the write, and again inside the store's write itself (`writeStore`), so no such write lands once a ban
 * has answered; operators (admin, master, the admin password) still correct the account.
 *
 * Errors (problem+json): 400 BAD_REQUEST / INVALID_QUERY / INVALID_BODY (every bad field), 401
 * UNAUTHORIZED with `WWW-Authenticate`, 403 (FORBIDDEN, ACCOUNT_SUSPENDED), 404, 409 CONFLICT, 412
 * PRECONDITION_FAILED (with the current `ETag`), 413, 415, 422 IDEMPOTENCY_KEY_REUSED, 428
 * PRECONDITION_REQUIRED (no `If-Match`, or `*`), 503.
 */
import { createHash } from 'node:crypto';
import { MERGE_PATCH_TYPES, readJsonBody } from './_lib/http/body.js';
import {
  corsHeaders,
  defineEntry,
  idempotentAnswer,
  notModified,
  plainJson,
  principalOf,
  publicCacheHeaders,
  type Caller,
} from './_lib/http/index.js';
import { islandSpec } from './_lib/island/spec.js';
import type { RtsExportInput } from './_lib/island/generate.js';
import { actsAsGameServer } from './_lib/auth/guard.js';
import { STUDIO_ID } from './_lib/ledger/ids.js';
import { parseQuery, type ParamSpec } from './_lib/http/params.js';
import {
  actingAccount,
  characterAccount,
  type ActingCaller,
  accountScopedProblems,
  characterIdOf,
  characterView,
  createCharacter,
  exportIsland,
  learnRecipe,
  ownCharacter,
  patchIsland,
  patchProgress,
  callerAccount,
  progressView,
  readIsland,
  revisionTag,
  type CreateCharacterBody,
  type ProgressPatchBody,
  type RecipeLearnBody,
} from './_lib/player/service.js';
import { ERAS, type Era, type IslandDoc, type PlayerStore } from './_lib/player/types.js';
import type { Account, LedgerStore } from './_lib/ledger/types.js';
import { getServiceConfig } from './_lib/config.js';
import { ledgerStore } from './_lib/ledger/store.js';
import { exportDisposition, exportPlayer } from './_lib/operations/lookup.js';
import { logout, refusingSuspended } from './_lib/ledger/service.js';
import { externalLinkTo, externalLogin, type ExternalTokenBody } from './_lib/player/external-login.js';
import { playerStore, refusingBanned } from './_lib/player/store.js';
import { changeBag, inventoryOf, type BagChangeBody } from './_lib/player/bag.js';
import { instanceIdOf, itemHistory, mintItem, recordItemEvent, type ItemEventBody, type MintBody } from './_lib/player/items.js';
import type { Json } from './_lib/util/merge-patch.js';
import { recordAudit } from './_lib/audit/service.js';

/** Byte cap of an island change: a full heightmap and scatter fit with room to spare. */
export const ISLAND_BODY_LIMIT_BYTES = 1024 * 1024;

const SPEC_BODY = JSON.stringify(islandSpec());
const SPEC_ETAG = `"${createHash('sha1').update(SPEC_BODY).digest('hex').slice(0, 16)}"`;

/** Query parameters of the player routes (also read by the OpenAPI document); every other parameter is refused. */
export const PLAYER_PARAMS = Object.freeze({
  /** Routes that take none. */
  none: Object.freeze({}),
  /** `GET/PATCH /api/island/state`, `GET /api/account/recipes`: the account a game server acts for. */
  account: Object.freeze({ studioId: { kind: 'string', maxLength: 72, pattern: STUDIO_ID } }),
  /** `GET /api/characters`. */
  characters: Object.freeze({ era: { kind: 'enum', values: ERAS, required: true } }),
} satisfies Record<string, Readonly<Record<string, ParamSpec>>>);

/** Who acts: a game server's credentials, or a player's token (its subject). */
function actingOf(caller: Caller): ActingCaller {
  if (caller.via !== 'none' && actsAsGameServer(caller)) return { actor: 'game-server' };
  return { actor: 'player', principal: principalOf(caller) };
}

/**
 * The ledger a write of `caller` resolves accounts through: a game server's token (role `server`) may not
 * write to a banned account (403 `ACCOUNT_SUSPENDED`, `refusingSuspended`); operators (admin, master, the
 * admin password) may, to correct it (docs/architecture.md, "Sessions and bans").
 */
async function writeLedger(caller: Caller): Promise<LedgerStore> {
  const ledger = await ledgerStore();
  return caller.via === 'token' && caller.principal.role === 'server' ? refusingSuspended(ledger) : ledger;
}

/** True for an operator (an `admin` or `master` token, or the admin password): its writes may correct a banned account. */
function operator(caller: Caller): boolean {
  return caller.via === 'password' || (caller.via === 'token' && (caller.principal.role === 'admin' || caller.principal.role === 'master'));
}

/**
 * The player store a write of `caller` goes through: but for operators', every write refuses a banned
 * account in the write itself (`refusingBanned`), so a ban once answered is followed by no game server's
 * or player's write to the account, whatever check ran before it (docs/architecture.md, "Sessions and bans").
 */
async function writeStore(caller: Caller): Promise<PlayerStore> {
  const store = await playerStore();
  return operator(caller) ? store : refusingBanned(store);
}

/** The caller's own account and the player store (a `player` route; for a write, `writeStore`'s). @throws ServiceError 404, 503 */
async function callerState(caller: Caller, url: URL, write = false): Promise<{ account: Account; store: PlayerStore }> {
  parseQuery(url.searchParams, PLAYER_PARAMS.none);
  const account = await callerAccount(await ledgerStore(), principalOf(caller));
  return { account, store: write ? await writeStore(caller) : await playerStore() };
}

/** The account of the character a progress route names, and the player store. @throws ServiceError 400, 404, 503 */
async function progressState(
  caller: Caller,
  url: URL,
  key: string | undefined,
  write = false,
): Promise<{ account: Account; store: PlayerStore; acting: ActingCaller }> {
  parseQuery(url.searchParams, PLAYER_PARAMS.none);
  const acting = actingOf(caller);
  const store = await playerStore();
  const ledger = write ? await writeLedger(caller) : await ledgerStore();
  const account = await characterAccount(ledger, store, acting, characterIdOf(key));
  return { account, store: write ? await writeStore(caller) : store, acting };
}

/** The account a request acts for (`?studioId=` for a game server) and the player store. @throws ServiceError 400, 403, 404, 503 */
async function actingState(
  caller: Caller,
  url: URL,
  write = false,
): Promise<{ account: Account; store: PlayerStore; acting: ActingCaller }> {
  const { studioId } = parseQuery(url.searchParams, PLAYER_PARAMS.account).values;
  const acting = actingOf(caller);
  const account = await actingAccount(write ? await writeLedger(caller) : await ledgerStore(), acting, studioId);
  return { account, store: write ? await writeStore(caller) : await playerStore(), acting };
}

/** The island answer: the document with its strong ETag. */
function stateResponse(doc: IslandDoc): Response {
  return plainJson({ revision: doc.revision, updatedAt: doc.updatedAt, state: doc.state }, 200, { ETag: revisionTag(doc.revision) });
}

/** The method exports (see the file header). */
export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = defineEntry(
  'player',
  {
    spec: {
      GET: ({ request, url }) => {
        // no parameters: an unknown one is a 400 here too, and no query can make the CDN keep another copy
        parseQuery(url.searchParams, PLAYER_PARAMS.none);
        const headers = { ...corsHeaders(), ...publicCacheHeaders(), ETag: SPEC_ETAG };
        if (notModified(request, SPEC_ETAG)) return new Response(null, { status: 304, headers });
        return new Response(SPEC_BODY, { status: 200, headers: { ...headers, 'Content-Type': 'application/json; charset=utf-8' } });
      },
    },
    state: {
      GET: async ({ url, caller }) => {
        const { account, store } = await actingState(caller, url);
        return stateResponse(await readIsland(store, account));
      },
      PATCH: async ({ request, url, caller }) => {
        const { account, store, acting } = await actingState(caller, url, true);
        const patch = await readJsonBody<Record<string, Json>>(request, {
          schema: 'island-state-patch',
          maxBytes: ISLAND_BODY_LIMIT_BYTES,
          mediaTypes: MERGE_PATCH_TYPES,
        });
        return stateResponse(await patchIsland(store, account, request.headers.get('if-match'), patch, acting.actor));
      },
    },
    'export-from-rts': {
      POST: async ({ request, url, caller }) => {
        const { account, store } = await callerState(caller, url, true);
        const body = await readJsonBody<RtsExportInput>(request, { schema: 'island-export-from-rts', maxBytes: ISLAND_BODY_LIMIT_BYTES });
        return stateResponse(await exportIsland(store, account, request.headers.get('if-match'), body));
      },
    },
    characters: {
      GET: async ({ url, caller }) => {
        const { era } = parseQuery(url.searchParams, PLAYER_PARAMS.characters).values;
        const { account, store } = await callerState(caller, new URL(url.pathname, url));
        return plainJson({ era, characters: (await store.characters(account.accountId, era as Era)).map(characterView) });
      },
      POST: async ({ request, url, caller }) => {
        const { account, store } = await callerState(caller, url, true);
        const body = await readJsonBody<CreateCharacterBody>(request, { schema: 'character-create' });
        const { character, created } = await createCharacter(store, account, body);
        const location = new URL(`/api/characters/${character.id}/progress`, url).pathname;
        return idempotentAnswer({ character: characterView(character), created }, !created, { createdHeaders: { Location: location } });
      },
    },
    progress: {
      GET: async ({ url, key, caller }) => {
        const { store, account } = await progressState(caller, url, key);
        const c = await ownCharacter(store, account, characterIdOf(key));
        return plainJson(progressView(c), 200, { ETag: revisionTag(c.progressRevision) });
      },
      PATCH: async ({ request, url, key, caller }) => {
        const { store, account, acting } = await progressState(caller, url, key, true);
        const body = await readJsonBody<ProgressPatchBody>(request, {
          schema: 'character-progress-patch',
          precheck: accountScopedProblems,
        });
        const { character, replayed } = await patchProgress(
          store,
          account,
          characterIdOf(key),
          request.headers.get('if-match'),
          body,
          acting.actor,
        );
        return idempotentAnswer(progressView(character), replayed, {
          createdStatus: 200,
          headers: { ETag: revisionTag(character.progressRevision) },
        });
      },
    },
    'account-export': {
      GET: async ({ url, caller }) => {
        const { account, store } = await callerState(caller, url);
        const data = await exportPlayer({ ledger: await ledgerStore(), player: store }, account, undefined, 'player');
        return plainJson(data, 200, { 'Content-Disposition': exportDisposition(account.studioId) });
      },
    },
    recipes: {
      GET: async ({ url, caller }) => {
        const { account, store } = await actingState(caller, url);
        return plainJson({ recipes: await store.recipes(account.accountId) });
      },
      POST: async ({ request, url, caller }) => {
        parseQuery(url.searchParams, PLAYER_PARAMS.none);
        const body = await readJsonBody<RecipeLearnBody>(request, { schema: 'recipe-learn' });
        const out = await learnRecipe(await writeStore(caller), await writeLedger(caller), body);
        return plainJson(out, out.learned ? 201 : 200);
      },
    },
    external: {
      POST: async ({ request, url }) => {
        parseQuery(url.searchParams, PLAYER_PARAMS.none);
        const body = await readJsonBody<ExternalTokenBody>(request, { schema: 'auth-external' });
        return plainJson(await externalLogin(getServiceConfig(), await ledgerStore(), await playerStore(), body));
      },
    },
    'external-link': {
      POST: async ({ request, url, caller }) => {
        const { account, store } = await callerState(caller, url);
        const body = await readJsonBody<ExternalTokenBody>(request, { schema: 'auth-external' });
        const out = await externalLinkTo(getServiceConfig(), store, account, body);
        return plainJson(out, out.linked ? 201 : 200);
      },
    },
    logout: {
      POST: async ({ url, caller }) => {
        parseQuery(url.searchParams, PLAYER_PARAMS.none);
        await logout(await ledgerStore(), principalOf(caller));
        return new Response(null, { status: 204 });
      },
    },
    uuid: {
      POST: async ({ request, url, caller }) => {
        parseQuery(url.searchParams, PLAYER_PARAMS.none);
        const body = await readJsonBody<MintBody>(request, { schema: 'item-mint' });
        const out = await mintItem(await writeStore(caller), await writeLedger(caller), body);
        return idempotentAnswer(out, out.idempotent, { createdHeaders: { Location: `/api/ledger/${out.item.studioUuid}` } });
      },
    },
    item: {
      GET: async ({ url, key }) => {
        parseQuery(url.searchParams, PLAYER_PARAMS.none);
        return plainJson(await itemHistory(await playerStore(), await ledgerStore(), instanceIdOf(key)));
      },
    },
    'item-events': {
      POST: async ({ request, url, key, caller }) => {
        parseQuery(url.searchParams, PLAYER_PARAMS.none);
        const id = instanceIdOf(key);
        const body = await readJsonBody<ItemEventBody>(request, { schema: 'item-event' });
        const out = await recordItemEvent(await writeStore(caller), await writeLedger(caller), id, body);
        return idempotentAnswer(out, out.idempotent);
      },
    },
    inventory: {
      GET: async ({ url, caller }) => {
        const { account, store } = await callerState(caller, url);
        return plainJson(await inventoryOf(store, account.accountId));
      },
    },
    'inventory-grant': {
      POST: ({ request, url, caller }) => bagChange(request, url, caller, 1),
    },
    'inventory-consume': {
      POST: ({ request, url, caller }) => bagChange(request, url, caller, -1),
    },
  },
  { audit: recordAudit },
);

/** A grant (+1) or consumption (−1) of a stackable, by a game server. */
async function bagChange(request: Request, url: URL, caller: Caller, sign: 1 | -1): Promise<Response> {
  parseQuery(url.searchParams, PLAYER_PARAMS.none);
  const body = await readJsonBody<BagChangeBody>(request, { schema: 'bag-change' });
  const out = await changeBag(await writeStore(caller), await writeLedger(caller), body, sign);
  return idempotentAnswer(out, out.idempotent);
}
