// A token the Upstash REST endpoint refuses is a configuration error (api/_lib/stores/redis.ts): the
// stateful routes answer 503 without claiming the store is unreachable or telling the client to retry, the
// command is sent once (never retried), and the operator's log says, once, that UPSTASH_REDIS_REST_TOKEN is
// not accepted by the endpoint and what to set, never the token. Run against the local stand-in for
// Upstash's REST API (test/helpers/upstash-rest.ts), which answers 401 to a wrong token.
import type { Requester } from '@upstash/redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadServiceConfig, useServiceConfig } from '../../api/_lib/config.js';
import { REQUEST_ID_HEADER } from '../../api/_lib/http/request-id.js';
import { credentialOf, credentialRefusal } from '../../api/_lib/stores/redis.js';
import * as admin from '../../api/admin.js';
import * as player from '../../api/player.js';
import * as wallet from '../../api/wallet.js';
import { SAMPLE_OUT } from '../helpers/catalog.js';
import { call, tokenFor } from '../helpers/game-api.js';
import { captureLog } from '../helpers/log.js';
import { startRedis, type TestRedis } from '../helpers/redis.js';
import { startUpstashRest, type UpstashRestStandIn } from '../helpers/upstash-rest.js';

const PASSWORD = 'upstash-token-Hn4rX8cQ2vLm7TzW';
const JWT_SECRET = 'upstash-token-Vq8mT2xLr5NcW9pKd3ZgY7hB4sFj6aUe';
const WRONG = 'AX4sWRONGjcDE2Yjk3NGQ5MGRhMmI0ZDk5';

let redis: TestRedis;
let rest: UpstashRestStandIn;
const log = captureLog();

beforeAll(async () => {
  redis = await startRedis();
  rest = await startUpstashRest(redis.url);
});
afterAll(async () => {
  useServiceConfig(undefined);
  await rest.close();
  await redis.destroy();
});

/** Put the REST store with `token` in force. */
function useToken(token: string) {
  const config = loadServiceConfig({
    STORE_DRIVER: 'redis',
    UPSTASH_REDIS_REST_URL: rest.url,
    UPSTASH_REDIS_REST_TOKEN: token,
    JWT_SECRET,
    ADMIN_PASSWORD: PASSWORD,
    CATALOG_DIR: SAMPLE_OUT,
  });
  useServiceConfig(config);
  return config;
}

describe('a token the REST endpoint refuses', () => {
  it('is answered 503 as a configuration problem, sent once, and logged once with what to set', async () => {
    const config = useToken(WRONG);
    const before = rest.requests.length;
    const res = await call(wallet, 'POST', '/api/wallet/verify-send-to-account', {
      body: { studioId: 'STUDIO_NOBODY', amount: 5, purpose: 'test', idempotencyKey: 'upstash-token-0001' },
      headers: { 'X-Admin-Password': PASSWORD },
    });
    expect(res.status).toBe(503);
    expect(res.body.code).toBe('UPSTREAM_UNAVAILABLE');
    expect(res.body.detail).toBe(
      'The ledger store is not configured correctly on this deployment; the operator has been told what to set.',
    );
    expect(res.body.detail).not.toMatch(/cannot be reached|try again|UPSTASH/);
    expect(res.headers.get('retry-after')).toBeNull();
    // one command of the ledger, refused, and not retried (the throttle's own commands, refused the same
    // way, let the request through to it; the audit record's append after the 503, refused the same way,
    // is sent once too)
    const sent = rest.requests.slice(before).filter((r) => !JSON.stringify(r.body).includes('throttle:'));
    const ledgerCommands = sent.filter((r) => !JSON.stringify(r.body).includes('requestId'));
    expect(ledgerCommands).toHaveLength(1);
    expect(sent.length - ledgerCommands.length).toBe(1);
    expect(ledgerCommands[0]!.headers.authorization).toBe(`Bearer ${WRONG}`);

    const host = new URL(rest.url).host;
    const [configuration] = log.events('configuration');
    expect(configuration!.problems).toEqual([
      `UPSTASH_REDIS_REST_TOKEN is not accepted by ${host} (it answered Unauthorized); set the database's REST token from the Upstash console (not its read-only token), matching UPSTASH_REDIS_REST_URL.`,
    ]);
    const [error] = log.events('server-error');
    expect(error).toMatchObject({ status: 503, route: 'wallet/verify-send', requestId: res.headers.get(REQUEST_ID_HEADER) });
    expect((error!.cause as { name: string; variables?: string[] }[]).map((c) => c.variables ?? c.name)).toEqual([
      'ServiceError',
      ['UPSTASH_REDIS_REST_TOKEN'],
    ]);
    for (const line of log.lines) expect(line.raw).not.toContain(WRONG);

    // every store of the half says the same; the configuration line is not repeated
    log.lines.length = 0;
    const created = await call(admin, 'POST', '/api/admin/accounts', {
      body: { displayName: 'Ada' },
      headers: { 'X-Admin-Password': PASSWORD },
    });
    expect([created.status, created.body.detail]).toEqual([
      503,
      'The ledger store is not configured correctly on this deployment; the operator has been told what to set.',
    ]);
    const island = await call(player, 'GET', '/api/island/state', {
      headers: { Authorization: `Bearer ${await tokenFor(config, 'STUDIO_X')}` },
    });
    expect(island.status).toBe(503);
    expect(island.body.detail).not.toMatch(/cannot be reached|try again/);
    expect(log.events('configuration')).toEqual([]);
    expect(log.events('server-error')).toHaveLength(2);
  });

  it('is the token alone: the same calls with the accepted token succeed', async () => {
    useToken(rest.token);
    const created = await call(admin, 'POST', '/api/admin/accounts', {
      body: { displayName: 'Ada' },
      headers: { 'X-Admin-Password': PASSWORD },
    });
    expect(created.status).toBe(201);
    expect(log.events('configuration')).toEqual([]);
  });

  it('is still an outage, retried and worded as one, when the endpoint cannot be reached', async () => {
    const config = loadServiceConfig({
      STORE_DRIVER: 'redis',
      UPSTASH_REDIS_REST_URL: 'http://127.0.0.1:1',
      UPSTASH_REDIS_REST_TOKEN: WRONG,
      JWT_SECRET,
      ADMIN_PASSWORD: PASSWORD,
      CATALOG_DIR: SAMPLE_OUT,
    });
    useServiceConfig(config);
    const res = await call(admin, 'POST', '/api/admin/accounts', {
      body: { displayName: 'Ada' },
      headers: { 'X-Admin-Password': PASSWORD },
    });
    expect(res.status).toBe(503);
    expect(res.body.detail).toMatch(/^The ledger store cannot be reached \(.*\); try again/);
    expect(log.events('configuration')).toEqual([]);
  });
});

describe('telling a refused credential from other failures', () => {
  const upstash = (message: string) => Object.assign(new Error(message), { name: 'UpstashError' });

  it('reads the word the endpoint refused with at the start of an error reply, and nothing else', () => {
    expect(credentialRefusal(upstash('Unauthorized, command was: [["evalsha","…"]]'))).toBe('Unauthorized');
    expect(credentialRefusal(upstash('WRONGPASS invalid username-password pair or user is disabled, command was: [["get","k"]]'))).toBe(
      'WRONGPASS',
    );
    expect(credentialRefusal(upstash("NOPERM this user has no permissions to run the 'evalsha' command"))).toBe('NOPERM');
    expect(credentialRefusal(upstash('NOAUTH Authentication required.'))).toBe('NOAUTH');
    for (const other of [
      upstash('NOSCRIPT No matching script.'),
      upstash('ERR Error running script: unauthorized move'),
      Object.assign(new Error('Unauthorized'), { name: 'UpstashJSONParseError' }),
      new TypeError('fetch failed'),
      'Unauthorized',
    ])
      expect(credentialRefusal(other)).toBeUndefined();
  });

  it('names the REST token and its host, or the redis-server password', () => {
    expect(credentialOf({ url: 'https://eu1-able-fox.upstash.io', token: WRONG })).toEqual({
      variable: 'UPSTASH_REDIS_REST_TOKEN',
      endpoint: 'eu1-able-fox.upstash.io',
    });
    const requester: Requester = { request: () => Promise.resolve({ result: undefined }) };
    expect(credentialOf({ requester })).toEqual({ variable: 'REDIS_URL', endpoint: 'the redis-server' });
  });
});
