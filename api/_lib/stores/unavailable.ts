/**
 * The errors every store adapter throws when its backend fails in a way that is not the client's
 * (docs/architecture.md, "Errors"), both `ServiceError('UPSTREAM_UNAVAILABLE')`, a 503 that says which
 * store, with the backend's error kept as `cause` for the log (the answer never shows it):
 * {@link storeUnavailable} when it cannot be reached (try again), {@link storeMisconfigured} when it
 * refuses the configuration's credentials (no retry helps; the operator's log says what to set).
 */
import type { ConfigError } from '../config.js';
import { ServiceError } from '../errors.js';

/** What a store's 503 says: its name and the advice after "try again". */
export interface StoreIdentity {
  /** The store's name in messages, e.g. `ledger store`, `player store`, `asset index`. */
  readonly name: string;
  /** Advice after "try again", e.g. ` with the same idempotency key`; `''` for none. */
  readonly retryHint: string;
}

/**
 * The 503 of a store that cannot be reached: `The <name> cannot be reached[ (<what>)]; try again<hint>.`
 * @param what the kind of call that failed (`read`, `script`), or undefined.
 */
export function storeUnavailable(store: StoreIdentity, cause: unknown, what?: string): ServiceError {
  const call = what === undefined ? '' : ` (${what})`;
  return new ServiceError('UPSTREAM_UNAVAILABLE', `The ${store.name} cannot be reached${call}; try again${store.retryHint}.`, { cause });
}

/**
 * The 503 of a store whose backend refuses the configured credentials (e.g. Upstash answering 401 to
 * `UPSTASH_REDIS_REST_TOKEN`): `The <name> is not configured correctly on this deployment; …`, neither
 * claiming the store is unreachable nor telling the client to retry. `cause` names the variable and what
 * to set; `toProblemResponse` logs it once (docs/architecture.md, "Logs").
 */
export function storeMisconfigured(store: StoreIdentity, cause: ConfigError): ServiceError {
  return new ServiceError(
    'UPSTREAM_UNAVAILABLE',
    `The ${store.name} is not configured correctly on this deployment; the operator has been told what to set.`,
    { cause },
  );
}
