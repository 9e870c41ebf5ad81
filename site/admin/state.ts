/**
 * The operator console's state in the query string of `/admin/` (docs/architecture.md, "Operator console"),
 * pure: one page, every view addressable, so a link to a player, a filtered wallet or an audit query can be
 * shared, reloaded and reached with Back and Forward, on any static host (no rewrites: the page is
 * `/admin/index.html`).
 *
 * | view | query | reads |
 * |---|---|---|
 * | search | `/admin/`, `?view=search&q=ada` | `GET /api/admin/players?q=` |
 * | player | `?view=player&key=STUDIO_…&kind=admin_grant_coin&cursor=…&entry=<uuid>&def=MATL-…&bagRef=bag-grant:…&items=voided` | the player's summary, wallet, bag history, items, island, characters |
 * | audit | `?view=audit&actor=…&account=…&route=…&from=…&to=…&cursor=…` | `GET /api/admin/audit` |
 * | health | `?view=health` | `GET /api/admin/ledger/health` |
 * | signin | `?view=signin&back=<a console address>` | `POST /api/admin/session` |
 *
 * Decoding is lenient and never throws: an unknown view opens the search, a player key that is neither a
 * studio id nor an account id becomes a search for it, a wallet kind or an item state the service does not
 * know is dropped, a bag entry to mark that is not a bag source ref is dropped, and a return address (`back`) is taken only when it is a console address itself (never another path or
 * origin: no open redirect), else the sign-in returns to the search. Encoding is canonical: `view` first,
 * the view's members in a fixed order, empty members left out.
 */

/** Where the console is served (the page is `/admin/index.html` on any static host). */
export const CONSOLE_PATH = '/admin/';

/** Longest text kept for a query or a filter (the player search's own bound). */
export const MAX_TEXT = 200;
/** Longest cursor kept (the service's cursors are far shorter; `PLAYER_SEARCH_PARAMS` allows 300). */
export const MAX_CURSOR = 300;

/** Wallet entry kinds, as the service names them in answers and takes them in the `kind` filter. */
export const WALLET_KINDS = ['verify_send_to_account_wallet', 'admin_grant_coin', 'reversal'] as const;
/** One wallet entry kind. */
export type WalletKind = (typeof WALLET_KINDS)[number];

/** States of a unique item, as the items route answers them and takes them in its `state` filter (spec 2.6). */
export const ITEM_STATES = ['owned', 'assigned', 'equipped', 'consumed', 'destroyed', 'voided'] as const;
/** One item state. */
export type ItemState = (typeof ITEM_STATES)[number];

/** A bag entry's source ref (`bag-grant:…`, `bag-consume:…`, `bag-reversal:…`; `schemas/requests/bag-reversal.schema.json`). */
export const BAG_REF = /^bag-(grant|consume|reversal):[A-Za-z0-9._:~+/=-]{8,255}$/;

/** A studio id as the operator routes take it (`STUDIO_` and 1-64 letters, digits, `_` or `-`; spec 2.6). */
export const STUDIO_ID = /^STUDIO_[A-Za-z0-9_-]{1,64}$/;
/** An account id or entry id: an RFC 4122 uuid (the service writes them in lower case and reads either). */
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Filters of the audit log view (the route's query members). */
export interface AuditFilters {
  readonly actor: string;
  readonly account: string;
  readonly route: string;
  readonly from: string;
  readonly to: string;
  readonly cursor: string;
}

/** The state of the console: which view, and that view's parameters. */
export type ConsoleState =
  | { readonly view: 'search'; readonly q: string }
  | {
      readonly view: 'player';
      /** The account's studio id or account id. */
      readonly key: string;
      /** The wallet's kind filter, or '' for every kind. */
      readonly kind: WalletKind | '';
      /** The wallet page's cursor, or '' for the newest page. */
      readonly cursor: string;
      /** A wallet entry to show and mark (a reversal link's target), or ''. */
      readonly entry: string;
      /** The bag definition whose history is open (`GET …/bag?definitionId=`), or ''. */
      readonly def: string;
      /** A bag entry of that history to mark (a reversal link's target), by its source ref, or ''. */
      readonly bagRef: string;
      /** The items' state filter, or '' for every state. */
      readonly items: ItemState | '';
    }
  | ({ readonly view: 'audit' } & AuditFilters)
  | { readonly view: 'health' }
  | { readonly view: 'signin'; readonly back: ConsoleState };

/** Names of the views. */
export type ConsoleView = ConsoleState['view'];

/** The console's first view: the player search with an empty box. */
export const HOME: ConsoleState = Object.freeze({ view: 'search', q: '' });

/** The page of one player at the newest wallet page with no filter. */
export function playerState(key: string): Extract<ConsoleState, { view: 'player' }> {
  return { view: 'player', key, kind: '', cursor: '', entry: '', def: '', bagRef: '', items: '' };
}

/** The audit log with the given filters (the others empty), at its newest page. */
export function auditState(filters: Partial<Omit<AuditFilters, 'cursor'>> = {}): Extract<ConsoleState, { view: 'audit' }> {
  return { view: 'audit', actor: '', account: '', route: '', from: '', to: '', ...filters, cursor: '' };
}

function text(p: URLSearchParams, key: string, max = MAX_TEXT): string {
  return (p.get(key) ?? '').trim().slice(0, max);
}

/** True when `key` names an account the way the operator routes take it: a studio id or an account id. */
export function isAccountKey(key: string): boolean {
  return STUDIO_ID.test(key) || UUID.test(key);
}

/**
 * The state a query string describes (`location.search`, with or without `?`). Never throws; see the module
 * header for what is dropped.
 */
export function parseConsoleState(search: string): ConsoleState {
  const p = new URLSearchParams(search);
  switch (p.get('view')) {
    case 'player': {
      const raw = text(p, 'key');
      // not an account key (an empty one included): a search for it
      if (!isAccountKey(raw)) return { view: 'search', q: raw };
      const key = UUID.test(raw) ? raw.toLowerCase() : raw;
      const entry = text(p, 'entry').toLowerCase();
      const def = text(p, 'def');
      const bagRef = text(p, 'bagRef', MAX_CURSOR);
      return {
        view: 'player',
        key,
        kind: WALLET_KINDS.find((k) => k === p.get('kind')) ?? '',
        cursor: text(p, 'cursor', MAX_CURSOR),
        entry: UUID.test(entry) ? entry : '',
        def,
        // a marked entry belongs to the open history: none without one
        bagRef: def !== '' && BAG_REF.test(bagRef) ? bagRef : '',
        items: ITEM_STATES.find((k) => k === p.get('items')) ?? '',
      };
    }
    case 'audit':
      return {
        view: 'audit',
        actor: text(p, 'actor'),
        account: text(p, 'account'),
        route: text(p, 'route'),
        from: text(p, 'from'),
        to: text(p, 'to'),
        cursor: text(p, 'cursor', MAX_CURSOR),
      };
    case 'health':
      return { view: 'health' };
    case 'signin':
      return { view: 'signin', back: returnState(p.get('back')) };
    default:
      return { view: 'search', q: text(p, 'q') };
  }
}

/**
 * The state a return address names: a console address (`/admin/…` of this origin, written as a path with
 * its query) that is not itself the sign-in, else {@link HOME}.
 */
export function returnState(back: string | null): ConsoleState {
  if (back === null || !back.startsWith(CONSOLE_PATH)) return HOME;
  const rest = back.slice(CONSOLE_PATH.length);
  // `/admin/` itself, or another path below it
  if (!rest.startsWith('?')) return HOME;
  const state = parseConsoleState(rest);
  return state.view === 'signin' ? HOME : state;
}

/**
 * The canonical query string of a state, with its `?` (empty for the search with an empty box): `view`
 * first, then the view's members in a fixed order, empty members left out.
 */
export function consoleQuery(state: ConsoleState): string {
  const p = new URLSearchParams();
  const set = (k: string, v: string): void => {
    if (v !== '') p.set(k, v);
  };
  switch (state.view) {
    case 'search':
      if (state.q === '') return '';
      p.set('view', 'search');
      p.set('q', state.q);
      break;
    case 'player':
      p.set('view', 'player');
      p.set('key', state.key);
      set('kind', state.kind);
      set('cursor', state.cursor);
      set('entry', state.entry);
      set('def', state.def);
      if (state.def !== '') set('bagRef', state.bagRef);
      set('items', state.items);
      break;
    case 'audit':
      p.set('view', 'audit');
      for (const k of ['actor', 'account', 'route', 'from', 'to', 'cursor'] as const) set(k, state[k]);
      break;
    case 'health':
      p.set('view', 'health');
      break;
    case 'signin': {
      p.set('view', 'signin');
      const back = consoleHref(state.back.view === 'signin' ? HOME : state.back);
      if (back !== CONSOLE_PATH) p.set('back', back);
      break;
    }
  }
  return `?${p.toString()}`;
}

/** The address of a state, relative to the origin: `/admin/` plus {@link consoleQuery}. */
export function consoleHref(state: ConsoleState): string {
  return `${CONSOLE_PATH}${consoleQuery(state)}`;
}

/** The sign-in that returns to `back` once signed in (a 401 keeps the page the operator was on). */
export function signInState(back: ConsoleState): Extract<ConsoleState, { view: 'signin' }> {
  return { view: 'signin', back: back.view === 'signin' ? back.back : back };
}

/** The header link that is the current section of a state: `players`, `audit` or `health` (none for the sign-in). */
export function sectionOf(state: ConsoleState): 'players' | 'audit' | 'health' | undefined {
  if (state.view === 'search' || state.view === 'player') return 'players';
  if (state.view === 'signin') return undefined;
  return state.view;
}
