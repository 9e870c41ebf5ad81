// The static site page: buildSite() into an existing output folder, schemas copied with their folder
// structure, deterministic output; and the page's pure helpers.
import { mkdtemp, mkdir, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildSite } from '../../build/site.js';
import { FEATURED_FILES, exportUrl, problemMessage, publishedFeaturedFiles, searchSummary, statsRows } from '../../site/catalog-page.js';

const repo = resolve(import.meta.dirname, '../..');

async function listFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((e) => e.isFile())
    .map((e) => relative(dir, join(e.parentPath, e.name)).split('\\').join('/'))
    .sort();
}

let outA: string;
let outB: string;

beforeAll(async () => {
  outA = await mkdtemp(join(tmpdir(), 'site-a-'));
  outB = await mkdtemp(join(tmpdir(), 'site-b-'));
  await mkdir(join(outA, 'api/v1'), { recursive: true });
  await writeFile(join(outA, 'api/v1/keep.json'), '{"kept":true}');
  await buildSite(outA);
  await buildSite(outB);
});
afterAll(async () => {
  await rm(outA, { recursive: true, force: true });
  await rm(outB, { recursive: true, force: true });
});

describe('buildSite', () => {
  it('writes the page and its script without removing what the output folder held', async () => {
    const html = await readFile(join(outA, 'index.html'), 'utf8');
    const script = /<script type="module"[^>]*src="\/(assets\/[^"]+\.js)"/.exec(html)?.[1];
    expect(script).toBeTruthy();
    expect((await readFile(join(outA, script!), 'utf8')).length).toBeGreaterThan(0);
    expect(await readFile(join(outA, 'api/v1/keep.json'), 'utf8')).toBe('{"kept":true}');
  });

  it('copies every schema to /schemas/ with its folder structure, unchanged', async () => {
    const source = (await listFiles(join(repo, 'schemas'))).filter((f) => f.endsWith('.json'));
    expect(source).toContain('responses/search.schema.json');
    expect(await listFiles(join(outA, 'schemas'))).toEqual(source);
    for (const f of ['responses/search.schema.json', 'responses/export.schema.json']) {
      expect(await readFile(join(outA, 'schemas', f), 'utf8')).toBe(await readFile(join(repo, 'schemas', f), 'utf8'));
    }
  });

  it('copies every file of public/ to the output root as it is, and both pages name the favicon', async () => {
    const files = await listFiles(join(repo, 'public'));
    expect(files).toEqual(expect.arrayContaining(['favicon.svg', 'robots.txt']));
    for (const f of files) expect(await readFile(join(outA, f)), f).toEqual(await readFile(join(repo, 'public', f)));
    for (const page of ['index.html', 'docs/index.html']) {
      expect(await readFile(join(outA, page), 'utf8'), page).toContain('<link rel="icon" href="/favicon.svg"');
    }
  });

  it('gives byte-identical output for the same sources', async () => {
    const a = (await listFiles(outA)).filter((f) => f !== 'api/v1/keep.json');
    expect(await listFiles(outB)).toEqual(a);
    // Buffer#equals, not a deep equality: the API reference's 4 MB bundle takes a minute to compare byte by byte
    const differ: string[] = [];
    for (const f of a) if (!(await readFile(join(outB, f))).equals(await readFile(join(outA, f)))) differ.push(f);
    expect(differ).toEqual([]);
  });
});

describe('page helpers', () => {
  it('builds export URLs', () => {
    expect(exportUrl('armor', 'json')).toBe('/api/export?type=armor');
    expect(exportUrl('armor', 'csv')).toBe('/api/export?type=armor&format=csv');
  });

  it('shows the problem detail of a failed call, else the status', () => {
    expect(problemMessage(400, { detail: '"q" is required.' })).toBe('"q" is required.');
    expect(problemMessage(502, null)).toBe('The service answered 502.');
    expect(
      problemMessage(400, {
        detail: '1 invalid query parameter(s): q.',
        errors: [{ name: 'q', message: '"q" must be at most 200 characters.' }],
      }),
    ).toBe('1 invalid query parameter(s): q. "q" must be at most 200 characters.');
  });

  it('links only the featured files the manifest lists, the manifest always', () => {
    const manifest = { files: [{ path: 'api/v1/master-items.json' }, { path: 'api/v1/master-relics.json' }] };
    expect(publishedFeaturedFiles(manifest)).toEqual(['game-data-manifest.json', 'master-items.json', 'master-relics.json']);
    expect(publishedFeaturedFiles(null)).toEqual([...FEATURED_FILES]);
  });

  it('summarises search answers', () => {
    const hit = { type: 'weapons' as const, id: 'I', name: 'N' };
    expect(searchSummary({ query: 'x', type: 'all', totalResults: 0, results: [] })).toBe('No results for "x".');
    expect(searchSummary({ query: 'x', type: 'weapons', totalResults: 1, results: [hit] })).toBe('1 result for "x" in weapons.');
    expect(searchSummary({ query: 'x', type: 'all', totalResults: 3, results: [hit] })).toBe('Showing 1 of 3 results for "x".');
  });

  it('reads the totals of a stats body, sorted, numbers only', () => {
    expect(statsRows({ catalog: 'c', totals: { b: 2, a: 1, bad: 'x' } })).toEqual([
      ['a', 1],
      ['b', 2],
    ]);
    expect(statsRows({ weapons: 3 })).toEqual([['weapons', 3]]);
    expect(statsRows(null)).toEqual([]);
  });
});
