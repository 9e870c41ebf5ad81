/**
 * Operator CLI for accounts (spec 2.6, 2.8):
 *
 * - `npm run accounts -- create --display-name <name> [--username <name>] [--idempotency-key <key>]`
 *   creates an account and its user (ids minted by the server) and prints it as JSON;
 * - `npm run accounts -- show <studioId|accountId>` prints the account and its balance.
 *
 * Two ways to reach the accounts (dev/cli.ts): with `--base <url>`, through that running service
 * (`POST /api/admin/accounts`, `GET /api/admin/accounts/{id}` and, for the balance,
 * `GET /api/admin/players/{id}/wallet`), as the operator whose credential the environment holds
 * (`OPERATOR_TOKEN` or `ADMIN_PASSWORD`); without it, by opening the store the configuration names
 * directly (`STORE_DRIVER`, `UPSTASH_REDIS_REST_URL`/`KV_REST_API_URL`, …, read as the functions read them;
 * the embedded SQLite file of `npm start` by default). Both print the same JSON.
 *
 * Exit codes: 0 done, 1 refused (taken username, key reused, no such account), 2 bad arguments,
 * configuration or a credential the service refuses, 3 the store or service cannot be reached.
 */
import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';
import { ServiceError } from '../api/_lib/errors.js';
import { requestValidator } from '../api/_lib/validation/check.js';
import { STUDIO_ID, UUID } from '../api/_lib/ledger/ids.js';
import { createAccount, type CreateAccountBody } from '../api/_lib/ledger/service.js';
import { openConfiguredStore, withDefaults, type CliIo } from './local-env.js';
import { notTheService, readAnswer, requireOperatorHeaders, SERVICE_OPTIONS, serviceBase, type ServiceAnswer, wantsHelp } from './cli.js';

const USAGE = `Usage: npm run accounts -- create --display-name <name> [--username <name>] [--idempotency-key <key>] [--base <url>]
       npm run accounts -- show <studioId|accountId> [--base <url>]

Creates or shows an account. With --base, through that running service as the operator whose
credential the environment holds (OPERATOR_TOKEN, else ADMIN_PASSWORD); without it, by opening the
store the configuration names directly (STORE_DRIVER and its variables, as the functions read them;
npm start's SQLite file by default).

Options:
  --display-name <name>    the account's display name (create)
  --username <name>        its user's unique name (create; default one the service gives)
  --idempotency-key <key>  the same key again answers the first account (create)
  --base <url>             the service, e.g. https://game.example.com or http://127.0.0.1:3000
  -h, --help               print this help

Example:
  ADMIN_PASSWORD=… npm run accounts -- create --display-name Ada --username ada --base https://game.example.com
`;

/** `create` or `show` through the service at `base` (module header); resolves to the exit code. */
async function overHttp(
  base: string,
  headers: Readonly<Record<string, string>>,
  request: { readonly body: CreateAccountBody } | { readonly id: string },
  out: (t: string) => void,
  err: (t: string) => void,
): Promise<number> {
  const call = async (path: string, init: RequestInit = {}): Promise<ServiceAnswer> =>
    readAnswer(await fetch(`${base}${path}`, { ...init, headers: { ...headers, ...(init.headers as Record<string, string>) } }));
  const failed = (r: ServiceAnswer): number => {
    // an HTML page or a proxy's error: not the service (3)
    if (r.body === undefined) {
      err(`${notTheService(base, r.status)}\n`);
      return 3;
    }
    err(`${base} answered ${r.status}: ${typeof r.body.detail === 'string' ? r.body.detail : ''}\n`);
    // a refused credential is the configuration's (2), a service that cannot answer is unreachable (3)
    if (r.status === 401 || r.status === 403) return 2;
    return r.status >= 500 ? 3 : 1;
  };
  /** A 2xx answer whose body holds an account: anything else is not the service (an HTML page answered 200). */
  const withAccount = (r: ServiceAnswer): boolean => r.body !== undefined && typeof r.body.account === 'object' && r.body.account !== null;
  try {
    if ('body' in request) {
      const r = await call('/api/admin/accounts', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify(request.body),
      });
      if (r.status !== 200 && r.status !== 201) return failed(r);
      if (!withAccount(r)) return failed({ ...r, body: undefined });
      out(JSON.stringify({ account: r.body!.account, created: r.body!.created }, null, 2) + '\n');
      return 0;
    }
    const id = encodeURIComponent(request.id);
    const a = await call(`/api/admin/accounts/${id}`);
    if (a.status === 404 && typeof a.body?.detail === 'string' && a.body.detail.startsWith('No account')) {
      err(`No account has the id ${request.id}.\n`);
      return 1;
    }
    if (a.status !== 200 || !withAccount(a)) return failed({ ...a, body: a.status === 200 ? undefined : a.body });
    const w = await call(`/api/admin/players/${id}/wallet?limit=1`);
    if (w.status !== 200 || typeof w.body?.balance !== 'number') return failed({ ...w, body: w.status === 200 ? undefined : w.body });
    out(JSON.stringify({ account: a.body!.account, balance: w.body.balance }, null, 2) + '\n');
    return 0;
  } catch (e) {
    err(`${base} cannot be reached (${(e as Error).message}).\n`);
    return 3;
  }
}

/** Run the CLI; resolves to the exit code. */
export async function main(argv: readonly string[], io: CliIo = {}): Promise<number> {
  const { out, err, env } = withDefaults(io);
  if (wantsHelp(argv)) {
    out(USAGE);
    return 0;
  }
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      allowPositionals: true,
      options: {
        ...SERVICE_OPTIONS,
        'display-name': { type: 'string' },
        username: { type: 'string' },
        'idempotency-key': { type: 'string' },
      },
      strict: true,
    });
  } catch (e) {
    err(`${(e as Error).message}\n${USAGE}`);
    return 2;
  }
  const [command, id, ...rest] = parsed.positionals;
  let body: CreateAccountBody | undefined;
  if (command === 'create' && id === undefined) {
    const candidate = {
      displayName: parsed.values['display-name'],
      ...(parsed.values.username !== undefined ? { username: parsed.values.username } : {}),
      ...(parsed.values['idempotency-key'] !== undefined ? { idempotencyKey: parsed.values['idempotency-key'] } : {}),
    };
    const validate = requestValidator('create-account');
    if (!validate(candidate)) {
      err(`${(validate.errors ?? []).map((e) => `${e.instancePath || '/displayName'} ${e.message ?? 'is invalid'}`).join('\n')}\n${USAGE}`);
      return 2;
    }
    body = candidate as CreateAccountBody;
  } else if (!(command === 'show' && id !== undefined && rest.length === 0 && (STUDIO_ID.test(id) || UUID.test(id)))) {
    err(USAGE);
    return 2;
  }
  if (parsed.values.base !== undefined) {
    let base: string;
    try {
      base = serviceBase(parsed.values.base, env);
    } catch (e) {
      err(`${(e as Error).message}\n${USAGE}`);
      return 2;
    }
    const required = requireOperatorHeaders(env);
    if ('problem' in required) {
      err(`${required.problem}\n`);
      return 2;
    }
    const { credential } = required;
    return overHttp(base, credential.headers, body ? { body } : { id: id! }, out, err);
  }
  const store = await openConfiguredStore({ out, err, env });
  if (typeof store === 'number') return store;
  try {
    if (body) {
      const { account, created } = await createAccount(store, body);
      out(JSON.stringify({ account, created }, null, 2) + '\n');
      return 0;
    }
    const account = await store.findAccount(STUDIO_ID.test(id!) ? { studioId: id! } : { accountId: id! });
    if (!account) {
      err(`No account has the id ${id}.\n`);
      return 1;
    }
    out(JSON.stringify({ account, balance: await store.balance(account.accountId) }, null, 2) + '\n');
    return 0;
  } catch (e) {
    if (!(e instanceof ServiceError)) throw e;
    err(`${e.message}\n`);
    return e.code === 'UPSTREAM_UNAVAILABLE' ? 3 : 1;
  } finally {
    await store.close();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  void main(process.argv.slice(2)).then((code) => process.exit(code));
}
