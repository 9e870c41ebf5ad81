// What each operator action says before it is sent (site/admin/confirm.ts; docs/architecture.md, "Operator
// console"): the effect with the numbers the operator is about to change, in en-US digits and UTC times.
import { describe, expect, it } from 'vitest';
import {
  accountLabel,
  confirmation,
  formatCoin,
  formatDay,
  formatSigned,
  formatTime,
  intentSummary,
  type PlannedAction,
} from '../../site/admin/confirm.js';

const ada = { studioId: 'STUDIO_7QF3K2M9X4D1H8TB', displayName: 'Ada' };
const erased = { studioId: 'STUDIO_7QF3K2M9X4D1H8TB', displayName: '' };
const grantEntry = {
  entryId: '9b0c5f3e-1111-4222-8333-944455556666',
  kind: 'admin_grant_coin' as const,
  amount: 5000,
  at: '2026-11-20T23:59:00.000Z',
  actor: 'admin:STUDIO_OPERATOR00000001',
};

describe('numbers and times', () => {
  it('writes coin with thousands separators and a true minus sign', () => {
    expect([0, 7, 1000, 5200, 1_000_000_000, -400, -5000].map(formatCoin)).toEqual([
      '0',
      '7',
      '1,000',
      '5,200',
      '1,000,000,000',
      '−400',
      '−5,000',
    ]);
    expect([5000, -5000, 0].map(formatSigned)).toEqual(['+5,000', '−5,000', '0']);
  });

  it('writes days and minutes in UTC, and text that is no time as it is', () => {
    expect(formatDay('2026-11-20T23:59:00.000Z')).toBe('2026-11-20');
    expect(formatDay('2026-11-21T00:30:00+02:00')).toBe('2026-11-20');
    expect(formatTime('2026-11-20T10:05:59.999Z')).toBe('2026-11-20 10:05 UTC');
    expect(formatTime('2027-01-01T00:00:00Z')).toBe('2027-01-01 00:00 UTC');
    expect(formatDay('soon')).toBe('soon');
    expect(formatTime('soon')).toBe('soon');
  });

  it('names an account by display name and studio id, or by studio id alone when it has no name', () => {
    expect(accountLabel(ada)).toBe('Ada (STUDIO_7QF3K2M9X4D1H8TB)');
    expect(accountLabel(erased)).toBe('STUDIO_7QF3K2M9X4D1H8TB');
  });
});

describe('confirmation', () => {
  it('names a reversal by its amount, how and when it came, who asked, and the balance before and after', () => {
    expect(confirmation({ kind: 'reverse', target: ada, entry: grantEntry, balance: 5200 })).toEqual({
      title: 'Reverse a wallet entry',
      effect: 'Reverse +5,000 coin granted 2026-11-20 by admin:STUDIO_OPERATOR00000001; balance 5,200 → 200.',
      button: 'Reverse 5,000 coin',
    });
    expect(
      confirmation({
        kind: 'reverse',
        target: ada,
        entry: { ...grantEntry, kind: 'verify_send_to_account_wallet', amount: 25, actor: '' },
        balance: 25,
      }).effect,
    ).toBe('Reverse +25 coin sent by verify-send 2026-11-20; balance 25 → 0.');
    // a reversal is final, so the page never offers this; the words still say what it is
    expect(
      confirmation({ kind: 'reverse', target: ada, entry: { ...grantEntry, kind: 'reversal', amount: -5000 }, balance: 0 }).effect,
    ).toBe('Reverse −5,000 coin reversed 2026-11-20 by admin:STUDIO_OPERATOR00000001; balance 0 → 5,000.');
    expect(confirmation({ kind: 'reverse', target: ada, entry: grantEntry, balance: 100 }).effect).toBe(
      'Reverse +5,000 coin granted 2026-11-20 by admin:STUDIO_OPERATOR00000001; balance 100 → −4,900: more than the account holds, so the service will refuse it.',
    );
  });

  it('names a grant by its amount, its account and the balance it leaves', () => {
    expect(confirmation({ kind: 'grant', target: ada, amount: 250, balance: 5200 })).toEqual({
      title: 'Grant coin',
      effect: 'Grant +250 coin to Ada (STUDIO_7QF3K2M9X4D1H8TB); balance 5,200 → 5,450.',
      button: 'Grant 250 coin',
    });
  });

  it('says what sessions, bans and their lifting do', () => {
    expect(confirmation({ kind: 'revoke', target: ada }).effect).toBe(
      'End every session of Ada (STUDIO_7QF3K2M9X4D1H8TB): each token issued until now is refused, on every device, and the player signs in again.',
    );
    expect(confirmation({ kind: 'ban', target: ada, until: null }).effect).toBe(
      'Ban Ada (STUDIO_7QF3K2M9X4D1H8TB) without end; their sessions end now and their tokens are refused until someone lifts the ban.',
    );
    expect(confirmation({ kind: 'ban', target: ada, until: '2027-01-01T00:00:00Z' }).effect).toBe(
      'Ban Ada (STUDIO_7QF3K2M9X4D1H8TB) until 2027-01-01 00:00 UTC; their sessions end now and their tokens are refused until then.',
    );
    expect(confirmation({ kind: 'unban', target: ada, bannedAt: '2026-11-20T10:00:00Z', until: null })).toEqual({
      title: 'Lift the ban',
      effect:
        'Lift the ban on Ada (STUDIO_7QF3K2M9X4D1H8TB) (banned 2026-11-20 10:00 UTC, without end); tokens issued since the ban are let in again.',
      button: 'Lift the ban',
    });
    expect(confirmation({ kind: 'unban', target: ada, bannedAt: '2026-11-20T10:00:00Z', until: '2026-12-01T00:00:00Z' }).effect).toContain(
      'until 2026-12-01 00:00 UTC',
    );
    expect(confirmation({ kind: 'revoke', target: ada })).toMatchObject({ title: 'Revoke sessions', button: 'Revoke sessions' });
    expect(confirmation({ kind: 'ban', target: ada, until: null })).toMatchObject({ title: 'Ban the account', button: 'Ban' });
  });

  it('asks for the studio id to be typed before an erasure, and says what goes and what stays', () => {
    const c = confirmation({ kind: 'erase', target: ada });
    expect(c).toEqual({
      title: 'Erase personal data',
      effect:
        'Erase the personal data of Ada (STUDIO_7QF3K2M9X4D1H8TB) and close the account for good: the display name, username, name search entry, wallet entry notes and external links are removed; balances and histories stay. This cannot be undone.',
      button: 'Erase and close',
      typed: 'STUDIO_7QF3K2M9X4D1H8TB',
    });
    const others: PlannedAction[] = [
      { kind: 'grant', target: ada, amount: 1, balance: 0 },
      { kind: 'revoke', target: ada },
      { kind: 'ban', target: ada, until: null },
    ];
    for (const a of others) expect(confirmation(a).typed).toBeUndefined();
  });
});

describe('corrections and the ledger check', () => {
  const grant = {
    sourceRef: 'bag-grant:drop-2026-11-20-0042',
    definitionId: 'MATL-20260601090000-000101-F469B3E9',
    name: 'Iron Ore',
    quantity: 5,
    at: '2026-11-20T23:59:00Z',
  };
  const item = {
    studioUuid: grantEntry.entryId,
    definitionId: 'ITEM-20260601093000-00010D-B1F512C1',
    name: 'Ashmere Shortsword',
    state: 'owned',
    character: '',
  };

  it('names a bag grant’s reversal with the units held before and after', () => {
    expect(confirmation({ kind: 'bag-reverse', target: ada, grant, held: 12 })).toEqual({
      title: 'Reverse a bag grant',
      effect: `Take back 5 × Iron Ore granted 2026-11-20 (bag-grant:drop-2026-11-20-0042) from Ada (${ada.studioId}); held 12 → 7.`,
      button: 'Take back 5',
    });
    // a name not known yet: the definition id; more than is held: the refusal foretold
    expect(confirmation({ kind: 'bag-reverse', target: erased, grant: { ...grant, name: '', quantity: 1200 }, held: 3 }).effect).toBe(
      `Take back 1,200 × ${grant.definitionId} granted 2026-11-20 (${grant.sourceRef}) from ${erased.studioId}; held 3 → −1,197: more than the account holds, so the service will refuse it.`,
    );
    expect(confirmation({ kind: 'bag-reverse', target: ada, grant, held: 5 }).effect).toMatch(/; held 5 → 0\.$/);
    expect(confirmation({ kind: 'bag-reverse', target: ada, grant: { ...grant, quantity: 1200 }, held: 1200 }).button).toBe(
      'Take back 1,200',
    );
  });

  it('names a void with the item, its state and its character', () => {
    expect(confirmation({ kind: 'void', target: ada, item })).toEqual({
      title: 'Void a unique item',
      effect: `Void Ashmere Shortsword (item ${item.studioUuid}, owned) of Ada (${ada.studioId}): it is no longer owned or wearable, no event may follow, and it stays in its history.`,
      button: 'Void the item',
    });
    expect(confirmation({ kind: 'void', target: ada, item: { ...item, state: 'equipped', character: 'Hero' } }).effect).toContain(
      `(item ${item.studioUuid}, equipped by Hero)`,
    );
    expect(confirmation({ kind: 'void', target: ada, item: { ...item, state: 'assigned', character: 'Hero' } }).effect).toContain(
      `(item ${item.studioUuid}, assigned to Hero)`,
    );
    expect(confirmation({ kind: 'void', target: erased, item: { ...item, name: '' } }).effect).toMatch(
      new RegExp(`^Void ${item.definitionId} \\(item .* of ${erased.studioId}: `),
    );
  });

  it('says what a run of the ledger check will do', () => {
    const tail =
      ', verifying each account’s hash chain and balance, each posting against its transfer and each reversal’s links for up to its time budget; the result is kept with the scheduled runs, and a broken invariant raises the alert.';
    expect(confirmation({ kind: 'verify', check: { pass: null, over: false } })).toEqual({
      title: 'Run the ledger check',
      effect: `Run the ledger check now: it starts the first pass${tail}`,
      button: 'Run the check',
    });
    expect(confirmation({ kind: 'verify', check: { pass: 3, over: true } }).effect).toBe(
      `Run the ledger check now: it starts pass 4${tail}`,
    );
    expect(confirmation({ kind: 'verify', check: { pass: 3, over: false } }).effect).toBe(
      `Run the ledger check now: it continues pass 3 where the last run stopped${tail}`,
    );
    expect(confirmation({ kind: 'verify', check: { pass: 3, over: false } }).typed).toBeUndefined();
  });
});

describe('intentSummary', () => {
  it('says in one sentence what a pending intent was', () => {
    const t = 'STUDIO_7QF3K2M9X4D1H8TB';
    expect(intentSummary({ action: 'grant-coin', target: t, params: { amount: 250, reason: 'outage' } })).toBe(
      `Grant +250 coin to ${t} (reason: “outage”).`,
    );
    expect(intentSummary({ action: 'reversal', target: t, params: { entryId: grantEntry.entryId, reason: 'typo' } })).toBe(
      `Reverse entry ${grantEntry.entryId} of ${t} (reason: “typo”).`,
    );
    expect(intentSummary({ action: 'revoke-sessions', target: t, params: { reason: 'stolen' } })).toBe(
      `Revoke the sessions of ${t} (reason: “stolen”).`,
    );
    expect(intentSummary({ action: 'ban', target: t, params: { reason: 'fraud', until: null } })).toBe(
      `Ban ${t} without end (reason: “fraud”).`,
    );
    expect(intentSummary({ action: 'ban', target: t, params: { reason: 'fraud', until: '2027-01-01T00:00:00Z' } })).toBe(
      `Ban ${t} until 2027-01-01 00:00 UTC (reason: “fraud”).`,
    );
    expect(intentSummary({ action: 'unban', target: t, params: { reason: 'appeal' } })).toBe(`Lift the ban on ${t} (reason: “appeal”).`);
    expect(intentSummary({ action: 'erase', target: t, params: { reason: 'request' } })).toBe(
      `Erase the personal data of ${t} (reason: “request”).`,
    );
    expect(intentSummary({ action: 'bag-reversal', target: t, params: { sourceRef: 'bag-grant:drop-0042', reason: 'twice' } })).toBe(
      `Take back the bag grant bag-grant:drop-0042 of ${t} (reason: “twice”).`,
    );
    expect(intentSummary({ action: 'item-void', target: t, params: { studioUuid: grantEntry.entryId, reason: 'dupe' } })).toBe(
      `Void item ${grantEntry.entryId} of ${t} (reason: “dupe”).`,
    );
    expect(intentSummary({ action: 'item-void', target: t, params: { studioUuid: grantEntry.entryId } })).toBe(
      `Void item ${grantEntry.entryId} of ${t}.`,
    );
  });
});
