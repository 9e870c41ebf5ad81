/**
 * The bag's invariants (spec 2.6, 2.8; `checkBagInvariants` in `api/_lib/player/bag.ts`), the check the
 * contract suites run after every step and `npm run ledger:verify` runs on a live store: each broken one
 * is reported with what it found, in any order of entries, and a sound bag reports nothing.
 */
import { describe, expect, it } from 'vitest';
import { checkBagInvariants } from '../../api/_lib/player/bag.js';
import type { BagEntry } from '../../api/_lib/player/types.js';

const A = 'acct-a';
const M = 'MATL-1';
const entry = (seq: number, delta: number, quantityAfter: number, over: Partial<BagEntry> = {}): BagEntry => ({
  accountId: A,
  definitionId: M,
  seq,
  delta,
  quantityAfter,
  sourceRef: `bag-grant:k${seq}`,
  at: '2026-11-23T10:00:00.000Z',
  ...over,
});

describe('checkBagInvariants', () => {
  it('finds nothing in a sound bag, whatever the order of its entries', () => {
    const entries = [entry(3, -2, 5), entry(1, 4, 4, { sourceRef: 'bag-grant:a' }), entry(2, 3, 7, { sourceRef: 'bag-consume:b' })];
    expect(checkBagInvariants({ quantities: [{ accountId: A, definitionId: M, quantity: 5 }], entries })).toEqual([]);
    expect(checkBagInvariants({ quantities: [], entries: [] })).toEqual([]);
  });

  it('reports each broken invariant with what it found', () => {
    const entries = [
      entry(1, 4, 4),
      entry(3, 1, 9),
      entry(4, -9, -4, { sourceRef: 'bag-grant:k1' }),
      entry(1, 2, 2, { accountId: 'acct-b', sourceRef: 'bag-grant:b1' }),
    ];
    expect(
      checkBagInvariants({
        quantities: [
          { accountId: A, definitionId: M, quantity: 7 },
          { accountId: A, definitionId: 'MATL-2', quantity: 1 },
        ],
        entries,
      }),
    ).toEqual([
      { invariant: 'source-ref-unique', message: 'bag-grant:k1 is recorded twice.' },
      { invariant: 'entries-contiguous', message: 'acct-a MATL-1: entry 2 has seq 3.' },
      { invariant: 'running-sum', message: 'acct-a MATL-1: entry 3 says 9, the running sum is 5.' },
      { invariant: 'entries-contiguous', message: 'acct-a MATL-1: entry 3 has seq 4.' },
      { invariant: 'running-sum', message: 'acct-a MATL-1: entry 4 says -4, the running sum is -4.' },
      { invariant: 'quantity-is-sum', message: 'acct-a MATL-1: quantity 7, entries sum to -4.' },
      { invariant: 'quantity-is-sum', message: 'acct-a MATL-2: quantity 1, entries sum to 0.' },
      { invariant: 'quantity-is-sum', message: 'acct-b MATL-1: entries without a quantity.' },
    ]);
  });
});
