/**
 * `npm run assets -- <command> …`: the authoring workflow for binaries (spec 4.9), against a running
 * service (`--base <url>`, default `http://127.0.0.1:$PORT`, dev/cli.ts):
 *
 * - `upload <folder> --era <prefix> [--purpose play|isolate|author] [--cdn <url>]`: upload every file under
 *   the folder (dot-files skipped; sub-folders kept below the era prefix) through `POST /api/storage/upload`,
 *   check that `HEAD {cdn}/{key}` answers 200 with a content type that is not HTML, register the files that
 *   pass in the metadata index in batches of at most 100 (`POST /api/storage/register`), and print the keys
 *   to put into `modelRef`, one `key<TAB>file` per line.
 * - `check <key>… [--cdn <url>]`: only the HEAD check.
 * - `register <key>… [--purpose …]`: only the registration, in batches of at most 100.
 * - `export --out <file>`: write the whole index (`GET /api/storage/index`, every page) to a JSON file
 *   `{ "version": 1, "entries": [...] }`, the copy a catalog build checks `modelRef` keys against (catalog
 *   config `assetIndex`).
 *
 * `--cdn` defaults to the URL the upload answered (the storage's public URL). Credentials, never from argv
 * (dev/cli.ts): `--token-file <file>` (a bearer token with role admin or master, read from the file),
 * else `OPERATOR_TOKEN` or `ADMIN_PASSWORD` from the environment, else an admin token minted with the
 * local secret (as `npm run token`), which only a local server (or one sharing `JWT_SECRET`) accepts.
 * Nothing secret is printed.
 *
 * Exit codes: 0 everything passed; 1 some file was refused, failed its check or was not registered (each
 * named on stderr); 2 bad arguments or configuration; 3 the service could not be reached.
 */
import { readdir, readFile } from 'node:fs/promises';
import { writeFile } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';
import { loadServiceConfig } from '../api/_lib/config.js';
import { mintToken } from '../api/_lib/auth/tokens.js';
import { ASSET_PURPOSES, REGISTER_BATCH_MAX, type AssetEntry } from '../api/_lib/asset-index/types.js';
import { encodeKeyPath } from '../api/_lib/storage/keys.js';
import { localEnvironment, withDefaults, type CliIo } from './local-env.js';
import { SERVICE_OPTIONS, bearerHeaders, notTheService, operatorHeaders, serviceBase, wantsHelp } from './cli.js';

const USAGE = `Usage:
  npm run assets -- upload <folder> --era <prefix> [--purpose play|isolate|author] [--cdn <url>]
  npm run assets -- check <key>... [--cdn <url>]
  npm run assets -- register <key>... [--purpose play|isolate|author]
  npm run assets -- export --out <file>

The authoring workflow for binaries (spec 4.9) against a running service: upload, check on the CDN
with HEAD, register in the metadata index (batches of at most 100), export the index.

Options:
  --base <url>         the service (default http://127.0.0.1:$PORT, npm start's address)
  --cdn <url>          the public URL binaries are served from (default: the URL the upload answered)
  --purpose <p>        play (default), isolate or author
  --era <prefix>       the key prefix of an upload
  --out <file>         the file export writes
  --token-file <file>  an admin bearer token, read from this file
  -h, --help           print this help
Credentials come from --token-file, else OPERATOR_TOKEN or ADMIN_PASSWORD in the environment, else a
token minted with the local secret (npm start only); never from the command line.

Example:
  ADMIN_PASSWORD=… npm run assets -- upload ./models --era era1/models --base https://game.example.com
`;

/** Thrown when the service cannot be reached (exit 3). */
class Unreachable extends Error {}

interface Ctx {
  readonly server: string;
  readonly auth: Record<string, string>;
  readonly out: (s: string) => void;
  readonly err: (s: string) => void;
}

async function request(ctx: Ctx, path: string, init: RequestInit = {}): Promise<{ status: number; body: Record<string, unknown> }> {
  let res: Response;
  try {
    res = await fetch(`${ctx.server}${path}`, {
      ...init,
      headers: { ...ctx.auth, ...(init.headers as Record<string, string> | undefined) },
    });
  } catch (e) {
    throw new Unreachable(`${ctx.server} cannot be reached (${(e as Error).message}).`);
  }
  const text = await res.text();
  if (text === '') return { status: res.status, body: {} };
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  // an HTML page or a proxy's error: not the service (dev/cli.ts)
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw new Unreachable(notTheService(ctx.server, res.status));
  return { status: res.status, body: body as Record<string, unknown> };
}

/** Every file under `dir`, relative with `/`, sorted; dot-files and dot-folders skipped. */
async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((e) => e.isFile())
    .map((e) => relative(dir, join(e.parentPath, e.name)).split(sep).join('/'))
    .filter((p) => !p.split('/').some((s) => s.startsWith('.')))
    .sort();
}

/** HEAD `url`: undefined when it answers 200 with a content type that is not HTML, else why not. */
async function headProblem(url: string): Promise<string | undefined> {
  let res: Response;
  try {
    res = await fetch(url, { method: 'HEAD' });
  } catch (e) {
    return `HEAD ${url} failed (${(e as Error).message})`;
  }
  if (res.status !== 200) return `HEAD ${url} answered ${res.status}`;
  const type = res.headers.get('content-type') ?? '';
  if (/text\/html|application\/xhtml/i.test(type)) return `HEAD ${url} answered an HTML page (${type})`;
  return undefined;
}

/** The `detail` of a problem answer, or ''. */
const detailOf = (body: Record<string, unknown>): string => (typeof body.detail === 'string' ? body.detail : '');

const cdnUrl = (cdn: string, key: string) => `${cdn.replace(/\/+$/, '')}/${encodeKeyPath(key)}`;

/** Register `keys` in batches; returns the keys that were not registered. */
async function register(ctx: Ctx, keys: readonly string[], purpose: string): Promise<string[]> {
  const failed: string[] = [];
  for (let i = 0; i < keys.length; i += REGISTER_BATCH_MAX) {
    const batch = keys.slice(i, i + REGISTER_BATCH_MAX);
    const r = await request(ctx, '/api/storage/register', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ entries: batch.map((key) => ({ key, purpose })) }),
    });
    if (r.status !== 200) {
      ctx.err(`register: ${r.status} ${detailOf(r.body)}\n`);
      failed.push(...batch);
      continue;
    }
    for (const x of r.body.results as { key: string; status: string; reason?: string }[]) {
      if (x.status === 'refused') {
        ctx.err(`${x.key}: not registered: ${x.reason ?? ''}\n`);
        failed.push(x.key);
      }
    }
  }
  return failed;
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
        era: { type: 'string' },
        purpose: { type: 'string', default: 'play' },
        cdn: { type: 'string' },
        'token-file': { type: 'string' },
        out: { type: 'string' },
      },
      strict: true,
    });
  } catch (e) {
    err(`${(e as Error).message}\n${USAGE}`);
    return 2;
  }
  const { values, positionals } = parsed;
  const [command, ...args] = positionals;
  const problems: string[] = [];
  if (!['upload', 'check', 'register', 'export'].includes(command ?? ''))
    problems.push('Name a command: upload, check, register or export.');
  if (!(ASSET_PURPOSES as readonly string[]).includes(values.purpose))
    problems.push(`--purpose must be one of ${ASSET_PURPOSES.join(', ')}.`);
  if (command === 'upload' && (args.length !== 1 || !values.era)) problems.push('upload takes one folder and --era <prefix>.');
  if ((command === 'check' || command === 'register') && args.length === 0) problems.push(`${command} takes one or more keys.`);
  if (command === 'check' && !values.cdn) problems.push('check needs --cdn <url>.');
  if (command === 'export' && !values.out) problems.push('export needs --out <file>.');
  let config;
  let server = '';
  try {
    server = serviceBase(values.base, env);
    config = loadServiceConfig(localEnvironment(env));
  } catch (e) {
    problems.push((e as Error).message);
  }
  if (problems.length > 0 || !config) {
    err(problems.join('\n') + `\n${USAGE}`);
    return 2;
  }
  let auth: Record<string, string>;
  let fromEnv;
  try {
    fromEnv = operatorHeaders(env);
  } catch (e) {
    err(`${(e as Error).message}\n`);
    return 2;
  }
  if (values['token-file']) {
    let text: string;
    try {
      text = await readFile(values['token-file'], 'utf8');
    } catch (e) {
      err(`--token-file cannot be read (${(e as NodeJS.ErrnoException).code ?? 'error'}).\n`);
      return 2;
    }
    try {
      auth = bearerHeaders(text, '--token-file');
    } catch (e) {
      err(`${(e as Error).message}\n`);
      return 2;
    }
  } else if (fromEnv) {
    auth = { ...fromEnv.headers };
  } else if (config.jwt.keys.kind === 'secret') {
    auth = {
      Authorization: `Bearer ${await mintToken(config.jwt, { subject: 'STUDIO_ASSETS_CLI', role: 'admin', ttlSeconds: 3600 })}`,
    };
  } else {
    err(
      'No credential: set OPERATOR_TOKEN or ADMIN_PASSWORD, or pass --token-file <file> (JWT_JWKS_URL is set, so no token can be minted here).\n',
    );
    return 2;
  }
  const ctx: Ctx = { server, auth, out, err };
  try {
    switch (command) {
      case 'check': {
        let bad = 0;
        for (const key of args) {
          const p = await headProblem(cdnUrl(values.cdn!, key));
          if (p) {
            bad++;
            err(`${key}: ${p}\n`);
          } else out(`${key}\tok\n`);
        }
        return bad > 0 ? 1 : 0;
      }
      case 'register': {
        const failed = await register(ctx, args, values.purpose);
        for (const key of args) if (!failed.includes(key)) out(`${key}\tregistered\n`);
        return failed.length > 0 ? 1 : 0;
      }
      case 'export': {
        const entries: AssetEntry[] = [];
        let cursor: string | null = null;
        do {
          const q = `limit=1000${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
          const r = await request(ctx, `/api/storage/index?${q}`);
          if (r.status !== 200) {
            err(`export: ${r.status} ${detailOf(r.body)}\n`);
            return 1;
          }
          entries.push(...(r.body.items as AssetEntry[]));
          cursor = r.body.cursor as string | null;
        } while (cursor);
        await writeFile(values.out!, JSON.stringify({ version: 1, entries }, null, 2) + '\n');
        out(`${entries.length} entries written to ${values.out!}\n`);
        return 0;
      }
      default: {
        const dir = args[0]!;
        const files = await filesUnder(dir);
        const era = values.era!.replace(/^\/+|\/+$/g, '');
        const passed: { key: string; file: string }[] = [];
        let bad = 0;
        for (const file of files) {
          const folder = [era, ...file.split('/').slice(0, -1)].join('/');
          const name = file.split('/').pop()!;
          const form = new FormData();
          form.append('folder', folder);
          form.append('file', new Blob([new Uint8Array(await readFile(join(dir, file)))]), name);
          const r = await request(ctx, '/api/storage/upload', { method: 'POST', body: form });
          if (r.status !== 201) {
            bad++;
            err(`${file}: not uploaded: ${r.status} ${detailOf(r.body)}\n`);
            continue;
          }
          const key = r.body.key as string;
          const p = await headProblem(values.cdn ? cdnUrl(values.cdn, key) : (r.body.url as string));
          if (p) {
            bad++;
            err(`${file}: uploaded as ${key}, but ${p}; not registered\n`);
            continue;
          }
          passed.push({ key, file });
        }
        const failed = await register(
          ctx,
          passed.map((p) => p.key),
          values.purpose,
        );
        for (const p of passed) if (!failed.includes(p.key)) out(`${p.key}\t${p.file}\n`);
        return bad + failed.length > 0 ? 1 : 0;
      }
    }
  } catch (e) {
    if (e instanceof Unreachable) {
      err(`${e.message}\n`);
      return 3;
    }
    throw e;
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  void main(process.argv.slice(2)).then((code) => process.exit(code));
}
