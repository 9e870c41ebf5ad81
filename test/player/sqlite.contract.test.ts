// The player store contracts (contract.ts, operations-contract.ts) on the SQLite adapter, in a temporary folder.
import { playerContract } from './contract.js';
import { operationsContract } from './operations-contract.js';
import { onBackend, sqliteBackend } from '../helpers/backends.js';
import { openSqlitePlayerOn, openSqlitePairOn } from '../helpers/player.js';

playerContract(() => onBackend(sqliteBackend(), openSqlitePlayerOn));
operationsContract(() => onBackend(sqliteBackend(), openSqlitePairOn));
