import type { AuditEvent, AuditHead, AuditLog, AuditRecord } from '@countersign/core';
import { AuditLogError, buildRecord } from '@countersign/core';
import { auditEventJson, auditRecordFromRow } from '@countersign/core/store-kit';
import type { PgDatabase } from './database.ts';
import { advisoryLockKey } from './lock-keys.ts';
import { integer, text } from '@countersign/core/store-kit';

/**
 * AuditLog on PostgreSQL. Each append is a transaction that first takes a
 * transaction-scoped advisory lock, then reads the head, builds the next record and
 * inserts it. Under READ COMMITTED each statement takes a fresh snapshot, so the
 * head read after the lock sees the previous holder's committed record: appends
 * from any number of processes and replicas form one chain. PRIMARY KEY (seq) is
 * the backstop if anything ever bypassed the lock.
 */
export class PostgresAuditLog implements AuditLog {
  readonly #db: PgDatabase;
  readonly #table: string;
  readonly #lockKey: string;

  constructor(db: PgDatabase, quotedSchema: string, schema: string) {
    this.#db = db;
    this.#table = `${quotedSchema}.audit_records`;
    this.#lockKey = advisoryLockKey(schema, 'audit-append');
  }

  async append(event: AuditEvent): Promise<AuditRecord> {
    return this.#db.transaction(async (query) => {
      await query('SELECT pg_advisory_xact_lock($1::bigint)', [this.#lockKey]);
      const { rows } = await query(`SELECT seq, hash FROM ${this.#table} ORDER BY seq DESC LIMIT 1`);
      const head = rows[0] === undefined ? undefined : { seq: integer(rows[0], 'seq'), hash: text(rows[0], 'hash') };
      const record = buildRecord(head, event);
      await query(`INSERT INTO ${this.#table} (seq, prev_hash, hash, event) VALUES ($1, $2, $3, $4)`, [
        record.seq,
        record.prevHash,
        record.hash,
        auditEventJson(record),
      ]);
      return record;
    });
  }

  async read(opts: { afterSeq?: number; limit?: number } = {}): Promise<AuditRecord[]> {
    const afterSeq = opts.afterSeq ?? 0;
    const limit = opts.limit ?? null; // LIMIT NULL is LIMIT ALL
    if (!Number.isSafeInteger(afterSeq) || afterSeq < 0 || (limit !== null && (!Number.isSafeInteger(limit) || limit < 0))) {
      throw new AuditLogError('invalid_argument', 'afterSeq and limit must be non-negative integers');
    }
    const { rows } = await this.#db.query(
      `SELECT seq, prev_hash, hash, event FROM ${this.#table} WHERE seq > $1 ORDER BY seq LIMIT $2`,
      [afterSeq, limit],
    );
    return rows.map(auditRecordFromRow);
  }

  async head(): Promise<AuditHead | undefined> {
    const { rows } = await this.#db.query(`SELECT seq, hash FROM ${this.#table} ORDER BY seq DESC LIMIT 1`);
    return rows[0] === undefined ? undefined : { seq: integer(rows[0], 'seq'), hash: text(rows[0], 'hash') };
  }
}
