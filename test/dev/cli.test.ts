/**
 * The command-line conventions (dev/cli.ts) and the commands that reach a service with `--base`:
 * `npm run accounts` and `npm run ledger:verify` through the local server as the operator whose credential
 * the environment holds, never from argv; `npm run token --base` printing a token only when that service
 * accepts it. Against an address that is not the service (an HTML page with 200, an HTML or plain-text
 * 5xx, a `--base` with a path) every such command, the conformance check included, says so and exits 3;
 * a credential a header cannot carry, or a `--base` in plain http off the loopback interface, is refused
 * before any request (exit 2); no credential is ever printed.
 */
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useServiceConfig } from '../../api/_lib/config.js';
import { NO_CREDENTIAL, operatorHeaders, progressLine, requireOperatorHeaders, serviceBase, wantsHelp } from '../../dev/cli.js';
import { main as accounts } from '../../dev/accounts.js';
import { cli as verify } from '../../dev/ledger-verify.js';
import { main as token } from '../../dev/token.js';
import { main as conformance } from '../../dev/conformance.js';
import { main as assets } from '../../dev/assets.js';
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

/** A token's shape (not a valid token of the test server): what OPERATOR_TOKEN holds; its signature must never be printed. */
const TOKEN = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJTVFVESU9fT1BFUkFUT1IifQ.c2lnbmF0dXJlLW5ldmVyLXByaW50ZWQteHl6';
const SIGNATURE = /c2lnbmF0dXJl/;

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
    expect(operatorHeaders({ ADMIN_PASSWORD: 'pw', OPERATOR_TOKEN: ` ${TOKEN}\n` })).toEqual({
      headers: { Authorization: `Bearer ${TOKEN}` },
      variable: 'OPERATOR_TOKEN',
    });
  });
  it('refuses a credential a header cannot carry as it is, naming the variable and never the value', () => {
    const broken = [
      `${TOKEN.slice(0, 20)}\n${TOKEN.slice(20)}`,
      `Bearer ${TOKEN}`,
      `"${TOKEN}"`,
      `${TOKEN.slice(0, 20)}\u2019${TOKEN.slice(20)}`,
    ];
    for (const t of broken) {
      expect(() => operatorHeaders({ OPERATOR_TOKEN: t }), t).toThrow(/^OPERATOR_TOKEN is not a token/);
      expect(() => operatorHeaders({ OPERATOR_TOKEN: t }), t).not.toThrow(SIGNATURE);
    }
    for (const p of ['Hn4rX8cQ\n2vLm7TzW', 'Hn4rX8cQ\u00002vLm7TzW', 'Hn4rX8cQ\u20ac2vLm7TzW'])
      expect(() => operatorHeaders({ ADMIN_PASSWORD: p }), p).toThrow(/^ADMIN_PASSWORD holds/);
    expect(operatorHeaders({ ADMIN_PASSWORD: 'Hn4rX8cQ é 2vLm7TzW' })?.variable).toBe('ADMIN_PASSWORD');
  });
  it('says what to set, or what is wrong with what is set, when a command needs a credential', () => {
    expect(requireOperatorHeaders({ ADMIN_PASSWORD: ' pw ' })).toEqual({
      credential: { headers: { 'X-Admin-Password': 'pw' }, variable: 'ADMIN_PASSWORD' },
    });
    expect(requireOperatorHeaders({ ADMIN_PASSWORD: '  ' })).toEqual({ problem: NO_CREDENTIAL });
    const broken = requireOperatorHeaders({ OPERATOR_TOKEN: `Bearer ${TOKEN}` });
    expect(broken).toEqual({ problem: expect.stringMatching(/^OPERATOR_TOKEN is not a token/) as unknown });
    expect(JSON.stringify(broken)).not.toContain(TOKEN);
  });
  it('refuses a --base in plain http off the loopback interface, or carrying a credential, without repeating it', () => {
    for (const ok of ['http://127.0.0.1:3000', 'http://localhost:3000/', 'http://[::1]:3000', 'https://game.example.com/prefix/'])
      expect(() => serviceBase(ok, {}), ok).not.toThrow();
    for (const bad of ['http://game.example.com', 'http://10.0.0.5:3000', 'http://127.0.0.1.nip.io:3000'])
      expect(() => serviceBase(bad, {}), bad).toThrow(/--base must be an https:\/\/ URL/);
    for (const bad of [
      `https://${TOKEN}@game.example.com`,
      `https://game.example.com/?token=${TOKEN}`,
      `https://game.example.com/#${TOKEN}`,
    ]) {
      expect(() => serviceBase(bad, {}), bad).toThrow(/--base/);
      expect(() => serviceBase(bad, {}), bad).not.toThrow(SIGNATURE);
    }
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

describe('commands against an address that does not answer as the service', () => {
  let fake: Server;
  let fakeUrl: string;
  let answer: (res: ServerResponse) => void = (res) => void res.end();
  beforeAll(async () => {
    fake = createServer((_req, res) => answer(res));
    await new Promise<void>((ok) => fake.listen(0, '127.0.0.1', ok));
    fakeUrl = `http://127.0.0.1:${(fake.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise((ok) => fake.close(ok));
  });

  /** Every command that reaches a service with --base, each as (base, env) → its outcome. */
  const COMMANDS: Record<string, (base: string, env: Record<string, string>) => Promise<{ code: number; text: string }>> = {
    'accounts show': async (base, env) => {
      const r = io(env);
      return { code: await accounts(['show', 'STUDIO_7QF3K2M9X4D1H8TB', '--base', base], r.io), text: r.out.join('') + r.err.join('') };
    },
    'accounts create': async (base, env) => {
      const r = io(env);
      return { code: await accounts(['create', '--display-name', 'Ada', '--base', base], r.io), text: r.out.join('') + r.err.join('') };
    },
    'ledger:verify': async (base, env) => {
      const r = io(env);
      return { code: await verify(['--base', base, '--quiet'], r.io), text: r.out.join('') + r.err.join('') };
    },
    conformance: async (base, env) => {
      const r = io(env);
      return { code: await conformance(['--base', base, '--quiet'], { ...r.io, tty: false }), text: r.out.join('') + r.err.join('') };
    },
    'assets export': async (base, env) => {
      const r = io(env);
      return {
        code: await assets(['export', '--out', join(root, 'index.json'), '--base', base], r.io),
        text: r.out.join('') + r.err.join(''),
      };
    },
  };

  it('token --base: prints nothing unless the service accepts the token (an HTML page, a 404 of a path, a 5xx prove nothing)', async () => {
    const pages: [string, (res: ServerResponse) => void][] = [
      [
        'an app shell answered 200',
        (res) => void res.writeHead(200, { 'Content-Type': 'text/html' }).end('<!doctype html><html>app</html>'),
      ],
      ['a JSON 503', (res) => void res.writeHead(503, { 'Content-Type': 'application/problem+json' }).end('{"status":503}')],
    ];
    for (const [page, respond] of pages) {
      answer = respond;
      const r = io({ JWT_SECRET });
      expect(await token(['--sub', 'STUDIO_OPERATOR', '--role', 'admin', '--base', fakeUrl], r.io), page).toBe(3);
      expect(r.out, page).toEqual([]);
    }
    // the real service under a path: its catch-all's 404 says nothing of the token
    const wrongPath = io({ JWT_SECRET });
    expect(await token(['--sub', 'STUDIO_OPERATOR', '--role', 'admin', '--base', `${server.url}/api`], wrongPath.io)).toBe(3);
    expect(wrongPath.out).toEqual([]);
    expect(wrongPath.err.join('')).toMatch(/answered 404/);
    // a player's token is accepted (403: its role is below support), and printed
    const playerToken = io({ JWT_SECRET });
    expect(await token(['--sub', 'STUDIO_OPERATOR', '--base', server.url], playerToken.io)).toBe(0);
    expect(playerToken.out.join('')).toMatch(/^ey/);
  });

  it('says an HTML page or a proxy’s error is not the service, exits 3 and prints no credential', async () => {
    const pages: [string, (res: ServerResponse) => void][] = [
      [
        'an app shell answered 200',
        (res) => void res.writeHead(200, { 'Content-Type': 'text/html' }).end('<!doctype html><html>app</html>'),
      ],
      ['an HTML 500', (res) => void res.writeHead(500, { 'Content-Type': 'text/html' }).end('<html>Internal Server Error</html>')],
      ['a plain-text 502', (res) => void res.writeHead(502, { 'Content-Type': 'text/plain' }).end('Bad Gateway')],
    ];
    for (const [page, respond] of pages) {
      answer = respond;
      for (const [name, run] of Object.entries(COMMANDS)) {
        const r = await run(fakeUrl, { OPERATOR_TOKEN: TOKEN });
        expect(r.code, `${name}: ${page}`).toBe(3);
        expect(r.text, `${name}: ${page}`).toMatch(/without the service's JSON .*is --base the service's root address/);
        expect(r.text, `${name}: ${page}`).not.toMatch(SIGNATURE);
      }
    }
    // JSON of another service answered 200: what the command reads is not there
    answer = (res) => void res.writeHead(200, { 'Content-Type': 'application/json' }).end('{"ok":true}');
    for (const name of ['accounts show', 'accounts create', 'ledger:verify'])
      expect((await COMMANDS[name]!(fakeUrl, { OPERATOR_TOKEN: TOKEN })).code, name).toBe(3);
  });

  it('reports the service’s own 5xx with its detail (exit 3), and a --base with a path as not the root', async () => {
    answer = (res) =>
      void res
        .writeHead(503, { 'Content-Type': 'application/problem+json' })
        .end(JSON.stringify({ status: 503, code: 'UPSTREAM_UNAVAILABLE', detail: 'The store is not configured.' }));
    for (const [name, run] of Object.entries(COMMANDS)) {
      if (name === 'assets export') continue;
      const r = await run(fakeUrl, { OPERATOR_TOKEN: TOKEN });
      expect(r.code, name).toBe(3);
      expect(r.text, name).toMatch(/answered 503: The store is not configured\./);
    }
    // the real service under a path: its catch-all answers 404 for every operator route
    const r = await COMMANDS.conformance!(`${server.url}/api`, { ADMIN_PASSWORD });
    expect(r.code).toBe(3);
    expect(r.text).toMatch(/answered 404.*is --base the service's root address/);
    const refused = await COMMANDS.conformance!(server.url, { OPERATOR_TOKEN: TOKEN });
    expect(refused.code).toBe(2);
    expect(refused.text).toMatch(/refused OPERATOR_TOKEN \(401/);
    expect(refused.text).not.toMatch(SIGNATURE);
  });

  it('refuses a token with a line break inside before any request, and never prints it (exit 2)', async () => {
    let requests = 0;
    answer = (res) => void (requests++, res.writeHead(500).end());
    const broken = `${TOKEN.slice(0, 30)}\n${TOKEN.slice(30)}`;
    for (const [name, run] of Object.entries(COMMANDS)) {
      const r = await run(fakeUrl, { OPERATOR_TOKEN: broken });
      expect(r.code, name).toBe(2);
      expect(r.text, name).toMatch(/OPERATOR_TOKEN is not a token/);
      expect(r.text, name).not.toMatch(SIGNATURE);
    }
    expect(requests).toBe(0);
    // --base over plain http off the loopback interface: refused, nothing sent
    for (const [name, run] of Object.entries(COMMANDS)) {
      const r = await run('http://game.example.com', { OPERATOR_TOKEN: TOKEN });
      expect(r.code, name).toBe(2);
      expect(r.text, name).toMatch(/--base must be an https:\/\/ URL/);
    }
  });
});
