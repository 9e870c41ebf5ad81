/**
 * Guessing is throttled (docs/api.md "Security", throttled guessing; docs/architecture.md "Throttle";
 * `api/_lib/throttle/policy.ts`: a client that made `RATE_LIMIT_AUTH_FAILURES` failed sign-ins within
 * `RATE_LIMIT_AUTH_WINDOW_S` is refused with 429, `Retry-After` and problem+json for every credential,
 * the right one included, until the window has passed), attacked through the entries on both stores with
 * the real clock and a window of one second: a burst of guesses sent at once gets no more of them judged
 * than the budget allows, the right password hidden in the burst included; knocking on while refused does
 * not lengthen the wait; and once `Retry-After` has passed the right password works again.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { expect, it } from 'vitest';
import { ledgerStore } from '../../api/_lib/ledger/store.js';
import { ADMIN_PASSWORD, admin, call, newPlayer, onEachStore, quietLog, type Answer } from './helpers.js';

quietLog();

const BUDGET = 3;
const from = (ip: string, headers: Record<string, string>) => ({ 'x-real-ip': ip, 'x-forwarded-for': ip, ...headers });

onEachStore('throttle', (store) => {
  it('judges no more guesses of a burst sent at once than the budget allows, and refuses the right password hidden in it', async () => {
    const config = await store.fresh({ RATE_LIMIT_AUTH_FAILURES: String(BUDGET), RATE_LIMIT_AUTH_WINDOW_S: '60' });
    const { studioId, accountId } = await newPlayer(config, 'Bursty');
    const grant = (i: number, headers: Record<string, string>) =>
      call(admin, 'POST', '/api/admin/grant-coin', {
        body: { studioId, amount: 1, reason: 'burst', idempotencyKey: `burst-${String(i).padStart(4, '0')}` },
        headers: from('198.51.100.77', headers),
      });
    const guesses = Array.from({ length: 24 }, (_, i): Record<string, string> =>
      i % 3 === 2 ? { Authorization: `Bearer eyJhbGciOiJIUzI1NiJ9.e30.forged${i}` } : { 'X-Admin-Password': `guess-${i}-Qm8vT3kZ9rLw` },
    );
    const answers: Answer[] = await Promise.all([...guesses.map((h, i) => grant(i, h)), grant(99, { 'X-Admin-Password': ADMIN_PASSWORD })]);
    const judged = answers.slice(0, -1).filter((a) => a.status === 401).length;
    const right = answers[answers.length - 1]!;
    expect({ judged: judged <= BUDGET ? 'within budget' : `${judged} guesses judged`, right: right.status }).toEqual({
      judged: 'within budget',
      right: 429,
    });
    for (const a of answers.filter((x) => x.status === 429)) expect(a.headers.get('retry-after')).toBe('61');
    expect(await (await ledgerStore()).balance(accountId)).toBe(0);
  });

  it('refuses every credential of a guessing client for one tiny window, whatever it keeps sending, then takes the right password again', async () => {
    const config = await store.fresh({ RATE_LIMIT_AUTH_FAILURES: '2', RATE_LIMIT_AUTH_WINDOW_S: '1' });
    const { studioId, accountId } = await newPlayer(config, 'Patient');
    let n = 0;
    const grant = (headers: Record<string, string>, ip = '203.0.113.9') =>
      call(admin, 'POST', '/api/admin/grant-coin', {
        body: { studioId, amount: 5, reason: 'window', idempotencyKey: `window-${String(n++).padStart(4, '0')}` },
        headers: from(ip, headers),
      });
    // start at the beginning of a one-second window, so the guesses and the knocking all fall in it
    await sleep(1000 - (Date.now() % 1000) + 5);
    expect((await grant({ 'X-Admin-Password': 'wrong-guess-1-Kx9mQ2vL' })).status).toBe(401);
    expect((await grant({ Authorization: 'Bearer not.a.token' })).status).toBe(401);
    let refused = await grant({ 'X-Admin-Password': ADMIN_PASSWORD });
    expect([refused.status, refused.body.code, refused.headers.get('retry-after')]).toEqual([429, 'TOO_MANY_REQUESTS', '2']);
    expect(refused.body.detail).toBe('Too many failed sign-ins from this address; try again in 2 seconds.');
    // knocking on while refused: every answer a 429, none counted
    for (let i = 0; i < 6; i++) {
      refused = await grant(i % 2 ? { 'X-Admin-Password': `wrong-${i}-Kx9mQ2vLzz` } : { Authorization: `Bearer forged.${i}.sig` });
      expect(refused.status).toBe(429);
    }
    expect(await (await ledgerStore()).balance(accountId)).toBe(0);
    await sleep(Number(refused.headers.get('retry-after')) * 1000 + 50);
    const back = await grant({ 'X-Admin-Password': ADMIN_PASSWORD });
    expect([back.status, back.body.balance]).toEqual([200, 5]);
  });
});
