// The build report view's logic (site/report.ts): problems of the last build grouped by file and filtered by
// severity and rule. The real input is the sample build's published report (SAMPLE_OUT); orderings are
// checked on problems written out here.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { PublishedBuildReport, ReportIssue } from '../../api/_lib/formats/build-report.js';
import { groupIssues, issuePlace, issuePointer, ruleCounts, severityCounts } from '../../site/report.js';
import { SAMPLE_OUT } from '../helpers/catalog.js';

const issue = (file: string, line: number, column: number, rule: string, severity: ReportIssue['severity'], pointer = ''): ReportIssue => ({
  file,
  line,
  column,
  pointer,
  rule,
  severity,
  message: `${rule} at ${line}:${column}`,
});

const ISSUES: ReportIssue[] = [
  issue('b.json', 9, 1, 'schema/type', 'error', '/items/3/tier'),
  issue('a.json', 4, 7, 'law/unresolved-ref', 'warn', '/recipes/0/materials/1/uuid'),
  issue('b.json', 2, 5, 'schema/required', 'warn', '/items/0'),
  issue('a.json', 4, 2, 'schema/type', 'off', '/x'),
  issue('sub/c.json', 1, 1, 'json/duplicate-key', 'error'),
  issue('b.json', 2, 5, 'law/definition-prefix', 'warn', '/items/0/uuid'),
];

describe('groupIssues', () => {
  it('groups every problem by file (sorted by path), each file by line, column, rule, with its counts', () => {
    const groups = groupIssues(ISSUES, { severity: '', rule: '' });
    expect(groups.map((g) => g.file)).toEqual(['a.json', 'b.json', 'sub/c.json']);
    expect(groups[0]!.issues.map(issuePlace)).toEqual(['4:2', '4:7']);
    expect(groups[1]!.issues.map((i) => [issuePlace(i), i.rule])).toEqual([
      ['2:5', 'law/definition-prefix'],
      ['2:5', 'schema/required'],
      ['9:1', 'schema/type'],
    ]);
    expect(groups[1]!.counts).toEqual({ error: 1, warn: 2, off: 0 });
    expect(groups.flatMap((g) => g.issues)).toHaveLength(ISSUES.length);
  });

  it('keeps only the chosen severity and rule, and drops files left with nothing', () => {
    expect(groupIssues(ISSUES, { severity: 'error', rule: '' }).map((g) => [g.file, g.issues.length])).toEqual([
      ['b.json', 1],
      ['sub/c.json', 1],
    ]);
    expect(groupIssues(ISSUES, { severity: '', rule: 'schema/type' }).map((g) => [g.file, g.issues.map((i) => i.severity)])).toEqual([
      ['a.json', ['off']],
      ['b.json', ['error']],
    ]);
    expect(groupIssues(ISSUES, { severity: 'warn', rule: 'schema/type' })).toEqual([]);
  });

  it("groups the sample build's published report: one group per file it names, every problem once", async () => {
    const report = JSON.parse(await readFile(join(SAMPLE_OUT, 'api/v1/build-report.json'), 'utf8')) as PublishedBuildReport;
    expect(report.issues.length).toBeGreaterThan(0);
    const groups = groupIssues(report.issues, { severity: '', rule: '' });
    expect(groups.map((g) => g.file)).toEqual([...new Set(report.issues.map((i) => i.file))].sort());
    expect(groups.flatMap((g) => g.issues).sort((a, b) => (a.message < b.message ? -1 : 1))).toEqual(
      [...report.issues].sort((a, b) => (a.message < b.message ? -1 : 1)),
    );
    expect(severityCounts(report.issues)).toEqual({ error: report.stats.errors, warn: report.stats.warnings, off: report.stats.off });
  });
});

describe('rule and severity choices', () => {
  it('list the distinct rules present, with counts, for all problems or one severity', () => {
    expect(ruleCounts(ISSUES)).toEqual([
      ['json/duplicate-key', 1],
      ['law/definition-prefix', 1],
      ['law/unresolved-ref', 1],
      ['schema/required', 1],
      ['schema/type', 2],
    ]);
    expect(ruleCounts(ISSUES, 'warn').map(([r]) => r)).toEqual(['law/definition-prefix', 'law/unresolved-ref', 'schema/required']);
    expect(ruleCounts([], 'error')).toEqual([]);
    expect(severityCounts(ISSUES)).toEqual({ error: 2, warn: 3, off: 1 });
  });

  it('show the pointer, or "(whole file)" for a problem of the whole file', () => {
    expect(issuePointer(ISSUES[0]!)).toBe('/items/3/tier');
    expect(issuePointer(ISSUES[4]!)).toBe('(whole file)');
  });
});
