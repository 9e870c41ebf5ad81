/**
 * The ledger on each test backend (`backends.ts`): the harnesses the ledger's suites and the handler
 * tests use (docs/architecture.md, "Stores are ports with adapters"), and the invariant check that
 * fails a test with every violation.
 */
import type { Requester } from '@upstash/redis';
import type { RespRequester } from '../../api/_lib/stores/resp-requester.js';
import { openRedisLedger } from '../../api/_lib/ledger/redis.js';
import { openSqliteLedger } from '../../api/_lib/ledger/sqlite.js';
import { checkInvariants } from '../../api/_lib/ledger/invariants.js';
import type { LedgerStore } from '../../api/_lib/ledger/types.js';
import {
  fileOf,
  onBackend,
  redisBackend,
  redisOf,
  sqliteBackend,
  TEST_RETRY_DELAYS_MS,
  upstashRestBackend,
  type BackendTarget,
  type Harness,
} from './backends.js';

/** The ledger's harness on a backend. */
export type LedgerHarness = Harness<LedgerStore>;

/** The SQLite ledger on a SQLite target. */
export const openSqliteLedgerOn = (t: BackendTarget): Promise<LedgerStore> => openSqliteLedger({ file: fileOf(t) });
/** The Redis ledger on a Redis target, with the short test retry waits. */
export const openRedisLedgerOn = (t: BackendTarget): LedgerStore => openRedisLedger(redisOf(t), { retryDelaysMs: TEST_RETRY_DELAYS_MS });

/** The SQLite ledger in a temporary folder. */
export function sqliteHarness(): LedgerHarness {
  return onBackend(sqliteBackend(), openSqliteLedgerOn);
}

/** The Redis ledger over a real server; `wrap` may put a fault-injecting Requester in front of each connection. */
export function redisHarness(
  wrap?: (r: RespRequester) => Requester,
): LedgerHarness & { server: ReturnType<typeof redisBackend>['server']; flush(): Promise<void> } {
  const backend = redisBackend(wrap);
  return { ...onBackend(backend, openRedisLedgerOn), server: () => backend.server(), flush: () => backend.flush() };
}

/** The Redis ledger through the production client path (REST to the stand-in in front of a real server). */
export function upstashRestHarness(): LedgerHarness & { rest: ReturnType<typeof upstashRestBackend>['rest'] } {
  const backend = upstashRestBackend();
  return { ...onBackend(backend, openRedisLedgerOn), rest: () => backend.rest() };
}

/** Fail with every violation when the store's invariants do not hold. */
export async function expectSound(store: LedgerStore): Promise<void> {
  const violations = checkInvariants(await store.snapshot());
  if (violations.length > 0)
    throw new Error('Ledger invariants broken:\n' + violations.map((v) => `  ${v.invariant}: ${v.message}`).join('\n'));
}
