/**
 * Collection view (`?view=collection&name=relics&…`): one of the four item collections (spec §2.2, §4.2)
 * with every filter of §4.2 as a control (`COLLECTION_DEFS`: enums and tiers as selects, free words as
 * text fields suggesting the values found in the collection's static file), `q`, `discovered=all` for
 * artifacts, page size and offset paging. Every change is pushed to the address and the list reloads in
 * place, so controls keep their focus; shared or reloaded addresses restore the same view.
 */
import { COLLECTION_DEFS, type FilterDef } from '../../api/_lib/formats/collection-index.js';
import * as api from '../api.js';
import { collectionFilterValues } from '../data.js';
import { errorText, h, isAbort, skeletonRows, table } from '../dom.js';
import { recordKey } from '../kinds.js';
import { fieldLabel, recordName, scalarText } from '../records.js';
import { PAGE_SIZES, collectionApiQuery, collectionState, filterValue, itemHref, pageInfo, stateHref, type PageState } from '../state.js';
import type { View } from './context.js';

type CollectionState = Extract<PageState, { view: 'collection' }>;

/** Wait after the last keystroke in a text field before the list reloads. */
const TYPING_DELAY_MS = 300;

function control(
  name: string,
  def: FilterDef,
): { label: HTMLLabelElement; input: HTMLInputElement | HTMLSelectElement; list?: HTMLDataListElement } {
  const id = `f-${def.param}`;
  const label = h('label', { for: id }, fieldLabel(def.param));
  if (def.kind === 'enum' || def.kind === 'tier') {
    const values = def.kind === 'enum' ? def.values : ['1', '2', '3', '4', '5', '6', '7', '8'];
    const select = h(
      'select',
      { id, name: def.param },
      h('option', { value: '' }, 'Any'),
      ...values.map((v) => h('option', { value: v }, v)),
    );
    return { label, input: select };
  }
  const list = h('datalist', { id: `${id}-values` });
  const input = h('input', {
    id,
    name: def.param,
    type: 'text',
    list: `${id}-values`,
    autocomplete: 'off',
    maxlength: '200',
    placeholder: `any ${fieldLabel(def.param).toLowerCase()}`,
    'data-collection': name,
  });
  return { label, input, list };
}

/** Render the collection view. */
export const collectionView: View<CollectionState> = (initial, ctx) => {
  const def = COLLECTION_DEFS[initial.name];
  const title = initial.name[0]!.toUpperCase() + initial.name.slice(1);
  ctx.title(title);
  let state = initial;

  const q = h('input', {
    id: 'f-q',
    name: 'q',
    type: 'search',
    autocomplete: 'off',
    maxlength: '200',
    placeholder: def.searchFields.join(', '),
  });
  const controls = def.filters.map((f) => ({ def: f, ...control(initial.name, f) }));
  const discovered = def.hideUndiscovered ? h('input', { id: 'f-discovered', name: 'discovered', type: 'checkbox', value: 'all' }) : null;
  const limit = h('select', { id: 'f-limit', name: 'limit' }, ...PAGE_SIZES.map((n) => h('option', { value: String(n) }, String(n))));
  const form = h(
    'form',
    { id: 'collection-filters', class: 'filters', 'aria-label': `Filter ${initial.name}` },
    h('div', { class: 'field field-wide' }, h('label', { for: 'f-q' }, 'Text'), q),
    ...controls.map((c) => h('div', { class: 'field' }, c.label, c.input, c.list)),
    discovered ? h('div', { class: 'field field-check' }, discovered, h('label', { for: 'f-discovered' }, 'Include undiscovered')) : null,
    h('div', { class: 'field' }, h('label', { for: 'f-limit' }, 'Per page'), limit),
    h(
      'div',
      { class: 'field field-actions' },
      h('button', { type: 'submit' }, 'Apply'),
      h('a', { href: stateHref(collectionState(initial.name)), class: 'clear' }, 'Clear'),
    ),
  );

  const status = h('p', { id: 'collection-status', class: 'status-line' }, 'Loading…');
  const extra = def.hideUndiscovered ? ['Hidden until found'] : [];
  const columns = def.filters.filter((f) => f.param !== 'tier');
  const t = table(`${title}, one page`, ['Name', 'Tier', ...columns.map((f) => fieldLabel(f.param)), ...extra, 'Id'], 'records responsive');
  t.table.id = 'collection-table';
  const headers = [...t.table.tHead!.rows[0]!.cells].map((c) => c.textContent ?? '');
  const pager = (where: string): { nav: HTMLElement; prev: HTMLAnchorElement; next: HTMLAnchorElement; of: HTMLElement } => {
    const prev = h('a', { class: 'prev', rel: 'prev' }, '← Previous');
    const next = h('a', { class: 'next', rel: 'next' }, 'Next →');
    const of = h('span', { class: 'page-of' }, '\u00a0');
    return { nav: h('nav', { class: `pager pager-${where}`, 'aria-label': `Pages (${where})` }, prev, of, next), prev, next, of };
  };
  const top = pager('top');
  const bottom = pager('bottom');

  ctx.root.append(
    h('h1', { tabindex: '-1' }, title),
    h(
      'p',
      { class: 'muted' },
      'From ',
      h('code', {}, `/v1/${initial.name}`),
      ` (dataset ${def.dataset}); text searches ${def.searchFields.join(', ')}.`,
    ),
    form,
    status,
    top.nav,
    t.wrap,
    bottom.nav,
  );

  const writeForm = (s: CollectionState): void => {
    // the text field being typed in keeps its value (and caret) when it already says the same
    const put = (el: HTMLInputElement | HTMLSelectElement, v: string): void => {
      if (!(el === document.activeElement && el.tagName === 'INPUT' && el.value.trim() === v)) el.value = v;
    };
    put(q, s.q);
    for (const c of controls) put(c.input, s.filters[c.def.param] ?? '');
    if (discovered) discovered.checked = s.discovered;
    // a shared address may name a page size the list does not offer (1-500): offer it too
    if (![...limit.options].some((o) => o.value === String(s.limit)))
      limit.append(h('option', { value: String(s.limit) }, String(s.limit)));
    limit.value = String(s.limit);
  };
  const readForm = (): CollectionState => {
    const filters: Record<string, string> = {};
    for (const c of controls) {
      const v = filterValue(c.def, c.input.value);
      if (v !== undefined) filters[c.def.param] = v;
    }
    return {
      ...state,
      q: q.value.trim().slice(0, 200),
      filters,
      discovered: discovered?.checked ?? false,
      limit: Number(limit.value) || state.limit,
      offset: 0,
    };
  };

  // one list read at a time: a newer state, or leaving the view, aborts the one in flight
  let pending: AbortController | undefined;
  ctx.signal.addEventListener('abort', () => pending?.abort(), { once: true });
  const load = async (s: CollectionState, first: boolean): Promise<void> => {
    pending?.abort();
    const ctl = new AbortController();
    pending = ctl;
    t.table.setAttribute('aria-busy', 'true');
    if (first) skeletonRows(t.body, Math.min(s.limit, 20), headers.length);
    else t.table.classList.add('stale');
    status.className = 'status-line';
    status.textContent = 'Loading…';
    try {
      const page = await api.listCollection(s.name, collectionApiQuery(s), ctl.signal);
      if (ctl.signal.aborted) return;
      t.body.replaceChildren();
      for (const item of page.items) {
        const key = recordKey(item);
        const name = recordName(item, key ?? '?');
        const tr = t.body.insertRow();
        const cells: (Node | string)[] = [
          key ? h('a', { href: itemHref(s.name, key) }, name) : name,
          item.tier === undefined ? '' : scalarText(item.tier),
          ...columns.map((f) => (item[f.field] === undefined ? '' : scalarText(item[f.field]))),
          ...(def.hideUndiscovered
            ? [scalarText((item.discovery as { hiddenUntilFound?: unknown } | undefined)?.hiddenUntilFound ?? false)]
            : []),
          h('code', { class: 'id' }, key ?? ''),
        ];
        cells.forEach((c, i) => tr.append(h('td', { 'data-label': headers[i] ?? '' }, c)));
      }
      const info = pageInfo(page.total, page.count, page.offset, page.limit);
      const noun = page.total === 1 ? def.name.replace(/s$/, '') : def.name;
      const summary =
        page.total === 0
          ? `No ${def.name} match these filters.`
          : info.from === 0
            ? `Nothing on this page; ${page.total} ${noun} in all.`
            : `Showing ${info.from}–${info.to} of ${page.total} ${noun}.`;
      status.textContent = summary;
      ctx.announce(summary);
      for (const p of [top, bottom]) {
        setLink(p.prev, info.prev === null ? null : stateHref({ ...s, offset: info.prev }));
        setLink(p.next, info.next === null ? null : stateHref({ ...s, offset: info.next }));
        p.of.textContent = `Page ${info.page} of ${info.pages}`;
      }
    } catch (e) {
      if (isAbort(e) || ctl.signal.aborted) return;
      t.body.replaceChildren();
      status.className = 'status-line error';
      status.textContent = errorText(e);
      ctx.announce(errorText(e));
      for (const p of [top, bottom]) {
        setLink(p.prev, null);
        setLink(p.next, null);
        p.of.textContent = '\u00a0';
      }
    } finally {
      if (pending === ctl) {
        t.table.removeAttribute('aria-busy');
        t.table.classList.remove('stale');
      }
    }
  };

  const apply = (next: CollectionState, replace = false): void => {
    state = next;
    ctx.navigate(next, { replace, keepFocus: true });
  };
  let typing: ReturnType<typeof setTimeout> | undefined;
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    clearTimeout(typing);
    apply(readForm());
  });
  form.addEventListener('change', (e) => {
    if ((e.target as HTMLElement).tagName === 'INPUT' && (e.target as HTMLInputElement).type !== 'checkbox') return;
    clearTimeout(typing);
    apply(readForm());
  });
  form.addEventListener('input', (e) => {
    const target = e.target as HTMLElement;
    if (target.tagName !== 'INPUT' || (target as HTMLInputElement).type === 'checkbox') return;
    clearTimeout(typing);
    typing = setTimeout(() => {
      const next = readForm();
      if (stateHref(next) !== stateHref(state)) apply(next);
    }, TYPING_DELAY_MS);
  });
  ctx.signal.addEventListener('abort', () => clearTimeout(typing), { once: true });

  ctx.onUpdate((next) => {
    if (next.view !== 'collection' || next.name !== state.name) return false;
    state = next;
    writeForm(next);
    void load(next, false);
    return true;
  });

  writeForm(initial);
  const first = load(initial, true);
  void collectionFilterValues(initial.name).then(
    (values) => {
      if (ctx.signal.aborted) return;
      for (const c of controls) {
        const vs = values[c.def.param];
        if (c.list && vs) c.list.replaceChildren(...vs.map((v) => h('option', { value: v })));
      }
    },
    () => undefined,
  );
  return first;
};

function setLink(a: HTMLAnchorElement, href: string | null): void {
  if (href === null) {
    a.removeAttribute('href');
    a.setAttribute('aria-disabled', 'true');
  } else {
    a.href = href;
    a.removeAttribute('aria-disabled');
  }
}
