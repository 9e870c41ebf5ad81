/**
 * The README's facts that the code also states: its role table ("Who may do what") against the route table's
 * access levels (`api/_lib/routing/table.ts`) and the guards' roles (`api/_lib/auth/guard.ts`), and its count
 * of the operations each access level guards. When a route is added or its access changes, this test names
 * the row of the README to change. The README stays a landing page: at most 250 lines.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { GAME_SERVER_ROLES, SUPPORT_ROLES } from '../../api/_lib/auth/guard.js';
import { ROLES, type Role } from '../../api/_lib/auth/tokens.js';
import { ACCESS, ROUTES, accessOf, type Access } from '../../api/_lib/routing/table.js';
import { REPO_ROOT } from '../helpers/catalog.js';

const readme = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');

/** The rows of the Markdown table whose header row starts with `| <first> `, as cells. */
function tableRows(markdown: string, first: string): string[][] {
  const lines = markdown.split('\n');
  const start = lines.findIndex((l) => new RegExp(`^\\|\\s*${first}\\s*\\|`).test(l));
  expect(start, `a table headed "${first}"`).toBeGreaterThanOrEqual(0);
  const rows: string[][] = [];
  for (let i = start + 2; i < lines.length && lines[i]!.startsWith('|'); i++) {
    rows.push(
      lines[i]!.split('|')
        .slice(1, -1)
        .map((c) => c.trim()),
    );
  }
  return rows;
}

/** The backticked names of a cell. */
const names = (cell: string): string[] => [...cell.matchAll(/`([^`]+)`/g)].map((m) => m[1]!);

/** The access levels a token of `role` passes (not a guest): the guards' role lists. */
function accessOfRole(role: Role): Set<Access> {
  const admin = SUPPORT_ROLES.filter((r) => GAME_SERVER_ROLES.includes(r));
  const out = new Set<Access>(['public', 'player', 'player-or-game-server']);
  if (GAME_SERVER_ROLES.includes(role)) out.add('game-server');
  if (SUPPORT_ROLES.includes(role)) out.add('support');
  if (admin.includes(role)) out.add('admin');
  return out;
}

describe('README.md', () => {
  it('is a landing page of at most 250 lines', () => {
    expect(readme.split('\n').length).toBeLessThanOrEqual(250);
  });

  it('counts the operations each access level of the route table guards', () => {
    const counted = new Map<Access, number>();
    for (const route of ROUTES) {
      if (route.gone) continue;
      for (const method of route.methods) counted.set(accessOf(route, method), (counted.get(accessOf(route, method)) ?? 0) + 1);
    }
    const rows = tableRows(readme, 'access');
    const stated = new Map(rows.map((r) => [names(r[0]!)[0] as Access, Number(r[1])]));
    expect([...stated.keys()].sort()).toEqual([...ACCESS].sort());
    for (const access of ACCESS)
      expect(stated.get(access), `README "Who may do what": operations of \`${access}\``).toBe(counted.get(access) ?? 0);
  });

  it('says which access levels each role passes, as the guards admit them', () => {
    const rows = tableRows(readme, 'caller');
    const seen = new Set<Role>();
    for (const [caller, credential, passes] of rows) {
      const roles = names(credential!).filter((n): n is Role => (ROLES as readonly string[]).includes(n));
      const levels = new Set(names(passes!));
      for (const level of levels) expect(ACCESS as readonly string[], `${caller}: ${level}`).toContain(level);
      for (const role of roles) {
        seen.add(role);
        expect([...levels].sort(), `README "Who may do what", ${caller}: what a ${role} token passes`).toEqual(
          [...accessOfRole(role)].sort(),
        );
      }
    }
    expect([...seen].sort(), 'every role of a token has its row').toEqual([...ROLES].sort());
    const byCaller = new Map(rows.map((r) => [r[0]!, new Set(names(r[2]!))]));
    expect(byCaller.get('anyone')).toEqual(new Set(['public']));
    expect(byCaller.get('Vercel Cron')).toEqual(new Set(['cron']));
    // the admin password passes what an admin token passes, but not what needs the caller's own account
    const password = byCaller.get('admin password');
    expect(password).toEqual(new Set([...accessOfRole('admin')].filter((a) => a !== 'player')));
  });
});
