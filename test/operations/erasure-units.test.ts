/**
 * Erasure (`api/_lib/operations/erasure.ts`) called directly on a SQLite ledger and a SQLite player store
 * in a temporary folder: what it answers and removes, what it asks the ledger for, the replay that
 * completes an interrupted erasure, and its refusals' codes and messages.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createAccount, grantCoin } from '../../api/_lib/ledger/service.js';
import { openSqliteLedger } from '../../api/_lib/ledger/sqlite.js';
import type { EraseOutcome, EraseRequest } from '../../api/_lib/ledger/types.js';
import { erasePlayer } from '../../api/_lib/operations/erasure.js';
import { openSqlitePlayerStore } from '../../api/_lib/player/sqlite.js';
import { requestFingerprint } from '../../api/_lib/stores/idempotency.js';
import { inAuditScope, openAuditScope } from '../../api/_lib/util/audit-scope.js';
import { expectSound } from '../helpers/ledger.js';
import { refusal } from '../helpers/ledger-ops.js';
import { withMethods } from '../helpers/player.js';

const created = () => new Date('2026-11-23T12:00:00.000Z');
const clock = () => new Date('2026-11-25T09:15:30.250Z');

/** Both stores in one new temporary folder, with Jane (granted 300, linked to steam:555) and Joan. */
async function stores() {
  const dir = mkdtempSync(join(tmpdir(), 'erasure-'));
  const ledger = await openSqliteLedger({ file: join(dir, 'ledger.sqlite') });
  const player = await openSqlitePlayerStore(join(dir, 'player.sqlite'));
  const { account: jane } = await createAccount(ledger, { displayName: 'Jane Doe', username: 'janed' }, created);
  const { account: joan } = await createAccount(ledger, { displayName: 'Joan Doe', username: 'joand' }, created);
  await grantCoin(ledger, { studioId: jane.studioId, amount: 300, reason: 'Refund for Jane', idempotencyKey: 'erase-grant-1' }, created);
  await player.linkExternal({
    provider: 'steam',
    externalUserId: '555',
    username: 'janed',
    accountId: jane.accountId,
    linkedAt: '2026-11-23T12:00:00.000Z',
  });
  return { ledger, player, jane, joan };
}

describe('erasePlayer', () => {
  it('closes the account for good, removes its name and links, keeps its coin, and answers its access', async () => {
    const s = await stores();
    const out = await erasePlayer(s, s.jane.studioId, { reason: 'Data request 118', idempotencyKey: 'erase-01' }, clock);
    expect(out).toEqual({
      account: { accountId: s.jane.accountId, studioId: s.jane.studioId, displayName: '' },
      access: {
        sessionsRevokedAt: '2026-11-25T09:15:30.000Z',
        ban: { reason: 'Account erased', at: '2026-11-25T09:15:30.250Z', until: null, active: true },
      },
      idempotent: false,
    });
    expect(await s.player.externalLinksOf(s.jane.accountId)).toEqual([]);
    expect(await s.player.externalLink('steam', '555')).toBeUndefined();
    expect((await s.ledger.findAccount({ accountId: s.jane.accountId }))?.username).toBe(`erased:${s.jane.studioId}`);
    expect(await s.ledger.balance(s.jane.accountId)).toBe(300);
    expect((await s.ledger.findAccount({ accountId: s.joan.accountId }))?.displayName).toBe('Joan Doe');
    await expectSound(s.ledger);
  });

  it("notes the account it erases for the request's audit record, before the ledger is asked", async () => {
    const s = await stores();
    const scope = openAuditScope({
      actor: { via: 'password' },
      route: 'admin/erase',
      method: 'POST',
      requestId: 'erase-r1',
      changeStatus: 200,
    });
    const noted: (string | undefined)[] = [];
    const ledger = withMethods(s.ledger, {
      eraseAccount: (r: EraseRequest) => {
        noted.push(scope.account);
        return s.ledger.eraseAccount(r);
      },
    });
    await inAuditScope(scope, () =>
      erasePlayer({ ledger, player: s.player }, s.jane.studioId, { reason: 'why', idempotencyKey: 'erase-n1' }, clock),
    );
    expect(noted).toEqual([s.jane.accountId]);
    expect(scope.account).toBe(s.jane.accountId);
  });

  it('finds the account by its account id too, and asks the ledger once with the time in seconds and in full', async () => {
    const s = await stores();
    const asked: EraseRequest[] = [];
    const ledger = withMethods(s.ledger, {
      eraseAccount: (r: EraseRequest) => {
        asked.push(r);
        return s.ledger.eraseAccount(r);
      },
    });
    await erasePlayer({ ledger, player: s.player }, s.jane.accountId, { reason: 'why', idempotencyKey: 'erase-02' }, clock);
    expect(asked).toEqual([
      {
        accountId: s.jane.accountId,
        key: 'erase-02',
        fingerprint: requestFingerprint({ erase: s.jane.accountId }),
        at: Math.floor(Date.parse('2026-11-25T09:15:30.250Z') / 1000),
        atIso: '2026-11-25T09:15:30.250Z',
      },
    ]);
  });

  it('answers a replay of the key as idempotent and removes links added since', async () => {
    const s = await stores();
    const first = await erasePlayer(s, s.jane.studioId, { reason: 'x', idempotencyKey: 'erase-03' }, clock);
    await s.player.linkExternal({
      provider: 'epic',
      externalUserId: 'e-9',
      username: 'j',
      accountId: s.jane.accountId,
      linkedAt: '2026-11-26T00:00:00.000Z',
    });
    const again = await erasePlayer(s, s.jane.studioId, { reason: 'reworded', idempotencyKey: 'erase-03' }, clock);
    expect(again).toEqual({ ...first, idempotent: true });
    expect(await s.player.externalLinksOf(s.jane.accountId)).toEqual([]);
  });

  it('answers 422 to a key that erased another account, and changes nothing', async () => {
    const s = await stores();
    await erasePlayer(s, s.joan.studioId, { reason: 'x', idempotencyKey: 'erase-04' }, clock);
    const e = await refusal(erasePlayer(s, s.jane.studioId, { reason: 'x', idempotencyKey: 'erase-04' }, clock));
    expect([e.code, e.message]).toEqual([
      'IDEMPOTENCY_KEY_REUSED',
      'This idempotency key erased another account; nothing changed. Use a new key.',
    ]);
    expect((await s.ledger.findAccount({ accountId: s.jane.accountId }))?.displayName).toBe('Jane Doe');
    expect((await s.player.externalLinksOf(s.jane.accountId)).map((l) => l.externalUserId)).toEqual(['555']);
  });

  it('answers 404 to a key that names no account, and to an account gone while erasing, removing no link', async () => {
    const s = await stores();
    const none = await refusal(erasePlayer(s, 'STUDIO_NOBODY', { reason: 'x', idempotencyKey: 'erase-05' }, clock));
    expect([none.code, none.message]).toEqual(['NOT_FOUND', 'No account has this studioId or accountId.']);
    const ledger = withMethods(s.ledger, { eraseAccount: () => Promise.resolve<EraseOutcome>({ status: 'no-account' }) });
    const gone = await refusal(
      erasePlayer({ ledger, player: s.player }, s.jane.studioId, { reason: 'x', idempotencyKey: 'erase-06' }, clock),
    );
    expect([gone.code, gone.message]).toEqual(['NOT_FOUND', 'No account has this studioId or accountId.']);
    expect((await s.player.externalLinksOf(s.jane.accountId)).length).toBe(1);
  });
});
