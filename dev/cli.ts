/**
 * The conventions every command line of `dev/`, `build/` and `bench/` follows (docs/architecture.md,
 * "Command lines"), in one place:
 *
 * - **Help.** `--help` (or `-h`) prints the usage, the options and one example to stdout and exits 0,
 *   before anything else is read ({@link wantsHelp}); a bad argument prints the same usage to stderr and
 *   exits 2. `test/dev/scripts-help.test.ts` runs every `npm run` script with `--help`.
 * - **Finding the service.** A command that talks to a running service takes `--base <url>`, default
 *   `http://127.0.0.1:<PORT or 3000>`, the address `npm start` listens on ({@link serviceBase}). The same
 *   URL, with `https://`, reaches a deployment; plain `http://` only on the loopback interface, since the
 *   operator's credential rides along (rule 3 of `api/_lib/config.ts`). An answer that is not the
 *   service's JSON (an HTML page: a `--base` with a path, a proxy's error page) is said so
 *   ({@link readAnswer}, {@link notTheService}) and ends the command with exit 3.
 * - **Credentials from the environment.** Never from argv (shell history, the process list) and never
 *   printed: `OPERATOR_TOKEN`, a bearer token of our issuer (role `admin` or `master` for writes,
 *   `support` for look-ups), sent as `Authorization: Bearer …`; else `ADMIN_PASSWORD`, sent as
 *   `X-Admin-Password` (spec 5.3) ({@link operatorHeaders}). A value a header cannot carry as it is (a
 *   line break inside, a `Bearer ` prefix, quotes) is refused naming the variable, never echoed.
 * - **Commands that open the store directly** (`npm run accounts` and `npm run ledger:verify` without
 *   `--base`) say so in their help and read the same variables as the functions (`STORE_DRIVER`,
 *   `UPSTASH_REDIS_REST_URL`/`KV_REST_API_URL`, …; `api/_lib/config.ts`).
 * - **Progress and `--quiet`.** Long commands show progress on a terminal as one updating line
 *   ({@link progressLine}; plain lines when stderr is not a terminal); `--quiet` prints one summary line.
 */
import { LOOPBACK_HOSTS, type Environment } from '../api/_lib/config.js';

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
 * @throws TypeError naming `--base` when it is not an absolute `https://` URL (`http://` only on
 *   127.0.0.1, [::1] or localhost) without credentials, query or fragment; the message never repeats it.
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
  if (u.protocol === 'http:' && !LOOPBACK_HOSTS.includes(u.hostname))
    throw new TypeError(
      "--base must be an https:// URL: http:// only on 127.0.0.1, [::1] or localhost, since the operator's credential would cross the network in the clear.",
    );
  if (u.username || u.password) throw new TypeError('--base must not carry credentials; set OPERATOR_TOKEN or ADMIN_PASSWORD instead.');
  if (u.search || u.hash) throw new TypeError('--base must not carry a query or fragment.');
  return raw.replace(/\/+$/, '');
}

/** How a command line authenticates as an operator: the headers, and which variable they came from (for messages). */
export interface OperatorCredential {
  readonly headers: Readonly<Record<string, string>>;
  readonly variable: 'OPERATOR_TOKEN' | 'ADMIN_PASSWORD';
}

/** A compact JWS, as our issuer mints tokens (`npm run token`): three base64url parts joined by dots. */
const TOKEN_SHAPE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;

/**
 * `Authorization: Bearer <token>` for a token read from `source` (a variable or a file, named in the
 * message), trimmed.
 * @throws TypeError naming `source`, never the value, when the token is not a compact JWS (a line break
 *   inside, a `Bearer ` prefix, quotes): a header could not carry it, and the fetch error would repeat it.
 */
export function bearerHeaders(token: string, source: string): Record<string, string> {
  const t = token.trim();
  if (!TOKEN_SHAPE.test(t))
    throw new TypeError(
      `${source} is not a token: it must be the token alone, three base64url parts joined by dots as npm run token prints it (no "Bearer ", quotes or line breaks).`,
    );
  return { Authorization: `Bearer ${t}` };
}

/**
 * The operator credential the environment holds (module header): `OPERATOR_TOKEN` as a bearer token
 * ({@link bearerHeaders}), else `ADMIN_PASSWORD` as `X-Admin-Password`, else undefined. Values are
 * trimmed; blank is unset.
 * @throws TypeError naming the variable, never its value, when a header cannot carry it: a token that is
 *   not one, a password holding a control character (a line break) or a character beyond Latin-1.
 */
export function operatorHeaders(env: Environment): OperatorCredential | undefined {
  const token = env[OPERATOR_TOKEN_VARIABLE]?.trim();
  if (token) return { headers: bearerHeaders(token, OPERATOR_TOKEN_VARIABLE), variable: 'OPERATOR_TOKEN' };
  const password = env.ADMIN_PASSWORD?.trim();
  if (password) {
    if (/[\u0000-\u001f\u007f]|[^\u0000-\u00ff]/.test(password))
      throw new TypeError('ADMIN_PASSWORD holds a line break, a control character or a character a header cannot carry; set it again.');
    return { headers: { 'X-Admin-Password': password }, variable: 'ADMIN_PASSWORD' };
  }
  return undefined;
}

/** A service's answer read by a command line: its status, and its body when it is a JSON object (undefined otherwise). */
export interface ServiceAnswer {
  readonly status: number;
  readonly body: Record<string, unknown> | undefined;
}

/**
 * Read `res` whole: the status, and the body parsed when the answer is JSON (`application/json` or
 * `application/problem+json`) holding an object; undefined for anything else (an HTML page, a proxy's
 * plain-text error), which {@link notTheService} words.
 */
export async function readAnswer(res: Response): Promise<ServiceAnswer> {
  const text = await res.text();
  if (!/^application\/(?:[\w.+-]+\+)?json\b/i.test(res.headers.get('content-type') ?? '')) return { status: res.status, body: undefined };
  try {
    const parsed = JSON.parse(text) as unknown;
    return {
      status: res.status,
      body: parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : undefined,
    };
  } catch {
    return { status: res.status, body: undefined };
  }
}

/** What a command says when `base` answered `status` without the service's JSON (module header; exit 3). */
export function notTheService(base: string, status: number): string {
  return `${base} answered ${status} without the service's JSON (an HTML page or a proxy's error): is --base the service's root address, such as https://game.example.com (no /api)?`;
}

/** What a command says when it needs an operator credential and the environment holds none. */
export const NO_CREDENTIAL =
  "No operator credential: set OPERATOR_TOKEN (a bearer token with role admin or master) or ADMIN_PASSWORD (the deployment's) in the environment, e.g. `read -rs ADMIN_PASSWORD && export ADMIN_PASSWORD`.";

/**
 * The operator credential of a command that cannot go on without one: {@link operatorHeaders}, or what to
 * print (and exit 2 with) when the environment holds none ({@link NO_CREDENTIAL}) or one a header cannot carry.
 * @returns `{ credential }`, or `{ problem }`: one line, naming a variable, never its value.
 */
export function requireOperatorHeaders(env: Environment): { readonly credential: OperatorCredential } | { readonly problem: string } {
  let credential;
  try {
    credential = operatorHeaders(env);
  } catch (e) {
    return { problem: (e as Error).message };
  }
  return credential ? { credential } : { problem: NO_CREDENTIAL };
}

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
