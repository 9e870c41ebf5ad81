/**
 * Positions for problems: JSON pointer → 1-based line and column in the source text (
 * every problem names file, pointer and line). Trees are built lazily with `jsonc-parser` (a well-kept
 * parser that keeps offsets), only for files that have problems, and cached per file.
 */
// @ts-nocheck

import { parseTree, type Node } from 'jsonc-parser';
import { pointerSegments } from '../../api/_lib/util/json.js';

/** 1-based line/column of an offset in `text`; `lineStarts` from {@link lineStartsOf}. */
function positionAt(lineStarts: readonly number[], offset: number): { line: number; column: number } {
  let lo = 0;
  let hi = lineStarts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (lineStarts[mid]! <= offset) lo = mid;
    else hi = mid - 1;
  }
  return { line: lo + 1, column: offset - lineStarts[lo]! + 1 };
}

/** Offsets where each line of `text` starts (LF, CRLF and CR line ends). */
function lineStartsOf(text: string): number[] {
  const starts = [0];
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 10) starts.push(i + 1);
    else if (c === 13) {
      if (text.charCodeAt(i + 1) === 10) i++;
      starts.push(i + 1);
    }
  }
  return starts;
}

/** Locates pointers in one file's text. */
export class Locator {
  private tree: Node | undefined | null = null;
  private starts: number[] | null = null;

  constructor(private readonly text: string) {}

  /** Line/column of an offset. */
  at(offset: number): { line: number; column: number } {
    this.starts ??= lineStartsOf(this.text);
    return positionAt(this.starts, offset);
  }

  /**
   * Line/column of the value at `pointer`; for a property, the position of its key. When the pointer
   * does not exist (a missing field), the nearest existing ancestor's position. Line 1 column 1 when
   * the text does not parse at all.
   */
  locate(pointer: string): { line: number; column: number } {
    if (this.tree === null) this.tree = parseTree(this.text, [], { disallowComments: true, allowTrailingComma: false });
    let node = this.tree;
    if (!node) return { line: 1, column: 1 };
    let offset = node.offset;
    for (const seg of pointerSegments(pointer)) {
      let next: Node | undefined;
      if (node.type === 'object') {
        // last duplicate wins, as in JSON.parse
        for (const prop of node.children ?? []) if (prop.children?.[0]?.value === seg) next = prop;
        if (next) {
          offset = next.offset;
          next = next.children?.[1];
        }
      } else if (node.type === 'array' && /^\d+$/.test(seg)) {
        next = node.children?.[Number(seg)];
        if (next) offset = next.offset;
      }
      if (!next) break;
      node = next;
    }
    return this.at(offset);
  }
}
