/**
 * The one error every store adapter throws when its backend cannot be reached, or fails in a way that is
 * not the client's (docs/architecture.md, "Errors"): `ServiceError('UPSTREAM_UNAVAILABLE')`, a 503 whose
 * message says which store and what to do, with the backend's error kept as `cause` for the log (the
 * answer never shows it).
 */
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
