/**
 * Search as you type without flooding the service (docs/architecture.md, "Operator console"): DOM-free, the
 * timers passed in. Each keystroke restarts a wait of `delayMs`; when it ends, the query is sent, unless a
 * request is already on its way: then it waits for that one and sends only the latest query typed meanwhile.
 * So at most one request is in flight, a burst of typing costs at most two requests, and an answer to a
 * query that is no longer the box's text is dropped, never shown.
 */

/** The timers the runner uses (the page's own, or a test's fake ones). */
export interface Timers {
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

/** What a runner does with a query and its answer. */
export interface TypeaheadOptions<T> {
  /** Wait after the last keystroke before sending, ms. */
  readonly delayMs: number;
  /** Send one query; its answer or a failure. */
  readonly run: (q: string) => Promise<T>;
  /** Show the answer to `q` (called only while `q` is still the latest query). */
  readonly show: (q: string, answer: T) => void;
  /** Show the failure of `q` (called only while `q` is still the latest query). */
  readonly fail: (q: string, error: unknown) => void;
  /** Called with true when a request goes out and false when none is in flight any more. */
  readonly busy?: (inFlight: boolean) => void;
  readonly timers?: Timers;
}

/** A running search box (see the module header). */
export interface Typeahead {
  /** The box's text changed to `q` (trimmed by the caller): wait, then send it. */
  input(q: string): void;
  /** Send the latest query now (Enter), still one request at a time. */
  flush(): void;
  /** The latest query typed. */
  latest(): string;
  /** Stop: nothing more is sent or shown. */
  dispose(): void;
}

const GLOBAL_TIMERS: Timers = {
  setTimeout: (fn, ms) => globalThis.setTimeout(fn, ms),
  clearTimeout: (h) => globalThis.clearTimeout(h as ReturnType<typeof setTimeout>),
};

/**
 * A search runner (see the module header). An empty query is never sent (the caller clears its list when it
 * passes one), nor a query whose answer is shown or on its way; a failed one is sent again by the next
 * {@link Typeahead.flush}.
 */
export function typeahead<T>(options: TypeaheadOptions<T>): Typeahead {
  const timers = options.timers ?? GLOBAL_TIMERS;
  let latest = '';
  /** The query of the answer shown or on its way (not sent again). */
  let sentLast: string | undefined;
  let timer: unknown;
  let inFlight = false;
  /** The wait ended while a request was in flight: send the latest query once it is answered. */
  let waiting = false;
  let disposed = false;

  const send = (): void => {
    if (disposed || latest === '' || latest === sentLast) return;
    if (inFlight) {
      waiting = true;
      return;
    }
    const q = latest;
    sentLast = q;
    inFlight = true;
    options.busy?.(true);
    options.run(q).then(
      (answer) => settle(() => options.show(q, answer), q, true),
      (error: unknown) => settle(() => options.fail(q, error), q, false),
    );
  };

  const settle = (report: () => void, q: string, ok: boolean): void => {
    inFlight = false;
    if (disposed) return;
    // an answer to a query that is no longer the box's text is dropped, and that query may be sent again later;
    // so may one that failed (Enter tries it again)
    if (!ok || q !== latest) sentLast = undefined;
    if (q === latest) report();
    if (waiting) {
      waiting = false;
      send();
    }
    if (!inFlight) options.busy?.(false);
  };

  return {
    input(q: string): void {
      latest = q;
      timers.clearTimeout(timer);
      // an emptied box may be given the same text again: it is sent again
      if (q === '') sentLast = undefined;
      else timer = timers.setTimeout(send, options.delayMs);
    },
    flush(): void {
      timers.clearTimeout(timer);
      send();
    },
    latest: () => latest,
    dispose(): void {
      disposed = true;
      timers.clearTimeout(timer);
    },
  };
}
