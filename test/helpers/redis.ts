/**
 * A real `redis-server` for tests, on 127.0.0.1 and a free port, with its data in a temporary folder
 * (append-only file, fsync on every write, so a killed server restarts with every acknowledged write).
 * `.ci/run` installs Debian's `redis-server`; a suite that needs one fails (never skips) when it is missing.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Requester, UpstashRequest, UpstashResponse } from '@upstash/redis';

/** A running server; `stop` kills it (SIGKILL: no shutdown save), `start` brings it back on the same port and data. */
export interface TestRedis {
  readonly url: string;
  readonly port: number;
  stop(): Promise<void>;
  start(): Promise<void>;
  /** Stop and delete the data folder. */
  destroy(): Promise<void>;
}

/** A free TCP port on 127.0.0.1. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

/** Start a `redis-server` (binary `REDIS_SERVER_BIN` or `redis-server` on the PATH). */
export async function startRedis(): Promise<TestRedis> {
  const dir = mkdtempSync(join(tmpdir(), 'ledger-redis-'));
  const port = await freePort();
  let child: ChildProcess | undefined;

  const start = () =>
    new Promise<void>((resolve, reject) => {
      const c = spawn(
        'redis-server',
        [
          '--port',
          String(port),
          '--bind',
          '127.0.0.1',
          '--dir',
          dir,
          '--save',
          '',
          '--appendonly',
          'yes',
          '--appendfsync',
          'always',
          '--protected-mode',
          'yes',
        ],
        {
          stdio: ['ignore', 'pipe', 'pipe'],
        },
      );
      child = c;
      let out = '';
      const timer = setTimeout(() => reject(new Error(`redis-server did not start: ${out}`)), 10_000);
      c.on('error', (e) => {
        clearTimeout(timer);
        reject(new Error(`redis-server could not be started (install Debian's redis-server): ${e.message}`));
      });
      c.stdout.on('data', (d: Buffer) => {
        out += d.toString();
        if (/Ready to accept connections/.test(out)) {
          clearTimeout(timer);
          resolve();
        }
      });
    });
  const stop = () =>
    new Promise<void>((resolve) => {
      const c = child;
      child = undefined;
      if (!c || c.exitCode !== null) return resolve();
      c.once('exit', () => resolve());
      c.kill('SIGKILL');
    });

  await start();
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    stop,
    start,
    async destroy() {
      await stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Send one command to the server at `url`, over a connection of its own; its reply. */
export async function redisCommand(url: string, command: readonly string[]): Promise<unknown> {
  const { connectRespRequester } = await import('../../api/_lib/stores/resp-requester.js');
  const r = await connectRespRequester(url);
  try {
    return (await r.request({ body: [...command] })).result;
  } finally {
    await r.close();
  }
}

/** Empty every database of the server at `url` (`FLUSHALL`), over a connection of its own. */
export async function flushRedis(url: string): Promise<void> {
  await redisCommand(url, ['flushall']);
}

/**
 * A requester in front of `inner` that records each request (its REST path and its command, lower
 * case) and can fail the next `failBefore` requests before sending them (a transport failure).
 */
export class RecordingRequester implements Requester {
  paths: string[] = [];
  commands: string[] = [];
  /** Every request's body: the command and its arguments. */
  bodies: unknown[][] = [];
  failBefore = 0;
  constructor(private readonly inner: Requester) {}
  request<T>(req: UpstashRequest): Promise<UpstashResponse<T>> {
    this.paths.push((req.path ?? []).join('/'));
    this.bodies.push((req.body as unknown[] | undefined) ?? []);
    const name = (req.body as unknown[] | undefined)?.[0];
    this.commands.push(typeof name === 'string' ? name.toLowerCase() : '');
    if (this.failBefore > 0) {
      this.failBefore--;
      return Promise.reject(new TypeError('fetch failed (injected)'));
    }
    return this.inner.request<T>(req);
  }
}
