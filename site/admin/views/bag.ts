/**
 * The bag of the player view (docs/architecture.md, "Bag reversals", "Operator console"): the stackables
 * held now by definition, with their catalog names and icons, and for the definition whose history is open
 * (`def` in the address) its grants, consumptions and reversals newest first, read from
 * `GET /api/admin/players/{key}/bag?definitionId=` in pages ("Older entries"). A reversal links to the grant
 * it reverses and a reversed grant to its reversal (`bagRef` in the address marks one). An admin gets
 * "Reverse this grant…" on each grant not reversed yet: a reason, the effect in one sentence with the units
 * held before and after (`confirm.ts`), and one idempotency key per intended reversal (`actions.ts`).
 */
import * as api from '../api.js';
import type { PlayerBagResponse, PlayerSummaryResponse } from '../api.js';
import { catalogEntry } from '../catalog.js';
import { formatCoin, formatSigned, type Target } from '../confirm.js';
import { h } from '../../dom.js';
import { canAct } from '../session.js';
import { consoleHref, type ConsoleState } from '../state.js';
import { openAction } from './actions.js';
import { catalogCell, isAbort, onMore, problemBox, section, timeText } from './common.js';
import type { ConsoleContext } from './context.js';

type PlayerView = Extract<ConsoleState, { view: 'player' }>;
type BagEntry = PlayerBagResponse['entries'][number];

/** Pages read at most to find a marked entry (`BAG_PAGE` entries each). */
export const BAG_SEARCH_PAGES = 10;

/** How each bag entry kind reads. */
const KIND_LABELS: Readonly<Record<BagEntry['kind'], string>> = Object.freeze({
  grant: 'Grant',
  consume: 'Consumption',
  reversal: 'Reversal',
});

/** The history table's columns (an admin's has an Action column after them). */
const HEAD = ['When', 'Kind', 'Change', 'Held after', 'Source ref', 'Reversal', 'Reason'] as const;

/**
 * The bag section: one row per definition held (and the open one, even when none is held any more), each
 * with a button that opens its history in place and keeps it in the address.
 * @returns the section and a promise that settles once the open history has been read.
 */
export function bagSection(
  state: PlayerView,
  summary: PlayerSummaryResponse,
  target: Target,
  ctx: ConsoleContext,
  erased: boolean,
): { el: HTMLElement; done: Promise<void> } {
  const lines = [...summary.bag];
  if (state.def !== '' && !lines.some((l) => l.definitionId === state.def)) lines.push({ definitionId: state.def, quantity: 0 });
  if (lines.length === 0) return { el: section('bag', 'Bag', h('p', { class: 'muted' }, 'The bag is empty.')), done: Promise.resolve() };
  const table = h(
    'table',
    { id: 'bag-table', class: 'data responsive' },
    h('caption', { class: 'visually-hidden' }, 'Stackables in the bag'),
  );
  const head = table.createTHead().insertRow();
  for (const c of ['Item', 'Quantity', 'History']) head.append(h('th', { scope: 'col' }, c));
  const body = table.createTBody();
  let open = state.def;
  let done: Promise<void> = Promise.resolve();
  const toggles = new Map<string, { button: HTMLButtonElement; detail: HTMLTableRowElement }>();

  const show = (def: string, mark: string): Promise<void> => {
    for (const [d, t] of toggles) {
      const now = d === def;
      t.detail.hidden = !now;
      t.button.setAttribute('aria-expanded', String(now));
      t.button.textContent = now ? 'Hide history' : 'History';
      if (!now) t.detail.firstElementChild!.replaceChildren();
    }
    open = def;
    const t = toggles.get(def);
    if (!t) return Promise.resolve();
    const line = lines.find((l) => l.definitionId === def)!;
    return loadHistory(t.detail.firstElementChild as HTMLElement, { state, def, mark, held: line.quantity, target, ctx, erased });
  };

  for (const line of lines) {
    const def = line.definitionId;
    const detail = h('tr', { class: 'history-row', 'data-history': def, hidden: true }, h('td', { colspan: 3 }));
    (detail.firstElementChild as HTMLElement).id = `bag-history-${def}`;
    const button = h(
      'button',
      {
        type: 'button',
        class: 'small',
        'aria-expanded': 'false',
        'aria-controls': `bag-history-${def}`,
        'aria-label': `History of ${def}`,
      },
      'History',
    );
    button.addEventListener('click', () => {
      const next = open === def ? '' : def;
      ctx.rewrite({ ...state, def: next, bagRef: '' });
      void show(next, '');
    });
    toggles.set(def, { button, detail });
    body.append(
      h(
        'tr',
        { 'data-definition': def },
        h('td', { 'data-label': 'Item' }, catalogCell(def)),
        h('td', { class: 'num', 'data-label': 'Quantity' }, formatCoin(line.quantity)),
        h('td', { 'data-label': 'History' }, button),
      ),
      detail,
    );
  }
  if (open !== '') done = show(open, state.bagRef);
  return { el: section('bag', 'Bag', h('div', { class: 'table-wrap' }, table)), done };
}

interface HistoryOptions {
  readonly state: PlayerView;
  readonly def: string;
  /** A source ref to mark and scroll to, or ''. */
  readonly mark: string;
  /** Units held now. */
  readonly held: number;
  readonly target: Target;
  readonly ctx: ConsoleContext;
  readonly erased: boolean;
}

/** Fill `cell` with the first page of a definition's history (more pages while the marked entry is not found). */
async function loadHistory(cell: HTMLElement, o: HistoryOptions): Promise<void> {
  const { ctx } = o;
  cell.replaceChildren(h('p', { class: 'muted', 'aria-busy': 'true' }, 'Reading the bag’s history…'));
  const name = await catalogEntry(o.def).then(
    (e) => e.name ?? '',
    () => '',
  );
  const act = !o.erased && ctx.who !== undefined && canAct(ctx.who.role);
  const table = h(
    'table',
    { class: 'data responsive bag-history' },
    h('caption', { class: 'visually-hidden' }, `Entries of ${o.def}, newest first`),
  );
  const tr = table.createTHead().insertRow();
  for (const c of [...HEAD, ...(act ? ['Action'] : [])]) tr.append(h('th', { scope: 'col' }, c));
  const tbody = table.createTBody();
  const more = h('button', { type: 'button', class: 'small bag-older', hidden: true }, 'Older entries');
  const status = h('div', { class: 'form-status' });
  let cursor = '';

  const page = async (): Promise<boolean> => {
    const answer = await api.playerBag(o.state.key, { definitionId: o.def, cursor }, ctx.signal);
    if (ctx.signal.aborted) return false;
    for (const e of answer.entries) tbody.append(entryRow(e, name, o, act));
    cursor = answer.cursor ?? '';
    more.hidden = answer.cursor === null;
    return answer.entries.some((e) => e.sourceRef === o.mark);
  };
  onMore(more, page, (problem) => status.replaceChildren(problem));

  try {
    let found = await page();
    for (let n = 1; o.mark !== '' && !found && cursor !== '' && n < BAG_SEARCH_PAGES; n++) found = await page();
  } catch (e) {
    if (!ctx.signal.aborted && !isAbort(e)) cell.replaceChildren(problemBox(e));
    return;
  }
  if (ctx.signal.aborted) return;
  cell.replaceChildren(
    tbody.rows.length === 0 ? h('p', { class: 'muted' }, 'No entries.') : h('div', { class: 'table-wrap' }, table),
    h('p', { class: 'pager' }, more),
    status,
  );
  const marked = cell.querySelector<HTMLElement>('tr.marked');
  if (marked) {
    marked.scrollIntoView({ block: 'center' });
    marked.focus({ preventScroll: true });
  }
}

function entryRow(e: BagEntry, name: string, o: HistoryOptions, act: boolean): HTMLTableRowElement {
  const marked = e.sourceRef === o.mark;
  const row = h('tr', { 'data-ref': e.sourceRef, class: marked ? 'marked' : null, tabindex: marked ? '-1' : null });
  if (marked) row.setAttribute('aria-current', 'true');
  const href = (ref: string) => consoleHref({ ...o.state, def: o.def, bagRef: ref });
  const link = e.reverses
    ? h('span', {}, 'reverses ', h('a', { href: href(e.reverses), class: 'reverses' }, h('code', {}, e.reverses)))
    : e.reversedBy
      ? h('span', {}, 'reversed by ', h('a', { href: href(e.reversedBy), class: 'reversed-by' }, h('code', {}, e.reversedBy)))
      : h('span', { class: 'muted' }, '—');
  const reason =
    e.reason !== undefined || e.actor !== undefined
      ? h('span', {}, e.reason ? `“${e.reason}”` : '', e.actor ? h('span', { class: 'muted' }, ` by ${e.actor}`) : '')
      : h('span', { class: 'muted' }, '—');
  const cells: (Node | string)[] = [
    timeText(e.at),
    KIND_LABELS[e.kind],
    h('span', { class: e.delta < 0 ? 'amount debit' : 'amount credit' }, formatSigned(e.delta)),
    formatCoin(e.quantityAfter),
    h('code', { class: 'source-ref' }, e.sourceRef),
    link,
    reason,
  ];
  cells.forEach((c, i) => row.append(h('td', { 'data-label': HEAD[i]! }, c)));
  if (act) {
    const cell = h('td', { 'data-label': 'Action' });
    if (e.kind === 'grant' && !e.reversedBy) {
      const button = h(
        'button',
        {
          type: 'button',
          class: 'small',
          'data-action': 'bag-reversal',
          'data-ref': e.sourceRef,
          'aria-label': `Reverse this grant of ${formatSigned(e.delta)} (${e.sourceRef})…`,
        },
        'Reverse this grant…',
      );
      button.addEventListener('click', () =>
        openAction(
          o.ctx,
          {
            kind: 'bag-reverse',
            target: o.target,
            held: o.held,
            grant: { sourceRef: e.sourceRef, definitionId: e.definitionId, name, quantity: e.delta, at: e.at },
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
