// The audit log contract (log-contract.ts) on the Redis adapter through the production client path: REST to the Upstash stand-in.
import { openRedisAuditLog } from '../../api/_lib/audit/redis.js';
import { onBackend, redisOf, TEST_RETRY_DELAYS_MS, upstashRestBackend } from '../helpers/backends.js';
import { auditLogContract } from './log-contract.js';

auditLogContract(() => onBackend(upstashRestBackend(), (t) => openRedisAuditLog(redisOf(t), { retryDelaysMs: TEST_RETRY_DELAYS_MS })), {
  refusesWhenClosed: false,
  driver: 'redis',
  scanBudget: true,
});
