/**
 * The wallet of the player view (`GET /api/admin/players/{key}/wallet`; docs/architecture.md, "Reversals",
 * "Operator console"): the balance, the entries newest first in pages, the kind filter, and each entry with
 * its source ref, note, who asked for it, and its reversal link both ways (a reversal links to the entry it
 * reverses, a reversed entry to its reversal). The filter and the page are in the address; a link to an
 * entry (`entry=<id>`) finds its page, marks it and scrolls to it. An admin gets a Reverse button on each
 * credit not reversed yet.
 */
import { playerWallet, WALLET_PAGE, type PlayerWalletResponse, type WalletEntry } from '../api.js';
import { formatCoin, formatSigned, type Target } from '../confirm.js';
import { h } from '../../dom.js';
import { canAct } from '../session.js';
import { consoleHref, WALLET_KINDS, type ConsoleState, type WalletKind } from '../state.js';
import { openAction } from './actions.js';
import { isAbort, problemBox, section, timeText } from './common.js';
import type { ConsoleContext } from './context.js';

type PlayerView = Extract<ConsoleState, { view: 'player' }>;

/** How each entry kind reads. */
export const KIND_LABELS: Readonly<Record<WalletKind, string>> = Object.freeze({
  admin_grant_coin: 'Grant',
  verify_send_to_account_wallet: 'Verify-send',
  reversal: 'Reversal',
});

/** The wallet table's columns (an admin's has an Action column after them). */
const HEAD = ['When', 'Kind', 'Amount', 'Balance after', 'Source ref', 'Note', 'Asked by', 'Reversal'] as const;

/** Pages read at most to find a linked entry (`WALLET_PAGE` entries each). */
export const ENTRY_SEARCH_PAGES = 40;

/** The address of an entry of the account's wallet. */
function entryHref(state: PlayerView, entryId: string): string {
  return consoleHref({ ...state, kind: '', cursor: '', entry: entryId });
}

/**
 * The page that holds `state.entry` and the state that names it: the page `state` names when it holds the
 * entry (or there is no entry to find), else the unfiltered page found reading from the newest on (at most
 * {@link ENTRY_SEARCH_PAGES}); the page `state` names when none holds it.
 */
async function pageWithEntry(state: PlayerView, signal: AbortSignal): Promise<{ page: PlayerWalletResponse; shown: PlayerView }> {
  const first = await playerWallet(state.key, { kind: state.kind, cursor: state.cursor }, signal);
  if (state.entry === '' || first.transactions.some((t) => t.entryId === state.entry)) return { page: first, shown: state };
  let cursor = '';
  for (let n = 0; n < ENTRY_SEARCH_PAGES; n++) {
    const page = n === 0 && state.cursor === '' && state.kind === '' ? first : await playerWallet(state.key, { cursor }, signal);
    if (page.transactions.some((t) => t.entryId === state.entry)) return { page, shown: { ...state, kind: '', cursor } };
    if (page.cursor === null) break;
    cursor = page.cursor;
  }
  return { page: first, shown: state };
}

/**
 * The wallet section of `state`'s account, filled once its page has been read (the promise settles then;
 * a refusal is shown in the section).
 */
export function walletSection(
  state: PlayerView,
  target: Target,
  ctx: ConsoleContext,
  erased: boolean,
): { el: HTMLElement; done: Promise<void> } {
  const body = h('div', { 'aria-busy': 'true' }, h('p', { class: 'muted' }, 'Reading the wallet…'));
  const kind = h(
    'select',
    { id: 'wallet-kind' },
    h('option', { value: '' }, 'every kind'),
    ...WALLET_KINDS.map((k) => h('option', { value: k }, KIND_LABELS[k])),
  );
  kind.value = state.kind;
  kind.addEventListener('change', () =>
    ctx.navigate({ ...state, kind: kind.value as WalletKind | '', cursor: '', entry: '' }, { keepFocus: true }),
  );
  const el = section('wallet', 'Wallet', h('div', { class: 'filters' }, h('label', { for: 'wallet-kind' }, 'Kind'), kind), body);

  const done = pageWithEntry(state, ctx.signal).then(
    ({ page, shown }) => {
      if (ctx.signal.aborted) return;
      if (shown !== state) {
        ctx.rewrite(shown);
        kind.value = shown.kind;
      }
      body.replaceChildren(...walletBody(shown, page, target, ctx, erased));
      body.removeAttribute('aria-busy');
      const marked = body.querySelector<HTMLElement>('tr.marked');
      if (marked) {
        marked.scrollIntoView({ block: 'center' });
        marked.focus({ preventScroll: true });
      } else if (state.entry !== '') {
        body.prepend(
          h(
            'p',
            { class: 'notice', role: 'status' },
            `Entry ${state.entry} is not among this account's latest ${ENTRY_SEARCH_PAGES * WALLET_PAGE} entries.`,
          ),
        );
      }
    },
    (e: unknown) => {
      if (ctx.signal.aborted || isAbort(e)) return;
      body.replaceChildren(problemBox(e));
      body.removeAttribute('aria-busy');
    },
  );
  return { el, done };
}

function walletBody(state: PlayerView, page: PlayerWalletResponse, target: Target, ctx: ConsoleContext, erased: boolean): Node[] {
  const act = !erased && ctx.who !== undefined && canAct(ctx.who.role);
  const head = [...HEAD, ...(act ? ['Action'] : [])];
  const table = h(
    'table',
    { id: 'wallet-table', class: 'data responsive' },
    h('caption', { class: 'visually-hidden' }, 'Wallet entries, newest first'),
  );
  const tr = table.createTHead().insertRow();
  for (const c of head) tr.append(h('th', { scope: 'col' }, c));
  const tbody = table.createTBody();
  for (const t of page.transactions) tbody.append(entryRow(state, t, page.balance, target, ctx, act));
  const older = page.cursor
    ? h('a', { id: 'wallet-older', href: consoleHref({ ...state, cursor: page.cursor, entry: '' }) }, 'Older entries')
    : null;
  const newest =
    state.cursor !== '' ? h('a', { id: 'wallet-newest', href: consoleHref({ ...state, cursor: '', entry: '' }) }, 'Newest entries') : null;
  const filter = state.kind === '' ? '' : ` (${KIND_LABELS[state.kind].toLowerCase()} entries only)`;
  return [
    h('p', { id: 'balance', class: 'balance' }, 'Balance ', h('strong', {}, formatCoin(page.balance)), ' coin'),
    page.transactions.length === 0
      ? h('p', { class: 'muted', id: 'wallet-empty' }, `No entries${filter}.`)
      : h('div', { class: 'table-wrap' }, table),
    h('nav', { class: 'pager', 'aria-label': 'Wallet pages' }, newest, newest && older ? ' · ' : null, older),
  ];
}

function entryRow(
  state: PlayerView,
  t: WalletEntry,
  balance: number,
  target: Target,
  ctx: ConsoleContext,
  act: boolean,
): HTMLTableRowElement {
  const marked = state.entry === t.entryId;
  const row = h('tr', {
    id: `entry-${t.entryId}`,
    'data-entry': t.entryId,
    class: marked ? 'marked' : null,
    tabindex: marked ? '-1' : null,
  });
  if (marked) row.setAttribute('aria-current', 'true');
  const reversal = t.reverses
    ? h('span', {}, 'reverses ', h('a', { href: entryHref(state, t.reverses), class: 'reverses' }, h('code', {}, t.reverses.slice(0, 8))))
    : t.reversedBy
      ? h(
          'span',
          {},
          'reversed by ',
          h('a', { href: entryHref(state, t.reversedBy), class: 'reversed-by' }, h('code', {}, t.reversedBy.slice(0, 8))),
        )
      : h('span', { class: 'muted' }, '—');
  const cells: (Node | string)[] = [
    timeText(t.at),
    KIND_LABELS[t.kind],
    h('span', { class: t.amount < 0 ? 'amount debit' : 'amount credit' }, formatSigned(t.amount)),
    formatCoin(t.balanceAfter),
    h('code', { class: 'source-ref' }, t.sourceRef),
    t.note === '' ? h('span', { class: 'muted' }, '—') : h('span', { class: 'note' }, t.note),
    t.actor ? h('code', {}, t.actor) : h('span', { class: 'muted' }, 'not recorded'),
    reversal,
  ];
  cells.forEach((c, i) => row.append(h('td', { 'data-label': HEAD[i]! }, c)));
  if (act) {
    const cell = h('td', { 'data-label': 'Action' });
    if (t.kind !== 'reversal' && !t.reversedBy) {
      const button = h(
        'button',
        {
          type: 'button',
          'data-action': 'reversal',
          'data-entry': t.entryId,
          class: 'small',
          'aria-label': `Reverse ${formatSigned(t.amount)} coin of ${t.at.slice(0, 10)} (entry ${t.entryId.slice(0, 8)})…`,
        },
        'Reverse…',
      );
      button.addEventListener('click', () =>
        openAction(
          ctx,
          {
            kind: 'reverse',
            target,
            balance,
            entry: { entryId: t.entryId, kind: t.kind, amount: t.amount, at: t.at, actor: t.actor ?? '' },
          },
          button,
        ),
      );
      cell.append(button);
    }
    row.append(cell);
  }
  return row;
}
