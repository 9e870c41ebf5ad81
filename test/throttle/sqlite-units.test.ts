// The SQLite throttle's own rules beyond the contract (api/_lib/throttle/sqlite.ts): its layout record,
// the sweep of stale rows, a clock that steps back, and a closed store.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { createClient } from '@libsql/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSqliteThrottle, SWEEP_EVERY } from '../../api/_lib/throttle/sqlite.js';
import { windowIndex, type Budget } from '../../api/_lib/throttle/types.js';

/** The start of a window of 60 s. */
const T0 = windowIndex(Date.UTC(2026, 10, 23, 10, 0, 0), 60) * 60_000;

let dir = '';
let n = 0;
/** A database file of its own for each test. */
const freshFile = () => join(dir, `t-${++n}`, 'ledger.sqlite');

/** The rows of `file`'s throttle table, as `budget/key/window=hits`, sorted. */
async function rowsOf(file: string, windowOf: (w: number) => string): Promise<string[]> {
  const c = createClient({ url: pathToFileURL(file).href, intMode: 'number' });
  try {
    const rows = (await c.execute('SELECT budget, key, window, hits FROM throttle_hits')).rows;
    return rows.map((r) => `${r.budget as string}/${r.key as string}/${windowOf(Number(r.window))}=${Number(r.hits)}`).sort();
  } finally {
    c.close();
  }
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'throttle-sqlite-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the SQLite throttle', () => {
  it('says it runs on SQLite', async () => {
    const t = await openSqliteThrottle(freshFile());
    expect(t.driver).toBe('sqlite');
    await t.close();
  });

  it('records its layout as the throttle component, and refuses a file holding another layout of it', async () => {
    const file = freshFile();
    const t = await openSqliteThrottle(file);
    await t.close();
    const c = createClient({ url: pathToFileURL(file).href, intMode: 'number' });
    const layouts = (await c.execute('SELECT component, version FROM store_layout ORDER BY component')).rows.map(
      (r) => `${r.component as string}@${Number(r.version)}`,
    );
    expect(layouts).toContain('throttle@1');
    await c.execute("UPDATE store_layout SET version = 9 WHERE component = 'throttle'");
    c.close();
    // closed, the file's engine is released: opening it again checks its layouts anew
    await expect(openSqliteThrottle(file)).rejects.toMatchObject({
      code: 'UPSTREAM_UNAVAILABLE',
      cause: { message: expect.stringMatching(/holds the throttle tables of layout 9; this service reads layout 1/) as unknown },
    });
  });

  it('sweeps its budget’s rows older than the previous window every SWEEP_EVERY hits, and only then', async () => {
    let now = T0;
    const file = freshFile();
    const t = await openSqliteThrottle(file, () => new Date(now));
    const b: Budget = { name: 'sweep', limit: 1_000_000, windowS: 60 };
    const other: Budget = { name: 'kept', limit: 10, windowS: 60 };
    const base = windowIndex(T0, 60);
    const windowOf = (w: number) => `w${w - base}`;
    // stale rows: key `old` of both budgets, three windows back
    await t.hit(b, 'old');
    await t.hit(other, 'old');
    now = T0 + 2 * 60_000;
    await t.hit(b, 'prev');
    now = T0 + 3 * 60_000;
    // hits so far: 3; the 256th hit of the store sweeps
    for (let i = 3; i < SWEEP_EVERY - 1; i++) await t.hit(b, 'now');
    expect(await rowsOf(file, windowOf)).toEqual(['kept/old/w0=1', 'sweep/now/w3=252', 'sweep/old/w0=1', 'sweep/prev/w2=1']);
    await t.hit(b, 'now');
    // the sweep took only its own budget's stale rows: the previous window and the current stay
    expect(await rowsOf(file, windowOf)).toEqual(['kept/old/w0=1', 'sweep/now/w3=253', 'sweep/prev/w2=1']);
    await t.close();
  });

  it('deletes a key’s own stale rows as it is hit, leaving its previous window', async () => {
    let now = T0;
    const file = freshFile();
    const t = await openSqliteThrottle(file, () => new Date(now));
    const b: Budget = { name: 'own', limit: 100, windowS: 60 };
    const base = windowIndex(T0, 60);
    await t.hit(b, 'k');
    await t.hit(b, 'x');
    now = T0 + 60_000;
    await t.hit(b, 'k');
    now = T0 + 2 * 60_000;
    await t.hit(b, 'k');
    expect(await rowsOf(file, (w) => `w${w - base}`)).toEqual(['own/k/w1=1', 'own/k/w2=1', 'own/x/w0=1']);
    await t.close();
  });

  it('does not count a later window as the previous one when the clock steps back', async () => {
    let now = T0 + 5 * 60_000;
    const t = await openSqliteThrottle(freshFile(), () => new Date(now));
    const b: Budget = { name: 'back', limit: 2, windowS: 60 };
    await t.hit(b, 'k');
    await t.hit(b, 'k');
    expect((await t.peek(b, 'k')).allowed).toBe(false);
    // three windows earlier, at its start (a previous window would weigh whole): the later window's hits
    // are neither current nor previous
    now = T0 + 2 * 60_000;
    expect((await t.peek(b, 'k')).allowed).toBe(true);
    expect((await t.hit(b, 'k')).allowed).toBe(true);
    await t.close();
  });

  it('refuses hits once closed', async () => {
    const t = await openSqliteThrottle(freshFile());
    const b: Budget = { name: 'closed', limit: 5, windowS: 60 };
    await t.hit(b, 'k');
    await t.close();
    await expect(t.hit(b, 'k')).rejects.toMatchObject({ code: 'UPSTREAM_UNAVAILABLE' });
  });
});
