/**
 * Shapes of the account ledger (spec 1.7, 1.8, 2.6, 2.8, 4.8) and the one store interface that both
 * adapters implement (`sqlite.ts`, `redis.ts`; docs/architecture.md, "Ledger").
 *
 * Model: every credit is a *transfer* from the issuer account to a player account, recorded as two
 * *postings* (double entry: issuer −amount, account +amount), so the sum of all balances is always 0.
 * Postings are append-only; each carries the hash of its account's previous posting (`prev`) and its
 * own `hash` (see `chain.ts`). A transfer is keyed by its *source ref* (`verify-send:{key}` or
 * `admin-grant:{key}`), unique forever: a key never expires.
 *
 * Units: amounts and balances are integer coin units (JavaScript safe integers); times are ISO 8601 UTC
 * strings with milliseconds; ids are RFC 4122 uuids except `studioId` (`STUDIO_*`, see `ids.ts`).
 */

import type { KeyReused } from '../stores/idempotency.js';
import type { StoreIdentity } from '../stores/unavailable.js';

/** The ledger's name in its 503s: a credit is safe to send again with its key. */
export const LEDGER_STORE: StoreIdentity = Object.freeze({ name: 'ledger store', retryHint: ' with the same idempotency key' });

/**
 * Idempotency scopes of the ledger (`api/_lib/stores/idempotency.ts`): credits by source ref; creations by
 * client key, the keys operators send apart from those external login makes (so no operator's key can
 * claim an identity's account first).
 */
export const LEDGER_SCOPES = Object.freeze({
  credit: 'credit',
  account: 'account',
  externalLogin: 'external-login',
  access: 'access',
  erase: 'erase',
});

/** The username an erased account keeps: no person's name, unique by its studio id. */
export const erasedUsername = (studioId: string): string => `erased:${studioId}`;

/** The reason of the ban that closes an erased account. */
export const ERASED_REASON = 'Account erased';

/** Input of {@link LedgerStore.eraseAccount}. */
export interface EraseRequest {
  readonly accountId: string;
  /** The idempotency key of the erasure. */
  readonly key: string;
  readonly fingerprint: string;
  /** When, seconds since the epoch (the sessions revoked up to it) and ISO 8601 (the closing ban's time). */
  readonly at: number;
  readonly atIso: string;
}

/**
 * Outcome of {@link LedgerStore.eraseAccount}: `created` (erased now) or `replayed` (the key erased it
 * before), each with the account as it stands after; `key-reused`; `no-account`.
 */
export type EraseOutcome =
  { readonly status: 'created' | 'replayed'; readonly account: Account } | KeyReused | { readonly status: 'no-account' };

/** Whose creation keys a client key belongs to: an operator's request, or an external login. */
export type AccountKeyScope = 'account' | 'external-login';

/** The account that coin comes from (double entry). Not a player account; never resolvable by selector. */
export const ISSUER_ACCOUNT_ID = '00000000-0000-4000-8000-000000000000';

/**
 * Kinds of transfer: the only two ways coin enters (spec 4.8: no send, purchase or transfer route), and
 * the operator's reversal of one of them, which moves the same amount back to the issuer
 * (docs/architecture.md, "Reversals").
 */
export type TransferKind = 'verify_send' | 'admin_grant' | 'reversal';

/**
 * The name of each kind in every answer and filter of the API (spec 4.8: a verify-send answers
 * `kind: "verify_send_to_account_wallet"`; a grant `admin_grant_coin`): the credit's answer, the overview's
 * entries and its `kind` filter all use these, and only the store keeps the short form.
 */
export const TRANSFER_KIND_NAMES = Object.freeze({
  verify_send: 'verify_send_to_account_wallet',
  admin_grant: 'admin_grant_coin',
  reversal: 'reversal',
} as const satisfies Record<TransferKind, string>);
/** A kind as the API names it. */
export type TransferKindName = (typeof TRANSFER_KIND_NAMES)[TransferKind];

/** The kind of an API name, or undefined. */
export function transferKindOf(name: string | undefined): TransferKind | undefined {
  return (Object.keys(TRANSFER_KIND_NAMES) as TransferKind[]).find((k) => TRANSFER_KIND_NAMES[k] === name);
}

/** Source-ref family of each kind: `verify-send:{key}`, `admin-grant:{key}` and `reversal:{key}`. */
export const SOURCE_REF_PREFIX: Readonly<Record<TransferKind, string>> = Object.freeze({
  verify_send: 'verify-send:',
  admin_grant: 'admin-grant:',
  reversal: 'reversal:',
});

/** A player account with its user (spec 2.6, 2.8). */
export interface Account {
  /** `accounts.id`, RFC 4122 uuid. */
  readonly accountId: string;
  /** `studio_id`, `STUDIO_` + 16 Crockford base32 characters, minted by the server. */
  readonly studioId: string;
  /** `accounts.display_name`. */
  readonly displayName: string;
  /** `users.id`, RFC 4122 uuid. */
  readonly userId: string;
  /** `users.username`, unique; may carry a provider prefix such as `steam:`. */
  readonly username: string;
  /** Creation time, ISO 8601 UTC. */
  readonly createdAt: string;
}

/**
 * The key a display name is found by (docs/architecture.md, "Player look-up"): NFC, lower-cased by
 * Unicode's default case mapping. Pure.
 */
export function nameKey(displayName: string): string {
  return displayName.normalize('NFC').toLowerCase();
}

/** A page of accounts found by name. */
export interface NamePage {
  readonly accounts: readonly Account[];
  /** The position to pass as `after` for the next page, or undefined on the last. */
  readonly next: string | undefined;
}

/** Select an account by exactly one of its ids. */
export type AccountSelector = { readonly studioId: string } | { readonly accountId: string };

/** Input of {@link LedgerStore.createAccount}; every id is minted by the caller before the call (retry-safe). */
export interface NewAccount {
  readonly account: Account;
  /** Client idempotency key of the creation, or undefined (then a retry creates a second account). */
  readonly clientKey: string | undefined;
  /** The namespace of `clientKey`; default `account` (an operator's key). */
  readonly keyScope?: AccountKeyScope;
  /** Fingerprint of the creation request (`requestFingerprint`) bound to `clientKey`. */
  readonly fingerprint: string;
}

/**
 * Result of {@link LedgerStore.createAccount} (the idempotency outcomes of `api/_lib/stores/idempotency.ts`
 * and the refusals; nothing is written but for `created`):
 * - `created`: the account was created now (also when a retry of this very call finds its own account);
 * - `replayed`: the client key created an account before with the same fingerprint: that account;
 * - `key-reused`: the client key created an account before from another request;
 * - `username-taken`, `studio-id-taken`: another account holds the username or the minted studio id.
 */
export type CreateAccountOutcome =
  | { readonly status: 'created' | 'replayed'; readonly account: Account }
  | KeyReused
  | { readonly status: 'username-taken' | 'studio-id-taken' };

/**
 * An account's sessions and ban (spec 5.3, 5.4; docs/architecture.md, "Sessions and bans"): what every
 * request made with the account's token is checked against. An account never changed has neither member.
 */
export interface AccountAccess {
  /** Every token of the account issued at or before this second (seconds since the epoch) is refused. */
  readonly sessionsRevokedAt?: number;
  /** The account's ban, present while it is banned (until `until`, when set). */
  readonly ban?: AccountBan;
}

/** A ban of an account. */
export interface AccountBan {
  /** Why, as the operator wrote it (stored text, `api/_lib/text/stored.ts`). */
  readonly reason: string;
  /** When it was imposed, ISO 8601 UTC. */
  readonly at: string;
  /** When it ends, ISO 8601 UTC; absent for a ban without end. */
  readonly until?: string;
}

/**
 * A change of an account's access: revoke its sessions (every token issued at or before `at`, seconds
 * since the epoch; a later revocation time never moves back), ban it (its sessions revoked at `at` too),
 * or lift its ban.
 */
export type AccessChange =
  | { readonly kind: 'revoke-sessions'; readonly at: number }
  | { readonly kind: 'ban'; readonly at: number; readonly ban: AccountBan }
  | { readonly kind: 'unban' };

/** Input of {@link LedgerStore.changeAccess}. */
export interface AccessChangeRequest {
  readonly accountId: string;
  readonly change: AccessChange;
  /** Idempotency key of the change, or undefined for a change that is safe to repeat as such (a logout). */
  readonly key: string | undefined;
  /** Fingerprint of the request (`requestFingerprint`) bound to `key`. */
  readonly fingerprint: string;
}

/**
 * Outcome of {@link LedgerStore.changeAccess}: `created` (applied now) or `replayed` (the key was used
 * before with this request; nothing changed), each with the access as it stands after; `key-reused`;
 * `no-account`; `erased` (a ban or unban of an erased account, checked in the write: it stays closed).
 */
export type AccessChangeOutcome =
  { readonly status: 'created' | 'replayed'; readonly access: AccountAccess } | KeyReused | { readonly status: 'no-account' | 'erased' };

/**
 * What is written beside an entry rather than in its hashed rows (docs/architecture.md, "Erasure and the
 * chain"): free text and who asked, both removable by an erasure without breaking the chain.
 */
export interface EntryAnnotation {
  /** Free text of the request (`note`, the grant's or reversal's `reason`), possibly empty. */
  readonly note: string;
  /** Who asked for the entry: an operator's token subject, `admin-password`, or `''` (a game server's credit). */
  readonly actor: string;
}

/** A transfer as recorded under its source ref: what a replay answers with. */
export interface Transfer extends EntryAnnotation {
  /** The entry id of the transfer (uuid), shared by its two postings. */
  readonly entryId: string;
  readonly sourceRef: string;
  readonly kind: TransferKind;
  readonly accountId: string;
  /**
   * Positive integer coin units: what the account gained, or, for a `reversal`, what it gave back to the
   * issuer.
   */
  readonly amount: number;
  /** Verify-send purpose (spec 4.8), `grant` for an admin grant, `reversal` for a reversal. */
  readonly purpose: string;
  /** Balance of the account right after this transfer. */
  readonly balanceAfter: number;
  /** Time of the transfer, ISO 8601 UTC. */
  readonly at: string;
  /** For a `reversal`, the entry id it reverses; `''` otherwise. */
  readonly reverses: string;
  /** The entry id of the reversal of this transfer, when it was reversed. */
  readonly reversedBy?: string;
}

/**
 * One posting: one side of a transfer on one account, append-only and hash-chained (`chain.ts`: the
 * annotation and `reversedBy` are read beside the chain, not covered by the hash).
 */
export interface Posting extends EntryAnnotation {
  readonly entryId: string;
  readonly accountId: string;
  /** 1-based position in the account's chain. */
  readonly seq: number;
  /** Signed integer coin units: negative on the issuer, positive on the player account. */
  readonly amount: number;
  readonly balanceAfter: number;
  readonly sourceRef: string;
  readonly kind: TransferKind;
  readonly purpose: string;
  /** The other account of the transfer. */
  readonly counterparty: string;
  readonly at: string;
  /** For a posting of a `reversal`, the entry id it reverses; `''` otherwise. */
  readonly reverses: string;
  /** The entry id of the reversal of this posting's transfer, when it was reversed. */
  readonly reversedBy?: string;
  /** Hash of the account's previous posting, `''` for the first. */
  readonly prev: string;
  /** Hash of this posting (`chain.ts`). */
  readonly hash: string;
}

/** A credit to apply once per source ref; ids and time minted by the caller (so a retry sends the same). */
export interface CreditRequest {
  readonly entryId: string;
  /** The idempotency key of the credit (`verify-send:{key}`, `admin-grant:{key}`), unique forever. */
  readonly sourceRef: string;
  readonly kind: TransferKind;
  readonly accountId: string;
  readonly amount: number;
  readonly purpose: string;
  readonly note: string;
  /** Who asked (see {@link EntryAnnotation}); default `''`. */
  readonly actor?: string;
  readonly at: string;
  /**
   * For a `reversal`: the entry id of the transfer it reverses, which must be a credit of `accountId` of
   * exactly `amount`, not reversed before.
   */
  readonly reverses?: string;
  /** Fingerprint of the request (`requestFingerprint` of what decides its effect) bound to the source ref. */
  readonly fingerprint: string;
}

/**
 * Result of {@link LedgerStore.credit} (nothing is written but for `created`):
 * - `created`: this call recorded the transfer (also when a retry of this very call finds its own entry);
 * - `replayed`: the source ref was recorded before with the same fingerprint: that transfer;
 * - `key-reused`: the source ref was recorded before with another fingerprint;
 * - `no-account`: the account does not exist;
 * - `overflow`: the credit would take a balance past the largest safe integer;
 * - for a reversal: `no-entry` (the entry it names is not a credit of this account of this amount),
 *   `already-reversed` (with the reversal that reversed it), `insufficient` (the account holds less than
 *   the amount; with its balance).
 */
export type CreditOutcome =
  | { readonly status: 'created' | 'replayed'; readonly transfer: Transfer }
  | KeyReused
  | { readonly status: 'no-account' | 'overflow' | 'no-entry' }
  | { readonly status: 'already-reversed'; readonly transfer: Transfer }
  | { readonly status: 'insufficient'; readonly balance: number };

/** Filters of a posting listing (each optional; combined with AND). */
export interface PostingFilter {
  readonly kind?: TransferKind | undefined;
  readonly purpose?: string | undefined;
}

/** A page of postings, newest first. */
export interface PostingPage {
  readonly postings: readonly Posting[];
  /** `seq` to pass as `beforeSeq` for the next page, or undefined when this is the last page. */
  readonly nextBeforeSeq: number | undefined;
}

/** Everything the invariant check reads (`invariants.ts`): every ledger account with its chain, and every transfer. */
export interface LedgerSnapshot {
  readonly accounts: readonly { readonly accountId: string; readonly balance: number; readonly postings: readonly Posting[] }[];
  readonly transfers: readonly Transfer[];
}

/**
 * One ledger account's chain head, as one atomic read returns it (docs/architecture.md, "Scheduled
 * verification"): the stored balance, the seq of its last posting and that posting's hash.
 */
export interface ChainHead {
  readonly accountId: string;
  /** Integer coin units. */
  readonly balance: number;
  /** The last posting's seq (1-based; every ledger account has at least one posting). */
  readonly seq: number;
  /** The last posting's hash. */
  readonly head: string;
}

/** Totals of the whole ledger read in one atomic step: how many transfers, and the issuer's chain length. */
export interface LedgerTotals {
  readonly transfers: number;
  /** The issuer's head seq: one posting per transfer, so equal to `transfers` in a sound ledger. */
  readonly issuerSeq: number;
}

/**
 * What the scheduled check keeps in the store (`verification.ts`): its cursor and its last results, each
 * as the check's own JSON text (the store keeps them as they are).
 */
export interface VerificationRecord {
  /** The cursor of the pass under way, or undefined before the first run. */
  readonly cursor: string | undefined;
  /** The results kept, newest first. */
  readonly results: readonly string[];
}

/** Input of {@link LedgerStore.recordVerification}. */
export interface VerificationWrite {
  /** The cursor the run started from (undefined when there was none): the cursor is replaced only while it is still this one. */
  readonly expect: string | undefined;
  /** The cursor to leave for the next run. */
  readonly cursor: string;
  /** The run's result, recorded whatever happens to the cursor. */
  readonly result: string;
  /** How many results to keep (the oldest beyond it are dropped), 1-1000. */
  readonly keep: number;
}

/**
 * The store of accounts and the ledger. Every write is atomic and safe to run twice with the same
 * arguments (a retry after a lost response changes nothing more); refusals are outcomes, worded by the
 * service. Errors: a store that cannot be reached throws `ServiceError('UPSTREAM_UNAVAILABLE')`.
 */
export interface LedgerStore {
  /** Adapter name, `sqlite` or `redis`. */
  readonly driver: string;
  /** Create an account once per client key (see {@link CreateAccountOutcome}). */
  createAccount(input: NewAccount): Promise<CreateAccountOutcome>;
  findAccount(selector: AccountSelector): Promise<Account | undefined>;
  /** The account whose username is exactly `username`, or undefined. */
  accountByUsername(username: string): Promise<Account | undefined>;
  /**
   * Accounts whose display name starts with `prefix` (compared by {@link nameKey}), in name-key then
   * account-id order, after the position `after` (a {@link NamePage.next} of an earlier page).
   * @param limit 1-100.
   */
  accountsByName(prefix: string, options: { readonly after?: string | undefined; readonly limit: number }): Promise<NamePage>;
  /** Apply a transfer once per source ref (see {@link CreditOutcome}). */
  credit(request: CreditRequest): Promise<CreditOutcome>;
  /** The transfer of an entry id, with its `reversedBy` when reversed, or undefined. */
  transfer(entryId: string): Promise<Transfer | undefined>;
  /** Balance of an account (0 for an account without postings). */
  balance(accountId: string): Promise<number>;
  /**
   * Postings of an account, newest first, at most `limit`, with `seq < beforeSeq` when given.
   * @param limit 1-1000.
   */
  postings(
    accountId: string,
    options: { readonly beforeSeq?: number | undefined; readonly limit: number; readonly filter: PostingFilter },
  ): Promise<PostingPage>;
  /**
   * The account's sessions and ban (an unknown account has neither). An adapter may answer what it read
   * a moment ago (Redis: `ACCESS_CACHE_MS`); with `fresh`, it reads the store itself (a login's last
   * check, docs/architecture.md, "Sessions and bans").
   */
  access(accountId: string, options?: { readonly fresh?: boolean }): Promise<AccountAccess>;
  /** Change an account's sessions or ban once per key (see {@link AccessChangeOutcome}). */
  changeAccess(request: AccessChangeRequest): Promise<AccessChangeOutcome>;
  /**
   * What an access change's key answers without changing anything: `replayed` with the account's access
   * as it stands (the key was used with this fingerprint), `key-reused`, or undefined for a key never used.
   */
  accessRecord(key: string, fingerprint: string): Promise<AccessChangeOutcome | undefined>;
  /**
   * Erase an account's personal data once per key (docs/architecture.md, "Erasure and the chain"), in one
   * atomic step: its display name becomes `''` and its username {@link erasedUsername}, it leaves the
   * name index, the notes of its entries are blanked (their hashes do not cover them), its sessions are
   * revoked and a ban without end ({@link ERASED_REASON}) closes it. Postings, transfers and balances stay.
   */
  eraseAccount(request: EraseRequest): Promise<EraseOutcome>;
  /**
   * Chain heads of ledger accounts (those with postings, the issuer among them) in account-id order (UTF-16
   * code units, the same as bytes for these ids), after `after` when given; each head read atomically.
   * @param limit 1-1000.
   */
  ledgerAccounts(options: { readonly after?: string | undefined; readonly limit: number }): Promise<ChainHead[]>;
  /**
   * Postings of an account's chain, oldest first, from `fromSeq` on (with their annotations and links, as
   * {@link postings} reads them); empty past the head or for an unknown account.
   * @param fromSeq 1 or more. @param limit 1-1000.
   */
  chain(accountId: string, options: { readonly fromSeq: number; readonly limit: number }): Promise<Posting[]>;
  /** The ledger's totals, read in one atomic step (see {@link LedgerTotals}). */
  ledgerTotals(): Promise<LedgerTotals>;
  /** The scheduled check's cursor and results (see {@link VerificationRecord}). */
  verification(): Promise<VerificationRecord>;
  /**
   * Record a run of the scheduled check in one atomic step: the result always (the oldest beyond `keep`
   * dropped); the cursor only while the stored one is still `expect` (another run that moved it first
   * wins).
   * @returns `written` when the cursor was replaced, `superseded` when another run had moved it.
   */
  recordVerification(write: VerificationWrite): Promise<'written' | 'superseded'>;
  /** Read everything for the invariant check (operators, tests). */
  snapshot(): Promise<LedgerSnapshot>;
  /** Release connections. */
  close(): Promise<void>;
}
