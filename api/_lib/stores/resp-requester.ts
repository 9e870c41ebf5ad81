/**
 * A `@upstash/redis` `Requester` that speaks RESP to a real `redis-server` through `ioredis`, for tests
 * and local runs (`STORE_DRIVER=redis` with `REDIS_URL=redis://127.0.0.1:6379`; docs/architecture.md,
 * "Ledger"). Production uses Upstash's REST endpoint instead; the ledger code above the client is the
 * same.
 *
 * It answers like Upstash's REST API: one command per request (`body` is the command as an array of
 * strings), `{ result }` with the RESP2 reply (bulk strings as strings, integers as numbers, arrays as
 * arrays, nil as null; an `HGETALL` reply as the flat list of fields and values, as Upstash sends it)
 * or `{ error }` with Redis's error text. Pipelines are not spoken: the stores turn auto-pipelining off
 * and send none (`redis.ts`). Transport failures reject (the ledger's retry policy decides).
 *
 * Connection settings: no offline queue and no resend of unanswered commands, so a command sent while
 * the server is down fails at once (the ledger answers 503) instead of running later behind the caller's
 * back; ioredis keeps reconnecting in the background (every 100 ms up to 1 s).
 */
import type { Requester, UpstashRequest, UpstashResponse } from '@upstash/redis';
import { Redis as IORedis } from 'ioredis';

/** A Requester plus the means to close its connection. */
export interface RespRequester extends Requester {
  /** Commands sent so far (one per request; a pipeline counts its commands). */
  readonly commands: () => number;
  close(): Promise<void>;
}

/**
 * How long ioredis waits before its `times`-th reconnection attempt (1-based), in ms: 100 ms more per attempt,
 * at most 1 s (100, 200, …, 1000, 1000, …).
 */
export function reconnectDelay(times: number): number {
  return Math.min(100 * times, 1000);
}

/**
 * Connect to `url` (`redis://[user:password@]host:port[/db]`).
 * @returns a connected requester; rejects when the first connection fails.
 */
export async function connectRespRequester(url: string): Promise<RespRequester> {
  const client = new IORedis(url, {
    lazyConnect: true,
    enableOfflineQueue: false,
    autoResendUnfulfilledCommands: false,
    maxRetriesPerRequest: 0,
    retryStrategy: reconnectDelay,
  });
  client.on('error', () => {
    // connection errors surface as rejected commands; the event only needs a listener
  });
  await client.connect();
  let sent = 0;
  const one = async (cmd: unknown): Promise<UpstashResponse<unknown>> => {
    const [name, ...args] = (cmd as unknown[]).map(String);
    sent++;
    try {
      const result = await client.call(name!, ...args);
      // ioredis turns an HGETALL reply into an object; Upstash answers the flat list of fields and values
      return { result: result !== null && typeof result === 'object' && !Array.isArray(result) ? Object.entries(result).flat() : result };
    } catch (e) {
      if (e instanceof Error && e.name === 'ReplyError') return { error: e.message };
      throw e;
    }
  };
  return {
    commands: () => sent,
    async request<TResult>(req: UpstashRequest): Promise<UpstashResponse<TResult>> {
      return (await one(req.body)) as UpstashResponse<TResult>;
    },
    close() {
      client.disconnect();
      return Promise.resolve();
    },
  };
}
