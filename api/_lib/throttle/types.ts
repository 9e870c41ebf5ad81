/**
 * The throttle's port (docs/api.md, "Security"; docs/architecture.md, "Throttle"): budgets of
 * hits per key over a sliding window, kept where the deployment keeps its state, so that every instance
 * of a function counts against the same budget.
 *
 * The window is the sliding-window estimate `@upstash/ratelimit` uses, so every adapter counts alike: time
 * is cut into fixed windows of `windowS` seconds; the hits of a key at `now` are the hits of the current
 * window plus those of the previous one weighted by the part of it that still lies within `windowS` of
 * `now` (rounded down). A hit is allowed while that estimate is below the budget's limit, and only an
 * allowed hit is counted, so a client that keeps knocking while refused does not extend its wait.
 */

/** A budget: at most `limit` hits per key per `windowS` seconds. */
export interface Budget {
  /** The budget's name, part of every stored key (`auth-failures`, `client-writes`, …). */
  readonly name: string;
  /** Hits allowed per window; at least 1. */
  readonly limit: number;
  /** The window, seconds; at least 1. */
  readonly windowS: number;
}

/** What a budget says of one key at one moment. */
export interface Verdict {
  /** True when a hit is (or was) allowed. */
  readonly allowed: boolean;
  /** When the current window ends, ms since the epoch. */
  readonly resetAtMs: number;
}

/** The throttle store of a deployment (an adapter per backend: `sqlite`, `redis`, `memory`). */
export interface ThrottleStore {
  readonly driver: 'sqlite' | 'redis' | 'memory';
  /**
   * Count one hit of `key` against `budget` when the budget allows it, and say whether it did.
   * @throws ServiceError UPSTREAM_UNAVAILABLE when the backend cannot be reached
   */
  hit(budget: Budget, key: string): Promise<Verdict>;
  /**
   * Whether a hit of `key` would be allowed now, without counting one.
   * @throws ServiceError UPSTREAM_UNAVAILABLE when the backend cannot be reached
   */
  peek(budget: Budget, key: string): Promise<Verdict>;
  /**
   * Take back one hit of `key` (a reserved place its request did not use up): the current window's count
   * goes down by one, as `@upstash/ratelimit`'s refund does (`limit(key, { rate: -1 })`), so a refund in a
   * window after its hit's leaves that window one below what it saw.
   * @throws ServiceError UPSTREAM_UNAVAILABLE when the backend cannot be reached
   */
  refund(budget: Budget, key: string): Promise<void>;
  close(): Promise<void>;
}

/** The store's name in its 503s. */
export const THROTTLE_STORE = Object.freeze({ name: 'throttle store', retryHint: '' });

/** The counts a sliding-window estimate reads: hits in the current and in the previous window. */
export interface WindowCounts {
  readonly current: number;
  readonly previous: number;
}

/** The fixed window `nowMs` falls in, for `windowS`: its index since the epoch. */
export function windowIndex(nowMs: number, windowS: number): number {
  return Math.floor(nowMs / (windowS * 1000));
}

/** The verdict of `counts` for `budget` at `nowMs` (see the module header), before counting a hit: whether one more fits. */
export function judge(budget: Budget, counts: WindowCounts, nowMs: number): Verdict {
  const windowMs = budget.windowS * 1000;
  const index = windowIndex(nowMs, budget.windowS);
  // the very arithmetic of @upstash/ratelimit's script, so that every adapter rounds alike
  const used = Math.floor((1 - (nowMs % windowMs) / windowMs) * counts.previous) + counts.current;
  return { allowed: used < budget.limit, resetAtMs: (index + 1) * windowMs };
}
