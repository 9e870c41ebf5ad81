/**
 * The throttle in the process's memory (`api/_lib/throttle/types.ts`): the counts of a deployment that
 * keeps no state (no `STORE_DRIVER`), where only the admin-guarded storage routes can be called. Each
 * instance counts alone, so the budgets hold per instance; with a store configured the throttle lives there
 * instead. Counts older than the previous window are dropped as keys are touched, and the map is swept
 * when it grows past {@link MEMORY_MAX_KEYS}.
 */
import { systemClock, type Clock } from '../stores/clock.js';
import { judge, windowIndex, type Budget, type ThrottleStore, type Verdict } from './types.js';

/** Keys remembered before stale ones are swept. */
export const MEMORY_MAX_KEYS = 100_000;

interface Counts {
  readonly windowS: number;
  readonly index: number;
  readonly current: number;
  readonly previous: number;
}

/** The memory adapter: a {@link ThrottleStore} that also says how many keys it holds. */
export interface MemoryThrottle extends ThrottleStore {
  /** Keys held now (budget and key pairs); the sweep keeps it near {@link MEMORY_MAX_KEYS}. */
  size(): number;
}

/** A throttle in memory, on `clock` (default the system clock). */
export function memoryThrottle(clock: Clock = systemClock): MemoryThrottle {
  const counts = new Map<string, Counts>();
  /** The counts of `id` moved to the window of `index`. */
  const at = (id: string, windowS: number, index: number): Counts => {
    const c = counts.get(id);
    if (!c) return { windowS, index, current: 0, previous: 0 };
    if (c.index === index) return c;
    return { windowS, index, current: 0, previous: c.index === index - 1 ? c.current : 0 };
  };
  /** Drop every key whose counts no longer reach into the window of `now`. */
  const sweep = (now: number) => {
    if (counts.size < MEMORY_MAX_KEYS) return;
    for (const [id, c] of counts) if (c.index < windowIndex(now, c.windowS) - 1) counts.delete(id);
  };
  return {
    driver: 'memory',
    size: () => counts.size,
    hit(budget: Budget, key: string): Promise<Verdict> {
      const now = clock().getTime();
      const index = windowIndex(now, budget.windowS);
      const id = `${budget.name}\u0000${key}`;
      const c = at(id, budget.windowS, index);
      const verdict = judge(budget, c, now);
      if (verdict.allowed) {
        sweep(now);
        counts.set(id, { ...c, current: c.current + 1 });
      }
      return Promise.resolve(verdict);
    },
    refund(budget: Budget, key: string): Promise<void> {
      const now = clock().getTime();
      const id = `${budget.name}\u0000${key}`;
      const c = at(id, budget.windowS, windowIndex(now, budget.windowS));
      counts.set(id, { ...c, current: c.current - 1 });
      return Promise.resolve();
    },
    peek(budget: Budget, key: string): Promise<Verdict> {
      const now = clock().getTime();
      return Promise.resolve(judge(budget, at(`${budget.name}\u0000${key}`, budget.windowS, windowIndex(now, budget.windowS)), now));
    },
    close() {
      counts.clear();
      return Promise.resolve();
    },
  };
}
