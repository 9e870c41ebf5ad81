/**
 * Store round trips per request of the stateful routes on Redis (docs/architecture.md, "Stores are ports
 * with adapters"): each route is called through its entry's handler, with the production client path
 * (`@upstash/redis` over REST, to the local Upstash REST stand-in in front of a real `redis-server`), and
 * the stand-in counts the HTTP requests each call makes. A request is measured after a warm-up request of
 * the same route (scripts in the server's cache, the token verified, the caller's account resolved), as a
 * game client or server sends them all day: the target is at most 2 round trips of the stores.
 *
 * The throttle's calls (`api/_lib/throttle/`, keys `throttle:…`) are counted apart: a write's budgets are
 * consulted together, concurrently, before the write (one round trip of waiting however many there are).
 *
 * `npx tsx bench/round-trips.ts` prints the table alone; `npm run bench` runs it in its "Ledger" part.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { loadServiceConfig, useServiceConfig } from '../api/_lib/config.js';
import { mintToken } from '../api/_lib/auth/tokens.js';
import { buildCatalog } from '../build/pipeline/index.js';
import { startRedis } from '../test/helpers/redis.js';
import { startUpstashRest } from '../test/helpers/upstash-rest.js';

const SECRET = 'bench-secret-0123456789-abcdefghijklmnop';
/** Measured requests per route (after the warm-up one). */
const RUNS = 20;
/** Most round trips a measured request may take. */
export const ROUND_TRIP_TARGET = 2;

type Entry = { [m in 'GET' | 'POST' | 'PATCH']: (r: Request) => Promise<Response> };

/** One route's measure: its round trips per request (the mean of {@link RUNS} requests, and the most). */
interface Measure {
  readonly route: string;
  readonly mean: number;
  readonly max: number;
  /** The throttle's calls per request (concurrent with one another), the most of the runs. */
  readonly throttle: number;
  /** Whether the route has the target. */
  readonly targeted: boolean;
}

/** The first id of `list` whose string member `field` starts with `prefix` and passes `keep`. */
function firstId(file: string, member: string, prefix: string, keep: (r: Record<string, unknown>) => boolean = () => true): string {
  const raw = JSON.parse(readFileSync(file, 'utf8')) as Record<string, Record<string, unknown>[]>;
  const hit = (raw[member] ?? []).find((r) => typeof r.uuid === 'string' && r.uuid.startsWith(prefix) && keep(r));
  if (!hit) throw new Error(`No ${prefix} id in ${file}`);
  return hit.uuid as string;
}

/** Run every route and measure it. */
export async function measure(): Promise<Measure[]> {
  const dir = mkdtempSync(join(tmpdir(), 'round-trips-'));
  const redis = await startRedis();
  const rest = await startUpstashRest(redis.url);
  try {
    const catalog = join(dir, 'dist');
    const report = await buildCatalog({
      src: join(import.meta.dirname, '..', 'catalog-src'),
      out: catalog,
      site: false,
      reportFile: false,
    });
    if (!report.ok) throw new Error('The sample catalog did not build.');
    const config = loadServiceConfig({
      CATALOG_DIR: catalog,
      STORE_DRIVER: 'redis',
      UPSTASH_REDIS_REST_URL: rest.url,
      UPSTASH_REDIS_REST_TOKEN: rest.token,
      JWT_SECRET: SECRET,
    });
    useServiceConfig(config);
    const wallet = (await import('../api/wallet.js')) as Entry;
    const admin = (await import('../api/admin.js')) as Entry;
    const player = (await import('../api/player.js')) as Entry;
    const token = (subject: string, role: 'admin' | 'server' | 'player') => mintToken(config.jwt, { subject, role });
    const adminAuth = `Bearer ${await token('STUDIO_OPERATOR', 'admin')}`;
    const serverAuth = `Bearer ${await token('STUDIO_SERVER', 'server')}`;
    const call = async (
      entry: Entry,
      method: 'GET' | 'POST' | 'PATCH',
      path: string,
      auth: string,
      body?: unknown,
      headers: Record<string, string> = {},
    ) => {
      const res = await entry[method](
        new Request(`http://bench${path}`, {
          method,
          headers: { Authorization: auth, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }), ...headers },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        }),
      );
      const text = await res.text();
      if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${text}`);
      return { res, json: JSON.parse(text) as Record<string, unknown> };
    };
    const made = await call(admin, 'POST', '/api/admin/accounts', adminAuth, { displayName: 'Round Trips' });
    const { studioId } = made.json.account as { studioId: string };
    const playerAuth = `Bearer ${await token(studioId, 'player')}`;
    const material = firstId(join(catalog, 'api/v1/master-materials.json'), 'materials', 'MATL-');
    const item = firstId(join(catalog, 'api/v1/canonical-items-manifest.json'), 'items', 'ITEM-', (r) => r.kind !== 'consumable');

    let revision = Number((await call(player, 'GET', '/api/island/state', playerAuth)).json.revision);
    const routes: [string, boolean, (i: number) => Promise<unknown>][] = [
      [
        'POST /api/wallet/verify-send-to-account',
        true,
        (i) =>
          call(wallet, 'POST', '/api/wallet/verify-send-to-account', adminAuth, {
            studioId,
            amount: 1,
            purpose: 'test',
            idempotencyKey: `rt-send-${i}-000`,
          }),
      ],
      [
        'PATCH /api/island/state',
        true,
        async (i) => {
          const out = await call(
            player,
            'PATCH',
            '/api/island/state',
            playerAuth,
            { campPosition: { x: i, z: 0 } },
            { 'If-Match': `"${revision}"` },
          );
          revision = Number(out.json.revision);
        },
      ],
      [
        'POST /api/inventory/grant',
        true,
        (i) =>
          call(player, 'POST', '/api/inventory/grant', serverAuth, {
            studioId,
            definitionId: material,
            quantity: 1,
            idempotencyKey: `rt-grant-${i}-00`,
          }),
      ],
      [
        'POST /api/uuid',
        true,
        (i) => call(player, 'POST', '/api/uuid', serverAuth, { studioId, definitionId: item, idempotencyKey: `rt-mint-${i}-000` }),
      ],
      ['GET /api/wallet/overview', false, () => call(wallet, 'GET', '/api/wallet/overview', playerAuth)],
      ['GET /api/island/state', false, () => call(player, 'GET', '/api/island/state', playerAuth)],
      ['GET /api/inventory', false, () => call(player, 'GET', '/api/inventory', playerAuth)],
    ];
    const out: Measure[] = [];
    for (const [route, targeted, run] of routes) {
      await run(0);
      const counts: number[] = [];
      let throttle = 0;
      for (let i = 1; i <= RUNS; i++) {
        const before = rest.requests.length;
        await run(i);
        const made = rest.requests.slice(before);
        const throttled = made.filter((r) => JSON.stringify(r.body).includes('"throttle:')).length;
        counts.push(made.length - throttled);
        throttle = Math.max(throttle, throttled);
      }
      out.push({ route, mean: counts.reduce((a, b) => a + b, 0) / counts.length, max: Math.max(...counts), throttle, targeted });
    }
    return out;
  } finally {
    useServiceConfig(undefined);
    await rest.close();
    await redis.destroy();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The markdown section: a row per route, the targeted ones marked met or MISSED. */
export async function run(): Promise<string> {
  const rows = await measure();
  const lines = [
    '### Store round trips per request (Redis over REST)',
    '',
    `Each route through its entry's handler, ${RUNS} requests after one warm-up request, counted at the Upstash REST stand-in. Target: at most ${ROUND_TRIP_TARGET} store round trips for the writes. The throttle's calls are counted apart: they run concurrently, before the write.`,
    '',
    '| route | store round trips (mean) | most | target | throttle calls |',
    '|---|---:|---:|---|---:|',
    ...rows.map(
      (r) =>
        `| ${r.route} | ${r.mean.toFixed(2)} | ${r.max} | ${r.targeted ? (r.max <= ROUND_TRIP_TARGET ? `≤ ${ROUND_TRIP_TARGET}: met` : `≤ ${ROUND_TRIP_TARGET}: MISSED`) : '—'} | ${r.throttle} |`,
    ),
  ];
  return lines.join('\n');
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  process.stdout.write((await run()) + '\n');
  process.exit(0);
}
