/**
 * The operator console page (`/admin/`; docs/architecture.md, "Operator console"): one page whose state lives
 * in the query string of `/admin/` (`state.ts`), pushed with `history.pushState` and restored on load and on
 * `popstate`, so it works on any static host. Views live in `views/`, HTTP calls in `api.ts`.
 *
 * Sign-in: every view but the sign-in needs an operator token in the tab (`session.ts`); without one, or
 * when a call is answered 401, or when the token's time is up, the token is forgotten and the sign-in is
 * shown with the page the operator was on as its return address (`back`), where it goes once signed in.
 * Signing out forgets the token. `/` focuses the player search from anywhere (opening it when another view
 * is shown), unless focus is in a field that takes text.
 */
import { h } from '../dom.js';
import { useToken, useUnauthorizedHandler } from './api.js';
import { formatTime } from './confirm.js';
import { ActionKeys } from './intents.js';
import { OperatorSession, actorLabel, canAct, type KeyValueStore } from './session.js';
import { CONSOLE_PATH, HOME, consoleHref, parseConsoleState, sectionOf, signInState, type ConsoleState } from './state.js';
import type { ConsoleContext } from './views/context.js';
import { auditView } from './views/audit.js';
import { healthView } from './views/health.js';
import { playerView } from './views/player.js';
import { searchView } from './views/search.js';
import { signInView } from './views/signin.js';

const SITE = 'Operator console';

function byId<T extends HTMLElement>(id: string): T {
  const el = document.getElementById(id);
  if (!el) throw new Error(`#${id} is missing from the page`);
  return el as T;
}

/** The tab's session storage, or a map for the page's life where the browser gives none. */
function tabStorage(): KeyValueStore {
  try {
    const s = window.sessionStorage;
    s.getItem('console.probe');
    return s;
  } catch {
    const m = new Map<string, string>();
    return { getItem: (k) => m.get(k) ?? null, setItem: (k, v) => void m.set(k, v), removeItem: (k) => void m.delete(k) };
  }
}

const store = tabStorage();
const session = new OperatorSession(store);
const keys = new ActionKeys(store);
const root = byId('view');
const live = byId('status');
const nav = byId('console-nav');
const who = byId('who');
const whoName = byId('who-name');
const whoRole = byId('who-role');
const whoUntil = byId('who-until');
const signOutButton = byId<HTMLButtonElement>('sign-out');

interface Current {
  readonly state: ConsoleState;
  readonly ctl: AbortController;
}
let current: Current | undefined;
/** Why the sign-in is shown, for its next render. */
let notice: string | undefined;
let expiry: ReturnType<typeof setTimeout> | undefined;

useToken(() => session.current()?.token);
useUnauthorizedHandler(() => endSession('The service refused the session (401): it has ended or was revoked. Sign in again to go back.'));

function announce(text: string): void {
  live.textContent = '';
  requestAnimationFrame(() => (live.textContent = text));
}

/** Forget the token and show the sign-in, returning to the page the operator was on. */
function endSession(why: string): void {
  session.signOut();
  const here = parseConsoleState(location.search);
  if (here.view === 'signin') return;
  notice = why;
  navigate(signInState(here), { replace: true });
}

/** The header: who is signed in and until when, and which section is current. */
function markHeader(state: ConsoleState): void {
  const section = sectionOf(state);
  for (const a of nav.querySelectorAll<HTMLAnchorElement>('a[data-section]')) {
    if (a.dataset.section === section) a.setAttribute('aria-current', 'page');
    else a.removeAttribute('aria-current');
  }
  const me = session.current();
  clearTimeout(expiry);
  if (!me) {
    who.hidden = true;
    return;
  }
  who.hidden = false;
  whoName.textContent = actorLabel(me);
  whoRole.textContent = canAct(me.role) ? 'may act' : 'read only';
  whoUntil.textContent = formatTime(new Date(me.expiresAt * 1000).toISOString());
  whoUntil.setAttribute('datetime', new Date(me.expiresAt * 1000).toISOString());
  const left = me.expiresAt * 1000 - Date.now();
  expiry = setTimeout(
    () => endSession(`The session ended at ${whoUntil.textContent}. Sign in again to go back.`),
    Math.min(Math.max(0, left), 2 ** 31 - 1),
  );
}

function render(asked: ConsoleState, focus: boolean): void {
  let state = asked;
  const me = session.current();
  if (state.view !== 'signin' && !me) {
    state = signInState(state);
    history.replaceState(null, '', consoleHref(state));
  } else if (state.view === 'signin' && me) {
    state = state.back;
    history.replaceState(null, '', consoleHref(state));
  }
  current?.ctl.abort();
  const entry: Current = { state, ctl: new AbortController() };
  current = entry;
  root.replaceChildren();
  root.setAttribute('aria-busy', 'true');
  const settle = (): void => {
    if (current === entry) root.removeAttribute('aria-busy');
  };
  markHeader(state);
  const ctx: ConsoleContext = {
    root,
    signal: entry.ctl.signal,
    who: session.current(),
    keys,
    notice: state.view === 'signin' ? notice : undefined,
    navigate,
    rewrite: (s) => {
      if (current !== entry) return;
      history.replaceState(null, '', consoleHref(s));
    },
    reload: () => {
      if (current === entry) render(parseConsoleState(location.search), false);
    },
    announce,
    title: (what) => {
      document.title = `${what} · ${SITE}`;
    },
    signIn: (token, back) => {
      const out = session.signIn(token);
      if ('problem' in out) return out;
      notice = undefined;
      announce(`Signed in as ${actorLabel(out)}.`);
      navigate(back, { replace: true });
      return undefined;
    },
  };
  const fail = (e: unknown): void => {
    if (entry.ctl.signal.aborted) return;
    root.append(h('p', { class: 'error', role: 'alert' }, `This view could not be shown: ${e instanceof Error ? e.message : String(e)}`));
  };
  try {
    let done: void | Promise<void>;
    switch (state.view) {
      case 'signin':
        done = signInView(state, ctx);
        break;
      case 'search':
        done = searchView(state, ctx);
        break;
      case 'player':
        done = playerView(state, ctx);
        break;
      case 'audit':
        done = auditView(state, ctx);
        break;
      case 'health':
        done = healthView(state, ctx);
        break;
    }
    if (done) void done.catch(fail).finally(settle);
    else settle();
  } catch (e) {
    fail(e);
    settle();
  }
  if (focus && state.view !== 'search' && state.view !== 'signin') root.querySelector<HTMLElement>('h1')?.focus({ preventScroll: false });
}

/**
 * Go to `state`: push a history entry (or rewrite the current one with `replace`, or when the address would
 * not change) and show it; focus moves to the view's heading unless `keepFocus`.
 */
function navigate(state: ConsoleState, options: { readonly replace?: boolean; readonly keepFocus?: boolean } = {}): void {
  const href = consoleHref(state);
  const same = href === `${location.pathname}${location.search}`;
  if (options.replace || same) history.replaceState(null, '', href);
  else history.pushState(null, '', href);
  render(state, !options.keepFocus);
  if (!options.keepFocus) window.scrollTo(0, 0);
}

// In-page navigation for plain clicks on links to the console's own states.
document.addEventListener('click', (event) => {
  if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
  const a = (event.target as Element | null)?.closest?.('a[href]');
  if (!(a instanceof HTMLAnchorElement) || (a.target && a.target !== '_self') || a.hasAttribute('download')) return;
  const url = new URL(a.href);
  if (url.origin !== location.origin || url.pathname !== CONSOLE_PATH || url.hash !== '') return;
  event.preventDefault();
  navigate(parseConsoleState(url.search));
});

window.addEventListener('popstate', () => render(parseConsoleState(location.search), true));

signOutButton.addEventListener('click', () => {
  session.signOut();
  notice = 'Signed out: the token is forgotten.';
  navigate(signInState(HOME), { replace: true });
});

// "/" focuses the player search, unless focus is in a field that takes text.
document.addEventListener('keydown', (event) => {
  if (event.key !== '/' || event.ctrlKey || event.metaKey || event.altKey) return;
  const t = event.target as HTMLElement | null;
  if (t && (t.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(t.tagName))) return;
  if (document.querySelector('dialog[open]')) return;
  event.preventDefault();
  const box = document.getElementById('player-q') as HTMLInputElement | null;
  if (box) {
    box.focus();
    box.select();
  } else if (session.current()) navigate(HOME);
});

const initial = parseConsoleState(location.search);
if (location.pathname === CONSOLE_PATH && consoleHref(initial) !== `${location.pathname}${location.search}`) {
  history.replaceState(null, '', consoleHref(initial));
}
render(initial, false);
