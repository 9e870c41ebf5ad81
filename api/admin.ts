/**
 * Operator routes (spec 2.6, 2.8, 4.8, 5.3): accounts, the admin grant of the soft currency, and an
 * account's sessions and ban. The changes are admin only (a token whose role is admin or master, or
 * `X-Admin-Password` equal to `ADMIN_PASSWORD`); the look-up also lets in the `support` role (the access
 * of each route is declared in the route table; `api/_lib/auth/guard.ts`).
 *
 * Paths (declared in `api/_lib/routing/table.ts`):
 * - `POST /api/admin/accounts`: body `schemas/requests/create-account.schema.json` (`displayName`,
 *   optional `username`, optional `idempotencyKey`). 201 `{ account: { accountId, studioId, displayName,
 *   userId, username, createdAt }, created: true }` with `Location`; a replay of the key with the same
 *   payload answers 200 with the first account, `created: false` and `Idempotent-Replayed: true`.
 * - `GET /api/admin/accounts/{key}`: the account whose `studioId` or `accountId` is `{key}` (either
 *   selector resolves the same account). 200 `{ account }`.
 * - `POST /api/admin/grant-coin`: body `schemas/requests/grant-coin.schema.json` (exactly one of
 *   `studioId` / `accountId`, `amount` 1-1,000,000,000, `reason`, `idempotencyKey`); the same ledger and
 *   idempotency rules as verify-send under sourceRef `admin-grant:{key}`. 200 `{ kind: "admin_grant_coin",
 *   onChain: false, burn: false, idempotent, entryId, sourceRef, account, amount, purpose: "grant",
 *   note (the reason), balance, at }`.
 * - `POST /api/admin/players/{studioId}/revoke-sessions` and `…/unban`: body
 *   `schemas/requests/account-action.schema.json` (`reason`, `idempotencyKey`); `POST …/ban`: body
 *   `schemas/requests/account-ban.schema.json` (`reason`, optional `until` in the future,
 *   `idempotencyKey`). 200 `schemas/responses/account-access.schema.json` (`{ account, access:
 *   { sessionsRevokedAt, ban }, idempotent }`), once per key (a replay answers the access as it stands,
 *   with `Idempotent-Replayed: true`).
 * - `GET /api/admin/players?q=` (support): accounts found by studio id, account id, username, external
 *   user id or display-name prefix (`api/_lib/operations/lookup.ts`), `cursor`, `limit` (1-100, default
 *   20). 200 `schemas/responses/player-search.schema.json`.
 * - `GET /api/admin/players/{studioId or accountId}` (support): the account, its links, access, wallet
 *   (balance and latest entries), bag (quantities and latest entries), unique items (owned, and the latest
 *   in every state), characters, island summary and recipes. 200
 *   `schemas/responses/player-summary.schema.json`.
 * - `GET /api/admin/players/{studioId or accountId}/wallet` (support): the wallet's entries newest first
 *   with who asked for each; the overview's parameters. 200 `schemas/responses/player-wallet.schema.json`.
 * - `POST /api/admin/session` (admin, by `X-Admin-Password` only; a token is 403): the password exchanged for
 *   a short-lived operator token (`api/_lib/auth/session.ts`), no body. 200
 *   `schemas/responses/admin-session.schema.json` (`{ token, tokenType, role, subject, expiresIn, expiresAt }`);
 *   503 when the deployment signs no tokens (`JWT_JWKS_URL`).
 * - `GET /api/admin/players/{studioId or accountId}/island` (support): the island's whole state with its
 *   revision, null while the player never opened it (nothing is created). 200
 *   `schemas/responses/player-island.schema.json`.
 * - `GET /api/admin/players/{studioId or accountId}/characters` (support): every character with its progress.
 *   200 `schemas/responses/player-characters.schema.json`.
 * - `GET /api/admin/players/{studioId or accountId}/bag` (support): the quantities held and the bag's
 *   entries newest first, reversals and reversed grants linked; `limit` (1-200, default 50), `cursor`,
 *   `definitionId` (`api/_lib/operations/history.ts`). 200 `schemas/responses/player-bag.schema.json`.
 * - `GET /api/admin/players/{studioId or accountId}/items` (support): the account's unique items newest
 *   mint first, in every state (consumed, destroyed, voided included); `limit`, `cursor`, `state`. 200
 *   `schemas/responses/player-items.schema.json`.
 * - `GET /api/admin/items/{studio_uuid}/events` (support): an item as it stands and its events newest
 *   first, a void with its reason; `limit`, `cursor`. 200 `schemas/responses/item-events.schema.json`.
 * - `POST /api/admin/players/{studioId or accountId}/erase`: body `account-action` (`reason`,
 *   `idempotencyKey`): erases the account's personal data and closes it, once per key
 *   (`api/_lib/operations/erasure.ts`). 200 `schemas/responses/account-access.schema.json`.
 * - `GET /api/admin/players/{studioId or accountId}/export` (support): everything held about the account
 *   as one JSON document (`schemas/responses/player-export.schema.json`), as a download.
 * - `POST /api/admin/reversals`: body `schemas/requests/reversal.schema.json` (`entryId`, `reason`,
 *   `idempotencyKey`): a compensating transfer of the entry's amount back to the issuer, at most once per
 *   entry (`api/_lib/ledger/reversals.ts`). 200 `schemas/responses/reversal.schema.json`; 409 when the
 *   entry was reversed before (naming that reversal), is a reversal, or exceeds the balance.
 * - `POST /api/admin/bag-reversals`: body `schemas/requests/bag-reversal.schema.json` (`studioId` |
 *   `accountId`, `sourceRef` of the grant, `reason`, `idempotencyKey`): an entry that takes the grant's
 *   units back, linked to it, at most once per grant (`reverseBagGrant`, `api/_lib/player/bag.ts`). 200
 *   `schemas/responses/bag-reversal.schema.json`; 404 when no entry of the account has the source ref; 409
 *   when it is a consumption or a reversal, was reversed before (naming that reversal), or more units than
 *   are held.
 * - `POST /api/admin/items/{studio_uuid}/void`: body `schemas/requests/item-void.schema.json` (`reason`,
 *   `idempotencyKey`): the item's final `voided` event (`voidItem`, `api/_lib/player/items.ts`); game
 *   servers may not void. 200 `schemas/responses/item-voided.schema.json`; 409 when the item is consumed,
 *   destroyed or voided already.
 *
 * Errors (problem+json): 400, 401 with `WWW-Authenticate`, 403, 404, 409 CONFLICT (username taken),
 * 413, 415, 422 IDEMPOTENCY_KEY_REUSED, 503 UPSTREAM_UNAVAILABLE. A refused request changes nothing.
 * - `GET /api/admin/ledger/verify` (Vercel Cron: `Authorization: Bearer <CRON_SECRET>`, the `cron` access)
 *   and `POST /api/admin/ledger/verify` (admin; no body): one run of the scheduled ledger check
 *   (`api/_lib/ledger/verification.ts`), resumed where the last stopped, for up to `budgetMs` (query,
 *   0-8000, default 5000); a run that finds a broken invariant logs `ledger-alert` and POSTs to
 *   `ALERT_WEBHOOK_URL` when set (`api/_lib/ledger/alerts.ts`). 200
 *   `schemas/responses/ledger-verification.schema.json`, failures or not (they are data).
 * - `GET /api/admin/ledger/health` (support): the pass's progress and the last results, newest first.
 *   200 `schemas/responses/ledger-health.schema.json`.
 * - `GET /api/admin/audit` (support): the audit log newest first, with `actor`, `account`, `route`, `from`,
 *   `to`, `cursor` and `limit` (`api/_lib/audit/service.ts`). 200 `schemas/responses/audit.schema.json`.
 */
import { readJsonBody } from './_lib/http/body.js';
import { getServiceConfig } from './_lib/config.js';
import { actorName, clampHeaders, defineEntry, idempotentAnswer, parseQuery, plainJson, ServiceError } from './_lib/http/index.js';
import { erasePlayer, type EraseBody } from './_lib/operations/erasure.js';
import {
  accountNamed,
  bagHistory,
  exportDisposition,
  exportPlayer,
  findPlayers,
  itemList,
  playerCharacters,
  playerIsland,
  playerSummary,
  walletHistory,
} from './_lib/operations/lookup.js';
import { operatorSession } from './_lib/auth/session.js';
import { BAG_HISTORY_PARAMS, ITEM_EVENT_PARAMS, ITEM_LIST_PARAMS, itemEventPage } from './_lib/operations/history.js';
import { reverseBagGrant, type BagReversalBody } from './_lib/player/bag.js';
import { instanceIdOf, voidItem, type VoidBody } from './_lib/player/items.js';
import { playerStore } from './_lib/player/store.js';
import type { ItemState } from './_lib/player/types.js';
import type { TransferKindName } from './_lib/ledger/types.js';
import { OVERVIEW_PARAMS } from './_lib/ledger/params.js';
import { STUDIO_ID, UUID } from './_lib/ledger/ids.js';
import { reverseEntry, type ReversalBody } from './_lib/ledger/reversals.js';
import { ledgerStore } from './_lib/ledger/store.js';
import {
  runVerification,
  verificationHealth,
  VERIFY_BUDGET_MAX_MS,
  VERIFY_BUDGET_MS,
  type VerificationTrigger,
} from './_lib/ledger/verification.js';
import { alertOnFailures } from './_lib/ledger/alerts.js';
import { logEvent } from './_lib/log.js';
import {
  banAccount,
  createAccount,
  grantCoin,
  revokeSessions,
  unbanAccount,
  type AccountActionBody,
  type AccountBanBody,
  type CreateAccountBody,
  type GrantCoinBody,
} from './_lib/ledger/service.js';
import { AUDIT_PARAMS, listAudit, recordAudit } from './_lib/audit/service.js';
import { auditLog } from './_lib/audit/store.js';

/** Query parameters of the player search (also read by the OpenAPI document, `build/openapi/`). */
export const PLAYER_SEARCH_PARAMS = Object.freeze({
  q: { kind: 'string', required: true, maxLength: 200, pattern: /\S/, patternRule: 'contain a character other than white space' },
  cursor: { kind: 'string', maxLength: 300 },
  limit: { kind: 'int', min: 1, max: 100, default: 20, clamp: true },
} as const);

/** The audit log's and the histories' query parameters (the OpenAPI document reads them here). */
export { AUDIT_PARAMS, BAG_HISTORY_PARAMS, ITEM_EVENT_PARAMS, ITEM_LIST_PARAMS };

/** Query parameters of a run of the scheduled ledger check (also read by the OpenAPI document, `build/openapi/`). */
export const LEDGER_VERIFY_PARAMS = Object.freeze({
  budgetMs: { kind: 'int', min: 0, max: VERIFY_BUDGET_MAX_MS, default: VERIFY_BUDGET_MS },
} as const);

/** One run of the scheduled ledger check, and its alert (see the file header). */
async function verifyLedger(url: URL, trigger: VerificationTrigger): Promise<Response> {
  const { budgetMs } = parseQuery(url.searchParams, LEDGER_VERIFY_PARAMS).values;
  const config = getServiceConfig();
  const run = await runVerification(await ledgerStore(), { trigger, budgetMs });
  const alert = await alertOnFailures(run, { webhookUrl: config.alertWebhookUrl, log: logEvent });
  return plainJson({ ...run, alert });
}

/** The method exports (see the file header). */
export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = defineEntry(
  'admin',
  {
    accounts: {
      POST: async ({ request }) => {
        const body = await readJsonBody<CreateAccountBody>(request, { schema: 'create-account' });
        const { account, created } = await createAccount(await ledgerStore(), body);
        return idempotentAnswer({ account, created }, !created, { headers: { Location: `/api/admin/accounts/${account.studioId}` } });
      },
    },
    account: {
      // the route's path has a `{key}`, so a key is always there
      GET: async ({ key }) => {
        const selector = STUDIO_ID.test(key!) ? { studioId: key! } : UUID.test(key!) ? { accountId: key! } : undefined;
        if (!selector) throw new ServiceError('NOT_FOUND', 'Name the account by its studioId (STUDIO_*) or accountId (uuid).');
        const account = await (await ledgerStore()).findAccount(selector);
        if (!account) throw new ServiceError('NOT_FOUND', 'No account has this id.');
        return plainJson({ account });
      },
    },
    players: {
      GET: async ({ url }) => {
        const parsed = parseQuery(url.searchParams, PLAYER_SEARCH_PARAMS);
        const { q, cursor, limit } = parsed.values;
        const stores = { ledger: await ledgerStore(), player: await playerStore() };
        return plainJson(await findPlayers(stores, getServiceConfig(), { q, cursor, limit }), 200, clampHeaders(parsed.clamped));
      },
    },
    player: {
      GET: async ({ url, key }) => {
        parseQuery(url.searchParams, {});
        return plainJson(await playerSummary({ ledger: await ledgerStore(), player: await playerStore() }, key!));
      },
    },
    'player-export': {
      GET: async ({ url, key }) => {
        parseQuery(url.searchParams, {});
        const stores = { ledger: await ledgerStore(), player: await playerStore() };
        const data = await exportPlayer(stores, await accountNamed(stores.ledger, key!));
        return plainJson(data, 200, { 'Content-Disposition': exportDisposition(data.account.studioId) });
      },
    },
    'player-wallet': {
      GET: async ({ url, key }) => {
        const parsed = parseQuery(url.searchParams, OVERVIEW_PARAMS);
        const q = parsed.values;
        const page = await walletHistory(await ledgerStore(), key!, {
          limit: q.limit,
          cursor: q.cursor,
          kind: q.kind as TransferKindName | undefined,
          purpose: q.purpose,
        });
        return plainJson(page, 200, clampHeaders(parsed.clamped));
      },
    },
    'player-bag': {
      GET: async ({ url, key }) => {
        const parsed = parseQuery(url.searchParams, BAG_HISTORY_PARAMS);
        const { limit, cursor, definitionId } = parsed.values;
        const page = await bagHistory({ ledger: await ledgerStore(), player: await playerStore() }, key!, { limit, cursor, definitionId });
        return plainJson(page, 200, clampHeaders(parsed.clamped));
      },
    },
    'player-items': {
      GET: async ({ url, key }) => {
        const parsed = parseQuery(url.searchParams, ITEM_LIST_PARAMS);
        const { limit, cursor, state } = parsed.values;
        const stores = { ledger: await ledgerStore(), player: await playerStore() };
        const page = await itemList(stores, key!, { limit, cursor, state: state as ItemState | undefined });
        return plainJson(page, 200, clampHeaders(parsed.clamped));
      },
    },
    'item-history': {
      GET: async ({ url, key }) => {
        const parsed = parseQuery(url.searchParams, ITEM_EVENT_PARAMS);
        const { limit, cursor } = parsed.values;
        const page = await itemEventPage({ ledger: await ledgerStore(), player: await playerStore() }, key!, { limit, cursor });
        return plainJson(page, 200, clampHeaders(parsed.clamped));
      },
    },
    'player-island': {
      GET: async ({ url, key }) => {
        parseQuery(url.searchParams, {});
        return plainJson(await playerIsland({ ledger: await ledgerStore(), player: await playerStore() }, key!));
      },
    },
    'player-characters': {
      GET: async ({ url, key }) => {
        parseQuery(url.searchParams, {});
        return plainJson(await playerCharacters({ ledger: await ledgerStore(), player: await playerStore() }, key!));
      },
    },
    session: {
      POST: async ({ url, caller }) => {
        parseQuery(url.searchParams, {});
        // a token cannot make another: the short lifetime bounds what a stolen one is worth
        if (caller.via !== 'password')
          throw new ServiceError('FORBIDDEN', 'A session is made from X-Admin-Password only; a token cannot make another. Sign in again.');
        return plainJson(await operatorSession(getServiceConfig().jwt));
      },
    },
    'revoke-sessions': {
      POST: async ({ request, key }) => {
        const body = await readJsonBody<AccountActionBody>(request, { schema: 'account-action' });
        const result = await revokeSessions(await ledgerStore(), key!, body);
        return idempotentAnswer(result, result.idempotent, { createdStatus: 200 });
      },
    },
    ban: {
      POST: async ({ request, key }) => {
        const body = await readJsonBody<AccountBanBody>(request, { schema: 'account-ban' });
        const result = await banAccount(await ledgerStore(), key!, body);
        return idempotentAnswer(result, result.idempotent, { createdStatus: 200 });
      },
    },
    unban: {
      POST: async ({ request, key }) => {
        const body = await readJsonBody<AccountActionBody>(request, { schema: 'account-action' });
        const result = await unbanAccount(await ledgerStore(), key!, body);
        return idempotentAnswer(result, result.idempotent, { createdStatus: 200 });
      },
    },
    erase: {
      POST: async ({ request, key }) => {
        const body = await readJsonBody<EraseBody>(request, { schema: 'account-action' });
        const result = await erasePlayer({ ledger: await ledgerStore(), player: await playerStore() }, key!, body);
        return idempotentAnswer(result, result.idempotent, { createdStatus: 200 });
      },
    },
    audit: {
      GET: async ({ url }) => {
        const parsed = parseQuery(url.searchParams, AUDIT_PARAMS);
        return plainJson(await listAudit(await auditLog(), await ledgerStore(), parsed.values), 200, clampHeaders(parsed.clamped));
      },
    },
    'ledger-verify': {
      GET: ({ url }) => verifyLedger(url, 'cron'),
      POST: ({ url }) => verifyLedger(url, 'operator'),
    },
    'ledger-health': {
      GET: async ({ url }) => {
        parseQuery(url.searchParams, {});
        return plainJson(await verificationHealth(await ledgerStore()));
      },
    },
    reversals: {
      POST: async ({ request, caller }) => {
        const body = await readJsonBody<ReversalBody>(request, { schema: 'reversal' });
        const result = await reverseEntry(await ledgerStore(), body, actorName(caller));
        return idempotentAnswer(result, result.idempotent, { createdStatus: 200 });
      },
    },
    'bag-reversals': {
      POST: async ({ request, caller }) => {
        const body = await readJsonBody<BagReversalBody>(request, { schema: 'bag-reversal' });
        const result = await reverseBagGrant(await playerStore(), await ledgerStore(), body, actorName(caller));
        return idempotentAnswer(result, result.idempotent, { createdStatus: 200 });
      },
    },
    'item-void': {
      POST: async ({ request, key, caller }) => {
        const id = instanceIdOf(key);
        const body = await readJsonBody<VoidBody>(request, { schema: 'item-void' });
        const result = await voidItem(await playerStore(), await ledgerStore(), id, body, actorName(caller));
        return idempotentAnswer(result, result.idempotent, { createdStatus: 200 });
      },
    },
    'grant-coin': {
      POST: async ({ request, caller }) => {
        const body = await readJsonBody<GrantCoinBody>(request, { schema: 'grant-coin' });
        const result = await grantCoin(await ledgerStore(), body, undefined, actorName(caller));
        return idempotentAnswer(result, result.idempotent, { createdStatus: 200 });
      },
    },
  },
  { audit: recordAudit },
);
