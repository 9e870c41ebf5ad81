/**
 * Registering stored binaries in the metadata index (spec 4.9; docs/architecture.md, "Storage"): each key
 * of a batch (at most 100, distinct) is checked against the storage, and what the storage reports for it
 * (type, size, ETag) is registered under the purpose named, in one atomic write of the index.
 *
 * Per entry, in order: `{ key, purpose, contentType, size, etag, registeredAt, status: created | updated }`
 * or `{ key, status: 'refused', code: INVALID_KEY | NOT_STORED, reason }`; a refused key does not stop the
 * others.
 */
import { ServiceError } from '../errors.js';
import { systemClock, type Clock } from '../stores/clock.js';
import { keyProblem } from '../storage/keys.js';
import type { StorageAdapter } from '../storage/types.js';
import type { AssetEntry, AssetIndexStore, AssetPurpose } from './types.js';

/** One entry of a registration request. */
export interface RegisterRequestEntry {
  readonly key: string;
  readonly purpose: AssetPurpose;
}

/** The answer of a registration. */
export interface Registration {
  readonly registered: number;
  readonly refused: number;
  readonly results: readonly Record<string, unknown>[];
}

/**
 * Register a batch (see the module header).
 * @param storage,index opened once the batch passed its checks.
 * @throws ServiceError INVALID_BODY when a key is listed twice; 503 from the storage or the index
 */
export async function registerAssets(
  storage: () => Promise<StorageAdapter>,
  index: () => Promise<AssetIndexStore>,
  entries: readonly RegisterRequestEntry[],
  clock: Clock = systemClock,
): Promise<Registration> {
  const dup = entries.map((e) => e.key).find((k, i, all) => all.indexOf(k) !== i);
  if (dup !== undefined)
    throw new ServiceError('INVALID_BODY', 'A key is listed twice in the batch; list each key once.', {
      errors: [{ name: '/entries', message: 'Duplicate key.', value: dup.slice(0, 200) }],
    });
  const adapter = await storage();
  const now = clock().toISOString();
  const results: Record<string, unknown>[] = [];
  const accepted: { index: number; entry: AssetEntry }[] = [];
  for (const e of entries) {
    const problem = keyProblem(e.key);
    const object = problem ? undefined : await adapter.head(e.key);
    if (problem || !object) {
      results.push({
        key: e.key,
        status: 'refused',
        code: problem ? 'INVALID_KEY' : 'NOT_STORED',
        reason: problem ?? 'No object is stored under this key; upload it first.',
      });
      continue;
    }
    const entry: AssetEntry = {
      key: e.key,
      purpose: e.purpose,
      contentType: object.contentType,
      size: object.size,
      etag: object.etag,
      registeredAt: now,
    };
    accepted.push({ index: results.length, entry });
    results.push({ ...entry });
  }
  if (accepted.length > 0) {
    const statuses = await (await index()).register(accepted.map((a) => a.entry));
    accepted.forEach((a, i) => (results[a.index] = { ...a.entry, status: statuses[i] }));
  }
  return { registered: accepted.length, refused: results.length - accepted.length, results };
}
