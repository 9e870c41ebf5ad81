/**
 * `npm run conformance -- [--base <url>] [--seed N] [--only a,b] [--quiet]`: check a running deployment
 * against what a studio must trust (docs/architecture.md, "Conformance check"; `dev/conformance/checks.ts`
 * says exactly what each check does), over HTTP, in the run's own namespace: every account, username and
 * idempotency key carries a fresh run id (`conf-…`), so the check can run again and again against
 * production and never touches a real player. It does leave its accounts and their entries behind
 * (display names `Conformance conf-…`): the ledger is append-only.
 *
 * Conventions of dev/cli.ts: `--base` (default `http://127.0.0.1:<PORT or 3000>`, npm start's address);
 * the operator's credential from the environment only (`OPERATOR_TOKEN` with role admin or master, else
 * `ADMIN_PASSWORD`); player tokens signed with `JWT_SECRET` when the environment holds the deployment's
 * (on the loopback interface, else npm start's development secret); without one, the ban check is
 * skipped and wallets are read through the operator's look-up. Progress on a terminal; prints a table
 * (check, result, detail) and a summary line; `--quiet` prints the summary line and the failed rows only.
 *
 * Before the checks, one look-up as the operator (`GET /api/admin/ledger/health`) makes sure `--base` is
 * the service and takes the credential: an answer that is not the service's JSON (an HTML page: a
 * `--base` with a path, a proxy's error page), a 5xx or another refusal stops the run there, said plainly.
 *
 * Exit codes: 0 every check passed or was skipped, 1 a check failed, 2 bad arguments, no credential or
 * one the service refuses, 3 the service could not be reached or does not answer as the service.
 */
import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';
import { loadServiceConfig, LOOPBACK_HOSTS } from '../api/_lib/config.js';
import { mintToken } from '../api/_lib/auth/tokens.js';
import { notTheService, progressLine, requireOperatorHeaders, SERVICE_OPTIONS, serviceBase, wantsHelp } from './cli.js';
import { localEnvironment, withDefaults, type CliIo } from './local-env.js';
import { CHECKS } from './conformance/checks.js';
import { formatTable, runConformance } from './conformance/run.js';
import { Service, Unreachable, detail } from './conformance/service.js';

const USAGE = `Usage: npm run conformance -- [--base <url>] [--seed N] [--only CHECKS] [--quiet]

Checks a running deployment over HTTP: concurrent credits and reads, idempotent replays, If-Match
writes, cursor paging, bag consumptions, mints, reversals, bans and the service's ledger check, in a
namespace of its own (accounts and keys prefixed with a fresh run id). Prints a table; exits 1 on any
violation.

Options:
  --base <url>    the service (default http://127.0.0.1:$PORT, npm start's address)
  --seed N        seed of the random choices, to repeat a run (default random; printed)
  --only CHECKS   a comma-separated subset of: ${CHECKS.map((c) => c.name).join(', ')}
  --quiet         print the summary line and the failed rows only
  -h, --help      print this help
Environment: OPERATOR_TOKEN (role admin or master) or ADMIN_PASSWORD, required; JWT_SECRET (the
deployment's) to sign player tokens, else the ban check is skipped.

Example:
  read -rs ADMIN_PASSWORD && export ADMIN_PASSWORD
  npm run conformance -- --base https://game.example.com
`;

/** A signer of player tokens from the environment, or undefined (module header). */
function playerSigner(env: Record<string, string | undefined>, base: string): ((studioId: string) => Promise<string>) | undefined {
  try {
    const loopback = LOOPBACK_HOSTS.includes(new URL(base).hostname);
    const config = loadServiceConfig(loopback ? localEnvironment(env) : env);
    if (config.jwt.keys.kind !== 'secret') return undefined;
    return (studioId) => mintToken(config.jwt, { subject: studioId, role: 'player', ttlSeconds: 600 });
  } catch {
    return undefined;
  }
}

/** Run the CLI; resolves to the exit code. `io.fetch` replaces the global `fetch` (tests). */
export async function main(
  argv: readonly string[],
  io: CliIo & { readonly fetch?: typeof fetch; readonly tty?: boolean } = {},
): Promise<number> {
  const { out, err, env } = withDefaults(io);
  if (wantsHelp(argv)) {
    out(USAGE);
    return 0;
  }
  let values;
  let base: string;
  try {
    values = parseArgs({
      args: [...argv],
      options: { ...SERVICE_OPTIONS, seed: { type: 'string' }, only: { type: 'string' }, quiet: { type: 'boolean', default: false } },
      strict: true,
    }).values;
    base = serviceBase(values.base, env);
  } catch (e) {
    err(`${(e as Error).message}\n${USAGE}`);
    return 2;
  }
  if (values.seed !== undefined && !/^\d{1,9}$/.test(values.seed)) {
    err(`--seed must be a whole number (at most 9 digits).\n${USAGE}`);
    return 2;
  }
  const names = values.only
    ?.split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const unknown = names?.filter((n) => !CHECKS.some((c) => c.name === n)) ?? [];
  if (unknown.length > 0) {
    err(`--only names no check ${unknown.join(', ')}.\n${USAGE}`);
    return 2;
  }
  const required = requireOperatorHeaders(env);
  if ('problem' in required) {
    err(`${required.problem}\n`);
    return 2;
  }
  const { credential } = required;
  const seed = values.seed !== undefined ? Number(values.seed) : Math.floor(Math.random() * 1e9);
  const svc = new Service({
    base,
    operator: credential.headers,
    signPlayer: playerSigner(env, base),
    ...(io.fetch ? { fetch: io.fetch } : {}),
  });
  const show = progressLine(values.quiet, { write: (t: string) => (err(t), true), isTTY: io.tty ?? process.stderr.isTTY });
  let rows;
  try {
    const first = await svc.call('GET', '/api/admin/ledger/health');
    if (!first.json) {
      err(`${notTheService(base, first.status)}\n`);
      return 3;
    }
    if (first.status === 401 || first.status === 403) {
      err(`${base} refused ${credential.variable} (${first.status}${detail(first)}).\n`);
      return 2;
    }
    if (first.status !== 200) {
      err(
        `${base} answered ${first.status}${detail(first)}${first.status === 404 || first.status === 410 ? "; is --base the service's root address (no /api)?" : ''}\n`,
      );
      return 3;
    }
    rows = await runConformance(svc, {
      seed,
      ...(names ? { checks: CHECKS.filter((c) => names.includes(c.name)) } : {}),
      onStart: (name, i, total) => show(`[conformance] ${i + 1}/${total} ${name}`),
    });
  } catch (e) {
    if (e instanceof Unreachable) {
      err(`${e.message}\n`);
      return 3;
    }
    throw e;
  }
  show(`[conformance] done`, true);
  const failed = rows.filter((r) => r.result === 'fail');
  const skipped = rows.filter((r) => r.result === 'skip');
  const seconds = rows.reduce((s, r) => s + r.seconds, 0);
  if (!values.quiet) out(formatTable(rows));
  else if (failed.length > 0) out(formatTable(failed));
  out(
    `Conformance ${svc.runId} against ${base} (seed ${seed}, ${credential.variable}${svc.signPlayer ? ', player tokens' : ''}): ` +
      `${rows.length - failed.length - skipped.length} passed, ${failed.length} failed, ${skipped.length} skipped in ${seconds.toFixed(1)} s` +
      (failed.length > 0 ? ` — violations: ${failed.map((r) => r.check).join(', ')}` : '') +
      '\n',
  );
  return failed.length > 0 ? 1 : 0;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  void main(process.argv.slice(2)).then((code) => process.exit(code));
}
