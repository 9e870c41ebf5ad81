// The audit log and ledger health as the console words them (site/admin/audit.ts; docs/architecture.md,
// "Audit log", "Scheduled verification", "Operator console"): who a record names and the filter that finds
// their records, what a request did, the route's query for the view's filters, the UTC times of the filter
// form, and the health panel's sentences.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  AUDIT_PAGE,
  REFUSAL_REASONS,
  actorFilter,
  actorText,
  auditQuery,
  counted,
  failureText,
  outcomeText,
  passText,
  runText,
  totalsText,
  utcInputTime,
  utcInputValue,
  type LedgerPass,
} from '../../site/admin/audit.js';
import { auditState } from '../../site/admin/state.js';

const ACCOUNT = '5f0e2c1a-9b8d-4e7f-a6b5-c4d3e2f1a0b9';

describe('who and what', () => {
  it('names each kind of actor, and the filter that finds their records', () => {
    const token = { via: 'token' as const, subject: 'STUDIO_OPERATOR00000001', role: 'admin' };
    expect(
      [token, { via: 'password' as const }, { via: 'cron' as const }, { via: 'none' as const }].map((a) => [actorText(a), actorFilter(a)]),
    ).toEqual([
      ['admin:STUDIO_OPERATOR00000001', 'STUDIO_OPERATOR00000001'],
      ['admin password', 'admin-password'],
      ['scheduled run (cron)', 'cron'],
      ['nobody verified', 'anonymous'],
    ]);
  });

  it('says what a request did', () => {
    expect([true, false, null].map(outcomeText)).toEqual(['changed', 'nothing changed', 'failed on the way']);
  });

  it('words every refused authentication', () => {
    expect(REFUSAL_REASONS).toEqual({
      'invalid-token': 'the token was not valid',
      'role-not-allowed': 'the token’s role may not do this',
      'wrong-password': 'the admin password was wrong',
      'no-credentials': 'no credentials were sent',
    });
    expect(Object.isFrozen(REFUSAL_REASONS)).toBe(true);
  });
});

describe('auditQuery', () => {
  it('sends the filters that are set, in pages of 50 unless told', () => {
    expect(AUDIT_PAGE).toBe(50);
    expect(auditQuery(auditState())).toEqual({ limit: 50 });
    expect(auditQuery({ ...auditState({ account: ACCOUNT, to: '2026-11-20T00:00:00Z' }), cursor: 'c1' }, 7)).toEqual({
      account: ACCOUNT,
      to: '2026-11-20T00:00:00Z',
      cursor: 'c1',
      limit: 7,
    });
    const all = { actor: 'a', account: 'b', route: 'c', from: 'd', to: 'e', cursor: 'f' };
    expect(auditQuery(all)).toEqual({ ...all, limit: 50 });
  });

  it('never sends an empty member (property)', () => {
    const f = fc.record({
      actor: fc.string(),
      account: fc.string(),
      route: fc.string(),
      from: fc.string(),
      to: fc.string(),
      cursor: fc.string(),
    });
    fc.assert(
      fc.property(f, (filters) => {
        const q = auditQuery(filters);
        for (const [k, v] of Object.entries(q)) if (k !== 'limit') expect(v).toBe(filters[k as keyof typeof filters]);
        for (const [k, v] of Object.entries(filters)) expect(k in q).toBe(v !== '');
      }),
    );
  });
});

describe('the filter form’s UTC times', () => {
  it('shows an ISO time in a datetime-local field, read as UTC', () => {
    expect(utcInputValue('2026-11-20T10:05:00Z')).toBe('2026-11-20T10:05');
    expect(utcInputValue('2026-11-20T12:05:59+02:00')).toBe('2026-11-20T10:05');
    expect(utcInputValue('not a time')).toBe('');
    expect(utcInputValue('')).toBe('');
  });

  it('reads a field as the ISO time in UTC, empty as no filter, anything else as undefined', () => {
    expect(utcInputTime('2026-11-20T10:05')).toBe('2026-11-20T10:05:00Z');
    expect(utcInputTime('')).toBe('');
    for (const bad of [
      '2026-11-20',
      '2026-11-20T10:05:00',
      ' 2026-11-20T10:05',
      '2026-11-20T10:05 ',
      '2026-13-45T10:05',
      'x2026-11-20T10:05',
      // times Date.parse takes, which a datetime-local field never gives
      '2026-11-20 10:05',
      '+002026-11-20T10:05',
    ])
      expect(utcInputTime(bad), bad).toBeUndefined();
  });

  it('round-trips every minute (property)', () => {
    const minute = fc
      .date({ min: new Date('1970-01-01T00:00:00Z'), max: new Date('9999-12-31T23:59:00Z'), noInvalidDate: true })
      .map((d) => {
        d.setUTCSeconds(0, 0);
        return d.toISOString().slice(0, 16);
      });
    fc.assert(
      fc.property(minute, (v) => {
        expect(utcInputValue(utcInputTime(v)!)).toBe(v);
      }),
    );
  });
});

describe('the health panel', () => {
  const pass: NonNullable<LedgerPass> = {
    pass: 3,
    startedAt: '2026-11-20T10:05:00Z',
    accountsChecked: 12,
    postingsChecked: 1340,
    failures: 0,
    after: '',
    start: { transfers: 40, issuerSeq: 40 },
  };

  it('counts with the noun in the singular for one', () => {
    expect([counted(0, 'account'), counted(1, 'account'), counted(2, 'posting'), counted(1200, 'posting')]).toEqual([
      '0 accounts',
      '1 account',
      '2 postings',
      '1,200 postings',
    ]);
  });

  it('says where the pass stands', () => {
    expect(passText(null)).toBe('No check has run yet.');
    expect(passText(pass)).toBe(
      'Pass 3, started 2026-11-20 10:05 UTC, is under way: 12 accounts and 1,340 postings checked, no failure so far.',
    );
    expect(
      passText({ ...pass, failures: 1, accountsChecked: 1, postingsChecked: 1, current: { accountId: ACCOUNT, seq: 5, targetSeq: 9 } }),
    ).toBe(
      `Pass 3, started 2026-11-20 10:05 UTC, is under way: 1 account and 1 posting checked, 1 failure so far; account ${ACCOUNT} is checked to seq 5 of 9.`,
    );
    expect(passText({ ...pass, failures: 2, finishedAt: '2026-11-20T10:06:00Z' })).toBe(
      'Pass 3, started 2026-11-20 10:05 UTC, finished 2026-11-20 10:06 UTC: 12 accounts and 1,340 postings checked, 2 failures.',
    );
  });

  it('says whether the totals were checked', () => {
    expect(totalsText(undefined)).toBe('Totals not checked yet (the pass is not over).');
    expect(totalsText({ checked: true, transfers: 1, madeDuringPass: 0 })).toBe('Totals checked: 1 transfer.');
    expect(totalsText({ checked: true, transfers: 1200, madeDuringPass: 3 })).toBe('Totals checked: 1,200 transfers.');
    expect(totalsText({ checked: false, transfers: 40, madeDuringPass: 1 })).toBe(
      'Totals not checked: 1 transfer was made during the pass (they wait for a quiet pass).',
    );
    expect(totalsText({ checked: false, transfers: 40, madeDuringPass: 3 })).toBe(
      'Totals not checked: 3 transfers were made during the pass (they wait for a quiet pass).',
    );
  });

  it('names a broken invariant with its seq, or none for the totals', () => {
    expect(failureText({ invariant: 2, account: ACCOUNT, seq: 5, message: 'the hash does not chain' })).toBe(
      'Invariant 2, seq 5: the hash does not chain',
    );
    expect(failureText({ invariant: 4, message: 'balances sum to 7' })).toBe('Invariant 4: balances sum to 7');
  });

  it('says a run in one line', () => {
    const run = {
      runId: '9b0c5f3e-1111-4222-8333-944455556666',
      trigger: 'operator' as const,
      startedAt: '2026-11-20T10:05:00Z',
      finishedAt: '2026-11-20T10:05:01Z',
      durationMs: 1200,
      budgetMs: 5000,
      pass: 3,
      passStarted: false,
      passFinished: false,
      accountsChecked: 1,
      postingsChecked: 340,
      failures: [],
      failuresOmitted: 0,
    };
    expect(runText(run)).toBe(
      'Run by an operator, 2026-11-20 10:05 UTC, 1,200 ms of 5,000: continued pass 3, 1 account, 340 postings, no failure.',
    );
    expect(runText({ ...run, trigger: 'cli', passStarted: true, passFinished: true })).toMatch(
      /^Run by the command line, .*: the whole of pass 3, /,
    );
    expect(runText({ ...run, trigger: 'cron', passStarted: true })).toMatch(/^Run by the schedule, .*: started pass 3, /);
    expect(runText({ ...run, passFinished: true })).toMatch(/: finished pass 3, /);
    expect(runText({ ...run, failures: [{ invariant: 1, message: 'm' }], failuresOmitted: 0 })).toMatch(/, 1 failure\.$/);
    expect(runText({ ...run, failures: [{ invariant: 1, message: 'm' }], failuresOmitted: 4 })).toMatch(/, 5 failures\.$/);
    expect(runText({ ...run, failuresOmitted: 1 })).toMatch(/, 1 failure\.$/);
  });
});
