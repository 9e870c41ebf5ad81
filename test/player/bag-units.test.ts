/**
 * The bag service called directly (spec 2.6, 2.8, 4.8; `api/_lib/player/bag.ts`) over stand-in stores and
 * small catalogs: which definitions are stackables (the `MATL-*` materials of `master-materials.json` and
 * the consumables of the items manifest), the change a grant or a consumption asks the store for, the
 * answer for each outcome the store gives, and the bag as its owner reads it.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { useServiceConfig } from '../../api/_lib/config.js';
import type { Account, AccountSelector, LedgerStore } from '../../api/_lib/ledger/types.js';
import { changeBag, inventoryOf, type BagChangeBody } from '../../api/_lib/player/bag.js';
import type { BagChange, BagChangeOutcome, BagEntry, PlayerStore } from '../../api/_lib/player/types.js';
import { requestFingerprint } from '../../api/_lib/stores/idempotency.js';
import { useGameConfig } from '../helpers/game-api.js';
import { refusal } from '../helpers/ledger-ops.js';

const ACCOUNT = { accountId: 'acct-0001', studioId: 'STUDIO_ADA00001' } as Account;
const clock = () => new Date('2026-11-24T09:00:00.000Z');
const LONG = `MATL-${'L'.repeat(100)}`;
const MATERIALS = {
  materials: [{ uuid: 'MATL-IRON0001' }, { uuid: LONG }, { uuid: 'XMATL-0001' }, { uuid: 'ITEM-SWORD0001' }, { uuid: 7 }, {}],
};
const ITEMS = {
  items: [
    { uuid: 'FOOD-BREAD0001', kind: 'consumable' },
    { uuid: 'ITEM-SWORD0001', kind: 'weapon' },
  ],
};

let dir = '';
/** A catalog folder holding `files` (name under `api/v1/` → JSON value), put in force. */
function catalogOf(files: Record<string, unknown>): void {
  dir = mkdtempSync(join(tmpdir(), 'bag-catalog-'));
  mkdirSync(join(dir, 'api/v1'), { recursive: true });
  for (const [name, value] of Object.entries(files)) writeFileSync(join(dir, 'api/v1', name), JSON.stringify(value));
  useGameConfig({ CATALOG_DIR: dir });
}
beforeEach(() => catalogOf({ 'master-materials.json': MATERIALS, 'canonical-items-manifest.json': ITEMS }));
afterEach(() => rmSync(dir, { recursive: true, force: true }));
afterAll(() => useServiceConfig(undefined));

/** A ledger that knows {@link ACCOUNT} only, and records the selectors it was asked for. */
function ledgerOf(asked: AccountSelector[] = []): LedgerStore {
  return {
    findAccount: (s: AccountSelector) => {
      asked.push(s);
      return Promise.resolve(('studioId' in s ? s.studioId === ACCOUNT.studioId : s.accountId === ACCOUNT.accountId) ? ACCOUNT : undefined);
    },
  } as unknown as LedgerStore;
}

/** A player store whose `changeBag` answers `outcome` and records what it was asked. */
function storeOf(outcome: (c: BagChange) => BagChangeOutcome, asked: BagChange[] = []): PlayerStore {
  return {
    changeBag: (c: BagChange) => {
      asked.push(c);
      return Promise.resolve(outcome(c));
    },
  } as unknown as PlayerStore;
}

const entryOf = (c: BagChange, quantityAfter: number): BagEntry => ({
  accountId: c.accountId,
  definitionId: c.definitionId,
  seq: 3,
  delta: c.delta,
  quantityAfter,
  sourceRef: c.sourceRef,
  at: c.at,
});

const body = (over: Partial<BagChangeBody> = {}): BagChangeBody => ({
  studioId: ACCOUNT.studioId,
  definitionId: 'MATL-IRON0001',
  quantity: 5,
  idempotencyKey: 'key-0001',
  ...over,
});

describe('changeBag', () => {
  it('takes the MATL-* materials and the consumables of the catalog, and refuses any other id, quoting at most 80 characters', async () => {
    const created = storeOf((c) => ({ status: 'created', entry: entryOf(c, 5) }));
    for (const id of ['MATL-IRON0001', 'FOOD-BREAD0001'])
      expect((await changeBag(created, ledgerOf(), body({ definitionId: id }), 1, clock)).quantity).toBe(5);
    for (const id of ['XMATL-0001', 'ITEM-SWORD0001', '7', 'MATL-UNKNOWN', `MATL-${'X'.repeat(100)}`]) {
      const e = await refusal(changeBag(created, ledgerOf(), body({ definitionId: id }), 1, clock));
      expect(e.code).toBe('INVALID_BODY');
      expect(e.message).toBe(`${id.slice(0, 80)} is not a stackable definition of the catalog.`);
      expect(e.errors).toEqual([
        {
          name: '/definitionId',
          message: 'Must be a MATL-* material or a consumable of the catalog; unique items are minted with POST /api/uuid.',
        },
      ]);
    }
  });

  it('is unavailable when the materials file holds no list of materials', async () => {
    for (const raw of [null, {}, { materials: { uuid: 'MATL-IRON0001' } }]) {
      catalogOf({ 'master-materials.json': raw, 'canonical-items-manifest.json': ITEMS });
      const e = await refusal(
        changeBag(
          storeOf(() => ({ status: 'overflow' })),
          ledgerOf(),
          body(),
          1,
          clock,
        ),
      );
      expect([e.code, e.message]).toEqual([
        'UPSTREAM_UNAVAILABLE',
        'Catalog data "api/v1/master-materials.json" is corrupt; rebuild the catalog.',
      ]);
    }
  });

  it('finds the account by studioId when the body sends one, else by accountId, and is 404 for neither', async () => {
    const asked: AccountSelector[] = [];
    const store = storeOf((c) => ({ status: 'created', entry: entryOf(c, 5) }));
    await changeBag(store, ledgerOf(asked), body(), 1, clock);
    await changeBag(store, ledgerOf(asked), body({ studioId: undefined, accountId: ACCOUNT.accountId }), 1, clock);
    expect(asked).toEqual([{ studioId: ACCOUNT.studioId }, { accountId: ACCOUNT.accountId }]);
    for (const who of [{ studioId: 'STUDIO_NOBODY001' }, { studioId: undefined, accountId: 'acct-none' }]) {
      const e = await refusal(changeBag(store, ledgerOf(), body(who), 1, clock));
      expect([e.code, e.message]).toEqual(['NOT_FOUND', 'No account has this id.']);
    }
  });

  it('asks the store for a signed change under the source ref of its kind, fingerprinted on account, definition and delta', async () => {
    const asked: BagChange[] = [];
    const store = storeOf((c) => ({ status: 'created', entry: entryOf(c, 7) }), asked);
    const granted = await changeBag(store, ledgerOf(), body({ quantity: 5 }), 1, clock);
    const consumed = await changeBag(store, ledgerOf(), body({ quantity: 2, idempotencyKey: 'key-0002' }), -1, clock);
    expect(asked).toEqual([
      {
        accountId: ACCOUNT.accountId,
        definitionId: 'MATL-IRON0001',
        delta: 5,
        sourceRef: 'bag-grant:key-0001',
        fingerprint: requestFingerprint([ACCOUNT.accountId, 'MATL-IRON0001', 5]),
        at: '2026-11-24T09:00:00.000Z',
      },
      {
        accountId: ACCOUNT.accountId,
        definitionId: 'MATL-IRON0001',
        delta: -2,
        sourceRef: 'bag-consume:key-0002',
        fingerprint: requestFingerprint([ACCOUNT.accountId, 'MATL-IRON0001', -2]),
        at: '2026-11-24T09:00:00.000Z',
      },
    ]);
    expect(granted).toEqual({
      entry: entryOf(asked[0]!, 7),
      quantity: 7,
      account: { accountId: ACCOUNT.accountId, studioId: ACCOUNT.studioId },
      idempotent: false,
    });
    expect(consumed.entry.delta).toBe(-2);
  });

  it('answers a replay as idempotent, with the entry the store recorded first', async () => {
    const store = storeOf((c) => ({ status: 'replayed', entry: entryOf(c, 9) }));
    const out = await changeBag(store, ledgerOf(), body(), -1, clock);
    expect([out.idempotent, out.quantity, out.entry.sourceRef]).toEqual([true, 9, 'bag-consume:key-0001']);
  });

  it('refuses a consumption beyond the quantity held (quoting at most 80 characters of the id) and a grant past the largest quantity as conflicts', async () => {
    const short = await refusal(
      changeBag(
        storeOf(() => ({ status: 'insufficient', quantity: 3 })),
        ledgerOf(),
        body(),
        -1,
        clock,
      ),
    );
    expect([short.code, short.message]).toEqual(['CONFLICT', 'The bag holds 3 of MATL-IRON0001; it cannot give 5.']);
    const long = await refusal(
      changeBag(
        storeOf(() => ({ status: 'insufficient', quantity: 0 })),
        ledgerOf(),
        body({ definitionId: LONG }),
        -1,
        clock,
      ),
    );
    expect(long.message).toBe(`The bag holds 0 of ${LONG.slice(0, 80)}; it cannot give 5.`);
    const over = await refusal(
      changeBag(
        storeOf(() => ({ status: 'overflow' })),
        ledgerOf(),
        body(),
        1,
        clock,
      ),
    );
    expect([over.code, over.message]).toEqual(['CONFLICT', 'This grant would take the quantity beyond the largest the bag holds.']);
  });

  it('refuses a reused key, saying whether it granted or consumed', async () => {
    const reused = storeOf(() => ({ status: 'key-reused' }));
    const g = await refusal(changeBag(reused, ledgerOf(), body(), 1, clock));
    expect([g.code, g.message]).toEqual([
      'IDEMPOTENCY_KEY_REUSED',
      'This idempotency key already granted another amount, definition or account; use a new key.',
    ]);
    const c = await refusal(changeBag(reused, ledgerOf(), body(), -1, clock));
    expect(c.message).toBe('This idempotency key already consumed another amount, definition or account; use a new key.');
  });
});

describe('inventoryOf', () => {
  it("answers the account's stackables as the store gives them and its unique items by studio_uuid, without other fields", async () => {
    const asked: string[] = [];
    const store = {
      bag: (id: string) => {
        asked.push(`bag ${id}`);
        return Promise.resolve([{ definitionId: 'MATL-IRON0001', quantity: 4 }]);
      },
      accountItems: (id: string) => {
        asked.push(`items ${id}`);
        return Promise.resolve([
          {
            studioUuid: 'u-1',
            definitionId: 'ITEM-SWORD0001',
            state: 'worn',
            characterId: 'c-1',
            mintedAt: '2026-11-24T08:00:00.000Z',
            accountId: id,
            history: ['minted'],
          },
        ]);
      },
    } as unknown as PlayerStore;
    expect(await inventoryOf(store, 'acct-0001')).toEqual({
      stackables: [{ definitionId: 'MATL-IRON0001', quantity: 4 }],
      uniqueItems: [
        { studioUuid: 'u-1', definitionId: 'ITEM-SWORD0001', state: 'worn', characterId: 'c-1', mintedAt: '2026-11-24T08:00:00.000Z' },
      ],
    });
    expect(asked).toEqual(['bag acct-0001', 'items acct-0001']);
  });
});
