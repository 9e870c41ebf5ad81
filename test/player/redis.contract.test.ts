// The player store contracts (contract.ts, operations-contract.ts) on the Redis adapter over RESP, on a real redis-server on 127.0.0.1.
import { playerContract } from './contract.js';
import { operationsContract } from './operations-contract.js';
import { onBackend, redisBackend } from '../helpers/backends.js';
import { openRedisPlayerOn, openRedisPairOn } from '../helpers/player.js';

playerContract(() => onBackend(redisBackend(), openRedisPlayerOn));
operationsContract(() => onBackend(redisBackend(), openRedisPairOn));
