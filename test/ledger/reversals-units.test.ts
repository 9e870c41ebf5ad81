/**
 * Reversals (`api/_lib/ledger/reversals.ts`) called directly on a SQLite ledger in a temporary folder,
 * and on stand-ins of it for the store's rarer answers: the answer of a reversal and what it writes, the
 * entry id matched in any case, each refusal's code and message, and the replay of a key.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { UUID } from '../../api/_lib/ledger/ids.js';
import { reverseEntry } from '../../api/_lib/ledger/reversals.js';
import { createAccount, grantCoin } from '../../api/_lib/ledger/service.js';
import { openSqliteLedger } from '../../api/_lib/ledger/sqlite.js';
import type { CreditOutcome, CreditRequest } from '../../api/_lib/ledger/types.js';
import { requestFingerprint } from '../../api/_lib/stores/idempotency.js';
import { expectSound } from '../helpers/ledger.js';
import { refusal } from '../helpers/ledger-ops.js';
import { withMethods } from '../helpers/player.js';

const clock = () => new Date('2026-11-23T12:00:00.000Z');
const later = () => new Date('2026-11-24T08:30:00.000Z');

/** A SQLite ledger with one account granted 500 and then 120 coin. */
async function granted() {
  const store = await openSqliteLedger({ file: join(mkdtempSync(join(tmpdir(), 'ledger-reversals-')), 'ledger.sqlite') });
  const { account } = await createAccount(store, { displayName: 'Ada', username: 'ada' }, clock);
  const big = await grantCoin(store, { studioId: account.studioId, amount: 500, reason: 'outage', idempotencyKey: 'grant-big-01' }, clock);
  const small = await grantCoin(
    store,
    { studioId: account.studioId, amount: 120, reason: 'bonus', idempotencyKey: 'grant-small-01' },
    clock,
  );
  return { store, account, big, small };
}

describe('reverseEntry', () => {
  it('takes the credit back from the account, answers the reversal and writes it linked to the original', async () => {
    const { store, account, big } = await granted();
    const r = await reverseEntry(
      store,
      { entryId: big.entryId, reason: 'Granted 500 instead of 50', idempotencyKey: 'rev-01' },
      'admin:OPS',
      later,
    );
    expect(r.entryId).toMatch(UUID);
    expect(r.entryId).not.toBe(big.entryId);
    expect(r).toEqual({
      kind: 'reversal',
      idempotent: false,
      entryId: r.entryId,
      reverses: big.entryId,
      sourceRef: 'reversal:rev-01',
      account: { accountId: account.accountId, studioId: account.studioId, displayName: 'Ada' },
      amount: 500,
      reason: 'Granted 500 instead of 50',
      actor: 'admin:OPS',
      balance: 120,
      at: '2026-11-24T08:30:00.000Z',
    });
    expect(await store.transfer(r.entryId)).toMatchObject({
      entryId: r.entryId,
      kind: 'reversal',
      purpose: 'reversal',
      accountId: account.accountId,
      amount: 500,
      note: 'Granted 500 instead of 50',
      actor: 'admin:OPS',
      reverses: big.entryId,
      at: '2026-11-24T08:30:00.000Z',
    });
    expect((await store.transfer(big.entryId))?.reversedBy).toBe(r.entryId);
    expect(await store.balance(account.accountId)).toBe(120);
    await expectSound(store);
  });

  it('finds an entry id sent in upper case and answers it in lower case', async () => {
    const { store, big } = await granted();
    const r = await reverseEntry(
      store,
      { entryId: big.entryId.toUpperCase(), reason: 'x', idempotencyKey: 'rev-upper' },
      'admin:OPS',
      later,
    );
    expect([r.reverses, r.amount, r.balance]).toEqual([big.entryId, 500, 120]);
  });

  it('answers a replay of the key with the first reversal, its reason kept and idempotent set, and writes nothing more', async () => {
    const { store, account, big } = await granted();
    const first = await reverseEntry(store, { entryId: big.entryId, reason: 'first words', idempotencyKey: 'rev-02' }, 'admin:OPS', later);
    const again = await reverseEntry(store, { entryId: big.entryId, reason: 'reworded', idempotencyKey: 'rev-02' }, 'admin:OTHER', clock);
    expect(again).toEqual({ ...first, idempotent: true });
    expect(await store.balance(account.accountId)).toBe(120);
  });

  it('answers 422 to the key of one reversal sent again for another entry, and reverses nothing', async () => {
    const { store, account, big, small } = await granted();
    await reverseEntry(store, { entryId: big.entryId, reason: 'x', idempotencyKey: 'rev-03' }, 'admin:OPS', later);
    const e = await refusal(reverseEntry(store, { entryId: small.entryId, reason: 'x', idempotencyKey: 'rev-03' }, 'admin:OPS', later));
    expect([e.code, e.message]).toEqual([
      'IDEMPOTENCY_KEY_REUSED',
      'The idempotency key was used before to reverse another entry; nothing was reversed. Use a new key for a new reversal.',
    ]);
    expect((await store.transfer(small.entryId))?.reversedBy).toBeUndefined();
    expect(await store.balance(account.accountId)).toBe(120);
  });

  it('answers 409 to a second reversal, naming who reversed the entry first, when and by which reversal', async () => {
    const { store, big } = await granted();
    const first = await reverseEntry(store, { entryId: big.entryId, reason: 'x', idempotencyKey: 'rev-04' }, 'admin:OPS', later);
    const e = await refusal(reverseEntry(store, { entryId: big.entryId, reason: 'x', idempotencyKey: 'rev-05' }, 'admin:OTHER', clock));
    expect([e.code, e.message]).toEqual([
      'CONFLICT',
      `Entry ${big.entryId} was already reversed by admin:OPS at 2026-11-24T08:30:00.000Z (reversal ${first.entryId}).`,
    ]);
  });

  it('leaves out who reversed first when the first reversal has no actor', async () => {
    const { store, big } = await granted();
    const first = await reverseEntry(store, { entryId: big.entryId, reason: 'x', idempotencyKey: 'rev-06' }, '', later);
    const e = await refusal(reverseEntry(store, { entryId: big.entryId, reason: 'x', idempotencyKey: 'rev-07' }, 'admin:OPS', clock));
    expect(e.message).toBe(`Entry ${big.entryId} was already reversed at 2026-11-24T08:30:00.000Z (reversal ${first.entryId}).`);
  });

  it('answers 409 to reversing a reversal, which is final', async () => {
    const { store, big } = await granted();
    const first = await reverseEntry(store, { entryId: big.entryId, reason: 'x', idempotencyKey: 'rev-08' }, 'admin:OPS', later);
    const e = await refusal(reverseEntry(store, { entryId: first.entryId, reason: 'x', idempotencyKey: 'rev-09' }, 'admin:OPS', later));
    expect([e.code, e.message]).toEqual(['CONFLICT', `Entry ${first.entryId} is a reversal; a reversal is final.`]);
  });

  it('answers 404 to an entry id no entry has, and to one that is not a uuid without reading the store', async () => {
    const { store } = await granted();
    const unknown = await refusal(
      reverseEntry(store, { entryId: '0b0e9b5c-4a44-4c4e-9d7c-1c1d1e1f2a2b', reason: 'x', idempotencyKey: 'rev-10' }, 'admin:OPS'),
    );
    expect([unknown.code, unknown.message]).toEqual(['NOT_FOUND', 'No wallet entry has this entryId.']);
    const reads: string[] = [];
    const watched = withMethods(store, {
      transfer: (id: string) => {
        reads.push(id);
        return store.transfer(id);
      },
    });
    const bad = await refusal(reverseEntry(watched, { entryId: 'not-an-entry', reason: 'x', idempotencyKey: 'rev-11' }, 'admin:OPS'));
    expect([bad.code, bad.message, reads]).toEqual(['NOT_FOUND', 'No wallet entry has this entryId.', []]);
  });

  it('answers 404 when the account of the entry is gone, before writing or while writing', async () => {
    const { store, big } = await granted();
    const credits: CreditRequest[] = [];
    const noAccount = withMethods(store, {
      findAccount: () => Promise.resolve(undefined),
      credit: (r: CreditRequest) => {
        credits.push(r);
        return store.credit(r);
      },
    });
    const before = await refusal(reverseEntry(noAccount, { entryId: big.entryId, reason: 'x', idempotencyKey: 'rev-12' }, 'admin:OPS'));
    expect([before.code, before.message, credits]).toEqual(['NOT_FOUND', 'The account of this entry no longer exists.', []]);
    const vanished = withMethods(store, { credit: () => Promise.resolve<CreditOutcome>({ status: 'no-account' }) });
    const during = await refusal(reverseEntry(vanished, { entryId: big.entryId, reason: 'x', idempotencyKey: 'rev-13' }, 'admin:OPS'));
    expect([during.code, during.message]).toEqual(['NOT_FOUND', 'The account of this entry no longer exists.']);
  });

  it('asks the store for a reversal of the amount under the key, bound to the entry it reverses', async () => {
    const { store, account, big } = await granted();
    const credits: CreditRequest[] = [];
    const recording = withMethods(store, {
      credit: (r: CreditRequest) => {
        credits.push(r);
        return store.credit(r);
      },
    });
    await reverseEntry(recording, { entryId: big.entryId, reason: 'why', idempotencyKey: 'rev-14' }, 'admin:OPS', later);
    expect(credits).toEqual([
      {
        entryId: expect.stringMatching(UUID) as string,
        sourceRef: 'reversal:rev-14',
        kind: 'reversal',
        accountId: account.accountId,
        amount: 500,
        purpose: 'reversal',
        note: 'why',
        actor: 'admin:OPS',
        at: '2026-11-24T08:30:00.000Z',
        reverses: big.entryId,
        fingerprint: requestFingerprint({ reverses: big.entryId }),
      },
    ]);
  });

  it('answers 409 with the balance when the account holds less than the reversal takes back', async () => {
    const { store, big } = await granted();
    const poor = withMethods(store, { credit: () => Promise.resolve<CreditOutcome>({ status: 'insufficient', balance: 30 }) });
    const e = await refusal(reverseEntry(poor, { entryId: big.entryId, reason: 'x', idempotencyKey: 'rev-15' }, 'admin:OPS'));
    expect([e.code, e.message]).toEqual([
      'CONFLICT',
      'The account holds 30 coin, less than the 500 this reversal takes back; nothing was reversed.',
    ]);
  });

  it('answers 409 when the store can no longer reverse the entry', async () => {
    const { store, big } = await granted();
    for (const status of ['no-entry', 'overflow'] as const) {
      const odd = withMethods(store, { credit: () => Promise.resolve<CreditOutcome>({ status }) });
      const e = await refusal(reverseEntry(odd, { entryId: big.entryId, reason: 'x', idempotencyKey: 'rev-16' }, 'admin:OPS'));
      expect([e.code, e.message]).toEqual(['CONFLICT', `Entry ${big.entryId} cannot be reversed.`]);
    }
  });
});
