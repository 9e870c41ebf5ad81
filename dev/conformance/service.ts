/**
 * The conformance check's view of a running service (docs/architecture.md, "Conformance check"): JSON
 * calls to `base` as the operator (the headers of `OPERATOR_TOKEN` or `ADMIN_PASSWORD`, dev/cli.ts), as a
 * player (a token signed with the deployment's `JWT_SECRET`, when the environment holds it), or with no
 * credential; and the run's namespace, so that every account, username and idempotency key the run
 * makes carries its run id and nothing of a real player is touched.
 */

/** One answer: status, headers (lower-case names), and the body parsed as JSON (`{}` when it is not JSON). */
export interface Answer {
  readonly status: number;
  readonly headers: Headers;
  readonly body: Record<string, unknown>;
  /** True when the body was a JSON object (false: an HTML page, a proxy's error, an empty body). */
  readonly json: boolean;
}

/** Who a call is made as: the operator, a player's bearer token, or nobody. */
export type Caller = 'operator' | 'none' | { readonly token: string };

/** Thrown when the service cannot be reached at all (the CLI exits 3). */
export class Unreachable extends Error {
  override readonly name = 'Unreachable';
}

/** What a {@link Service} needs. */
export interface ServiceOptions {
  /** Base URL without trailing slash, e.g. `https://game.example.com`. */
  readonly base: string;
  /** The operator's headers (`Authorization` or `X-Admin-Password`). */
  readonly operator: Readonly<Record<string, string>>;
  /** Signs a player token for a studio id; undefined when the environment cannot (no `JWT_SECRET`). */
  readonly signPlayer?: ((studioId: string) => Promise<string>) | undefined;
  /** The run id that prefixes every name and key (default a fresh one, {@link newRunId}). */
  readonly runId?: string;
  /** `fetch` to use (default the global one). */
  readonly fetch?: typeof fetch;
}

/** A fresh run id: `conf-` and 12 base-36 characters of time and randomness (fits every key and name rule). */
export function newRunId(): string {
  const rand = Math.floor(Math.random() * 36 ** 6)
    .toString(36)
    .padStart(6, '0');
  return `conf-${Date.now().toString(36).slice(-6)}${rand}`;
}

/** An account the run created. */
export interface TestAccount {
  readonly accountId: string;
  readonly studioId: string;
}

/** The running service, seen by one conformance run. */
export class Service {
  readonly base: string;
  readonly runId: string;
  readonly signPlayer: ((studioId: string) => Promise<string>) | undefined;
  readonly #operator: Readonly<Record<string, string>>;
  readonly #fetch: typeof fetch;
  #keys = 0;
  #accounts = 0;

  constructor(options: ServiceOptions) {
    this.base = options.base;
    this.runId = options.runId ?? newRunId();
    this.signPlayer = options.signPlayer;
    this.#operator = options.operator;
    this.#fetch = options.fetch ?? fetch;
  }

  /** A new idempotency key of this run: `<runId>.<label>.<n>`. */
  key(label: string): string {
    return `${this.runId}.${label}.${++this.#keys}`;
  }

  /**
   * Call `method path` as `caller` with an optional JSON body (or `raw` text with its content type).
   * @throws Unreachable when no answer comes.
   */
  async call(
    method: string,
    path: string,
    caller: Caller = 'operator',
    options: { readonly body?: unknown; readonly headers?: Readonly<Record<string, string>>; readonly contentType?: string } = {},
  ): Promise<Answer> {
    const headers: Record<string, string> = { Accept: 'application/json', ...options.headers };
    if (caller === 'operator') Object.assign(headers, this.#operator);
    else if (caller !== 'none') headers.Authorization = `Bearer ${caller.token}`;
    if (options.body !== undefined) headers['Content-Type'] = options.contentType ?? 'application/json';
    let res: Response;
    try {
      res = await this.#fetch(`${this.base}${path}`, {
        method,
        headers,
        ...(options.body !== undefined ? { body: JSON.stringify(options.body) } : {}),
      });
    } catch (e) {
      throw new Unreachable(`${this.base} cannot be reached (${(e as Error).message}).`);
    }
    const text = await res.text();
    let body: Record<string, unknown> | undefined;
    try {
      const parsed = JSON.parse(text) as unknown;
      if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)) body = parsed as Record<string, unknown>;
    } catch {
      // not JSON: an empty body
    }
    return { status: res.status, headers: res.headers, body: body ?? {}, json: body !== undefined };
  }

  /**
   * Create an account of this run (display name `Conformance <runId> <label>`, username
   * `<runId>-<n>`), as the operator.
   * @throws Error naming the status when the service does not create it.
   */
  async newAccount(label: string): Promise<TestAccount> {
    const n = ++this.#accounts;
    const r = await this.call('POST', '/api/admin/accounts', 'operator', {
      body: {
        displayName: `Conformance ${this.runId} ${label}`.slice(0, 64),
        username: `${this.runId}-${n}`,
        idempotencyKey: this.key('account'),
      },
    });
    const account = r.body.account as TestAccount | undefined;
    if ((r.status !== 201 && r.status !== 200) || !account?.studioId)
      throw new Error(`POST /api/admin/accounts answered ${r.status}${detail(r)}; the run needs an admin credential.`);
    return { accountId: account.accountId, studioId: account.studioId };
  }
}

/** `: <detail>` of a problem answer, or ''. */
export function detail(a: Answer): string {
  return typeof a.body.detail === 'string' ? `: ${a.body.detail.slice(0, 160)}` : '';
}
