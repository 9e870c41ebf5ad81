/**
 * Build report view (`?view=report&severity=…&rule=…`): every problem of the last build
 * (`/api/v1/build-report.json`), grouped by source file with line, column, pointer, rule, severity and
 * message, filterable by severity and by the rules present. A published report always says the build
 * succeeded; under `npm start` a failed build's report is served at the same path (`ok: false`) while
 * the previous output is served, and the view says so first.
 */
import type { PublishedBuildReport, ReportSeverity } from '../../api/_lib/formats/build-report.js';
import * as api from '../api.js';
import { errorText, h, isAbort } from '../dom.js';
import { SEVERITIES, groupIssues, issuePlace, issuePointer, ruleCounts, severityCounts } from '../report.js';
import type { PageState } from '../state.js';
import type { View } from './context.js';

type ReportState = Extract<PageState, { view: 'report' }>;

const SEVERITY_NAMES: Readonly<Record<ReportSeverity, readonly [one: string, many: string]>> = {
  error: ['error', 'errors'],
  warn: ['warning', 'warnings'],
  off: ['switched off', 'switched off'],
};

/** `3 warnings`, `1 error`. */
function tally(n: number, severity: ReportSeverity): string {
  return `${n} ${SEVERITY_NAMES[severity][n === 1 ? 0 : 1]}`;
}

/** Render the build report view. */
export const reportView: View<ReportState> = async (initial, ctx) => {
  ctx.title('Build report');
  const banner = h('div', { id: 'report-summary', class: 'summary' }, h('p', { class: 'muted' }, 'Loading the build report…'));
  const severity = h('select', { id: 'r-severity', name: 'severity' }, h('option', { value: '' }, 'All severities'));
  const rule = h('select', { id: 'r-rule', name: 'rule' }, h('option', { value: '' }, 'All rules'));
  const form = h(
    'form',
    { id: 'report-filters', class: 'filters', 'aria-label': 'Filter the problems' },
    h('div', { class: 'field' }, h('label', { for: 'r-severity' }, 'Severity'), severity),
    h('div', { class: 'field field-wide' }, h('label', { for: 'r-rule' }, 'Rule'), rule),
  );
  const status = h('p', { id: 'report-status', class: 'status-line' }, '\u00a0');
  const groups = h('div', { id: 'report-groups', class: 'report-groups', 'aria-busy': 'true' });
  ctx.root.append(h('h1', { tabindex: '-1' }, 'Build report'), banner, form, status, groups);

  let report: PublishedBuildReport;
  try {
    report = await api.buildReport(ctx.signal);
  } catch (e) {
    if (isAbort(e) || ctx.signal.aborted) return;
    groups.removeAttribute('aria-busy');
    banner.replaceChildren(
      h(
        'p',
        { class: 'error' },
        e instanceof api.ApiError && e.status === 404
          ? 'This output has no build report (/api/v1/build-report.json); rebuild the catalog to publish one.'
          : `The build report is not available: ${errorText(e)}`,
      ),
    );
    return;
  }
  if (ctx.signal.aborted) return;
  const s = report.stats;
  const counts = `${s.files} files read, ${s.records} records, ${s.outputs} files written; ${s.errors} errors, ${s.warnings} warnings, ${s.off} switched off.`;
  banner.replaceChildren(
    report.ok
      ? h('p', { class: 'ok' }, h('strong', {}, 'The build succeeded'), report.buildId ? ` (build ${report.buildId}). ` : '. ', counts)
      : h(
          'p',
          { class: 'failed', role: 'alert' },
          h('strong', {}, `The last build failed with ${s.errors} error${s.errors === 1 ? '' : 's'}.`),
          ' The catalog served is the output of the previous build until the errors are fixed. ',
          counts,
        ),
  );

  const all = severityCounts(report.issues);
  severity.append(...SEVERITIES.map((v) => h('option', { value: v }, `${v} (${all[v]})`)));

  let state = initial;
  const render = (st: ReportState): void => {
    severity.value = st.severity;
    rule.replaceChildren(
      h('option', { value: '' }, 'All rules'),
      ...ruleCounts(report.issues, st.severity).map(([r, n]) => h('option', { value: r }, `${r} (${n})`)),
    );
    // a rule that the chosen severity does not have stays selectable, with no problem under it
    if (st.rule !== '' && ![...rule.options].some((o) => o.value === st.rule))
      rule.append(h('option', { value: st.rule }, `${st.rule} (0)`));
    rule.value = st.rule;
    const grouped = groupIssues(report.issues, { severity: st.severity, rule: st.rule });
    const shown = grouped.reduce((n, g) => n + g.issues.length, 0);
    const what = [st.severity === '' ? '' : SEVERITY_NAMES[st.severity][1], st.rule === '' ? '' : `under ${st.rule}`]
      .filter(Boolean)
      .join(' ');
    status.textContent =
      report.issues.length === 0
        ? 'The build reported no problem.'
        : `${shown} of ${report.issues.length} problems${what ? ` (${what})` : ''} in ${grouped.length} file${grouped.length === 1 ? '' : 's'}.`;
    ctx.announce(status.textContent);
    groups.replaceChildren(
      ...grouped.map((g, gi) => {
        const tbl = h(
          'table',
          { class: 'records responsive report-table' },
          h('caption', { class: 'visually-hidden' }, `Problems in ${g.file}`),
          h('colgroup', {}, ...['line', 'pointer', 'rule', 'severity', 'message'].map((c) => h('col', { class: `col-${c}` }))),
        );
        const head = ['Line', 'Pointer', 'Rule', 'Severity', 'Message'];
        const hr = tbl.createTHead().insertRow();
        for (const c of head) hr.append(h('th', { scope: 'col' }, c));
        const body = tbl.createTBody();
        for (const i of g.issues) {
          const tr = body.insertRow();
          tr.className = `issue issue-${i.severity}`;
          const cells = [
            h('span', {}, issuePlace(i)),
            h('code', {}, issuePointer(i)),
            h('code', {}, i.rule),
            h('span', { class: `sev sev-${i.severity}` }, i.severity),
            h('span', {}, i.message),
          ];
          cells.forEach((c, k) => tr.append(h('td', { 'data-label': head[k] ?? '' }, c)));
        }
        const counts = SEVERITIES.filter((v) => g.counts[v] > 0)
          .map((v) => tally(g.counts[v], v))
          .join(', ');
        return h(
          'section',
          { class: 'report-file', 'aria-labelledby': `rf-${gi}`, 'data-file': g.file },
          h('h2', { id: `rf-${gi}` }, h('code', {}, g.file), ' ', h('span', { class: 'muted count' }, counts)),
          h('div', { class: 'table-wrap' }, tbl),
        );
      }),
    );
    groups.removeAttribute('aria-busy');
  };

  const apply = (next: ReportState): void => {
    state = next;
    ctx.navigate(next, { keepFocus: true });
  };
  severity.addEventListener('change', () => apply({ ...state, severity: severity.value as ReportState['severity'] }));
  rule.addEventListener('change', () => apply({ ...state, rule: rule.value }));
  form.addEventListener('submit', (e) => e.preventDefault());
  ctx.onUpdate((next) => {
    if (next.view !== 'report') return false;
    state = next;
    render(next);
    return true;
  });
  render(state);
};
