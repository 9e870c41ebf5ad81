/**
 * Player state on Redis (`STORE_DRIVER=redis`), in the ledger's database with the ledger's client
 * settings and retry policy (`redisClientOf`, `RetryingCommands`; docs/architecture.md, "Player state").
 * Every write is one Lua script that makes its checks before its first change and is safe to run twice
 * (an island save finds its own write id, a progress save its idempotency key, a creation its character
 * id or client key). No script re-encodes JSON (Lua's cjson turns `[]` into `{}`): documents are stored
 * as the text the service wrote.
 *
 * Keys: one account's keys share the ledger's hash tag `{a:<accountId>}` (one hash slot):
 * - `player:{a:<id>}:island` hash: `state` (JSON), `revision`, `updatedAt`, `lastWrite`;
 * - `player:{a:<id>}:chars` hash: `<characterId>:body` (the fixed fields as JSON), `:progress` (JSON),
 *   `:rev`, `:updated`, `:era`;
 * - `player:{a:<id>}:order` list of character ids, oldest first;
 * - `player:{a:<id>}:era-count` hash: era → characters;
 * - `player:{a:<id>}:char-keys` hash: client key → `<fingerprint>\n<characterId>`;
 * - `player:{a:<id>}:progress-keys` hash: `<characterId> <key>` → `<fingerprint>\n<character JSON>`;
 * - `player:{a:<id>}:recipes` hash: recipe id → time learned.
 *
 * - `player:{a:<id>}:items` set: the unique items the account owns now;
 * - `player:{a:<id>}:bag` hash: definition → quantity, `<definition>:seq` → entries so far;
 * - `player:{a:<id>}:bag-entries` list: the account's bag entries (append-only, JSON).
 *
 * Global: `player:external-links` hash: `<provider> <external user id>` → the link as JSON;
 * `item:mint-keys` hash: mint key → `<fingerprint>\n<result JSON>`; `bag:refs` hash: bag source ref →
 * `<fingerprint>\n<entry JSON>` (never expiring); `bag:accounts` set: accounts with bag entries. Per unique item (hash tag
 * `{i:<studio_uuid>}`): `item:{i:<id>}` hash (the instance's fields, `characterId` '' for none),
 * `item:{i:<id>}:events` list (append-only, event JSON), `item:{i:<id>}:keys` hash (event key →
 * `<fingerprint>\n<result JSON>`).
 */
import { ServiceError } from '../errors.js';
import { redisClientOf, redisScript, RetryingCommands, RETRY_DELAYS_MS, type RedisLedgerTarget } from '../ledger/redis.js';
import type { IslandState } from '../island/generate.js';
import type { BagEntry, BagLine, Character, ExternalLink, ItemEvent, ItemInstance, ItemState, PlayerStore, Progress } from './types.js';
import { characterBody } from './types.js';

/** Keys of one account (see the module header). */
export const PLAYER_KEYS = Object.freeze({
  island: (a: string) => `player:{a:${a}}:island`,
  chars: (a: string) => `player:{a:${a}}:chars`,
  order: (a: string) => `player:{a:${a}}:order`,
  eraCount: (a: string) => `player:{a:${a}}:era-count`,
  charKeys: (a: string) => `player:{a:${a}}:char-keys`,
  progressKeys: (a: string) => `player:{a:${a}}:progress-keys`,
  recipes: (a: string) => `player:{a:${a}}:recipes`,
  externalLinks: 'player:external-links',
  items: (a: string) => `player:{a:${a}}:items`,
  mintKeys: 'item:mint-keys',
  bag: (a: string) => `player:{a:${a}}:bag`,
  bagEntries: (a: string) => `player:{a:${a}}:bag-entries`,
  bagRefs: 'bag:refs',
  bagAccounts: 'bag:accounts',
  item: (i: string) => `item:{i:${i}}`,
  itemEvents: (i: string) => `item:{i:${i}}:events`,
  itemKeys: (i: string) => `item:{i:${i}}:keys`,
});

/** KEYS: island. ARGV: state, revision, updatedAt. Creates when absent; answers the stored fields. */
const ISLAND_INIT = redisScript(`
if redis.call('EXISTS', KEYS[1]) == 0 then
  redis.call('HSET', KEYS[1], 'state', ARGV[1], 'revision', ARGV[2], 'updatedAt', ARGV[3], 'lastWrite', '')
end
return redis.call('HMGET', KEYS[1], 'state', 'revision', 'updatedAt')
`);

/** KEYS: island. ARGV: writeId, expected revision, state, at. */
const ISLAND_SAVE = redisScript(`
local cur = redis.call('HMGET', KEYS[1], 'revision', 'lastWrite', 'state', 'updatedAt')
if not cur[1] then return {'missing'} end
if cur[2] == ARGV[1] then return {'again', cur[3], cur[1], cur[4]} end
if tonumber(cur[1]) ~= tonumber(ARGV[2]) then return {'stale', cur[1]} end
redis.call('HSET', KEYS[1], 'state', ARGV[3], 'revision', tostring(tonumber(cur[1]) + 1), 'updatedAt', ARGV[4], 'lastWrite', ARGV[1])
return {'saved'}
`);

/**
 * KEYS: chars, order, char-keys, era-count. ARGV: client key ('' for none), fingerprint, id, era, body,
 * progress, revision, updated, slots.
 */
const CHARACTER_CREATE = redisScript(`
if ARGV[1] ~= '' then
  local k = redis.call('HGET', KEYS[3], ARGV[1])
  if k then
    local sep = string.find(k, '\\n', 1, true)
    if string.sub(k, 1, sep - 1) ~= ARGV[2] then return {'key-reused'} end
    return {'existing', string.sub(k, sep + 1)}
  end
end
if redis.call('HEXISTS', KEYS[1], ARGV[3] .. ':body') == 1 then return {'existing', ARGV[3]} end
local used = tonumber(redis.call('HGET', KEYS[4], ARGV[4]) or '0')
if used >= tonumber(ARGV[9]) then return {'full'} end
redis.call('HSET', KEYS[1], ARGV[3] .. ':body', ARGV[5], ARGV[3] .. ':progress', ARGV[6], ARGV[3] .. ':rev', ARGV[7], ARGV[3] .. ':updated', ARGV[8], ARGV[3] .. ':era', ARGV[4])
redis.call('RPUSH', KEYS[2], ARGV[3])
redis.call('HINCRBY', KEYS[4], ARGV[4], 1)
if ARGV[1] ~= '' then redis.call('HSET', KEYS[3], ARGV[1], ARGV[2] .. '\\n' .. ARGV[3]) end
return {'created'}
`);

/** KEYS: chars, progress-keys. ARGV: character id, key, fingerprint, expected revision, progress, at, result JSON. */
const PROGRESS_SAVE = redisScript(`
local rev = redis.call('HGET', KEYS[1], ARGV[1] .. ':rev')
if not rev then return {'missing'} end
local field = ARGV[1] .. ' ' .. ARGV[2]
local k = redis.call('HGET', KEYS[2], field)
if k then
  local sep = string.find(k, '\\n', 1, true)
  if string.sub(k, 1, sep - 1) ~= ARGV[3] then return {'key-reused'} end
  return {'replayed', string.sub(k, sep + 1)}
end
if tonumber(rev) ~= tonumber(ARGV[4]) then return {'stale', rev} end
redis.call('HSET', KEYS[1], ARGV[1] .. ':progress', ARGV[5], ARGV[1] .. ':rev', tostring(tonumber(rev) + 1), ARGV[1] .. ':updated', ARGV[6])
redis.call('HSET', KEYS[2], field, ARGV[3] .. '\\n' .. ARGV[7])
return {'saved'}
`);

/** KEYS: recipes. ARGV: recipe id, time. */
const RECIPE_LEARN = redisScript(`
if redis.call('HSETNX', KEYS[1], ARGV[1], ARGV[2]) == 1 then return {'learned', ARGV[2]} end
return {'known', redis.call('HGET', KEYS[1], ARGV[1])}
`);

/** KEYS: external-links. ARGV: field, link JSON. The first binding wins; answers the stored one. */
const LINK_EXTERNAL = redisScript(`
local stored = redis.call('HGET', KEYS[1], ARGV[1])
if stored then return {'found', stored} end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
return {'linked'}
`);

/** KEYS: mint-keys, item, events, owner's items. ARGV: key, fingerprint, result JSON, event JSON, id, definition, owner, time. */
const MINT_ITEM = redisScript(`
local k = redis.call('HGET', KEYS[1], ARGV[1])
if k then
  local sep = string.find(k, '\\n', 1, true)
  if string.sub(k, 1, sep - 1) ~= ARGV[2] then return {'key-reused'} end
  return {'replayed', string.sub(k, sep + 1)}
end
redis.call('HSET', KEYS[2], 'definitionId', ARGV[6], 'accountId', ARGV[7], 'state', 'owned', 'characterId', '', 'seq', '1', 'mintedAt', ARGV[8], 'updatedAt', ARGV[8])
redis.call('RPUSH', KEYS[3], ARGV[4])
redis.call('SADD', KEYS[4], ARGV[5])
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2] .. '\\n' .. ARGV[3])
return {'minted'}
`);

/**
 * KEYS: item, events, item keys, the current owner's items, the owner-after's items.
 * ARGV: key, fingerprint, kind, allowed states (comma-separated), state after, owner after ('' keeps),
 * character ('' for none), time, item id, the owner the caller read. Only flat tables go through cjson.
 */
const ITEM_EVENT = redisScript(`
local cur = redis.call('HMGET', KEYS[1], 'definitionId', 'accountId', 'state', 'characterId', 'seq', 'mintedAt', 'updatedAt')
if not cur[1] then return {'missing'} end
local k = redis.call('HGET', KEYS[3], ARGV[1])
if k then
  local sep = string.find(k, '\\n', 1, true)
  if string.sub(k, 1, sep - 1) ~= ARGV[2] then return {'key-reused'} end
  return {'replayed', string.sub(k, sep + 1)}
end
if cur[2] ~= ARGV[10] then return {'moved'} end
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
redis.call('HSET', KEYS[3], ARGV[1], ARGV[2] .. '\\n' .. '{"item":' .. ij .. ',"event":' .. ej .. '}')
redis.call('SREM', KEYS[4], ARGV[9])
if ARGV[5] ~= 'consumed' and ARGV[5] ~= 'destroyed' then redis.call('SADD', KEYS[5], ARGV[9]) end
return {'applied', ij, ej}
`);

/**
 * KEYS: bag refs, the account's bag, its entries, bag accounts. ARGV: source ref, fingerprint, account,
 * definition, delta, time. Integers are written with %d, never through cjson's 14 significant digits.
 */
const BAG_CHANGE = redisScript(`
local stored = redis.call('HGET', KEYS[1], ARGV[1])
if stored then
  local sep = string.find(stored, '\\n', 1, true)
  if string.sub(stored, 1, sep - 1) ~= ARGV[2] then return {'key-reused'} end
  return {'replayed', string.sub(stored, sep + 1)}
end
local q = tonumber(redis.call('HGET', KEYS[2], ARGV[4]) or '0')
local seq = tonumber(redis.call('HGET', KEYS[2], ARGV[4] .. ':seq') or '0') + 1
local after = q + tonumber(ARGV[5])
if after < 0 then return {'insufficient', string.format('%d', q)} end
if after > 9007199254740991 then return {'overflow'} end
local entry = '{"accountId":' .. cjson.encode(ARGV[3]) .. ',"definitionId":' .. cjson.encode(ARGV[4]) .. ',"seq":' .. string.format('%d', seq) ..
  ',"delta":' .. ARGV[5] .. ',"quantityAfter":' .. string.format('%d', after) .. ',"sourceRef":' .. cjson.encode(ARGV[1]) .. ',"at":' .. cjson.encode(ARGV[6]) .. '}'
redis.call('HSET', KEYS[2], ARGV[4], string.format('%d', after), ARGV[4] .. ':seq', string.format('%d', seq))
redis.call('RPUSH', KEYS[3], entry)
redis.call('SADD', KEYS[4], ARGV[3])
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2] .. '\\n' .. entry)
return {'applied', entry}
`);

const str = (v: unknown): string => String(v);

/** An item from the HMGET fields definitionId, accountId, state, characterId, seq, mintedAt, updatedAt. */
function itemFromFields(studioUuid: string, f: unknown[]): ItemInstance {
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

/**
 * The player store over the ledger's Redis `target`.
 * @param options.retryDelaysMs waits between attempts (default the ledger's `RETRY_DELAYS_MS`).
 */
export function openRedisPlayerStore(target: RedisLedgerTarget, options: { retryDelaysMs?: readonly number[] } = {}): PlayerStore {
  const redis = redisClientOf(target);
  const commands = new RetryingCommands(
    redis,
    options.retryDelaysMs ?? RETRY_DELAYS_MS,
    'The player store cannot be reached',
    '; try again.',
  );
  const K = PLAYER_KEYS;
  /**
   * Fields of a hash by position (`HMGET`; with the ledger's client settings replies stay raw, so the
   * client answers a list, nil for a missing field).
   */
  const fieldsOf = async (key: string, fields: string[]): Promise<unknown[]> =>
    (await commands.call('read', () => redis.hmget(key, ...fields))) as unknown as unknown[];
  /** Characters by id, each from its four fields, in the order given (ids without a body are left out). */
  const charactersOf = async (accountId: string, ids: string[]): Promise<Character[]> => {
    if (ids.length === 0) return [];
    const values = await fieldsOf(
      K.chars(accountId),
      ids.flatMap((id) => [`${id}:body`, `${id}:progress`, `${id}:rev`, `${id}:updated`]),
    );
    const out: Character[] = [];
    ids.forEach((_, i) => {
      const [body, progress, rev, updated] = values.slice(i * 4, i * 4 + 4);
      if (body === null || body === undefined) return;
      out.push({
        ...(JSON.parse(str(body)) as Omit<Character, 'progress' | 'progressRevision' | 'updatedAt'>),
        progress: JSON.parse(str(progress)) as Progress,
        progressRevision: Number(rev),
        updatedAt: str(updated),
      });
    });
    return out;
  };

  return {
    driver: 'redis',
    async island(accountId, initial) {
      const [found, rev, at] = await fieldsOf(K.island(accountId), ['state', 'revision', 'updatedAt']);
      if (found !== null && found !== undefined)
        return { state: JSON.parse(str(found)) as IslandState, revision: Number(rev), updatedAt: str(at) };
      const doc = initial();
      const [state, revision, updatedAt] = await commands.script(
        ISLAND_INIT,
        [K.island(accountId)],
        [JSON.stringify(doc.state), String(doc.revision), doc.updatedAt],
      );
      return { state: JSON.parse(str(state)) as IslandState, revision: Number(revision), updatedAt: str(updatedAt) };
    },
    async saveIsland(accountId, save) {
      const out = await commands.script(
        ISLAND_SAVE,
        [K.island(accountId)],
        [save.writeId, String(save.expectedRevision), JSON.stringify(save.state), save.at],
      );
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
        default:
          return { status: 'missing' };
      }
    },
    async createCharacter(input) {
      const c = input.character;
      const a = c.accountId;
      const out = await commands.script(
        CHARACTER_CREATE,
        [K.chars(a), K.order(a), K.charKeys(a), K.eraCount(a)],
        [
          input.clientKey ?? '',
          input.fingerprint,
          c.id,
          c.era,
          characterBody(c),
          JSON.stringify(c.progress),
          String(c.progressRevision),
          c.updatedAt,
          String(input.slotsPerEra),
        ],
      );
      switch (out[0]) {
        case 'created':
          return { status: 'created', character: c };
        case 'existing': {
          const [found] = await charactersOf(a, [str(out[1])]);
          if (!found) throw new ServiceError('UPSTREAM_UNAVAILABLE', 'The character of this idempotency key cannot be read; try again.');
          return { status: 'existing', character: found };
        }
        case 'full':
          return { status: 'full', slotsPerEra: input.slotsPerEra };
        default:
          return { status: 'key-reused' };
      }
    },
    async characters(accountId, era) {
      const ids = (await commands.call('read', () => redis.lrange(K.order(accountId), 0, -1))).map(str);
      if (ids.length === 0) return [];
      const eras = await fieldsOf(
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
      const current = await this.character(accountId, characterId);
      if (!current) return { status: 'missing' };
      const next: Character = { ...current, progress: save.progress, progressRevision: save.expectedRevision + 1, updatedAt: save.at };
      const out = await commands.script(
        PROGRESS_SAVE,
        [K.chars(accountId), K.progressKeys(accountId)],
        [
          characterId,
          save.idempotencyKey,
          save.fingerprint,
          String(save.expectedRevision),
          JSON.stringify(save.progress),
          save.at,
          JSON.stringify(next),
        ],
      );
      switch (out[0]) {
        case 'saved':
          return { status: 'saved', character: next };
        case 'replayed':
          return { status: 'replayed', character: JSON.parse(str(out[1])) as Character };
        case 'stale':
          return { status: 'stale', revision: Number(out[1]) };
        case 'key-reused':
          return { status: 'key-reused' };
        default:
          return { status: 'missing' };
      }
    },
    async learnRecipe(accountId, recipeId, at) {
      const out = await commands.script(RECIPE_LEARN, [K.recipes(accountId)], [recipeId, at]);
      return { learned: out[0] === 'learned', recipe: { recipeId, learnedAt: str(out[1]) } };
    },
    async recipes(accountId) {
      const all = await commands.hash(K.recipes(accountId));
      return Object.entries(all)
        .map(([recipeId, at]) => ({ recipeId, learnedAt: str(at) }))
        .sort((x, y) =>
          x.learnedAt < y.learnedAt ? -1 : x.learnedAt > y.learnedAt ? 1 : x.recipeId < y.recipeId ? -1 : x.recipeId > y.recipeId ? 1 : 0,
        );
    },
    async linkExternal(link) {
      const out = await commands.script(
        LINK_EXTERNAL,
        [K.externalLinks],
        [`${link.provider} ${link.externalUserId}`, JSON.stringify(link)],
      );
      if (out[0] === 'linked') return { status: 'linked', link };
      const stored = JSON.parse(str(out[1])) as ExternalLink;
      return { status: stored.accountId === link.accountId ? 'existing' : 'taken', link: stored };
    },
    async externalLink(provider, externalUserId) {
      const v = await commands.call('read', () => redis.hget(K.externalLinks, `${provider} ${externalUserId}`));
      return v === null || v === undefined ? undefined : (JSON.parse(str(v)) as ExternalLink);
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
      const out = await commands.script(
        MINT_ITEM,
        [K.mintKeys, K.item(i.studioUuid), K.itemEvents(i.studioUuid), K.items(i.accountId)],
        [
          request.idempotencyKey,
          request.fingerprint,
          JSON.stringify({ item: i, event }),
          JSON.stringify(event),
          i.studioUuid,
          i.definitionId,
          i.accountId,
          i.mintedAt,
        ],
      );
      if (out[0] === 'minted') return { status: 'minted', item: i, event };
      if (out[0] === 'key-reused') return { status: 'key-reused' };
      return { status: 'replayed', ...(JSON.parse(str(out[1])) as { item: ItemInstance; event: ItemEvent }) };
    },
    async recordItemEvent(request) {
      const id = request.studioUuid;
      // the owner's index moves with a transfer: read the owner, and run again if it moved meanwhile
      for (;;) {
        const [owner] = await fieldsOf(K.item(id), ['accountId']);
        if (owner === null || owner === undefined) return { status: 'missing' };
        const after = request.accountId ?? str(owner);
        const out = await commands.script(
          ITEM_EVENT,
          [K.item(id), K.itemEvents(id), K.itemKeys(id), K.items(str(owner)), K.items(after)],
          [
            request.idempotencyKey,
            request.fingerprint,
            request.kind,
            request.from.join(','),
            request.to,
            request.accountId ?? '',
            request.characterId ?? '',
            request.at,
            id,
            str(owner),
          ],
        );
        switch (out[0]) {
          case 'applied':
            return { status: 'applied', item: JSON.parse(str(out[1])) as ItemInstance, event: JSON.parse(str(out[2])) as ItemEvent };
          case 'replayed':
            return { status: 'replayed', ...(JSON.parse(str(out[1])) as { item: ItemInstance; event: ItemEvent }) };
          case 'forbidden':
            return { status: 'forbidden', item: itemFromFields(id, out.slice(1)) };
          case 'key-reused':
            return { status: 'key-reused' };
          case 'missing':
            return { status: 'missing' };
          default:
            continue; // 'moved'
        }
      }
    },
    async itemHistory(studioUuid) {
      const fields = await fieldsOf(K.item(studioUuid), ITEM_FIELDS);
      if (fields[0] === null || fields[0] === undefined) return undefined;
      const events = (await commands.call('read', () => redis.lrange(K.itemEvents(studioUuid), 0, -1))).map(
        (e) => JSON.parse(str(e)) as ItemEvent,
      );
      return { item: itemFromFields(studioUuid, fields), events };
    },
    async accountItems(accountId) {
      const ids = (await commands.call('read', () => redis.smembers(K.items(accountId)))).map(str);
      const items: ItemInstance[] = [];
      for (const id of ids) items.push(itemFromFields(id, await fieldsOf(K.item(id), ITEM_FIELDS)));
      return items.sort((a, b) => (a.mintedAt < b.mintedAt ? -1 : a.mintedAt > b.mintedAt ? 1 : a.studioUuid < b.studioUuid ? -1 : 1));
    },
    async changeBag(change) {
      const out = await commands.script(
        BAG_CHANGE,
        [K.bagRefs, K.bag(change.accountId), K.bagEntries(change.accountId), K.bagAccounts],
        [change.sourceRef, change.fingerprint, change.accountId, change.definitionId, String(change.delta), change.at],
      );
      switch (out[0]) {
        case 'applied':
        case 'replayed':
          return { status: out[0], entry: JSON.parse(str(out[1])) as BagEntry };
        case 'insufficient':
          return { status: 'insufficient', quantity: Number(out[1]) };
        case 'key-reused':
          return { status: 'key-reused' };
        default:
          throw new ServiceError('CONFLICT', 'This grant would take the quantity beyond the largest the bag holds.');
      }
    },
    async bag(accountId) {
      const all = await commands.hash(K.bag(accountId));
      return Object.entries(all)
        .filter(([k, v]) => !k.endsWith(':seq') && Number(v) > 0)
        .map(([definitionId, v]) => ({ definitionId, quantity: Number(v) }))
        .sort((a, b) => (a.definitionId < b.definitionId ? -1 : 1));
    },
    async bagSnapshot() {
      const accounts = (await commands.call('read', () => redis.smembers(K.bagAccounts))).map(str).sort();
      const quantities: (BagLine & { accountId: string })[] = [];
      const entries: BagEntry[] = [];
      for (const accountId of accounts) {
        const all = await commands.hash(K.bag(accountId));
        const lines = Object.entries(all).filter(([k]) => !k.endsWith(':seq'));
        for (const [k, v] of lines.sort(([x], [y]) => (x < y ? -1 : 1)))
          quantities.push({ accountId, definitionId: k, quantity: Number(v) });
        const own = (await commands.call('read', () => redis.lrange(K.bagEntries(accountId), 0, -1))).map(
          (e) => JSON.parse(str(e)) as BagEntry,
        );
        // the list is in append order, so one definition's entries are in sequence order already: a
        // stable sort by definition keeps them so
        for (const e of own.sort((x, y) => (x.definitionId < y.definitionId ? -1 : x.definitionId > y.definitionId ? 1 : 0)))
          entries.push(e);
      }
      return { quantities, entries };
    },
    close() {
      return 'requester' in target && target.close ? target.close() : Promise.resolve();
    },
  };
}
