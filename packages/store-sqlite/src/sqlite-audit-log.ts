import type { AuditEvent, AuditHead, AuditLog, AuditRecord } from '@countersign/core/audit';
import { AppendListeners, AuditLogError, buildRecord } from '@countersign/core/audit';
import { auditEventJson, auditRecordFromRow } from '@countersign/core/store-kit';
import type { SqliteConnection } from './connection.ts';
import { integer, text } from '@countersign/core/store-kit';

const SELECT_HEAD = 'SELECT seq, hash FROM audit_records ORDER BY seq DESC LIMIT 1';

/**
 * AuditLog on SQLite. An append reads the head, builds the next record and inserts
 * it inside a BEGIN IMMEDIATE transaction, so appends from any number of processes
 * sharing the file form a single chain; `seq` as PRIMARY KEY backs it up. Appends
 * submitted together share one transaction (group commit): each reads the head the
 * one before it wrote, so they get consecutive seqs in submission order.
 */
export class SqliteAuditLog implements AuditLog {
  readonly #conn: SqliteConnection;
  readonly #listeners = new AppendListeners();
  // The head this connection's last append left, and the write scope it was left in: the
  // next append in the same transaction (a group commit's next item) starts from it
  // instead of reading the table again. Only ever a shortcut: a stale head would give a
  // seq that is already taken, which the primary key refuses (no fork, an error).
  #lastAppend: { scope: number; head: AuditHead } | undefined;

  constructor(conn: SqliteConnection) {
    this.#conn = conn;
  }

  async append(event: AuditEvent): Promise<AuditRecord> {
    return this.#conn.write(() => this.appendInTransaction([event])[0]!);
  }

  /**
   * Appends `events` inside the write transaction the caller is running in (a
   * SqliteLedger write on the same connection): they commit, or roll back, with it.
   * Throws on an invalid event; the caller's savepoint then undoes everything.
   */
  appendInTransaction(events: readonly AuditEvent[]): AuditRecord[] {
    const scope = this.#conn.writeScope;
    const cached = this.#lastAppend;
    let head = cached !== undefined && cached.scope === scope && scope !== -1 ? cached.head : this.#head();
    const records: AuditRecord[] = [];
    for (const event of events) {
      const record = buildRecord(head, event);
      this.#conn
        .statement('INSERT INTO audit_records (seq, prev_hash, hash, event) VALUES (?, ?, ?, ?)')
        .run(record.seq, record.prevHash, record.hash, auditEventJson(record));
      records.push(record);
      head = record;
    }
    // Set only once every insert succeeded (a failed one leaves the cache as it was; the
    // rollback that follows changes the scope anyway).
    if (head !== undefined) this.#lastAppend = { scope, head };
    return records;
  }

  onLedgerAppend(listener: (records: readonly AuditRecord[]) => void): () => void {
    return this.#listeners.add(listener);
  }

  /** Called by SqliteLedger after the commit of a write that appended records. */
  notifyLedgerAppend(records: readonly AuditRecord[]): void {
    this.#listeners.notify(records);
  }

  async read(opts: { afterSeq?: number; limit?: number } = {}): Promise<AuditRecord[]> {
    const afterSeq = opts.afterSeq ?? 0;
    const limit = opts.limit ?? -1; // LIMIT -1 is SQLite for "no limit"
    if (!Number.isSafeInteger(afterSeq) || afterSeq < 0 || !Number.isSafeInteger(limit) || limit < -1 || opts.limit === -1) {
      throw new AuditLogError('invalid_argument', 'afterSeq and limit must be non-negative integers');
    }
    return this.#conn.read(() => {
      const rows = this.#conn
        .statement('SELECT seq, prev_hash, hash, event FROM audit_records WHERE seq > ? ORDER BY seq LIMIT ?')
        .all(afterSeq, limit);
      return rows.map(auditRecordFromRow);
    });
  }

  async head(): Promise<AuditHead | undefined> {
    return this.#conn.read(() => this.#head());
  }

  #head(): AuditHead | undefined {
    const row = this.#conn.statement(SELECT_HEAD).get();
    return row === undefined ? undefined : { seq: integer(row, 'seq'), hash: text(row, 'hash') };
  }
}
