import type { AuditEvent, AuditHead, AuditLog, AuditRecord } from '@countersign/core/audit';
import { AppendListeners, AuditLogError, buildRecord } from '@countersign/core/audit';
import { LedgerError } from '@countersign/core/ledger';
import { auditRecordFromRow, integer, text } from '@countersign/core/store-kit';
import { AppendBatcher, type BatchJob } from './append-batcher.ts';
import { chainInsertIfStatement, chainInsertParams, chainInsertStatement, fillChained, fillChainedIf, insertRefused, joinColumn, recordTextParts } from './chain-in-sql.ts';
import type { PgDatabase, Query } from './database.ts';
import { advisoryLockKey } from './lock-keys.ts';
import { type PreparedStatement, preparedStatement } from './prepared-statement.ts';

type Built = { ok: true; record: AuditRecord } | { ok: false; error: unknown };

/**
 * AuditLog on PostgreSQL. Appends submitted while a batch is in flight are queued and
 * written together (group commit): one transaction takes a transaction-scoped
 * advisory lock, then one statement reads the head and chains and inserts the records
 * in submission order (consecutive seqs, each linked to the one before; the hashes are
 * computed in SQL from core's canonical text, see chain-in-sql.ts). Under READ
 * COMMITTED each statement takes a fresh snapshot, so that statement, which starts
 * after the lock was granted, sees the previous holder's committed records: appends
 * from any number of processes and replicas form one chain. PRIMARY KEY (seq) is the
 * backstop if anything ever bypassed the lock.
 */
export class PostgresAuditLog implements AuditLog {
  readonly #db: PgDatabase;
  readonly #table: string;
  readonly #lockKey: string;
  readonly #batcher: AppendBatcher<AuditEvent, AuditRecord>;
  readonly #listeners = new AppendListeners();
  #lockStatement: PreparedStatement | undefined;
  #chainInsert: PreparedStatement | undefined;
  #chainInsertIf: PreparedStatement | undefined;

  constructor(db: PgDatabase, quotedSchema: string, schema: string, options: { maxBatch?: number | undefined } = {}) {
    this.#db = db;
    this.#table = `${quotedSchema}.audit_records`;
    this.#lockKey = advisoryLockKey(schema, 'audit-append');
    if (!/^-?\d{1,19}$/.test(this.#lockKey)) throw new TypeError('advisory lock key must be a decimal bigint');
    this.#batcher = new AppendBatcher((batch) => this.#appendBatch(batch), options.maxBatch);
  }

  async append(event: AuditEvent): Promise<AuditRecord> {
    return this.#batcher.submit(event);
  }

  /**
   * Appends `records` (validated copies, from `buildRecord`; their seq, prevHash and hash
   * are filled in) as the LAST statements of the caller's transaction, sent without
   * waiting, with the caller's COMMIT right behind them: the chain's advisory lock, then
   * one statement that reads the head and chains and inserts the records in SQL
   * (chain-in-sql.ts). So the lock is held from that statement to COMMIT (one insert and
   * the commit's flush), never across a round trip, and transactions' own statements run
   * in parallel before it; only their appends take turns.
   *
   * Why the lock last cannot deadlock: its holder runs only the insert and COMMIT, which
   * wait for no row lock (every append holds the lock, so no two insert one seq), so
   * whoever waits for the lock, whatever rows it holds, waits for a bounded time. The
   * head is read by a statement that starts after the lock statement returned, so its
   * snapshot includes every earlier holder's commit. PRIMARY KEY (seq) stays the backstop.
   *
   * `flags` (one per record, '' for none): a record with a flag is appended only if an
   * earlier statement of the transaction set that transaction-local setting to 'y' (its
   * write took effect); the promise then resolves to the records actually appended.
   */
  appendInTransaction(query: Query, records: AuditRecord[], flags?: readonly string[]): Promise<AuditRecord[]> {
    const parts = records.map(recordTextParts);
    this.#lockStatement ??= preparedStatement('SELECT pg_advisory_xact_lock($1::bigint)');
    let conditional = false;
    let insert: PreparedStatement;
    let params = chainInsertParams(records, parts);
    if (flags?.some((flag) => flag !== '')) {
      conditional = true;
      // Some records depend on a write of this transaction whose answer is not back yet:
      // each is chained only if its write set its flag (see chainInsertIfStatement).
      insert = this.#chainInsertIf ??= chainInsertIfStatement(this.#table);
      params = [...params, joinColumn(flags)];
    } else {
      insert = this.#chainInsert ??= chainInsertStatement(this.#table);
    }
    const locked = query(this.#lockStatement, [this.#lockKey]);
    const inserted = query(insert, params);
    // If the lock fails, the insert fails behind it (aborted transaction): the lock's error is the cause.
    inserted.catch(() => {});
    return locked.then(async () => {
      const { rows } = await inserted.catch((error: unknown) => Promise.reject(insertRefused(error)));
      return conditional ? fillChainedIf(records, parts, rows) : fillChained(records, parts, rows);
    });
  }

  onLedgerAppend(listener: (records: readonly AuditRecord[]) => void): () => void {
    return this.#listeners.add(listener);
  }

  /** Called by PostgresLedger after the commit of a write that appended records. */
  notifyLedgerAppend(records: readonly AuditRecord[]): void {
    this.#listeners.notify(records);
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

  /**
   * One transaction for the whole batch, in one round trip: BEGIN, the chain's lock, the
   * chaining insert and COMMIT leave in one write. An event that fails validation is
   * rejected on its own and takes no seq; the others still chain. If the transaction
   * fails, every append of the batch fails with store_unavailable and none was written.
   */
  async #appendBatch(batch: BatchJob<AuditEvent, AuditRecord>[]): Promise<void> {
    const built = batch.map((job): Built => {
      try {
        // A validated copy; its seq, prevHash and hash are filled in by the insert.
        return { ok: true, record: buildRecord(undefined, job.input) };
      } catch (error) {
        return { ok: false, error };
      }
    });
    const records = built.flatMap((b) => (b.ok ? [b.record] : []));
    try {
      if (records.length > 0) {
        await this.#db.transactionWithTail(async (query) => ({ result: undefined, tail: this.appendInTransaction(query, records) }));
      }
    } catch (error) {
      // Nothing of the batch was written (or, if the link died during COMMIT, we cannot
      // know): each append gets the outage answer, whichever item or cause it was.
      const failure =
        error instanceof LedgerError
          ? error
          : new LedgerError('store_unavailable', `postgres audit batch not committed: ${messageOf(error)}`, { cause: error });
      for (const job of batch) job.reject(failure);
      return;
    }
    batch.forEach((job, i) => {
      const outcome = built[i]!;
      if (outcome.ok) job.resolve(outcome.record);
      else job.reject(outcome.error);
    });
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
