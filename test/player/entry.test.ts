/**
 * The player entry as it loads (`api/player.ts`, spec 4.8, 5): the module is imported afresh for each
 * test, so its route table and handlers are built here. Every route takes its methods and refuses others
 * (405), asks a caller without credentials for them first (401 with `WWW-Authenticate`), and the public
 * island spec is served with its content type and a strong ETag of its bytes (304 on a match).
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { SAMPLE_OUT } from '../helpers/catalog.js';
import { freshEntrySuite } from '../helpers/entry.js';
import { SECRET } from '../helpers/game-api.js';

const suite = freshEntrySuite('player-entry-');
const load = () => suite.load({ JWT_SECRET: SECRET, STORE_DRIVER: 'sqlite', CATALOG_DIR: SAMPLE_OUT }, () => import('../../api/player.js'));

const KEY = '7d6a3c58-0b8e-4c1f-9a41-7f0e5d2b9c10';
// [method, path]: every route of the player entry that needs a caller's token or a game server's credentials
const GUARDED: [string, string][] = [
  ['GET', '/api/island/state'],
  ['PATCH', '/api/island/state'],
  ['POST', '/api/island/export-from-rts'],
  ['GET', '/api/characters?era=warlords'],
  ['POST', '/api/characters'],
  ['GET', `/api/characters/${KEY}/progress`],
  ['PATCH', `/api/characters/${KEY}/progress`],
  ['GET', '/api/account/recipes'],
  ['POST', '/api/account/recipes'],
  ['POST', '/api/auth/external-link'],
  ['POST', '/api/uuid'],
  ['GET', `/api/ledger/${KEY}`],
  ['POST', `/api/ledger/${KEY}/events`],
  ['GET', '/api/inventory'],
  ['POST', '/api/inventory/grant'],
  ['POST', '/api/inventory/consume'],
];

describe('the player entry, loaded afresh', () => {
  for (const [method, path] of GUARDED) {
    it(`${method} ${path} asks for credentials first, and refuses DELETE`, async () => {
      const mod = await load();
      const body = method === 'GET' ? {} : { body: '{}', headers: { 'Content-Type': 'application/json' } };
      const res = await mod[method]!(new Request(`http://localhost${path}`, { method, ...body }));
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toMatch(/^Bearer realm="game-api"/);
      const wrong = await mod.DELETE!(new Request(`http://localhost${path}`, { method: 'DELETE' }));
      expect(wrong.status).toBe(405);
    });
  }

  it('takes a login body before anything else: an empty one is a 400 naming the token', async () => {
    const mod = await load();
    const res = await mod.POST!(
      new Request('http://localhost/api/auth/external', { method: 'POST', body: '{}', headers: { 'Content-Type': 'application/json' } }),
    );
    expect(res.status).toBe(400);
    expect(((await res.json()) as { errors: { name: string }[] }).errors.map((e) => e.name)).toEqual(['/token']);
  });

  it('serves the island spec publicly, as JSON, with a strong ETag of its bytes', async () => {
    const mod = await load();
    const res = await mod.GET!(new Request('http://localhost/api/island/spec'));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    const text = await res.text();
    const tag = `"${createHash('sha1').update(text).digest('hex').slice(0, 16)}"`;
    expect(res.headers.get('etag')).toBe(tag);
    expect((JSON.parse(text) as { specVersion: string }).specVersion).toBe('2.2.0');
    const again = await mod.GET!(new Request('http://localhost/api/island/spec', { headers: { 'If-None-Match': tag } }));
    expect([again.status, again.headers.get('etag'), await again.text()]).toEqual([304, tag, '']);
    expect((await mod.POST!(new Request('http://localhost/api/island/spec', { method: 'POST' }))).status).toBe(405);
  });
});
