/**
 * The account bag through the player entry (spec 2.6, 2.8, 4.8): the owner reads it (stackables as
 * quantities, unique items by studio_uuid); only game servers grant and consume, once per idempotency
 * key; a consumption beyond the quantity held is a 409 and changes nothing; the bag is never put on a
 * character; and the invariant checker names each way a bag record can be broken.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import type { EntryExports } from '../../api/_lib/http/entry.js';
import { checkBagInvariants } from '../../api/_lib/player/bag.js';
import { playerStore } from '../../api/_lib/player/store.js';
import type { BagEntry } from '../../api/_lib/player/types.js';
import * as playerEntry from '../../api/player.js';
import { SAMPLE_OUT } from '../helpers/catalog.js';
import { call, gameApiSuite, newPlayer, responseErrors, tokenFor } from '../helpers/game-api.js';

const player = playerEntry as unknown as EntryExports;
let server: Record<string, string>;
const out = (f: string) =>
  JSON.parse(readFileSync(join(SAMPLE_OUT, 'api/v1', f), 'utf8')) as Record<string, { uuid: string; kind?: string }[]>;
const MATERIAL = out('master-materials.json').materials![0]!.uuid;
const CONSUMABLE = out('canonical-items-manifest.json').items!.find((i) => i.kind === 'consumable')!.uuid;
const UNIQUE = out('canonical-items-manifest.json').items!.find((i) => i.uuid.startsWith('ITEM-'))!.uuid;
const suite = gameApiSuite();
beforeEach(async () => {
  server = { Authorization: `Bearer ${await tokenFor(suite.config, 'STUDIO_GAMESERVER', 'server')}` };
});

const grant = (body: unknown, headers = server) => call(player, 'POST', '/api/inventory/grant', { body, headers });
const consume = (body: unknown, headers = server) => call(player, 'POST', '/api/inventory/consume', { body, headers });
const sound = async () => expect(checkBagInvariants(await (await playerStore()).bagSnapshot())).toEqual([]);

describe('GET /api/inventory and the grant and consume routes', () => {
  it("reads the owner's bag with the owner's token only; grants and consumptions need a game server", async () => {
    const p = await newPlayer(suite.config);
    expect((await call(player, 'GET', '/api/inventory')).status).toBe(401);
    expect(
      (
        await call(player, 'GET', '/api/inventory', {
          headers: { Authorization: `Bearer ${await tokenFor(suite.config, p.studioId, 'player', { guest: true })}` },
        })
      ).status,
    ).toBe(401);
    const body = { studioId: p.studioId, definitionId: MATERIAL, quantity: 5, idempotencyKey: 'auth-grant-01' };
    expect((await grant(body, {})).status).toBe(401);
    expect((await grant(body, p.auth)).status).toBe(403);
    expect((await consume(body, p.auth)).status).toBe(403);
    const empty = await call(player, 'GET', '/api/inventory', { headers: p.auth });
    expect(empty.body).toEqual({ stackables: [], uniqueItems: [] });
  });

  it('grants stackables once per key, consumes them, refuses going below zero, and shows unique items beside them', async () => {
    const p = await newPlayer(suite.config);
    const first = await grant({ studioId: p.studioId, definitionId: MATERIAL, quantity: 5, idempotencyKey: 'grant-mat-01' });
    expect(first.status).toBe(201);
    expect(responseErrors('bag-change', first.body)).toEqual([]);
    const again = await grant({ accountId: p.accountId, definitionId: MATERIAL, quantity: 5, idempotencyKey: 'grant-mat-01' });
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual({ ...first.body, idempotent: true });
    const reused = await grant({ studioId: p.studioId, definitionId: MATERIAL, quantity: 6, idempotencyKey: 'grant-mat-01' });
    expect([reused.status, reused.body.detail]).toEqual([
      422,
      'This idempotency key already granted another amount, definition or account; use a new key.',
    ]);
    await grant({ studioId: p.studioId, definitionId: CONSUMABLE, quantity: 2, idempotencyKey: 'grant-food-01' });
    const over = await consume({ studioId: p.studioId, definitionId: MATERIAL, quantity: 6, idempotencyKey: 'eat-mat-01' });
    expect(over.status).toBe(409);
    expect(String(over.body.detail)).toMatch(/holds 5/);
    const used = await consume({ studioId: p.studioId, definitionId: MATERIAL, quantity: 2, idempotencyKey: 'eat-mat-02' });
    expect(used.body).toMatchObject({ quantity: 3, entry: { delta: -2, sourceRef: 'bag-consume:eat-mat-02' } });
    const reusedConsume = await consume({ studioId: p.studioId, definitionId: MATERIAL, quantity: 1, idempotencyKey: 'eat-mat-02' });
    expect([reusedConsume.status, reusedConsume.body.detail]).toEqual([
      422,
      'This idempotency key already consumed another amount, definition or account; use a new key.',
    ]);
    const minted = await call(player, 'POST', '/api/uuid', {
      body: { definitionId: UNIQUE, studioId: p.studioId, idempotencyKey: 'bag-mint-01' },
      headers: server,
    });
    const bag = await call(player, 'GET', '/api/inventory', { headers: p.auth });
    expect(responseErrors('inventory', bag.body)).toEqual([]);
    expect(bag.body.stackables).toEqual([
      ...[
        { definitionId: MATERIAL, quantity: 3 },
        { definitionId: CONSUMABLE, quantity: 2 },
      ].sort((a, b) => (a.definitionId < b.definitionId ? -1 : 1)),
    ]);
    expect((bag.body.uniqueItems as { studioUuid: string }[]).map((i) => i.studioUuid)).toEqual([
      (minted.body.item as { studioUuid: string }).studioUuid,
    ]);
    await sound();
  });

  it('lets exactly the quantity held through concurrent consumptions, and every other request changes nothing', async () => {
    const p = await newPlayer(suite.config);
    await grant({ studioId: p.studioId, definitionId: MATERIAL, quantity: 4, idempotencyKey: 'race-stock-01' });
    const outs = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        consume({ studioId: p.studioId, definitionId: MATERIAL, quantity: 1, idempotencyKey: `race-take-${i}0` }),
      ),
    );
    expect(outs.filter((o) => o.status === 201)).toHaveLength(4);
    expect(outs.filter((o) => o.status === 409)).toHaveLength(6);
    await sound();
  });

  it('refuses unique items, unknown definitions, characters and bad amounts, all at once, writing nothing', async () => {
    const p = await newPlayer(suite.config);
    const r = await grant({
      studioId: p.studioId,
      accountId: p.accountId,
      definitionId: UNIQUE,
      quantity: 0,
      idempotencyKey: 'x',
      characterId: 'c',
    });
    expect(r.status).toBe(400);
    const names = new Set(r.body.errors!.map((e) => e.name));
    for (const n of ['/definitionId', '/quantity', '/idempotencyKey', '/characterId']) expect(names).toContain(n);
    expect(
      (
        await grant({
          studioId: p.studioId,
          definitionId: 'MATL-20990101000000-000000-00000000',
          quantity: 1,
          idempotencyKey: 'unknown-mat-1',
        })
      ).status,
    ).toBe(400);
    expect((await grant({ studioId: 'STUDIO_NOBODY', definitionId: MATERIAL, quantity: 1, idempotencyKey: 'nobody-mat-1' })).status).toBe(
      404,
    );
    expect((await grant({ studioId: p.studioId, definitionId: MATERIAL, quantity: 1_000_001, idempotencyKey: 'huge-mat-01' })).status).toBe(
      400,
    );
    expect((await call(player, 'GET', '/api/inventory', { headers: p.auth })).body).toEqual({ stackables: [], uniqueItems: [] });
  });
});

describe('checkBagInvariants', () => {
  const e = (over: Partial<BagEntry>): BagEntry => ({
    accountId: 'a',
    definitionId: 'MATL-1',
    seq: 1,
    delta: 5,
    quantityAfter: 5,
    sourceRef: 'bag-grant:k1',
    at: 't',
    ...over,
  });

  it('holds for a sound record and names each way it can break', () => {
    const good = {
      quantities: [{ accountId: 'a', definitionId: 'MATL-1', quantity: 3 }],
      entries: [e({}), e({ seq: 2, delta: -2, quantityAfter: 3, sourceRef: 'bag-consume:k2' })],
    };
    expect(checkBagInvariants(good)).toEqual([]);
    const kinds = (s: Parameters<typeof checkBagInvariants>[0]) => checkBagInvariants(s).map((v) => v.invariant);
    expect(kinds({ ...good, quantities: [{ accountId: 'a', definitionId: 'MATL-1', quantity: 4 }] })).toEqual(['quantity-is-sum']);
    expect(kinds({ ...good, quantities: [] })).toEqual(['quantity-is-sum']);
    expect(kinds({ quantities: [{ accountId: 'a', definitionId: 'MATL-2', quantity: 1 }], entries: [] })).toEqual(['quantity-is-sum']);
    expect(kinds({ ...good, entries: [e({}), e({ seq: 3, delta: -2, quantityAfter: 3, sourceRef: 'bag-consume:k2' })] })).toEqual([
      'entries-contiguous',
    ]);
    expect(kinds({ ...good, entries: [e({}), e({ seq: 2, delta: -2, quantityAfter: 4, sourceRef: 'bag-consume:k2' })] })).toEqual([
      'running-sum',
    ]);
    expect(
      kinds({ quantities: [{ accountId: 'a', definitionId: 'MATL-1', quantity: -1 }], entries: [e({ delta: -1, quantityAfter: -1 })] }),
    ).toEqual(['running-sum']);
    expect(kinds({ ...good, entries: [e({}), e({ seq: 2, delta: -2, quantityAfter: 3, sourceRef: 'bag-grant:k1' })] })).toEqual([
      'source-ref-unique',
    ]);
  });
});
