/**
 * List queries and lookups of the item collections (spec §2.2, §3, §4.2, §8; `api/_lib/collections/query.ts`
 * and `params.ts`), called directly on small indexes: the parameters each collection accepts (and their
 * ranges), filters ANDed and compared folded, `q`, hidden artifacts, paging, and the response body, which
 * must be byte-identical to `JSON.stringify` of the response object.
 */
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { indexCollection } from '../../build/derive/collections.js';
import { loadIndex, lookupItem, queryCollection, type CollectionQuery } from '../../api/_lib/collections/index.js';
import { LIMIT_DEFAULT, LIMIT_MAX, LOOKUP_PARAM_SPEC } from '../../api/_lib/http/collection-params.js';
import { parseQuery, type ParamSpec } from '../../api/_lib/http/params.js';
import { COLLECTION_NAMES, type CollectionName } from '../../api/_lib/formats/collection-index.js';
import { ServiceError } from '../../api/_lib/errors.js';

type Rec = Record<string, unknown>;

const RELICS: Rec[] = [
  {
    uuid: 'RELC-1',
    id: 'relic-frost',
    name: 'Relic of Frost',
    category: 'elemental',
    tier: 1,
    element: 'frost',
    slot: 'relic',
    description: 'Cold as winter.',
  },
  {
    uuid: 'RELC-2',
    id: 'relic-ember',
    name: 'Ember Relic',
    category: 'combat',
    tier: 3,
    element: 'fire|holy',
    slot: 'relic',
    description: 'Hot.',
  },
  {
    uuid: 'RELC-3',
    id: 'sigil-epee',
    name: "Sigil of Épée d'Or",
    category: 'Defensive',
    tier: 3,
    element: ['Holy'],
    description: 'Wards.',
  },
  { uuid: 'RELC-4', id: 'charm-cafe', name: 'Café Charm', category: 'utility', tier: 8, element: null, description: 'Smells of coffee.' },
];
const ARTIFACTS: Rec[] = [
  {
    uuid: 'ARTF-1',
    name: 'Sun Blade',
    tier: 2,
    artifactType: 'martial',
    description: 'Bright steel.',
    discovery: { hiddenUntilFound: true },
  },
  { uuid: 'ARTF-2', name: 'Moon Shield', tier: 3, handedness: 'offhand', description: 'Cold, pale light.' },
];

const relics = loadIndex(indexCollection('relics', { relics: RELICS })!.file);
const artifacts = loadIndex(indexCollection('artifacts', { artifacts: ARTIFACTS })!.file);

function run(index = relics, query: Partial<CollectionQuery> = {}): ReturnType<typeof queryCollection> {
  return queryCollection(index, { limit: 50, offset: 0, ...query });
}
const uuids = (r: ReturnType<typeof queryCollection>): string[] =>
  (JSON.parse(r.body) as { items: Rec[] }).items.map((i) => String(i.uuid));

describe('queryCollection', () => {
  it('writes the body exactly as JSON.stringify of the response object', () => {
    const r = run(relics, { limit: 2, offset: 1 });
    const expected = { collection: 'master-relics', total: 4, count: 2, limit: 2, offset: 1, items: [RELICS[1], RELICS[2]] };
    expect(r.body).toBe(JSON.stringify(expected));
    expect(r).toMatchObject({ total: 4, count: 2, limit: 2, offset: 1, positions: [1, 2] });
    expect(run(relics, { limit: 1, offset: 0 }).body).toBe(
      JSON.stringify({ collection: 'master-relics', total: 4, count: 1, limit: 1, offset: 0, items: [RELICS[0]] }),
    );
  });

  it('an offset at or past the total gives an empty page with the total', () => {
    for (const offset of [4, 5, 1000]) {
      const r = run(relics, { offset });
      expect(r.positions).toEqual([]);
      expect(r.body).toBe(JSON.stringify({ collection: 'master-relics', total: 4, count: 0, limit: 50, offset, items: [] }));
    }
    expect(run(relics, { offset: 3 }).positions).toEqual([3]);
    const q = run(relics, { q: 'relic', offset: 2 });
    expect(q.total).toBe(2);
    expect(q.positions).toEqual([]);
  });

  it('filters compare folded words, the tier as a number, several values each; all ANDed', () => {
    expect(uuids(run(relics, { category: 'DEFENSIVE' }))).toEqual(['RELC-3']);
    expect(uuids(run(relics, { element: 'holy' }))).toEqual(['RELC-2', 'RELC-3']);
    expect(uuids(run(relics, { element: 'Fíre' }))).toEqual(['RELC-2']);
    expect(uuids(run(relics, { tier: 3 }))).toEqual(['RELC-2', 'RELC-3']);
    expect(uuids(run(relics, { tier: 3, element: 'holy', category: 'combat' }))).toEqual(['RELC-2']);
    expect(uuids(run(relics, { slot: 'relic', tier: 3 }))).toEqual(['RELC-2']);
    expect(run(relics, { element: 'void' }).total).toBe(0);
    expect(run(relics, { tier: 5 }).total).toBe(0);
    // A missing or null field matches no value.
    expect(uuids(run(relics, { element: 'null' }))).toEqual([]);
  });

  it('q: a folded substring of one field, whitespace runs as one space; a q of nothing is no constraint', () => {
    expect(uuids(run(relics, { q: 'EPEE D OR' }))).toEqual([]);
    expect(uuids(run(relics, { q: 'épée  dor' }))).toEqual(['RELC-3']);
    expect(uuids(run(relics, { q: 'cafe' }))).toEqual(['RELC-4']);
    expect(uuids(run(relics, { q: 'relic' }))).toEqual(['RELC-1', 'RELC-2']);
    expect(uuids(run(relics, { q: 'relic', tier: 3 }))).toEqual(['RELC-2']);
    expect(run(relics, { q: '   ' }).total).toBe(4);
    expect(run(relics, { q: 'zzz' }).total).toBe(0);
  });

  it('q and keys fold compatibility capitals to lower case (𝒜 is a, ™ is tm)', () => {
    const odd = loadIndex(
      indexCollection('relics', { relics: [{ uuid: 'RELC-9', id: 'odd', name: '𝒜rcane Widget™', tier: 1, description: 'ℌoly.' }] })!.file,
    );
    for (const q of ['arcane', 'ARCANE', '𝒜rcane', 'widgettm', 'widget™', 'holy.']) expect(run(odd, { q }).total, q).toBe(1);
    expect(lookupItem(odd, 'arcane-widgettm')).toBeDefined();
  });

  it('hides undiscovered artifacts from lists unless discovered is given, and counts them then', () => {
    expect(uuids(run(artifacts))).toEqual(['ARTF-2']);
    expect(run(artifacts).total).toBe(1);
    expect(uuids(run(artifacts, { discovered: 'all' }))).toEqual(['ARTF-1', 'ARTF-2']);
    expect(uuids(run(artifacts, { q: 'blade' }))).toEqual([]);
    expect(uuids(run(artifacts, { q: 'blade', discovered: 'all' }))).toEqual(['ARTF-1']);
    expect((JSON.parse(run(artifacts).body) as Rec).collection).toBe('master-artifacts');
  });
});

describe('lookupItem', () => {
  it('finds an item by a folded key, hidden artifacts too, and nothing for other keys', () => {
    expect(lookupItem(relics, 'Relic-Frost')).toBe(JSON.stringify(RELICS[0]));
    expect(lookupItem(relics, 'SIGIL-OF-EPEE-DOR')).toBe(JSON.stringify(RELICS[2]));
    expect(lookupItem(artifacts, 'sun-blade')).toBe(JSON.stringify(ARTIFACTS[0]));
    expect(lookupItem(relics, 'relic')).toBeUndefined();
  });
});

describe('list parameters (spec §4.2, §8)', () => {
  let listParamSpec: (name: CollectionName) => Readonly<Record<string, ParamSpec>>;
  beforeEach(async () => {
    // Loaded afresh for each test, so that specs built wrongly when the module loads fail the tests.
    vi.resetModules();
    ({ listParamSpec } = await import('../../api/_lib/http/collection-params.js'));
  });
  const parse = (name: CollectionName, query: string): Rec => parseQuery(new URLSearchParams(query), listParamSpec(name)).values;
  const refused = (name: CollectionName, query: string): string[] => {
    try {
      parseQuery(new URLSearchParams(query), listParamSpec(name));
    } catch (e) {
      expect(e).toBeInstanceOf(ServiceError);
      return ((e as ServiceError).errors ?? []).map((x) => (x as { name?: string }).name ?? JSON.stringify(x));
    }
    throw new Error(`${query} was accepted`);
  };

  it('paging defaults to limit 50 from offset 0; a limit above 500 is lowered to 500 and reported', () => {
    expect(LIMIT_DEFAULT).toBe(50);
    expect(LIMIT_MAX).toBe(500);
    for (const name of COLLECTION_NAMES) expect(parse(name, '')).toMatchObject({ limit: 50, offset: 0 });
    const r = parseQuery(new URLSearchParams('limit=501'), listParamSpec('relics'));
    expect(r.values.limit).toBe(500);
    expect(r.clamped.limit).toEqual(['501', 500]);
    expect(parse('relics', 'limit=500&offset=9007199254740991')).toMatchObject({ limit: 500, offset: Number.MAX_SAFE_INTEGER });
    expect(parse('relics', 'limit=1')).toMatchObject({ limit: 1 });
    expect(refused('relics', 'limit=0')).toHaveLength(1);
    expect(refused('relics', 'offset=-1')).toHaveLength(1);
    expect(refused('relics', 'offset=9007199254740992')).toHaveLength(1);
  });

  it('q takes up to 200 characters, word filters up to 100', () => {
    expect(parse('relics', `q=${'a'.repeat(200)}`).q).toBe('a'.repeat(200));
    expect(refused('relics', `q=${'a'.repeat(201)}`)).toHaveLength(1);
    expect(parse('relics', `element=${'a'.repeat(100)}`).element).toBe('a'.repeat(100));
    expect(refused('relics', `element=${'a'.repeat(101)}`)).toHaveLength(1);
    expect(refused('enchants', `category=${'a'.repeat(101)}`)).toHaveLength(1);
  });

  it('tier is an integer 1 to 8', () => {
    expect(parse('enchants', 'tier=1').tier).toBe(1);
    expect(parse('artifacts', 'tier=8').tier).toBe(8);
    expect(refused('infusions', 'tier=0')).toHaveLength(1);
    expect(refused('relics', 'tier=9')).toHaveLength(1);
  });

  it('enumerated filters take their listed values in any case; others are refused', () => {
    expect(parse('relics', 'category=Combat&slot=RELIC')).toMatchObject({ category: 'combat', slot: 'relic' });
    expect(refused('relics', 'category=mystic')).toHaveLength(1);
    expect(parse('enchants', 'target=armor').target).toBe('armor');
    expect(refused('enchants', 'target=shield')).toHaveLength(1);
    expect(parse('infusions', 'scope=universal&profession=Miner')).toMatchObject({ scope: 'universal', profession: 'Miner' });
    expect(refused('infusions', 'scope=any')).toHaveLength(1);
    expect(parse('artifacts', 'handedness=2h&artifactType=Martial&subtype=sword')).toMatchObject({
      handedness: '2h',
      artifactType: 'Martial',
      subtype: 'sword',
    });
    expect(refused('artifacts', 'handedness=3h')).toHaveLength(1);
  });

  it('discovered=all exists for artifacts only; each collection knows only its own filters', () => {
    expect(parse('artifacts', 'discovered=all').discovered).toBe('all');
    expect(refused('artifacts', 'discovered=some')).toHaveLength(1);
    expect(refused('relics', 'discovered=all')).toHaveLength(1);
    expect(refused('relics', 'target=weapon')).toHaveLength(1);
    expect(refused('infusions', 'category=x')).toHaveLength(1);
    expect(Object.keys(listParamSpec('relics'))).toEqual(['q', 'category', 'tier', 'element', 'slot', 'limit', 'offset']);
    expect(Object.keys(listParamSpec('artifacts'))).toEqual([
      'q',
      'tier',
      'artifactType',
      'subtype',
      'handedness',
      'discovered',
      'limit',
      'offset',
    ]);
    expect(Object.isFrozen(listParamSpec('enchants'))).toBe(true);
  });

  it('single lookups take no parameters', () => {
    expect(LOOKUP_PARAM_SPEC).toEqual({});
    expect(() => parseQuery(new URLSearchParams('q=x'), LOOKUP_PARAM_SPEC)).toThrow(ServiceError);
  });
});
