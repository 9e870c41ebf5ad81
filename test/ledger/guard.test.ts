/**
 * The access guards (`api/_lib/auth/guard.ts`, spec 5.3, 5.4) called directly: how the bearer header is
 * read (scheme case, spaces, a token of the wrong alphabet), what each refusal says and which
 * `WWW-Authenticate` it carries, and how an admin was let in (by token, with its principal, or by
 * password).
 */
import { describe, expect, it } from 'vitest';
import { loadServiceConfig } from '../../api/_lib/config.js';
import { bearerToken, requireAdmin, requireLogin } from '../../api/_lib/auth/guard.js';
import { mintToken } from '../../api/_lib/auth/tokens.js';
import type { ServiceError } from '../../api/_lib/errors.js';
import { refusal } from '../helpers/ledger-ops.js';

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
