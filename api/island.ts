/**
 * Home island (spec 2.9, 4.8, 5.4).
 *
 * Paths (declared in `api/_lib/routing/table.ts`):
 * - `GET /api/island/spec` (public): the island contract, spec 2.2.0 and contract 1.4.0, every value of
 *   2.9 (`api/_lib/island/spec.ts`); cacheable (`Cache-Control: public, max-age=300`, strong `ETag`).
 * - `GET /api/island/state` (the caller's token, not a guest): `{ revision, updatedAt, state }` with
 *   `ETag: "<revision>"`; the first read creates the island from the account's deterministic seed.
 * - `PATCH /api/island/state` (the caller's token; `If-Match` required): a JSON merge patch (RFC 7396,
 *   `application/merge-patch+json` or `application/json`, at most 1 MiB) of the state fields; the merged
 *   state must match `schemas/requests/island-state.schema.json`. 200 with the new state and `ETag`.
 * - `POST /api/island/export-from-rts` (the caller's token; `If-Match` required):
 *   `{ gridX, gridZ, seed, biome, heightmap? }` derives `rtsExport`, `rtsHeightmap` and
 *   `rtsNatureScatter` from the seed (or the sent heights) and stores them; 200 with the new state.
 *
 * Errors (problem+json): 400 INVALID_BODY (every bad field), 401 UNAUTHORIZED (no token, a bad one or a
 * guest's), 404 NOT_FOUND (no account has the token's studio id), 412 PRECONDITION_FAILED (stale
 * `If-Match`, with the current `ETag`), 413, 415, 428 PRECONDITION_REQUIRED (no `If-Match`, or `*`),
 * 503 UPSTREAM_UNAVAILABLE. A refused request changes nothing.
 */
import { createHash } from 'node:crypto';
import { readJsonBody } from './_lib/http/body.js';
import { corsHeaders, defineEntry, notModified, plainJson, publicCacheHeaders } from './_lib/http/index.js';
import { islandSpec } from './_lib/island/spec.js';
import type { RtsExportInput } from './_lib/island/generate.js';
import { playerCaller, exportIsland, patchIsland, readIsland, revisionTag } from './_lib/player/service.js';
import type { IslandDoc } from './_lib/player/types.js';
import type { Json } from './_lib/util/merge-patch.js';

/** Byte cap of a state change: a full heightmap and scatter fit with room to spare. */
export const ISLAND_BODY_LIMIT_BYTES = 1024 * 1024;

const SPEC_BODY = JSON.stringify(islandSpec());
const SPEC_ETAG = `"${createHash('sha1').update(SPEC_BODY).digest('hex').slice(0, 16)}"`;

/** The state answer: the document with its strong ETag. */
function stateResponse(doc: IslandDoc): Response {
  return plainJson({ revision: doc.revision, updatedAt: doc.updatedAt, state: doc.state }, 200, { ETag: revisionTag(doc.revision) });
}


/** The method exports (see the file header). */
export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = defineEntry('island', {
  spec: {
    GET: ({ request }) => {
      const headers = { ...corsHeaders(), ...publicCacheHeaders(), ETag: SPEC_ETAG };
      if (notModified(request, SPEC_ETAG)) return new Response(null, { status: 304, headers });
      return new Response(SPEC_BODY, { status: 200, headers: { ...headers, 'Content-Type': 'application/json; charset=utf-8' } });
    },
  },
  state: {
    GET: async ({ request }) => {
      const { account, store } = await playerCaller(request);
      return stateResponse(await readIsland(store, account));
    },
    PATCH: async ({ request }) => {
      const { account, store } = await playerCaller(request);
      const patch = await readJsonBody<Record<string, Json>>(request, { schema: 'island-state-patch', maxBytes: ISLAND_BODY_LIMIT_BYTES });
      return stateResponse(await patchIsland(store, account, request.headers.get('if-match'), patch));
    },
  },
  'export-from-rts': {
    POST: async ({ request }) => {
      const { account, store } = await playerCaller(request);
      const body = await readJsonBody<RtsExportInput>(request, { schema: 'island-export-from-rts', maxBytes: ISLAND_BODY_LIMIT_BYTES });
      return stateResponse(await exportIsland(store, account, request.headers.get('if-match'), body));
    },
  },
});
