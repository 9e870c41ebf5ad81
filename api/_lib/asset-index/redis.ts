/**
 * The asset index on Redis (`STORE_DRIVER=redis`), in the ledger's database, on the store kit's client,
 * retry policy and script loading (`api/_lib/stores/redis.ts`): a hash `assets:{idx}:entries` (key → the entry as JSON) and a sorted set
 * `assets:{idx}:keys` (every key at score 0, so `ZRANGE … BYLEX` lists them in byte order: S3's order).
 * Both share the hash tag `{idx}`, so each script touches one slot. A registration, an unregistration and
 * a listing are one script each (atomic; a listing reads the range and the entries together).
 */
import { connectRedis, redisScript, type RedisTarget } from '../stores/redis.js';
import { ASSET_INDEX_STORE, type AssetEntry, type AssetIndexStore } from './types.js';

/** The index's keys. */
export const ASSET_KEYS = Object.freeze({ entries: 'assets:{idx}:entries', keys: 'assets:{idx}:keys' });

/**
 * ARGV: key1, json1, key2, json2, …; returns 1 per entry that existed, 0 per new one. Safe to run twice
 * (a retry after a lost answer reports its own entries as existing).
 */
const REGISTER = redisScript(`
local out = {}
for i = 1, #ARGV, 2 do
  out[#out + 1] = redis.call('HEXISTS', KEYS[1], ARGV[i])
  redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1])
  redis.call('ZADD', KEYS[2], 0, ARGV[i])
end
return out
`);

/** ARGV: the key to remove from both structures. */
const UNREGISTER = redisScript(`
redis.call('HDEL', KEYS[1], ARGV[1])
redis.call('ZREM', KEYS[2], ARGV[1])
return 1
`);

/** ARGV: lex start (`[prefix` or `(after`), count; returns key1, json1, key2, json2, … in key order. */
const LIST = redisScript(`
local keys = redis.call('ZRANGE', KEYS[2], ARGV[1], '+', 'BYLEX', 'LIMIT', 0, tonumber(ARGV[2]))
local out = {}
if #keys == 0 then return out end
local values = redis.call('HMGET', KEYS[1], unpack(keys))
for i = 1, #keys do
  out[#out + 1] = keys[i]
  out[#out + 1] = values[i] or ''
end
return out
`);

/**
 * The index over the ledger's Redis `target`.
 * @param options.retryDelaysMs waits between attempts (default the kit's `RETRY_DELAYS_MS`).
 */
export function openRedisAssetIndex(target: RedisTarget, options: { retryDelaysMs?: readonly number[] } = {}): AssetIndexStore {
  const connection = connectRedis(target, ASSET_INDEX_STORE, options);
  const commands = connection.commands;
  const keys = [ASSET_KEYS.entries, ASSET_KEYS.keys];
  return {
    driver: 'redis',
    async register(entries) {
      const out = await commands.script({ script: REGISTER, keys, args: entries.flatMap((e) => [e.key, JSON.stringify(e)]) });
      return out.map((x) => (Number(x) === 1 ? 'updated' : 'created'));
    },
    async get(key) {
      const v = await commands.field(ASSET_KEYS.entries, key);
      return v === null ? undefined : (JSON.parse(v) as AssetEntry);
    },
    async unregister(key) {
      await commands.script({ script: UNREGISTER, keys, args: [key] });
    },
    async list({ prefix, startAfter, limit }) {
      // start at whichever is later in byte order: the prefix itself or just after the last key seen
      const fromAfter = startAfter !== undefined && Buffer.compare(Buffer.from(startAfter), Buffer.from(prefix)) >= 0;
      const start = fromAfter ? `(${startAfter}` : `[${prefix}`;
      const flat = await commands.script({ script: LIST, keys, args: [start, String(limit + 1)] });
      const items: AssetEntry[] = [];
      for (let i = 0; i < flat.length; i += 2) {
        const key = String(flat[i]);
        // keys with the prefix are contiguous in byte order: the first one without it ends the run
        if (!key.startsWith(prefix)) break;
        items.push(JSON.parse(String(flat[i + 1])) as AssetEntry);
      }
      return { items: items.slice(0, limit), hasMore: items.length > limit };
    },
    close() {
      return connection.close();
    },
  };
}
