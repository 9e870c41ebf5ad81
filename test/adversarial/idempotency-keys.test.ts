/**
 * One rule for idempotency keys (spec 3 "Verify-send replay", 4.8, 8; docs/architecture.md
 * "Idempotency"; `schemas/requests/defs.schema.json` `idempotencyKey`), attacked on every request schema
 * that takes a key, through its route, on both stores: a key with a trailing or leading space, a line
 * break, a NUL, a zero-width or no-break space, a Unicode look-alike of a letter or a hyphen, or a
 * decomposed accent is refused (400 naming `/idempotencyKey`) and changes nothing, so no two spellings of
 * one key can ever apply a change twice; the key itself replays its first answer and changes nothing.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { PROJECT_ROOT, type ServiceConfig } from '../../api/_lib/config.js';
import type { EntryExports } from '../../api/_lib/http/entry.js';
import {
  admin,
  adminAuth,
  call,
  errorNames,
  HERO,
  ITEM_DEFINITION,
  MATERIAL,
  mintFor,
  newCharacter,
  newPlayer,
  onEachStore,
  quietLog,
  player,
  serverAuth,
  wallet,
  type Answer,
} from './helpers.js';

quietLog();

/** The key every case starts from: letters, digits and a hyphen, so each look-alike below has something to imitate. */
const KEY = 'order-e-0001';

/** Spellings of {@link KEY} a person could not tell from it, or that differ only by white space or invisible characters. */
const SPELLINGS: readonly [string, string][] = [
  ['trailing space', `${KEY} `],
  ['leading space', ` ${KEY}`],
  ['trailing line feed', `${KEY}\n`],
  ['trailing NUL', `${KEY}\u0000`],
  ['zero-width space', `order-\u200be-0001`],
  ['no-break space', `${KEY}\u00a0`],
  ['Cyrillic o', '\u043erder-e-0001'],
  ['fullwidth digit', 'order-e-000\uff11'],
  ['hyphen U+2010', 'order\u2010e-0001'],
  ['non-breaking hyphen U+2011', 'order-e\u20110001'],
  ['precomposed e with accent', 'order-\u00e9-0001'],
  ['decomposed e with accent', 'order-e\u0301-0001'],
  ['soft hyphen', `order-e-00\u00ad01`],
];

/** One schema's route: how to send a request with a key, and how to read the effect the request has. */
interface Case {
  /** Set up an account, character or item; answers what `send` and `effect` need. */
  prepare(config: ServiceConfig): Promise<Record<string, string>>;
  send(ctx: Record<string, string>, key: string): Promise<Answer>;
  /** What the request changes, read back through the API. */
  effect(ctx: Record<string, string>): Promise<unknown>;
}

const entryCall = (entry: EntryExports, method: string, path: string, body: unknown, headers: Record<string, string>) =>
  call(entry, method, path, { body, headers });

/** Every request schema with an idempotency key, by schema name. */
const CASES: Record<string, Case> = {
  'verify-send-to-account': {
    async prepare(config) {
      const p = await newPlayer(config, 'Vee');
      return { studioId: p.studioId, ...(await adminAuth(config)), own: p.auth.Authorization! };
    },
    send: ({ studioId, Authorization }, key) =>
      entryCall(
        wallet,
        'POST',
        '/api/wallet/verify-send-to-account',
        { studioId, amount: 3, purpose: 'test', idempotencyKey: key },
        {
          Authorization: Authorization!,
        },
      ),
    effect: async ({ own }) => (await call(wallet, 'GET', '/api/wallet/overview', { headers: { Authorization: own! } })).body.balance,
  },
  reversal: {
    async prepare(config) {
      const p = await newPlayer(config, 'Rho');
      const auth = await adminAuth(config);
      const grant = await entryCall(
        admin,
        'POST',
        '/api/admin/grant-coin',
        { studioId: p.studioId, amount: 9, reason: 'oops', idempotencyKey: 'rev-grant-0001' },
        auth,
      );
      return { entryId: grant.body.entryId as string, ...auth, own: p.auth.Authorization! };
    },
    send: ({ entryId, Authorization }, key) =>
      entryCall(
        admin,
        'POST',
        '/api/admin/reversals',
        { entryId, reason: 'mistake', idempotencyKey: key },
        { Authorization: Authorization! },
      ),
    effect: async ({ own }) => (await call(wallet, 'GET', '/api/wallet/overview', { headers: { Authorization: own! } })).body,
  },
  'grant-coin': {
    async prepare(config) {
      const p = await newPlayer(config, 'Gee');
      return { studioId: p.studioId, ...(await adminAuth(config)), own: p.auth.Authorization! };
    },
    send: ({ studioId, Authorization }, key) =>
      entryCall(
        admin,
        'POST',
        '/api/admin/grant-coin',
        { studioId, amount: 5, reason: 'grant', idempotencyKey: key },
        {
          Authorization: Authorization!,
        },
      ),
    effect: async ({ own }) => (await call(wallet, 'GET', '/api/wallet/overview', { headers: { Authorization: own! } })).body.balance,
  },
  'create-account': {
    prepare: async (config) => ({ ...(await adminAuth(config)) }),
    send: ({ Authorization }, key) =>
      entryCall(admin, 'POST', '/api/admin/accounts', { displayName: 'Keyed', idempotencyKey: key }, { Authorization: Authorization! }),
    // the accounts this suite made: each answer's id, the first one again for a replay
    effect: () => Promise.resolve(null),
  },
  'character-create': {
    prepare: async (config) => (await newPlayer(config, 'Cee')).auth,
    send: (auth, key) => entryCall(player, 'POST', '/api/characters', { ...HERO, idempotencyKey: key }, auth),
    effect: async (auth) => (await call(player, 'GET', '/api/characters?era=warlords', { headers: auth })).body.characters,
  },
  'character-progress-patch': {
    async prepare(config) {
      const p = await newPlayer(config, 'Pee');
      return { character: await newCharacter(p.auth), ...(await serverAuth(config)) };
    },
    send: ({ character, Authorization }, key) =>
      entryCall(
        player,
        'PATCH',
        `/api/characters/${character}/progress`,
        { idempotencyKey: key, progress: { attributes: { STR: 12 } } },
        {
          Authorization: Authorization!,
          'If-Match': '"1"',
        },
      ),
    effect: async ({ character, Authorization }) =>
      (await call(player, 'GET', `/api/characters/${character}/progress`, { headers: { Authorization: Authorization! } })).body,
  },
  'item-mint': {
    async prepare(config) {
      const p = await newPlayer(config, 'Em');
      return { studioId: p.studioId, own: p.auth.Authorization!, ...(await serverAuth(config)) };
    },
    send: ({ studioId, Authorization }, key) =>
      entryCall(
        player,
        'POST',
        '/api/uuid',
        { definitionId: ITEM_DEFINITION, studioId, idempotencyKey: key },
        { Authorization: Authorization! },
      ),
    effect: async ({ own }) => (await call(player, 'GET', '/api/inventory', { headers: { Authorization: own! } })).body.uniqueItems,
  },
  'item-event': {
    async prepare(config) {
      const p = await newPlayer(config, 'Ev');
      const server = await serverAuth(config);
      return { item: await mintFor(server, p.studioId, 'event-item-mint-1'), character: await newCharacter(p.auth), ...server };
    },
    send: ({ item, character, Authorization }, key) =>
      entryCall(
        player,
        'POST',
        `/api/ledger/${item}/events`,
        { event: 'assigned', characterId: character, idempotencyKey: key },
        {
          Authorization: Authorization!,
        },
      ),
    effect: async ({ item, Authorization }) =>
      (await call(player, 'GET', `/api/ledger/${item}`, { headers: { Authorization: Authorization! } })).body.events,
  },
  'account-action': {
    async prepare(config) {
      const p = await newPlayer(config, 'Rev');
      return { studioId: p.studioId, ...(await adminAuth(config)) };
    },
    send: ({ studioId, ...auth }, key) =>
      entryCall(admin, 'POST', `/api/admin/players/${studioId}/revoke-sessions`, { reason: 'stolen session', idempotencyKey: key }, auth),
    // the account's access as an operator reads it: a second revocation would move its time
    effect: async ({ studioId, ...auth }) =>
      (
        await entryCall(
          admin,
          'POST',
          `/api/admin/players/${studioId}/revoke-sessions`,
          { reason: 'read', idempotencyKey: 'config-read-1' },
          auth,
        )
      ).body.access,
  },
  'account-ban': {
    async prepare(config) {
      const p = await newPlayer(config, 'Ban');
      return { studioId: p.studioId, ...(await adminAuth(config)) };
    },
    send: ({ studioId, ...auth }, key) =>
      entryCall(admin, 'POST', `/api/admin/players/${studioId}/ban`, { reason: 'farming', idempotencyKey: key }, auth),
    effect: async ({ studioId, ...auth }) =>
      (await entryCall(admin, 'POST', `/api/admin/players/${studioId}/ban`, { reason: 'read', idempotencyKey: 'ban-read-0001' }, auth)).body
        .access,
  },
  'bag-reversal': {
    async prepare(config) {
      const p = await newPlayer(config, 'Bre');
      const server = await serverAuth(config);
      await entryCall(
        player,
        'POST',
        '/api/inventory/grant',
        { studioId: p.studioId, definitionId: MATERIAL, quantity: 4, idempotencyKey: 'bag-rev-grant-01' },
        server,
      );
      return { studioId: p.studioId, own: p.auth.Authorization!, ...(await adminAuth(config)) };
    },
    send: ({ studioId, Authorization }, key) =>
      entryCall(
        admin,
        'POST',
        '/api/admin/bag-reversals',
        { studioId, sourceRef: 'bag-grant:bag-rev-grant-01', reason: 'mistake', idempotencyKey: key },
        { Authorization: Authorization! },
      ),
    effect: async ({ own }) => (await call(player, 'GET', '/api/inventory', { headers: { Authorization: own! } })).body.stackables,
  },
  'item-void': {
    async prepare(config) {
      const p = await newPlayer(config, 'Voi');
      const item = await mintFor(await serverAuth(config), p.studioId, 'void-item-mint-1');
      return { item, ...(await adminAuth(config)) };
    },
    send: ({ item, Authorization }, key) =>
      entryCall(
        admin,
        'POST',
        `/api/admin/items/${item}/void`,
        { reason: 'duplicated', idempotencyKey: key },
        { Authorization: Authorization! },
      ),
    effect: async ({ item, Authorization }) =>
      (await call(player, 'GET', `/api/ledger/${item}`, { headers: { Authorization: Authorization! } })).body.events,
  },
  'bag-change': {
    async prepare(config) {
      const p = await newPlayer(config, 'Bee');
      return { studioId: p.studioId, own: p.auth.Authorization!, ...(await serverAuth(config)) };
    },
    send: ({ studioId, Authorization }, key) =>
      entryCall(
        player,
        'POST',
        '/api/inventory/grant',
        { studioId, definitionId: MATERIAL, quantity: 2, idempotencyKey: key },
        {
          Authorization: Authorization!,
        },
      ),
    effect: async ({ own }) => (await call(player, 'GET', '/api/inventory', { headers: { Authorization: own! } })).body.stackables,
  },
};

it('covers every request schema that takes an idempotency key, each through the one shared rule', () => {
  const dir = join(PROJECT_ROOT, 'schemas', 'requests');
  const keyed: string[] = [];
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.schema.json') && f !== 'defs.schema.json')) {
    const schema = JSON.parse(readFileSync(join(dir, file), 'utf8')) as { properties?: Record<string, unknown> };
    const key = schema.properties?.idempotencyKey;
    if (key === undefined) continue;
    keyed.push(file.slice(0, -'.schema.json'.length));
    expect(key, file).toEqual({ $ref: 'defs.schema.json#/$defs/idempotencyKey' });
  }
  expect(keyed.sort()).toEqual(Object.keys(CASES).sort());
  // the one rule itself: a whole-string pattern of visible ASCII without white space
  const defs = JSON.parse(readFileSync(join(dir, 'defs.schema.json'), 'utf8')) as { $defs: { idempotencyKey: { pattern: string } } };
  const pattern = new RegExp(defs.$defs.idempotencyKey.pattern, 'u');
  for (const [what, spelling] of SPELLINGS) expect(pattern.test(spelling), what).toBe(false);
});

onEachStore('idempotency keys', (store) => {
  for (const [schema, c] of Object.entries(CASES)) {
    it(`${schema}: no spelling of a key applies the change again; the key itself replays`, async () => {
      const config = await store.fresh();
      const ctx = await c.prepare(config);
      const first = await c.send(ctx, KEY);
      expect(first.status, JSON.stringify(first.body)).toBeLessThan(300);
      const after = await c.effect(ctx);
      for (const [what, spelling] of SPELLINGS) {
        const r = await c.send(ctx, spelling);
        expect([r.status, errorNames(r)], what).toEqual([400, ['/idempotencyKey']]);
      }
      expect(await c.effect(ctx)).toEqual(after);
      const replay = await c.send(ctx, KEY);
      expect([replay.status, replay.headers.get('idempotent-replayed')]).toEqual([200, 'true']);
      expect(await c.effect(ctx)).toEqual(after);
      // the replay answers what the first request made (an account, a character, an item: the same one)
      const made = (a: Answer) =>
        a.body.account ?? a.body.character ?? a.body.item ?? a.body.entry ?? a.body.entryId ?? a.body.sourceRef ?? null;
      if (schema !== 'character-progress-patch') expect(made(replay)).toEqual(made(first));
    });
  }
});
