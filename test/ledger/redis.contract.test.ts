// The ledger contract (contract.ts) on the Redis adapter over RESP, on a real redis-server on 127.0.0.1.
import { ledgerContract } from './contract.js';
import { onBackend, redisBackend } from '../helpers/backends.js';
import { openRedisLedgerOn } from '../helpers/ledger.js';

ledgerContract(() => onBackend(redisBackend(), openRedisLedgerOn));
