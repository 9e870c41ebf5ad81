/**
 * Search records straight from catalog source files, for the benchmarks (independent of the build):
 * weapons from `master-weapons.json` `items[]`, armor from `master-armor.json` `items[]`, materials
 * from `master-materials.json` `materials[]`, consumables from `master-consumables.json` `items[]`,
 * skills from `master-weaponSkills.json` `weaponTypes[].slots[].skills[]`. Id: `uuid` (skills: `id`);
 * name: `name`. Records without a string id or name, and missing files, are skipped.
 */
// @ts-nocheck

import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { SearchRecord } from '../api/_lib/search/index.js';

type Obj = Record<string, unknown>;

function readJson(dir: string, file: string): Obj | undefined {
  const path = join(dir, file);
  if (!existsSync(path)) return undefined;
  try {
    const v: unknown = JSON.parse(readFileSync(path, 'utf8'));
    return typeof v === 'object' && v !== null ? (v as Obj) : undefined;
  } catch {
    return undefined;
  }
}

function list(v: unknown): Obj[] {
  return Array.isArray(v) ? v.filter((x): x is Obj => typeof x === 'object' && x !== null) : [];
}

/** Every search record of the five play catalogs in `srcDir` (see the module docs), in file order. */
export function extractRecords(srcDir: string): SearchRecord[] {
  const out: SearchRecord[] = [];
  const push = (type: SearchRecord['type'], items: Obj[], idField: string): void => {
    for (const x of items) {
      const id = x[idField];
      if (typeof id === 'string' && typeof x.name === 'string') out.push({ type, id, name: x.name });
    }
  };
  push('weapons', list(readJson(srcDir, 'master-weapons.json')?.items), 'uuid');
  push('armor', list(readJson(srcDir, 'master-armor.json')?.items), 'uuid');
  push('materials', list(readJson(srcDir, 'master-materials.json')?.materials), 'uuid');
  push('consumables', list(readJson(srcDir, 'master-consumables.json')?.items), 'uuid');
  for (const wt of list(readJson(srcDir, 'master-weaponSkills.json')?.weaponTypes)) {
    for (const slot of list(wt.slots)) push('skills', list(slot.skills), 'id');
  }
  return out;
}
