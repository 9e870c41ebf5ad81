/**
 * Item view (`?view=item&kind=…&id=…`): one record of any kind laid out for reading: its picture from
 * `{cdn_url}` (a placeholder when it has none or the binary is missing), name, tier and category, its
 * identifiers (spec §2.6), its fields, its references as links (recipe materials and results, icons, drops,
 * prefab references §2.7, sprite sheets), and a link to its raw JSON. Where the record is read from:
 * `data.ts` (`resolveItem`).
 */
import { ApiError } from '../api.js';
import { cdnUrl, masterRegistry, recordImageUrl, resolveItem, type RegistryEntry } from '../data.js';
import { errorText, h, imageBox, isAbort } from '../dom.js';
import { COLLECTION_NAMES } from '../../api/_lib/formats/collection-index.js';
import { KIND_LABELS, isCollectionKind, kindOfRegistryKind, recordIdentifiers, type ItemKind } from '../kinds.js';
import {
  layoutFields,
  recordDescription,
  recordImage,
  recordName,
  recordReferences,
  recordSummary,
  type Field,
  type FieldValue,
  type Reference,
} from '../records.js';
import { collectionState, itemHref, stateHref, type PageState } from '../state.js';
import type { View } from './context.js';

/** Kinds whose generic id family (`ITEM-`, `FOOD-`, …) the master registry can narrow to a page kind. */
const NARROWED: ReadonlySet<ItemKind> = new Set([
  'items',
  'consumables',
  'definitions',
  'skills',
  'materials',
  'recipes',
  'attributes',
  ...COLLECTION_NAMES,
]);

/** The page a reference leads to: the registry's kind when it knows the id, else the id family's. */
function refHref(ref: Reference, registry: Readonly<Record<string, RegistryEntry>>): string {
  if (ref.target.type === 'asset') return ref.target.url;
  const entry = registry[ref.target.id];
  const kind = entry && NARROWED.has(ref.target.kind) ? kindOfRegistryKind(entry.kind) : ref.target.kind;
  return itemHref(kind, ref.target.id);
}

function refText(ref: Reference, registry: Readonly<Record<string, RegistryEntry>>): string {
  if (ref.target.type === 'asset') return ref.value;
  return ref.name ?? registry[ref.target.id]?.name ?? ref.target.id;
}

function refKindLabel(ref: Reference, registry: Readonly<Record<string, RegistryEntry>>, cdn: string | undefined): string {
  if (ref.target.type === 'asset')
    return cdn && ref.target.url.startsWith(`${cdn.replace(/\/+$/, '')}/`) ? 'file on the CDN' : `file on ${new URL(ref.target.url).host}`;
  const entry = registry[ref.target.id];
  return entry ? entry.kind : KIND_LABELS[ref.target.kind].toLowerCase();
}

function fieldList(
  fields: readonly Field[],
  refs: ReadonlyMap<string, Reference>,
  registry: Readonly<Record<string, RegistryEntry>>,
): HTMLDListElement {
  const dl = h('dl', { class: 'fields' });
  for (const f of fields) dl.append(h('dt', { title: f.key }, f.label), h('dd', {}, valueNode(f.value, refs, registry)));
  return dl;
}

function valueNode(v: FieldValue, refs: ReadonlyMap<string, Reference>, registry: Readonly<Record<string, RegistryEntry>>): Node {
  if (v.kind === 'text') {
    const ref = refs.get(v.pointer);
    if (ref) return h('a', { href: refHref(ref, registry), class: ref.target.type === 'asset' ? 'asset-link' : 'ref-link' }, v.text);
    return h('span', { class: v.empty ? 'muted' : 'value' }, v.text);
  }
  if (v.kind === 'group') return fieldList(v.fields, refs, registry);
  const scalars = v.items.every((i) => i.kind === 'text');
  const list = h(
    scalars ? 'ul' : 'ol',
    { class: scalars ? 'values' : 'entries' },
    ...v.items.map((i) => h('li', {}, valueNode(i, refs, registry))),
  );
  if (v.items.length === 0) return h('span', { class: 'muted' }, 'none');
  if (v.more > 0) list.append(h('li', { class: 'muted' }, `… and ${v.more} more (see the raw JSON)`));
  return list;
}

/** Render the item view. */
export const itemView: View<Extract<PageState, { view: 'item' }>> = async (state, ctx) => {
  const label = KIND_LABELS[state.kind];
  ctx.title(`${label} ${state.id}`);
  const crumbs = h('nav', { class: 'breadcrumb', 'aria-label': 'Breadcrumb' });
  const kicker = h('p', { class: 'kicker' }, label);
  const heading = h('h1', { tabindex: '-1', class: 'loading-text' }, 'Loading…');
  const desc = h('p', { class: 'description' });
  const figure = h('div', { class: 'item-figure' });
  const body = h('div', { class: 'item-body', 'aria-busy': 'true' });
  figure.append(imageBox(new Promise<undefined>(() => undefined), '', 'large'));
  const article = h(
    'article',
    { id: 'item', class: 'item' },
    h('header', { class: 'item-head' }, figure, h('div', { class: 'item-title' }, kicker, heading, desc)),
    body,
  );
  ctx.root.append(crumbs, article);
  const setCrumbs = (kind: ItemKind, name: string): void => {
    crumbs.replaceChildren(
      h('a', { href: '/' }, 'Home'),
      ' › ',
      isCollectionKind(kind)
        ? h('a', { href: stateHref(collectionState(kind)) }, kind[0]!.toUpperCase() + kind.slice(1))
        : h('span', {}, KIND_LABELS[kind]),
      ' › ',
      h('span', { 'aria-current': 'page' }, name),
    );
  };
  setCrumbs(state.kind, state.id);

  let found;
  try {
    found = await resolveItem(state.kind, state.id, ctx.signal);
  } catch (e) {
    if (isAbort(e) || ctx.signal.aborted) return;
    heading.classList.remove('loading-text');
    const missing = e instanceof ApiError && e.status === 404;
    heading.textContent = missing ? `${label} not found` : `${label} could not be read`;
    figure.replaceChildren(imageBox(undefined, '', 'large'));
    body.removeAttribute('aria-busy');
    body.replaceChildren(
      h('p', { class: 'error', id: 'item-error' }, errorText(e)),
      h('p', {}, h('a', { href: stateHref({ view: 'search', q: state.id, type: 'all' }) }, `Search the catalog for ${state.id}`)),
    );
    ctx.announce(heading.textContent);
    ctx.title(heading.textContent);
    return;
  }
  if (ctx.signal.aborted) return;
  const { record, kind, source } = found;
  const cdn = await cdnUrl();
  const name = recordName(record, state.id);
  ctx.title(`${name} · ${found.label}`);
  setCrumbs(kind, name);
  heading.classList.remove('loading-text');
  heading.textContent = name;
  const summary = recordSummary(record);
  kicker.textContent = summary ? `${found.label} · ${summary}` : found.label;
  const description = recordDescription(record);
  desc.textContent = description;

  figure.replaceChildren(imageBox(recordImageUrl(recordImage(record, kind, cdn)), name, 'large'));

  const ids = recordIdentifiers(record);
  // shown above the fields: the name, the identifiers, the description (and a lore or base id that repeats them)
  const omit = new Set(['name', ...ids.filter(([k]) => k !== 'baseUuid').map(([k]) => k)]);
  if (record.baseUuid === record.uuid) omit.add('baseUuid');
  if (description !== '') for (const k of ['description', 'lore']) if (record[k] === description) omit.add(k);
  const refs = recordReferences(record, cdn);
  const needsRegistry = refs.some((r) => r.target.type === 'item' && r.target.kind !== 'icons' && r.target.kind !== 'sprites');
  const registry = needsRegistry ? await masterRegistry().catch(() => ({})) : {};
  if (ctx.signal.aborted) return;
  const byPointer = new Map(refs.map((r) => [r.pointer, r]));

  const sections: HTMLElement[] = [];
  sections.push(
    h(
      'section',
      { 'aria-labelledby': 'ids-title', class: 'item-section' },
      h('h2', { id: 'ids-title' }, 'Identifiers'),
      ids.length === 0
        ? h('p', { class: 'muted' }, 'This record carries no identifier.')
        : h('dl', { class: 'fields ids' }, ...ids.flatMap(([k, v]) => [h('dt', {}, k), h('dd', {}, h('code', { class: 'id' }, v))])),
    ),
  );
  const fields = layoutFields(record, omit);
  sections.push(
    h(
      'section',
      { 'aria-labelledby': 'fields-title', class: 'item-section' },
      h('h2', { id: 'fields-title' }, 'Fields'),
      fields.length === 0 ? h('p', { class: 'muted' }, 'No other fields.') : fieldList(fields, byPointer, registry),
    ),
  );
  sections.push(
    h(
      'section',
      { 'aria-labelledby': 'refs-title', class: 'item-section' },
      h('h2', { id: 'refs-title' }, 'References'),
      refs.length === 0
        ? h('p', { class: 'muted' }, 'This record names no other record or file.')
        : h(
            'ul',
            { id: 'item-references', class: 'refs' },
            ...refs.map((r) =>
              h(
                'li',
                {},
                h(
                  'a',
                  { href: refHref(r, registry), class: r.target.type === 'asset' ? 'asset-link' : 'ref-link', 'data-pointer': r.pointer },
                  refText(r, registry),
                ),
                ' ',
                h('span', { class: 'tag' }, refKindLabel(r, registry, cdn)),
                ' ',
                h('span', { class: 'muted' }, [r.where, ...r.notes].join(' · ')),
              ),
            ),
          ),
    ),
  );
  const rawHref = source.url;
  sections.push(
    h(
      'section',
      { 'aria-labelledby': 'raw-title', class: 'item-section' },
      h('h2', { id: 'raw-title' }, 'Raw JSON'),
      h(
        'p',
        {},
        h('a', { href: rawHref, id: 'raw-link' }, rawHref),
        source.pointer !== undefined ? h('span', { class: 'muted' }, ' at pointer ', h('code', {}, source.pointer)) : null,
      ),
      h('details', {}, h('summary', {}, 'Show this record as JSON'), h('pre', { class: 'json' }, JSON.stringify(record, null, 2))),
    ),
  );
  body.replaceChildren(...sections);
  body.removeAttribute('aria-busy');
  ctx.announce(`${found.label} ${name}.`);
};
