/**
 * Stage 1, collect: read every `*.json` file under the source folder, in sorted
 * order, and parse it. I/O happens here and in emit only.
 *
 * Problems: `json/encoding` (byte-order mark or invalid UTF-8), `json/syntax` (with the offset of the
 * first error), `json/duplicate-key` (located by a second, position-keeping pass over every file that
 * parsed: `JSON.parse` keeps the last of duplicate keys silently, and the pass costs about 10 ms per MB).
 */
import { readdir, readFile } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { parse as parseJsonc, printParseErrorCode, visit, type ParseError } from 'jsonc-parser';
import { escapePointer as esc } from '../../api/_lib/util/json.js';
import type { Reporter, SourceDoc } from './types.js';

/** Options of {@link collect}. */
export interface CollectOptions {
  /** Source folder (absolute). */
  readonly src: string;
  /** Paths relative to `src` to skip (the catalog config file). */
  readonly skip: ReadonlySet<string>;
}

/** List every `.json` file under `dir`, relative, posix separators, sorted by code point. */
export async function listJsonFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  for (const e of entries) {
    if (!e.isFile() || !e.name.endsWith('.json')) continue;
    const parent = e.parentPath;
    out.push(relative(dir, join(parent, e.name)).split(sep).join('/'));
  }
  return out.sort();
}

// ignoreBOM keeps a leading byte-order mark in the text, so that it can be reported (rule json/encoding)
const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * Read and parse every catalog file.
 * @returns parsed documents by path (files that fail to parse are present with `data: undefined`).
 */
export async function collect(options: CollectOptions, report: Reporter): Promise<Map<string, SourceDoc>> {
  const files = (await listJsonFiles(options.src)).filter((f) => !options.skip.has(f));
  const docs = new Map<string, SourceDoc>();
  const texts = await Promise.all(files.map((f) => readFile(join(options.src, f))));
  files.forEach((path, i) => {
    const bytes = texts[i]!;
    let text: string;
    try {
      text = decoder.decode(bytes);
    } catch {
      report({ rule: 'json/encoding', file: path, pointer: '', message: 'File is not valid UTF-8; save it as UTF-8.' });
      docs.set(path, { path, text: bytes.toString('latin1'), data: undefined });
      return;
    }
    if (text.charCodeAt(0) === 0xfeff) {
      report({
        rule: 'json/encoding',
        file: path,
        pointer: '',
        offset: 0,
        message: 'File starts with a byte-order mark; save it as UTF-8 without BOM.',
      });
      text = text.slice(1);
    }
    docs.set(path, { path, text, data: parseDoc(path, text, report) });
  });
  return docs;
}

function parseDoc(path: string, text: string, report: Reporter): unknown {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    const errors: ParseError[] = [];
    parseJsonc(text, errors, { disallowComments: true, allowTrailingComma: false, allowEmptyContent: false });
    const first = errors[0];
    report({
      rule: 'json/syntax',
      file: path,
      pointer: '',
      offset: first?.offset ?? 0,
      message: first ? `JSON syntax error: ${printParseErrorCode(first.error)}.` : 'JSON syntax error.',
    });
    return undefined;
  }
  reportDuplicateKeys(path, text, report);
  return data;
}

function reportDuplicateKeys(path: string, text: string, report: Reporter): void {
  interface Frame {
    readonly kind: 'o' | 'a';
    readonly ptr: string;
    readonly keys: Set<string>;
    key: string;
    index: number;
  }
  const frames: Frame[] = [];
  const childPointer = (): string => {
    const parent = frames[frames.length - 1];
    if (!parent) return '';
    return parent.kind === 'o' ? `${parent.ptr}/${esc(parent.key)}` : `${parent.ptr}/${parent.index++}`;
  };
  const enter = (kind: 'o' | 'a'): void => {
    frames.push({ kind, ptr: childPointer(), keys: new Set(), key: '', index: 0 });
  };
  const leave = (): void => {
    frames.pop();
  };
  visit(text, {
    onObjectBegin: () => enter('o'),
    onObjectEnd: leave,
    onArrayBegin: () => enter('a'),
    onArrayEnd: leave,
    onObjectProperty: (name, offset) => {
      // a property is always inside an object, so a frame is open
      const top = frames[frames.length - 1]!;
      if (top.keys.has(name)) {
        report({
          rule: 'json/duplicate-key',
          file: path,
          pointer: `${top.ptr}/${esc(name)}`,
          offset,
          message: `Key "${name}" appears more than once in this object; JSON.parse keeps only the last value. Remove or rename the duplicate.`,
        });
      }
      top.keys.add(name);
      top.key = name;
    },
    onLiteralValue: () => {
      // the next array item's index (an object frame counts too and never reads it); none for a top-level scalar
      const top = frames[frames.length - 1];
      if (top) top.index++;
    },
  });
}
