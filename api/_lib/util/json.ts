/**
 * Small helpers for parsed JSON shared by the build and the functions: the plain-object test, RFC 6901 JSON
 * pointers (spec §2.7 problems name file and pointer), and objects with sorted keys for deterministic output.
 * Pure.
 */

/** True when `value` is a JSON object: not null, not an array. */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** RFC 6901 escaping of one pointer segment: `~` → `~0`, `/` → `~1` (numbers as their decimal text). */
export function escapePointer(segment: string | number): string {
  return String(segment).replace(/~/g, '~0').replace(/\//g, '~1');
}

/** RFC 6901 pointer from unescaped segments: `jsonPointer('icons', 3, 'key')` → `/icons/3/key`; no segment → `''`. */
export function jsonPointer(...segments: readonly (string | number)[]): string {
  return segments.map((s) => '/' + escapePointer(s)).join('');
}

/** Split an RFC 6901 pointer into unescaped segments (`''` → `[]`). */
export function pointerSegments(pointer: string): string[] {
  if (pointer === '') return [];
  return pointer
    .slice(1)
    .split('/')
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
}

/** Copy of `o` with keys in UTF-16 code-unit order (deterministic output where order has no meaning). */
export function sortKeys<T>(o: Readonly<Record<string, T>>): Record<string, T> {
  const out: Record<string, T> = {};
  for (const k of Object.keys(o).sort()) out[k] = o[k]!;
  return out;
}

/**
 * The value at RFC 6901 pointer `pointer` (`''` is the whole document) of the parsed JSON `doc`, or
 * undefined when a segment names no member or item. Own members only; never throws.
 */
export function valueAtPointer(doc: unknown, pointer: string): unknown {
  let v = doc;
  for (const seg of pointerSegments(pointer)) {
    if (Array.isArray(v)) v = v[Number(seg)];
    else if (isRecord(v)) v = Object.hasOwn(v, seg) ? v[seg] : undefined;
    else return undefined;
  }
  return v;
}
