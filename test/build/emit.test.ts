/**
 * Stage 5, emit (build/pipeline/emit.ts, docs/architecture.md "Build"): serialisation of emitted
 * values (raw strings as-is, JSON compact), the manifest's file table (bytes and SHA-256 per file,
 * sorted by path in code units) and the build id over it, where the staging folder and the report
 * file go, writing every file under a fresh staging folder, and the atomic swap that keeps the
 * previous output when the new one cannot be moved in.
 */
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  fileTable,
  reportFileFor,
  serialise,
  sha256,
  stagingDirFor,
  swapInto,
  writeAll,
  type OutputFile,
} from '../../build/pipeline/emit.js';

const dirs: string[] = [];
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

async function tempRoot(): Promise<string> {
  const d = await mkdtemp(join(tmpdir(), 'emit-'));
  dirs.push(d);
  return d;
}

const file = (path: string, text: string): OutputFile => ({ path, bytes: Buffer.from(text, 'utf8') });

/** Every file under `dir` → its text. */
async function tree(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const e of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (e.isFile()) out[join(e.parentPath, e.name).slice(dir.length + 1)] = await readFile(join(e.parentPath, e.name), 'utf8');
  }
  return out;
}

describe('serialise', () => {
  it('writes a raw string as-is and anything else as compact JSON, in UTF-8', () => {
    expect(serialise({ path: 'a.txt', body: 'x,y\n', raw: true })).toEqual({ path: 'a.txt', bytes: Buffer.from('x,y\n') });
    expect(serialise({ path: 'a.json', body: 'x' }).bytes.toString()).toBe('"x"');
    expect(serialise({ path: 'a.json', body: { a: [1, 'é'] } }).bytes.toString('utf8')).toBe('{"a":[1,"é"]}');
    expect(serialise({ path: 'a.json', body: { a: 1 }, raw: true }).bytes.toString()).toBe('{"a":1}');
    expect(serialise({ path: 'é.json', body: 'é', raw: true }).bytes).toHaveLength(2);
  });
});

describe('fileTable', () => {
  it('lists path, byte length and SHA-256 per file, sorted by path in code units', () => {
    const t = fileTable([file('b.json', 'bb'), file('a/z.json', 'é'), file('B.json', ''), file('a.json', '1')]);
    expect(t.files.map((f) => f.path)).toEqual(['B.json', 'a.json', 'a/z.json', 'b.json']);
    expect(t.files[2]).toEqual({ path: 'a/z.json', bytes: 2, sha256: createHash('sha256').update('é').digest('hex') });
    expect(t.files[0]!.sha256).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
  });

  it('derives the build id from path NUL sha256 LF of every file, first 20 hex digits', () => {
    const t = fileTable([file('b', '2'), file('a', '1')]);
    const h = (s: string): string => createHash('sha256').update(s).digest('hex');
    expect(t.buildId).toBe(h(`a\0${h('1')}\nb\0${h('2')}\n`).slice(0, 20));
    expect(t.buildId).toMatch(/^[0-9a-f]{20}$/);
    expect(fileTable([file('a', '1'), file('b', '2')]).buildId).toBe(t.buildId);
    expect(fileTable([file('a', '1'), file('b', '3')]).buildId).not.toBe(t.buildId);
    expect(fileTable([]).buildId).toBe(h('').slice(0, 20));
  });

  it('sha256 hashes strings and bytes alike', () => {
    expect(sha256('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    expect(sha256(Buffer.from('abc'))).toBe(sha256('abc'));
  });
});

describe('where output goes', () => {
  it('puts the report beside the output folder and the staging folder in the same parent', () => {
    expect(reportFileFor('/x/dist')).toBe('/x/dist-report.json');
    const staging = stagingDirFor('/x/y/dist');
    expect(dirname(staging)).toBe('/x/y');
    expect(basename(staging)).toBe(`.dist.staging-${process.pid}`);
  });
});

describe('writeAll', () => {
  it('writes every file under a fresh staging folder, creating nested folders', async () => {
    const root = await tempRoot();
    const staging = join(root, 'stage');
    await mkdir(staging);
    await writeFile(join(staging, 'stale.json'), 'old');
    const files = Array.from({ length: 7 }, (_, i) => file(`d${i % 3}/sub/f${i}.json`, `"${i}"`));
    await writeAll(staging, [...files, file('top.json', '{}')], 2);
    const written = await tree(staging);
    expect(Object.keys(written).sort()).toEqual([...files.map((f) => f.path), 'top.json'].sort());
    for (const f of files) expect(written[f.path]).toBe(f.bytes.toString());
  });

  it('writes all files with the default parallelism and with one writer', async () => {
    const root = await tempRoot();
    const many = Array.from({ length: 40 }, (_, i) => file(`f${i}.json`, String(i)));
    await writeAll(join(root, 'a'), many);
    expect(Object.keys(await tree(join(root, 'a')))).toHaveLength(40);
    await writeAll(join(root, 'b'), many, 1);
    expect(await tree(join(root, 'b'))).toEqual(await tree(join(root, 'a')));
  });
});

describe('swapInto', () => {
  it('moves staging into place when there is no previous output', async () => {
    const root = await tempRoot();
    await writeAll(join(root, 'stage'), [file('a.json', '1')]);
    await swapInto(join(root, 'stage'), join(root, 'dist'));
    expect(await tree(join(root, 'dist'))).toEqual({ 'a.json': '1' });
    expect((await readdir(root)).sort()).toEqual(['dist']);
  });

  it('replaces the previous output whole and removes it', async () => {
    const root = await tempRoot();
    await writeAll(join(root, 'dist'), [file('old.json', 'old')]);
    await writeAll(join(root, `.dist.old-${process.pid}`), [file('leftover.json', 'x')]);
    await writeAll(join(root, 'stage'), [file('new.json', 'new')]);
    await swapInto(join(root, 'stage'), join(root, 'dist'));
    expect(await tree(join(root, 'dist'))).toEqual({ 'new.json': 'new' });
    expect((await readdir(root)).sort()).toEqual(['dist']);
  });

  it('puts the previous output back when the new one cannot be moved in', async () => {
    const root = await tempRoot();
    await writeAll(join(root, 'dist'), [file('old.json', 'old')]);
    await expect(swapInto(join(root, 'missing-stage'), join(root, 'dist'))).rejects.toMatchObject({ code: 'ENOENT' });
    expect(await tree(join(root, 'dist'))).toEqual({ 'old.json': 'old' });
    expect((await readdir(root)).sort()).toEqual(['dist']);
  });

  it('fails without output when neither exists', async () => {
    const root = await tempRoot();
    await expect(swapInto(join(root, 'missing-stage'), join(root, 'dist'))).rejects.toMatchObject({ code: 'ENOENT' });
    expect(await readdir(root)).toEqual([]);
  });

  it('reports why staging could not be moved in when there was no previous output', async () => {
    const root = await tempRoot();
    await writeAll(join(root, 'stage'), [file('a.json', '1')]);
    // a folder cannot be moved into itself
    await expect(swapInto(join(root, 'stage'), join(root, 'stage', 'dist'))).rejects.toMatchObject({ code: 'EINVAL' });
    expect(await tree(join(root, 'stage'))).toEqual({ 'a.json': '1' });
  });

  it('stops, leaving staging in place, when the previous output cannot be moved away', async () => {
    const root = await tempRoot();
    await writeFile(join(root, 'plain-file'), 'x');
    await writeAll(join(root, 'stage'), [file('new.json', 'n')]);
    await expect(swapInto(join(root, 'stage'), join(root, 'plain-file', 'dist'))).rejects.toMatchObject({ code: 'ENOTDIR' });
    expect(await tree(join(root, 'stage'))).toEqual({ 'new.json': 'n' });
  });
});
