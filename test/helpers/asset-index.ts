/** The asset index on each test backend (`backends.ts`; docs/architecture.md, "Storage"). */
import { openRedisAssetIndex } from '../../api/_lib/asset-index/redis.js';
import { openSqliteAssetIndex } from '../../api/_lib/asset-index/sqlite.js';
import type { AssetIndexStore } from '../../api/_lib/asset-index/types.js';
import { fileOf, redisOf, TEST_RETRY_DELAYS_MS, type BackendTarget } from './backends.js';

/** The SQLite index on a SQLite target. */
export const openSqliteAssetIndexOn = (t: BackendTarget): Promise<AssetIndexStore> => openSqliteAssetIndex(fileOf(t));
/** The Redis index on a Redis target, with the short test retry waits. */
export const openRedisAssetIndexOn = (t: BackendTarget): AssetIndexStore =>
  openRedisAssetIndex(redisOf(t), { retryDelaysMs: TEST_RETRY_DELAYS_MS });
