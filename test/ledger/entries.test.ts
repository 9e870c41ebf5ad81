/**
 * The wallet and admin entries as they load (`api/wallet.ts`, `api/admin.ts`): each module is imported
 * afresh, so its route table and handlers are built by this test, and every route answers a caller without
 * credentials with 401 and `WWW-Authenticate` (the route exists, takes its method, and checks the caller
 * first); unknown methods are 405. The account lookup's refusals name what to send.
 */
import { describe, expect, it } from 'vitest';
import { freshEntrySuite } from '../helpers/entry.js';

const SECRET = 'entries-secret-0123456789-abcdefghijklm';
const PASSWORD = 'entries-password-0123456789';
const suite = freshEntrySuite('entries-');
const load = (name: 'wallet' | 'admin') =>
  suite.load({ JWT_SECRET: SECRET, ADMIN_PASSWORD: PASSWORD, STORE_DRIVER: 'sqlite' }, () =>
    name === 'wallet' ? import('../../api/wallet.js') : import('../../api/admin.js'),
  );

describe('entries, loaded afresh', () => {
  const routes: ['wallet' | 'admin', string, string][] = [
    ['wallet', 'POST', '/api/wallet/verify-send-to-account'],
    ['wallet', 'GET', '/api/wallet/overview'],
    ['admin', 'POST', '/api/admin/accounts'],
    ['admin', 'GET', '/api/admin/accounts/STUDIO_7QF3K2M9X4D1H8TB'],
    ['admin', 'POST', '/api/admin/grant-coin'],
  ];
  for (const [entry, method, path] of routes) {
    it(`${method} ${path} asks for credentials first`, async () => {
      const mod = await load(entry);
      const res = await mod[method]!(
        new Request(`http://localhost${path}`, {
          method,
          ...(method === 'POST' ? { body: '{}', headers: { 'Content-Type': 'application/json' } } : {}),
        }),
      );
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toMatch(/^Bearer realm="game-api"/);
      const wrong = await mod.DELETE!(new Request(`http://localhost${path}`, { method: 'DELETE' }));
      expect(wrong.status).toBe(405);
    });
  }

  it('names what to send when the account lookup finds nothing', async () => {
    const mod = await load('admin');
    const get = (key: string) =>
      mod.GET!(new Request(`http://localhost/api/admin/accounts/${key}`, { headers: { 'X-Admin-Password': PASSWORD } }));
    const bad = await get('not-an-id');
    expect(bad.status).toBe(404);
    expect(((await bad.json()) as { detail: string }).detail).toBe('Name the account by its studioId (STUDIO_*) or accountId (uuid).');
    const none = await get('STUDIO_7QF3K2M9X4D1H8TB');
    expect(none.status).toBe(404);
    expect(((await none.json()) as { detail: string }).detail).toBe('No account has this id.');
  });
});
