/**
 * An item event is checked against the owner and the character it validated inside the same atomic write
 * (spec 2.6; `PlayerStore.recordItemEvent`, `api/_lib/player/items.ts`), on both stores: a transfer that
 * lands between an equip's checks and its write makes the equip check the item anew (and refuse it, the
 * character being no longer the owner's), so an item is never owned by one account and equipped on
 * another's character. The interleaving is forced, not hoped for: the equip's write waits for the transfer
 * to finish. A retried transfer (same key, same body) answers its first result, not "already belongs".
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useServiceConfig } from '../../api/_lib/config.js';
import { mintUuid } from '../../api/_lib/ledger/ids.js';
import type { Account, LedgerStore } from '../../api/_lib/ledger/types.js';
import { mintItem, recordItemEvent } from '../../api/_lib/player/items.js';
import type { ItemEventRequest, PlayerStore } from '../../api/_lib/player/types.js';
import { ServiceError } from '../../api/_lib/errors.js';
import { onBackend, redisBackend, sqliteBackend, type Backend } from '../helpers/backends.js';
import { openRedisLedgerOn, openSqliteLedgerOn } from '../helpers/ledger.js';
import { addAccount, newAccount } from '../helpers/ledger-ops.js';
import { openRedisPlayerOn, openSqlitePlayerOn, sampleCharacter, withMethods } from '../helpers/player.js';
import { useGameConfig } from '../helpers/game-api.js';
import { SAMPLE_OUT } from '../helpers/catalog.js';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const manifest = JSON.parse(readFileSync(join(SAMPLE_OUT, 'api/v1/canonical-items-manifest.json'), 'utf8')) as {
  items: { uuid: string; kind: string }[];
};
const DEFINITION = manifest.items.find((i) => i.uuid.startsWith('ITEM-') && i.kind !== 'consumable')!.uuid;

const backends: [
  string,
  () => Backend,
  typeof openSqliteLedgerOn | typeof openRedisLedgerOn,
  typeof openSqlitePlayerOn | typeof openRedisPlayerOn,
][] = [
  ['sqlite', sqliteBackend, openSqliteLedgerOn, openSqlitePlayerOn],
  ['redis', () => redisBackend(), openRedisLedgerOn, openRedisPlayerOn],
];

describe.each(backends)('item events checked in the write: %s', (_name, backend, openLedger, openPlayers) => {
  const b = backend();
  const ledgers = onBackend(b, openLedger);
  let ledger: LedgerStore;
  let store: PlayerStore;
  beforeAll(async () => {
    await b.setup();
    useGameConfig({});
    const target = await b.fresh();
    ledger = await openLedger(target);
    store = await openPlayers(target);
  }, 30_000);
  afterAll(async () => {
    await ledger?.close();
    await store?.close();
    useServiceConfig(undefined);
    await ledgers.teardown();
  });

  async function characterOf(account: Account): Promise<string> {
    const at = '2026-11-24T08:00:00.000Z';
    const character = sampleCharacter(account.accountId, { name: 'Hero', createdAt: at, updatedAt: at });
    await store.createCharacter({
      character,
      slotsPerEra: 4,
      clientKey: undefined,
      fingerprint: 'f',
    });
    return character.id;
  }

  it("refuses an equip whose checks a transfer overtook: never owned by one account and equipped on another's character", async () => {
    const ada = await addAccount(ledger, newAccount({ displayName: 'Ada' }));
    const bo = await addAccount(ledger, newAccount({ displayName: 'Bo' }));
    const hero = await characterOf(ada);
    const minted = await mintItem(store, ledger, {
      definitionId: DEFINITION,
      studioId: ada.studioId,
      idempotencyKey: `race-mint-${mintUuid()}`,
    });
    const id = minted.item.studioUuid;
    // the equip's write waits until the transfer is done, after the equip checked owner and character
    let transferred: Promise<unknown> | undefined;
    const racing = withMethods(store, {
      recordItemEvent: async (request: ItemEventRequest) => {
        if (request.kind === 'equipped' && !transferred) {
          transferred = recordItemEvent(store, ledger, id, {
            event: 'transferred',
            toStudioId: bo.studioId,
            idempotencyKey: 'race-move-0001',
          });
          await transferred;
        }
        return store.recordItemEvent(request);
      },
    });
    const equip = await recordItemEvent(racing, ledger, id, {
      event: 'equipped',
      characterId: hero,
      idempotencyKey: 'race-equip-0001',
    }).catch((e: unknown) => e);
    expect(transferred).toBeDefined();
    expect(equip).toBeInstanceOf(ServiceError);
    expect([(equip as ServiceError).code, (equip as ServiceError).errors]).toEqual([
      'INVALID_BODY',
      [{ name: '/characterId', message: "Not a character of the item's owner." }],
    ]);
    const history = await store.itemHistory(id);
    expect(history!.item).toMatchObject({ accountId: bo.accountId, state: 'owned', characterId: null, seq: 2 });
    expect(history!.events.map((e) => e.kind)).toEqual(['minted', 'transferred']);
  });

  it('answers a retried transfer (same key, same body) with its first result, whatever the owner is now', async () => {
    const ada = await addAccount(ledger, newAccount({ displayName: 'Ada' }));
    const bo = await addAccount(ledger, newAccount({ displayName: 'Bo' }));
    const minted = await mintItem(store, ledger, {
      definitionId: DEFINITION,
      studioId: ada.studioId,
      idempotencyKey: `retry-mint-${mintUuid()}`,
    });
    const id = minted.item.studioUuid;
    const body = { event: 'transferred' as const, toStudioId: bo.studioId, idempotencyKey: 'retry-move-0001' };
    const first = await recordItemEvent(store, ledger, id, body);
    const again = await recordItemEvent(store, ledger, id, body);
    expect(again).toEqual({ ...first, idempotent: true });
    // another body under the key is still a reuse, and a new key to the same owner still a 400
    await expect(recordItemEvent(store, ledger, id, { ...body, toStudioId: ada.studioId })).rejects.toMatchObject({
      code: 'IDEMPOTENCY_KEY_REUSED',
    });
    await expect(recordItemEvent(store, ledger, id, { ...body, idempotencyKey: 'retry-move-0002' })).rejects.toMatchObject({
      code: 'INVALID_BODY',
    });
  });

  it('gives up after three moves with a 409 that says to read the item again', async () => {
    const ada = await addAccount(ledger, newAccount({ displayName: 'Ada' }));
    const minted = await mintItem(store, ledger, {
      definitionId: DEFINITION,
      studioId: ada.studioId,
      idempotencyKey: `moving-mint-${mintUuid()}`,
    });
    let writes = 0;
    const moving = withMethods(store, {
      recordItemEvent: () => {
        writes++;
        return Promise.resolve({ status: 'moved' as const });
      },
    });
    await expect(
      recordItemEvent(moving, ledger, minted.item.studioUuid, { event: 'consumed', idempotencyKey: 'moving-0001' }),
    ).rejects.toMatchObject({
      code: 'CONFLICT',
      message: 'The item kept changing hands while this event was checked; read it again and resend.',
    });
    expect(writes).toBe(3);
  });
});
