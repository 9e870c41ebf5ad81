/**
 * The throttle on Redis (`STORE_DRIVER=redis`; `api/_lib/throttle/types.ts`) through `@upstash/ratelimit`'s
 * sliding window, on the stores' one client (`api/_lib/stores/redis.ts`): Upstash over REST in production, a
 * `redis-server` over RESP in tests. A limiter per call, its keys `throttle:<budget>:<key>:<window>`
 * (each expiring two windows after it was made). A hit is one script call, atomic on the server, so
 * instances of a function never both take a budget's last place.
 *
 * The limiter's own settings are set explicitly: no in-process cache of blocked keys (every answer comes
 * from Redis, so a budget is the same for every instance at every moment), no analytics, no timeout race
 * (a failure is the throttle store's 503, which the throttle's caller decides about: `policy.ts`).
 */
import { Ratelimit } from '@upstash/ratelimit';
import { closeTarget, credentialOf, redisClientOf, redisFailure, type RedisTarget } from '../stores/redis.js';
import { THROTTLE_STORE, type Budget, type ThrottleStore, type Verdict } from './types.js';

/** Prefix of every key the throttle writes. */
export const THROTTLE_PREFIX = 'throttle';

/** The throttle over `target`. */
export function openRedisThrottle(target: RedisTarget): ThrottleStore {
  const redis = redisClientOf(target);
  const credential = credentialOf(target);
  // a limiter holds no state of its own (no cache, no analytics; its scripts are found by hash): a new one
  // per call answers as a kept one would, and its construction only stores its settings
  const limiterOf = (b: Budget): Ratelimit =>
    new Ratelimit({
      redis,
      limiter: Ratelimit.slidingWindow(b.limit, `${b.windowS} s`),
      prefix: `${THROTTLE_PREFIX}:${b.name}`,
      ephemeralCache: false,
      analytics: false,
      timeout: 0,
    });
  const guarded = async <T>(call: () => Promise<T>): Promise<T> => {
    try {
      return await call();
    } catch (e) {
      throw redisFailure(THROTTLE_STORE, credential, e);
    }
  };
  return {
    driver: 'redis',
    async hit(budget: Budget, key: string): Promise<Verdict> {
      const r = await guarded(() => limiterOf(budget).limit(key));
      return { allowed: r.success, resetAtMs: r.reset };
    },
    async refund(budget: Budget, key: string): Promise<void> {
      await guarded(() => limiterOf(budget).limit(key, { rate: -1 }));
    },
    async peek(budget: Budget, key: string): Promise<Verdict> {
      const r = await guarded(() => limiterOf(budget).getRemaining(key));
      return { allowed: r.remaining > 0, resetAtMs: r.reset };
    },
    close: () => closeTarget(target),
  };
}
