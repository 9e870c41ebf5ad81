/**
 * What only the SQLite player store does (docs/architecture.md, "Player state"): its driver name, and a
 * database it cannot open or write answered as 503 UPSTREAM_UNAVAILABLE with a text that says to try
 * again, never a raw driver error. The behaviour both adapters share is the contract suite's.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openSqlitePlayerStore } from '../../api/_lib/player/sqlite.js';
import { ServiceError } from '../../api/_lib/errors.js';

const dir = mkdtempSync(join(tmpdir(), 'player-sqlite-only-'));
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('the SQLite player store', () => {
  it('names its driver', async () => {
    const s = await openSqlitePlayerStore(join(dir, 'named.sqlite'));
    expect(s.driver).toBe('sqlite');
    await s.close();
  });

  it('answers 503 with what to do when its database cannot be written, and names no driver internals', async () => {
    const s = await openSqlitePlayerStore(join(dir, 'locked.sqlite'));
    await s.learnRecipe('acct', 'RECP-1', '2026-11-23T10:00:00.000Z');
    // another connection holds the write lock for longer than the store waits
    const { createClient } = await import('@libsql/client');
    const other = createClient({ url: `file:${join(dir, 'locked.sqlite')}` });
    const tx = await other.transaction('write');
    await tx.execute("INSERT INTO learned_recipes (account_id, recipe_id, learned_at) VALUES ('x', 'y', 'z')");
    let error: unknown;
    try {
      await s.learnRecipe('acct', 'RECP-2', '2026-11-23T10:00:01.000Z');
    } catch (e) {
      error = e;
    }
    await tx.rollback();
    other.close();
    expect(error).toBeInstanceOf(ServiceError);
    expect(error).toMatchObject({ code: 'UPSTREAM_UNAVAILABLE', message: 'The player store cannot be reached; try again.' });
    expect((error as ServiceError).cause).toBeDefined();
    // the lock gone, the store works again and nothing half-written stayed
    await s.learnRecipe('acct', 'RECP-2', '2026-11-23T10:00:02.000Z');
    expect((await s.recipes('acct')).map((r) => r.recipeId)).toEqual(['RECP-1', 'RECP-2']);
    await s.close();
  }, 30_000);
});
