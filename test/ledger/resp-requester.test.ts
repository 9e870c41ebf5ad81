/**
 * The RESP requester's connection (`api/_lib/ledger/resp-requester.ts`; docs/architecture.md, "Ledger"): each
 * test starts its own `redis-server` on 127.0.0.1 and builds its own requester, so a requester that cannot
 * connect fails the test that needs it (no shared hook hides it).
 *
 * What is pinned: it connects once when asked (a connection made twice fails), a command sent while the
 * server is down fails at once (no offline queue), a command in flight when the connection drops fails and
 * is not sent again (no resend of unanswered commands), no unhandled error
 * event, it answers again after the server is back, and it closes with the store.
 */
import { describe, expect, it, vi } from 'vitest';
import { connectRespRequester, reconnectDelay } from '../../api/_lib/stores/resp-requester.js';
import { openRedisLedger } from '../../api/_lib/ledger/redis.js';
import { startRedis } from '../helpers/redis.js';

describe('the RESP requester connection', () => {
  it('reconnects 100 ms later per attempt, at most 1 s apart', () => {
    expect([1, 2, 3, 9, 10, 11, 50].map(reconnectDelay)).toEqual([100, 200, 300, 900, 1000, 1000, 1000]);
  });

  it('connects when asked, and answers', async () => {
    const own = await startRedis();
    try {
      const r = await connectRespRequester(own.url);
      expect((await r.request({ body: ['ping'] })).result).toBe('PONG');
      expect(r.commands()).toBe(1);
      await r.close();
    } finally {
      await own.destroy();
    }
  });

  it('refuses to connect to a port where no server listens', async () => {
    const own = await startRedis();
    const url = own.url;
    await own.destroy();
    await expect(connectRespRequester(url)).rejects.toThrow();
  });

  it('fails a command at once while the server is down, reports no unhandled error, and answers again after the restart', async () => {
    const own = await startRedis();
    const r = await connectRespRequester(own.url);
    const logged = vi.spyOn(console, 'error');
    try {
      expect((await r.request({ body: ['set', 'k', 'v'] })).result).toBe('OK');
      await own.stop();
      const t0 = performance.now();
      await expect(r.request({ body: ['get', 'k'] })).rejects.toThrow();
      // no offline queue: the command is refused at once, not after the first reconnection (100 ms) fails
      expect(performance.now() - t0).toBeLessThan(80);
      await new Promise((ok) => setTimeout(ok, 400)); // reconnections meet a closed port meanwhile
      await own.start();
      let answer: unknown;
      for (let i = 0; i < 60 && answer === undefined; i++) {
        answer = await r.request({ body: ['get', 'k'] }).then(
          (x) => x.result,
          () => undefined,
        );
        if (answer === undefined) await new Promise((ok) => setTimeout(ok, 100));
      }
      expect(answer).toBe('v');
      expect(logged.mock.calls.filter((c) => /Unhandled error event/.test(String(c[0])))).toEqual([]);
    } finally {
      logged.mockRestore();
      await r.close();
      await own.destroy();
    }
  });

  it('fails a command in flight when the connection drops, and never sends it again after the restart', async () => {
    const own = await startRedis();
    const r = await connectRespRequester(own.url);
    try {
      // a list pop that waits on the server: in flight until the connection drops
      const waiting = r.request({ body: ['blpop', 'q', '0'] }).then(
        () => 'answered',
        () => 'failed',
      );
      await new Promise((ok) => setTimeout(ok, 50));
      await own.stop();
      const outcome = await Promise.race([waiting, new Promise((ok) => setTimeout(() => ok('still pending'), 3000))]);
      expect(outcome).toBe('failed');
      await own.start();
      let ready = false;
      for (let i = 0; i < 60 && !ready; i++) {
        ready = await r.request({ body: ['ping'] }).then(
          () => true,
          () => false,
        );
        if (!ready) await new Promise((ok) => setTimeout(ok, 100));
      }
      expect(ready).toBe(true);
      // the pop was not sent again: nothing waits on the list, so a push stays in it
      await r.request({ body: ['rpush', 'q', 'x'] });
      expect((await r.request({ body: ['llen', 'q'] })).result).toBe(1);
    } finally {
      await r.close();
      await own.destroy();
    }
  });

  it('closes its connection when the store closes', async () => {
    const own = await startRedis();
    const r = await connectRespRequester(own.url);
    const store = openRedisLedger({ requester: r, close: () => r.close() });
    await store.close();
    await expect(r.request({ body: ['ping'] })).rejects.toThrow();
    await own.destroy();
  });
});
