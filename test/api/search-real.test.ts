/**
 * Search over the real catalog snapshot (spec 4.4): records are taken straight from the raw files
 * and every expectation is computed here from those files, with a plain edit-distance table rather
 * than the engine's own helpers.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildSearchIndex, loadSearchIndex, type SearchEngine, type SearchRecord } from '../../api/_lib/search/index.js';
import { REAL_SRC } from '../helpers/catalog.js';

const SNAPSHOT = REAL_SRC;

interface Named {
  uuid?: unknown;
  id?: unknown;
  name?: unknown;
}

function read(file: string): Record<string, unknown> {
  return JSON.parse(readFileSync(resolve(SNAPSHOT, file), 'utf8')) as Record<string, unknown>;
}

function realRecords(): SearchRecord[] {
  const out: SearchRecord[] = [];
  const push = (type: SearchRecord['type'], list: unknown, idField: 'uuid' | 'id'): void => {
    for (const x of list as Named[])
      if (typeof x[idField] === 'string' && typeof x.name === 'string') out.push({ type, id: x[idField], name: x.name });
  };
  push('weapons', read('master-weapons.json').items, 'uuid');
  push('armor', read('master-armor.json').items, 'uuid');
  push('materials', read('master-materials.json').materials, 'uuid');
  push('consumables', read('master-consumables.json').items, 'uuid');
  for (const wt of read('master-weaponSkills.json').weaponTypes as { slots: { skills: Named[] }[] }[]) {
    for (const slot of wt.slots) push('skills', slot.skills, 'id');
  }
  return out;
}

/** Words of a real name: these names are plain ASCII, so lower case and split on anything else. */
function words(name: string): string[] {
  return name
    .toLowerCase()
    .replace(/'/g, '')
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
}

/** Optimal-string-alignment distance by the textbook table. */
function osa(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let v = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) v = Math.min(v, d[i - 2]![j - 2]! + 1);
      d[i]![j] = v;
    }
  }
  return d[a.length]![b.length]!;
}

/** Does one query word match a name word: equal, prefix, or (from 3 letters) one edit away. */
function wordMatches(q: string, w: string): boolean {
  return w.startsWith(q) || (q.length >= 3 && Math.abs(q.length - w.length) <= 1 && osa(q, w) === 1);
}

function expectedMatches(records: readonly SearchRecord[], query: string): SearchRecord[] {
  const qw = words(query);
  return records.filter((r) => {
    if (words(r.id).join(' ') === qw.join(' ')) return true;
    const nw = words(r.name);
    return qw.every((q) => nw.some((w) => wordMatches(q, w)));
  });
}

const key = (r: SearchRecord): string => `${r.type}\u0000${r.id}\u0000${r.name}`;

describe('search over the real snapshot', () => {
  let records: SearchRecord[];
  let engine: SearchEngine;
  let sample: SearchRecord[];

  beforeAll(() => {
    records = realRecords();
    engine = loadSearchIndex(JSON.parse(JSON.stringify(buildSearchIndex(records))));
    // a spread of records over every file: every 41st record
    sample = records.filter((_, i) => i % 41 === 0);
  });

  it('indexes every named record of the five source files', () => {
    expect(records.length).toBeGreaterThan(2000);
    expect(new Set(records.map((r) => r.type))).toEqual(new Set(['weapons', 'armor', 'materials', 'consumables', 'skills']));
    expect(engine.size).toBe(records.length);
  });

  it('finds real records by their exact name, first, with every same-named record', () => {
    for (const rec of sample) {
      const res = engine.search(rec.name, { type: 'all', limit: 200 });
      const sameName = records.filter((r) => r.name === rec.name);
      expect(res.results[0]?.name, rec.name).toBe(rec.name);
      expect(res.results.slice(0, sameName.length).map(key).sort(), rec.name).toEqual(sameName.map(key).sort());
      expect(res.totalResults).toBe(expectedMatches(records, rec.name).length);
    }
  });

  it('finds real records by their exact id, first', () => {
    for (const rec of sample) {
      const res = engine.search(rec.id, { type: 'all', limit: 5 });
      expect(res.results[0], rec.id).toEqual(rec);
    }
  });

  it('finds the records whose words start with a prefix, and no others', () => {
    for (const [i, rec] of sample.entries()) {
      const word = words(rec.name).find((w) => w.length >= 3);
      if (!word) continue;
      const prefix = word.slice(0, Math.min(word.length, 3 + (i % 3)));
      const expected = expectedMatches(records, prefix);
      const res = engine.search(prefix, { type: 'all', limit: 200 });
      expect(res.totalResults, prefix).toBe(expected.length);
      expect(expected.map(key)).toEqual(expect.arrayContaining(res.results.map(key)));
      if (expected.length <= 200) expect(res.results.map(key), prefix).toContain(key(rec));
    }
  });

  it('finds real records with one typo in their name, filtered by type', () => {
    let tried = 0;
    for (const [i, rec] of sample.entries()) {
      const ws = words(rec.name);
      const at = ws.findIndex((w) => w.length >= 5 && /^[a-z]+$/.test(w));
      if (at < 0) continue;
      const w = ws[at] as string;
      const pos = 1 + (i % (w.length - 2));
      const typo = i % 2 === 0 ? w.slice(0, pos) + w.slice(pos + 1) : w.slice(0, pos) + w[pos + 1] + w[pos] + w.slice(pos + 2);
      if (typo === w) continue;
      const query = ws.map((x, k) => (k === at ? typo : x)).join(' ');
      const expected = expectedMatches(records, query).filter((r) => r.type === rec.type);
      const res = engine.search(query, { type: rec.type, limit: 200 });
      expect(res.totalResults, query).toBe(expected.length);
      expect(res.results.every((r) => r.type === rec.type)).toBe(true);
      if (expected.length <= 200) expect(res.results.map(key), query).toContain(key(rec));
      tried++;
    }
    expect(tried).toBeGreaterThan(10);
  });
});
