/**
 * The published build report (`api/v1/build-report.json`, schema `schemas/output/build-report.schema.json`):
 * every problem of the build that produced the output, for the catalog browser's report view and for any
 * author tool (spec §9.1: errors name the file, the JSON pointer and the line). Pure: the shape and its
 * derivation from the pipeline's report; the build writes it (`build/pipeline/index.ts`).
 *
 * - Only a successful build publishes (a failed build publishes nothing), so the file on a CDN always has
 *   `ok: true`; the local server (`npm start`) answers the same path with a failed build's report while it
 *   serves the previous output (`dev/server.ts`).
 * - It holds no absolute path and no timing, so two builds of the same input write the same bytes
 *   (docs/architecture.md, "Build").
 * - Problems under rules switched off by the catalog config are listed with severity `off`.
 */

/** Format tag of the published build report. */
export const BUILD_REPORT_FORMAT = 'build-report/1';

/** Path of the published build report, beside the manifest. */
export const BUILD_REPORT_FILE = 'api/v1/build-report.json';

/** Severity of a problem as the catalog config sets it. */
export type ReportSeverity = 'error' | 'warn' | 'off';

/** One problem: source file (relative to the catalog folder, `/` separators), 1-based line and column, RFC 6901 pointer ('' = whole file), rule, severity, message. */
export interface ReportIssue {
  readonly file: string;
  readonly line: number;
  readonly column: number;
  readonly pointer: string;
  readonly rule: string;
  readonly severity: ReportSeverity;
  readonly message: string;
}

/** Counts of the build: source files read, records found, files written, problems per severity (`off`: under rules switched off, listed, not counted as warnings). */
export interface ReportStats {
  readonly files: number;
  readonly records: number;
  readonly outputs: number;
  readonly errors: number;
  readonly warnings: number;
  readonly off: number;
}

/** The published build report. */
export interface PublishedBuildReport {
  readonly format: typeof BUILD_REPORT_FORMAT;
  /** False only for a failed build's report served by the local server. */
  readonly ok: boolean;
  /** The build id (20 hex digits), null for a failed build. */
  readonly buildId: string | null;
  readonly stats: ReportStats;
  /** Every problem, in the pipeline's order (file, line, column, rule). */
  readonly issues: readonly ReportIssue[];
}

/** What {@link publishedBuildReport} reads of the pipeline's report (extra members are ignored). */
export interface BuildOutcome {
  readonly ok: boolean;
  readonly buildId: string | null;
  readonly stats: ReportStats;
  readonly issues: readonly ReportIssue[];
}

/**
 * The published form of a build's outcome: the fixed members only, in a fixed order (no paths of the
 * build machine, no timing).
 */
export function publishedBuildReport(outcome: BuildOutcome): PublishedBuildReport {
  const s = outcome.stats;
  return {
    format: BUILD_REPORT_FORMAT,
    ok: outcome.ok,
    buildId: outcome.buildId,
    stats: { files: s.files, records: s.records, outputs: s.outputs, errors: s.errors, warnings: s.warnings, off: s.off },
    issues: outcome.issues.map((i) => ({
      file: i.file,
      line: i.line,
      column: i.column,
      pointer: i.pointer,
      rule: i.rule,
      severity: i.severity,
      message: i.message,
    })),
  };
}
