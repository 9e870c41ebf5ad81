/**
 * The access guards (`api/_lib/auth/guard.ts`, spec 5.3, 5.4) called directly: how the bearer header is
 * read (scheme case, spaces, a token of the wrong alphabet), what each refusal says and which
 * `WWW-Authenticate` it carries, and how an admin was let in (by token, with its principal, or by
 * password).
 */
import { describe, expect, it } from 'vitest';
import { loadServiceConfig } from '../../api/_lib/config.js';
import {
  actsAsGameServer,
  bearerToken,
  GAME_SERVER_ROLES,
  requireAdmin,
  requireCron,
  requireGameServer,
  requireLogin,
  requirePlayerOrGameServer,
  requireSupport,
  SUPPORT_ROLES,
} from '../../api/_lib/auth/guard.js';
import { mintToken, ROLES, type Role } from '../../api/_lib/auth/tokens.js';
import type { ServiceError } from '../../api/_lib/errors.js';
import { refusal, thrownRefusal } from '../helpers/ledger-ops.js';

const config = loadServiceConfig({ JWT_SECRET: 'guard-secret-0123456789-abcdefghijklmn', ADMIN_PASSWORD: 'guard-password-0123456789' });
const req = (headers: Record<string, string>) => new Request('http://t/x', { headers });

describe('bearerToken', () => {
  it('reads the token after the Bearer scheme in any case, with spaces or tabs around it', () => {
    expect(bearerToken(req({}))).toBeUndefined();
    for (const h of ['Bearer abc.def-_~+/=', 'bearer abc.def-_~+/=', 'Bearer   abc.def-_~+/=', 'Bearer\tabc.def-_~+/=  ']) {
      expect(bearerToken(req({ Authorization: h })), h).toBe('abc.def-_~+/=');
    }
  });

  it('refuses another scheme, an empty token, a token of other characters, or trailing words, with error="invalid_request"', () => {
    for (const h of ['Basic abc', 'Bearer', 'Bearer ', 'Bearerabc', 'xBearer abc', 'Bearer abc def', 'Bearer abc!', 'Bearer "abc"']) {
      const e = (() => {
        try {
          bearerToken(req({ Authorization: h }));
        } catch (x) {
          return x as ServiceError;
        }
        throw new Error(`accepted ${h}`);
      })();
      expect(e.code, h).toBe('UNAUTHORIZED');
      expect(e.message).toBe('Send the token as Authorization: Bearer <token>.');
      expect(e.headers['WWW-Authenticate']).toBe('Bearer realm="game-api", error="invalid_request"');
    }
  });
});

describe('requireAdmin', () => {
  it('says how the caller was let in', async () => {
    const t = await mintToken(config.jwt, { subject: 'STUDIO_A', role: 'master' });
    const byToken = await requireAdmin(req({ Authorization: `Bearer ${t}` }), config);
    expect(byToken.via).toBe('token');
    expect(byToken.via === 'token' && byToken.principal).toMatchObject({ subject: 'STUDIO_A', role: 'master', guest: false });
    expect(await requireAdmin(req({ 'X-Admin-Password': 'guard-password-0123456789' }), config)).toEqual({ via: 'password' });
  });

  it('words each refusal for what to send', async () => {
    const none = await refusal(requireAdmin(req({}), config));
    expect([none.code, none.message, none.headers['WWW-Authenticate']]).toEqual([
      'UNAUTHORIZED',
      'This operation needs an admin token or X-Admin-Password.',
      'Bearer realm="game-api"',
    ]);
    const wrong = await refusal(requireAdmin(req({ 'X-Admin-Password': 'nope' }), config));
    expect([wrong.code, wrong.message]).toEqual(['UNAUTHORIZED', 'The credentials are not valid.']);
    const player = await refusal(
      requireAdmin(req({ Authorization: `Bearer ${await mintToken(config.jwt, { subject: 'S', role: 'player' })}` }), config),
    );
    expect([player.code, player.message]).toEqual(['FORBIDDEN', 'This operation needs an admin or master token.']);
    const noPasswordConfigured = loadServiceConfig({ JWT_SECRET: 'guard-secret-0123456789-abcdefghijklmn' });
    expect((await refusal(requireAdmin(req({ 'X-Admin-Password': 'guard-password-0123456789' }), noPasswordConfigured))).message).toBe(
      'The credentials are not valid.',
    );
  });
});

describe('requireCron', () => {
  const CRON = 'cron-Vq8mT2xR7kLp4ZsN9wYb3HcJ';
  const cron = loadServiceConfig({ JWT_SECRET: 'guard-secret-0123456789-abcdefghijklmn', CRON_SECRET: CRON });

  it('lets in the bearer credential that equals CRON_SECRET, as a scheduled call that is no game server', () => {
    const grant = requireCron(req({ Authorization: `Bearer ${CRON}` }), cron);
    expect(grant).toEqual({ via: 'cron' });
    expect(actsAsGameServer(grant)).toBe(false);
  });

  it('refuses a missing, wrong or unconfigured secret with 401, saying what to send', () => {
    const none = thrownRefusal(() => requireCron(req({ 'X-Admin-Password': 'guard-password-0123456789' }), cron));
    expect([none.code, none.message, none.headers['WWW-Authenticate']]).toEqual([
      'UNAUTHORIZED',
      'This operation needs Authorization: Bearer <CRON_SECRET>.',
      'Bearer realm="game-api"',
    ]);
    const unset = loadServiceConfig({ JWT_SECRET: 'guard-secret-0123456789-abcdefghijklmn' });
    for (const [header, c] of [
      [`Bearer ${CRON}x`, cron],
      [`Bearer ${CRON.slice(1)}`, cron],
      [`Bearer ${CRON}`, unset],
    ] as const) {
      const wrong = thrownRefusal(() => requireCron(req({ Authorization: header }), c));
      expect([wrong.code, wrong.message], header).toEqual(['UNAUTHORIZED', 'The credentials are not valid.']);
      expect(wrong.headers['WWW-Authenticate'], header).toMatch(/error="invalid_token"/);
    }
  });
});

describe('requireLogin', () => {
  it('asks for a login without a token, and refuses a guest as not logged in', async () => {
    const none = await refusal(requireLogin(req({}), config));
    expect([none.message, none.headers['WWW-Authenticate']]).toEqual([
      'Log in and send the token as Authorization: Bearer <token>.',
      'Bearer realm="game-api"',
    ]);
    const guest = await refusal(
      requireLogin(req({ Authorization: `Bearer ${await mintToken(config.jwt, { subject: 'S', role: 'player', guest: true })}` }), config),
    );
    expect([guest.message, guest.headers['WWW-Authenticate']]).toEqual([
      'A guest is not logged in.',
      'Bearer realm="game-api", error="invalid_token"',
    ]);
    expect(
      await requireLogin(req({ Authorization: `Bearer ${await mintToken(config.jwt, { subject: 'STUDIO_P', role: 'member' })}` }), config),
    ).toMatchObject({ subject: 'STUDIO_P', role: 'member' });
  });
});

describe('every guard, every role', () => {
  const GUARDS = {
    admin: requireAdmin,
    support: requireSupport,
    'game-server': requireGameServer,
    'player-or-game-server': requirePlayerOrGameServer,
  } as const;
  /** Who each guard lets in (role → admitted), as the README's "Who may do what" and the route table say. */
  const ADMITS: Record<keyof typeof GUARDS, readonly Role[]> = {
    admin: ['admin', 'master'],
    support: ['support', 'admin', 'master'],
    'game-server': ['server', 'admin', 'master'],
    'player-or-game-server': ROLES,
  };
  const FORBIDDEN_WORDS: Record<Exclude<keyof typeof GUARDS, 'player-or-game-server'>, string> = {
    admin: 'This operation needs an admin or master token.',
    support: 'This operation needs a support, admin or master token.',
    'game-server': 'This operation needs a game server, admin or master token.',
  };

  it('lets in exactly the roles it names (403 naming them for another), the password, and no guest', async () => {
    for (const [name, guard] of Object.entries(GUARDS) as [keyof typeof GUARDS, (typeof GUARDS)[keyof typeof GUARDS]][]) {
      for (const role of ROLES) {
        const t = await mintToken(config.jwt, { subject: 'STUDIO_G', role });
        const asked = guard(req({ Authorization: `Bearer ${t}` }), config);
        if (ADMITS[name].includes(role)) {
          const grant = await asked;
          expect(grant.via === 'token' && grant.principal.role, `${name} ${role}`).toBe(role);
        } else {
          const e = await refusal(asked);
          expect([e.code, e.message], `${name} ${role}`).toEqual(['FORBIDDEN', FORBIDDEN_WORDS[name as keyof typeof FORBIDDEN_WORDS]]);
        }
        const guest = await mintToken(config.jwt, { subject: 'STUDIO_G', role, guest: true });
        const g = await refusal(guard(req({ Authorization: `Bearer ${guest}` }), config));
        expect([g.code, g.message, g.headers['WWW-Authenticate']], `${name} guest ${role}`).toEqual([
          'UNAUTHORIZED',
          'A guest is not logged in.',
          'Bearer realm="game-api", error="invalid_token"',
        ]);
      }
      expect(await guard(req({ 'X-Admin-Password': 'guard-password-0123456789' }), config), name).toEqual({ via: 'password' });
      expect((await refusal(guard(req({ 'X-Admin-Password': 'guard-password-0123456789x' }), config))).message, name).toBe(
        'The credentials are not valid.',
      );
    }
  });

  it('tells a game server apart from a player: the password and the server, admin and master roles', async () => {
    expect(GAME_SERVER_ROLES).toEqual(['server', 'admin', 'master']);
    expect(SUPPORT_ROLES).toEqual(['support', 'admin', 'master']);
    expect(actsAsGameServer({ via: 'password' })).toBe(true);
    for (const role of ROLES) {
      const t = await mintToken(config.jwt, { subject: 'STUDIO_G', role });
      const grant = await requirePlayerOrGameServer(req({ Authorization: `Bearer ${t}` }), config);
      expect(actsAsGameServer(grant), role).toBe(GAME_SERVER_ROLES.includes(role));
    }
    const none = await refusal(requirePlayerOrGameServer(req({}), config));
    expect([none.code, none.message, none.headers['WWW-Authenticate']]).toEqual([
      'UNAUTHORIZED',
      'Log in and send the token as Authorization: Bearer <token>.',
      'Bearer realm="game-api"',
    ]);
    const off = loadServiceConfig({ JWT_SECRET: 'guard-secret-0123456789-abcdefghijklmn' });
    for (const guard of Object.values(GUARDS))
      expect((await refusal(guard(req({ 'X-Admin-Password': 'guard-password-0123456789' }), off))).code).toBe('UNAUTHORIZED');
  });
});
