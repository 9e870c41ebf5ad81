/**
 * Small DOM helpers of the catalog browser. Data reaches the page only as text nodes and attribute values
 * set through DOM APIs, never as HTML.
 */
import { ApiError } from './api.js';
import { problemMessage } from './catalog-page.js';

/** Children accepted by {@link h}: nodes, text, or nothing. */
export type Child = Node | string | number | null | undefined | false;

/** Properties accepted by {@link h}: `class`, `text` (textContent), event handlers `on*`, other attributes. */
export type Props = Readonly<Record<string, string | number | boolean | null | undefined | EventListener>>;

/**
 * Create an element: `h('a', { href: '/x', class: 'c' }, 'text')`. Attribute values are strings set with
 * `setAttribute` (`true` → empty attribute, `false`/null/undefined → left out); `on<event>` adds a listener.
 */
export function h<K extends keyof HTMLElementTagNameMap>(tag: K, props: Props = {}, ...children: Child[]): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(props)) {
    if (v === undefined || v === null || v === false) continue;
    if (typeof v === 'function') el.addEventListener(k.slice(2), v);
    else if (k === 'text') el.textContent = String(v);
    else el.setAttribute(k, v === true ? '' : String(v));
  }
  append(el, ...children);
  return el;
}

/** Append children (text as text nodes; falsy children skipped). */
export function append(parent: Node, ...children: Child[]): void {
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    parent.appendChild(typeof c === 'string' || typeof c === 'number' ? document.createTextNode(String(c)) : c);
  }
}

/**
 * The message to show for a failed read: an {@link ApiError}'s `detail` followed by the message of each of its
 * `errors` (as `problemMessage` does for a problem body), else the error's message.
 */
export function errorText(e: unknown): string {
  if (e instanceof ApiError) return problemMessage(e.status, { detail: e.detail, errors: e.errors });
  return e instanceof Error ? e.message : String(e);
}

/** A paragraph that says what failed (`role="alert"` is left to the status line). */
export function errorBox(what: string, e: unknown): HTMLElement {
  return h('p', { class: 'error' }, `${what}: ${errorText(e)}`);
}

/** True when the error is the abort of a superseded view. */
export function isAbort(e: unknown): boolean {
  return e instanceof DOMException && e.name === 'AbortError';
}

/**
 * A fixed-size picture box (the same box in every state, so nothing moves): a placeholder that says
 * "Loading image…" until the image has loaded, then the image; when there is no image, or it fails to load
 * (a missing binary on `{cdn_url}`, a host that cannot be reached), the placeholder stays and says so.
 * Never shows a broken image. States are on `data-state`: `loading`, `loaded`, `missing`, `none`.
 * @param src the image URL, a promise of it (undefined = no image), or undefined for none.
 * @param alt text alternative of the image (the record's name).
 * @param size `large` (item pages) or `small` (grids).
 */
export function imageBox(
  src: string | Promise<string | undefined> | undefined,
  alt: string,
  size: 'large' | 'small' = 'large',
): HTMLElement {
  const label = h('span', { class: 'thumb-label' });
  const box = h('div', { class: `thumb thumb-${size}` }, label);
  const set = (state: 'loading' | 'loaded' | 'missing' | 'none', text: string): void => {
    box.dataset.state = state;
    label.textContent = text;
  };
  const show = (url: string | undefined): void => {
    if (!url) {
      set('none', 'No image');
      return;
    }
    set('loading', 'Loading image…');
    const img = h('img', { alt, decoding: 'async', loading: 'lazy' });
    img.addEventListener('load', () => {
      if (img.naturalWidth > 0) {
        label.textContent = '';
        box.dataset.state = 'loaded';
        box.dataset.src = url;
      } else {
        img.remove();
        set('missing', 'Image not available');
      }
    });
    img.addEventListener('error', () => {
      img.remove();
      set('missing', 'Image not available');
    });
    img.src = url;
    box.dataset.src = url;
    box.append(img);
  };
  if (typeof src === 'string' || src === undefined) show(src);
  else {
    set('loading', 'Loading image…');
    src.then(show, () => set('missing', 'Image not available'));
  }
  return box;
}

/** A table of `head` columns whose body rows are filled later, wrapped so a wide table scrolls by itself, not the page. */
export function table(
  caption: string,
  head: readonly string[],
  className = '',
): { wrap: HTMLElement; table: HTMLTableElement; body: HTMLTableSectionElement } {
  const t = h('table', { class: className }, h('caption', { class: 'visually-hidden' }, caption));
  const thead = t.createTHead().insertRow();
  for (const c of head) thead.append(h('th', { scope: 'col' }, c));
  const body = t.createTBody();
  return { wrap: h('div', { class: 'table-wrap' }, t), table: t, body };
}

/** Fill `body` with `rows` skeleton rows of `cols` cells, the height real rows will take. */
export function skeletonRows(body: HTMLTableSectionElement, rows: number, cols: number): void {
  body.replaceChildren();
  for (let r = 0; r < rows; r++) {
    const tr = body.insertRow();
    tr.className = 'skeleton';
    tr.setAttribute('aria-hidden', 'true');
    for (let c = 0; c < cols; c++) tr.append(h('td', {}, h('span', { class: 'bone' }, '\u00a0')));
  }
}

/** A row of cells: each a node or text. */
export function row(body: HTMLTableSectionElement, ...cells: Child[]): HTMLTableRowElement {
  const tr = body.insertRow();
  for (const c of cells) tr.append(h('td', {}, c));
  return tr;
}
