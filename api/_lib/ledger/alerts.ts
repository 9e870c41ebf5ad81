/**
 * Alerts of the scheduled check (docs/architecture.md, "Scheduled verification" and "Logs"): a run that
 * found a broken invariant writes one `ledger-alert` line to the operator's log (passed in: the domain
 * does not import the log) and, when
 * `ALERT_WEBHOOK_URL` is set, POSTs a JSON alert there. The webhook is best effort: it is given
 * {@link ALERT_TIMEOUT_MS}, and a failure (refused, unreachable, a non-2xx answer, the timeout) is logged
 * as `ledger-alert-webhook-failed` and never fails the run. The body carries what broke (invariants,
 * accounts, entry references), never a credential; no line names the webhook's URL, which may hold one.
 */
import type { VerificationRun } from './verification.js';

/** Where alert lines go: the operator's log (`logEvent` of `api/_lib/log.ts`, which the entry passes in). */
export type AlertLog = (level: 'error' | 'warn', event: string, fields: Readonly<Record<string, unknown>>) => void;

/** How long the webhook is given, ms (the run's budget plus this stays under the functions' 10 s). */
export const ALERT_TIMEOUT_MS = 3000;

/** Failures an alert lists (the rest are counted). */
export const ALERT_FAILURES = 10;

/** The JSON body of a webhook alert. */
export interface LedgerAlert {
  readonly event: 'ledger-alert';
  readonly runId: string;
  readonly pass: number;
  /** When the run finished, ISO 8601 UTC. */
  readonly at: string;
  /** How many failures the run found. */
  readonly failures: number;
  /** The first {@link ALERT_FAILURES} of them. */
  readonly examples: VerificationRun['failures'];
}

/** Options of {@link alertOnFailures}. */
export interface AlertOptions {
  /** `ALERT_WEBHOOK_URL` (already checked by the configuration), or undefined for the log line alone. */
  readonly webhookUrl: string | undefined;
  /** Default {@link ALERT_TIMEOUT_MS}. */
  readonly timeoutMs?: number;
  /** Default the global `fetch`. */
  readonly fetch?: typeof fetch;
  /** The operator's log. */
  readonly log: AlertLog;
}

/**
 * Alert when `run` found failures (see the module header); nothing for a sound run.
 * @returns `none` (a sound run), `logged` (the log line only), `posted` (and the webhook answered 2xx) or
 *   `webhook-failed`. Never throws.
 */
export async function alertOnFailures(
  run: VerificationRun,
  options: AlertOptions,
): Promise<'none' | 'logged' | 'posted' | 'webhook-failed'> {
  const count = run.failures.length + run.failuresOmitted;
  if (count === 0) return 'none';
  const alert: LedgerAlert = {
    event: 'ledger-alert',
    runId: run.runId,
    pass: run.pass,
    at: run.finishedAt,
    failures: count,
    examples: run.failures.slice(0, ALERT_FAILURES),
  };
  options.log('error', 'ledger-alert', {
    runId: run.runId,
    pass: run.pass,
    failures: count,
    invariants: [...new Set(run.failures.map((f) => f.invariant))].sort(),
    examples: alert.examples.map((f) => f.message),
  });
  if (options.webhookUrl === undefined) return 'logged';
  try {
    const res = await (options.fetch ?? fetch)(options.webhookUrl, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(alert),
      redirect: 'error',
      signal: AbortSignal.timeout(options.timeoutMs ?? ALERT_TIMEOUT_MS),
    });
    await res.body?.cancel();
    if (res.ok) return 'posted';
    options.log('warn', 'ledger-alert-webhook-failed', { runId: run.runId, status: res.status });
  } catch (e) {
    options.log('warn', 'ledger-alert-webhook-failed', { runId: run.runId, error: (e as Error).name });
  }
  return 'webhook-failed';
}
