/**
 * Registering stored binaries in the metadata index (spec 4.9; docs/architecture.md, "Storage"): each key
 * of a batch (at most 100, distinct) is checked against the storage, and what the storage reports for it
 * (type, size, ETag) is registered under the purpose named, in one atomic write of the index.
 *
 * The bytes are judged again here, as an upload's are (`storage/content-types.ts`): a presigned upload
 * (spec 4.7) puts bytes straight into the bucket, so the type it declared is only a claim. An object whose
 * bytes are of no accepted type, or of a type its key's extension does not name, is refused, removed from
 * the storage and from the index (it must not stay public under a name that lies about it).
 *
 * Per entry, in order: `{ key, purpose, contentType, size, etag, registeredAt, status: created | updated }`
 * or `{ key, status: 'refused', code: INVALID_KEY | NOT_STORED | UNKNOWN_TYPE | TYPE_NOT_ALLOWED |
 * EXTENSION_MISMATCH, reason }`; a refused key does not stop the others. Keys are taken in NFC.
 */
import { ServiceError } from '../errors.js';
import { systemClock, type Clock } from '../stores/clock.js';
import { keyProblem, normalizeKey } from '../storage/keys.js';
import { checkStoredContent } from '../storage/content-types.js';
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
  const keys = entries.map((e) => normalizeKey(e.key));
  const dup = keys.find((k, i, all) => all.indexOf(k) !== i);
  if (dup !== undefined)
    throw new ServiceError('INVALID_BODY', 'A key is listed twice in the batch; list each key once.', {
      errors: [{ name: '/entries', message: 'Duplicate key.', value: dup.slice(0, 200) }],
    });
  const adapter = await storage();
  const now = clock().toISOString();
  const results: Record<string, unknown>[] = [];
  const accepted: { index: number; entry: AssetEntry }[] = [];
  for (const [i, e] of entries.entries()) {
    const key = keys[i]!;
    const problem = keyProblem(key);
    const stored = problem ? undefined : await adapter.get(key);
    if (problem || !stored) {
      results.push({
        key,
        status: 'refused',
        code: problem ? 'INVALID_KEY' : 'NOT_STORED',
        reason: problem ?? 'No object is stored under this key; upload it first.',
      });
      continue;
    }
    const { object } = stored;
    const check = await checkStoredContent(stored.body, key).catch((cause: unknown) => {
      throw new ServiceError('UPSTREAM_UNAVAILABLE', 'The storage did not answer; send the batch again.', { cause });
    });
    if (!check.ok) {
      await adapter.delete(key);
      await (await index()).unregister(key);
      results.push({ key, status: 'refused', code: check.code, reason: `${check.reason} The object was removed.` });
      continue;
    }
    const entry: AssetEntry = {
      key,
      purpose: e.purpose,
      contentType: check.contentType,
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
