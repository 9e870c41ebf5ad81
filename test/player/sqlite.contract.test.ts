// The player store contract (contract.ts) on the SQLite adapter, in a temporary folder.
import { playerContract } from './contract.js';
import { onBackend, sqliteBackend } from '../helpers/backends.js';
import { openSqlitePlayerOn } from '../helpers/player.js';

playerContract(() => onBackend(sqliteBackend(), openSqlitePlayerOn));
