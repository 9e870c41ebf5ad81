/**
 * The metadata index of stored binaries (spec 4.9): which keys content authors registered, for which
 * purpose, with the type, size and ETag the storage reported at registration. It lives in the same store
 * as the ledger (`STORE_DRIVER`), behind this interface of its own (docs/architecture.md, "Storage").
 * A catalog build checks `modelRef` keys against an exported copy (`build/derive/model-refs.ts`).
 */

import type { StoreIdentity } from '../stores/unavailable.js';

/** The asset index's name in its 503s. */
export const ASSET_INDEX_STORE: StoreIdentity = Object.freeze({ name: 'asset index', retryHint: '' });

/** Purposes of a registered binary (spec 4.9). */
export const ASSET_PURPOSES = ['play', 'isolate', 'author'] as const;
/** One purpose. */
export type AssetPurpose = (typeof ASSET_PURPOSES)[number];

/** Most entries one registration may carry (spec 4.9). */
export const REGISTER_BATCH_MAX = 100;

/** One registered binary. */
export interface AssetEntry {
  /** Storage key (`api/_lib/storage/keys.ts`). */
  readonly key: string;
  readonly purpose: AssetPurpose;
  /** Content type the storage reported. */
  readonly contentType: string;
  /** Size in bytes. */
  readonly size: number;
  /** ETag the storage reported. */
  readonly etag: string;
  /** Time of the last registration, ISO 8601 UTC. */
  readonly registeredAt: string;
}

/** A page of entries in key order (UTF-8 bytes). */
export interface AssetPage {
  readonly items: readonly AssetEntry[];
  readonly hasMore: boolean;
}

/** The index port. Every method rejects with ServiceError UPSTREAM_UNAVAILABLE when the store cannot be reached. */
export interface AssetIndexStore {
  readonly driver: 'sqlite' | 'redis';
  /**
   * Register a batch (at most {@link REGISTER_BATCH_MAX} entries, distinct keys) in one atomic write; an
   * entry for a key already registered replaces it.
   * @returns per entry, in order, `created` or `updated`.
   */
  register(entries: readonly AssetEntry[]): Promise<('created' | 'updated')[]>;
  /** The entry of `key`, or undefined. */
  get(key: string): Promise<AssetEntry | undefined>;
  /** Remove the entry of `key` (the object was deleted); resolves the same whether or not there was one. */
  unregister(key: string): Promise<void>;
  /** Entries whose key starts with `prefix`, after `startAfter` (exclusive), at most `limit` (1-1000). */
  list(options: { readonly prefix: string; readonly startAfter: string | undefined; readonly limit: number }): Promise<AssetPage>;
  close(): Promise<void>;
}
