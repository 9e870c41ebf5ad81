/**
 * Stats view (`?view=stats`): the totals of `/api/stats` per data category, definitions per kind and
 * category statuses (spec §3, §4.4), and the registries' totals per category from `/api/v1/stats` (§4.5).
 */
import { COLLECTION_NAMES, type CollectionName } from '../../api/_lib/formats/collection-index.js';
import * as api from '../api.js';
import { statsRows } from '../catalog-page.js';
import { errorText, h, isAbort, skeletonRows, table } from '../dom.js';
import { collectionState, stateHref } from '../state.js';
import type { View } from './context.js';

/** Where a totals row leads: a collection, a registry, or nowhere. */
function categoryHref(name: string): string | undefined {
  if ((COLLECTION_NAMES as readonly string[]).includes(name)) return stateHref(collectionState(name as CollectionName));
  if (name === 'icons') return stateHref({ view: 'icons', category: '', page: 1 });
  if (name === 'sprites' || name === 'characters') return stateHref({ view: 'sprites', category: '', page: 1 });
  return undefined;
}

const count = (n: number): string => n.toLocaleString('en');

/** Render the stats view. */
export const statsView: View<{ view: 'stats' }> = async (_state, ctx) => {
  ctx.title('Totals');
  const status = h('p', { id: 'stats-status', class: 'status-line' }, 'Loading /api/stats…');
  const totals = table('Records per data category', ['Category', 'Records'], 'numbers');
  totals.table.id = 'stats-table';
  const defs = table('Definitions per kind', ['Kind', 'Definitions'], 'numbers');
  defs.table.id = 'definitions-table';
  const statuses = table('Category statuses', ['Category', 'Status']);
  statuses.table.id = 'statuses-table';
  const registries = table('Registry totals per category', ['Registry', 'Category', 'Count'], 'numbers');
  registries.table.id = 'registry-table';
  skeletonRows(totals.body, 12, 2);
  skeletonRows(defs.body, 8, 2);
  skeletonRows(registries.body, 6, 3);
  const catalogName = h('p', { class: 'muted' }, '\u00a0');
  ctx.root.append(
    h('h1', { tabindex: '-1' }, 'Totals'),
    catalogName,
    status,
    h(
      'div',
      { class: 'columns' },
      h('section', { 'aria-labelledby': 'totals-title' }, h('h2', { id: 'totals-title' }, 'Records per category'), totals.wrap),
      h(
        'section',
        { 'aria-labelledby': 'defs-title' },
        h('h2', { id: 'defs-title' }, 'Definitions per kind'),
        defs.wrap,
        h('h2', { id: 'statuses-title' }, 'Category statuses (§3)'),
        statuses.wrap,
      ),
      h('section', { 'aria-labelledby': 'reg-title' }, h('h2', { id: 'reg-title' }, 'Registries'), registries.wrap),
    ),
  );

  const [main, reg] = await Promise.allSettled([api.stats(ctx.signal), api.registryStats(ctx.signal)]);
  if (ctx.signal.aborted) return;
  if (main.status === 'fulfilled') {
    const body = main.value;
    catalogName.textContent = body.catalog ? `Catalog: ${body.catalog}` : '';
    totals.body.replaceChildren();
    for (const [name, n] of statsRows(body)) {
      const href = categoryHref(name);
      const tr = totals.body.insertRow();
      tr.append(h('td', {}, href ? h('a', { href }, name) : name), h('td', { class: 'num' }, count(n)));
    }
    defs.body.replaceChildren();
    for (const [kind, n] of statsRows({ totals: body.definitions ?? {} }))
      defs.body.insertRow().append(h('td', {}, kind), h('td', { class: 'num' }, count(n)));
    statuses.body.replaceChildren();
    for (const [cat, st] of Object.entries(body.statuses ?? {})) statuses.body.insertRow().append(h('td', {}, cat), h('td', {}, st));
    status.textContent = '';
  } else if (!isAbort(main.reason)) {
    totals.body.replaceChildren();
    defs.body.replaceChildren();
    status.className = 'status-line error';
    status.textContent = `Totals are not available: ${errorText(main.reason)}`;
  }
  registries.body.replaceChildren();
  if (reg.status === 'fulfilled') {
    const groups: [string, string, readonly api.CategoryCount[], number][] = [
      ['Icons', 'icons', reg.value.icons.categories, reg.value.icons.total],
      ['Sprites', 'sprites', reg.value.sprites.categories, reg.value.sprites.total],
      ['Characters', 'sprites', reg.value.characters.categories, reg.value.characters.total],
    ];
    for (const [label, view, cats, total] of groups) {
      registries.body.insertRow().append(h('th', { scope: 'row' }, label), h('td', {}, 'all'), h('td', { class: 'num' }, count(total)));
      for (const c of cats) {
        const href =
          view === 'icons'
            ? stateHref({ view: 'icons', category: c.category as never, page: 1 })
            : stateHref({ view: 'sprites', category: label === 'Sprites' ? c.category : '', page: 1 });
        registries.body
          .insertRow()
          .append(h('td', {}, ''), h('td', {}, h('a', { href }, c.category)), h('td', { class: 'num' }, count(c.count)));
      }
    }
  } else if (!isAbort(reg.reason)) {
    registries.wrap.after(h('p', { class: 'error' }, `Registry totals are not available: ${errorText(reg.reason)}`));
  }
  ctx.announce('Totals loaded.');
};
