/**
 * `npm run token -- --sub <studioId> [--role player|member|admin|master|server|support] [--ttl SECONDS] [--guest] [--base <url>]`
 *
 * Prints a bearer token (spec 5.2, 5.3) signed with the HS256 secret of the environment: `JWT_SECRET`
 * when set (a deployment's own, for its first operator token: docs/deploy.md), otherwise the development
 * secret of `npm start` (`dev/local-env.ts`). Issuer and audience come from the configuration
 * (`JWT_ISSUER`, `JWT_AUDIENCE`). Default role `player`, lifetime 3600 s (1 to 604,800). The secret comes
 * from the environment only (never argv, dev/cli.ts); the token goes to stdout only (pipe it into a
 * variable); nothing is logged.
 *
 * Signing needs no service. With `--base <url>` the token is first shown to that service
 * (`GET /api/admin/ledger/health`): a 200, or a 403 problem (a role below `support`), means the service
 * accepts it; a 401 means it does not (another `JWT_SECRET`, `JWT_ISSUER` or `JWT_AUDIENCE`); any other
 * answer (an HTML page, a 404 of a `--base` with a path, a 5xx) proves nothing. Only an accepted token is
 * printed.
 *
 * Exit codes: 0 printed, 1 the service at `--base` refused the token, 2 bad arguments or configuration
 * (with `JWT_JWKS_URL` set, tokens come from the identity host and nothing can be minted here), 3 the
 * service at `--base` could not be reached or did not answer as the service.
 */
import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';
import { loadServiceConfig } from '../api/_lib/config.js';
import { mintToken, ROLES, type Role } from '../api/_lib/auth/tokens.js';
import { STUDIO_ID } from '../api/_lib/ledger/ids.js';
import { localEnvironment, withDefaults, type CliIo } from './local-env.js';
import { SERVICE_OPTIONS, notTheService, readAnswer, serviceBase, wantsHelp, type ServiceAnswer } from './cli.js';

const USAGE = `Usage: npm run token -- --sub <STUDIO_id> [--role ROLE] [--ttl SECONDS] [--guest] [--base <url>]

Prints a bearer token signed with JWT_SECRET from the environment (else the development secret of
npm start). Secrets are read from the environment only; the token goes to stdout.

Options:
  --sub <STUDIO_id>   the token's subject (an account's studio id, or an operator's name of that form)
  --role ROLE         ${ROLES.join(', ')} (default player)
  --ttl SECONDS       lifetime, 1 to 604800 (default 3600)
  --guest             a guest token (spec 5.4)
  --base <url>        first check that this service accepts the token (e.g. https://game.example.com)
  -h, --help          print this help

Example:
  OPERATOR_TOKEN=$(npm run -s token -- --sub STUDIO_OPERATOR --role admin --base https://game.example.com)
`;

/** Run the CLI; resolves to the exit code. `out`/`err` receive the token and messages. */
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
      options: {
        ...SERVICE_OPTIONS,
        sub: { type: 'string' },
        role: { type: 'string', default: 'player' },
        ttl: { type: 'string', default: '3600' },
        guest: { type: 'boolean', default: false },
      },
      strict: true,
    }).values;
  } catch (e) {
    err(`${(e as Error).message}\n${USAGE}`);
    return 2;
  }
  const problems: string[] = [];
  if (!values.sub || !STUDIO_ID.test(values.sub))
    problems.push('--sub must be a studio id such as STUDIO_7QF3K2M9X4D1H8TB (see POST /api/admin/accounts).');
  if (!(ROLES as readonly string[]).includes(values.role)) problems.push(`--role must be one of ${ROLES.join(', ')}.`);
  if (!/^\d{1,6}$/.test(values.ttl) || Number(values.ttl) < 1 || Number(values.ttl) > 604_800)
    problems.push('--ttl must be a whole number of seconds from 1 to 604800.');
  let base: string | undefined;
  try {
    base = values.base === undefined ? undefined : serviceBase(values.base, env);
  } catch (e) {
    problems.push((e as Error).message);
  }
  if (problems.length > 0) {
    err(problems.join('\n') + `\n${USAGE}`);
    return 2;
  }
  let config;
  try {
    config = loadServiceConfig(localEnvironment(env));
    if (config.jwt.keys.kind !== 'secret') throw new Error('JWT_JWKS_URL is set: tokens come from the identity host, not from here.');
  } catch (e) {
    err(`${(e as Error).message}\n`);
    return 2;
  }
  const token = await mintToken(config.jwt, {
    subject: values.sub!,
    role: values.role as Role,
    ttlSeconds: Number(values.ttl),
    guest: values.guest,
  });
  if (base !== undefined) {
    let answer: ServiceAnswer;
    try {
      answer = await readAnswer(await fetch(`${base}/api/admin/ledger/health`, { headers: { Authorization: `Bearer ${token}` } }));
    } catch (e) {
      err(`${base} cannot be reached (${(e as Error).message}).\n`);
      return 3;
    }
    if (answer.body === undefined) {
      err(`${notTheService(base, answer.status)}\n`);
      return 3;
    }
    if (answer.status === 401) {
      err(`${base} does not accept this token (401): JWT_SECRET, JWT_ISSUER or JWT_AUDIENCE differ from the deployment's.\n`);
      return 1;
    }
    if (answer.status !== 200 && answer.status !== 403) {
      const detail = typeof answer.body.detail === 'string' ? `: ${answer.body.detail}` : '';
      err(`${base} answered ${answer.status}${detail}, which does not say whether it accepts the token; nothing printed.\n`);
      return 3;
    }
  }
  out(token + '\n');
  return 0;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  void main(process.argv.slice(2)).then((code) => process.exit(code));
}
