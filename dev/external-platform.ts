/**
 * A local stand-in for an external login platform (spec 5.5), so that `npm start` lets a newcomer try
 * `POST /api/auth/external` without one (docs/guides/player-state.md, "Log in with an external platform"):
 *
 * - a platform signing key (ES256), kept as a private JWK in `DATA_DIR/dev-external-platform.jwk.json`
 *   (file mode 0600, created on first use);
 * - its JWKS, served by the local server at {@link PLATFORM_JWKS_PATH}; `dev/local-env.ts` points
 *   `EXTERNAL_AUTH_JWKS_URL` there (issuer {@link PLATFORM_ISSUER}, audience {@link PLATFORM_AUDIENCE},
 *   provider `local`) when no platform is configured and we are not on Vercel;
 * - `npm run platform-token -- --user <id> [--name <username>] [--ttl SECONDS]` prints a token of that
 *   platform for the user (default lifetime 600 s).
 *
 * Exit codes of the CLI: 0 printed, 2 bad arguments.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';
import { exportJWK, generateKeyPair, importJWK, SignJWT, type JWK } from 'jose';
import { loadServiceConfig } from '../api/_lib/config.js';
import { withDefaults, type CliIo } from './local-env.js';
import { wantsHelp } from './cli.js';

/** Path of the stand-in's JWKS on the local server. */
export const PLATFORM_JWKS_PATH = '/dev/external-platform/jwks.json';
/** `iss` of the stand-in's tokens. */
export const PLATFORM_ISSUER = 'local-platform';
/** `aud` of the stand-in's tokens. */
export const PLATFORM_AUDIENCE = 'game-data-service';
/** Name of the key file under `DATA_DIR`. */
export const PLATFORM_KEY_FILE = 'dev-external-platform.jwk.json';

const KID = 'local-platform-1';

/** The stand-in's private JWK, created on first use. */
export async function platformPrivateJwk(dataDir: string): Promise<JWK> {
  const file = join(dataDir, PLATFORM_KEY_FILE);
  try {
    const jwk = JSON.parse(readFileSync(file, 'utf8')) as JWK;
    if (jwk.kty === 'EC' && typeof jwk.d === 'string') return jwk;
  } catch {
    // absent or unreadable: make a new one
  }
  const { privateKey } = await generateKeyPair('ES256', { extractable: true });
  const jwk = { ...(await exportJWK(privateKey)), kid: KID, alg: 'ES256' };
  mkdirSync(dataDir, { recursive: true });
  writeFileSync(file, JSON.stringify(jwk) + '\n', { mode: 0o600 });
  return jwk;
}

/** The stand-in's JWKS (its public key only). */
export async function platformJwks(dataDir: string): Promise<{ keys: JWK[] }> {
  const jwk = await platformPrivateJwk(dataDir);
  return { keys: [{ kty: jwk.kty, crv: jwk.crv, x: jwk.x, y: jwk.y, kid: jwk.kid, alg: jwk.alg, use: 'sig' }] };
}

/** A token of the stand-in platform for `user`. */
export async function platformToken(dataDir: string, user: string, name: string, ttlSeconds: number): Promise<string> {
  const key = await importJWK(await platformPrivateJwk(dataDir), 'ES256');
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ preferred_username: name })
    .setProtectedHeader({ alg: 'ES256', kid: KID })
    .setIssuer(PLATFORM_ISSUER)
    .setAudience(PLATFORM_AUDIENCE)
    .setSubject(user)
    .setIssuedAt(now)
    .setExpirationTime(now + ttlSeconds)
    .sign(key);
}

const USAGE = `Usage: npm run platform-token -- --user <external user id> [--name <username>] [--ttl SECONDS]

Prints a token of the local stand-in external platform (npm start's; never a real platform's), for
POST /api/auth/external. Signs locally with the key in DATA_DIR; talks to no service.

Options:
  --user <id>        the platform's user id (1-128 of letters, digits, _.:@-)
  --name <username>  its preferred_username (default the id)
  --ttl SECONDS      lifetime, 1 to 86400 (default 600)
  -h, --help         print this help

Example:
  PT=$(npm run -s platform-token -- --user 76561198000000001 --name Ada)
`;

/** Run the CLI; resolves to the exit code. */
export async function main(argv: readonly string[], io: CliIo = {}): Promise<number> {
  const { out, err, env } = withDefaults(io);
  if (wantsHelp(argv)) {
    out(USAGE);
    return 0;
  }
  let values;
  try {
    values = parseArgs({
      args: [...argv],
      options: { user: { type: 'string' }, name: { type: 'string' }, ttl: { type: 'string', default: '600' } },
      strict: true,
    }).values;
  } catch (e) {
    err(`${(e as Error).message}\n${USAGE}`);
    return 2;
  }
  const problems: string[] = [];
  if (!values.user || !/^[A-Za-z0-9_.:@-]{1,128}$/.test(values.user))
    problems.push("--user must be 1-128 letters, digits or _.:@- (the platform's user id).");
  if (!/^\d{1,6}$/.test(values.ttl) || Number(values.ttl) < 1 || Number(values.ttl) > 86_400)
    problems.push('--ttl must be a whole number of seconds from 1 to 86400.');
  if (problems.length > 0) {
    err(problems.join('\n') + `\n${USAGE}`);
    return 2;
  }
  const dataDir = loadServiceConfig(env).dataDir;
  out((await platformToken(dataDir, values.user!, values.name ?? values.user!, Number(values.ttl))) + '\n');
  return 0;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  void main(process.argv.slice(2)).then((code) => process.exit(code));
}
