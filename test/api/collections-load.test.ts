/**
 * Loading a collection index (spec §4.2, §7; `api/_lib/collections/load.ts`): a well-formed
 * `collection-index/2` file becomes a queryable collection (items, folded keys, filters, hidden artifacts left
 * out of lists), and every way a file can be broken is refused with a message naming what is wrong (the
 * function then answers 503 UPSTREAM_UNAVAILABLE instead of wrong lists). Small indexes built by the build's
 * own indexer, then broken one field at a time.
 */
import { describe, expect, it } from 'vitest';
import { indexCollection } from '../../build/derive/collections.js';
import { loadIndex } from '../../api/_lib/collections/load.js';
import { has, type PosSet } from '../../api/_lib/collections/positions.js';
import { lookupItem, queryCollection } from '../../api/_lib/collections/query.js';
import type { CollectionName } from '../../api/_lib/formats/collection-index.js';

type Raw = Record<string, unknown>;

const ARTIFACTS = [
  { uuid: 'ARTF-1', name: 'Sun Blade', tier: 2, artifactType: 'martial', description: 'Bright steel.', discovery: { hiddenUntilFound: true } },
  { uuid: 'ARTF-2', name: 'Moon Shield', tier: 3, handedness: 'offhand', description: 'Cold, pale light.' },
  { uuid: 'ARTF-3', name: 'Star Orb', tier: 3, artifactType: 'arcane', description: 'Hums.', discovery: { hiddenUntilFound: true } },
  { uuid: 'ARTF-4', name: 'Ash Wand', tier: 1, artifactType: 'arcane', description: 'Warm.' },
];
const RELICS = [
  { uuid: 'RELC-1', id: 'relic-frost', name: 'Relic of Frost', category: 'elemental', tier: 1, element: 'frost', slot: 'relic', description: 'Cold.' },
  { uuid: 'RELC-2', id: 'relic-ember', name: 'Ember Relic', category: 'combat', tier: 3, element: 'fire|holy', description: 'Hot.' },
];

function rawIndex(name: CollectionName, items: unknown[]): Raw {
  return JSON.parse(indexCollection(name, { [name]: items })!.indexJson) as Raw;
}

const members = (set: PosSet | undefined, n: number): number[] | undefined => (set ? Array.from({ length: n }, (_, p) => p).filter((p) => has(set, p)) : undefined);

describe('a well-formed index', () => {
  it('loads items, search texts, keys, filters and the positions shown in lists', () => {
    const raw = rawIndex('artifacts', ARTIFACTS);
    const c = loadIndex(raw, 'artifacts');
    expect(c.name).toBe('artifacts');
    expect(c.def.name).toBe('artifacts');
    expect(c.dataset).toBe('master-artifacts');
    expect(c.n).toBe(4);
    expect(c.items).toEqual(raw.items);
    expect(c.search).toEqual(raw.search);
    expect(c.bodyPrefix).toBe('{"collection":"master-artifacts","total":');
    expect(members(c.visible, 4)).toEqual([1, 3]);
    expect(c.visible!.size).toBe(2);
    expect([...c.keys]).toEqual(Object.entries(raw.keys as Raw));
    expect(members(c.filters.get('tier')!.get('3'), 4)).toEqual([1, 2]);
    expect(members(c.filters.get('artifactType')!.get('arcane'), 4)).toEqual([2, 3]);
    expect([...c.filters.keys()].sort()).toEqual(['artifactType', 'handedness', 'subtype', 'tier']);
    expect(c.terms.entries).toEqual(raw.terms);
    expect(c.fragments.entries).toEqual(raw.fragments);
    expect(c.fragments.groups).toBeDefined();
    expect(c.gaps.entries).toEqual([' ', ', ', '.']);
    expect((JSON.parse(queryCollection(c, { limit: 10, offset: 0 }).body) as { items: Raw[] }).items.map((i) => i.uuid)).toEqual(['ARTF-2', 'ARTF-4']);
    expect((JSON.parse(queryCollection(c, { limit: 10, offset: 0, discovered: 'all' }).body) as Raw).total).toBe(4);
  });

  it('hides the first and the last item alike', () => {
    const items = ARTIFACTS.map((a, i) => ({ ...a, discovery: { hiddenUntilFound: i === 0 || i === 3 } }));
    expect(members(loadIndex(rawIndex('artifacts', items)).visible, 4)).toEqual([1, 2]);
    const lastOnly = ARTIFACTS.map((a, i) => ({ ...a, discovery: { hiddenUntilFound: i === 3 } }));
    expect(members(loadIndex(rawIndex('artifacts', lastOnly)).visible, 4)).toEqual([0, 1, 2]);
  });

  it('without hidden items nothing is filtered out of lists', () => {
    const c = loadIndex(rawIndex('relics', RELICS));
    expect(c.visible).toBeUndefined();
    expect(queryCollection(c, { limit: 10, offset: 0 }).total).toBe(2);
  });

  it('a filter missing from the file is a filter no item matches', () => {
    const raw = rawIndex('relics', RELICS);
    const filters = { ...(raw.filters as Raw) };
    delete filters.element;
    const c = loadIndex({ ...raw, filters });
    expect(c.filters.has('element')).toBe(false);
    expect(queryCollection(c, { limit: 10, offset: 0, element: 'frost' }).total).toBe(0);
    expect(queryCollection(c, { limit: 10, offset: 0, category: 'combat' }).total).toBe(1);
  });

  it('key lookups use position 0 and the last position', () => {
    const c = loadIndex(rawIndex('relics', RELICS));
    expect(lookupItem(c, 'relc-1')).toBe(c.items[0]);
    expect(lookupItem(c, 'RELIC-EMBER')).toBe(c.items[1]);
  });
});

describe('a broken index is refused, naming what is wrong', () => {
  const good = rawIndex('relics', RELICS);
  const refuse = (raw: unknown, why: RegExp, expected?: CollectionName): void => {
    expect(() => loadIndex(raw, expected)).toThrow(why);
    try {
      loadIndex(raw, expected);
    } catch (e) {
      expect((e as Error).name).toBe('CorruptIndex');
      expect((e as Error).message).toMatch(/^collection index: /);
    }
  };

  it('not an object, another format, another collection or dataset', () => {
    refuse(null, /not an object/);
    refuse([good], /not an object/);
    refuse({ ...good, format: 'collection-index/1' }, /format is "collection-index\/1", expected collection-index\/2/);
    refuse({ ...good, collection: 'swords' }, /unknown collection/);
    refuse({ ...good, collection: 7 }, /unknown collection/);
    refuse(good, /holds relics, expected enchants/, 'enchants');
    refuse({ ...good, dataset: 'master-enchants' }, /dataset is not master-relics/);
    expect(loadIndex(good, 'relics').name).toBe('relics');
  });

  it('items and search texts that are not lists of strings, or differ in length', () => {
    refuse({ ...good, items: 'x' }, /items is not an array of strings/);
    refuse({ ...good, items: ['{}', 3] }, /items is not an array of strings/);
    refuse({ ...good, search: [1, 2] }, /search is not an array of strings/);
    refuse({ ...good, search: ['a'] }, /search and items differ in length/);
  });

  it('terms: not strings, postings of another length, malformed, unsorted or repeated', () => {
    const terms = good.terms as string[];
    const postings = good.postings as number[][];
    refuse({ ...good, terms: 5 }, /terms is not an array of strings/);
    refuse({ ...good, postings: postings.slice(1) }, /terms and their postings differ in length/);
    refuse({ ...good, postings: 'x' }, /terms and their postings differ in length/);
    refuse({ ...good, terms: ['of frost', ...terms.slice(1)] }, /terms\[0\] is malformed/);
    refuse({ ...good, terms: [...terms.slice(0, 2), terms[1]!, ...terms.slice(3)] }, /terms are not sorted and distinct at 2/);
    refuse({ ...good, terms: [terms[1]!, terms[0]!, ...terms.slice(2)] }, /terms are not sorted and distinct at 1/);
  });

  it('postings that are not strictly increasing positions below the item count', () => {
    const postings = good.postings as number[][];
    const withList = (i: number, list: unknown): Raw => ({ ...good, postings: postings.map((l, k) => (k === i ? list : l)) });
    refuse(withList(0, 'x'), /terms postings\[0\] is not an array/);
    refuse(withList(1, [1, 1]), /terms postings\[1\] is not a strictly increasing list of positions below 2/);
    refuse(withList(1, [1, 0]), /strictly increasing/);
    refuse(withList(1, [2]), /below 2/);
    refuse(withList(1, [-1]), /strictly increasing/);
    refuse(withList(1, [0.5]), /strictly increasing/);
    refuse(withList(1, ['0']), /strictly increasing/);
    expect(loadIndex(withList(1, [0, 1])).n).toBe(2);
    expect(loadIndex(withList(1, [0])).n).toBe(2);
  });

  it('fragments: malformed or with fragment postings of another length', () => {
    const fragments = good.fragments as string[];
    refuse({ ...good, fragments: ['ab', ...fragments.slice(1)] }, /fragments\[0\] is malformed/);
    refuse({ ...good, fragmentPostings: [] }, /fragments and their postings differ in length/);
    refuse({ ...good, fragmentPostings: (good.fragmentPostings as unknown[]).map((l, i) => (i === 0 ? [9] : l)) }, /fragments postings\[0\]/);
  });

  it('filters: not an object, a filter not an object, positions out of range', () => {
    refuse({ ...good, filters: [] }, /filters is not an object/);
    refuse({ ...good, filters: { ...(good.filters as Raw), tier: [1] } }, /filters\.tier is not an object/);
    refuse({ ...good, filters: { ...(good.filters as Raw), tier: { '1': [5] } } }, /filters\.tier\.1 is not a strictly increasing list/);
    // A parameter no filter of the collection has is not read.
    expect(loadIndex({ ...good, filters: { ...(good.filters as Raw), colour: 'x' } }).filters.has('colour')).toBe(false);
  });

  it('keys: not an object, or a key naming no item', () => {
    refuse({ ...good, keys: null }, /keys is not an object/);
    for (const p of [-1, 2, 0.5, '0']) refuse({ ...good, keys: { 'relic-frost': p } }, /keys\.relic-frost is not a position/);
  });

  it('hidden: not a list of positions', () => {
    refuse({ ...good, hidden: undefined }, /hidden is not an array/);
    refuse({ ...good, hidden: [2] }, /hidden is not a strictly increasing list of positions below 2/);
  });
});
