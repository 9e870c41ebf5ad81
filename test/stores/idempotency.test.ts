/**
 * The one idempotency record of the stores (`api/_lib/stores/idempotency.ts`; docs/architecture.md,
 * "Stores are ports with adapters"): the fingerprint is the SHA-256 of canonical JSON (member order never
 * matters, array order does, undefined members are left out), and the SQL helper and the Lua prelude
 * keep the same record: the fingerprint, then the ref.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canonicalJson, IDEMPOTENCY_LUA, lookupKey, recordKey, requestFingerprint } from '../../api/_lib/stores/idempotency.js';
import { openSqliteDatabase } from '../../api/_lib/stores/sqlite.js';
import { connectRespRequester, type RespRequester } from '../../api/_lib/stores/resp-requester.js';
import { startRedis, type TestRedis } from '../helpers/redis.js';

describe('canonical JSON and the request fingerprint', () => {
  it('orders members by name at every depth, keeps array order, leaves undefined members out', () => {
    expect(canonicalJson({ b: 1, a: { d: [3, { z: 1, y: 2 }], c: null } })).toBe('{"a":{"c":null,"d":[3,{"y":2,"z":1}]},"b":1}');
    expect(canonicalJson({ a: undefined, b: [undefined, 'x'] })).toBe('{"b":[null,"x"]}');
    expect(canonicalJson('é"\n')).toBe(JSON.stringify('é"\n'));
    expect(() => canonicalJson(() => 1)).toThrow(TypeError);
  });

  it('is the first 32 hex digits of the SHA-256 of the canonical JSON: the same for any member order', () => {
    const v = { purpose: 'verify', amount: 5, accountId: 'a' };
    expect(requestFingerprint(v)).toBe(createHash('sha256').update(canonicalJson(v)).digest('hex').slice(0, 32));
    expect(requestFingerprint(v)).toBe(requestFingerprint({ accountId: 'a', amount: 5, purpose: 'verify' }));
    expect(requestFingerprint([1, 2])).not.toBe(requestFingerprint([2, 1]));
    expect(requestFingerprint({ amount: 5 })).not.toBe(requestFingerprint({ amount: '5' }));
  });
});

describe('the record on both backends', () => {
  let dir: string;
  let redis: TestRedis;
  let raw: RespRequester;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'idempotency-'));
    redis = await startRedis();
    raw = await connectRespRequester(redis.url);
  }, 30_000);
  afterAll(async () => {
    await raw.close();
    await redis.destroy();
    rmSync(dir, { recursive: true, force: true });
  });

  it('SQL: new, then the same fingerprint with its ref, then another fingerprint as a reuse; scopes apart', async () => {
    const db = await openSqliteDatabase({
      file: join(dir, 'k.sqlite'),
      layout: { component: 'probe', version: 1, ddl: 'CREATE TABLE IF NOT EXISTS probe (x INTEGER);' },
      store: { name: 'probe store', retryHint: '' },
    });
    const look = (scope: string, fp: string) => db.write((tx) => lookupKey(tx, scope, 'key-1', fp));
    expect(await look('s', 'fp-a')).toEqual({ status: 'new' });
    await db.write((tx) => tx.execute(recordKey('s', 'key-1', 'fp-a', 'ref-1')));
    expect(await look('s', 'fp-a')).toEqual({ status: 'same', ref: 'ref-1' });
    expect(await look('s', 'fp-b')).toEqual({ status: 'key-reused', ref: 'ref-1' });
    expect(await look('t', 'fp-a')).toEqual({ status: 'new' });
    await expect(db.write((tx) => tx.execute(recordKey('s', 'key-1', 'fp-a', 'ref-2')))).rejects.toMatchObject({
      code: 'UPSTREAM_UNAVAILABLE',
    });
    await db.close();
  });

  it('Lua: the same three answers, the record stored as the fingerprint, a line break, the ref', async () => {
    const probe = `${IDEMPOTENCY_LUA}
local ref, same = idem_lookup(KEYS[1], ARGV[1], ARGV[2])
if ref then return {ref, same and 'same' or 'key-reused'} end
if ARGV[3] ~= '' then idem_record(KEYS[1], ARGV[1], ARGV[2], ARGV[3]) end
return {'new'}`;
    const run = async (fp: string, ref = '') =>
      (await raw.request<unknown>({ body: ['eval', probe, '1', 'probe:keys', 'key-1', fp, ref] })).result;
    expect(await run('fp-a')).toEqual(['new']);
    expect(await run('fp-a', 'ref-1')).toEqual(['new']);
    expect(await run('fp-a')).toEqual(['ref-1', 'same']);
    expect(await run('fp-b')).toEqual(['ref-1', 'key-reused']);
    expect((await raw.request({ body: ['hget', 'probe:keys', 'key-1'] })).result).toBe('fp-a\nref-1');
  });
});
