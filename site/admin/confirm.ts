/**
 * What each operator action will do, in words, before it is sent (docs/architecture.md, "Operator console";
 * the routes: the OpenAPI document, `/docs/`). Pure: the confirmation names the effect with the
 * numbers the operator is about to change, e.g. "Reverse +5,000 coin granted 2026-11-20 by
 * admin:STUDIO_…; balance 5,200 → 200.", "Take back 5 × Dusk Iron Ore granted 2026-11-20 (bag-grant:…); held 12 →
 * 7." (docs/architecture.md, "Bag reversals", "Voided items", "Scheduled verification"). Numbers are written in en-US digits with thousands separators,
 * times in UTC, so two operators reading the same confirmation read the same thing.
 */
import type { Intent } from './intents.js';
import type { WalletKind } from './state.js';

/** The account an action is aimed at, as the page shows it. */
export interface Target {
  readonly studioId: string;
  readonly displayName: string;
}

/** A wallet entry as the confirmation of its reversal names it. */
export interface EntryFacts {
  readonly entryId: string;
  readonly kind: WalletKind;
  /** Signed coin units (a credit is positive). */
  readonly amount: number;
  readonly at: string;
  /** Who asked for it (`<role>:<subject>`, `admin-password`, or '' when unknown). */
  readonly actor: string;
}

/** A bag grant as the confirmation of its reversal names it (an entry of `GET /api/admin/players/{key}/bag`). */
export interface BagGrantFacts {
  /** `bag-grant:{the game server's key}`. */
  readonly sourceRef: string;
  readonly definitionId: string;
  /** The definition's catalog name, or '' while unknown (the id is said then). */
  readonly name: string;
  /** Units the grant gave. */
  readonly quantity: number;
  readonly at: string;
}

/** A unique item as the confirmation of its void names it (`GET /api/admin/players/{key}/items`). */
export interface ItemFacts {
  readonly studioUuid: string;
  readonly definitionId: string;
  /** The definition's catalog name, or '' while unknown. */
  readonly name: string;
  /** `owned`, `assigned` or `equipped` (the states a void is taken from). */
  readonly state: string;
  /** The character it is assigned to or worn by, by name (or id), or ''. */
  readonly character: string;
}

/** Where the scheduled ledger check stands, as the confirmation of a run names it (`GET /api/admin/ledger/health`). */
export interface CheckFacts {
  /** The pass under way or the last one, or null before the first run. */
  readonly pass: number | null;
  /** True when that pass is over (a run starts the next). */
  readonly over: boolean;
}

/** An action the operator is about to take, with what its confirmation needs to say. */
export type PlannedAction =
  | { readonly kind: 'bag-reverse'; readonly target: Target; readonly grant: BagGrantFacts; readonly held: number }
  | { readonly kind: 'void'; readonly target: Target; readonly item: ItemFacts }
  | { readonly kind: 'verify'; readonly check: CheckFacts }
  | { readonly kind: 'grant'; readonly target: Target; readonly amount: number; readonly balance: number }
  | { readonly kind: 'reverse'; readonly target: Target; readonly entry: EntryFacts; readonly balance: number }
  | { readonly kind: 'revoke'; readonly target: Target }
  | { readonly kind: 'ban'; readonly target: Target; readonly until: string | null }
  | { readonly kind: 'unban'; readonly target: Target; readonly bannedAt: string; readonly until: string | null }
  | { readonly kind: 'erase'; readonly target: Target };

/** One action's confirmation: its heading, the effect in one sentence, the button, and what must be typed first. */
export interface Confirmation {
  readonly title: string;
  readonly effect: string;
  readonly button: string;
  /** Text the operator must type exactly before the button works (the studio id of an erasure), or undefined. */
  readonly typed?: string;
}

/** Digits of a whole number with a comma before each group of three from the right: `5200` → `5,200`. */
const grouped = (n: number): string => String(n).replace(/\B(?=(\d{3})+$)/g, ',');

/** Coin units (whole numbers) with thousands separators and a true minus sign: `5,000`, `−400`, whatever the browser's locale. */
export function formatCoin(n: number): string {
  return n < 0 ? `\u2212${grouped(-n)}` : grouped(n);
}

/** Coin units with their sign: `+5,000`, `−5,000`, `0`. */
export function formatSigned(n: number): string {
  return n > 0 ? `+${formatCoin(n)}` : formatCoin(n);
}

/** The UTC day of an ISO 8601 time: `2026-11-20`; the text itself when it is no time. */
export function formatDay(iso: string): string {
  const t = Date.parse(iso);
  return Number.isNaN(t) ? iso : new Date(t).toISOString().slice(0, 10);
}

/** An ISO 8601 time to the minute, in UTC: `2026-11-20 10:05 UTC`; the text itself when it is no time. */
export function formatTime(iso: string): string {
  const t = Date.parse(iso);
  return Number.isNaN(t) ? iso : `${new Date(t).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

/** An account as a confirmation names it: `Ada (STUDIO_…)`, or the studio id alone when it has no name (erased). */
export function accountLabel(t: Target): string {
  return t.displayName === '' ? t.studioId : `${t.displayName} (${t.studioId})`;
}

/** How a credit came, as a verb phrase: `granted`, `sent by verify-send`. */
const CAME: Readonly<Record<WalletKind, string>> = Object.freeze({
  admin_grant_coin: 'granted',
  verify_send_to_account_wallet: 'sent by verify-send',
  reversal: 'reversed',
});

/** `balance 5,200 → 200`, with a warning when the result is below zero (the service refuses such a reversal). */
function balanceChange(before: number, after: number): string {
  const change = `balance ${formatCoin(before)} → ${formatCoin(after)}`;
  return after < 0 ? `${change}: more than the account holds, so the service will refuse it` : change;
}

/** `held 12 → 7`, with a warning when the result is below zero (the service refuses such a reversal). */
function heldChange(before: number, after: number): string {
  const change = `held ${formatCoin(before)} → ${formatCoin(after)}`;
  return after < 0 ? `${change}: more than the account holds, so the service will refuse it` : change;
}

/** A catalog definition as a confirmation names it: its name, else its id. */
const named = (name: string, id: string): string => (name === '' ? id : name);

/** The confirmation of `action` (see the module header). */
export function confirmation(action: PlannedAction): Confirmation {
  if (action.kind === 'verify') {
    const c = action.check;
    const which =
      c.pass === null
        ? 'starts the first pass'
        : c.over
          ? `starts pass ${c.pass + 1}`
          : `continues pass ${c.pass} where the last run stopped`;
    return {
      title: 'Run the ledger check',
      effect: `Run the ledger check now: it ${which}, verifying each account’s hash chain and balance, each posting against its transfer and each reversal’s links for up to its time budget; the result is kept with the scheduled runs, and a broken invariant raises the alert.`,
      button: 'Run the check',
    };
  }
  const who = accountLabel(action.target);
  switch (action.kind) {
    case 'bag-reverse': {
      const g = action.grant;
      return {
        title: 'Reverse a bag grant',
        effect: `Take back ${formatCoin(g.quantity)} × ${named(g.name, g.definitionId)} granted ${formatDay(g.at)} (${g.sourceRef}) from ${who}; ${heldChange(action.held, action.held - g.quantity)}.`,
        button: `Take back ${formatCoin(g.quantity)}`,
      };
    }
    case 'void': {
      const i = action.item;
      const where = i.character === '' ? i.state : `${i.state} ${i.state === 'equipped' ? 'by' : 'to'} ${i.character}`;
      return {
        title: 'Void a unique item',
        effect: `Void ${named(i.name, i.definitionId)} (item ${i.studioUuid}, ${where}) of ${who}: it is no longer owned or wearable, no event may follow, and it stays in its history.`,
        button: 'Void the item',
      };
    }
    case 'grant':
      return {
        title: 'Grant coin',
        effect: `Grant ${formatSigned(action.amount)} coin to ${who}; ${balanceChange(action.balance, action.balance + action.amount)}.`,
        button: `Grant ${formatCoin(action.amount)} coin`,
      };
    case 'reverse': {
      const e = action.entry;
      const by = e.actor === '' ? '' : ` by ${e.actor}`;
      return {
        title: 'Reverse a wallet entry',
        effect: `Reverse ${formatSigned(e.amount)} coin ${CAME[e.kind]} ${formatDay(e.at)}${by}; ${balanceChange(action.balance, action.balance - e.amount)}.`,
        button: `Reverse ${formatCoin(e.amount)} coin`,
      };
    }
    case 'revoke':
      return {
        title: 'Revoke sessions',
        effect: `End every session of ${who}: each token issued until now is refused, on every device, and the player signs in again.`,
        button: 'Revoke sessions',
      };
    case 'ban':
      return {
        title: 'Ban the account',
        effect:
          action.until === null
            ? `Ban ${who} without end; their sessions end now and their tokens are refused until someone lifts the ban.`
            : `Ban ${who} until ${formatTime(action.until)}; their sessions end now and their tokens are refused until then.`,
        button: 'Ban',
      };
    case 'unban':
      return {
        title: 'Lift the ban',
        effect: `Lift the ban on ${who} (banned ${formatTime(action.bannedAt)}, ${action.until === null ? 'without end' : `until ${formatTime(action.until)}`}); tokens issued since the ban are let in again.`,
        button: 'Lift the ban',
      };
    case 'erase':
      return {
        title: 'Erase personal data',
        effect: `Erase the personal data of ${who} and close the account for good: the display name, username, name search entry, wallet entry notes and external links are removed; balances and histories stay. This cannot be undone.`,
        button: 'Erase and close',
        typed: action.target.studioId,
      };
  }
}

/**
 * What an intent sent without an answer was (`intents.ts`), in one sentence for the list of pending actions:
 * its action, its account, its numbers and its reason, e.g. `Grant +250 coin to STUDIO_… (reason: “outage”).`
 */
export function intentSummary(intent: Intent): string {
  const p = intent.params;
  const reason = typeof p.reason === 'string' ? ` (reason: “${p.reason}”)` : '';
  const who = intent.target;
  switch (intent.action) {
    case 'grant-coin':
      return `Grant ${formatSigned(Number(p.amount))} coin to ${who}${reason}.`;
    case 'reversal':
      return `Reverse entry ${String(p.entryId)} of ${who}${reason}.`;
    case 'revoke-sessions':
      return `Revoke the sessions of ${who}${reason}.`;
    case 'ban':
      return `Ban ${who} ${typeof p.until === 'string' ? `until ${formatTime(p.until)}` : 'without end'}${reason}.`;
    case 'unban':
      return `Lift the ban on ${who}${reason}.`;
    case 'erase':
      return `Erase the personal data of ${who}${reason}.`;
    case 'bag-reversal':
      return `Take back the bag grant ${String(p.sourceRef)} of ${who}${reason}.`;
    case 'item-void':
      return `Void item ${String(p.studioUuid)} of ${who}${reason}.`;
  }
}
