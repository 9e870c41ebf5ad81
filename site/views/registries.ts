/**
 * Registry views: icons by category as a grid (`?view=icons&category=…&page=…`, `/api/v1/icons` and
 * `/api/v1/icons/categories`, spec §4.6), and sprites by category with the sprite characters
 * (`?view=sprites&category=…&page=…`, `/api/v1/sprites`, `/api/v1/characters`, `/api/v1/stats`, §4.5).
 * Each tile is a link to the item page and shows the binary from `{cdn_url}` in a fixed-size box.
 */
import { ICON_CATEGORIES, type IconCategory } from '../../api/_lib/formats/registries.js';
import * as api from '../api.js';
import { errorText, h, imageBox, isAbort } from '../dom.js';
import { itemHref, pageInfo, stateHref, type PageState } from '../state.js';
import type { View } from './context.js';

/** Tiles per registry page. */
export const TILES_PER_PAGE = 48;

function tabs(label: string, entries: readonly { href: string; text: string; current: boolean }[]): HTMLElement {
  return h(
    'nav',
    { class: 'tabs', 'aria-label': label },
    h('ul', {}, ...entries.map((e) => h('li', {}, h('a', { href: e.href, ...(e.current ? { 'aria-current': 'page' } : {}) }, e.text)))),
  );
}

function pager(total: number, count: number, page: number, href: (page: number) => string): HTMLElement {
  const info = pageInfo(total, count, (page - 1) * TILES_PER_PAGE, TILES_PER_PAGE);
  const link = (p: number | null, text: string, rel: string): HTMLElement =>
    p === null
      ? h('a', { class: rel, 'aria-disabled': 'true' }, text)
      : h('a', { class: rel, rel, href: href(p / TILES_PER_PAGE + 1) }, text);
  return h(
    'nav',
    { class: 'pager', 'aria-label': 'Pages' },
    link(info.prev, '← Previous', 'prev'),
    h('span', { class: 'page-of' }, `Page ${info.page} of ${info.pages}`),
    link(info.next, 'Next →', 'next'),
  );
}

function skeletonGrid(grid: HTMLElement, n: number): void {
  grid.replaceChildren();
  for (let i = 0; i < n; i++)
    grid.append(
      h(
        'li',
        { class: 'tile skeleton', 'aria-hidden': 'true' },
        h('div', { class: 'thumb thumb-small' }),
        h('span', { class: 'bone' }, '\u00a0'),
      ),
    );
}

function tile(href: string, name: string, id: string, url: string): HTMLElement {
  return h(
    'li',
    { class: 'tile' },
    h('a', { href }, imageBox(url, '', 'small'), h('span', { class: 'tile-name' }, name), h('code', { class: 'id' }, id)),
  );
}

/** Render the icons view. */
export const iconsView: View<Extract<PageState, { view: 'icons' }>> = async (state, ctx) => {
  ctx.title(state.category === '' ? 'Icons' : `Icons: ${state.category}`);
  const status = h('p', { id: 'icons-status', class: 'status-line' }, 'Loading icons…');
  const nav = h('div', { class: 'tabs-slot' });
  const grid = h('ul', { id: 'icon-grid', class: 'grid', 'aria-busy': 'true' });
  const pagerSlot = h('div', { class: 'pager-slot' });
  ctx.root.append(
    h('h1', { tabindex: '-1' }, state.category === '' ? 'Icons' : `Icons: ${state.category}`),
    h('p', { class: 'muted' }, 'The icon registry (', h('code', {}, '/api/v1/icons'), '), sorted by ICON id.'),
    nav,
    status,
    grid,
    pagerSlot,
  );
  skeletonGrid(grid, 12);
  const href = (category: IconCategory | '', page = 1): string => stateHref({ view: 'icons', category, page });
  nav.append(
    tabs('Icon categories', [
      { href: href(''), text: 'All', current: state.category === '' },
      ...ICON_CATEGORIES.map((c) => ({ href: href(c), text: c, current: state.category === c })),
    ]),
  );
  const [cats, list] = await Promise.allSettled([
    api.iconCategories(ctx.signal),
    api.icons({ ...(state.category ? { category: state.category } : {}), page: state.page, limit: TILES_PER_PAGE }, ctx.signal),
  ]);
  if (ctx.signal.aborted) return;
  if (cats.status === 'fulfilled') {
    const counts = new Map(cats.value.categories.map((c) => [c.category, c.count]));
    nav.replaceChildren(
      tabs('Icon categories', [
        { href: href(''), text: `All (${cats.value.total})`, current: state.category === '' },
        ...ICON_CATEGORIES.map((c) => ({ href: href(c), text: `${c} (${counts.get(c) ?? 0})`, current: state.category === c })),
      ]),
    );
  }
  grid.removeAttribute('aria-busy');
  if (list.status === 'rejected') {
    if (isAbort(list.reason)) return;
    grid.replaceChildren();
    status.className = 'status-line error';
    status.textContent = errorText(list.reason);
    return;
  }
  const page = list.value;
  grid.replaceChildren(...page.items.map((i) => tile(itemHref('icons', i.iconUuid), i.name, i.iconUuid, i.url)));
  const what = state.category === '' ? 'icons' : `${state.category} icons`;
  status.textContent = page.total === 0 ? `No ${what} in this catalog.` : `${page.total} ${what}; page ${page.page}.`;
  ctx.announce(status.textContent);
  if (page.total > TILES_PER_PAGE) pagerSlot.append(pager(page.total, page.count, page.page, (p) => href(state.category, p)));
};

/** Render the sprites view (sprites by category, then the sprite characters). */
export const spritesView: View<Extract<PageState, { view: 'sprites' }>> = async (state, ctx) => {
  ctx.title(state.category === '' ? 'Sprites' : `Sprites: ${state.category}`);
  const status = h('p', { id: 'sprites-status', class: 'status-line' }, 'Loading sprites…');
  const nav = h('div', { class: 'tabs-slot' });
  const grid = h('ul', { id: 'sprite-grid', class: 'grid', 'aria-busy': 'true' });
  const pagerSlot = h('div', { class: 'pager-slot' });
  const chars = h('ul', { id: 'character-list', class: 'links' });
  ctx.root.append(
    h('h1', { tabindex: '-1' }, state.category === '' ? 'Sprites' : `Sprites: ${state.category}`),
    h(
      'p',
      { class: 'muted' },
      'The 2D sprite registry (',
      h('code', {}, '/api/v1/sprites'),
      ') and the sprite characters (',
      h('code', {}, '/api/v1/characters'),
      ').',
    ),
    nav,
    status,
    grid,
    pagerSlot,
    h('section', { 'aria-labelledby': 'chars-title' }, h('h2', { id: 'chars-title' }, 'Sprite characters'), chars),
  );
  skeletonGrid(grid, 8);
  const href = (category: string, page = 1): string => stateHref({ view: 'sprites', category, page });
  const [reg, list, characters] = await Promise.allSettled([
    api.registryStats(ctx.signal),
    api.sprites({ ...(state.category ? { category: state.category } : {}), page: state.page, limit: TILES_PER_PAGE }, ctx.signal),
    api.characters({ limit: 500 }, ctx.signal),
  ]);
  if (ctx.signal.aborted) return;
  if (reg.status === 'fulfilled') {
    const s = reg.value.sprites;
    nav.append(
      tabs('Sprite categories', [
        { href: href(''), text: `All (${s.total})`, current: state.category === '' },
        ...s.categories.map((c) => ({
          href: href(c.category),
          text: `${c.category} (${c.count})`,
          current: state.category === c.category,
        })),
      ]),
    );
  }
  grid.removeAttribute('aria-busy');
  if (list.status === 'fulfilled') {
    const page = list.value;
    grid.replaceChildren(...page.items.map((s) => tile(itemHref('sprites', s.uuid), s.name, s.uuid, s.url)));
    const what = state.category === '' ? 'sprites' : `${state.category} sprites`;
    status.textContent = page.total === 0 ? `No ${what} in this catalog.` : `${page.total} ${what}; page ${page.page}.`;
    ctx.announce(status.textContent);
    if (page.total > TILES_PER_PAGE) pagerSlot.append(pager(page.total, page.count, page.page, (p) => href(state.category, p)));
  } else if (!isAbort(list.reason)) {
    grid.replaceChildren();
    status.className = 'status-line error';
    status.textContent = errorText(list.reason);
  }
  if (characters.status === 'fulfilled') {
    if (characters.value.items.length === 0) chars.append(h('li', { class: 'muted' }, 'No sprite characters in this catalog.'));
    for (const c of characters.value.items)
      chars.append(
        h(
          'li',
          {},
          h('a', { href: itemHref('characters', c.uuid) }, c.name),
          ` — ${c.category}, ${Object.keys(c.animations).length} animations`,
        ),
      );
  } else if (!isAbort(characters.reason)) {
    chars.append(h('li', { class: 'error' }, errorText(characters.reason)));
  }
};
