/**
 * The throttle contract (`api/_lib/throttle/types.ts`), a suite every throttle adapter's test file runs with
 * its harness (memory, SQLite, Redis over RESP, Redis through the Upstash REST stand-in). A budget allows
 * its limit of hits per window and refuses the next; a refused hit is not counted; a peek counts nothing;
 * budgets and keys are independent; the previous window weighs on the current one as it slides out;
 * concurrent hits never take more places than the budget has.
 *
 * Time is moved with `vi.setSystemTime` (only `Date` is faked): the SQLite and memory adapters read the
 * system clock, and `@upstash/ratelimit` reads `Date.now()` before it calls Redis.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { windowIndex, type Budget, type ThrottleStore } from '../../api/_lib/throttle/types.js';
import type { Harness } from '../helpers/backends.js';

/** A moment at the very start of a window of 60 s, far from any other test's keys. */
const T0 = windowIndex(Date.UTC(2026, 10, 23, 10, 0, 0), 60) * 60_000;

/**
 * Run the throttle contract against the adapter `harness` makes.
 * @param harness a new harness (its backend started in the suite's `beforeAll`).
 */
export function throttleContract(harness: () => Harness<ThrottleStore>): void {
  const h = harness();
  describe(`throttle contract: ${h.name}`, () => {
    let throttle: ThrottleStore;
    let n = 0;
    /** A budget of its own for each test. */
    const budget = (limit: number, windowS = 60): Budget => ({ name: `b${++n}`, limit, windowS });
    const at = (ms: number) => vi.setSystemTime(T0 + ms);
    const hits = async (b: Budget, key: string, count: number) => {
      const out: boolean[] = [];
      for (let i = 0; i < count; i++) out.push((await throttle.hit(b, key)).allowed);
      return out;
    };

    beforeAll(async () => {
      await h.setup();
      throttle = await h.fresh();
    }, 60_000);
    afterAll(async () => {
      await throttle?.close();
      await h.teardown();
    });
    afterEach(() => {
      vi.useRealTimers();
    });
    const frozen = (ms: number) => {
      vi.useFakeTimers({ toFake: ['Date'] });
      at(ms);
    };

    it('allows the limit of hits in a window, refuses the next, and says when the window ends', async () => {
      frozen(1_000);
      const b = budget(3);
      expect(await hits(b, 'k', 5)).toEqual([true, true, true, false, false]);
      const refused = await throttle.hit(b, 'k');
      expect(refused).toEqual({ allowed: false, resetAtMs: T0 + 60_000 });
      expect(await throttle.peek(b, 'k')).toEqual({ allowed: false, resetAtMs: T0 + 60_000 });
    });

    it('counts nothing on a peek, and nothing on a refused hit', async () => {
      frozen(2_000);
      const b = budget(2);
      for (let i = 0; i < 5; i++) expect((await throttle.peek(b, 'p')).allowed).toBe(true);
      expect(await hits(b, 'p', 2)).toEqual([true, true]);
      expect(await hits(b, 'p', 10)).toEqual(Array<boolean>(10).fill(false));
      // the previous window's 2 hits weigh 2 × (1 − 0.5) = 1 halfway through the next: one more place, not 0
      at(60_000 + 30_000);
      expect(await hits(b, 'p', 2)).toEqual([true, false]);
    });

    it('gives a place back on a refund, in the current window, and only for its key', async () => {
      frozen(3_000);
      const b = budget(2);
      expect(await hits(b, 'r', 3)).toEqual([true, true, false]);
      await throttle.refund(b, 'r');
      expect(await hits(b, 'r', 2)).toEqual([true, false]);
      await throttle.refund(b, 'other');
      expect(await hits(b, 'r', 1)).toEqual([false]);
      // a refund in the next window, of a hit made in this one, leaves the next one a place below the estimate:
      // 2 × (1 − 0.5) = 1 from the previous window, −1 in the current, so two places
      at(60_000 + 30_000);
      await throttle.refund(b, 'r');
      expect(await hits(b, 'r', 3)).toEqual([true, true, false]);
    });

    it('keeps budgets and keys apart', async () => {
      frozen(3_000);
      const one = budget(1);
      const two = budget(1);
      expect(await hits(one, 'a', 2)).toEqual([true, false]);
      expect(await hits(one, 'b', 2)).toEqual([true, false]);
      expect(await hits(two, 'a', 2)).toEqual([true, false]);
      // keys that differ only in case, punctuation or length are different keys
      for (const key of ['A', 'a:', 'a\u0000', 'client:127.0.0.1', 'client:127.0.0.10'])
        expect((await throttle.hit(one, key)).allowed, key).toBe(true);
    });

    it('slides: the previous window weighs by the part of it still within the window, rounded down', async () => {
      frozen(0);
      const b = budget(10);
      expect(await hits(b, 's', 10)).toEqual(Array<boolean>(10).fill(true));
      // 1 ms into the next window the previous 10 still weigh 9 (rounded down): one place
      at(60_001);
      expect(await hits(b, 's', 2)).toEqual([true, false]);
      // at 45 s, 10 × 0.25 = 2.5 → 2, and the 1 hit of this window: 7 places
      at(60_000 + 45_000);
      expect(await hits(b, 's', 8)).toEqual([...Array<boolean>(7).fill(true), false]);
      // two windows on, nothing weighs
      at(180_000);
      expect((await throttle.peek(b, 's')).allowed).toBe(true);
      expect(await hits(b, 's', 11)).toEqual([...Array<boolean>(10).fill(true), false]);
    });

    it('never gives more places than the budget has to concurrent hits', async () => {
      frozen(5_000);
      const b = budget(7);
      const verdicts = await Promise.all(Array.from({ length: 40 }, () => throttle.hit(b, 'race')));
      expect(verdicts.filter((v) => v.allowed)).toHaveLength(7);
    });

    it('counts on across a restart of the process', async () => {
      if (h.name === 'memory') return;
      frozen(6_000);
      const b = budget(2);
      expect(await hits(b, 'kept', 2)).toEqual([true, true]);
      const again = await h.reopen();
      expect((await again.hit(b, 'kept')).allowed).toBe(false);
      await again.close();
    });
  });
}
