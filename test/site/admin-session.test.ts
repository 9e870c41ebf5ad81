// The console's sign-in held for the tab (site/admin/session.ts; docs/architecture.md, "Operator console"):
// only the token is kept, under one key; a token is taken only when it reads as an unexpired, non-guest
// operator's; an expired or unreadable one kept before is forgotten; signing out forgets it.
import { describe, expect, it } from 'vitest';
import { loadServiceConfig } from '../../api/_lib/config.js';
import { mintToken, type Role } from '../../api/_lib/auth/tokens.js';
import { operatorSession } from '../../api/_lib/auth/session.js';
import {
  OPERATOR_ROLES,
  OperatorSession,
  TOKEN_KEY,
  TOKEN_PROBLEMS,
  actorLabel,
  canAct,
  isOperatorRole,
  jwtPayload,
  readClaims,
  type KeyValueStore,
} from '../../site/admin/session.js';

const jwt = loadServiceConfig({ JWT_SECRET: 'console-session-secret-0123456789-abcd' }).jwt;
const NOW_S = 1_800_000_000;
const token = (role: Role, extra: { guest?: boolean; ttlSeconds?: number; now?: number } = {}) =>
  mintToken(jwt, { subject: 'STUDIO_7QF3K2M9X4D1H8TB', role, now: NOW_S - 10, ttlSeconds: 600, ...extra });

/** A storage over a map, with what was written. */
function memory(): KeyValueStore & { readonly map: Map<string, string> } {
  const map = new Map<string, string>();
  return { map, getItem: (k) => map.get(k) ?? null, setItem: (k, v) => void map.set(k, v), removeItem: (k) => void map.delete(k) };
}

/** A hand-made compact JWT with `payload` (no valid signature: the page never checks one). */
const handMade = (payload: unknown) => `eyJhbGciOiJIUzI1NiJ9.${Buffer.from(JSON.stringify(payload)).toString('base64url')}.c2ln`;

describe('reading a token', () => {
  it('reads the payload of a compact JWT, UTF-8 included, and nothing else', async () => {
    expect(jwtPayload(await token('admin'))).toMatchObject({ sub: 'STUDIO_7QF3K2M9X4D1H8TB', role: 'admin' });
    expect(jwtPayload(handMade({ sub: 'Zoë ✓', n: 1 }))).toEqual({ sub: 'Zoë ✓', n: 1 });
    for (const bad of [
      '',
      'a.b',
      'a.b.c.d',
      'a..c',
      'a.b c.d',
      handMade([1, 2]),
      handMade('text'),
      handMade(null),
      'eyJ.!!!.c2ln',
      'a.bm90IGpzb24.c',
    ])
      expect(jwtPayload(bad), bad).toBeUndefined();
    // base64url's own characters, and no padding
    expect(jwtPayload(handMade({ sub: '~~~???' }))).toEqual({ sub: '~~~???' });
    expect(Buffer.from(JSON.stringify({ sub: '~~~???' })).toString('base64url')).toMatch(/-.*_/);
    expect(jwtPayload(handMade({ sub: 'ab' }))).toEqual({ sub: 'ab' });
    // a payload in place, but not three parts of base64url
    const payload = Buffer.from('{"sub":"s"}').toString('base64url');
    for (const bad of [
      `h.${payload}`,
      `h.${payload}.s.x`,
      `.${payload}.s`,
      `h.${payload}.`,
      `h+.${payload}.s`,
      `h.${payload}.s=`,
      `h.${payload}.s/`,
      ` h.${payload}.s`,
    ])
      expect(jwtPayload(bad), bad).toBeUndefined();
    expect(jwtPayload(`h.${payload}.s`)).toEqual({ sub: 's' });
    // not UTF-8, even inside a string
    expect(jwtPayload(`a.${Buffer.from([0x7b, 0xff, 0x7d]).toString('base64url')}.c`)).toBeUndefined();
    expect(
      jwtPayload(`a.${Buffer.concat([Buffer.from('{"a":"'), Buffer.from([0xff]), Buffer.from('"}')]).toString('base64url')}.c`),
    ).toBeUndefined();
  });

  it('takes an unexpired operator token and says why it takes no other', async () => {
    for (const role of ['support', 'admin', 'master'] as const)
      expect(readClaims(await token(role), NOW_S)).toEqual({ subject: 'STUDIO_7QF3K2M9X4D1H8TB', role, expiresAt: NOW_S + 590 });
    for (const role of ['player', 'member', 'server'] as const)
      expect(readClaims(await token(role), NOW_S)).toEqual({ problem: 'not-an-operator' });
    expect(readClaims(await token('admin', { guest: true }), NOW_S)).toEqual({ problem: 'guest' });
    expect(readClaims(handMade({ sub: 's', role: 'admin', exp: NOW_S + 5, guest: 'false' }), NOW_S)).toEqual({ problem: 'guest' });
    expect(readClaims(handMade({ sub: 's', role: 'admin', exp: NOW_S + 5, guest: false }), NOW_S)).toMatchObject({ role: 'admin' });
    expect(readClaims(await token('admin'), NOW_S + 590)).toEqual({ problem: 'expired' });
    expect(readClaims(await token('admin'), NOW_S + 589)).toMatchObject({ role: 'admin' });
    expect(readClaims('nope', NOW_S)).toEqual({ problem: 'malformed' });
    expect(readClaims(handMade({ role: 'admin', exp: NOW_S + 5 }), NOW_S)).toEqual({ problem: 'malformed' });
    expect(readClaims(handMade({ sub: 's', role: 'admin', exp: String(NOW_S + 5) }), NOW_S)).toEqual({ problem: 'malformed' });
    expect(readClaims(`  ${await token('support')}\n`, NOW_S)).toMatchObject({ role: 'support' });
    for (const p of ['malformed', 'not-an-operator', 'expired', 'guest'] as const) expect(TOKEN_PROBLEMS[p]).toMatch(/\.$/);
  });

  it('reads the operator session the service signs from the password', async () => {
    const s = await operatorSession(jwt, NOW_S);
    expect(readClaims(s.token, NOW_S)).toEqual({ subject: 'admin-password', role: 'admin', expiresAt: NOW_S + 900 });
  });

  it('knows which roles may act and how the ledger names the operator', () => {
    expect(OPERATOR_ROLES).toEqual(['support', 'admin', 'master']);
    expect(OPERATOR_ROLES.map(canAct)).toEqual([false, true, true]);
    expect(['player', 'server', undefined, 'ADMIN'].some(isOperatorRole)).toBe(false);
    expect(actorLabel({ subject: 'admin-password', role: 'admin', expiresAt: 0 })).toBe('admin:admin-password');
  });
});

describe('OperatorSession', () => {
  it('keeps the token alone under its key, reads it back, and forgets it on sign-out', async () => {
    const store = memory();
    const s = new OperatorSession(store, () => NOW_S * 1000);
    expect(s.current()).toBeUndefined();
    const t = await token('admin');
    expect(s.signIn(`  ${t} `)).toEqual({ token: t, subject: 'STUDIO_7QF3K2M9X4D1H8TB', role: 'admin', expiresAt: NOW_S + 590 });
    expect([...store.map]).toEqual([[TOKEN_KEY, t]]);
    expect(TOKEN_KEY).toBe('console.operator-token');
    expect(new OperatorSession(store, () => NOW_S * 1000).current()).toEqual({
      token: t,
      subject: 'STUDIO_7QF3K2M9X4D1H8TB',
      role: 'admin',
      expiresAt: NOW_S + 590,
    });
    s.signOut();
    expect(store.map.size).toBe(0);
    expect(s.current()).toBeUndefined();
  });

  it('keeps nothing of a token it does not take', async () => {
    const store = memory();
    const s = new OperatorSession(store, () => NOW_S * 1000);
    expect(s.signIn(await token('player'))).toEqual({ problem: 'not-an-operator' });
    expect(s.signIn('x')).toEqual({ problem: 'malformed' });
    expect(store.map.size).toBe(0);
  });

  it('forgets a kept token once it has expired, or when it no longer reads as an operator’s', async () => {
    const store = memory();
    let now = NOW_S * 1000;
    const s = new OperatorSession(store, () => now);
    s.signIn(await token('support'));
    now = (NOW_S + 590) * 1000;
    expect(s.current()).toBeUndefined();
    expect(store.map.size).toBe(0);
    store.setItem(TOKEN_KEY, await token('player'));
    expect(s.current()).toBeUndefined();
    expect(store.map.size).toBe(0);
  });

  it('treats a storage that throws as holding nothing', () => {
    const broken: KeyValueStore = {
      getItem: () => {
        throw new Error('denied');
      },
      setItem: () => undefined,
      removeItem: () => {
        throw new Error('denied');
      },
    };
    const s = new OperatorSession(broken);
    expect(s.current()).toBeUndefined();
    expect(() => s.signOut()).not.toThrow();
  });
});
