/**
 * Account-scoped state of the caller (spec 2.8, 4.8, 5.4): learned recipes.
 *
 * Paths (declared in `api/_lib/routing/table.ts`), with the caller's token (not a guest):
 * - `GET /api/account/recipes`: `{ recipes: [{ recipeId, learnedAt }] }`, by time learned then id.
 * - `POST /api/account/recipes`: `{ recipeId }`, a `RECP-*` id of the published catalog's
 *   `master-recipes.json` (read through the catalog reader). 201 `{ learned: true, recipe }` the first
 *   time; learning it again is 200 `{ learned: false, recipe }` with the first time, and changes nothing.
 *
 * Errors (problem+json): 400 INVALID_BODY (not a recipe of the catalog), 401, 404 (no account has the
 * token's studio id), 413, 415, 503. A refused request changes nothing.
 */
import { readJsonBody } from './_lib/http/body.js';
import { defineEntry, plainJson } from './_lib/http/index.js';
import { playerCaller, learnRecipe } from './_lib/player/service.js';


/** The method exports (see the file header). */
export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = defineEntry('account', {
  recipes: {
    GET: async ({ request }) => {
      const { account, store } = await playerCaller(request);
      return plainJson({ recipes: await store.recipes(account.accountId) });
    },
    POST: async ({ request }) => {
      const { account, store } = await playerCaller(request);
      const body = await readJsonBody<{ recipeId: string }>(request, { schema: 'recipe-learn' });
      const out = await learnRecipe(store, account, body.recipeId);
      return plainJson(out, out.learned ? 201 : 200);
    },
  },
});
