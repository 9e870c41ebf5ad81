/**
 * The Redis ledger store, through `@upstash/redis` (spec 1.7, 4.8; docs/architecture.md, "Ledger").
 * Production talks to Upstash over REST (`UPSTASH_REDIS_REST_URL`, `UPSTASH_REDIS_REST_TOKEN`); tests
 * and local runs use the same client over a real `redis-server` through a custom `Requester`
 * (`resp-requester.ts`, `REDIS_URL`).
 *
 * Client settings, set explicitly (upstash/redis-js#1455): the client's own retries are off (zero
 * retries: `retry: false` would still resend a request whose connection failed) and auto-pipelining is
 * off, so one call is exactly one request and no read can be batched ahead of a write; replies are left
 * as text (no JSON decoding), so hashes are read with {@link RetryingCommands.hash}. Retries happen here instead ({@link RETRY_DELAYS_MS}), and only because every
 * command is safe to repeat: writes are scripts keyed by source ref or client key, which find their own
 * record on a second run. Scripts run with EVALSHA and fall back to EVAL on `NOSCRIPT` (the script cache
 * does not survive a restart or a failover).
 *
 * Keys (prefix `ledger:`): one account's keys share the hash tag `{a:<accountId>}` (one hash slot):
 * `ledger:{a:<id>}:acct` (hash: account fields, balance, seq, head) and `ledger:{a:<id>}:postings`
 * (list of posting JSON, index = seq − 1). Global: `ledger:refs` (hash: source ref → transfer JSON,
 * never expiring), `ledger:studio` and `ledger:username` (indexes → account id), `ledger:account-keys`
 * (client key → account id and request fingerprint), `ledger:accounts` (set of accounts with postings).
 */
import { createHash } from 'node:crypto';
import { Redis, type Requester } from '@upstash/redis';
import { ServiceError } from '../errors.js';
import { byCodeUnits } from '../util/sorted.js';
import { CREATE_ACCOUNT_SCRIPT, CREDIT_SCRIPT } from './redis-scripts.js';
import { replayOutcome } from './outcome.js';
import { accountFrom, postingFrom, text as s, transferFrom } from './decode.js';
import {
  ISSUER_ACCOUNT_ID,
  type Account,
  type AccountSelector,
  type CreatedAccount,
  type CreditOutcome,
  type CreditRequest,
  type LedgerSnapshot,
  type LedgerStore,
  type NewAccount,
  type Posting,
  type PostingFilter,
  type PostingPage,
  type Transfer,
} from './types.js';

/** Waits between attempts of one command, milliseconds (3 attempts in all). */
export const RETRY_DELAYS_MS: readonly number[] = [25, 100];

const P = 'ledger:';
/** Keys of the Redis ledger (see the module header). */
export const KEYS = Object.freeze({
  refs: `${P}refs`,
  studio: `${P}studio`,
  username: `${P}username`,
  accountKeys: `${P}account-keys`,
  accounts: `${P}accounts`,
  account: (id: string) => `${P}{a:${id}}:acct`,
  postings: (id: string) => `${P}{a:${id}}:postings`,
});

/** A Lua script with its sha1 (the EVALSHA name). */
export interface RedisScript {
  readonly source: string;
  readonly sha: string;
}
/** A {@link RedisScript} of `source`. */
export const redisScript = (source: string): RedisScript => ({ source, sha: createHash('sha1').update(source).digest('hex') });
const script = redisScript;
const CREDIT = script(CREDIT_SCRIPT);
const CREATE = script(CREATE_ACCOUNT_SCRIPT);

/**
 * One script call (docs/architecture.md, "Ledger"; spec 4.8): the script (source and sha1), its `KEYS`
 * (key names, one account's under one hash tag) and its `ARGV` (strings; integers in decimal).
 */
export interface ScriptCall {
  readonly script: RedisScript;
  readonly keys: string[];
  readonly args: string[];
}

/**
 * The credit script's call for `request` (spec 4.8: one atomic step per credit; KEYS and ARGV as
 * `CREDIT_SCRIPT` in `redis-scripts.ts` documents them, the amount in decimal): what
 * {@link LedgerStore.credit} sends as one EVALSHA, and what the ledger benchmark hands `redis-benchmark`
 * to measure the script alone. Pure; throws nothing.
 */
export function creditCall(request: CreditRequest): ScriptCall {
  return {
    script: CREDIT,
    keys: [
      KEYS.refs,
      KEYS.account(request.accountId),
      KEYS.postings(request.accountId),
      KEYS.account(ISSUER_ACCOUNT_ID),
      KEYS.postings(ISSUER_ACCOUNT_ID),
      KEYS.accounts,
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
    ],
  };
}

/** A stored JSON document (replies stay text: `automaticDeserialization` is off on both paths), as an object. */
const obj = (value: unknown): Record<string, unknown> => JSON.parse(String(value)) as Record<string, unknown>;
const n = (v: unknown): number => Number(v);
const transferOf = (value: unknown): Transfer => transferFrom(obj(value));
const postingOf = (value: unknown): Posting => postingFrom(obj(value));

function accountOf(h: Record<string, string>): Account | undefined {
  if (h.studioId === undefined) return undefined;
  return accountFrom(h);
}

/**
 * The client over a custom Requester with the ledger's settings. `@upstash/redis`'s Node constructor
 * takes no options with a Requester: that path has no HTTP retries, no auto-pipelining proxy and no
 * telemetry (the constructor sets those up for a URL only), but it parses JSON-looking replies; this
 * subclass turns that off through the base class's protected options, so both paths decode replies the
 * same way.
 */
class RequesterRedis extends Redis {
  constructor(requester: Requester) {
    super(requester);
    this.opts = { automaticDeserialization: false };
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Where the Redis ledger connects: Upstash REST, or any {@link Requester} (tests, local `redis-server`). */
export type RedisLedgerTarget =
  { readonly url: string; readonly token: string } | { readonly requester: Requester; readonly close?: () => Promise<void> };

/**
 * The Redis ledger over `target`, with the client settings of the module header.
 * @param options.retryDelaysMs waits between attempts (default {@link RETRY_DELAYS_MS}).
 */
export function openRedisLedger(target: RedisLedgerTarget, options: { retryDelaysMs?: readonly number[] } = {}): LedgerStore {
  return new RedisLedger(redisClientOf(target), options.retryDelaysMs ?? RETRY_DELAYS_MS, 'requester' in target ? target.close : undefined);
}

/**
 * A client for `target` with the ledger's settings (no client retries, no auto-pipelining, replies left
 * as text), for every store that lives in the ledger's Redis (the asset index too).
 */
export function redisClientOf(target: RedisLedgerTarget): Redis {
  return 'requester' in target
    ? new RequesterRedis(target.requester)
    : new Redis({
        url: target.url,
        token: target.token,
        // `retry: false` still sends a failed request twice (the client loops attempts + 1 times); zero
        // retries is one request per command (and the backoff is never asked)
        retry: { retries: 0 },
        enableAutoPipelining: false,
        automaticDeserialization: false,
        enableTelemetry: false,
      });
}

/** Most accounts {@link RedisLedger} keeps resolved in memory. */
export const ACCOUNT_CACHE_SIZE = 10_000;

class RedisLedger implements LedgerStore {
  readonly driver = 'redis';
  /**
   * Accounts found before, by account id and by studio id. An account's ids and user never change once
   * created (nothing renames or deletes one), so a hit is always true and saves the two reads of a
   * lookup: a credit to a known account is one command. Bounded: the oldest entry goes first.
   */
  readonly #accounts = new Map<string, Account>();

  private readonly commands: RetryingCommands;

  constructor(
    private readonly redis: Redis,
    delays: readonly number[],
    private readonly onClose: (() => Promise<void>) | undefined,
  ) {
    this.commands = new RetryingCommands(redis, delays, 'The ledger store cannot be reached', '; try again with the same idempotency key.');
  }

  #call<T>(what: string, run: () => Promise<T>): Promise<T> {
    return this.commands.call(what, run);
  }

  #script(sc: RedisScript, keys: string[], args: string[]): Promise<unknown[]> {
    return this.commands.script(sc, keys, args);
  }

  async createAccount(input: NewAccount): Promise<CreatedAccount> {
    const a = input.account;
    const [status, id] = await this.#script(
      CREATE,
      [KEYS.accountKeys, KEYS.username, KEYS.studio, KEYS.account(a.accountId)],
      [input.clientKey ?? '', input.fingerprint, a.accountId, a.studioId, a.displayName, a.userId, a.username, a.createdAt],
    );
    switch (status) {
      case 'created':
        return { account: a, created: true };
      case 'existing': {
        const account = await this.findAccount({ accountId: s(id) });
        if (!account) throw new ServiceError('UPSTREAM_UNAVAILABLE', 'The account of this idempotency key cannot be read; try again.');
        return { account, created: false };
      }
      case 'key-reused':
        throw new ServiceError(
          'IDEMPOTENCY_KEY_REUSED',
          'This idempotency key already created an account with another display name or username; use a new key.',
        );
      case 'username-taken':
        throw new ServiceError('CONFLICT', `The username "${a.username.slice(0, 100)}" is taken.`);
      default:
        // a 80-bit studio id collision: the caller mints another
        throw new ServiceError('CONFLICT', 'The minted studio id is taken; try again.');
    }
  }

  #remember(account: Account): Account {
    while (this.#accounts.size >= ACCOUNT_CACHE_SIZE * 2) this.#accounts.delete(this.#accounts.keys().next().value!);
    this.#accounts.set(`id:${account.accountId}`, account);
    this.#accounts.set(`studio:${account.studioId}`, account);
    return account;
  }

  async findAccount(selector: AccountSelector): Promise<Account | undefined> {
    const hit = this.#accounts.get('studioId' in selector ? `studio:${selector.studioId}` : `id:${selector.accountId.toLowerCase()}`);
    if (hit) return hit;
    let id: string;
    if ('studioId' in selector) {
      const found = await this.#call('read', () => this.redis.hget(KEYS.studio, selector.studioId));
      if (found === null) return undefined; // replies stay raw: a missing field is nil
      id = s(found);
    } else {
      id = selector.accountId.toLowerCase();
    }
    const account = accountOf(await this.commands.hash(KEYS.account(id)));
    return account && this.#remember(account);
  }

  async credit(request: CreditRequest): Promise<CreditOutcome> {
    const call = creditCall(request);
    const out = await this.#script(call.script, call.keys, call.args);
    switch (out[0]) {
      case 'applied':
        return { status: 'applied', transfer: transferOf(out[1]) };
      case 'stored':
        return replayOutcome(transferOf(out[1]), request);
      case 'no-account':
        return { status: 'no-account' };
      default:
        throw new ServiceError('CONFLICT', 'This credit would take a balance beyond the largest amount the ledger holds.');
    }
  }

  async balance(accountId: string): Promise<number> {
    const v = await this.#call('read', () => this.redis.hget(KEYS.account(accountId), 'balance'));
    return v === null ? 0 : n(v);
  }

  async postings(
    accountId: string,
    options: { beforeSeq?: number | undefined; limit: number; filter: PostingFilter },
  ): Promise<PostingPage> {
    const key = KEYS.postings(accountId);
    const total = n(await this.#call('read', () => this.redis.llen(key)));
    let end = Math.min(total, (options.beforeSeq ?? total + 1) - 1); // highest seq to look at
    const found: Posting[] = [];
    const filtered = options.filter.kind !== undefined || options.filter.purpose !== undefined;
    const chunk = filtered ? Math.max(100, options.limit * 4) : options.limit + 1;
    while (end >= 1 && found.length <= options.limit) {
      const start = Math.max(1, end - chunk + 1);
      const items = await this.#call('read', () => this.redis.lrange(key, start - 1, end - 1));
      for (let i = items.length - 1; i >= 0; i--) {
        const p = postingOf(items[i]);
        if (options.filter.kind !== undefined && p.kind !== options.filter.kind) continue;
        if (options.filter.purpose !== undefined && p.purpose !== options.filter.purpose) continue;
        found.push(p);
      }
      end = start - 1;
    }
    const postings = found.slice(0, options.limit);
    return { postings, nextBeforeSeq: found.length > options.limit ? postings[postings.length - 1]!.seq : undefined };
  }

  async snapshot(): Promise<LedgerSnapshot> {
    const ids = (await this.#call('read', () => this.redis.smembers(KEYS.accounts))).map(s).sort();
    const accounts = [];
    for (const id of ids) {
      const balance = await this.balance(id);
      const items = await this.#call('read', () => this.redis.lrange(KEYS.postings(id), 0, -1));
      accounts.push({ accountId: id, balance, postings: items.map(postingOf) });
    }
    const refs = await this.commands.hash(KEYS.refs);
    const transfers = Object.values(refs)
      .map(transferOf)
      .sort(byCodeUnits((t) => t.sourceRef));
    return { accounts, transfers };
  }

  async close(): Promise<void> {
    await this.onClose?.();
  }
}

/**
 * Commands that are safe to repeat, sent with retries of transport failures (a reply error from Redis is
 * thrown at once) and scripts by EVALSHA with the EVAL fallback on `NOSCRIPT`: the retry policy of every
 * store in the ledger's Redis (module header).
 */
export class RetryingCommands {
  /**
   * @param delays waits between attempts, ms (attempts = delays + 1).
   * @param unavailableText,retryHint the 503's message is `${unavailableText} (${what})${retryHint}`.
   */
  constructor(
    private readonly redis: Redis,
    private readonly delays: readonly number[],
    private readonly unavailableText: string,
    private readonly retryHint: string,
  ) {}

  /** Run `run`, retrying transport failures. @throws ServiceError UPSTREAM_UNAVAILABLE after the last attempt, or at once for a reply error */
  async call<T>(what: string, run: () => Promise<T>): Promise<T> {
    let last: unknown;
    for (let attempt = 0; attempt <= this.delays.length; attempt++) {
      if (attempt > 0) await sleep(this.delays[attempt - 1]!);
      try {
        return await run();
      } catch (e) {
        last = e;
        if (isReplyError(e) && !/NOSCRIPT/.test(String((e as Error).message))) break;
      }
    }
    throw new ServiceError('UPSTREAM_UNAVAILABLE', `${this.unavailableText} (${what})${this.retryHint}`, { cause: last });
  }

  /**
   * A hash's fields (`HGETALL`, retried like {@link call}): with the ledger's client settings the reply
   * stays the raw flat list `[field, value, ...]` on both transports, made an object here.
   * @returns `{}` for a missing key
   */
  async hash(key: string): Promise<Record<string, string>> {
    const reply: unknown = await this.call('read', () => this.redis.hgetall(key));
    const out: Record<string, string> = {};
    // the raw reply is the flat list [field, value, ...] ([] for a missing key)
    const flat = reply as unknown[];
    for (let i = 0; i < flat.length; i += 2) out[String(flat[i])] = String(flat[i + 1]);
    return out;
  }

  /** EVALSHA of `sc`, EVAL when the server does not know it; retried like {@link call}. */
  script(sc: RedisScript, keys: string[], args: string[]): Promise<unknown[]> {
    return this.call('script', async () => {
      try {
        return await this.redis.evalsha<string[], unknown[]>(sc.sha, keys, args);
      } catch (e) {
        if (!/NOSCRIPT/.test(String((e as Error).message))) throw e;
        return await this.redis.eval<string[], unknown[]>(sc.source, keys, args);
      }
    });
  }
}

/** True for an error reply from Redis itself (not a transport failure). */
function isReplyError(e: unknown): boolean {
  return e instanceof Error && e.name === 'UpstashError';
}
