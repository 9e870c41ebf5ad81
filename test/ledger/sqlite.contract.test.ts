// The ledger contract (contract.ts) on the SQLite adapter, in a temporary folder.
import { ledgerContract } from './contract.js';
import { onBackend, sqliteBackend } from '../helpers/backends.js';
import { openSqliteLedgerOn } from '../helpers/ledger.js';

ledgerContract(() => onBackend(sqliteBackend(), openSqliteLedgerOn));
