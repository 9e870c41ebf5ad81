// The player store contracts (contract.ts, operations-contract.ts) on the Redis adapter through the production client path:
// Upstash's REST protocol to the local stand-in in front of a real redis-server.
import { playerContract } from './contract.js';
import { operationsContract } from './operations-contract.js';
import { onBackend, upstashRestBackend } from '../helpers/backends.js';
import { openRedisPlayerOn, openRedisPairOn } from '../helpers/player.js';

playerContract(() => onBackend(upstashRestBackend(), openRedisPlayerOn));
operationsContract(() => onBackend(upstashRestBackend(), openRedisPairOn));
