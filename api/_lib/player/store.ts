/**
 * The process's player store, built once from the ledger's store configuration (`STORE_DRIVER`; spec
 * 1.8: player state lives only here): the same SQLite file or the same Redis database as the ledger. A
 * new configuration builds the next one on first use.
 */
import { oncePerConfiguration, type StoreConfig } from '../config.js';
import { openByDriver } from '../stores/select.js';
import type { PlayerStore } from './types.js';

/**
 * Open the player store a store configuration names (each adapter loaded only when chosen).
 * @throws ServiceError UPSTREAM_UNAVAILABLE when no store is configured or it cannot be reached.
 */
export function openPlayerStore(config: StoreConfig): Promise<PlayerStore> {
  return openByDriver(config, 'Player state', {
    sqlite: async (file) => (await import('./sqlite.js')).openSqlitePlayerStore(file),
    redis: async (target) => (await import('./redis.js')).openRedisPlayerStore(target),
  });
}

/** The process-wide player store (built on first use). @throws ServiceError UPSTREAM_UNAVAILABLE */
export const playerStore: () => Promise<PlayerStore> = oncePerConfiguration(
  (config) => openPlayerStore(config.store),
  (store) => store.close(),
);

/**
 * A view of `store` whose writes refuse a banned account in the write itself (spec 5.3; docs/architecture.md,
 * "Sessions and bans"): each island save, progress save, recipe, mint, item event and bag change carries
 * `refuseBanned`, so the store answers `suspended` (and changes nothing) while an account it would change
 * is banned at the write's time. What a game server's and a player's writes go through; operators' do not.
 * Everything else is `store`'s own.
 */
export function refusingBanned(store: PlayerStore): PlayerStore {
  const writes: Partial<PlayerStore> = {
    saveIsland: (accountId, save) => store.saveIsland(accountId, { ...save, refuseBanned: true }),
    saveProgress: (accountId, characterId, save) => store.saveProgress(accountId, characterId, { ...save, refuseBanned: true }),
    learnRecipe: (accountId, recipeId, at) => store.learnRecipe(accountId, recipeId, at, { refuseBanned: true }),
    mintItem: (request) => store.mintItem({ ...request, refuseBanned: true }),
    recordItemEvent: (request) => store.recordItemEvent({ ...request, refuseBanned: true }),
    changeBag: (change) => store.changeBag({ ...change, refuseBanned: true }),
  };
  return new Proxy(store, {
    get(target, prop) {
      if (Object.hasOwn(writes, prop)) return writes[prop as keyof PlayerStore];
      const value: unknown = Reflect.get(target, prop, target);
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}
