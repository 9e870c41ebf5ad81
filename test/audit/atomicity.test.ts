/**
 * A change and its audit record are one atomic step, on both stores (docs/architecture.md, "Audit log"):
 * with the record's write made to fail (SQLite: a trigger refusing the log's insert; Redis: a key the
 * record is written to holding another type), a grant is refused with 503 and nothing of it is there, no
 * coin, no transfer, no record; once the fault is gone, the same request applies once with one record.
 */
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { createClient } from '@libsql/client';
import { expect, it } from 'vitest';
import { ledgerStore } from '../../api/_lib/ledger/store.js';
import type { AuditRecord } from '../../api/_lib/util/audit-scope.js';
import { redisCommand } from '../helpers/redis.js';
import { admin, adminAuth, call, newPlayer, onEachStore, quietLog } from '../adversarial/helpers.js';

onEachStore('a change and its audit record', (store) => {
  quietLog();
  it('are written together or not at all', async () => {
    const config = await store.fresh();
    const auth = await adminAuth(config);
    const p = await newPlayer(config, 'Atom');
    const grant = { studioId: p.studioId, amount: 75, reason: 'outage', idempotencyKey: 'atomic-grant-0001' };
    const route = 'admin/grant-coin';
    let heal: () => Promise<void>;
    if (store.name === 'sqlite') {
      const db = createClient({ url: pathToFileURL(join(store.env().DATA_DIR!, 'ledger.sqlite')).href });
      await db.execute(
        `CREATE TRIGGER audit_fault BEFORE INSERT ON audit_log WHEN NEW.route = '${route}' BEGIN SELECT RAISE(ABORT, 'injected fault'); END`,
      );
      heal = async () => {
        await db.execute('DROP TRIGGER audit_fault');
        db.close();
      };
    } else {
      const url = (store.backend as unknown as { server(): { url: string } }).server().url;
      await redisCommand(url, ['SET', `audit:i:route:${route}`, 'not a sorted set']);
      heal = async () => void (await redisCommand(url, ['DEL', `audit:i:route:${route}`]));
    }
    const refused = await call(admin, 'POST', '/api/admin/grant-coin', { body: grant, headers: auth });
    expect([refused.status, refused.body.code]).toEqual([503, 'UPSTREAM_UNAVAILABLE']);
    const ledger = await ledgerStore();
    const account = (await ledger.findAccount({ studioId: p.studioId }))!;
    expect(await ledger.balance(account.accountId)).toBe(0);
    expect((await ledger.snapshot()).transfers.filter((t) => t.sourceRef === 'admin-grant:atomic-grant-0001')).toEqual([]);
    await heal();
    const records = async () =>
      ((await call(admin, 'GET', `/api/admin/audit?route=${route}`, { headers: auth })).body.records as AuditRecord[]) ?? [];
    // no record says the refused request changed something
    expect((await records()).filter((r) => r.changed === true)).toEqual([]);
    const applied = await call(admin, 'POST', '/api/admin/grant-coin', { body: grant, headers: auth });
    expect(applied.status).toBe(200);
    expect(await ledger.balance(account.accountId)).toBe(75);
    const changes = (await records()).filter((r) => r.changed === true);
    expect(changes.map((r) => [r.requestId, r.idempotencyKey])).toEqual([[applied.headers.get('x-request-id'), 'atomic-grant-0001']]);
  });
});
