/**
 * The bag's invariants (spec 2.6, 2.8; `checkBagInvariants` in `api/_lib/player/bag.ts`), the check the
 * contract suites run after every step and `npm run ledger:verify` runs on a live store: each broken one
 * is reported with what it found, in any order of entries, and a sound bag reports nothing; a reversal
 * must mirror one grant of its stack and the links must agree both ways (docs/architecture.md, "Bag
 * reversals").
 */
import { describe, expect, it } from 'vitest';
import { checkBagInvariants } from '../../api/_lib/player/bag.js';
import type { BagRecord } from '../../api/_lib/player/types.js';

const A = 'acct-a';
const M = 'MATL-1';
const entry = (seq: number, delta: number, quantityAfter: number, over: Partial<BagRecord> = {}): BagRecord => ({
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
    // a stack used up to nothing is sound
    const spent = [entry(1, 4, 4), entry(2, -4, 0, { sourceRef: 'bag-consume:all' })];
    expect(checkBagInvariants({ quantities: [{ accountId: A, definitionId: M, quantity: 0 }], entries: spent })).toEqual([]);
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

  it('finds nothing in a reversal that mirrors its grant, linked both ways', () => {
    const entries = [
      entry(1, 5, 5, { reversedBy: 'bag-reversal:r1' }),
      entry(2, 3, 8),
      entry(3, -5, 3, { sourceRef: 'bag-reversal:r1', reverses: 'bag-grant:k1', note: 'why', actor: 'admin:OPS' }),
    ];
    expect(checkBagInvariants({ quantities: [{ accountId: A, definitionId: M, quantity: 3 }], entries })).toEqual([]);
  });

  it('reports every reversal that does not mirror its grant, and every link that does not agree both ways', () => {
    const other = { accountId: 'acct-b', sourceRef: 'bag-grant:b1' };
    const cases: [string, BagRecord[], string][] = [
      [
        'a reversal naming nothing',
        [entry(1, 5, 5), entry(2, -5, 0, { sourceRef: 'bag-reversal:r1' })],
        'bag-reversal:r1: a reversal that names no grant.',
      ],
      [
        'a grant naming a grant',
        [entry(1, 5, 5, { reversedBy: 'bag-grant:k2' }), entry(2, -5, 0, { reverses: 'bag-grant:k1' })],
        'bag-grant:k2: names a grant it reverses, but is no reversal.',
      ],
      [
        'a reversal of a consumption',
        [
          entry(1, 5, 5),
          entry(2, -2, 3, { sourceRef: 'bag-consume:c1', reversedBy: 'bag-reversal:r1' }),
          entry(3, 2, 5, { sourceRef: 'bag-reversal:r1', reverses: 'bag-consume:c1' }),
        ],
        'bag-reversal:r1: reverses bag-consume:c1, which is no grant.',
      ],
      [
        'a reversal of nothing held',
        [entry(1, -5, 0, { sourceRef: 'bag-reversal:r1', reverses: 'bag-grant:gone' })],
        'bag-reversal:r1: reverses bag-grant:gone, which is no grant.',
      ],
      [
        'a reversal of another amount',
        [entry(1, 5, 5, { reversedBy: 'bag-reversal:r1' }), entry(2, -4, 1, { sourceRef: 'bag-reversal:r1', reverses: 'bag-grant:k1' })],
        'bag-reversal:r1: does not mirror bag-grant:k1 (5 of its stack).',
      ],
      [
        'a reversal of another stack',
        [
          entry(1, 5, 5, { ...other, reversedBy: 'bag-reversal:r1' }),
          entry(1, -5, 0, { sourceRef: 'bag-reversal:r1', reverses: 'bag-grant:b1' }),
        ],
        'bag-reversal:r1: does not mirror bag-grant:b1 (5 of its stack).',
      ],
      [
        'a reversal of another definition',
        [
          entry(1, 5, 5, { reversedBy: 'bag-reversal:r1' }),
          entry(1, -5, 0, { definitionId: 'MATL-2', sourceRef: 'bag-reversal:r1', reverses: 'bag-grant:k1' }),
        ],
        'bag-reversal:r1: does not mirror bag-grant:k1 (5 of its stack).',
      ],
      [
        'a grant naming another reversal',
        [entry(1, 5, 5, { reversedBy: 'bag-reversal:r2' }), entry(2, -5, 0, { sourceRef: 'bag-reversal:r1', reverses: 'bag-grant:k1' })],
        'bag-reversal:r1: reverses bag-grant:k1, whose reversal is bag-reversal:r2.',
      ],
      [
        'a grant whose reversal is unlinked',
        [entry(1, 5, 5), entry(2, -5, 0, { sourceRef: 'bag-reversal:r1', reverses: 'bag-grant:k1' })],
        'bag-reversal:r1: reverses bag-grant:k1, whose reversal is none.',
      ],
      [
        'a grant whose reversal is missing',
        [entry(1, 5, 5, { reversedBy: 'bag-reversal:r9' })],
        'bag-grant:k1: its reversal bag-reversal:r9 does not name it.',
      ],
    ];
    for (const [what, entries, message] of cases) {
      const found = checkBagInvariants({ quantities: [], entries }).filter((v) => v.invariant === 'reversal-links');
      expect(
        found.map((v) => v.message),
        what,
      ).toContain(message);
    }
    // one grant reversed by two: the second's link disagrees
    const twice = [
      entry(1, 5, 5, { reversedBy: 'bag-reversal:r1' }),
      entry(2, -5, 0, { sourceRef: 'bag-reversal:r1', reverses: 'bag-grant:k1' }),
      entry(3, -5, -5, { sourceRef: 'bag-reversal:r2', reverses: 'bag-grant:k1' }),
    ];
    expect(checkBagInvariants({ quantities: [], entries: twice }).filter((v) => v.invariant === 'reversal-links')).toEqual([
      { invariant: 'reversal-links', message: 'bag-reversal:r2: reverses bag-grant:k1, whose reversal is bag-reversal:r1.' },
    ]);
  });
});
