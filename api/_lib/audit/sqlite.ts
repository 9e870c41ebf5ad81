/**
 * The audit log on SQLite (docs/architecture.md, "Audit log"): table `audit_log` of the store kit's
 * audit layout (`api/_lib/stores/audit.ts`) in the data folder's database file, one index per filter,
 * each ordered by time and sequence number.
 */
import type { InValue } from '@libsql/client';
import { AUDIT_LAYOUT, auditInsert } from '../stores/audit.js';
import { openSqliteDatabase } from '../stores/sqlite.js';
import type { AuditRecord } from '../util/audit-scope.js';
import { AUDIT_STORE, type AuditLog, type AuditPage, type AuditQuery } from './types.js';

/**
 * Open the log in the database file `file`.
 * @throws ServiceError UPSTREAM_UNAVAILABLE when the file cannot be opened or holds another layout.
 */
export async function openSqliteAuditLog(file: string): Promise<AuditLog> {
  const db = await openSqliteDatabase({ file, layout: AUDIT_LAYOUT, store: AUDIT_STORE });
  return {
    driver: 'sqlite',
    async append(record) {
      const out = await db.write((tx) => tx.execute(auditInsert(record)));
      return out.rowsAffected > 0;
    },
    async list(query: AuditQuery): Promise<AuditPage> {
      const where: string[] = [];
      const args: InValue[] = [];
      const filter = (sql: string, value: InValue | undefined) => {
        if (value === undefined) return;
        where.push(sql);
        args.push(value);
      };
      filter('account = ?', query.account);
      filter('actor = ?', query.actor);
      filter('route = ?', query.route);
      filter('at_ms >= ?', query.fromMs);
      filter('at_ms < ?', query.toMs);
      if (query.after) {
        where.push('(at_ms, seq) < (?, ?)');
        args.push(query.after.atMs, query.after.seq);
      }
      const rows = await db.read(
        `SELECT seq, at_ms, record FROM audit_log ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY at_ms DESC, seq DESC LIMIT ?`,
        [...args, query.limit + 1],
      );
      const records = rows
        .slice(0, query.limit)
        .map((r) => ({ id: String(r.seq as number), ...(JSON.parse(r.record as string) as object) }) as AuditRecord);
      const last = rows.length > query.limit ? rows[query.limit - 1]! : undefined;
      return { records, next: last && { atMs: Number(last.at_ms), seq: Number(last.seq) } };
    },
    close() {
      return db.close();
    },
  };
}
