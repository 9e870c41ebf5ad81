/**
 * The operator's log (docs/architecture.md, "Logs"): one JSON object per line, each with `level`, `event`
 * and `at` (ISO 8601, UTC), written to the process's standard streams (`console.error` for `error`,
 * `console.warn` for `warn`, `console.info` for `info`), where the host collects them. Tests capture the
 * lines with {@link useLogSink}; nothing here replaces a console method.
 *
 * Nothing secret reaches a line (spec 5.2: tokens are never stored; 5.5: nor an external key): every
 * string is passed through {@link redact}, which blanks the secret
 * values of the configuration in force (`secretValuesInForce`), bearer and basic credentials, JSON Web
 * Tokens, the user information of URLs, and the value after a credential's name (`Authorization`,
 * `X-Admin-Password`, `password`, `token`, `secret`, an S3 signature, …). Callers log request paths,
 * never query strings or headers.
 *
 * Sits beside errors and configuration, below every layer: it imports only `config.ts` (and the HTTP
 * layer is its only user).
 */
import { ConfigError, onConfigChange, secretValuesInForce } from './config.js';

/** Severity of a line. */
export type LogLevel = 'info' | 'warn' | 'error';

/** Where lines go: one call per line (without its newline), with the line's level. */
export type LogSink = (line: string, level: LogLevel) => void;

const CONSOLE_SINK: LogSink = (line, level) => {
  if (level === 'error') console.error(line);
  else if (level === 'warn') console.warn(line);
  else console.info(line);
};

let sink: LogSink = CONSOLE_SINK;

/**
 * Send every line to `next` instead of the console (tests capture lines this way); `undefined` returns
 * to the console.
 */
export function useLogSink(next: LogSink | undefined): void {
  sink = next ?? CONSOLE_SINK;
}

/** Most characters of one logged string; longer ones are cut with `…`. */
export const LOG_TEXT_MAX = 2000;

/** Patterns of credentials in free text, and what replaces them. */
const CREDENTIALS: readonly (readonly [RegExp, string])[] = [
  // Authorization: Bearer <token> / Basic <credentials>
  [/\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]+/gi, '$1 [redacted]'],
  // a JSON Web Token anywhere
  [/\beyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]*/g, '[redacted]'],
  // user information of a URL (scheme://user:password@host)
  [/\b([a-z][a-z0-9+.-]*:\/\/)[^\s/@'"]+@/gi, '$1[redacted]@'],
  // the value after a credential's name: `password=…`, `"token":"…"`, `X-Admin-Password: …`, `X-Amz-Signature=…`
  [
    /\b(authorization|x-admin-password|password|passwd|secret|token|api[-_]?key|x-amz-signature|x-amz-credential|x-amz-security-token)(\\?["']?\s*[:=]\s*\\?["']?)[^\s"'\\,;&})\]]+/gi,
    '$1$2[redacted]',
  ],
];

/**
 * `text` with every secret blanked (see the module header) and cut to {@link LOG_TEXT_MAX} characters.
 * Blanks what it recognises; callers still log no header or query string.
 */
export function redact(text: string): string {
  let out = text;
  for (const secret of secretValuesInForce()) out = out.split(secret).join('[redacted]');
  for (const [pattern, by] of CREDENTIALS) out = out.replace(pattern, by);
  return out.length > LOG_TEXT_MAX ? out.slice(0, LOG_TEXT_MAX - 1) + '…' : out;
}

/** `value` with every string in it passed through {@link redact} (objects and arrays walked; keys kept). */
function redactDeep(value: unknown): unknown {
  if (typeof value === 'string') return redact(value);
  if (Array.isArray(value)) return value.map(redactDeep);
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) if (v !== undefined) out[k] = redactDeep(v);
    return out;
  }
  return value;
}

/**
 * Write one line: `{ level, event, ...fields, at }`, every string redacted ({@link redact}), fields that
 * are undefined left out.
 * @param event the line's kind, e.g. `server-error`, `operator-write` (docs/architecture.md, "Logs").
 */
export function logEvent(level: LogLevel, event: string, fields: Readonly<Record<string, unknown>> = {}): void {
  const line = redactDeep({ level, event, ...fields, at: new Date().toISOString() });
  sink(JSON.stringify(line), level);
}

/** One error of a cause chain as a line holds it. */
export interface LoggedCause {
  /** The error's `name` (`ServiceError`, `UpstashError`, `TypeError`, …). */
  readonly name: string;
  readonly message: string;
  /** For a `ServiceError`, its code. */
  readonly code?: string;
  /** For a `ConfigError`, its variables. */
  readonly variables?: readonly string[];
  /** For an error that is neither a `ServiceError` nor a `ConfigError` (an unexpected failure): its stack, at most 12 frames. */
  readonly stack?: string;
}

/** Most errors of a cause chain logged. */
const CAUSE_DEPTH = 5;

/**
 * `error` and its `cause`s, outermost first (at most 5), as the log holds them (not yet redacted: {@link logEvent} does it).
 */
export function causeChain(error: unknown): LoggedCause[] {
  const out: LoggedCause[] = [];
  let e: unknown = error;
  while (e !== undefined && e !== null && out.length < CAUSE_DEPTH) {
    if (e instanceof Error) {
      const code = (e as { code?: unknown }).code;
      const expected = e.name === 'ServiceError' || e instanceof ConfigError;
      out.push({
        name: e.name,
        // a configuration's problems are on its own `configuration` line; here only which variables
        message: e instanceof ConfigError ? `The configuration is not valid (${e.problems.length} problems).` : e.message,
        ...(e.name === 'ServiceError' && typeof code === 'string' ? { code } : {}),
        ...(e instanceof ConfigError ? { variables: e.problems.map((p) => p.variable) } : {}),
        ...(!expected && e.stack ? { stack: e.stack.split('\n').slice(0, 13).join('\n') } : {}),
      });
      e = (e as { cause?: unknown }).cause;
    } else {
      // a thrown value that is not an Error: a string as it is, anything else by its type
      out.push({ name: typeof e, message: typeof e === 'string' ? e : `A ${typeof e} was thrown.` });
      e = undefined;
    }
  }
  return out;
}

/** The first ConfigError of `error`'s cause chain, if any. */
export function configErrorIn(error: unknown): ConfigError | undefined {
  let e: unknown = error;
  for (let depth = 0; e !== undefined && e !== null && depth < CAUSE_DEPTH; depth++) {
    if (e instanceof ConfigError) return e;
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}

/** Problem lists already logged while this configuration is in force. */
const loggedProblems = new Set<string>();
onConfigChange(() => loggedProblems.clear());

/**
 * Log every problem of `error` as one `configuration` line (`{"level":"error","event":"configuration",
 * "problems":["<VARIABLE> <what is wrong and what to set>", …]}`), once per distinct list while the
 * configuration in force stands: a bad environment read once is logged once, however many requests it
 * refuses. Problems name variables, never values.
 * @returns true when the line was written now.
 */
export function logConfigurationOnce(error: ConfigError): boolean {
  const problems = error.problems.map((p) => `${p.variable} ${p.message}`);
  const key = problems.join('\n');
  if (loggedProblems.has(key)) return false;
  loggedProblems.add(key);
  logEvent('error', 'configuration', { problems });
  return true;
}
