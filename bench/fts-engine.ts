/**
 * The engine beyond one function (docs/architecture.md, "Scale", "At 1,000,000 records"): the search
 * records of a catalog source folder in an SQLite FTS5 table through `@libsql/client` (a file database,
 * as Turso would hold it), with the index build time, the file size, p50/p99 of prefix queries for the
 * top 50, and a new connection's first query.
 *
 * Standalone, not part of `npm run bench` (it needs a large source folder):
 * `npx tsx bench/generate.ts .tmp/gen-1m 1000000 && npx tsx bench/fts-engine.ts .tmp/gen-1m [queries=200]`.
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { createClient } from '@libsql/client';
import { extractRecords } from './records.js';
import { quantile } from './stats.js';

const WORDS = ['blood', 'wraith', 'iron ingot', 'frost', 'dusk blade', 'mith', 'storm', 'vengeful slash'];

/** Markdown lines for the catalog source folder `src`. */
export async function run(src: string, queries = 200): Promise<string> {
  const records = extractRecords(src);
  const dir = mkdtempSync(join(tmpdir(), 'fts-engine-'));
  const file = join(dir, 'catalog.db');
  try {
    const db = createClient({ url: pathToFileURL(file).href });
    let t = performance.now();
    await db.execute(
      "CREATE VIRTUAL TABLE items USING fts5(name, id UNINDEXED, type UNINDEXED, tokenize = 'unicode61 remove_diacritics 2', prefix = '2 3')",
    );
    const tx = await db.transaction('write');
    for (let i = 0; i < records.length; i += 5000) {
      await tx.batch(
        records
          .slice(i, i + 5000)
          .map((r) => ({ sql: 'INSERT INTO items (name, id, type) VALUES (?, ?, ?)', args: [r.name, r.id, r.type] })),
      );
    }
    await tx.commit();
    const buildS = (performance.now() - t) / 1000;
    const times: number[] = [];
    for (let k = 0; k < queries; k++) {
      const match = WORDS[k % WORDS.length]!.split(' ')
        .map((w) => `"${w}"*`)
        .join(' ');
      t = performance.now();
      await db.execute({ sql: 'SELECT id, name, type FROM items WHERE items MATCH ? ORDER BY rank LIMIT 50', args: [match] });
      times.push(performance.now() - t);
    }
    db.close();
    times.sort((a, b) => a - b);
    t = performance.now();
    const cold = createClient({ url: pathToFileURL(file).href });
    await cold.execute({ sql: 'SELECT id FROM items WHERE items MATCH ? ORDER BY rank LIMIT 50', args: ['"frost"*'] });
    const firstMs = performance.now() - t;
    cold.close();
    return [
      '| records | FTS5 build s | database MB | query p50 ms | query p99 ms | new connection, first query ms |',
      '|---:|---:|---:|---:|---:|---:|',
      `| ${records.length} | ${buildS.toFixed(1)} | ${(statSync(file).size / 1e6).toFixed(0)} | ${quantile(times, 0.5).toFixed(1)} | ${quantile(times, 0.99).toFixed(1)} | ${firstMs.toFixed(1)} |`,
    ].join('\n');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const [src, queries] = process.argv.slice(2);
  if (!src) {
    process.stderr.write('usage: npx tsx bench/fts-engine.ts <catalog source folder> [queries]\n');
    process.exit(2);
  }
  process.stdout.write((await run(resolve(src), queries ? Number(queries) : undefined)) + '\n');
}
