/**
 * Exactly once under concurrency, retries and faults (spec 3, 4.8; docs/architecture.md, "Ledger"):
 * 1,000 concurrent verify-send requests over 100 idempotency keys through the handler credit exactly 100
 * times on both adapters; on Redis, faults injected through the Requester (the script ran but its answer
 * was lost and the client retried; the request failed before it was sent; every attempt failed), a
 * flushed script cache, and a redis-server killed mid-run: no double credit, no lost credit, 503 where
 * the store could not answer, and the invariants hold after a restart.
 */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CREDIT_SCRIPT } from '../../api/_lib/ledger/redis-scripts.js';
import type { Requester, UpstashRequest } from '@upstash/redis';
import { loadServiceConfig, useServiceConfig } from '../../api/_lib/config.js';
import { mintToken } from '../../api/_lib/auth/tokens.js';
import { ledgerStore } from '../../api/_lib/ledger/store.js';
import { connectRespRequester, type RespRequester } from '../../api/_lib/stores/resp-requester.js';
import { openRedisLedger } from '../../api/_lib/ledger/redis.js';
import { mintStudioId, mintUuid } from '../../api/_lib/ledger/ids.js';
import type { Account, LedgerStore } from '../../api/_lib/ledger/types.js';
import * as wallet from '../../api/wallet.js';
import * as admin from '../../api/admin.js';
import { expectSound, redisHarness, sqliteHarness, type LedgerHarness } from '../helpers/ledger.js';
import { creditOf } from '../helpers/ledger-ops.js';

const SECRET = 'faults-secret-0123456789-abcdefghijklm';
let adminToken = '';

async function call(entry: typeof wallet | typeof admin, path: string, body: unknown) {
  const res = await entry.POST(
    new Request(`http://t${path}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${adminToken}` },
      body: JSON.stringify(body),
    }),
  );
  return {
    status: res.status,
    body: (await res.json()) as { code: string; account: Account; idempotent: boolean; sourceRef: string; entryId: string },
  };
}

/** Put the harness's store in force for the handlers of this block, with an admin token to call them. */
function serveWith(h: LedgerHarness): void {
  beforeAll(async () => {
    await h.setup();
    const config = loadServiceConfig({ ...h.env(), JWT_SECRET: SECRET });
    useServiceConfig(config);
    adminToken = await mintToken(config.jwt, { subject: 'STUDIO_OP', role: 'admin' });
  }, 30_000);
  afterAll(async () => {
    useServiceConfig(undefined);
    await h.teardown();
  });
}

describe.each([sqliteHarness(), redisHarness()] as LedgerHarness[])('1,000 concurrent requests over 100 keys: $name', (h) => {
  serveWith(h);

  it('credits exactly once per key, answers every duplicate as a replay of it, and keeps the invariants', async () => {
    const accounts: Account[] = [];
    for (let i = 0; i < 5; i++) accounts.push((await call(admin, '/api/admin/accounts', { displayName: `C${i}` })).body.account);
    const keys = Array.from({ length: 100 }, (_, i) => ({
      key: `concurrent-${i.toString().padStart(4, '0')}`,
      account: accounts[i % 5]!,
      amount: (i % 9) + 1,
    }));
    const requests = [];
    for (let round = 0; round < 10; round++) {
      for (const k of keys) {
        const selector = round % 2 ? { accountId: k.account.accountId } : { studioId: k.account.studioId };
        requests.push(
          call(wallet, '/api/wallet/verify-send-to-account', { ...selector, amount: k.amount, purpose: 'verify', idempotencyKey: k.key }),
        );
      }
    }
    const answers = await Promise.all(requests);
    expect(answers.map((a) => a.status).filter((s) => s !== 200)).toEqual([]);
    const firsts = answers.filter((a) => a.body.idempotent === false);
    expect(firsts).toHaveLength(100);
    expect(new Set(firsts.map((a) => a.body.sourceRef)).size).toBe(100);
    // every answer for a key names the one entry recorded for it
    const entryOf = new Map(firsts.map((a) => [a.body.sourceRef, a.body.entryId]));
    for (const a of answers) expect(a.body.entryId).toBe(entryOf.get(a.body.sourceRef));
    const store = await ledgerStore();
    const snap = await store.snapshot();
    expect(snap.transfers).toHaveLength(100);
    for (const acct of accounts) {
      const expected = keys.filter((k) => k.account.accountId === acct.accountId).reduce((s, k) => s + k.amount, 0);
      expect(await store.balance(acct.accountId)).toBe(expected);
    }
    await expectSound(store);
  }, 120_000);
});

/** A Requester in front of the real connection that can lose answers or fail requests on demand. */
class FaultyRequester implements Requester {
  /** Number of upcoming script calls whose answer is lost after the server ran them. */
  loseAnswers = 0;
  /** Number of upcoming script calls that fail before they are sent. */
  failBefore = 0;
  scripts = 0;
  constructor(private readonly inner: RespRequester) {}
  async request<T>(req: UpstashRequest) {
    const cmd = String((req.body as unknown[])[0]).toLowerCase();
    const isScript = cmd === 'evalsha' || cmd === 'eval';
    if (isScript) this.scripts++;
    if (isScript && this.failBefore > 0) {
      this.failBefore--;
      throw new TypeError('fetch failed (injected: request not sent)');
    }
    const res = await this.inner.request<T>(req);
    if (isScript && this.loseAnswers > 0) {
      this.loseAnswers--;
      throw new TypeError('fetch failed (injected: answer lost)');
    }
    return res;
  }
}

describe('Redis faults', () => {
  const h = redisHarness();
  let faulty: FaultyRequester;
  let store: LedgerStore;
  let raw: RespRequester;
  let account: Account;

  beforeAll(async () => {
    await h.setup();
    raw = await connectRespRequester(h.server().url);
    faulty = new FaultyRequester(raw);
    store = openRedisLedger({ requester: faulty }, { retryDelaysMs: [5, 5] });
    account = {
      accountId: mintUuid(),
      studioId: mintStudioId(),
      displayName: 'F',
      userId: mintUuid(),
      username: 'faulty',
      createdAt: new Date().toISOString(),
    };
    await store.createAccount({ account, clientKey: undefined, fingerprint: 'f' });
    await credit('warm-up-0001'); // loads the script into the server's cache
  }, 30_000);
  afterAll(async () => {
    await raw.close();
    await h.teardown();
  });

  const credit = (key: string, amount = 3) =>
    store.credit(creditOf(account, { sourceRef: `verify-send:${key}`, amount, at: new Date().toISOString() }));

  it("the script ran but its answer was lost and the client retried: one credit, answered as this call's own", async () => {
    const before = await store.balance(account.accountId);
    faulty.loseAnswers = 1;
    const scripts = faulty.scripts;
    const out = await credit('lost-answer-1');
    expect(out.status).toBe('created');
    expect(faulty.scripts - scripts).toBe(2);
    expect(await store.balance(account.accountId)).toBe(before + 3);
    await expectSound(store);
  });

  it('the request failed before it was sent: the retry credits once', async () => {
    const before = await store.balance(account.accountId);
    faulty.failBefore = 2;
    expect((await credit('not-sent-1')).status).toBe('created');
    expect(await store.balance(account.accountId)).toBe(before + 3);
    await expectSound(store);
  });

  it('every attempt failed: 503 UPSTREAM_UNAVAILABLE, and a later retry with the same key credits once', async () => {
    const before = await store.balance(account.accountId);
    faulty.failBefore = 3;
    await expect(credit('all-failed-1')).rejects.toMatchObject({ code: 'UPSTREAM_UNAVAILABLE' });
    expect(await store.balance(account.accountId)).toBe(before);
    faulty.loseAnswers = 3;
    await expect(credit('all-lost-1')).rejects.toMatchObject({ code: 'UPSTREAM_UNAVAILABLE' });
    // the server did apply it: the client's retry with the same key is answered as a replay, never a second credit
    expect(await store.balance(account.accountId)).toBe(before + 3);
    expect((await credit('all-lost-1')).status).toBe('replayed');
    expect((await credit('all-failed-1')).status).toBe('created');
    expect(await store.balance(account.accountId)).toBe(before + 6);
    await expectSound(store);
  });

  it('falls back from EVALSHA to EVAL when the script cache was flushed (a restart or failover)', async () => {
    const sha = createHash('sha1').update(CREDIT_SCRIPT).digest('hex');
    await raw.request({ body: ['script', 'flush'] });
    expect((await raw.request<number[]>({ body: ['script', 'exists', sha] })).result).toEqual([0]);
    const scripts = faulty.scripts;
    expect((await credit('after-flush-1')).status).toBe('created');
    expect(faulty.scripts - scripts).toBe(2); // EVALSHA answered NOSCRIPT, then EVAL
    expect((await raw.request<number[]>({ body: ['script', 'exists', sha] })).result).toEqual([1]);
    await expectSound(store);
  });

  it('writes one command per credit, and resolves a known account without a command', async () => {
    const before = raw.commands();
    await credit('one-command-1');
    expect(raw.commands() - before).toBe(1);
    const fresh = openRedisLedger({ requester: raw });
    const first = raw.commands();
    expect(await fresh.findAccount({ studioId: account.studioId })).toEqual(account);
    expect(raw.commands() - first).toBe(2);
    const again = raw.commands();
    expect(await fresh.findAccount({ studioId: account.studioId })).toEqual(account);
    expect(await fresh.findAccount({ accountId: account.accountId })).toEqual(account);
    expect(raw.commands() - again).toBe(0);
    expect(await fresh.findAccount({ studioId: 'STUDIO_UNKNOWN' })).toBeUndefined();
    expect(await fresh.findAccount({ studioId: 'STUDIO_UNKNOWN' })).toBeUndefined();
    expect(raw.commands() - again).toBe(2); // a miss is never remembered: the account may be created next
  });
});

describe('redis-server killed mid-run', () => {
  const h = redisHarness();
  serveWith(h);

  it('answers 503 UPSTREAM_UNAVAILABLE while it is down, loses no answered credit, and holds the invariants after the restart', async () => {
    const acct = (await call(admin, '/api/admin/accounts', { displayName: 'K' })).body.account;
    const send = (i: number) =>
      call(wallet, '/api/wallet/verify-send-to-account', {
        studioId: acct.studioId,
        amount: 1,
        purpose: 'verify',
        idempotencyKey: `killed-${i}-0000`,
      });
    const inflight = [];
    for (let i = 0; i < 200; i++) {
      inflight.push(send(i));
      if (i === 100) await h.server().stop();
      if (i % 10 === 0) await new Promise((r) => setTimeout(r, 1));
    }
    const answers = await Promise.all(inflight);
    const statuses = new Set(answers.map((a) => a.status));
    expect([...statuses].every((s) => s === 200 || s === 503)).toBe(true);
    expect(statuses.has(503)).toBe(true);
    for (const a of answers.filter((x) => x.status === 503)) expect(a.body.code).toBe('UPSTREAM_UNAVAILABLE');

    await h.server().start();
    const store = await ledgerStore();
    // the client reconnects in the background; wait until the store answers again
    for (let i = 0; i < 50; i++) {
      try {
        await store.balance(acct.accountId);
        break;
      } catch {
        await new Promise((r) => setTimeout(r, 100));
      }
    }
    await expectSound(store);
    const recorded = new Set((await store.snapshot()).transfers.map((t) => t.sourceRef));
    answers.forEach((a, i) => {
      if (a.status === 200) expect(recorded.has(`verify-send:killed-${i}-0000`)).toBe(true);
    });
    // every refused request retried with its key: each credited exactly once in all
    const retried = await Promise.all(answers.map((_, i) => send(i)));
    expect(retried.every((r) => r.status === 200)).toBe(true);
    expect(await store.balance(acct.accountId)).toBe(200);
    expect((await store.snapshot()).transfers).toHaveLength(200);
    await expectSound(store);
  }, 120_000);
});
