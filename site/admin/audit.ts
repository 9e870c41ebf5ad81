/**
 * The audit log and ledger health as the console words them (docs/architecture.md, "Audit log", "Scheduled
 * verification", "Operator console"), pure: who a record names and the filter that finds their other
 * records, what a record's answer did, the query the audit route takes for the view's filters, the UTC
 * times of the filter form, and the sentences of the health panel (the pass under way, a run's totals, one
 * broken invariant). Numbers are written in en-US digits with thousands separators, times in UTC
 * (`confirm.ts`), so two operators read the same thing.
 */
import type { AuditResponse, LedgerHealthResponse, Result, Totals } from '../../client/src/index.js';
import { formatCoin, formatTime } from './confirm.js';
import type { AuditFilters } from './state.js';

/** One audit record as the route answers it (`schemas/responses/audit.schema.json`). */
export type AuditRecord = AuditResponse['records'][number];
/** Who a record names. */
export type AuditActor = AuditRecord['actor'];
/** The pass of the scheduled check under way, or the last one (null before the first run). */
export type LedgerPass = LedgerHealthResponse['pass'];
/** One broken invariant of a run (`schemas/responses/ledger-verification.schema.json` `failure`). */
export type LedgerFailure = Result['failures'][number];

/** Records per page of the audit view (the route's default; at most 200). */
export const AUDIT_PAGE = 50;

/** Why an operator's authentication was refused, in words. */
export const REFUSAL_REASONS: Readonly<Record<NonNullable<AuditRecord['reason']>, string>> = Object.freeze({
  'invalid-token': 'the token was not valid',
  'role-not-allowed': 'the token’s role may not do this',
  'wrong-password': 'the admin password was wrong',
  'no-credentials': 'no credentials were sent',
});

/** Who a record names, as the page shows it: `admin:STUDIO_…`, `admin password`, `scheduled run (cron)`, `nobody verified`. */
export function actorText(actor: AuditActor): string {
  switch (actor.via) {
    case 'token':
      return `${actor.role}:${actor.subject}`;
    case 'password':
      return 'admin password';
    case 'cron':
      return 'scheduled run (cron)';
    default:
      return 'nobody verified';
  }
}

/**
 * The `actor` filter that finds this actor's records (the route's rule: a token's subject, `admin-password`,
 * `cron` or `anonymous`). A token made from the password has the subject `admin-password` too.
 */
export function actorFilter(actor: AuditActor): string {
  switch (actor.via) {
    case 'token':
      return actor.subject;
    case 'password':
      return 'admin-password';
    case 'cron':
      return 'cron';
    default:
      return 'anonymous';
  }
}

/** What the request did: `changed`, `nothing changed`, or `failed on the way` (null: a 5xx whose change, if any, has its own record). */
export function outcomeText(changed: boolean | null): string {
  return changed === null ? 'failed on the way' : changed ? 'changed' : 'nothing changed';
}

/** The query of `GET /api/admin/audit` for the view's filters: the members set, and the page size. */
export function auditQuery(filters: AuditFilters, limit = AUDIT_PAGE): Partial<AuditFilters> & { readonly limit: number } {
  const out: Partial<Record<keyof AuditFilters, string>> = {};
  for (const k of ['actor', 'account', 'route', 'from', 'to', 'cursor'] as const) if (filters[k] !== '') out[k] = filters[k];
  return { ...out, limit };
}

/**
 * The value of a `datetime-local` field (read as UTC) for an ISO 8601 time: `2026-11-20T10:05`; '' when
 * `iso` is no time.
 */
export function utcInputValue(iso: string): string {
  const t = Date.parse(iso);
  return Number.isNaN(t) ? '' : new Date(t).toISOString().slice(0, 16);
}

/**
 * The ISO 8601 time (UTC, `Z`) a `datetime-local` field's value names, read as UTC: `2026-11-20T10:05` →
 * `2026-11-20T10:05:00Z`; '' for an empty field; undefined for anything else.
 */
export function utcInputTime(value: string): string | undefined {
  if (value === '') return '';
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}$/.test(value)) return undefined;
  const iso = `${value}:00Z`;
  return Number.isNaN(Date.parse(iso)) ? undefined : iso;
}

/** `12 accounts`, `1 account`: a count with its noun, in en-US digits. */
export function counted(n: number, noun: string): string {
  return `${formatCoin(n)} ${noun}${n === 1 ? '' : 's'}`;
}

/**
 * The pass of the scheduled check in one sentence: which pass, since when, over or under way, what it has
 * checked and found, and where it stands, e.g. `Pass 3, started 2026-11-20 10:05 UTC, is under way: 12
 * accounts and 340 postings checked, no failure so far; account 7c… is checked to seq 5 of 9.`
 */
export function passText(pass: LedgerPass): string {
  if (pass === null) return 'No check has run yet.';
  const head = `Pass ${pass.pass}, started ${formatTime(pass.startedAt)}, ${pass.finishedAt ? `finished ${formatTime(pass.finishedAt)}` : 'is under way'}`;
  const found = pass.failures === 0 ? 'no failure' : counted(pass.failures, 'failure');
  const checked = `${counted(pass.accountsChecked, 'account')} and ${counted(pass.postingsChecked, 'posting')} checked, ${found}${pass.finishedAt ? '' : ' so far'}`;
  const at = pass.current ? `; account ${pass.current.accountId} is checked to seq ${pass.current.seq} of ${pass.current.targetSeq}` : '';
  return `${head}: ${checked}${at}.`;
}

/**
 * The totals check of a run or a pass: `Totals checked: 12 transfers.`, `Totals not checked: 3 transfers
 * were made during the pass (they wait for a quiet pass).`, or `Totals not checked yet (the pass is not
 * over).` when there are none.
 */
export function totalsText(totals: Totals | undefined): string {
  if (!totals) return 'Totals not checked yet (the pass is not over).';
  return totals.checked
    ? `Totals checked: ${counted(totals.transfers, 'transfer')}.`
    : `Totals not checked: ${counted(totals.madeDuringPass, 'transfer')} ${totals.madeDuringPass === 1 ? 'was' : 'were'} made during the pass (they wait for a quiet pass).`;
}

/** What one broken invariant names, besides its account: `Invariant 2, seq 5: <message>` (`Invariant 4: …` for the totals). */
export function failureText(f: LedgerFailure): string {
  return `Invariant ${f.invariant}${f.seq === undefined ? '' : `, seq ${f.seq}`}: ${f.message}`;
}

/** A run in one line: `Run by an operator, 2026-11-20 10:05 UTC, 120 ms of 2,000: pass 3, 12 accounts, 340 postings, no failure.` */
export function runText(run: Result): string {
  const by = run.trigger === 'operator' ? 'an operator' : run.trigger === 'cli' ? 'the command line' : 'the schedule';
  const stage =
    run.passStarted && run.passFinished ? 'the whole of' : run.passStarted ? 'started' : run.passFinished ? 'finished' : 'continued';
  const failures = run.failures.length + run.failuresOmitted;
  return (
    `Run by ${by}, ${formatTime(run.startedAt)}, ${formatCoin(run.durationMs)} ms of ${formatCoin(run.budgetMs)}: ${stage} pass ${run.pass}, ` +
    `${counted(run.accountsChecked, 'account')}, ${counted(run.postingsChecked, 'posting')}, ${failures === 0 ? 'no failure' : counted(failures, 'failure')}.`
  );
}
