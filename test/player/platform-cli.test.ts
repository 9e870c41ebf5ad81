/**
 * The local stand-in platform of `npm start` (dev/external-platform.ts, spec 5.5): the local environment
 * points external login at it only when no platform is configured (never on Vercel), its key is kept
 * private (0600) and stable across runs, and `npm run platform-token` prints a token that verifies
 * against the JWKS the local server serves, with the issuer and audience the environment names.
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLocalJWKSet, jwtVerify } from 'jose';
import { afterAll, describe, expect, it } from 'vitest';
import { localEnvironment } from '../../dev/local-env.js';
import { main, PLATFORM_AUDIENCE, PLATFORM_ISSUER, PLATFORM_KEY_FILE, platformJwks } from '../../dev/external-platform.js';

const dir = mkdtempSync(join(tmpdir(), 'platform-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function run(argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(argv, { out: (t) => out.push(t), err: (t) => err.push(t), env: { DATA_DIR: dir } });
  return { code, out: out.join(''), err: err.join('') };
}

describe('the local stand-in platform', () => {
  it('is what external login points at locally, unless a platform is configured or we are on Vercel', () => {
    const env = localEnvironment({ DATA_DIR: dir, PORT: '4123' });
    expect(env).toMatchObject({
      EXTERNAL_AUTH_JWKS_URL: 'http://localhost:4123/dev/external-platform/jwks.json',
      EXTERNAL_AUTH_ISSUER: PLATFORM_ISSUER,
      EXTERNAL_AUTH_AUDIENCE: PLATFORM_AUDIENCE,
      EXTERNAL_AUTH_PROVIDER: 'local',
    });
    expect(localEnvironment({ DATA_DIR: dir, EXTERNAL_AUTH_PROVIDER: 'steam' }).EXTERNAL_AUTH_PROVIDER).toBe('steam');
    const configured = {
      DATA_DIR: dir,
      EXTERNAL_AUTH_JWKS_URL: 'https://platform.example/jwks',
      EXTERNAL_AUTH_ISSUER: 'i',
      EXTERNAL_AUTH_AUDIENCE: 'a',
    };
    expect(localEnvironment(configured)).toMatchObject(configured);
    const withSecret = localEnvironment({ DATA_DIR: dir, JWT_SECRET: 'platform-cli-Kx9mQ2vL-7TzWd4Rn8cHy' });
    expect(withSecret.EXTERNAL_AUTH_ISSUER).toBe(PLATFORM_ISSUER);
    expect(localEnvironment({ VERCEL: '1' })).toEqual({ VERCEL: '1' });
  });

  it('prints a token that verifies against its JWKS, from a private key kept across runs', async () => {
    const first = await run(['--user', '76561198000000001', '--name', 'Ada']);
    expect(first.code).toBe(0);
    expect(statSync(join(dir, PLATFORM_KEY_FILE)).mode & 0o777).toBe(0o600);
    const jwks = await platformJwks(dir);
    expect(jwks.keys).toHaveLength(1);
    expect(jwks.keys[0]).not.toHaveProperty('d');
    const { payload } = await jwtVerify(first.out.trim(), createLocalJWKSet(jwks), {
      issuer: PLATFORM_ISSUER,
      audience: PLATFORM_AUDIENCE,
    });
    expect(payload).toMatchObject({ sub: '76561198000000001', preferred_username: 'Ada' });
    expect(payload.exp! - payload.iat!).toBe(600);
    const second = await run(['--user', 'other', '--ttl', '60']);
    await jwtVerify(second.out.trim(), createLocalJWKSet(await platformJwks(dir)), {
      issuer: PLATFORM_ISSUER,
      audience: PLATFORM_AUDIENCE,
    });
  });

  it('refuses bad arguments with exit code 2 and the usage', async () => {
    for (const argv of [[], ['--user', 'has space'], ['--user', 'ok', '--ttl', '0'], ['--user', 'ok', '--ttl', '86401'], ['--nope']]) {
      const r = await run(argv);
      expect(r.code, argv.join(' ')).toBe(2);
      expect(r.err).toMatch(/Usage: npm run platform-token/);
      expect(r.out).toBe('');
    }
  });
});
