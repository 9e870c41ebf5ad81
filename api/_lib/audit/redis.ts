/**
 * The audit log on Redis (docs/architecture.md, "Audit log"): the store kit's keys
 * (`api/_lib/stores/audit.ts`, `AUDIT_KEYS`): records in one hash by zero-padded sequence number, and one
 * sorted set per filter value (all, account, actor, route) scored by the record's time in ms. A page is
 * one read script: it walks the most selective index newest first (account, then actor, then route, then
 * all), checks the other filters by membership in their indexes, and stops after `limit + 1` matches or
 * {@link AUDIT_SCAN_BUDGET} examined records.
 */
import { AUDIT_KEYS, auditAppendScript, auditArgs } from '../stores/audit.js';
import { connectRedis, redisScript, type RedisTarget } from '../stores/redis.js';
import type { AuditRecord } from '../util/audit-scope.js';
import { AUDIT_SCAN_BUDGET, AUDIT_STORE, type AuditLog, type AuditPage, type AuditQuery } from './types.js';

/**
 * KEYS: the index walked, the records hash, then the indexes of the other filters (0-3 of them).
 * ARGV: max score (`+inf` or `(<ms>`), min score (`-inf` or `<ms>`), the cursor's score and member (`''`
 * for none), limit, budget.
 * Reply: `[nextScore, nextMember, member1, record1, …]`, the next place `''` at the end.
 */
const LIST = redisScript(`
local index, records = KEYS[1], KEYS[2]
local max, min = ARGV[1], ARGV[2]
local cursorScore, cursorMember = ARGV[3], ARGV[4]
local limit, budget = tonumber(ARGV[5]), tonumber(ARGV[6])
local found, examined = {}, 0
local lastScore, lastMember = '', ''
local function consider(member, score)
  examined = examined + 1
  lastScore, lastMember = score, member
  for i = 3, #KEYS do
    if not redis.call('ZSCORE', KEYS[i], member) then return end
  end
  found[#found + 1] = {member, score}
end
local function done() return #found > limit or examined >= budget end
if cursorScore ~= '' then
  -- the rest of the cursor's millisecond, then strictly older ones
  local group = redis.call('ZREVRANGEBYSCORE', index, cursorScore, cursorScore)
  for _, m in ipairs(group) do
    if done() then break end
    if m < cursorMember then consider(m, cursorScore) end
  end
  max = '(' .. cursorScore
end
local batchSize = 200
while not done() do
  local batch = redis.call('ZREVRANGEBYSCORE', index, max, min, 'WITHSCORES', 'LIMIT', 0, batchSize)
  if #batch == 0 then break end
  local edge = batch[#batch]
  local full = #batch == 2 * batchSize
  for i = 1, #batch, 2 do
    if done() then break end
    -- a full batch may cut a millisecond in two: its last one is read whole below
    if full and batch[i + 1] == edge then break end
    consider(batch[i], batch[i + 1])
  end
  if full and not done() then
    for _, m in ipairs(redis.call('ZREVRANGEBYSCORE', index, edge, edge)) do
      if done() then break end
      consider(m, edge)
    end
  end
  max = '(' .. edge
end
local out = {'', ''}
local n = math.min(#found, limit)
if #found > limit then out = {found[limit][2], found[limit][1]}
elseif examined >= budget then out = {lastScore, lastMember} end
for i = 1, n do
  out[#out + 1] = found[i][1]
  out[#out + 1] = redis.call('HGET', records, found[i][1])
end
return out
`);

/** The index key of the most selective filter of `query` and those of the others. */
function indexesOf(query: AuditQuery): string[] {
  const keys: string[] = [];
  if (query.account !== undefined) keys.push(AUDIT_KEYS.index('account', query.account));
  if (query.actor !== undefined) keys.push(AUDIT_KEYS.index('actor', query.actor));
  if (query.route !== undefined) keys.push(AUDIT_KEYS.index('route', query.route));
  return keys.length > 0 ? keys : [AUDIT_KEYS.index('all')];
}

/**
 * The log over the Redis `target`.
 * @param options.retryDelaysMs waits between attempts (default the kit's `RETRY_DELAYS_MS`).
 */
export function openRedisAuditLog(target: RedisTarget, options: { retryDelaysMs?: readonly number[] } = {}): AuditLog {
  const connection = connectRedis(target, AUDIT_STORE, options);
  const commands = connection.commands;
  return {
    driver: 'redis',
    async append(record) {
      // the sequence number, or nil (null on both transports) when the request had a record
      const seq = (await commands.script({ script: auditAppendScript(), keys: [], args: auditArgs(record) })) as unknown;
      return seq !== null;
    },
    async list(query: AuditQuery): Promise<AuditPage> {
      const [first, ...others] = indexesOf(query);
      // the script reads the rest of the cursor's millisecond whatever the range: a place past either
      // end (a cursor made by hand; the binding is no secret) is brought back within it (a missing bound
      // is open)
      if (query.after && query.after.atMs < (query.fromMs ?? -Infinity)) return { records: [], next: undefined };
      const after = query.after && query.after.atMs >= (query.toMs ?? Infinity) ? undefined : query.after;
      const flat = await commands.script({
        script: LIST,
        keys: [first!, AUDIT_KEYS.records, ...others],
        args: [
          query.toMs === undefined ? '+inf' : `(${query.toMs}`,
          query.fromMs === undefined ? '-inf' : String(query.fromMs),
          after === undefined ? '' : String(after.atMs),
          after === undefined ? '' : String(after.seq).padStart(16, '0'),
          String(query.limit),
          String(AUDIT_SCAN_BUDGET),
        ],
      });
      const records: AuditRecord[] = [];
      for (let i = 2; i < flat.length; i += 2) {
        records.push({ id: String(Number(flat[i])), ...(JSON.parse(String(flat[i + 1])) as object) } as AuditRecord);
      }
      const [score, member] = [flat[0] as string, flat[1] as string];
      return { records, next: score === '' ? undefined : { atMs: Number(score), seq: Number(member) } };
    },
    close() {
      return connection.close();
    },
  };
}
