/**
 * Attacks on the audit log (spec 5.3; docs/architecture.md, "Audit log"), on both stores: a request id the
 * client chooses, a record naming no account or a change that did not happen, a cursor that reads outside
 * its filters, and scripts that make the Redis kit's audited variant answer otherwise than the script.
 */
import { expect, it } from 'vitest';
import type { AuditRecord } from '../../api/_lib/util/audit-scope.js';
import { admin, adminAuth, call, newPlayer, onEachStore, quietLog } from './helpers.js';

type Page = { records: AuditRecord[]; cursor: string | null; hasMore: boolean };

quietLog();

onEachStore('the audit log under attack', (store) => {
  /** Every record (at most 200), newest first, with `query` added to the filters. */
  const records = async (auth: Record<string, string>, query = ''): Promise<AuditRecord[]> => {
    const r = await call(admin, 'GET', `/api/admin/audit?limit=200${query}`, { headers: auth });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    return (r.body as unknown as Page).records;
  };

  it("never takes a client's x-vercel-id off Vercel: a write sent with an earlier request's id still gets its own record", async () => {
    const config = await store.fresh();
    const auth = await adminAuth(config);
    const p = await newPlayer(config, 'Forger');
    const first = await call(admin, 'POST', '/api/admin/grant-coin', {
      body: { studioId: p.studioId, amount: 5, reason: 'first', idempotencyKey: 'forge-grant-0001' },
      headers: auth,
    });
    const taken = first.headers.get('x-request-id')!;
    const second = await call(admin, 'POST', '/api/admin/grant-coin', {
      body: { studioId: p.studioId, amount: 7, reason: 'second', idempotencyKey: 'forge-grant-0002' },
      headers: { ...auth, 'x-vercel-id': taken },
    });
    const chosen = await call(admin, 'POST', '/api/admin/grant-coin', {
      body: { studioId: p.studioId, amount: 9, reason: 'third', idempotencyKey: 'forge-grant-0003' },
      headers: { ...auth, 'x-vercel-id': 'fra1::iad1::chosen-by-the-client' },
    });
    expect([first.status, second.status, chosen.status]).toEqual([200, 200, 200]);
    expect(second.headers.get('x-request-id')).not.toBe(taken);
    expect(chosen.headers.get('x-request-id')).not.toBe('fra1::iad1::chosen-by-the-client');
    const changes = (await records(auth, '&route=admin/grant-coin')).filter((r) => r.changed === true);
    expect(changes.map((r) => [r.idempotencyKey, r.requestId])).toEqual([
      ['forge-grant-0003', chosen.headers.get('x-request-id')],
      ['forge-grant-0002', second.headers.get('x-request-id')],
      ['forge-grant-0001', taken],
    ]);
  });
});
