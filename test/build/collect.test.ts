/**
 * Stage 1, collect (build/pipeline/collect.ts, docs/architecture.md "Build"): which files a build
 * reads (every `*.json` below the source folder, sorted, posix paths, the config file skipped) and
 * what a content author is told about a file that cannot be read as JSON: invalid UTF-8 and a
 * byte-order mark (`json/encoding`), a syntax error with its offset and kind (`json/syntax`), and every
 * repeated key with its pointer and offset (`json/duplicate-key`), nested in objects and arrays.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { collect, listJsonFiles } from '../../build/pipeline/collect.js';
import type { IssueInput } from '../../build/pipeline/types.js';

const dirs: string[] = [];
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

/** A temp source folder holding `files` (path → text or bytes). */
async function folder(files: Record<string, string | Buffer>): Promise<string> {
  const root = await mkdtemp(join(tmpdir(), 'collect-'));
  dirs.push(root);
  for (const [name, body] of Object.entries(files)) {
    await mkdir(join(root, name, '..'), { recursive: true });
    await writeFile(join(root, name), body);
  }
  return root;
}

/** Collect one file and return its document and the problems reported. */
async function one(text: string | Buffer): Promise<{ data: unknown; text: string; issues: IssueInput[] }> {
  const src = await folder({ 'f.json': text });
  const issues: IssueInput[] = [];
  const docs = await collect({ src, skip: new Set() }, (i) => issues.push(i));
  const doc = docs.get('f.json')!;
  return { data: doc.data, text: doc.text, issues };
}

describe('listJsonFiles', () => {
  it('lists every .json file below the folder, relative with / separators, sorted; nothing else', async () => {
    const src = await folder({
      'b.json': '{}',
      'zz.json': '{}',
      'm.json': '{}',
      'a.json': '{}',
      'c-.json': '{}',
      'sub/deeper/c.json': '{}',
      'sub/A.json': '{}',
      'notes.txt': 'x',
      'x.json.bak': '{}',
    });
    await mkdir(join(src, 'dir.json'));
    expect(await listJsonFiles(src)).toEqual(['a.json', 'b.json', 'c-.json', 'm.json', 'sub/A.json', 'sub/deeper/c.json', 'zz.json']);
  });
});

describe('collect', () => {
  it('parses every file but the skipped ones, keeping the exact text', async () => {
    const src = await folder({ 'a.json': '{ "x": 1 }', 'catalog.config.json': '{}', 'sub/b.json': '[1]' });
    const issues: IssueInput[] = [];
    const docs = await collect({ src, skip: new Set(['catalog.config.json']) }, (i) => issues.push(i));
    expect([...docs.keys()]).toEqual(['a.json', 'sub/b.json']);
    expect(docs.get('a.json')).toEqual({ path: 'a.json', text: '{ "x": 1 }', data: { x: 1 } });
    expect(docs.get('sub/b.json')?.data).toEqual([1]);
    expect(issues).toEqual([]);
  });

  it('reports invalid UTF-8 and keeps the file unparsed', async () => {
    const r = await one(Buffer.from([0x7b, 0x22, 0xff, 0x22, 0x3a, 0x31, 0x7d]));
    expect(r.data).toBeUndefined();
    expect(r.text).toBe('{"ÿ":1}');
    expect(r.issues).toHaveLength(1);
    expect(r.issues[0]).toMatchObject({ rule: 'json/encoding', file: 'f.json', pointer: '' });
    expect(r.issues[0]!.message).toMatch(/UTF-8/);
  });

  it('reports a byte-order mark at offset 0 and still parses the rest', async () => {
    const r = await one('\uFEFF{"a": 1}');
    expect(r.data).toEqual({ a: 1 });
    expect(r.text).toBe('{"a": 1}');
    expect(r.issues).toEqual([expect.objectContaining({ rule: 'json/encoding', file: 'f.json', pointer: '', offset: 0 })]);
    expect(r.issues[0]!.message).toMatch(/byte-order mark/);
  });

  it('reports a syntax error once, at the offset of the first error and naming its kind', async () => {
    const r = await one('{\n  "a": 1,\n  "b": \n}');
    expect(r.data).toBeUndefined();
    expect(r.issues).toHaveLength(1);
    expect(r.issues[0]).toMatchObject({ rule: 'json/syntax', file: 'f.json', pointer: '', offset: 20 });
    expect(r.issues[0]!.message).toBe('JSON syntax error: ValueExpected.');
  });

  it('refuses comments, trailing commas and an empty file', async () => {
    const comment = await one('{ // c\n "a": 1 }');
    expect(comment.issues[0]).toMatchObject({ rule: 'json/syntax', offset: 2 });
    expect(comment.issues[0]!.message).toMatch(/InvalidCommentToken/);
    const trailing = await one('{ "a": 1, }');
    expect(trailing.issues[0]).toMatchObject({ rule: 'json/syntax', offset: 10 });
    const empty = await one('');
    expect(empty.data).toBeUndefined();
    expect(empty.issues[0]).toMatchObject({ rule: 'json/syntax', offset: 0 });
    expect(empty.issues[0]!.message).toMatch(/^JSON syntax error: \w+\.$/);
  });

  it('names a JSON.parse failure that the tolerant parser accepts without a position', async () => {
    const r = await one('{"a": 1} {"b": 2}');
    expect(r.issues).toHaveLength(1);
    expect(r.issues[0]).toMatchObject({ rule: 'json/syntax', offset: 9 });
    const lone = await one('"\u0001"');
    expect(lone.data).toBeUndefined();
    expect(lone.issues[0]).toMatchObject({ rule: 'json/syntax' });
    expect(lone.issues[0]!.message).toMatch(/^JSON syntax error/);
  });
});

describe('duplicate keys', () => {
  it('reports each repeat with the pointer of the key and its offset', async () => {
    const text = '{"k": 1, "k": 2, "o": {"x": 1, "y": 2, "x": 3}}';
    const r = await one(text);
    expect(r.data).toEqual({ k: 2, o: { x: 3, y: 2 } });
    expect(r.issues.map((i) => [i.rule, i.pointer, i.offset])).toEqual([
      ['json/duplicate-key', '/k', text.indexOf('"k"', 2)],
      ['json/duplicate-key', '/o/x', text.lastIndexOf('"x"')],
    ]);
    expect(r.issues[0]!.message).toContain('"k"');
    expect(r.issues[0]!.file).toBe('f.json');
  });

  it('counts array positions over values, objects and arrays, and escapes pointer segments', async () => {
    const text = JSON.stringify({ 'a/b': [1, 'two', [3], { c: 0 }, null, { 'd~': 1 }] }).replace('{"d~":1}', '{"d~":1,"d~":2}');
    const r = await one(text);
    expect(r.issues.map((i) => i.pointer)).toEqual(['/a~1b/5/d~0']);
  });

  it('tells repeated keys in sibling objects apart from real repeats', async () => {
    const r = await one('[{"a": 1}, {"a": 2}, {"b": {"a": 1}, "a": 3}]');
    expect(r.issues).toEqual([]);
    const nested = await one('{"x": [{"a": 1, "a": 1}], "y": {"z": {"q": 1, "q": 2}}}');
    expect(nested.issues.map((i) => i.pointer)).toEqual(['/x/0/a', '/y/z/q']);
  });

  it('is not fooled by strings that look like keys or contain escaped quotes', async () => {
    const r = await one('{"a": "x\\": 1", "b": ["c", "d"], "e": "f:"}');
    expect(r.issues).toEqual([]);
    const dup = await one('{"q\\"": ":", "q\\"": 1}');
    expect(dup.issues.map((i) => i.pointer)).toEqual(['/q"']);
  });

  it('finds a repeat whatever the other keys look like (short, long, empty, spaced, in arrays)', async () => {
    const cases: [string, string][] = [
      ['{"k":1,"k":2,"long":3}', '/k'],
      ['{"k" : 1, "k" : 2, "a": 3}', '/k'],
      ['{"k":1,"k":2,"a" :3}', '/k'],
      ['{"":1,"":2,"ab":3}', '/'],
      ['[{"k":1,"k":2}]', '/0/k'],
    ];
    for (const [text, pointer] of cases) {
      const r = await one(text);
      expect(
        r.issues.map((i) => `${i.rule} ${i.pointer}`),
        text,
      ).toEqual([`json/duplicate-key ${pointer}`]);
    }
  });

  it('reads a file that holds a single scalar, which has no keys to repeat', async () => {
    for (const text of ['42', '"text"', 'null', 'true']) {
      const r = await one(text);
      expect(r.data, text).toEqual(JSON.parse(text));
      expect(r.issues, text).toEqual([]);
    }
  });

  it('reports the same way in each of several files read by one build', async () => {
    const src = await folder({ 'a.json': '{"k": 1, "k": 2}', 'b.json': '{"m": {"k": 1}, "k": 2, "k": 3}' });
    const issues: IssueInput[] = [];
    await collect({ src, skip: new Set() }, (i) => issues.push(i));
    expect(issues.map((i) => `${i.file}${i.pointer}`)).toEqual(['a.json/k', 'b.json/k']);
  });
});
