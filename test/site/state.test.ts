// The catalog browser's address state (site/state.ts): every view is a query string of `/` that decodes
// leniently and encodes canonically; paging arithmetic of offset lists (spec §2.2, §4.2, §8). The filters
// expected per collection are spec §4.2's table, written out here.
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_LIMIT,
  collectionApiQuery,
  collectionState,
  itemHref,
  pageInfo,
  parseState,
  stateHref,
  stateQuery,
  type PageState,
} from '../../site/state.js';

/** Spec §4.2: each collection's filters, with a value each accepts. */
const SPEC_FILTERS: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  relics: { category: 'combat', tier: '3', element: 'frost', slot: 'relic' },
  enchants: { category: 'offense', tier: '8', target: 'armor' },
  infusions: { tier: '1', scope: 'profession', profession: 'Cook' },
  artifacts: { tier: '2', artifactType: 'martial', subtype: 'sword', handedness: 'offhand' },
};

describe('parseState', () => {
  it('opens home for an empty query, an unknown view, or a view that lacks what it needs', () => {
    expect(parseState('')).toEqual({ view: 'home' });
    expect(parseState('?view=nope')).toEqual({ view: 'home' });
    expect(parseState('?view=collection&name=weapons')).toEqual({ view: 'home' });
    expect(parseState('?view=item&kind=weapons')).toEqual({ view: 'home' });
    expect(parseState('?view=item&kind=potions&id=POTN-1')).toEqual({ view: 'home' });
  });

  it("reads the search view, and the old page's shared search links", () => {
    expect(parseState('?view=search&q=blade&type=weapons')).toEqual({ view: 'search', q: 'blade', type: 'weapons' });
    expect(parseState('?q=%20blade%20&type=armor')).toEqual({ view: 'search', q: 'blade', type: 'armor' });
    expect(parseState('?view=search&q=x&type=relics')).toEqual({ view: 'search', q: 'x', type: 'all' });
    expect(parseState(`?view=search&q=${'y'.repeat(300)}`)).toMatchObject({ q: 'y'.repeat(200) });
  });

  it('keeps every filter of spec 4.2 for its own collection, and nothing else', () => {
    for (const [name, filters] of Object.entries(SPEC_FILTERS)) {
      const all = new URLSearchParams({ view: 'collection', name, ...filters, q: ' frost ', offset: '40', limit: '50' });
      // a filter of another collection is not one of this one's
      all.set(name === 'enchants' ? 'element' : 'target', 'weapon');
      expect(parseState(all.toString()), name).toEqual({
        view: 'collection',
        name,
        q: 'frost',
        filters,
        discovered: false,
        limit: 50,
        offset: 40,
      });
    }
  });

  it('drops values a control cannot hold and spells enum values as declared', () => {
    expect(parseState('?view=collection&name=relics&tier=9&category=ELEMENTAL&slot=ring&element=%20')).toEqual({
      ...collectionState('relics'),
      filters: { category: 'elemental' },
    });
    expect(parseState('?view=collection&name=relics&limit=0&offset=-3')).toMatchObject({ limit: DEFAULT_LIMIT, offset: 0 });
    expect(parseState('?view=collection&name=relics&limit=501')).toMatchObject({ limit: DEFAULT_LIMIT });
    expect(parseState('?view=collection&name=relics&limit=500&offset=x')).toMatchObject({ limit: 500, offset: 0 });
  });

  it('takes discovered=all for artifacts only (spec 3, 4.2)', () => {
    expect(parseState('?view=collection&name=artifacts&discovered=all')).toMatchObject({ discovered: true });
    expect(parseState('?view=collection&name=artifacts&discovered=yes')).toMatchObject({ discovered: false });
    expect(parseState('?view=collection&name=relics&discovered=all')).toMatchObject({ discovered: false });
  });

  it('reads item, stats, registry and report views', () => {
    expect(parseState('?view=item&kind=relics&id=%20relic-ember%20')).toEqual({ view: 'item', kind: 'relics', id: 'relic-ember' });
    expect(parseState('?view=stats')).toEqual({ view: 'stats' });
    expect(parseState('?view=icons&category=weapon&page=3')).toEqual({ view: 'icons', category: 'weapon', page: 3 });
    expect(parseState('?view=icons&category=weapons&page=0')).toEqual({ view: 'icons', category: '', page: 1 });
    expect(parseState('?view=sprites&category=effects')).toEqual({ view: 'sprites', category: 'effects', page: 1 });
    expect(parseState('?view=report&severity=warn&rule=schema/required')).toEqual({
      view: 'report',
      severity: 'warn',
      rule: 'schema/required',
    });
    expect(parseState('?view=report&severity=fatal')).toEqual({ view: 'report', severity: '', rule: '' });
  });
});

describe('stateQuery', () => {
  it('writes view first, members in a fixed order (filters in spec 4.2 order), and leaves defaults out', () => {
    const s: PageState = { ...collectionState('relics'), filters: { slot: 'relic', element: 'fire', category: 'combat' }, offset: 0 };
    expect(stateQuery(s)).toBe('?view=collection&name=relics&category=combat&element=fire&slot=relic');
    expect(stateQuery({ ...s, limit: 10, offset: 30, q: 'a b' })).toBe(
      '?view=collection&name=relics&q=a+b&category=combat&element=fire&slot=relic&limit=10&offset=30',
    );
    expect(stateQuery({ view: 'search', q: 'x', type: 'all' })).toBe('?view=search&q=x');
    expect(stateQuery({ view: 'icons', category: '', page: 1 })).toBe('?view=icons');
    expect(stateQuery({ view: 'report', severity: 'error', rule: '' })).toBe('?view=report&severity=error');
    expect(stateHref({ view: 'home' })).toBe('/');
    expect(itemHref('weapons', 'ITEM-1 &2')).toBe('/?view=item&kind=weapons&id=ITEM-1+%262');
  });

  it('round-trips every view through the address', () => {
    const states: PageState[] = [
      { view: 'home' },
      { view: 'search', q: 'ember heart', type: 'weapons' },
      { ...collectionState('artifacts'), q: 'crown', filters: { tier: '5', handedness: '2h' }, discovered: true, limit: 50, offset: 100 },
      ...Object.entries(SPEC_FILTERS).map(([name, filters]) => ({ ...collectionState(name as 'relics'), filters })),
      { view: 'item', kind: 'skills', id: 'SKIL-A415-7550-C923' },
      { view: 'stats' },
      { view: 'icons', category: 'skill', page: 2 },
      { view: 'sprites', category: 'ui', page: 1 },
      { view: 'report', severity: 'off', rule: 'law/unresolved-ref' },
    ];
    for (const s of states) expect(parseState(stateQuery(s)), stateQuery(s)).toEqual(s);
  });
});

describe('collectionApiQuery', () => {
  it('asks /v1/{name} for the text, the filters, discovered, the page size and a non-zero offset', () => {
    expect(collectionApiQuery(collectionState('relics'))).toEqual({ limit: DEFAULT_LIMIT });
    expect(
      collectionApiQuery({ ...collectionState('artifacts'), q: 'orb', filters: { tier: '3' }, discovered: true, limit: 10, offset: 20 }),
    ).toEqual({
      q: 'orb',
      tier: '3',
      discovered: 'all',
      limit: 10,
      offset: 20,
    });
  });
});

describe('pageInfo', () => {
  it('says which items are shown and where the previous and next pages start', () => {
    expect(pageInfo(16, 16, 0, 20)).toEqual({ from: 1, to: 16, prev: null, next: null, page: 1, pages: 1 });
    expect(pageInfo(10, 5, 0, 5)).toEqual({ from: 1, to: 5, prev: null, next: 5, page: 1, pages: 2 });
    expect(pageInfo(10, 5, 5, 5)).toEqual({ from: 6, to: 10, prev: 0, next: null, page: 2, pages: 2 });
    expect(pageInfo(11, 5, 3, 5)).toEqual({ from: 4, to: 8, prev: 0, next: 8, page: 1, pages: 3 });
    expect(pageInfo(0, 0, 0, 20)).toEqual({ from: 0, to: 0, prev: null, next: null, page: 1, pages: 1 });
  });

  it('leads back to the last page from an offset past the end', () => {
    expect(pageInfo(10, 0, 40, 5)).toEqual({ from: 0, to: 0, prev: 5, next: null, page: 9, pages: 2 });
  });
});
