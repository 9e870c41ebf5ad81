/**
 * Query-parameter specs of the item collections (spec 4.2, 8), for `parseQuery` (`api/_lib/http/params.ts`):
 * every parameter of a collection's row in spec 4.2's table, plus paging; anything else is an unknown
 * parameter there (400 INVALID_QUERY, names starting with `_` excepted).
 *
 * - `q` string (at most 200 characters); word filters strings (at most 100 characters); enumerated filters
 *   (case-insensitive) as spec 4.2 lists them; `tier` integer 1-8; `discovered` enum `all` (artifacts only).
 * - `limit` integer 1-500, default 50; above 500 it is lowered to 500 and reported through `clampHeaders`
 *   (`X-Limit-Requested`, `X-Limit-Applied`); `offset` integer ≥ 0, default 0.
 * - Single lookups `/v1/{name}/{key}` take no parameters.
 */
import type { ParamSpec } from './params.js';
import { COLLECTION_DEFS, COLLECTION_NAMES, type CollectionName } from '../formats/collection-index.js';

/** Page size default and maximum (spec 4.2, 8). */
export const LIMIT_DEFAULT = 50;
/** Largest page size; larger requests are clamped to it. */
export const LIMIT_MAX = 500;

function listSpec(name: CollectionName): Readonly<Record<string, ParamSpec>> {
  const def = COLLECTION_DEFS[name];
  const spec: Record<string, ParamSpec> = { q: { kind: 'string', maxLength: 200 } };
  for (const f of def.filters) {
    if (f.kind === 'tier') spec[f.param] = { kind: 'int', min: 1, max: 8 };
    else if (f.kind === 'enum') spec[f.param] = { kind: 'enum', values: f.values };
    else spec[f.param] = { kind: 'string', maxLength: 100 };
  }
  if (def.hideUndiscovered) spec.discovered = { kind: 'enum', values: ['all'] };
  spec.limit = { kind: 'int', min: 1, max: LIMIT_MAX, default: LIMIT_DEFAULT, clamp: true };
  spec.offset = { kind: 'int', min: 0, max: Number.MAX_SAFE_INTEGER, default: 0 };
  return Object.freeze(spec);
}

/** Every collection's list spec, built on first use (once per process) and frozen. */
let listSpecs: Readonly<Record<CollectionName, Readonly<Record<string, ParamSpec>>>> | undefined;

/** Parameter spec of `GET /v1/{name}` (see module docstring); the same frozen object on every call. */
export function listParamSpec(name: CollectionName): Readonly<Record<string, ParamSpec>> {
  listSpecs ??= Object.freeze(
    Object.fromEntries(COLLECTION_NAMES.map((n) => [n, listSpec(n)])) as Record<CollectionName, Readonly<Record<string, ParamSpec>>>,
  );
  return listSpecs[name];
}

/** Parameter spec of `GET /v1/{name}/{key}`: none. */
export const LOOKUP_PARAM_SPEC: Readonly<Record<string, ParamSpec>> = Object.freeze({});
