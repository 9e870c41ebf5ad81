/**
 * The Redis ledger keeps an account's access (sessions and ban) per instance for at most
 * `ACCESS_CACHE_MS` (docs/architecture.md, "Sessions and bans"; spec 5.3): a change made through another
 * instance holds here once that time has passed, one made through this instance at once; a read past the
 * window goes to the server again.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { ACCESS_CACHE_MS } from '../../api/_lib/ledger/redis.js';
import { redisBackend } from '../helpers/backends.js';
import { openRedisLedgerOn } from '../helpers/ledger.js';
import { newAccount } from '../helpers/ledger-ops.js';

const backend = redisBackend();
beforeAll(() => backend.setup(), 30_000);
afterAll(() => backend.teardown());
afterEach(() => vi.useRealTimers());

describe('access cache (Redis)', () => {
  it('sees another instance’s ban within ACCESS_CACHE_MS, at once when read fresh, and its own change at once', async () => {
    const here = openRedisLedgerOn(await backend.fresh());
    const there = openRedisLedgerOn(await backend.reopen());
    const a = newAccount();
    await here.createAccount({ account: a, clientKey: undefined, fingerprint: 'f' });
    vi.useFakeTimers({ toFake: ['Date'], now: Date.parse('2026-11-28T12:00:00.000Z') });
    expect(await here.access(a.accountId)).toEqual({});
    const ban = { reason: 'r', at: '2026-11-28T12:00:00.000Z' };
    await there.changeAccess({ accountId: a.accountId, change: { kind: 'ban', at: 1_800_000_000, ban }, key: undefined, fingerprint: 'x' });
    // within the window this instance still answers what it read…
    vi.advanceTimersByTime(ACCESS_CACHE_MS - 1);
    expect(await here.access(a.accountId)).toEqual({});
    // …but for a fresh read (a login's last check), which goes to the server and remembers what it read
    expect(await here.access(a.accountId, { fresh: true })).toEqual({ sessionsRevokedAt: 1_800_000_000, ban });
    await there.changeAccess({ accountId: a.accountId, change: { kind: 'unban' }, key: undefined, fingerprint: 'w' });
    expect(await here.access(a.accountId)).toEqual({ sessionsRevokedAt: 1_800_000_000, ban });
    await there.changeAccess({ accountId: a.accountId, change: { kind: 'ban', at: 1_800_000_000, ban }, key: undefined, fingerprint: 'v' });
    // …and from its end on, what the server holds
    vi.advanceTimersByTime(1);
    expect(await here.access(a.accountId)).toEqual({ sessionsRevokedAt: 1_800_000_000, ban });
    // a change made here holds here at once, inside the window
    await here.changeAccess({ accountId: a.accountId, change: { kind: 'unban' }, key: undefined, fingerprint: 'y' });
    expect(await here.access(a.accountId)).toEqual({ sessionsRevokedAt: 1_800_000_000 });
    await Promise.all([here.close(), there.close()]);
  });
});
