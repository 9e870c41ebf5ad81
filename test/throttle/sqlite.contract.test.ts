// The throttle contract (contract.ts) on the SQLite adapter, in a temporary folder.
import { throttleContract } from './contract.js';
import { fileOf, onBackend, sqliteBackend } from '../helpers/backends.js';
import { openSqliteThrottle } from '../../api/_lib/throttle/sqlite.js';

throttleContract(() => onBackend(sqliteBackend(), (t) => openSqliteThrottle(fileOf(t))));
