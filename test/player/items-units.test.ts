/**
 * The item service called directly (spec 2.6, 4.8; `api/_lib/player/items.ts`), over SQLite stores and
 * the sample catalog: which manifest entries are unique-item definitions, every refusal with its code,
 * sentence and named field (the account selector a 404 names, the transfer target a 400 names), what a
 * replayed key is compared on, and the answers for outcomes a store gives only under races or faults
 * (an owner that cannot be read, an item that vanished between read and write).
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { mintUuid } from '../../api/_lib/ledger/ids.js';
import type { Account, LedgerStore } from '../../api/_lib/ledger/types.js';
import { ITEM_TRANSITIONS, itemDefinitions, itemHistory, mintItem, recordItemEvent, voidItem } from '../../api/_lib/player/items.js';
import { EMPTY_PROGRESS, studioCodeOf } from '../../api/_lib/player/service.js';
import type { ItemEventOutcome, PlayerStore } from '../../api/_lib/player/types.js';
import { SAMPLE_OUT } from '../helpers/catalog.js';
import { useGameConfig } from '../helpers/game-api.js';
import { addAccount, newAccount, refusal } from '../helpers/ledger-ops.js';
import { twoAccountsEachTest, withMethods } from '../helpers/player.js';

const manifest = JSON.parse(readFileSync(join(SAMPLE_OUT, 'api/v1/canonical-items-manifest.json'), 'utf8')) as {
  items: { uuid: string; kind: string }[];
};
const DEFINITION = manifest.items.find((i) => i.uuid.startsWith('ITEM-') && i.kind !== 'consumable')!.uuid;
const clock = () => new Date('2026-11-24T09:00:00.000Z');

let ledger: LedgerStore;
let store: PlayerStore;
let ada: Account;
let bo: Account;
twoAccountsEachTest((v) => ({ ledger, store, ada, bo } = v));

const mint = (fields: Record<string, string> = {}) =>
  mintItem(store, ledger, { definitionId: DEFINITION, studioId: ada.studioId, idempotencyKey: `mint-${mintUuid()}`, ...fields }, clock);

/** A character of `account` in the store. */
async function characterOf(account: Account): Promise<string> {
  const id = mintUuid();
  const at = '2026-11-24T08:00:00.000Z';
  const character = {
    id,
    studioCode: studioCodeOf(id),
    accountId: account.accountId,
    era: 'warlords' as const,
    name: 'Ada',
    classId: 'c',
    raceId: 'r',
    factionId: 'f',
    createdAt: at,
    progress: EMPTY_PROGRESS,
    progressRevision: 1,
    updatedAt: at,
  };
  await store.createCharacter({ character, slotsPerEra: 4, clientKey: undefined, fingerprint: 'f' });
  return id;
}

describe('item definitions', () => {
  let dir = '';
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  it('are the ITEM-* entries that are not consumables; consumables of any prefix are bag quantities; other entries are neither', async () => {
    dir = mkdtempSync(join(tmpdir(), 'item-defs-'));
    mkdirSync(join(dir, 'api/v1'), { recursive: true });
    const items = [
      { uuid: 'ITEM-SWORD0001', kind: 'weapon' },
      { uuid: 'ITEM-TONIC0001', kind: 'consumable' },
      { uuid: 'FOOD-BREAD0001', kind: 'consumable' },
      { uuid: 'MATL-IRON0001', kind: 'material' },
      { uuid: 'xITEM-0001', kind: 'weapon' },
      { uuid: 7, kind: 'weapon' },
      { kind: 'consumable' },
    ];
    writeFileSync(join(dir, 'api/v1/canonical-items-manifest.json'), JSON.stringify({ items }));
    useGameConfig({ CATALOG_DIR: dir });
    const defs = await itemDefinitions();
    expect([...defs.unique]).toEqual(['ITEM-SWORD0001']);
    expect([...defs.consumables]).toEqual(['ITEM-TONIC0001', 'FOOD-BREAD0001']);
  });

  it('on the sample catalog: every ITEM-* weapon or armor is a unique-item definition', async () => {
    const defs = await itemDefinitions();
    expect(defs.unique.has(DEFINITION)).toBe(true);
    expect([...defs.unique].every((id) => id.startsWith('ITEM-'))).toBe(true);
  });
});

describe('mintItem', () => {
  it('refuses anything but a unique-item definition, quoting at most 80 characters of it', async () => {
    const long = `MATL-${'X'.repeat(120)}`;
    const e = await refusal(mint({ definitionId: long }));
    expect(e.code).toBe('INVALID_BODY');
    expect(e.message).toBe(`${long.slice(0, 80)} is not a unique-item definition of the catalog.`);
    expect(e.errors).toEqual([
      {
        name: '/definitionId',
        message:
          'Must be an ITEM-* definition of canonical-items-manifest.json that is not a consumable (stackables are bag quantities, not instances).',
      },
    ]);
  });

  it('names the selector that matched no account', async () => {
    const byStudio = await refusal(mint({ studioId: 'STUDIO_NOBODY00' }));
    expect([byStudio.code, byStudio.message]).toEqual(['NOT_FOUND', 'No account has this studioId.']);
    const byAccount = await refusal(
      mintItem(store, ledger, { definitionId: DEFINITION, accountId: mintUuid(), idempotencyKey: 'mint-by-account' }, clock),
    );
    expect([byAccount.code, byAccount.message]).toEqual(['NOT_FOUND', 'No account has this accountId.']);
  });

  it('mints for either selector, stamped by the clock, and answers the owner by both ids', async () => {
    const out = await mintItem(
      store,
      ledger,
      { definitionId: DEFINITION, accountId: bo.accountId, idempotencyKey: 'mint-by-account' },
      clock,
    );
    expect(out.idempotent).toBe(false);
    expect(out.item).toMatchObject({
      definitionId: DEFINITION,
      accountId: bo.accountId,
      state: 'owned',
      characterId: null,
      seq: 1,
      mintedAt: '2026-11-24T09:00:00.000Z',
      owner: { accountId: bo.accountId, studioId: bo.studioId },
    });
    const again = await mintItem(
      store,
      ledger,
      { definitionId: DEFINITION, studioId: bo.studioId, idempotencyKey: 'mint-by-account' },
      clock,
    );
    expect([again.idempotent, again.item.studioUuid]).toEqual([true, out.item.studioUuid]);
    const e = await refusal(
      mintItem(store, ledger, { definitionId: DEFINITION, studioId: ada.studioId, idempotencyKey: 'mint-by-account' }, clock),
    );
    expect([e.code, e.message]).toEqual([
      'IDEMPOTENCY_KEY_REUSED',
      'This idempotency key minted another item (another definition or owner); use a new key.',
    ]);
  });
});

describe('recordItemEvent', () => {
  it('answers 404 for an unknown item, whatever the event', async () => {
    const c = await characterOf(ada);
    for (const body of [
      { event: 'destroyed' },
      { event: 'assigned', characterId: c },
      { event: 'transferred', toStudioId: bo.studioId },
    ] as const) {
      const e = await refusal(recordItemEvent(store, ledger, mintUuid(), { ...body, idempotencyKey: 'k-00000001' }, clock));
      expect([e.code, e.message]).toEqual(['NOT_FOUND', 'No item has this studio_uuid.']);
    }
  });

  it('refuses a transfer without a target, to an unknown one (naming the selector) or to the owner (naming the field)', async () => {
    const { item } = await mint();
    const none = await refusal(
      recordItemEvent(store, ledger, item.studioUuid, { event: 'transferred', idempotencyKey: 'k-00000001' }, clock),
    );
    expect([none.code, none.message, none.errors]).toEqual([
      'INVALID_BODY',
      'A transfer names the new owner: toStudioId or toAccountId.',
      [{ name: '/toStudioId', message: 'A transfer names the new owner: toStudioId or toAccountId.' }],
    ]);
    const unknownStudio = await refusal(
      recordItemEvent(
        store,
        ledger,
        item.studioUuid,
        { event: 'transferred', toStudioId: 'STUDIO_NOBODY00', idempotencyKey: 'k-00000002' },
        clock,
      ),
    );
    expect([unknownStudio.code, unknownStudio.message]).toEqual(['NOT_FOUND', 'No account has this toStudioId.']);
    const unknownAccount = await refusal(
      recordItemEvent(
        store,
        ledger,
        item.studioUuid,
        { event: 'transferred', toAccountId: mintUuid(), idempotencyKey: 'k-00000003' },
        clock,
      ),
    );
    expect([unknownAccount.code, unknownAccount.message]).toEqual(['NOT_FOUND', 'No account has this toAccountId.']);
    const selfStudio = await refusal(
      recordItemEvent(
        store,
        ledger,
        item.studioUuid,
        { event: 'transferred', toStudioId: ada.studioId, idempotencyKey: 'k-00000004' },
        clock,
      ),
    );
    expect([selfStudio.code, selfStudio.errors]).toEqual([
      'INVALID_BODY',
      [{ name: '/toStudioId', message: 'The item already belongs to this account.' }],
    ]);
    const selfAccount = await refusal(
      recordItemEvent(
        store,
        ledger,
        item.studioUuid,
        { event: 'transferred', toAccountId: ada.accountId, idempotencyKey: 'k-00000005' },
        clock,
      ),
    );
    expect([selfAccount.code, selfAccount.errors]).toEqual([
      'INVALID_BODY',
      [{ name: '/toAccountId', message: 'The item already belongs to this account.' }],
    ]);
    expect((await itemHistory(store, ledger, item.studioUuid)).events.map((e) => e.kind)).toEqual(['minted']);
  });

  it('transfers by either selector and answers the new owner', async () => {
    const { item } = await mint();
    const out = await recordItemEvent(
      store,
      ledger,
      item.studioUuid,
      { event: 'transferred', toAccountId: bo.accountId, idempotencyKey: 'k-00000001' },
      clock,
    );
    expect(out.item.owner).toEqual({ accountId: bo.accountId, studioId: bo.studioId });
    const back = await recordItemEvent(
      store,
      ledger,
      item.studioUuid,
      { event: 'transferred', toStudioId: ada.studioId, idempotencyKey: 'k-00000002' },
      clock,
    );
    expect(back.item.owner).toEqual({ accountId: ada.accountId, studioId: ada.studioId });
  });

  it('names the event that needs a character, and refuses a character of another account', async () => {
    const { item } = await mint();
    for (const event of ['assigned', 'equipped'] as const) {
      const e = await refusal(recordItemEvent(store, ledger, item.studioUuid, { event, idempotencyKey: 'k-00000001' }, clock));
      expect([e.code, e.message, e.errors]).toEqual([
        'INVALID_BODY',
        `An item is ${event} to a character: send characterId.`,
        [{ name: '/characterId', message: `An item is ${event} to a character: send characterId.` }],
      ]);
    }
    const foreign = await characterOf(bo);
    const e = await refusal(
      recordItemEvent(store, ledger, item.studioUuid, { event: 'assigned', characterId: foreign, idempotencyKey: 'k-00000002' }, clock),
    );
    expect(e.errors).toEqual([{ name: '/characterId', message: "Not a character of the item's owner." }]);
  });

  it('compares a replayed key on the event, the character and each transfer selector', async () => {
    const { item } = await mint();
    const [c1, c2] = [await characterOf(ada), await characterOf(ada)];
    const assigned = await recordItemEvent(
      store,
      ledger,
      item.studioUuid,
      { event: 'assigned', characterId: c1.toUpperCase(), idempotencyKey: 'key-assign' },
      clock,
    );
    expect([assigned.idempotent, assigned.item.characterId]).toEqual([false, c1]);
    expect(
      (
        await recordItemEvent(
          store,
          ledger,
          item.studioUuid,
          { event: 'assigned', characterId: c1.toUpperCase(), idempotencyKey: 'key-assign' },
          clock,
        )
      ).idempotent,
    ).toBe(true);
    const reused = await refusal(
      recordItemEvent(store, ledger, item.studioUuid, { event: 'assigned', characterId: c2, idempotencyKey: 'key-assign' }, clock),
    );
    expect([reused.code, reused.message]).toEqual([
      'IDEMPOTENCY_KEY_REUSED',
      'This idempotency key recorded another event of this item; use a new key.',
    ]);
    expect(
      (
        await refusal(
          recordItemEvent(store, ledger, item.studioUuid, { event: 'equipped', characterId: c1, idempotencyKey: 'key-assign' }, clock),
        )
      ).code,
    ).toBe('IDEMPOTENCY_KEY_REUSED');

    const cy = await addAccount(ledger, newAccount({ displayName: 'Cy' }));
    await recordItemEvent(
      store,
      ledger,
      item.studioUuid,
      { event: 'transferred', toAccountId: bo.accountId, idempotencyKey: 'key-move-a' },
      clock,
    );
    expect(
      (
        await refusal(
          recordItemEvent(
            store,
            ledger,
            item.studioUuid,
            { event: 'transferred', toAccountId: cy.accountId, idempotencyKey: 'key-move-a' },
            clock,
          ),
        )
      ).code,
    ).toBe('IDEMPOTENCY_KEY_REUSED');
    await recordItemEvent(
      store,
      ledger,
      item.studioUuid,
      { event: 'transferred', toStudioId: ada.studioId, idempotencyKey: 'key-move-s' },
      clock,
    );
    expect(
      (
        await refusal(
          recordItemEvent(
            store,
            ledger,
            item.studioUuid,
            { event: 'transferred', toStudioId: cy.studioId, idempotencyKey: 'key-move-s' },
            clock,
          ),
        )
      ).code,
    ).toBe('IDEMPOTENCY_KEY_REUSED');
  });

  it('says what the state allows when it forbids the event', async () => {
    const { item } = await mint();
    await recordItemEvent(store, ledger, item.studioUuid, { event: 'consumed', idempotencyKey: 'k-00000001' }, clock);
    const e = await refusal(recordItemEvent(store, ledger, item.studioUuid, { event: 'unequipped', idempotencyKey: 'k-00000002' }, clock));
    expect([e.code, e.message]).toEqual(['CONFLICT', 'The item is consumed: it cannot be unequipped (allowed from equipped).']);
    const d = await refusal(recordItemEvent(store, ledger, item.studioUuid, { event: 'destroyed', idempotencyKey: 'k-00000003' }, clock));
    expect(d.message).toBe(`The item is consumed: it cannot be destroyed (allowed from ${ITEM_TRANSITIONS.destroyed.from.join(', ')}).`);
    expect(ITEM_TRANSITIONS.destroyed.from.length).toBeGreaterThan(1);
  });

  it('answers the outcomes a store gives under races: key reused, the item gone, the owner unreadable', async () => {
    const { item } = await mint();
    const racing = (outcome: ItemEventOutcome): PlayerStore => withMethods(store, { recordItemEvent: () => Promise.resolve(outcome) });
    const reused = await refusal(
      recordItemEvent(
        racing({ status: 'key-reused' }),
        ledger,
        item.studioUuid,
        { event: 'destroyed', idempotencyKey: 'k-00000001' },
        clock,
      ),
    );
    expect([reused.code, reused.message]).toEqual([
      'IDEMPOTENCY_KEY_REUSED',
      'This idempotency key recorded another event of this item; use a new key.',
    ]);
    const gone = await refusal(
      recordItemEvent(racing({ status: 'missing' }), ledger, item.studioUuid, { event: 'destroyed', idempotencyKey: 'k-00000001' }, clock),
    );
    expect([gone.code, gone.message]).toEqual(['NOT_FOUND', 'No item has this studio_uuid.']);
    const blind = withMethods(ledger, { findAccount: () => Promise.resolve(undefined) });
    const unreadable = await refusal(
      recordItemEvent(store, blind, item.studioUuid, { event: 'destroyed', idempotencyKey: 'k-00000001' }, clock),
    );
    expect([unreadable.code, unreadable.message]).toEqual(['NOT_FOUND', 'No account has this accountId.']);
    const history = await refusal(itemHistory(store, blind, item.studioUuid));
    expect([history.code, history.message]).toEqual(['NOT_FOUND', 'No account has this accountId.']);
  });
});

describe('voidItem', () => {
  it('records the final voided event with its reason and actor, once per key; a replay answers the first reason; nothing follows it', async () => {
    const { item } = await mint();
    const hero = await characterOf(ada);
    await recordItemEvent(store, ledger, item.studioUuid, { event: 'equipped', characterId: hero, idempotencyKey: 'void-equip-1' }, clock);
    const first = await voidItem(
      store,
      ledger,
      item.studioUuid,
      { reason: 'Duplicated', idempotencyKey: 'void-key-01' },
      'admin:OPS',
      clock,
    );
    expect(first).toMatchObject({
      item: { studioUuid: item.studioUuid, state: 'voided', characterId: null, seq: 3, owner: { studioId: ada.studioId } },
      event: { seq: 3, kind: 'voided', accountId: ada.accountId, characterId: null, at: '2026-11-24T09:00:00.000Z' },
      reason: 'Duplicated',
      actor: 'admin:OPS',
      idempotent: false,
    });
    const replay = await voidItem(
      store,
      ledger,
      item.studioUuid,
      { reason: 'reworded', idempotencyKey: 'void-key-01' },
      'admin-password',
      clock,
    );
    expect({ ...replay, idempotent: false }).toEqual(first);
    expect(replay.idempotent).toBe(true);
    const again = await refusal(
      voidItem(store, ledger, item.studioUuid, { reason: 'again', idempotencyKey: 'void-key-02' }, 'admin:OPS', clock),
    );
    expect([again.code, again.message]).toEqual([
      'CONFLICT',
      'The item is voided: it cannot be voided (allowed from owned, assigned, equipped).',
    ]);
    const after = await refusal(
      recordItemEvent(store, ledger, item.studioUuid, { event: 'unequipped', idempotencyKey: 'void-after-1' }, clock),
    );
    expect(after.message).toBe('The item is voided: it cannot be unequipped (allowed from equipped).');
    const reused = await refusal(
      recordItemEvent(store, ledger, item.studioUuid, { event: 'consumed', idempotencyKey: 'void-key-01' }, clock),
    );
    expect(reused.code).toBe('IDEMPOTENCY_KEY_REUSED');
    expect((await refusal(voidItem(store, ledger, mintUuid(), { reason: 'r', idempotencyKey: 'void-key-03' }, 'x', clock))).code).toBe(
      'NOT_FOUND',
    );
  });

  it('answers the request’s reason and actor when the store keeps no note of the event', async () => {
    const { item } = await mint();
    const forgetful = withMethods(store, { itemEvents: () => Promise.resolve(undefined) });
    const out = await voidItem(
      forgetful,
      ledger,
      item.studioUuid,
      { reason: 'Duplicated', idempotencyKey: 'void-key-04' },
      'admin:OPS',
      clock,
    );
    expect([out.reason, out.actor, out.item.state]).toEqual(['Duplicated', 'admin:OPS', 'voided']);
  });
});
