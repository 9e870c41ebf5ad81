/**
 * The supported Node.js versions are kept in one place, package.json's `engines.node`, and the README's
 * "Node.js" section states that very range: this test fails when the two part, and when the Node.js running
 * the tests is outside the range (so CI on a version we do not support says so).
 *
 * The range grammar is the part of npm's semver ranges the project uses: sets joined by `||`, each a
 * space-separated list of comparators `^X.Y.Z`, `~X.Y.Z`, `X.x`, `>=X.Y.Z`, `>X.Y.Z`, `<=X.Y.Z`, `<X.Y.Z`
 * (missing minor and patch are 0). Anything else fails the test, so a new form is added here on purpose.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import semver from 'semver';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../helpers/catalog.js';

/** A version as three numbers. */
type Version = readonly [number, number, number];

/** `20.19.0`, `20.19`, `v20` → [20, 19, 0]; throws on anything else. */
export function parseVersion(text: string): Version {
  const m = /^v?(\d+)(?:\.(\d+))?(?:\.(\d+))?$/.exec(text.trim());
  if (!m) throw new Error(`not a version: ${text}`);
  return [Number(m[1]), Number(m[2] ?? 0), Number(m[3] ?? 0)];
}

/** Negative, zero or positive as `a` is below, equal to or above `b`. */
function compare(a: Version, b: Version): number {
  for (let i = 0; i < 3; i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
  return 0;
}

/** One comparator as a test of a version. */
function comparator(token: string): (v: Version) => boolean {
  let m = /^\^(.+)$/.exec(token);
  if (m) {
    const low = parseVersion(m[1]!);
    return (v) => compare(v, low) >= 0 && v[0] === low[0];
  }
  m = /^~(.+)$/.exec(token);
  if (m) {
    const low = parseVersion(m[1]!);
    return (v) => compare(v, low) >= 0 && v[0] === low[0] && v[1] === low[1];
  }
  m = /^(\d+)\.x$/.exec(token);
  if (m) {
    const major = Number(m[1]);
    return (v) => v[0] === major;
  }
  m = /^(>=|>|<=|<)(.+)$/.exec(token);
  if (m) {
    const bound = parseVersion(m[2]!);
    const op = m[1];
    return (v) => {
      const c = compare(v, bound);
      return op === '>=' ? c >= 0 : op === '>' ? c > 0 : op === '<=' ? c <= 0 : c < 0;
    };
  }
  throw new Error(`a range form this test does not read: ${token}`);
}

/** True when `version` satisfies `range` (the grammar of the module header). */
export function satisfies(version: string, range: string): boolean {
  const v = parseVersion(version);
  return range.split('||').some((set) => {
    const tokens = set.trim().split(/\s+/).filter(Boolean);
    if (tokens.length === 0) throw new Error(`an empty set in ${range}`);
    return tokens.every((t) => comparator(t)(v));
  });
}

const pkg = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { engines?: { node?: string } };
const readme = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');

describe('the range reader', () => {
  it('reads the forms the project uses', () => {
    expect(satisfies('20.19.0', '^20.19.0 || ^22.13.0')).toBe(true);
    expect(satisfies('20.18.9', '^20.19.0 || ^22.13.0')).toBe(false);
    expect(satisfies('21.0.0', '^20.19.0 || ^22.13.0')).toBe(false);
    expect(satisfies('22.12.0', '^20.19.0 || ^22.13.0')).toBe(false);
    expect(satisfies('v24.3.1', '24.x')).toBe(true);
    expect(satisfies('25.0.0', '>=20.19 <25')).toBe(false);
    expect(satisfies('24.99.0', '>=20.19 <25')).toBe(true);
    expect(satisfies('20.19.5', '~20.19.0')).toBe(true);
    expect(satisfies('20.20.0', '~20.19.0')).toBe(false);
    expect(() => satisfies('20.0.0', 'lts/*')).toThrow(/does not read/);
  });
});

describe('supported Node.js versions', () => {
  const range = pkg.engines?.node;

  it('are declared in package.json', () => {
    expect(range, 'package.json engines.node').toBeTypeOf('string');
  });

  it('are stated by the README as package.json declares them', () => {
    const stated = /^Supported Node\.js versions: `([^`]+)`/m.exec(readme);
    expect(stated, 'README.md: a line "Supported Node.js versions: `<range>`"').not.toBeNull();
    expect(stated![1]).toBe(range);
  });

  it('hold the Node.js running the tests', () => {
    expect(satisfies(process.version, range!), `${process.version} is outside ${range}`).toBe(true);
  });

  it('name a major Vercel deploys (it takes the newest of 24.x, 22.x, 20.x that the range meets)', () => {
    const vercelPicks = [24, 22, 20].find((major) => [0, 50, 99].some((minor) => satisfies(`${major}.${minor}.0`, range!)));
    expect(vercelPicks).toBeDefined();
    expect(readme.replace(/\s+/g, ' ')).toContain(`Vercel deploys the newest major its runtimes offer within the range, ${vercelPicks}.x`);
  });
});

describe('a clean install', () => {
  const lock = JSON.parse(readFileSync(join(REPO_ROOT, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, { engines?: { node?: string } | string[]; os?: string[]; cpu?: string[]; optional?: boolean }>;
  };
  // the lowest release of each supported major: a package whose own range leaves it out is an EBADENGINE
  // warning of `npm install` there (npm reads engines with semver, as here)
  const floors = (pkg.engines?.node ?? '').split('||').map((set) => semver.minVersion(set.trim())!.version);

  it('holds no locked package whose engines leave out a supported version (npm install prints no EBADENGINE)', () => {
    expect(floors.length).toBeGreaterThan(0);
    const outside: string[] = [];
    for (const [path, entry] of Object.entries(lock.packages)) {
      const node = !Array.isArray(entry.engines) ? entry.engines?.node : undefined;
      // platform binaries of other systems are never installed here
      if (!path || node === undefined || (entry.optional && (entry.os || entry.cpu))) continue;
      for (const v of floors)
        if (!semver.satisfies(v, node)) outside.push(`${path.replace(/^.*node_modules\//, '')} (${node}) leaves out ${v}`);
    }
    expect(outside).toEqual([]);
  });
});
