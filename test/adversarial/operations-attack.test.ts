/**
 * Attacks on the operators' look-up and the data exports (docs/architecture.md, "Player look-up"), on both
 * stores: a search cursor made by hand to list accounts its query does not match, and what one account's
 * export may show of another account or of the operators who acted on it.
 */
import { expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { requestFingerprint } from '../../api/_lib/stores/idempotency.js';
import { admin, adminAuth, call, newPlayer, onEachStore, quietLog } from './helpers.js';

quietLog();

onEachStore('the look-up and the exports under attack', (store) => {
  it('refuses a search cursor whose place is not one of its query’s matches, listing nobody the query does not find', async () => {
    const config = await store.fresh();
    const auth = await adminAuth(config);
    await newPlayer(config, 'Alma');
    await newPlayer(config, 'Bruno');
    const zed = await newPlayer(config, 'Zed');
    // the binding of a cursor to its query is no secret: anyone can make one for q=zed at any place
    const cursor = (position: string) =>
      Buffer.from(`s1.${requestFingerprint(['player-search', 'zed']).slice(0, 16)}.${position}`).toString('base64url');
    for (const position of [`a\u0000${randomUUID()}`, `\u0000${randomUUID()}`, `zec\u0000${randomUUID()}`]) {
      const r = await call(admin, 'GET', `/api/admin/players?q=zed&cursor=${cursor(position)}`, { headers: auth });
      expect([r.status, r.body.code], JSON.stringify(position)).toEqual([400, 'INVALID_QUERY']);
    }
    // a place among the query's own matches still pages
    const own = await call(
      admin,
      'GET',
      `/api/admin/players?q=zed&cursor=${cursor(`zed\u0000${'0'.repeat(8)}-0000-0000-0000-${'0'.repeat(12)}`)}`,
      {
        headers: auth,
      },
    );
    expect(own.status).toBe(200);
    expect((own.body.players as { account: { studioId: string } }[]).map((h) => h.account.studioId)).toEqual([zed.studioId]);
  });
});
