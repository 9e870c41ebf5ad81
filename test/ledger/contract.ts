/**
 * The ledger store contract (docs/architecture.md, "Ledger"; spec 2.6, 2.8, 3, 4.8), a suite every ledger
 * adapter's test file runs with its own harness (`sqlite.contract.test.ts`, `redis.contract.test.ts`,
 * `redis-rest.contract.test.ts`): accounts (minting, both selectors, idempotent creation, taken usernames
 * and studio ids), credit once per source ref (replay, key reused, missing account), postings newest
 * first with filters and paging, the paged reads of the scheduled check (chain heads in id order, a chain
 * from a seq, the totals) and its record (a cursor replaced only while expected, bounded results),
 * a wallet paged by cursor while credits land (each page one snapshot, no entry skipped or repeated),
 * persistence across a restart, and the invariants after every step; then
 * a property-based model run (fast-check) of random operation sequences against a plain in-memory model.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { mintStudioId, mintUuid, MINTED_STUDIO_ID } from '../../api/_lib/ledger/ids.js';
import {
  ISSUER_ACCOUNT_ID,
  TRANSFER_KIND_NAMES,
  type Account,
  type CreditRequest,
  type LedgerStore,
  type TransferKindName,
} from '../../api/_lib/ledger/types.js';
import { walletPage } from '../../api/_lib/ledger/service.js';
import { ServiceError } from '../../api/_lib/errors.js';
import { expectSound, type LedgerHarness } from '../helpers/ledger.js';
import { addAccount, creditOf, newAccount } from '../helpers/ledger-ops.js';

/** What an adapter declares of itself to the suite (none so far: every ledger adapter passes every case). */
export type LedgerCapabilities = Readonly<Record<string, never>>;

/**
 * Run the ledger contract against the adapter `harness` makes.
 * @param harness a new harness (its backend started in the suite's `beforeAll`).
 */
export function ledgerContract(harness: () => LedgerHarness, _capabilities: LedgerCapabilities = {}): void {
  const h = harness();
  describe(`ledger store contract: ${h.name}`, () => {
    beforeAll(() => h.setup(), 30_000);
    afterAll(() => h.teardown());

    let store: LedgerStore;
    const fresh = async () => {
      store = await h.fresh();
      return store;
    };

    describe('accounts', () => {
      it('creates an account that both selectors resolve, with every field kept', async () => {
        const s = await fresh();
        const a = newAccount({ displayName: 'Zoë "1e3" ☃', username: 'steam:76561198000000001' });
        expect(await s.createAccount({ account: a, clientKey: undefined, fingerprint: 'f' })).toEqual({ status: 'created', account: a });
        expect(await s.findAccount({ studioId: a.studioId })).toEqual(a);
        expect(await s.findAccount({ accountId: a.accountId })).toEqual(a);
        expect(await s.findAccount({ accountId: a.accountId.toUpperCase() })).toEqual(a);
        expect(await s.findAccount({ studioId: mintStudioId() })).toBeUndefined();
        expect(await s.findAccount({ accountId: mintUuid() })).toBeUndefined();
        expect(await s.balance(a.accountId)).toBe(0);
        await s.close();
      });

      it('answers the first account for a client key sent again with the same fingerprint; 422 with another', async () => {
        const s = await fresh();
        const a = newAccount();
        await s.createAccount({ account: a, clientKey: 'create-0001', fingerprint: 'fp-1' });
        const again = await s.createAccount({ account: newAccount(), clientKey: 'create-0001', fingerprint: 'fp-1' });
        expect(again).toEqual({ status: 'replayed', account: a });
        expect(await s.createAccount({ account: newAccount(), clientKey: 'create-0001', fingerprint: 'fp-2' })).toEqual({
          status: 'key-reused',
        });
        await s.close();
      });

      it('refuses a username that is taken (409) and writes nothing for it', async () => {
        const s = await fresh();
        const a = newAccount({ username: 'ada' });
        await s.createAccount({ account: a, clientKey: undefined, fingerprint: 'f' });
        const b = newAccount({ username: 'ada' });
        expect(await s.createAccount({ account: b, clientKey: 'k-create-b', fingerprint: 'f' })).toEqual({ status: 'username-taken' });
        expect(await s.findAccount({ studioId: b.studioId })).toBeUndefined();
        // the key was not bound to anything: it can create another account
        const c = newAccount({ username: 'bea' });
        expect((await s.createAccount({ account: c, clientKey: 'k-create-b', fingerprint: 'f' })).status).toBe('created');
        await s.close();
      });

      it('refuses a studio id another account holds, the same way on every adapter, and binds nothing to the key', async () => {
        const s = await fresh();
        const a = newAccount();
        await s.createAccount({ account: a, clientKey: undefined, fingerprint: 'f' });
        const b = newAccount({ studioId: a.studioId });
        expect(await s.createAccount({ account: b, clientKey: 'studio-clash-1', fingerprint: 'f' })).toEqual({ status: 'studio-id-taken' });
        expect(await s.findAccount({ accountId: b.accountId })).toBeUndefined();
        expect(await s.findAccount({ studioId: a.studioId })).toEqual(a);
        // the key is free: the retry with a new studio id creates the account
        const c = newAccount({ username: b.username });
        expect(await s.createAccount({ account: c, clientKey: 'studio-clash-1', fingerprint: 'f' })).toEqual({
          status: 'created',
          account: c,
        });
        await s.close();
      });

      it('treats a retry of the very same creation as created once', async () => {
        const s = await fresh();
        const a = newAccount();
        await s.createAccount({ account: a, clientKey: undefined, fingerprint: 'f' });
        // the store finds its own account (a lost response retried) and does not refuse the username
        expect(await s.createAccount({ account: a, clientKey: undefined, fingerprint: 'f' })).toEqual({ status: 'created', account: a });
        expect(await s.findAccount({ accountId: a.accountId })).toEqual(a);
        await s.close();
      });

      it('mints studio ids of the documented form', () => {
        for (let i = 0; i < 50; i++) expect(mintStudioId()).toMatch(MINTED_STUDIO_ID);
        expect(mintStudioId(() => new Uint8Array(10))).toBe('STUDIO_0000000000000000');
        expect(mintStudioId(() => new Uint8Array(10).fill(255))).toBe('STUDIO_ZZZZZZZZZZZZZZZZ');
      });
    });

    describe('credit', () => {
      it('records a transfer on the balance and the postings in one step, double entry', async () => {
        const s = await fresh();
        const a = newAccount();
        await s.createAccount({ account: a, clientKey: undefined, fingerprint: 'f' });
        const c = creditOf(a, { amount: 25, note: 'first' });
        const out = await s.credit(c);
        expect(out).toEqual({
          status: 'created',
          transfer: {
            entryId: c.entryId,
            sourceRef: c.sourceRef,
            kind: 'verify_send',
            accountId: a.accountId,
            amount: 25,
            purpose: 'verify',
            note: 'first',
            actor: '',
            balanceAfter: 25,
            at: c.at,
            reverses: '',
          },
        });
        expect(await s.balance(a.accountId)).toBe(25);
        expect(await s.balance(ISSUER_ACCOUNT_ID)).toBe(-25);
        const page = await s.postings(a.accountId, { limit: 10, filter: {} });
        expect(page.nextBeforeSeq).toBeUndefined();
        expect(page.postings).toHaveLength(1);
        expect(page.postings[0]).toMatchObject({
          entryId: c.entryId,
          seq: 1,
          amount: 25,
          balanceAfter: 25,
          counterparty: ISSUER_ACCOUNT_ID,
          prev: '',
          sourceRef: c.sourceRef,
        });
        await expectSound(s);
        await s.close();
      });

      it('credits a source ref once: a replay answers the original, another payload is a conflict, nothing is written twice', async () => {
        const s = await fresh();
        const a = newAccount();
        const b = newAccount();
        await s.createAccount({ account: a, clientKey: undefined, fingerprint: 'f' });
        await s.createAccount({ account: b, clientKey: undefined, fingerprint: 'f' });
        const c = creditOf(a, { amount: 7 });
        const first = await s.credit(c);
        const replay = await s.credit({ ...c, entryId: mintUuid(), at: '2026-11-24T00:00:00.000Z', note: 'reworded' });
        expect(replay.status).toBe('replayed');
        if (replay.status === 'replayed' && first.status === 'created') expect(replay.transfer).toEqual(first.transfer);
        for (const other of [{ amount: 8 }, { purpose: 'test' }, { accountId: b.accountId }]) {
          const out = await s.credit(creditOf(a, { ...c, entryId: mintUuid(), fingerprint: undefined, ...other }));
          expect(out.status, JSON.stringify(other)).toBe('key-reused');
        }
        // the same call again (a retry after a lost answer) is this call's own record
        expect((await s.credit(c)).status).toBe('created');
        expect(await s.balance(a.accountId)).toBe(7);
        expect(await s.balance(b.accountId)).toBe(0);
        await expectSound(s);
        await s.close();
      });

      it('refuses a credit to an account that does not exist and writes nothing', async () => {
        const s = await fresh();
        const ghost = newAccount();
        expect(await s.credit(creditOf(ghost))).toEqual({ status: 'no-account' });
        expect((await s.snapshot()).transfers).toEqual([]);
        expect(await s.balance(ISSUER_ACCOUNT_ID)).toBe(0);
        await s.close();
      });

      it('keeps source-ref families apart: the same key as verify-send and as grant are two transfers', async () => {
        const s = await fresh();
        const a = newAccount();
        await s.createAccount({ account: a, clientKey: undefined, fingerprint: 'f' });
        await s.credit(creditOf(a, { sourceRef: 'verify-send:same-key-1' }));
        const g = await s.credit(creditOf(a, { sourceRef: 'admin-grant:same-key-1', kind: 'admin_grant', purpose: 'grant' }));
        expect(g.status).toBe('created');
        expect(await s.balance(a.accountId)).toBe(20);
        await expectSound(s);
        await s.close();
      });
    });

    describe('erasure', () => {
      it('erases once per key and keeps the account closed in the write itself: no ban replaces, no unban lifts its ban', async () => {
        const s = await fresh();
        const a = await addAccount(s, newAccount({ displayName: 'Jane Doe' }));
        const credit = await s.credit(creditOf(a, { note: 'for Jane Doe' }));
        const request = {
          accountId: a.accountId,
          key: 'erase-0001',
          fingerprint: 'e',
          at: 1_800_000_000,
          atIso: '2027-01-15T08:00:00.000Z',
        };
        const erased = await s.eraseAccount(request);
        expect(erased).toEqual({ status: 'created', account: { ...a, displayName: '', username: `erased:${a.studioId}` } });
        expect(await s.eraseAccount(request)).toEqual({
          status: 'replayed',
          account: { ...a, displayName: '', username: `erased:${a.studioId}` },
        });
        expect(await s.eraseAccount({ ...request, fingerprint: 'other' })).toEqual({ status: 'key-reused' });
        expect(await s.eraseAccount({ ...request, key: 'erase-0002', accountId: mintUuid() })).toEqual({ status: 'no-account' });
        expect(await s.access(a.accountId)).toEqual({
          sessionsRevokedAt: 1_800_000_000,
          ban: { reason: 'Account erased', at: '2027-01-15T08:00:00.000Z' },
        });
        for (const change of [
          { kind: 'unban' as const },
          { kind: 'ban' as const, at: 1_800_000_100, ban: { reason: 'x', at: 'y', until: 'z' } },
        ])
          expect(await s.changeAccess({ accountId: a.accountId, change, key: undefined, fingerprint: 'f' })).toEqual({ status: 'erased' });
        expect(
          (
            await s.changeAccess({
              accountId: a.accountId,
              change: { kind: 'revoke-sessions', at: 1_800_000_200 },
              key: undefined,
              fingerprint: 'f',
            })
          ).status,
        ).toBe('created');
        expect(await s.accountByUsername(a.username)).toBeUndefined();
        expect((await s.accountByUsername(`erased:${a.studioId}`))?.accountId).toBe(a.accountId);
        expect((await s.accountsByName('jane', { limit: 10 })).accounts).toEqual([]);
        if (credit.status !== 'created') throw new Error(credit.status);
        expect((await s.transfer(credit.transfer.entryId))?.note).toBe('');
        await expectSound(s);
        await s.close();
      });
    });

    describe('reversals', () => {
      const reversalOf = (e: { entryId: string; accountId: string; amount: number }, over: Partial<CreditRequest> = {}) =>
        creditOf(
          { accountId: e.accountId },
          {
            sourceRef: `reversal:rk-${mintUuid()}`,
            kind: 'reversal',
            purpose: 'reversal',
            amount: e.amount,
            reverses: e.entryId,
            note: 'granted 50 instead of 5',
            actor: 'admin:ops',
            fingerprint: `reverses-${e.entryId}`,
            ...over,
          },
        );

      it('moves the amount back to the issuer in one step, linked both ways, with its note and actor beside the chain', async () => {
        const s = await fresh();
        const a = await addAccount(s, newAccount());
        const grant = await s.credit(creditOf(a, { amount: 50, kind: 'admin_grant', purpose: 'grant', sourceRef: 'admin-grant:g-0001' }));
        await s.credit(creditOf(a, { amount: 7 }));
        if (grant.status !== 'created') throw new Error(grant.status);
        const r = reversalOf(grant.transfer);
        const out = await s.credit(r);
        expect(out).toEqual({
          status: 'created',
          transfer: {
            entryId: r.entryId,
            sourceRef: r.sourceRef,
            kind: 'reversal',
            accountId: a.accountId,
            amount: 50,
            purpose: 'reversal',
            note: 'granted 50 instead of 5',
            actor: 'admin:ops',
            balanceAfter: 7,
            at: r.at,
            reverses: grant.transfer.entryId,
          },
        });
        expect([await s.balance(a.accountId), await s.balance(ISSUER_ACCOUNT_ID)]).toEqual([7, -7]);
        expect(await s.transfer(grant.transfer.entryId)).toEqual({ ...grant.transfer, reversedBy: r.entryId });
        expect(await s.transfer(r.entryId.toUpperCase())).toEqual(out.status === 'created' ? out.transfer : undefined);
        expect(await s.transfer(mintUuid())).toBeUndefined();
        const page = await s.postings(a.accountId, { limit: 10, filter: {} });
        expect(page.postings.map((p) => [p.amount, p.balanceAfter, p.reverses, p.reversedBy ?? null, p.note, p.actor])).toEqual([
          [-50, 7, grant.transfer.entryId, null, 'granted 50 instead of 5', 'admin:ops'],
          [7, 57, '', null, '', ''],
          [50, 50, '', r.entryId, '', ''],
        ]);
        expect((await s.postings(a.accountId, { limit: 10, filter: { kind: 'reversal' } })).postings.map((p) => p.entryId)).toEqual([
          r.entryId,
        ]);
        await expectSound(s);
        await s.close();
      });

      it('reverses an entry at most once: a replay answers the first, another key names the first, a reversal is final', async () => {
        const s = await fresh();
        const a = await addAccount(s, newAccount());
        const credit = await s.credit(creditOf(a, { amount: 5 }));
        if (credit.status !== 'created') throw new Error(credit.status);
        const first = reversalOf(credit.transfer);
        const made = await s.credit(first);
        if (made.status !== 'created') throw new Error(made.status);
        expect(await s.credit({ ...first, entryId: mintUuid(), note: 'reworded' })).toEqual({
          status: 'replayed',
          transfer: made.transfer,
        });
        expect(await s.credit({ ...first, entryId: mintUuid(), fingerprint: 'another' })).toEqual({ status: 'key-reused' });
        expect(await s.credit(reversalOf(credit.transfer, { actor: 'admin:other' }))).toEqual({
          status: 'already-reversed',
          transfer: made.transfer,
        });
        // a reversal names only a credit of its account and amount
        expect((await s.credit(reversalOf(made.transfer))).status).toBe('no-entry');
        expect((await s.credit(reversalOf({ ...credit.transfer, amount: 4 }))).status).toBe('no-entry');
        const b = await addAccount(s, newAccount());
        expect((await s.credit(reversalOf({ ...credit.transfer, accountId: b.accountId }))).status).toBe('no-entry');
        expect((await s.credit(reversalOf({ ...credit.transfer, entryId: mintUuid() }))).status).toBe('no-entry');
        expect([await s.balance(a.accountId), await s.balance(b.accountId)]).toEqual([0, 0]);
        await expectSound(s);
        await s.close();
      });

      it('makes exactly one reversal of an entry out of many concurrent ones', async () => {
        const s = await fresh();
        const a = await addAccount(s, newAccount());
        const credit = await s.credit(creditOf(a, { amount: 40 }));
        if (credit.status !== 'created') throw new Error(credit.status);
        const outs = await Promise.all(Array.from({ length: 12 }, () => s.credit(reversalOf(credit.transfer))));
        const made = outs.filter((o) => o.status === 'created');
        expect(made).toHaveLength(1);
        expect(outs.filter((o) => o.status === 'already-reversed')).toHaveLength(11);
        expect(await s.balance(a.accountId)).toBe(0);
        await expectSound(s);
        await s.close();
      });
    });

    describe('postings', () => {
      it('lists newest first, pages with beforeSeq without gaps or repeats, and filters by kind and purpose', async () => {
        const s = await fresh();
        const a = newAccount();
        await s.createAccount({ account: a, clientKey: undefined, fingerprint: 'f' });
        const purposes = ['verify', 'test', 'verify', 'platform_verify', 'verify', 'test', 'verify'];
        for (const [i, purpose] of purposes.entries()) await s.credit(creditOf(a, { amount: i + 1, purpose }));
        await s.credit(creditOf(a, { amount: 100, kind: 'admin_grant', purpose: 'grant', sourceRef: 'admin-grant:g-000001' }));

        const seen: number[] = [];
        let before: number | undefined;
        do {
          const page = await s.postings(a.accountId, { beforeSeq: before, limit: 3, filter: {} });
          seen.push(...page.postings.map((p) => p.seq));
          before = page.nextBeforeSeq;
        } while (before !== undefined);
        expect(seen).toEqual([8, 7, 6, 5, 4, 3, 2, 1]);

        const verify = await s.postings(a.accountId, { limit: 2, filter: { purpose: 'verify' } });
        expect(verify.postings.map((p) => p.seq)).toEqual([7, 5]);
        expect(verify.nextBeforeSeq).toBe(5);
        const rest = await s.postings(a.accountId, { beforeSeq: 5, limit: 2, filter: { purpose: 'verify' } });
        expect(rest.postings.map((p) => p.seq)).toEqual([3, 1]);
        expect(rest.nextBeforeSeq).toBeUndefined();
        expect((await s.postings(a.accountId, { limit: 10, filter: { kind: 'admin_grant' } })).postings.map((p) => p.amount)).toEqual([
          100,
        ]);
        expect(
          (await s.postings(a.accountId, { limit: 10, filter: { kind: 'verify_send', purpose: 'test' } })).postings.map((p) => p.amount),
        ).toEqual([6, 2]);
        expect((await s.postings(a.accountId, { limit: 10, filter: { purpose: 'ledger_verify' } })).postings).toEqual([]);
        expect((await s.postings(mintUuid(), { limit: 10, filter: {} })).postings).toEqual([]);
        // exactly `limit` left: no next page
        const exact = await s.postings(a.accountId, { beforeSeq: 3, limit: 2, filter: {} });
        expect(exact.postings.map((p) => p.seq)).toEqual([2, 1]);
        expect(exact.nextBeforeSeq).toBeUndefined();
        await s.close();
      });
    });

    describe('paged reads and the scheduled check record', () => {
      it('lists chain heads in account-id order after a position, each head the last posting of its chain', async () => {
        const s = await fresh();
        const accounts = [newAccount(), newAccount(), newAccount(), newAccount()];
        for (const a of accounts) await s.createAccount({ account: a, clientKey: undefined, fingerprint: 'f' });
        // the fourth account has no postings: it is no ledger account
        for (const [i, a] of accounts.slice(0, 3).entries()) for (let k = 0; k <= i; k++) await s.credit(creditOf(a, { amount: 10 + k }));
        const ids = [ISSUER_ACCOUNT_ID, ...accounts.slice(0, 3).map((a) => a.accountId)].sort();
        const all = await s.ledgerAccounts({ limit: 1000 });
        expect(all.map((h) => h.accountId)).toEqual(ids);
        for (const h of all) {
          const [last] = (await s.postings(h.accountId, { limit: 1, filter: {} })).postings;
          expect(h).toEqual({ accountId: h.accountId, balance: last!.balanceAfter, seq: last!.seq, head: last!.hash });
        }
        const paged: string[] = [];
        let after: string | undefined;
        for (;;) {
          const page = await s.ledgerAccounts({ after, limit: 2 });
          if (page.length === 0) break;
          expect(page.length).toBeLessThanOrEqual(2);
          paged.push(...page.map((h) => h.accountId));
          after = page[page.length - 1]!.accountId;
        }
        expect(paged).toEqual(ids);
        expect(await s.ledgerAccounts({ after: ids[ids.length - 1], limit: 5 })).toEqual([]);
        // a position between two ids: the accounts above it
        expect((await s.ledgerAccounts({ after: ids[1]!.slice(0, 10), limit: 5 })).map((h) => h.accountId)).toEqual(ids.slice(1));
        await s.close();
      });

      it('reads a chain oldest first from a seq, as the newest-first listing holds it, and nothing past the head', async () => {
        const s = await fresh();
        const a = newAccount();
        await s.createAccount({ account: a, clientKey: undefined, fingerprint: 'f' });
        for (let i = 1; i <= 7; i++) await s.credit(creditOf(a, { amount: i, note: `n${i}` }));
        const newestFirst = (await s.postings(a.accountId, { limit: 100, filter: {} })).postings;
        expect(await s.chain(a.accountId, { fromSeq: 1, limit: 100 })).toEqual([...newestFirst].reverse());
        expect((await s.chain(a.accountId, { fromSeq: 3, limit: 2 })).map((p) => p.seq)).toEqual([3, 4]);
        expect((await s.chain(a.accountId, { fromSeq: 6, limit: 5 })).map((p) => p.seq)).toEqual([6, 7]);
        expect(await s.chain(a.accountId, { fromSeq: 8, limit: 5 })).toEqual([]);
        expect(await s.chain(mintUuid(), { fromSeq: 1, limit: 5 })).toEqual([]);
        expect((await s.chain(ISSUER_ACCOUNT_ID, { fromSeq: 7, limit: 5 })).map((p) => [p.seq, p.amount])).toEqual([[7, -7]]);
        await s.close();
      });

      it('reads the totals: one transfer and one issuer posting per credit', async () => {
        const s = await fresh();
        expect(await s.ledgerTotals()).toEqual({ transfers: 0, issuerSeq: 0 });
        const a = newAccount();
        await s.createAccount({ account: a, clientKey: undefined, fingerprint: 'f' });
        const first = creditOf(a, { amount: 5 });
        await s.credit(first);
        await s.credit(first);
        await s.credit(creditOf(a, { amount: 6 }));
        expect(await s.ledgerTotals()).toEqual({ transfers: 2, issuerSeq: 2 });
        await s.close();
      });

      it('keeps the cursor while it is the one expected, every result newest first, and the newest `keep` only', async () => {
        const s = await fresh();
        expect(await s.verification()).toEqual({ cursor: undefined, results: [] });
        expect(await s.recordVerification({ expect: undefined, cursor: '{"n":1}', result: 'r1', keep: 3 })).toBe('written');
        // another run started from no cursor too: its result is kept, its cursor is not
        expect(await s.recordVerification({ expect: undefined, cursor: '{"n":9}', result: 'r2', keep: 3 })).toBe('superseded');
        expect(await s.verification()).toEqual({ cursor: '{"n":1}', results: ['r2', 'r1'] });
        expect(await s.recordVerification({ expect: '{"n":1}', cursor: '{"n":2}', result: 'r3', keep: 3 })).toBe('written');
        expect(await s.recordVerification({ expect: '{"n":2}', cursor: '{"n":3}', result: 'r4', keep: 3 })).toBe('written');
        expect(await s.recordVerification({ expect: '{"n":2}', cursor: '{"n":4}', result: 'r5', keep: 3 })).toBe('superseded');
        expect(await s.verification()).toEqual({ cursor: '{"n":3}', results: ['r5', 'r4', 'r3'] });
        await s.close();
        const again = await h.reopen();
        expect(await again.verification()).toEqual({ cursor: '{"n":3}', results: ['r5', 'r4', 'r3'] });
        await again.close();
      });
    });

    it('settles a burst of concurrent writes each as if alone: credits, replays of one key, a conflict, a missing account, an overflow and account creations', async () => {
      const s = await fresh();
      const a = newAccount();
      const b = newAccount();
      await s.createAccount({ account: a, clientKey: undefined, fingerprint: 'f' });
      const nearMax = newAccount();
      await s.createAccount({ account: nearMax, clientKey: undefined, fingerprint: 'f' });
      // the issuer's balance is now -(MAX - 300): a credit of 301 overflows it in any order (to any account), 217 + 50 never
      await s.credit(creditOf(nearMax, { amount: Number.MAX_SAFE_INTEGER - 300 }));
      const shared = creditOf(a, { amount: 7, sourceRef: 'verify-send:burst-shared-key' });
      const outcomes = await Promise.allSettled([
        ...Array.from({ length: 20 }, (_, i) => s.credit(creditOf(a, { amount: i + 1 }))),
        ...Array.from({ length: 5 }, () => s.credit({ ...shared, entryId: mintUuid() })),
        s.credit(creditOf(a, { ...shared, entryId: mintUuid(), amount: 8, fingerprint: undefined })),
        s.credit(creditOf(newAccount())),
        s.credit(creditOf(nearMax, { amount: 301 })),
        s.credit(creditOf(a, { amount: 301 })),
        s.credit(creditOf(nearMax, { amount: 50 })),
        s.createAccount({ account: b, clientKey: 'burst-account-key', fingerprint: 'f' }),
        s.createAccount({ account: { ...newAccount(), username: a.username }, clientKey: undefined, fingerprint: 'f' }),
      ]);
      const status = (o: PromiseSettledResult<unknown>) =>
        o.status === 'fulfilled'
          ? ((o.value as { status?: string }).status ?? 'created')
          : o.reason instanceof ServiceError
            ? o.reason.code
            : String(o.reason);
      const seen = outcomes.map(status);
      expect(seen.slice(0, 20)).toEqual(Array(20).fill('created'));
      expect(seen.slice(20, 25).sort()).toEqual(['created', 'replayed', 'replayed', 'replayed', 'replayed']);
      expect(seen.slice(25)).toEqual(['key-reused', 'no-account', 'overflow', 'overflow', 'created', 'created', 'username-taken']);
      expect(await s.balance(a.accountId)).toBe(210 + 7);
      expect(await s.balance(nearMax.accountId)).toBe(Number.MAX_SAFE_INTEGER - 250);
      expect(await s.balance(ISSUER_ACCOUNT_ID)).toBe(-(Number.MAX_SAFE_INTEGER - 250) - 217);
      expect(await s.findAccount({ accountId: b.accountId })).toEqual(b);
      expect((await s.postings(a.accountId, { limit: 200, filter: {} })).postings).toHaveLength(21);
      await expectSound(s);
      await s.close();
    });

    describe('sessions and bans', () => {
      const ban = (reason: string, until?: string) => ({ reason, at: '2026-11-28T10:00:00.000Z', ...(until ? { until } : {}) });

      it('starts with neither a revocation nor a ban, and keeps each change once per key', async () => {
        const s = await fresh();
        const a = newAccount();
        await s.createAccount({ account: a, clientKey: undefined, fingerprint: 'f' });
        expect(await s.access(a.accountId)).toEqual({});
        const revoke = {
          accountId: a.accountId,
          change: { kind: 'revoke-sessions', at: 1_800_000_000 },
          key: 'revoke-0001',
          fingerprint: 'r1',
        } as const;
        expect(await s.changeAccess(revoke)).toEqual({ status: 'created', access: { sessionsRevokedAt: 1_800_000_000 } });
        expect(await s.changeAccess(revoke)).toEqual({ status: 'replayed', access: { sessionsRevokedAt: 1_800_000_000 } });
        expect(await s.changeAccess({ ...revoke, fingerprint: 'r2' })).toEqual({ status: 'key-reused' });
        // the record read alone: the same answers, nothing changed
        expect(await s.accessRecord('revoke-0001', 'r1')).toEqual({ status: 'replayed', access: { sessionsRevokedAt: 1_800_000_000 } });
        expect(await s.accessRecord('revoke-0001', 'r2')).toEqual({ status: 'key-reused' });
        expect(await s.accessRecord('revoke-0009', 'r1')).toBeUndefined();
        // a revocation time never moves back, whatever order revocations arrive in
        await s.changeAccess({ ...revoke, change: { kind: 'revoke-sessions', at: 1_700_000_000 }, key: undefined });
        expect(await s.access(a.accountId.toUpperCase())).toEqual({ sessionsRevokedAt: 1_800_000_000 });
        await s.changeAccess({ ...revoke, change: { kind: 'revoke-sessions', at: 1_800_000_001 }, key: undefined });
        expect((await s.access(a.accountId)).sessionsRevokedAt).toBe(1_800_000_001);
        expect(await s.access(mintUuid())).toEqual({});
        await s.close();
      });

      it('bans (revoking the sessions too), replaces a ban, lifts it, and refuses an unknown account', async () => {
        const s = await fresh();
        const a = newAccount();
        await s.createAccount({ account: a, clientKey: undefined, fingerprint: 'f' });
        const first = ban('spam, line 1\nline 2 ☃', '2026-12-01T00:00:00.000Z');
        expect(
          await s.changeAccess({
            accountId: a.accountId,
            change: { kind: 'ban', at: 1_800_000_000, ban: first },
            key: 'ban-0001',
            fingerprint: 'b1',
          }),
        ).toEqual({ status: 'created', access: { sessionsRevokedAt: 1_800_000_000, ban: first } });
        const forever = ban('for good');
        await s.changeAccess({
          accountId: a.accountId,
          change: { kind: 'ban', at: 1_700_000_000, ban: forever },
          key: 'ban-0002',
          fingerprint: 'b2',
        });
        expect(await s.access(a.accountId)).toEqual({ sessionsRevokedAt: 1_800_000_000, ban: forever });
        expect(await s.changeAccess({ accountId: a.accountId, change: { kind: 'unban' }, key: 'unban-001', fingerprint: 'u1' })).toEqual({
          status: 'created',
          access: { sessionsRevokedAt: 1_800_000_000 },
        });
        // a replayed ban does not ban again after the unban
        expect(
          (
            await s.changeAccess({
              accountId: a.accountId,
              change: { kind: 'ban', at: 1_800_000_000, ban: first },
              key: 'ban-0001',
              fingerprint: 'b1',
            })
          ).status,
        ).toBe('replayed');
        expect((await s.access(a.accountId)).ban).toBeUndefined();
        expect(await s.changeAccess({ accountId: mintUuid(), change: { kind: 'unban' }, key: 'unban-002', fingerprint: 'u2' })).toEqual({
          status: 'no-account',
        });
        // a refused change records no key: the same key for a known account applies
        expect(
          (await s.changeAccess({ accountId: a.accountId, change: { kind: 'unban' }, key: 'unban-002', fingerprint: 'u2' })).status,
        ).toBe('created');
        await s.close();
        const again = await h.reopen();
        expect(await again.access(a.accountId)).toEqual({ sessionsRevokedAt: 1_800_000_000 });
        await expectSound(again);
        await again.close();
      });
    });

    it('pages a wallet by cursor while credits land: each page one snapshot, its balance the sum of the entries up to it, no entry skipped or shown twice', async () => {
      const s = await fresh();
      const a = await addAccount(s, newAccount());
      let n = 0;
      // positive, distinct amounts: the running sums only grow, so a balance names exactly one snapshot
      const credit = () => {
        n++;
        const grant = n % 3 === 0;
        return s.credit(
          creditOf(a, {
            amount: n,
            purpose: n % 2 === 0 ? 'test' : 'verify',
            kind: grant ? 'admin_grant' : 'verify_send',
            sourceRef: `${grant ? 'admin-grant' : 'verify-send'}:page-${n}`,
          }),
        );
      };
      for (let i = 0; i < 25; i++) await credit();
      type Page = Awaited<ReturnType<typeof walletPage>>;
      const walks: { query: { kind?: TransferKindName; purpose?: string }; pages: Page[] }[] = [];
      /** Walk every page of one filter, a few entries at a time, from no cursor to the last. */
      const walk = async (query: { kind?: TransferKindName; purpose?: string }, limit: number) => {
        const pages: Page[] = [];
        let cursor: string | undefined;
        do {
          const page = await walletPage(s, a, { limit, ...query, ...(cursor === undefined ? {} : { cursor }) });
          pages.push(page);
          cursor = page.cursor ?? undefined;
        } while (cursor !== undefined);
        walks.push({ query, pages });
      };
      // 60 credits land one after another while twelve walks page through, taking turns with them; walk i
      // starts once 4·i of them have landed, so the walks begin at different snapshots
      const landed: (() => void)[] = [];
      const after = Array.from({ length: 61 }, (_, i) => (i === 0 ? Promise.resolve() : new Promise<void>((ok) => (landed[i] = ok))));
      const writer = (async () => {
        for (let i = 1; i <= 60; i++) {
          await credit();
          landed[i]!();
          await new Promise((ok) => setImmediate(ok));
        }
      })();
      const filters: { kind?: TransferKindName; purpose?: string }[] = [
        {},
        { purpose: 'test' },
        { kind: 'admin_grant_coin' },
        { kind: 'verify_send_to_account_wallet', purpose: 'verify' },
      ];
      const runs = [1, 3, 7].flatMap((limit) => filters.map((f) => ({ limit, f })));
      await Promise.all([writer, ...runs.map(async ({ limit, f }, i) => (await after[4 * i], walk(f, limit)))]);

      const all = (await s.postings(a.accountId, { limit: 200, filter: {} })).postings.slice().reverse();
      expect(all.map((p) => p.seq)).toEqual(all.map((_, i) => i + 1));
      /** The seq whose running sum is `balance` (0 before the first entry); undefined when no prefix sums to it. */
      const sums = new Map<number, number>([[0, 0]]);
      let running = 0;
      for (const p of all) sums.set((running += p.amount), p.seq);
      const matches = (q: { kind?: TransferKindName; purpose?: string }, p: (typeof all)[number]) =>
        (q.kind === undefined || TRANSFER_KIND_NAMES[p.kind] === q.kind) && (q.purpose === undefined || p.purpose === q.purpose);
      // the credits did land among the walks: their first pages saw different snapshots
      expect(new Set(walks.map((w) => w.pages[0]!.balance)).size).toBeGreaterThan(1);
      for (const { query, pages } of walks) {
        const what = JSON.stringify(query);
        for (const page of pages) {
          const snapshot = sums.get(page.balance);
          expect(snapshot, `${what}: the balance ${page.balance} is the sum of the entries up to one of them`).toBeDefined();
          // the page holds nothing newer than its snapshot, and every entry is as stored
          for (const t of page.transactions) {
            expect(t.seq, what).toBeLessThanOrEqual(snapshot!);
            expect(t.balanceAfter, what).toBe(all[t.seq - 1]!.balanceAfter);
          }
        }
        // the walk: newest first, every entry of the filter up to the first page's snapshot, once each
        const seen = pages.flatMap((p) => p.transactions.map((t) => t.seq));
        const first = sums.get(pages[0]!.balance)!;
        expect(seen, what).toEqual(
          all
            .filter((p) => p.seq <= first && matches(query, p))
            .map((p) => p.seq)
            .reverse(),
        );
      }
      await expectSound(s);
      await s.close();
    });

    it('keeps accounts, balances and chains across a restart', async () => {
      const s = await fresh();
      const a = newAccount();
      await s.createAccount({ account: a, clientKey: 'restart-key-1', fingerprint: 'f' });
      const c = creditOf(a, { amount: 42 });
      await s.credit(c);
      await s.close();
      const again = await h.reopen();
      expect(await again.findAccount({ studioId: a.studioId })).toEqual(a);
      expect(await again.balance(a.accountId)).toBe(42);
      expect((await again.credit({ ...c, entryId: mintUuid() })).status).toBe('replayed');
      await again.credit(creditOf(a, { amount: 1 }));
      await expectSound(again);
      await again.close();
    });

    it('holds the invariants and the model over random sequences of account creations, credits, reversals, access changes, replays, conflicts and pages (fast-check)', async () => {
      type Op =
        | { t: 'account'; key: number | null; name: number; user: number }
        | { t: 'credit'; acct: number; key: number; amount: number; purpose: number; grant: boolean }
        | { t: 'reverse'; entry: number; key: number; wrongAmount: boolean }
        | { t: 'access'; acct: number; key: number; kind: 'revoke-sessions' | 'ban' | 'unban'; at: number }
        | { t: 'erase'; acct: number; key: number }
        | { t: 'page'; acct: number; limit: number; purpose: number | null };
      const op: fc.Arbitrary<Op> = fc.oneof(
        { arbitrary: fc.record({ t: fc.constant('erase' as const), acct: fc.nat(3), key: fc.nat(2) }), weight: 1 },
        {
          arbitrary: fc.record({ t: fc.constant('reverse' as const), entry: fc.nat(8), key: fc.nat(4), wrongAmount: fc.boolean() }),
          weight: 2,
        },
        {
          arbitrary: fc.record({
            t: fc.constant('access' as const),
            acct: fc.nat(3),
            key: fc.nat(4),
            kind: fc.constantFrom('revoke-sessions' as const, 'ban' as const, 'unban' as const),
            at: fc.integer({ min: 1_800_000_000, max: 1_800_000_005 }),
          }),
          weight: 1,
        },
        {
          arbitrary: fc.record({ t: fc.constant('account' as const), key: fc.option(fc.nat(3)), name: fc.nat(1), user: fc.nat(5) }),
          weight: 2,
        },
        {
          arbitrary: fc.record({
            t: fc.constant('credit' as const),
            acct: fc.nat(3),
            key: fc.nat(6),
            amount: fc.integer({ min: 1, max: 1000 }),
            purpose: fc.nat(1),
            grant: fc.boolean(),
          }),
          weight: 4,
        },
        {
          arbitrary: fc.record({
            t: fc.constant('page' as const),
            acct: fc.nat(3),
            limit: fc.integer({ min: 1, max: 4 }),
            purpose: fc.option(fc.nat(1)),
          }),
          weight: 1,
        },
      );
      const PURPOSES = ['verify', 'test'];
      await fc.assert(
        fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 25 }), async (ops) => {
          const s = await h.fresh();
          try {
            const accounts: Account[] = [];
            const keys = new Map<string, { accountId: string; fingerprint: string }>();
            const usernames = new Set<string>();
            const refs = new Map<string, { acct: string; amount: number; purpose: string }>();
            const balances = new Map<string, number>();
            const history = new Map<string, { amount: number; purpose: string }[]>();
            const entries: { entryId: string; acct: string; amount: number }[] = [];
            const reversedBy = new Map<string, string>();
            const reversalKeys = new Map<string, string>();
            const accessKeys = new Map<string, string>();
            const eraseKeys = new Map<string, string>();
            const erased = new Set<string>();
            const access = new Map<string, { revoked?: number; banned: boolean }>();
            for (const o of ops) {
              if (o.t === 'account') {
                // a client key from a small pool, a payload fingerprint of two kinds, usernames that collide
                const a = newAccount({ username: `model-user-${o.user}`, displayName: `Model ${o.user}` });
                const clientKey = o.key === null ? undefined : `model-key-${o.key}`;
                const fingerprint = `fp-${o.name}-${o.user}`;
                const prior = clientKey === undefined ? undefined : keys.get(clientKey);
                let outcome: string;
                try {
                  const out = await s.createAccount({ account: a, clientKey, fingerprint });
                  outcome = out.status === 'replayed' ? `replayed:${out.account.accountId}` : out.status;
                } catch (e) {
                  outcome = (e as { code?: string }).code ?? 'error';
                }
                if (prior) expect(outcome).toBe(prior.fingerprint === fingerprint ? `replayed:${prior.accountId}` : 'key-reused');
                else if (usernames.has(a.username)) expect(outcome).toBe('username-taken');
                else {
                  expect(outcome).toBe('created');
                  usernames.add(a.username);
                  if (clientKey !== undefined) keys.set(clientKey, { accountId: a.accountId, fingerprint });
                  accounts.push(a);
                  balances.set(a.accountId, 0);
                  history.set(a.accountId, []);
                }
              } else if (o.t === 'credit') {
                const a = accounts[o.acct];
                const acctId = a?.accountId ?? '11111111-1111-4111-8111-111111111111';
                const kind = o.grant ? 'admin_grant' : 'verify_send';
                const ref = `${o.grant ? 'admin-grant' : 'verify-send'}:key-${o.key}`;
                const purpose = o.grant ? 'grant' : PURPOSES[o.purpose]!;
                const out = await s.credit(creditOf({ accountId: acctId }, { sourceRef: ref, kind, amount: o.amount, purpose }));
                const prior = refs.get(ref);
                if (prior) {
                  const same = prior.acct === acctId && prior.amount === o.amount && prior.purpose === purpose;
                  expect(out.status).toBe(same ? 'replayed' : 'key-reused');
                } else if (!a) {
                  expect(out.status).toBe('no-account');
                } else {
                  expect(out.status).toBe('created');
                  refs.set(ref, { acct: acctId, amount: o.amount, purpose });
                  balances.set(acctId, balances.get(acctId)! + o.amount);
                  history.get(acctId)!.push({ amount: o.amount, purpose });
                  if (out.status === 'created') entries.push({ entryId: out.transfer.entryId, acct: acctId, amount: o.amount });
                }
              } else if (o.t === 'reverse') {
                const e = entries[o.entry % Math.max(1, entries.length)];
                if (!e) continue;
                const ref = `reversal:rk-${o.key}`;
                const amount = o.wrongAmount ? e.amount + 1 : e.amount;
                const fingerprint = `reverses-${e.entryId}-${amount}`;
                const out = await s.credit(
                  creditOf(
                    { accountId: e.acct },
                    { sourceRef: ref, kind: 'reversal', purpose: 'reversal', amount, reverses: e.entryId, fingerprint },
                  ),
                );
                const prior = reversalKeys.get(ref);
                const balance = balances.get(e.acct)!;
                if (prior !== undefined) expect(out.status).toBe(prior === fingerprint ? 'replayed' : 'key-reused');
                else if (o.wrongAmount) expect(out.status).toBe('no-entry');
                else if (reversedBy.has(e.entryId)) {
                  expect(out).toMatchObject({
                    status: 'already-reversed',
                    transfer: { entryId: reversedBy.get(e.entryId), reverses: e.entryId },
                  });
                } else if (balance < e.amount) expect(out).toEqual({ status: 'insufficient', balance });
                else {
                  expect(out.status).toBe('created');
                  if (out.status !== 'created') continue;
                  reversalKeys.set(ref, fingerprint);
                  reversedBy.set(e.entryId, out.transfer.entryId);
                  balances.set(e.acct, balance - e.amount);
                  history.get(e.acct)!.push({ amount: -e.amount, purpose: 'reversal' });
                  expect((await s.transfer(e.entryId))?.reversedBy).toBe(out.transfer.entryId);
                }
              } else if (o.t === 'erase') {
                const a = accounts[o.acct];
                const accountId = a?.accountId ?? '11111111-1111-4111-8111-111111111111';
                const key = `erase-key-${o.key}`;
                const fingerprint = `erase-${accountId}`;
                const out = await s.eraseAccount({ accountId, key, fingerprint, at: 1_800_000_010, atIso: '2027-01-15T08:00:10.000Z' });
                const prior = eraseKeys.get(key);
                if (prior !== undefined) expect(out.status).toBe(prior === fingerprint ? 'replayed' : 'key-reused');
                else if (!a) expect(out.status).toBe('no-account');
                else {
                  expect(out).toMatchObject({ status: 'created', account: { displayName: '', username: `erased:${a.studioId}` } });
                  eraseKeys.set(key, fingerprint);
                  usernames.delete(a.username);
                  const was = access.get(accountId);
                  access.set(accountId, { revoked: Math.max(was?.revoked ?? 0, 1_800_000_010), banned: true });
                }
                if (a && eraseKeys.get(key) === fingerprint) {
                  erased.add(accountId);
                  const page = await s.postings(accountId, { limit: 1000, filter: {} });
                  expect(page.postings.every((p) => p.note === '')).toBe(true);
                }
                // the name search finds every account but the erased ones, in name then id order
                const byName = (await s.accountsByName('MODEL', { limit: 100 })).accounts.map((x) => x.accountId);
                expect(byName.sort()).toEqual(
                  accounts
                    .map((x) => x.accountId)
                    .filter((id) => !erased.has(id))
                    .sort(),
                );
              } else if (o.t === 'access') {
                const a = accounts[o.acct];
                const accountId = a?.accountId ?? '11111111-1111-4111-8111-111111111111';
                const key = `access-key-${o.key}`;
                const fingerprint = `${accountId}-${o.kind}`;
                const change =
                  o.kind === 'ban'
                    ? { kind: 'ban' as const, at: o.at, ban: { reason: 'model', at: new Date(o.at * 1000).toISOString() } }
                    : o.kind === 'unban'
                      ? { kind: 'unban' as const }
                      : { kind: 'revoke-sessions' as const, at: o.at };
                const out = await s.changeAccess({ accountId, change, key, fingerprint });
                const prior = accessKeys.get(key);
                if (prior !== undefined) expect(out.status).toBe(prior === fingerprint ? 'replayed' : 'key-reused');
                else if (!a) expect(out.status).toBe('no-account');
                else if (o.kind !== 'revoke-sessions' && erased.has(accountId)) expect(out.status).toBe('erased');
                else {
                  expect(out.status).toBe('created');
                  accessKeys.set(key, fingerprint);
                  const was = access.get(accountId) ?? { banned: false };
                  const revoked = o.kind === 'unban' ? was.revoked : Math.max(was.revoked ?? 0, o.at);
                  access.set(accountId, {
                    ...(revoked === undefined ? {} : { revoked }),
                    banned: o.kind === 'ban' || (o.kind !== 'unban' && was.banned),
                  });
                }
                for (const [id, want] of access) {
                  const got = await s.access(id);
                  expect({ revoked: got.sessionsRevokedAt, banned: got.ban !== undefined }).toEqual({
                    revoked: want.revoked,
                    banned: want.banned,
                  });
                }
              } else {
                const a = accounts[o.acct];
                if (!a) continue;
                const purpose = o.purpose === null ? undefined : PURPOSES[o.purpose];
                const expected = history
                  .get(a.accountId)!
                  .filter((x) => purpose === undefined || x.purpose === purpose)
                  .map((x) => x.amount)
                  .reverse();
                const got: number[] = [];
                let before: number | undefined;
                do {
                  const page = await s.postings(a.accountId, { beforeSeq: before, limit: o.limit, filter: { purpose } });
                  expect(page.postings.length).toBeLessThanOrEqual(o.limit);
                  got.push(...page.postings.map((p) => p.amount));
                  before = page.nextBeforeSeq;
                } while (before !== undefined);
                expect(got).toEqual(expected);
              }
              await expectSound(s);
            }
            for (const [id, bal] of balances) expect(await s.balance(id)).toBe(bal);
          } finally {
            await s.close();
          }
        }),
        { numRuns: 30, seed: 20261123 },
      );
    }, 120_000);
  });
}
