// The memory throttle's own bound (api/_lib/throttle/memory.ts): past MEMORY_MAX_KEYS keys, a counted hit
// sweeps the keys whose counts no longer reach into the current window, and only those: a key hit in the
// previous window still weighs on the sliding estimate, so it stays.
import { describe, expect, it } from 'vitest';
import { MEMORY_MAX_KEYS, memoryThrottle } from '../../api/_lib/throttle/memory.js';

const BUDGET = { name: 'client-writes', limit: 4, windowS: 60 };
const WINDOW_MS = 60_000;

/** A throttle on a clock the test moves, starting at the beginning of a window. */
function throttleAt(startMs: number) {
  let now = startMs;
  const store = memoryThrottle(() => new Date(now));
  return { store, set: (ms: number) => void (now = ms) };
}

describe('the memory throttle', () => {
  it('names its driver', () => {
    expect(memoryThrottle().driver).toBe('memory');
  });

  it('keeps every key below the bound, and past it sweeps the stale keys but not those of the previous window', async () => {
    const t0 = 1_000 * WINDOW_MS;
    const { store, set } = throttleAt(t0);
    // window 0: the keys that will be stale two windows later
    for (let i = 0; i < MEMORY_MAX_KEYS - 2; i++) await store.hit(BUDGET, `old-${i}`);
    // window 1: one key spends its whole budget; it is the previous window when the sweep runs
    set(t0 + WINDOW_MS);
    for (let i = 0; i < BUDGET.limit; i++) expect((await store.hit(BUDGET, 'recent')).allowed).toBe(true);
    await store.hit(BUDGET, 'filler');
    expect(store.size()).toBe(MEMORY_MAX_KEYS);
    // window 2, at its very start: 'recent' still counts in full; a new key's hit sweeps the old ones
    set(t0 + 2 * WINDOW_MS);
    expect((await store.peek(BUDGET, 'recent')).allowed).toBe(false);
    expect((await store.hit(BUDGET, 'new')).allowed).toBe(true);
    expect(store.size()).toBe(3);
    expect((await store.peek(BUDGET, 'recent')).allowed).toBe(false);
  });

  it('does not sweep below the bound', async () => {
    const t0 = 1_000 * WINDOW_MS;
    const { store, set } = throttleAt(t0);
    for (let i = 0; i < MEMORY_MAX_KEYS - 2; i++) await store.hit(BUDGET, `old-${i}`);
    set(t0 + 5 * WINDOW_MS);
    await store.hit(BUDGET, 'new');
    expect(store.size()).toBe(MEMORY_MAX_KEYS - 1);
  });

  it('forgets every count when closed', async () => {
    const { store } = throttleAt(1_000 * WINDOW_MS);
    for (let i = 0; i < BUDGET.limit; i++) await store.hit(BUDGET, 'k');
    expect((await store.peek(BUDGET, 'k')).allowed).toBe(false);
    await store.close();
    expect(store.size()).toBe(0);
    expect((await store.peek(BUDGET, 'k')).allowed).toBe(true);
  });
});
