/**
 * The audit record in the store kit (docs/architecture.md, "Audit log"; spec 5.3: who used admin rights):
 * its format, its SQLite table and Redis keys, and how a store write carries it.
 *
 * Every state-changing request of an operator or a game server has exactly one record, keyed by its
 * request id. When the request changes the ledger or player state, the record is written **in the same
 * atomic step as its first change**: the SQLite kit adds the record's row to the write's transaction when
 * the write changed a row ({@link trackChanges}, `sqlite.ts`), the Redis kit runs the script's audited
 * variant ({@link auditedScript}), which appends the record in the same script when the script wrote.
 * A request that changed nothing (refused, replayed) or changed object storage only gets its record
 * after its answer is known (`api/_lib/audit/`), by the same request-id guard, so a second record of a
 * request is impossible on both stores.
 *
 * Records are append-only: SQLite triggers refuse UPDATE and DELETE of `audit_log`; the Redis keys are
 * written by these scripts only. Personal data never enters a record (actor subjects are operator or
 * server ids, the account an account id), so an erasure leaves the log as it is.
 */
import type { InStatement, Transaction } from '@libsql/client';
import { auditRecordOf, currentAuditScope, type AuditActor, type AuditRecordDraft, type AuditScope } from '../util/audit-scope.js';
import { redisScript, type RedisScript, type ScriptCall } from './redis.js';

/** The actor a record is filed under in the actor filter: the token's subject, `admin-password`, `cron` or `anonymous`. */
export function actorKey(actor: AuditActor): string {
  return actor.via === 'token' ? actor.subject : actor.via === 'password' ? 'admin-password' : actor.via === 'cron' ? 'cron' : 'anonymous';
}

/** The record a change writes with itself: the route's change status, changed. */
function changeRecord(scope: AuditScope): AuditRecordDraft {
  return auditRecordOf(scope, scope.draft.changeStatus, true, new Date());
}

// ---------------------------------------------------------------- SQLite

/** The table of the log, a layout of its own that every SQLite store applies (`sqlite.ts`). */
export const AUDIT_LAYOUT = {
  component: 'audit',
  version: 1,
  ddl: `
CREATE TABLE IF NOT EXISTS audit_log (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  at_ms INTEGER NOT NULL,
  actor TEXT NOT NULL,
  account TEXT,
  route TEXT NOT NULL,
  request_id TEXT NOT NULL UNIQUE,
  record TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS audit_by_time ON audit_log (at_ms, seq);
CREATE INDEX IF NOT EXISTS audit_by_account ON audit_log (account, at_ms, seq);
CREATE INDEX IF NOT EXISTS audit_by_actor ON audit_log (actor, at_ms, seq);
CREATE INDEX IF NOT EXISTS audit_by_route ON audit_log (route, at_ms, seq);
CREATE TRIGGER IF NOT EXISTS audit_log_no_update BEFORE UPDATE ON audit_log BEGIN SELECT RAISE(ABORT, 'audit records are append-only'); END;
CREATE TRIGGER IF NOT EXISTS audit_log_no_delete BEFORE DELETE ON audit_log BEGIN SELECT RAISE(ABORT, 'audit records are append-only'); END;
`,
} as const;

/** The statement appending `record`, unless its request already has one. */
export function auditInsert(record: AuditRecordDraft): InStatement {
  return {
    sql: 'INSERT INTO audit_log (at_ms, actor, account, route, request_id, record) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (request_id) DO NOTHING',
    args: [Date.parse(record.at), actorKey(record.actor), record.account, record.route, record.requestId, JSON.stringify(record)],
  };
}

/**
 * A transaction that reports whether anything run through it changed a row (`rowsAffected` of a
 * statement, which is 0 for a read and for an `INSERT OR IGNORE` that ignored), for a write's record.
 */
export function trackChanges(tx: Transaction): { tx: Transaction; changed: () => boolean } {
  let changed = false;
  const tracked = new Proxy(tx, {
    get(target, name) {
      // read on the transaction itself: its getters (`closed`) read private fields, which the proxy lacks
      const value: unknown = Reflect.get(target, name);
      if (typeof value !== 'function') return value;
      if (name === 'execute') {
        return async (stmt: InStatement) => {
          const out = await target.execute(stmt);
          if (out.rowsAffected > 0) changed = true;
          return out;
        };
      }
      if (name === 'batch') {
        return async (stmts: InStatement[]) => {
          const out = await target.batch(stmts);
          if (out.some((r) => r.rowsAffected > 0)) changed = true;
          return out;
        };
      }
      if (name === 'executeMultiple') {
        return async (sql: string) => {
          changed = true;
          return target.executeMultiple(sql);
        };
      }
      return (value as (...args: unknown[]) => unknown).bind(target);
    },
  });
  return { tx: tracked, changed: () => changed };
}

/**
 * `work` made a write that carries the running request's record: when it changed a row and the request
 * has no record yet, the record is added to the same transaction. Outside an audit scope, `work` as it is.
 * @returns the wrapped work, and `settle` to call once the transaction committed (marks the scope recorded)
 */
export function auditedWork<T>(
  work: (tx: Transaction) => Promise<T>,
  scope: AuditScope | undefined = currentAuditScope(),
): { work: (tx: Transaction) => Promise<T>; settle: () => void } {
  if (!scope || scope.recorded) return { work, settle: () => undefined };
  let wrote = false;
  return {
    async work(tx) {
      const tracked = trackChanges(tx);
      const out = await work(tracked.tx);
      wrote = tracked.changed() && !scope.recorded;
      if (wrote) await tx.execute(auditInsert(changeRecord(scope)));
      return out;
    },
    settle() {
      if (wrote) scope.recorded = true;
    },
  };
}

// ---------------------------------------------------------------- Redis

/** Keys of the log on Redis: the sequence, records by member, the request-id guard, and one time index per filter. */
export const AUDIT_KEYS = {
  seq: 'audit:seq',
  records: 'audit:records',
  requests: 'audit:requests',
  /** Sorted sets: score the record's time in ms, member its zero-padded sequence number. */
  index: (filter: 'all' | 'account' | 'actor' | 'route', value = '') => (filter === 'all' ? 'audit:i:all' : `audit:i:${filter}:${value}`),
} as const;

/**
 * `audit_check(account, actor, route)`: an error reply naming the key when one of the keys a record would
 * be written to holds another type, else nil. An audited script runs it before its body, so that the
 * record's writes after the body cannot fail (a Lua script is not rolled back: a failure after the body
 * wrote would leave a change without its record).
 *
 * `audit_append(request_id, json, at_ms, account, actor, route)`: append a record unless its request has
 * one; the record's sequence number, or false when the request already had a record.
 */
const AUDIT_APPEND_LUA = `
local function audit_index_keys(account, actor, route)
  local keys = {'${AUDIT_KEYS.index('all')}', 'audit:i:actor:' .. actor, 'audit:i:route:' .. route}
  if account ~= '' then keys[#keys + 1] = 'audit:i:account:' .. account end
  return keys
end
local function audit_check(account, actor, route)
  local expected = {['${AUDIT_KEYS.seq}'] = 'string', ['${AUDIT_KEYS.records}'] = 'hash', ['${AUDIT_KEYS.requests}'] = 'hash'}
  for _, k in ipairs(audit_index_keys(account, actor, route)) do expected[k] = 'zset' end
  for k, t in pairs(expected) do
    local found = redis.call('TYPE', k)['ok']
    if found ~= 'none' and found ~= t then return redis.error_reply('ERR audit log: ' .. k .. ' holds a ' .. found) end
  end
  local seq = redis.call('GET', '${AUDIT_KEYS.seq}')
  if seq and not string.match(seq, '^%d+$') then return redis.error_reply('ERR audit log: ${AUDIT_KEYS.seq} is not a count') end
  return nil
end
local function audit_append(rid, json, at, account, actor, route)
  if redis.call('HEXISTS', '${AUDIT_KEYS.requests}', rid) == 1 then return false end
  local seq = redis.call('INCR', '${AUDIT_KEYS.seq}')
  local member = string.format('%016d', seq)
  redis.call('HSET', '${AUDIT_KEYS.requests}', rid, member)
  redis.call('HSET', '${AUDIT_KEYS.records}', member, json)
  for _, k in ipairs(audit_index_keys(account, actor, route)) do redis.call('ZADD', k, at, member) end
  return seq
end
`;

let appendScript: RedisScript | undefined;

/** The script appending one record (ARGV: {@link auditArgs}); answers the sequence number, or nil when its request had one. */
export function auditAppendScript(): RedisScript {
  appendScript ??= redisScript(`${AUDIT_APPEND_LUA}
return audit_append(ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5], ARGV[6])`);
  return appendScript;
}

/** The six arguments of `audit_append` for `record`. */
export function auditArgs(record: AuditRecordDraft): string[] {
  return [
    record.requestId,
    JSON.stringify(record),
    String(Date.parse(record.at)),
    record.account ?? '',
    actorKey(record.actor),
    record.route,
  ];
}

/**
 * Commands that only read: a call of one is never a change. Any other command counts as a write (a read
 * missing here gives a record saying `changed` of a request that changed nothing, never a change without
 * its record).
 */
const READ_COMMANDS = [
  'EXISTS', 'GET', 'MGET', 'STRLEN', 'GETRANGE', 'SUBSTR', 'GETBIT', 'BITCOUNT', 'BITPOS', 'TYPE', 'TTL', 'PTTL', 'EXPIRETIME', 'PEXPIRETIME', 'TIME',
  'HGET', 'HMGET', 'HGETALL', 'HEXISTS', 'HLEN', 'HKEYS', 'HVALS', 'HSTRLEN', 'HRANDFIELD', 'HSCAN',
  'LINDEX', 'LRANGE', 'LLEN', 'LPOS',
  'SMEMBERS', 'SISMEMBER', 'SMISMEMBER', 'SCARD', 'SRANDMEMBER', 'SSCAN', 'SINTER', 'SINTERCARD', 'SUNION', 'SDIFF',
  'ZRANGE', 'ZRANGEBYSCORE', 'ZREVRANGE', 'ZREVRANGEBYSCORE', 'ZRANGEBYLEX', 'ZREVRANGEBYLEX', 'ZSCORE', 'ZMSCORE', 'ZCARD', 'ZCOUNT', 'ZRANK', 'ZREVRANK', 'ZLEXCOUNT', 'ZRANDMEMBER', 'ZSCAN', 'ZUNION', 'ZINTER', 'ZINTERCARD', 'ZDIFF',
  'XRANGE', 'XREVRANGE', 'XLEN',
]; // prettier-ignore

/**
 * Writes whose integer reply counts what they changed: a reply of 0 changed nothing (a `DEL` of no key, an
 * `HSETNX` of a field already there), as SQLite's `rowsAffected` says 0 of a statement that touched no row.
 */
const COUNTED_WRITES = ['DEL', 'UNLINK', 'HDEL', 'SREM', 'ZREM', 'SADD', 'HSETNX', 'SETNX', 'LREM', 'SMOVE']; // prettier-ignore

/** The first element of the reply of an audited script that appended its record: `[marker, seq, reply]`. */
export const AUDITED_MARKER = 'audit:recorded';

const audited = new WeakMap<RedisScript, RedisScript>();

/**
 * The audited variant of `script`: the same body, run inside a function that sees a local `redis` whose
 * `call` and `pcall` note the writes (however the body reaches them: `redis.call (`, `redis['call']`, a
 * local alias); when one of them changed something and the request has no record yet, the record is
 * appended in the same script run (so atomically). The record's six arguments follow the script's own
 * `ARGV` and are taken off before its body runs, so the body sees its own `ARGV` (and `#ARGV`).
 *
 * The reply is the body's: `[AUDITED_MARKER, seq, reply]` when the record was appended (a nil reply then
 * leaves the third element out), and an error reply as it is, after the record of what the body wrote
 * before it (a Lua script is not rolled back).
 */
export function auditedScript(script: RedisScript): RedisScript {
  let out = audited.get(script);
  if (out) return out;
  out = redisScript(`${AUDIT_APPEND_LUA}
local audit_argv = {}
for i = 6, 1, -1 do audit_argv[i] = table.remove(ARGV) end
local audit_fault = audit_check(audit_argv[4], audit_argv[5], audit_argv[6])
if audit_fault then return audit_fault end
local audit_reads, audit_counted = {}, {}
for _, c in ipairs({${READ_COMMANDS.map((c) => `'${c}'`).join(',')}}) do audit_reads[c] = true end
for _, c in ipairs({${COUNTED_WRITES.map((c) => `'${c}'`).join(',')}}) do audit_counted[c] = true end
local audit_wrote = false
local function audit_note(command, reply)
  local c = string.upper(tostring(command))
  if audit_reads[c] or (audit_counted[c] and reply == 0) then return end
  audit_wrote = true
end
local audit_redis = redis
local redis = setmetatable({
  call = function(command, ...)
    local reply = audit_redis.call(command, ...)
    audit_note(command, reply)
    return reply
  end,
  pcall = function(command, ...)
    local reply = audit_redis.pcall(command, ...)
    if not (type(reply) == 'table' and reply.err) then audit_note(command, reply) end
    return reply
  end,
}, {__index = audit_redis})
local audit_reply = (function()
${script.source}
end)()
local audit_seq = false
if audit_wrote then
  audit_seq = audit_append(audit_argv[1], audit_argv[2], audit_argv[3], audit_argv[4], audit_argv[5], audit_argv[6])
end
if type(audit_reply) == 'table' and audit_reply.err then return audit_reply end
if audit_seq then return {'${AUDITED_MARKER}', audit_seq, audit_reply} end
return audit_reply`);
  audited.set(script, out);
  return out;
}

/**
 * The call a store makes, carrying the running request's record when it has none yet (see
 * {@link auditedScript}), and how to read its reply back.
 */
export function auditedCall(
  call: ScriptCall,
  scope: AuditScope | undefined = currentAuditScope(),
): { call: ScriptCall; reply: (raw: unknown[]) => unknown[] } {
  if (!scope || scope.recorded) return { call, reply: (raw) => raw };
  const auditedCallOf: ScriptCall = {
    script: auditedScript(call.script),
    keys: call.keys,
    args: [...call.args, ...auditArgs(changeRecord(scope))],
  };
  return {
    call: auditedCallOf,
    reply(raw) {
      if (Array.isArray(raw) && raw[0] === AUDITED_MARKER) {
        scope.recorded = true;
        // a nil reply ends the Lua table before it: the script answered nil
        return (raw.length > 2 ? raw[2] : null) as unknown[];
      }
      return raw;
    },
  };
}
