/**
 * Player search view (`/admin/`, `/admin/?view=search&q=…`; docs/architecture.md, "Operator console"): one
 * box that finds an account by studio id, account id, username, external user id or display-name prefix
 * (`GET /api/admin/players?q=`), with results as you type (`typeahead.ts`: a wait after the last keystroke,
 * at most one request in flight, answers to older text dropped). Keyboard first: `/` focuses the box from
 * anywhere, ↓ and ↑ move through the results (a combobox with a listbox, `aria-activedescendant`), Enter
 * opens the one marked (the first when none is), Escape empties the box. The box's text is kept in the
 * address as it is typed, so a search can be shared and survives a reload.
 */
import { findPlayers, type PlayerSearchResponse } from '../api.js';
import { h } from '../../dom.js';
import { MAX_TEXT, consoleHref, playerState, type ConsoleState } from '../state.js';
import { typeahead } from '../typeahead.js';
import { pendingPanel } from './actions.js';
import { isAbort, problemBox } from './common.js';
import type { ConsoleViewFn } from './context.js';

/** Wait after the last keystroke before searching, ms. */
export const SEARCH_DELAY_MS = 250;

/** How each match rule reads in a result. */
const MATCHED: Readonly<Record<string, string>> = {
  studioId: 'studio id',
  accountId: 'account id',
  username: 'username',
  externalUserId: 'external user id',
  displayName: 'display name',
};

/** The search view (see the module header). */
export const searchView: ConsoleViewFn<Extract<ConsoleState, { view: 'search' }>> = (state, ctx) => {
  ctx.title(state.q === '' ? 'Find a player' : `Players matching “${state.q}”`);
  const input = h('input', {
    id: 'player-q',
    type: 'search',
    role: 'combobox',
    'aria-controls': 'player-results',
    'aria-expanded': 'false',
    'aria-autocomplete': 'list',
    'aria-describedby': 'search-help',
    'aria-keyshortcuts': '/',
    maxlength: MAX_TEXT,
    autocomplete: 'off',
    spellcheck: 'false',
    placeholder: 'STUDIO_…, account id, username, steam:…, or a name',
  });
  input.value = state.q;
  const status = h('p', { id: 'search-status', class: 'search-status', role: 'status' });
  const list = h('ul', { id: 'player-results', role: 'listbox', 'aria-label': 'Players found', class: 'results' });
  let players: PlayerSearchResponse['players'] = [];
  let active = -1;
  // Enter pressed before the answer to the box's text came: open the first result when it comes
  let openOnAnswer = false;
  /** The query whose answer the list shows. */
  let shown = '';

  const mark = (n: number): void => {
    active = n;
    const options = list.querySelectorAll<HTMLElement>('[role="option"]');
    options.forEach((o, i) => o.setAttribute('aria-selected', String(i === n)));
    if (n >= 0 && options[n]) {
      input.setAttribute('aria-activedescendant', options[n].id);
      options[n].scrollIntoView({ block: 'nearest' });
    } else input.removeAttribute('aria-activedescendant');
  };

  const open = (n: number): void => {
    const p = players[n];
    if (p) ctx.navigate(playerState(p.account.studioId));
  };

  const show = (q: string, answer: PlayerSearchResponse): void => {
    shown = q;
    players = answer.players;
    list.replaceChildren();
    players.forEach((p, i) => {
      const a = p.account;
      const option = h(
        'li',
        { id: `player-option-${i}`, role: 'option', 'aria-selected': 'false', class: 'result', 'data-studio-id': a.studioId },
        h(
          'a',
          { href: consoleHref(playerState(a.studioId)), tabindex: '-1' },
          h('span', { class: 'result-name' }, a.displayName === '' ? '(no display name)' : a.displayName),
        ),
        ' ',
        h('code', {}, a.studioId),
        h('span', { class: 'muted' }, ` · ${a.username} · matched by ${MATCHED[p.matched] ?? p.matched}`),
      );
      option.addEventListener('mousemove', () => mark(i));
      list.append(option);
    });
    input.setAttribute('aria-expanded', String(players.length > 0));
    mark(players.length > 0 ? 0 : -1);
    const more = answer.hasMore ? ' (the first 20; type more to narrow)' : '';
    status.textContent =
      players.length === 0
        ? `No player matches “${q}”.`
        : `${players.length} player${players.length === 1 ? ' matches' : 's match'} “${q}”${more}.`;
    ctx.announce(status.textContent);
    if (openOnAnswer) {
      openOnAnswer = false;
      if (players.length > 0) open(0);
    }
  };

  const runner = typeahead<PlayerSearchResponse>({
    delayMs: SEARCH_DELAY_MS,
    run: (q) => findPlayers(q, ctx.signal),
    show,
    fail: (_q, e) => {
      if (isAbort(e)) return;
      openOnAnswer = false;
      shown = '';
      players = [];
      list.replaceChildren();
      input.setAttribute('aria-expanded', 'false');
      status.replaceChildren(problemBox(e));
    },
    busy: (b) => (b ? list.setAttribute('aria-busy', 'true') : list.removeAttribute('aria-busy')),
  });
  ctx.signal.addEventListener('abort', () => runner.dispose());

  const changed = (): void => {
    const q = input.value.trim().slice(0, MAX_TEXT);
    if (q === runner.latest()) return;
    openOnAnswer = false;
    ctx.rewrite({ view: 'search', q });
    runner.input(q);
    if (q === '') {
      shown = '';
      players = [];
      list.replaceChildren();
      input.setAttribute('aria-expanded', 'false');
      mark(-1);
      status.textContent = '';
    }
  };
  input.addEventListener('input', changed);
  input.addEventListener('keydown', (event) => {
    if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
      event.preventDefault();
      if (players.length === 0) return;
      const step = event.key === 'ArrowDown' ? 1 : -1;
      mark((active + step + players.length) % players.length);
    } else if (event.key === 'Enter') {
      event.preventDefault();
      const q = input.value.trim();
      if (q !== runner.latest()) changed();
      if (q === '') return;
      if (players.length > 0 && shown === q) open(Math.max(0, active));
      else {
        openOnAnswer = true;
        runner.flush();
      }
    } else if (event.key === 'Escape' && input.value !== '') {
      event.preventDefault();
      input.value = '';
      changed();
    }
  });
  list.addEventListener('click', (event) => {
    const option = (event.target as Element).closest('[role="option"]');
    if (!option) return;
    event.preventDefault();
    open([...list.children].indexOf(option));
  });

  const form = h(
    'form',
    { role: 'search', class: 'player-search', 'aria-label': 'Find a player' },
    h('label', { for: 'player-q' }, 'Player'),
    input,
    h(
      'p',
      { id: 'search-help', class: 'help' },
      'A studio id, account id, username or external user id finds that account; anything else, display names starting with it. ',
      h('kbd', {}, '/'),
      ' comes back here, ',
      h('kbd', {}, '↓'),
      ' ',
      h('kbd', {}, '↑'),
      ' move, ',
      h('kbd', {}, 'Enter'),
      ' opens.',
    ),
  );
  form.addEventListener('submit', (event) => event.preventDefault());
  ctx.root.append(h('h1', { tabindex: '-1' }, 'Find a player'), form, status, list, pendingPanel(ctx));
  if (state.q !== '') {
    runner.input(state.q);
    runner.flush();
  }
  input.focus();
};
