/**
 * Home view (`/`): where to go (the four collections, the registries, totals, the build report), the
 * exports, the featured static files that this build published, and the endpoints (spec §4.1-§4.6).
 */
import { COLLECTION_NAMES } from '../../api/_lib/formats/collection-index.js';
import { ENDPOINTS, EXPORT_TYPES, exportUrl, publishedFeaturedFiles } from '../catalog-page.js';
import { manifest } from '../data.js';
import { h } from '../dom.js';
import { collectionState, stateHref } from '../state.js';
import type { View } from './context.js';

const COLLECTION_NOTES: Readonly<Record<(typeof COLLECTION_NAMES)[number], string>> = {
  relics: 'Equippable relics: category, tier, element, slot.',
  enchants: 'Consumed on apply, a permanent stat bonus: category, tier, target.',
  infusions: 'Advance an item toward its next tier: tier, scope, profession.',
  artifacts: 'World artifacts: tier, type, subtype, handedness, discovery.',
};

function linkItem(href: string, text: string, note?: string): HTMLLIElement {
  return h('li', {}, h('a', { href }, text), note ? ` — ${note}` : null);
}

/** Render the home view. */
export const homeView: View<{ view: 'home' }> = async (_state, ctx) => {
  ctx.title('Catalog');
  const files = h('ul', { id: 'file-links', class: 'links' });
  // reserve the list's room: one line per featured file
  files.style.minHeight = `${Math.ceil(publishedFeaturedFiles(null).length / 2) * 1.6}rem`;
  ctx.root.append(
    h('h1', { tabindex: '-1' }, 'Game data catalog'),
    h(
      'p',
      { class: 'lede' },
      'Definitions of weapons, armor, materials, consumables, skills, enemies, bosses, relics, enchants, infusions, artifacts, sprites and icons, published as JSON. Search from the box above, or browse:',
    ),
    h(
      'section',
      { 'aria-labelledby': 'browse-title' },
      h('h2', { id: 'browse-title' }, 'Browse'),
      h(
        'ul',
        { class: 'cards' },
        ...COLLECTION_NAMES.map((n) =>
          h(
            'li',
            {},
            h(
              'a',
              { href: stateHref(collectionState(n)), class: 'card' },
              h('strong', {}, n[0]!.toUpperCase() + n.slice(1)),
              h('span', {}, COLLECTION_NOTES[n]),
            ),
          ),
        ),
        h(
          'li',
          {},
          h(
            'a',
            { href: stateHref({ view: 'icons', category: '', page: 1 }), class: 'card' },
            h('strong', {}, 'Icons'),
            h('span', {}, 'The icon registry by category, as a grid.'),
          ),
        ),
        h(
          'li',
          {},
          h(
            'a',
            { href: stateHref({ view: 'sprites', category: '', page: 1 }), class: 'card' },
            h('strong', {}, 'Sprites'),
            h('span', {}, 'The 2D sprite registry and sprite characters.'),
          ),
        ),
        h(
          'li',
          {},
          h(
            'a',
            { href: stateHref({ view: 'stats' }), class: 'card' },
            h('strong', {}, 'Totals'),
            h('span', {}, 'Records per category, definitions per kind, statuses.'),
          ),
        ),
        h(
          'li',
          {},
          h(
            'a',
            { href: stateHref({ view: 'report', severity: '', rule: '' }), class: 'card' },
            h('strong', {}, 'Build report'),
            h('span', {}, 'Every problem of the last build, by file.'),
          ),
        ),
      ),
    ),
    h(
      'section',
      { 'aria-labelledby': 'export-title' },
      h('h2', { id: 'export-title' }, 'Exports'),
      h(
        'p',
        { class: 'muted' },
        'Every record of a type as JSON or CSV (',
        h('code', {}, '/api/export?type=…&format=csv'),
        '; filters ',
        h('code', {}, 'tier'),
        ' 1-8 and ',
        h('code', {}, 'category'),
        ').',
      ),
      h(
        'ul',
        { id: 'export-links', class: 'links' },
        ...EXPORT_TYPES.map((t) =>
          h('li', {}, `${t}: `, h('a', { href: exportUrl(t, 'json') }, 'JSON'), ' · ', h('a', { href: exportUrl(t, 'csv') }, 'CSV')),
        ),
      ),
    ),
    h(
      'section',
      { 'aria-labelledby': 'files-title' },
      h('h2', { id: 'files-title' }, 'Static files'),
      h('p', { class: 'muted' }, 'Served from ', h('code', {}, '/api/v1/'), '; the manifest lists every file with its size and SHA-256.'),
      files,
    ),
    h(
      'section',
      { 'aria-labelledby': 'endpoints-title' },
      h('h2', { id: 'endpoints-title' }, 'Endpoints'),
      h('ul', { id: 'endpoint-links', class: 'links' }, ...ENDPOINTS.map(([path, what]) => linkItem(path, path, what))),
      h(
        'p',
        { class: 'muted' },
        'Response schemas (JSON Schema 2020-12): ',
        h('a', { href: '/schemas/responses/search.schema.json' }, 'search'),
        ', ',
        h('a', { href: '/schemas/responses/stats.schema.json' }, 'stats'),
        ', ',
        h('a', { href: '/schemas/responses/export.schema.json' }, 'export'),
        ', ',
        h('a', { href: '/schemas/output/build-report.schema.json' }, 'build report'),
        '.',
      ),
    ),
  );
  const m = await manifest().catch(() => null);
  if (ctx.signal.aborted) return;
  for (const f of publishedFeaturedFiles(m)) files.append(linkItem(`/api/v1/${f}`, f));
  files.style.minHeight = '';
};
