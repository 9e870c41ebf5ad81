// The Redis throttle's own rules beyond the contract (api/_lib/throttle/redis.ts), on a real redis-server on
// 127.0.0.1: the keys it writes, no in-process memory of refusals, failures as the store's 503, and closing.
import type { Requester } from '@upstash/redis';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { openRedisThrottle } from '../../api/_lib/throttle/redis.js';
import type { Budget } from '../../api/_lib/throttle/types.js';
import { redisBackend, redisOf } from '../helpers/backends.js';
import { redisCommand } from '../helpers/redis.js';

const backend = redisBackend();

beforeAll(() => backend.setup(), 60_000);
afterAll(() => backend.teardown());

describe('the Redis throttle', () => {
  it('says it runs on Redis', async () => {
    const t = openRedisThrottle(redisOf(await backend.fresh()));
    expect(t.driver).toBe('redis');
  });

  it('writes only its window keys, throttle:<budget>:<key>:<window>, and no analytics', async () => {
    const t = openRedisThrottle(redisOf(await backend.fresh()));
    const b: Budget = { name: 'keys', limit: 3, windowS: 60 };
    for (let i = 0; i < 4; i++) await t.hit(b, 'client:1');
    await t.peek(b, 'client:1');
    await t.refund(b, 'client:1');
    const keys = (await redisCommand(backend.server().url, ['keys', '*'])) as string[];
    expect(keys.length).toBeGreaterThan(0);
    for (const key of keys) expect(key).toMatch(/^throttle:keys:client:1:\d+$/);
  });

  it('keeps no memory of a refusal: a place given back by another instance is usable at once', async () => {
    const target = await backend.fresh();
    const a = openRedisThrottle(redisOf(target));
    const b = openRedisThrottle(redisOf(await backend.reopen()));
    const budget: Budget = { name: 'shared', limit: 2, windowS: 60 };
    expect((await a.hit(budget, 'k')).allowed).toBe(true);
    expect((await a.hit(budget, 'k')).allowed).toBe(true);
    expect((await a.hit(budget, 'k')).allowed).toBe(false);
    await b.refund(budget, 'k');
    expect((await a.hit(budget, 'k')).allowed).toBe(true);
    expect((await a.hit(budget, 'k')).allowed).toBe(false);
  });

  it('answers the throttle store’s 503 when Redis cannot be reached', async () => {
    const failing: Requester = {
      request: () => Promise.reject(new Error('connect ECONNREFUSED 127.0.0.1:1')),
    };
    const t = openRedisThrottle({ requester: failing });
    const b: Budget = { name: 'down', limit: 2, windowS: 60 };
    for (const call of [() => t.hit(b, 'k'), () => t.peek(b, 'k'), () => t.refund(b, 'k')]) {
      await expect(call()).rejects.toMatchObject({ code: 'UPSTREAM_UNAVAILABLE', status: 503 });
    }
  });

  it('closes the connection it was given, and only that kind', async () => {
    const target = redisOf(await backend.fresh());
    if (!('requester' in target)) throw new Error('a RESP target');
    const close = vi.fn(() => Promise.resolve());
    const t = openRedisThrottle({ ...target, close });
    await t.close();
    expect(close).toHaveBeenCalledTimes(1);
    // a requester's target without a close, and a REST target, have no connection to close
    await expect(openRedisThrottle({ requester: target.requester }).close()).resolves.toBeUndefined();
    await expect(openRedisThrottle({ url: 'https://example.invalid', token: 't'.repeat(40) }).close()).resolves.toBeUndefined();
  });
});
