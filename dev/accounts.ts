/**
 * Operator CLI for accounts (spec 2.6, 2.8), on the store the configuration names (`STORE_DRIVER`, …;
 * the embedded SQLite file of `npm start` by default):
 *
 * - `npm run accounts -- create --display-name <name> [--username <name>] [--idempotency-key <key>]`
 *   creates an account and its user (ids minted by the server) and prints it as JSON;
 * - `npm run accounts -- show <studioId|accountId>` prints the account and its balance.
 *
 * Exit codes: 0 done, 1 refused (taken username, key reused, no such account), 2 bad arguments or
 * configuration, 3 the store cannot be reached.
 */
import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';
import { ServiceError } from '../api/_lib/errors.js';
import { requestValidator } from '../api/_lib/validation/check.js';
import { STUDIO_ID, UUID } from '../api/_lib/ledger/ids.js';
import { createAccount, type CreateAccountBody } from '../api/_lib/ledger/service.js';
import { openConfiguredStore, withDefaults, type CliIo } from './local-env.js';

const USAGE =
  'Usage: npm run accounts -- create --display-name <name> [--username <name>] [--idempotency-key <key>]\n       npm run accounts -- show <studioId|accountId>';

/** Run the CLI; resolves to the exit code. */
export async function main(argv: readonly string[], io: CliIo = {}): Promise<number> {
  const { out, err, env } = withDefaults(io);
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      allowPositionals: true,
      options: { 'display-name': { type: 'string' }, username: { type: 'string' }, 'idempotency-key': { type: 'string' } },
      strict: true,
    });
  } catch (e) {
    err(`${(e as Error).message}\n${USAGE}\n`);
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
      err(
        `${(validate.errors ?? []).map((e) => `${e.instancePath || '/displayName'} ${e.message ?? 'is invalid'}`).join('\n')}\n${USAGE}\n`,
      );
      return 2;
    }
    body = candidate as CreateAccountBody;
  } else if (!(command === 'show' && id !== undefined && rest.length === 0 && (STUDIO_ID.test(id) || UUID.test(id)))) {
    err(`${USAGE}\n`);
    return 2;
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
