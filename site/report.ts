/**
 * The build report view's logic, pure: the problems of the last build (`/api/v1/build-report.json`, format
 * `build-report/1`, `api/_lib/formats/build-report.ts`) filtered by severity and rule and grouped by source
 * file, for authors (spec §9.1: a problem names the file, the line, the JSON pointer and the rule).
 */
import type { ReportIssue, ReportSeverity } from '../api/_lib/formats/build-report.js';

/** The severities, most severe first. */
export const SEVERITIES: readonly ReportSeverity[] = ['error', 'warn', 'off'];

/** Filter of the report view: a severity and a rule, `''` meaning every one. */
export interface ReportFilter {
  readonly severity: ReportSeverity | '';
  readonly rule: string;
}

/** The problems of one source file, in line then column order. */
export interface FileGroup {
  readonly file: string;
  readonly issues: readonly ReportIssue[];
  /** Count per severity within the group. */
  readonly counts: Readonly<Record<ReportSeverity, number>>;
}

const byCodeUnits = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/**
 * The problems that pass `filter`, grouped by file (files sorted by path in code-unit order; within a file by
 * line, then column, then rule). An empty filter member keeps every value.
 */
export function groupIssues(issues: readonly ReportIssue[], filter: ReportFilter): FileGroup[] {
  const groups = new Map<string, ReportIssue[]>();
  for (const i of issues) {
    if (filter.severity !== '' && i.severity !== filter.severity) continue;
    if (filter.rule !== '' && i.rule !== filter.rule) continue;
    let list = groups.get(i.file);
    if (!list) groups.set(i.file, (list = []));
    list.push(i);
  }
  return [...groups.entries()]
    .sort(([a], [b]) => byCodeUnits(a, b))
    .map(([file, list]) => {
      const sorted = [...list].sort((a, b) => a.line - b.line || a.column - b.column || byCodeUnits(a.rule, b.rule));
      return { file, issues: sorted, counts: severityCounts(sorted) };
    });
}

/** How many problems there are of each severity. */
export function severityCounts(issues: readonly ReportIssue[]): Record<ReportSeverity, number> {
  const c: Record<ReportSeverity, number> = { error: 0, warn: 0, off: 0 };
  for (const i of issues) c[i.severity] += 1;
  return c;
}

/**
 * The distinct rules of the problems of severity `severity` (`''`: of all problems), with how many problems
 * each has, sorted by rule name. These are the choices of the rule filter.
 */
export function ruleCounts(issues: readonly ReportIssue[], severity: ReportSeverity | '' = ''): [rule: string, count: number][] {
  const c = new Map<string, number>();
  for (const i of issues) if (severity === '' || i.severity === severity) c.set(i.rule, (c.get(i.rule) ?? 0) + 1);
  return [...c.entries()].sort(([a], [b]) => byCodeUnits(a, b));
}

/** Where a problem sits, for reading: `line:column`, then the pointer (`/` for the whole file when it is empty). */
export function issuePlace(issue: ReportIssue): string {
  return `${issue.line}:${issue.column}`;
}

/** The pointer of a problem as shown: the RFC 6901 pointer, or `(whole file)` when it is empty. */
export function issuePointer(issue: ReportIssue): string {
  return issue.pointer === '' ? '(whole file)' : issue.pointer;
}
