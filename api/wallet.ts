/**
 * Wallet ledger (spec 1.7, 3, 4.8, 5.3, 5.4, 7, 8).
 *
 * Paths (declared in `api/_lib/routing/table.ts`):
 * - `POST /api/wallet/verify-send-to-account` (admin: a token whose role is admin or master, or
 *   `X-Admin-Password`): body `schemas/requests/verify-send-to-account.schema.json`: exactly one of
 *   `studioId` / `accountId`, `amount` (JSON integer, 1 to `WALLET_VERIFY_SEND_MAX`), `purpose`
 *   (verify | test | platform_verify | ledger_verify), `idempotencyKey` (8-255 printable ASCII), `note`
 *   (optional, at most 500 characters). Credits the account once per key.
 *   200 `{ kind: "verify_send_to_account_wallet", onChain: false, burn: false, idempotent, entryId,
 *   sourceRef, account: { accountId, studioId, displayName }, amount, purpose, note, balance, at }`;
 *   a replay answers the original with `idempotent: true` and `Idempotent-Replayed: true`.
 * - `GET /api/wallet/overview` (the caller's token, not a guest): `limit` (1-200, default 50),
 *   (above 200 clamped, with `X-Limit-Requested`/`X-Limit-Applied`), `cursor` (opaque, from the previous page, bound to the account and filters), `kind`
 *   (verify_send_to_account_wallet | admin_grant_coin, the names the credits answer with), `purpose` (verify | test | platform_verify | ledger_verify | grant).
 *   200 `{ account, balance, transactions: [{ entryId, seq, kind, purpose, amount, balanceAfter,
 *   sourceRef, note, at, reverses?, reversedBy? }], cursor, hasMore }`, newest first, `Cache-Control: no-store`.
 *
 * Errors (problem+json): 400 INVALID_BODY / INVALID_QUERY (every bad field), 401 UNAUTHORIZED with
 * `WWW-Authenticate`, 403 FORBIDDEN (valid token without the admin role), 404 NOT_FOUND (no such
 * account), 413, 415, 422 IDEMPOTENCY_KEY_REUSED, 503 UPSTREAM_UNAVAILABLE (store unreachable; retry
 * with the same key). A refused request changes nothing.
 */
import { getServiceConfig } from './_lib/config.js';
import { readJsonBody } from './_lib/http/body.js';
import { actorName, clampHeaders, defineEntry, idempotentAnswer, parseQuery, plainJson, principalOf } from './_lib/http/index.js';
import { ledgerStore } from './_lib/ledger/store.js';
import { OVERVIEW_PARAMS } from './_lib/ledger/params.js';
import { overview, verifySend, type VerifySendBody } from './_lib/ledger/service.js';
import type { TransferKindName } from './_lib/ledger/types.js';
import { recordAudit } from './_lib/audit/service.js';

/** Query parameters of the overview (also read by the OpenAPI document, `build/openapi/`). */
export { OVERVIEW_PARAMS };

/** The method exports (see the file header). */
export const { GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS } = defineEntry(
  'wallet',
  {
    'verify-send': {
      POST: async ({ request, caller }) => {
        const body = await readJsonBody<VerifySendBody>(request, { schema: 'verify-send-to-account' });
        const result = await verifySend(await ledgerStore(), body, getServiceConfig().walletVerifySendMax, undefined, actorName(caller));
        return idempotentAnswer(result, result.idempotent, { createdStatus: 200 });
      },
    },
    overview: {
      GET: async ({ url, caller }) => {
        const principal = principalOf(caller);
        const parsed = parseQuery(url.searchParams, OVERVIEW_PARAMS);
        const q = parsed.values;
        const result = await overview(await ledgerStore(), principal, {
          limit: q.limit,
          cursor: q.cursor,
          kind: q.kind as TransferKindName | undefined,
          purpose: q.purpose,
        });
        return plainJson(result, 200, clampHeaders(parsed.clamped));
      },
    },
  },
  { audit: recordAudit },
);
