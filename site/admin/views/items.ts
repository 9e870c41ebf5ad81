/**
 * The unique items of the player view (docs/architecture.md, "Voided items", "Operator console"): the
 * account's items in every state, newest mint first, from `GET /api/admin/players/{key}/items` in pages
 * ("More items"), with the state filter in the address (`items`); each item's owner history on demand from
 * `GET /api/admin/items/{id}/events` (newest first, "Older events"; a void with its reason and who asked),
 * which every operator may read. An admin gets "Void…" on each item still owned, assigned or equipped: a
 * reason, the effect in one sentence (`confirm.ts`), and one idempotency key per intended void
 * (`actions.ts`).
 */
import * as api from '../api.js';
import type { ItemEventsResponse, PlayerItemsResponse, PlayerSummaryResponse } from '../api.js';
import { catalogEntry } from '../catalog.js';
import type { Target } from '../confirm.js';
import { h } from '../../dom.js';
import { canAct } from '../session.js';
import { ITEM_STATES, consoleHref, playerState, type ConsoleState, type ItemState } from '../state.js';
import { openAction } from './actions.js';
import { catalogCell, isAbort, onMore, problemBox, section, timeText } from './common.js';
import type { ConsoleContext } from './context.js';

type PlayerView = Extract<ConsoleState, { view: 'player' }>;
type Item = PlayerItemsResponse['items'][number];

/** The states a void is taken from (the others are final). */
export const VOIDABLE: readonly ItemState[] = ['owned', 'assigned', 'equipped'];

/** The items table's columns (an admin's has an Action column after them). */
const HEAD = ['Item', 'Instance', 'State', 'Character', 'Minted', 'Owner history'] as const;

/**
 * The items section of `state`'s account, filled once its first page has been read (the promise settles
 * then; a refusal is shown in the section).
 */
export function itemsSection(
  state: PlayerView,
  summary: PlayerSummaryResponse,
  target: Target,
  ctx: ConsoleContext,
  erased: boolean,
): { el: HTMLElement; done: Promise<void> } {
  const names = new Map(summary.characters.map((c) => [c.id, c.name]));
  const act = !erased && ctx.who !== undefined && canAct(ctx.who.role);
  const filter = h(
    'select',
    { id: 'items-state' },
    h('option', { value: '' }, 'every state'),
    ...ITEM_STATES.map((s) => h('option', { value: s }, s)),
  );
  filter.value = state.items;
  const body = h('div', {});
  const el = section('items', 'Unique items', h('div', { class: 'filters' }, h('label', { for: 'items-state' }, 'State'), filter), body);

  const load = (shown: PlayerView): Promise<void> => {
    body.setAttribute('aria-busy', 'true');
    body.replaceChildren(h('p', { class: 'muted' }, 'Reading the items…'));
    const table = h(
      'table',
      { id: 'items-table', class: 'data responsive' },
      h('caption', { class: 'visually-hidden' }, 'Unique items of the account'),
    );
    const tr = table.createTHead().insertRow();
    for (const c of [...HEAD, ...(act ? ['Action'] : [])]) tr.append(h('th', { scope: 'col' }, c));
    const tbody = table.createTBody();
    const more = h('button', { type: 'button', id: 'items-more', class: 'small', hidden: true }, 'More items');
    const status = h('div', { class: 'form-status' });
    let cursor = '';
    const page = async (): Promise<number> => {
      const answer = await api.playerItems(shown.key, { state: shown.items, cursor }, ctx.signal);
      if (ctx.signal.aborted) return 0;
      for (const item of answer.items) tbody.append(...itemRows(item, names, target, ctx, act));
      cursor = answer.cursor ?? '';
      more.hidden = answer.cursor === null;
      return answer.items.length;
    };
    onMore(more, page, (problem) => status.replaceChildren(problem));
    return page().then(
      (n) => {
        if (ctx.signal.aborted) return;
        const none = shown.items === '' ? 'The account has no unique item.' : `No item is ${shown.items}.`;
        body.replaceChildren(
          n === 0 ? h('p', { class: 'muted', id: 'items-empty' }, none) : h('div', { class: 'table-wrap' }, table),
          h('p', { class: 'pager' }, more),
          status,
        );
        body.removeAttribute('aria-busy');
      },
      (e: unknown) => {
        if (ctx.signal.aborted || isAbort(e)) return;
        body.replaceChildren(problemBox(e));
        body.removeAttribute('aria-busy');
      },
    );
  };

  let current = state;
  filter.addEventListener('change', () => {
    current = { ...current, items: filter.value as ItemState | '' };
    ctx.rewrite(current);
    void load(current);
  });
  return { el, done: load(state) };
}

/** An item's row and its (hidden) history row. */
function itemRows(
  item: Item,
  names: ReadonlyMap<string, string>,
  target: Target,
  ctx: ConsoleContext,
  act: boolean,
): HTMLTableRowElement[] {
  const id = item.studioUuid;
  const character = item.characterId ? (names.get(item.characterId) ?? item.characterId) : '';
  const row = h(
    'tr',
    { id: `item-${id}`, 'data-item': id, 'data-state': item.state },
    h('td', { 'data-label': HEAD[0] }, catalogCell(item.definitionId)),
    h('td', { 'data-label': HEAD[1] }, h('code', {}, id)),
    h('td', { 'data-label': HEAD[2], class: item.state === 'voided' ? 'state-bad' : null }, item.state),
    h('td', { 'data-label': HEAD[3] }, character === '' ? h('span', { class: 'muted' }, '—') : character),
    h('td', { 'data-label': HEAD[4] }, timeText(item.mintedAt)),
  );
  const detail = h('tr', { class: 'history-row', hidden: true }, h('td', { colspan: act ? 7 : 6, id: `item-history-${id}` }));
  const toggle = h(
    'button',
    {
      type: 'button',
      class: 'small',
      'aria-expanded': 'false',
      'aria-controls': `item-history-${id}`,
      'aria-label': `Owner history of ${id}`,
    },
    'Show',
  );
  toggle.addEventListener('click', () => {
    const open = detail.hidden;
    detail.hidden = !open;
    toggle.setAttribute('aria-expanded', String(open));
    toggle.textContent = open ? 'Hide' : 'Show';
    if (open && !detail.dataset.loaded) {
      detail.dataset.loaded = '1';
      void loadEvents(id, detail.firstElementChild as HTMLElement, ctx);
    }
  });
  row.append(h('td', { 'data-label': HEAD[5] }, toggle));
  if (act) {
    const cell = h('td', { 'data-label': 'Action' });
    if (VOIDABLE.includes(item.state)) {
      const button = h(
        'button',
        { type: 'button', class: 'small danger-text', 'data-action': 'item-void', 'data-item': id, 'aria-label': `Void item ${id}…` },
        'Void…',
      );
      button.addEventListener('click', () => {
        void catalogEntry(item.definitionId)
          .then(
            (e) => e.name ?? '',
            () => '',
          )
          .then((name) =>
            openAction(
              ctx,
              { kind: 'void', target, item: { studioUuid: id, definitionId: item.definitionId, name, state: item.state, character } },
              button,
            ),
          );
      });
      cell.append(button);
    }
    row.append(cell);
  }
  return [row, detail];
}

/** Fill `cell` with an item's events, newest first, and "Older events" while there are more. */
async function loadEvents(studioUuid: string, cell: HTMLElement, ctx: ConsoleContext): Promise<void> {
  cell.replaceChildren(h('p', { class: 'muted' }, 'Reading the item’s history…'));
  const list = h('ol', { class: 'history' });
  const more = h('button', { type: 'button', class: 'small', hidden: true }, 'Older events');
  let cursor = '';
  const page = async (): Promise<ItemEventsResponse> => {
    const answer = await api.itemEvents(studioUuid, cursor, ctx.signal);
    for (const e of answer.events)
      list.append(
        h(
          'li',
          { 'data-event': e.kind },
          timeText(e.at),
          ` ${e.kind} · owner `,
          h('a', { href: consoleHref(playerState(e.accountId)) }, h('code', {}, e.accountId)),
          e.characterId ? ` · character ${e.characterId}` : '',
          e.reason !== undefined ? ` · “${e.reason}”` : '',
          e.actor ? ` by ${e.actor}` : '',
        ),
      );
    cursor = answer.cursor ?? '';
    more.hidden = answer.cursor === null;
    return answer;
  };
  onMore(more, page, (problem) => cell.append(problem));
  try {
    await page();
    cell.replaceChildren(list, more);
  } catch (e) {
    if (!isAbort(e)) cell.replaceChildren(problemBox(e));
  }
}
