/**
 * Player state on Redis (`STORE_DRIVER=redis`), in the ledger's database, on the store kit's client and
 * retry policy (`api/_lib/stores/redis.ts`; docs/architecture.md, "Player state"). Every write is one Lua
 * script that makes its checks before its first change and is safe to run twice (an island save finds
 * its own write id, the other writes their idempotency record: `api/_lib/stores/idempotency.ts`). No
 * script re-encodes a document the service wrote (Lua's cjson turns `[]` into `{}`): documents are
 * stored as the text the service wrote.
 *
 * Keys: one account's keys share the ledger's hash tag `{a:<accountId>}` (one hash slot):
 * - `player:{a:<id>}:island` hash: `state` (JSON), `revision`, `updatedAt`, `lastWrite`, `recentWrites` (the latest write ids, one per line);
 * - `player:{a:<id>}:chars` hash: `<characterId>:body` (the fixed fields as JSON), `:progress` (JSON),
 *   `:rev`, `:updated`, `:era`;
 * - `player:{a:<id>}:order` list of character ids, oldest first;
 * - `player:{a:<id>}:era-count` hash: era → characters;
 * - `player:{a:<id>}:keys:character` hash: client key → idempotency record (ref: the character id);
 * - `player:{a:<id>}:keys:progress` hash: `<characterId> <key>` → record (ref: `<revision> <digest>`);
 * - `player:{a:<id>}:recipes` hash: recipe id → time learned;
 * - `player:{a:<id>}:items` hash: item id → the item as it stands (JSON), for the unique items the account
 *   owns now (one read answers the account's items);
 * - `player:{a:<id>}:items-ended` hash: item id → the item as it ended (JSON), for the items consumed,
 *   destroyed or voided in the account's hands (since this hash exists);
 * - `player:{a:<id>}:bag` hash: definition → quantity, `<definition>:seq` → entries so far;
 * - `player:{a:<id>}:bag-entries` list: the account's bag entries (append-only, JSON; a reversal's carries
 *   `reverses`, the source ref of the grant it reverses);
 * - `player:{a:<id>}:bag-links` hash: a reversed grant's source ref → its reversal's (one per grant);
 * - `player:{a:<id>}:notes` hash: an operator entry's ref (a bag reversal's source ref, `item:<studio_uuid>:<seq>`
 *   of a void) → `{ note, actor }` as JSON; an erasure blanks the notes;
 * - `player:{a:<id>}:links` set: `<provider> <external user id>` of each identity bound to the account
 *   (bound since this set exists).
 *
 * Global: `player:character-owners` hash: character id → its account id; `player:external-links` hash: `<provider> <external user id>` → the link as JSON;
 * `item:keys:mint` hash: mint key → record (ref: the item id); `bag:keys` hash: bag source ref → record
 * (ref: the entry's index in its account's `bag-entries`); `bag:accounts` set: accounts with bag entries.
 * Per unique item (hash tag `{i:<studio_uuid>}`): `item:{i:<id>}` hash (the instance's fields,
 * `characterId` '' for none), `item:{i:<id>}:events` list (append-only, event JSON), `item:{i:<id>}:keys`
 * hash: event key → record (ref: `<event seq> <state after>`).
 *
 * Bans (spec 5.3): a write asked to refuse a banned account reads the ledger's access hash of each account
 * it changes (`ledger:{a:<id>}:access`, named in `api/_lib/ledger/access.ts`, in the account's own hash slot)
 * in its own script, past any instance's cache of it.
 */
import { byCodeUnits } from '../util/sorted.js';
import type { IslandState } from '../island/generate.js';
import { accessKey } from '../ledger/access.js';
import { IDEMPOTENCY_LUA, requestFingerprint } from '../stores/idempotency.js';
import { connectRedis, redisScript, type RedisTarget } from '../stores/redis.js';
import { storeUnavailable } from '../stores/unavailable.js';
import {
  FINAL_STATES,
  PLAYER_STORE,
  characterBody,
  itemAfter,
  type BagEntry,
  type BagLine,
  type BagPosition,
  type BagRecord,
  type EntryNote,
  type ItemEventRecord,
  type ItemPosition,
  type Suspended,
  type Character,
  type ExternalLink,
  type ItemEvent,
  type ItemInstance,
  type EquipmentRefusal,
  type ItemEventOutcome,
  type ItemState,
  type PlayerStore,
  type Progress,
} from './types.js';

/** Keys of one account (see the module header). */
export const PLAYER_KEYS = Object.freeze({
  island: (a: string) => `player:{a:${a}}:island`,
  chars: (a: string) => `player:{a:${a}}:chars`,
  order: (a: string) => `player:{a:${a}}:order`,
  eraCount: (a: string) => `player:{a:${a}}:era-count`,
  characterKeys: (a: string) => `player:{a:${a}}:keys:character`,
  progressKeys: (a: string) => `player:{a:${a}}:keys:progress`,
  recipes: (a: string) => `player:{a:${a}}:recipes`,
  externalLinks: 'player:external-links',
  links: (a: string) => `player:{a:${a}}:links`,
  characterOwners: 'player:character-owners',
  items: (a: string) => `player:{a:${a}}:items`,
  itemsEnded: (a: string) => `player:{a:${a}}:items-ended`,
  mintKeys: 'item:keys:mint',
  bag: (a: string) => `player:{a:${a}}:bag`,
  bagEntries: (a: string) => `player:{a:${a}}:bag-entries`,
  bagLinks: (a: string) => `player:{a:${a}}:bag-links`,
  notes: (a: string) => `player:{a:${a}}:notes`,
  /** The ledger's access hash of an account (the module header; `api/_lib/ledger/access.ts`). */
  access: accessKey,
  bagKeys: 'bag:keys',
  bagAccounts: 'bag:accounts',
  item: (i: string) => `item:{i:${i}}`,
  itemEvents: (i: string) => `item:{i:${i}}:events`,
  itemKeys: (i: string) => `item:{i:${i}}:keys`,
});

/**
 * Lua prelude of the writes that refuse a banned account (the module header): `ban_at(access, now)` is
 * nil when `now` is '' (no check) or no ban of the access hash holds at `now` (ISO 8601 UTC, compared as
 * text), else the script's answer `{'suspended', reason, at, until ('' for none)}`.
 */
const BAN_LUA = `
local function ban_at(access, now)
  if now == '' then return nil end
  local b = redis.call('HMGET', access, 'banReason', 'banAt', 'banUntil')
  if not b[1] then return nil end
  if b[3] and b[3] <= now then return nil end
  return {'suspended', b[1], b[2] or '', b[3] or ''}
end
`;

/** The outcome of a script's `{'suspended', reason, at, until}`. */
function suspendedOf(out: readonly unknown[]): Suspended {
  const [reason, at, until] = out.slice(1).map((v) => (typeof v === 'string' ? v : ''));
  return { status: 'suspended', ban: { reason: reason!, at: at!, ...(until ? { until } : {}) } };
}

/** KEYS: island. ARGV: state, revision, updatedAt. Creates when absent; answers the stored fields. */
const ISLAND_INIT = redisScript(`
if redis.call('EXISTS', KEYS[1]) == 0 then
  redis.call('HSET', KEYS[1], 'state', ARGV[1], 'revision', ARGV[2], 'updatedAt', ARGV[3], 'lastWrite', '')
end
return redis.call('HMGET', KEYS[1], 'state', 'revision', 'updatedAt')
`);

/**
 * How many of an island's latest write ids its hash keeps (`recentWrites`): a save whose answer was lost
 * and that is sent again after other saves followed it still finds itself (answered with the island as
 * it stands, which holds its change), instead of reading as stale.
 */
export const ISLAND_RECENT_WRITES = 32;

/**
 * KEYS: island, the account's access. ARGV: writeId, expected revision, state, at, how many write ids to
 * keep, the time a ban is checked at ('' for none). Returns `{'saved'}`, `{'again', state, revision,
 * updatedAt}` for a write id saved before (a retry), `{'stale', revision}`, `{'missing'}` or `{'suspended', …}`.
 */
const ISLAND_SAVE = redisScript(`${BAN_LUA}
local cur = redis.call('HMGET', KEYS[1], 'revision', 'lastWrite', 'state', 'updatedAt', 'recentWrites')
if not cur[1] then return {'missing'} end
local recent = cur[5] or ''
if cur[2] == ARGV[1] or string.find('\\n' .. recent, '\\n' .. ARGV[1] .. '\\n', 1, true) then
  return {'again', cur[3], cur[1], cur[4]}
end
local ban = ban_at(KEYS[2], ARGV[6])
if ban then return ban end
if tonumber(cur[1]) ~= tonumber(ARGV[2]) then return {'stale', cur[1]} end
local kept = {}
for w in string.gmatch(recent, '[^\\n]+') do kept[#kept + 1] = w end
while #kept >= tonumber(ARGV[5]) do table.remove(kept, 1) end
kept[#kept + 1] = ARGV[1]
redis.call('HSET', KEYS[1], 'state', ARGV[3], 'revision', tostring(tonumber(cur[1]) + 1), 'updatedAt', ARGV[4], 'lastWrite', ARGV[1],
  'recentWrites', table.concat(kept, '\\n') .. '\\n')
return {'saved'}
`);

/**
 * KEYS: chars, order, character keys, era-count, character owners. ARGV: client key ('' for none),
 * fingerprint, id, era, body, progress, revision, updated, slots, account id. Returns `{'stored', characterId}` for a known key with this
 * fingerprint or for this very id (a retry), `{'key-reused'}`, `{'full'}` or `{'created'}`.
 */
const CHARACTER_CREATE = redisScript(`${IDEMPOTENCY_LUA}
if ARGV[1] ~= '' then
  local ref, same = idem_lookup(KEYS[3], ARGV[1], ARGV[2])
  if ref then
    if not same then return {'key-reused'} end
    return {'stored', ref}
  end
end
if redis.call('HEXISTS', KEYS[1], ARGV[3] .. ':body') == 1 then return {'stored', ARGV[3]} end
local used = tonumber(redis.call('HGET', KEYS[4], ARGV[4]) or '0')
if used >= tonumber(ARGV[9]) then return {'full'} end
redis.call('HSET', KEYS[1], ARGV[3] .. ':body', ARGV[5], ARGV[3] .. ':progress', ARGV[6], ARGV[3] .. ':rev', ARGV[7], ARGV[3] .. ':updated', ARGV[8], ARGV[3] .. ':era', ARGV[4])
redis.call('RPUSH', KEYS[2], ARGV[3])
redis.call('HINCRBY', KEYS[4], ARGV[4], 1)
redis.call('HSET', KEYS[5], ARGV[3], ARGV[10])
if ARGV[1] ~= '' then idem_record(KEYS[3], ARGV[1], ARGV[2], ARGV[3]) end
return {'created'}
`);

/**
 * KEYS: chars, progress keys, the account's items hash, its access, then the hash and the events list of
 * each item the progress wears, then those of each item it no longer wears. ARGV: character id, key,
 * fingerprint, expected revision, progress, at, digest of the progress, account id, the count of worn
 * items, the time a ban is checked at ('' for none). A saved progress binds each worn item to the
 * character (an `equipped` event where it is not equipped on it yet) and releases each item it no longer
 * wears that is still equipped on it (`unequipped`), in the same script. Returns `{'saved', body}`,
 * `{'replayed', ref, body, progress, revision, updated}`, `{'stale', revision}`, `{'equipment-refused',
 * id, reason, …}`, `{'key-reused'}`, `{'missing'}` or `{'suspended', …}`.
 */
const PROGRESS_SAVE = redisScript(`${IDEMPOTENCY_LUA}${BAN_LUA}
local id = ARGV[1]
local cur = redis.call('HMGET', KEYS[1], id .. ':body', id .. ':progress', id .. ':rev', id .. ':updated')
if not cur[1] then return {'missing'} end
local ref, same = idem_lookup(KEYS[2], id .. ' ' .. ARGV[2], ARGV[3])
if ref then
  if not same then return {'key-reused'} end
  return {'replayed', ref, cur[1], cur[2], cur[3], cur[4]}
end
local ban = ban_at(KEYS[4], ARGV[10])
if ban then return ban end
if tonumber(cur[3]) ~= tonumber(ARGV[4]) then return {'stale', cur[3]} end
local worn = tonumber(ARGV[9])
local refused = {}
for i = 5, 4 + 2 * worn, 2 do
  local item = redis.call('HMGET', KEYS[i], 'accountId', 'state', 'characterId')
  local reason = nil
  if not item[1] then reason = 'missing'
  elseif item[1] ~= ARGV[8] then reason = 'not-owned'
  elseif (item[2] ~= 'owned' and item[2] ~= 'assigned' and item[2] ~= 'equipped') or (item[3] ~= '' and item[3] ~= id) then reason = 'state' end
  if reason then
    refused[#refused + 1] = string.match(KEYS[i], '{i:(.*)}')
    refused[#refused + 1] = reason
  end
end
if #refused > 0 then
  table.insert(refused, 1, 'equipment-refused')
  return refused
end
local function move(ikey, elist, state, character, kind)
  local c = redis.call('HMGET', ikey, 'definitionId', 'accountId', 'seq', 'mintedAt')
  local iid = string.match(ikey, '{i:(.*)}')
  local seq = tonumber(c[3]) + 1
  redis.call('HSET', ikey, 'state', state, 'characterId', character, 'seq', tostring(seq), 'updatedAt', ARGV[6])
  local ch = cjson.null
  if character ~= '' then ch = character end
  redis.call('RPUSH', elist, cjson.encode({ studioUuid = iid, seq = seq, kind = kind, accountId = c[2], characterId = ch, at = ARGV[6] }))
  redis.call('HSET', KEYS[3], iid, cjson.encode({ studioUuid = iid, definitionId = c[1], accountId = c[2], state = state,
    characterId = ch, seq = seq, mintedAt = c[4], updatedAt = ARGV[6] }))
end
for i = 5, 4 + 2 * worn, 2 do
  local item = redis.call('HMGET', KEYS[i], 'state', 'characterId')
  if item[1] ~= 'equipped' or item[2] ~= id then move(KEYS[i], KEYS[i + 1], 'equipped', id, 'equipped') end
end
for i = 5 + 2 * worn, #KEYS, 2 do
  local item = redis.call('HMGET', KEYS[i], 'accountId', 'state', 'characterId')
  if item[1] == ARGV[8] and item[2] == 'equipped' and item[3] == id then move(KEYS[i], KEYS[i + 1], 'owned', '', 'unequipped') end
end
local rev = tostring(tonumber(cur[3]) + 1)
redis.call('HSET', KEYS[1], id .. ':progress', ARGV[5], id .. ':rev', rev, id .. ':updated', ARGV[6])
idem_record(KEYS[2], id .. ' ' .. ARGV[2], ARGV[3], rev .. ' ' .. ARGV[7])
return {'saved', cur[1]}
`);

/**
 * KEYS: recipes, the account's access. ARGV: recipe id, time, the time a ban is checked at ('' for none).
 * Returns `{'known', time}`, `{'learned', time}` or `{'suspended', …}` (a known recipe answers first).
 */
const RECIPE_LEARN = redisScript(`${BAN_LUA}
local known = redis.call('HGET', KEYS[1], ARGV[1])
if known then return {'known', known} end
local ban = ban_at(KEYS[2], ARGV[3])
if ban then return ban end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
return {'learned', ARGV[2]}
`);

/** KEYS: external-links, the account's links set. ARGV: field, link JSON. The first binding wins; answers the stored one. */
const LINK_EXTERNAL = redisScript(`
local stored = redis.call('HGET', KEYS[1], ARGV[1])
if stored then return {'found', stored} end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
redis.call('SADD', KEYS[2], ARGV[1])
return {'linked'}
`);

/** KEYS: external-links, the account's links set. Removes every link the set names, then the set. */
const REMOVE_LINKS = redisScript(`
local fields = redis.call('SMEMBERS', KEYS[2])
for _, f in ipairs(fields) do redis.call('HDEL', KEYS[1], f) end
redis.call('DEL', KEYS[2])
return #fields
`);

/**
 * KEYS: mint keys, item, events, owner's items, owner's access. ARGV: key, fingerprint, event JSON, id,
 * definition, owner, time, item JSON, the time a ban is checked at ('' for none). Returns `{'stored',
 * itemId}` for a known key with this fingerprint, `{'key-reused'}`, `{'suspended', …}` or `{'minted'}`.
 */
const MINT_ITEM = redisScript(`${IDEMPOTENCY_LUA}${BAN_LUA}
local ref, same = idem_lookup(KEYS[1], ARGV[1], ARGV[2])
if ref then
  if not same then return {'key-reused'} end
  return {'stored', ref}
end
local ban = ban_at(KEYS[5], ARGV[9])
if ban then return ban end
redis.call('HSET', KEYS[2], 'definitionId', ARGV[5], 'accountId', ARGV[6], 'state', 'owned', 'characterId', '', 'seq', '1', 'mintedAt', ARGV[7], 'updatedAt', ARGV[7])
redis.call('RPUSH', KEYS[3], ARGV[3])
redis.call('HSET', KEYS[4], ARGV[4], ARGV[8])
idem_record(KEYS[1], ARGV[1], ARGV[2], ARGV[4])
return {'minted'}
`);

/**
 * KEYS: item, events, item keys, the validated owner's items, the owner-after's items, the validated
 * owner's characters, the validated owner's access, the owner-after's access, the owner-after's ended
 * items, the validated owner's notes. ARGV: key, fingerprint, kind, allowed states (comma-separated),
 * state after, owner after ('' keeps), character ('' for none), time, item id, the owner the caller
 * validated against, the time a ban is checked at ('' for none), the event's note as JSON ('' for none),
 * '1' when the state after is final (`FINAL_STATES`): the item then moves to the owner's ended items. Only flat tables go through
 * cjson. Returns `{'applied', item, event}`, `{'replayed', ref, event, <item fields>}`, `{'forbidden',
 * <item fields>}`, `{'moved'}` (the owner is not the validated one, or the character not that owner's),
 * `{'key-reused'}`, `{'missing'}` or `{'suspended', …}`.
 */
const ITEM_EVENT = redisScript(`${IDEMPOTENCY_LUA}${BAN_LUA}
local cur = redis.call('HMGET', KEYS[1], 'definitionId', 'accountId', 'state', 'characterId', 'seq', 'mintedAt', 'updatedAt')
if not cur[1] then return {'missing'} end
local ref, same = idem_lookup(KEYS[3], ARGV[1], ARGV[2])
if ref then
  if not same then return {'key-reused'} end
  local seq = tonumber(string.match(ref, '^(%d+)'))
  return {'replayed', ref, redis.call('LINDEX', KEYS[2], seq - 1), cur[1], cur[2], cur[3], cur[4], cur[5], cur[6], cur[7]}
end
if cur[2] ~= ARGV[10] then return {'moved'} end
if ARGV[7] ~= '' and redis.call('HEXISTS', KEYS[6], ARGV[7] .. ':body') == 0 then return {'moved'} end
local ban = ban_at(KEYS[7], ARGV[11])
if not ban and ARGV[6] ~= '' then ban = ban_at(KEYS[8], ARGV[11]) end
if ban then return ban end
local allowed = false
for st in string.gmatch(ARGV[4], '[^,]+') do
  if st == cur[3] then allowed = true end
end
if not allowed then return {'forbidden', cur[1], cur[2], cur[3], cur[4], cur[5], cur[6], cur[7]} end
local owner = cur[2]
if ARGV[6] ~= '' then owner = ARGV[6] end
local seq = tonumber(cur[5]) + 1
redis.call('HSET', KEYS[1], 'accountId', owner, 'state', ARGV[5], 'characterId', ARGV[7], 'seq', tostring(seq), 'updatedAt', ARGV[8])
local character = cjson.null
if ARGV[7] ~= '' then character = ARGV[7] end
local event = { studioUuid = ARGV[9], seq = seq, kind = ARGV[3], accountId = owner, characterId = character, at = ARGV[8] }
local item = { studioUuid = ARGV[9], definitionId = cur[1], accountId = owner, state = ARGV[5], characterId = character, seq = seq, mintedAt = cur[6], updatedAt = ARGV[8] }
local ej = cjson.encode(event)
local ij = cjson.encode(item)
redis.call('RPUSH', KEYS[2], ej)
idem_record(KEYS[3], ARGV[1], ARGV[2], tostring(seq) .. ' ' .. ARGV[5])
redis.call('HDEL', KEYS[4], ARGV[9])
if ARGV[13] == '1' then
  redis.call('HSET', KEYS[9], ARGV[9], ij)
else
  redis.call('HSET', KEYS[5], ARGV[9], ij)
end
if ARGV[12] ~= '' then redis.call('HSET', KEYS[10], 'item:' .. ARGV[9] .. ':' .. tostring(seq), ARGV[12]) end
return {'applied', ij, ej}
`);

/** KEYS: item, events, item keys. ARGV: key, fingerprint. `{'replayed', ref, event, <item fields>}`, `{'key-reused'}` or `{'new'}`. */
const ITEM_EVENT_RECORD = redisScript(`${IDEMPOTENCY_LUA}
local cur = redis.call('HMGET', KEYS[1], 'definitionId', 'accountId', 'state', 'characterId', 'seq', 'mintedAt', 'updatedAt')
if not cur[1] then return {'new'} end
local ref, same = idem_lookup(KEYS[3], ARGV[1], ARGV[2])
if not ref then return {'new'} end
if not same then return {'key-reused'} end
local seq = tonumber(string.match(ref, '^(%d+)'))
return {'replayed', ref, redis.call('LINDEX', KEYS[2], seq - 1), cur[1], cur[2], cur[3], cur[4], cur[5], cur[6], cur[7]}
`);

/**
 * KEYS: bag keys, the account's bag, its entries, bag accounts, its access. ARGV: source ref, fingerprint,
 * account, definition, delta, time, the time a ban is checked at ('' for none). Integers are written with
 * %d, never through cjson's 14 significant digits. Returns `{'applied', entry}`, `{'replayed', entry}`,
 * `{'insufficient', quantity}`, `{'overflow'}`, `{'key-reused'}` or `{'suspended', …}`.
 */
const BAG_CHANGE = redisScript(`${IDEMPOTENCY_LUA}${BAN_LUA}
local ref, same = idem_lookup(KEYS[1], ARGV[1], ARGV[2])
if ref then
  if not same then return {'key-reused'} end
  return {'replayed', redis.call('LINDEX', KEYS[3], tonumber(ref))}
end
local ban = ban_at(KEYS[5], ARGV[7])
if ban then return ban end
local q = tonumber(redis.call('HGET', KEYS[2], ARGV[4]) or '0')
local seq = tonumber(redis.call('HGET', KEYS[2], ARGV[4] .. ':seq') or '0') + 1
local after = q + tonumber(ARGV[5])
if after < 0 then return {'insufficient', string.format('%d', q)} end
if after > 9007199254740991 then return {'overflow'} end
local entry = '{"accountId":' .. cjson.encode(ARGV[3]) .. ',"definitionId":' .. cjson.encode(ARGV[4]) .. ',"seq":' .. string.format('%d', seq) ..
  ',"delta":' .. ARGV[5] .. ',"quantityAfter":' .. string.format('%d', after) .. ',"sourceRef":' .. cjson.encode(ARGV[1]) .. ',"at":' .. cjson.encode(ARGV[6]) .. '}'
redis.call('HSET', KEYS[2], ARGV[4], string.format('%d', after), ARGV[4] .. ':seq', string.format('%d', seq))
local length = redis.call('RPUSH', KEYS[3], entry)
redis.call('SADD', KEYS[4], ARGV[3])
idem_record(KEYS[1], ARGV[1], ARGV[2], string.format('%d', length - 1))
return {'applied', entry}
`);

/**
 * KEYS: bag keys, the account's bag, its entries, its bag links, its notes. ARGV: source ref, fingerprint,
 * account, the grant's source ref, time, the note as JSON. The grant is found through its idempotency
 * record (its index in the account's entries) and must be that very entry. Returns `{'applied', entry}`,
 * `{'replayed', entry}`, `{'key-reused'}`, `{'no-entry'}`, `{'not-a-grant', entry}`, `{'already-reversed',
 * the reversal's entry}` or `{'insufficient', quantity}`.
 */
const BAG_REVERSE = redisScript(`${IDEMPOTENCY_LUA}
local ref, same = idem_lookup(KEYS[1], ARGV[1], ARGV[2])
if ref then
  if not same then return {'key-reused'} end
  return {'replayed', redis.call('LINDEX', KEYS[3], tonumber(ref))}
end
local at = idem_lookup(KEYS[1], ARGV[4], '')
if not at then return {'no-entry'} end
local raw = redis.call('LINDEX', KEYS[3], tonumber(at))
if not raw then return {'no-entry'} end
local original = cjson.decode(raw)
if original.sourceRef ~= ARGV[4] or original.accountId ~= ARGV[3] then return {'no-entry'} end
if string.sub(ARGV[4], 1, 10) ~= 'bag-grant:' then return {'not-a-grant', raw} end
local by = redis.call('HGET', KEYS[4], ARGV[4])
if by then return {'already-reversed', redis.call('LINDEX', KEYS[3], tonumber((idem_lookup(KEYS[1], by, ''))))} end
local def = original.definitionId
local q = tonumber(redis.call('HGET', KEYS[2], def) or '0')
local delta = tonumber(original.delta)
if q < delta then return {'insufficient', string.format('%d', q)} end
local seq = tonumber(redis.call('HGET', KEYS[2], def .. ':seq') or '0') + 1
local after = q - delta
local entry = '{"accountId":' .. cjson.encode(ARGV[3]) .. ',"definitionId":' .. cjson.encode(def) .. ',"seq":' .. string.format('%d', seq) ..
  ',"delta":' .. string.format('%d', -delta) .. ',"quantityAfter":' .. string.format('%d', after) .. ',"sourceRef":' .. cjson.encode(ARGV[1]) ..
  ',"at":' .. cjson.encode(ARGV[5]) .. ',"reverses":' .. cjson.encode(ARGV[4]) .. '}'
redis.call('HSET', KEYS[2], def, string.format('%d', after), def .. ':seq', string.format('%d', seq))
local length = redis.call('RPUSH', KEYS[3], entry)
redis.call('HSET', KEYS[4], ARGV[4], ARGV[1])
redis.call('HSET', KEYS[5], ARGV[1], ARGV[6])
idem_record(KEYS[1], ARGV[1], ARGV[2], string.format('%d', length - 1))
return {'applied', entry}
`);

/** KEYS: the account's notes. Blanks the note of each (the actor stays); safe to repeat. */
const BLANK_NOTES = redisScript(`
local all = redis.call('HGETALL', KEYS[1])
for i = 1, #all, 2 do
  local n = cjson.decode(all[i + 1])
  redis.call('HSET', KEYS[1], all[i], cjson.encode({ note = '', actor = n.actor }))
end
return #all / 2
`);

const str = (v: unknown): string => String(v);

/** Newest first by time, then definition id, then sequence (the order of {@link PlayerStore.bagEntries}). */
function newestEntryFirst(a: BagPosition, b: BagPosition): number {
  if (a.at !== b.at) return a.at < b.at ? 1 : -1;
  if (a.definitionId !== b.definitionId) return a.definitionId < b.definitionId ? 1 : -1;
  return b.seq - a.seq;
}

/** Newest mint first, then by id descending (the order of {@link PlayerStore.itemsOf}). */
function newestItemFirst(a: ItemPosition, b: ItemPosition): number {
  if (a.mintedAt !== b.mintedAt) return a.mintedAt < b.mintedAt ? 1 : -1;
  return a.studioUuid < b.studioUuid ? 1 : a.studioUuid > b.studioUuid ? -1 : 0;
}

/** The replay a script answered: `['replayed', ref, event JSON, <item fields>]`. */
function replayedEvent(studioUuid: string, out: readonly unknown[]): ItemEventOutcome {
  const event = JSON.parse(str(out[2])) as ItemEvent;
  const state = str(out[1]).split(' ')[1] as ItemState;
  return { status: 'replayed', item: itemAfter(itemFromFields(studioUuid, out.slice(3)), event, state), event };
}

/** An item from the fields definitionId, accountId, state, characterId, seq, mintedAt, updatedAt. */
function itemFromFields(studioUuid: string, f: readonly unknown[]): ItemInstance {
  return {
    studioUuid,
    definitionId: str(f[0]),
    accountId: str(f[1]),
    state: str(f[2]) as ItemState,
    characterId: f[3] === '' || f[3] === null || f[3] === undefined ? null : str(f[3]),
    seq: Number(f[4]),
    mintedAt: str(f[5]),
    updatedAt: str(f[6]),
  };
}
const ITEM_FIELDS = ['definitionId', 'accountId', 'state', 'characterId', 'seq', 'mintedAt', 'updatedAt'];

/** A character from its stored fields (the fixed body, the progress, the revision, the last change). */
function characterFrom(body: unknown, progress: unknown, rev: unknown, updated: unknown): Character {
  return {
    ...(JSON.parse(str(body)) as Omit<Character, 'progress' | 'progressRevision' | 'updatedAt'>),
    progress: JSON.parse(str(progress)) as Progress,
    progressRevision: Number(rev),
    updatedAt: str(updated),
  };
}

/**
 * The player store over the ledger's Redis `target`.
 * @param options.retryDelaysMs waits between attempts (default the kit's `RETRY_DELAYS_MS`).
 */
export function openRedisPlayerStore(target: RedisTarget, options: { retryDelaysMs?: readonly number[] } = {}): PlayerStore {
  const connection = connectRedis(target, PLAYER_STORE, options);
  const commands = connection.commands;
  const K = PLAYER_KEYS;
  /** Characters by id, each from its four fields, in the order given (ids without a body are left out). */
  const charactersOf = async (accountId: string, ids: string[]): Promise<Character[]> => {
    if (ids.length === 0) return [];
    const values = await commands.fields(
      K.chars(accountId),
      ids.flatMap((id) => [`${id}:body`, `${id}:progress`, `${id}:rev`, `${id}:updated`]),
    );
    const out: Character[] = [];
    ids.forEach((_, i) => {
      const [body, progress, rev, updated] = values.slice(i * 4, i * 4 + 4);
      if (body !== null && body !== undefined) out.push(characterFrom(body, progress, rev, updated));
    });
    return out;
  };

  /** An account's bag entries, in append order. */
  const entriesOf = async (accountId: string): Promise<BagEntry[]> =>
    (await commands.list(K.bagEntries(accountId), 0, -1)).map((e) => JSON.parse(e) as BagEntry);
  /** Entries of one account with their reversal links and notes (a reversal's `reverses` is in its own JSON). */
  const recordsOf = async (accountId: string, entries: readonly BagEntry[]): Promise<BagRecord[]> => {
    if (entries.length === 0) return [];
    const [links, notes] = [await commands.hash(K.bagLinks(accountId)), await commands.hash(K.notes(accountId))];
    return entries.map((e) => {
      const by = links[e.sourceRef];
      const note = notes[e.sourceRef];
      return { ...e, ...(by === undefined ? {} : { reversedBy: by }), ...(note === undefined ? {} : (JSON.parse(note) as EntryNote)) };
    });
  };

  return {
    driver: 'redis',
    async findIsland(accountId) {
      const [found, rev, at] = await commands.fields(K.island(accountId), ['state', 'revision', 'updatedAt']);
      return found === null || found === undefined
        ? undefined
        : { state: JSON.parse(found) as IslandState, revision: Number(rev), updatedAt: str(at) };
    },
    async island(accountId, initial) {
      const [found, rev, at] = await commands.fields(K.island(accountId), ['state', 'revision', 'updatedAt']);
      if (found !== null && found !== undefined)
        return { state: JSON.parse(found) as IslandState, revision: Number(rev), updatedAt: str(at) };
      const doc = initial();
      const [state, revision, updatedAt] = await commands.script({
        script: ISLAND_INIT,
        keys: [K.island(accountId)],
        args: [JSON.stringify(doc.state), String(doc.revision), doc.updatedAt],
      });
      return { state: JSON.parse(str(state)) as IslandState, revision: Number(revision), updatedAt: str(updatedAt) };
    },
    async saveIsland(accountId, save) {
      const out = await commands.script({
        script: ISLAND_SAVE,
        keys: [K.island(accountId), K.access(accountId)],
        args: [
          save.writeId,
          String(save.expectedRevision),
          JSON.stringify(save.state),
          save.at,
          String(ISLAND_RECENT_WRITES),
          save.refuseBanned ? save.at : '',
        ],
      });
      switch (out[0]) {
        case 'saved':
          return { status: 'saved', doc: { state: save.state, revision: save.expectedRevision + 1, updatedAt: save.at } };
        case 'again':
          return {
            status: 'saved',
            doc: { state: JSON.parse(str(out[1])) as IslandState, revision: Number(out[2]), updatedAt: str(out[3]) },
          };
        case 'stale':
          return { status: 'stale', revision: Number(out[1]) };
        case 'suspended':
          return suspendedOf(out);
        default:
          return { status: 'missing' };
      }
    },
    async createCharacter(input) {
      const c = input.character;
      const a = c.accountId;
      const out = await commands.script({
        script: CHARACTER_CREATE,
        keys: [K.chars(a), K.order(a), K.characterKeys(a), K.eraCount(a), K.characterOwners],
        args: [
          input.clientKey ?? '',
          input.fingerprint,
          c.id,
          c.era,
          characterBody(c),
          JSON.stringify(c.progress),
          String(c.progressRevision),
          c.updatedAt,
          String(input.slotsPerEra),
          a,
        ],
      });
      switch (out[0]) {
        case 'created':
          return { status: 'created', character: c };
        case 'stored': {
          const [found] = await charactersOf(a, [str(out[1])]);
          // one script writes the record and the character: a record without its character is a broken store
          if (!found) throw storeUnavailable(PLAYER_STORE, new Error(`The character ${str(out[1])} of a creation key cannot be read.`));
          return { status: found.id === c.id ? 'created' : 'replayed', character: found };
        }
        case 'full':
          return { status: 'full', slotsPerEra: input.slotsPerEra };
        default:
          return { status: 'key-reused' };
      }
    },
    async characters(accountId, era) {
      const ids = await commands.list(K.order(accountId), 0, -1);
      if (ids.length === 0) return [];
      const eras = await commands.fields(
        K.chars(accountId),
        ids.map((id) => `${id}:era`),
      );
      return charactersOf(
        accountId,
        ids.filter((_, i) => eras[i] === era),
      );
    },
    async character(accountId, characterId) {
      return (await charactersOf(accountId, [characterId]))[0];
    },
    async saveProgress(accountId, characterId, save) {
      const progress = JSON.stringify(save.progress);
      const out = await commands.script({
        script: PROGRESS_SAVE,
        keys: [
          K.chars(accountId),
          K.progressKeys(accountId),
          K.items(accountId),
          K.access(accountId),
          ...[...save.equipment, ...(save.unequip ?? [])].flatMap((id) => [K.item(id), K.itemEvents(id)]),
        ],
        args: [
          characterId,
          save.idempotencyKey,
          save.fingerprint,
          String(save.expectedRevision),
          progress,
          save.at,
          requestFingerprint(save.progress),
          accountId,
          String(save.equipment.length),
          save.refuseBanned ? save.at : '',
        ],
      });
      switch (out[0]) {
        case 'equipment-refused': {
          const refused: EquipmentRefusal[] = [];
          for (let i = 1; i < out.length; i += 2)
            refused.push({ studioUuid: str(out[i]), reason: str(out[i + 1]) as EquipmentRefusal['reason'] });
          return { status: 'equipment-refused', refused };
        }
        case 'saved':
          return { status: 'created', character: characterFrom(out[1], progress, save.expectedRevision + 1, save.at) };
        case 'replayed':
          return {
            status: 'replayed',
            character: characterFrom(out[2], out[3], out[4], out[5]),
            revision: Number(str(out[1]).split(' ')[0]),
          };
        case 'stale':
          return { status: 'stale', revision: Number(out[1]) };
        case 'key-reused':
          return { status: 'key-reused' };
        case 'suspended':
          return suspendedOf(out);
        default:
          return { status: 'missing' };
      }
    },
    async progressRecord(accountId, characterId, idempotencyKey, fingerprint) {
      const [record, [body, progress, rev, updated]] = [
        await commands.field(K.progressKeys(accountId), `${characterId} ${idempotencyKey}`),
        await commands.fields(K.chars(accountId), [
          `${characterId}:body`,
          `${characterId}:progress`,
          `${characterId}:rev`,
          `${characterId}:updated`,
        ]),
      ];
      if (record === null || body === null || body === undefined) return undefined;
      const sep = record.indexOf('\n');
      if (record.slice(0, sep) !== fingerprint) return { status: 'key-reused' };
      return {
        status: 'replayed',
        character: characterFrom(body, progress, rev, updated),
        revision: Number(record.slice(sep + 1).split(' ')[0]),
      };
    },
    async learnRecipe(accountId, recipeId, at, options = {}) {
      const out = await commands.script({
        script: RECIPE_LEARN,
        keys: [K.recipes(accountId), K.access(accountId)],
        args: [recipeId, at, options.refuseBanned ? at : ''],
      });
      if (out[0] === 'suspended') return suspendedOf(out);
      return { learned: out[0] === 'learned', recipe: { recipeId, learnedAt: str(out[1]) } };
    },
    async recipes(accountId) {
      const all = await commands.hash(K.recipes(accountId));
      return Object.entries(all)
        .map(([recipeId, at]) => ({ recipeId, learnedAt: at }))
        .sort((x, y) =>
          x.learnedAt < y.learnedAt ? -1 : x.learnedAt > y.learnedAt ? 1 : x.recipeId < y.recipeId ? -1 : x.recipeId > y.recipeId ? 1 : 0,
        );
    },
    async linkExternal(link) {
      const out = await commands.script({
        script: LINK_EXTERNAL,
        keys: [K.externalLinks, K.links(link.accountId)],
        args: [`${link.provider} ${link.externalUserId}`, JSON.stringify(link)],
      });
      if (out[0] === 'linked') return { status: 'linked', link };
      const stored = JSON.parse(str(out[1])) as ExternalLink;
      return { status: stored.accountId === link.accountId ? 'existing' : 'taken', link: stored };
    },
    async removeExternalLinks(accountId) {
      await commands.script({ script: REMOVE_LINKS, keys: [K.externalLinks, K.links(accountId)], args: [] });
    },
    async externalLinksOf(accountId) {
      const fields = (await commands.members(K.links(accountId))).sort(byCodeUnits((f) => f));
      if (fields.length === 0) return [];
      const links = await commands.fields(K.externalLinks, fields);
      return links.filter((v): v is string => v !== null).map((v) => JSON.parse(v) as ExternalLink);
    },
    async externalLink(provider, externalUserId) {
      const v = await commands.field(K.externalLinks, `${provider} ${externalUserId}`);
      return v === null ? undefined : (JSON.parse(v) as ExternalLink);
    },
    async mintItem(request) {
      const i = request.item;
      const event: ItemEvent = {
        studioUuid: i.studioUuid,
        seq: 1,
        kind: 'minted',
        accountId: i.accountId,
        characterId: null,
        at: i.mintedAt,
      };
      const out = await commands.script({
        script: MINT_ITEM,
        keys: [K.mintKeys, K.item(i.studioUuid), K.itemEvents(i.studioUuid), K.items(i.accountId), K.access(i.accountId)],
        args: [
          request.idempotencyKey,
          request.fingerprint,
          JSON.stringify(event),
          i.studioUuid,
          i.definitionId,
          i.accountId,
          i.mintedAt,
          JSON.stringify(i),
          request.refuseBanned ? i.mintedAt : '',
        ],
      });
      if (out[0] === 'minted') return { status: 'created', item: i, event };
      if (out[0] === 'key-reused') return { status: 'key-reused' };
      if (out[0] === 'suspended') return suspendedOf(out);
      // a known key: the item and its first event as minted
      const id = str(out[1]);
      const [fields, first] = [await commands.fields(K.item(id), ITEM_FIELDS), await commands.element(K.itemEvents(id), 0)];
      if (fields[0] === null || first === null)
        throw storeUnavailable(PLAYER_STORE, new Error(`The item ${id} of a mint key cannot be read.`));
      const minted = JSON.parse(first) as ItemEvent;
      const item = itemAfter(itemFromFields(id, fields), minted, 'owned');
      return { status: id === i.studioUuid ? 'created' : 'replayed', item: { ...item, updatedAt: item.mintedAt }, event: minted };
    },
    async recordItemEvent(request) {
      const id = request.studioUuid;
      const owner = request.expectedOwner;
      const after = request.accountId ?? owner;
      const out = await commands.script({
        script: ITEM_EVENT,
        keys: [
          K.item(id),
          K.itemEvents(id),
          K.itemKeys(id),
          K.items(owner),
          K.items(after),
          K.chars(owner),
          K.access(owner),
          K.access(after),
          K.itemsEnded(after),
          K.notes(owner),
        ],
        args: [
          request.idempotencyKey,
          request.fingerprint,
          request.kind,
          request.from.join(','),
          request.to,
          request.accountId ?? '',
          request.characterId ?? '',
          request.at,
          id,
          owner,
          request.refuseBanned ? request.at : '',
          request.note === undefined ? '' : JSON.stringify(request.note),
          FINAL_STATES.includes(request.to) ? '1' : '0',
        ],
      });
      switch (out[0]) {
        case 'applied':
          return { status: 'created', item: JSON.parse(str(out[1])) as ItemInstance, event: JSON.parse(str(out[2])) as ItemEvent };
        case 'replayed':
          return replayedEvent(id, out);
        case 'forbidden':
          return { status: 'forbidden', item: itemFromFields(id, out.slice(1)) };
        case 'key-reused':
          return { status: 'key-reused' };
        case 'missing':
          return { status: 'missing' };
        case 'suspended':
          return suspendedOf(out);
        default:
          return { status: 'moved' };
      }
    },
    async itemEventRecord(studioUuid, idempotencyKey, fingerprint) {
      const out = await commands.script({
        script: ITEM_EVENT_RECORD,
        keys: [K.item(studioUuid), K.itemEvents(studioUuid), K.itemKeys(studioUuid)],
        args: [idempotencyKey, fingerprint],
      });
      if (out[0] === 'replayed') return replayedEvent(studioUuid, out);
      return out[0] === 'key-reused' ? { status: 'key-reused' } : undefined;
    },
    async characterOwner(characterId) {
      return (await commands.field(K.characterOwners, characterId)) ?? undefined;
    },
    async itemHistory(studioUuid) {
      const fields = await commands.fields(K.item(studioUuid), ITEM_FIELDS);
      if (fields[0] === null || fields[0] === undefined) return undefined;
      const events = (await commands.list(K.itemEvents(studioUuid), 0, -1)).map((e) => JSON.parse(e) as ItemEvent);
      return { item: itemFromFields(studioUuid, fields), events };
    },
    async itemEvents(studioUuid, options) {
      const fields = await commands.fields(K.item(studioUuid), ITEM_FIELDS);
      if (fields[0] === null || fields[0] === undefined) return undefined;
      const item = itemFromFields(studioUuid, fields);
      // event `seq` is at index seq - 1 of the list
      const newest = Math.min((options.beforeSeq ?? Number.MAX_SAFE_INTEGER) - 1, item.seq);
      const oldest = Math.max(1, newest - options.limit + 1);
      const raw = newest < 1 ? [] : await commands.list(K.itemEvents(studioUuid), oldest - 1, newest - 1);
      const events: ItemEventRecord[] = raw.map((e) => JSON.parse(e) as ItemEvent).reverse();
      const withNotes = await Promise.all(
        events.map(async (e) => {
          if (e.kind !== 'voided') return e;
          const note = await commands.field(K.notes(e.accountId), `item:${studioUuid}:${e.seq}`);
          return note === null ? e : { ...e, ...(JSON.parse(note) as EntryNote) };
        }),
      );
      return { item, events: withNotes, nextBeforeSeq: newest >= 1 && oldest > 1 ? oldest : undefined };
    },
    async accountItems(accountId) {
      const items = Object.values(await commands.hash(K.items(accountId))).map((v) => JSON.parse(v) as ItemInstance);
      return items.sort((a, b) => (a.mintedAt < b.mintedAt ? -1 : a.mintedAt > b.mintedAt ? 1 : a.studioUuid < b.studioUuid ? -1 : 1));
    },
    async itemsOf(accountId, options) {
      const [owned, ended] = [await commands.hash(K.items(accountId)), await commands.hash(K.itemsEnded(accountId))];
      const after = options.after;
      const all = [...Object.values(owned), ...Object.values(ended)]
        .map((v) => JSON.parse(v) as ItemInstance)
        .filter((i) => (options.state === undefined || i.state === options.state) && (after === undefined || newestItemFirst(after, i) < 0))
        .sort(newestItemFirst);
      const items = all.slice(0, options.limit);
      const last = items[items.length - 1];
      return { items, next: all.length > options.limit && last ? { mintedAt: last.mintedAt, studioUuid: last.studioUuid } : undefined };
    },
    async itemSnapshot() {
      const records = Object.values(await commands.hash(K.mintKeys));
      const ids = [...new Set(records.map((r) => r.slice(r.indexOf('\n') + 1)))].sort(byCodeUnits((id) => id));
      const out: { item: ItemInstance; events: ItemEvent[] }[] = [];
      for (const id of ids) {
        const fields = await commands.fields(K.item(id), ITEM_FIELDS);
        if (fields[0] === null || fields[0] === undefined) continue;
        const events = (await commands.list(K.itemEvents(id), 0, -1)).map((e) => JSON.parse(e) as ItemEvent);
        out.push({ item: itemFromFields(id, fields), events });
      }
      return out;
    },
    async changeBag(change) {
      const out = await commands.script({
        script: BAG_CHANGE,
        keys: [K.bagKeys, K.bag(change.accountId), K.bagEntries(change.accountId), K.bagAccounts, K.access(change.accountId)],
        args: [
          change.sourceRef,
          change.fingerprint,
          change.accountId,
          change.definitionId,
          String(change.delta),
          change.at,
          change.refuseBanned ? change.at : '',
        ],
      });
      switch (out[0]) {
        case 'applied':
          return { status: 'created', entry: JSON.parse(str(out[1])) as BagEntry };
        case 'replayed':
          return { status: 'replayed', entry: JSON.parse(str(out[1])) as BagEntry };
        case 'insufficient':
          return { status: 'insufficient', quantity: Number(out[1]) };
        case 'key-reused':
          return { status: 'key-reused' };
        case 'suspended':
          return suspendedOf(out);
        default:
          return { status: 'overflow' };
      }
    },
    async reverseBag(reversal) {
      const a = reversal.accountId;
      const out = await commands.script({
        script: BAG_REVERSE,
        keys: [K.bagKeys, K.bag(a), K.bagEntries(a), K.bagLinks(a), K.notes(a)],
        args: [reversal.sourceRef, reversal.fingerprint, a, reversal.reverses, reversal.at, JSON.stringify(reversal.note)],
      });
      const status = str(out[0]);
      const entry = async () => (await recordsOf(a, [JSON.parse(str(out[1])) as BagEntry]))[0]!;
      switch (status) {
        case 'applied':
          return { status: 'created', entry: await entry() };
        case 'replayed':
        case 'not-a-grant':
        case 'already-reversed':
          return { status, entry: await entry() };
        case 'insufficient':
          return { status: 'insufficient', quantity: Number(out[1]) };
        case 'key-reused':
          return { status: 'key-reused' };
        default:
          return { status: 'no-entry' };
      }
    },
    async bagEntries(accountId, options) {
      const before = options.before;
      const all = (await recordsOf(accountId, await entriesOf(accountId)))
        .filter(
          (e) =>
            (options.definitionId === undefined || e.definitionId === options.definitionId) &&
            (before === undefined || newestEntryFirst(before, e) < 0),
        )
        .sort(newestEntryFirst);
      const entries = all.slice(0, options.limit);
      const last = entries[entries.length - 1];
      return {
        entries,
        next: all.length > options.limit && last ? { at: last.at, definitionId: last.definitionId, seq: last.seq } : undefined,
      };
    },
    async blankNotes(accountId) {
      await commands.script({ script: BLANK_NOTES, keys: [K.notes(accountId)], args: [] });
    },
    async bag(accountId) {
      const all = await commands.hash(K.bag(accountId));
      return Object.entries(all)
        .filter(([k, v]) => !k.endsWith(':seq') && Number(v) > 0)
        .map(([definitionId, v]) => ({ definitionId, quantity: Number(v) }))
        .sort((a, b) => (a.definitionId < b.definitionId ? -1 : 1));
    },
    async bagSnapshot() {
      const accounts = (await commands.members(K.bagAccounts)).sort();
      const quantities: (BagLine & { accountId: string })[] = [];
      const entries: BagEntry[] = [];
      for (const accountId of accounts) {
        const all = await commands.hash(K.bag(accountId));
        const lines = Object.entries(all).filter(([k]) => !k.endsWith(':seq'));
        for (const [k, v] of lines.sort(([x], [y]) => (x < y ? -1 : 1)))
          quantities.push({ accountId, definitionId: k, quantity: Number(v) });
        const own = await recordsOf(accountId, await entriesOf(accountId));
        // the list is in append order, so one definition's entries are in sequence order already: a
        // stable sort by definition keeps them so
        for (const e of own.sort((x, y) => (x.definitionId < y.definitionId ? -1 : x.definitionId > y.definitionId ? 1 : 0)))
          entries.push(e);
      }
      return { quantities, entries };
    },
    close() {
      return connection.close();
    },
  };
}
