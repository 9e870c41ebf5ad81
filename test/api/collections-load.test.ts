/**
 * Opening a collection index (spec §4.2, §7; `api/_lib/collections/load.ts`, format `collection-index/3` in
 * `api/_lib/formats/collection-file.ts`): a well-formed file becomes a queryable collection (items, folded
 * keys, filters, hidden artifacts left out of lists), whether held in memory or opened from disk; every way a
 * file can be broken is refused with a message naming what is wrong: at open (the function answers 503
 * UPSTREAM_UNAVAILABLE instead of wrong lists), or, for what is checked on first use, by the query that
 * needs it (503 with the cause). Small indexes built by the build's own indexer, then broken one part at a time.
 */
import { mkdtempSync, readdirSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { indexCollection } from '../../build/derive/collections.js';
import { ITEM_CACHE_CHARS, loadIndex, openIndex, type LoadedCollection } from '../../api/_lib/collections/load.js';
import { has, type PosSet } from '../../api/_lib/collections/positions.js';
import { lookupItem, queryCollection } from '../../api/_lib/collections/query.js';
import type { CollectionIndexData, CollectionName } from '../../api/_lib/formats/collection-index.js';
import { encodeCollectionIndex, headerOf, type SectionName } from '../../api/_lib/formats/collection-file.js';

type Raw = Record<string, unknown>;

const ARTIFACTS = [
  {
    uuid: 'ARTF-1',
    name: 'Sun Blade',
    tier: 2,
    artifactType: 'martial',
    description: 'Bright steel.',
    discovery: { hiddenUntilFound: true },
  },
  { uuid: 'ARTF-2', name: 'Moon Shield', tier: 3, handedness: 'offhand', description: 'Cold, pale light.' },
  { uuid: 'ARTF-3', name: 'Star Orb', tier: 3, artifactType: 'arcane', description: 'Hums.', discovery: { hiddenUntilFound: true } },
  { uuid: 'ARTF-4', name: 'Ash Wand', tier: 1, artifactType: 'arcane', description: 'Warm.' },
];
const RELICS = [
  {
    uuid: 'RELC-1',
    id: 'relic-frost',
    name: 'Relic of Frost',
    category: 'elemental',
    tier: 1,
    element: 'frost',
    slot: 'relic',
    description: 'Cold.',
  },
  { uuid: 'RELC-2', id: 'relic-ember', name: 'Ember Relic', category: 'combat', tier: 3, element: 'fire|holy', description: 'Hot.' },
];

function data(name: CollectionName, items: unknown[]): CollectionIndexData {
  return indexCollection(name, { [name]: items })!.index;
}
function file(name: CollectionName, items: unknown[]): Buffer {
  return indexCollection(name, { [name]: items })!.file;
}

const members = (set: PosSet | undefined, n: number): number[] | undefined =>
  set ? Array.from({ length: n }, (_, p) => p).filter((p) => has(set, p)) : undefined;
const dir = mkdtempSync(join(tmpdir(), 'collections-load-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;
/** `bytes` written to a file and opened from there. */
function opened(bytes: Uint8Array, expected?: CollectionName): LoadedCollection {
  const path = join(dir, `${files++}.cidx`);
  writeFileSync(path, bytes);
  return openIndex(path, expected);
}

describe.each([
  ['held in memory', (b: Uint8Array, e?: CollectionName) => loadIndex(b, e)],
  ['opened from a file', opened],
] as const)('a well-formed index %s', (_how, load) => {
  it('loads items, search texts, keys, filters and the positions shown in lists', () => {
    const raw = data('artifacts', ARTIFACTS);
    const c = load(encodeCollectionIndex(raw), 'artifacts');
    expect(c.name).toBe('artifacts');
    expect(c.def.name).toBe('artifacts');
    expect(c.dataset).toBe('master-artifacts');
    expect(c.n).toBe(4);
    expect([0, 1, 2, 3].map((p) => c.item(p))).toEqual(raw.items);
    expect(c.itemsJoined([0, 1, 2, 3])).toBe(raw.items.join(','));
    expect(c.itemsJoined([0, 2, 3])).toBe([raw.items[0], raw.items[2], raw.items[3]].join(','));
    expect(c.itemsJoined([])).toBe('');
    expect([0, 1, 2, 3].map((p) => c.searchText(p))).toEqual(raw.search);
    expect(c.bodyPrefix).toBe('{"collection":"master-artifacts","total":');
    expect(members(c.visible, 4)).toEqual([1, 3]);
    expect(c.visible!.size).toBe(2);
    for (const [k, p] of Object.entries(raw.keys)) expect(c.keyPosition(k), k).toBe(p);
    expect(c.keyPosition('sun-blad')).toBeUndefined();
    expect(c.keyPosition('sun-blade-')).toBeUndefined();
    expect(c.keyPosition('')).toBeUndefined();
    expect(members(c.filters.get('tier')!.get('3'), 4)).toEqual([1, 2]);
    expect(members(c.filters.get('artifactType')!.get('arcane'), 4)).toEqual([2, 3]);
    expect([...c.filters.keys()].sort()).toEqual(['artifactType', 'handedness', 'subtype', 'tier']);
    expect(c.terms.entries).toEqual(raw.terms);
    expect(c.terms.postings.map((s) => members(s, 4))).toEqual(raw.postings);
    expect(c.fragments.entries).toEqual(raw.fragments);
    expect(c.fragments.postings.map((s) => members(s, 4))).toEqual(raw.fragmentPostings);
    expect(c.fragments.groups).toBeDefined();
    expect(c.gaps.entries).toEqual([' ', ', ', '.']);
    expect((JSON.parse(queryCollection(c, { limit: 10, offset: 0 }).body) as { items: Raw[] }).items.map((i) => i.uuid)).toEqual([
      'ARTF-2',
      'ARTF-4',
    ]);
    expect((JSON.parse(queryCollection(c, { limit: 10, offset: 0, discovered: 'all' }).body) as Raw).total).toBe(4);
  });

  it('reads items far apart and side by side, with text outside ASCII', () => {
    const many = Array.from({ length: 400 }, (_, i) => ({
      uuid: `RELC-${i}`,
      id: `r-${i}`,
      name: `Épée ${i} ✦ ${'x'.repeat(i % 7 === 0 ? 20_000 : 10)}`,
      tier: 1 + (i % 8),
      description: 'd',
    }));
    const raw = data('relics', many);
    const c = load(encodeCollectionIndex(raw), 'relics');
    const pick = [0, 1, 2, 7, 8, 150, 151, 398, 399];
    expect(c.itemsJoined(pick)).toBe(pick.map((p) => raw.items[p]).join(','));
    expect(c.item(399)).toBe(raw.items[399]);
    expect(JSON.parse(queryCollection(c, { limit: 500, offset: 0 }).body)).toMatchObject({ total: 400, items: many });
    expect(c.searchText(7)).toBe(raw.search[7]);
  });

  it('reads a run of neighbouring items at once, and items far apart one by one', () => {
    // items of about 300 bytes, one of 20,000 at position 10
    const many = Array.from({ length: 200 }, (_, i) => ({
      uuid: `RELC-${i}`,
      id: `r-${i}`,
      name: `Relic ${i}`,
      tier: 1,
      description: i === 10 ? 'x'.repeat(20_000) : 'y'.repeat(250),
    }));
    const raw = data('relics', many);
    const bytes = encodeCollectionIndex(raw);
    // each on an index of its own, so that no read finds the item cache warm
    const reads = (positions: number[]): number => {
      const c = load(bytes, 'relics');
      expect(c.itemsJoined(positions)).toBe(positions.map((p) => raw.items[p]).join(','));
      return c.reads;
    };
    expect(reads([])).toBe(0);
    expect(reads(Array.from({ length: 50 }, (_, i) => 100 + i))).toBe(1);
    expect(reads([0, 2, 4, 6, 8])).toBe(1); // gaps of one item: far below 16 KiB
    expect(reads([0, 199])).toBe(2); // 60 KB apart
    expect(reads([9, 11])).toBe(2); // the 20,000-byte item lies between
    expect(reads([9, 10, 11])).toBe(1);
    expect(reads([150, 151, 199])).toBe(1);
    // a warm index answers what it read lately without reading again
    const c = load(bytes, 'relics');
    expect(queryCollection(c, { limit: 50, offset: 0, tier: 1 }).count).toBe(50);
    expect(c.reads).toBe(1);
    expect(queryCollection(c, { limit: 50, offset: 0, tier: 1 }).body).toBe(
      queryCollection(load(bytes, 'relics'), { limit: 50, offset: 0, tier: 1 }).body,
    );
    expect(c.reads).toBe(1);
    expect(c.itemsJoined([0, 1, 2])).toBe(raw.items.slice(0, 3).join(','));
    expect(c.reads).toBe(2); // another run (0..2, not 0..49): read
    expect(c.item(199)).toBe(raw.items[199]);
    expect(c.itemsJoined([0, 1, 2, 199])).toBe([...raw.items.slice(0, 3), raw.items[199]].join(','));
    expect(c.reads).toBe(3);
  });

  it('keeps at most ITEM_CACHE_CHARS of item text, the least recently used run going first', () => {
    const big = 'x'.repeat(100_000);
    const items = Array.from({ length: 90 }, (_, i) => ({ uuid: `RELC-${i}`, id: `r-${i}`, name: `R ${i}`, tier: 1, description: big }));
    const raw = data('relics', items);
    const c = load(encodeCollectionIndex(raw), 'relics');
    expect(90 * raw.items[0]!.length).toBeGreaterThan(ITEM_CACHE_CHARS);
    for (let p = 0; p < 90; p++) expect(c.item(p)).toBe(raw.items[p]);
    expect(c.reads).toBe(90);
    // the newest runs are kept, the oldest gone
    expect(c.item(89)).toBe(raw.items[89]);
    expect(c.item(10)).toBe(raw.items[10]);
    expect(c.reads).toBe(90);
    expect(c.item(0)).toBe(raw.items[0]);
    expect(c.reads).toBe(91);
  });

  it('finds keys whose UTF-8 order is not their UTF-16 order', () => {
    // U+E000 sorts after U+13000 by code units (0xD80C < 0xE000) and before it by UTF-8 bytes (EE < F0);
    // neither has a compatibility decomposition, so both survive folding
    const items = [
      { uuid: 'RELC-1', id: '\u{13000}-relic', name: 'A', tier: 1 },
      { uuid: 'RELC-2', id: '\uE000-relic', name: 'Z', tier: 1 },
      { uuid: 'RELC-3', id: 'é-relic', name: 'E', tier: 1 },
    ];
    const raw = data('relics', items);
    expect(Object.keys(raw.keys)).toEqual(expect.arrayContaining(['\u{13000}-relic', '\uE000-relic']));
    const c = load(encodeCollectionIndex(raw), 'relics');
    for (const [k, p] of Object.entries(raw.keys)) expect(c.keyPosition(k), k).toBe(p);
    expect(lookupItem(c, '\u{13000}-RELIC')).toBe(raw.items[0]);
    expect(lookupItem(c, '\uE000-relic')).toBe(raw.items[1]);
    expect(lookupItem(c, 'É-relic')).toBe(raw.items[2]);
  });

  it('an empty collection', () => {
    const c = load(file('enchants', []), 'enchants');
    expect(c.n).toBe(0);
    expect(c.terms.entries).toEqual([]);
    expect(c.fragments.entries).toEqual([]);
    expect(c.keyPosition('a')).toBeUndefined();
    expect(queryCollection(c, { limit: 10, offset: 0, q: 'a' }).body).toBe(
      '{"collection":"master-enchants","total":0,"count":0,"limit":10,"offset":0,"items":[]}',
    );
  });

  it('hides the first and the last item alike', () => {
    const items = ARTIFACTS.map((a, i) => ({ ...a, discovery: { hiddenUntilFound: i === 0 || i === 3 } }));
    expect(members(load(file('artifacts', items)).visible, 4)).toEqual([1, 2]);
    const lastOnly = ARTIFACTS.map((a, i) => ({ ...a, discovery: { hiddenUntilFound: i === 3 } }));
    expect(members(load(file('artifacts', lastOnly)).visible, 4)).toEqual([0, 1, 2]);
  });

  it('without hidden items nothing is filtered out of lists', () => {
    const c = load(file('relics', RELICS));
    expect(c.visible).toBeUndefined();
    expect(queryCollection(c, { limit: 10, offset: 0 }).total).toBe(2);
  });

  it('a filter missing from the file is a filter no item matches', () => {
    const raw = data('relics', RELICS);
    const filters = { ...raw.filters };
    delete filters.element;
    const c = load(encodeCollectionIndex({ ...raw, filters }));
    expect(c.filters.has('element')).toBe(false);
    expect(queryCollection(c, { limit: 10, offset: 0, element: 'frost' }).total).toBe(0);
    expect(queryCollection(c, { limit: 10, offset: 0, category: 'combat' }).total).toBe(1);
  });

  it('key lookups use position 0 and the last position', () => {
    const raw = data('relics', RELICS);
    const c = load(encodeCollectionIndex(raw));
    expect(lookupItem(c, 'relc-1')).toBe(raw.items[0]);
    expect(lookupItem(c, 'RELIC-EMBER')).toBe(raw.items[1]);
  });
});

it('lays the items out as the collection in catalog order, one JSON array, an empty one too', () => {
  for (const [name, items] of [
    ['relics', RELICS],
    ['artifacts', ARTIFACTS],
    ['enchants', []],
  ] as const) {
    const bytes = file(name, [...items]);
    const { sections } = headerOf(bytes) as { sections: Record<SectionName, [number, number]> };
    const [at, length] = sections.items;
    expect(at + length).toBe(bytes.length);
    const text = bytes.toString('utf8', at, at + length);
    expect(text).toBe(`[${data(name, [...items]).items.join(',')}]`);
    expect(JSON.parse(text)).toEqual(items);
    expect(bytes.toString('latin1', 0, 8)).toBe('GDCIDX03');
  }
});

it('an index copied to an odd offset loads from its copy', () => {
  const good = file('relics', RELICS);
  const odd = new Uint8Array(good.length + 1).subarray(1);
  odd.set(good);
  expect(lookupItem(loadIndex(odd), 'relic-frost')).toBe(data('relics', RELICS).items[0]);
});

it('the file is closed once the index is garbage', async () => {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  const before = readdirSync('/proc/self/fd').length;
  for (let i = 0; i < 20; i++) opened(file('relics', RELICS));
  gc();
  await new Promise((r) => setTimeout(r, 50));
  expect(readdirSync('/proc/self/fd').length).toBeLessThan(before + 20);
});

/**
 * `bytes` with its header changed by `change`: the sections stay put while the new header fits before them,
 * else every section moves back by a multiple of 8 bytes to make room.
 */
function patchHeader(bytes: Buffer, change: (h: Raw) => void): Buffer {
  const h = headerOf(bytes) as Raw;
  const start = (h.sections as Record<SectionName, [number, number]>).postings[0];
  change(h);
  let json = JSON.stringify(h);
  let shift = 0;
  while (12 + json.length > start + shift) {
    shift += 8;
    const moved = structuredClone(h);
    for (const v of Object.values((moved.sections ?? {}) as Record<string, unknown>))
      if (Array.isArray(v) && typeof v[0] === 'number') v[0] += shift;
    json = JSON.stringify(moved);
  }
  const out = Buffer.alloc(bytes.length + shift);
  bytes.copy(out, 0, 0, 12);
  out.writeUInt32LE(json.length, 8);
  out.write(json, 12, 'utf8');
  bytes.copy(out, start + shift, start);
  return out;
}

describe('a broken index is refused at open, naming what is wrong', () => {
  const raw = data('relics', RELICS);
  const good = encodeCollectionIndex(raw);
  const refuse = (bytes: Uint8Array, why: RegExp, expected?: CollectionName): void => {
    for (const load of [loadIndex, opened]) {
      let error: unknown;
      try {
        load(bytes, expected);
      } catch (e) {
        error = e;
      }
      expect(error, String(why)).toBeInstanceOf(Error);
      expect((error as Error).name).toBe('CorruptIndex');
      expect((error as Error).message).toMatch(/^collection index: /);
      expect((error as Error).message).toMatch(why);
    }
  };
  const sections = (h: Raw): Record<SectionName, [number, number]> => h.sections as Record<SectionName, [number, number]>;

  it('not an index: another magic, a header past the end, a header that is not JSON or not an object', () => {
    refuse(Buffer.from('{"format":"collection-index/2"}'), /does not start with GDCIDX03/);
    refuse(good.subarray(0, 8), /does not start with GDCIDX03/);
    const long = Buffer.from(good);
    long.writeUInt32LE(good.length, 8);
    refuse(long, /the header runs past the end of the file/);
    const notJson = Buffer.from(good);
    notJson.write('{', 12 + good.readUInt32LE(8) - 1);
    refuse(notJson, /the header is not JSON/);
    refuse(
      patchHeader(good, (h) => Object.keys(h).forEach((k) => delete h[k])),
      /format is undefined|sections\.items is not \[offset, length\]/,
    );
    const withHeader = (text: string): Buffer => {
      const out = Buffer.alloc(16 + text.length);
      out.write('GDCIDX03', 0, 'latin1');
      out.writeUInt32LE(text.length, 8);
      out.write(text, 12);
      return out;
    };
    expect(() => loadIndex(withHeader('null'))).toThrow(/^collection index: the header is not an object$/);
    expect(() => loadIndex(withHeader('[1]'))).toThrow(/^collection index: the header is not an object$/);
    expect(() => opened(withHeader('null'))).toThrow(/^collection index: sections\.items is not \[offset, length\]$/);
    refuse(
      patchHeader(good, (h) => void (h.sections = [])),
      /sections is not an object|sections\.items is not/,
    );
    expect(() => loadIndex(patchHeader(good, (h) => void (h.sections = [])))).toThrow(/^collection index: sections is not an object$/);
    // the items section said to start past the end of the file
    expect(() => opened(patchHeader(good, (h) => void (sections(h).items = [good.length + 8, 0])))).toThrow(
      /^collection index: sections\.items is not \[offset, length\]$/,
    );
  });

  it('another format, another collection or dataset, counts that are not counts', () => {
    refuse(
      patchHeader(good, (h) => void (h.format = 'collection-index/2')),
      /format is "collection-index\/2", expected collection-index\/3/,
    );
    refuse(
      patchHeader(good, (h) => void (h.collection = 'swords')),
      /unknown collection/,
    );
    refuse(
      patchHeader(good, (h) => void (h.collection = 7)),
      /unknown collection/,
    );
    refuse(good, /holds relics, expected enchants/, 'enchants');
    refuse(
      patchHeader(good, (h) => void (h.dataset = 'master-enchant')),
      /dataset is not master-relics/,
    );
    for (const k of ['n', 'terms', 'fragments', 'keys']) {
      refuse(
        patchHeader(good, (h) => void (h[k] = -1)),
        /n, terms, fragments and keys are not counts/,
      );
      refuse(
        patchHeader(good, (h) => void (h[k] = 0.5)),
        /are not counts/,
      );
    }
    expect(loadIndex(good, 'relics').name).toBe('relics');
  });

  it('sections missing, misplaced, overlapping, of the wrong size, or not ending with the file', () => {
    refuse(
      patchHeader(good, (h) => void delete (h.sections as Raw).terms),
      /sections\.terms is not \[offset, length\]/,
    );
    refuse(
      patchHeader(good, (h) => void (sections(h).terms = [8, 'x'] as unknown as [number, number])),
      /sections\.terms is not/,
    );
    refuse(
      patchHeader(good, (h) => void (sections(h).postings = [sections(h).postings[0] + 4, sections(h).postings[1]])),
      /sections\.postings is misplaced/,
    );
    refuse(
      patchHeader(good, (h) => void (sections(h).postings = [0, sections(h).postings[1]])),
      /sections\.postings is misplaced/,
    );
    refuse(
      patchHeader(good, (h) => void (sections(h).termStarts = [sections(h).termStarts[0], sections(h).termStarts[1] + 4])),
      /sections\.termStarts is|misplaced/,
    );
    refuse(
      patchHeader(good, (h) => void (sections(h).postings = [sections(h).postings[0], sections(h).postings[1] - 2])),
      /postings is not a whole number of Int32/,
    );
    refuse(
      patchHeader(good, (h) => void (h.n = 3)),
      /sections\.searchStarts is \d+ bytes, expected 16/,
    );
    refuse(
      patchHeader(good, (h) => void (h.keys = (h.keys as number) + 1)),
      /sections\.keyStarts is/,
    );
    refuse(Buffer.concat([good, Buffer.from(' ')]), /the items section ends at \d+, the file at \d+/);
    refuse(good.subarray(0, good.length - 1), /the items section ends at/);
  });

  it('postings that are not strictly increasing positions below the item count', () => {
    const withList = (i: number, list: number[]): Buffer =>
      encodeCollectionIndex({ ...raw, postings: raw.postings.map((l, k) => (k === i ? list : l)) });
    refuse(withList(1, [1, 1]), /terms postings\[1\] is not a strictly increasing list of positions below 2/);
    refuse(withList(1, [1, 0]), /strictly increasing/);
    refuse(withList(1, [2]), /below 2/);
    refuse(withList(1, [-1]), /strictly increasing/);
    expect(loadIndex(withList(1, [0, 1])).n).toBe(2);
    expect(loadIndex(withList(1, [0])).n).toBe(2);
    refuse(
      encodeCollectionIndex({ ...raw, fragmentPostings: raw.fragmentPostings.map((l, i) => (i === 0 ? [9] : l)) }),
      /fragments postings\[0\]/,
    );
  });

  it('starts that do not span their section or decrease', () => {
    const at: Record<string, [number, number]> = sections(headerOf(good) as Raw);
    const poke = (section: string, index: number, value: number): Buffer => {
      const out = Buffer.from(good);
      out.writeInt32LE(value, at[section]![0] + 4 * index);
      return out;
    };
    refuse(poke('termStarts', 0, 1), /termStarts do not span their section/);
    refuse(poke('termStarts', 1, 1000), /termStarts decrease at 2/);
    refuse(poke('fragmentStarts', 0, 0), /fragmentStarts do not span their section/);
    refuse(poke('searchStarts', 0, 2), /searchStarts do not span/);
    refuse(poke('searchStarts', 1, 1000), /searchStarts decrease at 2/);
    refuse(poke('keyStarts', 0, 1), /keyStarts do not span/);
    refuse(poke('keyStarts', (headerOf(good) as { keys: number }).keys, 1), /keyStarts do not span/);
    refuse(poke('keyPositions', 0, 2), /keyPositions\[0\] is not a position/);
    refuse(poke('keyPositions', 1, -1), /keyPositions\[1\] is not a position/);
    const items = (value: number, index: number): Buffer => {
      const out = Buffer.from(good);
      out.writeDoubleLE(value, at.itemStarts![0] + 8 * index);
      return out;
    };
    refuse(items(0, 0), /itemStarts do not span the items section/);
    refuse(items(1e6, 2), /itemStarts do not span the items section/);
    refuse(items(1, 1), /itemStarts do not increase at 1/);
  });

  it('filters and hidden: not objects, not runs of postings, positions out of range', () => {
    refuse(
      patchHeader(good, (h) => void (h.filters = [])),
      /filters is not an object/,
    );
    refuse(
      patchHeader(good, (h) => void ((h.filters as Raw).tier = [1])),
      /filters\.tier is not an object/,
    );
    refuse(
      patchHeader(good, (h) => void ((h.filters as Raw).tier = { '1': [3, 2] })),
      /filters\.tier\.1 is not a run of postings/,
    );
    refuse(
      patchHeader(good, (h) => void ((h.filters as Raw).tier = { '1': [0, 1e6] })),
      /filters\.tier\.1 is not a run of postings/,
    );
    refuse(
      encodeCollectionIndex({ ...raw, filters: { ...raw.filters, tier: { '1': [5] } } }),
      /filters\.tier\.1 is not a strictly increasing list/,
    );
    // A parameter no filter of the collection has is not read.
    expect(loadIndex(encodeCollectionIndex({ ...raw, filters: { ...raw.filters, colour: { x: [9] } } })).filters.has('colour')).toBe(false);
    refuse(
      patchHeader(good, (h) => void (h.hidden = [1])),
      /hidden is not a run of postings/,
    );
    refuse(
      patchHeader(good, (h) => void (h.hidden = [-1, 0])),
      /hidden is not a run of postings/,
    );
    refuse(
      patchHeader(good, (h) => void (h.hidden = [0, 1, 2])),
      /hidden is not a run of postings/,
    );
    refuse(
      patchHeader(good, (h) => void (h.hidden = ['0', 0])),
      /hidden is not a run of postings/,
    );
    refuse(
      patchHeader(good, (h) => void (h.hidden = [0, 0.5])),
      /hidden is not a run of postings/,
    );
    refuse(encodeCollectionIndex({ ...raw, hidden: [2] }), /hidden is not a strictly increasing list of positions below 2/);
  });
});

it('a file cut short after it was opened answers 503 for its items, and nothing else changes', () => {
  const raw = data('relics', RELICS);
  const path = join(dir, 'cut.cidx');
  const bytes = encodeCollectionIndex(raw);
  writeFileSync(path, bytes);
  const c = openIndex(path, 'relics');
  expect(c.item(0)).toBe(raw.items[0]);
  truncateSync(path, bytes.length - 10);
  let error: unknown;
  try {
    c.item(1);
  } catch (e) {
    error = e;
  }
  expect(error).toMatchObject({
    name: 'ServiceError',
    code: 'UPSTREAM_UNAVAILABLE',
    message: 'The relics items cannot be read; try again.',
  });
  expect(((error as Error).cause as Error).message).toBe('collection index: the file ends early');
  // what was read before stays answerable (the item cache), as does every lookup of a key
  expect(c.item(0)).toBe(raw.items[0]);
  expect(c.keyPosition('relic-ember')).toBe(1);
});

it('reads the search text and the lookup keys of an opened file on first use, not at open', () => {
  const raw = data('relics', RELICS);
  const bytes = encodeCollectionIndex(raw);
  const at = (headerOf(bytes) as { sections: Record<SectionName, [number, number]> }).sections;
  const path = join(dir, 'deferred.cidx');
  writeFileSync(path, bytes);
  const c = openIndex(path, 'relics');
  expect(queryCollection(c, { limit: 5, offset: 0, tier: 3 }).total).toBe(1);
  // the file changes under the open index: what it had not read yet is read as it is now
  const changed = Buffer.from(bytes);
  changed.write('z', at.keys[0], 'latin1');
  changed.write('Q', at.search[0], 'latin1');
  writeFileSync(path, changed);
  expect(() => c.keyPosition('relic-frost')).toThrow(/keys/);
  expect(c.searchText(0)).toBe(`Q${raw.search[0]!.slice(1)}`);
  // the items, read per request, did not change
  expect(c.item(0)).toBe(raw.items[0]);
});

describe('what is checked on first use answers 503 with the cause, and keeps answering it', () => {
  const raw = data('relics', RELICS);
  const firstUse = (c: LoadedCollection, use: (c: LoadedCollection) => unknown, why: RegExp): void => {
    for (let twice = 0; twice < 2; twice++) {
      let error: unknown;
      try {
        use(c);
      } catch (e) {
        error = e;
      }
      expect(error).toMatchObject({ name: 'ServiceError', code: 'UPSTREAM_UNAVAILABLE' });
      expect((error as Error).message).toMatch(/^The relics collection index is corrupt \(\w+\); rebuild the catalog\.$/);
      expect(((error as Error).cause as Error).message).toMatch(why);
    }
  };

  it('terms: malformed, unsorted or repeated, or fewer than the header says', () => {
    const terms = raw.terms;
    const broken = (t: string[]): LoadedCollection => loadIndex(encodeCollectionIndex({ ...raw, terms: t }));
    firstUse(broken(['of frost', ...terms.slice(1)]), (c) => c.terms, /terms\[0\] is malformed/);
    firstUse(broken([...terms.slice(0, 2), terms[1]!, ...terms.slice(3)]), (c) => c.terms, /terms are not sorted and distinct at 2/);
    firstUse(
      broken([terms[1]!, terms[0]!, ...terms.slice(2)]),
      (c) => queryCollection(c, { limit: 5, offset: 0, q: 'frost' }),
      /terms are not sorted and distinct at 1/,
    );
    const fewer = patchHeader(encodeCollectionIndex(raw), (h) => void (h.terms = (h.terms as number) - 1));
    // the header then disagrees with termStarts' size, which open checks
    expect(() => loadIndex(fewer)).toThrow(/sections\.termStarts is/);
    firstUse(
      broken([...terms.slice(0, 1), `${terms[1]}\n${terms[2]}`, ...terms.slice(3), 'zzzz']),
      (c) => c.terms,
      /terms holds \d+ entries, the header says \d+/,
    );
  });

  it('fragments: malformed or unsorted; the gaps come from them', () => {
    const f = raw.fragments;
    const broken = loadIndex(encodeCollectionIndex({ ...raw, fragments: ['ab', ...f.slice(1)] }));
    firstUse(broken, (c) => c.fragments, /fragments\[0\] is malformed/);
    firstUse(broken, (c) => c.gaps, /fragments\[0\] is malformed/);
    firstUse(
      loadIndex(encodeCollectionIndex({ ...raw, fragments: [...f].reverse() })),
      (c) => queryCollection(c, { limit: 5, offset: 0, q: 'of fr' }),
      /fragments are not sorted/,
    );
  });

  it('search text shorter than its starts say', () => {
    const bytes = encodeCollectionIndex(raw);
    const at = (headerOf(bytes) as { sections: Record<string, [number, number]> }).sections;
    // a two-byte character where two one-byte ones were: one code unit fewer
    const out = Buffer.from(bytes);
    out.write('é', at.search![0], 'utf8');
    firstUse(loadIndex(out), (c) => c.searchText(0), /the search text is \d+ code units, searchStarts end at \d+/);
  });

  it('keys out of order', () => {
    const bytes = encodeCollectionIndex(raw);
    const at = (headerOf(bytes) as { sections: Record<string, [number, number]> }).sections;
    const out = Buffer.from(bytes);
    out.write('z', at.keys![0], 'latin1');
    firstUse(loadIndex(out), (c) => lookupItem(c, 'relic-frost'), /keys are not sorted and distinct at 1/);
  });
});
