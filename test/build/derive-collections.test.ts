/**
 * Collection index deriver (build/derive/collections.ts, spec §2.2, §3, §4.2) called directly on small
 * in-memory datasets: the search text, terms and fragments (the text around non-term characters) with
 * their positions, the filter values each item can be selected by (tier 1-8 only, words split on `|`,
 * enumerated values only, numbers as words) and what is reported for the rest, the lookup keys (uuid,
 * id, own slug or name slug; the earlier kind and then the earlier item keeps a shared key), hidden
 * artifacts, the static item files, and the problems reported with their pointers.
 */
import { describe, expect, it } from 'vitest';
import { collectionRules, deriveCollections, indexCollection, type CollectionProblem } from '../../build/derive/collections.js';
import type { CollectionName } from '../../api/_lib/formats/collection-index.js';
import type { IssueInput, SourceDoc } from '../../build/pipeline/types.js';
import { testConfig } from '../helpers/config.js';
import { loadIndex } from '../../api/_lib/collections/load.js';
import { lookupItem } from '../../api/_lib/collections/query.js';

function index(
  name: CollectionName,
  items: unknown[],
): { problems: CollectionProblem[]; built: NonNullable<ReturnType<typeof indexCollection>> } {
  const problems: CollectionProblem[] = [];
  const built = indexCollection(name, { [name]: items }, problems);
  expect(built).toBeDefined();
  return { problems, built: built! };
}

const postings = (built: ReturnType<typeof index>['built'], kind: 'terms' | 'fragments'): Record<string, readonly number[]> => {
  const list = kind === 'terms' ? built.index.terms : built.index.fragments;
  const post = kind === 'terms' ? built.index.postings : built.index.fragmentPostings;
  return Object.fromEntries(list.map((t, i) => [t, post[i]!]));
};

describe('collection rules', () => {
  it('have their default severities and are described', () => {
    expect(Object.fromEntries(collectionRules.map((r) => [r.name, r.severity]))).toEqual({
      'collections/shape': 'error',
      'collections/duplicate-key': 'error',
      'collections/missing-key': 'warn',
      'collections/item-files-over-budget': 'warn',
      'collections/filter-value': 'warn',
    });
    for (const r of collectionRules) expect(r.description.length, r.name).toBeGreaterThan(30);
  });
});

describe('search text', () => {
  it('folds the searched fields of each item, one line per field, skipping empty ones', () => {
    const { built } = index('relics', [
      { id: 'r1', name: 'Ëmber  Stone', description: '', category: 'combat' },
      { id: 'r2', name: 7 },
    ]);
    expect(built.index.search).toEqual(['ember stone\nr1', 'r2']);
    expect(built.index.items).toEqual([
      JSON.stringify({ id: 'r1', name: 'Ëmber  Stone', description: '', category: 'combat' }),
      JSON.stringify({ id: 'r2', name: 7 }),
    ]);
  });

  it('indexes every term and the fragments around non-term characters with positions', () => {
    const { built } = index('relics', [
      { id: 'a', name: 'Heart of Frost!' },
      { id: 'b', name: '-- ++' },
      { id: 'c', name: '(Frost) of Heart' },
    ]);
    expect(postings(built, 'terms')).toEqual({ a: [0], b: [1], c: [2], frost: [0, 2], heart: [0, 2], of: [0, 2] });
    expect(postings(built, 'fragments')).toEqual({
      '(frost': [2],
      '-- ++': [1],
      'frost) of': [2],
      'frost!': [0],
      'heart of': [0],
      'of frost': [0],
      'of heart': [2],
    });
    expect(built.index.terms).toEqual([...built.index.terms].sort());
    expect(built.index.fragments).toEqual([...built.index.fragments].sort());
  });

  it('lists a position once even when a term or fragment repeats in the item', () => {
    const { built } = index('relics', [{ id: 'x', name: 'go go go', description: 'go' }]);
    expect(postings(built, 'terms')).toEqual({ go: [0], x: [0] });
    expect(postings(built, 'fragments')).toEqual({ 'go go': [0] });
  });
});

describe('filter values', () => {
  it('tier: integers 1 to 8 only; anything else is reported and selects nothing', () => {
    const { built, problems } = index('relics', [
      { id: 'a', tier: 1 },
      { id: 'b', tier: 8 },
      { id: 'c', tier: 0 },
      { id: 'd', tier: 9 },
      { id: 'e', tier: 2.5 },
      { id: 'f', tier: '3' },
      { id: 'g', tier: null },
      { id: 'h' },
    ]);
    expect(built.index.filters.tier).toEqual({ '1': [0], '8': [1] });
    expect(problems.map((p) => `${p.rule} ${p.pointer}`)).toEqual([
      'collections/filter-value /relics/2/tier',
      'collections/filter-value /relics/3/tier',
      'collections/filter-value /relics/4/tier',
      'collections/filter-value /relics/5/tier',
    ]);
    expect(problems[3]!.message).toContain('"3"');
  });

  it('words: folded, split on |, several per array, numbers as words; other values reported', () => {
    const { built, problems } = index('relics', [
      { id: 'a', element: 'Fire|ÍCE| |' },
      { id: 'b', element: ['fire', null, 'Wind'] },
      { id: 'c', element: 3 },
      { id: 'd', element: [true, 'earth'] },
      { id: 'e', element: { x: 1 } },
      { id: 'f', element: Number.NaN },
      { id: 'g', element: ['fire', 'FIRE'] },
    ]);
    expect(built.index.filters.element).toEqual({ '3': [2], earth: [3], fire: [0, 1, 6], ice: [0], wind: [1] });
    expect(problems.map((p) => `${p.rule} ${p.pointer}`)).toEqual([
      'collections/filter-value /relics/3/element',
      'collections/filter-value /relics/4/element',
      'collections/filter-value /relics/5/element',
    ]);
    expect(problems[0]!.message).toContain('element');
  });

  it('enumerated fields keep only the spec values, reporting each item with values outside them', () => {
    const { built, problems } = index('relics', [
      { id: 'a', category: 'Combat', slot: 'relic' },
      { id: 'b', category: 'combat|magic' },
      { id: 'c', category: ['magic', 'other'] },
    ]);
    expect(built.index.filters.category).toEqual({ combat: [0, 1] });
    expect(built.index.filters.slot).toEqual({ relic: [0] });
    expect(problems.map((p) => `${p.rule} ${p.pointer}`)).toEqual([
      'collections/filter-value /relics/1/category',
      'collections/filter-value /relics/2/category',
    ]);
    expect(problems[0]!.message).toContain('"magic"');
    expect(problems[0]!.message).toMatch(/selects it\.$/);
    expect(problems[1]!.message).toContain('"magic", "other"');
    expect(problems[1]!.message).toMatch(/selects them\.$/);
  });

  it('every filter of the collection is present, sorted, even when nothing selects it', () => {
    const { built } = index('infusions', [{ id: 'i' }]);
    expect(built.index.filters).toEqual({ profession: {}, scope: {}, tier: {} });
    expect(Object.keys(built.index.filters)).toEqual(['profession', 'scope', 'tier']);
  });
});

describe('lookup keys and item files', () => {
  it('relics offer uuid, id and the name slug; each gets a static file with the item bytes', () => {
    const item = { uuid: ' RELC-1 ', id: 'ember', name: 'Ember Stone!' };
    const { built, problems } = index('relics', [item]);
    expect(problems).toEqual([]);
    expect(built.index.keys).toEqual({ ember: 0, 'ember-stone': 0, 'relc-1': 0 });
    expect(built.itemFiles.map((f) => f.path)).toEqual([
      'api/v1/relics/RELC-1.json',
      'api/v1/relics/ember-stone.json',
      'api/v1/relics/ember.json',
    ]);
    for (const f of built.itemFiles) {
      expect(f.body).toBe(JSON.stringify(item));
      expect(f.raw).toBe(true);
    }
  });

  it('an own slug replaces the name slug; a blank one does not', () => {
    const own = index('artifacts', [{ uuid: 'A-1', slug: ' Own ', name: 'Named' }]).built;
    expect(own.index.keys).toEqual({ 'a-1': 0, own: 0 });
    expect(own.itemFiles.map((f) => f.path)).toEqual(['api/v1/artifacts/A-1.json', 'api/v1/artifacts/Own.json']);
    expect(index('artifacts', [{ uuid: 'A-1', slug: ' ', name: 'Named' }]).built.index.keys).toEqual({ 'a-1': 0, named: 0 });
    const twice = index('artifacts', [
      { uuid: 'A-1', slug: 'same' },
      { uuid: 'A-2', slug: 'Same' },
    ]);
    expect(twice.problems.map((p) => `${p.rule} ${p.pointer}`)).toEqual(['collections/duplicate-key /artifacts/1/slug']);
    expect(index('artifacts', [{ uuid: 'A-1', name: '!!!' }]).built.index.keys).toEqual({ 'a-1': 0 });
    expect(index('artifacts', [{ uuid: 'A-1', id: 'not-a-key' }]).built.index.keys).toEqual({ 'a-1': 0 });
  });

  it('reports an item without any key, naming the keys its collection offers', () => {
    const relic = index('relics', [{ name: '' }, { id: ' ' }]);
    expect(relic.problems.map((p) => `${p.rule} ${p.pointer}`)).toEqual([
      'collections/missing-key /relics/0',
      'collections/missing-key /relics/1',
    ]);
    expect(relic.problems[0]!.message).toContain('uuid, id, name');
    expect(relic.problems[0]!.message).toContain('a uuid');
    const inf = index('infusions', [{ name: 'No key' }]);
    expect(inf.problems[0]!.message).toContain('(uuid, id)');
  });

  it('a shared key stays with the earlier kind, then the earlier item, and is reported at the loser', () => {
    const { built, problems } = index('relics', [
      { id: 'b', name: 'Frost' },
      { id: 'frost', name: 'Other' },
      { id: 'FROST' },
      { uuid: 'b' },
    ]);
    expect(built.index.keys).toEqual({ b: 3, frost: 1, other: 1 });
    expect(problems.map((p) => `${p.rule} ${p.pointer}`)).toEqual([
      'collections/duplicate-key /relics/0/id',
      'collections/duplicate-key /relics/2/id',
      'collections/duplicate-key /relics/0/name',
    ]);
    expect(problems[0]!.message).toContain('item 3');
    expect(problems[2]!.message).toContain('from the name');
    expect(problems[1]!.message).not.toContain('from the name');
    expect(built.itemFiles.map((f) => f.path)).toEqual(['api/v1/relics/b.json', 'api/v1/relics/frost.json', 'api/v1/relics/other.json']);
    expect(built.itemFiles[0]!.body).toBe(JSON.stringify({ uuid: 'b' }));
  });

  it('an item whose own keys fold together is not a duplicate of itself', () => {
    const { built, problems } = index('relics', [{ uuid: 'Stone', id: 'stone', name: 'Stone' }]);
    expect(problems).toEqual([]);
    expect(built.index.keys).toEqual({ stone: 0 });
    expect(built.itemFiles.map((f) => f.path)).toEqual(['api/v1/relics/Stone.json']);
  });
});

describe('items that are not objects, hidden artifacts, datasets', () => {
  it('leaves out and reports items that are not objects; positions count kept items only', () => {
    const { built, problems } = index('relics', [null, [1], 'x', { id: 'a' }]);
    expect(problems.map((p) => `${p.rule} ${p.pointer}`)).toEqual([
      'collections/shape /relics/0',
      'collections/shape /relics/1',
      'collections/shape /relics/2',
    ]);
    expect(problems[0]!.message).toContain('null');
    expect(problems[1]!.message).toContain('an array');
    expect(problems[2]!.message).toContain('string');
    expect(built.index.keys).toEqual({ a: 0 });
  });

  it('lists artifacts hidden until found', () => {
    const { built } = index('artifacts', [
      { uuid: 'a', discovery: { hiddenUntilFound: true } },
      { uuid: 'b', discovery: { hiddenUntilFound: 'yes' } },
      { uuid: 'c', discovery: true },
      { uuid: 'd', discovery: { hiddenUntilFound: true } },
    ]);
    expect(built.index.hidden).toEqual([0, 3]);
    expect(index('relics', [{ id: 'a', discovery: { hiddenUntilFound: true } }]).built.index.hidden).toEqual([]);
  });

  it('names the collection and its dataset in the index', () => {
    const { built } = index('enchants', []);
    expect(built.index).toMatchObject({ collection: 'enchants', dataset: 'master-enchants', items: [], hidden: [] });
    const header = JSON.parse(built.file.toString('utf8', 12, 12 + built.file.readUInt32LE(8))) as Record<string, unknown>;
    expect(header).toMatchObject({ format: 'collection-index/3', collection: 'enchants', dataset: 'master-enchants', n: 0 });
    expect(loadIndex(built.file, 'enchants').n).toBe(0);
  });

  it('refuses a dataset without its item array', () => {
    const problems: CollectionProblem[] = [];
    expect(indexCollection('relics', { items: [] }, problems)).toBeUndefined();
    expect(indexCollection('relics', [], problems)).toBeUndefined();
    expect(problems.map((p) => `${p.rule} ${p.pointer}`)).toEqual(['collections/shape ', 'collections/shape ']);
    expect(problems[0]!.message).toContain('"relics"');
  });
});

describe('deriveCollections', () => {
  it('emits the index and item files of each parsed dataset and reports with the dataset file name', () => {
    const docs = new Map<string, SourceDoc>([
      ['master-relics.json', { path: 'master-relics.json', text: '', data: { relics: [{ id: 'r', tier: 0 }] } }],
      ['master-enchants.json', { path: 'master-enchants.json', text: '', data: { nope: [] } }],
      ['master-infusions.json', { path: 'master-infusions.json', text: '', data: undefined }],
    ]);
    const issues: IssueInput[] = [];
    const out = deriveCollections({ config: testConfig(), docs, report: (i) => issues.push(i) });
    expect(out.map((o) => o.path)).toEqual(['api/v1/collections/relics.cidx', 'api/v1/relics/r.json']);
    expect(out[0]!.raw).toBe(true);
    expect(lookupItem(loadIndex(out[0]!.body as Buffer, 'relics'), 'r')).toBe(JSON.stringify({ id: 'r', tier: 0 }));
    expect(issues.map((i) => `${i.rule} ${i.file} ${i.pointer}`)).toEqual([
      'collections/filter-value master-relics.json /relics/0/tier',
      'collections/shape master-enchants.json ',
    ]);
  });

  it('gives item files to the smallest collections while they fit the budget, reporting the rest', () => {
    const docs = new Map<string, SourceDoc>([
      // relics: 2 items × (id, name slug) = 4 files; enchants: 1 × 2 = 2; infusions: 2 × 1 (id) = 2; artifacts: 1 × 1 (slug) = 1
      [
        'master-relics.json',
        {
          path: 'master-relics.json',
          text: '',
          data: {
            relics: [
              { id: 'r1', name: 'A' },
              { id: 'r2', name: 'B' },
            ],
          },
        },
      ],
      ['master-enchants.json', { path: 'master-enchants.json', text: '', data: { enchants: [{ id: 'e1', name: 'C' }] } }],
      ['master-infusions.json', { path: 'master-infusions.json', text: '', data: { infusions: [{ id: 'i1' }, { id: 'i2' }] } }],
      ['master-artifacts.json', { path: 'master-artifacts.json', text: '', data: { artifacts: [{ name: 'D' }] } }],
    ]);
    const run = (itemFileBudget: number) => {
      const issues: IssueInput[] = [];
      const out = deriveCollections({ config: testConfig({ itemFileBudget }), docs, report: (i) => issues.push(i) });
      const written = [...new Set(out.filter((o) => !o.path.includes('/collections/')).map((o) => o.path.split('/')[2]))].sort();
      return {
        written,
        over: issues
          .filter((i) => i.rule === 'collections/item-files-over-budget')
          .map((i) => `${i.file} ${i.message.split(' (')[1]!.split(')')[0]}`),
      };
    };
    expect(run(9)).toEqual({ written: ['artifacts', 'enchants', 'infusions', 'relics'], over: [] });
    // ties keep collection order: enchants (2) before infusions (2)
    expect(run(8)).toEqual({ written: ['artifacts', 'enchants', 'infusions'], over: ['master-relics.json 3 of itemFileBudget 8 left'] });
    expect(run(3)).toEqual({
      written: ['artifacts', 'enchants'],
      over: ['master-infusions.json 0 of itemFileBudget 3 left', 'master-relics.json 0 of itemFileBudget 3 left'],
    });
    expect(run(2)).toEqual({
      written: ['artifacts'],
      over: [
        'master-enchants.json 1 of itemFileBudget 2 left',
        'master-infusions.json 1 of itemFileBudget 2 left',
        'master-relics.json 1 of itemFileBudget 2 left',
      ],
    });
    expect(run(0).written).toEqual([]);
    expect(run(0).over).toHaveLength(4);
  });
});
