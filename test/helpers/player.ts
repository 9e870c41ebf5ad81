/**
 * Player state on each test backend (`backends.ts`; docs/architecture.md, "Player state"), and a stand-in
 * for a store that races or fails.
 */
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { useServiceConfig } from '../../api/_lib/config.js';
import type { Account, LedgerStore } from '../../api/_lib/ledger/types.js';
import { openRedisPlayerStore } from '../../api/_lib/player/redis.js';
import { openSqlitePlayerStore } from '../../api/_lib/player/sqlite.js';
import { mintUuid } from '../../api/_lib/ledger/ids.js';
import { EMPTY_PROGRESS, studioCodeOf } from '../../api/_lib/player/service.js';
import type { Character, PlayerStore } from '../../api/_lib/player/types.js';
import { fileOf, onBackend, redisOf, sqliteBackend, TEST_RETRY_DELAYS_MS, type BackendTarget, type Harness } from './backends.js';
import { useGameConfig } from './game-api.js';
import { openRedisLedgerOn, openSqliteLedgerOn, sqliteHarness } from './ledger.js';
import { addAccount, newAccount } from './ledger-ops.js';

/** The player store's harness on a backend. */
export type PlayerHarness = Harness<PlayerStore>;

/** The SQLite player store on a SQLite target. */
export const openSqlitePlayerOn = (t: BackendTarget): Promise<PlayerStore> => openSqlitePlayerStore(fileOf(t));
/** The Redis player store on a Redis target, with the short test retry waits. */
export const openRedisPlayerOn = (t: BackendTarget): PlayerStore =>
  openRedisPlayerStore(redisOf(t), { retryDelaysMs: TEST_RETRY_DELAYS_MS });

/** The player store and the ledger over the same data (one SQLite file, one Redis database). */
export interface PlayerAndLedger {
  readonly player: PlayerStore;
  readonly ledger: LedgerStore;
}

/** Both stores on a SQLite target. */
export const openSqlitePairOn = async (t: BackendTarget): Promise<PlayerAndLedger> => ({
  player: await openSqlitePlayerOn(t),
  ledger: await openSqliteLedgerOn(t),
});

/** Both stores on a Redis target (one connection: closing either closes it). */
export const openRedisPairOn = (t: BackendTarget): PlayerAndLedger => ({ player: openRedisPlayerOn(t), ledger: openRedisLedgerOn(t) });

/** The SQLite player store in a temporary folder. */
export function sqlitePlayerHarness(): PlayerHarness {
  return onBackend(sqliteBackend(), openSqlitePlayerOn);
}

/**
 * `base` (a store) with some methods replaced: a stand-in for a store that races or fails. The other
 * members still run on `base` itself (private fields included).
 */
export function withMethods<T extends object>(base: T, patch: Partial<T>): T {
  return new Proxy(base, {
    get(target, key) {
      if (Object.hasOwn(patch, key)) return patch[key as keyof T];
      const value: unknown = Reflect.get(target, key, target);
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}

/** What {@link twoAccountsEachTest} hands each test: fresh SQLite ledger and player stores and two accounts. */
export interface TwoAccounts {
  readonly ledger: LedgerStore;
  readonly store: PlayerStore;
  readonly ada: Account;
  readonly bo: Account;
}

/**
 * Register the hooks of a unit suite of the player services: before each test, fresh SQLite ledger and
 * player stores, the game configuration of the sample catalog, and two accounts (Ada and Bo), handed to
 * `use`; the stores and the configuration dropped after the suite.
 */
export function twoAccountsEachTest(use: (v: TwoAccounts) => void): void {
  const ledgers = sqliteHarness();
  const players = sqlitePlayerHarness();
  beforeAll(async () => {
    await ledgers.setup();
    await players.setup();
  });
  afterAll(async () => {
    useServiceConfig(undefined);
    await ledgers.teardown();
    await players.teardown();
  });
  beforeEach(async () => {
    useGameConfig({});
    const ledger = await ledgers.fresh();
    const store = await players.fresh();
    const ada = await addAccount(ledger, newAccount({ displayName: 'Ada' }));
    const bo = await addAccount(ledger, newAccount({ displayName: 'Bo' }));
    use({ ledger, store, ada, bo });
  });
}

/**
 * A new character of `accountId` for store tests (spec §2.6: a minted RFC UUID id and its STDG display
 * stamp): Ada, a human warrior of the crusade in the warlords era, empty progress at revision 1, created and
 * updated at 2026-11-23T10:00:00Z; `over` replaces any member.
 */
export function sampleCharacter(accountId: string, over: Partial<Character> = {}): Character {
  const id = mintUuid();
  const at = '2026-11-23T10:00:00.000Z';
  return {
    id,
    studioCode: studioCodeOf(id),
    accountId,
    era: 'warlords',
    name: 'Ada',
    classId: 'warrior',
    raceId: 'human',
    factionId: 'crusade',
    createdAt: at,
    progress: EMPTY_PROGRESS,
    progressRevision: 1,
    updatedAt: at,
    ...over,
  };
}
