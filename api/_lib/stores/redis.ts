/**
 * The Redis client of every Redis store adapter (docs/architecture.md, "Stores are ports with adapters"):
 * the ledger, player state and the asset index share one database, reached through `@upstash/redis`.
 * Production talks to Upstash over REST (`UPSTASH_REDIS_REST_URL`, `UPSTASH_REDIS_REST_TOKEN`); tests and
 * local runs use the same client over a real `redis-server` through a custom `Requester`
 * (`resp-requester.ts`, `REDIS_URL`).
 *
 * Client settings, set explicitly (upstash/redis-js#1455): the client's own retries are off (zero
 * retries: `retry: false` would still resend a request whose connection failed) and auto-pipelining is
 * off, so one call is exactly one request and no read can be batched ahead of a write; replies are left
 * as text (no JSON decoding) on both transports, so hashes are read with {@link RedisCommands.hash}.
 *
 * Retries happen here instead ({@link RETRY_DELAYS_MS}), and only because every command the stores send is
 * safe to repeat: reads, and writes that are scripts finding their own record on a second run. Scripts
 * run with EVALSHA and fall back to EVAL on `NOSCRIPT` (the script cache does not survive a restart or a
 * failover). A transport failure after the last attempt, or an error reply, is the store's 503
 * (`unavailable.ts`).
 *
 * A refused credential is a configuration error, not an outage: `@upstash/redis` turns any answer of the
 * REST endpoint that is not 2xx into an `UpstashError` whose message is the body's `error` followed by
 * `, command was: …`, without the HTTP status, so a 401 or 403 is told by that text (`Unauthorized`, or
 * Redis's `WRONGPASS`, `NOAUTH`, `NOPERM` for a token without the right, e.g. a read-only one). It is
 * final at once (never retried) and answered with `storeMisconfigured`, whose cause names the variable
 * (`UPSTASH_REDIS_REST_TOKEN`, or `REDIS_URL` over RESP) and the endpoint that refused it.
 */
import { createHash } from 'node:crypto';
import { Redis, type Requester } from '@upstash/redis';
import { ConfigError } from '../config.js';
import type { ServiceError } from '../errors.js';
import { auditedCall } from './audit.js';
import { storeMisconfigured, storeUnavailable, type StoreIdentity } from './unavailable.js';

/** Waits between attempts of one command, milliseconds (3 attempts in all). */
export const RETRY_DELAYS_MS: readonly number[] = [25, 100];

/** The variable holding a connection's credential and the endpoint it is sent to, for the operator when it is refused. */
export interface RedisCredential {
  /** e.g. `UPSTASH_REDIS_REST_TOKEN`, `REDIS_URL`. */
  readonly variable: string;
  /** `host[:port]` of the endpoint (never a credential). */
  readonly endpoint: string;
}

/**
 * Where a Redis store connects: Upstash REST, or any {@link Requester} (tests, a local `redis-server`),
 * with the credential it sends (default `REDIS_URL` of the redis-server).
 */
export type RedisTarget =
  | { readonly url: string; readonly token: string }
  | { readonly requester: Requester; readonly close?: () => Promise<void>; readonly credential?: RedisCredential };

/** The credential `target` sends: the REST token to the REST URL's host, else the requester's (default `REDIS_URL`). */
export function credentialOf(target: RedisTarget): RedisCredential {
  if ('requester' in target) return target.credential ?? { variable: 'REDIS_URL', endpoint: 'the redis-server' };
  let endpoint: string;
  try {
    endpoint = new URL(target.url).host;
  } catch {
    endpoint = 'the REST endpoint';
  }
  return { variable: 'UPSTASH_REDIS_REST_TOKEN', endpoint };
}

/** A Lua script with its sha1 (the EVALSHA name). */
export interface RedisScript {
  readonly source: string;
  readonly sha: string;
}

/** A {@link RedisScript} of `source` (preludes such as `IDEMPOTENCY_LUA` concatenated before it by the caller). */
export function redisScript(source: string): RedisScript {
  return { source, sha: createHash('sha1').update(source).digest('hex') };
}

/**
 * One script call: the script (source and sha1), its `KEYS` (key names) and its `ARGV` (strings; integers
 * in decimal).
 */
export interface ScriptCall {
  readonly script: RedisScript;
  readonly keys: string[];
  readonly args: string[];
}

/**
 * The client over a custom Requester with the stores' settings. `@upstash/redis`'s Node constructor takes
 * no options with a Requester: that path has no HTTP retries, no auto-pipelining proxy and no telemetry
 * (the constructor sets those up for a URL only), but it parses JSON-looking replies; this subclass turns
 * that off through the base class's protected options, so both paths decode replies the same way.
 */
class RequesterRedis extends Redis {
  constructor(requester: Requester) {
    super(requester);
    this.opts = { automaticDeserialization: false };
  }
}

/** A client for `target` with the stores' settings (module header). */
export function redisClientOf(target: RedisTarget): Redis {
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

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A raw reply value as text (replies stay text on both transports; integers come as numbers), or null for nil. */
function textOf(v: unknown): string | null {
  if (v === null || v === undefined) return null;
  return typeof v === 'string' ? v : JSON.stringify(v);
}

/** True for an error reply from Redis itself (not a transport failure). */
function isReplyError(e: unknown): boolean {
  return e instanceof Error && e.name === 'UpstashError';
}

/** The first word of an error reply that refuses the credential (see the module header). */
const REFUSED_CREDENTIAL = /^(Unauthorized|Forbidden|WRONGPASS|NOAUTH|NOPERM)\b/;

/**
 * The word by which the endpoint refused the credential (`Unauthorized`, `WRONGPASS`, …), or undefined
 * when `e` is anything else (see the module header: an HTTP 401 or 403 of the REST endpoint arrives as an
 * `UpstashError` whose message starts with the body's `error`).
 */
export function credentialRefusal(e: unknown): string | undefined {
  return isReplyError(e) ? REFUSED_CREDENTIAL.exec((e as Error).message)?.[1] : undefined;
}

/** What to set when `credential` is refused. */
function refusedProblem(credential: RedisCredential, word: string): ConfigError {
  const what =
    credential.variable === 'UPSTASH_REDIS_REST_TOKEN'
      ? "set the database's REST token from the Upstash console (not its read-only token), matching UPSTASH_REDIS_REST_URL"
      : "set the redis-server's password in REDIS_URL";
  return new ConfigError([
    { variable: credential.variable, message: `is not accepted by ${credential.endpoint} (it answered ${word}); ${what}.` },
  ]);
}

/**
 * The 503 of one failed call that is not retried (a caller of the client that does its own sending, such
 * as `@upstash/ratelimit`): `storeMisconfigured` when the endpoint refused the credential, else
 * `storeUnavailable`.
 */
export function redisFailure(store: StoreIdentity, credential: RedisCredential, e: unknown): ServiceError {
  const refused = credentialRefusal(e);
  return refused !== undefined ? storeMisconfigured(store, refusedProblem(credential, refused)) : storeUnavailable(store, e);
}

/**
 * The commands a store sends, each retried on transport failures (an error reply from Redis is final at
 * once, `NOSCRIPT` excepted) and turned into the store's 503 after the last attempt.
 */
export class RedisCommands {
  /**
   * @param redis a client from {@link redisClientOf}.
   * @param store the store's name and retry advice in its 503s.
   * @param delays waits between attempts, ms (attempts = delays + 1); default {@link RETRY_DELAYS_MS}.
   * @param credential the variable and endpoint a refused credential names (default `REDIS_URL`, see {@link credentialOf}).
   */
  constructor(
    readonly redis: Redis,
    private readonly store: StoreIdentity,
    private readonly delays: readonly number[] = RETRY_DELAYS_MS,
    private readonly credential: RedisCredential = { variable: 'REDIS_URL', endpoint: 'the redis-server' },
  ) {}

  /**
   * Run `run`, retrying transport failures.
   * @param what the kind of call in the 503's message (`read`, `script`).
   * @throws ServiceError UPSTREAM_UNAVAILABLE: `storeMisconfigured` at once when the endpoint refuses the
   *   credential; `storeUnavailable` after the last attempt, or at once for another error reply
   */
  async call<T>(what: string, run: () => Promise<T>): Promise<T> {
    let last: unknown;
    for (let attempt = 0; attempt <= this.delays.length; attempt++) {
      if (attempt > 0) await sleep(this.delays[attempt - 1]!);
      try {
        return await run();
      } catch (e) {
        const refused = credentialRefusal(e);
        if (refused !== undefined) throw storeMisconfigured(this.store, refusedProblem(this.credential, refused));
        last = e;
        if (isReplyError(e) && !/NOSCRIPT/.test(String((e as Error).message))) break;
      }
    }
    throw storeUnavailable(this.store, last, what);
  }

  /**
   * A hash's fields (`HGETALL`, retried like {@link call}): replies stay the raw flat list
   * `[field, value, ...]` on both transports, made an object here.
   * @returns `{}` for a missing key
   */
  async hash(key: string): Promise<Record<string, string>> {
    const flat = (await this.call('read', () => this.redis.hgetall(key))) as unknown as unknown[];
    const out: Record<string, string> = {};
    for (let i = 0; i < flat.length; i += 2) out[String(flat[i])] = String(flat[i + 1]);
    return out;
  }

  /** Fields of a hash by position (`HMGET`): text, or null for a missing field. */
  async fields(key: string, names: readonly string[]): Promise<(string | null)[]> {
    const out = (await this.call('read', () => this.redis.hmget(key, ...names))) as unknown as unknown[];
    return out.map(textOf);
  }

  /** One field of a hash (`HGET`): text, or null when missing. */
  async field(key: string, name: string): Promise<string | null> {
    return textOf(await this.call('read', () => this.redis.hget(key, name)));
  }

  /** One element of a list (`LINDEX`, negative from the end): text, or null when out of range. */
  async element(key: string, index: number): Promise<string | null> {
    return textOf(await this.call('read', () => this.redis.lindex(key, index)));
  }

  /** A range of a list (`LRANGE`, indexes inclusive, negative from the end), as text. */
  async list(key: string, start: number, stop: number): Promise<string[]> {
    return (await this.call('read', () => this.redis.lrange(key, start, stop))).map((v) => textOf(v) ?? '');
  }

  /** The members of a set (`SMEMBERS`), as text. */
  async members(key: string): Promise<string[]> {
    return (await this.call('read', () => this.redis.smembers(key))).map((v) => textOf(v) ?? '');
  }

  /**
   * EVALSHA of the call's script, EVAL when the server does not know it; retried like {@link call}. Inside
   * a request's audit scope, the script's audited variant runs, which appends the request's record when
   * the script writes (`audit.ts`); the reply is the script's own either way.
   */
  async script(call: ScriptCall): Promise<unknown[]> {
    const audited = auditedCall(call);
    const sent = audited.call;
    const raw = await this.call('script', async () => {
      try {
        return await this.redis.evalsha<string[], unknown[]>(sent.script.sha, sent.keys, sent.args);
      } catch (e) {
        if (!/NOSCRIPT/.test(String((e as Error).message))) throw e;
        return await this.redis.eval<string[], unknown[]>(sent.script.source, sent.keys, sent.args);
      }
    });
    return audited.reply(raw);
  }
}

/** Close what `target` opened: a requester's connection (a REST target holds none). */
export function closeTarget(target: RedisTarget): Promise<void> {
  return 'requester' in target && target.close ? target.close() : Promise.resolve();
}

/** A store's connection: its commands, and closing what the target opened. */
export interface RedisConnection {
  readonly commands: RedisCommands;
  close(): Promise<void>;
}

/**
 * Connect a store to `target`.
 * @param options.retryDelaysMs waits between attempts (default {@link RETRY_DELAYS_MS}).
 */
export function connectRedis(
  target: RedisTarget,
  store: StoreIdentity,
  options: { retryDelaysMs?: readonly number[] } = {},
): RedisConnection {
  const commands = new RedisCommands(redisClientOf(target), store, options.retryDelaysMs ?? RETRY_DELAYS_MS, credentialOf(target));
  return {
    commands,
    close: () => closeTarget(target),
  };
}
