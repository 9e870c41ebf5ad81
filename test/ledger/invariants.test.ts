/**
 * The ledger's invariants and hash chain on inline snapshots (docs/architecture.md, "Ledger"): a sound
 * snapshot passes, and each kind of damage is reported under the invariant it breaks (a balance that
 * does not match its postings, a running balance off, a global sum that is not zero, a duplicate source
 * ref, a transfer without its two postings, a posting without a transfer, a reordered, edited, relinked
 * or misfiled posting). The canonical posting string is pinned, since the Redis script builds the same.
 */
import { describe, expect, it } from 'vitest';
import { canonicalPosting, postingHash, type ChainFields } from '../../api/_lib/ledger/chain.js';
import { checkInvariants } from '../../api/_lib/ledger/invariants.js';
import { ISSUER_ACCOUNT_ID, type LedgerSnapshot, type Posting, type Transfer } from '../../api/_lib/ledger/types.js';

const A = 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa';
const B = 'bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb';

function chain(account: string, legs: { entryId: string; amount: number; ref: string; counterparty: string }[]): Posting[] {
  const out: Posting[] = [];
  let balance = 0;
  let prev = '';
  legs.forEach((l, i) => {
    balance += l.amount;
    const fields: ChainFields = {
      entryId: l.entryId,
      accountId: account,
      seq: i + 1,
      amount: l.amount,
      balanceAfter: balance,
      sourceRef: l.ref,
      kind: 'verify_send',
      purpose: 'verify',
      note: '',
      counterparty: l.counterparty,
      at: '2026-11-23T00:00:00.000Z',
      prev,
    };
    const hash = postingHash(fields);
    out.push({ ...fields, hash });
    prev = hash;
  });
  return out;
}

function transfer(entryId: string, ref: string, accountId: string, amount: number, balanceAfter: number): Transfer {
  return {
    entryId,
    sourceRef: ref,
    kind: 'verify_send',
    accountId,
    amount,
    purpose: 'verify',
    note: '',
    balanceAfter,
    at: '2026-11-23T00:00:00.000Z',
  };
}

/** Two credits to A (5, 7) and one to B (3). */
function sound(): { accounts: { accountId: string; balance: number; postings: Posting[] }[]; transfers: Transfer[] } {
  const issuer = chain(ISSUER_ACCOUNT_ID, [
    { entryId: 'e1', amount: -5, ref: 'verify-send:k1', counterparty: A },
    { entryId: 'e2', amount: -7, ref: 'verify-send:k2', counterparty: A },
    { entryId: 'e3', amount: -3, ref: 'verify-send:k3', counterparty: B },
  ]);
  const a = chain(A, [
    { entryId: 'e1', amount: 5, ref: 'verify-send:k1', counterparty: ISSUER_ACCOUNT_ID },
    { entryId: 'e2', amount: 7, ref: 'verify-send:k2', counterparty: ISSUER_ACCOUNT_ID },
  ]);
  const b = chain(B, [{ entryId: 'e3', amount: 3, ref: 'verify-send:k3', counterparty: ISSUER_ACCOUNT_ID }]);
  return {
    accounts: [
      { accountId: ISSUER_ACCOUNT_ID, balance: -15, postings: issuer },
      { accountId: A, balance: 12, postings: a },
      { accountId: B, balance: 3, postings: b },
    ],
    transfers: [
      transfer('e1', 'verify-send:k1', A, 5, 5),
      transfer('e2', 'verify-send:k2', A, 7, 12),
      transfer('e3', 'verify-send:k3', B, 3, 3),
    ],
  };
}

const broken = (s: LedgerSnapshot) => checkInvariants(s).map((v) => v.invariant);

describe('checkInvariants', () => {
  it('passes a sound ledger and an empty one', () => {
    expect(checkInvariants(sound())).toEqual([]);
    expect(checkInvariants({ accounts: [], transfers: [] })).toEqual([]);
  });

  it('1: a balance that is not the sum of its postings', () => {
    const s = sound();
    s.accounts[1]!.balance = 13;
    s.accounts[0]!.balance = -16;
    expect(broken(s)).toEqual([1, 1]);
    expect(checkInvariants(s)[1]!.message).toContain('balance 13, postings sum to 12');
  });

  it('1 and 4: a running balance that is off', () => {
    const s = sound();
    const p = s.accounts[1]!.postings[0]!;
    s.accounts[1]!.postings[0] = { ...p, balanceAfter: 6 };
    expect(broken(s).sort()).toEqual([1, 4]);
  });

  it('2: balances that do not sum to zero', () => {
    const s = sound();
    s.accounts[0] = { ...s.accounts[0]!, balance: -15 + 1, postings: s.accounts[0]!.postings };
    expect(broken(s)).toContain(2);
    expect(checkInvariants(s).find((v) => v.invariant === 2)!.message).toBe('The balances sum to 1, not 0.');
    const v = checkInvariants({
      accounts: [
        { accountId: A, balance: 0, postings: [] },
        { accountId: B, balance: 0, postings: [] },
      ],
      transfers: [],
    });
    expect(v).toEqual([]);
  });

  it('3: a source ref recorded twice, a transfer without postings, postings without a transfer, a leg of the wrong amount', () => {
    const dup = sound();
    dup.transfers.push(dup.transfers[0]!);
    expect(checkInvariants(dup).map((v) => v.message)).toContain('Source ref verify-send:k1 is recorded twice.');
    const orphanTransfer = sound();
    orphanTransfer.transfers.push(transfer('e9', 'verify-send:k9', A, 1, 13));
    expect(checkInvariants(orphanTransfer).map((v) => v.message)).toEqual([
      'Transfer verify-send:k9 has 0 posting(s), not one credit of 1 and one issuer debit.',
    ]);
    const orphanPostings = sound();
    orphanPostings.transfers.pop();
    expect(checkInvariants(orphanPostings).map((v) => v.message)).toEqual([
      'Entry e3 (verify-send:k3) has postings but no transfer under its source ref.',
    ]);
    const wrongAmount = sound();
    wrongAmount.transfers[2] = transfer('e3', 'verify-send:k3', B, 4, 4);
    expect(broken(wrongAmount)).toEqual([3]);
    const wrongAccount = sound();
    wrongAccount.transfers[2] = transfer('e3', 'verify-send:k3', A, 3, 3);
    expect(broken(wrongAccount)).toEqual([3]);
    const wrongRef = sound();
    wrongRef.transfers[2] = { ...transfer('e3', 'verify-send:k3', B, 3, 3), sourceRef: 'verify-send:other' };
    expect(broken(wrongRef)).toEqual([3]);
  });

  it('3: each leg of a transfer must be the issuer debit or the account credit of its amount and source ref', () => {
    const legMessages = (mutate: (s: ReturnType<typeof sound>) => void) => {
      const s = sound();
      mutate(s);
      return checkInvariants(s)
        .filter((v) => v.invariant === 3)
        .map((v) => v.message);
    };
    const k3 = ['Transfer verify-send:k3 has 2 posting(s), not one credit of 3 and one issuer debit.'];
    const bLeg = (s: ReturnType<typeof sound>, over: Partial<Posting>) =>
      (s.accounts[2]!.postings[0] = { ...s.accounts[2]!.postings[0]!, ...over });
    const issuerLeg = (s: ReturnType<typeof sound>, over: Partial<Posting>) =>
      (s.accounts[0]!.postings[2] = { ...s.accounts[0]!.postings[2]!, ...over });
    expect(legMessages((s) => bLeg(s, { amount: 4 }))).toEqual(k3);
    expect(legMessages((s) => bLeg(s, { sourceRef: 'verify-send:zz' }))).toEqual(k3);
    expect(legMessages((s) => issuerLeg(s, { amount: -4 }))).toEqual(k3);
    expect(legMessages((s) => issuerLeg(s, { sourceRef: 'verify-send:zz' }))).toEqual(k3);
    // the debit filed on another account than the issuer
    expect(
      legMessages((s) => {
        const leg = s.accounts[0]!.postings.pop()!;
        s.accounts[1]!.postings.push({ ...leg, accountId: A, seq: 3 });
      }),
    ).toEqual(k3);
    // a third leg with the same entry id
    expect(
      legMessages((s) => {
        s.accounts[2]!.postings.push({ ...s.accounts[2]!.postings[0]!, seq: 2, amount: 0 });
      }),
    ).toEqual(['Transfer verify-send:k3 has 3 posting(s), not one credit of 3 and one issuer debit.']);
  });

  it('4: an edited, relinked, reordered or misfiled posting', () => {
    const edited = sound();
    edited.accounts[1]!.postings[1] = { ...edited.accounts[1]!.postings[1]!, note: 'changed' };
    expect(broken(edited)).toEqual([4]);
    expect(checkInvariants(edited)[0]!.message).toBe(`Account ${A}: posting 2 does not match its hash.`);
    const relinked = sound();
    relinked.accounts[1]!.postings[1] = { ...relinked.accounts[1]!.postings[1]!, prev: 'f'.repeat(40) };
    expect(broken(relinked)).toEqual([4, 4]);
    expect(checkInvariants(relinked)[0]!.message).toBe(`Account ${A}: posting 2 does not link to the previous hash.`);
    const running = sound();
    running.accounts[2]!.postings[0] = { ...running.accounts[2]!.postings[0]!, balanceAfter: 4 };
    expect(checkInvariants(running).map((v) => v.message)).toContain(`Account ${B}: posting 1 records balance 4, the running sum is 3.`);
    const reordered = sound();
    reordered.accounts[1]!.postings.reverse();
    expect(broken(reordered)).toContain(4);
    const misfiled = sound();
    misfiled.accounts[2]!.postings[0] = { ...misfiled.accounts[2]!.postings[0]!, accountId: A };
    expect(checkInvariants(misfiled).some((v) => v.invariant === 4 && v.message.includes('is listed under account'))).toBe(true);
    const renumbered = sound();
    renumbered.accounts[2]!.postings[0] = { ...renumbered.accounts[2]!.postings[0]!, seq: 2 };
    expect(checkInvariants(renumbered).some((v) => v.message.includes('posting 1 has seq 2'))).toBe(true);
  });
});

describe('the posting chain', () => {
  const fields: ChainFields = {
    entryId: 'e1',
    accountId: A,
    seq: 12,
    amount: -250,
    balanceAfter: 9007199254740991,
    sourceRef: 'verify-send:k|1',
    kind: 'admin_grant',
    purpose: 'grant:abc',
    note: 'Zoë ☃\n|3:x',
    counterparty: ISSUER_ACCOUNT_ID,
    at: '2026-11-23T00:00:00.000Z',
    prev: 'ab'.repeat(20),
  };

  it('writes every field length-prefixed in a fixed order, integers in plain decimal, lengths in UTF-8 bytes', () => {
    expect(canonicalPosting(fields)).toBe(
      [
        '17:ledger-posting-v1',
        '2:e1',
        `36:${A}`,
        '2:12',
        '4:-250',
        '16:9007199254740991',
        '15:verify-send:k|1',
        '11:admin_grant',
        '9:grant:abc',
        '13:Zoë ☃\n|3:x',
        `36:${ISSUER_ACCOUNT_ID}`,
        '24:2026-11-23T00:00:00.000Z',
        `40:${'ab'.repeat(20)}`,
      ].join('|'),
    );
  });

  it('hashes with lower-case hex SHA-1, and any field change changes the hash', () => {
    const h = postingHash(fields);
    expect(h).toMatch(/^[0-9a-f]{40}$/);
    for (const [k, v] of Object.entries({
      entryId: 'e2',
      seq: 13,
      amount: -251,
      balanceAfter: 1,
      sourceRef: 'x',
      kind: 'verify_send',
      purpose: 'p',
      note: '',
      counterparty: B,
      at: 'y',
      prev: '',
      accountId: B,
    })) {
      expect(postingHash({ ...fields, [k]: v }), k).not.toBe(h);
    }
    // no two field splits give the same string
    expect(postingHash({ ...fields, purpose: 'grant:abc|1', note: '' })).not.toBe(
      postingHash({ ...fields, purpose: 'grant:abc', note: '1' }),
    );
  });
});
