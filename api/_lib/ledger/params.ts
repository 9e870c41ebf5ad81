/**
 * Query parameters of a wallet page (spec 4.8): the player's overview (`api/wallet.ts`) and the operators'
 * wallet history (`api/admin.ts`) take the same ones; the OpenAPI document reads them too.
 */
import { GRANT_PURPOSE, REVERSAL_PURPOSE, VERIFY_SEND_PURPOSES } from './service.js';
import { TRANSFER_KIND_NAMES } from './types.js';

/** `limit` 1-200 (default 50, clamped above), `cursor` (opaque), `kind` and `purpose` filters. */
export const OVERVIEW_PARAMS = Object.freeze({
  limit: { kind: 'int', min: 1, max: 200, default: 50, clamp: true },
  cursor: { kind: 'string', maxLength: 200 },
  kind: { kind: 'enum', values: Object.values(TRANSFER_KIND_NAMES) },
  purpose: { kind: 'enum', values: [...VERIFY_SEND_PURPOSES, GRANT_PURPOSE, REVERSAL_PURPOSE] },
} as const);
