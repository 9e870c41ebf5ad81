// Who is throttled and how (api/_lib/throttle/policy.ts), over a throttle store the test controls: which budget
// and key each request counts against, the 429s, and what happens when the store cannot be reached or fails.
import { afterAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { loadServiceConfig, useServiceConfig, type ThrottleConfig } from '../../api/_lib/config.js';
import { ServiceError } from '../../api/_lib/errors.js';
import type { Budget, ThrottleStore, Verdict } from '../../api/_lib/throttle/types.js';
import { captureLog } from '../helpers/log.js';

/** What the store is asked, as `method budget key`, and how it answers. */
const calls: string[] = [];
let answer: (budget: Budget, key: string) => Promise<Verdict> = () => Promise.resolve({ allowed: true, resetAtMs: 0 });

const store: ThrottleStore = {
  driver: 'memory',
  hit: (b, k) => {
    calls.push(`hit ${b?.name ?? 'no budget'} ${k}`);
    return answer(b, k);
  },
  peek: (b, k) => {
    calls.push(`peek ${b?.name ?? 'no budget'} ${k}`);
    return answer(b, k);
  },
  refund: async (b, k) => {
    calls.push(`refund ${b?.name ?? 'no budget'} ${k}`);
    await answer(b, k);
  },
  close: () => Promise.resolve(),
};

vi.mock('../../api/_lib/throttle/store.js', () => ({ throttleStore: () => Promise.resolve(store) }));

const { admitWrite, budgetsOf, clientOf, countAuthFailure, reserveAuthAttempt, settleAuthAttempt, UNKNOWN_CLIENT } =
  await import('../../api/_lib/throttle/policy.js');

const BUDGETS: ThrottleConfig = {
  authFailures: 3,
  authWindowS: 60,
  clientWrites: 8,
  accountWrites: 4,
  serverWrites: 6,
  writeWindowS: 30,
};
/** A configuration without a store (the throttle's store is the test's own) and the budgets `throttle` changes. */
const base = loadServiceConfig({});
const useBudgets = (throttle: Partial<ThrottleConfig> = {}) => useServiceConfig({ ...base, throttle: { ...BUDGETS, ...throttle } });

const unreachable = () => Promise.reject(new ServiceError('UPSTREAM_UNAVAILABLE', 'The throttle store cannot be reached.'));
const refuseKey = (key: string) => (_: Budget, k: string) => Promise.resolve({ allowed: k !== key, resetAtMs: 0 });

const log = captureLog();

beforeEach(() => {
  calls.length = 0;
  answer = () => Promise.resolve({ allowed: true, resetAtMs: 0 });
  useBudgets();
});
afterAll(() => useServiceConfig(undefined));

describe('the client address', () => {
  const req = (headers: Record<string, string>) => new Request('http://t/', { headers });

  it('is the first x-forwarded-for address without the spaces around it', () => {
    expect(clientOf(req({ 'x-forwarded-for': '198.51.100.1 , 10.0.0.1' }))).toBe('198.51.100.1');
  });

  it("is 'unknown' without an address", () => {
    expect(clientOf(req({}))).toBe('unknown');
    expect(UNKNOWN_CLIENT).toBe('unknown');
  });
});

describe('the budgets of a configuration', () => {
  it('names each budget, with its limit and window', () => {
    expect(budgetsOf(BUDGETS)).toEqual({
      authFailures: { name: 'auth-failures', limit: 3, windowS: 60 },
      clientWrites: { name: 'client-writes', limit: 8, windowS: 30 },
      accountWrites: { name: 'account-writes', limit: 4, windowS: 30 },
      serverWrites: { name: 'server-writes', limit: 6, windowS: 30 },
    });
  });

  it('leaves a budget of limit 0 out', () => {
    expect(budgetsOf({ ...BUDGETS, authFailures: 0, clientWrites: 0, accountWrites: 0, serverWrites: 0 })).toEqual({});
    const one = budgetsOf({ ...BUDGETS, accountWrites: 0 });
    expect(one.accountWrites).toBeUndefined();
    expect(one.clientWrites).toBeDefined();
    expect(budgetsOf({ ...BUDGETS, accountWrites: 1 }).accountWrites?.limit).toBe(1);
  });
});

describe('sign-in attempts', () => {
  const request = () => ({ client: '203.0.113.9', requestId: 'req-1' });

  it('reserve a place of the client’s failed-authentication budget', async () => {
    await expect(reserveAuthAttempt(request())).resolves.toBe(true);
    expect(calls).toEqual(['hit auth-failures client:203.0.113.9']);
  });

  it('are refused with 429 and Retry-After of one window and a second once the budget is spent', async () => {
    answer = refuseKey('client:203.0.113.9');
    const refused = await reserveAuthAttempt(request()).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(ServiceError);
    expect(refused).toMatchObject({
      code: 'TOO_MANY_REQUESTS',
      message: 'Too many failed sign-ins from this address; try again in 61 seconds.',
      headers: { 'Retry-After': '61' },
    });
  });

  it('take no place with the budget off, and ask no store', async () => {
    useBudgets({ authFailures: 0 });
    await expect(reserveAuthAttempt(request())).resolves.toBe(false);
    await countAuthFailure(request());
    await settleAuthAttempt(request(), false);
    expect(calls).toEqual([]);
  });

  it('go on when the store cannot be reached, logged once per request', async () => {
    answer = unreachable;
    const r = request();
    await expect(reserveAuthAttempt(r)).resolves.toBe(false);
    await settleAuthAttempt(r, false);
    await countAuthFailure(r);
    const lines = log.events('throttle-unavailable');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: 'warn', message: 'The throttle store cannot be reached.', requestId: 'req-1' });
    await reserveAuthAttempt(request());
    expect(log.events('throttle-unavailable')).toHaveLength(2);
  });

  it('let any other failure of the store through', async () => {
    answer = () => Promise.reject(new ServiceError('INTERNAL', 'broken'));
    await expect(reserveAuthAttempt(request())).rejects.toMatchObject({ code: 'INTERNAL' });
    answer = () => Promise.reject(new TypeError('not a service error'));
    await expect(reserveAuthAttempt(request())).rejects.toBeInstanceOf(TypeError);
  });

  it('give the place back when the credentials were good, and keep it when refused', async () => {
    await settleAuthAttempt(request(), true);
    expect(calls).toEqual([]);
    await settleAuthAttempt(request(), false);
    expect(calls).toEqual(['refund auth-failures client:203.0.113.9']);
  });

  it('count a failure of a remembered credential on the client’s budget', async () => {
    await countAuthFailure(request());
    expect(calls).toEqual(['hit auth-failures client:203.0.113.9']);
  });

  it('never throw when settled or counted, and log what failed', async () => {
    answer = () => Promise.reject(new Error('store broke'));
    await expect(settleAuthAttempt(request(), false)).resolves.toBeUndefined();
    await expect(countAuthFailure(request())).resolves.toBeUndefined();
    expect(log.events('throttle-unavailable').map((l) => [l.level, l.message, l.requestId])).toEqual([
      ['warn', 'store broke', 'req-1'],
      ['warn', 'store broke', 'req-1'],
    ]);
  });
});

describe('writes', () => {
  const request = () => ({ client: '198.51.100.4', requestId: 'req-2' });

  it('of an anonymous client count on the client’s budget', async () => {
    await admitWrite({ kind: 'anonymous' }, request());
    expect(calls).toEqual(['hit client-writes client:198.51.100.4']);
  });

  it('of a player count on the client’s and the account’s budgets', async () => {
    await admitWrite({ kind: 'player', subject: 'acc-1' }, request());
    expect(calls.sort()).toEqual(['hit account-writes account:acc-1', 'hit client-writes client:198.51.100.4']);
  });

  it('of a game server count on the server’s budget alone', async () => {
    await admitWrite({ kind: 'game-server', subject: 'srv-1' }, request());
    expect(calls).toEqual(['hit server-writes server:srv-1']);
  });

  it('count on no budget that is off', async () => {
    useBudgets({ clientWrites: 0, accountWrites: 0, serverWrites: 0 });
    await admitWrite({ kind: 'anonymous' }, request());
    await admitWrite({ kind: 'player', subject: 'acc-1' }, request());
    await admitWrite({ kind: 'game-server', subject: 'srv-1' }, request());
    expect(calls).toEqual([]);
    useBudgets({ clientWrites: 0 });
    await admitWrite({ kind: 'player', subject: 'acc-1' }, request());
    expect(calls).toEqual(['hit account-writes account:acc-1']);
  });

  it('are refused by the budget that is spent, saying which', async () => {
    const cases = [
      [{ kind: 'anonymous' }, 'client:198.51.100.4', 'Too many changes from this address; try again in 31 seconds.'],
      [{ kind: 'player', subject: 'acc-1' }, 'client:198.51.100.4', 'Too many changes from this address; try again in 31 seconds.'],
      [{ kind: 'player', subject: 'acc-1' }, 'account:acc-1', 'Too many changes for this account; try again in 31 seconds.'],
      [{ kind: 'game-server', subject: 'srv-1' }, 'server:srv-1', 'Too many changes from this game server; try again in 31 seconds.'],
    ] as const;
    for (const [writer, key, message] of cases) {
      answer = refuseKey(key);
      await expect(admitWrite(writer, request()), key).rejects.toMatchObject({
        code: 'TOO_MANY_REQUESTS',
        message,
        headers: { 'Retry-After': '31' },
      });
    }
  });

  it('go on when the store cannot be reached, logged once for the request', async () => {
    answer = unreachable;
    await expect(admitWrite({ kind: 'player', subject: 'acc-1' }, request())).resolves.toBeUndefined();
    expect(calls).toHaveLength(2);
    expect(log.events('throttle-unavailable')).toHaveLength(1);
  });
});
