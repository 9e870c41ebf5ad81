/**
 * A local stand-in for Upstash's REST API in front of a real `redis-server`, so that the production
 * client path of the Redis stores (`UPSTASH_REDIS_REST_URL`, `UPSTASH_REDIS_REST_TOKEN`;
 * docs/architecture.md, "Ledger") runs in tests on 127.0.0.1 with nothing else on the network.
 *
 * Protocol, as `@upstash/redis` speaks it: `POST /` with the command as a JSON array of strings answers
 * `{ result }` (200) or `{ error }` (400); `POST /pipeline` takes an array of commands and answers one
 * `{ result }`/`{ error }` per command; `Authorization: Bearer <token>` is required (401 otherwise). With
 * the request header `Upstash-Encoding: base64`, string results (except `OK`) are base64, elementwise in
 * arrays. Commands are forwarded one at a time over a {@link RespRequester}.
 *
 * Fault injection: `loseResponses(n)` makes the next `n` requests run on the server and then drop the
 * connection without an answer (a lost response); `requests` records every request's path and headers.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { connectRespRequester, type RespRequester } from '../../api/_lib/stores/resp-requester.js';

/** One request as the stand-in saw it. */
export interface RestRequest {
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: unknown;
}

/** A running stand-in. */
export interface UpstashRestStandIn {
  readonly url: string;
  readonly token: string;
  /** Every request received, oldest first. */
  readonly requests: RestRequest[];
  /** Run the next `n` requests, then drop their connections unanswered. */
  loseResponses(n: number): void;
  close(): Promise<void>;
}

/** Base64 of every string in `value`, arrays elementwise; a top-level `OK` status stays as it is. */
function encode(value: unknown, top = true): unknown {
  if (typeof value === 'string') return top && value === 'OK' ? value : Buffer.from(value, 'utf8').toString('base64');
  if (Array.isArray(value)) return value.map((v) => encode(v, false));
  return value;
}

/**
 * Start a stand-in on 127.0.0.1 (a free port) in front of the `redis-server` at `redisUrl`.
 * @param token the bearer token it accepts (default a fixed test token).
 */
export async function startUpstashRest(redisUrl: string, token = 'rest-test-token-0123456789'): Promise<UpstashRestStandIn> {
  const redis: RespRequester = await connectRespRequester(redisUrl);
  const requests: RestRequest[] = [];
  let lose = 0;
  const run = async (cmd: unknown, base64: boolean) => {
    const out = await redis.request<unknown>({ body: cmd });
    return out.error !== undefined ? { error: out.error } : { result: base64 ? encode(out.result) : out.result };
  };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void (async () => {
        const body: unknown = JSON.parse(Buffer.concat(chunks).toString('utf8') || 'null');
        const path = req.url ?? '/';
        requests.push({ path, headers: req.headers, body });
        const send = (status: number, payload: unknown) => {
          res.writeHead(status, { 'Content-Type': 'application/json' });
          res.end(JSON.stringify(payload));
        };
        if (req.headers.authorization !== `Bearer ${token}`) return send(401, { error: 'Unauthorized' });
        const base64 = req.headers['upstash-encoding'] === 'base64';
        let answer: unknown;
        let status = 200;
        if (path === '/pipeline') {
          answer = [];
          for (const c of body as unknown[]) (answer as unknown[]).push(await run(c, base64));
        } else {
          answer = await run(body, base64);
          if ((answer as { error?: string }).error !== undefined) status = 400;
        }
        if (lose > 0) {
          lose--;
          req.socket.destroy();
          return;
        }
        send(status, answer);
      })().catch(() => req.socket.destroy());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    token,
    requests,
    loseResponses(n) {
      lose = n;
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await redis.close();
    },
  };
}
