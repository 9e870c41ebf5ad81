/**
 * Store faults for the fault run (`test/adversarial/fault-run.test.ts`; docs/architecture.md, "Stores are
 * ports with adapters"), and the one way the run sends a request to an entry and judges its answer.
 *
 * Redis: {@link RedisFaults} wraps a RESP connection in a `Requester` (as `test/ledger/faults.test.ts`
 * does for one store) that, while armed, loses the answer of a script that ran (noticed after a wait, as
 * a client's timeout would; the client retries; the scripts of one kind may be aimed at, losing more),
 * fails a script or a read before it is sent (the client retries), and dooms a few script calls so that
 * every attempt of the call fails, half of them after the server ran it (the store answers 503 and the
 * effect may or may not be there). A call is told by its arguments after the script's name, which its
 * retries and its EVAL fallback repeat. The throttle's calls (keys `throttle:*`) are left alone.
 *
 * SQLite: {@link SqliteFaults} does to the store's file what another connection may do, and no more:
 * triggers that fail a write after it wrote (the last statement of every keyed write inserts its
 * idempotency record; an island save updates its row), which the group commit refuses alone with a 503
 * while it commits the rest of the group without it; and the write lock held past the engine's busy
 * timeout (`busyTimeoutMs` of the file's first opener), so a group cannot begin and each of its writes is
 * refused with a 503.
 */
import { pathToFileURL } from 'node:url';
import { createClient, type Client, type Transaction } from '@libsql/client';
import type { UpstashRequest, UpstashResponse } from '@upstash/redis';
import type { EntryExports } from '../../api/_lib/http/entry.js';
import type { RespRequester } from '../../api/_lib/stores/resp-requester.js';
import { createRng, type Rng } from '../../api/_lib/util/prng.js';
import { expectProblem, responseErrors } from './game-api.js';

/** Chances, per request, of each Redis fault while armed. */
export interface RedisFaultRates {
  /** A script runs on the server, then its answer is lost. */
  readonly loseAnswer: number;
  /** A script call fails before it is sent. */
  readonly failBefore: number;
  /** A script call fails on every attempt (before sending, or after the server ran it: half each). */
  readonly doom: number;
  /** A read fails before it is sent. */
  readonly readFailBefore: number;
  /** Most milliseconds before a lost answer is noticed (the client's timeout), each wait drawn up to it. */
  readonly lostAfterMs: number;
  /** Scripts whose first key ends with `keySuffix` lose their answer at this rate instead of `loseAnswer`. */
  readonly aim?: { readonly keySuffix: string; readonly loseAnswer: number };
}

/** Counts of the Redis faults injected so far (and of `NOSCRIPT` replies seen, after a flushed script cache). */
export interface RedisFaultCounts {
  lostAnswers: number;
  /** Lost answers of the scripts aimed at (counted in `lostAnswers` too). */
  aimedLost: number;
  notSent: number;
  doomedCalls: number;
  doomedAttempts: number;
  readsNotSent: number;
  noscript: number;
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

const isThrottleKey = (v: unknown) => typeof v === 'string' && v.startsWith('throttle:');

/** The fault-injecting `Requester` factory of the Redis run (see the module header). */
export class RedisFaults {
  armed = false;
  counts: RedisFaultCounts = RedisFaults.#zero();
  #rng: Rng = createRng(1);
  #rates: RedisFaultRates = { loseAnswer: 0, failBefore: 0, doom: 0, readFailBefore: 0, lostAfterMs: 0 };
  readonly #doomed = new Map<string, 'before' | 'after'>();

  static #zero(): RedisFaultCounts {
    return { lostAnswers: 0, aimedLost: 0, notSent: 0, doomedCalls: 0, doomedAttempts: 0, readsNotSent: 0, noscript: 0 };
  }

  /** Start over with these rates and a seeded generator (disarmed, counts zero). */
  reset(seed: number, rates: RedisFaultRates): void {
    this.armed = false;
    this.counts = RedisFaults.#zero();
    this.#rng = createRng(seed);
    this.#rates = rates;
    this.#doomed.clear();
  }

  /** `inner` behind the faults. */
  wrap(inner: RespRequester): RespRequester {
    return {
      commands: () => inner.commands(),
      close: () => inner.close(),
      request: <T>(req: UpstashRequest) => this.#request<T>(inner, req),
    };
  }

  async #request<T>(inner: RespRequester, req: UpstashRequest): Promise<UpstashResponse<T>> {
    const body = (req.body as unknown[] | undefined) ?? [];
    const command = typeof body[0] === 'string' ? body[0].toLowerCase() : '';
    const script = command === 'evalsha' || command === 'eval';
    const storeCall = !isThrottleKey(script ? body[3] : body[1]);
    if (!this.armed || !storeCall) return this.#seen(await inner.request<T>(req));
    if (!script) {
      if (this.#rng.next() < this.#rates.readFailBefore) {
        this.counts.readsNotSent++;
        throw new TypeError('fetch failed (injected: read not sent)');
      }
      return this.#seen(await inner.request<T>(req));
    }
    const call = JSON.stringify(body.slice(2));
    let doom = this.#doomed.get(call);
    if (!doom && this.#rng.next() < this.#rates.doom) {
      doom = this.#rng.next() < 0.5 ? 'before' : 'after';
      this.#doomed.set(call, doom);
      this.counts.doomedCalls++;
    }
    if (doom) this.counts.doomedAttempts++;
    const roll = this.#rng.next();
    if (doom === 'before' || (!doom && roll < this.#rates.failBefore)) {
      if (!doom) this.counts.notSent++;
      throw new TypeError('fetch failed (injected: script not sent)');
    }
    const aim = this.#rates.aim;
    const aimed = aim && typeof body[3] === 'string' && body[3].endsWith(aim.keySuffix) ? aim.loseAnswer : undefined;
    const res = this.#seen(await inner.request<T>(req));
    if (doom === 'after') throw new TypeError('fetch failed (injected: answer lost)');
    // an answer is lost only where the script ran (not a NOSCRIPT reply)
    if (!doom && res.error === undefined && roll < this.#rates.failBefore + (aimed ?? this.#rates.loseAnswer)) {
      this.counts.lostAnswers++;
      if (aimed !== undefined) this.counts.aimedLost++;
      await sleep(this.#rng.next() * this.#rates.lostAfterMs);
      throw new TypeError('fetch failed (injected: answer lost)');
    }
    return res;
  }

  #seen<T>(res: UpstashResponse<T>): UpstashResponse<T> {
    if (typeof res.error === 'string' && res.error.includes('NOSCRIPT')) this.counts.noscript++;
    return res;
  }
}

/** The one instance the RESP module mock of the fault run wraps every connection with. */
export const redisFaults = new RedisFaults();

/** Chances, in percent, that a write of each kind fails after writing while the triggers are in place. */
export interface SqliteFaultRates {
  /** A keyed write (credit, bag change, mint, item event, progress save): its idempotency record's insert fails. */
  readonly keyedPercent: number;
  /** An island save: its row's update fails. */
  readonly islandPercent: number;
}

/** The SQLite faults (see the module header) on one database file. */
export class SqliteFaults {
  /** Write locks taken and held past the busy timeout so far. */
  locksHeld = 0;
  #ddl: Client | undefined;
  #holder: Client | undefined;
  readonly #releases: Promise<void>[] = [];

  constructor(
    private readonly file: string,
    private readonly rates: SqliteFaultRates,
  ) {}

  /** Put the failing triggers in place (the file's writer must be idle). */
  async arm(): Promise<void> {
    const url = pathToFileURL(this.file).href;
    this.#ddl = createClient({ url, timeout: 5000 });
    // a lock holder that never waits: the store's writer may hold the lock across turns of the event loop
    this.#holder = createClient({ url, timeout: 1 });
    await this.#ddl.executeMultiple(`
      CREATE TRIGGER fault_run_keyed BEFORE INSERT ON idempotency_keys
        WHEN abs(random()) % 100 < ${this.rates.keyedPercent}
        BEGIN SELECT RAISE(ABORT, 'injected fault: the write failed after writing'); END;
      CREATE TRIGGER fault_run_island BEFORE UPDATE ON islands
        WHEN abs(random()) % 100 < ${this.rates.islandPercent}
        BEGIN SELECT RAISE(ABORT, 'injected fault: the island save failed after writing'); END;`);
  }

  /**
   * Take the file's write lock as soon as it is free (another process's write) and release it after
   * `ms`; resolves once it is taken (or given up after a second).
   */
  async holdLock(ms: number): Promise<void> {
    for (let attempt = 0; attempt < 1000; attempt++) {
      let lock: Transaction;
      try {
        lock = await this.#holder!.transaction('write');
      } catch {
        await sleep(1);
        continue;
      }
      this.locksHeld++;
      this.#releases.push(
        sleep(ms).then(async () => {
          await lock.rollback();
          lock.close();
        }),
      );
      return;
    }
  }

  /** Release every lock and drop the triggers. */
  async disarm(): Promise<void> {
    await Promise.all(this.#releases);
    await this.#ddl?.executeMultiple('DROP TRIGGER IF EXISTS fault_run_keyed; DROP TRIGGER IF EXISTS fault_run_island;');
    this.#ddl?.close();
    this.#holder?.close();
    this.#ddl = this.#holder = undefined;
  }
}

/** A request of the run: an entry's method export, the path (with its query) and the JSON body (none for a GET). */
export interface Sent {
  readonly entry: EntryExports;
  readonly method: 'GET' | 'POST' | 'PATCH';
  readonly path: string;
  readonly body?: unknown;
  readonly headers: Readonly<Record<string, string>>;
}

/** An answer: its status, headers, the body as sent and parsed (`undefined` when it is not JSON). */
export interface Reply {
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
  readonly body: Record<string, unknown> | undefined;
}

/** Send `r` to its entry (as `new Request`); a handler that throws is answered with status 0 and the error. */
export async function send(r: Sent): Promise<Reply> {
  try {
    const res = await r.entry[r.method](
      new Request(
        `http://t${r.path}`,
        r.body === undefined
          ? { method: r.method, headers: r.headers }
          : { method: r.method, headers: { 'Content-Type': 'application/json', ...r.headers }, body: JSON.stringify(r.body) },
      ),
    );
    const text = await res.text();
    let body: Record<string, unknown> | undefined;
    try {
      body = JSON.parse(text) as Record<string, unknown>;
    } catch {
      body = undefined;
    }
    return { status: res.status, headers: res.headers, text, body };
  } catch (e) {
    return { status: 0, headers: new Headers(), text: String(e), body: undefined };
  }
}

/**
 * What is wrong with an answer: a status outside `allowed`, a 5xx other than 503 UPSTREAM_UNAVAILABLE, a
 * refusal that is not a usable problem+json (`expectProblem`), a 2xx body that does not follow its
 * response schema, or a replay flag that disagrees with `Idempotent-Replayed`.
 */
export function replyProblems(reply: Reply, rule: { readonly allowed: readonly number[]; readonly schema: string }): string[] {
  const out: string[] = [];
  const what = `${reply.status} ${reply.text.slice(0, 300)}`;
  if (!rule.allowed.includes(reply.status)) out.push(`status not allowed: ${what}`);
  if (reply.status >= 400) {
    try {
      expectProblem(reply.status, reply.headers, reply.body);
    } catch (e) {
      out.push((e as Error).message.slice(0, 600));
    }
    if (reply.status === 503 && reply.body?.code !== 'UPSTREAM_UNAVAILABLE') out.push(`a 503 that is not UPSTREAM_UNAVAILABLE: ${what}`);
    return out;
  }
  if (reply.status >= 200 && reply.status < 300) {
    if (!reply.headers.get('content-type')?.startsWith('application/json')) out.push(`not JSON: ${reply.headers.get('content-type')}`);
    const errors = responseErrors(rule.schema, reply.body);
    if (errors.length > 0) out.push(`not a ${rule.schema} body: ${JSON.stringify(errors).slice(0, 300)} in ${what}`);
    const flag = reply.body?.idempotent;
    if (typeof flag === 'boolean' && flag !== (reply.headers.get('idempotent-replayed') === 'true'))
      out.push(`idempotent ${flag} but Idempotent-Replayed ${reply.headers.get('idempotent-replayed')}: ${what}`);
  }
  return out;
}
