/**
 * The wallet and admin routes through their entry files (spec 2.6, 2.8, 3, 4.8, 5.3, 5.4, 7, 8):
 * who may call (admin token, admin password, player token, guest, nothing), what verify-send accepts
 * and answers, replay and key reuse, that a refused request changes nothing, account creation and
 * lookup by either selector, grant-coin, and the overview with its filters and cursor.
 * Runs on the SQLite adapter; the contract suite proves the Redis adapter answers the same.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../api/_lib/config.js';
import { loadServiceConfig, useServiceConfig, type ServiceConfig } from '../../api/_lib/config.js';
import { mintToken, type Role } from '../../api/_lib/auth/tokens.js';
import { ledgerStore } from '../../api/_lib/ledger/store.js';
import * as wallet from '../../api/wallet.js';
import * as admin from '../../api/admin.js';
import { expectSound, sqliteHarness } from '../helpers/ledger.js';

const SECRET = 'test-secret-0123456789-abcdefghijklmnop';
const PASSWORD = 'admin-password-0123456789';
const h = sqliteHarness();
let config: ServiceConfig;

beforeAll(() => h.setup());
afterAll(async () => {
  useServiceConfig(undefined);
  await h.teardown();
});
beforeEach(() => {
  config = loadServiceConfig({ ...h.env(), JWT_SECRET: SECRET, ADMIN_PASSWORD: PASSWORD, WALLET_VERIFY_SEND_MAX: '1000' });
  useServiceConfig(config);
});

const token = (sub: string, role: Role, extra: { guest?: boolean } = {}) => mintToken(config.jwt, { subject: sub, role, ...extra });
const adminAuth = async () => ({ Authorization: `Bearer ${await token('STUDIO_OPERATOR', 'admin')}` });

/** The members of answers these tests read (problem bodies and wallet answers alike; absent ones are undefined). */
interface Answer {
  readonly code: string;
  readonly errors: { name: string; message: string }[];
  readonly account: { accountId: string; studioId: string; displayName: string; userId: string; username: string };
  readonly created: boolean;
  readonly entryId: string;
  readonly sourceRef: string;
  readonly idempotent: boolean;
  readonly balance: number;
  readonly at: string;
  readonly transactions: { entryId: string; amount: number; purpose: string; kind: string; seq: number }[];
  readonly cursor: string | null;
  readonly hasMore: boolean;
  readonly [member: string]: unknown;
}

// Every successful answer of this suite is checked against its schema in schemas/responses/.
const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;
const ajv = addFormats(new Ajv2020({ allErrors: true, strict: true }));
for (const name of ['wallet-credit', 'wallet-overview', 'account']) {
  ajv.addSchema(JSON.parse(readFileSync(join(PROJECT_ROOT, 'schemas', 'responses', `${name}.schema.json`), 'utf8')) as object, name);
}
function expectSchema(path: string, status: number, body: unknown): void {
  if (status >= 300) return;
  const name = /verify-send|grant-coin/.test(path) ? 'wallet-credit' : /overview/.test(path) ? 'wallet-overview' : 'account';
  const validate = ajv.getSchema(name)!;
  expect(validate(body) ? [] : validate.errors, `${path} answer against ${name}.schema.json`).toEqual([]);
}

async function post(entry: typeof wallet | typeof admin, path: string, body: unknown, headers: Record<string, string> = {}) {
  const res = await entry.POST(
    new Request(`http://t${path}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', ...headers },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    }),
  );
  const text = await res.text();
  const parsed = (text ? JSON.parse(text) : {}) as Answer;
  expectSchema(path, res.status, parsed);
  return { status: res.status, headers: res.headers, body: parsed };
}
async function get(entry: typeof wallet | typeof admin, path: string, headers: Record<string, string> = {}) {
  const res = await entry.GET(new Request(`http://t${path}`, { headers }));
  const parsed = (await res.json()) as Answer;
  expectSchema(path, res.status, parsed);
  return { status: res.status, headers: res.headers, body: parsed };
}

async function newAccount(displayName = 'Ada', username?: string) {
  const res = await post(admin, '/api/admin/accounts', { displayName, ...(username ? { username } : {}) }, await adminAuth());
  expect(res.status).toBe(201);
  return res.body.account;
}

const send = async (body: Record<string, unknown> | string, headers?: Record<string, string>) =>
  post(wallet, '/api/wallet/verify-send-to-account', body, headers ?? (await adminAuth()));

async function transferCount(): Promise<number> {
  return (await (await ledgerStore()).snapshot()).transfers.length;
}

describe('POST /api/admin/accounts and GET /api/admin/accounts/{key}', () => {
  it('creates an account with server-minted ids that either selector finds', async () => {
    const res = await post(admin, '/api/admin/accounts', { displayName: 'Ada', username: 'ada.steam-765611' }, await adminAuth());
    expect(res.status).toBe(201);
    const a = res.body.account;
    expect(a.studioId).toMatch(/^STUDIO_[0-9A-HJKMNP-TV-Z]{16}$/);
    expect(a.accountId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(a.userId).toMatch(/^[0-9a-f-]{36}$/);
    expect(a).toMatchObject({ displayName: 'Ada', username: 'ada.steam-765611' });
    expect(res.headers.get('location')).toBe(`/api/admin/accounts/${a.studioId}`);
    const byStudio = await get(admin, `/api/admin/accounts/${a.studioId}`, await adminAuth());
    const byId = await get(admin, `/api/admin/accounts/${a.accountId}`, await adminAuth());
    expect(byStudio.body.account).toEqual(a);
    expect(byId.body.account).toEqual(a);
    expect((await get(admin, '/api/admin/accounts/STUDIO_NOPE', await adminAuth())).status).toBe(404);
    expect((await get(admin, '/api/admin/accounts/not-an-id', await adminAuth())).status).toBe(404);
    expect((await get(admin, `/api/admin/accounts/${a.studioId}`)).status).toBe(401);
  });

  it('defaults the username to studio:<studioId>', async () => {
    const a = await newAccount('Bea');
    expect(a.username).toBe(`studio:${a.studioId}`);
  });

  it('replays a creation key with the same payload (200, created false), refuses another payload (422) and a taken username (409)', async () => {
    const body = { displayName: 'Cy', username: 'cy-player', idempotencyKey: 'create-cy-0001' };
    const first = await post(admin, '/api/admin/accounts', body, await adminAuth());
    const again = await post(admin, '/api/admin/accounts', body, await adminAuth());
    expect(first.status).toBe(201);
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual({ account: first.body.account, created: false });
    const other = await post(admin, '/api/admin/accounts', { ...body, displayName: 'Cyd' }, await adminAuth());
    expect(other.status).toBe(422);
    expect(other.body.code).toBe('IDEMPOTENCY_KEY_REUSED');
    const taken = await post(admin, '/api/admin/accounts', { displayName: 'Other', username: 'cy-player' }, await adminAuth());
    expect(taken.status).toBe(409);
    expect(taken.body.code).toBe('CONFLICT');
  });

  it('refuses bad bodies with every problem named', async () => {
    const res = await post(admin, '/api/admin/accounts', { displayName: '', username: 'a', extra: 1 }, await adminAuth());
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('INVALID_BODY');
    expect(res.body.errors.some((e) => e.name === '/extra')).toBe(true);
    expect(res.body.errors.some((e) => e.name === '/username')).toBe(true);
    expect(res.body.errors.some((e) => e.name === '/displayName')).toBe(true);
    expect((await post(admin, '/api/admin/accounts', { displayName: 'tab\there' }, await adminAuth())).status).toBe(400);
  });
});

describe('admin access (spec 5.3)', () => {
  it('lets in an admin or master token and the admin password', async () => {
    const a = await newAccount();
    const base = { studioId: a.studioId, amount: 1, purpose: 'verify' };
    expect((await send({ ...base, idempotencyKey: 'auth-admin-1' })).status).toBe(200);
    expect(
      (await send({ ...base, idempotencyKey: 'auth-master-1' }, { Authorization: `Bearer ${await token('STUDIO_M', 'master')}` })).status,
    ).toBe(200);
    expect((await send({ ...base, idempotencyKey: 'auth-password-1' }, { 'X-Admin-Password': PASSWORD })).status).toBe(200);
  });

  it('401 with WWW-Authenticate without credentials, with a wrong password, a bad or a guest token; 403 for a player token; nothing written', async () => {
    const a = await newAccount();
    const base = { studioId: a.studioId, amount: 1, purpose: 'verify', idempotencyKey: 'refused-0001' };
    const before = await transferCount();
    const cases: [Record<string, string>, number][] = [
      [{}, 401],
      [{ 'X-Admin-Password': 'wrong-password-0123456789' }, 401],
      [{ 'X-Admin-Password': '' }, 401],
      [{ Authorization: 'Bearer not.a.token' }, 401],
      [{ Authorization: 'Basic YWRtaW46YWRtaW4=' }, 401],
      [{ Authorization: `Bearer ${await token(a.studioId, 'player')}` }, 403],
      [{ Authorization: `Bearer ${await token(a.studioId, 'member')}` }, 403],
      // a guest is not logged in (spec 5.4), whatever its role says
      [{ Authorization: `Bearer ${await token(a.studioId, 'admin', { guest: true })}` }, 401],
      // a request that carries a token is judged by the token alone: the right password beside a player token does not help
      [{ Authorization: `Bearer ${await token(a.studioId, 'player')}`, 'X-Admin-Password': PASSWORD }, 403],
      [{ Authorization: 'Bearer bad.token.here', 'X-Admin-Password': PASSWORD }, 401],
    ];
    for (const [headers, status] of cases) {
      const res = await send(base, headers);
      expect(res.status, JSON.stringify(headers)).toBe(status);
      if (status === 401) expect(res.headers.get('www-authenticate')).toMatch(/^Bearer realm="game-api"/);
      expect(JSON.stringify(res.body)).not.toContain(PASSWORD);
    }
    expect(await transferCount()).toBe(before);
  });

  it('turns the password path off when ADMIN_PASSWORD is unset', async () => {
    useServiceConfig(loadServiceConfig({ ...h.env(), JWT_SECRET: SECRET }));
    const res = await post(admin, '/api/admin/accounts', { displayName: 'X' }, { 'X-Admin-Password': PASSWORD });
    expect(res.status).toBe(401);
  });
});

describe('POST /api/wallet/verify-send-to-account (spec 4.8)', () => {
  it('credits the account and answers the flags, the entry, both ids, the new balance and the time', async () => {
    const a = await newAccount('Dee');
    const res = await send({ studioId: a.studioId, amount: 25, purpose: 'verify', idempotencyKey: 'vs-answer-0001', note: 'first' });
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('idempotent-replayed')).toBeNull();
    expect(res.body).toMatchObject({
      kind: 'verify_send_to_account_wallet',
      onChain: false,
      burn: false,
      idempotent: false,
      sourceRef: 'verify-send:vs-answer-0001',
      account: { accountId: a.accountId, studioId: a.studioId, displayName: 'Dee' },
      amount: 25,
      purpose: 'verify',
      note: 'first',
      balance: 25,
    });
    expect(res.body.entryId).toMatch(/^[0-9a-f-]{36}$/);
    expect(Date.parse(res.body.at)).toBeGreaterThan(Date.now() - 60_000);
    const second = await send({ accountId: a.accountId, amount: 5, purpose: 'test', idempotencyKey: 'vs-answer-0002' });
    expect(second.body.balance).toBe(30);
    await expectSound(await ledgerStore());
  });

  it('replays a key with the same account (either selector), amount and purpose: the original answer, no second credit', async () => {
    const a = await newAccount();
    const first = await send({ studioId: a.studioId, amount: 10, purpose: 'verify', idempotencyKey: 'vs-replay-0001', note: 'one' });
    const replay = await send({ accountId: a.accountId, amount: 10, purpose: 'verify', idempotencyKey: 'vs-replay-0001', note: 'two' });
    expect(replay.status).toBe(200);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body).toEqual({ ...first.body, idempotent: true });
    expect(await (await ledgerStore()).balance(a.accountId)).toBe(10);
  });

  it('422 IDEMPOTENCY_KEY_REUSED for the same key with another account, amount or purpose; nothing credited', async () => {
    const a = await newAccount();
    const b = await newAccount();
    await send({ studioId: a.studioId, amount: 10, purpose: 'verify', idempotencyKey: 'vs-reuse-0001' });
    const before = await transferCount();
    for (const other of [
      { studioId: b.studioId, amount: 10, purpose: 'verify' },
      { studioId: a.studioId, amount: 11, purpose: 'verify' },
      { studioId: a.studioId, amount: 10, purpose: 'test' },
    ]) {
      const res = await send({ ...other, idempotencyKey: 'vs-reuse-0001' });
      expect(res.status, JSON.stringify(other)).toBe(422);
      expect(res.headers.get('content-type')).toBe('application/problem+json');
      expect(res.body.code).toBe('IDEMPOTENCY_KEY_REUSED');
    }
    expect(await transferCount()).toBe(before);
    expect(await (await ledgerStore()).balance(b.accountId)).toBe(0);
  });

  it('400 for every amount that is not a JSON integer from 1 to WALLET_VERIFY_SEND_MAX, and nothing credited', async () => {
    const a = await newAccount();
    const before = await transferCount();
    for (const amount of ['5', 1.5, 0, -1, 1001, 1e300, null, true]) {
      const res = await send({ studioId: a.studioId, amount, purpose: 'verify', idempotencyKey: `vs-amount-${String(amount)}` });
      expect(res.status, String(amount)).toBe(400);
      expect(res.body.code).toBe('INVALID_BODY');
      expect(res.body.errors.map((e) => e.name)).toContain('/amount');
    }
    expect((await send({ studioId: a.studioId, amount: 1000, purpose: 'verify', idempotencyKey: 'vs-amount-max' })).status).toBe(200);
    expect(await transferCount()).toBe(before + 1);
    useServiceConfig(loadServiceConfig({ ...h.env(), JWT_SECRET: SECRET, WALLET_VERIFY_SEND_MAX: '5' }));
    const b = await newAccount();
    expect((await send({ studioId: b.studioId, amount: 6, purpose: 'verify', idempotencyKey: 'vs-amount-six' })).status).toBe(400);
    expect((await send({ studioId: b.studioId, amount: 5, purpose: 'verify', idempotencyKey: 'vs-amount-five' })).status).toBe(200);
  });

  it('400 for both selectors or neither, bad ids, a bad purpose or key, unknown fields; 404 for no such account', async () => {
    const a = await newAccount();
    const ok = { studioId: a.studioId, amount: 1, purpose: 'verify', idempotencyKey: 'vs-fields-0001' };
    const cases: [Record<string, unknown>, string][] = [
      [{ ...ok, accountId: a.accountId }, '/accountId'],
      [{ amount: 1, purpose: 'verify', idempotencyKey: 'vs-fields-0001' }, ''],
      [{ ...ok, studioId: 'studio_lower' }, '/studioId'],
      [{ amount: 1, purpose: 'verify', idempotencyKey: 'vs-fields-0001', accountId: 'not-a-uuid' }, '/accountId'],
      [{ ...ok, purpose: 'send' }, '/purpose'],
      [{ ...ok, idempotencyKey: 'short' }, '/idempotencyKey'],
      [{ ...ok, idempotencyKey: 'x'.repeat(256) }, '/idempotencyKey'],
      [{ ...ok, idempotencyKey: 'ключ-ключ-ключ' }, '/idempotencyKey'],
      [{ ...ok, note: 'n'.repeat(501) }, '/note'],
      [{ ...ok, burn: true }, '/burn'],
    ];
    for (const [body, pointer] of cases) {
      const res = await send(body);
      expect(res.status, JSON.stringify(body).slice(0, 80)).toBe(400);
      expect(
        res.body.errors.map((e) => e.name),
        JSON.stringify(body).slice(0, 80),
      ).toContain(pointer);
    }
    expect((await send({ ...ok, idempotencyKey: 'x'.repeat(255) })).status).toBe(200);
    // one rule for keys: a space (or any character outside letters, digits and . _ : ~ + / = -) is refused,
    // so "k" and "k " can never credit twice
    for (const key of ['with space ok', 'trailing-space ', ' leading-space', 'tab\tinside-key', 'quote"inside-key']) {
      const refused = await send({ ...ok, idempotencyKey: key });
      expect([refused.status, refused.body.errors.map((e) => e.name)], key).toEqual([400, ['/idempotencyKey']]);
    }
    expect((await send({ ...ok, idempotencyKey: 'uuid:0b9e4c1a-7d2f-4f6e-9a8b-1c2d3e4f5a6b' })).status).toBe(200);
    expect((await send({ ...ok, idempotencyKey: 'b64+/=_~.-key' })).status).toBe(200);
    const missing = await send({ ...ok, studioId: 'STUDIO_0000000000000000', idempotencyKey: 'vs-fields-0404' });
    expect(missing.status).toBe(404);
    expect((await send('{"amount": 1,', undefined)).status).toBe(400);
    const text = await post(wallet, '/api/wallet/verify-send-to-account', 'x', { ...(await adminAuth()), 'Content-Type': 'text/plain' });
    expect(text.status).toBe(415);
  });

  it('answers 405 with Allow for GET and OPTIONS preflight with POST', async () => {
    const res = await wallet.GET(new Request('http://t/api/wallet/verify-send-to-account'));
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('POST, OPTIONS');
    const pre = await wallet.OPTIONS(new Request('http://t/api/wallet/verify-send-to-account', { method: 'OPTIONS' }));
    expect(pre.status).toBe(204);
  });
});

describe('POST /api/admin/grant-coin', () => {
  it('grants under admin-grant:{key} with a reason, replays, refuses a changed reason', async () => {
    const a = await newAccount();
    const body = { studioId: a.studioId, amount: 500, reason: 'Outage compensation', idempotencyKey: 'grant-0001' };
    const first = await post(admin, '/api/admin/grant-coin', body, await adminAuth());
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({
      kind: 'admin_grant_coin',
      onChain: false,
      burn: false,
      idempotent: false,
      sourceRef: 'admin-grant:grant-0001',
      amount: 500,
      purpose: 'grant',
      note: 'Outage compensation',
      balance: 500,
    });
    const replay = await post(admin, '/api/admin/grant-coin', { ...body, studioId: undefined, accountId: a.accountId }, await adminAuth());
    expect(replay.body).toEqual({ ...first.body, idempotent: true });
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const changed = await post(admin, '/api/admin/grant-coin', { ...body, reason: 'Something else' }, await adminAuth());
    expect(changed.status).toBe(422);
    expect(
      (await post(admin, '/api/admin/grant-coin', { ...body, reason: undefined, idempotencyKey: 'grant-0002' }, await adminAuth())).status,
    ).toBe(400);
    expect(
      (
        await post(
          admin,
          '/api/admin/grant-coin',
          { ...body, idempotencyKey: 'grant-0003' },
          { Authorization: `Bearer ${await token(a.studioId, 'player')}` },
        )
      ).status,
    ).toBe(403);
    // the same key under verify-send is another family
    const vs = await send({ studioId: a.studioId, amount: 1, purpose: 'verify', idempotencyKey: 'grant-0001' });
    expect(vs.body.idempotent).toBe(false);
    expect(vs.body.balance).toBe(501);
    await expectSound(await ledgerStore());
  });
});

describe('GET /api/wallet/overview (spec 4.8, 5.3, 5.4)', () => {
  it('shows the caller their account, balance and transactions newest first, paged with a cursor', async () => {
    const a = await newAccount('Eve');
    for (let i = 1; i <= 5; i++)
      await send({ studioId: a.studioId, amount: i, purpose: i % 2 ? 'verify' : 'test', idempotencyKey: `ov-${i}-000000` });
    const auth = { Authorization: `Bearer ${await token(a.studioId, 'player')}` };
    const p1 = await get(wallet, '/api/wallet/overview?limit=2', auth);
    expect(p1.status).toBe(200);
    expect(p1.headers.get('cache-control')).toBe('no-store');
    expect(p1.body.account).toEqual({ accountId: a.accountId, studioId: a.studioId, displayName: 'Eve' });
    expect(p1.body.balance).toBe(15);
    expect(p1.body.transactions.map((t) => t.amount)).toEqual([5, 4]);
    expect(p1.body.transactions[0]).toMatchObject({
      kind: 'verify_send_to_account_wallet',
      purpose: 'verify',
      amount: 5,
      balanceAfter: 15,
      sourceRef: 'verify-send:ov-5-000000',
      seq: 5,
    });
    expect(p1.body.hasMore).toBe(true);
    const p2 = await get(wallet, `/api/wallet/overview?limit=2&cursor=${p1.body.cursor}`, auth);
    expect(p2.body.transactions.map((t) => t.amount)).toEqual([3, 2]);
    const p3 = await get(wallet, `/api/wallet/overview?limit=2&cursor=${p2.body.cursor}`, auth);
    expect(p3.body.transactions.map((t) => t.amount)).toEqual([1]);
    expect(p3.body).toMatchObject({ cursor: null, hasMore: false });
    const all = await get(wallet, '/api/wallet/overview', auth);
    expect(all.body.transactions).toHaveLength(5);
  });

  it('pages a filtered overview: page 2 keeps the filter, a cursor of other filters or another account is 400', async () => {
    const a = await newAccount();
    const b = await newAccount();
    for (let i = 1; i <= 6; i++)
      await send({ studioId: a.studioId, amount: i, purpose: i % 2 ? 'verify' : 'test', idempotencyKey: `ovf-${i}-00000` });
    await post(
      admin,
      '/api/admin/grant-coin',
      { studioId: a.studioId, amount: 100, reason: 'r', idempotencyKey: 'ovf-grant-1' },
      await adminAuth(),
    );
    const auth = { Authorization: `Bearer ${await token(a.studioId, 'member')}` };
    const p1 = await get(wallet, '/api/wallet/overview?purpose=test&limit=2', auth);
    expect(p1.body.transactions.map((t) => t.amount)).toEqual([6, 4]);
    const p2 = await get(wallet, `/api/wallet/overview?purpose=test&limit=2&cursor=${p1.body.cursor}`, auth);
    expect(p2.body.transactions.map((t) => t.amount)).toEqual([2]);
    expect(p2.body.hasMore).toBe(false);
    const grants = await get(wallet, '/api/wallet/overview?purpose=grant', auth);
    expect(grants.body.transactions.map((t) => [t.amount, t.purpose])).toEqual([[100, 'grant']]);
    // the kind filter takes the names the credits answer with, and each entry carries its kind by that name
    const granted = await get(wallet, '/api/wallet/overview?kind=admin_grant_coin', auth);
    expect(granted.body.transactions.map((t) => t.kind)).toEqual(['admin_grant_coin']);
    const sent = await get(wallet, '/api/wallet/overview?kind=verify_send_to_account_wallet', auth);
    expect(sent.body.transactions).toHaveLength(6);
    expect(new Set(sent.body.transactions.map((t) => t.kind))).toEqual(new Set(['verify_send_to_account_wallet']));
    expect((await get(wallet, '/api/wallet/overview?kind=verify_send_to_account_wallet&purpose=grant', auth)).body.transactions).toEqual(
      [],
    );
    // the store's short names are not the API's
    expect((await get(wallet, '/api/wallet/overview?kind=admin_grant', auth)).status).toBe(400);

    const otherFilter = await get(wallet, `/api/wallet/overview?purpose=verify&cursor=${p1.body.cursor}`, auth);
    expect(otherFilter.status).toBe(400);
    expect(otherFilter.body.code).toBe('INVALID_QUERY');
    const foreign = await get(wallet, `/api/wallet/overview?purpose=test&cursor=${p1.body.cursor}`, {
      Authorization: `Bearer ${await token(b.studioId, 'player')}`,
    });
    expect(foreign.status).toBe(400);
    for (const bad of ['garbage!', 'djEuMC4w', Buffer.from('v1.5.0000000000000000').toString('base64url')]) {
      expect((await get(wallet, `/api/wallet/overview?cursor=${bad}`, auth)).status, bad).toBe(400);
    }
    expect((await get(wallet, '/api/wallet/overview?limit=0', auth)).status).toBe(400);
    expect((await get(wallet, '/api/wallet/overview?purpose=burn', auth)).status).toBe(400);
    const clamped = await get(wallet, '/api/wallet/overview?limit=500', auth);
    expect(clamped.status).toBe(200);
    expect(clamped.headers.get('x-limit-applied')).toBe('200');
  });

  it('401 with WWW-Authenticate and no other hint for a guest, no token or a bad token; 404 for a token whose account does not exist', async () => {
    const a = await newAccount();
    const variants: Record<string, string>[] = [
      {},
      { Authorization: `Bearer ${await token(a.studioId, 'player', { guest: true })}` },
      { Authorization: 'Bearer x.y.z' },
    ];
    for (const headers of variants) {
      const res = await get(wallet, '/api/wallet/overview', headers);
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toMatch(/^Bearer realm="game-api"/);
      expect(Object.keys(res.body).sort()).toEqual(['code', 'detail', 'instance', 'requestId', 'status', 'title', 'type']);
    }
    expect((await get(wallet, '/api/wallet/overview', { Authorization: `Bearer ${await token('STUDIO_NOBODY', 'player')}` })).status).toBe(
      404,
    );
  });

  it('shows a credit as soon as its answer is sent', async () => {
    const a = await newAccount();
    const auth = { Authorization: `Bearer ${await token(a.studioId, 'player')}` };
    for (let i = 1; i <= 3; i++) {
      const res = await send({ studioId: a.studioId, amount: 2, purpose: 'verify', idempotencyKey: `ov-now-${i}-0000` });
      const ov = await get(wallet, '/api/wallet/overview?limit=1', auth);
      expect(ov.body.balance).toBe(res.body.balance);
      expect(ov.body.transactions[0]!.entryId).toBe(res.body.entryId);
    }
  });
});

describe('no store configured', () => {
  it('503 UPSTREAM_UNAVAILABLE on Vercel without a store, naming nothing internal', async () => {
    useServiceConfig(loadServiceConfig({ VERCEL: '1', JWT_SECRET: SECRET }));
    const res = await send(
      { studioId: 'STUDIO_X', amount: 1, purpose: 'verify', idempotencyKey: 'none-0001' },
      { Authorization: `Bearer ${await token('S', 'admin')}` },
    );
    expect(res.status).toBe(503);
    expect(res.body.code).toBe('UPSTREAM_UNAVAILABLE');
    expect(JSON.stringify(res.body)).not.toMatch(/UPSTASH|STORE_DRIVER/);
  });
});
