/**
 * `npm run token -- --sub <studioId> [--role player|member|admin|master|server] [--ttl SECONDS] [--guest]`
 *
 * Prints a development bearer token (spec 5.2, 5.3) signed with the local HS256 secret: `JWT_SECRET`
 * when set, otherwise the development secret of `npm start` (`dev/local-env.ts`). Issuer and audience
 * come from the configuration (`JWT_ISSUER`, `JWT_AUDIENCE`). Default role `player`, lifetime 3600 s
 * (1 to 604,800). The token goes to stdout only (pipe it into a variable); nothing is logged.
 *
 * Exit codes: 0 printed, 2 bad arguments or configuration (with `JWT_JWKS_URL` set, tokens come from
 * the identity host and nothing can be minted here).
 */
import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';
import { loadServiceConfig } from '../api/_lib/config.js';
import { mintToken, ROLES, type Role } from '../api/_lib/auth/tokens.js';
import { STUDIO_ID } from '../api/_lib/ledger/ids.js';
import { localEnvironment, withDefaults, type CliIo } from './local-env.js';

const USAGE = 'Usage: npm run token -- --sub <STUDIO_id> [--role player|member|admin|master|server] [--ttl SECONDS] [--guest]';

/** Run the CLI; resolves to the exit code. `out`/`err` receive the token and messages. */
export async function main(argv: readonly string[], io: CliIo = {}): Promise<number> {
  const { out, err, env } = withDefaults(io);
  let values;
  try {
    values = parseArgs({
      args: [...argv],
      options: {
        sub: { type: 'string' },
        role: { type: 'string', default: 'player' },
        ttl: { type: 'string', default: '3600' },
        guest: { type: 'boolean', default: false },
      },
      strict: true,
    }).values;
  } catch (e) {
    err(`${(e as Error).message}\n${USAGE}\n`);
    return 2;
  }
  const problems: string[] = [];
  if (!values.sub || !STUDIO_ID.test(values.sub))
    problems.push('--sub must be a studio id such as STUDIO_7QF3K2M9X4D1H8TB (see POST /api/admin/accounts).');
  if (!(ROLES as readonly string[]).includes(values.role)) problems.push(`--role must be one of ${ROLES.join(', ')}.`);
  if (!/^\d{1,6}$/.test(values.ttl) || Number(values.ttl) < 1 || Number(values.ttl) > 604_800)
    problems.push('--ttl must be a whole number of seconds from 1 to 604800.');
  if (problems.length > 0) {
    err(problems.join('\n') + `\n${USAGE}\n`);
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
  out(
    (await mintToken(config.jwt, {
      subject: values.sub!,
      role: values.role as Role,
      ttlSeconds: Number(values.ttl),
      guest: values.guest,
    })) + '\n',
  );
  return 0;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  void main(process.argv.slice(2)).then((code) => process.exit(code));
}
