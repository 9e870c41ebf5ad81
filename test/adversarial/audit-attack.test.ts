/**
 * Attacks on the audit log (spec 5.3; docs/architecture.md, "Audit log"), on both stores: a request id the
 * client chooses, a record naming no account or a change that did not happen, a cursor that reads outside
 * its filters, and scripts that make the Redis kit's audited variant answer otherwise than the script.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requestFingerprint } from '../../api/_lib/stores/idempotency.js';
import { connectRedis, redisScript, type RedisTarget } from '../../api/_lib/stores/redis.js';
import { inAuditScope, openAuditScope, type AuditRecord } from '../../api/_lib/util/audit-scope.js';
import { redisBackend } from '../helpers/backends.js';
import { redisCommand } from '../helpers/redis.js';
import { admin, adminAuth, call, newPlayer, onEachStore, player, quietLog, serverAuth } from './helpers.js';

type Page = { records: AuditRecord[]; cursor: string | null; hasMore: boolean };

quietLog();

const RECIPE = 'RECP-20260601100000-000123-64A3D698';

onEachStore('the audit log under attack', (store) => {
  /** Every record (at most 200), newest first, with `query` added to the filters. */
  const records = async (auth: Record<string, string>, query = ''): Promise<AuditRecord[]> => {
    const r = await call(admin, 'GET', `/api/admin/audit?limit=200${query}`, { headers: auth });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    return (r.body as unknown as Page).records;
  };

  it("never takes a client's x-vercel-id off Vercel: a write sent with an earlier request's id still gets its own record", async () => {
    const config = await store.fresh();
    const auth = await adminAuth(config);
    const p = await newPlayer(config, 'Forger');
    const first = await call(admin, 'POST', '/api/admin/grant-coin', {
      body: { studioId: p.studioId, amount: 5, reason: 'first', idempotencyKey: 'forge-grant-0001' },
      headers: auth,
    });
    const taken = first.headers.get('x-request-id')!;
    const second = await call(admin, 'POST', '/api/admin/grant-coin', {
      body: { studioId: p.studioId, amount: 7, reason: 'second', idempotencyKey: 'forge-grant-0002' },
      headers: { ...auth, 'x-vercel-id': taken },
    });
    const chosen = await call(admin, 'POST', '/api/admin/grant-coin', {
      body: { studioId: p.studioId, amount: 9, reason: 'third', idempotencyKey: 'forge-grant-0003' },
      headers: { ...auth, 'x-vercel-id': 'fra1::iad1::chosen-by-the-client' },
    });
    expect([first.status, second.status, chosen.status]).toEqual([200, 200, 200]);
    expect(second.headers.get('x-request-id')).not.toBe(taken);
    expect(chosen.headers.get('x-request-id')).not.toBe('fra1::iad1::chosen-by-the-client');
    const changes = (await records(auth, '&route=admin/grant-coin')).filter((r) => r.changed === true);
    expect(changes.map((r) => [r.idempotencyKey, r.requestId])).toEqual([
      ['forge-grant-0003', chosen.headers.get('x-request-id')],
      ['forge-grant-0002', second.headers.get('x-request-id')],
      ['forge-grant-0001', taken],
    ]);
  });

  it('names the erased account in the records of an erasure and of its replay', async () => {
    const config = await store.fresh();
    const auth = await adminAuth(config);
    const p = await newPlayer(config, 'Erin');
    const body = { reason: 'data request 17', idempotencyKey: 'erase-named-0001' };
    for (let i = 0; i < 2; i++) {
      const r = await call(admin, 'POST', `/api/admin/players/${p.studioId}/erase`, { body, headers: auth });
      expect(r.status).toBe(200);
    }
    const erasures = await records(auth, '&route=admin/erase');
    expect(erasures.map((r) => [r.account, r.changed])).toEqual([
      [p.accountId, false],
      [p.accountId, true],
    ]);
    // and the account filter finds them
    expect((await records(auth, `&account=${p.studioId}&route=admin/erase`)).length).toBe(2);
  });

  it('records a request that changed nothing as changed: false with its own status, even when the store ran a write command', async () => {
    const config = await store.fresh();
    const auth = await adminAuth(config);
    const server = await serverAuth(config);
    const p = await newPlayer(config, 'Cook');
    // a recipe taught twice: the second is 200 and changes nothing
    const taught = [];
    for (let i = 0; i < 2; i++) {
      taught.push(
        await call(player, 'POST', '/api/account/recipes', { body: { studioId: p.studioId, recipeId: RECIPE }, headers: server }),
      );
    }
    expect(taught.map((r) => r.status)).toEqual([201, 200]);
    // an erasure replayed: the links are removed again, and there are none
    const erase = { reason: 'data request 18', idempotencyKey: 'erase-noop-0001' };
    const erasures = [];
    for (let i = 0; i < 2; i++) {
      erasures.push(await call(admin, 'POST', `/api/admin/players/${p.studioId}/erase`, { body: erase, headers: auth }));
    }
    expect(erasures.map((r) => [r.status, r.body.idempotent])).toEqual([
      [200, false],
      [200, true],
    ]);
    const all = await records(auth);
    const of = (r: { headers: Headers }) => all.find((x) => x.requestId === r.headers.get('x-request-id'));
    expect([taught[0], taught[1], erasures[0], erasures[1]].map((r) => [of(r!)?.status, of(r!)?.changed])).toEqual([
      [201, true],
      [200, false],
      [200, true],
      [200, false],
    ]);
  });

  it('reads no record outside from/to, whatever position a cursor of those filters names', async () => {
    const config = await store.fresh();
    const auth = await adminAuth(config);
    const p = await newPlayer(config, 'Tess');
    for (let i = 0; i < 4; i++) {
      await call(admin, 'POST', '/api/admin/grant-coin', {
        body: { studioId: p.studioId, amount: 1 + i, reason: 'range', idempotencyKey: `range-grant-000${i}` },
        headers: auth,
      });
    }
    const all = await records(auth);
    const oldest = all[all.length - 1]!;
    const newest = all[0]!;
    const to = new Date(Date.parse(oldest.at) + 1).toISOString();
    const from = newest.at;
    const inRange = (list: AuditRecord[], fromMs = -Infinity, toMs = Infinity) =>
      list.every((r) => Date.parse(r.at) >= fromMs && Date.parse(r.at) < toMs);
    // the binding of a cursor is no secret: anyone can make one for these filters, at any place
    const cursor = (fromMs: number | undefined, toMs: number | undefined, atMs: number, seq: number) =>
      Buffer.from(
        `a1.${requestFingerprint(['audit', null, null, null, fromMs ?? null, toMs ?? null]).slice(0, 16)}.${atMs}.${seq}`,
      ).toString('base64url');
    const later = Date.parse(newest.at) + 60_000;
    const before = await call(
      admin,
      'GET',
      `/api/admin/audit?to=${encodeURIComponent(to)}&cursor=${cursor(undefined, Date.parse(to), later, 1)}`,
      {
        headers: auth,
      },
    );
    expect(before.status).toBe(200);
    const listed = (before.body as unknown as Page).records;
    expect(inRange(listed, -Infinity, Date.parse(to))).toBe(true);
    expect(listed.map((r) => r.id)).toEqual([oldest.id]);
    const earlier = Date.parse(oldest.at) - 60_000;
    const after = await call(
      admin,
      'GET',
      `/api/admin/audit?from=${encodeURIComponent(from)}&cursor=${cursor(Date.parse(from), undefined, earlier, 1)}`,
      {
        headers: auth,
      },
    );
    expect(after.status).toBe(200);
    expect((after.body as unknown as Page).records).toEqual([]);
  });
});

/** Scripts that write and then answer in every way a Lua script can, run by the Redis kit plain and audited. */
describe('the Redis kit’s audited variant of a script', () => {
  const backend = redisBackend();
  let target: RedisTarget;
  beforeAll(async () => {
    await backend.setup();
    target = ((await backend.fresh()) as { redis: RedisTarget }).redis;
  }, 30_000);
  afterAll(() => backend.teardown());

  let n = 0;
  /** Run `source` on one key of its own with `args`, outside any request and inside one: both outcomes and whether a record was kept. */
  async function both(source: string, args: string[] = []) {
    const commands = connectRedis(target, { name: 'attack store', retryHint: '' }, { retryDelaysMs: [] }).commands;
    const script = redisScript(source);
    const outcome = async (run: () => Promise<unknown>) => {
      try {
        return { reply: await run() };
      } catch (e) {
        return { error: String((e as Error).message) };
      }
    };
    n++;
    const key = `attack:${n}`;
    const plain = await outcome(() => commands.script({ script, keys: [key], args }));
    await redisCommand(backend.server().url, ['DEL', key, `${key}:x`]);
    const requestId = `attack-request-${n}`;
    const scope = openAuditScope({ actor: { via: 'password' }, route: 'admin/attack', method: 'POST', requestId, changeStatus: 200 });
    const audited = await inAuditScope(scope, () => outcome(() => commands.script({ script, keys: [key], args })));
    const kept = (await redisCommand(backend.server().url, ['HEXISTS', 'audit:requests', requestId])) === 1;
    return { plain, audited, kept, recorded: scope.recorded };
  }

  it('answers what the script answers: nil as nil, an error reply as an error, #ARGV without the record’s arguments', async () => {
    const nil = await both("redis.call('SET', KEYS[1], 'x') return nil");
    expect(nil.audited).toEqual(nil.plain);
    expect(nil.plain).toEqual({ reply: null });
    expect(nil.kept).toBe(true);
    const failed = await both("redis.call('SET', KEYS[1], 'x') return redis.error_reply('ERR attack: refused after a write')");
    expect(failed.plain).toHaveProperty('error');
    expect(failed.audited).toHaveProperty('error');
    // the write happened: it has its record
    expect(failed.kept).toBe(true);
    const argv = await both("redis.call('SET', KEYS[1], 'x') return {#ARGV, ARGV[1], ARGV[2]}", ['a', 'b']);
    expect(argv.audited).toEqual({ reply: [2, 'a', 'b'] });
    expect(argv.plain).toEqual(argv.audited);
  });

  it('counts a write however the script calls it (pcall, a space before the parenthesis, a local alias)', async () => {
    for (const source of [
      "redis.pcall('SET', KEYS[1], 'y') return 1",
      "redis.call ('SET', KEYS[1], 'y') return 1",
      "local call = redis.call\ncall('SET', KEYS[1], 'y') return 1",
      "redis['call']('SET', KEYS[1], 'y') return 1",
    ]) {
      const out = await both(source);
      expect(out.audited, source).toEqual({ reply: 1 });
      expect([out.kept, out.recorded], source).toEqual([true, true]);
    }
  });

  it('takes a write command that changed nothing, or a read it does not list, for no change', async () => {
    for (const source of [
      "return redis.call('DEL', KEYS[1] .. ':x')",
      "return redis.call('HDEL', KEYS[1], 'nothing')",
      "return redis.call('SREM', KEYS[1], 'nothing')",
      "return redis.call('ZREM', KEYS[1], 'nothing')",
      "return redis.call('GETRANGE', KEYS[1], 0, 3)",
      "return redis.call('SRANDMEMBER', KEYS[1])",
    ]) {
      const out = await both(source);
      expect([out.kept, out.recorded], source).toEqual([false, false]);
    }
    // a second HSETNX of a field changes nothing
    await redisCommand(backend.server().url, ['HSET', 'attack:known', 'f', 'v']);
    const commands = connectRedis(target, { name: 'attack store', retryHint: '' }, { retryDelaysMs: [] }).commands;
    const scope = openAuditScope({
      actor: { via: 'password' },
      route: 'admin/attack',
      method: 'POST',
      requestId: 'attack-hsetnx',
      changeStatus: 200,
    });
    const reply = await inAuditScope(scope, () =>
      commands.script({ script: redisScript("return redis.call('HSETNX', 'attack:known', 'f', 'w')"), keys: [], args: [] }),
    );
    expect([reply, scope.recorded]).toEqual([0, false]);
  });
});
