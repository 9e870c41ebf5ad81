/**
 * Service configuration: the only module that reads `process.env` (docs/architecture.md,
 * "Configuration"). Every variable the service uses is read here once, validated as a whole (every bad
 * variable reported together, each with what to set), frozen and passed down typed. README
 * "Configuration" lists the variables; the rules they follow are these:
 *
 * 1. **Embedded drivers only when chosen, or under the local tools.** `STORE_DRIVER=sqlite` and
 *    `STORAGE_DRIVER=local` are used when set, or, with the driver unset, when `LOCAL_RUNTIME` is set,
 *    which `dev/local-env.ts` does for `npm start` and the CLIs of `dev/` (never set it on a host).
 *    Anywhere else an unset driver leaves its part unconfigured (its routes answer 503 and the log says
 *    what to set): a host that runs several instances would keep one SQLite file per instance (two
 *    functions, two ledgers; a recycled instance loses its accounts), where the ledger and player state
 *    must have one owner (spec 1.7, 1.8). Hosted runtimes are recognised by
 *    their variables (`VERCEL`, `VERCEL_ENV`, `AWS_LAMBDA_FUNCTION_NAME`, `AWS_EXECUTION_ENV`, `NETLIFY`,
 *    `K_SERVICE`, `NODE_ENV=production`; {@link hostedRuntime}) only to word that message, since a host
 *    may hide them. On Vercel (`VERCEL` set, but not to `0` or `false`) functions can write only to `/tmp`,
 *    so the embedded drivers are refused even when set.
 * 2. **Choosing a driver makes that driver's variables required.**
 * 3. **Remote endpoints over TLS.** Every URL the service sends a credential to or hands to clients
 *    (`UPSTASH_REDIS_REST_URL`, `REDIS_URL`, `S3_ENDPOINT`, `S3_PUBLIC_URL`, `JWT_JWKS_URL`,
 *    `EXTERNAL_AUTH_JWKS_URL`, `ALERT_WEBHOOK_URL`) is `https://` (`rediss://` for `REDIS_URL`) except on the loopback interface
 *    (`127.0.0.1`, `[::1]`, `localhost`), and carries no credentials but `REDIS_URL`'s password.
 *    `STORAGE_PUBLIC_URL`, the local server's address for the `local` driver, may be `http://`.
 * 4. **Strong secrets.** Secrets (`JWT_SECRET`, `ADMIN_PASSWORD`, `CRON_SECRET`, `UPSTASH_REDIS_REST_TOKEN`,
 *    `S3_SECRET_ACCESS_KEY`, the password in `REDIS_URL`) are held in {@link Secret}, which never prints its
 *    value, and refused when weak: shorter than their minimum (`JWT_SECRET` 32 bytes, `ADMIN_PASSWORD` and
 *    `CRON_SECRET` 16 characters), or weak by {@link secretWeakness} (few different characters, a short unit repeated, a
 *    well-known placeholder): they guard tokens and the admin header (spec 5.2, 5.3). The secrets that travel in a
 *    header (`ADMIN_PASSWORD`, `CRON_SECRET`, the Upstash token) are refused when they hold a control character (a
 *    line break pasted inside), which no header can carry; the Upstash token also when it holds a space or a quote.
 * 5. **Two halves.** The catalog half is `CATALOG_DIR` alone ({@link getCatalogDir}: search, stats,
 *    export, collections, registries); the stateful half is every other variable
 *    ({@link getServiceConfig}: tokens, the admin password, the stores, storage, external login). A bad
 *    variable of the stateful half makes every stateful route answer 503 naming nothing internal (the
 *    operator's log lists every problem, once) and leaves the catalog routes, public and credential-free
 *    (spec 5.1), answering.
 * 6. **Upstash under Vercel's names.** `KV_REST_API_URL` and `KV_REST_API_TOKEN`, which Vercel's Upstash
 *    integration sets, are second names of `UPSTASH_REDIS_REST_URL` and `UPSTASH_REDIS_REST_TOKEN` (the
 *    names `@upstash/redis`'s `Redis.fromEnv()` falls back to), under the same checks (rules 3 and 4); both
 *    names set to different values is a problem naming both. The integration also sets `REDIS_URL` and
 *    `KV_URL` (`rediss://` to the same database): a `REDIS_URL` whose host is the REST URL's names the same
 *    database, so the REST pair is used and `REDIS_URL` is left aside; a `REDIS_URL` of another host
 *    beside a REST URL is a problem (which database would be meant?). `STORE_DRIVER=redis` is still what
 *    chooses the driver (rule 1); with it unset, the store's message names the REST variable it found.
 *    `KV_REST_API_READ_ONLY_TOKEN` and `KV_URL` are never used; they are blanked out of the log like the
 *    secrets. The read-only token given as the token (the ledger writes), or alone, and `KV_URL` alone, are
 *    problems that say so. Two values of a pair that differ only by trailing slashes are one value; the
 *    REST URL carries no query or fragment.
 *
 * Configuration errors name variables and what to set, never values.
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
  | {
      readonly driver: 'none';
      /** What the log says after `STORE_DRIVER`: why the store is off and what to set (names variables, never values). */
      readonly reason: string;
    };

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
  | {
      readonly driver: 'none';
      /** What the log says after `STORAGE_DRIVER`: why storage is off and what to set. */
      readonly reason: string;
    };

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
  /** True when running on Vercel (`VERCEL` set, but not to `0` or `false`): the embedded drivers are refused. */
  readonly onVercel: boolean;
  /** True under the local tools (`LOCAL_RUNTIME` set, see `dev/local-env.ts`): unset drivers default to the embedded ones. */
  readonly localRuntime: boolean;
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
  /**
   * `CRON_SECRET`: the bearer credential of the scheduled ledger check's `GET` (Vercel Cron sends it as
   * `Authorization: Bearer <CRON_SECRET>`; docs/architecture.md, "Scheduled verification"); undefined turns
   * that access off.
   */
  readonly cronSecret: Secret | undefined;
  /** `ALERT_WEBHOOK_URL`: where the scheduled check POSTs an alert when it finds a broken invariant; undefined: the log line only. */
  readonly alertWebhookUrl: string | undefined;
  /** Largest verify-send amount, integer coin units (spec 4.8, 8). */
  readonly walletVerifySendMax: number;
  /** Largest uploaded file, bytes (spec 4.7). */
  readonly storageMaxFileBytes: number;
  /** Port of the local server. */
  readonly port: number;
  readonly throttle: ThrottleConfig;
}

/**
 * Budgets of the throttle (`api/_lib/throttle/`; docs/api.md, "Security"): each a count per sliding window per
 * key, 0 turning that budget off.
 */
export interface ThrottleConfig {
  /** Failed authentications a client may make per {@link authWindowS} before every credential it sends is refused (429). */
  readonly authFailures: number;
  readonly authWindowS: number;
  /** Writes (POST, PUT, PATCH, DELETE) per client per {@link writeWindowS}, game servers' excepted. */
  readonly clientWrites: number;
  /** Writes per player account (the token's subject) per {@link writeWindowS}. */
  readonly accountWrites: number;
  /** Writes per game-server credential (a server, admin or master token's subject, or the admin password) per {@link writeWindowS}. */
  readonly serverWrites: number;
  readonly writeWindowS: number;
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

/** Host names of the loopback interface, as `URL.hostname` gives them: the only hosts plain `http://` may reach. */
export const LOOPBACK_HOSTS: readonly string[] = Object.freeze(['127.0.0.1', '[::1]', 'localhost']);

/** Fewest different characters a secret must hold (rule 4 of the module header). */
export const SECRET_MIN_DISTINCT = 10;

/**
 * Well-known placeholder secrets, folded (lower case, letters and digits only): a secret that is one of
 * them, or one of them repeated, with any digits before or after, is refused.
 */
export const SECRET_PLACEHOLDERS: readonly string[] = Object.freeze([
  'changeme',
  'changeit',
  'password',
  'passw0rd',
  'secret',
  'mysecret',
  'yoursecret',
  'supersecret',
  'topsecret',
  'secretkey',
  'token',
  'mytoken',
  'yourtoken',
  'apikey',
  'privatekey',
  'admin',
  'letmein',
  'default',
  'example',
  'sample',
  'test',
  'testing',
  'dummy',
  'placeholder',
  'replaceme',
  'todo',
  'fixme',
  'foobar',
  'qwerty',
  'abc123',
  'xxx',
  'none',
  'null',
  'undefined',
  '123456',
]);

/** Length of the shortest unit `chars` repeats (the whole length when it repeats none); Knuth-Morris-Pratt's failure function. */
function smallestPeriod(chars: readonly string[]): number {
  const border = new Array<number>(chars.length).fill(0);
  for (let i = 1, k = 0; i < chars.length; i++) {
    while (k > 0 && chars[i] !== chars[k]) k = border[k - 1]!;
    if (chars[i] === chars[k]) k++;
    border[i] = k;
  }
  return chars.length - (border[chars.length - 1] ?? 0);
}

/** True when `folded` is `unit` repeated a whole number of times. */
const repeats = (folded: string, unit: string): boolean =>
  folded.length % unit.length === 0 && unit.repeat(folded.length / unit.length) === folded;

/**
 * Why a secret is weak, as a phrase that follows its variable's name, or undefined when it is not (rule 4
 * of the module header; the minimum lengths are checked by the caller). A secret is weak when it is a
 * well-known placeholder ({@link SECRET_PLACEHOLDERS}) or one repeated, compared without case,
 * punctuation and surrounding digits; when it is a short unit repeated (`abcabcab`, `aaaa`: a unit at
 * most half its length, the last repetition possibly cut); or when it holds fewer than
 * {@link SECRET_MIN_DISTINCT} different characters. The phrase never contains the value.
 */
export function secretWeakness(value: string): string | undefined {
  const folded = value.toLowerCase().replace(/[^a-z0-9]/g, '');
  const core = folded.replace(/^\d+|\d+$/g, '');
  if (SECRET_PLACEHOLDERS.some((p) => (folded !== '' && repeats(folded, p)) || (core !== '' && repeats(core, p))))
    return 'is a well-known placeholder';
  const chars = Array.from(value);
  if (chars.length > 1 && smallestPeriod(chars) * 2 <= chars.length) return 'repeats a short pattern';
  if (new Set(chars).size < SECRET_MIN_DISTINCT) return `has fewer than ${SECRET_MIN_DISTINCT} different characters`;
  return undefined;
}

/**
 * Variables by which hosted runtimes are recognised, and the runtime each names. Used only to word the
 * message of an unconfigured store (rule 1 of the module header): hosts may hide their variables.
 */
const HOSTED_MARKERS: readonly (readonly [variable: string, runtime: string])[] = [
  ['VERCEL', 'Vercel'],
  ['VERCEL_ENV', 'Vercel'],
  ['AWS_LAMBDA_FUNCTION_NAME', 'AWS Lambda'],
  ['AWS_EXECUTION_ENV', 'AWS'],
  ['NETLIFY', 'Netlify'],
  ['K_SERVICE', 'Google Cloud Run'],
];

/**
 * The hosted runtime `env` shows, for messages: `VERCEL`, `VERCEL_ENV`, `AWS_LAMBDA_FUNCTION_NAME`,
 * `AWS_EXECUTION_ENV`, `NETLIFY` or `K_SERVICE` set to any value, or `NODE_ENV=production`.
 * @returns e.g. `AWS Lambda (AWS_LAMBDA_FUNCTION_NAME is set)`, or undefined when none shows. Never decides
 *   a driver (rule 1 of the module header).
 */
export function hostedRuntime(env: Environment): string | undefined {
  for (const [variable, runtime] of HOSTED_MARKERS) if ((env[variable] ?? '').trim() !== '') return `${runtime} (${variable} is set)`;
  if ((env.NODE_ENV ?? '').trim().toLowerCase() === 'production') return 'a production runtime (NODE_ENV=production)';
  return undefined;
}

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
  /**
   * An absolute URL without credentials, trailing slashes dropped. `remote` (rule 3 of the module header):
   * `https://`, or `http://` on the loopback interface only; `local`: `http://` or `https://`.
   */
  url(name: string, value: string | undefined, kind: 'remote' | 'local'): string | undefined {
    if (value === undefined || value === '') return value;
    let u: URL;
    try {
      u = new URL(value);
    } catch {
      this.problem(name, 'must be an absolute URL such as https://example.com.');
      return undefined;
    }
    const loopback = LOOPBACK_HOSTS.includes(u.hostname);
    const ok = u.protocol === 'https:' || (u.protocol === 'http:' && (kind === 'local' || loopback));
    if (!ok)
      this.problem(
        name,
        kind === 'remote'
          ? 'must be an https:// URL (http:// only on 127.0.0.1, [::1] or localhost).'
          : 'must be an http:// or https:// URL.',
      );
    if (u.username || u.password) this.problem(name, 'must not carry credentials; use the dedicated variables.');
    return value.replace(/\/+$/, '');
  }
  /**
   * A secret, checked by rule 4 of the module header: with `header`, no control character (`token`: no
   * space or quote either); at least `min` (`unit` bytes of UTF-8 or characters), then
   * {@link secretWeakness}; `set` says what to set instead. One problem at most.
   */
  secret(
    name: string,
    value: string,
    set: string,
    min?: { readonly length: number; readonly unit: 'bytes' | 'characters'; readonly why: string },
    header: 'header' | 'token' | undefined = undefined,
  ): Secret {
    const length = min?.unit === 'bytes' ? Buffer.byteLength(value, 'utf8') : value.length;
    // a header carries no control character; a token as a console shows it holds no space or quote either
    if (header !== undefined && /[\u0000-\u001f\u007f]/.test(value))
      this.problem(name, `holds a line break or another control character, which no header can carry; ${set}.`);
    else if (header === 'token' && /[\s"'`]/.test(value))
      this.problem(name, `holds a space or a quote: set the token alone, as the console shows it; ${set}.`);
    else if (min !== undefined && length < min.length) this.problem(name, `must be at least ${min.length} ${min.unit}${min.why}; ${set}.`);
    else {
      const weak = secretWeakness(value);
      if (weak !== undefined) this.problem(name, `is weak: it ${weak}; ${set}.`);
    }
    return new Secret(value);
  }
  /**
   * A variable that has a second name (rule 6 of the module header): the value under `names[0]`, else
   * under `names[1]`, with the name it was found under (`names[0]` when neither is set). Both set to
   * values that are not the `same` (default: equal) is a problem naming both, never their values.
   */
  aliased(
    names: readonly [primary: string, alias: string],
    same: (a: string, b: string) => boolean = (a, b) => a === b,
  ): { readonly name: string; readonly value: string | undefined } {
    const [primary, alias] = names;
    const a = this.get(primary);
    const b = this.get(alias);
    if (a !== undefined && b !== undefined && !same(a, b))
      this.problem(
        primary,
        `and ${alias} are both set and differ; they name the same setting (${alias} is the name Vercel's Upstash integration sets): remove one or give both the same value.`,
      );
    if (a === undefined && b !== undefined) return { name: alias, value: b };
    return { name: primary, value: a };
  }
  folder(name: string, fallback: string): string {
    const v = this.get(name) ?? fallback;
    if (v.includes('\0')) this.problem(name, 'must be a folder path.');
    return isAbsolute(v) ? v : resolve(PROJECT_ROOT, v);
  }
}

/**
 * The Upstash REST variables and their second names (rule 6 of the module header): the names
 * `@upstash/redis`'s `Redis.fromEnv()` falls back to, which Vercel's Upstash integration sets.
 */
export const UPSTASH_ALIASES = Object.freeze([
  Object.freeze(['UPSTASH_REDIS_REST_URL', 'KV_REST_API_URL'] as const),
  Object.freeze(['UPSTASH_REDIS_REST_TOKEN', 'KV_REST_API_TOKEN'] as const),
] as const);

/** True when two URLs parse and name the same host (case-insensitive); false when either does not parse. */
function sameHost(a: string, b: string): boolean {
  try {
    return new URL(a).hostname.toLowerCase() === new URL(b).hostname.toLowerCase();
  } catch {
    return false;
  }
}

/** True when two URLs are one once trailing slashes are dropped (rule 6 of the module header). */
const sameUrl = (a: string, b: string): boolean => a.replace(/\/+$/, '') === b.replace(/\/+$/, '');

const truthy = (v: string | undefined): boolean => v !== undefined && !['', '0', 'false'].includes(v.trim().toLowerCase());

/** What to set for a random secret of our own. */
const RANDOM_SECRET = 'set a random value, e.g. the output of `openssl rand -base64 48`';

/** Where the stores run when no driver is set, for the operator (rule 1 of the module header). */
function unsetDriverWhy(env: Environment, embedded: string): string {
  const hosted = hostedRuntime(env);
  return hosted === undefined
    ? `the embedded ${embedded} is the default only under npm start and the CLIs of dev/, which set LOCAL_RUNTIME`
    : `this looks like ${hosted}, where an embedded ${embedded} would be one per instance`;
}

/** The catalog half (rule 5 of the module header): `CATALOG_DIR`, resolved against the project root. */
function catalogFolder(r: Reader): string {
  return r.folder('CATALOG_DIR', 'dist');
}

/**
 * Read the catalog half of the configuration from `env`: `CATALOG_DIR` alone, the folder the catalog
 * routes read (rule 5 of the module header).
 * @param env variables; default `process.env`.
 * @returns the absolute catalog folder (default `<project root>/dist`).
 * @throws ConfigError naming `CATALOG_DIR` when it is not a folder path.
 */
export function loadCatalogDir(env: Environment = process.env): string {
  const r = new Reader(env);
  const dir = catalogFolder(r);
  if (r.problems.length > 0) throw new ConfigError(r.problems);
  return dir;
}

/**
 * Read and validate the whole configuration from `env` (both halves; the module header states the rules).
 * @param env variables; default `process.env`.
 * @returns the frozen {@link ServiceConfig}.
 * @throws ConfigError listing every invalid or missing variable, each with what to set, never a value.
 */
export function loadServiceConfig(env: Environment = process.env): ServiceConfig {
  const r = new Reader(env);
  const onVercel = truthy(env.VERCEL);
  const localRuntime = truthy(env.LOCAL_RUNTIME);
  // rule 1: embedded drivers by default only under the local tools, never on Vercel
  const embeddedByDefault = localRuntime && !onVercel;
  const catalogDir = catalogFolder(r);
  const dataDir = r.folder('DATA_DIR', '.data');

  // Ledger and accounts store.
  const storeDriver = r.oneOf('STORE_DRIVER', ['sqlite', 'redis'] as const) ?? (embeddedByDefault ? 'sqlite' : undefined);
  let store: StoreConfig;
  const respUrl = r.get('REDIS_URL');
  // rule 6: the REST pair under either of its names; REDIS_URL of the same database stands aside
  const restUrl = r.aliased(UPSTASH_ALIASES[0], sameUrl);
  const restToken = r.aliased(UPSTASH_ALIASES[1]);
  const sameDatabase = respUrl !== undefined && restUrl.value !== undefined && sameHost(respUrl, restUrl.value);
  if (storeDriver === 'redis' && respUrl !== undefined && !sameDatabase) {
    if (restUrl.value !== undefined)
      r.problem(
        'REDIS_URL',
        `set either REDIS_URL (a redis-server over RESP) or ${restUrl.name} and ${restToken.name} (Upstash over REST), not both, unless they name the same database (the same host).`,
      );
    if (!/^rediss?:\/\/[^/?#\s]+(\/\d{1,2})?$/.test(respUrl))
      r.problem('REDIS_URL', 'must look like redis://host:port or redis://host:port/db.');
    else {
      const u = new URL(respUrl);
      if (u.protocol === 'redis:' && !LOOPBACK_HOSTS.includes(u.hostname))
        r.problem('REDIS_URL', 'must be a rediss:// URL (TLS; redis:// only on 127.0.0.1, [::1] or localhost).');
      else if (u.password !== '') {
        const weak = secretWeakness(decodeURIComponent(u.password));
        if (weak !== undefined)
          r.problem('REDIS_URL', `carries a weak password: it ${weak}; set the redis-server's password to a random value.`);
      }
    }
    store = { driver: 'redis', protocol: 'resp', url: new Secret(respUrl) };
  } else if (storeDriver === 'redis') {
    const why =
      "with STORE_DRIVER=redis (the REST URL and token of an Upstash Redis database, or their KV_REST_API_URL and KV_REST_API_TOKEN names that Vercel's Upstash integration sets; or set REDIS_URL for a redis-server)";
    const readOnly = r.get('KV_REST_API_READ_ONLY_TOKEN');
    if (restUrl.value === undefined && r.get('KV_URL') !== undefined)
      r.problem(
        restUrl.name,
        `is required with STORE_DRIVER=redis: KV_URL is set, but the service speaks REST to Upstash; set KV_REST_API_URL and KV_REST_API_TOKEN as the integration gives them (or REDIS_URL for a redis-server).`,
      );
    const url = r.url(restUrl.name, restUrl.value ?? (r.get('KV_URL') === undefined ? r.required(restUrl.name, why) : ''), 'remote') ?? '';
    if (url !== '' && /[?#]/.test(url)) r.problem(restUrl.name, "must be the database's REST address alone, without a query or fragment.");
    let token: Secret;
    if (restToken.value === undefined) {
      if (readOnly !== undefined)
        r.problem(
          restToken.name,
          'is required with STORE_DRIVER=redis: KV_REST_API_READ_ONLY_TOKEN is set, but the ledger writes; set KV_REST_API_TOKEN, the read-write token of the same database.',
        );
      token = new Secret(readOnly === undefined ? r.required(restToken.name, why) : '');
    } else if (readOnly !== undefined && restToken.value === readOnly) {
      r.problem(
        restToken.name,
        'is the read-only token (KV_REST_API_READ_ONLY_TOKEN), but the ledger writes; set the read-write token of the database.',
      );
      token = new Secret(restToken.value);
    } else token = r.secret(restToken.name, restToken.value, "set the database's REST token from the Upstash console", undefined, 'token');
    store = { driver: 'redis', protocol: 'rest', url, token };
  } else if (storeDriver === 'sqlite') {
    if (onVercel) {
      r.problem(
        'STORE_DRIVER',
        'sqlite is an embedded store and Vercel functions can write only to /tmp; set STORE_DRIVER=redis with UPSTASH_REDIS_REST_URL and UPSTASH_REDIS_REST_TOKEN.',
      );
    }
    store = { driver: 'sqlite', file: resolve(dataDir, 'ledger.sqlite') };
  } else {
    // rule 6: the REST variables found choose nothing, but the message names them
    const found = restUrl.value === undefined ? '' : `; ${restUrl.name} is set, and STORE_DRIVER=redis uses it`;
    store = {
      driver: 'none',
      reason: `is not set, so the ledger, accounts, player state and the asset index are off (${unsetDriverWhy(env, 'SQLite file')}${found}); set STORE_DRIVER=redis with UPSTASH_REDIS_REST_URL and UPSTASH_REDIS_REST_TOKEN (STORE_DRIVER=sqlite keeps one file under DATA_DIR, for one long-lived host).`,
    };
  }

  const port = r.int('PORT', 3000, 0, 65535, 'TCP port');

  // Binary storage.
  const storageDriver = r.oneOf('STORAGE_DRIVER', ['local', 's3'] as const) ?? (embeddedByDefault ? 'local' : undefined);
  let storage: StorageConfig;
  if (storageDriver === 's3') {
    const why = 'with STORAGE_DRIVER=s3 (spec 4.7)';
    const endpoint = r.url('S3_ENDPOINT', r.required('S3_ENDPOINT', why), 'remote') ?? '';
    const bucket = r.required('S3_BUCKET', why);
    if (bucket && !/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(bucket))
      r.problem('S3_BUCKET', 'must be a bucket name: 3-63 lower-case letters, digits, dots and hyphens.');
    const accessKeyId = r.required('S3_ACCESS_KEY_ID', why);
    const secretKey = r.get('S3_SECRET_ACCESS_KEY');
    const secretAccessKey =
      secretKey === undefined
        ? new Secret(r.required('S3_SECRET_ACCESS_KEY', why))
        : r.secret('S3_SECRET_ACCESS_KEY', secretKey, 'set the secret of an access key the storage provider issued');
    const publicUrl = r.url('S3_PUBLIC_URL', r.required('S3_PUBLIC_URL', why), 'remote') ?? '';
    storage = { driver: 's3', endpoint, bucket, accessKeyId, secretAccessKey, region: r.get('S3_REGION') ?? 'us-east-1', publicUrl };
  } else if (storageDriver === 'local') {
    if (onVercel) {
      r.problem(
        'STORAGE_DRIVER',
        'local writes files and Vercel functions can write only to /tmp; set STORAGE_DRIVER=s3 with S3_ENDPOINT, S3_BUCKET, S3_ACCESS_KEY_ID, S3_SECRET_ACCESS_KEY, S3_REGION and S3_PUBLIC_URL.',
      );
    }
    const publicUrl = r.url('STORAGE_PUBLIC_URL', r.get('STORAGE_PUBLIC_URL') ?? `http://localhost:${port}/storage`, 'local') ?? '';
    storage = { driver: 'local', dir: resolve(dataDir, 'storage'), publicUrl };
  } else {
    storage = {
      driver: 'none',
      reason: `is not set, so binary storage is off (${unsetDriverWhy(env, 'storage folder')}); set STORAGE_DRIVER=s3 with S3_ENDPOINT, S3_BUCKET, S3_ACCESS_KEY_ID, S3_SECRET_ACCESS_KEY, S3_REGION and S3_PUBLIC_URL (STORAGE_DRIVER=local keeps files under DATA_DIR, for one long-lived host).`,
    };
  }

  // Tokens.
  const secret = r.get('JWT_SECRET');
  const jwksUrl = r.url('JWT_JWKS_URL', r.get('JWT_JWKS_URL'), 'remote');
  let keys: JwtConfig['keys'] = { kind: 'none' };
  if (secret !== undefined && r.get('JWT_JWKS_URL') !== undefined) {
    r.problem('JWT_SECRET', 'set either JWT_SECRET (HS256) or JWT_JWKS_URL (remote keys), not both.');
  } else if (secret !== undefined) {
    keys = {
      kind: 'secret',
      secret: r.secret('JWT_SECRET', secret, RANDOM_SECRET, { length: 32, unit: 'bytes', why: ' (HS256 needs a key as long as its hash)' }),
    };
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
  // `studio:<studioId>` is the service's own username of an account created without one
  else if (provider === 'studio')
    r.problem('EXTERNAL_AUTH_PROVIDER', 'must not be "studio", the prefix of the usernames the service gives accounts.');
  const externalUrl = r.url('EXTERNAL_AUTH_JWKS_URL', r.get('EXTERNAL_AUTH_JWKS_URL'), 'remote');
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
  const adminPassword =
    admin === undefined
      ? undefined
      : r.secret(
          'ADMIN_PASSWORD',
          admin,
          `${RANDOM_SECRET} (or unset it, which disables the X-Admin-Password header)`,
          { length: 16, unit: 'characters', why: '' },
          'header',
        );

  const cron = r.get('CRON_SECRET');
  const cronSecret =
    cron === undefined
      ? undefined
      : r.secret(
          'CRON_SECRET',
          cron,
          `${RANDOM_SECRET} (or unset it, which turns the scheduled ledger check's GET off)`,
          { length: 16, unit: 'characters', why: '' },
          'header',
        );
  const alertWebhookUrl = r.url('ALERT_WEBHOOK_URL', r.get('ALERT_WEBHOOK_URL'), 'remote');

  const config: ServiceConfig = {
    onVercel,
    localRuntime,
    catalogDir,
    dataDir,
    store,
    storage,
    jwt,
    externalAuth,
    adminPassword,
    cronSecret,
    alertWebhookUrl,
    walletVerifySendMax: r.int('WALLET_VERIFY_SEND_MAX', 1000, 1, 1_000_000_000, 'integer coin units'),
    storageMaxFileBytes: r.int('STORAGE_MAX_FILE_BYTES', 100 * 1024 * 1024, 1, 5 * 1024 * 1024 * 1024, 'bytes'),
    throttle: {
      authFailures: r.int('RATE_LIMIT_AUTH_FAILURES', 10, 0, 100_000, 'failed authentications per client per window (0: off)'),
      authWindowS: r.int('RATE_LIMIT_AUTH_WINDOW_S', 60, 1, 86_400, 'seconds'),
      clientWrites: r.int('RATE_LIMIT_CLIENT_WRITES', 600, 0, 10_000_000, 'writes per client per window (0: off)'),
      accountWrites: r.int('RATE_LIMIT_ACCOUNT_WRITES', 120, 0, 10_000_000, 'writes per player account per window (0: off)'),
      serverWrites: r.int('RATE_LIMIT_SERVER_WRITES', 6000, 0, 10_000_000, 'writes per game-server credential per window (0: off)'),
      writeWindowS: r.int('RATE_LIMIT_WRITE_WINDOW_S', 60, 1, 86_400, 'seconds'),
    },
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

/** What is in force: a configuration put there by {@link useServiceConfig}, or an environment to read (default `process.env`). */
let inForce: { readonly config: ServiceConfig } | { readonly env: Environment } | undefined;
/** The stateful half read from the environment in force: the configuration, or why there is none. */
let stateful: { readonly config: ServiceConfig } | { readonly error: ConfigError } | undefined;
/** The catalog half read from the environment in force. */
let catalog: { readonly dir: string } | { readonly error: ConfigError } | undefined;
const listeners = new Set<() => void>();

const environmentInForce = (): Environment => (inForce !== undefined && 'env' in inForce ? inForce.env : process.env);

/**
 * True when the function runs on Vercel (`VERCEL` set, but not to `0` or `false`) by the configuration or
 * environment in force. Read on its own, so a configuration that is otherwise invalid still answers it
 * (the request id is taken before anything else, `api/_lib/http/request-id.ts`).
 */
export function runsOnVercel(): boolean {
  return inForce !== undefined && 'config' in inForce ? inForce.config.onVercel : truthy(environmentInForce().VERCEL);
}

/** The outcome of `read`: its value, or the ConfigError it threw (anything else is thrown on). */
function outcome<T>(read: () => T): { readonly value: T } | { readonly error: ConfigError } {
  try {
    return { value: read() };
  } catch (e) {
    if (e instanceof ConfigError) return { error: e };
    throw e;
  }
}

/**
 * The process-wide configuration, the stateful half's source (rule 5 of the module header): the one
 * {@link useServiceConfig} put in force, else the environment in force (default `process.env`) read on
 * first use. A bad environment is read once: every call throws the same ConfigError.
 * @throws ConfigError when the environment is invalid (answered as a 503 that names nothing internal; its
 *   problems go to the operator's log once).
 */
export function getServiceConfig(): ServiceConfig {
  if (stateful === undefined) {
    if (inForce !== undefined && 'config' in inForce) stateful = { config: inForce.config };
    else {
      const read = outcome(() => loadServiceConfig(environmentInForce()));
      stateful = 'value' in read ? { config: read.value } : read;
    }
  }
  if ('error' in stateful) throw stateful.error;
  return stateful.config;
}

/**
 * The folder the catalog routes read (rule 5 of the module header): the `catalogDir` of the configuration
 * in force, else `CATALOG_DIR` alone read from the environment in force, so no other variable can take
 * the catalog down.
 * @returns an absolute path.
 * @throws ConfigError naming `CATALOG_DIR` when it is not a folder path.
 */
export function getCatalogDir(): string {
  if (inForce !== undefined && 'config' in inForce) return inForce.config.catalogDir;
  if (catalog === undefined) {
    const read = outcome(() => loadCatalogDir(environmentInForce()));
    catalog = 'value' in read ? { dir: read.value } : read;
  }
  if ('error' in catalog) throw catalog.error;
  return catalog.dir;
}

function putInForce(next: typeof inForce): void {
  inForce = next;
  stateful = undefined;
  catalog = undefined;
  for (const l of listeners) l();
}

/**
 * Put `config` in force for this process (the local server passes its own, tests pass theirs);
 * `undefined` returns to the process environment. Every service built from the previous configuration
 * (catalog cache, stores) is dropped through the listeners of {@link onConfigChange}.
 */
export function useServiceConfig(config: ServiceConfig | undefined): void {
  putInForce(config === undefined ? undefined : { config });
}

/**
 * Put an environment in force, read as a function reads `process.env`: each half on first use, a bad
 * stateful variable failing only the stateful half (rule 5 of the module header). Tests use it to run the
 * functions under an environment that {@link loadServiceConfig} would refuse. Listeners are told as by
 * {@link useServiceConfig}.
 */
export function useEnvironment(env: Environment): void {
  putInForce({ env });
}

/**
 * Variables whose values are secrets (rule 4 of the module header), `REDIS_URL` and `KV_URL` for their
 * password, Vercel's Upstash token names (rule 6), and `ALERT_WEBHOOK_URL`, whose path may carry the
 * receiver's token.
 */
export const SECRET_VARIABLES: readonly string[] = Object.freeze([
  'JWT_SECRET',
  'ADMIN_PASSWORD',
  'CRON_SECRET',
  'ALERT_WEBHOOK_URL',
  'UPSTASH_REDIS_REST_TOKEN',
  'KV_REST_API_TOKEN',
  'KV_REST_API_READ_ONLY_TOKEN',
  'S3_SECRET_ACCESS_KEY',
  'REDIS_URL',
  'KV_URL',
]);

/**
 * The secret values of what is in force (the configuration's secrets when one is in force, and always the
 * raw values of {@link SECRET_VARIABLES} in the environment in force, valid or not, used or not, with the
 * passwords of `REDIS_URL` and `KV_URL`), for the operator log to blank out (`api/_lib/log.ts`) and nothing
 * else. Never throws.
 * @returns values of at least 6 characters (shorter ones would blank out ordinary words).
 */
export function secretValuesInForce(): string[] {
  const out: string[] = [];
  if (inForce !== undefined && 'config' in inForce) {
    const c = inForce.config;
    const secrets = [
      c.adminPassword,
      c.cronSecret,
      c.alertWebhookUrl === undefined ? undefined : new Secret(c.alertWebhookUrl),
      c.jwt.keys.kind === 'secret' ? c.jwt.keys.secret : undefined,
      c.store.driver === 'redis' ? (c.store.protocol === 'rest' ? c.store.token : c.store.url) : undefined,
      c.storage.driver === 's3' ? c.storage.secretAccessKey : undefined,
    ];
    for (const s of secrets) if (s !== undefined) out.push(s.reveal());
  }
  // a configuration in force leaves unused secrets of the environment (KV_REST_API_READ_ONLY_TOKEN, KV_URL) out
  const env = environmentInForce();
  for (const name of SECRET_VARIABLES) {
    const v = env[name]?.trim();
    if (v) out.push(v);
  }
  for (const v of [...out]) {
    const password = /^rediss?:\/\/[^:@/]*:([^@/]+)@/.exec(v)?.[1];
    if (password !== undefined) out.push(password, safeDecode(password));
  }
  return [...new Set(out)].filter((v) => v.length >= 6);
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
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
