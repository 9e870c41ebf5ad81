// A configuration problem of the stateful half never takes down the catalog routes
// (api/_lib/config.ts, rule 5): under an environment with a bad stateful variable, search, a collection and
// a registry answer 200 while every stateful entry answers 503 naming nothing internal, the operator's log
// listing every problem once; a bad CATALOG_DIR is a configuration problem, never reported as a corrupt
// catalog; and with no driver set outside the local tools (rule 1) the stores stay unconfigured. The
// bad variables include Vercel's Upstash names as a careless operator sets them (rule 6), and no secret of
// the environment reaches the log or an answer.
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { useEnvironment, useServiceConfig, type Environment } from '../../api/_lib/config.js';
import type { EntryExports } from '../../api/_lib/http/entry.js';
import * as admin from '../../api/admin.js';
import * as catalog from '../../api/catalog.js';
import * as collections from '../../api/collections.js';
import * as player from '../../api/player.js';
import * as registries from '../../api/registries.js';
import * as storage from '../../api/storage.js';
import * as wallet from '../../api/wallet.js';
import { SAMPLE_OUT } from '../helpers/catalog.js';
import { expectProblem } from '../helpers/game-api.js';
import { captureLog } from '../helpers/log.js';

afterAll(() => useServiceConfig(undefined));
const log = captureLog();

const JWT_SECRET = 'stateful-config-Kx9mQ2vL-7TzWd4Rn8cHy';
/** Variables every stateful part would be happy with, but for the one each case breaks. */
const GOOD: Environment = {
  CATALOG_DIR: SAMPLE_OUT,
  JWT_SECRET,
  STORE_DRIVER: 'sqlite',
  STORAGE_DRIVER: 'local',
  DATA_DIR: '/tmp/never-written',
};

/** Each case: what is wrong, the environment, and the variables the operator's log must name. */
const BAD: [string, Environment, string[]][] = [
  [
    'a malformed UPSTASH_REDIS_REST_URL',
    { ...GOOD, STORE_DRIVER: 'redis', UPSTASH_REDIS_REST_URL: 'not a url', UPSTASH_REDIS_REST_TOKEN: 'AX4sAAIjcDE2Yjk3NGQ5MGRhMmI' },
    ['UPSTASH_REDIS_REST_URL'],
  ],
  ['STORAGE_MAX_FILE_BYTES=abc', { ...GOOD, STORAGE_MAX_FILE_BYTES: 'abc' }, ['STORAGE_MAX_FILE_BYTES']],
  ['a weak JWT_SECRET and a wrong port besides', { ...GOOD, JWT_SECRET: 'changeme'.repeat(4), PORT: 'eighty' }, ['PORT', 'JWT_SECRET']],
  [
    'an http:// S3 endpoint off the loopback interface',
    {
      ...GOOD,
      STORAGE_DRIVER: 's3',
      S3_ENDPOINT: 'http://s3.example.com',
      S3_BUCKET: 'assets',
      S3_ACCESS_KEY_ID: 'AKIA',
      S3_SECRET_ACCESS_KEY: 'r8Kp2VxQ7mLc4TzN9wHd3BfY6sJg1aUe5oRi0CtE',
      S3_PUBLIC_URL: 'https://cdn.example.com',
    },
    ['S3_ENDPOINT'],
  ],
];

/** Vercel's Upstash integration (api/_lib/config.ts, rule 6), its values as it sets them for one database. */
const UPSTASH_TOKEN = 'AX4sAAIjcDE2Yjk3NGQ5MGRhMmI0ZDk5OTI';
const READ_ONLY_TOKEN = 'Ak4sAAIgcDE2Yjk3NGQ5MGRhMmI0ZDk5OTI';
const KV = {
  ...GOOD,
  STORE_DRIVER: 'redis',
  KV_REST_API_URL: 'https://able-gull-12345.upstash.io',
  KV_REST_API_TOKEN: UPSTASH_TOKEN,
  KV_REST_API_READ_ONLY_TOKEN: READ_ONLY_TOKEN,
  KV_URL: `rediss://default:${UPSTASH_TOKEN}@able-gull-12345.upstash.io:6379`,
};
const without = (env: Environment, ...names: string[]): Environment =>
  Object.fromEntries(Object.entries(env).filter(([k]) => !names.includes(k)));
BAD.push(
  [
    'both names of the token, differing',
    { ...KV, UPSTASH_REDIS_REST_TOKEN: 'AX4sBBIjcDE2Yjk3NGQ5MGRhMmI0ZDk5OTJ' },
    ['UPSTASH_REDIS_REST_TOKEN'],
  ],
  ['the read-only token alone', without(KV, 'KV_REST_API_TOKEN'), ['UPSTASH_REDIS_REST_TOKEN']],
  ['the read-only token as the token', { ...KV, KV_REST_API_TOKEN: READ_ONLY_TOKEN }, ['KV_REST_API_TOKEN']],
  [
    'KV_URL alone',
    without(KV, 'KV_REST_API_URL', 'KV_REST_API_TOKEN', 'KV_REST_API_READ_ONLY_TOKEN'),
    ['UPSTASH_REDIS_REST_URL', 'UPSTASH_REDIS_REST_TOKEN'],
  ],
  [
    'an http:// KV_REST_API_URL off the loopback interface',
    { ...KV, KV_REST_API_URL: 'http://able-gull-12345.upstash.io' },
    ['KV_REST_API_URL'],
  ],
  ['a weak KV_REST_API_TOKEN', { ...KV, KV_REST_API_TOKEN: 'changeme-changeme' }, ['KV_REST_API_TOKEN']],
  [
    'a line break pasted inside KV_REST_API_TOKEN',
    { ...KV, KV_REST_API_TOKEN: `${UPSTASH_TOKEN.slice(0, 17)}\n${UPSTASH_TOKEN.slice(17)}` },
    ['KV_REST_API_TOKEN'],
  ],
  [
    'a REDIS_URL of another database beside the REST pair',
    { ...KV, REDIS_URL: `rediss://default:${UPSTASH_TOKEN}@other-db.upstash.io:6379` },
    ['REDIS_URL'],
  ],
);

/** Every value of a secret the environment holds (at least 6 characters), and the halves of a token cut by a line break. */
const secretsOf = (env: Environment): string[] =>
  Object.entries(env)
    .filter(([k]) => /TOKEN|SECRET|PASSWORD|KV_URL|REDIS_URL/.test(k))
    .flatMap(([, v]) => (v ?? '').split('\n'))
    .filter((v) => v.length >= 6);

async function get(
  entry: EntryExports,
  method: string,
  path: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: Record<string, unknown>; headers: Headers }> {
  const init: RequestInit = { method, headers: { 'Content-Type': 'application/json', ...headers } };
  if (method !== 'GET') init.body = '{}';
  const res = await entry[method as keyof EntryExports](new Request(`http://t${path}`, init));
  const text = await res.text();
  const body = (text ? JSON.parse(text) : {}) as Record<string, unknown>;
  if (res.status >= 400) expectProblem(res.status, res.headers, body);
  return { status: res.status, body, headers: res.headers };
}

describe('a bad stateful variable', () => {
  for (const [what, env, variables] of BAD) {
    it(`(${what}) leaves search, a collection and a registry answering 200, and every stateful entry 503`, async () => {
      useEnvironment(env);
      expect((await get(catalog, 'GET', '/api/search?q=blade')).status).toBe(200);
      expect((await get(catalog, 'GET', '/api/stats')).status).toBe(200);
      expect((await get(collections, 'GET', '/v1/relics')).status).toBe(200);
      expect((await get(registries, 'GET', '/api/v1/sprites/search?q=demon')).status).toBe(200);
      const refused = [
        await get(wallet, 'GET', '/api/wallet/overview', { Authorization: 'Bearer x.y.z' }),
        await get(wallet, 'POST', '/api/wallet/verify-send-to-account', { 'X-Admin-Password': 'Hn4rX8cQ2vLm7TzW' }),
        await get(admin, 'POST', '/api/admin/accounts', { 'X-Admin-Password': 'Hn4rX8cQ2vLm7TzW' }),
        await get(player, 'GET', '/api/island/state', { Authorization: 'Bearer x.y.z' }),
        await get(storage, 'GET', '/api/storage/list', { 'X-Admin-Password': 'Hn4rX8cQ2vLm7TzW' }),
      ];
      for (const r of refused) {
        expect(r.status).toBe(503);
        expect(r.body.code).toBe('UPSTREAM_UNAVAILABLE');
        expect(String(r.body.detail)).not.toMatch(/[A-Z]{2,}_[A-Z_]+|corrupt|try again/);
      }
      // the operator's log: every problem once, and each 503 on a line of its own with its request id
      const [configuration, ...again] = log.events('configuration');
      expect(again).toEqual([]);
      expect((configuration!.problems as string[]).map((p) => p.split(' ')[0])).toEqual(variables);
      const errors = log.events('server-error');
      expect(errors.map((l) => l.requestId)).toEqual(refused.map((r) => r.body.requestId));
      expect(errors.every((l) => l.status === 503)).toBe(true);
      // no secret of the environment in any line of the log, nor in any answer
      const written = log.lines.map((l) => l.raw).join('\n') + JSON.stringify(refused);
      for (const secret of secretsOf(env)) expect(written).not.toContain(secret);
    });
  }
});

describe('a bad CATALOG_DIR', () => {
  it('is a configuration problem of the catalog routes, never a corrupt or missing catalog', async () => {
    useEnvironment({ ...GOOD, CATALOG_DIR: 'di\0st' });
    for (const [entry, path] of [
      [catalog, '/api/search?q=blade'],
      [collections, '/v1/relics'],
      [registries, '/api/v1/sprites/search?q=demon'],
    ] as const) {
      const r = await get(entry, 'GET', path);
      expect(r.status, path).toBe(503);
      expect(String(r.body.detail), path).not.toMatch(/CATALOG_DIR|corrupt|rebuild|run the catalog build/);
    }
  });
});

describe('no driver set, outside the local tools', () => {
  it('leaves the stores unconfigured on any runtime (503, the log saying what to set) and writes no embedded file', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'no-driver-'));
    try {
      for (const hosted of [{ AWS_LAMBDA_FUNCTION_NAME: 'game-api' }, {}]) {
        log.lines.length = 0;
        useEnvironment({ ...hosted, CATALOG_DIR: SAMPLE_OUT, JWT_SECRET, ADMIN_PASSWORD: 'Hn4rX8cQ2vLm7TzW', DATA_DIR: dataDir });
        expect((await get(collections, 'GET', '/v1/relics')).status).toBe(200);
        const ledger = await get(admin, 'GET', '/api/admin/accounts/STUDIO_NOBODY', { 'X-Admin-Password': 'Hn4rX8cQ2vLm7TzW' });
        expect([ledger.status, ledger.body.detail]).toEqual([503, 'The ledger is not available on this deployment.']);
        const files = await get(storage, 'GET', '/api/storage/list', { 'X-Admin-Password': 'Hn4rX8cQ2vLm7TzW' });
        expect([files.status, files.body.detail]).toEqual([503, 'Binary storage is not available on this deployment.']);
        const problems = log.events('configuration').flatMap((l) => l.problems as string[]);
        expect(problems.map((p) => p.split(' ')[0])).toEqual(['STORE_DRIVER', 'STORAGE_DRIVER']);
        expect(problems[0]).toContain('set STORE_DRIVER=redis with UPSTASH_REDIS_REST_URL and UPSTASH_REDIS_REST_TOKEN');
        expect(problems[1]).toContain('set STORAGE_DRIVER=s3');
        if ('AWS_LAMBDA_FUNCTION_NAME' in hosted)
          expect(problems[0]).toContain('this looks like AWS Lambda (AWS_LAMBDA_FUNCTION_NAME is set)');
        else expect(problems[0]).toContain('LOCAL_RUNTIME');
      }
      expect(readdirSync(dataDir)).toEqual([]);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
