/**
 * The Redis half of the audit store kit (`api/_lib/stores/audit.ts`; docs/architecture.md, "Audit log"), on a
 * real redis-server: the append script (one record per request id, its keys and indexes), the audited
 * variant of a store's script (the record appended in the same run when the body wrote, never for reads or
 * writes that changed nothing, its checks before the body, the body's own `ARGV` and reply), and the call
 * that carries the running request's record and reads the reply back.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AUDIT_KEYS, AUDITED_MARKER, auditAppendScript, auditArgs, auditedCall, auditedScript } from '../../api/_lib/stores/audit.js';
import { connectRedis, redisScript, type RedisCommands, type RedisTarget, type ScriptCall } from '../../api/_lib/stores/redis.js';
import { auditRecordOf, inAuditScope, openAuditScope, type AuditRecordDraft, type AuditScope } from '../../api/_lib/util/audit-scope.js';
import { redisBackend } from '../helpers/backends.js';
import { redisCommand } from '../helpers/redis.js';

const backend = redisBackend();
let target: RedisTarget;
let commands: RedisCommands;
const url = () => backend.server().url;
const raw = (...command: string[]) => redisCommand(url(), command);

beforeAll(async () => {
  await backend.setup();
  target = ((await backend.fresh()) as { redis: RedisTarget }).redis;
  commands = connectRedis(target, { name: 'audit kit', retryHint: '' }, { retryDelaysMs: [] }).commands;
}, 30_000);
afterAll(() => backend.teardown());

let n = 0;
const scopeOf = (fields: Partial<AuditScope> = {}): AuditScope => {
  n++;
  return {
    ...openAuditScope({ actor: { via: 'password' }, route: 'admin/kit', method: 'POST', requestId: `kit-request-${n}`, changeStatus: 201 }),
    ...fields,
  };
};
const kept = async (scope: AuditScope) => (await raw('HEXISTS', AUDIT_KEYS.requests, scope.draft.requestId)) === 1;

/** Run `source` as the running request's script; its reply (or error), whether the scope was marked, whether a record was kept. */
async function audited(source: string, options: { keys?: string[]; args?: string[]; scope?: AuditScope } = {}) {
  const scope = options.scope ?? scopeOf();
  let outcome: { reply: unknown } | { error: string };
  try {
    outcome = {
      reply: await inAuditScope(scope, () =>
        commands.script({ script: redisScript(source), keys: options.keys ?? [], args: options.args ?? [] }),
      ),
    };
  } catch (e) {
    // the store's 503 carries the script's error reply as its cause
    const error = e as Error & { cause?: Error };
    outcome = { error: `${error.message} ${String(error.cause?.message)}` };
  }
  return { ...outcome, recorded: scope.recorded, kept: await kept(scope), scope };
}

const record = (requestId: string, fields: Partial<AuditRecordDraft> = {}): AuditRecordDraft => ({
  ...auditRecordOf(
    openAuditScope({ actor: { via: 'cron' }, route: 'admin/ledger-verify', method: 'POST', requestId, changeStatus: 200 }),
    200,
    true,
    new Date('2026-11-20T00:00:00.250Z'),
  ),
  ...fields,
});
const append = (r: AuditRecordDraft) => commands.script({ script: auditAppendScript(), keys: [], args: auditArgs(r) });

describe('the append script', () => {
  it('appends a record once per request id, with its sequence number, under every index it belongs to', async () => {
    await backend.flush();
    expect(auditAppendScript()).toBe(auditAppendScript());
    const a = record('append-a', { account: 'acc-1' });
    expect(await append(a)).toBe(1);
    expect(await append({ ...a, status: 500 })).toBeNull();
    const b = record('append-b');
    expect(await append(b)).toBe(2);
    expect(await raw('GET', AUDIT_KEYS.seq)).toBe('2');
    expect(await raw('HGETALL', AUDIT_KEYS.requests)).toEqual(['append-a', '0000000000000001', 'append-b', '0000000000000002']);
    expect(await raw('HGET', AUDIT_KEYS.records, '0000000000000001')).toBe(JSON.stringify(a));
    expect(await raw('HGET', AUDIT_KEYS.records, '0000000000000002')).toBe(JSON.stringify(b));
    const at = String(Date.parse(a.at));
    for (const key of [AUDIT_KEYS.index('all'), AUDIT_KEYS.index('actor', 'cron'), AUDIT_KEYS.index('route', 'admin/ledger-verify')])
      expect(await raw('ZRANGE', key, '0', '-1', 'WITHSCORES'), key).toEqual([
        ['0000000000000001', at],
        ['0000000000000002', at],
      ]);
    expect(await raw('ZRANGE', AUDIT_KEYS.index('account', 'acc-1'), '0', '-1')).toEqual(['0000000000000001']);
    expect(await raw('EXISTS', AUDIT_KEYS.index('account', ''))).toBe(0);
  });
});

describe('the audited variant of a script', () => {
  it('is made once per script, and appends the change record of a body that wrote, in the same run', async () => {
    const script = redisScript("return redis.call('SET', KEYS[1], 'x')");
    expect(auditedScript(script)).toBe(auditedScript(script));
    expect(auditedScript(script)).not.toBe(auditedScript(redisScript("return redis.call('SET', KEYS[1], 'y')")));
    const scope = scopeOf({ account: 'acc-7', idempotencyKey: 'key-7' });
    const before = Date.now();
    const out = await audited("return redis.call('SET', KEYS[1], 'x')", { keys: ['kit:written'], scope });
    expect(out).toMatchObject({ reply: 'OK', recorded: true, kept: true });
    expect(await raw('GET', 'kit:written')).toBe('x');
    const member = (await raw('HGET', AUDIT_KEYS.requests, scope.draft.requestId)) as string;
    const written = JSON.parse((await raw('HGET', AUDIT_KEYS.records, member)) as string) as AuditRecordDraft;
    expect({ ...written, at: 'now' }).toStrictEqual({ ...auditRecordOf(scope, 201, true, new Date()), at: 'now' });
    expect(Date.parse(written.at)).toBeGreaterThanOrEqual(before);
    expect(Date.parse(written.at)).toBeLessThanOrEqual(Date.now());
    expect(await raw('ZSCORE', AUDIT_KEYS.index('account', 'acc-7'), member)).toBe(String(Date.parse(written.at)));
  });

  it('appends no record for a body that only reads, through any read command, in any case', async () => {
    await raw('SET', 'kit:str', 'abc');
    await raw('HSET', 'kit:h', 'f', 'v');
    await raw('RPUSH', 'kit:l', 'x');
    await raw('SADD', 'kit:s', 'x');
    await raw('ZADD', 'kit:z', '1', 'm');
    await raw('XADD', 'kit:x', '*', 'f', 'v');
    const reads: [string, ...string[]][] = [
      ['EXISTS', 'kit:str'], ['GET', 'kit:str'], ['MGET', 'kit:str'], ['STRLEN', 'kit:str'], ['GETRANGE', 'kit:str', '0', '1'],
      ['SUBSTR', 'kit:str', '0', '1'], ['GETBIT', 'kit:str', '0'], ['BITCOUNT', 'kit:str'], ['BITPOS', 'kit:str', '1'], ['TYPE', 'kit:str'],
      ['TTL', 'kit:str'], ['PTTL', 'kit:str'], ['EXPIRETIME', 'kit:str'], ['PEXPIRETIME', 'kit:str'], ['TIME'],
      ['HGET', 'kit:h', 'f'], ['HMGET', 'kit:h', 'f'], ['HGETALL', 'kit:h'], ['HEXISTS', 'kit:h', 'f'], ['HLEN', 'kit:h'], ['HKEYS', 'kit:h'],
      ['HVALS', 'kit:h'], ['HSTRLEN', 'kit:h', 'f'], ['HRANDFIELD', 'kit:h'], ['HSCAN', 'kit:h', '0'],
      ['LINDEX', 'kit:l', '0'], ['LRANGE', 'kit:l', '0', '-1'], ['LLEN', 'kit:l'], ['LPOS', 'kit:l', 'x'],
      ['SMEMBERS', 'kit:s'], ['SISMEMBER', 'kit:s', 'x'], ['SMISMEMBER', 'kit:s', 'x'], ['SCARD', 'kit:s'], ['SRANDMEMBER', 'kit:s'],
      ['SSCAN', 'kit:s', '0'], ['SINTER', 'kit:s'], ['SINTERCARD', '1', 'kit:s'], ['SUNION', 'kit:s'], ['SDIFF', 'kit:s'],
      ['ZRANGE', 'kit:z', '0', '-1'], ['ZRANGEBYSCORE', 'kit:z', '-inf', '+inf'], ['ZREVRANGE', 'kit:z', '0', '-1'],
      ['ZREVRANGEBYSCORE', 'kit:z', '+inf', '-inf'], ['ZRANGEBYLEX', 'kit:z', '-', '+'], ['ZREVRANGEBYLEX', 'kit:z', '+', '-'],
      ['ZSCORE', 'kit:z', 'm'], ['ZMSCORE', 'kit:z', 'm'], ['ZCARD', 'kit:z'], ['ZCOUNT', 'kit:z', '-inf', '+inf'], ['ZRANK', 'kit:z', 'm'],
      ['ZREVRANK', 'kit:z', 'm'], ['ZLEXCOUNT', 'kit:z', '-', '+'], ['ZRANDMEMBER', 'kit:z'], ['ZSCAN', 'kit:z', '0'], ['ZUNION', '1', 'kit:z'],
      ['ZINTER', '1', 'kit:z'], ['ZINTERCARD', '1', 'kit:z'], ['ZDIFF', '1', 'kit:z'],
      ['XRANGE', 'kit:x', '-', '+'], ['XREVRANGE', 'kit:x', '+', '-'], ['XLEN', 'kit:x'],
    ]; // prettier-ignore
    const lua = (c: string[]) => `redis.call(${c.map((a) => `'${a}'`).join(', ')})`;
    const every = await audited(`${reads.map(lua).join('\n')}\nreturn 1`);
    expect(every).toMatchObject({ reply: 1, recorded: false, kept: false });
    // each on its own, whatever its case: none is a change
    const lower = await audited(`${reads.map(([c, ...a]) => lua([c.toLowerCase(), ...a])).join('\n')}\nreturn 2`);
    expect(lower).toMatchObject({ reply: 2, recorded: false, kept: false });
    expect(await audited("local r = redis.call('GET', 'kit:str') return r")).toMatchObject({ reply: 'abc', recorded: false, kept: false });
  });

  it('takes a counted write that answered 0 for no change, and one that answered more for a change', async () => {
    await raw('SET', 'kit:nx', '1');
    await raw('HSET', 'kit:hnx', 'f', 'v');
    await raw('SADD', 'kit:sx', 'x');
    const unchanged: string[][] = [
      ['DEL', 'kit:none'], ['UNLINK', 'kit:none'], ['HDEL', 'kit:hnx', 'none'], ['SREM', 'kit:sx', 'none'], ['ZREM', 'kit:z', 'none'],
      ['SADD', 'kit:sx', 'x'], ['HSETNX', 'kit:hnx', 'f', 'w'], ['SETNX', 'kit:nx', '2'], ['LREM', 'kit:l', '0', 'none'],
      ['SMOVE', 'kit:sx', 'kit:sy', 'none'],
    ]; // prettier-ignore
    const lua = (c: string[]) => `redis.call(${c.map((a) => `'${a}'`).join(', ')})`;
    expect(await audited(`${unchanged.map(lua).join('\n')}\nreturn 0`)).toMatchObject({ reply: 0, recorded: false, kept: false });
    const changed: string[][] = [
      ['DEL', 'kit:d1'], ['UNLINK', 'kit:d2'], ['HDEL', 'kit:h2', 'f'], ['SREM', 'kit:s2', 'x'], ['ZREM', 'kit:z2', 'm'],
      ['SADD', 'kit:s3', 'y'], ['HSETNX', 'kit:h3', 'g', 'w'], ['SETNX', 'kit:nx3', '2'], ['LREM', 'kit:l2', '0', 'x'],
      ['SMOVE', 'kit:s4', 'kit:s5', 'x'],
    ]; // prettier-ignore
    await raw('SET', 'kit:d1', '1');
    await raw('SET', 'kit:d2', '1');
    await raw('HSET', 'kit:h2', 'f', 'v');
    await raw('SADD', 'kit:s2', 'x');
    await raw('ZADD', 'kit:z2', '1', 'm');
    await raw('RPUSH', 'kit:l2', 'x');
    await raw('SADD', 'kit:s4', 'x');
    for (const c of changed) {
      expect(await audited(`${lua(c)}\nreturn 1`), c[0]).toMatchObject({ reply: 1, recorded: true, kept: true });
    }
    // a write through pcall counts; an error reply of pcall does not
    await raw('SET', 'kit:text', 'not a number');
    expect(await audited("local r = redis.pcall('INCR', 'kit:text') return type(r) == 'table' and r.err and 1 or 0")).toMatchObject({
      reply: 1,
      recorded: false,
      kept: false,
    });
    expect(await audited("redis.pcall('INCR', 'kit:count') return 1")).toMatchObject({ reply: 1, recorded: true, kept: true });
  });

  it('checks every key the record is written to before the body runs, and runs nothing when one holds another type', async () => {
    const cases: [string, string[], Partial<AuditScope>][] = [
      [AUDIT_KEYS.seq, ['HSET', AUDIT_KEYS.seq, 'f', 'v'], {}],
      [AUDIT_KEYS.records, ['SET', AUDIT_KEYS.records, 'x'], {}],
      [AUDIT_KEYS.requests, ['SET', AUDIT_KEYS.requests, 'x'], {}],
      [AUDIT_KEYS.index('all'), ['SET', AUDIT_KEYS.index('all'), 'x'], {}],
      [AUDIT_KEYS.index('actor', 'admin-password'), ['SET', AUDIT_KEYS.index('actor', 'admin-password'), 'x'], {}],
      [AUDIT_KEYS.index('route', 'admin/kit'), ['SET', AUDIT_KEYS.index('route', 'admin/kit'), 'x'], {}],
      [AUDIT_KEYS.index('account', 'acc-bad'), ['SET', AUDIT_KEYS.index('account', 'acc-bad'), 'x'], { account: 'acc-bad' }],
    ];
    for (const [key, setup, fields] of cases) {
      await backend.flush();
      await raw(...setup);
      const scope = scopeOf(fields);
      const out = await audited("redis.call('SET', 'kit:body', 'ran') return 1", { scope });
      expect(out, key).toMatchObject({ recorded: false, kept: false });
      expect('error' in out && out.error, key).toContain(`audit log: ${key} holds a`);
      expect(await raw('EXISTS', 'kit:body'), key).toBe(0);
    }
    await backend.flush();
    await raw('SET', AUDIT_KEYS.seq, 'many');
    const notCount = await audited("redis.call('SET', 'kit:body', 'ran') return 1");
    expect('error' in notCount && notCount.error).toContain(`audit log: ${AUDIT_KEYS.seq} is not a count`);
    expect(await raw('EXISTS', 'kit:body')).toBe(0);
    // an account index is written only for a record that names an account
    await backend.flush();
    await raw('SET', AUDIT_KEYS.index('account', ''), 'x');
    expect(await audited("return redis.call('SET', 'kit:body', 'ran')")).toMatchObject({ reply: 'OK', recorded: true, kept: true });
    await backend.flush();
  });

  it('hands the body its own ARGV, and answers its reply: nil, a list, an error after a write (with the record)', async () => {
    const argv = await audited("redis.call('SET', KEYS[1], ARGV[1]) return {#ARGV, ARGV[1], ARGV[2], #KEYS}", {
      keys: ['kit:argv'],
      args: ['a', 'b'],
    });
    expect(argv).toMatchObject({ reply: [2, 'a', 'b', 1], recorded: true });
    expect(await raw('GET', 'kit:argv')).toBe('a');
    expect(await audited("redis.call('SET', 'kit:nil', 'x') return nil")).toMatchObject({ reply: null, recorded: true, kept: true });
    expect(await audited("redis.call('SET', 'kit:list', 'x') return {'one', 'two'}")).toMatchObject({
      reply: ['one', 'two'],
      recorded: true,
    });
    const failed = await audited("redis.call('SET', 'kit:failed', 'x') return redis.error_reply('ERR kit: refused after a write')");
    expect('error' in failed && failed.error).toContain('kit: refused after a write');
    // a Lua script is not rolled back: the write happened and has its record (the scope cannot know)
    expect([failed.recorded, failed.kept]).toEqual([false, true]);
    expect(await audited("return redis.error_reply('ERR kit: refused')")).toMatchObject({ recorded: false, kept: false });
  });
});

describe('the call a store makes', () => {
  const call: ScriptCall = { script: redisScript("redis.call('SET', KEYS[1], ARGV[1]) return ARGV[1]"), keys: ['kit:call'], args: ['v'] };

  it('is the call itself outside a request, or once its request has a record', () => {
    for (const scope of [undefined, scopeOf({ recorded: true })]) {
      const out = auditedCall(call, scope);
      expect(out.call).toBe(call);
      const reply = ['audit:recorded', 1, 'x'];
      expect(out.reply(reply)).toBe(reply);
    }
    expect(auditedCall(call).call).toBe(call);
  });

  it('carries the running request’s change record after the script’s own arguments', async () => {
    const scope = scopeOf({ account: 'acc-c', idempotencyKey: 'key-c' });
    const before = Date.now();
    const out = await inAuditScope(scope, () => Promise.resolve(auditedCall(call)));
    const after = Date.now();
    expect(out.call.script).toBe(auditedScript(call.script));
    expect(out.call.keys).toEqual(['kit:call']);
    expect(out.call.args.slice(0, 1)).toEqual(['v']);
    const own = out.call.args.slice(1);
    const at = Number(own[2]);
    expect(at).toBeGreaterThanOrEqual(before);
    expect(at).toBeLessThanOrEqual(after);
    expect(own).toStrictEqual(auditArgs(auditRecordOf(scope, 201, true, new Date(at))));
  });

  it('reads the reply back: the body’s answer, and the scope marked recorded only when the script appended', async () => {
    const run = async (source: string, scope = scopeOf()) => {
      const a = auditedCall({ script: redisScript(source), keys: [], args: [] }, scope);
      const rawReply = await commands.script(a.call);
      return { rawReply, reply: a.reply(rawReply), scope };
    };
    const wrote = await run("redis.call('SET', 'kit:r1', 'x') return 7");
    expect(wrote.rawReply).toEqual([AUDITED_MARKER, expect.any(Number), 7]);
    expect(AUDITED_MARKER).toBe('audit:recorded');
    expect([wrote.reply, wrote.scope.recorded]).toEqual([7, true]);
    const nil = await run("redis.call('SET', 'kit:r2', 'x') return nil");
    expect(nil.rawReply).toHaveLength(2);
    expect([nil.reply, nil.scope.recorded]).toEqual([null, true]);
    const list = await run("redis.call('SET', 'kit:r3', 'x') return {'a', 'b'}");
    expect([list.reply, list.scope.recorded]).toEqual([['a', 'b'], true]);
    const read = await run("return {'first', 'second', 'third'}");
    expect([read.reply, read.scope.recorded]).toEqual([['first', 'second', 'third'], false]);
    const lookalike = await run("return {'audit:other', 1, 2}");
    expect([lookalike.reply, lookalike.scope.recorded]).toEqual([['audit:other', 1, 2], false]);
    const empty = await run("return {'', 1, 2}");
    expect([empty.reply, empty.scope.recorded]).toEqual([['', 1, 2], false]);
    const number = await run("return redis.call('EXISTS', 'kit:r1')");
    expect([number.reply, number.scope.recorded]).toEqual([1, false]);
    // a second write of a request that has its record: no second record
    const records = await raw('HLEN', AUDIT_KEYS.requests);
    const again = await run("redis.call('SET', 'kit:r4', 'x') return 1", wrote.scope);
    expect(again.rawReply).toBe(1);
    expect(await raw('HLEN', AUDIT_KEYS.requests)).toBe(records);
  });
});
