/**
 * The route table walked (spec 5.3; docs/architecture.md, "Audit log"): every state-changing route an
 * operator or a game server calls appends exactly one audit record per request, on both stores, with the
 * request's id, route, method and answer status; a request that changed the ledger or player state says
 * so (`changed: true`, written with the change); a refusal says nothing changed. A new operator or
 * game-server write route without a request here fails the first test.
 */
import { expect, it } from 'vitest';
import type { EntryExports } from '../../api/_lib/http/entry.js';
import { accessOf, ROUTES, type Method } from '../../api/_lib/routing/table.js';
import type { AuditRecord } from '../../api/_lib/util/audit-scope.js';
import * as storageEntry from '../../api/storage.js';
import { png, zip } from '../helpers/media.js';
import {
  admin,
  adminAuth,
  ADMIN_PASSWORD,
  call,
  ITEM_DEFINITION,
  MATERIAL,
  mintFor,
  newCharacter,
  newPlayer,
  onEachStore,
  player,
  quietLog,
  serverAuth,
  wallet,
} from '../adversarial/helpers.js';

const storage = storageEntry as unknown as EntryExports;
const password = { 'X-Admin-Password': ADMIN_PASSWORD };

/** A multipart body holding `files` in `field`, and `fields`. */
function form(field: string, files: [string, Buffer][], fields: Record<string, string> = {}): FormData {
  const f = new FormData();
  for (const [k, v] of Object.entries(fields)) f.append(k, v);
  for (const [name, bytes] of files) f.append(field, new Blob([new Uint8Array(bytes)]), name);
  return f;
}

/** An answer's status and request id. */
interface Sent {
  readonly status: number;
  readonly requestId: string;
}

const sent = async (p: Promise<{ status: number; headers: Headers }>): Promise<Sent> => {
  const r = await p;
  return { status: r.status, requestId: r.headers.get('x-request-id')! };
};
const raw = (entry: EntryExports, method: Method, path: string, headers: Record<string, string>, body?: BodyInit) =>
  sent(entry[method](new Request(`http://t${path}`, { method, headers, ...(body ? { body } : {}) })));

/** What the walk knows of the world it set up. */
interface World {
  readonly studioId: string;
  readonly accountId: string;
  readonly characterId: string;
  readonly item: string;
  readonly grantEntry: string;
  /** A second item, to void; a bag grant's source ref, to reverse. */
  readonly voidable: string;
  readonly bagGrant: string;
  readonly server: Record<string, string>;
}

/**
 * The request each audited route and method is sent, meant to succeed on the world (or answer `status`);
 * `changes` when it changes something; its record names the world's account, unless `account` says it
 * acts on none (storage) or on a new one.
 */
const WALK: Record<string, { send: (w: World) => Promise<Sent>; changes: boolean; status?: number; account?: 'none' | 'new' }> = {
  'wallet/verify-send POST': {
    changes: true,
    send: (w) =>
      sent(
        call(wallet, 'POST', '/api/wallet/verify-send-to-account', {
          body: { studioId: w.studioId, amount: 3, purpose: 'test', idempotencyKey: 'walk-send-0001' },
          headers: password,
        }),
      ),
  },
  'admin/accounts POST': {
    account: 'new',
    changes: true,
    send: () =>
      sent(
        call(admin, 'POST', '/api/admin/accounts', {
          body: { displayName: 'Walker', idempotencyKey: 'walk-acct-0001' },
          headers: password,
        }),
      ),
  },
  // the console's sign-in: a token made, nothing stored, no account acted on
  'admin/session POST': {
    changes: false,
    account: 'none',
    send: () => sent(call(admin, 'POST', '/api/admin/session', { headers: password })),
  },
  'admin/grant-coin POST': {
    changes: true,
    send: (w) =>
      sent(
        call(admin, 'POST', '/api/admin/grant-coin', {
          body: { studioId: w.studioId, amount: 9, reason: 'walk', idempotencyKey: 'walk-grant-0001' },
          headers: password,
        }),
      ),
  },
  'admin/reversals POST': {
    changes: true,
    send: (w) =>
      sent(
        call(admin, 'POST', '/api/admin/reversals', {
          body: { entryId: w.grantEntry, reason: 'walk', idempotencyKey: 'walk-reverse-0001' },
          headers: password,
        }),
      ),
  },
  'admin/bag-reversals POST': {
    changes: true,
    send: (w) =>
      sent(
        call(admin, 'POST', '/api/admin/bag-reversals', {
          body: { studioId: w.studioId, sourceRef: w.bagGrant, reason: 'walk', idempotencyKey: 'walk-bag-rev-0001' },
          headers: password,
        }),
      ),
  },
  'admin/item-void POST': {
    changes: true,
    send: (w) =>
      sent(
        call(admin, 'POST', `/api/admin/items/${w.voidable}/void`, {
          body: { reason: 'walk', idempotencyKey: 'walk-void-0001' },
          headers: password,
        }),
      ),
  },
  'admin/revoke-sessions POST': {
    changes: true,
    send: (w) =>
      sent(
        call(admin, 'POST', `/api/admin/players/${w.studioId}/revoke-sessions`, {
          body: { reason: 'walk', idempotencyKey: 'walk-revoke-0001' },
          headers: password,
        }),
      ),
  },
  'admin/ban POST': {
    changes: true,
    send: (w) =>
      sent(
        call(admin, 'POST', `/api/admin/players/${w.studioId}/ban`, {
          body: { reason: 'walk', idempotencyKey: 'walk-ban-0001' },
          headers: password,
        }),
      ),
  },
  'admin/unban POST': {
    changes: true,
    send: (w) =>
      sent(
        call(admin, 'POST', `/api/admin/players/${w.studioId}/unban`, {
          body: { reason: 'walk', idempotencyKey: 'walk-unban-0001' },
          headers: password,
        }),
      ),
  },
  'admin/erase POST': {
    changes: true,
    send: (w) =>
      sent(
        call(admin, 'POST', `/api/admin/players/${w.studioId}/erase`, {
          body: { reason: 'walk', idempotencyKey: 'walk-erase-0001' },
          headers: password,
        }),
      ),
  },
  // a run of the ledger check by hand writes its result and where it stopped
  'admin/ledger-verify POST': {
    changes: true,
    account: 'none',
    send: () => sent(call(admin, 'POST', '/api/admin/ledger/verify', { headers: password })),
  },
  'storage/upload POST': {
    account: 'none',
    changes: true,
    send: () => raw(storage, 'POST', '/api/storage/upload', password, form('file', [['a.png', png()]], { folder: 'walk' })),
  },
  'storage/upload-multi POST': {
    account: 'none',
    changes: true,
    send: () => raw(storage, 'POST', '/api/storage/upload-multi', password, form('files', [['b.png', png()]], { folder: 'walk' })),
  },
  'storage/upload-zip POST': {
    account: 'none',
    changes: true,
    send: async () =>
      raw(
        storage,
        'POST',
        '/api/storage/upload-zip',
        password,
        form('file', [['p.zip', await zip([{ name: 'c.png', data: png() }])]], { folder: 'walk' }),
      ),
  },
  // local storage presigns nothing (409): the refusal is recorded as changing nothing
  'storage/presign POST': {
    account: 'none',
    changes: false,
    status: 409,
    send: () =>
      raw(
        storage,
        'POST',
        '/api/storage/presign',
        { ...password, 'Content-Type': 'application/json' },
        JSON.stringify({ key: 'walk/d.png', contentType: 'image/png', size: 10 }),
      ),
  },
  'storage/register POST': {
    account: 'none',
    changes: true,
    send: () =>
      raw(
        storage,
        'POST',
        '/api/storage/register',
        { ...password, 'Content-Type': 'application/json' },
        JSON.stringify({ entries: [{ key: 'walk/a.png', purpose: 'play' }] }),
      ),
  },
  'storage/object DELETE': { changes: true, account: 'none', send: () => raw(storage, 'DELETE', '/api/storage/walk/a.png', password) },
  'player/state PATCH': {
    changes: true,
    send: (w) =>
      sent(
        call(player, 'PATCH', `/api/island/state?studioId=${w.studioId}`, {
          body: { stats: { visits: 1 } },
          headers: { ...w.server, 'If-Match': '"1"' },
        }),
      ),
  },
  'player/progress PATCH': {
    changes: true,
    send: (w) =>
      sent(
        call(player, 'PATCH', `/api/characters/${w.characterId}/progress`, {
          body: { idempotencyKey: 'walk-prog-0001', progress: { attributes: { STR: 2 } } },
          headers: { ...w.server, 'If-Match': '"1"' },
        }),
      ),
  },
  'player/uuid POST': {
    changes: true,
    send: (w) =>
      sent(
        call(player, 'POST', '/api/uuid', {
          body: { definitionId: ITEM_DEFINITION, studioId: w.studioId, idempotencyKey: 'walk-mint-0001' },
          headers: w.server,
        }),
      ),
  },
  'player/item-events POST': {
    changes: true,
    send: (w) =>
      sent(
        call(player, 'POST', `/api/ledger/${w.item}/events`, {
          body: { event: 'consumed', idempotencyKey: 'walk-event-0001' },
          headers: w.server,
        }),
      ),
  },
  'player/inventory-grant POST': {
    changes: true,
    send: (w) =>
      sent(
        call(player, 'POST', '/api/inventory/grant', {
          body: { studioId: w.studioId, definitionId: MATERIAL, quantity: 4, idempotencyKey: 'walk-bag-0001' },
          headers: w.server,
        }),
      ),
  },
  'player/inventory-consume POST': {
    changes: true,
    send: (w) =>
      sent(
        call(player, 'POST', '/api/inventory/consume', {
          body: { studioId: w.studioId, definitionId: MATERIAL, quantity: 1, idempotencyKey: 'walk-take-0001' },
          headers: w.server,
        }),
      ),
  },
  'player/recipes POST': {
    changes: true,
    send: (w) =>
      sent(
        call(player, 'POST', '/api/account/recipes', {
          body: { studioId: w.studioId, recipeId: 'RECP-20260601100000-000123-64A3D698' },
          headers: w.server,
        }),
      ),
  },
};

/** Every write of a route whose access is an operator's or a game server's (a player-or-game-server route sent as a game server). */
const AUDITED = ROUTES.filter((r) => !r.gone).flatMap((r) =>
  r.methods
    .filter((m) => m !== 'GET' && ['admin', 'game-server', 'player-or-game-server'].includes(accessOf(r, m)))
    .map((m) => `${r.entry}/${r.name} ${m}`),
);

it('has a request for every write an operator or a game server makes', () => {
  expect(Object.keys(WALK).sort()).toEqual([...AUDITED].sort());
});

onEachStore('the audit log, walked route by route', (store) => {
  quietLog();
  it('appends exactly one record per request, written with the change it records', async () => {
    const config = await store.fresh({ STORAGE_DRIVER: 'local' });
    const auth = await adminAuth(config);
    const server = await serverAuth(config);
    const p = await newPlayer(config, 'Wanda');
    const characterId = await newCharacter(p.auth);
    const item = await mintFor(server, p.studioId, 'walk-mint-setup-1');
    const voidable = await mintFor(server, p.studioId, 'walk-mint-setup-2');
    const bag = await call(player, 'POST', '/api/inventory/grant', {
      body: { studioId: p.studioId, definitionId: MATERIAL, quantity: 5, idempotencyKey: 'walk-bag-setup-1' },
      headers: server,
    });
    expect(bag.status).toBe(201);
    const grant = await call(admin, 'POST', '/api/admin/grant-coin', {
      body: { studioId: p.studioId, amount: 40, reason: 'setup', idempotencyKey: 'walk-grant-setup-1' },
      headers: auth,
    });
    const world: World = {
      studioId: p.studioId,
      accountId: (grant.body.account as { accountId: string }).accountId,
      characterId,
      item,
      grantEntry: grant.body.entryId as string,
      server,
      voidable,
      bagGrant: 'bag-grant:walk-bag-setup-1',
    };
    const all = async (): Promise<AuditRecord[]> => {
      const r = await call(admin, 'GET', '/api/admin/audit?limit=200', { headers: auth });
      return (r.body.records as AuditRecord[]) ?? [];
    };
    // erasure last: it closes the account the other routes act on
    const order = [...Object.keys(WALK).filter((k) => k !== 'admin/erase POST'), 'admin/erase POST'];
    for (const name of order) {
      const before = await all();
      const out = await WALK[name]!.send(world);
      const after = await all();
      expect(after.length - before.length, `${name} answered ${out.status}`).toBe(1);
      const [route, method] = name.split(' ');
      const record = after.find((r) => r.requestId === out.requestId);
      expect(record, name).toMatchObject({ route, method, status: out.status });
      if (WALK[name]!.status) expect(out.status, name).toBe(WALK[name]!.status);
      else expect(out.status, `${name} succeeds on the world`).toBeLessThan(300);
      expect(record!.changed, name).toBe(WALK[name]!.changes);
      const account = WALK[name]!.account;
      if (account === 'none') expect(record!.account, name).toBeNull();
      else if (account === 'new') expect(record!.account, name).toMatch(/^[0-9a-f-]{36}$/);
      else expect(record!.account, name).toBe(world.accountId);
      expect(record!.actor, name).toEqual(
        name.startsWith('player/') ? { via: 'token', subject: 'STUDIO_GAME_SERVER', role: 'server' } : { via: 'password' },
      );
    }
  });
});
