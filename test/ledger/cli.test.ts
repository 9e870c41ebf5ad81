/**
 * The operator and developer CLIs of the ledger: `npm run token` (a development token the local server
 * accepts, from the secret in `DATA_DIR` when none is configured), `npm run accounts` (create and show
 * on the configured store) and `npm run ledger:verify` (the invariants of a live store, and a tampered
 * store reported with exit 1).
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient } from '@libsql/client';
import { afterAll, describe, expect, it } from 'vitest';
import { loadServiceConfig } from '../../api/_lib/config.js';
import { verifyToken } from '../../api/_lib/auth/tokens.js';
import { main as token } from '../../dev/token.js';
import { main as accounts } from '../../dev/accounts.js';
import { main as verify } from '../../dev/ledger-verify.js';
import { DEV_SECRET_FILE, localEnvironment } from '../../dev/local-env.js';
import { openSqlitePlayerStore } from '../../api/_lib/player/sqlite.js';
import { openSqliteLedger } from '../../api/_lib/ledger/sqlite.js';
import { credit } from '../helpers/ledger-ops.js';

const dir = mkdtempSync(join(tmpdir(), 'ledger-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function io(env: Record<string, string>) {
  const out: string[] = [];
  const err: string[] = [];
  return { out, err, io: { out: (t: string) => void out.push(t), err: (t: string) => void err.push(t), env } };
}

describe('npm run token', () => {
  it('mints a token from a development secret kept in DATA_DIR (mode 0600), which the local configuration then accepts', async () => {
    const env = { DATA_DIR: join(dir, 'tok') };
    const r = io(env);
    expect(await token(['--sub', 'STUDIO_7QF3K2M9X4D1H8TB', '--role', 'admin', '--ttl', '120'], r.io)).toBe(0);
    const file = join(dir, 'tok', DEV_SECRET_FILE);
    expect(existsSync(file)).toBe(true);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const secret = readFileSync(file, 'utf8').trim();
    expect(r.out.join('')).not.toContain(secret);
    const principal = await verifyToken(r.out.join('').trim(), loadServiceConfig(localEnvironment(env)).jwt);
    expect(principal).toMatchObject({ subject: 'STUDIO_7QF3K2M9X4D1H8TB', role: 'admin', guest: false });
    // the same secret on the next run
    expect(localEnvironment(env).JWT_SECRET).toBe(secret);
  });

  it('uses JWT_SECRET when set and writes no file', async () => {
    const env = { DATA_DIR: join(dir, 'tok2'), JWT_SECRET: 'configured-secret-0123456789-abcdefgh' };
    const r = io(env);
    expect(await token(['--sub', 'STUDIO_A', '--guest'], r.io)).toBe(0);
    expect(existsSync(join(dir, 'tok2', DEV_SECRET_FILE))).toBe(false);
    expect(await verifyToken(r.out.join('').trim(), loadServiceConfig(env).jwt)).toMatchObject({ role: 'player', guest: true });
  });

  it('exits 2 with every problem named for bad arguments, and when keys come from a JWKS', async () => {
    const r = io({ DATA_DIR: join(dir, 'tok3') });
    expect(await token(['--sub', 'nobody', '--role', 'root', '--ttl', '0'], r.io)).toBe(2);
    expect(r.err.join('')).toMatch(/--sub[\s\S]*--role[\s\S]*--ttl/);
    expect(r.out).toEqual([]);
    expect(await token(['--bogus'], io({}).io)).toBe(2);
    const j = io({ JWT_JWKS_URL: 'https://id.example.com/jwks.json' });
    expect(await token(['--sub', 'STUDIO_A'], j.io)).toBe(2);
    expect(j.err.join('')).toMatch(/JWT_JWKS_URL/);
  });
});

describe('npm run accounts and npm run ledger:verify', () => {
  const env = { DATA_DIR: join(dir, 'acc') };

  it('creates an account, shows it by either id, and refuses bad arguments', async () => {
    const r = io(env);
    expect(await accounts(['create', '--display-name', 'Ops Ada', '--username', 'ops-ada'], r.io)).toBe(0);
    const created = JSON.parse(r.out.join('')) as { account: { studioId: string; accountId: string }; created: boolean };
    expect(created.created).toBe(true);
    for (const id of [created.account.studioId, created.account.accountId]) {
      const s = io(env);
      expect(await accounts(['show', id], s.io)).toBe(0);
      expect(JSON.parse(s.out.join(''))).toMatchObject({ account: { studioId: created.account.studioId }, balance: 0 });
    }
    const taken = io(env);
    expect(await accounts(['create', '--display-name', 'Other', '--username', 'ops-ada'], taken.io)).toBe(1);
    expect(taken.err.join('')).toMatch(/taken/);
    expect(await accounts(['show', 'STUDIO_NOPE0000'], io(env).io)).toBe(1);
    for (const args of [[], ['create'], ['show'], ['show', 'not-an-id'], ['delete', 'x'], ['create', '--display-name', '']]) {
      expect(await accounts(args, io(env).io), args.join(' ')).toBe(2);
    }
  });

  it('reports a sound ledger with exit 0 and a tampered one with exit 1', async () => {
    const store = await openSqliteLedger({ file: join(dir, 'acc', 'ledger.sqlite') });
    const shown = io(env);
    await accounts(['create', '--display-name', 'V'], shown.io);
    const acct = (JSON.parse(shown.out.join('')) as { account: { accountId: string } }).account;
    await credit(store, acct.accountId, 'verify-send:cli-verify-1', 9);
    await store.close();
    const ok = io(env);
    expect(await verify(ok.io)).toBe(0);
    expect(ok.out.join('')).toMatch(/sound: 1 transfer\(s\), 2 posting\(s\)/);
    // tamper: drop the append-only guard and edit an amount, as someone with file access could
    const db = createClient({ url: 'file:' + join(dir, 'acc', 'ledger.sqlite') });
    await db.executeMultiple('DROP TRIGGER postings_append_only_u; UPDATE postings SET amount = 90 WHERE amount = 9;');
    db.close();
    const bad = io(env);
    expect(await verify(bad.io)).toBe(1);
    for (const n of [1, 3, 4]) expect(bad.err.join('')).toContain(`invariant ${n}:`);
  });

  it('checks the account bags too: a sound bag passes, an edited quantity is reported', async () => {
    const benv = { DATA_DIR: join(dir, 'bag') };
    const players = await openSqlitePlayerStore(join(dir, 'bag', 'ledger.sqlite'));
    await players.changeBag({
      accountId: 'a',
      definitionId: 'MATL-1',
      delta: 4,
      sourceRef: 'bag-grant:cli-1',
      fingerprint: 'f',
      at: '2026-11-23T10:00:00.000Z',
    });
    await players.changeBag({
      accountId: 'a',
      definitionId: 'MATL-1',
      delta: -1,
      sourceRef: 'bag-consume:cli-2',
      fingerprint: 'f',
      at: '2026-11-23T10:00:01.000Z',
    });
    await players.close();
    const ok = io(benv);
    expect(await verify(ok.io)).toBe(0);
    expect(ok.out.join('')).toMatch(/2 bag entries on 1 stack\(s\)/);
    const db = createClient({ url: 'file:' + join(dir, 'bag', 'ledger.sqlite') });
    await db.execute('UPDATE bag_quantities SET quantity = 30');
    db.close();
    const bad = io(benv);
    expect(await verify(bad.io)).toBe(1);
    expect(bad.err.join('')).toContain('invariant quantity-is-sum: a MATL-1: quantity 30, entries sum to 3.');
  });

  it('checks the unique items too: a minted item passes, one whose state no event explains is reported', async () => {
    const ienv = { DATA_DIR: join(dir, 'items') };
    const players = await openSqlitePlayerStore(join(dir, 'items', 'ledger.sqlite'));
    const at = '2026-11-23T10:00:00.000Z';
    const studioUuid = '0b0e4f0e-0000-4000-8000-0000000000c1';
    await players.mintItem({
      item: { studioUuid, definitionId: 'ITEM-1', accountId: 'a', state: 'owned', characterId: null, seq: 1, mintedAt: at, updatedAt: at },
      idempotencyKey: 'cli-mint-1',
      fingerprint: 'f',
    });
    await players.close();
    const ok = io(ienv);
    expect(await verify(ok.io)).toBe(0);
    expect(ok.out.join('')).toMatch(/1 unique item\(s\), each as its events make it/);
    // tamper: an item made consumed with no event that consumed it
    const db = createClient({ url: 'file:' + join(dir, 'items', 'ledger.sqlite') });
    await db.execute("UPDATE items SET state = 'consumed'");
    db.close();
    const bad = io(ienv);
    expect(await verify(bad.io)).toBe(1);
    expect(bad.err.join('')).toContain(`invariant stands-as-replayed: ${studioUuid}: stands consumed of a`);
  });
});
