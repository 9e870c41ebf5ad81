/**
 * Which fields of which request bodies are free text the service stores, and under which variant of the
 * one stored-text rule (`api/_lib/text/stored.ts`; docs/architecture.md, "Stored text"). `checkBody`
 * applies it after the schema: a field that breaks the rule is a 400 naming it; one that passes is
 * replaced by its stored form (NFC), so services and stores only ever see stored text.
 *
 * A pointer segment `*` stands for every item of an array. `test/api/stored-text.test.ts` fails when a
 * request schema has a string field without a pattern, an enum, a format or a const that this table
 * leaves out.
 */
import type { FieldProblem } from '../errors.js';
import { storedText, storedTextProblem, type TextKind } from '../text/stored.js';

/** One stored-text field: its variant of the rule and its most code points (the schema's `maxLength`). */
export interface StoredTextField {
  readonly kind: TextKind;
  readonly maxLength: number;
}

/** Request schema name → JSON pointer (with `*` for array items) → the field's rule. */
export const STORED_TEXT_FIELDS: Readonly<Record<string, Readonly<Record<string, StoredTextField>>>> = Object.freeze({
  'verify-send-to-account': { '/note': { kind: 'lines', maxLength: 500 } },
  'grant-coin': { '/reason': { kind: 'lines', maxLength: 200 } },
  'account-action': { '/reason': { kind: 'lines', maxLength: 200 } },
  reversal: { '/reason': { kind: 'lines', maxLength: 200 } },
  'bag-reversal': { '/reason': { kind: 'lines', maxLength: 200 } },
  'item-void': { '/reason': { kind: 'lines', maxLength: 200 } },
  'account-ban': { '/reason': { kind: 'lines', maxLength: 200 } },
  'create-account': { '/displayName': { kind: 'line', maxLength: 64 }, '/username': { kind: 'line', maxLength: 64 } },
  'character-create': { '/name': { kind: 'line', maxLength: 24 } },
  'character-progress-patch': { '/progress/skill_loadouts/*/name': { kind: 'line', maxLength: 40 } },
  'character-progress': { '/skill_loadouts/*/name': { kind: 'line', maxLength: 40 } },
});

const escape = (s: string) => s.replace(/~/g, '~0').replace(/\//g, '~1');

/** Every string at `segments` under `node`, with its concrete pointer and a setter. */
function* strings(
  node: unknown,
  segments: readonly string[],
  at: string,
): Generator<{ pointer: string; value: string; set: (v: string) => void }> {
  if (segments.length === 0 || node === null || typeof node !== 'object') return;
  const [head, ...rest] = segments as [string, ...string[]];
  const record = node as Record<string, unknown>;
  const keys = head === '*' ? (Array.isArray(node) ? node.map((_, i) => String(i)) : []) : [head];
  for (const key of keys) {
    if (!Object.hasOwn(record, key)) continue;
    const pointer = `${at}/${escape(key)}`;
    const child = record[key];
    if (rest.length > 0) yield* strings(child, rest, pointer);
    else if (typeof child === 'string') yield { pointer, value: child, set: (v) => (record[key] = v) };
  }
}

/**
 * Put the stored-text fields of `value` that schema `schema` lists in their stored form (NFC) in place,
 * before the schema sees them, so the schema's own rules (a name's pattern) judge the text as it would be
 * stored; a field that is not a string, or not well-formed, is left for the schema and the rule to refuse.
 */
export function normalizeStoredText(schema: string, value: unknown): void {
  const fields = STORED_TEXT_FIELDS[schema];
  if (!fields) return;
  for (const pointer of Object.keys(fields))
    for (const hit of strings(value, pointer.split('/').slice(1), '')) if (hit.value.isWellFormed()) hit.set(hit.value.normalize('NFC'));
}

/**
 * Apply the stored-text rule to the fields of `value` that schema `schema` lists: every problem, or none
 * and the fields replaced by their stored form (`value` is changed in place).
 */
export function applyStoredText(schema: string, value: unknown): FieldProblem[] {
  const fields = STORED_TEXT_FIELDS[schema];
  if (!fields) return [];
  const problems: FieldProblem[] = [];
  const fixes: (() => void)[] = [];
  for (const [pointer, rule] of Object.entries(fields)) {
    for (const hit of strings(value, pointer.split('/').slice(1), '')) {
      const problem = storedTextProblem(hit.value, rule.kind, rule.maxLength);
      if (problem) problems.push({ name: hit.pointer, message: problem });
      else {
        const stored = storedText(hit.value, rule.kind, rule.maxLength);
        fixes.push(() => hit.set(stored));
      }
    }
  }
  if (problems.length === 0) for (const fix of fixes) fix();
  return problems;
}
