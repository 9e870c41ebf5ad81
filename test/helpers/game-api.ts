/**
 * Handler-test plumbing for the game API entries (island, characters, account): a configuration over the
 * sample catalog's test build and a fresh SQLite data folder, accounts created through the admin entry,
 * tokens, and a `call` that sends a `new Request` to an entry's method export and reads the answer.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { loadServiceConfig, PROJECT_ROOT, useServiceConfig, type ServiceConfig } from '../../api/_lib/config.js';
import { mintToken, type Role } from '../../api/_lib/auth/tokens.js';
import type { EntryExports } from '../../api/_lib/http/entry.js';
import * as admin from '../../api/admin.js';
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { SAMPLE_OUT } from './catalog.js';
import { sqliteHarness } from './ledger.js';

export const SECRET = 'test-secret-0123456789-abcdefghijklmnop';

/** Put a configuration over `env` (a store's variables; `CATALOG_DIR` default the sample build) in force; it is answered. */
export function useGameConfig(env: Record<string, string>): ServiceConfig {
  const config = loadServiceConfig({ ...env, JWT_SECRET: SECRET, CATALOG_DIR: env.CATALOG_DIR ?? SAMPLE_OUT });
  useServiceConfig(config);
  return config;
}

/**
 * Register the hooks of a game API handler suite: a SQLite data folder for the file, and before each test
 * a fresh store under it with {@link useGameConfig} plus `extra` variables in force.
 * @returns the configuration of the running test (read it inside tests and hooks).
 */
export function gameApiSuite(extra: Record<string, string> = {}): { readonly config: ServiceConfig; readonly env: Record<string, string> } {
  const h = sqliteHarness();
  let config: ServiceConfig | undefined;
  let env: Record<string, string> = {};
  beforeAll(() => h.setup());
  afterAll(async () => {
    useServiceConfig(undefined);
    await h.teardown();
  });
  beforeEach(() => {
    env = { ...h.env(), ...extra };
    config = useGameConfig(env);
  });
  return {
    get config() {
      return config!;
    },
    get env() {
      return env;
    },
  };
}

/** A token for `sub` with `role` under `config`. */
export function tokenFor(
  config: ServiceConfig,
  sub: string,
  role: Role = 'player',
  extra: { guest?: boolean; ttlSeconds?: number; now?: number } = {},
): Promise<string> {
  return mintToken(config.jwt, { subject: sub, role, ...extra });
}

/** An answer: status, headers and the parsed JSON body (`{}` when empty). */
export interface Answer {
  readonly status: number;
  readonly headers: Headers;
  readonly body: Record<string, unknown> & { code?: string; errors?: { name: string; message: string }[] };
}

/** Send `method path` with `body` (JSON unless a string) and `headers` to `entry`. */
export async function call(
  entry: EntryExports,
  method: string,
  path: string,
  options: { body?: unknown; headers?: Record<string, string> } = {},
): Promise<Answer> {
  const init: RequestInit = {
    method,
    headers: { ...(options.body !== undefined ? { 'Content-Type': 'application/json' } : {}), ...options.headers },
  };
  if (options.body !== undefined) init.body = typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
  const res = await entry[method as keyof EntryExports](new Request(`http://t${path}`, init));
  const text = await res.text();
  const body = (text ? JSON.parse(text) : {}) as Answer['body'];
  if (res.status >= 400) expectProblem(res.status, res.headers, body);
  return { status: res.status, headers: res.headers, body };
}

/**
 * Fail unless a refusal is a problem the client can act on: `application/problem+json` whose body
 * follows `schemas/responses/problem.schema.json` (a detail that is a sentence, every listed field named
 * with its own message) and whose status is the response's.
 */
export function expectProblem(status: number, headers: Headers, body: unknown): void {
  const errors = responseErrors('problem', body);
  if (errors.length > 0 || headers.get('content-type') !== 'application/problem+json' || (body as { status?: unknown }).status !== status) {
    throw new Error(`Not a usable problem (${status}, ${headers.get('content-type')}): ${JSON.stringify(body)}\n${JSON.stringify(errors)}`);
  }
}

/** Create an account through the admin entry; its studio id and a player token for it. */
export async function newPlayer(
  config: ServiceConfig,
  displayName = 'Ada',
): Promise<{ studioId: string; accountId: string; auth: Record<string, string> }> {
  const adminToken = await tokenFor(config, 'STUDIO_OPERATOR', 'admin');
  const res = await call(admin, 'POST', '/api/admin/accounts', {
    body: { displayName },
    headers: { Authorization: `Bearer ${adminToken}` },
  });
  if (res.status !== 201) throw new Error(`account creation: ${res.status} ${JSON.stringify(res.body)}`);
  const account = res.body.account as { studioId: string; accountId: string };
  return { ...account, auth: { Authorization: `Bearer ${await tokenFor(config, account.studioId)}` } };
}

/** The headers of a game server's token (role `server`) under `config`. */
export async function serverAuth(config: ServiceConfig): Promise<Record<string, string>> {
  return { Authorization: `Bearer ${await tokenFor(config, 'STUDIO_GAME_SERVER', 'server')}` };
}

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;
const ajv = addFormats(new Ajv2020({ allErrors: true, strict: true }));
for (const folder of ['requests', 'responses']) {
  const dir = join(PROJECT_ROOT, 'schemas', folder);
  for (const f of readdirSync(dir).filter((n) => n.endsWith('.schema.json')))
    ajv.addSchema(JSON.parse(readFileSync(join(dir, f), 'utf8')) as object);
}

/** Errors of `value` against `schemas/responses/<name>.schema.json` (an empty list when it matches). */
export function responseErrors(name: string, value: unknown): unknown[] {
  const validate = ajv.getSchema(`https://schemas.game-data.dev/responses/${name}.schema.json`);
  if (!validate) throw new Error(`No response schema ${name}`);
  return validate(value) ? [] : (validate.errors ?? []);
}
