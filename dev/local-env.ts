/**
 * The environment of the local tools (`npm start`, `npm run token`, `npm run accounts`,
 * `npm run ledger:verify`, `npm run assets`): the process environment marked as the local runtime
 * (`LOCAL_RUNTIME=1`, so unset drivers default to the embedded SQLite store and local storage; rule 1 of
 * `api/_lib/config.ts`) plus, when neither `JWT_SECRET` nor `JWT_JWKS_URL`
 * is set and we are not on Vercel, a development `JWT_SECRET` kept in `DATA_DIR/dev-jwt-secret`
 * (48 random bytes, base64url, file mode 0600, created on first use). The local server and the token
 * CLI read the same file, so a token minted with `npm run token` is accepted by `npm start` on a fresh
 * machine without any configuration. The functions themselves never invent a secret: on Vercel the
 * variable must be set (README, "Configuration").
 *
 * Likewise, when no external platform is configured (`EXTERNAL_AUTH_JWKS_URL`) and we are not on Vercel,
 * external login points at the local stand-in platform of `dev/external-platform.ts`, whose JWKS the
 * local server serves (provider `local`).
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadServiceConfig, processEnvironment, type Environment } from '../api/_lib/config.js';
import { ServiceError } from '../api/_lib/errors.js';
import { openLedgerStore } from '../api/_lib/ledger/store.js';
import type { LedgerStore } from '../api/_lib/ledger/types.js';
import { PLATFORM_AUDIENCE, PLATFORM_ISSUER, PLATFORM_JWKS_PATH } from './external-platform.js';

/** Name of the development secret file under `DATA_DIR`. */
export const DEV_SECRET_FILE = 'dev-jwt-secret';

/**
 * `env` marked as the local runtime: `LOCAL_RUNTIME=1` unless `env` sets it (rule 1 of
 * `api/_lib/config.ts`: unset drivers then default to the embedded ones). The local server applies it to
 * whatever environment it is given.
 */
export function asLocalRuntime(env: Environment): Environment {
  return { LOCAL_RUNTIME: '1', ...env };
}

/**
 * The process environment marked as the local runtime ({@link asLocalRuntime}), with the development
 * secret and the stand-in platform added where none is configured; on Vercel, `base` as it is.
 * @param base base environment; default the process environment.
 * @throws ConfigError when the base environment is invalid (the caller reports it).
 */
export function localEnvironment(base: Environment = processEnvironment()): Environment {
  const config = loadServiceConfig(base);
  if (config.onVercel) return base;
  const env = asLocalRuntime(base);
  const platform: Environment =
    config.externalAuth.kind === 'none'
      ? {
          EXTERNAL_AUTH_JWKS_URL: `http://localhost:${config.port}${PLATFORM_JWKS_PATH}`,
          EXTERNAL_AUTH_ISSUER: PLATFORM_ISSUER,
          EXTERNAL_AUTH_AUDIENCE: PLATFORM_AUDIENCE,
          EXTERNAL_AUTH_PROVIDER: env.EXTERNAL_AUTH_PROVIDER ?? 'local',
        }
      : {};
  if (config.jwt.keys.kind !== 'none') return { ...env, ...platform };
  const file = join(config.dataDir, DEV_SECRET_FILE);
  let secret: string;
  try {
    secret = readFileSync(file, 'utf8').trim();
  } catch {
    secret = '';
  }
  if (secret.length < 43) {
    mkdirSync(config.dataDir, { recursive: true });
    secret = randomBytes(48).toString('base64url');
    writeFileSync(file, secret + '\n', { mode: 0o600 });
  }
  return { ...env, ...platform, JWT_SECRET: secret };
}

/** Where a local CLI writes and which environment it reads (tests pass their own). */
export interface CliIo {
  /** Standard output; default `process.stdout`. */
  readonly out?: (text: string) => void;
  /** Standard error; default `process.stderr`. */
  readonly err?: (text: string) => void;
  /** Environment; default the process environment. */
  readonly env?: Environment;
}

/** {@link CliIo} with its defaults filled in. */
export function withDefaults(io: CliIo): Required<CliIo> {
  return {
    out: io.out ?? ((t) => void process.stdout.write(t)),
    err: io.err ?? ((t) => void process.stderr.write(t)),
    env: io.env ?? processEnvironment(),
  };
}

/**
 * Open the ledger store the configuration names, for a CLI; reports to `err` and resolves to an exit
 * code instead when it cannot (2 bad configuration, 3 store unreachable).
 */
export async function openConfiguredStore(io: Required<CliIo>): Promise<LedgerStore | 2 | 3> {
  try {
    return await openLedgerStore(loadServiceConfig(localEnvironment(io.env)).store);
  } catch (e) {
    io.err(`${(e as Error).message}\n`);
    return e instanceof ServiceError ? 3 : 2;
  }
}
