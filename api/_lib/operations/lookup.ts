/**
 * Player look-up for operators (spec 2.6, 2.8, 4.8, 5.3; docs/architecture.md, "Player look-up"): find
 * accounts by any id, username, external user id or display-name prefix, read in one answer what a
 * support screen needs, and export everything held about an account (GDPR article 15). Read-only: nothing here writes (an island never read by its player is reported as
 * absent, not created).
 *
 * Matching (`findPlayers`): a query is tried as a studio id, an account id, a username and an external
 * user id (`<provider>:<id>`, or the bare id under the configured provider), each exact; then as a
 * display-name prefix, compared by `nameKey` (NFC, lower case). The first page lists the exact matches
 * first, then the name matches; later pages (the opaque cursor) hold name matches only. An account shows
 * once, under the first rule that found it.
 */
import type { ServiceConfig } from '../config.js';
import { ServiceError } from '../errors.js';
import { STUDIO_ID, UUID } from '../ledger/ids.js';
import {
  accessAnswer,
  refOf,
  walletPage,
  type AccessAnswer,
  type AccountRef,
  type WalletPage,
  type OverviewQuery,
} from '../ledger/service.js';
import { nameKey, type Account, type LedgerStore } from '../ledger/types.js';
import { characterView } from '../player/service.js';
import type { IslandState } from '../island/generate.js';
import type { BagLine, Character, LearnedRecipe, PlayerStore, Progress } from '../player/types.js';
import { ERAS } from '../player/types.js';
import {
  bagEntryView,
  bagPage,
  itemEventView,
  itemPage,
  itemView,
  type BagHistoryEntry,
  type BagPage,
  type ItemEventView,
  type ItemPage,
  type ItemView,
} from './history.js';
import { requestFingerprint } from '../stores/idempotency.js';
import { systemClock, type Clock } from '../stores/clock.js';
import { noteAuditAccount } from '../util/audit-scope.js';

/** The stores the look-up reads. */
export interface LookupStores {
  readonly ledger: LedgerStore;
  readonly player: PlayerStore;
}

/** How an account was found. */
export type MatchRule = 'studioId' | 'accountId' | 'username' | 'externalUserId' | 'displayName';

/** One account found, with the rule that found it. */
export interface PlayerHit {
  readonly account: Account;
  readonly matched: MatchRule;
}

/** Answer of `GET /api/admin/players` (`schemas/responses/player-search.schema.json`). */
export interface PlayerSearch {
  readonly q: string;
  readonly players: readonly PlayerHit[];
  /** Opaque cursor of the next page for the same `q`, or null. */
  readonly cursor: string | null;
  readonly hasMore: boolean;
}

/** The binding of a search cursor to its query. */
const binding = (q: string) => requestFingerprint(['player-search', q]).slice(0, 16);

/** A search cursor: base64url of `s1.<binding>.<position>` (the position is the store's). */
function encodeSearchCursor(q: string, position: string): string {
  return Buffer.from(`s1.${binding(q)}.${position}`).toString('base64url');
}

/**
 * The store's position in a search cursor of `q`.
 * @throws ServiceError INVALID_QUERY for a cursor that is not one of this search.
 */
function decodeSearchCursor(cursor: string, q: string): string {
  const text = Buffer.from(cursor, 'base64url').toString('utf8');
  // the position is the store's: `<name key>\0<account id>`; the binding is no secret, so its form is
  // checked, and its name key must be one of a match (starting with the query's): a place before them
  // would list every name between it and the query's
  const m = /^s1\.([0-9a-f]{16})\.(([^\0]*)\0[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/.exec(text);
  if (!m || m[1] !== binding(q) || !m[3]!.startsWith(nameKey(q)))
    throw new ServiceError('INVALID_QUERY', 'The cursor is not one of this search. Start again without a cursor.', {
      errors: [{ name: 'cursor', message: 'it was not issued for this q' }],
    });
  return m[2]!;
}

/** The exact matches of `q`, in rule order. */
async function exactMatches(stores: LookupStores, config: ServiceConfig, q: string): Promise<PlayerHit[]> {
  const out: PlayerHit[] = [];
  const add = (account: Account | undefined, matched: MatchRule) => {
    if (account && !out.some((h) => h.account.accountId === account.accountId)) out.push({ account, matched });
  };
  if (STUDIO_ID.test(q)) add(await stores.ledger.findAccount({ studioId: q }), 'studioId');
  if (UUID.test(q)) add(await stores.ledger.findAccount({ accountId: q }), 'accountId');
  add(await stores.ledger.accountByUsername(q), 'username');
  const identities: [string, string][] = [];
  const colon = q.indexOf(':');
  if (colon > 0) identities.push([q.slice(0, colon), q.slice(colon + 1)]);
  if (config.externalAuth.kind === 'jwks') identities.push([config.externalAuth.provider, q]);
  for (const [provider, id] of identities) {
    const link = await stores.player.externalLink(provider, id);
    if (link) add(await stores.ledger.findAccount({ accountId: link.accountId }), 'externalUserId');
  }
  return out;
}

/**
 * Find accounts (see the module header).
 * @param q 1-200 characters, as sent (the query parser refused blank ones).
 * @param limit name matches per page, 1-100.
 * @throws ServiceError INVALID_QUERY (a cursor of another search), UPSTREAM_UNAVAILABLE.
 */
export async function findPlayers(
  stores: LookupStores,
  config: ServiceConfig,
  query: { readonly q: string; readonly cursor?: string | undefined; readonly limit: number },
): Promise<PlayerSearch> {
  const after = query.cursor === undefined ? undefined : decodeSearchCursor(query.cursor, query.q);
  const exact = after === undefined ? await exactMatches(stores, config, query.q) : [];
  const page = await stores.ledger.accountsByName(query.q, { after, limit: query.limit });
  const seen = new Set(exact.map((h) => h.account.accountId));
  const named = page.accounts.filter((a) => !seen.has(a.accountId)).map((account) => ({ account, matched: 'displayName' as const }));
  return {
    q: query.q,
    players: [...exact, ...named],
    cursor: page.next === undefined ? null : encodeSearchCursor(query.q, page.next),
    hasMore: page.next !== undefined,
  };
}

/** Latest wallet entries the summary shows. */
export const SUMMARY_ENTRIES = 20;

/** Answer of `GET /api/admin/players/{studioId}` (`schemas/responses/player-summary.schema.json`). */
export interface PlayerSummary {
  readonly account: Account;
  /** External identities bound to the account (never a platform token). */
  readonly links: readonly { provider: string; externalUserId: string; username: string; linkedAt: string }[];
  readonly access: AccessAnswer['access'];
  /** Balance and the latest {@link SUMMARY_ENTRIES} entries, with the cursor of the wallet history route. */
  readonly wallet: WalletPage;
  readonly bag: readonly BagLine[];
  /**
   * The latest {@link SUMMARY_ENTRIES} bag entries with their reversal links, with the cursor of the bag
   * history route (`history.ts`).
   */
  readonly bagHistory: Omit<BagPage, 'bag'>;
  /** The unique items the account owns, as the bag answers them. */
  readonly items: readonly { studioUuid: string; definitionId: string; state: string; characterId: string | null; mintedAt: string }[];
  /**
   * The latest {@link SUMMARY_ENTRIES} items of the account in every state (a voided one too), with the
   * cursor of the items route.
   */
  readonly itemHistory: ItemPage;
  /** Characters of every era, as the character routes answer them (with `progress_revision`). */
  readonly characters: readonly ReturnType<typeof characterView>[];
  /** The island's revision, last change and counts, or null when the player never opened it. */
  readonly island: { readonly revision: number; readonly updatedAt: string; readonly summary: IslandSummary } | null;
  readonly recipes: readonly LearnedRecipe[];
}

/** What an island holds, counted. */
export interface IslandSummary {
  readonly seed: number;
  readonly nodes: number;
  readonly animals: number;
  readonly terrainZones: number;
  readonly campPosition: { readonly x: number; readonly z: number } | null;
  readonly exportedFromRts: boolean;
}

/**
 * The account an operator route names: a studio id or an account id.
 * @throws ServiceError NOT_FOUND
 */
export async function accountNamed(ledger: LedgerStore, key: string): Promise<Account> {
  const selector = STUDIO_ID.test(key) ? { studioId: key } : UUID.test(key) ? { accountId: key } : undefined;
  const account = selector ? await ledger.findAccount(selector) : undefined;
  if (!account) throw new ServiceError('NOT_FOUND', 'No account has this studioId or accountId.');
  noteAuditAccount(account.accountId);
  return account;
}

/**
 * Everything a support screen shows of one account, read in parallel (see the module header).
 * @throws ServiceError NOT_FOUND, UPSTREAM_UNAVAILABLE
 */
export async function playerSummary(stores: LookupStores, key: string, clock: Clock = systemClock): Promise<PlayerSummary> {
  const account = await accountNamed(stores.ledger, key);
  return summaryOf(account, await partsOf(stores, account), clock());
}

/** Every part of an account as the stores hold it, read in parallel (the summary's and the export's reads). */
async function partsOf(stores: LookupStores, account: Account) {
  const id = account.accountId;
  const [links, access, wallet, bagHistory, items, itemHistory, characters, island, recipes] = await Promise.all([
    stores.player.externalLinksOf(id),
    stores.ledger.access(id),
    walletPage(stores.ledger, account, { limit: SUMMARY_ENTRIES }, { actors: true }),
    bagPage(stores.player, account, { limit: SUMMARY_ENTRIES }),
    stores.player.accountItems(id),
    itemPage(stores.player, account, { limit: SUMMARY_ENTRIES }),
    Promise.all(ERAS.map((era) => stores.player.characters(id, era))).then((lists) => lists.flat()),
    stores.player.findIsland(id),
    stores.player.recipes(id),
  ]);
  return { links, access, wallet, bagHistory, items, itemHistory, characters, island, recipes };
}

/** The summary of `account` from its parts at `now`. Pure. */
function summaryOf(account: Account, parts: Awaited<ReturnType<typeof partsOf>>, now: Date): PlayerSummary {
  const { links, access, wallet, bagHistory, items, itemHistory, characters, island, recipes } = parts;
  const { bag, ...latest } = bagHistory;
  return {
    account,
    links: links.map((l) => ({ provider: l.provider, externalUserId: l.externalUserId, username: l.username, linkedAt: l.linkedAt })),
    access: accessAnswer(account, access, false, now).access,
    wallet,
    bag,
    bagHistory: latest,
    itemHistory,
    items: items.map((i) => ({
      studioUuid: i.studioUuid,
      definitionId: i.definitionId,
      state: i.state,
      characterId: i.characterId,
      mintedAt: i.mintedAt,
    })),
    characters: characters.map(characterView),
    island: island
      ? {
          revision: island.revision,
          updatedAt: island.updatedAt,
          summary: {
            seed: island.state.seed,
            nodes: island.state.nodes.length,
            animals: island.state.animals.length,
            terrainZones: island.state.terrainZones.length,
            campPosition: island.state.campPosition ? { x: island.state.campPosition.x, z: island.state.campPosition.z } : null,
            exportedFromRts: island.state.rtsExport !== undefined,
          },
        }
      : null,
    recipes,
  };
}

/**
 * One page of an account's wallet entries for operators, newest first, with who asked for each.
 * @throws ServiceError NOT_FOUND, INVALID_QUERY (bad cursor), UPSTREAM_UNAVAILABLE
 */
export async function walletHistory(ledger: LedgerStore, key: string, query: OverviewQuery): Promise<{ account: Account } & WalletPage> {
  const account = await accountNamed(ledger, key);
  return { account, ...(await walletPage(ledger, account, query, { actors: true })) };
}

/**
 * One page of an account's bag entries for operators, newest first, with their reversal links and the
 * quantities held now (`history.ts`).
 * @throws ServiceError NOT_FOUND, INVALID_QUERY (bad cursor), UPSTREAM_UNAVAILABLE
 */
export async function bagHistory(
  stores: LookupStores,
  key: string,
  query: Parameters<typeof bagPage>[2],
): Promise<{ account: Account } & BagPage> {
  const account = await accountNamed(stores.ledger, key);
  return { account, ...(await bagPage(stores.player, account, query)) };
}

/**
 * One page of an account's unique items for operators, newest mint first, in every state (`history.ts`).
 * @throws ServiceError NOT_FOUND, INVALID_QUERY (bad cursor), UPSTREAM_UNAVAILABLE
 */
export async function itemList(
  stores: LookupStores,
  key: string,
  query: Parameters<typeof itemPage>[2],
): Promise<{ account: Account } & ItemPage> {
  const account = await accountNamed(stores.ledger, key);
  return { account, ...(await itemPage(stores.player, account, query)) };
}

/** Answer of `GET /api/admin/players/{studioId}/island` (`schemas/responses/player-island.schema.json`). */
export interface PlayerIsland {
  readonly account: AccountRef;
  /** The island's whole state with its revision, or null while the player never opened it. */
  readonly island: { readonly revision: number; readonly updatedAt: string; readonly state: IslandState } | null;
}

/**
 * An account's island as it stands, for an operator's picture of it (docs/architecture.md, "Operator
 * console"). Reads only: an island the player never opened is null, not created (the player's own
 * `GET /api/island/state` would create it).
 * @throws ServiceError NOT_FOUND, UPSTREAM_UNAVAILABLE
 */
export async function playerIsland(stores: LookupStores, key: string): Promise<PlayerIsland> {
  const account = await accountNamed(stores.ledger, key);
  const island = await stores.player.findIsland(account.accountId);
  return {
    account: refOf(account),
    island: island ? { revision: island.revision, updatedAt: island.updatedAt, state: island.state } : null,
  };
}

/** Answer of `GET /api/admin/players/{studioId}/characters` (`schemas/responses/player-characters.schema.json`). */
export interface PlayerCharacters {
  readonly account: AccountRef;
  /** Every character of every era (in the order of `ERAS`, then as the store lists them), with its progress and last save. */
  readonly characters: readonly {
    readonly character: ReturnType<typeof characterView>;
    readonly progress: Progress;
    readonly updatedAt: string;
  }[];
}

/**
 * An account's characters with their progress (spec 2.8: attributes, profession levels, equipment, weapon
 * mastery, skill loadouts), for operators. Reads only.
 * @throws ServiceError NOT_FOUND, UPSTREAM_UNAVAILABLE
 */
export async function playerCharacters(stores: LookupStores, key: string): Promise<PlayerCharacters> {
  const account = await accountNamed(stores.ledger, key);
  const lists = await Promise.all(ERAS.map((era) => stores.player.characters(account.accountId, era)));
  return {
    account: refOf(account),
    characters: lists.flat().map((c: Character) => ({ character: characterView(c), progress: c.progress, updatedAt: c.updatedAt })),
  };
}

/** The `Content-Disposition` of an account's export: a download named after its studio id. */
export const exportDisposition = (studioId: string): string => `attachment; filename="export-${studioId}.json"`;

/** Wallet entries read per store call while exporting. */
const EXPORT_PAGE = 1000;

/**
 * Who an export is for: an operator (`GET /api/admin/players/{key}/export`) reads who asked for each
 * wallet entry and why the account was banned; the player (`GET /api/account/export`) reads neither,
 * which are operators' only (docs/architecture.md, "Sessions and bans", "Reversals").
 */
export type ExportAudience = 'operator' | 'player';

/** The access of an export: the summary's, whose ban carries its reason in an operator's export only. */
export interface ExportAccess {
  readonly sessionsRevokedAt: string | null;
  readonly ban: { readonly reason?: string; readonly at: string; readonly until: string | null; readonly active: boolean } | null;
}

/** Answer of the exports (`schemas/responses/player-export.schema.json`): everything held about one account. */
export interface PlayerExport {
  readonly exportedAt: string;
  readonly account: Account;
  readonly links: PlayerSummary['links'];
  readonly access: ExportAccess;
  readonly wallet: { readonly balance: number; readonly entries: WalletPage['transactions'] };
  readonly bag: readonly BagLine[];
  /** Every bag entry of the account, newest first (as the wallet's), with its reversal links and a reversal's reason. */
  readonly bagEntries: readonly BagHistoryEntry[];
  /**
   * Each unique item of the account (owned now, or ended in its hands: consumed, destroyed, voided), newest
   * mint first, with the events of its history after which the account owned it, oldest first (a void with
   * its reason).
   */
  readonly items: readonly (ItemView & { readonly events: readonly ItemEventView[] })[];
  /** Each character with its full progress. */
  readonly characters: readonly (ReturnType<typeof characterView> & { readonly progress: Progress })[];
  /** The island's whole state, or null when the player never opened it. */
  readonly island: { readonly revision: number; readonly updatedAt: string; readonly state: IslandState } | null;
  readonly recipes: readonly LearnedRecipe[];
}

/**
 * Everything held about an account, as one JSON document (GDPR article 15; docs/architecture.md, "Player
 * look-up"): the summary's parts in full, every wallet and bag entry, each item's history (the items that
 * ended in the account's hands too), each character's progress and the island's state. Reads only.
 *
 * Nothing of another account: an item's history holds only the events after which the account owned it
 * (an item that came by a transfer starts at that transfer; the events before name the previous owner and
 * their characters). For the player (`audience`), neither who asked for each wallet entry, bag reversal or
 * item void (`actor`) nor a ban's reason, which operators only read.
 * @param audience who the export is for (default `operator`).
 * @throws ServiceError NOT_FOUND (operators' key), UPSTREAM_UNAVAILABLE
 */
export async function exportPlayer(
  stores: LookupStores,
  account: Account,
  clock: Clock = systemClock,
  audience: ExportAudience = 'operator',
): Promise<PlayerExport> {
  const parts = await partsOf(stores, account);
  const summary = summaryOf(account, parts, clock());
  const entries: WalletPage['transactions'][number][] = [];
  let cursor: string | undefined;
  do {
    const page = await walletPage(stores.ledger, account, { limit: EXPORT_PAGE, cursor }, { actors: audience === 'operator' });
    entries.push(...page.transactions);
    cursor = page.cursor ?? undefined;
  } while (cursor !== undefined);
  const bagEntries: BagHistoryEntry[] = [];
  let before: Parameters<PlayerStore['bagEntries']>[1]['before'];
  do {
    const page = await stores.player.bagEntries(account.accountId, { before, limit: EXPORT_PAGE });
    bagEntries.push(...page.entries.map(bagEntryView).map((e) => forAudience(e, audience)));
    before = page.next;
  } while (before !== undefined);
  const items: ItemView[] = [];
  let after: Parameters<PlayerStore['itemsOf']>[1]['after'];
  do {
    const page = await stores.player.itemsOf(account.accountId, { after, limit: EXPORT_PAGE });
    items.push(...page.items.map(itemView));
    after = page.next;
  } while (after !== undefined);
  const histories = await Promise.all(items.map((i) => itemEventsOf(stores.player, i.studioUuid)));
  const ban = summary.access.ban;
  return {
    exportedAt: clock().toISOString(),
    account: summary.account,
    links: summary.links,
    access: {
      sessionsRevokedAt: summary.access.sessionsRevokedAt,
      ban: ban === null || audience === 'operator' ? ban : { at: ban.at, until: ban.until, active: ban.active },
    },
    wallet: { balance: summary.wallet.balance, entries },
    bag: summary.bag,
    bagEntries,
    items: items.map((item, n) => ({
      ...item,
      events: histories[n]!.filter((e) => e.accountId === account.accountId).map((e) => forAudience(e, audience)),
    })),
    characters: parts.characters.map((c) => ({ ...characterView(c), progress: c.progress })),
    island: parts.island ? { revision: parts.island.revision, updatedAt: parts.island.updatedAt, state: parts.island.state } : null,
    recipes: summary.recipes,
  };
}

/** An entry or event as `audience` reads it: without its `actor` for the player. */
function forAudience<T extends { readonly actor?: string }>(entry: T, audience: ExportAudience): T {
  if (audience === 'operator' || entry.actor === undefined) return entry;
  const rest: { actor?: string } = { ...entry };
  delete rest.actor;
  return rest as T;
}

/** Every event of an item with its notes, oldest first. */
async function itemEventsOf(player: PlayerStore, studioUuid: string): Promise<ItemEventView[]> {
  const out: ItemEventView[] = [];
  let beforeSeq: number | undefined;
  do {
    const page = await player.itemEvents(studioUuid, { beforeSeq, limit: EXPORT_PAGE });
    if (!page) break;
    out.push(...page.events.map(itemEventView));
    beforeSeq = page.nextBeforeSeq;
  } while (beforeSeq !== undefined);
  return out.reverse();
}
