/**
 * The table of who writes player state in docs/architecture.md ("Who writes player state") is the one
 * `api/_lib/player/authority.ts` enforces (spec 1.8, 2.8, 2.9): every field of the island and of progress
 * is in one row whose writer is the code's, and the refusal names the field and who writes it.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkAuthority, ISLAND_AUTHORITY, PROGRESS_AUTHORITY, type Writer } from '../../api/_lib/player/authority.js';
import type { ServiceError } from '../../api/_lib/errors.js';

const ROOT = join(import.meta.dirname, '..', '..');
const WORDS: Readonly<Record<string, Writer>> = { player: 'player', 'game server': 'game-server', service: 'service' };

/** The table's rows: the state cell's words and field names, and the writer. */
function rows(): { state: string; fields: string[]; writer: string }[] {
  const doc = readFileSync(join(ROOT, 'docs', 'architecture.md'), 'utf8');
  const section = doc.slice(doc.indexOf('#### Who writes player state'));
  const table = section.slice(0, section.indexOf('\n\n', section.indexOf('| state')));
  return table
    .split('\n')
    .filter((l) => l.startsWith('| ') && !l.startsWith('| state') && !l.startsWith('| ---'))
    .map((l) => {
      const [state, writer] = l
        .split('|')
        .slice(1, 3)
        .map((c) => c.trim()) as [string, string];
      return { state, fields: [...state.matchAll(/`([a-zA-Z_]+)`/g)].map((m) => m[1]!), writer };
    });
}

describe('who writes player state', () => {
  it('documents every island and progress field once, with the writer the code enforces', () => {
    const table = rows();
    for (const [prefix, authority] of [
      ['island', ISLAND_AUTHORITY],
      ['progress', PROGRESS_AUTHORITY],
    ] as const) {
      for (const [field, rule] of Object.entries(authority)) {
        const hits = table.filter((r) => r.state.startsWith(prefix) && r.fields.includes(field));
        expect(hits, `${prefix} ${field}`).toHaveLength(1);
        expect(WORDS[hits[0]!.writer], `${prefix} ${field}`).toBe(rule.writer);
      }
      const documented = table.filter((r) => r.state.startsWith(prefix)).flatMap((r) => r.fields);
      expect(documented.sort()).toEqual(Object.keys(authority).sort());
    }
  });

  it('refuses what the actor may not write, naming each field and who writes it, and lets the rest through', () => {
    const refusal = (fields: string[], actor: 'player' | 'game-server') => {
      try {
        checkAuthority(PROGRESS_AUTHORITY, fields, actor, '/progress');
        return undefined;
      } catch (e) {
        return e as ServiceError;
      }
    };
    expect(refusal(['skill_loadouts'], 'player')).toBeUndefined();
    expect(refusal(['attributes', 'equipment_on_body', 'skill_loadouts'], 'game-server')).toBeUndefined();
    const e = refusal(['skill_loadouts', 'attributes', 'weapon_mastery'], 'player')!;
    expect([e.code, e.errors.map((p) => p.name)]).toEqual(['FORBIDDEN', ['/progress/attributes', '/progress/weapon_mastery']]);
    expect(e.errors[0]!.message).toBe('"attributes" is progression a game server writes: only a game server writes it.');
    expect(e.message).toBe('This player token may not write /progress/attributes, /progress/weapon_mastery; it may write skill_loadouts.');
    const island = (() => {
      try {
        checkAuthority(ISLAND_AUTHORITY, ['rtsExport', 'nodes'], 'game-server');
        return undefined;
      } catch (x) {
        return x as ServiceError;
      }
    })()!;
    expect(island.errors.map((p) => [p.name, p.message])).toEqual([
      ['/rtsExport', '"rtsExport" is derived by POST /api/island/export-from-rts, with its hash: no request writes it.'],
    ]);
    expect(island.message).toBe(
      'This game server may not write /rtsExport; it may write campPosition, clearings, nodes, animals, regrowRegions, stats.',
    );
  });

  it('says of every field what it is and where it comes from, in the words of its refusal', () => {
    for (const [table, prefix] of [
      [ISLAND_AUTHORITY, ''],
      [PROGRESS_AUTHORITY, '/progress'],
    ] as const) {
      for (const [field, rule] of Object.entries(table)) {
        // the words finish "<field> …: who writes it." (a phrase of its own, never empty)
        expect(rule.why, field).toMatch(/^is [a-z].{8,}[a-z]$/);
        if (rule.writer === 'player') continue;
        try {
          checkAuthority(table, [field], 'player', prefix);
          expect.unreachable(field);
        } catch (e) {
          expect((e as ServiceError).errors[0]!.message).toBe(
            `"${field}" ${rule.why}: ${rule.writer === 'service' ? 'no request writes it' : 'only a game server writes it'}.`,
          );
        }
      }
    }
  });
});
