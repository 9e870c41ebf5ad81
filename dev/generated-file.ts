/**
 * The command line of a generated, committed file (`npm run routes`, `npm run validators`): write the file
 * from its source, or with `--check` write nothing and exit 1 when it differs (for CI and hooks).
 * `--help` prints the usage and exits 0 before the file is rendered (dev/cli.ts).
 * Exit codes: 0 written or up to date, 1 out of date (`--check`), 2 bad arguments.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { PROJECT_ROOT } from '../api/_lib/config.js';

/** What a generator's command line needs. */
export interface GeneratedFile {
  /** The file, relative to the project root (e.g. `vercel.json`). */
  readonly file: string;
  /** What it is generated from, for messages (e.g. `the route table`). */
  readonly source: string;
  /** The npm script that writes it (e.g. `routes`). */
  readonly script: string;
  /** The file's text as it must be; not called for `--help`. */
  readonly render: () => string;
}

/**
 * Run the command line over `argv` (arguments after the script name); messages go to stdout/stderr.
 * @returns the exit code.
 */
export function generatedFileCli(argv: readonly string[], g: GeneratedFile): number {
  const usage =
    `Usage: npm run ${g.script} [-- --check]\n\nWrites ${g.file} from ${g.source}.\n\nOptions:\n` +
    `  --check     write nothing; exit 1 when ${g.file} differs from ${g.source}\n  -h, --help  print this help\n\n` +
    `Example:\n  npm run ${g.script} -- --check\n`;
  let check: boolean;
  try {
    const { values } = parseArgs({
      args: [...argv],
      options: { check: { type: 'boolean', default: false }, help: { type: 'boolean', short: 'h', default: false } },
      strict: true,
    });
    if (values.help) {
      process.stdout.write(usage);
      return 0;
    }
    check = values.check;
  } catch (e) {
    process.stderr.write(`${(e as Error).message}\n${usage}`);
    return 2;
  }
  const path = join(PROJECT_ROOT, g.file);
  const want = g.render();
  let have = '';
  try {
    have = readFileSync(path, 'utf8');
  } catch {
    // a missing file is out of date
  }
  if (have === want) {
    process.stdout.write(`${g.file} is up to date with ${g.source}.\n`);
    return 0;
  }
  if (check) {
    process.stderr.write(`${g.file} differs from ${g.source}; run \`npm run ${g.script}\`.\n`);
    return 1;
  }
  writeFileSync(path, want);
  process.stdout.write(`${g.file} written from ${g.source}.\n`);
  return 0;
}
