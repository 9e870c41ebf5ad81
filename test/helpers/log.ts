/**
 * Capture the operator log (`api/_lib/log.ts`) through its sink: every line parsed, in order. Restores the
 * console sink after each test of the file that calls {@link captureLog}.
 */
import { afterEach, beforeEach } from 'vitest';
import { useLogSink, type LogLevel } from '../../api/_lib/log.js';

/** One parsed line, with the raw text it was written as. */
export type LogLine = Record<string, unknown> & { level: LogLevel; event: string; at: string; raw: string };

/** The lines of the running test, and those of one event. */
export interface CapturedLog {
  readonly lines: LogLine[];
  events(event: string): LogLine[];
}

/** Register hooks that capture every line of each test of the file. */
export function captureLog(): CapturedLog {
  const lines: LogLine[] = [];
  beforeEach(() => {
    lines.length = 0;
    useLogSink((raw, level) => {
      const parsed = JSON.parse(raw) as LogLine;
      if (parsed.level !== level) throw new Error(`a ${level} line says it is ${String(parsed.level)}`);
      lines.push({ ...parsed, raw });
    });
  });
  afterEach(() => useLogSink(undefined));
  return { lines, events: (event) => lines.filter((l) => l.event === event) };
}
