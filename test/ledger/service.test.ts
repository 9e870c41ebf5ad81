/**
 * The wallet operations (`api/_lib/ledger/service.ts`) and the replay rule (`outcome.ts`) on a SQLite
 * store in a temporary folder and on scripted stores: what each refusal says (a problem detail tells what
 * happened and what to do, spec 7), the selector rules, the idempotency of account creation (the
 * username is part of the payload), minting again after a studio-id collision, a credit whose account
 * vanished, and the overview cursor (bound to the account and every filter, well-formed, paging past
 * seq 9).
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ServiceError } from '../../api/_lib/errors.js';
import { refusal } from '../helpers/ledger-ops.js';
import { rfc3339Time } from '../../api/_lib/util/time.js';
import { openSqliteLedger } from '../../api/_lib/ledger/sqlite.js';
import { storedCredit } from '../../api/_lib/ledger/outcome.js';
import { CROCKFORD, MINTED_STUDIO_ID, STUDIO_ID, UUID, mintStudioId } from '../../api/_lib/ledger/ids.js';
import {
  createAccount,
  decodeCursor,
  encodeCursor,
  grantCoin,
  overview,
  resolveAccount,
  verifySend,
  accountOfToken,
  banAccount,
  logout,
  refusingSuspended,
  revokeSessions,
  unbanAccount,
} from '../../api/_lib/ledger/service.js';

import type { Account, CreateAccountOutcome, LedgerStore, NewAccount, Transfer } from '../../api/_lib/ledger/types.js';

/** A player's verified token for `studioId`, issued a second ago. */
const tokenOf = (studioId: string) =>
  ({ subject: studioId, role: 'player', guest: false, issuedAt: Math.floor(Date.now() / 1000) - 1, expiresAt: 2 ** 31 }) as const;

/** A SQLite ledger in a new temporary folder. */
const tempLedger = () => openSqliteLedger({ file: join(mkdtempSync(join(tmpdir(), 'ledger-service-')), 'ledger.sqlite') });

const clock = () => new Date('2026-11-23T12:00:00.000Z');

async function storeWithAccount(): Promise<{ store: LedgerStore; account: Account }> {
  const store = await tempLedger();
  const { account } = await createAccount(store, { displayName: 'Ada', username: 'ada' }, clock);
  return { store, account };
}

describe('selectors', () => {
  it('names the field and what to send for both or neither selector, and which id found nothing', async () => {
    const { store, account } = await storeWithAccount();
    const both = await refusal(resolveAccount(store, { studioId: account.studioId, accountId: account.accountId }));
    expect([both.code, both.message]).toEqual(['INVALID_BODY', 'Name the account by exactly one of studioId or accountId.']);
    expect(both.errors).toEqual([{ name: '/accountId', message: 'Send studioId or accountId, not both.' }]);
    const neither = await refusal(resolveAccount(store, {}));
    expect(neither.errors).toEqual([{ name: '/studioId', message: 'One of "studioId" or "accountId" is required.' }]);
    expect((await refusal(resolveAccount(store, { studioId: 'STUDIO_NONE' }))).message).toBe('No account has this studioId.');
    expect((await refusal(resolveAccount(store, { accountId: '11111111-1111-4111-8111-111111111111' }))).message).toBe(
      'No account has this accountId.',
    );
    expect(await resolveAccount(store, { accountId: account.accountId })).toEqual(account);
  });
});

describe('verify-send and grant', () => {
  it('refuses an amount above the maximum, naming the maximum and the variable', async () => {
    const { store, account } = await storeWithAccount();
    const e = await refusal(
      verifySend(store, { studioId: account.studioId, amount: 11, purpose: 'verify', idempotencyKey: 'key-00000001' }, 10, clock),
    );
    expect(e.message).toBe('The amount must be at most 10 (WALLET_VERIFY_SEND_MAX).');
    expect(e.errors).toEqual([{ name: '/amount', message: 'Must be an integer from 1 to 10.' }]);
  });

  it('answers with the time of the clock, the note kept, and says which fields a reused key compares', async () => {
    const { store, account } = await storeWithAccount();
    const a = await verifySend(
      store,
      { studioId: account.studioId, amount: 3, purpose: 'test', idempotencyKey: 'key-00000002', note: 'n' },
      10,
      clock,
    );
    expect(a).toMatchObject({
      at: '2026-11-23T12:00:00.000Z',
      note: 'n',
      purpose: 'test',
      sourceRef: 'verify-send:key-00000002',
      idempotent: false,
    });
    const noNote = await verifySend(
      store,
      { studioId: account.studioId, amount: 3, purpose: 'test', idempotencyKey: 'key-00000003' },
      10,
      clock,
    );
    expect(noNote.note).toBe('');
    const reused = await refusal(
      verifySend(store, { studioId: account.studioId, amount: 4, purpose: 'test', idempotencyKey: 'key-00000002' }, 10, clock),
    );
    expect(reused.message).toBe(
      'The idempotency key was used before with another account, amount or purpose; nothing was credited. Use a new key for a new credit.',
    );
    await grantCoin(store, { studioId: account.studioId, amount: 5, reason: 'r1', idempotencyKey: 'grant-0000001' }, clock);
    // a grant is stored with the purpose `grant`; its reason is part of the request's fingerprint
    const [stored] = (await store.postings(account.accountId, { limit: 1, filter: {} })).postings;
    expect([stored!.purpose, stored!.note]).toEqual(['grant', 'r1']);
    expect(
      (await grantCoin(store, { studioId: account.studioId, amount: 5, reason: 'r1', idempotencyKey: 'grant-0000001' }, clock)).idempotent,
    ).toBe(true);
    const g = await refusal(
      grantCoin(store, { studioId: account.studioId, amount: 5, reason: 'r2', idempotencyKey: 'grant-0000001' }, clock),
    );
    expect(g.message).toBe(
      'The idempotency key was used before with another account, amount or reason; nothing was credited. Use a new key for a new credit.',
    );
  });

  it('answers 404 when the account vanished between the lookup and the credit', async () => {
    const { store, account } = await storeWithAccount();
    const vanishing: LedgerStore = {
      ...store,
      driver: store.driver,
      findAccount: () => Promise.resolve(account),
      credit: () => Promise.resolve({ status: 'no-account' }),
    };
    const e = await refusal(
      verifySend(vanishing, { studioId: account.studioId, amount: 1, purpose: 'verify', idempotencyKey: 'key-00000004' }, 10, clock),
    );
    expect([e.code, e.message]).toEqual(['NOT_FOUND', 'The account no longer exists.']);
  });
});

describe('credit answers', () => {
  it('credit an amount equal to the maximum, and answer the credit whole with the account and its balance after', async () => {
    const { store, account } = await storeWithAccount();
    const a = await verifySend(
      store,
      { accountId: account.accountId, amount: 10, purpose: 'verify', idempotencyKey: 'whole-0001' },
      10,
      clock,
    );
    expect(a).toEqual({
      kind: 'verify_send_to_account_wallet',
      onChain: false,
      burn: false,
      idempotent: false,
      entryId: a.entryId,
      sourceRef: 'verify-send:whole-0001',
      account: { accountId: account.accountId, studioId: account.studioId, displayName: 'Ada' },
      amount: 10,
      purpose: 'verify',
      note: '',
      balance: 10,
      at: '2026-11-23T12:00:00.000Z',
    });
    expect(a.entryId).toMatch(UUID);
    const g = await grantCoin(store, { studioId: account.studioId, amount: 7, reason: 'event', idempotencyKey: 'whole-0002' }, clock);
    expect(g).toEqual({
      kind: 'admin_grant_coin',
      onChain: false,
      burn: false,
      idempotent: false,
      entryId: g.entryId,
      sourceRef: 'admin-grant:whole-0002',
      account: { accountId: account.accountId, studioId: account.studioId, displayName: 'Ada' },
      amount: 7,
      purpose: 'grant',
      note: 'event',
      balance: 17,
      at: '2026-11-23T12:00:00.000Z',
    });
    expect(g.entryId).not.toBe(a.entryId);
  });

  it('refuses a credit that would take the balance past the largest amount as a conflict', async () => {
    const { store, account } = await storeWithAccount();
    const full: LedgerStore = {
      ...store,
      driver: store.driver,
      findAccount: () => Promise.resolve(account),
      credit: () => Promise.resolve({ status: 'overflow' }),
    };
    const e = await refusal(grantCoin(full, { studioId: account.studioId, amount: 1, reason: 'r', idempotencyKey: 'full-0001' }, clock));
    expect([e.code, e.message]).toEqual(['CONFLICT', 'This credit would take a balance beyond the largest amount the ledger holds.']);
  });
});

describe('studio ids', () => {
  /** Crockford base32 of 80 bits, by big-integer division: an independent reference. */
  const reference = (bytes: Uint8Array) => {
    let n = 0n;
    for (const b of bytes) n = (n << 8n) | BigInt(b);
    let out = '';
    for (let i = 0; i < 16; i++) {
      out = CROCKFORD[Number(n & 31n)]! + out;
      n >>= 5n;
    }
    return `STUDIO_${out}`;
  };
  it('encode 80 random bits in Crockford base32, as a big-integer reference does', () => {
    const vectors = [
      Uint8Array.from([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]),
      Uint8Array.from([255, 0, 255, 0, 129, 66, 7, 200, 31, 224]),
      new Uint8Array(10).fill(0xa5),
    ];
    for (const v of vectors) expect(mintStudioId(() => v)).toBe(reference(v));
    expect(mintStudioId(() => vectors[0]!)).toBe('STUDIO_000G40R40M30E209');
  });
  it('match the documented patterns, and nothing around them', () => {
    expect(MINTED_STUDIO_ID.test('STUDIO_000G40R40M30E209')).toBe(true);
    for (const bad of ['xSTUDIO_000G40R40M30E209', 'STUDIO_000G40R40M30E209x', 'STUDIO_000G40R40M30E20I', 'STUDIO_0'])
      expect(MINTED_STUDIO_ID.test(bad), bad).toBe(false);
    expect(STUDIO_ID.test('STUDIO_a-b_C')).toBe(true);
    for (const bad of ['xSTUDIO_a', 'STUDIO_a!', 'STUDIO_', `STUDIO_${'a'.repeat(65)}`]) expect(STUDIO_ID.test(bad), bad).toBe(false);
    expect(UUID.test('AAAAAAAA-aaaa-4aaa-8aaa-aaaaaaaaaaaa')).toBe(true);
    for (const bad of [
      'xaaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa',
      'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaax',
      'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaa',
    ])
      expect(UUID.test(bad), bad).toBe(false);
  });
});

describe('storedCredit', () => {
  const stored: Transfer = {
    entryId: 'e1',
    sourceRef: 'verify-send:k',
    kind: 'verify_send',
    accountId: 'a',
    amount: 5,
    purpose: 'verify',
    note: '',
    actor: '',
    balanceAfter: 5,
    at: 't',
    reverses: '',
  };
  it("tells this call's own record from a replay of another", () => {
    expect(storedCredit(stored, { entryId: 'e1' })).toEqual({ status: 'created', transfer: stored });
    expect(storedCredit(stored, { entryId: 'e2' })).toEqual({ status: 'replayed', transfer: stored });
  });
});

describe('createAccount', () => {
  it('binds a creation key to the display name and the username', async () => {
    const store = await tempLedger();
    const first = await createAccount(store, { displayName: 'Bo', username: 'bo-1', idempotencyKey: 'create-bo-1' }, clock);
    expect(first.account.createdAt).toBe('2026-11-23T12:00:00.000Z');
    expect((await createAccount(store, { displayName: 'Bo', username: 'bo-1', idempotencyKey: 'create-bo-1' }, clock)).created).toBe(false);
    expect((await refusal(createAccount(store, { displayName: 'Bo', username: 'bo-2', idempotencyKey: 'create-bo-1' }, clock))).code).toBe(
      'IDEMPOTENCY_KEY_REUSED',
    );
    expect((await refusal(createAccount(store, { displayName: 'Bo', idempotencyKey: 'create-bo-1' }, clock))).code).toBe(
      'IDEMPOTENCY_KEY_REUSED',
    );
  });

  /** A store whose creations answer `outcome` `failures` times, then create. */
  function colliding(failures: number, outcome: CreateAccountOutcome = { status: 'studio-id-taken' }) {
    const attempts: NewAccount[] = [];
    const store = {
      driver: 'scripted',
      createAccount: (input: NewAccount): Promise<CreateAccountOutcome> => {
        attempts.push(input);
        return Promise.resolve(attempts.length <= failures ? outcome : { status: 'created', account: input.account });
      },
    } as unknown as LedgerStore;
    return { store, attempts };
  }

  it('mints new ids after a collision of the minted studio id, three times at most, a chosen username too', async () => {
    const ok = colliding(3);
    const out = await createAccount(ok.store, { displayName: 'C' }, clock);
    expect(ok.attempts).toHaveLength(4);
    expect(new Set(ok.attempts.map((a) => a.account.studioId)).size).toBe(4);
    expect(out.account.username).toBe(`studio:${out.account.studioId}`);
    const tooMany = colliding(4);
    expect(await refusal(createAccount(tooMany.store, { displayName: 'C' }, clock))).toMatchObject({
      code: 'CONFLICT',
      message: 'The minted studio id is taken; try again.',
    });
    expect(tooMany.attempts).toHaveLength(4);
    const chosen = colliding(1);
    expect((await createAccount(chosen.store, { displayName: 'C', username: 'cee' }, clock)).account.username).toBe('cee');
    expect(chosen.attempts).toHaveLength(2);
  });

  it('refuses a chosen username that is taken at once, naming it (cut at 100 characters); a default one is minted again', async () => {
    const chosen = colliding(1, { status: 'username-taken' });
    expect(await refusal(createAccount(chosen.store, { displayName: 'C', username: 'u'.repeat(140) }, clock))).toMatchObject({
      code: 'CONFLICT',
      message: `The username "${'u'.repeat(100)}" is taken.`,
    });
    expect(chosen.attempts).toHaveLength(1);
    const minted = colliding(2, { status: 'username-taken' });
    await createAccount(minted.store, { displayName: 'C' }, clock);
    expect(minted.attempts).toHaveLength(3);
  });

  it('words a reused key as 422 and passes a store failure through at once, never retried', async () => {
    const reused = colliding(1, { status: 'key-reused' });
    expect(await refusal(createAccount(reused.store, { displayName: 'C', idempotencyKey: 'key-0001' }, clock))).toMatchObject({
      code: 'IDEMPOTENCY_KEY_REUSED',
      message: 'This idempotency key already created an account with another display name or username; use a new key.',
    });
    expect(reused.attempts).toHaveLength(1);
    const failure = new ServiceError('UPSTREAM_UNAVAILABLE', 'down');
    let calls = 0;
    const down = {
      driver: 'x',
      createAccount: () => {
        calls++;
        return Promise.reject(failure);
      },
    } as unknown as LedgerStore;
    expect(await createAccount(down, { displayName: 'C' }, clock).catch((x: unknown) => x)).toBe(failure);
    expect(calls).toBe(1);
  });
});

describe('overview cursor', () => {
  const A = 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa';

  it('round-trips, and is refused for another account, another kind, another purpose, or any change of its text', () => {
    const c = encodeCursor(A, { kind: 'verify_send', purpose: 'test' }, 12);
    expect(decodeCursor(c, A, { kind: 'verify_send', purpose: 'test' })).toBe(12);
    const bad = (cursor: string, account = A, filter = { kind: 'verify_send' as const, purpose: 'test' }) => {
      try {
        decodeCursor(cursor, account, filter);
      } catch (e) {
        return e as ServiceError;
      }
      throw new Error(`accepted ${cursor}`);
    };
    expect(bad(c, 'bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb').message).toBe(
      'The cursor is not valid here: it was issued for another account or other filters. Start again without a cursor.',
    );
    expect(bad(c, A, { kind: 'admin_grant' as never, purpose: 'test' }).code).toBe('INVALID_QUERY');
    expect(bad(c, A, { kind: 'verify_send', purpose: 'verify' }).errors).toEqual([
      { name: 'cursor', message: 'it was issued for another account or other filters' },
    ]);
    const text = Buffer.from(c, 'base64url').toString('utf8');
    const enc = (s: string) => Buffer.from(s, 'utf8').toString('base64url');
    for (const t of [
      `${text}x`,
      `x${text}`,
      text.replace('v1.', 'v2.'),
      text.replace('.12.', '.012.'),
      text.replace('.12.', '.0.'),
      text.replace('.12.', '.1a.'),
    ]) {
      expect(bad(enc(t)).errors).toEqual([{ name: 'cursor', message: 'it is not a cursor of this API' }]);
    }
    expect(bad('not*base64').message).toBe('The cursor is not valid here: it is not a cursor of this API. Start again without a cursor.');
    expect(bad('A'.repeat(201)).code).toBe('INVALID_QUERY');
    expect(decodeCursor(encodeCursor(A, {}, 9_007_199_254_740_991), A, {})).toBe(9_007_199_254_740_991);
  });

  it('pages past seq 9, keeps kind filters apart, and answers an impossible filter with an empty last page', async () => {
    const { store, account } = await storeWithAccount();
    for (let i = 1; i <= 12; i++)
      await verifySend(
        store,
        { studioId: account.studioId, amount: i, purpose: 'verify', idempotencyKey: `page-key-${i}-000` },
        100,
        clock,
      );
    await grantCoin(store, { studioId: account.studioId, amount: 50, reason: 'r', idempotencyKey: 'page-grant-1' }, clock);
    const seen: number[] = [];
    let cursor: string | undefined;
    do {
      const page = await overview(store, tokenOf(account.studioId), { limit: 2, cursor }); // cursors 12, 10, …: two digits
      seen.push(...page.transactions.map((t) => t.amount));
      cursor = page.cursor ?? undefined;
    } while (cursor !== undefined);
    expect(seen).toEqual([50, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1]);
    const first = await overview(store, tokenOf(account.studioId), { limit: 2 });
    expect(first).toEqual({
      account: { accountId: account.accountId, studioId: account.studioId, displayName: 'Ada' },
      balance: 128,
      transactions: [
        {
          entryId: first.transactions[0]!.entryId,
          seq: 13,
          kind: 'admin_grant_coin',
          purpose: 'grant',
          amount: 50,
          balanceAfter: 128,
          sourceRef: 'admin-grant:page-grant-1',
          note: 'r',
          at: '2026-11-23T12:00:00.000Z',
        },
        {
          entryId: first.transactions[1]!.entryId,
          seq: 12,
          kind: 'verify_send_to_account_wallet',
          purpose: 'verify',
          amount: 12,
          balanceAfter: 78,
          sourceRef: 'verify-send:page-key-12-000',
          note: '',
          at: '2026-11-23T12:00:00.000Z',
        },
      ],
      cursor: encodeCursor(account.accountId, {}, 12),
      hasMore: true,
    });
    expect(first.transactions.map((t) => t.entryId)).toEqual([expect.stringMatching(UUID), expect.stringMatching(UUID)]);
    // the filter takes the kinds by the names the credits answer with, and the entries carry them too
    const vs = await overview(store, tokenOf(account.studioId), { limit: 100, kind: 'verify_send_to_account_wallet' });
    expect(vs.transactions).toHaveLength(12);
    expect(new Set(vs.transactions.map((t) => t.kind))).toEqual(new Set(['verify_send_to_account_wallet']));
    const grants = await overview(store, tokenOf(account.studioId), { limit: 100, kind: 'admin_grant_coin' });
    expect(grants.transactions.map((t) => [t.kind, t.amount])).toEqual([['admin_grant_coin', 50]]);
    const vsPage = await overview(store, tokenOf(account.studioId), { limit: 2, kind: 'verify_send_to_account_wallet' });
    expect(
      (await refusal(overview(store, tokenOf(account.studioId), { limit: 2, kind: 'admin_grant_coin', cursor: vsPage.cursor! }))).code,
    ).toBe('INVALID_QUERY');
    const none = await overview(store, tokenOf(account.studioId), { limit: 5, kind: 'verify_send_to_account_wallet', purpose: 'grant' });
    expect(none).toMatchObject({ transactions: [], cursor: null, hasMore: false, balance: 128 });
    expect((await refusal(overview(store, tokenOf('STUDIO_NOBODY'), { limit: 5 }))).message).toBe('No account belongs to this token.');
  });
});

describe('wallet page snapshot', () => {
  it('answers a balance that is the sum of its entries up to the newest, however credits land between its reads', async () => {
    const { store, account } = await storeWithAccount();
    let n = 0;
    const grant = (amount: number, purpose: 'test' | 'verify' = 'test') =>
      verifySend(store, { studioId: account.studioId, amount, purpose, idempotencyKey: `snap-${++n}-key` }, 1_000_000, clock);
    for (const a of [3, 4, 5]) await grant(a);
    await grant(7, 'verify');
    // a store that lets a credit land before every read but the first, and whose own balance read is stale
    let reads = 0;
    const racing: LedgerStore = Object.create(store, {
      balance: { value: () => Promise.resolve(-1) },
      postings: {
        value: async (id: string, options: Parameters<LedgerStore['postings']>[1]) => {
          if (reads++ > 0) await grant(100 + reads);
          return store.postings(id, options);
        },
      },
    }) as LedgerStore;
    const page = async (query: Parameters<typeof overview>[2]) => {
      reads = 0;
      return overview(racing, tokenOf(account.studioId), query);
    };
    // unfiltered first page: the newest posting's running sum, the page being every entry
    const first = await page({ limit: 50 });
    expect(first.balance).toBe(first.transactions.reduce((sum, t) => sum + t.amount, 0));
    expect(first.balance).toBe(3 + 4 + 5 + 7);
    // filtered: the page stops at the posting whose running sum is the balance, no newer credit shown
    const filtered = await page({ limit: 50, purpose: 'test' });
    const all = await overview(store, tokenOf(account.studioId), { limit: 200 });
    const newest = all.transactions.find((t) => t.balanceAfter === filtered.balance)!;
    expect(filtered.transactions.every((t) => t.seq <= newest.seq && t.purpose === 'test')).toBe(true);
    expect(filtered.transactions.map((t) => t.seq)).toEqual(
      all.transactions.filter((t) => t.seq <= newest.seq && t.purpose === 'test').map((t) => t.seq),
    );
    // a cursor's page: entries older than its cursor, the balance the newest's at the time of the read
    const firstTwo = await page({ limit: 2 });
    const second = await page({ limit: 2, cursor: firstTwo.cursor! });
    const now = await overview(store, tokenOf(account.studioId), { limit: 1 });
    expect(second.balance).toBeLessThan(now.balance);
    expect(second.transactions.every((t) => t.seq < firstTwo.transactions.at(-1)!.seq)).toBe(true);
    await store.close();
  });
});

describe('rfc3339Time', () => {
  it('reads an RFC 3339 date-time with its offset and fraction, and names no instant for an impossible one', () => {
    const read = (t: string) => rfc3339Time(t)?.toISOString();
    expect(read('2027-01-01T02:30:00+02:30')).toBe('2027-01-01T00:00:00.000Z');
    expect(read('2027-01-01T00:00:00-01:00')).toBe('2027-01-01T01:00:00.000Z');
    expect(read('2028-02-29T23:59:59.999Z')).toBe('2028-02-29T23:59:59.999Z');
    expect(read('2000-02-29T00:00:00Z')).toBe('2000-02-29T00:00:00.000Z');
    expect(read('0050-06-01T00:00:00Z')).toBe('0050-06-01T00:00:00.000Z');
    // the edges: the first and last instants, the widest offsets, the first day of a month
    expect(read('0001-01-01T00:00:00Z')).toBe('0001-01-01T00:00:00.000Z');
    expect(read('9999-12-31T23:59:59Z')).toBe('9999-12-31T23:59:59.000Z');
    expect(read('2027-03-01T23:59:59+23:59')).toBe('2027-03-01T00:00:59.000Z');
    expect(read('2027-03-01T00:00:00-23:00')).toBe('2027-03-01T23:00:00.000Z');
    expect(read('x2027-03-01T00:00:00Z')).toBeUndefined();
    expect(read('2027-03-01T00:00:00Zx')).toBeUndefined();
    for (const bad of [
      '2027-02-29T00:00:00Z',
      '1900-02-29T00:00:00Z',
      '2031-04-31T00:00:00Z',
      '2031-01-32T00:00:00Z',
      '2031-00-01T00:00:00Z',
      '2031-13-01T00:00:00Z',
      '2031-01-01T24:00:00Z',
      '2031-01-01T00:60:00Z',
      '2031-01-01T00:00:60Z',
      '2031-01-01T00:00:00+24:00',
      '2031-01-01T00:00:00+01:60',
      '9999-12-31T23:59:59-23:59',
      '0001-01-01T00:00:00+00:01',
      '0000-01-01T00:00:00Z',
      '2031-01-01 00:00:00Z',
      '2031-01-01T00:00:00',
    ])
      expect(read(bad), bad).toBeUndefined();
  });
});

describe('sessions and bans', () => {
  // the clock of these tests: 2026-11-23T12:00:00Z, second 1,795,435,200
  const SECOND = Date.parse('2026-11-23T12:00:00.000Z') / 1000;
  const token = (studioId: string, issuedAt: number) =>
    ({ subject: studioId, role: 'player', guest: false, issuedAt, expiresAt: 2 ** 31 }) as const;

  it('revokes at the clock’s second, once per key, and answers the access as the API shows it', async () => {
    const { store, account } = await storeWithAccount();
    const first = await revokeSessions(store, account.studioId, { reason: 'r', idempotencyKey: 'svc-revoke-1' }, clock);
    expect(first).toEqual({
      account: { accountId: account.accountId, studioId: account.studioId, displayName: 'Ada' },
      access: { sessionsRevokedAt: '2026-11-23T12:00:00.000Z', ban: null },
      idempotent: false,
    });
    expect((await revokeSessions(store, account.studioId, { reason: 'reworded', idempotencyKey: 'svc-revoke-1' }, clock)).idempotent).toBe(
      true,
    );
    const other = await createAccount(store, { displayName: 'Bo' }, clock);
    const reused = await refusal(revokeSessions(store, other.account.studioId, { reason: 'r', idempotencyKey: 'svc-revoke-1' }, clock));
    expect([reused.code, reused.message]).toEqual([
      'IDEMPOTENCY_KEY_REUSED',
      'This idempotency key was used before for another account, action or ban end; nothing changed. Use a new key for a new action.',
    ]);
    for (const missing of ['STUDIO_0000000000000000', 'not-a-studio-id']) {
      const e = await refusal(revokeSessions(store, missing, { reason: 'r', idempotencyKey: 'svc-revoke-2' }, clock));
      expect([e.code, e.message]).toEqual(['NOT_FOUND', 'No account has this studioId.']);
    }
    // the token of the revocation's second and before: 401; the next second: in
    for (const issuedAt of [SECOND, SECOND - 1]) {
      const e = await refusal(accountOfToken(store, token(account.studioId, issuedAt), clock));
      expect([e.code, e.message, e.headers['WWW-Authenticate']]).toEqual([
        'UNAUTHORIZED',
        'The token is not valid.',
        'Bearer realm="game-api", error="invalid_token"',
      ]);
    }
    expect((await accountOfToken(store, token(account.studioId, SECOND + 1), clock)).accountId).toBe(account.accountId);
    expect((await refusal(accountOfToken(store, token('STUDIO_0000000000000000', SECOND + 1), clock))).message).toBe(
      'No account belongs to this token.',
    );
  });

  it('bans until a time or without end, refuses an end not ahead (unless it replays a key), and unbans', async () => {
    const { store, account } = await storeWithAccount();
    const until = '2026-11-24T12:00:00+02:00';
    const ban = await banAccount(store, account.studioId, { reason: 'farming', until, idempotencyKey: 'svc-ban-0001' }, clock);
    expect(ban.access).toEqual({
      sessionsRevokedAt: '2026-11-23T12:00:00.000Z',
      ban: { reason: 'farming', at: '2026-11-23T12:00:00.000Z', until: '2026-11-24T10:00:00.000Z', active: true },
    });
    // a ban holds until its end, not at it
    const atEnd = () => new Date('2026-11-24T10:00:00.000Z');
    expect((await accountOfToken(store, token(account.studioId, SECOND + 1), atEnd)).studioId).toBe(account.studioId);
    const justBefore = () => new Date('2026-11-24T09:59:59.999Z');
    expect((await refusal(accountOfToken(store, token(account.studioId, SECOND + 1), justBefore))).code).toBe('ACCOUNT_SUSPENDED');
    const later = () => new Date('2026-11-25T00:00:00.000Z');
    // the same ban sent again after its end: its first answer, with the ban as it stands (ended)
    const again = await banAccount(store, account.studioId, { reason: 'farming', until, idempotencyKey: 'svc-ban-0001' }, later);
    expect([again.idempotent, again.access.ban?.active]).toEqual([true, false]);
    for (const bad of ['2026-11-23T12:00:00Z', '2026-11-22T00:00:00Z', '2026-02-30T00:00:00Z']) {
      const e = await refusal(banAccount(store, account.studioId, { reason: 'x', until: bad, idempotencyKey: 'svc-ban-0002' }, clock));
      expect([e.code, e.errors]).toEqual([
        'INVALID_BODY',
        [{ name: '/until', message: `${bad} is not a time in the future.`, value: bad }],
      ]);
    }
    const reused = await refusal(
      banAccount(store, account.studioId, { reason: 'x', until: '2020-01-01T00:00:00Z', idempotencyKey: 'svc-ban-0001' }, clock),
    );
    expect(reused.code).toBe('IDEMPOTENCY_KEY_REUSED');
    const forever = await banAccount(store, account.studioId, { reason: 'for good', idempotencyKey: 'svc-ban-0003' }, clock);
    expect(forever.access.ban).toEqual({ reason: 'for good', at: '2026-11-23T12:00:00.000Z', until: null, active: true });
    const e = await refusal(accountOfToken(store, token(account.studioId, SECOND + 1), clock));
    expect([e.code, e.message]).toEqual(['ACCOUNT_SUSPENDED', 'This account is suspended, without an end date.']);
    const lifted = await unbanAccount(store, account.studioId, { reason: 'appeal', idempotencyKey: 'svc-unban-01' }, clock);
    expect(lifted.access).toEqual({ sessionsRevokedAt: '2026-11-23T12:00:00.000Z', ban: null });
    expect((await accountOfToken(store, token(account.studioId, SECOND + 1), clock)).studioId).toBe(account.studioId);
  });

  it('answers 404 when the account vanished between the lookup and the change', async () => {
    const { store, account } = await storeWithAccount();
    const vanishing: LedgerStore = {
      ...store,
      driver: store.driver,
      findAccount: () => Promise.resolve(account),
      changeAccess: () => Promise.resolve({ status: 'no-account' }),
    };
    for (const run of [
      () => revokeSessions(vanishing, account.studioId, { reason: 'r', idempotencyKey: 'gone-0001' }, clock),
      () => unbanAccount(vanishing, account.studioId, { reason: 'r', idempotencyKey: 'gone-0002' }, clock),
      () => banAccount(vanishing, account.studioId, { reason: 'r', idempotencyKey: 'gone-0003' }, clock),
    ]) {
      const e = await refusal(run());
      expect([e.code, e.message]).toEqual(['NOT_FOUND', 'No account has this studioId.']);
    }
  });

  it('logs the caller out at the clock’s second, and refuses a banned account’s logout', async () => {
    const { store, account } = await storeWithAccount();
    await logout(store, token(account.studioId, SECOND - 5), clock);
    expect(await store.access(account.accountId)).toEqual({ sessionsRevokedAt: SECOND });
    await banAccount(store, account.studioId, { reason: 'r', until: '2026-11-23T13:00:00Z', idempotencyKey: 'svc-ban-0004' }, clock);
    const e = await refusal(logout(store, token(account.studioId, SECOND + 1), clock));
    expect([e.code, e.message]).toEqual(['ACCOUNT_SUSPENDED', 'This account is suspended until 2026-11-23T13:00:00.000Z.']);
  });

  it('gives game servers a view of the ledger that refuses a banned account and is the store for the rest', async () => {
    const { store, account } = await storeWithAccount();
    const view = refusingSuspended(store, clock);
    expect(await view.findAccount({ studioId: account.studioId })).toEqual(account);
    expect(await view.findAccount({ studioId: 'STUDIO_0000000000000000' })).toBeUndefined();
    expect(view.driver).toBe('sqlite');
    expect(await view.balance(account.accountId)).toBe(0);
    await banAccount(store, account.studioId, { reason: 'r', until: '2026-11-23T13:00:00Z', idempotencyKey: 'svc-ban-0005' }, clock);
    const e = await refusal(view.findAccount({ accountId: account.accountId }));
    expect([e.code, e.message]).toEqual(['ACCOUNT_SUSPENDED', 'This account is suspended until 2026-11-23T13:00:00.000Z.']);
    // once the ban has ended it finds the account again
    expect(
      await refusingSuspended(store, () => new Date('2026-11-23T13:00:00.001Z')).findAccount({ accountId: account.accountId }),
    ).toEqual(account);
  });
});
