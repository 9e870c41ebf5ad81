// The asset index contract (contract.ts) on the Redis adapter through the production client path:
// Upstash's REST protocol to the local stand-in in front of a real redis-server.
import { assetIndexContract } from './contract.js';
import { onBackend, upstashRestBackend } from '../helpers/backends.js';
import { openRedisAssetIndexOn } from '../helpers/asset-index.js';

assetIndexContract(() => onBackend(upstashRestBackend(), openRedisAssetIndexOn));
