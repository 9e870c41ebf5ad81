// The throttle contract (contract.ts) on the Redis adapter (@upstash/ratelimit) through the production client path: REST to the Upstash stand-in.
import { throttleContract } from './contract.js';
import { onBackend, redisOf, upstashRestBackend } from '../helpers/backends.js';
import { openRedisThrottle } from '../../api/_lib/throttle/redis.js';

throttleContract(() => onBackend(upstashRestBackend(), (t) => openRedisThrottle(redisOf(t))));
