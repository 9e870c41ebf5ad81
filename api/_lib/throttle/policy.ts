/**
 * Who is throttled, and how (docs/api.md, "Security"; the budgets are configuration,
 * `RATE_LIMIT_*`, `api/_lib/config.ts`). The entry helper (`api/_lib/http/entry.ts`) applies it to every
 * function request before its handler runs:
 *
 * - **Failed authentication**, per client: a request whose credentials are refused (401: a bad or forged
 *   token, a wrong `X-Admin-Password`, an external platform's token that does not verify) counts one
 *   failure. A client that made `RATE_LIMIT_AUTH_FAILURES` (10) within `RATE_LIMIT_AUTH_WINDOW_S` (60 s)
 *   is refused with 429 for every credential it sends until the window has passed, the right one
 *   included, so guessing learns nothing while refused. Each attempt takes its place in the budget
 *   before its credentials are checked and gives it back when they were good, so simultaneous guesses
 *   get no more checks than the budget has places (and so many simultaneous sign-ins of one client, good
 *   ones too, may be told to wait). A token this process verified before is no guess and is not held up
 *   (`isRememberedToken`).
 * - **Writes** (POST, PUT, PATCH, DELETE), once admitted: per client (`RATE_LIMIT_CLIENT_WRITES`, 600 per
 *   `RATE_LIMIT_WRITE_WINDOW_S` of 60 s; game servers' writes are not counted there, many may share an
 *   address), per player account (`RATE_LIMIT_ACCOUNT_WRITES`, 120: the token's subject), and per game-server
 *   credential (`RATE_LIMIT_SERVER_WRITES`, 6,000: a server, admin or master token's subject, or the admin
 *   password). A refused write changes nothing.
 *
 * Every refusal is 429 `TOO_MANY_REQUESTS` with `Retry-After` (seconds; waiting that long is always enough:
 * one window and a second, see `types.ts`). The client is the address Vercel's edge puts in `x-real-ip`
 * (the first of `x-forwarded-for` otherwise; the local server sets both from the socket), which a client
 * cannot choose behind Vercel; self-hosted, a proxy in front must overwrite them.
 *
 * The throttle never takes the service down with it: when its store cannot be reached the request goes
 * on (the store it writes to is then most likely down too) and the log says so once per request
 * (`throttle-unavailable`).
 */
import { getServiceConfig, type ThrottleConfig } from '../config.js';
import { isServiceError, ServiceError } from '../errors.js';
import { logEvent } from '../log.js';
import { throttleStore } from './store.js';
import type { Budget, ThrottleStore } from './types.js';

/** Who makes a write, as the throttle counts it. */
export type Writer =
  | { readonly kind: 'anonymous' }
  | { readonly kind: 'player'; readonly subject: string }
  | { readonly kind: 'game-server'; readonly subject: string };

/** The key of a request without a client address (only outside Vercel and the local server). */
export const UNKNOWN_CLIENT = 'unknown';

/** The client a request comes from (see the module header): an address of at most 64 characters, or {@link UNKNOWN_CLIENT}. */
export function clientOf(request: Request): string {
  const real = request.headers.get('x-real-ip');
  const forwarded = request.headers.get('x-forwarded-for')?.split(',')[0]?.trim();
  const address = real || forwarded;
  return address && /^[0-9A-Fa-f.:]{2,64}$/.test(address) ? address : UNKNOWN_CLIENT;
}

/** The budgets of a configuration; a budget whose limit is 0 is off (absent). */
export function budgetsOf(config: ThrottleConfig): {
  readonly authFailures?: Budget;
  readonly clientWrites?: Budget;
  readonly accountWrites?: Budget;
  readonly serverWrites?: Budget;
} {
  const budget = (name: string, limit: number, windowS: number): Budget | undefined => (limit > 0 ? { name, limit, windowS } : undefined);
  return {
    authFailures: budget('auth-failures', config.authFailures, config.authWindowS),
    clientWrites: budget('client-writes', config.clientWrites, config.writeWindowS),
    accountWrites: budget('account-writes', config.accountWrites, config.writeWindowS),
    serverWrites: budget('server-writes', config.serverWrites, config.writeWindowS),
  };
}

/** The 429 of a budget. */
function tooMany(budget: Budget, who: string): ServiceError {
  const seconds = budget.windowS + 1;
  return new ServiceError('TOO_MANY_REQUESTS', `${who}; try again in ${seconds} seconds.`, {
    headers: { 'Retry-After': String(seconds) },
  });
}

/**
 * What the throttle knows of one request: its client, its request id for the log, and whether the log
 * has said yet that the throttle's store cannot be reached (once per request).
 */
export interface ThrottleRequest {
  readonly client: string;
  readonly requestId?: string | undefined;
  unavailableLogged?: boolean;
}

/** Run `call` on the throttle store; undefined (allow) when the store cannot be reached, logged once per request. */
async function consult<T>(call: (store: ThrottleStore) => Promise<T>, request: ThrottleRequest): Promise<T | undefined> {
  try {
    return await call(await throttleStore());
  } catch (e) {
    if (!isServiceError(e) || e.code !== 'UPSTREAM_UNAVAILABLE') throw e;
    if (!request.unavailableLogged) logEvent('warn', 'throttle-unavailable', { message: e.message, requestId: request.requestId });
    request.unavailableLogged = true;
    return undefined;
  }
}

/**
 * Reserve a place for one sign-in attempt of a client in its failed-authentication budget, before its
 * credentials are checked (see the module header): the place is counted at once, so a burst of
 * simultaneous guesses gets no more checks than the budget has places; {@link settleAuthAttempt} gives it
 * back when the credentials were good.
 * @returns true when a place was taken (false with the budget off or its store out of reach)
 * @throws ServiceError TOO_MANY_REQUESTS (429, `Retry-After`) when the budget has no place left
 */
export async function reserveAuthAttempt(request: ThrottleRequest): Promise<boolean> {
  const budget = budgetsOf(getServiceConfig().throttle).authFailures;
  if (!budget) return false;
  const verdict = await consult((s) => s.hit(budget, `client:${request.client}`), request);
  if (verdict && !verdict.allowed) throw tooMany(budget, 'Too many failed sign-ins from this address');
  return verdict !== undefined;
}

/**
 * Settle a reserved attempt: a refused credential (401) keeps its place, counted as a failure; any other
 * answer gives it back. Never throws: the answer goes out whatever happens here.
 */
export async function settleAuthAttempt(request: ThrottleRequest, refused: boolean): Promise<void> {
  if (refused) return;
  try {
    const budget = budgetsOf(getServiceConfig().throttle).authFailures;
    if (budget) await consult((s) => s.refund(budget, `client:${request.client}`), request);
  } catch (e) {
    logEvent('warn', 'throttle-unavailable', { message: e instanceof Error ? e.message : String(e), requestId: request.requestId });
  }
}

/**
 * Count one failed authentication of a client that reserved no place (a credential this process verified
 * before that is refused now). Never throws (a failure to count is logged).
 */
export async function countAuthFailure(request: ThrottleRequest): Promise<void> {
  try {
    const budget = budgetsOf(getServiceConfig().throttle).authFailures;
    if (budget) await consult((s) => s.hit(budget, `client:${request.client}`), request);
  } catch (e) {
    logEvent('warn', 'throttle-unavailable', { message: e instanceof Error ? e.message : String(e), requestId: request.requestId });
  }
}

/**
 * Count an admitted write against its budgets (see the module header), refusing it when one is spent.
 * The budgets are consulted together; one spent refuses the write (a place another budget gave it stays
 * taken, as a refused request still came).
 * @throws ServiceError TOO_MANY_REQUESTS (429, `Retry-After`)
 */
export async function admitWrite(writer: Writer, request: ThrottleRequest): Promise<void> {
  const budgets = budgetsOf(getServiceConfig().throttle);
  const client = request.client;
  const checks: { budget: Budget; key: string; who: string }[] = [];
  if (writer.kind !== 'game-server' && budgets.clientWrites)
    checks.push({ budget: budgets.clientWrites, key: `client:${client}`, who: 'Too many changes from this address' });
  if (writer.kind === 'player' && budgets.accountWrites)
    checks.push({ budget: budgets.accountWrites, key: `account:${writer.subject}`, who: 'Too many changes for this account' });
  if (writer.kind === 'game-server' && budgets.serverWrites)
    checks.push({ budget: budgets.serverWrites, key: `server:${writer.subject}`, who: 'Too many changes from this game server' });
  const verdicts = await Promise.all(checks.map((c) => consult((s) => s.hit(c.budget, c.key), request)));
  const spent = checks.find((_, i) => verdicts[i] !== undefined && !verdicts[i].allowed);
  if (spent) throw tooMany(spent.budget, spent.who);
}
