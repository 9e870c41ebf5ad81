/**
 * JSON Merge Patch (RFC 7396), used by `PATCH /api/island/state` and `PATCH /api/characters/{id}/progress`
 * (spec 2.8, 2.9). A patch that is an object merges member by member: `null` removes the member, an
 * object merges recursively, anything else (arrays included) replaces the target's value whole. A patch
 * that is not an object replaces the target. Neither input is changed; the result shares no mutable
 * structure with the patch's arrays beyond what JSON values share.
 */

/** A JSON value. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

const isObject = (v: unknown): v is Record<string, Json> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Apply `patch` to `target` (RFC 7396 section 2, MergePatch).
 * @returns the merged value (a new object where anything changed).
 */
export function mergePatch(target: Json | undefined, patch: Json): Json {
  if (!isObject(patch)) return patch;
  const out: Record<string, Json> = isObject(target) ? { ...target } : {};
  for (const [name, value] of Object.entries(patch)) {
    if (value === null) delete out[name];
    // defined, not assigned: a member named `__proto__` stays a member (and a schema then refuses it)
    else
      Object.defineProperty(out, name, {
        value: mergePatch(Object.hasOwn(out, name) ? out[name] : undefined, value),
        enumerable: true,
        writable: true,
        configurable: true,
      });
  }
  return out;
}
