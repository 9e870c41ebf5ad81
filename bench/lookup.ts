/**
 * The player look-up against the raw store reads it is made of (docs/architecture.md, "Player look-up"):
 * an account with 10,000 wallet entries and 1,000 unique items, on the SQLite store and on a real
 * `redis-server` (RESP). "Raw" reads the same records straight from the stores, one call per part in
 * parallel, as the look-up does; "look-up" is `GET /api/admin/players/{studioId}` through its entry's
 * handler (token, routing, JSON answer). Target: the look-up within 3× the raw reads (median of the runs).
 *
 * Run: `npx tsx bench/lookup.ts`, or `npm run bench -- --only=ledger` with the ledger benchmarks.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { mintToken } from '../api/_lib/auth/tokens.js';
import { loadServiceConfig, useServiceConfig } from '../api/_lib/config.js';
import { mintStudioId, mintUuid } from '../api/_lib/ledger/ids.js';
import { ledgerStore } from '../api/_lib/ledger/store.js';
import { playerStore } from '../api/_lib/player/store.js';
import { ERAS } from '../api/_lib/player/types.js';
import { startRedis } from '../test/helpers/redis.js';

/** Wallet entries and unique items of the benchmark's account. */
export const ENTRIES = 10_000;
export const ITEMS = 1_000;
/** Timed runs of each side (after two warm-ups). */
const RUNS = 30;
/** The target: the look-up within this many times the raw reads. */
export const LOOKUP_TARGET = 3;

const SECRET = 'bench-lookup-secret-Zq8Lr3Kd7Wx2Nm5Tp9Vc4';
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

interface Row {
  readonly store: string;
  readonly raw: number;
  readonly lookup: number;
}

type Entry = { GET: (r: Request) => Promise<Response> };

async function measureOn(store: string, env: Record<string, string>): Promise<Row> {
  const config = loadServiceConfig({ JWT_SECRET: SECRET, ...env });
  useServiceConfig(config);
  const ledger = await ledgerStore();
  const player = await playerStore();
  const accountId = mintUuid();
  const studioId = mintStudioId();
  const at = new Date().toISOString();
  const created = await ledger.createAccount({
    account: { accountId, studioId, displayName: 'Bench', userId: mintUuid(), username: `bench:${studioId}`, createdAt: at },
    clientKey: undefined,
    fingerprint: 'bench',
  });
  if (created.status !== 'created') throw new Error(created.status);
  for (let i = 0; i < ENTRIES; i += 100) {
    await Promise.all(
      Array.from({ length: Math.min(100, ENTRIES - i) }, (_, j) =>
        ledger.credit({
          entryId: mintUuid(),
          sourceRef: `admin-grant:bench-${i + j}`,
          kind: 'admin_grant',
          accountId,
          amount: 1 + ((i + j) % 7),
          purpose: 'grant',
          note: `bench grant ${i + j}`,
          actor: 'admin:bench',
          at,
          fingerprint: `f${i + j}`,
        }),
      ),
    );
  }
  for (let i = 0; i < ITEMS; i += 100) {
    await Promise.all(
      Array.from({ length: Math.min(100, ITEMS - i) }, (_, j) => {
        const studioUuid = mintUuid();
        return player.mintItem({
          item: {
            studioUuid,
            definitionId: 'ITEM-BENCH',
            accountId,
            state: 'owned',
            characterId: null,
            seq: 1,
            mintedAt: at,
            updatedAt: at,
          },
          idempotencyKey: `bench-mint-${i + j}`,
          fingerprint: `m${i + j}`,
        });
      }),
    );
  }
  const raw = () =>
    Promise.all([
      ledger.findAccount({ studioId }),
      player.externalLinksOf(accountId),
      ledger.access(accountId),
      ledger.balance(accountId),
      ledger.postings(accountId, { limit: 20, filter: {} }),
      player.bag(accountId),
      player.accountItems(accountId),
      Promise.all(ERAS.map((era) => player.characters(accountId, era))),
      player.findIsland(accountId),
      player.recipes(accountId),
    ]);
  const admin = (await import('../api/admin.js')) as unknown as Entry;
  const auth = `Bearer ${await mintToken(config.jwt, { subject: 'STUDIO_BENCH', role: 'support' })}`;
  const lookup = async () => {
    const res = await admin.GET(new Request(`http://bench/api/admin/players/${studioId}`, { headers: { Authorization: auth } }));
    if (res.status !== 200) throw new Error(`look-up answered ${res.status}`);
    await res.arrayBuffer();
  };
  const time = async (run: () => Promise<unknown>) => {
    const out: number[] = [];
    for (let i = 0; i < RUNS + 2; i++) {
      const t = performance.now();
      await run();
      if (i >= 2) out.push(performance.now() - t);
    }
    return median(out);
  };
  const row = { store, raw: await time(raw), lookup: await time(lookup) };
  await ledger.close();
  await player.close();
  useServiceConfig(undefined);
  return row;
}

/** Both stores' rows. */
export async function measure(): Promise<Row[]> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-lookup-'));
  const redis = await startRedis();
  try {
    return [
      await measureOn('sqlite', { STORE_DRIVER: 'sqlite', DATA_DIR: join(dir, 'data') }),
      await measureOn('redis', { STORE_DRIVER: 'redis', REDIS_URL: redis.url }),
    ];
  } finally {
    await redis.destroy();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The markdown section. */
export async function run(): Promise<string> {
  const rows = await measure();
  return [
    '### Player look-up',
    '',
    `One account with ${ENTRIES.toLocaleString('en')} wallet entries and ${ITEMS.toLocaleString('en')} unique items; median of ${RUNS} runs. Target: the look-up within ${LOOKUP_TARGET}× the raw store reads.`,
    '',
    '| store | raw reads (ms) | look-up (ms) | ratio | target |',
    '|---|---:|---:|---:|---|',
    ...rows.map((r) => {
      const ratio = r.lookup / r.raw;
      return `| ${r.store} | ${r.raw.toFixed(2)} | ${r.lookup.toFixed(2)} | ${ratio.toFixed(2)}× | ${ratio <= LOOKUP_TARGET ? 'met' : 'MISSED'} |`;
    }),
  ].join('\n');
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  process.stdout.write((await run()) + '\n');
  process.exit(0);
}
