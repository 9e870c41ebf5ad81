/**
 * `npm run build [-- --src DIR] [--out DIR] [--config FILE] [--report FILE] [--previous URL|DIR] [--no-site] [--quiet]`
 * . The only place of the build that touches argv, stdout/stderr and the exit code.
 *
 * Defaults: `--src catalog-src`, `--out dist`, `--config <src>/catalog.config.json`,
 * `--report <out>-report.json`, `--previous` the catalog config's `previousBuild` (else the output folder
 * replaced; `build/pipeline/previous.ts`); the static site page is built unless `--no-site`. `--help`
 * prints the usage (dev/cli.ts). Progress: one updating line on a terminal, stage lines otherwise.
 * `--quiet`: no progress and no problem lines, one summary line with the counts and the report file that
 * lists every problem (the lines of the errors still follow when the build fails).
 * Exit codes: 0 built (warnings allowed), 1 errors in the catalog (previous output untouched),
 * 2 unusable invocation or config, or a previous build that cannot be read, 3 an internal failure: the build stopped on an error of its own or of
 * the machine (an unwritable output folder, a defect), printed with its stack; the previous output is
 * untouched, since emit swaps the new output in only at the very end.
 *
 * Every problem is printed as `file:line:column  /json/pointer  message  [rule severity]`,
 * followed by a summary line (files, records, outputs, warnings, errors, seconds).
 */
import { parseArgs } from 'node:util';
import { relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import { buildCatalog, CatalogConfigError, type BuildReport, type ProgressEvent } from './pipeline/index.js';
import { PreviousBuildError } from './pipeline/previous.js';

/** Usage of `npm run build`, printed by `--help` and after a bad argument. */
export const BUILD_USAGE = `Usage: npm run build [-- --src DIR] [--out DIR] [--config FILE] [--report FILE] [--previous URL|DIR] [--no-site] [--quiet]

Validates the catalog source and writes the published output (static files, indexes, change feed,
site). Errors leave the previous output untouched.

Options:
  --src DIR          catalog source folder (default catalog-src)
  --out DIR          output folder (default dist)
  --config FILE      catalog config (default <src>/catalog.config.json)
  --report FILE      machine-readable report of every problem (default <out>-report.json)
  --previous URL|DIR the previous published build for the change feed: the deployed site's base URL
                     or a folder (default the config's previousBuild, else the output folder replaced)
  --no-site          skip the catalog browser and API reference pages
  --quiet            one summary line (counts and the report file) instead of progress and problems
  -h, --help         print this help

Example:
  npm run build -- --src ../studio-catalog --previous https://game.example.com --quiet
`;

/** Parsed command-line options of the build. */
interface CliOptions {
  readonly src: string;
  readonly out: string;
  readonly config?: string;
  readonly report?: string;
  readonly site: boolean;
  readonly quiet: boolean;
  readonly previous?: string;
}

/**
 * The options that name a catalog, shared by the build (`npm run build`) and the local server
 * (`npm start`): `--src` (default `catalog-src`), `--out` (default `dist`), `--config` (default
 * `<src>/catalog.config.json`). Shapes are node:util `parseArgs` option descriptors.
 */
export const CATALOG_ARGS = {
  src: { type: 'string', default: 'catalog-src' },
  out: { type: 'string', default: 'dist' },
  config: { type: 'string' },
} as const;

/**
 * Parse build arguments.
 * @throws TypeError for unknown options or missing values (node:util parseArgs).
 */
function parseCliArgs(argv: readonly string[]): CliOptions {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      ...CATALOG_ARGS,
      report: { type: 'string' },
      previous: { type: 'string' },
      'no-site': { type: 'boolean', default: false },
      quiet: { type: 'boolean', default: false },
    },
    allowPositionals: false,
    strict: true,
  });
  return {
    src: values.src,
    out: values.out,
    ...(values.config ? { config: values.config } : {}),
    ...(values.report ? { report: values.report } : {}),
    ...(values.previous ? { previous: values.previous } : {}),
    site: !values['no-site'],
    quiet: values.quiet,
  };
}

/** A progress printer: one updating line on a terminal, plain stage lines otherwise. */
export function progressPrinter(stream: NodeJS.WriteStream = process.stderr): (e: ProgressEvent) => void {
  const t0 = performance.now();
  return (e) => {
    const line = `[build] ${e.stage.padEnd(8)} files ${String(e.files).padStart(5)}  records ${String(e.records).padStart(7)}  ${((performance.now() - t0) / 1000).toFixed(2)}s`;
    if (stream.isTTY) stream.write(`\r\x1b[2K${line}${e.stage === 'done' ? '\n' : ''}`);
    else stream.write(line + '\n');
  };
}

/** Format one problem as `file:line:column  /pointer  message  [rule severity]`. */
export function formatIssue(i: BuildReport['issues'][number]): string {
  return `${i.file}:${i.line}:${i.column}  ${i.pointer || '/'}  ${i.message}  [${i.rule} ${i.severity}]`;
}

/**
 * Print every problem and the closing summary. `off` problems are printed only with `verbose`; with
 * `quiet`, only the errors of a failed build and the summary (which names the report file).
 */
export function printReport(report: BuildReport, out: NodeJS.WritableStream = process.stdout, verbose = false, quiet = false): void {
  for (const i of report.issues)
    if (quiet ? !report.ok && i.severity === 'error' : verbose || i.severity !== 'off') out.write(formatIssue(i) + '\n');
  const s = report.stats;
  const where = relative(process.cwd(), report.out) || '.';
  out.write(
    `${report.ok ? 'Built' : 'Build failed'}: ${s.files} files, ${s.records} records, ${s.outputs} outputs, ${s.warnings} warnings, ${s.errors} errors` +
      (s.off ? ` (${s.off} more under rules switched off)` : '') +
      ` in ${s.seconds.toFixed(2)} s` +
      (report.ok ? ` → ${where} (build ${report.buildId})` : ` — ${where} left untouched`) +
      (report.reportFile ? `; report ${relative(process.cwd(), report.reportFile)}` : '') +
      '\n',
  );
}

/** Run the CLI; resolves to the exit code. */
export async function main(argv: readonly string[]): Promise<number> {
  // `--help` anywhere before `--` (the convention of dev/cli.ts, which the build may not import)
  const end = argv.indexOf('--');
  if ((end < 0 ? argv : argv.slice(0, end)).some((a) => a === '--help' || a === '-h')) {
    process.stdout.write(BUILD_USAGE);
    return 0;
  }
  let opts: CliOptions;
  try {
    opts = parseCliArgs(argv);
  } catch (e) {
    process.stderr.write(`${(e as Error).message}\n${BUILD_USAGE}`);
    return 2;
  }
  try {
    const report = await buildCatalog({
      src: opts.src,
      out: opts.out,
      ...(opts.config ? { config: opts.config } : {}),
      ...(opts.report ? { reportFile: opts.report } : {}),
      ...(opts.previous ? { previous: opts.previous } : {}),
      site: opts.site,
      ...(opts.quiet ? {} : { onProgress: progressPrinter() }),
    });
    printReport(report, process.stdout, false, opts.quiet);
    return report.ok ? 0 : 1;
  } catch (e) {
    if (e instanceof CatalogConfigError || e instanceof PreviousBuildError) {
      process.stderr.write(e.message + '\n');
      return 2;
    }
    return internalFailure(e);
  }
}

/** Exit code of an internal failure (module header). */
export const EXIT_INTERNAL = 3;

/** Report a failure of the build itself (not of the catalog, not of the arguments); resolves to {@link EXIT_INTERNAL}. */
function internalFailure(e: unknown, err: NodeJS.WritableStream = process.stderr): number {
  const detail = e instanceof Error ? (e.stack ?? `${e.name}: ${e.message}`) : String(e);
  err.write(
    `Internal build failure: the build stopped on an error of its own or of the machine, not of the catalog or the arguments; nothing was published.\n${detail}\n`,
  );
  return EXIT_INTERNAL;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  // exitCode, not exit(): a piped stdout must drain before the process ends.
  main(process.argv.slice(2)).then(
    (code) => {
      process.exitCode = code;
    },
    (e: unknown) => {
      process.exitCode = internalFailure(e);
    },
  );
}
