/**
 * Every HTTP call of the operator console: one typed async function per operator route the console reads or
 * acts through, each a call of the typed client (`client/`), with the tab's operator token (`session.ts`)
 * as `Authorization: Bearer …` (docs/architecture.md, "Operator console"). The admin password is sent once,
 * by {@link exchangePassword}, through a client of its own that holds it for that one call and is dropped.
 *
 * Refusals reject with the client's `ApiError` (status, the problem's `code`, `detail`, `problem` with its
 * `title`); a call that got no answer rejects with status 0 (`NETWORK_ERROR`). A 401 on any call first runs
 * the handler given to {@link useUnauthorizedHandler} (the page forgets the token and returns to the
 * sign-in, keeping the page), then rejects as well.
 *
 * Places kept for routes that come later (each named here so a view can offer them once they answer):
 * - paged bag history `GET /api/admin/players/{key}/bag` and item history `GET /api/admin/players/{key}/items`
 *   ({@link BAG_HISTORY_ROUTE}, {@link ITEMS_ROUTE}): the player view reads the bag and the items from the
 *   summary until then;
 * - the audit log `GET /api/admin/audit` and the ledger health `GET /api/admin/ledger/health`
 *   ({@link AUDIT_ROUTE}, {@link LEDGER_HEALTH_ROUTE}): their views say they are not served yet;
 * - reversing a bag grant and voiding a unique item (`KEYED_ACTIONS` `bag-reversal`, `item-void` in
 *   `intents.ts`): the bag and item rows keep a cell for them.
 */
import {
  ApiError,
  GameDataClient,
  type AccountAccessResponse,
  type AdminSessionResponse,
  type ApiResponse,
  type ItemHistoryResponse,
  type PlayerCharactersResponse,
  type PlayerExportResponse,
  type PlayerIslandResponse,
  type PlayerSearchResponse,
  type PlayerSummaryResponse,
  type PlayerWalletResponse,
  type ReversalResponse,
  type WalletCreditResponse,
} from '../../client/src/index.js';
import type { WalletKind } from './state.js';

export { ApiError };
export type {
  AccountAccessResponse,
  ItemHistoryResponse,
  PlayerCharactersResponse,
  PlayerExportResponse,
  PlayerIslandResponse,
  PlayerSearchResponse,
  PlayerSummaryResponse,
  PlayerWalletResponse,
  ReversalResponse,
  WalletCreditResponse,
};

/** One wallet entry as the operator routes answer it. */
export type WalletEntry = PlayerWalletResponse['transactions'][number];

/** Paged bag history of an account, once served. */
export const BAG_HISTORY_ROUTE = '/api/admin/players/{key}/bag';
/** Paged unique items of an account with their history, once served. */
export const ITEMS_ROUTE = '/api/admin/players/{key}/items';
/** The audit log, once served. */
export const AUDIT_ROUTE = '/api/admin/audit';
/** The ledger health panel, once served. */
export const LEDGER_HEALTH_ROUTE = '/api/admin/ledger/health';

/** Wallet entries per page of the player view. */
export const WALLET_PAGE = 25;

let tokenOf: () => string | undefined = () => undefined;
let onUnauthorized: () => void = () => undefined;

/** Where the client reads the token from (the tab's session), per request. */
export function useToken(read: () => string | undefined): void {
  tokenOf = read;
}

/** What to do when a call is answered 401 (the page forgets the token and shows the sign-in). */
export function useUnauthorizedHandler(handler: () => void): void {
  onUnauthorized = handler;
}

const client = new GameDataClient({ token: () => tokenOf() });

/** The body of a call; a 401 runs the unauthorized handler before rejecting. */
async function body<T>(call: Promise<ApiResponse<T>>): Promise<T> {
  try {
    return (await call).body;
  } catch (e) {
    if (e instanceof ApiError && e.status === 401) onUnauthorized();
    throw e;
  }
}

const opts = (signal?: AbortSignal) => (signal ? { signal } : {});

/**
 * `POST /api/admin/session`: the admin password exchanged for a short-lived operator token. The password is
 * held by a client made for this call only and sent as `X-Admin-Password`; nothing keeps it afterwards.
 * @throws ApiError 401 for a wrong password, 429 past the budget of failed sign-ins, 503 when the deployment signs no tokens.
 */
export async function exchangePassword(password: string): Promise<AdminSessionResponse> {
  const once = new GameDataClient({ adminPassword: password });
  return (await once.createOperatorSession()).body;
}

/** `GET /api/admin/players?q=&limit=` (support). */
export function findPlayers(q: string, signal?: AbortSignal): Promise<PlayerSearchResponse> {
  return body(client.findPlayers({ query: { q, limit: 20 } }, opts(signal)));
}

/** `GET /api/admin/players/{key}` (support): the summary. @throws ApiError 404 for an unknown account */
export function playerSummary(key: string, signal?: AbortSignal): Promise<PlayerSummaryResponse> {
  return body(client.getPlayerSummary({ key }, opts(signal)));
}

/** `GET /api/admin/players/{key}/wallet?kind=&cursor=&limit=` (support): a page of entries, newest first. */
export function playerWallet(
  key: string,
  page: { readonly kind?: WalletKind | ''; readonly cursor?: string; readonly limit?: number },
  signal?: AbortSignal,
): Promise<PlayerWalletResponse> {
  const query = {
    limit: page.limit ?? WALLET_PAGE,
    ...(page.kind ? { kind: page.kind } : {}),
    ...(page.cursor ? { cursor: page.cursor } : {}),
  };
  return body(client.getPlayerWallet({ key, query }, opts(signal)));
}

/** `GET /api/admin/players/{key}/island` (support): the island whole, or null while never opened. */
export function playerIsland(key: string, signal?: AbortSignal): Promise<PlayerIslandResponse> {
  return body(client.getPlayerIsland({ key }, opts(signal)));
}

/** `GET /api/admin/players/{key}/characters` (support): every character with its progress. */
export function playerCharacters(key: string, signal?: AbortSignal): Promise<PlayerCharactersResponse> {
  return body(client.getPlayerCharacters({ key }, opts(signal)));
}

/** `GET /api/ledger/{studioUuid}` (game servers and admins): a unique item, its owner and every event. */
export function itemHistory(studioUuid: string, signal?: AbortSignal): Promise<ItemHistoryResponse> {
  return body(client.getItem({ key: studioUuid }, opts(signal)));
}

/** `GET /api/admin/players/{key}/export` (support): everything held about the account. */
export function exportPlayer(key: string): Promise<PlayerExportResponse> {
  return body(client.exportPlayer({ key }));
}

/** `POST /api/admin/grant-coin` (admin). */
export function grantCoin(studioId: string, amount: number, reason: string, idempotencyKey: string): Promise<WalletCreditResponse> {
  return body(client.grantCoin({ body: { studioId, amount, reason, idempotencyKey } }));
}

/** `POST /api/admin/reversals` (admin). @throws ApiError 409 when the entry was reversed before, is a reversal, or exceeds the balance */
export function reverseEntry(entryId: string, reason: string, idempotencyKey: string): Promise<ReversalResponse> {
  return body(client.reverseEntry({ body: { entryId, reason, idempotencyKey } }));
}

/** `POST /api/admin/players/{key}/revoke-sessions` (admin). */
export function revokeSessions(key: string, reason: string, idempotencyKey: string): Promise<AccountAccessResponse> {
  return body(client.revokeSessions({ key, body: { reason, idempotencyKey } }));
}

/** `POST /api/admin/players/{key}/ban` (admin); `until` null: without end. */
export function ban(key: string, reason: string, until: string | null, idempotencyKey: string): Promise<AccountAccessResponse> {
  return body(client.banAccount({ key, body: { reason, idempotencyKey, ...(until === null ? {} : { until }) } }));
}

/** `POST /api/admin/players/{key}/unban` (admin). */
export function unban(key: string, reason: string, idempotencyKey: string): Promise<AccountAccessResponse> {
  return body(client.unbanAccount({ key, body: { reason, idempotencyKey } }));
}

/** `POST /api/admin/players/{key}/erase` (admin). */
export function erase(key: string, reason: string, idempotencyKey: string): Promise<AccountAccessResponse> {
  return body(client.erasePlayer({ key, body: { reason, idempotencyKey } }));
}
