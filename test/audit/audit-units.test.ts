/**
 * The audit log's pieces, each on its own (spec 5.3; docs/architecture.md, "Audit log"): the request's
 * scope and the record it gives (`util/audit-scope.ts`), the service's query rules and cursor
 * (`audit/service.ts`: time bounds, `from` before `to`, the account by studio id or account id, a cursor
 * bound to its filters and refused with others), the record of a request that changed nothing
 * (`recorded`, `confirmed` and `changed`), and the SQLite half of the store kit (`stores/audit.ts`): the
 * layout, its append-only triggers, the insert that keeps one record per request, the change tracker and
 * the write that carries its request's record. The store adapters run `log-contract.ts`; the Redis half
 * of the kit runs in `audit-scripts.test.ts`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { createClient, type Client, type InStatement, type Transaction } from '@libsql/client';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { AUDIT_PARAMS, listAudit, recordAnswer, recordAudit } from '../../api/_lib/audit/service.js';
import { auditLog } from '../../api/_lib/audit/store.js';
import type { AuditLog, AuditPage, AuditQuery } from '../../api/_lib/audit/types.js';
import { loadServiceConfig, useServiceConfig } from '../../api/_lib/config.js';
import { ServiceError } from '../../api/_lib/errors.js';
import type { Account, AccountSelector, LedgerStore } from '../../api/_lib/ledger/types.js';
import { actorKey, AUDIT_KEYS, AUDIT_LAYOUT, auditArgs, auditedWork, auditInsert, trackChanges } from '../../api/_lib/stores/audit.js';
import { requestFingerprint } from '../../api/_lib/stores/idempotency.js';
import {
  auditRecordOf,
  currentAuditScope,
  inAuditScope,
  noteAuditAccount,
  noteConfirmedChange,
  noteIdempotencyKey,
  openAuditScope,
  type AuditDraft,
  type AuditRecord,
  type AuditRecordDraft,
} from '../../api/_lib/util/audit-scope.js';

const DRAFT: AuditDraft = Object.freeze<AuditDraft>({
  actor: { via: 'token', subject: 'STUDIO_OPERATOR', role: 'admin' },
  route: 'admin/grant-coin',
  method: 'POST',
  requestId: 'req-0001',
  changeStatus: 201,
});

const AT = new Date('2026-11-20T10:11:12.345Z');

/** The error `run` throws (fails when it returns). */
async function thrown(run: () => Promise<unknown>): Promise<ServiceError> {
  try {
    await run();
  } catch (e) {
    return e as ServiceError;
  }
  throw new Error('expected a refusal');
}

describe('the audit scope of a request', () => {
  it('starts with nothing noted and is the current scope only inside inAuditScope, across awaits', async () => {
    const scope = openAuditScope(DRAFT);
    expect(scope).toEqual({ draft: DRAFT, account: undefined, idempotencyKey: undefined, confirmed: false, recorded: false });
    expect(scope.draft).toBe(DRAFT);
    expect(currentAuditScope()).toBeUndefined();
    const seen = await inAuditScope(scope, async () => {
      await new Promise((r) => setTimeout(r, 1));
      return currentAuditScope();
    });
    expect(seen).toBe(scope);
    expect(currentAuditScope()).toBeUndefined();
    expect(await inAuditScope(scope, () => Promise.resolve(42))).toBe(42);
  });

  it('keeps the first account noted unless told to replace it, and the last key; confirms a change', async () => {
    const scope = openAuditScope(DRAFT);
    await inAuditScope(scope, async () => {
      noteAuditAccount('acc-owner');
      noteAuditAccount('acc-new-owner');
      expect(scope.account).toBe('acc-owner');
      noteAuditAccount('acc-minted', true);
      expect(scope.account).toBe('acc-minted');
      noteIdempotencyKey('key-0001');
      noteIdempotencyKey('key-0002');
      expect(scope.idempotencyKey).toBe('key-0002');
      expect(scope.confirmed).toBe(false);
      noteConfirmedChange();
      expect(scope.confirmed).toBe(true);
      await Promise.resolve();
    });
    expect(scope.recorded).toBe(false);
  });

  it('notes nothing outside a scope, and throws nothing there', () => {
    expect(() => {
      noteAuditAccount('acc');
      noteAuditAccount('acc', true);
      noteIdempotencyKey('key');
      noteConfirmedChange();
    }).not.toThrow();
    expect(currentAuditScope()).toBeUndefined();
  });

  it('gives a record with every field of the scope, null for what was not noted, and a reason only when given', () => {
    const bare = auditRecordOf(openAuditScope(DRAFT), 400, false, AT);
    expect(bare).toStrictEqual({
      at: '2026-11-20T10:11:12.345Z',
      actor: DRAFT.actor,
      route: 'admin/grant-coin',
      method: 'POST',
      account: null,
      idempotencyKey: null,
      status: 400,
      changed: false,
      requestId: 'req-0001',
    });
    expect('reason' in bare).toBe(false);
    const scope = { ...openAuditScope(DRAFT), account: 'acc-1', idempotencyKey: 'key-1' };
    expect(auditRecordOf(scope, 503, null, AT, 'wrong-password')).toStrictEqual({
      ...bare,
      account: 'acc-1',
      idempotencyKey: 'key-1',
      status: 503,
      changed: null,
      reason: 'wrong-password',
    });
  });
});

/** A log that answers `page` and keeps what it was asked and given. */
function fakeLog(page: AuditPage = { records: [], next: undefined }) {
  const queries: AuditQuery[] = [];
  const appended: AuditRecordDraft[] = [];
  const log: AuditLog = {
    driver: 'sqlite',
    append(record) {
      appended.push(record);
      return Promise.resolve(true);
    },
    list(query) {
      queries.push(query);
      return Promise.resolve(page);
    },
    close: () => Promise.resolve(),
  };
  return { log, queries, appended };
}

const ACCOUNT_ID = '0b5e9a3c-4d2f-4e8a-9c1b-7f6d5e4c3b2a';
const STUDIO_ID = 'STUDIO_ABCDEFGHJKMNPQRS';

/** A ledger that knows one account, and the selectors it was asked. */
function fakeLedger() {
  const asked: AccountSelector[] = [];
  const account = { accountId: ACCOUNT_ID, studioId: STUDIO_ID } as Account;
  const ledger = {
    findAccount(selector: AccountSelector) {
      asked.push(selector);
      const hit = 'studioId' in selector ? selector.studioId === STUDIO_ID : selector.accountId === ACCOUNT_ID;
      return Promise.resolve(hit ? account : undefined);
    },
  } as unknown as LedgerStore;
  return { ledger, asked };
}

/** The binding a cursor of these filters carries (actor, account id, route, from ms, to ms). */
const bindingOf = (...filters: (string | number | undefined)[]) =>
  requestFingerprint(['audit', ...filters.map((f) => f ?? null)]).slice(0, 16);
const cursorText = (text: string) => Buffer.from(text).toString('base64url');

describe('the audit service: listAudit', () => {
  const list = (query: Parameters<typeof listAudit>[2], page?: AuditPage) => {
    const log = fakeLog(page);
    const { ledger, asked } = fakeLedger();
    return { run: () => listAudit(log.log, ledger, query), queries: log.queries, asked };
  };

  it('asks the log for every filter, the time bounds in ms and the limit; answers its records, no cursor at the end', async () => {
    const records = [{ id: '7' } as AuditRecord];
    const l = list(
      {
        actor: 'STUDIO_OPERATOR',
        account: STUDIO_ID,
        route: 'admin/grant-coin',
        from: '2026-11-20T00:00:00Z',
        to: '2026-11-21T00:00Z',
        limit: 7,
      },
      { records, next: undefined },
    );
    const answer = await l.run();
    expect(answer).toStrictEqual({ records, cursor: null, hasMore: false });
    expect(answer.records).toBe(records);
    expect(l.queries).toStrictEqual([
      {
        actor: 'STUDIO_OPERATOR',
        account: ACCOUNT_ID,
        route: 'admin/grant-coin',
        fromMs: Date.parse('2026-11-20T00:00:00Z'),
        toMs: Date.parse('2026-11-21T00:00:00Z'),
        after: undefined,
        limit: 7,
      },
    ]);
    const none = list({ limit: 50 });
    await none.run();
    expect(none.queries).toStrictEqual([
      { actor: undefined, account: undefined, route: undefined, fromMs: undefined, toMs: undefined, after: undefined, limit: 50 },
    ]);
    expect(none.asked).toEqual([]);
  });

  it('finds the account by studio id first, then by account id when it is a lowercase uuid; 404 for none', async () => {
    const byStudio = list({ account: STUDIO_ID, limit: 1 });
    await byStudio.run();
    expect(byStudio.asked).toEqual([{ studioId: STUDIO_ID }]);
    const byId = list({ account: ACCOUNT_ID, limit: 1 });
    await byId.run();
    expect(byId.asked).toEqual([{ studioId: ACCOUNT_ID }, { accountId: ACCOUNT_ID }]);
    expect(byId.queries[0]!.account).toBe(ACCOUNT_ID);
    for (const account of ['STUDIO_0000000000000000', ACCOUNT_ID.toUpperCase(), `x${ACCOUNT_ID}`, `${ACCOUNT_ID}x`, ACCOUNT_ID.slice(1)]) {
      const l = list({ account, limit: 1 });
      const e = await thrown(l.run);
      expect([e.code, e.message], account).toEqual(['NOT_FOUND', 'No account has this studioId or accountId.']);
      // only a lowercase uuid is looked up as an account id
      expect(l.asked, account).toEqual([{ studioId: account }]);
      expect(l.queries).toEqual([]);
    }
    // an account id of another form is looked up and not found
    const other = list({ account: '0b5e9a3c-4d2f-4e8a-9c1b-7f6d5e4c3b2b', limit: 1 });
    expect((await thrown(other.run)).code).toBe('NOT_FOUND');
    expect(other.asked).toHaveLength(2);
  });

  it('reads ISO 8601 times with a zone, to the millisecond, and refuses any other text naming the parameter', async () => {
    const ok: [string, string][] = [
      ['2026-11-20T10:11Z', '2026-11-20T10:11:00.000Z'],
      ['2026-11-20T10:11:12Z', '2026-11-20T10:11:12.000Z'],
      ['2026-11-20T10:11:12.3Z', '2026-11-20T10:11:12.300Z'],
      ['2026-11-20T10:11:12.345Z', '2026-11-20T10:11:12.345Z'],
      ['2026-11-20T10:11:12+01:30', '2026-11-20T08:41:12.000Z'],
      ['2026-11-20T10:11-02:00', '2026-11-20T12:11:00.000Z'],
    ];
    for (const [text, iso] of ok) {
      const l = list({ from: text, limit: 1 });
      await l.run();
      expect(l.queries[0]!.fromMs, text).toBe(Date.parse(iso));
    }
    const bad = [
      'yesterday',
      '',
      '2026-11-20',
      '2026-11-20T10:11:12',
      '2026-11-20T10Z',
      '2026-11-20 10:11:12Z',
      '2026-11-20T10:11:12.3456Z',
      '2026-11-20T10:11:12.Z',
      '2026-11-20T10:11:1Z',
      '2026-11-20T10:1Z',
      '2026-11-20T1:11Z',
      '2026-11-2T10:11Z',
      '2026-1-20T10:11Z',
      '226-11-20T10:11Z',
      '+02026-11-20T10:11Z',
      '+002026-11-20T10:11Z',
      '-002026-11-20T10:11Z',
      '12026-11-20T10:11Z',
      'x2026-11-20T10:11Z',
      '2026-11-20T10:11Zx',
      '2026-11-20T10:11z',
      '2026-11-20T10:11:12+0130',
      '2026-11-20T10:11:12+01:3',
      '2026-11-20T10:11:12+1:30',
      '2026-11-20T10:11:12 01:30',
      '2026-13-20T10:11Z',
      '2026-11-20T25:11Z',
      '2026a11-20T10:11Z',
      '2026-11-20T10:11:12:13Z',
    ];
    for (const name of ['from', 'to'] as const) {
      for (const text of bad) {
        const e = await thrown(list({ [name]: text, limit: 1 }).run);
        expect(e, text).toBeInstanceOf(ServiceError);
        expect([e.code, e.message, e.errors], text).toEqual([
          'INVALID_QUERY',
          `${name} must be an ISO 8601 time with a zone, e.g. 2026-11-20T00:00:00Z.`,
          [{ name, message: 'not an ISO 8601 time with a zone' }],
        ]);
      }
    }
  });

  it('refuses a from that is not before to, and takes either bound alone', async () => {
    for (const [from, to] of [
      ['2026-11-20T00:00:00Z', '2026-11-20T00:00:00Z'],
      ['2026-11-20T00:00:00.001Z', '2026-11-20T00:00:00Z'],
      ['2026-11-21T00:00Z', '2026-11-20T00:00Z'],
    ]) {
      const l = list({ from, to, limit: 1 });
      const e = await thrown(l.run);
      expect([e.code, e.message, e.errors]).toEqual([
        'INVALID_QUERY',
        'from must be before to.',
        [{ name: 'from', message: 'not before to' }],
      ]);
      expect(l.queries).toEqual([]);
    }
    const tight = list({ from: '2026-11-20T00:00:00Z', to: '2026-11-20T00:00:00.001Z', limit: 1 });
    await tight.run();
    expect([tight.queries[0]!.fromMs, tight.queries[0]!.toMs]).toEqual([
      Date.parse('2026-11-20T00:00:00Z'),
      Date.parse('2026-11-20T00:00:00.001Z'),
    ]);
    const fromOnly = list({ from: '2026-11-20T00:00:00Z', limit: 1 });
    await fromOnly.run();
    expect(fromOnly.queries[0]!.toMs).toBeUndefined();
    const toOnly = list({ to: '1970-01-01T00:00:00Z', limit: 1 });
    await toOnly.run();
    expect([toOnly.queries[0]!.fromMs, toOnly.queries[0]!.toMs]).toEqual([undefined, 0]);
  });

  it('answers a cursor of the next place, bound to the filters, and reads it back as the place to continue after', async () => {
    const query = { actor: 'cron', account: STUDIO_ID, route: 'admin/ledger-verify', from: '2026-11-20T00:00Z', to: '2026-11-22T00:00Z' };
    const fromMs = Date.parse('2026-11-20T00:00Z');
    const toMs = Date.parse('2026-11-22T00:00Z');
    const next = { atMs: 1_795_000_000_123, seq: 42 };
    const first = await list({ ...query, limit: 2 }, { records: [], next }).run();
    const bound = bindingOf('cron', ACCOUNT_ID, 'admin/ledger-verify', fromMs, toMs);
    expect(first).toStrictEqual({ records: [], cursor: cursorText(`a1.${bound}.1795000000123.42`), hasMore: true });
    // the same filters (another limit) continue after the place
    const second = list({ ...query, cursor: first.cursor!, limit: 9 });
    await second.run();
    expect(second.queries[0]!.after).toStrictEqual(next);
    expect(second.queries[0]!.limit).toBe(9);
    // without filters the binding covers their absence
    const open = await list({ limit: 1 }, { records: [], next: { atMs: 0, seq: 1 } }).run();
    expect(open.cursor).toBe(cursorText(`a1.${bindingOf(undefined, undefined, undefined, undefined, undefined)}.0.1`));
  });

  it('refuses a cursor of other filters, and any cursor it did not issue', async () => {
    const query = { actor: 'cron', account: STUDIO_ID, route: 'admin/ledger-verify', from: '2026-11-20T00:00Z', to: '2026-11-22T00:00Z' };
    const { cursor } = await list({ ...query, limit: 1 }, { records: [], next: { atMs: 5, seq: 6 } }).run();
    const others = [
      { ...query, actor: 'STUDIO_OPERATOR' },
      { ...query, actor: undefined },
      { ...query, account: undefined },
      { ...query, account: ACCOUNT_ID, actor: 'admin-password' },
      { ...query, route: 'admin/grant-coin' },
      { ...query, route: undefined },
      { ...query, from: '2026-11-20T00:00:00.001Z' },
      { ...query, from: undefined },
      { ...query, to: '2026-11-21T00:00Z' },
      { ...query, to: undefined },
    ];
    const refusal = [
      'INVALID_QUERY',
      'The cursor is not one of this query. Start again without a cursor.',
      [{ name: 'cursor', message: 'it was not issued for these filters' }],
    ];
    for (const other of others) {
      const l = list({ ...other, cursor: cursor!, limit: 1 });
      const e = await thrown(l.run);
      expect([e.code, e.message, e.errors], JSON.stringify(other)).toEqual(refusal);
      expect(l.queries).toEqual([]);
    }
    // the account filter binds the account id, so its studio id and its account id share cursors
    const byId = list({ ...query, account: ACCOUNT_ID, cursor: cursor!, limit: 1 });
    await byId.run();
    expect(byId.queries[0]!.after).toStrictEqual({ atMs: 5, seq: 6 });

    const bound = bindingOf(undefined, undefined, undefined, undefined, undefined);
    const place = async (text: string) => {
      const l = list({ cursor: cursorText(text), limit: 1 });
      await l.run();
      return l.queries[0]!.after;
    };
    expect(await place(`a1.${bound}.0.1`)).toStrictEqual({ atMs: 0, seq: 1 });
    expect(await place(`a1.${bound}.999999999999999.1234567890123456`)).toStrictEqual({ atMs: 999999999999999, seq: 1234567890123456 });
    expect(await place(`a1.${bound}.10.90`)).toStrictEqual({ atMs: 10, seq: 90 });
    const forged = [
      'not a cursor',
      '',
      `a2.${bound}.1.1`,
      `xa1.${bound}.1.1`,
      `a1.${bound}.1.1x`,
      `a1.${bound}.1.1\n`,
      `a1x${bound}.1.1`,
      `a1.${bound}x1.1`,
      `a1.${bound}.1x1`,
      `a1.${bound.toUpperCase()}.1.1`,
      `a1.${bound.slice(1)}.1.1`,
      `a1.${bound}0.1.1`,
      `a1.${bindingOf('cron', undefined, undefined, undefined, undefined)}.1.1`,
      `a1.${bound}..1`,
      `a1.${bound}.1.`,
      `a1.${bound}.1.0`,
      `a1.${bound}.1.01`,
      `a1.${bound}.-1.1`,
      `a1.${bound}.1.-1`,
      `a1.${bound}.1.5.5`,
      `a1.${bound}.1000000000000000.1`,
      `a1.${bound}.1.12345678901234567`,
    ];
    for (const text of forged) {
      const l = list({ cursor: cursorText(text), limit: 1 });
      const e = await thrown(l.run);
      expect([e.code, e.message, e.errors], text).toEqual(refusal);
    }
  });
});

describe('the audit service: the record of a request that changed nothing in a store', () => {
  it('says changed false for an answer below 500, null for a 5xx, true when object storage confirmed; once', async () => {
    for (const [status, confirmed, changed] of [
      [200, false, false],
      [422, false, false],
      [499, false, false],
      [500, false, null],
      [503, false, null],
      [503, true, true],
      [201, true, true],
    ] as const) {
      const { log, appended } = fakeLog();
      const scope = { ...openAuditScope({ ...DRAFT, requestId: `req-${status}` }), confirmed, account: 'acc', idempotencyKey: 'key' };
      await recordAnswer(log, scope, status, AT);
      expect(appended, `${status} ${confirmed}`).toStrictEqual([auditRecordOf(scope, status, changed, AT)]);
      expect(scope.recorded).toBe(true);
      // a second answer of the same request adds nothing
      await recordAnswer(log, scope, 500, AT, 'late');
      expect(appended).toHaveLength(1);
    }
    const { log, appended } = fakeLog();
    const refused = openAuditScope({ ...DRAFT, actor: { via: 'none' } });
    await recordAnswer(log, refused, 401, AT, 'no-credentials');
    expect(appended).toStrictEqual([auditRecordOf(refused, 401, false, AT, 'no-credentials')]);
    expect(appended[0]!.reason).toBe('no-credentials');
  });

  it('marks the scope recorded only once the log took the record', async () => {
    const scope = openAuditScope(DRAFT);
    const failing: AuditLog = { ...fakeLog().log, append: () => Promise.reject(new Error('down')) };
    await expect(recordAnswer(failing, scope, 200, AT)).rejects.toThrow('down');
    expect(scope.recorded).toBe(false);
  });
});

describe('the audit service: recordAudit on the configured store', () => {
  const dir = mkdtempSync(join(tmpdir(), 'audit-units-'));
  afterAll(() => {
    useServiceConfig(undefined);
    rmSync(dir, { recursive: true, force: true });
  });

  it('writes nothing without a store, and appends to the configured log with the time of the answer', async () => {
    useServiceConfig(loadServiceConfig({}));
    const none = openAuditScope(DRAFT);
    await recordAudit(none, 200);
    expect(none.recorded).toBe(false);

    useServiceConfig(loadServiceConfig({ STORE_DRIVER: 'sqlite', DATA_DIR: dir }));
    const scope = openAuditScope({ ...DRAFT, actor: { via: 'password' }, requestId: 'req-configured' });
    const before = Date.now();
    await recordAudit(scope, 403, 'wrong-password');
    const after = Date.now();
    expect(scope.recorded).toBe(true);
    const page = await (await auditLog()).list({ limit: 10 });
    expect(page.records).toHaveLength(1);
    const record = page.records[0]!;
    expect({ ...record, at: undefined }).toStrictEqual({
      id: '1',
      at: undefined,
      actor: { via: 'password' },
      route: 'admin/grant-coin',
      method: 'POST',
      account: null,
      idempotencyKey: null,
      status: 403,
      changed: false,
      requestId: 'req-configured',
      reason: 'wrong-password',
    });
    expect(Date.parse(record.at)).toBeGreaterThanOrEqual(before);
    expect(Date.parse(record.at)).toBeLessThanOrEqual(after);
    await recordAudit(openAuditScope({ ...DRAFT, requestId: 'req-second' }), 200);
    expect((await (await auditLog()).list({ limit: 10 })).records.map((r) => [r.requestId, 'reason' in r])).toEqual([
      ['req-second', false],
      ['req-configured', true],
    ]);
  });
});

describe('the query parameters of GET /api/admin/audit', () => {
  it('bound each text, read the route as <entry>/<route name> and clamp the limit to 1-200, 50 by default', () => {
    expect(AUDIT_PARAMS).toEqual({
      actor: { kind: 'string', maxLength: 200 },
      account: { kind: 'string', maxLength: 200 },
      route: {
        kind: 'string',
        maxLength: 100,
        pattern: /^[a-z]+\/[a-z0-9-]+$/,
        patternRule: 'read <entry>/<route name>, e.g. admin/grant-coin',
      },
      from: { kind: 'string', maxLength: 40 },
      to: { kind: 'string', maxLength: 40 },
      cursor: { kind: 'string', maxLength: 200 },
      limit: { kind: 'int', min: 1, max: 200, default: 50, clamp: true },
    });
    expect(Object.isFrozen(AUDIT_PARAMS)).toBe(true);
    const route = AUDIT_PARAMS.route.pattern;
    for (const ok of ['admin/grant-coin', 'player/inventory-grant', 'a/b', 'wallet/verify-send', 'admin/x9'])
      expect(route.test(ok), ok).toBe(true);
    for (const bad of [
      'admin',
      'admin/',
      '/grant',
      'Admin/grant',
      'admin/Grant',
      'ad-min/grant',
      'admin/grant coin',
      ' admin/grant',
      'admin/grant ',
      'a/b/c',
      'admin1/x',
    ])
      expect(route.test(bad), bad).toBe(false);
  });
});

// ---------------------------------------------------------------- the store kit's SQLite half

describe('the store kit: the audit record on SQLite', () => {
  let dir: string;
  let db: Client;
  let n = 0;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'audit-kit-'));
  });
  afterEach(() => db?.close());
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const fresh = async () => {
    n++;
    db = createClient({ url: pathToFileURL(join(dir, `kit-${n}.sqlite`)).href });
    await db.executeMultiple(AUDIT_LAYOUT.ddl);
    await db.execute('CREATE TABLE t (k TEXT PRIMARY KEY, v INTEGER)');
    return db;
  };
  const rows = async () =>
    (await db.execute('SELECT seq, at_ms, actor, account, route, request_id, record FROM audit_log ORDER BY seq')).rows.map((r) => ({
      ...r,
    }));
  const record = (requestId: string, fields: Partial<AuditRecordDraft> = {}): AuditRecordDraft => ({
    ...auditRecordOf(openAuditScope({ ...DRAFT, requestId }), 200, false, AT),
    ...fields,
  });

  it('files a record under its actor: the subject, admin-password, cron or anonymous', () => {
    expect(actorKey({ via: 'token', subject: 'STUDIO_GAME_SERVER', role: 'server' })).toBe('STUDIO_GAME_SERVER');
    expect(actorKey({ via: 'password' })).toBe('admin-password');
    expect(actorKey({ via: 'cron' })).toBe('cron');
    expect(actorKey({ via: 'none' })).toBe('anonymous');
  });

  it('is a layout of its own, audit version 1, with an index per filter', async () => {
    expect([AUDIT_LAYOUT.component, AUDIT_LAYOUT.version]).toEqual(['audit', 1]);
    await fresh();
    const names = (
      await db.execute("SELECT name FROM sqlite_master WHERE type IN ('index', 'trigger') AND tbl_name = 'audit_log' ORDER BY name")
    ).rows.map((r) => r.name);
    expect(names).toEqual(
      expect.arrayContaining([
        'audit_by_account',
        'audit_by_actor',
        'audit_by_route',
        'audit_by_time',
        'audit_log_no_delete',
        'audit_log_no_update',
      ]),
    );
  });

  it('appends a record with its filter columns, once per request id, and refuses to change or delete one', async () => {
    await fresh();
    const a = record('req-a', { account: 'acc-1', actor: { via: 'cron' }, at: '2026-11-20T10:11:12.345Z', reason: 'x' });
    expect((await db.execute(auditInsert(a))).rowsAffected).toBe(1);
    expect((await db.execute(auditInsert({ ...a, status: 500 }))).rowsAffected).toBe(0);
    expect((await db.execute(auditInsert(record('req-b')))).rowsAffected).toBe(1);
    const [first, second, ...more] = await rows();
    expect(more).toEqual([]);
    // ids increase; a refused duplicate may use one up
    expect(Number(second!.seq)).toBeGreaterThan(Number(first!.seq));
    expect([
      { ...first, seq: 1 },
      { ...second, seq: 2 },
    ]).toEqual([
      {
        seq: 1,
        at_ms: Date.parse('2026-11-20T10:11:12.345Z'),
        actor: 'cron',
        account: 'acc-1',
        route: 'admin/grant-coin',
        request_id: 'req-a',
        record: JSON.stringify(a),
      },
      {
        seq: 2,
        at_ms: AT.getTime(),
        actor: 'STUDIO_OPERATOR',
        account: null,
        route: 'admin/grant-coin',
        request_id: 'req-b',
        record: JSON.stringify(record('req-b')),
      },
    ]);
    await expect(db.execute("UPDATE audit_log SET route = 'x'")).rejects.toThrow(/append-only/);
    await expect(db.execute('DELETE FROM audit_log')).rejects.toThrow(/append-only/);
    expect(await rows()).toHaveLength(2);
  });

  it('tracks whether a transaction changed a row through execute, batch or executeMultiple, and passes everything else through', async () => {
    await fresh();
    const run = async (work: (tx: Transaction) => Promise<unknown>) => {
      const tx = await db.transaction('write');
      const tracked = trackChanges(tx);
      expect(tracked.changed()).toBe(false);
      await work(tracked.tx);
      const changed = tracked.changed();
      await tx.rollback();
      return changed;
    };
    expect(await run((tx) => tx.execute('SELECT 1'))).toBe(false);
    expect(await run((tx) => tx.execute({ sql: 'UPDATE t SET v = 1 WHERE k = ?', args: ['none'] }))).toBe(false);
    expect(await run((tx) => tx.execute({ sql: 'INSERT INTO t (k, v) VALUES (?, ?)', args: ['a', 1] }))).toBe(true);
    expect(await run((tx) => tx.batch(['SELECT 1', 'SELECT 2']))).toBe(false);
    expect(await run((tx) => tx.batch(['SELECT 1', "INSERT INTO t (k, v) VALUES ('b', 2)"]))).toBe(true);
    expect(await run((tx) => tx.executeMultiple('SELECT 1;'))).toBe(true);
    // answers are the transaction's own; other members are the transaction's, bound to it
    expect(
      await run(async (tx) => {
        expect((await tx.execute('SELECT 7 AS x')).rows[0]!.x).toBe(7);
        expect((await tx.batch(['SELECT 8 AS y']))[0]!.rows[0]!.y).toBe(8);
        expect(await tx.executeMultiple("INSERT INTO t (k, v) VALUES ('m', 1);")).toBeUndefined();
        expect(tx.closed).toBe(false);
      }),
    ).toBe(true);
    const tx = await db.transaction('write');
    const tracked = trackChanges(tx);
    await tracked.tx.execute("INSERT INTO t (k, v) VALUES ('kept', 1)");
    await tracked.tx.commit();
    expect(tx.closed).toBe(true);
    expect((await db.execute("SELECT v FROM t WHERE k = 'kept'")).rows[0]!.v).toBe(1);
  });

  const scopeOf = (requestId: string) => openAuditScope({ ...DRAFT, requestId, changeStatus: 201 });
  const inTx = async <T>(work: (tx: Transaction) => Promise<T>, commit = true): Promise<T> => {
    const tx = await db.transaction('write');
    try {
      const out = await work(tx);
      await (commit ? tx.commit() : tx.rollback());
      return out;
    } finally {
      tx.close();
    }
  };
  const insert = (k: string): InStatement => ({ sql: 'INSERT INTO t (k, v) VALUES (?, 1)', args: [k] });

  it('adds the running request’s change record to a write that changed a row, and marks the scope once settled', async () => {
    await fresh();
    const scope = { ...scopeOf('req-write'), account: 'acc-9', idempotencyKey: 'key-9' };
    const before = Date.now();
    const audited = await inAuditScope(scope, () =>
      Promise.resolve(auditedWork(async (tx) => (await tx.execute(insert('w'))).rowsAffected)),
    );
    expect(await inTx(audited.work)).toBe(1);
    const after = Date.now();
    expect(scope.recorded).toBe(false);
    audited.settle();
    expect(scope.recorded).toBe(true);
    const [row, ...rest] = await rows();
    expect(rest).toEqual([]);
    const written = JSON.parse(row!.record as string) as AuditRecordDraft;
    expect({ ...written, at: undefined }).toEqual({ ...auditRecordOf(scope, 201, true, AT), at: undefined });
    expect(row!.at_ms).toBe(Date.parse(written.at));
    expect(Date.parse(written.at)).toBeGreaterThanOrEqual(before);
    expect(Date.parse(written.at)).toBeLessThanOrEqual(after);
    expect([row!.request_id, row!.account]).toEqual(['req-write', 'acc-9']);
  });

  it('adds no record to a write that changed nothing, nor once the request has one, nor outside a scope', async () => {
    await fresh();
    const reading = scopeOf('req-read');
    const read = auditedWork(async (tx) => (await tx.execute('SELECT 1')).rowsAffected, reading);
    await inTx(read.work);
    read.settle();
    expect(reading.recorded).toBe(false);

    const recorded = { ...scopeOf('req-recorded'), recorded: true };
    const work = async (tx: Transaction) => void (await tx.execute(insert('r')));
    const done = auditedWork(work, recorded);
    expect(done.work).toBe(work);
    expect(done.settle()).toBeUndefined();

    const outside = auditedWork(work);
    expect(outside.work).toBe(work);
    await inTx(outside.work);
    outside.settle();

    // recorded while the work ran (another write of the same request carried it)
    const racing = scopeOf('req-racing');
    const raced = auditedWork(async (tx) => {
      await tx.execute(insert('x'));
      racing.recorded = true;
    }, racing);
    await inTx(raced.work);
    expect(await rows()).toEqual([]);

    // a work that changed a row and then failed: no record, and settling marks nothing
    const failing = scopeOf('req-failing');
    const failed = auditedWork(async (tx) => {
      await tx.execute(insert('z'));
      throw new Error('refused after a change');
    }, failing);
    await expect(inTx(failed.work, false)).rejects.toThrow('refused after a change');
    failed.settle();
    expect(failing.recorded).toBe(false);

    // a rolled-back write: settle is not called, the scope stays unrecorded
    const rolled = scopeOf('req-rolled');
    const back = auditedWork(async (tx) => void (await tx.execute(insert('y'))), rolled);
    await inTx(back.work, false);
    expect(rolled.recorded).toBe(false);
    expect(await rows()).toEqual([]);
  });

  it('names the Redis keys of the log', () => {
    expect(AUDIT_KEYS).toMatchObject({ seq: 'audit:seq', records: 'audit:records', requests: 'audit:requests' });
    expect(AUDIT_KEYS.index('all')).toBe('audit:i:all');
    expect(AUDIT_KEYS.index('all', 'ignored')).toBe('audit:i:all');
    expect(AUDIT_KEYS.index('account', 'acc-1')).toBe('audit:i:account:acc-1');
    expect(AUDIT_KEYS.index('actor', 'cron')).toBe('audit:i:actor:cron');
    expect(AUDIT_KEYS.index('route', 'admin/grant-coin')).toBe('audit:i:route:admin/grant-coin');
    expect(AUDIT_KEYS.index('route')).toBe('audit:i:route:');
  });

  it('gives the Redis append its six arguments: request id, record, time in ms, account or empty, actor, route', () => {
    const r = record('req-args', { account: 'acc-3', actor: { via: 'none' } });
    expect(auditArgs(r)).toStrictEqual(['req-args', JSON.stringify(r), String(AT.getTime()), 'acc-3', 'anonymous', 'admin/grant-coin']);
    expect(auditArgs(record('req-none'))[3]).toBe('');
  });
});
