/**
 * Idempotency keys of operator actions, one per intended action (docs/architecture.md, "Operator console";
 * docs/api.md, "Security": a key is kept forever by the service, the same key with the same request replays the
 * first answer, with another request it is 422). DOM-free: the storage and the key source are passed in.
 *
 * The lifecycle: the page asks {@link ActionKeys.keyFor} for the key of an _intent_ (the action, what it is
 * aimed at, and every value that decides the request, the reason included) when the operator confirms it.
 * The first time, a new key is made and kept; until the service answers, the same intent gets the same key
 * back, so a double click, a second tab of the same session, or a retry after a network error sends the
 * same key, and the service applies the action once whatever happens on the way. Once the service has
 * answered (a success or a refusal: either way the request reached it and the key is spent),
 * {@link ActionKeys.answered} forgets the key, and the next intent, even an identical one, is a new action
 * with a new key. A request that got no answer keeps its key (nothing is done: the key stays until an
 * answer): the page offers to send the same request again, and the intents still pending are listed
 * ({@link ActionKeys.pendingFor}) until they are answered or the operator, having looked at the state,
 * discards one ({@link ActionKeys.discard}).
 *
 * Pending intents are kept in the tab's session storage under {@link PENDING_KEY}, so a reload between a
 * lost answer and the retry keeps the key too.
 */
import { isRecord } from '../../api/_lib/util/json.js';
import type { KeyValueStore } from './session.js';

/** Where pending intents are kept in the tab's session storage. */
export const PENDING_KEY = 'console.pending-actions';

/** The actions that carry an idempotency key (their routes: the OpenAPI document, `/docs/`). */
export const KEYED_ACTIONS = ['grant-coin', 'reversal', 'revoke-sessions', 'ban', 'unban', 'erase', 'bag-reversal', 'item-void'] as const;
/** One keyed action. */
export type KeyedAction = (typeof KEYED_ACTIONS)[number];

/** One intended action: what it is, what it is aimed at, and every value of its request but the key. */
export interface Intent {
  readonly action: KeyedAction;
  /** The account (studio id) or entry the action is aimed at. */
  readonly target: string;
  /** Every member of the request besides the key (amount, entry, until, reason…), as sent. */
  readonly params: Readonly<Record<string, string | number | null>>;
}

/** An intent sent without an answer yet, with its key and when it was first sent (ms since the epoch). */
export interface PendingIntent {
  readonly intent: Intent;
  readonly key: string;
  readonly since: number;
}

/** The key of an intent, and whether it is a retry of one sent before (the same key again). */
export interface KeyChoice {
  readonly key: string;
  readonly retry: boolean;
}

/** The identity of an intent: its action, target and params as canonical JSON (params sorted by name). */
export function intentId(intent: Intent): string {
  const params = Object.keys(intent.params)
    .sort()
    .map((k) => [k, intent.params[k]]);
  return JSON.stringify([intent.action, intent.target, params]);
}

/** A new key: `console-<action>-<uuid>` (within the service's rule: 8-255 of letters, digits and `-`). */
export function newKey(action: KeyedAction, uuid: () => string = () => crypto.randomUUID()): string {
  return `console-${action}-${uuid()}`;
}

/** The keys of intended actions (see the module header). */
export class ActionKeys {
  private readonly pending = new Map<string, PendingIntent>();

  /**
   * @param store the tab's session storage, where pending intents are kept.
   * @param mint makes a new key for an action; default {@link newKey}.
   * @param now the clock, ms since the epoch.
   */
  constructor(
    private readonly store: KeyValueStore,
    private readonly mint: (action: KeyedAction) => string = (a) => newKey(a),
    private readonly now: () => number = Date.now,
  ) {
    for (const p of this.load()) this.pending.set(intentId(p.intent), p);
  }

  /** The key to send `intent` with: the one kept for the same intent (a retry), else a new one, kept from now on. */
  keyFor(intent: Intent): KeyChoice {
    const id = intentId(intent);
    const kept = this.pending.get(id);
    if (kept) return { key: kept.key, retry: true };
    const key = this.mint(intent.action);
    this.pending.set(id, { intent, key, since: this.now() });
    this.save();
    return { key, retry: false };
  }

  /** The service answered `intent` (a success or a refusal): its key is spent; forget it. */
  answered(intent: Intent): void {
    if (this.pending.delete(intentId(intent))) this.save();
  }

  /** The operator gives up a pending intent (having looked at the state): forget its key. */
  discard(intent: Intent): void {
    this.answered(intent);
  }

  /** The intents sent without an answer that are aimed at `target` (or every one), oldest first. */
  pendingFor(target?: string): PendingIntent[] {
    return [...this.pending.values()].filter((p) => target === undefined || p.intent.target === target).sort((a, b) => a.since - b.since);
  }

  private load(): PendingIntent[] {
    try {
      const raw = this.store.getItem(PENDING_KEY);
      const list: unknown = raw === null ? [] : JSON.parse(raw);
      return Array.isArray(list) ? list.filter(isPending) : [];
    } catch {
      return [];
    }
  }

  private save(): void {
    try {
      if (this.pending.size === 0) this.store.removeItem(PENDING_KEY);
      else this.store.setItem(PENDING_KEY, JSON.stringify([...this.pending.values()]));
    } catch {
      // a storage that cannot be written keeps the keys in memory only
    }
  }
}

/** True for a pending intent read back from storage (anything else there is dropped). */
function isPending(v: unknown): v is PendingIntent {
  return (
    isRecord(v) &&
    typeof v.key === 'string' &&
    typeof v.since === 'number' &&
    isRecord(v.intent) &&
    (KEYED_ACTIONS as readonly unknown[]).includes(v.intent.action) &&
    typeof v.intent.target === 'string' &&
    isRecord(v.intent.params) &&
    Object.values(v.intent.params).every((x) => x === null || typeof x === 'string' || typeof x === 'number')
  );
}
