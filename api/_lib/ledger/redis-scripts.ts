/**
 * The Lua scripts of the Redis ledger (docs/architecture.md, "Ledger"). Each write is one script, so it
 * is atomic on the server; each makes every check before its first write and is safe to run twice with
 * the same arguments (a retry after a lost response finds its own record and writes nothing).
 *
 * Values written by the scripts are strings only (numbers in decimal, JSON with numbers as strings), so
 * no client-side deserialization can change them (`@upstash/redis` parses JSON-looking replies).
 * Upstash runs scripts one at a time unless they declare `#!lua flags=allow-key-locking`, which
 * `redis-server` does not accept; the scripts declare every key they touch in `KEYS` either way.
 */
import { IDEMPOTENCY_LUA } from '../stores/idempotency.js';

/** Lua helper: the canonical posting string, twin of `canonicalPosting` in `chain.ts`. */
const CANONICAL = `
local function field(s) return string.len(s) .. ':' .. s end
local function canonical(parts)
  local out = {}
  for i = 1, #parts do out[i] = field(parts[i]) end
  return table.concat(out, '|')
end
`;

/**
 * Credit once per source ref, or reverse a credit (docs/architecture.md, "Reversals").
 * KEYS: 1 credit keys hash (idempotency records), 2 account hash, 3 account postings list, 4 issuer hash,
 *       5 issuer postings list, 6 set of ledger accounts, 7 transfers hash (entry id → transfer JSON),
 *       8 entry hash (`n:<entry id>` → the annotation `{note, actor}` as JSON, `r:<entry id>` → the
 *       entry id of its reversal), 9 the ledger accounts in id order (sorted set, all scores 0).
 * ARGV: 1 sourceRef, 2 entryId, 3 kind, 4 accountId, 5 amount (decimal), 6 purpose, 7 note, 8 at,
 *       9 issuer id, 10 request fingerprint, 11 actor, 12 the entry a reversal reverses (`''` otherwise).
 * Returns `{'stored', entryId}` when the source ref was recorded with this fingerprint, `{'key-reused'}`
 * with another, `{'no-account'}`, `{'overflow'}`, for a reversal `{'no-entry'}`,
 * `{'already-reversed', entryId}` (the reversal's) or `{'insufficient', balance}`, or
 * `{'applied', transferJson}` (the stored form: the note and actor are in the annotation).
 */
export const CREDIT_SCRIPT = `${IDEMPOTENCY_LUA}${CANONICAL}
local ref, same = idem_lookup(KEYS[1], ARGV[1], ARGV[10])
if ref then
  if not same then return {'key-reused'} end
  return {'stored', ref}
end
if redis.call('HEXISTS', KEYS[2], 'studioId') == 0 then return {'no-account'} end
local amount = tonumber(ARGV[5])
if not amount or amount < 1 or amount % 1 ~= 0 or amount > 9007199254740991 then
  return redis.error_reply('ERR ledger: amount must be a positive safe integer')
end
local function state(key)
  local v = redis.call('HMGET', key, 'balance', 'seq', 'head')
  return tonumber(v[1] or '0'), tonumber(v[2] or '0'), v[3] or ''
end
local ib, iseq, ihead = state(KEYS[4])
local ab, aseq, ahead = state(KEYS[2])
local gain = amount
local reverses = ''
if ARGV[3] == 'reversal' then
  reverses = ARGV[12]
  local stored = redis.call('HGET', KEYS[7], reverses)
  if not stored then return {'no-entry'} end
  local o = cjson.decode(stored)
  if o.accountId ~= ARGV[4] or tonumber(o.amount) ~= amount or o.kind == 'reversal' then return {'no-entry'} end
  local by = redis.call('HGET', KEYS[8], 'r:' .. reverses)
  if by then return {'already-reversed', by} end
  if ab < amount then return {'insufficient', string.format('%d', ab)} end
  gain = -amount
end
if ab + gain > 9007199254740991 or ib - gain < -9007199254740991 then return {'overflow'} end
local function d(n) return string.format('%d', n) end
local function post(hkey, lkey, account, seq, amt, bal, counterparty, prev)
  local sseq, samt, sbal = d(seq), d(amt), d(bal)
  local hash = redis.sha1hex(canonical({'ledger-posting-v2', ARGV[2], account, sseq, samt, sbal,
    ARGV[1], ARGV[3], ARGV[6], counterparty, ARGV[8], reverses, prev}))
  redis.call('RPUSH', lkey, cjson.encode({entryId = ARGV[2], accountId = account, seq = sseq, amount = samt,
    balanceAfter = sbal, sourceRef = ARGV[1], kind = ARGV[3], purpose = ARGV[6],
    counterparty = counterparty, at = ARGV[8], reverses = reverses, prev = prev, hash = hash}))
  redis.call('HSET', hkey, 'balance', sbal, 'seq', sseq, 'head', hash)
  redis.call('SADD', KEYS[6], account)
  redis.call('ZADD', KEYS[9], 0, account)
end
post(KEYS[4], KEYS[5], ARGV[9], iseq + 1, -gain, ib - gain, ARGV[4], ihead)
post(KEYS[2], KEYS[3], ARGV[4], aseq + 1, gain, ab + gain, ARGV[9], ahead)
local transfer = cjson.encode({entryId = ARGV[2], sourceRef = ARGV[1], kind = ARGV[3], accountId = ARGV[4],
  amount = d(amount), purpose = ARGV[6], balanceAfter = d(ab + gain), at = ARGV[8], reverses = reverses})
redis.call('HSET', KEYS[7], ARGV[2], transfer)
redis.call('HSET', KEYS[8], 'n:' .. ARGV[2], cjson.encode({note = ARGV[7], actor = ARGV[11]}))
if reverses ~= '' then redis.call('HSET', KEYS[8], 'r:' .. reverses, ARGV[2]) end
idem_record(KEYS[1], ARGV[1], ARGV[10], ARGV[2])
return {'applied', transfer}
`;

/**
 * Create an account once.
 * KEYS: 1 account keys hash (idempotency records), 2 username index, 3 studio-id index, 4 the new account's
 *       hash, 5 the display-name index (sorted set, all scores 0, members `<name key>\0<accountId>`).
 * ARGV: 1 client key (`''` for none), 2 fingerprint, 3 accountId, 4 studioId, 5 displayName, 6 userId,
 *       7 username, 8 createdAt, 9 the name index member.
 * Returns `{'existing', accountId}` (the key created it before with this fingerprint), `{'key-reused'}`,
 * `{'username-taken'}`, `{'studio-id-taken'}` or `{'created', accountId}` (also when a retry finds its
 * own account).
 */
export const CREATE_ACCOUNT_SCRIPT = `${IDEMPOTENCY_LUA}
if ARGV[1] ~= '' then
  local ref, same = idem_lookup(KEYS[1], ARGV[1], ARGV[2])
  if ref then
    if not same then return {'key-reused'} end
    return {'existing', ref}
  end
end
local owner = redis.call('HGET', KEYS[2], ARGV[7])
if owner == ARGV[3] then return {'created', ARGV[3]} end
if owner then return {'username-taken'} end
if redis.call('HEXISTS', KEYS[3], ARGV[4]) == 1 then return {'studio-id-taken'} end
redis.call('HSET', KEYS[4], 'accountId', ARGV[3], 'studioId', ARGV[4], 'displayName', ARGV[5],
  'userId', ARGV[6], 'username', ARGV[7], 'createdAt', ARGV[8])
redis.call('HSET', KEYS[2], ARGV[7], ARGV[3])
redis.call('HSET', KEYS[3], ARGV[4], ARGV[3])
redis.call('ZADD', KEYS[5], 0, ARGV[9])
if ARGV[1] ~= '' then idem_record(KEYS[1], ARGV[1], ARGV[2], ARGV[3]) end
return {'created', ARGV[3]}
`;

/**
 * Change an account's sessions or ban once per key (docs/architecture.md, "Sessions and bans").
 * KEYS: 1 access keys hash (idempotency records), 2 account hash, 3 the account's access hash.
 * ARGV: 1 key ('' for none), 2 request fingerprint, 3 accountId, 4 kind (`revoke-sessions`, `ban`,
 *       `unban`), 5 revocation time (seconds, decimal), 6 ban reason, 7 ban time, 8 ban end ('' for none).
 * Returns `{'replayed'}` when the key was recorded with this fingerprint, `{'key-reused'}` with another,
 * `{'no-account'}`, `{'erased'}` (a ban or unban of an erased account), or `{'applied'}`; the access
 * hash holds the state after.
 */
export const ACCESS_SCRIPT = `${IDEMPOTENCY_LUA}
if ARGV[1] ~= '' then
  local ref, same = idem_lookup(KEYS[1], ARGV[1], ARGV[2])
  if ref then
    if not same then return {'key-reused'} end
    return {'replayed'}
  end
end
local who = redis.call('HMGET', KEYS[2], 'studioId', 'username')
if not who[1] then return {'no-account'} end
local kind = ARGV[4]
-- an erased account stays closed: its ban is neither replaced nor lifted
if kind ~= 'revoke-sessions' and who[2] == 'erased:' .. who[1] then return {'erased'} end
if kind == 'revoke-sessions' or kind == 'ban' then
  -- a revocation time only moves forward
  local at = tonumber(ARGV[5])
  local was = tonumber(redis.call('HGET', KEYS[3], 'sessionsRevokedAt') or '0')
  if at > was then redis.call('HSET', KEYS[3], 'sessionsRevokedAt', ARGV[5]) end
end
if kind == 'ban' then
  redis.call('HSET', KEYS[3], 'banReason', ARGV[6], 'banAt', ARGV[7])
  if ARGV[8] == '' then redis.call('HDEL', KEYS[3], 'banUntil') else redis.call('HSET', KEYS[3], 'banUntil', ARGV[8]) end
elseif kind == 'unban' then
  redis.call('HDEL', KEYS[3], 'banReason', 'banAt', 'banUntil')
end
if ARGV[1] ~= '' then idem_record(KEYS[1], ARGV[1], ARGV[2], ARGV[3]) end
return {'applied'}
`;

/**
 * Erase an account's personal data once per key (docs/architecture.md, "Erasure and the chain").
 * KEYS: 1 erase keys hash (idempotency records), 2 account hash, 3 username index, 4 display-name index,
 *       5 the account's postings list, 6 entry hash (annotations), 7 the account's access hash.
 * ARGV: 1 key, 2 request fingerprint, 3 accountId, 4 the erased username, 5 revocation time (seconds,
 *       decimal), 6 the closing ban's time, 7 its reason, 8 the account's display-name index member.
 * Returns `{'replayed'}` when the key was recorded with this fingerprint, `{'key-reused'}` with another,
 * `{'no-account'}`, or `{'erased'}`.
 */
export const ERASE_SCRIPT = `${IDEMPOTENCY_LUA}
local ref, same = idem_lookup(KEYS[1], ARGV[1], ARGV[2])
if ref then
  if not same then return {'key-reused'} end
  return {'replayed'}
end
local h = redis.call('HMGET', KEYS[2], 'studioId', 'username')
if not h[1] then return {'no-account'} end
if h[2] then redis.call('HDEL', KEYS[3], h[2]) end
redis.call('HSET', KEYS[3], ARGV[4], ARGV[3])
redis.call('ZREM', KEYS[4], ARGV[8])
redis.call('HSET', KEYS[2], 'displayName', '', 'username', ARGV[4])
for _, raw in ipairs(redis.call('LRANGE', KEYS[5], 0, -1)) do
  local id = cjson.decode(raw).entryId
  local field = 'n:' .. id
  local stored = redis.call('HGET', KEYS[6], field)
  local actor = ''
  if stored then actor = cjson.decode(stored).actor or '' end
  redis.call('HSET', KEYS[6], field, cjson.encode({note = '', actor = actor}))
end
local at = tonumber(ARGV[5])
local was = tonumber(redis.call('HGET', KEYS[7], 'sessionsRevokedAt') or '0')
if at > was then redis.call('HSET', KEYS[7], 'sessionsRevokedAt', ARGV[5]) end
redis.call('HSET', KEYS[7], 'banReason', ARGV[7], 'banAt', ARGV[6])
redis.call('HDEL', KEYS[7], 'banUntil')
idem_record(KEYS[1], ARGV[1], ARGV[2], ARGV[3])
return {'erased'}
`;

/**
 * The ledger's totals in one atomic step (docs/architecture.md, "Scheduled verification").
 * KEYS: 1 transfers hash, 2 the issuer's account hash.
 * Returns `{transfers, issuerSeq}`, both in decimal.
 */
export const TOTALS_SCRIPT = `
return {tostring(redis.call('HLEN', KEYS[1])), redis.call('HGET', KEYS[2], 'seq') or '0'}
`;

/**
 * Record a run of the scheduled check: push its result (keeping the newest `keep`), and replace the
 * cursor only while it is still the one the run started from.
 * KEYS: 1 the cursor (string), 2 the results (list, newest first).
 * ARGV: 1 `1` when the run started from a cursor, `0` when there was none, 2 that cursor, 3 the new
 *       cursor, 4 the result, 5 keep.
 * Returns `{'written'}` or `{'superseded'}`.
 */
export const RECORD_VERIFICATION_SCRIPT = `
local current = redis.call('GET', KEYS[1])
redis.call('LPUSH', KEYS[2], ARGV[4])
redis.call('LTRIM', KEYS[2], 0, tonumber(ARGV[5]) - 1)
local same
if ARGV[1] == '0' then same = (current == false) else same = (current == ARGV[2]) end
if not same then return {'superseded'} end
redis.call('SET', KEYS[1], ARGV[3])
return {'written'}
`;
