/**
 * The collection facts and text folding shared by the build and `/v1/{name}` (spec §2.2, §3, §4.2;
 * api/_lib/formats/collection-index.ts): the four collections with their datasets, search fields, filters
 * and lookup keys as spec §4.2 lists them, the one folding of search text, query text, filter values and
 * keys, name slugs, and the terms of a folded text with their offsets.
 */
import { describe, expect, it } from 'vitest';
import {
  COLLECTION_DEFS,
  COLLECTION_NAMES,
  foldKey,
  foldText,
  isCollectionName,
  isSingleTerm,
  slugify,
  termSpans,
} from '../../api/_lib/formats/collection-index.js';
import { INDEX_FORMAT, INDEX_MAGIC } from '../../api/_lib/formats/collection-file.js';

describe('the four collections (spec §4.2)', () => {
  it('are relics, enchants, infusions and artifacts, in that order', () => {
    expect(COLLECTION_NAMES).toEqual(['relics', 'enchants', 'infusions', 'artifacts']);
    expect(Object.keys(COLLECTION_DEFS)).toEqual([...COLLECTION_NAMES]);
    expect(Object.isFrozen(COLLECTION_NAMES)).toBe(true);
    expect(Object.isFrozen(COLLECTION_DEFS)).toBe(true);
  });

  it('name their source dataset and item array', () => {
    for (const name of COLLECTION_NAMES) {
      expect(COLLECTION_DEFS[name].name).toBe(name);
      expect(COLLECTION_DEFS[name].dataset).toBe(`master-${name}`);
      expect(COLLECTION_DEFS[name].arrayKey).toBe(name);
    }
  });

  it('search name, id and description, artifacts name and description only', () => {
    expect(COLLECTION_DEFS.relics.searchFields).toEqual(['name', 'id', 'description']);
    expect(COLLECTION_DEFS.enchants.searchFields).toEqual(['name', 'id', 'description']);
    expect(COLLECTION_DEFS.infusions.searchFields).toEqual(['name', 'id', 'description']);
    expect(COLLECTION_DEFS.artifacts.searchFields).toEqual(['name', 'description']);
  });

  it('filter as the spec §4.2 table says', () => {
    const tier = { param: 'tier', field: 'tier', kind: 'tier' };
    expect(COLLECTION_DEFS.relics.filters).toEqual([
      { param: 'category', field: 'category', kind: 'enum', values: ['elemental', 'combat', 'defensive', 'utility'] },
      tier,
      { param: 'element', field: 'element', kind: 'string' },
      { param: 'slot', field: 'slot', kind: 'enum', values: ['relic'] },
    ]);
    expect(COLLECTION_DEFS.enchants.filters).toEqual([
      { param: 'category', field: 'category', kind: 'string' },
      tier,
      { param: 'target', field: 'target', kind: 'enum', values: ['weapon', 'armor'] },
    ]);
    expect(COLLECTION_DEFS.infusions.filters).toEqual([
      tier,
      { param: 'scope', field: 'scope', kind: 'enum', values: ['universal', 'profession'] },
      { param: 'profession', field: 'profession', kind: 'string' },
    ]);
    expect(COLLECTION_DEFS.artifacts.filters).toEqual([
      tier,
      { param: 'artifactType', field: 'artifactType', kind: 'string' },
      { param: 'subtype', field: 'subtype', kind: 'string' },
      { param: 'handedness', field: 'handedness', kind: 'enum', values: ['1h', '2h', 'offhand'] },
    ]);
  });

  it('look items up by the keys spec §4.2 allows, and hide undiscovered artifacts only', () => {
    expect(COLLECTION_DEFS.relics.keyKinds).toEqual(['uuid', 'id', 'slug']);
    expect(COLLECTION_DEFS.enchants.keyKinds).toEqual(['uuid', 'id', 'slug']);
    expect(COLLECTION_DEFS.infusions.keyKinds).toEqual(['uuid', 'id']);
    expect(COLLECTION_DEFS.artifacts.keyKinds).toEqual(['uuid', 'slug']);
    expect(COLLECTION_NAMES.filter((n) => COLLECTION_DEFS[n].hideUndiscovered)).toEqual(['artifacts']);
  });

  it('knows a collection only by its own name', () => {
    for (const name of COLLECTION_NAMES) expect(isCollectionName(name)).toBe(true);
    for (const name of ['Relics', 'relic', 'toString', '__proto__', 'constructor', '']) expect(isCollectionName(name), name).toBe(false);
  });

  it('tags its index files with their format version', () => {
    expect(INDEX_FORMAT).toBe('collection-index/3');
    expect(INDEX_MAGIC).toBe('GDCIDX03');
  });
});

describe('folding (one rule on both sides)', () => {
  it('lower-cases plain ASCII as it is', () => {
    expect(foldText('Fire Ring')).toBe('fire ring');
    expect(foldText('a b-c')).toBe('a b-c');
    expect(foldText('~!')).toBe('~!');
  });

  it('collapses runs of white space and control characters and trims', () => {
    expect(foldText('  Fire   Ring ')).toBe('fire ring');
    expect(foldText('Fire\t\nRing')).toBe('fire ring');
    expect(foldText('Fire\u0000Ring')).toBe('fire ring');
    expect(foldText('Fire\u007fRing')).toBe('fire ring');
    expect(foldText(' Fire')).toBe('fire');
    expect(foldText('Fire ')).toBe('fire');
    expect(foldText(' ')).toBe('');
    expect(foldText('')).toBe('');
  });

  it('removes apostrophes and accents and spells out special letters', () => {
    expect(foldText("Engineer's Kit")).toBe('engineers kit');
    expect(foldText('Épée  Straße')).toBe('epee strasse');
    expect(foldText('ﬁre')).toBe('fire');
  });

  it('folds lookup keys the same way', () => {
    expect(foldKey('Relic-Frost')).toBe('relic-frost');
    expect(foldKey(' Épée ')).toBe('epee');
  });
});

describe('name slugs', () => {
  it('keeps only a-z and 0-9, one dash between runs, none at the ends', () => {
    expect(slugify('Relic of Frost T2')).toBe('relic-of-frost-t2');
    expect(slugify("Épée d'Or")).toBe('epee-dor');
    expect(slugify('--Fire__Ring--')).toBe('fire-ring');
    expect(slugify('!!!')).toBe('');
  });
});

describe('terms of a folded text', () => {
  it('gives each run of letters and digits with its start and end offsets', () => {
    expect(termSpans('of frost, t2')).toEqual([
      { term: 'of', start: 0, end: 2 },
      { term: 'frost', start: 3, end: 8 },
      { term: 't2', start: 10, end: 12 },
    ]);
    expect(termSpans('épée')).toEqual([{ term: 'épée', start: 0, end: 4 }]);
    expect(termSpans('-- ')).toEqual([]);
  });

  it('tells a single term from anything with other characters', () => {
    expect(isSingleTerm('frost2')).toBe(true);
    expect(isSingleTerm('épée')).toBe(true);
    for (const s of ['', 'of frost', 'frost-', '-frost', 'a.b']) expect(isSingleTerm(s), s).toBe(false);
  });
});
