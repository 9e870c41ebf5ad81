/**
 * Plumbing of the adversarial suites (`test/adversarial/`): every suite attacks the stateful half through
 * the real entry handlers (`api/*.ts`, docs/architecture.md "Functions") on both stores, SQLite in a
 * temporary folder and a real `redis-server` over RESP on 127.0.0.1 (`test/helpers/backends.ts`).
 *
 * {@link onEachStore} registers one `describe` per store whose tests get a fresh configuration over empty
 * data from `fresh()`; the rest are small builders shared by the suites (accounts, characters, items).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe } from 'vitest';
import { useServiceConfig, type ServiceConfig } from '../../api/_lib/config.js';
import type { EntryExports } from '../../api/_lib/http/entry.js';
import { useLogSink } from '../../api/_lib/log.js';
import * as adminEntry from '../../api/admin.js';
import * as playerEntry from '../../api/player.js';
import * as walletEntry from '../../api/wallet.js';
import { redisBackend, sqliteBackend, type Backend } from '../helpers/backends.js';
import { SAMPLE_OUT } from '../helpers/catalog.js';
import { call, expectProblem, newPlayer, serverAuth, tokenFor, useGameConfig, type Answer } from '../helpers/game-api.js';

export const admin = adminEntry as unknown as EntryExports;
export const player = playerEntry as unknown as EntryExports;
export const wallet = walletEntry as unknown as EntryExports;

/** An admin password strong enough for the configuration (16+ characters, no placeholder). */
export const ADMIN_PASSWORD = 'adv-Pw7qLx2Rm9Tz4Kc8';

/** A store the suites run on, and the name it is reported under. */
export interface StoreRun {
  readonly name: 'sqlite' | 'redis';
  /** A configuration over empty data (plus `extra` variables) put in force; answered. */
  fresh(extra?: Record<string, string>): Promise<ServiceConfig>;
  /**
   * The variables that select this store over the data of the last {@link StoreRun.fresh} (with a `DATA_DIR` of
   * its own on both stores: on Redis nothing should be written there).
   */
  env(): Record<string, string>;
  /** The backend itself (its Redis server, for instance). */
  readonly backend: Backend;
}

const STORES: readonly (readonly ['sqlite' | 'redis', () => Backend & { flush?: () => Promise<void> }])[] = [
  ['sqlite', sqliteBackend],
  ['redis', () => redisBackend()],
];

/**
 * Register `body` once per store, inside `describe(\`${title} on <store>\`)`, with the backend started before
 * and stopped after, and the configuration in force dropped at the end.
 */
export function onEachStore(title: string, body: (store: StoreRun) => void): void {
  for (const [name, make] of STORES) {
    describe(`${title} on ${name}`, () => {
      const backend = make();
      let env: Record<string, string> = {};
      let dir = '';
      let n = 0;
      beforeAll(async () => {
        dir = mkdtempSync(join(tmpdir(), `adversarial-${name}-`));
        await backend.setup();
      }, 30_000);
      afterAll(async () => {
        useServiceConfig(undefined);
        await backend.teardown();
        rmSync(dir, { recursive: true, force: true });
      });
      body({
        name,
        backend,
        env: () => env,
        async fresh(extra = {}) {
          await backend.flush?.();
          n++;
          env = { DATA_DIR: join(dir, `data-${n}`), ...backend.env(), ADMIN_PASSWORD, ...extra };
          return useGameConfig(env);
        },
      });
    });
  }
}

/** Headers of an admin token (role `admin`). */
export async function adminAuth(config: ServiceConfig): Promise<Record<string, string>> {
  return { Authorization: `Bearer ${await tokenFor(config, 'STUDIO_OPERATOR', 'admin')}` };
}

export { call, newPlayer, serverAuth, tokenFor, type Answer };

const manifest = JSON.parse(readFileSync(join(SAMPLE_OUT, 'api/v1/canonical-items-manifest.json'), 'utf8')) as {
  items: { uuid: string; kind: string }[];
};
/** A unique-item definition of the sample catalog. */
export const ITEM_DEFINITION = manifest.items.find((i) => i.uuid.startsWith('ITEM-') && i.kind !== 'consumable')!.uuid;
/** A material of the sample catalog (a stackable). */
export const MATERIAL = 'MATL-20260601090000-000101-F469B3E9';
/** A skill of the sample catalog. */
export const SKILL = 'SKIL-A415-7550-C923';
/** A character the sample catalog's world definitions take. */
export const HERO = Object.freeze({ era: 'warlords', name: 'Hero', classId: 'warrior', raceId: 'human', factionId: 'crusade' });

/** Create a character for the player whose headers are `auth`; its id. @throws Error unless created */
export async function newCharacter(auth: Record<string, string>, over: Record<string, unknown> = {}): Promise<string> {
  const r = await call(player, 'POST', '/api/characters', { body: { ...HERO, ...over }, headers: auth });
  if (r.status !== 201) throw new Error(`character creation: ${r.status} ${JSON.stringify(r.body)}`);
  return (r.body.character as { id: string }).id;
}

/** Mint a unique item for `studioId` through the game-server route; its studio_uuid. @throws Error unless minted */
export async function mintFor(server: Record<string, string>, studioId: string, key: string): Promise<string> {
  const r = await call(player, 'POST', '/api/uuid', {
    body: { definitionId: ITEM_DEFINITION, studioId, idempotencyKey: key },
    headers: server,
  });
  if (r.status !== 201) throw new Error(`mint: ${r.status} ${JSON.stringify(r.body)}`);
  return (r.body.item as { studioUuid: string }).studioUuid;
}

/** Send raw `body` bytes (or text) as `method path` to `entry`; a refusal must be a usable problem (`expectProblem`). */
export async function callRaw(
  entry: EntryExports,
  method: string,
  path: string,
  body: Uint8Array | string,
  headers: Record<string, string> = {},
): Promise<Answer> {
  const res = await entry[method as keyof EntryExports](
    new Request(`http://t${path}`, {
      method,
      headers: { 'Content-Type': 'application/json', ...headers },
      body: typeof body === 'string' ? body : new Uint8Array(body),
    }),
  );
  const text = await res.text();
  const parsed = (text ? JSON.parse(text) : {}) as Answer['body'];
  if (res.status >= 400) expectProblem(res.status, res.headers, parsed);
  return { status: res.status, headers: res.headers, body: parsed };
}

/** The `name`s of a problem's `errors[]`. */
export const errorNames = (a: Answer): string[] => (a.body.errors ?? []).map((e) => e.name);

/** Keep the operator log of a suite that does not read it off the console (registered at the file's top level). */
export function quietLog(): void {
  beforeAll(() => useLogSink(() => undefined));
  afterAll(() => useLogSink(undefined));
}
