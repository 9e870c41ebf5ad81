/**
 * Sessions, bans and the read-only operator role (spec 5.3, 5.4; docs/architecture.md "Sessions and bans";
 * docs/api.md "Security" and the README's role table, "Who may do what"), attacked through the entries on both
 * stores as a hostile player, a hostile game server and a careless operator would:
 *
 * - a token issued at or before the revocation second is 401 on every route that acts for the account
 *   (wallet, island, characters, progress, recipes, bag, external link, logout), one issued after is let in;
 * - a banned account's token is 403 `ACCOUNT_SUSPENDED` everywhere, saying until when and never the
 *   operator's reason; a ban past its end lets the account in without an unban; an unban lets in the tokens
 *   issued after the ban, never those the ban revoked; a banned account's login gets no token;
 * - a game server's token (role `server`) writes nothing to a banned account, by any path that reaches it
 *   (island, progress, recipes, minting, every item event on an item it owns or that would move to it, bag
 *   grants and consumptions), while operators (an admin token, `X-Admin-Password`) may still correct it;
 * - a ban racing logins and many grants: once the ban has answered, no token is issued and no grant lands;
 * - once per idempotency key: a replay changes nothing, another account, action or end under the key is
 *   422, a reworded reason is a replay, and keys never expire;
 * - the `support` role looks accounts up and changes nothing anywhere (admin, storage, game-server routes);
 * - hostile bodies and paths are 4xx problem+json that change nothing, never 5xx;
 * - logout refuses every token of the caller's account and nobody else's.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import type { ServiceConfig } from '../../api/_lib/config.js';
import type { EntryExports } from '../../api/_lib/http/entry.js';
import { ledgerStore } from '../../api/_lib/ledger/store.js';
import type { AccountAccess } from '../../api/_lib/ledger/types.js';
import { playerStore } from '../../api/_lib/player/store.js';
import * as storageEntry from '../../api/storage.js';
import { PLATFORM_AUDIENCE, PLATFORM_ISSUER, PLATFORM_JWKS_PATH, platformJwks, platformToken } from '../../dev/external-platform.js';
import { connectRespRequester } from '../../api/_lib/stores/resp-requester.js';
import { responseErrors } from '../helpers/game-api.js';
import { png } from '../helpers/media.js';
import {
  ADMIN_PASSWORD,
  admin,
  adminAuth,
  call,
  callRaw,
  errorNames,
  HERO,
  ITEM_DEFINITION,
  MATERIAL,
  mintFor,
  newCharacter,
  newPlayer,
  onEachStore,
  player,
  quietLog,
  serverAuth,
  SKILL,
  tokenFor,
  wallet,
  type Answer,
} from './helpers.js';

quietLog();

const storage = storageEntry as unknown as EntryExports;
type Headers = Record<string, string>;
const RECIPE = 'RECP-20260601100000-000123-64A3D698';
const password: Headers = { 'X-Admin-Password': ADMIN_PASSWORD };
const bearer = (token: string): Headers => ({ Authorization: `Bearer ${token}` });
const nowS = () => Math.floor(Date.now() / 1000);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** Wait until the clock is at most `ms` into its second, so what follows starts early in a second. */
async function earlyInASecond(ms = 150): Promise<void> {
  if (Date.now() % 1000 > ms) await sleep(1000 - (Date.now() % 1000) + 5);
}

// ---------------------------------------------------------------- the local platform stand-in (spec 5.5)

const platformDir = mkdtempSync(join(tmpdir(), 'sessions-platform-'));
let platformServer: Server | undefined;
let platformUrl = '';
beforeAll(async () => {
  const jwks = JSON.stringify(await platformJwks(platformDir));
  platformServer = createServer((_req, res) => res.writeHead(200, { 'Content-Type': 'application/json' }).end(jwks));
  await new Promise<void>((r) => platformServer!.listen(0, '127.0.0.1', r));
  platformUrl = `http://127.0.0.1:${(platformServer.address() as AddressInfo).port}${PLATFORM_JWKS_PATH}`;
});
afterAll(async () => {
  await new Promise<void>((r) => (platformServer ? platformServer.close(() => r()) : r()));
  rmSync(platformDir, { recursive: true, force: true });
});
/** The variables that point external login at the stand-in. */
const platformEnv = (): Record<string, string> => ({
  EXTERNAL_AUTH_JWKS_URL: platformUrl,
  EXTERNAL_AUTH_ISSUER: PLATFORM_ISSUER,
  EXTERNAL_AUTH_AUDIENCE: PLATFORM_AUDIENCE,
  EXTERNAL_AUTH_PROVIDER: 'local',
});
/** A platform token of the stand-in for `user`. */
const platformTokenOf = (user: string) => platformToken(platformDir, user, `Player ${user}`, 600);
/** `POST /api/auth/external` with a stand-in token of `user`. */
const login = async (user: string): Promise<Answer> =>
  call(player, 'POST', '/api/auth/external', { body: { token: await platformTokenOf(user) } });

// ---------------------------------------------------------------- operators' actions and reads

type Action = 'revoke-sessions' | 'ban' | 'unban';
/** `POST /api/admin/players/{studioId}/{action}` with `body`, as an operator (the admin password by default). */
const act = (studioId: string, action: Action, body: unknown, headers: Headers = password): Promise<Answer> =>
  call(admin, 'POST', `/api/admin/players/${studioId}/${action}`, { body, headers });
/** The account's access as the store holds it (read past nothing: the same store the handlers use). */
const accessOf = async (accountId: string): Promise<AccountAccess> => (await ledgerStore()).access(accountId);
/** Seconds of an answer's `sessionsRevokedAt`. */
const revokedSecond = (a: Answer): number => Date.parse((a.body.access as { sessionsRevokedAt: string }).sessionsRevokedAt) / 1000;
/** A player token of `studioId` issued at `iat`. */
const tokenAt = async (config: ServiceConfig, studioId: string, iat: number): Promise<Headers> =>
  bearer(await tokenFor(config, studioId, 'player', { now: iat }));

/** The ETag of the account's island, as an operator reads it. */
const islandTag = async (studioId: string): Promise<string> =>
  (await call(player, 'GET', `/api/island/state?studioId=${studioId}`, { headers: password })).headers.get('etag')!;
/** The ETag of a character's progress, as an operator reads it. */
const progressTag = async (character: string): Promise<string> =>
  (await call(player, 'GET', `/api/characters/${character}/progress`, { headers: password })).headers.get('etag')!;

/** Everything of an account's player state a request could change, read by an operator and the stores. */
async function stateOf(studioId: string, accountId: string, characters: readonly string[], items: readonly string[] = []) {
  const players = await playerStore();
  const ledger = await ledgerStore();
  const read = (path: string) => call(player, 'GET', path, { headers: password });
  const [island, recipes, progress, history, bag, owned, characterLists, balance] = await Promise.all([
    read(`/api/island/state?studioId=${studioId}`),
    read(`/api/account/recipes?studioId=${studioId}`),
    Promise.all(characters.map(async (c) => (await read(`/api/characters/${c}/progress`)).body)),
    Promise.all(
      items.map(async (i) => {
        const h = (await read(`/api/ledger/${i}`)).body;
        return [h.state, (h.owner as { studioId: string }).studioId, h.characterId, (h.events as unknown[]).length];
      }),
    ),
    players.bag(accountId),
    players.accountItems(accountId),
    Promise.all((['warlords', 'voxel', 'nexus', 'armada'] as const).map((e) => players.characters(accountId, e))),
    ledger.balance(accountId),
  ]);
  return {
    island: [island.body.revision, island.body.state],
    recipes: recipes.body.recipes,
    progress,
    history,
    bag,
    owned: owned.map((i) => i.studioUuid).sort(),
    characters: characterLists
      .flat()
      .map((c) => c.id)
      .sort(),
    balance,
  };
}

/**
 * Every request that acts for the account of the token `auth`, as a player's client sends it; `n` makes
 * each call's keys and names its own. Logout is left out (it revokes).
 */
function accountRoutes(studioId: string, character: string): readonly (readonly [string, (auth: Headers, n: number) => Promise<Answer>])[] {
  return [
    ['wallet overview', (auth) => call(wallet, 'GET', '/api/wallet/overview', { headers: auth })],
    ['island read', (auth) => call(player, 'GET', '/api/island/state', { headers: auth })],
    [
      'island patch',
      async (auth, n) =>
        call(player, 'PATCH', '/api/island/state', {
          body: { campPosition: { x: n, z: 2 } },
          headers: { ...auth, 'If-Match': await islandTag(studioId) },
        }),
    ],
    [
      'island export',
      async (auth, n) =>
        call(player, 'POST', '/api/island/export-from-rts', {
          body: { gridX: n, gridZ: 2, seed: 7 + n, biome: 'beach' },
          headers: { ...auth, 'If-Match': await islandTag(studioId) },
        }),
    ],
    ['characters list', (auth) => call(player, 'GET', '/api/characters?era=warlords', { headers: auth })],
    [
      'character creation',
      (auth, n) =>
        call(player, 'POST', '/api/characters', {
          body: { ...HERO, era: 'voxel', name: `Vox ${n}`, idempotencyKey: `sess-char-${studioId.slice(-8)}-${n}` },
          headers: auth,
        }),
    ],
    ['progress read', (auth) => call(player, 'GET', `/api/characters/${character}/progress`, { headers: auth })],
    [
      'progress patch',
      async (auth, n) =>
        call(player, 'PATCH', `/api/characters/${character}/progress`, {
          body: {
            idempotencyKey: `sess-prog-${studioId.slice(-8)}-${n}`,
            progress: { skill_loadouts: [{ name: `Main ${n}`, skills: [SKILL] }] },
          },
          headers: { ...auth, 'If-Match': await progressTag(character) },
        }),
    ],
    ['recipes', (auth) => call(player, 'GET', '/api/account/recipes', { headers: auth })],
    ['inventory', (auth) => call(player, 'GET', '/api/inventory', { headers: auth })],
    [
      'external link',
      async (auth, n) =>
        call(player, 'POST', '/api/auth/external-link', {
          body: { token: await platformTokenOf(`link-${studioId.slice(-8)}-${n}`) },
          headers: auth,
        }),
    ],
  ];
}
const logoutOf = (auth: Headers) => call(player, 'POST', '/api/auth/logout', { headers: auth });

/** Expect `a` to be the 401 of a revoked token. */
function expectRevoked(a: Answer, what: string): void {
  expect([a.status, a.body.detail, a.headers.get('www-authenticate')], what).toEqual([
    401,
    'The token is not valid.',
    'Bearer realm="game-api", error="invalid_token"',
  ]);
}

onEachStore('sessions and bans', (store) => {
  it('refuses a token issued at or before the revocation second (401) on every route that acts for the account, and lets one issued after in', async () => {
    const config = await store.fresh(platformEnv());
    const p = await newPlayer(config, 'Rae');
    const other = await newPlayer(config, 'Sol');
    const hero = await newCharacter(p.auth);
    const routes = accountRoutes(p.studioId, hero);
    const revoked = await act(
      p.studioId,
      'revoke-sessions',
      { reason: 'stolen phone', idempotencyKey: 'sess-revoke-0001' },
      await adminAuth(config),
    );
    expect(revoked.status).toBe(200);
    expect(responseErrors('account-access', revoked.body)).toEqual([]);
    const at = revokedSecond(revoked);
    expect(Math.abs(at - nowS())).toBeLessThanOrEqual(2);
    const before = await stateOf(p.studioId, p.accountId, [hero]);
    let n = 0;
    for (const iat of [at - 1, at]) {
      const auth = await tokenAt(config, p.studioId, iat);
      for (const [what, send] of routes) expectRevoked(await send(auth, ++n), `${what}, iat ${iat - at} from the revocation`);
      expectRevoked(await logoutOf(auth), `logout, iat ${iat - at}`);
    }
    // the token the account was made with, and a member token of the same second
    expectRevoked(await call(wallet, 'GET', '/api/wallet/overview', { headers: p.auth }), 'the first token');
    const member = bearer(await tokenFor(config, p.studioId, 'member', { now: at }));
    expectRevoked(await call(player, 'GET', '/api/inventory', { headers: member }), 'a member token of the second');
    expect(await stateOf(p.studioId, p.accountId, [hero])).toEqual(before);
    expect((await accessOf(p.accountId)).sessionsRevokedAt).toBe(at);
    // nothing was linked by a refused token
    for (let i = 1; i <= n; i++)
      expect(await (await playerStore()).externalLink('local', `link-${p.studioId.slice(-8)}-${i}`)).toBeUndefined();

    const later = await tokenAt(config, p.studioId, at + 1);
    for (const [what, send] of routes) {
      const r = await send(later, ++n);
      expect(r.status, `${what} with a token of the next second: ${JSON.stringify(r.body)}`).toBeLessThan(300);
    }
    expect(await stateOf(p.studioId, p.accountId, [hero])).not.toEqual(before);
    // another account's tokens never moved
    expect((await call(wallet, 'GET', '/api/wallet/overview', { headers: other.auth })).status).toBe(200);
    expect((await accessOf(other.accountId)).sessionsRevokedAt).toBeUndefined();
  });

  it("answers a banned account's every token 403 ACCOUNT_SUSPENDED on every route, saying until when and never the reason", async () => {
    const config = await store.fresh(platformEnv());
    const p = await newPlayer(config, 'Bex');
    const hero = await newCharacter(p.auth);
    const routes = accountRoutes(p.studioId, hero);
    const reason = 'gold farming, ticket 4411\nsee the GM notes';
    const until = new Date(Date.now() + 86_400_000).toISOString();
    const ban = await act(p.studioId, 'ban', { reason, until, idempotencyKey: 'sess-ban-00001' }, await adminAuth(config));
    expect([ban.status, ban.body.access]).toMatchObject([200, { ban: { reason, until, active: true } }]);
    expect(responseErrors('account-access', ban.body)).toEqual([]);
    const at = revokedSecond(ban);
    const before = await stateOf(p.studioId, p.accountId, [hero]);
    const tokens: [string, Headers][] = [
      ['the token of before the ban', p.auth],
      ['a token of the ban second', await tokenAt(config, p.studioId, at)],
      ['a token issued after the ban', await tokenAt(config, p.studioId, at + 1)],
      ['a member token issued after the ban', bearer(await tokenFor(config, p.studioId, 'member', { now: at + 1 }))],
    ];
    let n = 0;
    const expectSuspended = (r: Answer, what: string, detail: string) => {
      expect([r.status, r.body.code, r.body.detail], what).toEqual([403, 'ACCOUNT_SUSPENDED', detail]);
      const text = JSON.stringify(r.body);
      for (const word of ['farming', 'ticket', 'GM notes']) expect(text, what).not.toContain(word);
    };
    for (const [who, auth] of tokens) {
      for (const [what, send] of routes)
        expectSuspended(await send(auth, ++n), `${what}: ${who}`, `This account is suspended until ${until}.`);
      expectSuspended(await logoutOf(auth), `logout: ${who}`, `This account is suspended until ${until}.`);
    }
    expect(await stateOf(p.studioId, p.accountId, [hero])).toEqual(before);
    // a logout refused changes nothing either: the revocation stays the ban's
    expect((await accessOf(p.accountId)).sessionsRevokedAt).toBe(at);
    // a ban without end replaces it, and says so
    const forGood = await act(p.studioId, 'ban', { reason: 'for good', idempotencyKey: 'sess-ban-00002' });
    expect([forGood.status, (forGood.body.access as { ban: { until: unknown } }).ban.until]).toEqual([200, null]);
    for (const [what, send] of routes.slice(0, 3))
      expectSuspended(await send(tokens[2]![1], ++n), what, 'This account is suspended, without an end date.');
  });

  it('lets the account in once the ban has ended, without an unban; an unban lets in tokens issued after the ban, never those it revoked', async () => {
    const config = await store.fresh(platformEnv());
    const p = await newPlayer(config, 'Cy');
    const q = await newPlayer(config, 'Dee');
    await earlyInASecond();
    const until = new Date(Date.now() + 1200).toISOString();
    const short = await act(p.studioId, 'ban', { reason: 'cool down', until, idempotencyKey: 'sess-ban-short1' });
    expect(short.status).toBe(200);
    const at = revokedSecond(short);
    const after = await tokenAt(config, p.studioId, at + 1);
    const overview = (auth: Headers) => call(wallet, 'GET', '/api/wallet/overview', { headers: auth });
    expect((await overview(after)).body.code).toBe('ACCOUNT_SUSPENDED');
    await sleep(Date.parse(until) - Date.now() + 50);
    expect((await overview(after)).status, 'the ban has ended').toBe(200);
    expectRevoked(await overview(p.auth), 'a token the ended ban revoked');
    const ended = await accessOf(p.accountId);
    expect(ended.ban?.until).toBe(until);
    // an operator reads the ended ban as no longer active
    const read = await act(p.studioId, 'revoke-sessions', { reason: 'read the ban', idempotencyKey: 'sess-ban-read-1' });
    expect((read.body.access as { ban: unknown }).ban).toMatchObject({ reason: 'cool down', until, active: false });

    const ban = await act(q.studioId, 'ban', { reason: 'abuse', idempotencyKey: 'sess-ban-unban1' });
    const qAt = revokedSecond(ban);
    const issuedAfter = await tokenAt(config, q.studioId, qAt + 1);
    const issuedIn = await tokenAt(config, q.studioId, qAt);
    expect((await overview(issuedAfter)).status).toBe(403);
    const unban = await act(q.studioId, 'unban', { reason: 'appeal granted', idempotencyKey: 'sess-unban-0001' });
    expect([unban.status, (unban.body.access as { ban: unknown }).ban]).toEqual([200, null]);
    expect(responseErrors('account-access', unban.body)).toEqual([]);
    expect((await overview(issuedAfter)).status, 'issued after the ban').toBe(200);
    expectRevoked(await overview(issuedIn), 'issued in the ban second');
    expectRevoked(await overview(q.auth), 'issued before the ban');
    expect((await accessOf(q.accountId)).sessionsRevokedAt).toBe(qAt);
  });

  it("refuses a game server's token every write that reaches a banned account (403 ACCOUNT_SUSPENDED, nothing written), by any path", async () => {
    const config = await store.fresh();
    const server = await serverAuth(config);
    const ada = await newPlayer(config, 'Ada');
    const bo = await newPlayer(config, 'Bo');
    const hero = await newCharacter(ada.auth);
    const boHero = await newCharacter(bo.auth);
    // what the banned account holds (one item per event, so each event is judged alone), and what another
    // holds that could move to it
    const mine: string[] = [];
    for (let i = 0; i < 6; i++) mine.push(await mintFor(server, ada.studioId, `sess-gs-mint-${i}0`));
    const [eaten, broken, assigned, equipped, worn, away] = mine as [string, string, string, string, string, string];
    const event = (item: string, body: Record<string, unknown>, headers: Headers = server) =>
      call(player, 'POST', `/api/ledger/${item}/events`, { body, headers });
    expect((await event(worn, { event: 'equipped', characterId: hero, idempotencyKey: 'sess-gs-equip-0' })).status).toBe(201);
    const theirs = await mintFor(server, bo.studioId, 'sess-gs-mint-bo');
    const bag = (path: string, body: Record<string, unknown>, headers: Headers = server) =>
      call(player, 'POST', path, { body: { definitionId: MATERIAL, ...body }, headers });
    expect((await bag('/api/inventory/grant', { studioId: ada.studioId, quantity: 5, idempotencyKey: 'sess-gs-bag-00' })).status).toBe(201);
    await islandTag(ada.studioId);
    const ban = await act(ada.studioId, 'ban', { reason: 'duping', idempotencyKey: 'sess-gs-ban-001' });
    expect(ban.status).toBe(200);
    const items = [...mine, theirs];
    const both = async () => [
      await stateOf(ada.studioId, ada.accountId, [hero], items),
      await stateOf(bo.studioId, bo.accountId, [boHero]),
    ];
    const before = await both();

    const writes: [string, () => Promise<Answer>][] = [
      [
        'island patch',
        async () =>
          call(player, 'PATCH', `/api/island/state?studioId=${ada.studioId}`, {
            body: { stats: { visits: 9 } },
            headers: { ...server, 'If-Match': await islandTag(ada.studioId) },
          }),
      ],
      [
        'progress patch of its character',
        async () =>
          call(player, 'PATCH', `/api/characters/${hero}/progress`, {
            body: { idempotencyKey: 'sess-gs-prog-01', progress: { attributes: { STR: 9 } } },
            headers: { ...server, 'If-Match': await progressTag(hero) },
          }),
      ],
      [
        'recipe by studioId',
        () => call(player, 'POST', '/api/account/recipes', { body: { studioId: ada.studioId, recipeId: RECIPE }, headers: server }),
      ],
      [
        'recipe by upper-case accountId',
        () =>
          call(player, 'POST', '/api/account/recipes', {
            body: { accountId: ada.accountId.toUpperCase(), recipeId: RECIPE },
            headers: server,
          }),
      ],
      [
        'mint by studioId',
        () =>
          call(player, 'POST', '/api/uuid', {
            body: { definitionId: ITEM_DEFINITION, studioId: ada.studioId, idempotencyKey: 'sess-gs-mint-10' },
            headers: server,
          }),
      ],
      [
        'mint by accountId',
        () =>
          call(player, 'POST', '/api/uuid', {
            body: { definitionId: ITEM_DEFINITION, accountId: ada.accountId, idempotencyKey: 'sess-gs-mint-11' },
            headers: server,
          }),
      ],
      ['bag grant', () => bag('/api/inventory/grant', { studioId: ada.studioId, quantity: 1, idempotencyKey: 'sess-gs-bag-01' })],
      ['bag consume', () => bag('/api/inventory/consume', { accountId: ada.accountId, quantity: 1, idempotencyKey: 'sess-gs-bag-02' })],
      ['its item consumed', () => event(eaten, { event: 'consumed', idempotencyKey: 'sess-gs-ev-01' })],
      ['its item destroyed', () => event(broken, { event: 'destroyed', idempotencyKey: 'sess-gs-ev-02' })],
      [
        'its item assigned to its character',
        () => event(assigned, { event: 'assigned', characterId: hero, idempotencyKey: 'sess-gs-ev-03' }),
      ],
      [
        'its item equipped on its character',
        () => event(equipped, { event: 'equipped', characterId: hero, idempotencyKey: 'sess-gs-ev-04' }),
      ],
      ['its worn item unequipped', () => event(worn, { event: 'unequipped', idempotencyKey: 'sess-gs-ev-05' })],
      ['its item transferred away', () => event(away, { event: 'transferred', toStudioId: bo.studioId, idempotencyKey: 'sess-gs-ev-06' })],
      [
        'an item transferred to it by studioId',
        () => event(theirs, { event: 'transferred', toStudioId: ada.studioId, idempotencyKey: 'sess-gs-ev-07' }),
      ],
      [
        'an item transferred to it by accountId',
        () => event(theirs, { event: 'transferred', toAccountId: ada.accountId.toUpperCase(), idempotencyKey: 'sess-gs-ev-08' }),
      ],
    ];
    // each write alone: its answer, and whether anything of either account moved
    const outcomes: string[] = [];
    for (const [what, send] of writes) {
      const was = await both();
      const r = await send();
      const moved = JSON.stringify(await both()) !== JSON.stringify(was);
      outcomes.push(`${what}: ${r.status} ${String(r.body.code ?? '')}${moved ? ', and it was written' : ''}`);
    }
    expect(outcomes).toEqual(writes.map(([what]) => `${what}: 403 ACCOUNT_SUSPENDED`));
    expect(await both()).toEqual(before);
  });

  it('lets operators (an admin token, the admin password) still write to a banned account, and a game server still read it', async () => {
    const config = await store.fresh();
    const server = await serverAuth(config);
    const ada = await newPlayer(config, 'Ada');
    const owned = await mintFor(server, ada.studioId, 'sess-op-mint-00');
    await islandTag(ada.studioId);
    expect((await act(ada.studioId, 'ban', { reason: 'duping', idempotencyKey: 'sess-op-ban-001' })).status).toBe(200);
    // reads stay open to the game server
    expect((await call(player, 'GET', `/api/island/state?studioId=${ada.studioId}`, { headers: server })).status).toBe(200);
    expect((await call(player, 'GET', `/api/ledger/${owned}`, { headers: server })).status).toBe(200);
    // operators may correct it: an admin token and the admin password
    for (const [who, headers] of [
      ['admin token', await adminAuth(config)],
      ['admin password', password],
    ] as const) {
      const grant = await call(player, 'POST', '/api/inventory/grant', {
        body: { definitionId: MATERIAL, studioId: ada.studioId, quantity: 1, idempotencyKey: `sess-op-bag-${who.length}` },
        headers,
      });
      const island = await call(player, 'PATCH', `/api/island/state?studioId=${ada.studioId}`, {
        body: { stats: { visits: who.length } },
        headers: { ...headers, 'If-Match': await islandTag(ada.studioId) },
      });
      const mint = await call(player, 'POST', '/api/uuid', {
        body: { definitionId: ITEM_DEFINITION, studioId: ada.studioId, idempotencyKey: `sess-op-mint-${who.length}` },
        headers,
      });
      const credit = await call(admin, 'POST', '/api/admin/grant-coin', {
        body: { studioId: ada.studioId, amount: 3, reason: 'refund', idempotencyKey: `sess-op-coin-${who.length}` },
        headers,
      });
      expect([grant.status, island.status, mint.status, credit.status], who).toEqual([201, 200, 201, 200]);
    }
    expect((await playerStore().then((s) => s.bag(ada.accountId))).find((l) => l.definitionId === MATERIAL)?.quantity).toBe(2);
    expect(await (await ledgerStore()).balance(ada.accountId)).toBe(6);
  });

  it('issues no token once a ban has answered, even to a login that was waiting out its revocation second', async () => {
    await store.fresh(platformEnv());
    const first = await login('racer-1');
    expect(first.status).toBe(200);
    const studioId = (first.body.account as { studioId: string }).studioId;
    // a login in the second of a revocation waits for the next; a ban lands while it waits
    await earlyInASecond();
    const revoke = await act(studioId, 'revoke-sessions', { reason: 'stolen session', idempotencyKey: 'sess-race-rev-1' });
    expect(revoke.status).toBe(200);
    const order: string[] = [];
    const waiting = login('racer-1').then((r) => {
      order.push('login');
      return r;
    });
    // well inside the revocation's second, so the login is still waiting when the ban answers
    await sleep(Math.max(0, revokedSecond(revoke) * 1000 + 400 - Date.now()));
    const ban = await act(studioId, 'ban', { reason: 'account sharing', idempotencyKey: 'sess-race-ban-1' });
    order.push('ban');
    expect(ban.status).toBe(200);
    const late = await waiting;
    expect(order, 'the ban answered first').toEqual(['ban', 'login']);
    expect([late.status, late.body.code, late.body.token], 'a login answered after the ban').toEqual([403, 'ACCOUNT_SUSPENDED', undefined]);
    // and any login from now on
    const after = await login('racer-1');
    expect([after.status, after.body.code, after.body.token]).toEqual([403, 'ACCOUNT_SUSPENDED', undefined]);
  });

  it('lets no game-server grant land once a ban has answered, however many race it', async () => {
    const config = await store.fresh();
    const server = await serverAuth(config);
    const ada = await newPlayer(config, 'Ada');
    const players = await playerStore();
    const quantity = async () => (await players.bag(ada.accountId)).find((l) => l.definitionId === MATERIAL)?.quantity ?? 0;
    const grant = (key: string) =>
      call(player, 'POST', '/api/inventory/grant', {
        body: { studioId: ada.studioId, definitionId: MATERIAL, quantity: 1, idempotencyKey: key },
        headers: server,
      });
    // many grants at once with the ban among them: none lands after the ban's answer
    const grants = Array.from({ length: 24 }, (_, i) => grant(`sess-race-bag-${String(i).padStart(2, '0')}`));
    await sleep(5);
    const ban = await act(ada.studioId, 'ban', { reason: 'botting', idempotencyKey: 'sess-race-ban-2' });
    expect(ban.status).toBe(200);
    const atBan = await quantity();
    const answers = await Promise.all(grants);
    expect(answers.every((a) => a.status === 201 || (a.status === 403 && a.body.code === 'ACCOUNT_SUSPENDED'))).toBe(true);
    expect(await quantity(), 'grants landed after the ban answered').toBe(atBan);
    expect(answers.filter((a) => a.status === 201).length).toBe(atBan);
  });

  it('takes each action once per key: a replay changes nothing, a reworded reason is a replay, another account, action or end is 422, and keys never expire', async () => {
    const config = await store.fresh();
    const p = await newPlayer(config, 'Ida');
    const q = await newPlayer(config, 'Jo');
    const until = new Date(Date.now() + 86_400_000).toISOString();
    const banBody = { reason: 'farming', until, idempotencyKey: 'sess-idem-ban-01' };
    const first = await act(p.studioId, 'ban', banBody, await adminAuth(config));
    expect([first.status, first.headers.get('idempotent-replayed'), first.body.idempotent]).toEqual([200, null, false]);
    const stands = await accessOf(p.accountId);
    const replayed = (a: Answer, what: string) =>
      expect([a.status, a.headers.get('idempotent-replayed'), a.body.idempotent], what).toEqual([200, 'true', true]);
    // the same request again, by another operator's credentials, and with the reason reworded
    replayed(await act(p.studioId, 'ban', banBody), 'the same ban');
    const reworded = await act(p.studioId, 'ban', { ...banBody, reason: 'farming gold, reworded' });
    replayed(reworded, 'a reworded reason');
    expect((reworded.body.access as { ban: { reason: string } }).ban.reason).toBe('farming');
    // the same instant written another way is the same end
    const offset = until.replace('Z', '+00:00');
    replayed(await act(p.studioId, 'ban', { ...banBody, until: offset }), 'the end with +00:00');
    // the key with another account, action or end
    const reused: [string, Promise<Answer>][] = [
      ['another account', act(q.studioId, 'ban', banBody)],
      ['another end', act(p.studioId, 'ban', { ...banBody, until: new Date(Date.now() + 2 * 86_400_000).toISOString() })],
      ['no end', act(p.studioId, 'ban', { reason: 'farming', idempotencyKey: banBody.idempotencyKey })],
      ['a revocation', act(p.studioId, 'revoke-sessions', { reason: 'farming', idempotencyKey: banBody.idempotencyKey })],
      ['an unban', act(p.studioId, 'unban', { reason: 'farming', idempotencyKey: banBody.idempotencyKey })],
    ];
    for (const [what, pending] of reused) {
      const r = await pending;
      expect([r.status, r.body.code], what).toEqual([422, 'IDEMPOTENCY_KEY_REUSED']);
    }
    expect(await accessOf(p.accountId)).toEqual(stands);
    expect(await accessOf(q.accountId)).toEqual({});
    expect((await call(wallet, 'GET', '/api/wallet/overview', { headers: q.auth })).status).toBe(200);

    // one key sent at once for two accounts: one of them acts, the other is 422; for one account twice: one replays
    const race = { reason: 'raced', idempotencyKey: 'sess-idem-race-1' };
    const [toP, toQ] = await Promise.all([act(p.studioId, 'revoke-sessions', race), act(q.studioId, 'revoke-sessions', race)]);
    expect([toP.status, toQ.status].sort()).toEqual([200, 422]);
    const winner = toP.status === 200 ? p : q;
    expect(await accessOf((winner === p ? q : p).accountId)).toEqual(winner === p ? {} : stands);
    const twice = await Promise.all([act(winner.studioId, 'revoke-sessions', race), act(winner.studioId, 'revoke-sessions', race)]);
    expect(twice.map((a) => [a.status, a.body.idempotent])).toEqual([
      [200, true],
      [200, true],
    ]);

    // an unban, then the ban's key again: a replay, which bans nothing
    const unban = await act(p.studioId, 'unban', { reason: 'appeal', idempotencyKey: 'sess-idem-unban1' });
    expect(unban.status).toBe(200);
    const lifted = await accessOf(p.accountId);
    expect(lifted.ban).toBeUndefined();
    replayed(await act(p.studioId, 'ban', banBody), 'the ban after the unban');
    expect(await accessOf(p.accountId)).toEqual(lifted);
    const afterBan = await tokenAt(config, q.studioId, nowS());
    const revokeBody = { reason: 'stolen session', idempotencyKey: 'sess-idem-rev-01' };
    expect((await act(q.studioId, 'revoke-sessions', revokeBody)).status).toBe(200);
    const revokedQ = await accessOf(q.accountId);
    expectRevoked(await call(wallet, 'GET', '/api/wallet/overview', { headers: afterBan }), 'a token of the revocation second');

    // a year on, every key still answers its first result and moves nothing
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      vi.setSystemTime(Date.now() + 400 * 86_400_000);
      replayed(await act(q.studioId, 'revoke-sessions', { ...revokeBody, reason: 'retry' }), 'the revocation a year on');
      expect(await accessOf(q.accountId), 'a replayed revocation moves no time').toEqual(revokedQ);
      replayed(await act(p.studioId, 'unban', { reason: 'appeal', idempotencyKey: 'sess-idem-unban1' }), 'the unban a year on');
      const reusedLater = await act(q.studioId, 'unban', { reason: 'appeal', idempotencyKey: 'sess-idem-unban1' });
      expect([reusedLater.status, reusedLater.body.code]).toEqual([422, 'IDEMPOTENCY_KEY_REUSED']);
      // the ban's own retry, now that its end has passed: still its replay, not a refusal of the end
      const lateBan = await act(p.studioId, 'ban', banBody);
      expect
        .soft([lateBan.status, lateBan.body.idempotent, lateBan.body.detail], 'a ban retried after its end passed')
        .toEqual([200, true, undefined]);
    } finally {
      vi.useRealTimers();
    }
    expect(await accessOf(p.accountId)).toEqual(lifted);
    if (store.name === 'redis') {
      const redis = await connectRespRequester(store.env().REDIS_URL!);
      try {
        expect((await redis.request({ body: ['ttl', 'ledger:keys:access'] })).result, 'the access keys expire').toBe(-1);
      } finally {
        await redis.close();
      }
    }
  });

  it('lets the support role look accounts up and refuses it every change (403), with or without the admin password beside it', async () => {
    const config = await store.fresh();
    const server = await serverAuth(config);
    const p = await newPlayer(config, 'Kit');
    const hero = await newCharacter(p.auth);
    const item = await mintFor(server, p.studioId, 'sess-sup-mint-01');
    const support = bearer(await tokenFor(config, 'STUDIO_SUPPORT', 'support'));
    const careless = { ...support, ...password };
    for (const key of [p.studioId, p.accountId, p.accountId.toUpperCase()]) {
      const r = await call(admin, 'GET', `/api/admin/accounts/${key}`, { headers: support });
      expect([r.status, (r.body.account as { studioId: string }).studioId], key).toEqual([200, p.studioId]);
    }
    const before = await stateOf(p.studioId, p.accountId, [hero], [item]);
    const form = () => {
      const f = new FormData();
      f.append('file', new Blob([new Uint8Array(png(2, 2))], { type: 'image/png' }), 'icon.png');
      return f;
    };
    const raw = (entry: EntryExports, method: string, path: string, headers: Headers, body?: BodyInit) =>
      entry[method as keyof EntryExports](new Request(`http://t${path}`, { method, headers, body }));
    for (const [who, headers] of [
      ['support', support],
      ['support with the admin password', careless],
    ] as const) {
      const changes: [string, Promise<Answer> | Promise<Response>][] = [
        ['revoke-sessions', act(p.studioId, 'revoke-sessions', { reason: 'x', idempotencyKey: 'sess-sup-rev-01' }, headers)],
        ['ban', act(p.studioId, 'ban', { reason: 'x', idempotencyKey: 'sess-sup-ban-01' }, headers)],
        ['unban', act(p.studioId, 'unban', { reason: 'x', idempotencyKey: 'sess-sup-unb-01' }, headers)],
        ['account creation', call(admin, 'POST', '/api/admin/accounts', { body: { displayName: 'Mole' }, headers })],
        [
          'grant-coin',
          call(admin, 'POST', '/api/admin/grant-coin', {
            body: { studioId: p.studioId, amount: 5, reason: 'x', idempotencyKey: 'sess-sup-coin-1' },
            headers,
          }),
        ],
        [
          'verify-send',
          call(wallet, 'POST', '/api/wallet/verify-send-to-account', {
            body: { studioId: p.studioId, amount: 5, purpose: 'test', idempotencyKey: 'sess-sup-send-1' },
            headers,
          }),
        ],
        ['storage upload', raw(storage, 'POST', '/api/storage/upload', headers, form())],
        ['storage upload-multi', raw(storage, 'POST', '/api/storage/upload-multi', headers, form())],
        ['storage upload-zip', raw(storage, 'POST', '/api/storage/upload-zip', headers, form())],
        [
          'storage presign',
          call(storage, 'POST', '/api/storage/presign', { body: { key: 'a/b.png', contentType: 'image/png', size: 3 }, headers }),
        ],
        ['storage register', call(storage, 'POST', '/api/storage/register', { body: { key: 'a/b.png' }, headers })],
        ['storage delete', call(storage, 'DELETE', '/api/storage/a/b.png', { headers })],
        [
          'mint',
          call(player, 'POST', '/api/uuid', {
            body: { definitionId: ITEM_DEFINITION, studioId: p.studioId, idempotencyKey: 'sess-sup-mint-2' },
            headers,
          }),
        ],
        [
          'bag grant',
          call(player, 'POST', '/api/inventory/grant', {
            body: { studioId: p.studioId, definitionId: MATERIAL, quantity: 1, idempotencyKey: 'sess-sup-bag-01' },
            headers,
          }),
        ],
        [
          'item event',
          call(player, 'POST', `/api/ledger/${item}/events`, { body: { event: 'consumed', idempotencyKey: 'sess-sup-ev-01' }, headers }),
        ],
      ];
      for (const [what, pending] of changes) {
        const r = await pending;
        const [status, code] = r instanceof Response ? [r.status, ((await r.json()) as { code: string }).code] : [r.status, r.body.code];
        expect([status, code], `${who}: ${what}`).toEqual([403, 'FORBIDDEN']);
      }
      // acting for the player through the routes a game server shares with players: its token is nobody's
      const island = await call(player, 'PATCH', `/api/island/state?studioId=${p.studioId}`, {
        body: { stats: { visits: 1 } },
        headers: { ...headers, 'If-Match': await islandTag(p.studioId) },
      });
      const progress = await call(player, 'PATCH', `/api/characters/${hero}/progress`, {
        body: { idempotencyKey: 'sess-sup-prog-1', progress: { attributes: { STR: 3 } } },
        headers: { ...headers, 'If-Match': await progressTag(hero) },
      });
      const recipe = await call(player, 'POST', '/api/account/recipes', { body: { studioId: p.studioId, recipeId: RECIPE }, headers });
      for (const [what, r] of [
        ['island', island],
        ['progress', progress],
        ['recipe', recipe],
      ] as const)
        expect([400, 401, 403, 404].includes(r.status), `${who}: ${what} answered ${r.status}`).toBe(true);
    }
    expect(await stateOf(p.studioId, p.accountId, [hero], [item])).toEqual(before);
    expect(await accessOf(p.accountId)).toEqual({});
  });

  it('refuses hostile bodies and paths of the operator routes with a 4xx problem, changing nothing and never answering 5xx', async () => {
    const config = await store.fresh();
    const p = await newPlayer(config, 'Lou');
    const operator = await adminAuth(config);
    let n = 0;
    const key = () => `sess-hostile-${String(++n).padStart(4, '0')}`;
    const past = new Date(Date.now() - 1000).toISOString();
    const bodies: [Action, string, unknown][] = [
      ['ban', 'until in the past', { reason: 'r', until: past, idempotencyKey: key() }],
      ['ban', 'until now', { reason: 'r', until: new Date().toISOString(), idempotencyKey: key() }],
      ['ban', 'until at the epoch', { reason: 'r', until: '1970-01-01T00:00:00Z', idempotencyKey: key() }],
      ['ban', 'until month 13', { reason: 'r', until: '2031-13-01T00:00:00Z', idempotencyKey: key() }],
      ['ban', 'until an offset of 99 hours', { reason: 'r', until: '2031-01-01T00:00:00+99:99', idempotencyKey: key() }],
      ['ban', 'until second 60', { reason: 'r', until: '2031-01-01T00:00:60Z', idempotencyKey: key() }],
      ['ban', 'until without a zone', { reason: 'r', until: '2031-01-01T00:00:00', idempotencyKey: key() }],
      ['ban', 'until a day', { reason: 'r', until: '2031-01-01', idempotencyKey: key() }],
      ['ban', 'until words', { reason: 'r', until: 'tomorrow', idempotencyKey: key() }],
      ['ban', 'until empty', { reason: 'r', until: '', idempotencyKey: key() }],
      ['ban', 'until past year 275760', { reason: 'r', until: '+275761-01-01T00:00:00Z', idempotencyKey: key() }],
      ['ban', 'until a number', { reason: 'r', until: 1_900_000_000_000, idempotencyKey: key() }],
      ['ban', 'until null', { reason: 'r', until: null, idempotencyKey: key() }],
      ['ban', 'until true', { reason: 'r', until: true, idempotencyKey: key() }],
      ['ban', 'until an object', { reason: 'r', until: { $date: '2031-01-01' }, idempotencyKey: key() }],
      ['ban', 'until a list', { reason: 'r', until: ['2031-01-01T00:00:00Z'], idempotencyKey: key() }],
      ['ban', 'reason NUL', { reason: 'a\u0000b', idempotencyKey: key() }],
      ['ban', 'reason right-to-left override', { reason: 'ban \u202Eevil', idempotencyKey: key() }],
      ['revoke-sessions', 'reason isolate', { reason: 'x\u2066y\u2069', idempotencyKey: key() }],
      ['unban', 'reason carriage return', { reason: 'a\rb', idempotencyKey: key() }],
      ['ban', 'reason C1 control', { reason: 'a\u0085b', idempotencyKey: key() }],
      ['ban', 'reason lone surrogate', { reason: 'a\uD800b', idempotencyKey: key() }],
      ['ban', 'reason empty', { reason: '', idempotencyKey: key() }],
      ['ban', 'reason blank', { reason: ' \n\t ', idempotencyKey: key() }],
      ['ban', 'reason 201 characters', { reason: 'x'.repeat(201), idempotencyKey: key() }],
      ['ban', 'reason a number', { reason: 7, idempotencyKey: key() }],
      ['ban', 'reason missing', { idempotencyKey: key() }],
      ['ban', 'key missing', { reason: 'r' }],
      ['ban', 'key a number', { reason: 'r', idempotencyKey: 12345678 }],
      ['ban', 'key with NUL', { reason: 'r', idempotencyKey: 'sess-hostile-\u0000' }],
      ['ban', 'key of 5000 characters', { reason: 'r', idempotencyKey: 'k'.repeat(5000) }],
      ['ban', 'an unknown field', { reason: 'r', idempotencyKey: key(), extra: 1 }],
      ['ban', 'the ban time', { reason: 'r', idempotencyKey: key(), at: '2020-01-01T00:00:00Z' }],
      ['revoke-sessions', 'a revocation time', { reason: 'r', idempotencyKey: key(), sessionsRevokedAt: 0 }],
      ['revoke-sessions', 'an until', { reason: 'r', idempotencyKey: key(), until: '2031-01-01T00:00:00Z' }],
      ['unban', 'another account named', { reason: 'r', idempotencyKey: key(), studioId: 'STUDIO_0000000000000000' }],
      ['ban', 'a list', [{ reason: 'r', idempotencyKey: key() }]],
      ['ban', 'null', null],
      ['ban', 'a string', 'ban'],
    ];
    const outcomes: string[] = [];
    const judge = (what: string, r: Answer) => {
      if (!(r.status >= 400 && r.status < 500)) outcomes.push(`${what}: ${r.status}`);
    };
    for (const [action, what, body] of bodies) judge(`${action} ${what}`, await act(p.studioId, action, body, operator));
    // a refusal names the field it refuses
    const named = async (body: unknown) => errorNames(await act(p.studioId, 'ban', body, operator));
    expect(await named({ reason: 'r', until: past, idempotencyKey: key() })).toEqual(['/until']);
    expect(await named({ reason: 'a\u0000b', idempotencyKey: key() })).toEqual(['/reason']);
    expect(await named({ reason: 'a\u202Eb', idempotencyKey: key() })).toEqual(['/reason']);
    const path = (segment: string, action: Action = 'ban') => `/api/admin/players/${segment}/${action}`;
    const body = () => ({ reason: 'r', idempotencyKey: key() });
    const segments: [string, string][] = [
      ['lower case', p.studioId.toLowerCase()],
      ['the accountId', p.accountId],
      ['a NUL after it', `${p.studioId}%00`],
      ['a slash after it', `${p.studioId}%2Fban`],
      ['a dot-dot', '%2e%2e'],
      ['bad percent-encoding', '%E0%A4%A'],
      ['a lone percent', '%'],
      ['double-encoded', `%2553${p.studioId.slice(1)}`],
      ['5000 characters', `STUDIO_${'A'.repeat(5000)}`],
      ['full-width letters', encodeURIComponent(p.studioId.replace('STUDIO', 'ＳＴＵＤＩＯ'))],
      ['a space after it', `${p.studioId}%20`],
      ['a query in it', `${p.studioId}%3Fx%3D1`],
      ['no account', 'STUDIO_0000000000000000'],
    ];
    for (const [what, segment] of segments)
      for (const action of ['ban', 'revoke-sessions', 'unban'] as const)
        judge(`${action} path ${what}`, await call(admin, 'POST', path(segment, action), { body: body(), headers: operator }));
    for (const [what, target] of [
      ['no key', '/api/admin/players//ban'],
      ['a further segment', `/api/admin/players/${p.studioId}/ban/now`],
      ['the entry path with a bad key', `/api/admin?_route=ban&_key=${encodeURIComponent('../accounts')}`],
      ['the entry path without a key', '/api/admin?_route=ban'],
    ] as const)
      judge(what, await call(admin, 'POST', target, { body: body(), headers: operator }));
    // bytes that are no JSON object, and another media type
    for (const [what, bytes] of [
      ['truncated JSON', '{"reason":"r","idempotencyKey":"sess-hostile-raw1"'],
      ['an empty body', ''],
      [
        'an overlong NUL',
        new Uint8Array([
          ...new TextEncoder().encode('{"reason":"a'),
          0xc0,
          0x80,
          ...new TextEncoder().encode('","idempotencyKey":"sess-hostile-raw3"}'),
        ]),
      ],
    ] as const)
      judge(what, await callRaw(admin, 'POST', path(p.studioId), bytes, operator));
    judge(
      'text/plain',
      await callRaw(admin, 'POST', path(p.studioId), JSON.stringify(body()), { ...operator, 'Content-Type': 'text/plain' }),
    );
    expect(outcomes, 'answers that are no 4xx').toEqual([]);
    expect(await accessOf(p.accountId)).toEqual({});
    expect((await call(wallet, 'GET', '/api/wallet/overview', { headers: p.auth })).status).toBe(200);
  });

  it('refuses an end that names no real time of RFC 3339 (a 31st of a 30-day month, February 30, hour 24, a year past 9999) rather than banning until another one', async () => {
    const config = await store.fresh();
    const operator = await adminAuth(config);
    for (const until of ['2031-04-31T00:00:00Z', '2031-02-30T12:00:00Z', '2031-01-01T24:00:00Z', '9999-12-31T23:59:59-23:59']) {
      const p = await newPlayer(config, 'Mo');
      const r = await act(p.studioId, 'ban', { reason: 'r', until, idempotencyKey: `sess-until-${until.slice(0, 13)}` }, operator);
      const stored = (await accessOf(p.accountId)).ban?.until;
      expect
        .soft([r.status, stored], `until ${until}: answered ${r.status} ${JSON.stringify(r.body.access ?? r.body.detail)}`)
        .toEqual([400, undefined]);
    }
  });

  it('logs the caller out everywhere: 204, every token of its account refused after, nobody else’s; a guest is 401; safe to repeat', async () => {
    const config = await store.fresh(platformEnv());
    const p = await newPlayer(config, 'Nia');
    const other = await newPlayer(config, 'Ode');
    const overview = (auth: Headers) => call(wallet, 'GET', '/api/wallet/overview', { headers: auth });
    const guest = bearer(await tokenFor(config, p.studioId, 'player', { guest: true }));
    const g = await logoutOf(guest);
    expect([g.status, g.headers.get('www-authenticate')?.startsWith('Bearer realm="game-api"')]).toEqual([401, true]);
    expect(await accessOf(p.accountId), 'a guest logs nobody out').toEqual({});
    const params = await call(player, 'POST', '/api/auth/logout?studioId=' + other.studioId, { headers: p.auth });
    expect(params.status).toBe(400);
    for (const operatorToken of [await serverAuth(config), await adminAuth(config)]) {
      const r = await logoutOf(operatorToken);
      expect(r.status, 'an operator token is no account’s').toBe(404);
    }
    const sibling = await tokenAt(config, p.studioId, nowS() - 30);
    const member = bearer(await tokenFor(config, p.studioId, 'member'));
    const out = await logoutOf(p.auth);
    expect([out.status, out.headers.get('content-type'), out.body]).toEqual([204, null, {}]);
    const at = (await accessOf(p.accountId)).sessionsRevokedAt!;
    expect(Math.abs(at - nowS())).toBeLessThanOrEqual(2);
    for (const [what, auth] of [
      ['the token that logged out', p.auth],
      ['another device', sibling],
      ['a member token', member],
    ] as const) {
      expectRevoked(await overview(auth), what);
      expectRevoked(await logoutOf(auth), `${what} logging out again`);
    }
    expect((await accessOf(p.accountId)).sessionsRevokedAt).toBe(at);
    expect((await overview(other.auth)).status).toBe(200);
    expect(await accessOf(other.accountId)).toEqual({});
    // a token of a later second logs out too, as often as it is sent at once; never a 5xx
    await sleep((at + 1) * 1000 - Date.now() + 20);
    const later = bearer(await tokenFor(config, p.studioId));
    const again = await Promise.all(Array.from({ length: 4 }, () => logoutOf(later)));
    expect(again.every((r) => r.status === 204 || r.status === 401)).toBe(true);
    expect(again.some((r) => r.status === 204)).toBe(true);
    expectRevoked(await overview(later), 'the later token after its logout');

    // a login in the very second of a logout gets a token that is let in
    const first = await login('nia-1');
    const token = bearer(String(first.body.token));
    expect((await logoutOf(token)).status).toBe(204);
    const next = await login('nia-1');
    expect(next.status).toBe(200);
    expect((await overview(bearer(String(next.body.token)))).status, 'the token of a login right after a logout').toBe(200);
  });
});
