/**
 * A fault run on both stores (spec 2.6, 2.8, 2.9, 3, 4.8; docs/architecture.md, "Stores are ports with
 * adapters", "Ledger", "Player state"): 1,000 concurrent mixed requests through the real entry handlers
 * (`api/wallet.ts` verify-send, `api/admin.ts` grant-coin, `api/player.ts` bag grants and consumptions,
 * unique-item mints, item events, island PATCHes and character progress PATCHes, with duplicates of the
 * same key and body in flight together), while the store fails under them; then every request answered
 * 503 is sent again, with the same key and body, after the faults stop.
 *
 * Faults (`test/helpers/fault-run.ts`):
 * - Redis (a real `redis-server` over RESP): the handlers' stores open their connections through
 *   `connectRespRequester`, which this file mocks to put a fault-injecting `Requester` in front of each:
 *   a script that ran but whose answer was lost, noticed after up to 250 ms as a client's timeout would
 *   (the client retries; island saves, the one write kept by the id of the island's last write rather
 *   than by a record per key, lose half their answers, so that other saves land before the retry), a
 *   script or read that failed before it was sent (the client retries), calls that fail on every attempt
 *   (503; half of them after the server ran the script, so the effect is there though the answer is a
 *   503), and `SCRIPT FLUSH` three times mid-run (EVALSHA answers NOSCRIPT, the store falls back to EVAL).
 * - SQLite (the embedded file): what the store kit lets another connection do to the file, without
 *   touching the service: triggers that fail a write after it wrote (an idempotency record's insert, the
 *   last statement of every keyed write, and an island's update), which the group commit refuses alone
 *   while it commits the rest of the group; and the file's write lock held three times mid-run past the
 *   engine's busy timeout (the test opens the file first, with `busyTimeoutMs` 50), so whole groups
 *   cannot begin.
 *
 * What must hold: every answer is 2xx with its documented body, or a refusal the operation documents as
 * problem+json, and no 5xx but 503 UPSTREAM_UNAVAILABLE. A model kept from the answers (a 2xx means
 * applied once, a refusal not at all, a 503 at most once; every 503'd request re-sent, then each key's
 * effect decided) must match the stores exactly: balances are the sums of the distinct credited keys,
 * one transfer per key, each answer the recorded transfer; bag quantities and entries are the applied
 * grants and consumptions, once each; one item per mint key; each item's history is its applied events,
 * once each, every one allowed by the transition table from the state before it and never on another
 * account's character; an island, whose PATCHes carry no key but the revision they name in `If-Match`,
 * has each of its revisions made by exactly one PATCH naming the one before (answered 200, or 503) and
 * holds the last one's change; a character's progress revision counts its applied keys. At most one
 * answer per key says it made the effect; where the store can tell a call's own retry from a replay
 * (credits and mints on Redis, everything on SQLite, which never retries), exactly one does when no
 * answer of the key was a 503. The ledger and bag invariants hold and the check of
 * `npm run ledger:verify` (`dev/ledger-verify.ts`, called in-process) passes, before and after the store
 * restarts (redis-server killed and started again on its append-only file; the SQLite file closed and
 * opened again).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { useServiceConfig, type ServiceConfig } from '../../api/_lib/config.js';
import type { EntryExports } from '../../api/_lib/http/entry.js';
import { useLogSink } from '../../api/_lib/log.js';
import { auditLog } from '../../api/_lib/audit/store.js';
import type { AuditPosition } from '../../api/_lib/audit/types.js';
import type { AuditRecord } from '../../api/_lib/util/audit-scope.js';
import { openRedisLedger } from '../../api/_lib/ledger/redis.js';
import { openSqliteLedger } from '../../api/_lib/ledger/sqlite.js';
import { ledgerStore } from '../../api/_lib/ledger/store.js';
import type { LedgerStore } from '../../api/_lib/ledger/types.js';
import { checkBagInvariants } from '../../api/_lib/player/bag.js';
import { ITEM_TRANSITIONS } from '../../api/_lib/player/items.js';
import { openRedisPlayerStore } from '../../api/_lib/player/redis.js';
import { openSqlitePlayerStore } from '../../api/_lib/player/sqlite.js';
import { playerStore } from '../../api/_lib/player/store.js';
import type { BagEntry, ItemEvent, ItemEventKind, ItemInstance, ItemState, PlayerStore } from '../../api/_lib/player/types.js';
import type * as RespModule from '../../api/_lib/stores/resp-requester.js';
import type { RespRequester } from '../../api/_lib/stores/resp-requester.js';
import { createRng, type Rng } from '../../api/_lib/util/prng.js';
import * as adminEntry from '../../api/admin.js';
import * as playerEntry from '../../api/player.js';
import * as walletEntry from '../../api/wallet.js';
import { main as ledgerVerify } from '../../dev/ledger-verify.js';
import { redisBackend, sqliteBackend } from '../helpers/backends.js';
import { SAMPLE_OUT } from '../helpers/catalog.js';
import { redisFaults, replyProblems, send, SqliteFaults, type Reply, type Sent } from '../helpers/fault-run.js';
import { newPlayer, SECRET, serverAuth, tokenFor, useGameConfig } from '../helpers/game-api.js';
import { expectSound } from '../helpers/ledger.js';

// every RESP connection the handlers' stores open goes through the fault-injecting Requester, set below
// (the mock's factory imports nothing: the helpers it would need import the mocked module themselves)
const resp = vi.hoisted(() => ({ wrap: (r: RespRequester): RespRequester => r }));
vi.mock('../../api/_lib/stores/resp-requester.js', async (importOriginal) => {
  const real = await importOriginal<typeof RespModule>();
  return { ...real, connectRespRequester: async (url: string) => resp.wrap(await real.connectRespRequester(url)) };
});
resp.wrap = (r) => redisFaults.wrap(r);

/** A connection the faults never touch (the run's own commands: SCRIPT FLUSH, reopening after the restart). */
async function connectRaw(url: string): Promise<RespRequester> {
  const real = await vi.importActual<typeof RespModule>('../../api/_lib/stores/resp-requester.js');
  return real.connectRespRequester(url);
}

const admin = adminEntry as unknown as EntryExports;
const player = playerEntry as unknown as EntryExports;
const wallet = walletEntry as unknown as EntryExports;

const catalog = (f: string) =>
  JSON.parse(readFileSync(join(SAMPLE_OUT, 'api/v1', f), 'utf8')) as Record<string, { uuid: string; kind?: string }[]>;
const MANIFEST = catalog('canonical-items-manifest.json').items!;
const MATERIAL = catalog('master-materials.json').materials![0]!.uuid;
const CONSUMABLE = MANIFEST.find((i) => i.kind === 'consumable')!.uuid;
const UNIQUE = MANIFEST.filter((i) => i.uuid.startsWith('ITEM-') && i.kind !== 'consumable')
  .slice(0, 4)
  .map((i) => i.uuid);
const HERO = { era: 'warlords', classId: 'warrior', raceId: 'human', factionId: 'crusade' };

/** Size of the run, accounts, characters per account and items minted before it. */
const REQUESTS = 1000;
const ACCOUNTS = 8;
const CHARACTERS_PER_ACCOUNT = 2;
const ITEMS = 16;
/** Each stack of every account holds this much before the run. */
const STARTING_STACK = 30;
/** Revisions every progress PATCH names in `If-Match` (any of them matches): concurrent saves still race on the store's check. */
const PROGRESS_IF_MATCH = Array.from({ length: 80 }, (_, i) => `"${i + 1}"`).join(', ');

/** The operations of the run, their share of the requests, the statuses each may answer and its 2xx body's schema. */
type Op = 'verify-send' | 'grant-coin' | 'bag-grant' | 'bag-consume' | 'mint' | 'item-event' | 'island' | 'progress';
const OPS: Readonly<Record<Op, { readonly share: number; readonly allowed: readonly number[]; readonly schema: string }>> = {
  'verify-send': { share: 12, allowed: [200, 503], schema: 'wallet-credit' },
  'grant-coin': { share: 10, allowed: [200, 503], schema: 'wallet-credit' },
  'bag-grant': { share: 12, allowed: [200, 201, 503], schema: 'bag-change' },
  // 409: beyond the quantity held
  'bag-consume': { share: 12, allowed: [200, 201, 409, 503], schema: 'bag-change' },
  mint: { share: 10, allowed: [200, 201, 503], schema: 'item-minted' },
  // 400: the character is not the owner's, or a transfer to the owner; 409: the state forbids it, or it kept changing hands
  'item-event': { share: 16, allowed: [200, 201, 400, 409, 503], schema: 'item-event' },
  // 412: the island is not at the revision named (another PATCH saved first, or not yet)
  island: { share: 10, allowed: [200, 412, 503], schema: 'island-state' },
  progress: { share: 18, allowed: [200, 412, 503], schema: 'character-progress' },
};
/** Chance that a request repeats an earlier key of its operation with the same body (in flight together). */
const DUPLICATE = 0.35;
const EVENT_KINDS: readonly (readonly [Exclude<ItemEventKind, 'minted'>, number])[] = [
  ['assigned', 25],
  ['equipped', 20],
  ['unequipped', 20],
  ['transferred', 25],
  ['consumed', 3],
  ['destroyed', 2],
];

interface Player {
  readonly studioId: string;
  readonly accountId: string;
  readonly auth: Record<string, string>;
}

/** What exists before the run. */
interface World {
  readonly admin: Record<string, string>;
  readonly server: Record<string, string>;
  readonly accounts: readonly Player[];
  readonly characters: readonly { readonly id: string; readonly accountId: string }[];
  /** Items minted before the run: the run's events act on them. */
  readonly items: readonly { readonly studioUuid: string; readonly accountId: string }[];
  readonly islandRevision: ReadonlyMap<string, number>;
  readonly grants: readonly {
    readonly accountId: string;
    readonly definitionId: string;
    readonly quantity: number;
    readonly sourceRef: string;
  }[];
}

/** One key of the run (or one island PATCH) and what its effect is. */
interface Intent {
  readonly id: string;
  readonly op: Op;
  readonly sent: Sent;
  /** The account acted on: credited, whose bag, the minted item's owner, the island's, the character's, the item's first owner. */
  readonly accountId: string;
  readonly amount?: number;
  readonly sourceRef?: string;
  readonly definitionId?: string;
  readonly delta?: number;
  readonly studioUuid?: string;
  readonly kind?: Exclude<ItemEventKind, 'minted'>;
  readonly characterId?: string;
  readonly value?: number;
  readonly marker?: { readonly x: number; readonly z: number };
  /** The revision an island PATCH names in `If-Match`. */
  readonly revision?: number;
}

interface Answered {
  readonly intent: Intent;
  readonly reply: Reply;
  readonly phase: 'run' | 'resend';
}

/** A store of the run and its faults. */
interface StoreKit {
  readonly name: 'sqlite' | 'redis';
  readonly seed: number;
  /** Start the backend; the store variables of a fresh data set. */
  setup(): Promise<Record<string, string>>;
  /** Before the first request (the file's first opener sets its busy timeout). */
  beforeRequests(): Promise<void>;
  arm(): Promise<void>;
  /** A fault event mid-run (SCRIPT FLUSH; a held write lock). */
  midRun(): Promise<void>;
  disarm(): Promise<void>;
  /** Fail unless every kind of fault was injected. */
  expectFaultsInjected(logLines: readonly string[]): void;
  /** Stop the store and open it again: the ledger and player stores over the same data. */
  restart(): Promise<{ ledger: LedgerStore; players: PlayerStore }>;
  teardown(): Promise<void>;
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

function sqliteKit(): StoreKit {
  const backend = sqliteBackend();
  let file = '';
  let first: LedgerStore | undefined;
  let faults: SqliteFaults | undefined;
  let reopened: { ledger: LedgerStore; players: PlayerStore } | undefined;
  return {
    name: 'sqlite',
    seed: 20261128,
    async setup() {
      await backend.setup();
      const env = backend.env();
      file = join(env.DATA_DIR!, 'ledger.sqlite');
      return env;
    },
    async beforeRequests() {
      first = await openSqliteLedger({ file, busyTimeoutMs: 50 });
    },
    async arm() {
      faults = new SqliteFaults(file, { keyedPercent: 4, islandPercent: 8 });
      await faults.arm();
    },
    midRun: () => faults!.holdLock(150),
    disarm: () => faults!.disarm(),
    expectFaultsInjected(logLines) {
      expect(faults!.locksHeld).toBe(3);
      expect(logLines.filter((l) => l.includes('injected fault')).length).toBeGreaterThan(0);
      expect(logLines.filter((l) => /SQLITE_BUSY|database is locked/i.test(l)).length).toBeGreaterThan(0);
    },
    async restart() {
      // the handlers' stores close with their configuration; the file's last handle closes its engine
      await sleep(200);
      await first?.close();
      first = undefined;
      reopened = { ledger: await openSqliteLedger({ file }), players: await openSqlitePlayerStore(file) };
      return reopened;
    },
    async teardown() {
      await reopened?.ledger.close();
      await reopened?.players.close();
      await first?.close();
      await backend.teardown();
    },
  };
}

function redisKit(): StoreKit {
  const seed = 20261129;
  const backend = redisBackend();
  let control: RespRequester | undefined;
  let reconnected: RespRequester | undefined;
  let flushes = 0;
  return {
    name: 'redis',
    seed,
    async setup() {
      await backend.setup();
      control = await connectRaw(backend.server().url);
      return backend.env();
    },
    beforeRequests: () => Promise.resolve(),
    arm() {
      redisFaults.reset(seed, {
        loseAnswer: 0.03,
        failBefore: 0.03,
        doom: 0.015,
        readFailBefore: 0.01,
        lostAfterMs: 250,
        // an island save is the one write kept by the id of the island's last write, not by a record per key:
        // half of its answers are lost, so that other saves land between a save and its retry
        aim: { keySuffix: ':island', loseAnswer: 0.5 },
      });
      redisFaults.armed = true;
      return Promise.resolve();
    },
    async midRun() {
      await control!.request({ body: ['script', 'flush'] });
      flushes++;
    },
    disarm() {
      redisFaults.armed = false;
      return Promise.resolve();
    },
    expectFaultsInjected() {
      const c = redisFaults.counts;
      expect(flushes).toBe(3);
      const injected = {
        lostAnswers: c.lostAnswers,
        aimedLost: c.aimedLost,
        notSent: c.notSent,
        doomedCalls: c.doomedCalls,
        noscript: c.noscript,
      };
      expect(Object.entries(injected).filter(([, n]) => n === 0)).toEqual([]);
    },
    async restart() {
      await sleep(200);
      const server = backend.server();
      await control?.close();
      control = undefined;
      await server.stop();
      await server.start();
      reconnected = await connectRaw(server.url);
      return { ledger: openRedisLedger({ requester: reconnected }), players: openRedisPlayerStore({ requester: reconnected }) };
    },
    async teardown() {
      redisFaults.armed = false;
      await control?.close();
      await reconnected?.close();
      await backend.teardown();
    },
  };
}

/** POST/GET through an entry outside the run; fails unless the answer has `status`. */
async function expectStatus(sent: Sent, status: number): Promise<Record<string, unknown>> {
  const r = await send(sent);
  if (r.status !== status) throw new Error(`${sent.method} ${sent.path}: ${r.status} ${r.text.slice(0, 300)}`);
  return r.body!;
}

/** Accounts, their characters and islands, items and stacks, made before the run (no faults). */
async function buildWorld(config: ServiceConfig, tag: string): Promise<World> {
  const adminAuth = { Authorization: `Bearer ${await tokenFor(config, 'STUDIO_OPERATOR', 'admin')}` };
  const server = await serverAuth(config);
  const accounts: Player[] = [];
  for (let i = 0; i < ACCOUNTS; i++) accounts.push(await newPlayer(config, `Fault run ${i}`));
  const characters: { id: string; accountId: string }[] = [];
  const islandRevision = new Map<string, number>();
  const grants: World['grants'][number][] = [];
  for (const a of accounts) {
    for (let j = 0; j < CHARACTERS_PER_ACCOUNT; j++) {
      const body = { ...HERO, name: `Hero ${j}` };
      const created = await expectStatus({ entry: player, method: 'POST', path: '/api/characters', body, headers: a.auth }, 201);
      characters.push({ id: (created.character as { id: string }).id, accountId: a.accountId });
    }
    const island = await expectStatus({ entry: player, method: 'GET', path: '/api/island/state', headers: a.auth }, 200);
    islandRevision.set(a.accountId, island.revision as number);
    for (const definitionId of [MATERIAL, CONSUMABLE]) {
      const key = `${tag}-setup-${grants.length}`;
      const body = { studioId: a.studioId, definitionId, quantity: STARTING_STACK, idempotencyKey: key };
      await expectStatus({ entry: player, method: 'POST', path: '/api/inventory/grant', body, headers: server }, 201);
      grants.push({ accountId: a.accountId, definitionId, quantity: STARTING_STACK, sourceRef: `bag-grant:${key}` });
    }
  }
  const items: { studioUuid: string; accountId: string }[] = [];
  for (let i = 0; i < ITEMS; i++) {
    const owner = accounts[i % ACCOUNTS]!;
    const body = { definitionId: UNIQUE[i % UNIQUE.length]!, studioId: owner.studioId, idempotencyKey: `${tag}-setup-mint-${i}` };
    const minted = await expectStatus({ entry: player, method: 'POST', path: '/api/uuid', body, headers: server }, 201);
    items.push({ studioUuid: (minted.item as { studioUuid: string }).studioUuid, accountId: owner.accountId });
  }
  return { admin: adminAuth, server, accounts, characters, items, islandRevision, grants };
}

function pickWeighted<T>(rng: Rng, choices: readonly (readonly [T, number])[]): T {
  let roll = rng.next() * choices.reduce((s, [, w]) => s + w, 0);
  for (const [c, w] of choices) {
    roll -= w;
    if (roll < 0) return c;
  }
  return choices[choices.length - 1]![0];
}

/**
 * One new key (or island PATCH) of `op`. The island PATCHes of an account name the revision read before
 * the run, then the next ones, two PATCHes per revision in the order sent (`islandRevision` counts them).
 */
function newIntent(w: World, rng: Rng, op: Op, n: number, tag: string, islandRevision: (accountId: string) => number): Intent {
  const key = `fr-${tag}-${op}-${String(n).padStart(4, '0')}`;
  const a = rng.pick(w.accounts);
  switch (op) {
    case 'verify-send': {
      const amount = 1 + rng.int(50);
      const selector = n % 2 ? { accountId: a.accountId } : { studioId: a.studioId };
      const body = { ...selector, amount, purpose: 'verify', idempotencyKey: key };
      const sent: Sent = { entry: wallet, method: 'POST', path: '/api/wallet/verify-send-to-account', body, headers: w.admin };
      return { id: key, op, sent, accountId: a.accountId, amount, sourceRef: `verify-send:${key}` };
    }
    case 'grant-coin': {
      const amount = 1 + rng.int(1000);
      const body = { studioId: a.studioId, amount, reason: 'Fault run grant', idempotencyKey: key };
      const sent: Sent = { entry: admin, method: 'POST', path: '/api/admin/grant-coin', body, headers: w.admin };
      return { id: key, op, sent, accountId: a.accountId, amount, sourceRef: `admin-grant:${key}` };
    }
    case 'bag-grant':
    case 'bag-consume': {
      const definitionId = rng.pick([MATERIAL, CONSUMABLE]);
      const quantity = op === 'bag-grant' ? 1 + rng.int(9) : 1 + rng.int(12);
      const body = { studioId: a.studioId, definitionId, quantity, idempotencyKey: key };
      const path = op === 'bag-grant' ? '/api/inventory/grant' : '/api/inventory/consume';
      const sent: Sent = { entry: player, method: 'POST', path, body, headers: w.server };
      const delta = op === 'bag-grant' ? quantity : -quantity;
      return { id: key, op, sent, accountId: a.accountId, definitionId, delta, sourceRef: `${op}:${key}` };
    }
    case 'mint': {
      const definitionId = rng.pick(UNIQUE);
      const body = { definitionId, studioId: a.studioId, idempotencyKey: key };
      return {
        id: key,
        op,
        sent: { entry: player, method: 'POST', path: '/api/uuid', body, headers: w.server },
        accountId: a.accountId,
        definitionId,
      };
    }
    case 'item-event': {
      const item = rng.pick(w.items);
      const kind = pickWeighted(rng, EVENT_KINDS);
      const own = w.characters.filter((c) => c.accountId === item.accountId);
      const others = w.accounts.filter((x) => x.accountId !== item.accountId);
      const characterId = kind === 'assigned' || kind === 'equipped' ? rng.pick(own).id : undefined;
      const body = {
        event: kind,
        idempotencyKey: key,
        ...(characterId ? { characterId } : {}),
        ...(kind === 'transferred' ? { toStudioId: rng.pick(others).studioId } : {}),
      };
      const sent: Sent = { entry: player, method: 'POST', path: `/api/ledger/${item.studioUuid}/events`, body, headers: w.server };
      return { id: key, op, sent, accountId: item.accountId, studioUuid: item.studioUuid, kind, characterId };
    }
    case 'island': {
      const marker = { x: Math.round((-250 + n * 0.5) * 100) / 100, z: 64 - (n % 97) };
      const revision = islandRevision(a.accountId);
      const ifMatch = `"${revision}"`;
      // the player itself, or a game server acting for it (as a merge patch)
      const sent: Sent =
        n % 2
          ? {
              entry: player,
              method: 'PATCH',
              path: '/api/island/state',
              body: { campPosition: marker },
              headers: { ...a.auth, 'If-Match': ifMatch },
            }
          : {
              entry: player,
              method: 'PATCH',
              path: `/api/island/state?studioId=${a.studioId}`,
              body: { campPosition: marker },
              headers: { ...w.server, 'If-Match': ifMatch, 'Content-Type': 'application/merge-patch+json' },
            };
      return { id: key, op, sent, accountId: a.accountId, marker, revision };
    }
    case 'progress': {
      const c = rng.pick(w.characters);
      const body = { idempotencyKey: key, progress: { attributes: { STR: n } } };
      const sent: Sent = {
        entry: player,
        method: 'PATCH',
        path: `/api/characters/${c.id}/progress`,
        body,
        headers: { ...w.server, 'If-Match': PROGRESS_IF_MATCH },
      };
      return { id: key, op, sent, accountId: c.accountId, characterId: c.id, value: n };
    }
  }
}

/** The run: {@link REQUESTS} requests in the order sent, over their distinct intents. */
function planRun(w: World, rng: Rng, tag: string): { intents: Intent[]; order: Intent[] } {
  const shares = (Object.keys(OPS) as Op[]).map((op) => [op, OPS[op].share] as const);
  const intents: Intent[] = [];
  const order: Intent[] = [];
  const byOp = new Map<Op, Intent[]>();
  const islandPatches = new Map<string, number>();
  const islandRevision = (accountId: string) => {
    const k = islandPatches.get(accountId) ?? 0;
    islandPatches.set(accountId, k + 1);
    return w.islandRevision.get(accountId)! + Math.floor(k / 2);
  };
  while (order.length < REQUESTS) {
    const op = pickWeighted(rng, shares);
    const same = byOp.get(op) ?? [];
    // an island PATCH has no key: a second one is a second change, not a duplicate
    if (op !== 'island' && same.length > 0 && rng.next() < DUPLICATE) {
      order.push(rng.pick(same));
      continue;
    }
    const intent = newIntent(w, rng, op, intents.length, tag, islandRevision);
    intents.push(intent);
    byOp.set(op, [...same, intent]);
    order.push(intent);
  }
  return { intents, order };
}

const is2xx = (r: Reply) => r.status >= 200 && r.status < 300;
/** Whether an answer says its request made the effect (not a replay of an earlier one). */
const claimsEffect = (a: Answered) =>
  is2xx(a.reply) &&
  (a.intent.op === 'progress' ? a.reply.headers.get('idempotent-replayed') !== 'true' : a.reply.body?.idempotent === false);
/** What a 2xx answer names as the key's effect (every answer of a key names the same). */
function effectOf(op: Op, body: Record<string, unknown>): string {
  switch (op) {
    case 'verify-send':
    case 'grant-coin':
      return String(body.entryId);
    case 'bag-grant':
    case 'bag-consume': {
      const e = body.entry as BagEntry;
      return `${e.sourceRef} #${e.seq} ${e.delta} -> ${e.quantityAfter}`;
    }
    case 'mint':
      return (body.item as ItemInstance).studioUuid;
    case 'item-event': {
      const e = body.event as ItemEvent;
      return `${e.kind} #${e.seq}`;
    }
    default:
      return '';
  }
}
/** Whether `a` and `b` agree on every one of `fields`. */
const sameFields = <T extends object>(a: T, b: T, fields: readonly (keyof T)[]) => fields.every((f) => a[f] === b[f]);
const sameSpot = (a: unknown, b: { x: number; z: number } | undefined) =>
  b !== undefined && (a as { x?: unknown } | undefined)?.x === b.x && (a as { z?: unknown } | undefined)?.z === b.z;

/**
 * Everything in which the stores differ from the model of the answers (see the file header); empty when
 * they match.
 */
async function modelProblems(
  store: StoreKit['name'],
  w: World,
  intents: readonly Intent[],
  answers: readonly Answered[],
  ledger: LedgerStore,
  players: PlayerStore,
): Promise<string[]> {
  const p: string[] = [];
  const of = new Map<string, Answered[]>();
  for (const a of answers) of.set(a.intent.id, [...(of.get(a.intent.id) ?? []), a]);
  const all = (i: Intent) => of.get(i.id) ?? [];
  const oks = (i: Intent) => all(i).filter((a) => is2xx(a.reply));
  const applied = (i: Intent) => oks(i).length > 0;
  const firstBody = (i: Intent) => oks(i)[0]!.reply.body!;
  const owners = new Map(w.characters.map((c) => [c.id, c.accountId]));

  // every key: at most one answer made the effect, and every 2xx answer names the same one
  for (const i of intents) {
    if (i.op === 'island') continue;
    const claims = all(i).filter(claimsEffect).length;
    if (claims > 1) p.push(`${i.id}: ${claims} answers say they made the effect`);
    const exact = store === 'sqlite' || i.op === 'verify-send' || i.op === 'grant-coin' || i.op === 'mint';
    if (exact && applied(i) && !all(i).some((a) => a.reply.status === 503) && claims !== 1)
      p.push(`${i.id}: applied and never answered 503, but ${claims} answers say they made the effect`);
    if (i.op !== 'progress') {
      const named = new Set(oks(i).map((a) => effectOf(i.op, a.reply.body!)));
      if (named.size > 1) p.push(`${i.id}: its 2xx answers name different effects: ${[...named].join(' | ')}`);
    }
  }

  // credits: one transfer per key, balances the sums of the keys' amounts
  const snapshot = await ledger.snapshot();
  const transfers = new Map<string, (typeof snapshot.transfers)[number][]>();
  for (const t of snapshot.transfers) transfers.set(t.sourceRef, [...(transfers.get(t.sourceRef) ?? []), t]);
  const credits = intents.filter((i) => i.op === 'verify-send' || i.op === 'grant-coin');
  for (const i of credits) {
    const recorded = transfers.get(i.sourceRef!) ?? [];
    if (!applied(i)) p.push(`${i.id}: a credit never answered 2xx, even re-sent after the faults`);
    if (recorded.length !== 1) p.push(`${i.sourceRef}: ${recorded.length} transfers recorded, expected 1`);
    else {
      const t = recorded[0]!;
      if (t.amount !== i.amount || t.accountId !== i.accountId)
        p.push(`${i.sourceRef}: recorded ${JSON.stringify(t)}, asked ${i.amount} to ${i.accountId}`);
      // every answer of the key is the recorded transfer, a replay included
      for (const b of oks(i).map((a) => a.reply.body!))
        if (
          b.entryId !== t.entryId ||
          b.amount !== t.amount ||
          b.balance !== t.balanceAfter ||
          b.at !== t.at ||
          b.sourceRef !== t.sourceRef
        )
          p.push(`${i.sourceRef}: recorded ${JSON.stringify(t)}, answered ${JSON.stringify(b)}`);
    }
  }
  if (snapshot.transfers.length !== credits.length)
    p.push(`the ledger holds ${snapshot.transfers.length} transfers for ${credits.length} credited keys`);
  for (const a of w.accounts) {
    const expected = credits.filter((i) => i.accountId === a.accountId).reduce((s, i) => s + i.amount!, 0);
    const balance = await ledger.balance(a.accountId);
    if (balance !== expected) p.push(`balance of ${a.studioId}: ${balance}, the distinct credited keys sum to ${expected}`);
  }

  // bags: the applied grants and consumptions, each entry once, quantities their sums
  const bags = await players.bagSnapshot();
  const entries = new Map<string, BagEntry[]>();
  for (const e of bags.entries) entries.set(e.sourceRef, [...(entries.get(e.sourceRef) ?? []), e]);
  const expectedRefs = new Set(w.grants.map((g) => g.sourceRef));
  const quantities = new Map<string, number>();
  const add = (accountId: string, definitionId: string, delta: number) =>
    quantities.set(`${accountId} ${definitionId}`, (quantities.get(`${accountId} ${definitionId}`) ?? 0) + delta);
  for (const g of w.grants) add(g.accountId, g.definitionId, g.quantity);
  for (const i of intents.filter((x) => x.op === 'bag-grant' || x.op === 'bag-consume')) {
    const recorded = entries.get(i.sourceRef!) ?? [];
    const done = applied(i);
    if (i.op === 'bag-grant' && !done) p.push(`${i.id}: a grant never answered 2xx, even re-sent after the faults`);
    if (recorded.length !== (done ? 1 : 0))
      p.push(`${i.sourceRef}: ${recorded.length} bag entries, its answers say ${done ? 'once' : 'never'}`);
    if (!done) continue;
    expectedRefs.add(i.sourceRef!);
    add(i.accountId, i.definitionId!, i.delta!);
    const r = recorded[0];
    if (r && (r.delta !== i.delta || r.definitionId !== i.definitionId || r.accountId !== i.accountId))
      p.push(`${i.sourceRef}: recorded ${JSON.stringify(r)}, asked ${i.delta} of ${i.definitionId} to ${i.accountId}`);
    for (const answered of oks(i).map((a) => a.reply.body!.entry as BagEntry))
      if (r && !sameFields(r, answered, ['accountId', 'definitionId', 'seq', 'delta', 'quantityAfter', 'sourceRef', 'at']))
        p.push(`${i.sourceRef}: recorded ${JSON.stringify(r)}, answered ${JSON.stringify(answered)}`);
  }
  for (const e of bags.entries) if (!expectedRefs.has(e.sourceRef)) p.push(`bag entry ${e.sourceRef} of no request answered 2xx`);
  const stacks = new Map(bags.quantities.map((q) => [`${q.accountId} ${q.definitionId}`, q.quantity]));
  for (const k of new Set([...quantities.keys(), ...stacks.keys()]))
    if ((stacks.get(k) ?? 0) !== (quantities.get(k) ?? 0))
      p.push(`stack ${k}: ${stacks.get(k)}, the applied changes sum to ${quantities.get(k)}`);
  for (const v of checkBagInvariants(bags)) p.push(`bag invariant ${v.invariant}: ${v.message}`);

  // mints: one item per key, as minted
  const finalOf = new Map<string, ItemInstance>();
  for (const i of intents.filter((x) => x.op === 'mint')) {
    if (!applied(i)) {
      p.push(`${i.id}: a mint never answered 2xx, even re-sent after the faults`);
      continue;
    }
    const id = (firstBody(i).item as ItemInstance).studioUuid;
    if (finalOf.has(id)) p.push(`${id} answered for two mint keys`);
    const h = await players.itemHistory(id);
    if (!h) {
      p.push(`${i.id}: its item ${id} is not in the store`);
      continue;
    }
    finalOf.set(id, h.item);
    if (
      h.events.length !== 1 ||
      h.events[0]!.kind !== 'minted' ||
      h.item.definitionId !== i.definitionId ||
      h.item.accountId !== i.accountId
    )
      p.push(`${i.id}: item ${JSON.stringify(h.item)} with events ${h.events.map((e) => e.kind).join(', ')}`);
    for (const answered of oks(i).map((a) => a.reply.body!.item as ItemInstance))
      if (!sameFields(h.item, answered, ['studioUuid', 'definitionId', 'accountId', 'state', 'characterId', 'seq', 'mintedAt']))
        p.push(`${i.id}: stored ${JSON.stringify(h.item)}, answered ${JSON.stringify(answered)}`);
  }

  // items of the run's events: the applied events, each once, each allowed from the state before it
  for (const item of w.items) {
    const h = await players.itemHistory(item.studioUuid);
    if (!h) {
      p.push(`item ${item.studioUuid} is not in the store`);
      continue;
    }
    finalOf.set(item.studioUuid, h.item);
    const bySeq = new Map<number, Intent>();
    for (const i of intents.filter((x) => x.op === 'item-event' && x.studioUuid === item.studioUuid && applied(x))) {
      const seq = (firstBody(i).event as ItemEvent).seq;
      const other = bySeq.get(seq);
      if (other) p.push(`${item.studioUuid}: event ${seq} answered for ${other.id} and ${i.id}`);
      bySeq.set(seq, i);
      const stored = h.events[seq - 1];
      if (stored?.kind !== i.kind) p.push(`${item.studioUuid}: event ${seq} is ${stored?.kind}; ${i.id} answered ${i.kind}`);
      // every answer of the key is the recorded event, a replay included
      for (const answered of oks(i).map((a) => a.reply.body!.event as ItemEvent))
        if (stored && !sameFields(stored, answered, ['studioUuid', 'seq', 'kind', 'accountId', 'characterId', 'at']))
          p.push(`${item.studioUuid}: event ${seq} is ${JSON.stringify(stored)}; ${i.id} answered ${JSON.stringify(answered)}`);
    }
    if (h.events.length !== 1 + bySeq.size)
      p.push(`${item.studioUuid}: ${h.events.length - 1} events after minting; ${bySeq.size} keys answered 2xx`);
    let state: ItemState = 'owned';
    let owner = item.accountId;
    h.events.forEach((e, index) => {
      if (e.seq !== index + 1) p.push(`${item.studioUuid}: event ${index + 1} has seq ${e.seq}`);
      if (index === 0) {
        if (e.kind !== 'minted' || e.accountId !== item.accountId) p.push(`${item.studioUuid}: first event ${JSON.stringify(e)}`);
        return;
      }
      const t = ITEM_TRANSITIONS[e.kind as Exclude<ItemEventKind, 'minted'>] as (typeof ITEM_TRANSITIONS)['assigned'] | undefined;
      if (!t || !t.from.includes(state)) p.push(`${item.studioUuid}: event ${e.seq} ${e.kind} recorded in state ${state}`);
      if (e.kind === 'transferred' ? e.accountId === owner : e.accountId !== owner)
        p.push(`${item.studioUuid}: event ${e.seq} ${e.kind} leaves it to ${e.accountId}, owned by ${owner} before`);
      const onCharacter = e.kind === 'assigned' || e.kind === 'equipped';
      if (onCharacter ? owners.get(e.characterId ?? '') !== e.accountId : e.characterId !== null)
        p.push(
          `${item.studioUuid}: event ${e.seq} ${e.kind} puts it on character ${e.characterId} of ${owners.get(e.characterId ?? '')}, owner ${e.accountId}`,
        );
      state = t?.to ?? state;
      owner = e.accountId;
    });
    const last = h.events[h.events.length - 1]!;
    if (h.item.state !== state || h.item.accountId !== owner || h.item.characterId !== last.characterId || h.item.seq !== h.events.length)
      p.push(
        `${item.studioUuid}: stands ${JSON.stringify(h.item)}; its history ends ${state}, owner ${owner}, after ${h.events.length} events`,
      );
  }
  for (const a of w.accounts) {
    const held = (await players.accountItems(a.accountId)).map((i) => i.studioUuid).sort();
    const expected = [...finalOf.values()]
      .filter((i) => i.accountId === a.accountId && i.state !== 'consumed' && i.state !== 'destroyed')
      .map((i) => i.studioUuid)
      .sort();
    if (JSON.stringify(held) !== JSON.stringify(expected))
      p.push(`items of ${a.studioId}: ${held.join(', ')}; expected ${expected.join(', ')}`);
  }

  // islands: each save went from the revision a PATCH named to the next, so every revision from the one
  // read before the run to the island's was made by exactly one PATCH naming the one before it
  for (const a of w.accounts) {
    const r0 = w.islandRevision.get(a.accountId)!;
    const mine = intents.filter((i) => i.op === 'island' && i.accountId === a.accountId);
    if (mine.length === 0) continue;
    const doc = await players.island(a.accountId, () => {
      throw new Error(`the island of ${a.studioId} is gone`);
    });
    const at = doc.revision;
    const island = `island of ${a.studioId} (revision ${at})`;
    const answered = (i: Intent, status: number) => all(i).some((x) => x.reply.status === status);
    for (const i of mine)
      for (const x of all(i)) {
        const b = x.reply.body!;
        // a save answers the revision it made with its change; a save sent again after later saves followed
        // it (its first answer lost) answers the island as it stands, a later revision that holds its change
        const made = b.revision === i.revision! + 1 && sameSpot((b.state as { campPosition?: unknown }).campPosition, i.marker);
        const superseded = typeof b.revision === 'number' && b.revision > i.revision! + 1 && b.revision <= at;
        if (x.reply.status === 200 && !made && !superseded)
          p.push(`${island}: ${i.id} over ${i.revision} answered 200 with revision ${String(b.revision)}`);
        const tag = Number(/^"(\d+)"$/.exec(x.reply.headers.get('etag') ?? '')?.[1] ?? NaN);
        if (x.reply.status === 412 && (tag === i.revision || !(tag >= r0 && tag <= at)))
          p.push(`${island}: ${i.id} over ${i.revision} refused 412 with ETag ${x.reply.headers.get('etag')}`);
      }
    const top = Math.max(at, ...mine.map((i) => i.revision! + 1));
    for (let r = r0; r < top; r++) {
      const naming = mine.filter((i) => i.revision === r);
      const saved = naming.filter((i) => answered(i, 200));
      if (r >= at && saved.length > 0) p.push(`${island}: ${saved.map((i) => i.id).join(', ')} over ${r} answered 200`);
      if (r >= at) continue;
      if (saved.length > 1) p.push(`${island}: ${saved.length} PATCHes over revision ${r} answered 200`);
      if (saved.length === 0 && !naming.some((i) => answered(i, 503)))
        p.push(
          `${island}: revision ${r + 1} was saved by no PATCH answered 200 or 503; the PATCHes over ${r} were answered ` +
            naming
              .map(
                (i) =>
                  `${i.id} ${all(i)
                    .map((x) => x.reply.status)
                    .join('/')}`,
              )
              .join(', '),
        );
    }
    if (at < r0) p.push(`${island}: below ${r0}, read before the run`);
    const last = mine.filter((i) => i.revision === at - 1);
    const makers = last.some((i) => answered(i, 200)) ? last.filter((i) => answered(i, 200)) : last.filter((i) => answered(i, 503));
    if (at > r0 && !makers.some((i) => sameSpot(doc.state.campPosition, i.marker)))
      p.push(`${island}: holds ${JSON.stringify(doc.state.campPosition)}, not the change of the PATCH that saved it`);
  }

  // progress: one revision per applied key, the last save's value in place
  for (const c of w.characters) {
    const mine = intents.filter((i) => i.op === 'progress' && i.characterId === c.id);
    const ch = await players.character(c.accountId, c.id);
    if (!ch) {
      p.push(`character ${c.id} is not in the store`);
      continue;
    }
    const done = mine.filter(applied);
    if (ch.progressRevision !== 1 + done.length)
      p.push(
        `character ${c.id}: progress_revision ${ch.progressRevision} after ${done.length} keys answered 2xx; expected ${1 + done.length}`,
      );
    const byRevision = new Map<number, Intent>();
    for (const i of done)
      for (const x of all(i).filter(claimsEffect)) {
        const b = x.reply.body!;
        const revision = b.progress_revision as number;
        const other = byRevision.get(revision);
        if (other && other !== i) p.push(`character ${c.id}: revision ${revision} answered as saved by ${other.id} and ${i.id}`);
        byRevision.set(revision, i);
        if (revision < 2 || revision > ch.progressRevision) p.push(`character ${c.id}: ${i.id} answered revision ${revision}`);
        if ((b.attributes as Record<string, unknown>).STR !== i.value)
          p.push(`${i.id}: answered STR ${String((b.attributes as Record<string, unknown>).STR)}`);
      }
    const str = ch.progress.attributes.STR;
    const last = byRevision.get(ch.progressRevision);
    if (done.length > 0 && (last ? str !== last.value : !done.some((i) => i.value === str)))
      p.push(`character ${c.id}: STR ${str} at revision ${ch.progressRevision}, not the value of the save that made it`);
    for (const x of mine.flatMap(all))
      if (x.reply.status === 412 && !/^"\d+"$/.test(x.reply.headers.get('etag') ?? ''))
        p.push(`${x.intent.id}: a 412 without the current ETag`);
  }
  return p;
}

/**
 * Everything in which the audit log differs from the answers and the stores (docs/architecture.md, "Audit
 * log"): every audited request (all but a player's own island PATCH) has exactly one record, or none when
 * it was answered 503 and its store could not be reached for the record either; a record's status is its
 * answer's, unless the answer was a 503 or the change's answer was lost and its retry answered as a
 * replay; and every key that took effect has exactly one record saying it changed something, a key that
 * never did none.
 */
async function auditProblems(intents: readonly Intent[], answers: readonly Answered[]): Promise<string[]> {
  const p: string[] = [];
  const log = await auditLog();
  const records: AuditRecord[] = [];
  let after: AuditPosition | undefined;
  do {
    const page = await log.list({ limit: 200, after });
    records.push(...page.records);
    after = page.next;
  } while (after);
  const byRequest = new Map<string, AuditRecord[]>();
  for (const r of records) byRequest.set(r.requestId, [...(byRequest.get(r.requestId) ?? []), r]);
  const audited = (a: Answered) => a.intent.op !== 'island' || a.intent.sent.path.includes('studioId=');
  const recordsOf = (a: Answered) => byRequest.get(a.reply.headers.get('x-request-id') ?? '') ?? [];
  for (const a of answers) {
    const mine = recordsOf(a);
    if (!audited(a)) {
      if (mine.length > 0) p.push(`${a.intent.id}: a player's own write has ${mine.length} records`);
      continue;
    }
    if (mine.length > 1) p.push(`${a.intent.id}: ${mine.length} records of one request`);
    if (mine.length === 0 && a.reply.status !== 503) p.push(`${a.intent.id}: answered ${a.reply.status} without a record`);
    // a 503 may follow a record: a change made with its record whose answer was lost, or an answer whose
    // record was appended but the append's own answer lost; a change retried after its lost answer may be
    // answered as a replay (200) by a store that cannot tell its own retry, its record saying the change
    const r = mine[0];
    const retried = r?.changed === true && a.reply.status >= 200 && a.reply.status < 300;
    if (r && a.reply.status !== 503 && r.status !== a.reply.status && !retried)
      p.push(`${a.intent.id}: answered ${a.reply.status}, recorded ${r.status}`);
  }
  const of = new Map<string, Answered[]>();
  for (const a of answers) of.set(a.intent.id, [...(of.get(a.intent.id) ?? []), a]);
  for (const i of intents) {
    if (i.op === 'island') continue;
    const mine = of.get(i.id) ?? [];
    const applied = mine.some((a) => a.reply.status >= 200 && a.reply.status < 300);
    const changes = mine.flatMap(recordsOf).filter((r) => r.changed === true);
    if (changes.length !== (applied ? 1 : 0))
      p.push(
        `${i.id}: ${changes.length} records say they changed something; the key ${applied ? 'took effect once' : 'never took effect'}`,
      );
    for (const r of changes) if (r.idempotencyKey !== i.id) p.push(`${i.id}: its change is recorded under key ${r.idempotencyKey}`);
  }
  return p;
}

/** `npm run ledger:verify` in-process: its exit code and what it printed. */
async function verify(env: Record<string, string>): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await ledgerVerify({ out: (t) => void (out += t), err: (t) => void (err += t), env });
  return { code, out, err };
}

describe.each([sqliteKit(), redisKit()])('fault run of 1,000 concurrent mixed requests: $name', (kit) => {
  let env: Record<string, string> = {};
  let world: World;
  let intents: Intent[] = [];
  const answers: Answered[] = [];
  const logLines: string[] = [];
  const serverErrors = () =>
    logLines
      .filter((l) => l.includes('"status":5') && !l.includes('"status":503'))
      .slice(0, 5)
      .join('\n');

  beforeAll(async () => {
    useLogSink((line, level) => {
      if (level !== 'info') logLines.push(line);
    });
    env = { ...(await kit.setup()), JWT_SECRET: SECRET, CATALOG_DIR: SAMPLE_OUT };
    const config = useGameConfig(env);
    await kit.beforeRequests();
    world = await buildWorld(config, kit.name);
  }, 60_000);
  afterAll(async () => {
    useLogSink(undefined);
    useServiceConfig(undefined);
    await kit.teardown();
  });

  it('answers every request under the faults with its documented body, a documented refusal, or 503 as the only 5xx', async () => {
    const planned = planRun(world, createRng(kit.seed), kit.name);
    intents = planned.intents;
    expect(planned.order).toHaveLength(REQUESTS);
    await kit.arm();
    const inflight: Promise<Answered>[] = [];
    for (let i = 0; i < planned.order.length; i++) {
      const intent = planned.order[i]!;
      inflight.push(send(intent.sent).then((reply) => ({ intent, reply, phase: 'run' as const })));
      if (i % 25 === 24) await sleep(2);
      if (i % 250 === 249 && i < REQUESTS - 1) await kit.midRun();
    }
    const run = await Promise.all(inflight);
    await kit.disarm();
    answers.push(...run);
    const problems = run.flatMap((a) => replyProblems(a.reply, OPS[a.intent.op]).map((x) => `${a.intent.id}: ${x}`));
    expect(problems, serverErrors()).toEqual([]);
    expect(run.filter((a) => a.reply.status === 503).length).toBeGreaterThan(0);
    kit.expectFaultsInjected(logLines);
  }, 120_000);

  it("re-sent after the faults stop, every 503'd request takes effect at most once in all: the stores are the model of the answers", async () => {
    const refused = answers.filter((a) => a.phase === 'run' && a.reply.status === 503);
    const again = await Promise.all(
      refused.map(async (a) => ({ intent: a.intent, reply: await send(a.intent.sent), phase: 'resend' as const })),
    );
    answers.push(...again);
    const problems = again.flatMap((a) => {
      const rule = OPS[a.intent.op];
      return replyProblems(a.reply, { ...rule, allowed: rule.allowed.filter((s) => s !== 503) }).map(
        (x) => `${a.intent.id} (re-sent): ${x}`,
      );
    });
    expect(problems, serverErrors()).toEqual([]);
    const ledger = await ledgerStore();
    const players = await playerStore();
    expect.soft(await modelProblems(kit.name, world, intents, answers, ledger, players)).toEqual([]);
    expect.soft(await auditProblems(intents, answers)).toEqual([]);
    await expectSound(ledger);
    expect(checkBagInvariants(await players.bagSnapshot())).toEqual([]);
    const verified = await verify(env);
    expect([verified.code, verified.err]).toEqual([0, '']);
    expect(verified.out).toMatch(/ledger is sound/);
  }, 120_000);

  it('keeps the model, the ledger and bag invariants after the store restarts, and ledger:verify passes', async () => {
    useServiceConfig(undefined);
    const { ledger, players } = await kit.restart();
    expect.soft(await modelProblems(kit.name, world, intents, answers, ledger, players)).toEqual([]);
    await expectSound(ledger);
    expect(checkBagInvariants(await players.bagSnapshot())).toEqual([]);
    const verified = await verify(env);
    expect([verified.code, verified.err]).toEqual([0, '']);
    expect(verified.out).toMatch(/ledger is sound/);
  }, 120_000);
});
