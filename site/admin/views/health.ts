/**
 * The ledger health view (`/admin/?view=health`; docs/architecture.md, "Scheduled verification", "Operator
 * console"): `GET /api/admin/ledger/health`, the pass of the scheduled check under way (or the last one)
 * and the last results, newest first, each with its broken invariants (the invariant, the account linked to
 * its page, the posting's seq, what broke) and its totals checked or not. An admin gets "Run a check
 * now…": the confirmation says what the run will do (`confirm.ts`), `POST /api/admin/ledger/verify` runs
 * it, and the page shows the run the service answers, then reads the health again. The run carries no
 * idempotency key: running the check twice checks twice and changes no account.
 */
import { ledgerHealth, runLedgerCheck, type LedgerHealthResponse, type LedgerVerificationResponse } from '../api.js';
import { counted, failureText, passText, runText, totalsText, type LedgerFailure } from '../audit.js';
import { confirmation, formatCoin } from '../confirm.js';
import { h } from '../../dom.js';
import { canAct } from '../session.js';
import { consoleHref, playerState, type ConsoleState } from '../state.js';
import { facts, isAbort, problemBox, problemParts, section, timeText } from './common.js';
import type { ConsoleContext, ConsoleViewFn } from './context.js';

type Run = LedgerHealthResponse['results'][number];

/** The ledger health view (see the module header). */
export const healthView: ConsoleViewFn<Extract<ConsoleState, { view: 'health' }>> = async (_state, ctx) => {
  ctx.title('Ledger health');
  const body = h('div', { 'aria-busy': 'true' }, h('p', { class: 'muted' }, 'Reading the ledger’s health…'));
  const result = h('div', { id: 'check-result' });
  const bar = h('div', { class: 'actions', role: 'group', 'aria-label': 'Ledger check' });
  ctx.root.append(h('h1', { tabindex: '-1' }, 'Ledger health'), bar, result, body);
  let health: LedgerHealthResponse | undefined;
  const read = async (): Promise<void> => {
    body.setAttribute('aria-busy', 'true');
    try {
      health = await ledgerHealth(ctx.signal);
    } catch (e) {
      if (ctx.signal.aborted || isAbort(e)) return;
      body.replaceChildren(problemBox(e));
      body.removeAttribute('aria-busy');
      return;
    }
    if (ctx.signal.aborted) return;
    body.replaceChildren(passSection(health), resultsSection(health));
    body.removeAttribute('aria-busy');
  };
  if (ctx.who && canAct(ctx.who.role)) {
    const run = h('button', { type: 'button', id: 'run-check', 'data-action': 'ledger-verify' }, 'Run a check now…');
    run.addEventListener('click', () =>
      openCheck(ctx, health, run, (answer) => {
        result.replaceChildren(section('check-run', 'The check just run', runBlock(answer), h('p', { class: 'help' }, cursorText(answer))));
        ctx.announce(runText(answer));
        void read();
      }),
    );
    bar.append(run);
  }
  await read();
};

/** What became of the run's progress and alert, in words. */
function cursorText(run: LedgerVerificationResponse): string {
  const kept =
    run.cursor === 'written'
      ? 'Its progress is kept: the next run goes on from here.'
      : 'Another run moved on first: this run’s progress was not kept.';
  const alert: Record<LedgerVerificationResponse['alert'], string> = {
    none: 'No alert: nothing broke.',
    logged: 'The alert was logged.',
    posted: 'The alert was logged and posted to the webhook.',
    'webhook-failed': 'The alert was logged; posting it to the webhook failed.',
  };
  return `${kept} ${alert[run.alert]}`;
}

/** The pass under way (or the last one). */
function passSection(health: LedgerHealthResponse): HTMLElement {
  const p = health.pass;
  if (p === null) return section('health-pass', 'The pass', h('p', { id: 'pass-text' }, passText(p)));
  return section(
    'health-pass',
    'The pass',
    h('p', { id: 'pass-text' }, passText(p)),
    facts([
      ['Pass', String(p.pass)],
      ['Started', timeText(p.startedAt)],
      ['Finished', timeText(p.finishedAt, 'under way')],
      ['Accounts checked', formatCoin(p.accountsChecked)],
      ['Postings checked', formatCoin(p.postingsChecked)],
      ['Failures', h('span', { class: p.failures > 0 ? 'state-bad' : 'state-ok' }, formatCoin(p.failures))],
      [
        'Account under way',
        p.current
          ? h('span', {}, accountLink(p.current.accountId), ` to seq ${p.current.seq} of ${p.current.targetSeq}`)
          : h('span', { class: 'muted' }, 'none'),
      ],
      ['At its start', `${counted(p.start.transfers, 'transfer')}, issuer at seq ${p.start.issuerSeq}`],
      ['Totals', totalsText(p.totals)],
    ]),
  );
}

/** The last results, newest first. */
function resultsSection(health: LedgerHealthResponse): HTMLElement {
  if (health.results.length === 0) return section('health-results', 'Last results', h('p', { class: 'muted' }, 'No check has run yet.'));
  return section(
    'health-results',
    'Last results',
    h('ol', { class: 'runs', id: 'runs' }, ...health.results.map((r) => h('li', { 'data-run': r.runId }, runBlock(r)))),
  );
}

/** One run: its line, its totals, and each broken invariant. */
function runBlock(run: Run): HTMLElement {
  const failures = run.failures.length + run.failuresOmitted;
  return h(
    'div',
    { class: failures > 0 ? 'run run-failed' : 'run' },
    h('p', { class: 'run-text' }, runText(run)),
    h('p', { class: 'muted' }, totalsText(run.totals)),
    run.failures.length > 0 ? h('ul', { class: 'failures' }, ...run.failures.map(failureItem)) : null,
    run.failuresOmitted > 0 ? h('p', { class: 'notice' }, `${counted(run.failuresOmitted, 'more failure')} not listed.`) : null,
  );
}

function failureItem(f: LedgerFailure): HTMLElement {
  return h(
    'li',
    { class: 'failure', 'data-invariant': f.invariant },
    failureText(f),
    f.account ? h('span', {}, ' · account ', accountLink(f.account)) : ' · the totals',
  );
}

function accountLink(accountId: string): HTMLElement {
  return h('a', { href: consoleHref(playerState(accountId)) }, h('code', {}, accountId));
}

/**
 * The dialog of "Run a check now…": what the run will do, then the run; `done` gets the service's answer.
 * A refusal stays in the dialog with its title and detail.
 */
function openCheck(
  ctx: ConsoleContext,
  health: LedgerHealthResponse | undefined,
  opener: HTMLElement,
  done: (run: LedgerVerificationResponse) => void,
): void {
  const pass = health?.pass ?? null;
  const words = confirmation({ kind: 'verify', check: { pass: pass?.pass ?? null, over: pass?.finishedAt !== undefined } });
  const dialog = h('dialog', {
    id: 'action-dialog',
    class: 'action-dialog',
    'aria-labelledby': 'action-title',
    'data-action': 'ledger-verify',
  });
  const confirmButton = h('button', { id: 'action-confirm', type: 'submit' }, words.button);
  const cancel = h('button', { id: 'action-cancel', type: 'button', class: 'secondary' }, 'Cancel');
  const status = h('div', { id: 'action-status', class: 'form-status' });
  let busy = false;
  const form = h(
    'form',
    { method: 'dialog', class: 'action-form' },
    h('h2', { id: 'action-title' }, words.title),
    h('p', { id: 'action-effect', class: 'effect' }, words.effect),
    h('div', { class: 'buttons' }, confirmButton, cancel),
    status,
  );
  const close = () => {
    if (dialog.open) dialog.close();
  };
  dialog.addEventListener('close', () => {
    dialog.remove();
    if (!ctx.signal.aborted) opener.focus();
  });
  ctx.signal.addEventListener('abort', () => dialog.remove());
  dialog.addEventListener('cancel', (event) => {
    if (busy) event.preventDefault();
  });
  cancel.addEventListener('click', () => {
    if (!busy) close();
  });
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    if (busy) return;
    busy = true;
    confirmButton.disabled = true;
    status.replaceChildren(h('p', { class: 'muted' }, 'Running the check…'));
    runLedgerCheck().then(
      (answer) => {
        busy = false;
        close();
        if (!ctx.signal.aborted) done(answer);
      },
      (e: unknown) => {
        busy = false;
        confirmButton.disabled = false;
        status.replaceChildren(problemBox(e));
        ctx.announce(problemParts(e).title);
      },
    );
  });
  dialog.append(form);
  document.body.append(dialog);
  dialog.showModal();
  confirmButton.focus();
}
