/**
 * The asset index on Redis (`STORE_DRIVER=redis`), in the ledger's database with the ledger's client
 * settings (`redisClientOf`): a hash `assets:{idx}:entries` (key → the entry as JSON) and a sorted set
 * `assets:{idx}:keys` (every key at score 0, so `ZRANGE … BYLEX` lists them in byte order: S3's order).
 * Both share the hash tag `{idx}`, so each script touches one slot. A registration, an unregistration and
 * a listing are one script each (atomic; a listing reads the range and the entries together).
 */
import { ServiceError } from '../errors.js';
import { redisClientOf, type RedisLedgerTarget } from '../ledger/redis.js';
import type { AssetEntry, AssetIndexStore } from './types.js';

/** The index's keys. */
export const ASSET_KEYS = Object.freeze({ entries: 'assets:{idx}:entries', keys: 'assets:{idx}:keys' });

/** ARGV: key1, json1, key2, json2, …; returns 1 per entry that existed, 0 per new one. */
const REGISTER = `
local out = {}
for i = 1, #ARGV, 2 do
  out[#out + 1] = redis.call('HEXISTS', KEYS[1], ARGV[i])
  redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1])
  redis.call('ZADD', KEYS[2], 0, ARGV[i])
end
return out
`;

/** ARGV: the key to remove from both structures. */
const UNREGISTER = `
redis.call('HDEL', KEYS[1], ARGV[1])
redis.call('ZREM', KEYS[2], ARGV[1])
return 1
`;

/** ARGV: lex start (`[prefix` or `(after`), count; returns key1, json1, key2, json2, … in key order. */
const LIST = `
local keys = redis.call('ZRANGE', KEYS[2], ARGV[1], '+', 'BYLEX', 'LIMIT', 0, tonumber(ARGV[2]))
local out = {}
if #keys == 0 then return out end
local values = redis.call('HMGET', KEYS[1], unpack(keys))
for i = 1, #keys do
  out[#out + 1] = keys[i]
  out[#out + 1] = values[i] or ''
end
return out
`;

function unavailable(cause: unknown): ServiceError {
  return new ServiceError('UPSTREAM_UNAVAILABLE', 'The asset index cannot be reached; try again.', { cause });
}

/** The index over the ledger's Redis `target`. */
export function openRedisAssetIndex(target: RedisLedgerTarget): AssetIndexStore {
  const redis = redisClientOf(target);
  const call = async <T>(run: () => Promise<T>): Promise<T> => {
    try {
      return await run();
    } catch (e) {
      throw unavailable(e);
    }
  };
  return {
    driver: 'redis',
    async register(entries) {
      const args = entries.flatMap((e) => [e.key, JSON.stringify(e)]);
      const out = await call(() => redis.eval<string[], unknown[]>(REGISTER, [ASSET_KEYS.entries, ASSET_KEYS.keys], args));
      return out.map((x) => (Number(x) === 1 ? 'updated' : 'created'));
    },
    async get(key) {
      const v = await call(() => redis.hget<unknown>(ASSET_KEYS.entries, key));
      return typeof v === 'string' ? (JSON.parse(v) as AssetEntry) : undefined;
    },
    async unregister(key) {
      await call(() => redis.eval<string[], unknown>(UNREGISTER, [ASSET_KEYS.entries, ASSET_KEYS.keys], [key]));
    },
    async list({ prefix, startAfter, limit }) {
      // start at whichever is later in byte order: the prefix itself or just after the last key seen
      const fromAfter = startAfter !== undefined && Buffer.compare(Buffer.from(startAfter), Buffer.from(prefix)) >= 0;
      const start = fromAfter ? `(${startAfter}` : `[${prefix}`;
      const flat = await call(() =>
        redis.eval<string[], unknown[]>(LIST, [ASSET_KEYS.entries, ASSET_KEYS.keys], [start, String(limit + 1)]),
      );
      const items: AssetEntry[] = [];
      for (let i = 0; i < flat.length; i += 2) {
        const key = flat[i] as string;
        // keys with the prefix are contiguous in byte order: the first one without it ends the run
        if (!key.startsWith(prefix)) break;
        items.push(JSON.parse(flat[i + 1] as string) as AssetEntry);
      }
      return { items: items.slice(0, limit), hasMore: items.length > limit };
    },
    close() {
      return 'requester' in target && target.close ? target.close() : Promise.resolve();
    },
  };
}
