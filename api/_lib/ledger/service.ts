/**
 * The wallet operations behind the routes and the operator CLI (spec 1.7, 2.6, 2.8, 3, 4.8, 8):
 * account creation, verify-send-to-account, admin grant, and the wallet overview. Handlers check the
 * caller (`api/_lib/auth/guard.ts`) and read the body (`api/_lib/http/body.ts`) before calling these;
 * these resolve the account, mint ids and time, and turn store outcomes into answers or
 * {@link ServiceError}s.
 *
 * Idempotency (Stripe's keys, the IETF Idempotency-Key draft): a source ref is `verify-send:{key}` or
 * `admin-grant:{key}` and is kept forever. A replay is the same key with the same *resolved* account
 * (the selector form may differ), amount and purpose (for a grant, the reason): it answers the original
 * result with `idempotent: true`. The same key with another account, amount or purpose is 422
 * `IDEMPOTENCY_KEY_REUSED`; `note` is not part of the comparison (a retry may reword it; the original
 * note stays).
 */
import { issuedBefore, unauthorized, type Principal } from '../auth/tokens.js';
import { ServiceError } from '../errors.js';
import { systemClock, type Clock } from '../stores/clock.js';
import { requestFingerprint } from '../stores/idempotency.js';
import { rfc3339Time } from '../util/time.js';
import { mintStudioId, mintUuid, STUDIO_ID } from './ids.js';
import {
  erasedUsername,
  SOURCE_REF_PREFIX,
  TRANSFER_KIND_NAMES,
  transferKindOf,
  type TransferKindName,
  type AccessChange,
  type Account,
  type AccountAccess,
  type AccountBan,
  type AccountSelector,
  type LedgerStore,
  type PostingFilter,
  type PostingPage,
  type Transfer,
  type TransferKind,
} from './types.js';
import { noteAuditAccount } from '../util/audit-scope.js';

/** Purposes of verify-send (spec 4.8). */
export const VERIFY_SEND_PURPOSES = ['verify', 'test', 'platform_verify', 'ledger_verify'] as const;
/** Purpose recorded on an admin grant. */
export const GRANT_PURPOSE = 'grant';
/** Purpose recorded on a reversal (`reversals.ts`). */
export const REVERSAL_PURPOSE = 'reversal';
/** Largest single admin grant, integer coin units. */
export const GRANT_MAX = 1_000_000_000;

/** Body of `POST /api/wallet/verify-send-to-account` after schema validation. */
export interface VerifySendBody {
  readonly studioId?: string;
  readonly accountId?: string;
  readonly amount: number;
  readonly purpose: (typeof VERIFY_SEND_PURPOSES)[number];
  readonly idempotencyKey: string;
  readonly note?: string;
}

/** Body of `POST /api/admin/grant-coin` after schema validation. */
export interface GrantCoinBody {
  readonly studioId?: string;
  readonly accountId?: string;
  readonly amount: number;
  readonly reason: string;
  readonly idempotencyKey: string;
}

/** Body of `POST /api/admin/accounts` after schema validation. */
export interface CreateAccountBody {
  readonly displayName: string;
  readonly username?: string;
  readonly idempotencyKey?: string;
}

/** The account as answers show it. */
export interface AccountRef {
  readonly accountId: string;
  readonly studioId: string;
  readonly displayName: string;
}

/** Answer of a credit (verify-send or grant). */
export interface CreditAnswer {
  readonly kind: TransferKindName;
  readonly onChain: false;
  readonly burn: false;
  readonly idempotent: boolean;
  readonly entryId: string;
  readonly sourceRef: string;
  readonly account: AccountRef;
  readonly amount: number;
  readonly purpose: string;
  readonly note: string;
  readonly balance: number;
  readonly at: string;
}

/** The account as answers show it. */
export const refOf = (a: Account): AccountRef => ({ accountId: a.accountId, studioId: a.studioId, displayName: a.displayName });

/**
 * Resolve exactly one selector to an account.
 * @throws ServiceError INVALID_BODY when both or neither selector is given; NOT_FOUND when none matches.
 */
export async function resolveAccount(
  store: LedgerStore,
  body: { studioId?: string | undefined; accountId?: string | undefined },
): Promise<Account> {
  const has = [body.studioId !== undefined, body.accountId !== undefined];
  if (has[0] === has[1]) {
    throw new ServiceError('INVALID_BODY', 'Name the account by exactly one of studioId or accountId.', {
      errors: [
        {
          name: has[0] ? '/accountId' : '/studioId',
          message: has[0] ? 'Send studioId or accountId, not both.' : 'One of "studioId" or "accountId" is required.',
        },
      ],
    });
  }
  const selector: AccountSelector = body.studioId !== undefined ? { studioId: body.studioId } : { accountId: body.accountId! };
  const account = await store.findAccount(selector);
  if (!account) throw new ServiceError('NOT_FOUND', `No account has this ${body.studioId !== undefined ? 'studioId' : 'accountId'}.`);
  noteAuditAccount(account.accountId);
  return account;
}

async function credit(
  store: LedgerStore,
  account: Account,
  kind: TransferKind,
  key: string,
  amount: number,
  purpose: string,
  note: string,
  fingerprint: string,
  clock: Clock,
  actor: string,
): Promise<{ transfer: Transfer; idempotent: boolean }> {
  const outcome = await store.credit({
    actor,
    entryId: mintUuid(),
    sourceRef: SOURCE_REF_PREFIX[kind] + key,
    kind,
    accountId: account.accountId,
    amount,
    purpose,
    note,
    at: clock().toISOString(),
    fingerprint,
  });
  switch (outcome.status) {
    case 'created':
    case 'replayed':
      return { transfer: outcome.transfer, idempotent: outcome.status === 'replayed' };
    case 'key-reused':
      throw new ServiceError(
        'IDEMPOTENCY_KEY_REUSED',
        `The idempotency key was used before with another ${kind === 'admin_grant' ? 'account, amount or reason' : 'account, amount or purpose'}; nothing was credited. Use a new key for a new credit.`,
      );
    case 'overflow':
      throw new ServiceError('CONFLICT', 'This credit would take a balance beyond the largest amount the ledger holds.');
    default:
      throw new ServiceError('NOT_FOUND', 'The account no longer exists.');
  }
}

/** An answer from a transfer and the account it credited. */
function answer(kindLabel: CreditAnswer['kind'], account: Account, transfer: Transfer, idempotent: boolean): CreditAnswer {
  return {
    kind: kindLabel,
    onChain: false,
    burn: false,
    idempotent,
    entryId: transfer.entryId,
    sourceRef: transfer.sourceRef,
    account: refOf(account),
    amount: transfer.amount,
    purpose: transfer.purpose,
    note: transfer.note,
    balance: transfer.balanceAfter,
    at: transfer.at,
  };
}

/**
 * Verify-send-to-account (spec 4.8): credit the account once per idempotency key.
 * @param max `WALLET_VERIFY_SEND_MAX`, integer coin units.
 * @param actor who asks (`actorName` of the caller), kept beside the entry; default `''`.
 * @throws ServiceError INVALID_BODY (selector, amount above `max`), NOT_FOUND (account),
 *   IDEMPOTENCY_KEY_REUSED (422), UPSTREAM_UNAVAILABLE (store).
 */
export async function verifySend(
  store: LedgerStore,
  body: VerifySendBody,
  max: number,
  clock: Clock = systemClock,
  actor = '',
): Promise<CreditAnswer> {
  if (body.amount > max) {
    throw new ServiceError('INVALID_BODY', `The amount must be at most ${max} (WALLET_VERIFY_SEND_MAX).`, {
      errors: [{ name: '/amount', message: `Must be an integer from 1 to ${max}.` }],
    });
  }
  const account = await resolveAccount(store, body);
  const { transfer, idempotent } = await credit(
    store,
    account,
    'verify_send',
    body.idempotencyKey,
    body.amount,
    body.purpose,
    body.note ?? '',
    requestFingerprint({ accountId: account.accountId, amount: body.amount, purpose: body.purpose }),
    clock,
    actor,
  );
  return answer(TRANSFER_KIND_NAMES.verify_send, account, transfer, idempotent);
}

/**
 * Admin grant of the soft currency (spec 4.8), under the `admin-grant:{key}` family; the reason is
 * recorded as the note and is part of the replay comparison.
 * @throws as {@link verifySend}.
 */
export async function grantCoin(store: LedgerStore, body: GrantCoinBody, clock: Clock = systemClock, actor = ''): Promise<CreditAnswer> {
  const account = await resolveAccount(store, body);
  const { transfer, idempotent } = await credit(
    store,
    account,
    'admin_grant',
    body.idempotencyKey,
    body.amount,
    GRANT_PURPOSE,
    body.reason,
    requestFingerprint({ accountId: account.accountId, amount: body.amount, reason: body.reason }),
    clock,
    actor,
  );
  return answer(TRANSFER_KIND_NAMES.admin_grant, account, transfer, idempotent);
}

/**
 * Create an account and its user (spec 2.6, 2.8); the server mints every id. With an idempotency key,
 * the same key and the same display name and username answer the account created first
 * (`created: false`); another payload under the key is 422.
 * The username defaults to `studio:<studioId>` (a provider-prefixed name no person types).
 * @throws ServiceError CONFLICT (username taken), IDEMPOTENCY_KEY_REUSED, UPSTREAM_UNAVAILABLE.
 */
export async function createAccount(
  store: LedgerStore,
  body: CreateAccountBody,
  clock: Clock = systemClock,
): Promise<{ account: Account; created: boolean }> {
  const fingerprint = requestFingerprint({ displayName: body.displayName, username: body.username ?? null });
  for (let attempt = 0; ; attempt++) {
    const studioId = mintStudioId();
    const account: Account = {
      accountId: mintUuid(),
      studioId,
      displayName: body.displayName,
      userId: mintUuid(),
      username: body.username ?? `studio:${studioId}`,
      createdAt: clock().toISOString(),
    };
    noteAuditAccount(account.accountId, true);
    const out = await store.createAccount({ account, clientKey: body.idempotencyKey, fingerprint });
    switch (out.status) {
      case 'created':
      case 'replayed':
        noteAuditAccount(out.account.accountId, true);
        return { account: out.account, created: out.status === 'created' };
      case 'key-reused':
        throw new ServiceError(
          'IDEMPOTENCY_KEY_REUSED',
          'This idempotency key already created an account with another display name or username; use a new key.',
        );
      case 'username-taken':
        // a default username is built from the minted studio id: taken, it is a collision like the id's
        if (body.username !== undefined) throw new ServiceError('CONFLICT', `The username "${body.username.slice(0, 100)}" is taken.`);
        break;
      default:
        break;
    }
    // an 80-bit studio id collision: mint again, a few times
    if (attempt >= 3) throw new ServiceError('CONFLICT', 'The minted studio id is taken; try again.');
  }
}

/** Filters and paging of the overview. */
export interface OverviewQuery {
  /** 1-200. */
  readonly limit: number;
  readonly cursor?: string | undefined;
  /** A kind as the API names it (`verify_send_to_account_wallet`, `admin_grant_coin`). */
  readonly kind?: TransferKindName | undefined;
  readonly purpose?: string | undefined;
}

/** One transaction of the overview. */
export interface OverviewTransaction {
  readonly entryId: string;
  readonly seq: number;
  readonly kind: TransferKindName;
  readonly purpose: string;
  readonly amount: number;
  readonly balanceAfter: number;
  readonly sourceRef: string;
  readonly note: string;
  readonly at: string;
  /** For a reversal: the entry id it reverses (docs/architecture.md, "Reversals"). */
  readonly reverses?: string;
  /** For a reversed entry: its reversal's entry id. */
  readonly reversedBy?: string;
  /** Who asked for the entry, in operators' answers only (`walletPage` with `actors`). */
  readonly actor?: string;
}

/** Answer of `GET /api/wallet/overview`. */
export interface Overview {
  readonly account: AccountRef;
  readonly balance: number;
  readonly transactions: readonly OverviewTransaction[];
  /** Opaque cursor of the next page (same filters), or null on the last page. */
  readonly cursor: string | null;
  readonly hasMore: boolean;
}

/** Binding of a cursor: the account and the filters it was issued for. */
function binding(accountId: string, filter: PostingFilter): string {
  return requestFingerprint([accountId, filter.kind ?? null, filter.purpose ?? null]).slice(0, 16);
}

/** Encode a cursor (base64url of `v1.<seq>.<binding>`). */
export function encodeCursor(accountId: string, filter: PostingFilter, beforeSeq: number): string {
  return Buffer.from(`v1.${beforeSeq}.${binding(accountId, filter)}`).toString('base64url');
}

/**
 * Decode a cursor issued for this account and these filters. The text is base64url-decoded as Node does
 * (characters outside the alphabet are skipped) and must then read exactly `v1.<seq>.<binding>`; the query
 * parser has already capped it at 200 characters.
 * @throws ServiceError INVALID_QUERY for a malformed cursor or one issued for another account or filters.
 */
export function decodeCursor(cursor: string, accountId: string, filter: PostingFilter): number {
  const bad = (why: string) =>
    new ServiceError('INVALID_QUERY', `The cursor is not valid here: ${why}. Start again without a cursor.`, {
      errors: [{ name: 'cursor', message: why }],
    });
  const m = /^v1\.([1-9]\d{0,15})\.([0-9a-f]{16})$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  if (!m) throw bad('it is not a cursor of this API');
  if (m[2] !== binding(accountId, filter)) throw bad('it was issued for another account or other filters');
  return Number(m[1]);
}

/**
 * True while `access` holds a ban in force at `now`: a ban without end, or one whose end is still ahead.
 */
export function bannedAt(access: AccountAccess, now: Date): boolean {
  return access.ban !== undefined && (access.ban.until === undefined || Date.parse(access.ban.until) > now.getTime());
}

/** The 403 of a banned account's request; says until when, never the operator's reason. */
export function suspended(ban: AccountBan): ServiceError {
  return new ServiceError(
    'ACCOUNT_SUSPENDED',
    ban.until === undefined ? 'This account is suspended, without an end date.' : `This account is suspended until ${ban.until}.`,
  );
}

/**
 * The account a player's token acts for (spec 5.3, 5.4; docs/architecture.md, "Sessions and bans"): the
 * token's subject, checked against the account's access on every request (nothing of it is cached).
 * @throws ServiceError NOT_FOUND when no account has the token's studio id; ACCOUNT_SUSPENDED (403) while
 *   it is banned; UNAUTHORIZED (401, `The token is not valid.`) for a token issued at or before the
 *   account's revocation time; UPSTREAM_UNAVAILABLE
 */
export async function accountOfToken(store: LedgerStore, principal: Principal, clock: Clock = systemClock): Promise<Account> {
  const account = await store.findAccount({ studioId: principal.subject });
  if (!account) throw new ServiceError('NOT_FOUND', 'No account belongs to this token.');
  const access = await store.access(account.accountId);
  if (bannedAt(access, clock())) throw suspended(access.ban!);
  if (issuedBefore(principal, access.sessionsRevokedAt)) throw unauthorized('The token is not valid.', 'invalid_token');
  return account;
}

// ---------------------------------------------------------------- sessions and bans (5.3)

/** Body of `POST /api/admin/players/{studioId}/revoke-sessions` and `…/unban` after schema validation. */
export interface AccountActionBody {
  readonly reason: string;
  readonly idempotencyKey: string;
}

/** Body of `POST /api/admin/players/{studioId}/ban` after schema validation. */
export interface AccountBanBody extends AccountActionBody {
  readonly until?: string;
}

/** An account's access as the API answers it (`schemas/responses/account-access.schema.json`). */
export interface AccessAnswer {
  readonly account: AccountRef;
  readonly access: {
    readonly sessionsRevokedAt: string | null;
    readonly ban: { readonly reason: string; readonly at: string; readonly until: string | null; readonly active: boolean } | null;
  };
  readonly idempotent: boolean;
}

/** The answer of `access` for `account` at `now`. */
export function accessAnswer(account: Account, access: AccountAccess, idempotent: boolean, now: Date): AccessAnswer {
  const ban = access.ban;
  return {
    account: refOf(account),
    access: {
      sessionsRevokedAt: access.sessionsRevokedAt === undefined ? null : new Date(access.sessionsRevokedAt * 1000).toISOString(),
      ban: ban ? { reason: ban.reason, at: ban.at, until: ban.until ?? null, active: bannedAt(access, now) } : null,
    },
    idempotent,
  };
}

/** The account an operator's route names by its studio id. @throws ServiceError NOT_FOUND */
export async function namedAccount(store: LedgerStore, studioId: string): Promise<Account> {
  const account = STUDIO_ID.test(studioId) ? await store.findAccount({ studioId }) : undefined;
  if (!account) throw new ServiceError('NOT_FOUND', 'No account has this studioId.');
  noteAuditAccount(account.accountId);
  return account;
}

/** The fingerprint of an access change: the account, the kind of change and a ban's end (never the reason, which a retry may reword). */
function accessFingerprint(account: Account, change: { readonly kind: AccessChange['kind']; readonly until: string | undefined }): string {
  return requestFingerprint({ accountId: account.accountId, kind: change.kind, until: change.until ?? null });
}

/** The 409 of a ban or unban of an erased account. */
const erasedClosed = () => new ServiceError('CONFLICT', 'This account is erased; it stays closed, and its ban cannot be changed.');

/** The 422 of an access change's key used before with another request. */
const keyReused = () =>
  new ServiceError(
    'IDEMPOTENCY_KEY_REUSED',
    'This idempotency key was used before for another account, action or ban end; nothing changed. Use a new key for a new action.',
  );

/**
 * Change an account's access once per idempotency key (docs/architecture.md, "Sessions and bans"): the
 * fingerprint binds the key to the account, the kind of change and a ban's end (never the reason, which
 * a retry may reword). An erased account's ban is neither replaced nor lifted (409).
 * @throws ServiceError NOT_FOUND, CONFLICT (erased), IDEMPOTENCY_KEY_REUSED (422), UPSTREAM_UNAVAILABLE
 */
async function changeAccess(
  store: LedgerStore,
  account: Account,
  change: AccessChange,
  key: string | undefined,
  clock: Clock,
): Promise<AccessAnswer> {
  const fingerprint = accessFingerprint(account, { kind: change.kind, until: change.kind === 'ban' ? change.ban.until : undefined });
  // an erased account stays closed: no ban may replace the one that closed it, none may lift it
  if (change.kind !== 'revoke-sessions' && account.username === erasedUsername(account.studioId)) {
    const known = key === undefined ? undefined : await store.accessRecord(key, fingerprint);
    if (known?.status === 'replayed') return accessAnswer(account, known.access, true, clock());
    throw erasedClosed();
  }
  const out = await store.changeAccess({ accountId: account.accountId, change, key, fingerprint });
  switch (out.status) {
    case 'created':
    case 'replayed':
      return accessAnswer(account, out.access, out.status === 'replayed', clock());
    case 'key-reused':
      throw keyReused();
    case 'erased':
      throw erasedClosed();
    default:
      throw new ServiceError('NOT_FOUND', 'No account has this studioId.');
  }
}

/** The second a revocation made at `now` holds from: every token issued in it or before is refused. */
export const revocationSecond = (now: Date): number => Math.floor(now.getTime() / 1000);

/**
 * Refuse every token of an account issued until now (spec 5.3), once per key.
 * @throws as {@link changeAccess}
 */
export async function revokeSessions(
  store: LedgerStore,
  studioId: string,
  body: AccountActionBody,
  clock: Clock = systemClock,
): Promise<AccessAnswer> {
  const account = await namedAccount(store, studioId);
  return changeAccess(store, account, { kind: 'revoke-sessions', at: revocationSecond(clock()) }, body.idempotencyKey, clock);
}

/**
 * Ban an account, until `until` or without end, revoking its sessions (spec 5.3), once per key; a later
 * ban replaces an earlier one.
 * @throws ServiceError INVALID_BODY (400) for an end that is not in the future; as {@link changeAccess}
 */
export async function banAccount(
  store: LedgerStore,
  studioId: string,
  body: AccountBanBody,
  clock: Clock = systemClock,
): Promise<AccessAnswer> {
  const now = clock();
  const sent = body.until;
  const until = sent === undefined ? undefined : rfc3339Time(sent);
  const account = await namedAccount(store, studioId);
  if (sent !== undefined && !(until !== undefined && until.getTime() > now.getTime())) {
    // a ban sent again after its end has passed still answers its first result
    const known = await store.accessRecord(body.idempotencyKey, accessFingerprint(account, { kind: 'ban', until: until?.toISOString() }));
    if (known?.status === 'replayed') return accessAnswer(account, known.access, true, now);
    if (known?.status === 'key-reused') throw keyReused();
    throw new ServiceError('INVALID_BODY', 'A ban ends at a real time in the future; leave out "until" for a ban without end.', {
      errors: [{ name: '/until', message: `${sent.slice(0, 40)} is not a time in the future.`, value: sent.slice(0, 40) }],
    });
  }
  const ban: AccountBan = { reason: body.reason, at: now.toISOString(), ...(until ? { until: until.toISOString() } : {}) };
  return changeAccess(store, account, { kind: 'ban', at: revocationSecond(now), ban }, body.idempotencyKey, clock);
}

/**
 * Lift an account's ban (spec 5.3), once per key; its tokens revoked by the ban stay revoked.
 * @throws as {@link changeAccess}
 */
export async function unbanAccount(
  store: LedgerStore,
  studioId: string,
  body: AccountActionBody,
  clock: Clock = systemClock,
): Promise<AccessAnswer> {
  const account = await namedAccount(store, studioId);
  return changeAccess(store, account, { kind: 'unban' }, body.idempotencyKey, clock);
}

/**
 * A view of `store` whose account look-ups refuse a banned account (403 `ACCOUNT_SUSPENDED`): what a game
 * server's writes resolve accounts through, so none reaches a banned account's state (spec 5.3;
 * docs/architecture.md, "Sessions and bans"). Everything else is `store`'s own.
 */
export function refusingSuspended(store: LedgerStore, clock: Clock = systemClock): LedgerStore {
  const findAccount = async (selector: AccountSelector): Promise<Account | undefined> => {
    const account = await store.findAccount(selector);
    if (account) {
      const access = await store.access(account.accountId);
      if (bannedAt(access, clock())) throw suspended(access.ban!);
    }
    return account;
  };
  return new Proxy(store, {
    get(target, prop) {
      if (prop === 'findAccount') return findAccount;
      const value: unknown = Reflect.get(target, prop, target);
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}

/**
 * Log out everywhere: refuse every token of the caller's account issued until now (spec 5.3, 5.4). Safe
 * to repeat as it is (a revocation time only moves forward), so it takes no idempotency key.
 * @throws as {@link accountOfToken}
 */
export async function logout(store: LedgerStore, principal: Principal, clock: Clock = systemClock): Promise<void> {
  const account = await accountOfToken(store, principal, clock);
  await changeAccess(store, account, { kind: 'revoke-sessions', at: revocationSecond(clock()) }, undefined, clock);
}

/**
 * The caller's wallet: account, balance and transactions newest first (spec 4.8, 5.3).
 * A grant's purpose shows as `grant`, a reversal's as `reversal` (with the entry it reverses; a reversed
 * entry names its reversal); the `purpose` filter takes the verify-send purposes, `grant` and `reversal`.
 * @throws ServiceError as {@link accountOfToken}; INVALID_QUERY for a bad cursor.
 */
export async function overview(store: LedgerStore, principal: Principal, query: OverviewQuery): Promise<Overview> {
  const account = await accountOfToken(store, principal);
  return { account: refOf(account), ...(await walletPage(store, account, query)) };
}

/** A page of an account's wallet: its balance and entries newest first, with the cursor of the next page. */
export interface WalletPage {
  readonly balance: number;
  readonly transactions: readonly OverviewTransaction[];
  /** Opaque cursor of the next page (same filters), or null on the last page. */
  readonly cursor: string | null;
  readonly hasMore: boolean;
}

/**
 * A page of `account`'s wallet (spec 4.8): what the overview answers, and what operators read with
 * `actors` (each entry then says who asked for it: `actor`, docs/architecture.md, "Reversals").
 *
 * The balance and the entries are one snapshot, however many credits land meanwhile: the balance is the
 * newest posting's `balanceAfter` (the chain's running sum), and the page holds no posting newer than that
 * one, so the balance is always the sum of the entries up to it. Unfiltered first pages take one store
 * read (the newest posting heads the page); a filter or a cursor takes two, in order.
 * @throws ServiceError INVALID_QUERY for a bad cursor; UPSTREAM_UNAVAILABLE
 */
export async function walletPage(
  store: LedgerStore,
  account: Account,
  query: OverviewQuery,
  options: { readonly actors?: boolean } = {},
): Promise<WalletPage> {
  const filter: PostingFilter = { kind: transferKindOf(query.kind), purpose: query.purpose };
  const beforeSeq = query.cursor === undefined ? undefined : decodeCursor(query.cursor, account.accountId, filter);
  const unfiltered = filter.kind === undefined && filter.purpose === undefined;
  let page: PostingPage;
  let balance: number;
  if (unfiltered && beforeSeq === undefined) {
    page = await store.postings(account.accountId, { limit: query.limit, filter });
    balance = page.postings[0]?.balanceAfter ?? 0;
  } else {
    const newest = (await store.postings(account.accountId, { limit: 1, filter: {} })).postings[0];
    balance = newest?.balanceAfter ?? 0;
    const bound = (newest?.seq ?? 0) + 1;
    page = await store.postings(account.accountId, { beforeSeq: Math.min(beforeSeq ?? bound, bound), limit: query.limit, filter });
  }
  return {
    balance,
    transactions: page.postings.map((p) => ({
      entryId: p.entryId,
      seq: p.seq,
      kind: TRANSFER_KIND_NAMES[p.kind],
      purpose: p.purpose,
      amount: p.amount,
      balanceAfter: p.balanceAfter,
      sourceRef: p.sourceRef,
      note: p.note,
      at: p.at,
      ...(p.reverses === '' ? {} : { reverses: p.reverses }),
      ...(p.reversedBy === undefined ? {} : { reversedBy: p.reversedBy }),
      ...(options.actors ? { actor: p.actor } : {}),
    })),
    cursor: page.nextBeforeSeq === undefined ? null : encodeCursor(account.accountId, filter, page.nextBeforeSeq),
    hasMore: page.nextBeforeSeq !== undefined,
  };
}
