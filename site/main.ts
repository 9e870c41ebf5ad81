/**
 * The catalog browser page: one page whose state lives in the query string of `/` (`state.ts`), pushed with
 * `history.pushState` and restored on load and on `popstate`. Every view is reachable by a real link; plain
 * clicks on links to `/?…` are handled in the page, other clicks (middle, with a modifier) are the browser's.
 * The header's search box searches as you type (`/api/search`, spec §4.4); `/` focuses it. Views live in
 * `views/`, HTTP calls in `api.ts`, the session cache in `data.ts`.
 */
import { COLLECTION_NAMES } from '../api/_lib/formats/collection-index.js';
import { errorBox } from './dom.js';
import { parseState, stateHref, type PageState } from './state.js';
import { collectionView } from './views/collection.js';
import type { ViewContext } from './views/context.js';
import { homeView } from './views/home.js';
import { itemView } from './views/item.js';
import { iconsView, spritesView } from './views/registries.js';
import { reportView } from './views/report.js';
import { searchView } from './views/search.js';
import { statsView } from './views/stats.js';

/** Wait after the last keystroke in the search box before searching. */
const SEARCH_DELAY_MS = 200;
const SITE = 'Game data catalog';

function byId<T extends HTMLElement>(id: string): T {
  const el = document.getElementById(id);
  if (!el) throw new Error(`#${id} is missing from the page`);
  return el as T;
}

const root = byId('view');
const live = byId('status');
const searchForm = byId<HTMLFormElement>('search-form');
const q = byId<HTMLInputElement>('q');
const type = byId<HTMLSelectElement>('type');
const nav = byId('site-nav');

interface Current {
  state: PageState;
  readonly ctl: AbortController;
  update?: (state: PageState) => boolean;
}
let current: Current | undefined;

function announce(text: string): void {
  // a change of text is what screen readers announce; clear first so a repeated sentence is said again
  live.textContent = '';
  requestAnimationFrame(() => (live.textContent = text));
}

/** Which header link is the current section. */
function markNav(state: PageState): void {
  const key =
    state.view === 'collection'
      ? `collection:${state.name}`
      : state.view === 'item' && (COLLECTION_NAMES as readonly string[]).includes(state.kind)
        ? `collection:${state.kind}`
        : state.view;
  for (const a of nav.querySelectorAll<HTMLAnchorElement>('a[data-section]')) {
    if (a.dataset.section === key) a.setAttribute('aria-current', 'page');
    else a.removeAttribute('aria-current');
  }
}

/** Keep the search box saying what the search view shows (unless someone is typing in it). */
function syncSearchBox(state: PageState): void {
  if (state.view !== 'search' || document.activeElement === q) return;
  q.value = state.q;
  type.value = state.type;
}

function render(state: PageState, focus: boolean): void {
  current?.ctl.abort();
  const entry: Current = { state, ctl: new AbortController() };
  current = entry;
  root.replaceChildren();
  // busy until the view has shown what it loads (tests and assistive technology wait for this)
  root.setAttribute('aria-busy', 'true');
  const settle = (): void => {
    if (current === entry) root.removeAttribute('aria-busy');
  };
  markNav(state);
  syncSearchBox(state);
  const ctx: ViewContext = {
    root,
    signal: entry.ctl.signal,
    navigate,
    onUpdate: (update) => {
      entry.update = update;
    },
    announce,
    title: (what) => {
      document.title = `${what} · ${SITE}`;
    },
  };
  const fail = (e: unknown): void => {
    if (entry.ctl.signal.aborted) return;
    root.append(errorBox('This view could not be shown', e));
  };
  try {
    let done: void | Promise<void>;
    switch (state.view) {
      case 'home':
        done = homeView(state, ctx);
        break;
      case 'search':
        done = searchView(state, ctx);
        break;
      case 'collection':
        done = collectionView(state, ctx);
        break;
      case 'item':
        done = itemView(state, ctx);
        break;
      case 'stats':
        done = statsView(state, ctx);
        break;
      case 'icons':
        done = iconsView(state, ctx);
        break;
      case 'sprites':
        done = spritesView(state, ctx);
        break;
      case 'report':
        done = reportView(state, ctx);
        break;
    }
    if (done) void done.catch(fail).finally(settle);
    else settle();
  } catch (e) {
    fail(e);
    settle();
  }
  if (focus) root.querySelector<HTMLElement>('h1')?.focus({ preventScroll: false });
}

/** Show `state`: in place when the current view takes it, else rendered anew. */
function show(state: PageState, focus: boolean): void {
  if (current?.update && current.state.view === state.view && current.update(state)) {
    current.state = state;
    markNav(state);
    syncSearchBox(state);
    return;
  }
  render(state, focus);
  if (focus) window.scrollTo(0, 0);
}

/**
 * Go to `state`: push a history entry (or rewrite the current one with `replace`, or when the address would
 * not change) and show it; focus moves to the view's heading unless `keepFocus`.
 */
function navigate(state: PageState, options: { readonly replace?: boolean; readonly keepFocus?: boolean } = {}): void {
  const href = stateHref(state);
  const same = href === `${location.pathname}${location.search}`;
  if (options.replace || same) history.replaceState(null, '', href);
  else history.pushState(null, '', href);
  show(state, !options.keepFocus);
}

// In-page navigation for plain clicks on links to the page's own states.
document.addEventListener('click', (event) => {
  if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
  const a = (event.target as Element | null)?.closest?.('a[href]');
  if (!(a instanceof HTMLAnchorElement) || (a.target && a.target !== '_self') || a.hasAttribute('download')) return;
  const url = new URL(a.href);
  if (url.origin !== location.origin || url.pathname !== '/' || url.hash !== '') return;
  event.preventDefault();
  navigate(parseState(url.search));
});

window.addEventListener('popstate', () => show(parseState(location.search), true));

// Search as you type: the first keystroke opens the search view, later ones rewrite it.
let typing: ReturnType<typeof setTimeout> | undefined;
function searchNow(): void {
  clearTimeout(typing);
  const text = q.value.trim();
  const onSearch = current?.state.view === 'search';
  if (text === '' && !onSearch) return;
  navigate(
    { view: 'search', q: text.slice(0, 200), type: type.value as Extract<PageState, { view: 'search' }>['type'] },
    { replace: onSearch, keepFocus: true },
  );
}
q.addEventListener('input', () => {
  clearTimeout(typing);
  typing = setTimeout(searchNow, SEARCH_DELAY_MS);
});
type.addEventListener('change', () => {
  if (q.value.trim() !== '' || current?.state.view === 'search') searchNow();
});
searchForm.addEventListener('submit', (event) => {
  event.preventDefault();
  searchNow();
});

// "/" focuses the search box, unless focus is in a field that takes text.
document.addEventListener('keydown', (event) => {
  if (event.key !== '/' || event.ctrlKey || event.metaKey || event.altKey) return;
  const t = event.target as HTMLElement | null;
  if (t && (t.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(t.tagName))) return;
  event.preventDefault();
  q.focus();
  q.select();
});

// A link to the current state written canonically (old shared links included) replaces the address once.
const initial = parseState(location.search);
if (location.pathname === '/' && location.search !== '' && stateHref(initial) !== `${location.pathname}${location.search}`) {
  history.replaceState(null, '', stateHref(initial));
}
render(initial, false);
