/**
 * Store decoders (`api/_lib/ledger/decode.ts`): what the SQLite adapter (numbers, bigints, nulls) and the
 * Redis adapter (text) hand back reads as the same ledger shapes (spec 2.6, 4.8), and a missing member
 * reads as `''` or `NaN`, which the invariant check then reports.
 */
import { describe, expect, it } from 'vitest';
import { accountFrom, postingFrom, text, transferFrom } from '../../api/_lib/ledger/decode.js';

describe('text', () => {
  it('reads null and missing as empty, strings as they are, numbers and bigints as decimal text', () => {
    expect(text(null)).toBe('');
    expect(text(undefined)).toBe('');
    expect(text('STUDIO_1')).toBe('STUDIO_1');
    expect(text('')).toBe('');
    expect(text(42)).toBe('42');
    expect(text(0)).toBe('0');
    expect(text(9_007_199_254_740_993n)).toBe('9007199254740993');
  });
});

const account = {
  accountId: '3f1c2b8e-0000-4000-8000-000000000001',
  studioId: 'STUDIO_0123456789ABCDEF',
  displayName: 'Ada',
  userId: '3f1c2b8e-0000-4000-8000-000000000002',
  username: 'ada',
  createdAt: '2026-01-02T03:04:05.000Z',
};

describe('record decoders', () => {
  it('read an account member by member, and nothing else', () => {
    expect(accountFrom({ ...account, extra: 'x' })).toEqual(account);
    expect(accountFrom({})).toEqual({ accountId: '', studioId: '', displayName: '', userId: '', username: '', createdAt: '' });
  });

  it('read a transfer from Redis text and from SQLite numbers alike', () => {
    const stored = {
      entryId: 'e1',
      sourceRef: 'verify-send:k1',
      kind: 'verify_send',
      accountId: account.accountId,
      purpose: 'quest',
      note: 'n',
      actor: 'admin:ops',
      at: '2026-01-02T03:04:05.000Z',
      reverses: '',
    };
    const expected = { ...stored, amount: 25, balanceAfter: 125 };
    expect(transferFrom({ ...stored, amount: '25', balanceAfter: '125' })).toEqual(expected);
    expect(transferFrom({ ...stored, amount: 25, balanceAfter: 125n })).toEqual(expected);
    // a reversed transfer names its reversal; an empty link (SQLite's COALESCE) is no link
    expect(transferFrom({ ...stored, amount: 25, balanceAfter: 125, reversedBy: 'r1' })).toEqual({ ...expected, reversedBy: 'r1' });
    expect(transferFrom({ ...stored, amount: 25, balanceAfter: 125, reversedBy: '' })).toEqual(expected);
    const empty = transferFrom({});
    expect(empty.entryId).toBe('');
    expect(empty.kind).toBe('');
    expect(empty.amount).toBeNaN();
    expect(empty.balanceAfter).toBeNaN();
  });

  it('read a posting with its chain members', () => {
    const stored = {
      entryId: 'e1',
      accountId: account.accountId,
      sourceRef: 'verify-send:k1',
      kind: 'verify_send',
      purpose: 'quest',
      note: '',
      actor: '',
      counterparty: 'issuer',
      at: '2026-01-02T03:04:05.000Z',
      reverses: 'e0',
      prev: 'a'.repeat(40),
      hash: 'b'.repeat(40),
    };
    expect(postingFrom({ ...stored, seq: '3', amount: '-25', balanceAfter: '75' })).toEqual({
      ...stored,
      seq: 3,
      amount: -25,
      balanceAfter: 75,
    });
    expect(postingFrom({ ...stored, seq: 3n, amount: -25, balanceAfter: 75, note: null, reversedBy: 'r9' })).toEqual({
      ...stored,
      seq: 3,
      amount: -25,
      balanceAfter: 75,
      reversedBy: 'r9',
    });
    const empty = postingFrom({});
    expect(empty.seq).toBeNaN();
    expect(empty.hash).toBe('');
    expect(empty.prev).toBe('');
  });
});
