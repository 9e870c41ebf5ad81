/**
 * The audit log view (`/admin/?view=audit&actor=…&account=…&route=…&from=…&to=…&cursor=…`;
 * docs/architecture.md, "Audit log", "Operator console"): `GET /api/admin/audit`, newest first, with its
 * filters in the address, paged by the service's cursor ("Older records", "Newest records"). Each record
 * shows its time, who (a link to their other records), the request (a link to that route's records), the
 * account (a link to the player's page), the answer's status, whether it changed something, its
 * idempotency key, its request id and why an authentication was refused. Every operator may read it; it
 * has no action. The times of the filter form are read and written in UTC (`audit.ts`).
 */
import { auditLog, type AuditResponse } from '../api.js';
import {
  AUDIT_PAGE,
  REFUSAL_REASONS,
  actorFilter,
  actorText,
  auditQuery,
  outcomeText,
  utcInputTime,
  utcInputValue,
  type AuditRecord,
} from '../audit.js';
import { h } from '../../dom.js';
import { MAX_TEXT, auditState, consoleHref, playerState, type AuditFilters, type ConsoleState } from '../state.js';
import { isAbort, problemBox, section, timeText } from './common.js';
import type { ConsoleContext, ConsoleViewFn } from './context.js';

type AuditView = Extract<ConsoleState, { view: 'audit' }>;

/** The table's columns. */
const HEAD = ['When', 'Who', 'Request', 'Account', 'Status', 'Changed', 'Idempotency key', 'Request id'] as const;

/** The filter fields: name, label, input type and help. */
const FIELDS: readonly (readonly [keyof Omit<AuditFilters, 'cursor'>, string, string, string])[] = [
  ['actor', 'Who', 'text', 'A token’s subject (STUDIO_…), admin-password, cron or anonymous.'],
  ['account', 'Account', 'text', 'A studio id or an account id.'],
  ['route', 'Route', 'text', 'entry/route, e.g. admin/grant-coin.'],
  ['from', 'From (UTC)', 'datetime-local', 'Records at or after this time.'],
  ['to', 'Before (UTC)', 'datetime-local', 'Records before this time.'],
];

/** The audit log view (see the module header). */
export const auditView: ConsoleViewFn<AuditView> = async (state, ctx) => {
  const filtered = (['actor', 'account', 'route', 'from', 'to'] as const).filter((k) => state[k] !== '');
  ctx.title(filtered.length === 0 ? 'Audit log' : `Audit log: ${filtered.map((k) => `${k} ${state[k]}`).join(', ')}`);
  const body = h('div', { 'aria-busy': 'true' }, h('p', { class: 'muted' }, 'Reading the audit log…'));
  ctx.root.append(h('h1', { tabindex: '-1' }, 'Audit log'), filterForm(state, ctx), section('audit', 'Records, newest first', body));
  let page: AuditResponse;
  try {
    page = await auditLog(auditQuery(state, AUDIT_PAGE), ctx.signal);
  } catch (e) {
    if (ctx.signal.aborted || isAbort(e)) return;
    body.replaceChildren(problemBox(e));
    body.removeAttribute('aria-busy');
    return;
  }
  if (ctx.signal.aborted) return;
  body.removeAttribute('aria-busy');
  const older = page.cursor ? h('a', { id: 'audit-older', href: consoleHref({ ...state, cursor: page.cursor }) }, 'Older records') : null;
  const newest = state.cursor !== '' ? h('a', { id: 'audit-newest', href: consoleHref({ ...state, cursor: '' }) }, 'Newest records') : null;
  body.replaceChildren(
    page.records.length === 0
      ? h('p', { class: 'muted', id: 'audit-empty' }, filtered.length === 0 ? 'No records yet.' : 'No records match these filters.')
      : h('div', { class: 'table-wrap' }, recordsTable(state, page.records)),
    h('nav', { class: 'pager', 'aria-label': 'Audit pages' }, newest, newest && older ? ' · ' : null, older),
  );
};

/** The filters as a form: submitting it opens the newest page of the records they match. */
function filterForm(state: AuditView, ctx: ConsoleContext): HTMLElement {
  const inputs = new Map<string, HTMLInputElement>();
  const status = h('div', { class: 'form-status', id: 'audit-filter-status' });
  const form = h('form', { id: 'audit-filters', class: 'audit-filters', 'aria-label': 'Filter the audit log' });
  for (const [name, label, type, help] of FIELDS) {
    const input = h('input', {
      id: `audit-${name}`,
      name,
      type,
      maxlength: type === 'text' ? MAX_TEXT : null,
      autocomplete: 'off',
      spellcheck: 'false',
      'aria-describedby': `audit-${name}-help`,
    });
    const value = state[name];
    input.value = type === 'text' ? value : utcInputValue(value);
    inputs.set(name, input);
    form.append(
      h(
        'div',
        { class: 'field' },
        h('label', { for: `audit-${name}` }, label),
        input,
        h('p', { class: 'help', id: `audit-${name}-help` }, help),
        // an address's time the field cannot show is said beside it
        type !== 'text' && value !== '' && input.value === '' ? h('p', { class: 'notice' }, `The address says “${value}”.`) : null,
      ),
    );
  }
  form.append(
    h(
      'div',
      { class: 'buttons' },
      h('button', { type: 'submit', id: 'audit-apply' }, 'Show records'),
      h('a', { href: consoleHref(auditState()), id: 'audit-clear' }, 'Clear the filters'),
    ),
    status,
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const text = (k: string) => inputs.get(k)!.value.trim().slice(0, MAX_TEXT);
    const from = utcInputTime(inputs.get('from')!.value);
    const to = utcInputTime(inputs.get('to')!.value);
    if (from === undefined || to === undefined) {
      status.replaceChildren(h('p', { class: 'problem', role: 'alert' }, 'Give the times as a date and a time of day (UTC).'));
      return;
    }
    ctx.navigate(auditState({ actor: text('actor'), account: text('account'), route: text('route'), from, to }), { keepFocus: true });
  });
  return form;
}

function recordsTable(state: AuditView, records: readonly AuditRecord[]): HTMLTableElement {
  const table = h(
    'table',
    { id: 'audit-table', class: 'data responsive' },
    h('caption', { class: 'visually-hidden' }, 'Audit records, newest first'),
  );
  const tr = table.createTHead().insertRow();
  for (const c of HEAD) tr.append(h('th', { scope: 'col' }, c));
  const tbody = table.createTBody();
  for (const r of records) {
    const filter = (f: Partial<Omit<AuditFilters, 'cursor'>>) => consoleHref({ ...state, ...f, cursor: '' });
    const who = h('span', {}, h('a', { class: 'audit-actor', href: filter({ actor: actorFilter(r.actor) }) }, actorText(r.actor)));
    if (r.reason) who.append(h('span', { class: 'muted audit-reason' }, ` (refused: ${REFUSAL_REASONS[r.reason]})`));
    const cells: (Node | string)[] = [
      timeText(r.at),
      who,
      h('span', {}, `${r.method} `, h('a', { class: 'audit-route', href: filter({ route: r.route }) }, h('code', {}, r.route))),
      r.account === null
        ? h('span', { class: 'muted' }, '—')
        : h('a', { class: 'audit-account', href: consoleHref(playerState(r.account)) }, h('code', {}, r.account)),
      h('span', { class: r.status >= 400 ? 'state-bad' : null }, String(r.status)),
      h('span', { class: r.changed === null ? 'state-bad' : r.changed ? 'state-ok' : 'muted' }, outcomeText(r.changed)),
      r.idempotencyKey === null ? h('span', { class: 'muted' }, '—') : h('code', {}, r.idempotencyKey),
      h('code', {}, r.requestId),
    ];
    const row = h('tr', { 'data-record': r.id, 'data-route': r.route });
    cells.forEach((c, i) => row.append(h('td', { 'data-label': HEAD[i]! }, c)));
    tbody.append(row);
  }
  return table;
}
