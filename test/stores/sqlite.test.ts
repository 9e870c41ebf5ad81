/**
 * The store kit's SQLite database (`api/_lib/stores/sqlite.ts`; docs/architecture.md, "Stores are ports
 * with adapters"): durability set and checked (WAL, synchronous FULL inside every write), one engine per
 * file shared by every store on it, layouts recorded and a foreign layout refused, the data folder 0700 and
 * the file 0600, and a closed handle answering 503.
 */
import { mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { createClient } from '@libsql/client';
import { afterAll, describe, expect, it } from 'vitest';
import { openSqliteDatabase, writerPragmas, type SqliteLayout } from '../../api/_lib/stores/sqlite.js';
import { openSqliteLedger } from '../../api/_lib/ledger/sqlite.js';
import { openSqlitePlayerStore } from '../../api/_lib/player/sqlite.js';
import { openSqliteAssetIndex } from '../../api/_lib/asset-index/sqlite.js';
import { ServiceError } from '../../api/_lib/errors.js';
import { creditOf, newAccount } from '../helpers/ledger-ops.js';

const dir = mkdtempSync(join(tmpdir(), 'stores-sqlite-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const store = { name: 'probe store', retryHint: '' };
const layout = (version = 1, component = 'probe'): SqliteLayout => ({
  component,
  version,
  ddl: `CREATE TABLE IF NOT EXISTS ${component.replace('-', '_')}_rows (id INTEGER PRIMARY KEY, v TEXT);`,
});

describe('the SQLite database of the store kit', () => {
  it('writes in WAL mode with synchronous FULL on the writing connection, every transaction', async () => {
    const db = await openSqliteDatabase({ file: join(dir, 'pragmas', 'data.sqlite'), layout: layout(), store });
    expect(await writerPragmas(db)).toEqual({ journalMode: 'wal', synchronous: 2 });
    // a write that fails (not a refusal) reconnects the writer: the next transaction still runs FULL
    await expect(db.write((tx) => tx.execute('INSERT INTO no_such_table VALUES (1)'))).rejects.toMatchObject({
      code: 'UPSTREAM_UNAVAILABLE',
      message: 'The probe store cannot be reached; try again.',
    });
    expect(await writerPragmas(db)).toEqual({ journalMode: 'wal', synchronous: 2 });
    await db.close();
  });

  it('creates the data folder 0700 and the database file 0600', async () => {
    const folder = join(dir, 'modes', 'deep');
    const db = await openSqliteDatabase({ file: join(folder, 'data.sqlite'), layout: layout(), store });
    expect(statSync(folder).mode & 0o777).toBe(0o700);
    expect(statSync(join(folder, 'data.sqlite')).mode & 0o777).toBe(0o600);
    await db.close();
  });

  it('records each store layout in the file, and refuses another version of it or tables without records', async () => {
    const file = join(dir, 'layouts', 'data.sqlite');
    const db = await openSqliteDatabase({ file, layout: layout(1), store });
    await db.close();
    const other = await openSqliteDatabase({ file, layout: layout(1, 'other-part'), store });
    const read = async (sql: string) => (await other.read(sql)).map((r) => ({ ...r }));
    expect(await read('SELECT component, version FROM store_layout ORDER BY component')).toEqual([
      { component: 'audit', version: 1 },
      { component: 'other-part', version: 1 },
      { component: 'probe', version: 1 },
    ]);
    await other.close();
    const refused = await openSqliteDatabase({ file, layout: layout(2), store }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(ServiceError);
    expect((refused as ServiceError).code).toBe('UPSTREAM_UNAVAILABLE');
    expect(String((refused as ServiceError).cause)).toContain('holds the probe tables of layout 1; this service reads layout 2');
    // a file written before layouts were recorded
    const old = join(dir, 'old', 'data.sqlite');
    mkdirSync(join(dir, 'old'));
    const raw = createClient({ url: pathToFileURL(old).href });
    await raw.execute('CREATE TABLE accounts (account_id TEXT PRIMARY KEY)');
    raw.close();
    const unknown = await openSqliteDatabase({ file: old, layout: layout(), store }).catch((e: unknown) => e);
    expect(String((unknown as ServiceError).cause)).toContain('no store_layout table');
  });

  it('shares one writer between the stores of a file: concurrent writes of three stores all commit', async () => {
    const file = join(dir, 'shared', 'ledger.sqlite');
    const [ledger, players, index] = await Promise.all([
      openSqliteLedger({ file }),
      openSqlitePlayerStore(file),
      openSqliteAssetIndex(file),
    ]);
    const a = newAccount();
    await ledger.createAccount({ account: a, clientKey: undefined, fingerprint: 'f' });
    const at = '2026-11-23T10:00:00.000Z';
    const outs = await Promise.all([
      ...Array.from({ length: 20 }, (_, i) => ledger.credit(creditOf(a, { amount: i + 1 })).then((o) => o.status)),
      ...Array.from({ length: 20 }, (_, i) =>
        players.learnRecipe(a.accountId, `RECP-${i}`, at).then((o) => String('learned' in o && o.learned)),
      ),
      ...Array.from({ length: 20 }, (_, i) =>
        index
          .register([{ key: `k/${i}.png`, purpose: 'play', contentType: 'image/png', size: 1, etag: '"e"', registeredAt: at }])
          .then((o) => o[0]!),
      ),
    ]);
    expect(outs).toEqual([...Array<string>(20).fill('created'), ...Array<string>(20).fill('true'), ...Array<string>(20).fill('created')]);
    expect(await ledger.balance(a.accountId)).toBe(210);
    // closing one store leaves the others working on the shared engine
    await index.close();
    expect((await players.recipes(a.accountId)).length).toBe(20);
    await ledger.close();
    await players.close();
    await expect(players.recipes(a.accountId)).rejects.toMatchObject({ code: 'UPSTREAM_UNAVAILABLE' });
  });

  it('opens a store on a file while another store of it is writing: its layout waits for the writer, nothing fails', async () => {
    const file = join(dir, 'opening', 'ledger.sqlite');
    const ledger = await openSqliteLedger({ file });
    const a = newAccount();
    await ledger.createAccount({ account: a, clientKey: undefined, fingerprint: 'f' });
    const writes = Array.from({ length: 40 }, (_, i) => ledger.credit(creditOf(a, { amount: 1 + (i % 3) })).then((o) => o.status));
    // layouts applied in the middle of the writes' groups
    const [probe, other] = await Promise.all([
      openSqliteDatabase({ file, layout: layout(1, 'late-one'), store }),
      openSqliteDatabase({ file, layout: layout(1, 'late-two'), store }),
    ]);
    expect(await Promise.all(writes)).toEqual(Array<string>(40).fill('created'));
    expect((await probe.read('SELECT component FROM store_layout ORDER BY component')).map((r) => r.component)).toEqual([
      'audit',
      'late-one',
      'late-two',
      'ledger',
      'ledger-access',
      'ledger-entries',
      'ledger-lookup',
      'ledger-verification',
    ]);
    await Promise.all([probe.close(), other.close(), ledger.close()]);
  });
});
