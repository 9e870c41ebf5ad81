/**
 * What the SQLite ledger adapter does beyond the shared contract (docs/architecture.md, "Ledger"): group
 * commit. A write that fails after it wrote is refused alone while the rest of its group commits (the
 * group runs again without it); a group whose transaction cannot begin (another process holds the write lock) refuses every
 * write with UPSTREAM_UNAVAILABLE and leaves nothing; the store recovers once the lock is free.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { createClient } from '@libsql/client';
import { ServiceError } from '../../api/_lib/errors.js';
import { mintUuid } from '../../api/_lib/ledger/ids.js';
import { openSqliteLedger } from '../../api/_lib/ledger/sqlite.js';
import { expectSound } from '../helpers/ledger.js';
import { creditOf, newAccount } from '../helpers/ledger-ops.js';

const dir = mkdtempSync(join(tmpdir(), 'ledger-sqlite-only-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const account = () => newAccount();
const credit = creditOf;
const reason = (o: PromiseSettledResult<unknown>) =>
  o.status === 'rejected' && o.reason instanceof ServiceError ? o.reason.code : o.status;

describe('SQLite ledger: group commit', () => {
  it('refuses a write that fails after writing and commits the rest of its group without it', async () => {
    const store = await openSqliteLedger({ file: join(dir, 'savepoint.sqlite') });
    const a = account();
    await store.createAccount({ account: a, clientKey: undefined, fingerprint: 'f' });
    const clash = mintUuid();
    // the second credit inserts its postings, then its transfer breaks the entry id's uniqueness
    const outcomes = await Promise.allSettled([
      store.credit(credit(a, { amount: 1 })),
      store.credit(credit(a, { amount: 2, entryId: clash })),
      store.credit(credit(a, { amount: 4, entryId: clash })),
      store.credit(credit(a, { amount: 8 })),
    ]);
    expect(outcomes.map(reason)).toEqual(['fulfilled', 'fulfilled', 'UPSTREAM_UNAVAILABLE', 'fulfilled']);
    expect(await store.balance(a.accountId)).toBe(11);
    expect((await store.postings(a.accountId, { limit: 10, filter: {} })).postings.map((p) => p.amount)).toEqual([8, 2, 1]);
    await expectSound(store);
    await store.close();
  });

  it('refuses every write of a group whose transaction cannot begin, writes nothing, and recovers', async () => {
    const file = join(dir, 'locked.sqlite');
    const store = await openSqliteLedger({ file, busyTimeoutMs: 50 });
    const a = account();
    await store.createAccount({ account: a, clientKey: undefined, fingerprint: 'f' });
    const other = createClient({ url: pathToFileURL(file).href });
    const lock = await other.transaction('write');
    const outcomes = await Promise.allSettled([
      store.credit(credit(a)),
      store.credit(credit(a)),
      store.createAccount({ account: account(), clientKey: undefined, fingerprint: 'f' }),
    ]);
    expect(outcomes.map(reason)).toEqual(['UPSTREAM_UNAVAILABLE', 'UPSTREAM_UNAVAILABLE', 'UPSTREAM_UNAVAILABLE']);
    await lock.rollback();
    lock.close();
    other.close();
    expect(await store.balance(a.accountId)).toBe(0);
    expect((await store.snapshot()).transfers).toEqual([]);
    expect((await store.credit(credit(a, { amount: 3 }))).status).toBe('created');
    expect(await store.balance(a.accountId)).toBe(3);
    await expectSound(store);
    await store.close();
  });

  it('answers a write only after its group is committed: a second connection sees it at once', async () => {
    const file = join(dir, 'durable.sqlite');
    const store = await openSqliteLedger({ file });
    const a = account();
    await store.createAccount({ account: a, clientKey: undefined, fingerprint: 'f' });
    const reader = createClient({ url: pathToFileURL(file).href, intMode: 'number' });
    const seen = await Promise.all(
      Array.from({ length: 10 }, async (_, i) => {
        const out = await store.credit(credit(a, { amount: i + 1 }));
        const ref = out.status === 'created' ? out.transfer.sourceRef : '';
        return (await reader.execute({ sql: 'SELECT count(*) AS n FROM transfers WHERE source_ref = ?', args: [ref] })).rows[0]!.n;
      }),
    );
    expect(seen).toEqual(Array(10).fill(1));
    reader.close();
    await store.close();
  });
});

describe('SQLite ledger: failures are 503s, refusals are outcomes', () => {
  it('refuses to open a file that is not a database, closing what it opened', async () => {
    const file = join(dir, 'not-a-database.sqlite');
    writeFileSync(file, 'this is not a database, just text long enough to fill a page header '.repeat(20));
    await expect(openSqliteLedger({ file })).rejects.toMatchObject({
      code: 'UPSTREAM_UNAVAILABLE',
      message: 'The ledger store cannot be reached; try again with the same idempotency key.',
    });
  });

  it('answers reads and writes on a closed store with UPSTREAM_UNAVAILABLE, keeping the cause', async () => {
    const store = await openSqliteLedger({ file: join(dir, 'closed.sqlite') });
    const a = account();
    await store.createAccount({ account: a, clientKey: undefined, fingerprint: 'f' });
    await store.close();
    for (const p of [store.balance(a.accountId), store.findAccount({ accountId: a.accountId }), store.credit(credit(a))]) {
      const e = (await p.then(
        () => undefined,
        (x: unknown) => x,
      )) as ServiceError;
      expect(e).toBeInstanceOf(ServiceError);
      expect(e.code).toBe('UPSTREAM_UNAVAILABLE');
      expect(e.cause).toBeInstanceOf(Error);
    }
  });

  it('answers a taken username and a reused creation key as outcomes, writing nothing for them', async () => {
    const store = await openSqliteLedger({ file: join(dir, 'taken.sqlite') });
    expect(store.driver).toBe('sqlite');
    const a = account();
    await store.createAccount({ account: a, clientKey: 'taken-key-1', fingerprint: 'f' });
    expect(await store.createAccount({ account: account(), clientKey: 'taken-key-1', fingerprint: 'g' })).toEqual({ status: 'key-reused' });
    const b = { ...account(), username: a.username };
    expect(await store.createAccount({ account: b, clientKey: undefined, fingerprint: 'f' })).toEqual({ status: 'username-taken' });
    expect(await store.findAccount({ accountId: b.accountId })).toBeUndefined();
    await store.close();
  });
});

describe('SQLite ledger: layouts', () => {
  it('records its access table as the ledger-access layout, and refuses a file holding another version of it', async () => {
    const file = join(dir, 'layouts', 'ledger.sqlite');
    const store = await openSqliteLedger({ file });
    await store.close();
    const raw = createClient({ url: pathToFileURL(file).href });
    const components = (await raw.execute('SELECT component, version FROM store_layout')).rows.map(
      (r) => `${r.component as string}@${Number(r.version)}`,
    );
    expect(components).toContain('ledger-access@1');
    await raw.execute("UPDATE store_layout SET version = 2 WHERE component = 'ledger-access'");
    raw.close();
    const refused = await openSqliteLedger({ file }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(ServiceError);
    expect(String((refused as ServiceError).cause)).toContain('holds the ledger-access tables of layout 2; this service reads layout 1');
  });
});
