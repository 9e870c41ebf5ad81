// The scheduled check's alerts (api/_lib/ledger/alerts.ts; docs/architecture.md, "Scheduled verification"):
// one `ledger-alert` line for a run with failures, and a best-effort webhook POST of the alert, whose
// failures are logged and never thrown.
import { describe, expect, it } from 'vitest';
import { ALERT_FAILURES, alertOnFailures, type AlertLog, type LedgerAlert } from '../../api/_lib/ledger/alerts.js';
import type { VerificationFailure, VerificationRun } from '../../api/_lib/ledger/verification.js';

const failure = (i: number, invariant: VerificationFailure['invariant']): VerificationFailure => ({
  invariant,
  message: `break ${i}`,
  account: `acct-${i}`,
  seq: i,
});

function runWith(failures: VerificationFailure[], failuresOmitted = 0): VerificationRun {
  return {
    runId: '7b0cbb8e-5d0a-4d7e-9a52-0a8f0d3c2b11',
    trigger: 'cron',
    startedAt: '2026-11-28T03:00:00.000Z',
    finishedAt: '2026-11-28T03:00:01.500Z',
    durationMs: 1500,
    budgetMs: 8000,
    pass: 4,
    passStarted: false,
    passFinished: true,
    accountsChecked: 12,
    postingsChecked: 340,
    failures,
    failuresOmitted,
    cursor: 'written',
  };
}

function recorder() {
  const lines: { level: string; event: string; fields: Record<string, unknown> }[] = [];
  const log: AlertLog = (level, event, fields) => void lines.push({ level, event, fields: { ...fields } });
  return { lines, log };
}

describe('alerts of the scheduled check', () => {
  it('says nothing for a sound run, and calls no webhook', async () => {
    const { lines, log } = recorder();
    let called = 0;
    const fetchStub = (() => {
      called++;
      return Promise.resolve(new Response(null));
    }) as typeof fetch;
    expect(await alertOnFailures(runWith([]), { webhookUrl: 'https://hooks.test/x', log, fetch: fetchStub })).toBe('none');
    expect(lines).toEqual([]);
    expect(called).toBe(0);
  });

  it('logs one error line: the failures counted with those left out, the invariants once each in order, the examples', async () => {
    const { lines, log } = recorder();
    const failures = [failure(1, 4), failure(2, 1), failure(3, 4), ...Array.from({ length: 12 }, (_, i) => failure(10 + i, 2))];
    expect(await alertOnFailures(runWith(failures, 5), { webhookUrl: undefined, log })).toBe('logged');
    expect(lines).toEqual([
      {
        level: 'error',
        event: 'ledger-alert',
        fields: {
          runId: '7b0cbb8e-5d0a-4d7e-9a52-0a8f0d3c2b11',
          pass: 4,
          failures: 20,
          invariants: [1, 2, 4],
          examples: failures.slice(0, ALERT_FAILURES).map((f) => f.message),
        },
      },
    ]);
  });

  it('alerts on failures that were only counted', async () => {
    const { lines, log } = recorder();
    expect(await alertOnFailures(runWith([], 3), { webhookUrl: undefined, log })).toBe('logged');
    expect(lines[0]!.fields.failures).toBe(3);
  });

  it('posts the alert as JSON to the webhook, without following redirects, within the timeout', async () => {
    const { lines, log } = recorder();
    const seen: { url: string; init: RequestInit }[] = [];
    const fetchStub = ((url: string, init: RequestInit) => {
      seen.push({ url, init });
      return Promise.resolve(new Response('ok', { status: 200 }));
    }) as unknown as typeof fetch;
    const failures = Array.from({ length: ALERT_FAILURES + 2 }, (_, i) => failure(i, 3));
    expect(await alertOnFailures(runWith(failures), { webhookUrl: 'https://hooks.test/alert', log, fetch: fetchStub })).toBe('posted');
    expect(seen).toHaveLength(1);
    expect(seen[0]!.url).toBe('https://hooks.test/alert');
    const init = seen[0]!.init;
    expect(init.method).toBe('POST');
    expect(init.headers).toEqual({ 'Content-Type': 'application/json' });
    expect(init.redirect).toBe('error');
    expect(init.signal).toBeInstanceOf(AbortSignal);
    const body = JSON.parse(init.body as string) as LedgerAlert;
    expect(body).toEqual({
      event: 'ledger-alert',
      runId: '7b0cbb8e-5d0a-4d7e-9a52-0a8f0d3c2b11',
      pass: 4,
      at: '2026-11-28T03:00:01.500Z',
      failures: ALERT_FAILURES + 2,
      examples: failures.slice(0, ALERT_FAILURES),
    });
    expect(lines.map((l) => l.event)).toEqual(['ledger-alert']);
  });

  it('logs a webhook that answers non-2xx or fails, with the status or the error name, and never throws', async () => {
    for (const [fetchStub, expected] of [
      [() => Promise.resolve(new Response('no', { status: 502 })), { runId: runWith([]).runId, status: 502 }],
      [() => Promise.reject(new TypeError('fetch failed')), { runId: runWith([]).runId, error: 'TypeError' }],
    ] as const) {
      const { lines, log } = recorder();
      expect(await alertOnFailures(runWith([failure(1, 5)]), { webhookUrl: 'https://hooks.test/alert', log, fetch: fetchStub })).toBe(
        'webhook-failed',
      );
      expect(lines.map((l) => [l.level, l.event])).toEqual([
        ['error', 'ledger-alert'],
        ['warn', 'ledger-alert-webhook-failed'],
      ]);
      expect(lines[1]!.fields).toEqual(expected);
    }
  });

  it('gives up on a webhook that does not answer within the time it is given, as a logged TimeoutError', async () => {
    const { lines, log } = recorder();
    const hang = ((_url: string, init: RequestInit) =>
      new Promise<Response>((_, reject) =>
        init.signal!.addEventListener('abort', () => reject(init.signal!.reason as Error)),
      )) as unknown as typeof fetch;
    const outcome = await alertOnFailures(runWith([failure(1, 5)]), {
      webhookUrl: 'https://hooks.test/a',
      log,
      fetch: hang,
      timeoutMs: 50,
    });
    expect(outcome).toBe('webhook-failed');
    expect(lines[1]!.fields).toEqual({ runId: runWith([]).runId, error: 'TimeoutError' });
  });
});
