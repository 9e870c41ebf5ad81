/**
 * Nothing a client sends to a player-state route yields a 5xx (spec 7; docs/architecture.md, "Errors"):
 * random JSON bodies, random path keys and random `If-Match` values (fast-check) to every route of the
 * player entry, with a player's token and a game server's, answer 2xx or 4xx, and a refused request
 * writes nothing (the account's state reads the same after the run, but for the changes that succeeded).
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useServiceConfig, type ServiceConfig } from '../../api/_lib/config.js';
import type { EntryExports } from '../../api/_lib/http/entry.js';
import { checkBagInvariants } from '../../api/_lib/player/bag.js';
import { playerStore } from '../../api/_lib/player/store.js';
import * as playerEntry from '../../api/player.js';
import { sqliteHarness } from '../helpers/ledger.js';
import { call, newPlayer, tokenFor, useGameConfig } from '../helpers/game-api.js';

const player = playerEntry as unknown as EntryExports;
const h = sqliteHarness();
let config: ServiceConfig;
beforeAll(async () => {
  await h.setup();
  config = useGameConfig(h.env());
});
afterAll(async () => {
  useServiceConfig(undefined);
  await h.teardown();
});

const ROUTES: [string, (key: string) => string][] = [
  ['PATCH', () => '/api/island/state'],
  ['POST', () => '/api/island/export-from-rts'],
  ['POST', () => '/api/characters'],
  ['PATCH', (k) => `/api/characters/${encodeURIComponent(k)}/progress`],
  ['GET', (k) => `/api/characters/${encodeURIComponent(k)}/progress`],
  ['GET', (k) => `/api/characters?era=${encodeURIComponent(k)}`],
  ['POST', () => '/api/account/recipes'],
  ['POST', () => '/api/auth/external'],
  ['POST', () => '/api/auth/external-link'],
  ['POST', () => '/api/uuid'],
  ['GET', (k) => `/api/ledger/${encodeURIComponent(k)}`],
  ['POST', (k) => `/api/ledger/${encodeURIComponent(k)}/events`],
  ['POST', () => '/api/inventory/grant'],
  ['POST', () => '/api/inventory/consume'],
];

/** Bodies near the real ones: the routes' own field names with random values, and random JSON. */
const field = fc.constantFrom(
  'era',
  'name',
  'classId',
  'raceId',
  'factionId',
  'idempotencyKey',
  'progress',
  'recipeId',
  'token',
  'definitionId',
  'studioId',
  'accountId',
  'quantity',
  'event',
  'characterId',
  'toStudioId',
  'gridX',
  'gridZ',
  'seed',
  'biome',
  'heightmap',
  'stats',
  'nodes',
  'campPosition',
  '__proto__',
  'constructor',
);
const body = fc.oneof(fc.dictionary(field, fc.jsonValue({ maxDepth: 3 }), { maxKeys: 6 }), fc.jsonValue({ maxDepth: 3 }));

describe('player routes under random input', () => {
  it('answer 2xx or 4xx, never a 5xx, and keep the bag sound', async () => {
    const p = await newPlayer(config);
    const server = { Authorization: `Bearer ${await tokenFor(config, 'STUDIO_GAMESERVER', 'server')}` };
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: ROUTES.length - 1 }),
        body,
        fc.string({ maxLength: 40 }),
        fc.option(fc.string({ maxLength: 12 })),
        fc.boolean(),
        async (r, value, key, ifMatch, asServer) => {
          const [method, path] = ROUTES[r]!;
          const headers: Record<string, string> = {
            ...(asServer ? server : p.auth),
            ...(ifMatch === null ? {} : { 'If-Match': ifMatch.replace(/[^\x20-\x7e]/g, '') }),
          };
          const res = await call(
            player,
            method,
            path(key),
            method === 'GET' ? { headers } : { body: value === undefined ? 'null' : JSON.stringify(value), headers },
          );
          expect(res.status, `${method} ${path(key)} ${JSON.stringify(value)}`).toBeLessThan(500);
        },
      ),
      { numRuns: 300, seed: 20261123 },
    );
    expect(checkBagInvariants(await (await playerStore()).bagSnapshot())).toEqual([]);
  }, 120_000);
});
