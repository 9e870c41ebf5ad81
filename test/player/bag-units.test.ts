/**
 * The bag service called directly (spec 2.6, 2.8, 4.8; `api/_lib/player/bag.ts`) over stand-in stores and
 * small catalogs: which definitions are stackables (the `MATL-*` materials of `master-materials.json` and
 * the consumables of the items manifest), the change a grant or a consumption asks the store for, the
 * answer for each outcome the store gives, the reversal of a grant an operator asks for (docs/architecture.md,
 * "Bag reversals"), and the bag as its owner reads it.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { useServiceConfig } from '../../api/_lib/config.js';
import type { Account, AccountSelector, LedgerStore } from '../../api/_lib/ledger/types.js';
import { changeBag, inventoryOf, reverseBagGrant, type BagChangeBody } from '../../api/_lib/player/bag.js';
import type {
  BagChange,
  BagChangeOutcome,
  BagEntry,
  BagRecord,
  BagReversal,
  BagReversalOutcome,
  PlayerStore,
} from '../../api/_lib/player/types.js';
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

  it('refuses a change of a banned account as suspended, with the ban’s end', async () => {
    const banned = storeOf(() => ({
      status: 'suspended',
      ban: { reason: 'abuse', at: '2026-11-20T00:00:00.000Z', until: '2026-12-01T00:00:00.000Z' },
    }));
    const e = await refusal(changeBag(banned, ledgerOf(), body(), 1, clock));
    expect([e.code, e.status, e.message]).toEqual(['ACCOUNT_SUSPENDED', 403, 'This account is suspended until 2026-12-01T00:00:00.000Z.']);
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

describe('reverseBagGrant', () => {
  const ACCT = { ...ACCOUNT, accountId: '11111111-1111-4111-8111-111111111111', studioId: 'STUDIO_ADA0000000000001', displayName: 'Ada' };
  const ledger = {
    findAccount: (s: AccountSelector) =>
      Promise.resolve(('studioId' in s ? s.studioId === ACCT.studioId : s.accountId === ACCT.accountId) ? ACCT : undefined),
  } as unknown as LedgerStore;
  const reversalBody = { studioId: ACCT.studioId, sourceRef: 'bag-grant:drop-0001', reason: 'Granted twice', idempotencyKey: 'fix-0001' };
  const reversed = (r: BagReversal, over: Partial<BagRecord> = {}): BagRecord => ({
    accountId: r.accountId,
    definitionId: 'MATL-IRON0001',
    seq: 4,
    delta: -5,
    quantityAfter: 2,
    sourceRef: r.sourceRef,
    at: r.at,
    reverses: r.reverses,
    note: r.note.note,
    actor: r.note.actor,
    ...over,
  });
  const storeAnswering = (outcome: (r: BagReversal) => BagReversalOutcome, asked: BagReversal[] = []) =>
    ({
      reverseBag: (r: BagReversal) => {
        asked.push(r);
        return Promise.resolve(outcome(r));
      },
    }) as unknown as PlayerStore;

  it('asks the store for the reversal of the named grant of the account, bound to them, and answers it', async () => {
    const asked: BagReversal[] = [];
    const out = await reverseBagGrant(
      storeAnswering((r) => ({ status: 'created', entry: reversed(r) }), asked),
      ledger,
      reversalBody,
      'admin:OPS',
      clock,
    );
    expect(asked).toEqual([
      {
        accountId: ACCT.accountId,
        reverses: 'bag-grant:drop-0001',
        sourceRef: 'bag-reversal:fix-0001',
        fingerprint: requestFingerprint({ bagReversal: ACCT.accountId, reverses: 'bag-grant:drop-0001' }),
        note: { note: 'Granted twice', actor: 'admin:OPS' },
        at: '2026-11-24T09:00:00.000Z',
      },
    ]);
    expect(out).toEqual({
      kind: 'bag_reversal',
      idempotent: false,
      sourceRef: 'bag-reversal:fix-0001',
      reverses: 'bag-grant:drop-0001',
      account: { accountId: ACCT.accountId, studioId: ACCT.studioId, displayName: 'Ada' },
      definitionId: 'MATL-IRON0001',
      seq: 4,
      quantity: 5,
      quantityAfter: 2,
      reason: 'Granted twice',
      actor: 'admin:OPS',
      at: '2026-11-24T09:00:00.000Z',
    });
    // either selector names the same account, and the same binding
    await reverseBagGrant(
      storeAnswering((r) => ({ status: 'created', entry: reversed(r) }), asked),
      ledger,
      { ...reversalBody, studioId: undefined, accountId: ACCT.accountId },
      'x',
      clock,
    );
    expect(asked[1]!.fingerprint).toBe(asked[0]!.fingerprint);
  });

  it('answers a replay with the first reversal’s reason, actor and time', async () => {
    const first = { note: 'first reason', actor: 'admin-password', at: '2026-11-20T00:00:00.000Z' };
    const out = await reverseBagGrant(
      storeAnswering((r) => ({ status: 'replayed', entry: reversed(r, { ...first }) })),
      ledger,
      { ...reversalBody, reason: 'reworded' },
      'admin:OPS',
      clock,
    );
    expect([out.idempotent, out.reason, out.actor, out.at]).toEqual([true, 'first reason', 'admin-password', '2026-11-20T00:00:00.000Z']);
  });

  it('answers the request’s own grant, reason and actor for a record that lacks them', async () => {
    const bare = (r: BagReversal): BagRecord => ({ ...reversed(r), reverses: undefined, note: undefined, actor: undefined });
    const out = await reverseBagGrant(
      storeAnswering((r) => ({ status: 'created', entry: bare(r) })),
      ledger,
      reversalBody,
      'admin:OPS',
      clock,
    );
    expect([out.reverses, out.reason, out.actor]).toEqual(['bag-grant:drop-0001', 'Granted twice', 'admin:OPS']);
  });

  it('words every refusal of the store, naming the grant (at most 300 characters of it) and what it found', async () => {
    const long = `bag-grant:${'k'.repeat(400)}`;
    const cases: [BagReversalOutcome | ((r: BagReversal) => BagReversalOutcome), string, string, string?][] = [
      [
        { status: 'key-reused' },
        'IDEMPOTENCY_KEY_REUSED',
        'The idempotency key was used before to reverse another grant or account; nothing was reversed. Use a new key for a new reversal.',
      ],
      [{ status: 'no-entry' }, 'NOT_FOUND', 'No bag entry of this account has the source ref bag-grant:drop-0001.'],
      [{ status: 'no-entry' }, 'NOT_FOUND', `No bag entry of this account has the source ref ${long.slice(0, 300)}.`, long],
      [
        (r) => ({ status: 'not-a-grant', entry: reversed(r, { sourceRef: 'bag-consume:use-1' }) }),
        'CONFLICT',
        'bag-grant:drop-0001 is a consumption; only a grant is reversed.',
      ],
      [
        (r) => ({ status: 'not-a-grant', entry: reversed(r, { sourceRef: 'bag-reversal:fix-0' }) }),
        'CONFLICT',
        'bag-grant:drop-0001 is a reversal; a reversal is final.',
      ],
      [
        (r) => ({
          status: 'already-reversed',
          entry: reversed(r, { sourceRef: 'bag-reversal:first', at: '2026-11-20T00:00:00.000Z', actor: 'admin:OPS' }),
        }),
        'CONFLICT',
        'The grant bag-grant:drop-0001 was already reversed by admin:OPS at 2026-11-20T00:00:00.000Z (reversal bag-reversal:first).',
      ],
      [
        (r) => ({
          status: 'already-reversed',
          entry: reversed(r, { sourceRef: 'bag-reversal:first', at: '2026-11-20T00:00:00.000Z', actor: '' }),
        }),
        'CONFLICT',
        'The grant bag-grant:drop-0001 was already reversed at 2026-11-20T00:00:00.000Z (reversal bag-reversal:first).',
      ],
      [
        (r) => ({
          status: 'already-reversed',
          entry: { ...reversed(r, { sourceRef: 'bag-reversal:first', at: '2026-11-20T00:00:00.000Z' }), actor: undefined },
        }),
        'CONFLICT',
        'The grant bag-grant:drop-0001 was already reversed at 2026-11-20T00:00:00.000Z (reversal bag-reversal:first).',
      ],
      [
        (r) => ({
          status: 'already-reversed',
          entry: reversed(r, { sourceRef: `bag-reversal:${'r'.repeat(400)}`, at: '2026-11-20T00:00:00.000Z', actor: 'admin:OPS' }),
        }),
        'CONFLICT',
        `The grant bag-grant:drop-0001 was already reversed by admin:OPS at 2026-11-20T00:00:00.000Z (reversal ${`bag-reversal:${'r'.repeat(400)}`.slice(0, 300)}).`,
      ],
      [
        { status: 'insufficient', quantity: 2 },
        'CONFLICT',
        'The bag holds 2 of the granted definition, less than the grant gave; nothing was reversed.',
      ],
    ];
    for (const [outcome, code, message, ref] of cases) {
      const store = storeAnswering(typeof outcome === 'function' ? outcome : () => outcome);
      const e = await refusal(
        reverseBagGrant(store, ledger, { ...reversalBody, sourceRef: ref ?? reversalBody.sourceRef }, 'admin:OPS', clock),
      );
      expect([e.code, e.message]).toEqual([code, message]);
    }
  });

  it('refuses both or neither selector, and an account that does not exist, before asking the store', async () => {
    const asked: BagReversal[] = [];
    const store = storeAnswering((r) => ({ status: 'created', entry: reversed(r) }), asked);
    const both = await refusal(reverseBagGrant(store, ledger, { ...reversalBody, accountId: ACCT.accountId }, 'x', clock));
    expect(both.code).toBe('INVALID_BODY');
    const none = await refusal(reverseBagGrant(store, ledger, { ...reversalBody, studioId: undefined }, 'x', clock));
    expect(none.code).toBe('INVALID_BODY');
    const nobody = await refusal(reverseBagGrant(store, ledger, { ...reversalBody, studioId: 'STUDIO_NOBODY' }, 'x', clock));
    expect(nobody.code).toBe('NOT_FOUND');
    expect(asked).toEqual([]);
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
