// The audit log contract (log-contract.ts) on the SQLite adapter, in a temporary folder.
import { openSqliteAuditLog } from '../../api/_lib/audit/sqlite.js';
import { fileOf, onBackend, sqliteBackend } from '../helpers/backends.js';
import { auditLogContract } from './log-contract.js';

auditLogContract(() => onBackend(sqliteBackend(), (t) => openSqliteAuditLog(fileOf(t))), {
  refusesWhenClosed: true,
  driver: 'sqlite',
  scanBudget: false,
});
