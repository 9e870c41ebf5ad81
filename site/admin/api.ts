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
 * The bag's paged history (`GET /api/admin/players/{key}/bag`, by definition), the items in every state
 * (`/items`) with each item's events (`GET /api/admin/items/{id}/events`), the audit log and the ledger
 * health are reads every operator may make; reversing a bag grant, voiding an item and running the ledger
 * check now are an admin's (docs/architecture.md, "Bag reversals", "Voided items", "Audit log", "Scheduled
 * verification").
 */
import {
  ApiError,
  GameDataClient,
  type AccountAccessResponse,
  type AdminSessionResponse,
  type ApiResponse,
  type AuditResponse,
  type BagReversalResponse,
  type ItemEventsResponse,
  type ItemVoidedResponse,
  type LedgerHealthResponse,
  type LedgerVerificationResponse,
  type PlayerBagResponse,
  type PlayerItemsResponse,
  type PlayerCharactersResponse,
  type PlayerExportResponse,
  type PlayerIslandResponse,
  type PlayerSearchResponse,
  type PlayerSummaryResponse,
  type PlayerWalletResponse,
  type ReversalResponse,
  type WalletCreditResponse,
} from '../../client/src/index.js';
import type { AuditFilters, ItemState, WalletKind } from './state.js';

export { ApiError };
export type {
  AccountAccessResponse,
  AuditResponse,
  BagReversalResponse,
  ItemEventsResponse,
  ItemVoidedResponse,
  LedgerHealthResponse,
  LedgerVerificationResponse,
  PlayerBagResponse,
  PlayerItemsResponse,
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

/** Bag entries per page of a definition's history. */
export const BAG_PAGE = 25;
/** Items per page of the player view. */
export const ITEMS_PAGE = 50;
/** Events per page of an item's history. */
export const EVENTS_PAGE = 25;

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

/** `GET /api/admin/players/{key}/bag?definitionId=&cursor=&limit=` (support): the lines held now and a page of entries, newest first. */
export function playerBag(
  key: string,
  page: { readonly definitionId?: string; readonly cursor?: string; readonly limit?: number },
  signal?: AbortSignal,
): Promise<PlayerBagResponse> {
  const query = {
    limit: page.limit ?? BAG_PAGE,
    ...(page.definitionId ? { definitionId: page.definitionId } : {}),
    ...(page.cursor ? { cursor: page.cursor } : {}),
  };
  return body(client.getPlayerBag({ key, query }, opts(signal)));
}

/** `GET /api/admin/players/{key}/items?state=&cursor=&limit=` (support): a page of the account's unique items, newest mint first. */
export function playerItems(
  key: string,
  page: { readonly state?: ItemState | ''; readonly cursor?: string; readonly limit?: number },
  signal?: AbortSignal,
): Promise<PlayerItemsResponse> {
  const query = {
    limit: page.limit ?? ITEMS_PAGE,
    ...(page.state ? { state: page.state } : {}),
    ...(page.cursor ? { cursor: page.cursor } : {}),
  };
  return body(client.getPlayerItems({ key, query }, opts(signal)));
}

/** `GET /api/admin/items/{id}/events?cursor=&limit=` (support): the item with its owner and a page of its events, newest first. */
export function itemEvents(studioUuid: string, cursor: string, signal?: AbortSignal): Promise<ItemEventsResponse> {
  return body(client.getItemEvents({ key: studioUuid, query: { limit: EVENTS_PAGE, ...(cursor ? { cursor } : {}) } }, opts(signal)));
}

/** `GET /api/admin/audit?actor=&account=&route=&from=&to=&cursor=&limit=` (support): a page of records, newest first. @throws ApiError 400 for a bad time or cursor, 404 for an unknown account */
export function auditLog(query: Partial<AuditFilters> & { readonly limit: number }, signal?: AbortSignal): Promise<AuditResponse> {
  return body(client.listAudit({ query }, opts(signal)));
}

/** `GET /api/admin/ledger/health` (support): the pass under way or the last one, and the last results. */
export function ledgerHealth(signal?: AbortSignal): Promise<LedgerHealthResponse> {
  return body(client.getLedgerHealth(opts(signal)));
}

/** `POST /api/admin/ledger/verify` (admin): run the ledger check now, for its default budget. */
export function runLedgerCheck(): Promise<LedgerVerificationResponse> {
  return body(client.runLedgerCheck());
}

/** `POST /api/admin/bag-reversals` (admin). @throws ApiError 409 when the grant was reversed before (naming the reversal), is no grant, or more than is held */
export function reverseBagGrant(studioId: string, sourceRef: string, reason: string, idempotencyKey: string): Promise<BagReversalResponse> {
  return body(client.reverseBagGrant({ body: { studioId, sourceRef, reason, idempotencyKey } }));
}

/** `POST /api/admin/items/{id}/void` (admin). @throws ApiError 409 when the item is consumed, destroyed or voided already */
export function voidItem(studioUuid: string, reason: string, idempotencyKey: string): Promise<ItemVoidedResponse> {
  return body(client.voidItem({ key: studioUuid, body: { reason, idempotencyKey } }));
}
