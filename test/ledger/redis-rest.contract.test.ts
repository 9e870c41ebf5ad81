// The ledger contract (contract.ts) on the Redis adapter through the production client path: Upstash's
// REST protocol to the local stand-in in front of a real redis-server.
import { ledgerContract } from './contract.js';
import { onBackend, upstashRestBackend } from '../helpers/backends.js';
import { openRedisLedgerOn } from '../helpers/ledger.js';

ledgerContract(() => onBackend(upstashRestBackend(), openRedisLedgerOn));
