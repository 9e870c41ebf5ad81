/**
 * DOM pieces the console's views share (docs/architecture.md, "Operator console"): a refusal shown in place
 * with the problem's title and detail, a catalog id shown with its name, icon and a link to the catalog
 * browser's item page, and small lists. Data reaches the page only as text and attribute values set through
 * DOM APIs (`site/dom.ts`), never as HTML.
 */
import { ApiError } from '../api.js';
import { catalogEntry, catalogIcon } from '../catalog.js';
import { h } from '../../dom.js';
import { formatTime } from '../confirm.js';

/** The title and detail of a refusal: the problem's own, or what a failure without one means. */
export function problemParts(e: unknown): {
  readonly title: string;
  readonly detail: string;
  readonly status: number;
  readonly code: string;
} {
  if (e instanceof ApiError) {
    if (e.status === 0)
      return { title: 'No answer from the service', detail: `${e.detail} Nothing is known of what it did.`, status: 0, code: e.code };
    const title = typeof e.problem?.title === 'string' ? e.problem.title : `HTTP ${e.status}`;
    const fields = e.errors.map((f) => `${f.name === '' ? 'body' : f.name}: ${f.message}`);
    return { title, detail: [e.detail, ...fields].join(' '), status: e.status, code: e.code };
  }
  return { title: 'Something failed in the page', detail: e instanceof Error ? e.message : String(e), status: -1, code: 'PAGE' };
}

/** A refusal shown in place: `role="alert"`, the problem's title as a heading and its detail, with the code and status. */
export function problemBox(e: unknown, extra?: Node): HTMLElement {
  const p = problemParts(e);
  return h(
    'div',
    { class: 'problem', role: 'alert', 'data-code': p.code, 'data-status': p.status },
    h('strong', { class: 'problem-title' }, p.title),
    h('p', { class: 'problem-detail' }, p.detail),
    p.status > 0 ? h('p', { class: 'muted problem-code' }, `${p.status} ${p.code}`) : null,
    extra ?? null,
  );
}

/** True when the error is the abort of a superseded view. */
export function isAbort(e: unknown): boolean {
  return (e instanceof DOMException && e.name === 'AbortError') || (e instanceof Error && e.name === 'AbortError');
}

/**
 * Wire a "more" button of a paged list: a click loads the next page once, the button disabled meanwhile;
 * a failure other than an abort is shown by `report` (docs/architecture.md, "Operator console").
 */
export function onMore(more: HTMLButtonElement, page: () => Promise<unknown>, report: (problem: HTMLElement) => void): void {
  more.addEventListener('click', () => {
    more.disabled = true;
    page().then(
      () => (more.disabled = false),
      (e: unknown) => {
        more.disabled = false;
        if (!isAbort(e)) report(problemBox(e));
      },
    );
  });
}

/** A time as text (`2026-11-20 10:05 UTC`), with the exact ISO time as its machine value. */
export function timeText(iso: string | null | undefined, none = 'never'): HTMLElement {
  if (!iso) return h('span', { class: 'muted' }, none);
  return h('time', { datetime: iso, title: iso }, formatTime(iso));
}

/** A small fixed box for a catalog icon: a placeholder until the image loads, which stays when there is none. */
export function iconBox(src: Promise<string | undefined>, alt: string): HTMLElement {
  const box = h('span', { class: 'icon-box', 'data-state': 'loading', 'aria-hidden': alt === '' ? 'true' : null });
  void src.then(
    (url) => {
      if (!url) {
        box.dataset.state = 'none';
        return;
      }
      const img = h('img', { alt, width: 32, height: 32, decoding: 'async', loading: 'lazy' });
      img.addEventListener('load', () => (box.dataset.state = 'loaded'));
      img.addEventListener('error', () => {
        img.remove();
        box.dataset.state = 'missing';
      });
      img.src = url;
      box.append(img);
    },
    () => (box.dataset.state = 'missing'),
  );
  return box;
}

/**
 * A catalog id as the console shows it: its icon, its name linked to the catalog browser's item page, and
 * the id itself (the name and link fill in once the published catalog has been read; an id the catalog does
 * not know stays as it is, marked).
 */
export function catalogCell(id: string): HTMLElement {
  const name = h('span', { class: 'catalog-name muted' }, 'Reading the catalog…');
  const cell = h('span', { class: 'catalog-ref', 'data-id': id }, iconBox(catalogIcon(id), ''), name, ' ', h('code', {}, id));
  void catalogEntry(id).then(
    (entry) => {
      if (!entry.href) {
        name.replaceWith(h('span', { class: 'catalog-name unknown' }, entry.name ?? 'Not in the published catalog'));
        return;
      }
      name.replaceWith(h('a', { class: 'catalog-name', href: entry.href }, entry.name ?? id));
    },
    () => name.replaceWith(h('span', { class: 'catalog-name unknown' }, 'The catalog could not be read')),
  );
  return cell;
}

/** A section with a heading (`h2`) and an id, whose body is filled later. */
export function section(id: string, heading: string, ...children: (Node | null)[]): HTMLElement {
  return h('section', { id, class: 'panel', 'aria-labelledby': `${id}-heading` }, h('h2', { id: `${id}-heading` }, heading), ...children);
}

/** A definition list of `[term, value]` pairs. */
export function facts(pairs: readonly (readonly [string, Node | string])[], className = 'facts'): HTMLDListElement {
  const dl = h('dl', { class: className });
  for (const [k, v] of pairs) dl.append(h('dt', {}, k), h('dd', {}, v));
  return dl;
}
