/**
 * Positions for problems: JSON pointer → 1-based line and column in the source text (spec §6: every
 * problem names file, pointer and line). Trees are built lazily with `jsonc-parser` (a well-kept parser
 * that keeps offsets), only for files that have problems, and cached per file.
 */
import { parseTree, type Node } from 'jsonc-parser';
import { pointerSegments } from '../../api/_lib/util/json.js';
import { lowerBound } from '../../api/_lib/util/sorted.js';

/** A line end: CR LF, a lone CR or LF. */
const LINE_END = /\r\n?|\n/g;

/** Offsets where each line of `text` starts, ascending, the first 0. */
function lineStartsOf(text: string): number[] {
  const starts = [0];
  for (const m of text.matchAll(LINE_END)) starts.push(m.index + m[0].length);
  return starts;
}

/** Locates pointers in one file's text. */
export class Locator {
  private tree: Node | undefined;
  private starts: number[] | undefined;

  constructor(private readonly text: string) {}

  /** 1-based line and column of a UTF-16 offset (an offset past the end counts on from the last line). */
  at(offset: number): { line: number; column: number } {
    this.starts ??= lineStartsOf(this.text);
    // the lines that start at or before the offset
    const line = lowerBound(this.starts, offset + 1);
    return { line, column: offset - this.starts[line - 1]! + 1 };
  }

  /**
   * Line/column of the value at `pointer`; for a property, the position of its key. When the pointer
   * does not exist (a missing field), the nearest existing ancestor's position. Line 1 column 1 when
   * the text holds no value at all. Only text that `JSON.parse` accepted is located by pointer, so the
   * parser's defaults (which would also read comments) change nothing.
   */
  locate(pointer: string): { line: number; column: number } {
    this.tree ??= parseTree(this.text);
    let node = this.tree;
    if (!node) return { line: 1, column: 1 };
    let offset = node.offset;
    for (const seg of pointerSegments(pointer)) {
      let next: Node | undefined;
      if (node.type === 'object') {
        // jsonc-parser gives every object its property nodes, each with a key; the last duplicate wins, as in JSON.parse
        for (const prop of node.children!) if (prop.children![0]!.value === seg) next = prop;
        if (next) {
          offset = next.offset;
          next = next.children![1];
        }
      } else if (/^\d+$/.test(seg)) {
        // an array's items; a scalar has no children
        next = node.children?.[Number(seg)];
        if (next) offset = next.offset;
      }
      if (!next) break;
      node = next;
    }
    return this.at(offset);
  }
}
