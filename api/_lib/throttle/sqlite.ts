/**
 * The throttle on SQLite (`STORE_DRIVER=sqlite`; `api/_lib/throttle/types.ts`): table `throttle_hits` in the
 * data folder's database file beside the ledger's, so every process on the host counts against the same
 * budgets, written through the store kit's one group-commit writer (`api/_lib/stores/sqlite.ts`). A hit
 * reads the key's two windows and counts itself in one transaction, so concurrent hits never both take
 * the last place. Rows older than the previous window are deleted as their key is hit, and every
 * {@link SWEEP_EVERY}th hit sweeps its budget's stale rows.
 */
import type { Row } from '@libsql/client';
import { openSqliteDatabase } from '../stores/sqlite.js';
import { systemClock, type Clock } from '../stores/clock.js';
import { judge, THROTTLE_STORE, windowIndex, type Budget, type ThrottleStore, type Verdict, type WindowCounts } from './types.js';

const DDL = `
CREATE TABLE IF NOT EXISTS throttle_hits (
  budget TEXT NOT NULL,
  key TEXT NOT NULL,
  window INTEGER NOT NULL,
  hits INTEGER NOT NULL,
  PRIMARY KEY (budget, key, window)
) WITHOUT ROWID;
`;

/** The throttle's table (`api/_lib/stores/sqlite.ts`, "Layouts"). */
export const THROTTLE_LAYOUT = Object.freeze({ component: 'throttle', version: 1, ddl: DDL });

/** One hit in this many sweeps its budget's rows older than the previous window. */
export const SWEEP_EVERY = 256;

/** The counts of `rows` (window, hits) for the window `index`. */
function countsOf(rows: readonly Row[], index: number): WindowCounts {
  let current = 0;
  let previous = 0;
  for (const r of rows) {
    if (Number(r.window) === index) current = Number(r.hits);
    else if (Number(r.window) === index - 1) previous = Number(r.hits);
  }
  return { current, previous };
}

/**
 * Open (creating the table when missing) the throttle in the database file `file`.
 * @throws ServiceError UPSTREAM_UNAVAILABLE when the file cannot be opened or holds another layout.
 */
export async function openSqliteThrottle(file: string, clock: Clock = systemClock): Promise<ThrottleStore> {
  const db = await openSqliteDatabase({ file, layout: THROTTLE_LAYOUT, store: THROTTLE_STORE });
  let hits = 0;
  const SELECT = 'SELECT window, hits FROM throttle_hits WHERE budget = ? AND key = ? AND window >= ?';
  return {
    driver: 'sqlite',
    hit(budget: Budget, key: string): Promise<Verdict> {
      const sweep = ++hits % SWEEP_EVERY === 0;
      return db.write(async (tx) => {
        const now = clock().getTime();
        const index = windowIndex(now, budget.windowS);
        const rows = (await tx.execute({ sql: SELECT, args: [budget.name, key, index - 1] })).rows;
        const verdict = judge(budget, countsOf(rows, index), now);
        if (!verdict.allowed) return verdict;
        await tx.execute({
          sql: `INSERT INTO throttle_hits (budget, key, window, hits) VALUES (?, ?, ?, 1)
                ON CONFLICT (budget, key, window) DO UPDATE SET hits = hits + 1`,
          args: [budget.name, key, index],
        });
        await tx.execute({
          sql: sweep
            ? 'DELETE FROM throttle_hits WHERE budget = ? AND window < ?'
            : 'DELETE FROM throttle_hits WHERE budget = ? AND key = ? AND window < ?',
          args: sweep ? [budget.name, index - 1] : [budget.name, key, index - 1],
        });
        return verdict;
      });
    },
    refund(budget: Budget, key: string): Promise<void> {
      return db.write(async (tx) => {
        await tx.execute({
          sql: `INSERT INTO throttle_hits (budget, key, window, hits) VALUES (?, ?, ?, -1)
                ON CONFLICT (budget, key, window) DO UPDATE SET hits = hits - 1`,
          args: [budget.name, key, windowIndex(clock().getTime(), budget.windowS)],
        });
      });
    },
    async peek(budget: Budget, key: string): Promise<Verdict> {
      const now = clock().getTime();
      const index = windowIndex(now, budget.windowS);
      const rows = await db.read(SELECT, [budget.name, key, index - 1]);
      return judge(budget, countsOf(rows, index), now);
    },
    close: () => db.close(),
  };
}
