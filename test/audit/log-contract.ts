/**
 * The audit log's store contract (spec 5.3; docs/architecture.md, "Audit log"), a suite every adapter's
 * test file runs with its own harness (`sqlite-log.contract.test.ts`, `redis-log.contract.test.ts` over
 * RESP, `redis-rest-log.contract.test.ts` through the REST client): one record per request id, every
 * field kept, newest first by time then sequence number, the exact filters (actor key, account, route)
 * combined with AND, `fromMs` inclusive and `toMs` exclusive, pages of `limit` with the place of the next,
 * a place read back as "strictly after", a place past either end of the range, a record found behind
 * {@link AUDIT_SCAN_BUDGET} that do not match (over short pages where the adapter stops at that budget:
 * Redis), persistence across a reopen, and a property-based run (fast-check) of random logs and queries
 * against a plain in-memory model.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AUDIT_SCAN_BUDGET, type AuditLog, type AuditPosition, type AuditQuery } from '../../api/_lib/audit/types.js';
import { actorKey } from '../../api/_lib/stores/audit.js';
import type { AuditActor, AuditRecord, AuditRecordDraft } from '../../api/_lib/util/audit-scope.js';
import type { Harness } from '../helpers/backends.js';

/** What an adapter declares of itself to the suite. */
export interface AuditLogCapabilities {
  /** Reads fail once it is closed (false over REST, which holds no connection to close). */
  readonly refusesWhenClosed: boolean;
  /** The adapter's `driver`. */
  readonly driver: AuditLog['driver'];
  /** It answers a short page with a next place after examining {@link AUDIT_SCAN_BUDGET} records. */
  readonly scanBudget: boolean;
}

/** Time of the records of the suite, ms: 2026-11-20T00:00:00Z. */
const T0 = Date.parse('2026-11-20T00:00:00Z');

const ACTORS: readonly AuditActor[] = [
  { via: 'token', subject: 'STUDIO_OPERATOR', role: 'admin' },
  { via: 'token', subject: 'STUDIO_GAME_SERVER', role: 'server' },
  { via: 'password' },
  { via: 'cron' },
  { via: 'none' },
];

let n = 0;
/** A record draft at `T0 + ms`, with a fresh request id. */
export function draftAt(ms: number, fields: Partial<AuditRecordDraft> = {}): AuditRecordDraft {
  n++;
  return {
    at: new Date(T0 + ms).toISOString(),
    actor: ACTORS[0]!,
    route: 'admin/grant-coin',
    method: 'POST',
    account: null,
    idempotencyKey: null,
    status: 200,
    changed: true,
    requestId: `contract-req-${n}`,
    ...fields,
  };
}

/** Every record of `query`, page by page; the pages' sizes and places too. */
async function walk(
  log: AuditLog,
  query: AuditQuery,
): Promise<{ records: AuditRecord[]; pages: { size: number; next?: AuditPosition }[] }> {
  const records: AuditRecord[] = [];
  const pages: { size: number; next?: AuditPosition }[] = [];
  let after: AuditPosition | undefined = query.after;
  for (let i = 0; i < 500; i++) {
    const page = await log.list({ ...query, after });
    records.push(...page.records);
    pages.push({ size: page.records.length, ...(page.next ? { next: page.next } : {}) });
    if (!page.next) return { records, pages };
    after = page.next;
  }
  throw new Error('the pages never ended');
}

const requestIds = (records: readonly AuditRecord[]) => records.map((r) => r.requestId);

/**
 * Run the audit log contract against the adapter `harness` makes.
 * @param harness a new harness (its backend started in the suite's `beforeAll`).
 */
export function auditLogContract(harness: () => Harness<AuditLog>, capabilities: AuditLogCapabilities): void {
  const h = harness();
  describe(`audit log contract: ${h.name}`, () => {
    beforeAll(() => h.setup(), 30_000);
    afterAll(() => h.teardown());

    /** A fresh log holding `drafts`, appended in order. */
    const logOf = async (drafts: readonly AuditRecordDraft[]) => {
      const log = await h.fresh();
      for (const d of drafts) expect(await log.append(d)).toBe(true);
      return log;
    };

    it('appends a record once per request id and keeps every field, with a decimal id that increases', async () => {
      const a = draftAt(5, { account: 'acc-1', idempotencyKey: 'key-0001', status: 201, reason: 'wrong-password', changed: null });
      const b = draftAt(6, { actor: { via: 'cron' }, method: 'PATCH', changed: false });
      const log = await h.fresh();
      expect(log.driver).toBe(capabilities.driver);
      expect(await log.append(a)).toBe(true);
      expect(await log.append({ ...a, status: 500, at: b.at })).toBe(false);
      expect(await log.append(b)).toBe(true);
      const page = await log.list({ limit: 10 });
      expect(page.next).toBeUndefined();
      expect(page.records).toStrictEqual([
        { id: page.records[0]!.id, ...b },
        { id: page.records[1]!.id, ...a },
      ]);
      const [ib, ia] = page.records.map((r) => r.id);
      expect(ia).toMatch(/^[1-9]\d*$/);
      expect(ib).toMatch(/^[1-9]\d*$/);
      expect(Number(ib)).toBeGreaterThan(Number(ia));
      expect('reason' in page.records[0]!).toBe(false);
      await log.close();
    });

    it('lists newest first by time, then by sequence within a millisecond, whatever the order of appending', async () => {
      // (a record of 1969 too: a time before the epoch is negative)
      const drafts = [draftAt(20), draftAt(10), draftAt(20), draftAt(30), draftAt(10), draftAt(0), draftAt(-T0 - 1)];
      const log = await logOf(drafts);
      const ids = (i: number) => drafts[i]!.requestId;
      const { records } = await walk(log, { limit: 50 });
      expect(requestIds(records)).toEqual([ids(3), ids(2), ids(0), ids(4), ids(1), ids(5), ids(6)]);
      expect(records[6]!.at).toBe('1969-12-31T23:59:59.999Z');
      await log.close();
    });

    it('filters by actor key, account and route exactly, combined with AND', async () => {
      const drafts = [
        draftAt(1, { actor: ACTORS[0], account: 'acc-1', route: 'admin/grant-coin' }),
        draftAt(2, { actor: ACTORS[1], account: 'acc-1', route: 'player/inventory-grant' }),
        draftAt(3, { actor: ACTORS[2], account: 'acc-2', route: 'admin/grant-coin' }),
        draftAt(4, { actor: ACTORS[3], account: null, route: 'admin/ledger-verify' }),
        draftAt(5, { actor: ACTORS[4], account: null, route: 'admin/grant-coin' }),
        draftAt(6, { actor: ACTORS[0], account: 'acc-2', route: 'admin/grant-coin' }),
      ];
      const log = await logOf(drafts);
      const only = async (query: Omit<AuditQuery, 'limit'>) => requestIds((await log.list({ ...query, limit: 50 })).records);
      const ids = (...i: number[]) => i.map((k) => drafts[k]!.requestId);
      expect(await only({ actor: 'STUDIO_OPERATOR' })).toEqual(ids(5, 0));
      expect(await only({ actor: 'STUDIO_GAME_SERVER' })).toEqual(ids(1));
      expect(await only({ actor: 'admin-password' })).toEqual(ids(2));
      expect(await only({ actor: 'cron' })).toEqual(ids(3));
      expect(await only({ actor: 'anonymous' })).toEqual(ids(4));
      expect(await only({ actor: 'STUDIO' })).toEqual([]);
      expect(await only({ account: 'acc-1' })).toEqual(ids(1, 0));
      expect(await only({ account: 'acc-2' })).toEqual(ids(5, 2));
      expect(await only({ account: 'acc' })).toEqual([]);
      expect(await only({ route: 'admin/grant-coin' })).toEqual(ids(5, 4, 2, 0));
      expect(await only({ route: 'admin/ledger-verify' })).toEqual(ids(3));
      expect(await only({ route: 'admin/grant' })).toEqual([]);
      expect(await only({ actor: 'STUDIO_OPERATOR', account: 'acc-2' })).toEqual(ids(5));
      expect(await only({ account: 'acc-1', route: 'admin/grant-coin' })).toEqual(ids(0));
      expect(await only({ actor: 'STUDIO_OPERATOR', route: 'admin/grant-coin' })).toEqual(ids(5, 0));
      expect(await only({ actor: 'admin-password', account: 'acc-2', route: 'admin/grant-coin' })).toEqual(ids(2));
      expect(await only({ actor: 'admin-password', account: 'acc-1', route: 'admin/grant-coin' })).toEqual([]);
      expect(await only({ actor: 'cron', route: 'admin/grant-coin' })).toEqual([]);
      expect(await only({})).toEqual(ids(5, 4, 3, 2, 1, 0));
      await log.close();
    });

    it('reads fromMs inclusive and toMs exclusive', async () => {
      const drafts = [draftAt(10), draftAt(20), draftAt(20), draftAt(30)];
      const log = await logOf(drafts);
      const ids = (...i: number[]) => i.map((k) => drafts[k]!.requestId);
      const range = async (fromMs?: number, toMs?: number) => requestIds((await log.list({ fromMs, toMs, limit: 50 })).records);
      expect(await range(T0 + 20)).toEqual(ids(3, 2, 1));
      expect(await range(T0 + 21)).toEqual(ids(3));
      expect(await range(undefined, T0 + 20)).toEqual(ids(0));
      expect(await range(undefined, T0 + 21)).toEqual(ids(2, 1, 0));
      expect(await range(T0 + 20, T0 + 30)).toEqual(ids(2, 1));
      expect(await range(T0 + 10, T0 + 11)).toEqual(ids(0));
      expect(await range(T0 + 31)).toEqual([]);
      expect(await range(undefined, T0 + 10)).toEqual([]);
      await log.close();
    });

    it('answers pages of limit with the place of the last record when more follow, none when the rest fits', async () => {
      const drafts = [draftAt(1), draftAt(2), draftAt(2), draftAt(2), draftAt(3)];
      const log = await logOf(drafts);
      const first = await log.list({ limit: 2 });
      expect(requestIds(first.records)).toEqual([drafts[4]!.requestId, drafts[3]!.requestId]);
      expect(first.next).toStrictEqual({ atMs: T0 + 2, seq: Number(first.records[1]!.id) });
      // the rest of the millisecond first, then older ones
      const second = await log.list({ limit: 2, after: first.next });
      expect(requestIds(second.records)).toEqual([drafts[2]!.requestId, drafts[1]!.requestId]);
      expect(second.next).toStrictEqual({ atMs: T0 + 2, seq: Number(second.records[1]!.id) });
      const last = await log.list({ limit: 1, after: second.next });
      expect(requestIds(last.records)).toEqual([drafts[0]!.requestId]);
      expect(last.next).toBeUndefined();
      const whole = await log.list({ limit: 5 });
      expect([whole.records.length, whole.next]).toEqual([5, undefined]);
      const allButOne = await log.list({ limit: 4 });
      expect([allButOne.records.length, allButOne.next]).toEqual([4, { atMs: T0 + 2, seq: Number(allButOne.records[3]!.id) }]);
      expect((await log.list({ limit: 1, after: { atMs: T0 + 1, seq: Number(last.records[0]!.id) } })).records).toEqual([]);
      await log.close();
    });

    it('pages within from/to, and reads nothing outside them for a place past either end', async () => {
      const drafts = [draftAt(10), draftAt(20), draftAt(20), draftAt(20), draftAt(30), draftAt(30), draftAt(40)];
      const log = await logOf(drafts);
      const ids = (...i: number[]) => i.map((k) => drafts[k]!.requestId);
      // a page boundary inside the first millisecond of the range
      const inRange = await walk(log, { fromMs: T0 + 20, toMs: T0 + 40, limit: 1 });
      expect(requestIds(inRange.records)).toEqual(ids(5, 4, 3, 2, 1));
      expect(inRange.pages.map((p) => p.size)).toEqual([1, 1, 1, 1, 1]);
      const fromOnly = await walk(log, { fromMs: T0 + 20, limit: 2 });
      expect(requestIds(fromOnly.records)).toEqual(ids(6, 5, 4, 3, 2, 1));
      const top = Number.MAX_SAFE_INTEGER;
      // a place older than from: nothing
      expect(await log.list({ fromMs: T0 + 20, limit: 10, after: { atMs: T0 + 10, seq: top } })).toStrictEqual({
        records: [],
        next: undefined,
      });
      expect(await log.list({ fromMs: T0 + 20, limit: 10, after: { atMs: T0 + 19, seq: top } })).toStrictEqual({
        records: [],
        next: undefined,
      });
      // a place at to or newer: the range from its newest record
      for (const atMs of [T0 + 40, T0 + 41, T0 + 1000]) {
        const past = await log.list({ toMs: T0 + 40, limit: 10, after: { atMs, seq: top } });
        expect(requestIds(past.records), String(atMs - T0)).toEqual(ids(5, 4, 3, 2, 1, 0));
      }
      const pastBoth = await log.list({ fromMs: T0 + 20, toMs: T0 + 30, limit: 10, after: { atMs: T0 + 30, seq: top } });
      expect(requestIds(pastBoth.records)).toEqual(ids(3, 2, 1));
      // a place inside the range: strictly after it
      const inside = await log.list({ fromMs: T0 + 20, toMs: T0 + 40, limit: 10, after: { atMs: T0 + 30, seq: top } });
      expect(requestIds(inside.records)).toEqual(ids(5, 4, 3, 2, 1));
      await log.close();
    });

    it('pages a long log whose milliseconds hold several records, with and without filters', async () => {
      const drafts = Array.from({ length: 460 }, (_, i) =>
        draftAt(Math.floor(i / 3), { actor: ACTORS[i % 2], route: i % 5 === 0 ? 'admin/ledger-verify' : 'admin/grant-coin' }),
      );
      const log = await logOf(drafts);
      const newestFirst = [...drafts].reverse();
      for (const limit of [7, 200]) {
        const all = await walk(log, { limit });
        expect(requestIds(all.records)).toEqual(requestIds(newestFirst as AuditRecord[]));
        expect(all.pages.slice(0, -1).every((p) => p.size === limit)).toBe(true);
      }
      const server = await walk(log, { actor: 'STUDIO_GAME_SERVER', limit: 9 });
      expect(requestIds(server.records)).toEqual(newestFirst.filter((d) => d.actor === ACTORS[1]).map((d) => d.requestId));
      const both = await walk(log, { actor: 'STUDIO_OPERATOR', route: 'admin/ledger-verify', fromMs: T0 + 30, toMs: T0 + 120, limit: 4 });
      expect(requestIds(both.records)).toEqual(
        newestFirst
          .filter(
            (d) => d.actor === ACTORS[0] && d.route === 'admin/ledger-verify' && Date.parse(d.at) >= T0 + 30 && Date.parse(d.at) < T0 + 120,
          )
          .map((d) => d.requestId),
      );
      await log.close();
    });

    it(`keeps its records across a reopen${capabilities.refusesWhenClosed ? ', and refuses to read once closed' : ''}`, async () => {
      const log = await logOf([draftAt(1), draftAt(2)]);
      await log.close();
      const again = await h.reopen();
      expect((await again.list({ limit: 10 })).records).toHaveLength(2);
      expect(await again.append(draftAt(3))).toBe(true);
      await again.close();
      if (capabilities.refusesWhenClosed) await expect(again.list({ limit: 10 })).rejects.toMatchObject({ code: 'UPSTREAM_UNAVAILABLE' });
    });

    it(`finds a record behind ${AUDIT_SCAN_BUDGET} that the filters do not match${capabilities.scanBudget ? ', over short pages' : ''}`, async () => {
      const log = await h.fresh();
      const rare = draftAt(0, { route: 'admin/ledger-verify', account: 'acc-rare', actor: ACTORS[3] });
      const other = draftAt(0, { route: 'admin/grant-coin', account: 'acc-other', actor: ACTORS[2] });
      for (const d of [rare, other]) expect(await log.append(d)).toBe(true);
      const many = Array.from({ length: AUDIT_SCAN_BUDGET + 50 }, (_, i) =>
        draftAt(1 + Math.floor(i / 2), { actor: ACTORS[3], account: 'acc-many' }),
      );
      for (let i = 0; i < many.length; i += 100) await Promise.all(many.slice(i, i + 100).map((d) => log.append(d)));
      const one = async (query: Omit<AuditQuery, 'limit'>) => {
        const page = await log.list({ ...query, limit: 5 });
        return [requestIds(page.records), page.next];
      };
      // the account's index is read before the actor's and the route's, the actor's before the route's
      expect(await one({ account: 'acc-rare', actor: 'cron' })).toEqual([[rare.requestId], undefined]);
      expect(await one({ account: 'acc-other', route: 'admin/grant-coin' })).toEqual([[other.requestId], undefined]);
      expect(await one({ actor: 'admin-password', route: 'admin/grant-coin' })).toEqual([[other.requestId], undefined]);
      expect(await one({ route: 'admin/ledger-verify' })).toEqual([[rare.requestId], undefined]);
      const query = { actor: 'cron', route: 'admin/ledger-verify', limit: 5 };
      const first = await log.list(query);
      if (capabilities.scanBudget) {
        // the actor's index holds every record: the budget ends the first page before the match
        expect(first.records).toEqual([]);
        expect(first.next?.atMs).toBe(T0 + 1 + Math.floor((many.length - AUDIT_SCAN_BUDGET) / 2));
      } else {
        expect([requestIds(first.records), first.next]).toEqual([[rare.requestId], undefined]);
      }
      const found = await walk(log, query);
      expect(requestIds(found.records)).toEqual([rare.requestId]);
      await log.close();
    });

    it('lists what a plain model lists, for random logs and queries, page by page (property)', async () => {
      const actorKeys = ACTORS.map(actorKey);
      const record = fc.record({
        ms: fc.integer({ min: 0, max: 5 }),
        actor: fc.integer({ min: 0, max: ACTORS.length - 1 }),
        account: fc.constantFrom(null, 'acc-1', 'acc-2'),
        route: fc.constantFrom('admin/a', 'admin/b'),
      });
      const query = fc.record({
        actor: fc.option(fc.constantFrom(...actorKeys), { nil: undefined }),
        account: fc.option(fc.constantFrom('acc-1', 'acc-2'), { nil: undefined }),
        route: fc.option(fc.constantFrom('admin/a', 'admin/b'), { nil: undefined }),
        from: fc.option(fc.integer({ min: 0, max: 6 }), { nil: undefined }),
        to: fc.option(fc.integer({ min: 0, max: 6 }), { nil: undefined }),
        limit: fc.integer({ min: 1, max: 4 }),
      });
      await fc.assert(
        fc.asyncProperty(fc.array(record, { maxLength: 14 }), fc.array(query, { minLength: 1, maxLength: 3 }), async (spec, queries) => {
          const drafts = spec.map((s) => draftAt(s.ms, { actor: ACTORS[s.actor], account: s.account, route: s.route }));
          const log = await logOf(drafts);
          try {
            const ordered = drafts.map((d, i) => ({ d, i })).sort((a, b) => Date.parse(b.d.at) - Date.parse(a.d.at) || b.i - a.i);
            for (const q of queries) {
              const fromMs = q.from === undefined ? undefined : T0 + q.from;
              const toMs = q.to === undefined ? undefined : T0 + q.to;
              const expected = ordered
                .map((o) => o.d)
                .filter(
                  (d) =>
                    (q.actor === undefined || actorKey(d.actor) === q.actor) &&
                    (q.account === undefined || d.account === q.account) &&
                    (q.route === undefined || d.route === q.route) &&
                    (fromMs === undefined || Date.parse(d.at) >= fromMs) &&
                    (toMs === undefined || Date.parse(d.at) < toMs),
                );
              const got = await walk(log, { actor: q.actor, account: q.account, route: q.route, fromMs, toMs, limit: q.limit });
              expect(got.records.map(({ id: _, ...rest }) => rest)).toStrictEqual(expected);
              // full pages until the last, each ending where the next starts
              expect(got.pages.slice(0, -1).every((p) => p.size === q.limit)).toBe(true);
              expect(got.pages.at(-1)!.size).toBeLessThanOrEqual(q.limit);
              let k = 0;
              for (const p of got.pages) {
                k += p.size;
                if (p.next) expect(p.next).toStrictEqual({ atMs: Date.parse(got.records[k - 1]!.at), seq: Number(got.records[k - 1]!.id) });
              }
            }
          } finally {
            await log.close();
          }
        }),
        { numRuns: 25 },
      );
    });
  });
}
