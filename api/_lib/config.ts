/**
 * Service configuration: the only module that reads `process.env` (docs/architecture.md,
 * "Configuration"). Every variable the service uses is read here once, validated as a whole (every bad
 * variable reported together, each with what to set), frozen and passed down typed.
 *
 * Variables (README "Configuration" lists the same table):
 *
 * | variable | default | used by |
 * |---|---|---|
 * | `CATALOG_DIR` | `dist` | the catalog reader; relative paths resolve against the project root (the folder holding `api/`), never the working directory |
 * | `STORE_DRIVER` | `sqlite` off Vercel, unset on Vercel | ledger and accounts store: `sqlite` (embedded, file under `DATA_DIR`) or `redis` (Upstash) |
 * | `UPSTASH_REDIS_REST_URL`, `UPSTASH_REDIS_REST_TOKEN` | - | with `STORE_DRIVER=redis`: the REST URL and token of an Upstash database (production) |
 * | `REDIS_URL` | - | with `STORE_DRIVER=redis`, instead of the two above: `redis://host:port[/db]` of a `redis-server` reached over RESP (local runs and tests; may carry a password, held as a secret) |
 * | `DATA_DIR` | `.data` | folder of the embedded stores (SQLite file, local storage); relative to the project root |
 * | `STORAGE_DRIVER` | `local` off Vercel, unset on Vercel | binary storage (spec 4.7): `local` (files under `DATA_DIR/storage`) or `s3` |
 * | `STORAGE_PUBLIC_URL` | `http://localhost:${PORT}/storage` | public URL prefix of objects stored by the `local` driver (the local server serves them there) |
 * | `S3_ENDPOINT`, `S3_BUCKET`, `S3_ACCESS_KEY_ID`, `S3_SECRET_ACCESS_KEY`, `S3_PUBLIC_URL` | - | required with `STORAGE_DRIVER=s3` (spec 4.7) |
 * | `S3_REGION` | `us-east-1` | with `STORAGE_DRIVER=s3` |
 * | `JWT_ISSUER` | `game-data-service` | `iss` of the tokens we issue and accept (spec 5.2) |
 * | `JWT_AUDIENCE` | `game-api` | `aud` of the tokens we issue and accept |
 * | `JWT_SECRET` | - | HS256 shared secret, at least 32 bytes; exclusive with `JWT_JWKS_URL` |
 * | `JWT_JWKS_URL` | - | https URL of a remote JWKS (asymmetric keys; http only on 127.0.0.1/localhost); exclusive with `JWT_SECRET` |
 * | `JWT_CLOCK_TOLERANCE_S` | `5` | seconds of clock skew accepted on `exp`/`nbf`/`iat`, 0-300 |
 * | `JWT_MAX_AGE_S` | `86400` (24 h) | oldest token accepted, in seconds since its `iat`, whatever its `exp` says; 60 to 2,592,000 (30 days) |
 * | `EXTERNAL_AUTH_JWKS_URL` | - (the local stand-in off Vercel, see `dev/local-env.ts`) | JWKS of the external platform whose tokens `POST /api/auth/external` accepts (spec 5.5; https, http only on 127.0.0.1/localhost); unset disables external login (503) |
 * | `EXTERNAL_AUTH_ISSUER`, `EXTERNAL_AUTH_AUDIENCE` | - | required with `EXTERNAL_AUTH_JWKS_URL`: the `iss` and `aud` the platform's tokens carry |
 * | `EXTERNAL_AUTH_PROVIDER` | `platform` | name of the platform: the prefix of the usernames of accounts it creates (`<provider>:<external user id>`), 1-32 of a-z, 0-9, `_`, `-` |
 * | `ADMIN_PASSWORD` | - | value of the `X-Admin-Password` header for admin routes (spec 5.3); at least 16 characters; unset disables the header |
 * | `WALLET_VERIFY_SEND_MAX` | `1000` | largest verify-send amount in integer coin units (spec 4.8, 8), 1 to 1,000,000,000 |
 * | `STORAGE_MAX_FILE_BYTES` | `104857600` (100 MiB) | largest file one upload (or one archive, or one archive entry) may hold, 1 byte to 5 GiB; larger is 413 |
 * | `PORT` | `3000` | port of the local server (`npm start`) |
 * | `VERCEL` | - | set to `1` by Vercel: embedded drivers are refused, drivers have no default |
 *
 * Drivers: choosing a driver makes that driver's variables required. On Vercel (`VERCEL=1`) functions
 * can write only to `/tmp`, so the embedded drivers (`sqlite`, `local`) are refused with a message naming
 * the variables to set; an unset driver on Vercel leaves that part unconfigured (its routes answer 503
 * and the catalog keeps working), so a catalog-only deployment needs no store.
 *
 * Secrets (`UPSTASH_REDIS_REST_TOKEN`, `S3_SECRET_ACCESS_KEY`, `JWT_SECRET`, `ADMIN_PASSWORD`) are held
 * in {@link Secret}, which never prints its value; configuration errors name variables, never values.
 */
import { timingSafeEqual, createHash } from 'node:crypto';
import { isAbsolute, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { inspect } from 'node:util';

/** Project root: the folder holding `api/` (this file is `api/_lib/config.ts`). On Vercel, `/var/task`. */
export const PROJECT_ROOT: string = fileURLToPath(new URL('../../', import.meta.url)).replace(/[\\/]$/, '');

/**
 * A secret value (token, password, key) that never shows itself: `String(secret)`, `JSON.stringify`
 * and `util.inspect` all print `[redacted]`. Read the value with {@link Secret.reveal} only where it is
 * used, and compare it with {@link Secret.equals} (constant time).
 */
export class Secret {
  readonly #value: string;
  constructor(value: string) {
    this.#value = value;
  }
  /** The value itself; pass it only to the client library that needs it. */
  reveal(): string {
    return this.#value;
  }
  /**
   * Constant-time comparison with a candidate (e.g. a request header). Both sides are hashed with
   * SHA-256 first, so neither the content nor the length of the secret leaks through timing.
   */
  equals(candidate: string): boolean {
    const a = createHash('sha256').update(this.#value, 'utf8').digest();
    const b = createHash('sha256').update(candidate, 'utf8').digest();
    return timingSafeEqual(a, b);
  }
  toString(): string {
    return '[redacted]';
  }
  toJSON(): string {
    return '[redacted]';
  }
  [inspect.custom](): string {
    return 'Secret([redacted])';
  }
}

/** Ledger and account store (spec 1.7, 4.8): embedded SQLite file or Upstash Redis over REST. */
export type StoreConfig =
  | { readonly driver: 'sqlite'; readonly file: string }
  | { readonly driver: 'redis'; readonly protocol: 'rest'; readonly url: string; readonly token: Secret }
  | { readonly driver: 'redis'; readonly protocol: 'resp'; readonly url: Secret }
  | { readonly driver: 'none'; readonly reason: string };

/** Binary storage (spec 4.7): local folder or any S3-compatible endpoint. */
export type StorageConfig =
  | { readonly driver: 'local'; readonly dir: string; readonly publicUrl: string }
  | {
      readonly driver: 's3';
      readonly endpoint: string;
      readonly bucket: string;
      readonly accessKeyId: string;
      readonly secretAccessKey: Secret;
      readonly region: string;
      readonly publicUrl: string;
    }
  | { readonly driver: 'none'; readonly reason: string };

/** Token settings (spec 5.2, 5.3): issuer, audience, one key source, clock tolerance in seconds. */
export interface JwtConfig {
  readonly issuer: string;
  readonly audience: string;
  /** Where verification keys come from: an HS256 shared secret, a remote JWKS, or none configured. */
  readonly keys:
    { readonly kind: 'secret'; readonly secret: Secret } | { readonly kind: 'jwks'; readonly url: string } | { readonly kind: 'none' };
  /** Accepted clock skew on `exp`/`nbf`/`iat`, seconds. */
  readonly clockToleranceS: number;
  /** Oldest token accepted, seconds since its `iat` (spec 5.2; `api/_lib/auth/tokens.ts`). */
  readonly maxAgeS: number;
}

/** Validated, frozen service configuration. */
export interface ServiceConfig {
  /** True when running on Vercel (`VERCEL=1`). */
  readonly onVercel: boolean;
  /** Absolute path of the catalog output folder the functions read. */
  readonly catalogDir: string;
  /** Absolute path of the data folder of the embedded stores. */
  readonly dataDir: string;
  readonly store: StoreConfig;
  readonly storage: StorageConfig;
  readonly jwt: JwtConfig;
  /** The external platform whose identities may log in (spec 5.5). */
  readonly externalAuth: ExternalAuthConfig;
  /** `X-Admin-Password` value (spec 5.3); undefined disables password admin access. */
  readonly adminPassword: Secret | undefined;
  /** Largest verify-send amount, integer coin units (spec 4.8, 8). */
  readonly walletVerifySendMax: number;
  /** Largest uploaded file, bytes (spec 4.7). */
  readonly storageMaxFileBytes: number;
  /** Port of the local server. */
  readonly port: number;
}

/** External login (spec 5.5): off, or an asymmetric-key JWT platform with its JWKS. */
export type ExternalAuthConfig =
  | { readonly kind: 'none' }
  | { readonly kind: 'jwks'; readonly provider: string; readonly url: string; readonly issuer: string; readonly audience: string };

/** One configuration problem: the variable and what to set. Never carries the variable's value. */
export interface ConfigProblem {
  readonly variable: string;
  readonly message: string;
}

/** Thrown by {@link loadServiceConfig}: every invalid variable at once. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
  constructor(readonly problems: readonly ConfigProblem[]) {
    super('Invalid configuration:\n' + problems.map((p) => `  ${p.variable}: ${p.message}`).join('\n'));
  }
}

/** The environment as a plain map of strings (e.g. `process.env`). */
export type Environment = Readonly<Record<string, string | undefined>>;

/** Read variables in one pass and collect problems (helpers of {@link loadServiceConfig}). */
class Reader {
  readonly problems: ConfigProblem[] = [];
  constructor(private readonly env: Environment) {}

  /** Trimmed value; blank counts as unset. */
  get(name: string): string | undefined {
    const v = this.env[name]?.trim();
    return v === undefined || v === '' ? undefined : v;
  }
  problem(variable: string, message: string): void {
    this.problems.push({ variable, message });
  }
  required(name: string, why: string): string {
    const v = this.get(name);
    if (v === undefined) this.problem(name, `is required ${why}.`);
    return v ?? '';
  }
  oneOf<T extends string>(name: string, values: readonly T[]): T | undefined {
    const v = this.get(name);
    if (v === undefined) return undefined;
    const hit = values.find((x) => x === v.toLowerCase());
    if (hit === undefined) this.problem(name, `must be one of ${values.join(', ')}.`);
    return hit;
  }
  int(name: string, fallback: number, min: number, max: number, what: string): number {
    const v = this.get(name);
    if (v === undefined) return fallback;
    if (!/^\d+$/.test(v) || Number(v) < min || Number(v) > max) {
      this.problem(name, `must be a whole number from ${min} to ${max} (${what}).`);
      return fallback;
    }
    return Number(v);
  }
  url(name: string, value: string | undefined, httpsOnly = false): string | undefined {
    if (value === undefined || value === '') return value;
    let u: URL;
    try {
      u = new URL(value);
    } catch {
      this.problem(name, 'must be an absolute URL such as https://example.com.');
      return undefined;
    }
    // https only for remote keys, except on the loopback interface (a local identity server, tests)
    const loopback = u.protocol === 'http:' && ['127.0.0.1', '[::1]', 'localhost'].includes(u.hostname);
    const ok = httpsOnly ? u.protocol === 'https:' || loopback : u.protocol === 'https:' || u.protocol === 'http:';
    if (!ok)
      this.problem(
        name,
        httpsOnly ? 'must be an https:// URL (http:// only on 127.0.0.1 or localhost).' : 'must be an http:// or https:// URL.',
      );
    if (u.username || u.password) this.problem(name, 'must not carry credentials; use the dedicated variables.');
    return value.replace(/\/+$/, '');
  }
  folder(name: string, fallback: string): string {
    const v = this.get(name) ?? fallback;
    if (v.includes('\0')) this.problem(name, 'must be a folder path.');
    return isAbsolute(v) ? v : resolve(PROJECT_ROOT, v);
  }
}

const truthy = (v: string | undefined): boolean => v !== undefined && !['', '0', 'false'].includes(v.trim().toLowerCase());

/**
 * Read and validate the configuration from `env`.
 * @param env variables; default `process.env`.
 * @returns the frozen {@link ServiceConfig}.
 * @throws ConfigError listing every invalid or missing variable, each with what to set.
 */
export function loadServiceConfig(env: Environment = process.env): ServiceConfig {
  const r = new Reader(env);
  const onVercel = truthy(env.VERCEL);
  const catalogDir = r.folder('CATALOG_DIR', 'dist');
  const dataDir = r.folder('DATA_DIR', '.data');

  // Ledger and accounts store.
  const storeDriver = r.oneOf('STORE_DRIVER', ['sqlite', 'redis'] as const) ?? (onVercel ? undefined : 'sqlite');
  let store: StoreConfig;
  const respUrl = r.get('REDIS_URL');
  if (storeDriver === 'redis' && respUrl !== undefined) {
    if (r.get('UPSTASH_REDIS_REST_URL') !== undefined)
      r.problem(
        'REDIS_URL',
        'set either REDIS_URL (a redis-server over RESP) or UPSTASH_REDIS_REST_URL and UPSTASH_REDIS_REST_TOKEN (Upstash over REST), not both.',
      );
    if (!/^rediss?:\/\/[^/?#\s]+(\/\d{1,2})?$/.test(respUrl))
      r.problem('REDIS_URL', 'must look like redis://host:port or redis://host:port/db.');
    store = { driver: 'redis', protocol: 'resp', url: new Secret(respUrl) };
  } else if (storeDriver === 'redis') {
    const why = 'with STORE_DRIVER=redis (the REST URL and token of an Upstash Redis database; or set REDIS_URL for a redis-server)';
    const url = r.url('UPSTASH_REDIS_REST_URL', r.required('UPSTASH_REDIS_REST_URL', why)) ?? '';
    store = { driver: 'redis', protocol: 'rest', url, token: new Secret(r.required('UPSTASH_REDIS_REST_TOKEN', why)) };
  } else if (storeDriver === 'sqlite') {
    if (onVercel) {
      r.problem(
        'STORE_DRIVER',
        'sqlite is an embedded store and Vercel functions can write only to /tmp; set STORE_DRIVER=redis with UPSTASH_REDIS_REST_URL and UPSTASH_REDIS_REST_TOKEN.',
      );
    }
    store = { driver: 'sqlite', file: resolve(dataDir, 'ledger.sqlite') };
  } else {
    store = {
      driver: 'none',
      reason: 'No ledger store is configured: set STORE_DRIVER=redis with UPSTASH_REDIS_REST_URL and UPSTASH_REDIS_REST_TOKEN.',
    };
  }

  const port = r.int('PORT', 3000, 0, 65535, 'TCP port');

  // Binary storage.
  const storageDriver = r.oneOf('STORAGE_DRIVER', ['local', 's3'] as const) ?? (onVercel ? undefined : 'local');
  let storage: StorageConfig;
  if (storageDriver === 's3') {
    const why = 'with STORAGE_DRIVER=s3 (spec 4.7)';
    const endpoint = r.url('S3_ENDPOINT', r.required('S3_ENDPOINT', why)) ?? '';
    const bucket = r.required('S3_BUCKET', why);
    if (bucket && !/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(bucket))
      r.problem('S3_BUCKET', 'must be a bucket name: 3-63 lower-case letters, digits, dots and hyphens.');
    const accessKeyId = r.required('S3_ACCESS_KEY_ID', why);
    const secretAccessKey = new Secret(r.required('S3_SECRET_ACCESS_KEY', why));
    const publicUrl = r.url('S3_PUBLIC_URL', r.required('S3_PUBLIC_URL', why)) ?? '';
    storage = { driver: 's3', endpoint, bucket, accessKeyId, secretAccessKey, region: r.get('S3_REGION') ?? 'us-east-1', publicUrl };
  } else if (storageDriver === 'local') {
    if (onVercel) {
      r.problem(
        'STORAGE_DRIVER',
        'local writes files and Vercel functions can write only to /tmp; set STORAGE_DRIVER=s3 with S3_ENDPOINT, S3_BUCKET, S3_ACCESS_KEY_ID, S3_SECRET_ACCESS_KEY, S3_REGION and S3_PUBLIC_URL.',
      );
    }
    const publicUrl = r.url('STORAGE_PUBLIC_URL', r.get('STORAGE_PUBLIC_URL') ?? `http://localhost:${port}/storage`) ?? '';
    storage = { driver: 'local', dir: resolve(dataDir, 'storage'), publicUrl };
  } else {
    storage = {
      driver: 'none',
      reason:
        'No binary storage is configured: set STORAGE_DRIVER=s3 with S3_ENDPOINT, S3_BUCKET, S3_ACCESS_KEY_ID, S3_SECRET_ACCESS_KEY, S3_REGION and S3_PUBLIC_URL.',
    };
  }

  // Tokens.
  const secret = r.get('JWT_SECRET');
  const jwksUrl = r.url('JWT_JWKS_URL', r.get('JWT_JWKS_URL'), true);
  let keys: JwtConfig['keys'] = { kind: 'none' };
  if (secret !== undefined && r.get('JWT_JWKS_URL') !== undefined) {
    r.problem('JWT_SECRET', 'set either JWT_SECRET (HS256) or JWT_JWKS_URL (remote keys), not both.');
  } else if (secret !== undefined) {
    if (Buffer.byteLength(secret, 'utf8') < 32)
      r.problem(
        'JWT_SECRET',
        'must be at least 32 bytes (HS256 needs a key as long as its hash); generate one with `openssl rand -base64 48`.',
      );
    keys = { kind: 'secret', secret: new Secret(secret) };
  } else if (jwksUrl !== undefined) {
    keys = { kind: 'jwks', url: jwksUrl };
  }
  const jwt: JwtConfig = {
    issuer: r.get('JWT_ISSUER') ?? 'game-data-service',
    audience: r.get('JWT_AUDIENCE') ?? 'game-api',
    keys,
    clockToleranceS: r.int('JWT_CLOCK_TOLERANCE_S', 5, 0, 300, 'seconds of clock skew'),
    maxAgeS: r.int('JWT_MAX_AGE_S', 86_400, 60, 2_592_000, 'seconds a token is accepted after its iat'),
  };

  // External login.
  const provider = r.get('EXTERNAL_AUTH_PROVIDER') ?? 'platform';
  if (!/^[a-z0-9_-]{1,32}$/.test(provider)) r.problem('EXTERNAL_AUTH_PROVIDER', 'must be 1-32 of a-z, 0-9, _ and -.');
  const externalUrl = r.url('EXTERNAL_AUTH_JWKS_URL', r.get('EXTERNAL_AUTH_JWKS_URL'), true);
  let externalAuth: ExternalAuthConfig = { kind: 'none' };
  if (r.get('EXTERNAL_AUTH_JWKS_URL') !== undefined) {
    const why = 'with EXTERNAL_AUTH_JWKS_URL (the claim the external platform puts in its tokens)';
    externalAuth = {
      kind: 'jwks',
      provider,
      url: externalUrl ?? '',
      issuer: r.required('EXTERNAL_AUTH_ISSUER', why),
      audience: r.required('EXTERNAL_AUTH_AUDIENCE', why),
    };
  }

  const admin = r.get('ADMIN_PASSWORD');
  if (admin !== undefined && admin.length < 16)
    r.problem('ADMIN_PASSWORD', 'must be at least 16 characters (or unset, which disables the X-Admin-Password header).');

  const config: ServiceConfig = {
    onVercel,
    catalogDir,
    dataDir,
    store,
    storage,
    jwt,
    externalAuth,
    adminPassword: admin === undefined ? undefined : new Secret(admin),
    walletVerifySendMax: r.int('WALLET_VERIFY_SEND_MAX', 1000, 1, 1_000_000_000, 'integer coin units'),
    storageMaxFileBytes: r.int('STORAGE_MAX_FILE_BYTES', 100 * 1024 * 1024, 1, 5 * 1024 * 1024 * 1024, 'bytes'),
    port,
  };
  if (r.problems.length > 0) throw new ConfigError(r.problems);
  return deepFreeze(config);
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !(value instanceof Secret)) {
    for (const v of Object.values(value)) deepFreeze(v);
    Object.freeze(value);
  }
  return value;
}

let current: ServiceConfig | undefined;
const listeners = new Set<() => void>();

/**
 * The process-wide configuration: `loadServiceConfig(process.env)` on first use, unless
 * {@link useServiceConfig} set one.
 * @throws ConfigError when the environment is invalid (answered as a 503 that names nothing internal).
 */
export function getServiceConfig(): ServiceConfig {
  current ??= loadServiceConfig(process.env);
  return current;
}

/**
 * Put `config` in force for this process (the local server passes its own, tests pass theirs);
 * `undefined` returns to the environment. Every service built from the previous configuration (catalog
 * cache, stores) is dropped through the listeners of {@link onConfigChange}.
 */
export function useServiceConfig(config: ServiceConfig | undefined): void {
  current = config;
  for (const l of listeners) l();
}

/**
 * Register a function that drops state built from the configuration (caches, store clients); called by
 * {@link useServiceConfig}. Services are otherwise built once per process.
 */
export function onConfigChange(listener: () => void): void {
  listeners.add(listener);
}

/**
 * A service built once per process from the configuration in force (docs/architecture.md,
 * "Configuration"): the first call opens it with `open(getServiceConfig())`; a failed open is forgotten,
 * so the next call tries again; a new configuration ({@link useServiceConfig}) closes the service with
 * `close` (errors ignored) and the next call opens another.
 * @returns the getter; it rejects as `open` does.
 */
export function oncePerConfiguration<T>(open: (config: ServiceConfig) => Promise<T>, close: (service: T) => unknown): () => Promise<T> {
  let built: Promise<T> | undefined;
  onConfigChange(() => {
    const old = built;
    built = undefined;
    void old?.then(close).catch(() => undefined);
  });
  return () => {
    if (!built) {
      const p = open(getServiceConfig());
      built = p;
      p.catch(() => {
        if (built === p) built = undefined;
      });
    }
    return built;
  };
}

/** The process environment, for tools that add overrides before {@link loadServiceConfig} (local server, CLIs). */
export function processEnvironment(): Environment {
  return process.env;
}
