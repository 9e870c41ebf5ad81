/**
 * `npm run routes [-- --check]`: write `vercel.json` from the route table (see `dev/vercel-config.ts`).
 * With `--check`, write nothing and exit 1 when the file differs from the table (for CI and hooks).
 * Exit codes: 0 written or up to date, 1 out of date (`--check`), 2 bad arguments.
 */
import { generatedFileCli } from './generated-file.js';
import { renderVercelJson } from './vercel-config.js';

process.exitCode = generatedFileCli(process.argv.slice(2), {
  file: 'vercel.json',
  source: 'the route table',
  script: 'routes',
  render: renderVercelJson,
});
