// The throttle contract (contract.ts) on the Redis adapter (@upstash/ratelimit) over RESP, on a real redis-server on 127.0.0.1.
import { throttleContract } from './contract.js';
import { onBackend, redisBackend, redisOf } from '../helpers/backends.js';
import { openRedisThrottle } from '../../api/_lib/throttle/redis.js';

throttleContract(() => onBackend(redisBackend(), (t) => openRedisThrottle(redisOf(t))));
