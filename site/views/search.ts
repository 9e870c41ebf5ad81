/**
 * Search view (`?view=search&q=…&type=…`): the answer of `/api/search` (spec §2.5, §4.4) for the query typed
 * in the header's search box, each result a link to its item page (the search type is the item kind).
 */
import * as api from '../api.js';
import { searchSummary } from '../catalog-page.js';
import { h, isAbort, errorText } from '../dom.js';
import { KIND_LABELS, isItemKind } from '../kinds.js';
import { itemHref, type PageState } from '../state.js';
import type { View } from './context.js';

/** Results asked of `/api/search` (its maximum is 200). */
export const SEARCH_LIMIT = 50;
/** Placeholder rows shown while the first answer is on its way. */
const SKELETON_ROWS = 8;

/** Render the search view. */
export const searchView: View<Extract<PageState, { view: 'search' }>> = async (state, ctx) => {
  ctx.title(state.q === '' ? 'Search' : `Search: ${state.q}`);
  const status = h('p', { id: 'search-status', class: 'status-line' });
  const list = h('ol', { id: 'search-results', class: 'results', 'aria-busy': 'true' });
  ctx.root.append(h('h1', { tabindex: '-1' }, 'Search'), status, list);
  if (state.q === '') {
    status.textContent = 'Type a name or an id in the search box; results appear as you type.';
    list.removeAttribute('aria-busy');
    return;
  }
  status.textContent = 'Searching…';
  for (let i = 0; i < SKELETON_ROWS; i++)
    list.append(h('li', { class: 'skeleton', 'aria-hidden': 'true' }, h('span', { class: 'bone' }, '\u00a0')));
  try {
    const answer = await api.search(state.q, state.type, SEARCH_LIMIT, ctx.signal);
    if (ctx.signal.aborted) return;
    list.replaceChildren(
      ...answer.results.map((hit) =>
        h(
          'li',
          {},
          isItemKind(hit.type)
            ? h('a', { href: itemHref(hit.type, hit.id), class: 'result-name' }, hit.name)
            : h('span', { class: 'result-name' }, hit.name),
          ' ',
          h('span', { class: 'tag' }, isItemKind(hit.type) ? KIND_LABELS[hit.type] : hit.type),
          ' ',
          h('code', { class: 'id' }, hit.id),
        ),
      ),
    );
    list.removeAttribute('aria-busy');
    status.textContent = searchSummary(answer);
    status.className = 'status-line';
    ctx.announce(searchSummary(answer));
  } catch (e) {
    if (isAbort(e) || ctx.signal.aborted) return;
    list.replaceChildren();
    list.removeAttribute('aria-busy');
    status.className = 'status-line error';
    status.textContent = errorText(e);
    ctx.announce(errorText(e));
  }
};
