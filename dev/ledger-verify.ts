/**
 * `npm run ledger:verify [-- --base <url>] [--quiet]`.
 *
 * Without `--base`, this opens the store the configuration names directly (`STORE_DRIVER`,
 * `UPSTASH_REDIS_REST_URL`/`KV_REST_API_URL`, `REDIS_URL`, …, read as the functions read them; dev/cli.ts)
 * and checks the invariants of the live ledger store
 * (`api/_lib/ledger/invariants.ts`): every balance equals the sum of its postings, the balances sum to
 * zero, source refs and transfers match one to one, every hash chain verifies; and of the account bags
 * (`api/_lib/player/bag.ts`): every quantity equals the sum of its entries, entries are contiguous
 * running sums never below zero, source refs are unique; and of the unique items
 * (`api/_lib/player/items.ts`, `checkItemInvariants`): each item's events are numbered from 1, begin with its
 * mint, follow the allowed transitions, and replayed give the item as it stands. Prints a summary, or every
 * violation.
 *
 * With `--base <url>`, it asks that running service instead: `POST /api/admin/ledger/verify` (the
 * scheduled check run by hand, docs/architecture.md "Scheduled verification") again and again until a
 * pass of the check is finished, as the operator whose credential the environment holds (`OPERATOR_TOKEN`
 * or `ADMIN_PASSWORD`). That check covers the ledger's balances, chains and sum; the bag invariants are
 * checked only on the store itself. Progress on a terminal; `--quiet` prints the summary line alone.
 *
 * Exit codes: 0 sound, 1 violations found, 2 bad arguments, configuration or a credential the service
 * refuses, 3 the store or service cannot be reached.
 */
import { pathToFileURL } from 'node:url';
import { checkInvariants } from '../api/_lib/ledger/invariants.js';
import { loadServiceConfig } from '../api/_lib/config.js';
import { checkBagInvariants } from '../api/_lib/player/bag.js';
import { checkItemInvariants } from '../api/_lib/player/items.js';
import { openPlayerStore } from '../api/_lib/player/store.js';
import { localEnvironment } from './local-env.js';
import { openConfiguredStore, withDefaults, type CliIo } from './local-env.js';
import { parseArgs } from 'node:util';
import { notTheService, progressLine, readAnswer, requireOperatorHeaders, SERVICE_OPTIONS, serviceBase, wantsHelp } from './cli.js';

const USAGE = `Usage: npm run ledger:verify [-- --base <url>] [--quiet]

Checks the ledger's invariants (every balance the sum of its postings, balances summing to zero,
source refs and transfers one to one, every hash chain), the bags' and the unique items'. Without --base it opens the
store the configuration names directly (STORE_DRIVER and its variables, as the functions read them;
npm start's SQLite file by default). With --base it runs the service's own check
(POST /api/admin/ledger/verify) until a pass is finished, as the operator whose credential the
environment holds (OPERATOR_TOKEN, else ADMIN_PASSWORD); the bags and items are then not checked.

Options:
  --base <url>   the service, e.g. https://game.example.com or http://127.0.0.1:3000
  --quiet        print the summary line only
  -h, --help     print this help

Example:
  ADMIN_PASSWORD=… npm run ledger:verify -- --base https://game.example.com
`;

/** Most runs of the service's check one call of the CLI makes before it gives up on finishing a pass. */
export const MAX_SERVICE_RUNS = 200;

interface VerificationRun {
  readonly pass: number;
  readonly passStarted: boolean;
  readonly passFinished: boolean;
  readonly accountsChecked: number;
  readonly postingsChecked: number;
  readonly failures: readonly { readonly invariant: string; readonly message: string }[];
  readonly failuresOmitted: number;
}

/** True when `body` has the fields of a verification run the command reads. */
function isRun(body: Record<string, unknown>): boolean {
  return (
    typeof body.pass === 'number' &&
    typeof body.accountsChecked === 'number' &&
    typeof body.postingsChecked === 'number' &&
    Array.isArray(body.failures) &&
    typeof body.failuresOmitted === 'number'
  );
}

/**
 * Run the service's check at `base` until a pass it started is finished (module header).
 * @returns the exit code.
 */
async function overHttp(base: string, headers: Readonly<Record<string, string>>, quiet: boolean, io: Required<CliIo>): Promise<number> {
  const show = progressLine(quiet);
  let accounts = 0;
  let postings = 0;
  let started = false;
  const failures: string[] = [];
  let omitted = 0;
  for (let i = 0; i < MAX_SERVICE_RUNS; i++) {
    let res: Response;
    try {
      res = await fetch(`${base}/api/admin/ledger/verify`, { method: 'POST', headers });
    } catch (e) {
      io.err(`${base} cannot be reached (${(e as Error).message}).\n`);
      return 3;
    }
    const { status, body } = await readAnswer(res);
    // an HTML page (a --base with a path, a proxy's error), or a 200 that is not a run: not the service
    if (body === undefined || (status === 200 && !isRun(body))) {
      io.err(`${notTheService(base, status)}\n`);
      return 3;
    }
    if (status !== 200) {
      io.err(`${base} answered ${status}: ${typeof body.detail === 'string' ? body.detail : ''}\n`);
      return status === 401 || status === 403 ? 2 : status >= 500 ? 3 : 1;
    }
    const run = body as unknown as VerificationRun;
    // a pass already under way when the CLI came counts only from the next pass it starts
    if (run.passStarted) {
      started = true;
      accounts = 0;
      postings = 0;
      failures.length = 0;
      omitted = 0;
    }
    accounts += run.accountsChecked;
    postings += run.postingsChecked;
    failures.push(...run.failures.map((f) => `  invariant ${f.invariant}: ${f.message}`));
    omitted += run.failuresOmitted;
    show(`[ledger:verify] pass ${run.pass}: ${accounts} account(s), ${postings} posting(s) checked`);
    if (run.passFinished && started) {
      show(`[ledger:verify] pass ${run.pass} finished`, true);
      if (failures.length + omitted > 0) {
        io.err(
          `${failures.length + omitted} violation(s) found by ${base}:\n${failures.join('\n')}\n${omitted ? `  … and ${omitted} more\n` : ''}`,
        );
        return 1;
      }
      io.out(
        `The ledger of ${base} is sound: pass ${run.pass} checked ${accounts} account(s) and ${postings} posting(s), every chain verifies, balances sum to 0.\n`,
      );
      return 0;
    }
  }
  io.err(`${base}: no pass of the check finished within ${MAX_SERVICE_RUNS} runs; run the command again.\n`);
  return 1;
}

/**
 * The command line: `--help`, `--base` (the service's check) or the store's check ({@link main}).
 * @returns the exit code.
 */
export async function cli(argv: readonly string[], io: CliIo = {}): Promise<number> {
  const full = withDefaults(io);
  if (wantsHelp(argv)) {
    full.out(USAGE);
    return 0;
  }
  let values;
  let base: string | undefined;
  try {
    values = parseArgs({
      args: [...argv],
      options: { ...SERVICE_OPTIONS, quiet: { type: 'boolean', default: false } },
      strict: true,
    }).values;
    base = values.base === undefined ? undefined : serviceBase(values.base, full.env);
  } catch (e) {
    full.err(`${(e as Error).message}\n${USAGE}`);
    return 2;
  }
  if (base === undefined) return main(full);
  const required = requireOperatorHeaders(full.env);
  if ('problem' in required) {
    full.err(`${required.problem}\n`);
    return 2;
  }
  const { credential } = required;
  return overHttp(base, credential.headers, values.quiet, full);
}

/** Run the check on the store itself (module header); resolves to the exit code. */
export async function main(io: CliIo = {}): Promise<number> {
  const { out, err, env } = withDefaults(io);
  const store = await openConfiguredStore({ out, err, env });
  if (typeof store === 'number') return store;
  let players;
  try {
    players = await openPlayerStore(loadServiceConfig(localEnvironment(env)).store);
  } catch (e) {
    await store.close();
    err(`${(e as Error).message}\n`);
    return 3;
  }
  try {
    const snapshot = await store.snapshot();
    const bags = await players.bagSnapshot();
    const items = await players.itemSnapshot();
    const violations = [...checkInvariants(snapshot), ...checkBagInvariants(bags), ...checkItemInvariants(items)];
    const postings = snapshot.accounts.reduce((n, a) => n + a.postings.length, 0);
    if (violations.length > 0) {
      err(
        `${violations.length} violation(s) in the ${store.driver} ledger:\n` +
          violations.map((v) => `  invariant ${v.invariant}: ${v.message}`).join('\n') +
          '\n',
      );
      return 1;
    }
    out(
      `The ${store.driver} ledger is sound: ${snapshot.transfers.length} transfer(s), ${postings} posting(s) on ${snapshot.accounts.length} ledger account(s), balances sum to 0, every chain verifies; ` +
        `${bags.entries.length} bag entr${bags.entries.length === 1 ? 'y' : 'ies'} on ${bags.quantities.length} stack(s), every quantity the sum of its entries; ` +
        `${items.length} unique item(s), each as its events make it.\n`,
    );
    return 0;
  } catch (e) {
    err(`${(e as Error).message}\n`);
    return 3;
  } finally {
    await store.close();
    await players.close();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  void cli(process.argv.slice(2)).then((code) => process.exit(code));
}
