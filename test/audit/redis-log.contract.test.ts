// The audit log contract (log-contract.ts) on the Redis adapter over RESP, on a real redis-server on 127.0.0.1.
import { openRedisAuditLog } from '../../api/_lib/audit/redis.js';
import { onBackend, redisBackend, redisOf, TEST_RETRY_DELAYS_MS } from '../helpers/backends.js';
import { auditLogContract } from './log-contract.js';

auditLogContract(() => onBackend(redisBackend(), (t) => openRedisAuditLog(redisOf(t), { retryDelaysMs: TEST_RETRY_DELAYS_MS })), {
  refusesWhenClosed: true,
  driver: 'redis',
  scanBudget: true,
});
