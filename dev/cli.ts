/**
 * The conventions every command line of `dev/`, `build/` and `bench/` follows (docs/architecture.md,
 * "Command lines"), in one place:
 *
 * - **Help.** `--help` (or `-h`) prints the usage, the options and one example to stdout and exits 0,
 *   before anything else is read ({@link wantsHelp}); a bad argument prints the same usage to stderr and
 *   exits 2. `test/dev/scripts-help.test.ts` runs every `npm run` script with `--help`.
 * - **Finding the service.** A command that talks to a running service takes `--base <url>`, default
 *   `http://127.0.0.1:<PORT or 3000>`, the address `npm start` listens on ({@link serviceBase}). The same
 *   URL, with `https://`, reaches a deployment.
 * - **Credentials from the environment.** Never from argv (shell history, the process list) and never
 *   printed: `OPERATOR_TOKEN`, a bearer token of our issuer (role `admin` or `master` for writes,
 *   `support` for look-ups), sent as `Authorization: Bearer …`; else `ADMIN_PASSWORD`, sent as
 *   `X-Admin-Password` (spec 5.3) ({@link operatorHeaders}).
 * - **Commands that open the store directly** (`npm run accounts` and `npm run ledger:verify` without
 *   `--base`) say so in their help and read the same variables as the functions (`STORE_DRIVER`,
 *   `UPSTASH_REDIS_REST_URL`/`KV_REST_API_URL`, …; `api/_lib/config.ts`).
 * - **Progress and `--quiet`.** Long commands show progress on a terminal as one updating line
 *   ({@link progressLine}; plain lines when stderr is not a terminal); `--quiet` prints one summary line.
 */
import type { Environment } from '../api/_lib/config.js';

/** Port `npm start` listens on when neither `--port` nor `PORT` says otherwise (`dev/server.ts`). */
export const DEFAULT_PORT = 3000;

/** Variable holding an operator's bearer token for the command lines (module header). */
export const OPERATOR_TOKEN_VARIABLE = 'OPERATOR_TOKEN';

/** node:util `parseArgs` descriptors of the options every service command line shares. */
export const SERVICE_OPTIONS = {
  base: { type: 'string' },
  help: { type: 'boolean', short: 'h', default: false },
} as const;

/** True when `argv` asks for help (`--help` or `-h` anywhere before a `--`). */
export function wantsHelp(argv: readonly string[]): boolean {
  for (const a of argv) {
    if (a === '--') return false;
    if (a === '--help' || a === '-h') return true;
  }
  return false;
}

/**
 * The service's base URL: `base` when given, else `http://127.0.0.1:<PORT>` (default port
 * {@link DEFAULT_PORT}), without trailing slashes.
 * @throws TypeError naming `--base` when it is not an absolute http(s) URL without credentials, query or
 *   fragment.
 */
export function serviceBase(base: string | undefined, env: Environment): string {
  const raw = base ?? `http://127.0.0.1:${/^\d{1,5}$/.test(env.PORT?.trim() ?? '') ? env.PORT!.trim() : DEFAULT_PORT}`;
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    throw new TypeError('--base must be an absolute URL such as https://game.example.com or http://127.0.0.1:3000.');
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new TypeError('--base must be an http:// or https:// URL.');
  if (u.username || u.password) throw new TypeError('--base must not carry credentials; set OPERATOR_TOKEN or ADMIN_PASSWORD instead.');
  if (u.search || u.hash) throw new TypeError('--base must not carry a query or fragment.');
  return raw.replace(/\/+$/, '');
}

/** How a command line authenticates as an operator: the headers, and which variable they came from (for messages). */
export interface OperatorCredential {
  readonly headers: Readonly<Record<string, string>>;
  readonly variable: 'OPERATOR_TOKEN' | 'ADMIN_PASSWORD';
}

/**
 * The operator credential the environment holds (module header): `OPERATOR_TOKEN` as a bearer token,
 * else `ADMIN_PASSWORD` as `X-Admin-Password`, else undefined. Values are trimmed; blank is unset.
 */
export function operatorHeaders(env: Environment): OperatorCredential | undefined {
  const token = env[OPERATOR_TOKEN_VARIABLE]?.trim();
  if (token) return { headers: { Authorization: `Bearer ${token}` }, variable: 'OPERATOR_TOKEN' };
  const password = env.ADMIN_PASSWORD?.trim();
  if (password) return { headers: { 'X-Admin-Password': password }, variable: 'ADMIN_PASSWORD' };
  return undefined;
}

/** What a command says when it needs an operator credential and the environment holds none. */
export const NO_CREDENTIAL =
  "No operator credential: set OPERATOR_TOKEN (a bearer token with role admin or master) or ADMIN_PASSWORD (the deployment's) in the environment, e.g. `read -rs ADMIN_PASSWORD && export ADMIN_PASSWORD`.";

/**
 * A progress reporter: on a terminal one line rewritten in place (the last call with `done` ends it with a
 * newline), elsewhere one plain line per call; nothing with `quiet`.
 * @param stream default `process.stderr`.
 */
export function progressLine(
  quiet: boolean,
  stream: Pick<NodeJS.WriteStream, 'write' | 'isTTY'> = process.stderr,
): (text: string, done?: boolean) => void {
  if (quiet) return () => undefined;
  return (text, done = false) => {
    if (stream.isTTY) stream.write(`\r\x1b[2K${text}${done ? '\n' : ''}`);
    else stream.write(text + '\n');
  };
}
