/**
 * `vercel.json`, rendered from the route table (`api/_lib/routing/table.ts`) and the per-entry bundles
 * (`api/_lib/routing/bundles.ts`). `npm run routes` writes it; `test/api/routing.test.ts` fails when the
 * committed file differs from {@link renderVercelConfig}. Nothing in `vercel.json` is edited by hand.
 *
 * - `rewrites`: one per public route whose entry file exists (spec 4.1-4.8 paths → `/api/<entry>`).
 * - `functions`: one block per entry file with `includeFiles` (only the catalog files its routes read,
 *   plus the request schemas it validates bodies with) and `maxDuration` (seconds).
 * - `crons`: the Vercel Cron jobs of {@link CRON_JOBS}, each the path of a route whose `GET` has the `cron`
 *   access (Vercel sends `Authorization: Bearer <CRON_SECRET>`; docs/architecture.md, "Scheduled verification").
 * - `redirects`: `/docs` → `/docs/`, the API reference page (`site/docs/`), and `/admin` → `/admin/`, the
 *   operator console (`site/admin/`).
 * - `headers`: static catalog files (`/api/v1/**`, spec 4.1), the OpenAPI document and published schemas get CORS,
 *   `Cache-Control: public, max-age=300` for clients and the same `CDN-Cache-Control` for the edge
 *   (spec 4.2, 8; Vercel would turn an `s-maxage` into `max-age=0, must-revalidate` for browsers). The operator
 *   console's pages (`/admin/…`) may not be framed by another page, send no referrer and are not indexed
 *   ({@link CONSOLE_HEADERS}; docs/architecture.md, "Operator console").
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { accessOf, ENTRIES, ROUTES, vercelRewrites, type EntryName } from '../api/_lib/routing/table.js';
import { ENTRY_CATALOG_FILES, ENTRY_PROJECT_FILES } from '../api/_lib/routing/bundles.js';
import { CACHE_MAX_AGE_S } from '../api/_lib/http/respond.js';
import { PROJECT_ROOT } from '../api/_lib/config.js';

/** Output folder of the catalog build on Vercel (`outputDirectory`). */
export const OUTPUT_DIRECTORY = 'dist';
/** Longest run of one function invocation, seconds. */
export const MAX_DURATION_S = 10;

/** Longest `includeFiles` value Vercel accepts (its functions schema: a string of at most 256 characters). */
export const INCLUDE_FILES_MAX_CHARS = 256;

/**
 * One glob for `includeFiles` (Vercel takes a single string): the pattern itself, or the patterns' common
 * folder and extension around a brace list of what differs, e.g. `dist/api/v1/{a,b,c/*}.json`.
 * @throws Error when the result is longer than {@link INCLUDE_FILES_MAX_CHARS} (split the entry's files).
 */
export function globOf(patterns: readonly string[]): string {
  if (patterns.length === 1) return patterns[0]!;
  let dir = patterns[0]!.slice(0, patterns[0]!.lastIndexOf('/') + 1);
  while (!patterns.every((p) => p.startsWith(dir))) dir = dir.slice(0, dir.slice(0, -1).lastIndexOf('/') + 1);
  const ext = patterns.every((p) => p.endsWith('.json')) ? '.json' : '';
  const parts = patterns.map((p) => p.slice(dir.length, p.length - ext.length));
  const glob = `${dir}{${parts.join(',')}}${ext}`;
  if (glob.length > INCLUDE_FILES_MAX_CHARS)
    throw new Error(`includeFiles glob is ${glob.length} characters, more than Vercel's ${INCLUDE_FILES_MAX_CHARS}: ${glob}`);
  return glob;
}

/**
 * The scheduled calls: a route of the table (entry and name) and a cron expression (UTC, five fields; the
 * Hobby plan runs a job at most once a day). The ledger check runs daily at 04:17 UTC, off the hour.
 */
export const CRON_JOBS: readonly { readonly entry: EntryName; readonly route: string; readonly schedule: string }[] = Object.freeze([
  { entry: 'admin', route: 'ledger-verify', schedule: '17 4 * * *' },
]);

/**
 * The `crons` of `vercel.json`: the public path of each job's route.
 * @throws Error for a job whose route is not in the table, has a `{key}`, or whose `GET` is not of the `cron` access
 */
export function vercelCrons(jobs: typeof CRON_JOBS = CRON_JOBS): { path: string; schedule: string }[] {
  return jobs.map((job) => {
    const route = ROUTES.find((r) => r.entry === job.entry && r.name === job.route);
    if (!route || route.path.includes('{') || !route.methods.includes('GET') || accessOf(route, 'GET') !== 'cron')
      throw new Error(`Cron job ${job.entry}/${job.route} names no keyless route whose GET has the cron access.`);
    return { path: route.path, schedule: job.schedule };
  });
}

/** Headers of the operator console's pages: never framed (clickjacking), no referrer, not indexed. */
export const CONSOLE_HEADERS: readonly { readonly key: string; readonly value: string }[] = Object.freeze([
  { key: 'Content-Security-Policy', value: "frame-ancestors 'none'" },
  { key: 'X-Frame-Options', value: 'DENY' },
  { key: 'Referrer-Policy', value: 'no-referrer' },
  { key: 'X-Robots-Tag', value: 'noindex, nofollow' },
  { key: 'X-Content-Type-Options', value: 'nosniff' },
]);

/** True when `api/<entry>.ts` exists under `root`. */
export function entryFileExists(entry: EntryName, root: string = PROJECT_ROOT): boolean {
  return existsSync(join(root, 'api', `${entry}.ts`));
}

/** The whole `vercel.json` object, in a stable key order. */
export function renderVercelConfig(root: string = PROJECT_ROOT): Record<string, unknown> {
  const cache = `public, max-age=${CACHE_MAX_AGE_S}`;
  const staticHeaders = [
    { key: 'Access-Control-Allow-Origin', value: '*' },
    { key: 'Cache-Control', value: cache },
    { key: 'CDN-Cache-Control', value: cache },
    { key: 'X-Content-Type-Options', value: 'nosniff' },
  ];
  const exists = (e: EntryName): boolean => entryFileExists(e, root);
  const functions: Record<string, unknown> = {};
  for (const entry of ENTRIES.filter(exists)) {
    const files = [...ENTRY_CATALOG_FILES[entry].map((f) => `${OUTPUT_DIRECTORY}/${f}`), ...ENTRY_PROJECT_FILES[entry]];
    // an entry that reads no file besides its imports has no includeFiles
    functions[`api/${entry}.ts`] = { ...(files.length > 0 ? { includeFiles: globOf(files) } : {}), maxDuration: MAX_DURATION_S };
  }
  return {
    $schema: 'https://openapi.vercel.sh/vercel.json',
    framework: null,
    buildCommand: 'npm run build',
    outputDirectory: OUTPUT_DIRECTORY,
    cleanUrls: false,
    functions,
    headers: [
      { source: '/api/v1/(.*)', headers: staticHeaders },
      { source: '/api/openapi.json', headers: staticHeaders },
      { source: '/schemas/(.*)', headers: staticHeaders },
      { source: '/admin/(.*)', headers: [...CONSOLE_HEADERS] },
      // a versioned copy never changes once written (`api/_lib/formats/changes.ts`)
      {
        source: '/v/(.*)',
        headers: staticHeaders.map((h) =>
          h.key.endsWith('Cache-Control') ? { key: h.key, value: 'public, max-age=31536000, immutable' } : h,
        ),
      },
    ],
    redirects: [
      { source: '/docs', destination: '/docs/', permanent: true },
      { source: '/admin', destination: '/admin/', permanent: true },
    ],
    rewrites: vercelRewrites(exists),
    crons: vercelCrons(),
  };
}

/** `vercel.json`'s text: {@link renderVercelConfig} as two-space JSON with a final newline. */
export function renderVercelJson(root: string = PROJECT_ROOT): string {
  return JSON.stringify(renderVercelConfig(root), null, 2) + '\n';
}
