/**
 * The Redis stores' client and key layout (docs/architecture.md, "Ledger"; spec 4.8), on both transports:
 * the production one (`@upstash/redis` over HTTP with a REST URL and token, here to the local REST
 * stand-in) and the RESP requester of local runs, each over a real `redis-server` on 127.0.0.1.
 *
 * What is pinned: one request per command (the client never resends by itself, so a lost answer is
 * retried only by the store's own policy, whose attempts and waits are counted), no pipelining, no
 * telemetry headers, replies left as text (a display name that looks like JSON stays as typed), reply
 * errors refused at once, the 503 texts, the key names and hash slots of the module header, the account
 * creation outcomes, the snapshot's order, and the cost of a posting page in commands. The requester's own
 * connection (server down, restart, close) is in `resp-requester.test.ts`.
 */
import type { ConfigError } from '../../api/_lib/config.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectRespRequester, type RespRequester } from '../../api/_lib/stores/resp-requester.js';
import { KEYS, openRedisLedger } from '../../api/_lib/ledger/redis.js';
import { RETRY_DELAYS_MS, redisScript } from '../../api/_lib/stores/redis.js';
import { ISSUER_ACCOUNT_ID, type LedgerStore } from '../../api/_lib/ledger/types.js';
import { createHash } from 'node:crypto';
import { RecordingRequester, startRedis, type TestRedis } from '../helpers/redis.js';
import { startUpstashRest, type UpstashRestStandIn } from '../helpers/upstash-rest.js';
import { creditOf, newAccount, refusal } from '../helpers/ledger-ops.js';

let server: TestRedis;
let rest: UpstashRestStandIn;
let raw: RespRequester;

beforeAll(async () => {
  server = await startRedis();
  rest = await startUpstashRest(server.url);
  raw = await connectRespRequester(server.url);
}, 30_000);
afterAll(async () => {
  await rest.close();
  await raw.close();
  await server.destroy();
});

const flush = () => raw.request({ body: ['flushall'] });
const scriptRuns = async () => {
  const info = String((await raw.request<string>({ body: ['info', 'commandstats'] })).result);
  const count = (name: string) => Number(new RegExp(`cmdstat_${name}:calls=(\\d+)`).exec(info)?.[1] ?? 0);
  return count('evalsha') + count('eval');
};

describe('the production transport: @upstash/redis over REST', () => {
  const open = (delays: readonly number[] = [5, 20]) => openRedisLedger({ url: rest.url, token: rest.token }, { retryDelaysMs: delays });

  it('sends each command once: every answer lost means exactly one run per attempt of the store, one credit, and a replay later', async () => {
    await flush();
    const store = open();
    const a = newAccount();
    await store.createAccount({ account: a, clientKey: undefined, fingerprint: 'f' });
    await store.credit(creditOf(a, { amount: 1 })); // the script is in the server's cache from here on
    const c = creditOf(a, { amount: 7 });
    const runs = await scriptRuns();
    rest.loseResponses(3);
    const e = await refusal(store.credit(c));
    expect(e.code).toBe('UPSTREAM_UNAVAILABLE');
    expect(e.message).toBe('The ledger store cannot be reached (script); try again with the same idempotency key.');
    expect((await scriptRuns()) - runs).toBe(3);
    expect(await store.balance(a.accountId)).toBe(8);
    // the caller's retry of the same request finds its own entry; another request under the key is a replay
    expect((await store.credit(c)).status).toBe('created');
    expect((await store.credit({ ...c, entryId: 'another-entry' })).status).toBe('replayed');
    expect(await store.balance(a.accountId)).toBe(8);
  });

  it('never pipelines and sends no telemetry headers, even under a burst of concurrent calls', async () => {
    await flush();
    const store = open();
    const a = newAccount();
    await store.createAccount({ account: a, clientKey: undefined, fingerprint: 'f' });
    await store.credit(creditOf(a)); // the script is in the server's cache from here on
    const from = rest.requests.length;
    await Promise.all(Array.from({ length: 30 }, (_, i) => (i % 2 ? store.credit(creditOf(a)) : store.balance(a.accountId))));
    const seen = rest.requests.slice(from);
    expect(seen.length).toBe(30);
    expect(new Set(seen.map((r) => r.path))).toEqual(new Set(['/']));
    for (const r of seen) expect(Object.keys(r.headers).filter((h) => h.startsWith('upstash-telemetry'))).toEqual([]);
  });

  it('keeps replies as text: a display name that reads as JSON or a number comes back as typed', async () => {
    await flush();
    const a = newAccount({ displayName: '1e3', username: '"007"' });
    await open().createAccount({ account: a, clientKey: undefined, fingerprint: 'f' });
    expect(await open().findAccount({ studioId: a.studioId })).toEqual(a);
  });

  it('refuses a reply error at once, with no second attempt (here: a wrong token, a configuration error)', async () => {
    const store = openRedisLedger({ url: rest.url, token: 'not-the-token-0000' }, { retryDelaysMs: [5, 20] });
    const from = rest.requests.length;
    const e = await refusal(store.balance(ISSUER_ACCOUNT_ID));
    expect(e.code).toBe('UPSTREAM_UNAVAILABLE');
    expect(e.message).toBe('The ledger store is not configured correctly on this deployment; the operator has been told what to set.');
    expect((e.cause as ConfigError).problems.map((p) => p.variable)).toEqual(['UPSTASH_REDIS_REST_TOKEN']);
    expect(rest.requests.length - from).toBe(1);
  });
});

describe('the RESP requester transport', () => {
  it('waits the documented delays between attempts, then answers 503 naming the operation', async () => {
    await flush();
    expect(RETRY_DELAYS_MS).toEqual([25, 100]);
    const rec = new RecordingRequester(raw);
    const store = openRedisLedger({ requester: rec });
    rec.failBefore = 3;
    const t0 = performance.now();
    const e = await refusal(store.findAccount({ studioId: 'STUDIO_NOBODY' }));
    expect(performance.now() - t0).toBeGreaterThanOrEqual(120);
    expect(rec.paths.length).toBe(3);
    expect(e.code).toBe('UPSTREAM_UNAVAILABLE');
    expect(e.message).toBe('The ledger store cannot be reached (read); try again with the same idempotency key.');
    expect(e.cause).toBeInstanceOf(TypeError);
    rec.failBefore = 2;
    expect(await store.findAccount({ studioId: 'STUDIO_NOBODY' })).toBeUndefined();
  });

  it('never pipelines, and keeps replies as text', async () => {
    await flush();
    const rec = new RecordingRequester(raw);
    const store = openRedisLedger({ requester: rec });
    const a = newAccount({ displayName: '{"a":1}', username: '12345678901234567890' });
    await store.createAccount({ account: a, clientKey: undefined, fingerprint: 'f' });
    await Promise.all(Array.from({ length: 20 }, () => store.credit(creditOf(a))));
    expect(new Set(rec.paths)).toEqual(new Set(['']));
    expect(await openRedisLedger({ requester: raw }).findAccount({ accountId: a.accountId })).toEqual(a);
  });

  it('answers a reply error as Upstash does, and speaks RESP replies as REST results', async () => {
    expect(await raw.request({ body: ['no-such-command'] })).toEqual({ error: expect.stringMatching(/unknown command/i) as unknown });
    await raw.request({ body: ['hset', 'h', 'f', '1', 'g', 'x'] });
    expect((await raw.request({ body: ['hgetall', 'h'] })).result).toEqual(['f', '1', 'g', 'x']);
    expect((await raw.request({ body: ['hgetall', 'missing'] })).result).toEqual([]);
  });
});

describe('the store over a real server', () => {
  const open = () => openRedisLedger({ requester: raw }, { retryDelaysMs: [5, 20] });

  it('names its scripts by the sha1 of their source, the name Redis gives them, so a warm credit is one EVALSHA', async () => {
    expect(redisScript('return 1')).toEqual({ source: 'return 1', sha: createHash('sha1').update('return 1').digest('hex') });
    expect((await raw.request<string>({ body: ['script', 'load', 'return 1'] })).result).toBe(redisScript('return 1').sha);
    expect(open().driver).toBe('redis');
    await flush();
    const rec = new RecordingRequester(raw);
    const store = openRedisLedger({ requester: rec });
    const a = newAccount();
    await store.createAccount({ account: a, clientKey: undefined, fingerprint: 'f' });
    await store.credit(creditOf(a)); // may load the script (EVALSHA, NOSCRIPT, EVAL)
    rec.commands = [];
    await store.credit(creditOf(a));
    expect(rec.commands).toEqual(['evalsha']);
  });

  it('answers 503 naming the operation for every read', async () => {
    const rec = new RecordingRequester(raw);
    const store = openRedisLedger({ requester: rec }, { retryDelaysMs: [1] });
    const reads: (() => Promise<unknown>)[] = [
      () => store.findAccount({ studioId: 'STUDIO_NOBODY' }),
      () => store.findAccount({ accountId: newAccount().accountId }),
      () => store.balance(newAccount().accountId),
      () => store.postings(newAccount().accountId, { limit: 10, filter: {} }),
      () => store.snapshot(),
    ];
    for (const read of reads) {
      rec.failBefore = 2;
      const e = await refusal(read());
      expect([e.code, e.message]).toEqual([
        'UPSTREAM_UNAVAILABLE',
        'The ledger store cannot be reached (read); try again with the same idempotency key.',
      ]);
    }
    rec.failBefore = 0;
  });

  it('keeps the key layout of the module header, one account in one hash slot', async () => {
    await flush();
    const store = open();
    const a = newAccount();
    await store.createAccount({ account: a, clientKey: 'client-key-1', fingerprint: 'f' });
    await store.credit(creditOf(a));
    const keys = (await raw.request<string[]>({ body: ['keys', '*'] })).result!.sort();
    expect(keys).toEqual(
      [
        'ledger:accounts',
        'ledger:account-order',
        'ledger:entries',
        'ledger:keys:account',
        'ledger:keys:credit',
        'ledger:names',
        'ledger:studio',
        'ledger:transfers',
        'ledger:username',
        `ledger:{a:${a.accountId}}:acct`,
        `ledger:{a:${a.accountId}}:postings`,
        `ledger:{a:${ISSUER_ACCOUNT_ID}}:acct`,
        `ledger:{a:${ISSUER_ACCOUNT_ID}}:postings`,
      ].sort(),
    );
    expect([KEYS.creditKeys, KEYS.accountKeys, KEYS.transfers, KEYS.studio, KEYS.username, KEYS.accounts, KEYS.accountOrder]).toEqual([
      'ledger:keys:credit',
      'ledger:keys:account',
      'ledger:transfers',
      'ledger:studio',
      'ledger:username',
      'ledger:accounts',
      'ledger:account-order',
    ]);
    expect([KEYS.verifyCursor, KEYS.verifyResults]).toEqual(['ledger:verify:cursor', 'ledger:verify:results']);
    const slot = async (k: string) => (await raw.request<number>({ body: ['cluster', 'keyslot', k] })).result;
    expect(await slot(KEYS.account(a.accountId))).toBe(await slot(KEYS.postings(a.accountId)));
    // the account's access hash, written by a change of its sessions, sits in the same slot
    await store.changeAccess({
      accountId: a.accountId.toUpperCase(),
      change: { kind: 'revoke-sessions', at: 1_800_000_000 },
      key: 'revoke-1',
      fingerprint: 'r',
    });
    const access = `ledger:{a:${a.accountId}}:access`;
    expect(KEYS.access(a.accountId.toUpperCase())).toBe(access);
    expect((await raw.request<string[]>({ body: ['keys', '*:access'] })).result!.sort()).toEqual([KEYS.accessKeys, access].sort());
    expect(await slot(access)).toBe(await slot(KEYS.account(a.accountId)));
  });

  it('answers account creations with the outcome of each case, and 503 for a key whose account cannot be read', async () => {
    await flush();
    const store = open();
    const a = newAccount();
    await store.createAccount({ account: a, clientKey: 'key-a', fingerprint: 'fa' });
    expect(await store.createAccount({ account: newAccount(), clientKey: 'key-a', fingerprint: 'other' })).toEqual({
      status: 'key-reused',
    });
    expect(await store.createAccount({ account: newAccount({ username: a.username }), clientKey: undefined, fingerprint: 'f' })).toEqual({
      status: 'username-taken',
    });
    expect(await store.createAccount({ account: newAccount({ studioId: a.studioId }), clientKey: undefined, fingerprint: 'f' })).toEqual({
      status: 'studio-id-taken',
    });
    // the key's account exists in the index but its record cannot be read
    await raw.request({ body: ['del', KEYS.account(a.accountId)] });
    expect(await refusal(open().createAccount({ account: newAccount(), clientKey: 'key-a', fingerprint: 'fa' }))).toMatchObject({
      code: 'UPSTREAM_UNAVAILABLE',
      message: 'The ledger store cannot be reached; try again with the same idempotency key.',
    });
  });

  it('closes the connection it was given when the store closes, and not before', async () => {
    let closed = 0;
    const store = openRedisLedger({
      requester: raw,
      close: () => {
        closed++;
        return Promise.resolve();
      },
    });
    expect(await store.balance(newAccount().accountId)).toBe(0);
    expect(closed).toBe(0);
    await store.close();
    expect(closed).toBe(1);
  });

  it('answers a balance of 0 for an account without postings, and snapshots in source-ref and account order', async () => {
    await flush();
    const store = open();
    expect(await store.balance(newAccount().accountId)).toBe(0);
    const accounts = [newAccount(), newAccount(), newAccount()];
    for (const a of accounts) await store.createAccount({ account: a, clientKey: undefined, fingerprint: 'f' });
    for (const ref of ['verify-send:m', 'verify-send:b', 'verify-send:z', 'verify-send:a'])
      await store.credit(creditOf(accounts[ref.length % 3]!, { sourceRef: ref }));
    await store.credit(creditOf(accounts[2]!, { sourceRef: 'verify-send:c' }));
    const snap = await store.snapshot();
    expect(snap.transfers.map((t) => t.sourceRef)).toEqual([
      'verify-send:a',
      'verify-send:b',
      'verify-send:c',
      'verify-send:m',
      'verify-send:z',
    ]);
    const ids = snap.accounts.map((x) => x.accountId);
    expect(ids).toEqual([...ids].sort());
    expect(ids).toContain(ISSUER_ACCOUNT_ID);
  });

  it('reads a posting page in the fewest commands: one range for an unfiltered page, ranges of at least 100 when filtered', async () => {
    await flush();
    const store: LedgerStore = open();
    const a = newAccount();
    await store.createAccount({ account: a, clientKey: undefined, fingerprint: 'f' });
    for (let i = 0; i < 300; i++) await store.credit(creditOf(a, { purpose: i % 10 === 0 ? 'test' : 'verify' }));
    let before = raw.commands();
    const rec = new RecordingRequester(raw);
    const reader = openRedisLedger({ requester: rec });
    const ranges = async (run: () => Promise<unknown>) => {
      rec.bodies = [];
      await run();
      return rec.bodies.filter((b) => b[0] === 'lrange').map((b) => [Number(b[2]), Number(b[3])]);
    };
    // an unfiltered page reads limit + 1 postings; a filtered one reads max(100, 4 × limit) at a time
    expect(await ranges(() => reader.postings(a.accountId, { limit: 10, filter: {} }))).toEqual([[289, 299]]);
    expect(await ranges(() => reader.postings(a.accountId, { limit: 50, beforeSeq: 101, filter: {} }))).toEqual([[49, 99]]);
    expect(await ranges(() => reader.postings(a.accountId, { limit: 10, filter: { purpose: 'test' } }))).toEqual([
      [200, 299],
      [100, 199],
    ]);
    expect(await ranges(() => reader.postings(a.accountId, { limit: 10, filter: { kind: 'verify_send' } }))).toEqual([[200, 299]]);
    expect(await ranges(() => reader.postings(a.accountId, { limit: 50, filter: { purpose: 'test' } }))).toEqual([
      [100, 299],
      [0, 99],
    ]);
    before = raw.commands();
    const page = await store.postings(a.accountId, { limit: 10, filter: {} });
    expect(raw.commands() - before).toBe(3); // LLEN, LRANGE, HMGET of the annotations and reversal links
    expect(page.postings.map((p) => p.seq)).toEqual([300, 299, 298, 297, 296, 295, 294, 293, 292, 291]);
    expect(page.nextBeforeSeq).toBe(291);
    before = raw.commands();
    const filtered = await store.postings(a.accountId, { limit: 10, filter: { purpose: 'test' } });
    expect(raw.commands() - before).toBe(4); // LLEN, then 100 postings hold 10 matches, the 11th is in the next 100; HMGET
    expect(filtered.postings.map((p) => p.seq)).toEqual([291, 281, 271, 261, 251, 241, 231, 221, 211, 201]);
    expect(filtered.nextBeforeSeq).toBe(201);
    const last = await store.postings(a.accountId, { limit: 50, beforeSeq: 21, filter: { purpose: 'test' } });
    expect(last.postings.map((p) => p.seq)).toEqual([11, 1]);
    expect(last.nextBeforeSeq).toBeUndefined();
  });
});
