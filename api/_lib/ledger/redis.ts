/**
 * The Redis ledger store (spec 1.7, 4.8; docs/architecture.md, "Ledger"), on the store kit's client
 * (`api/_lib/stores/redis.ts`: the client settings, the retry policy, EVALSHA with its EVAL fallback).
 * Each write is one Lua script (`redis-scripts.ts`) that makes every check before its first write and
 * finds its own record on a second run.
 *
 * Keys (prefix `ledger:`): one account's keys share the hash tag `{a:<accountId>}` (one hash slot):
 * `ledger:{a:<id>}:acct` (hash: account fields, balance, seq, head) and `ledger:{a:<id>}:postings`
 * (list of posting JSON, index = seq − 1). Global: `ledger:keys:credit`, `ledger:keys:account` and
 * `ledger:keys:external-login`, `ledger:keys:access`, `ledger:keys:erase`
 * (idempotency records, `api/_lib/stores/idempotency.ts`: source ref or client key →
 * `<fingerprint>\n<entry id or account id>`, never expiring), `ledger:transfers` (hash: entry id →
 * transfer JSON), `ledger:entries` (hash: `n:<entry id>` → the entry's annotation `{note, actor}` as
 * JSON, beside the chain: an erasure may blank it, and a posting from before keeps its note in its own
 * JSON, read when no annotation exists; `r:<entry id>` → the entry id of its reversal), `ledger:studio` and
 * `ledger:username` (indexes → account id), `ledger:names` (sorted set, the display-name index of
 * docs/architecture.md, "Player look-up": members `<name key>\0<account id>`, filled for every account
 * created since), `ledger:accounts` (set of accounts with postings) and `ledger:account-order` (the same
 * accounts as a sorted set, all scores 0, read in id order by the scheduled check; filled from
 * `ledger:accounts` for accounts credited before it existed), `ledger:verify:cursor` and
 * `ledger:verify:results` (the scheduled check's cursor, and its results as a list, newest first;
 * docs/architecture.md, "Scheduled verification").
 */
import { byCodeUnits } from '../util/sorted.js';
import { storeUnavailable } from '../stores/unavailable.js';
import { connectRedis, redisScript, type RedisCommands, type RedisConnection, type RedisTarget, type ScriptCall } from '../stores/redis.js';
import { accessKey } from './access.js';
import {
  ACCESS_SCRIPT,
  CREATE_ACCOUNT_SCRIPT,
  CREDIT_SCRIPT,
  ERASE_SCRIPT,
  RECORD_VERIFICATION_SCRIPT,
  TOTALS_SCRIPT,
} from './redis-scripts.js';
import { storedCredit } from './outcome.js';
import { accountFrom, postingFrom, text as s, transferFrom } from './decode.js';
import {
  type AccessChangeOutcome,
  type AccessChangeRequest,
  type AccountAccess,
  ISSUER_ACCOUNT_ID,
  LEDGER_STORE,
  type Account,
  type AccountSelector,
  type ChainHead,
  type CreateAccountOutcome,
  type CreditOutcome,
  type CreditRequest,
  type LedgerSnapshot,
  type LedgerStore,
  type LedgerTotals,
  ERASED_REASON,
  erasedUsername,
  type EraseOutcome,
  type EraseRequest,
  nameKey,
  type NamePage,
  type NewAccount,
  type Posting,
  type PostingFilter,
  type PostingPage,
  type Transfer,
  type VerificationRecord,
  type VerificationWrite,
} from './types.js';

const P = 'ledger:';
/** Keys of the Redis ledger (see the module header). */
export const KEYS = Object.freeze({
  creditKeys: `${P}keys:credit`,
  accountKeys: `${P}keys:account`,
  accessKeys: `${P}keys:access`,
  eraseKeys: `${P}keys:erase`,
  externalLoginKeys: `${P}keys:external-login`,
  transfers: `${P}transfers`,
  entries: `${P}entries`,
  studio: `${P}studio`,
  names: `${P}names`,
  username: `${P}username`,
  accounts: `${P}accounts`,
  accountOrder: `${P}account-order`,
  verifyCursor: `${P}verify:cursor`,
  verifyResults: `${P}verify:results`,
  account: (id: string) => `${P}{a:${id}}:acct`,
  postings: (id: string) => `${P}{a:${id}}:postings`,
  access: accessKey,
});

const CREDIT = redisScript(CREDIT_SCRIPT);
const CREATE = redisScript(CREATE_ACCOUNT_SCRIPT);
const ACCESS = redisScript(ACCESS_SCRIPT);
const ERASE = redisScript(ERASE_SCRIPT);
const TOTALS = redisScript(TOTALS_SCRIPT);
const RECORD_VERIFICATION = redisScript(RECORD_VERIFICATION_SCRIPT);

/**
 * How long an instance keeps an account's access once read, ms: a revocation or ban made elsewhere holds
 * on this instance at most this much later (one made here holds at once). Keeps a player's write at two
 * round trips (docs/architecture.md, "Sessions and bans").
 */
export const ACCESS_CACHE_MS = 2000;

/** The access an access hash holds (`sessionsRevokedAt`, `banReason`, `banAt`, `banUntil`). */
function accessFrom(h: Readonly<Record<string, string>>): AccountAccess {
  return {
    ...(h.sessionsRevokedAt === undefined ? {} : { sessionsRevokedAt: Number(h.sessionsRevokedAt) }),
    ...(h.banReason === undefined
      ? {}
      : { ban: { reason: h.banReason, at: h.banAt ?? '', ...(h.banUntil === undefined ? {} : { until: h.banUntil }) } }),
  };
}

/**
 * The credit script's call for `request` (spec 4.8: one atomic step per credit; KEYS and ARGV as
 * `CREDIT_SCRIPT` documents them, the amount in decimal): what {@link LedgerStore.credit} sends as one
 * EVALSHA, and what the ledger benchmark hands `redis-benchmark` to measure the script alone. Pure.
 */
export function creditCall(request: CreditRequest): ScriptCall {
  return {
    script: CREDIT,
    keys: [
      KEYS.creditKeys,
      KEYS.account(request.accountId),
      KEYS.postings(request.accountId),
      KEYS.account(ISSUER_ACCOUNT_ID),
      KEYS.postings(ISSUER_ACCOUNT_ID),
      KEYS.accounts,
      KEYS.transfers,
      KEYS.entries,
      KEYS.accountOrder,
    ],
    args: [
      request.sourceRef,
      request.entryId,
      request.kind,
      request.accountId,
      String(request.amount),
      request.purpose,
      request.note,
      request.at,
      ISSUER_ACCOUNT_ID,
      request.fingerprint,
      request.actor ?? '',
      request.kind === 'reversal' ? (request.reverses ?? '') : '',
    ],
  };
}

/** A stored JSON document (replies stay text), as an object. */
const obj = (value: unknown): Record<string, unknown> => JSON.parse(String(value)) as Record<string, unknown>;
/** A stored record with the annotation (when any) and the reversal that reversed it (when any) laid over it. */
function annotated(stored: unknown, annotation: string | null | undefined, reversedBy: string | null | undefined): Record<string, unknown> {
  return { ...obj(stored), ...(annotation ? obj(annotation) : {}), ...(reversedBy ? { reversedBy } : {}) };
}
const postingOf = (value: unknown): Posting => postingFrom(obj(value));

/**
 * The Redis ledger over `target`.
 * @param options.retryDelaysMs waits between attempts (default the kit's `RETRY_DELAYS_MS`).
 */
export function openRedisLedger(target: RedisTarget, options: { retryDelaysMs?: readonly number[] } = {}): LedgerStore {
  return new RedisLedger(connectRedis(target, LEDGER_STORE, options));
}

/** How long an instance keeps an account once read, ms (see `RedisLedger`'s cache). */
export const ACCOUNT_CACHE_MS = 60_000;

/** Most accounts {@link RedisLedger} keeps resolved in memory. */
export const ACCOUNT_CACHE_SIZE = 10_000;

class RedisLedger implements LedgerStore {
  readonly driver = 'redis';
  /**
   * Accounts found before, by account id and by studio id, with the time they were read. An account's ids
   * never change; only an erasure changes its display name and username, so a hit is kept at most
   * {@link ACCOUNT_CACHE_MS} (an erasure made on another instance shows here within that time; one made
   * here at once) and saves the two reads of a lookup: a credit to a known account is one command.
   * Bounded: the oldest entry goes first.
   */
  readonly #accounts = new Map<string, { readonly at: number; readonly account: Account }>();
  readonly #commands: RedisCommands;

  constructor(private readonly connection: RedisConnection) {
    this.#commands = connection.commands;
  }

  async createAccount(input: NewAccount): Promise<CreateAccountOutcome> {
    const a = input.account;
    const [status, id] = await this.#commands.script({
      script: CREATE,
      keys: [
        input.keyScope === 'external-login' ? KEYS.externalLoginKeys : KEYS.accountKeys,
        KEYS.username,
        KEYS.studio,
        KEYS.account(a.accountId),
        KEYS.names,
      ],
      args: [
        input.clientKey ?? '',
        input.fingerprint,
        a.accountId,
        a.studioId,
        a.displayName,
        a.userId,
        a.username,
        a.createdAt,
        `${nameKey(a.displayName)}\u0000${a.accountId}`,
      ],
    });
    switch (status) {
      case 'created':
        return { status: 'created', account: a };
      case 'existing': {
        const account = await this.findAccount({ accountId: s(id) });
        // one script writes the record and the account: a record without its account is a broken store
        if (!account) throw storeUnavailable(LEDGER_STORE, new Error(`The account ${s(id)} of a creation key cannot be read.`));
        return { status: s(id) === a.accountId ? 'created' : 'replayed', account };
      }
      case 'key-reused':
        return { status: 'key-reused' };
      case 'username-taken':
        return { status: 'username-taken' };
      default:
        return { status: 'studio-id-taken' };
    }
  }

  #remember(account: Account): Account {
    while (this.#accounts.size >= ACCOUNT_CACHE_SIZE * 2) this.#accounts.delete(this.#accounts.keys().next().value!);
    const entry = { at: Date.now(), account };
    this.#accounts.set(`id:${account.accountId}`, entry);
    this.#accounts.set(`studio:${account.studioId}`, entry);
    return account;
  }

  async findAccount(selector: AccountSelector): Promise<Account | undefined> {
    const hit = this.#accounts.get('studioId' in selector ? `studio:${selector.studioId}` : `id:${selector.accountId.toLowerCase()}`);
    if (hit && Date.now() - hit.at < ACCOUNT_CACHE_MS) return hit.account;
    let id: string;
    if ('studioId' in selector) {
      const found = await this.#commands.field(KEYS.studio, selector.studioId);
      if (found === null) return undefined;
      id = found;
    } else {
      id = selector.accountId.toLowerCase();
    }
    return this.#read(id);
  }

  async accountByUsername(username: string): Promise<Account | undefined> {
    const id = await this.#commands.field(KEYS.username, username);
    return id === null ? undefined : this.findAccount({ accountId: id });
  }

  async accountsByName(prefix: string, options: { after?: string | undefined; limit: number }): Promise<NamePage> {
    const key = nameKey(prefix);
    // members `<name key>\0<account id>` in byte order, from past `after` (or the prefix) to below the
    // prefix followed by U+10FFFF (the greatest code point: every key that starts with the prefix)
    const min: `[${string}` | `(${string}` = options.after === undefined ? `[${key}` : `(${options.after}`;
    const members = await this.#commands.call('read', () =>
      this.#commands.redis.zrange<string[]>(KEYS.names, min, `(${key}\u{10FFFF}`, { byLex: true, offset: 0, count: options.limit + 1 }),
    );
    const page = members.slice(0, options.limit);
    const accounts = await Promise.all(page.map((m) => this.findAccount({ accountId: m.slice(m.lastIndexOf('\u0000') + 1) })));
    return {
      accounts: accounts.filter((a): a is Account => a !== undefined),
      next: members.length > options.limit ? page[page.length - 1] : undefined,
    };
  }

  /** Access read in the last {@link ACCESS_CACHE_MS}, by account id: the time it was read and what it was. */
  readonly #access = new Map<string, { readonly at: number; readonly access: AccountAccess }>();

  async access(accountId: string, options: { readonly fresh?: boolean } = {}): Promise<AccountAccess> {
    const id = accountId.toLowerCase();
    const hit = this.#access.get(id);
    if (hit && !options.fresh && Date.now() - hit.at < ACCESS_CACHE_MS) return hit.access;
    return this.#rememberAccess(id, accessFrom(await this.#commands.hash(KEYS.access(id))));
  }

  #rememberAccess(id: string, access: AccountAccess): AccountAccess {
    if (this.#access.size >= ACCOUNT_CACHE_SIZE) this.#access.delete(this.#access.keys().next().value!);
    this.#access.delete(id);
    this.#access.set(id, { at: Date.now(), access });
    return access;
  }

  async accessRecord(key: string, fingerprint: string): Promise<AccessChangeOutcome | undefined> {
    // a record is `<fingerprint>\n<account id>` (`api/_lib/stores/idempotency.ts`)
    const record = await this.#commands.field(KEYS.accessKeys, key);
    if (record === null) return undefined;
    const [stored, ref] = record.split('\n') as [string, string];
    if (stored !== fingerprint) return { status: 'key-reused' };
    return { status: 'replayed', access: await this.access(ref) };
  }

  async changeAccess(request: AccessChangeRequest): Promise<AccessChangeOutcome> {
    const id = request.accountId.toLowerCase();
    const c = request.change;
    const [status] = await this.#commands.script({
      script: ACCESS,
      keys: [KEYS.accessKeys, KEYS.account(id), KEYS.access(id)],
      args: [
        request.key ?? '',
        request.fingerprint,
        id,
        c.kind,
        c.kind === 'unban' ? '0' : String(c.at),
        c.kind === 'ban' ? c.ban.reason : '',
        c.kind === 'ban' ? c.ban.at : '',
        c.kind === 'ban' ? (c.ban.until ?? '') : '',
      ],
    });
    if (status === 'key-reused') return { status: 'key-reused' };
    if (status === 'no-account') return { status: 'no-account' };
    if (status === 'erased') return { status: 'erased' };
    // read past the cache: this instance sees its own change at once
    const access = this.#rememberAccess(id, accessFrom(await this.#commands.hash(KEYS.access(id))));
    return { status: status === 'replayed' ? 'replayed' : 'created', access };
  }

  async eraseAccount(request: EraseRequest): Promise<EraseOutcome> {
    const id = request.accountId.toLowerCase();
    const before = await this.#read(id);
    if (!before) {
      // a replay after the erasure finds the account (erased); an unknown account has no record
      const record = await this.#commands.field(KEYS.eraseKeys, request.key);
      if (record === null) return { status: 'no-account' };
      return record.split('\n')[0] === request.fingerprint ? { status: 'no-account' } : { status: 'key-reused' };
    }
    const [status] = await this.#commands.script({
      script: ERASE,
      keys: [KEYS.eraseKeys, KEYS.account(id), KEYS.username, KEYS.names, KEYS.postings(id), KEYS.entries, KEYS.access(id)],
      args: [
        request.key,
        request.fingerprint,
        id,
        erasedUsername(before.studioId),
        String(request.at),
        request.atIso,
        ERASED_REASON,
        `${nameKey(before.displayName)}\u0000${id}`,
      ],
    });
    this.#forget(before);
    this.#access.delete(id);
    if (status === 'key-reused') return { status: 'key-reused' };
    if (status === 'no-account') return { status: 'no-account' };
    const account = await this.#read(id);
    return { status: status === 'replayed' ? 'replayed' : 'created', account: account! };
  }

  /** The account as stored now, past the cache (and remembered). */
  async #read(id: string): Promise<Account | undefined> {
    const h = await this.#commands.hash(KEYS.account(id));
    return h.studioId === undefined ? undefined : this.#remember(accountFrom(h));
  }

  #forget(account: Account): void {
    this.#accounts.delete(`id:${account.accountId}`);
    this.#accounts.delete(`studio:${account.studioId}`);
  }

  async credit(request: CreditRequest): Promise<CreditOutcome> {
    const out = await this.#commands.script(creditCall(request));
    switch (out[0]) {
      case 'applied':
        return { status: 'created', transfer: transferFrom({ ...obj(out[1]), note: request.note, actor: request.actor ?? '' }) };
      case 'stored':
        return storedCredit(await this.#recorded(s(out[1])), request);
      case 'already-reversed':
        return { status: 'already-reversed', transfer: await this.#recorded(s(out[1])) };
      case 'insufficient':
        return { status: 'insufficient', balance: Number(out[1]) };
      case 'key-reused':
        return { status: 'key-reused' };
      case 'no-account':
        return { status: 'no-account' };
      case 'no-entry':
        return { status: 'no-entry' };
      default:
        return { status: 'overflow' };
    }
  }

  /** A transfer a script named: one written in the same step as its record, so its absence is a broken store. */
  async #recorded(entryId: string): Promise<Transfer> {
    const transfer = await this.transfer(entryId);
    if (!transfer) throw storeUnavailable(LEDGER_STORE, new Error(`The transfer ${entryId} of an idempotency record cannot be read.`));
    return transfer;
  }

  async transfer(entryId: string): Promise<Transfer | undefined> {
    const id = entryId.toLowerCase();
    const [stored, [annotation, reversedBy]] = await Promise.all([
      this.#commands.field(KEYS.transfers, id),
      this.#commands.fields(KEYS.entries, [`n:${id}`, `r:${id}`]),
    ]);
    return stored === null ? undefined : transferFrom(annotated(stored, annotation, reversedBy));
  }

  /** Postings with their annotations and reversal links laid over them (one read for any number). */
  async #withLinks(postings: readonly Posting[]): Promise<Posting[]> {
    if (postings.length === 0) return [];
    const meta = await this.#commands.fields(
      KEYS.entries,
      postings.flatMap((p) => [`n:${p.entryId}`, `r:${p.entryId}`]),
    );
    return postings.map((p, i) => postingFrom(annotated(JSON.stringify(p), meta[2 * i], meta[2 * i + 1])));
  }

  async balance(accountId: string): Promise<number> {
    const v = await this.#commands.field(KEYS.account(accountId), 'balance');
    return v === null ? 0 : Number(v);
  }

  async postings(
    accountId: string,
    options: { beforeSeq?: number | undefined; limit: number; filter: PostingFilter },
  ): Promise<PostingPage> {
    const key = KEYS.postings(accountId);
    const total = Number(await this.#commands.call('read', () => this.#commands.redis.llen(key)));
    let end = Math.min(total, (options.beforeSeq ?? total + 1) - 1); // highest seq to look at
    const found: Posting[] = [];
    const filtered = options.filter.kind !== undefined || options.filter.purpose !== undefined;
    const chunk = filtered ? Math.max(100, options.limit * 4) : options.limit + 1;
    while (end >= 1 && found.length <= options.limit) {
      const start = Math.max(1, end - chunk + 1);
      const items = await this.#commands.list(key, start - 1, end - 1);
      for (let i = items.length - 1; i >= 0; i--) {
        const p = postingOf(items[i]);
        if (options.filter.kind !== undefined && p.kind !== options.filter.kind) continue;
        if (options.filter.purpose !== undefined && p.purpose !== options.filter.purpose) continue;
        found.push(p);
      }
      end = start - 1;
    }
    const postings = await this.#withLinks(found.slice(0, options.limit));
    return { postings, nextBeforeSeq: found.length > options.limit ? postings[postings.length - 1]!.seq : undefined };
  }

  async ledgerAccounts(options: { after?: string | undefined; limit: number }): Promise<ChainHead[]> {
    if (options.after === undefined) await this.#fillAccountOrder();
    const min: `[${string}` | `(${string}` | '-' = options.after === undefined ? '-' : `(${options.after}`;
    const ids = await this.#commands.call('read', () =>
      this.#commands.redis.zrange<string[]>(KEYS.accountOrder, min, '+', { byLex: true, offset: 0, count: options.limit }),
    );
    const heads = await Promise.all(ids.map((id) => this.#commands.fields(KEYS.account(String(id)), ['balance', 'seq', 'head'])));
    return ids.map((id, i) => {
      const [balance, seq, head] = heads[i]!;
      return { accountId: String(id), balance: Number(balance ?? 0), seq: Number(seq ?? 0), head: head ?? '' };
    });
  }

  /**
   * Put the accounts of `ledger:accounts` that `ledger:account-order` lacks into it (accounts credited
   * before the order existed), in chunks; two sizes that agree mean nothing is missing. Idempotent.
   */
  async #fillAccountOrder(): Promise<void> {
    const [all, ordered] = await Promise.all([
      this.#commands.call('read', () => this.#commands.redis.scard(KEYS.accounts)),
      this.#commands.call('read', () => this.#commands.redis.zcard(KEYS.accountOrder)),
    ]);
    if (Number(all) <= Number(ordered)) return;
    let cursor = '0';
    do {
      const [next, members] = await this.#commands.call('read', () => this.#commands.redis.sscan(KEYS.accounts, cursor, { count: 1000 }));
      cursor = String(next);
      const ids = (members as unknown[]).map(String);
      const [first, ...rest] = ids.map((member) => ({ score: 0, member }));
      if (first) await this.#commands.call('write', () => this.#commands.redis.zadd(KEYS.accountOrder, first, ...rest));
    } while (cursor !== '0');
  }

  async chain(accountId: string, options: { fromSeq: number; limit: number }): Promise<Posting[]> {
    const items = await this.#commands.list(KEYS.postings(accountId), options.fromSeq - 1, options.fromSeq + options.limit - 2);
    return this.#withLinks(items.map(postingOf));
  }

  async ledgerTotals(): Promise<LedgerTotals> {
    const [transfers, issuerSeq] = await this.#commands.script({
      script: TOTALS,
      keys: [KEYS.transfers, KEYS.account(ISSUER_ACCOUNT_ID)],
      args: [],
    });
    return { transfers: Number(transfers), issuerSeq: Number(issuerSeq) };
  }

  async verification(): Promise<VerificationRecord> {
    const [cursor, results] = await Promise.all([
      this.#commands.call('read', () => this.#commands.redis.get<string>(KEYS.verifyCursor)),
      this.#commands.list(KEYS.verifyResults, 0, -1),
    ]);
    return { cursor: cursor === null ? undefined : String(cursor), results };
  }

  async recordVerification(write: VerificationWrite): Promise<'written' | 'superseded'> {
    const [status] = await this.#commands.script({
      script: RECORD_VERIFICATION,
      keys: [KEYS.verifyCursor, KEYS.verifyResults],
      args: [write.expect === undefined ? '0' : '1', write.expect ?? '', write.cursor, write.result, String(write.keep)],
    });
    return status === 'written' ? 'written' : 'superseded';
  }

  async snapshot(): Promise<LedgerSnapshot> {
    const ids = (await this.#commands.members(KEYS.accounts)).sort();
    const meta = await this.#commands.hash(KEYS.entries);
    const linked = (stored: string) => {
      const id = s(obj(stored).entryId);
      return annotated(stored, meta[`n:${id}`], meta[`r:${id}`]);
    };
    const accounts = [];
    for (const id of ids) {
      const balance = await this.balance(id);
      const items = await this.#commands.list(KEYS.postings(id), 0, -1);
      accounts.push({ accountId: id, balance, postings: items.map((i) => postingFrom(linked(i))) });
    }
    const transfers = Object.values(await this.#commands.hash(KEYS.transfers))
      .map((t) => transferFrom(linked(t)))
      .sort(byCodeUnits((t) => t.sourceRef));
    return { accounts, transfers };
  }

  close(): Promise<void> {
    return this.connection.close();
  }
}
