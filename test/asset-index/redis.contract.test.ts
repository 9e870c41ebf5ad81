// The asset index contract (contract.ts) on the Redis adapter over RESP, on a real redis-server on 127.0.0.1.
import { assetIndexContract } from './contract.js';
import { onBackend, redisBackend } from '../helpers/backends.js';
import { openRedisAssetIndexOn } from '../helpers/asset-index.js';

assetIndexContract(() => onBackend(redisBackend(), openRedisAssetIndexOn));
