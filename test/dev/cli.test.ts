/**
 * The command-line conventions (dev/cli.ts) and the commands that reach a service with `--base`:
 * `npm run accounts` and `npm run ledger:verify` through the local server as the operator whose credential
 * the environment holds, never from argv; `npm run token --base` printing a token only when that service
 * accepts it.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useServiceConfig } from '../../api/_lib/config.js';
import { operatorHeaders, progressLine, serviceBase, wantsHelp } from '../../dev/cli.js';
import { main as accounts } from '../../dev/accounts.js';
import { cli as verify } from '../../dev/ledger-verify.js';
import { main as token } from '../../dev/token.js';
import { startServer, type RunningServer } from '../../dev/server.js';

const JWT_SECRET = 'cli-test-secret-Vq8mT2xLr5NcW9pKd3ZgY7hB4sFj6aUe';
const ADMIN_PASSWORD = 'Hn4rX8cQ2vLm7TzW-cli';
let root: string;
let server: RunningServer;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'cli-'));
  server = await startServer({
    out: root,
    port: 0,
    env: { DATA_DIR: join(root, 'data'), JWT_SECRET, ADMIN_PASSWORD, STORE_DRIVER: 'sqlite', STORAGE_DRIVER: 'local' },
  });
}, 60_000);
afterAll(async () => {
  await server?.close();
  useServiceConfig(undefined);
  await rm(root, { recursive: true, force: true });
});

function io(env: Record<string, string>) {
  const out: string[] = [];
  const err: string[] = [];
  return { out, err, io: { env, out: (t: string) => void out.push(t), err: (t: string) => void err.push(t) } };
}

describe('conventions', () => {
  it('finds the service at --base, else at npm start’s address', () => {
    expect(serviceBase(undefined, {})).toBe('http://127.0.0.1:3000');
    expect(serviceBase(undefined, { PORT: '3100' })).toBe('http://127.0.0.1:3100');
    expect(serviceBase('https://game.example.com//', {})).toBe('https://game.example.com');
    for (const bad of ['game.example.com', 'ftp://x', 'https://u:p@x.example', 'https://x.example/?a=1'])
      expect(() => serviceBase(bad, {}), bad).toThrow(/--base/);
  });
  it('takes the operator credential from the environment: OPERATOR_TOKEN first, then ADMIN_PASSWORD', () => {
    expect(operatorHeaders({})).toBeUndefined();
    expect(operatorHeaders({ ADMIN_PASSWORD: ' pw ' })).toEqual({ headers: { 'X-Admin-Password': 'pw' }, variable: 'ADMIN_PASSWORD' });
    expect(operatorHeaders({ ADMIN_PASSWORD: 'pw', OPERATOR_TOKEN: 't' })).toEqual({
      headers: { Authorization: 'Bearer t' },
      variable: 'OPERATOR_TOKEN',
    });
  });
  it('reads --help before a --, and shows progress as one line on a terminal, plain lines elsewhere, nothing when quiet', () => {
    expect(wantsHelp(['a', '-h'])).toBe(true);
    expect(wantsHelp(['--', '--help'])).toBe(false);
    const written: string[] = [];
    const write = (t: string) => (written.push(t), true);
    progressLine(false, { write, isTTY: true })('a');
    progressLine(false, { write, isTTY: true })('b', true);
    progressLine(false, { write, isTTY: false })('c');
    progressLine(true, { write, isTTY: true })('d');
    expect(written).toEqual(['\r\x1b[2Ka', '\r\x1b[2Kb\n', 'c\n']);
  });
});

describe('commands that reach a service with --base', () => {
  it('accounts: creates and shows through the service with the password from the environment', async () => {
    const env = { ADMIN_PASSWORD };
    const c = io(env);
    expect(await accounts(['create', '--display-name', 'Base Ada', '--idempotency-key', 'cli-base-0001', '--base', server.url], c.io)).toBe(
      0,
    );
    const created = JSON.parse(c.out.join('')) as { account: { studioId: string }; created: boolean };
    expect(created.created).toBe(true);
    const s = io(env);
    expect(await accounts(['show', created.account.studioId, '--base', server.url], s.io)).toBe(0);
    expect(JSON.parse(s.out.join(''))).toMatchObject({ account: { studioId: created.account.studioId }, balance: 0 });
    expect(s.out.join('') + s.err.join('')).not.toContain(ADMIN_PASSWORD);
    // no credential, a wrong one, an unknown account
    expect(await accounts(['show', created.account.studioId, '--base', server.url], io({}).io)).toBe(2);
    expect(await accounts(['show', created.account.studioId, '--base', server.url], io({ ADMIN_PASSWORD: 'Zq8wN3xKr5TcW9pLd' }).io)).toBe(
      2,
    );
    expect(await accounts(['show', 'STUDIO_NOPE0000', '--base', server.url], io(env).io)).toBe(1);
    expect(await accounts(['show', created.account.studioId, '--base', 'http://127.0.0.1:9'], io(env).io)).toBe(3);
  });

  it('ledger:verify: runs the service’s check until a pass is finished', async () => {
    const r = io({ ADMIN_PASSWORD });
    expect(await verify(['--base', server.url, '--quiet'], r.io)).toBe(0);
    expect(r.out.join('')).toMatch(/^The ledger of http:\/\/localhost:\d+ is sound: pass \d+ checked \d+ account\(s\)/);
    expect(await verify(['--base', server.url], io({}).io)).toBe(2);
    expect(await verify(['--help'], io({}).io)).toBe(0);
  });

  it('token: prints a token only when the service at --base accepts it', async () => {
    const ok = io({ JWT_SECRET });
    expect(await token(['--sub', 'STUDIO_OPERATOR', '--role', 'admin', '--base', server.url], ok.io)).toBe(0);
    expect(ok.out.join('')).toMatch(/^ey/);
    const other = io({ JWT_SECRET: 'another-secret-Zq8wN3xKr5TcW9pLd7YgH4bFj6aUe' });
    expect(await token(['--sub', 'STUDIO_OPERATOR', '--role', 'admin', '--base', server.url], other.io)).toBe(1);
    expect(other.out).toEqual([]);
    expect(other.err.join('')).toMatch(/does not accept this token/);
  });
});
