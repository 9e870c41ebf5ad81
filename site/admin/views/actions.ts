/**
 * Operator actions (docs/architecture.md, "Operator console"): the dialog that takes an action's values and
 * its required reason, says in one sentence what it will do (`confirm.ts`), and sends it once with the key of
 * its intent (`intents.ts`); and the list of actions sent without an answer, which can be sent again with the
 * same key or forgotten.
 *
 * Sending: the confirm button and every field are locked from the first click, and the request carries the
 * intent's key, so a double click, a retry or a second tab apply the action once. The service's answer ends
 * the intent (its key is spent); a refusal is shown in place, its problem's title and detail (a second
 * reversal's 409 links to the reversing entry), and the fields open again for another try, which is another
 * intent. A request that got no answer keeps its key and its values: the dialog offers to send it again, and
 * the page lists it until it is answered. When the dialog closes after anything was sent, the page reloads
 * the account from the service: what the page shows after an action is what the service holds, never a
 * guess. The controls are only ever drawn for a role that may act (`canAct`): a support token's page has none.
 */
import * as api from '../api.js';
import { ApiError } from '../api.js';
import { h } from '../../dom.js';
import {
  confirmation,
  formatTime,
  intentSummary,
  type BagGrantFacts,
  type EntryFacts,
  type ItemFacts,
  type PlannedAction,
  type Target,
} from '../confirm.js';
import type { Intent, KeyedAction, PendingIntent } from '../intents.js';
import { canAct } from '../session.js';
import { consoleHref, playerState } from '../state.js';
import { problemBox, problemParts } from './common.js';
import type { ConsoleContext } from './context.js';

/** An action the page offers on an account, with what its confirmation needs. */
export type ActionRequest =
  | { readonly kind: 'grant'; readonly target: Target; readonly balance: number }
  | { readonly kind: 'reverse'; readonly target: Target; readonly entry: EntryFacts; readonly balance: number }
  | { readonly kind: 'revoke'; readonly target: Target }
  | { readonly kind: 'ban'; readonly target: Target }
  | { readonly kind: 'unban'; readonly target: Target; readonly bannedAt: string; readonly until: string | null }
  | { readonly kind: 'erase'; readonly target: Target }
  | { readonly kind: 'bag-reverse'; readonly target: Target; readonly grant: BagGrantFacts; readonly held: number }
  | { readonly kind: 'void'; readonly target: Target; readonly item: ItemFacts };

/** The keyed action of each kind of request (its route). */
export const ACTION_OF: Readonly<Record<ActionRequest['kind'], KeyedAction>> = Object.freeze({
  grant: 'grant-coin',
  reverse: 'reversal',
  revoke: 'revoke-sessions',
  ban: 'ban',
  unban: 'unban',
  erase: 'erase',
  'bag-reverse': 'bag-reversal',
  void: 'item-void',
});

/** Largest grant (`schemas/requests/grant-coin.schema.json`). */
const MAX_GRANT = 1_000_000_000;
/** Longest reason (the request schemas' `reason`). */
const MAX_REASON = 200;

/**
 * Send an intent with its key through its route (the values come from the intent alone, so a pending one
 * can be sent again after a reload).
 * @returns a sentence saying what the service did.
 * @throws ApiError as the route refuses, or with status 0 when nothing answered.
 */
export async function perform(intent: Intent, key: string): Promise<string> {
  const p = intent.params;
  const reason = String(p.reason ?? '');
  switch (intent.action) {
    case 'grant-coin': {
      const r = await api.grantCoin(intent.target, Number(p.amount), reason, key);
      return `Granted ${r.amount} coin${r.idempotent ? ' (the first request had already done it)' : ''}; the balance is ${r.balance}.`;
    }
    case 'reversal': {
      const r = await api.reverseEntry(String(p.entryId), reason, key);
      return `Reversed ${r.amount} coin${r.idempotent ? ' (the first request had already done it)' : ''}; the balance is ${r.balance}.`;
    }
    case 'revoke-sessions':
      await api.revokeSessions(intent.target, reason, key);
      return 'Every session until now is revoked.';
    case 'ban': {
      const r = await api.ban(intent.target, reason, typeof p.until === 'string' ? p.until : null, key);
      return r.access.ban?.until ? `Banned until ${formatTime(r.access.ban.until)}.` : 'Banned without end.';
    }
    case 'unban':
      await api.unban(intent.target, reason, key);
      return 'The ban is lifted.';
    case 'erase':
      await api.erase(intent.target, reason, key);
      return 'The personal data is erased and the account closed.';
    case 'bag-reversal': {
      const r = await api.reverseBagGrant(intent.target, String(p.sourceRef), reason, key);
      return `Took back ${r.quantity}${r.idempotent ? ' (the first request had already done it)' : ''}; ${r.quantityAfter} held now.`;
    }
    case 'item-void': {
      const r = await api.voidItem(String(p.studioUuid), reason, key);
      return `The item is voided${r.idempotent ? ' (the first request had already done it)' : ''}.`;
    }
  }
}

/** The reversal a 409 names (`… (reversal <entry id>).`), or undefined. */
export function reversingEntry(e: unknown): string | undefined {
  if (!(e instanceof ApiError) || e.status !== 409) return undefined;
  return /\(reversal ([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\)/.exec(e.detail)?.[1];
}

/** The bag reversal a 409 names (`… (reversal bag-reversal:<key>).`), or undefined. */
export function reversingBagRef(e: unknown): string | undefined {
  if (!(e instanceof ApiError) || e.status !== 409) return undefined;
  return /\(reversal (bag-reversal:[A-Za-z0-9._:~+/=-]{8,255})\)/.exec(e.detail)?.[1];
}

/** `YYYY-MM-DDTHH:MM` of a `datetime-local` field, read as UTC, as the RFC 3339 time the ban takes; null when empty. */
export function untilOf(local: string): string | null | undefined {
  if (local === '') return null;
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}$/.test(local)) return undefined;
  const iso = `${local}:00Z`;
  return Number.isNaN(Date.parse(iso)) ? undefined : iso;
}

/**
 * Open the dialog of `request` (see the module header). Nothing is drawn for a role that may not act.
 * @param opener the control that opened it (focus returns there when it closes).
 */
export function openAction(ctx: ConsoleContext, request: ActionRequest, opener?: HTMLElement): void {
  if (!ctx.who || !canAct(ctx.who.role)) return;
  const action = ACTION_OF[request.kind];
  const target = request.target;
  const dialog = h('dialog', { id: 'action-dialog', class: 'action-dialog', 'aria-labelledby': 'action-title', 'data-action': action });
  const fields: (HTMLInputElement | HTMLTextAreaElement)[] = [];
  const field = <T extends HTMLInputElement | HTMLTextAreaElement>(el: T): T => {
    fields.push(el);
    return el;
  };

  const amount =
    request.kind === 'grant'
      ? field(h('input', { id: 'action-amount', type: 'number', min: 1, max: MAX_GRANT, step: 1, required: true, inputmode: 'numeric' }))
      : undefined;
  const until =
    request.kind === 'ban'
      ? field(h('input', { id: 'action-until', type: 'datetime-local', 'aria-describedby': 'action-until-help' }))
      : undefined;
  const reason = field(
    h('textarea', { id: 'action-reason', rows: 2, maxlength: MAX_REASON, required: true, 'aria-describedby': 'action-reason-help' }),
  );
  const typed = request.kind === 'erase' ? field(h('input', { id: 'action-typed', autocomplete: 'off', spellcheck: 'false' })) : undefined;
  const effect = h('p', { id: 'action-effect', class: 'effect', 'aria-live': 'polite' });
  const status = h('div', { id: 'action-status', class: 'form-status' });
  // what takes something away is red; a grant or a lifted ban is not
  const confirmButton = h('button', {
    id: 'action-confirm',
    type: 'submit',
    class: request.kind === 'grant' || request.kind === 'unban' ? null : 'danger',
  });
  const cancel = h('button', { id: 'action-cancel', type: 'button', class: 'secondary' }, 'Cancel');

  /** The planned action as the fields stand, or undefined while a value is missing or wrong. */
  const planned = (): { action: PlannedAction; intent: Intent } | undefined => {
    const why = reason.value;
    let plan: PlannedAction;
    const params: Record<string, string | number | null> = { reason: why };
    switch (request.kind) {
      case 'grant': {
        const n = Number(amount!.value);
        if (!Number.isInteger(n) || n < 1 || n > MAX_GRANT) return undefined;
        plan = { kind: 'grant', target, amount: n, balance: request.balance };
        params.amount = n;
        break;
      }
      case 'reverse':
        plan = { kind: 'reverse', target, entry: request.entry, balance: request.balance };
        params.entryId = request.entry.entryId;
        break;
      case 'ban': {
        const end = untilOf(until!.value);
        if (end === undefined) return undefined;
        plan = { kind: 'ban', target, until: end };
        params.until = end;
        break;
      }
      case 'unban':
        plan = { kind: 'unban', target, bannedAt: request.bannedAt, until: request.until };
        break;
      case 'bag-reverse':
        plan = request;
        params.sourceRef = request.grant.sourceRef;
        break;
      case 'void':
        plan = request;
        params.studioUuid = request.item.studioUuid;
        break;
      default:
        plan = { kind: request.kind, target };
    }
    return { action: plan, intent: { action, target: target.studioId, params } };
  };

  let sent = false;
  let busy = false;
  /** The intent sent without an answer: the fields stay as they were and the button sends it again. */
  let unanswered: Intent | undefined;

  const refresh = (): void => {
    const plan = planned();
    const words = confirmation(plan?.action ?? planned0(request));
    effect.textContent = plan ? words.effect : 'Fill in every field to see what this will do.';
    confirmButton.textContent = unanswered ? 'Send the same request again' : words.button;
    const typedOk = words.typed === undefined || typed?.value === words.typed;
    confirmButton.disabled = busy || (!unanswered && (!plan || reason.value.trim() === '' || !typedOk));
  };

  const lock = (locked: boolean): void => {
    for (const f of fields) f.disabled = locked;
  };

  const send = async (): Promise<void> => {
    const plan = planned();
    const intent = unanswered ?? plan?.intent;
    if (busy || !intent) return;
    busy = true;
    sent = true;
    lock(true);
    refresh();
    status.replaceChildren(h('p', { class: 'muted' }, 'Sending…'));
    const { key } = ctx.keys.keyFor(intent);
    try {
      const done = await perform(intent, key);
      ctx.keys.answered(intent);
      unanswered = undefined;
      busy = false;
      close();
      ctx.announce(done);
    } catch (e) {
      busy = false;
      if (e instanceof ApiError && e.status === 0) {
        // no answer: the key stays with these values (until an answer), to be sent again as they are
        unanswered = intent;
      } else {
        ctx.keys.answered(intent);
        unanswered = undefined;
        lock(false);
      }
      const entry = reversingEntry(e);
      const bagRef = request.kind === 'bag-reverse' ? reversingBagRef(e) : undefined;
      const href = entry
        ? consoleHref({ ...playerState(target.studioId), entry })
        : bagRef && request.kind === 'bag-reverse'
          ? consoleHref({ ...playerState(target.studioId), def: request.grant.definitionId, bagRef })
          : undefined;
      const link = href
        ? h('p', {}, h('a', { id: 'reversing-entry', href }, `Show the reversing entry ${entry ?? bagRef ?? ''}`))
        : undefined;
      status.replaceChildren(problemBox(e, link));
      refresh();
      ctx.announce(problemParts(e).title);
    }
  };

  const close = (): void => {
    if (dialog.open) dialog.close();
  };
  dialog.addEventListener('close', () => {
    dialog.remove();
    if (ctx.signal.aborted) return;
    opener?.focus();
    if (sent) ctx.reload();
  });
  // leaving the view (a 401's sign-in, Back) takes the dialog away with it
  ctx.signal.addEventListener('abort', () => dialog.remove());
  dialog.addEventListener('cancel', (event) => {
    if (busy) event.preventDefault();
  });
  cancel.addEventListener('click', () => {
    if (!busy) close();
  });
  for (const f of fields) f.addEventListener('input', refresh);

  const form = h(
    'form',
    { method: 'dialog', class: 'action-form' },
    h('h2', { id: 'action-title' }, confirmation(planned0(request)).title),
    h('p', { class: 'muted' }, 'Account ', h('code', {}, target.studioId), target.displayName === '' ? '' : ` (${target.displayName})`),
    amount ? h('label', { for: 'action-amount' }, 'Amount (coin)') : null,
    amount ?? null,
    until ? h('label', { for: 'action-until' }, 'Ends (UTC)') : null,
    until ?? null,
    until ? h('p', { id: 'action-until-help', class: 'help' }, 'Leave empty for a ban without end.') : null,
    h('label', { for: 'action-reason' }, 'Reason'),
    reason,
    h('p', { id: 'action-reason-help', class: 'help' }, 'Required; kept with the change, and read by operators, never by the player.'),
    typed ? h('label', { for: 'action-typed' }, `Type ${target.studioId} to confirm`) : null,
    typed ?? null,
    effect,
    h('div', { class: 'buttons' }, confirmButton, cancel),
    status,
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    void send();
  });
  dialog.append(form);
  document.body.append(dialog);
  refresh();
  dialog.showModal();
  (fields[0] ?? confirmButton).focus();
}

/** The planned action of a request before any value is filled in (its title and button). */
function planned0(request: ActionRequest): PlannedAction {
  switch (request.kind) {
    case 'grant':
      return { kind: 'grant', target: request.target, amount: 0, balance: request.balance };
    case 'ban':
      return { kind: 'ban', target: request.target, until: null };
    default:
      return request;
  }
}

/**
 * The actions sent without an answer (for `target`, or all), each with what it was and two buttons: send the
 * same request again with its key, or forget it. Empty (and hidden) when there are none or the role may not act.
 */
export function pendingPanel(ctx: ConsoleContext, target?: string): HTMLElement {
  const panel = h('section', { id: 'pending', class: 'panel pending', 'aria-labelledby': 'pending-heading', hidden: true });
  if (!ctx.who || !canAct(ctx.who.role)) return panel;
  const list = ctx.keys.pendingFor(target);
  if (list.length === 0) return panel;
  panel.hidden = false;
  panel.append(
    h('h2', { id: 'pending-heading' }, 'Sent without an answer'),
    h(
      'p',
      { class: 'help' },
      'These actions were sent but no answer came back, so whether they were applied is not known. Sending one again uses the same key: the service applies it at most once.',
    ),
  );
  const ul = h('ul', { class: 'pending-list' });
  for (const p of list) ul.append(pendingItem(ctx, p));
  panel.append(ul);
  return panel;
}

function pendingItem(ctx: ConsoleContext, p: PendingIntent): HTMLElement {
  const status = h('div', { class: 'form-status' });
  const again = h('button', { type: 'button', 'data-pending': p.key }, 'Send again');
  const forget = h('button', { type: 'button' }, 'Forget');
  again.addEventListener('click', () => {
    again.disabled = true;
    forget.disabled = true;
    status.replaceChildren(h('p', { class: 'muted' }, 'Sending…'));
    perform(p.intent, ctx.keys.keyFor(p.intent).key).then(
      (done) => {
        ctx.keys.answered(p.intent);
        ctx.announce(done);
        ctx.reload();
      },
      (e: unknown) => {
        if (!(e instanceof ApiError && e.status === 0)) ctx.keys.answered(p.intent);
        again.disabled = false;
        forget.disabled = false;
        status.replaceChildren(problemBox(e));
      },
    );
  });
  forget.addEventListener('click', () => {
    ctx.keys.discard(p.intent);
    ctx.reload();
  });
  return h(
    'li',
    {},
    h(
      'span',
      {},
      intentSummary(p.intent),
      ' ',
      h('span', { class: 'muted' }, `First sent ${formatTime(new Date(p.since).toISOString())}.`),
    ),
    ' ',
    again,
    ' ',
    forget,
    status,
  );
}
