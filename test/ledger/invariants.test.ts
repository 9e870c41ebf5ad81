/**
 * The ledger's invariants and hash chain on inline snapshots (docs/architecture.md, "Ledger"): a sound
 * snapshot passes, and each kind of damage is reported under the invariant it breaks (a balance that
 * does not match its postings, a running balance off, a global sum that is not zero, a duplicate source
 * ref, a transfer without its two postings, a posting without a transfer, a reordered, edited, relinked
 * or misfiled posting). The canonical posting string is pinned, since the Redis script builds the same.
 */
import { describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { canonicalPosting, postingHash, postingVerifies, type ChainFields } from '../../api/_lib/ledger/chain.js';
import { checkInvariants } from '../../api/_lib/ledger/invariants.js';
import { ISSUER_ACCOUNT_ID, type LedgerSnapshot, type Posting, type Transfer } from '../../api/_lib/ledger/types.js';

const A = 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa';
const B = 'bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb';

function chain(
  account: string,
  legs: { entryId: string; amount: number; ref: string; counterparty: string; kind?: Posting['kind']; reverses?: string }[],
): Posting[] {
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
      kind: l.kind ?? 'verify_send',
      purpose: l.kind === 'reversal' ? 'reversal' : 'verify',
      counterparty: l.counterparty,
      at: '2026-11-23T00:00:00.000Z',
      reverses: l.reverses ?? '',
      prev,
    };
    const hash = postingHash(fields);
    out.push({ ...fields, note: '', actor: '', hash });
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
    actor: '',
    balanceAfter,
    at: '2026-11-23T00:00:00.000Z',
    reverses: '',
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
    edited.accounts[1]!.postings[1] = { ...edited.accounts[1]!.postings[1]!, purpose: 'changed' };
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
    purpose: 'grant:abc|3:x',
    counterparty: ISSUER_ACCOUNT_ID,
    at: '2026-11-23T00:00:00.000Z',
    reverses: '',
    prev: 'ab'.repeat(20),
  };

  it('writes every field length-prefixed in a fixed order, integers in plain decimal, lengths in UTF-8 bytes', () => {
    expect(canonicalPosting({ ...fields, purpose: 'Zoë ☃\n|3:x', reverses: B })).toBe(
      [
        '17:ledger-posting-v2',
        '2:e1',
        `36:${A}`,
        '2:12',
        '4:-250',
        '16:9007199254740991',
        '15:verify-send:k|1',
        '11:admin_grant',
        '13:Zoë ☃\n|3:x',
        `36:${ISSUER_ACCOUNT_ID}`,
        '24:2026-11-23T00:00:00.000Z',
        `36:${B}`,
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
      counterparty: B,
      at: 'y',
      reverses: 'e0',
      prev: '',
      accountId: B,
    })) {
      expect(postingHash({ ...fields, [k]: v }), k).not.toBe(h);
    }
    // no two field splits give the same string
    expect(postingHash({ ...fields, purpose: 'grant:abc|1', reverses: '' })).not.toBe(
      postingHash({ ...fields, purpose: 'grant:abc', reverses: '1' }),
    );
  });

  it('keeps the note and the actor out of the hash: an erased note leaves the posting verifying', () => {
    const hash = postingHash(fields);
    const posting: Posting = { ...fields, note: 'Refund for Jane Doe', actor: 'admin:ops-7', hash };
    expect(postingVerifies(posting)).toBe(true);
    expect(postingVerifies({ ...posting, note: '', actor: '' })).toBe(true);
    expect(postingVerifies({ ...posting, amount: -249 })).toBe(false);
  });

  it('still verifies a posting of the first form, whose hash covered its note, and only with that note', () => {
    const v1 = [
      'ledger-posting-v1',
      'e1',
      A,
      '12',
      '-250',
      '9007199254740991',
      'verify-send:k|1',
      'admin_grant',
      'grant:abc|3:x',
      'old note',
    ]
      .concat([ISSUER_ACCOUNT_ID, '2026-11-23T00:00:00.000Z', 'ab'.repeat(20)])
      .map((v) => `${Buffer.byteLength(v)}:${v}`)
      .join('|');
    const hash = createHash('sha1').update(v1).digest('hex');
    const posting: Posting = { ...fields, note: 'old note', actor: '', hash };
    expect(postingVerifies(posting)).toBe(true);
    expect(postingVerifies({ ...posting, note: 'new note' })).toBe(false);
    // the first form had no reversal link: a posting that claims one verifies only as the second form
    expect(postingVerifies({ ...posting, reverses: B })).toBe(false);
  });
});

describe('reversals (invariant 5)', () => {
  /** A credit of 5 to A (e1), reversed by r1, and a credit of 3 to B (e2). */
  function reversed(): LedgerSnapshot & { transfers: Transfer[] } {
    const issuer = chain(ISSUER_ACCOUNT_ID, [
      { entryId: 'e1', amount: -5, ref: 'verify-send:k1', counterparty: A },
      { entryId: 'r1', amount: 5, ref: 'reversal:k9', counterparty: A, kind: 'reversal', reverses: 'e1' },
      { entryId: 'e2', amount: -3, ref: 'verify-send:k2', counterparty: B },
    ]);
    const a = chain(A, [
      { entryId: 'e1', amount: 5, ref: 'verify-send:k1', counterparty: ISSUER_ACCOUNT_ID },
      { entryId: 'r1', amount: -5, ref: 'reversal:k9', counterparty: ISSUER_ACCOUNT_ID, kind: 'reversal', reverses: 'e1' },
    ]);
    const b = chain(B, [{ entryId: 'e2', amount: 3, ref: 'verify-send:k2', counterparty: ISSUER_ACCOUNT_ID }]);
    return {
      accounts: [
        { accountId: ISSUER_ACCOUNT_ID, balance: -3, postings: issuer },
        { accountId: A, balance: 0, postings: a },
        { accountId: B, balance: 3, postings: b },
      ],
      transfers: [
        { ...transfer('e1', 'verify-send:k1', A, 5, 5), reversedBy: 'r1' },
        { ...transfer('r1', 'reversal:k9', A, 5, 0), kind: 'reversal', purpose: 'reversal', reverses: 'e1' },
        transfer('e2', 'verify-send:k2', B, 3, 3),
      ],
    };
  }

  it('passes a reversal that mirrors its credit and is linked both ways', () => {
    expect(checkInvariants(reversed())).toEqual([]);
  });

  it('reports a reversal of another amount, of another account, of a reversal, or of nothing', () => {
    const only5 = (s: LedgerSnapshot) => checkInvariants(s).filter((v) => v.invariant === 5);
    for (const change of [{ amount: 4 }, { accountId: B }, { reverses: 'r1' }, { reverses: 'nope' }]) {
      const s = reversed();
      s.transfers[1] = { ...s.transfers[1]!, ...change };
      expect(
        only5(s).map((v) => v.message),
        JSON.stringify(change),
      ).toEqual([
        'Reversal reversal:k9 does not mirror a credit of ' + s.transfers[1].amount + ' to account ' + s.transfers[1].accountId + '.',
        // a reversal that names another entry leaves its credit's back link pointing at nothing
        ...(change.reverses === undefined ? [] : ['Entry e1 names r1 as its reversal, which does not reverse it.']),
      ]);
    }
  });

  it('reports an entry reversed twice, a missing or wrong back link, and a credit that claims to reverse', () => {
    const twice = reversed();
    twice.transfers.push({ ...twice.transfers[1]!, entryId: 'r2', sourceRef: 'reversal:k8' });
    expect(checkInvariants(twice).some((v) => v.invariant === 5 && v.message === 'Entry e1 is reversed more than once.')).toBe(true);
    const unlinked = reversed();
    unlinked.transfers[0] = transfer('e1', 'verify-send:k1', A, 5, 5);
    expect(checkInvariants(unlinked).map((v) => v.message)).toEqual(['Entry e1 does not link to its reversal r1.']);
    const claims = reversed();
    claims.transfers[2] = { ...claims.transfers[2]!, reverses: 'e1' };
    expect(checkInvariants(claims).map((v) => v.message)).toEqual(['Transfer verify-send:k2 is not a reversal but names e1.']);
  });

  it('names the debit and the issuer credit a reversal of wrong postings lacks', () => {
    const s = reversed();
    s.transfers[1] = { ...s.transfers[1]!, amount: 6 };
    expect(checkInvariants(s).filter((v) => v.invariant === 3)).toEqual([
      { invariant: 3, message: 'Transfer reversal:k9 has 2 posting(s), not one debit of 6 and one issuer credit.' },
    ]);
  });

  it('reports a back link naming an entry that does not exist', () => {
    const s = reversed();
    s.transfers[2] = { ...s.transfers[2]!, reversedBy: 'ghost' };
    expect(checkInvariants(s)).toEqual([{ invariant: 5, message: 'Entry e2 names ghost as its reversal, which does not reverse it.' }]);
  });

  it("checks a reversal's postings run from the account back to the issuer", () => {
    const s = reversed();
    // the reversal recorded as a second credit: the account gains instead of giving back
    s.transfers[1] = { ...s.transfers[1]!, kind: 'verify_send' };
    expect(checkInvariants(s).some((v) => v.invariant === 3 && v.message.startsWith('Transfer reversal:k9 has 2 posting(s)'))).toBe(true);
  });
});
