// The player store contract (contract.ts) on the Redis adapter over RESP, on a real redis-server on 127.0.0.1.
import { playerContract } from './contract.js';
import { onBackend, redisBackend } from '../helpers/backends.js';
import { openRedisPlayerOn } from '../helpers/player.js';

playerContract(() => onBackend(redisBackend(), openRedisPlayerOn));
