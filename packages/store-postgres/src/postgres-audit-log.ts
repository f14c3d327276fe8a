import type { AuditEvent, AuditHead, AuditLog, AuditRecord } from '@countersign/core/audit';
import { AppendListeners, AuditLogError, buildRecord } from '@countersign/core/audit';
import { LedgerError } from '@countersign/core/ledger';
import { auditEventJson, auditRecordFromRow, integer, text } from '@countersign/core/store-kit';
import { AppendBatcher, type BatchJob } from './append-batcher.ts';
import type { PgDatabase, Query } from './database.ts';
import { advisoryLockKey } from './lock-keys.ts';
import { type PreparedStatement, preparedStatement } from './prepared-statement.ts';

type Built = { ok: true; record: AuditRecord } | { ok: false; error: unknown };

/**
 * AuditLog on PostgreSQL. Appends submitted while a batch is in flight are queued and
 * written together (group commit): one transaction takes a transaction-scoped
 * advisory lock, reads the head, builds the records in submission order (consecutive
 * seqs, each linked to the one before) and inserts them with one statement. Under
 * READ COMMITTED each statement takes a fresh snapshot, so the head read after the
 * lock sees the previous holder's committed records: appends from any number of
 * processes and replicas form one chain. PRIMARY KEY (seq) is the backstop if
 * anything ever bypassed the lock.
 */
export class PostgresAuditLog implements AuditLog {
  readonly #db: PgDatabase;
  readonly #table: string;
  readonly #lockKey: string;
  readonly #batcher: AppendBatcher<AuditEvent, AuditRecord>;
  readonly #listeners = new AppendListeners();
  /**
   * The head as of this process's last append, a HINT only: appends build on it and
   * insert with a statement that writes nothing unless it is still the table's head
   * (another process may have appended since); then the head is read and the insert
   * sent again. Under the chain lock nobody else can append in between, so the hint
   * saves the head read (a round trip with the lock held) without ever forking the chain.
   */
  #knownHead: AuditHead | undefined | null = null; // null: unknown
  #insertIfHeadStatement: PreparedStatement | undefined;
  #headPrepared: PreparedStatement | undefined;
  #insertPrepared: PreparedStatement | undefined;

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
   * Opens a transaction and takes the chain's advisory lock in it (held until it ends),
   * in one round trip: pass to `PgDatabase.transaction` as its `begin`. A transaction
   * that appends takes the lock FIRST, before any row lock: then whoever holds it may
   * wait for rows, but nobody holding a row waits for it, so no deadlock. The key is
   * our own decimal bigint (checked in the constructor), never input.
   */
  get beginLocked(): string {
    return `BEGIN; SELECT pg_advisory_xact_lock(${this.#lockKey}::bigint)`;
  }

  /**
   * The head, read inside the caller's transaction after `beginLocked` took the chain's
   * lock: nobody can append until that transaction ends, so records built on it chain
   * correctly. Sent without waiting (on a pipelined connection it shares the round trip
   * of BEGIN and the ledger's first statements).
   */
  headLocked(query: Query): Promise<AuditHead | undefined> {
    return this.#head(query, this.#headStatement);
  }

  /**
   * Inserts `records` (built on `headLocked`'s answer) in the caller's locked transaction.
   * PRIMARY KEY (seq) is the backstop: a record on a wrong head fails, and with it the
   * transaction. `committed` updates the head hint of `append`s once the caller committed.
   */
  insertLocked(query: Query, records: readonly AuditRecord[]): Promise<void> {
    return this.#insert(query, records);
  }

  /** Called after the transaction that inserted `records` committed: they are the head now. */
  committed(records: readonly AuditRecord[]): void {
    if (records.length > 0) this.#knownHead = records.at(-1);
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
    return this.#head(this.#db.query);
  }

  /**
   * One transaction for the whole batch. An event that fails validation is rejected
   * on its own and takes no seq; the others still chain. If the transaction fails,
   * every append of the batch fails with store_unavailable and none of them was written.
   */
  async #appendBatch(batch: BatchJob<AuditEvent, AuditRecord>[]): Promise<void> {
    let built: Built[];
    try {
      built = await this.#db.transaction(async (query) => {
        const build = (start: AuditHead | undefined): Built[] => {
          let head = start;
          return batch.map((job): Built => {
            try {
              const record = buildRecord(head, job.input);
              head = record;
              return { ok: true, record };
            } catch (error) {
              return { ok: false, error };
            }
          });
        };
        const known = this.#knownHead;
        if (known !== null) {
          const outcomes = build(known);
          const records = okRecords(outcomes);
          if (records.length === 0 || (await this.#insertIfHead(query, known, records))) return outcomes;
        }
        const outcomes = build(await this.#head(query));
        const records = okRecords(outcomes);
        if (records.length > 0) {
          await this.#insert(query, records);
          this.#knownHead = records.at(-1);
        }
        return outcomes;
      }, this.beginLocked);
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

  /**
   * Inserts `records` (built on `expected`) only if `expected` is still the chain's head,
   * in one statement: the head is read once, in the statement's snapshot, before any of
   * its rows are written. Returns whether they were inserted; either all are or none.
   */
  async #insertIfHead(query: Query, expected: AuditHead | undefined, records: readonly AuditRecord[]): Promise<boolean> {
    const { rowCount } = await query(this.#insertIfHeadSql, [...insertParams(records), headKey(expected)]);
    if (rowCount === records.length) {
      this.#knownHead = records.at(-1);
      return true;
    }
    if (rowCount !== 0) throw new LedgerError('corrupt_record', `audit insert wrote ${rowCount} of ${records.length} records`);
    this.#knownHead = null;
    return false;
  }

  get #insertIfHeadSql(): PreparedStatement {
    this.#insertIfHeadStatement ??= preparedStatement(
      `WITH head AS MATERIALIZED (
         SELECT COALESCE((SELECT seq::text || ':' || hash FROM ${this.#table} ORDER BY seq DESC LIMIT 1), '') AS key
       )
       INSERT INTO ${this.#table} (seq, prev_hash, hash, event)
       SELECT u.* FROM unnest($1::bigint[], $2::text[], $3::text[], $4::json[]) AS u
       WHERE (SELECT key FROM head) = $5::text`,
    );
    return this.#insertIfHeadStatement;
  }

  /** All records in one statement; the arrays are bound as parameters, never spliced. */
  async #insert(query: Query, records: readonly AuditRecord[]): Promise<void> {
    this.#insertPrepared ??= preparedStatement(
      `INSERT INTO ${this.#table} (seq, prev_hash, hash, event)
       SELECT * FROM unnest($1::bigint[], $2::text[], $3::text[], $4::json[])`,
    );
    await query(this.#insertPrepared, insertParams(records));
  }

  get #headStatement(): PreparedStatement {
    this.#headPrepared ??= preparedStatement(`SELECT seq, hash FROM ${this.#table} ORDER BY seq DESC LIMIT 1`);
    return this.#headPrepared;
  }

  async #head(query: Query, sql: string | PreparedStatement = `SELECT seq, hash FROM ${this.#table} ORDER BY seq DESC LIMIT 1`): Promise<AuditHead | undefined> {
    const { rows } = await query(sql);
    return rows[0] === undefined ? undefined : { seq: integer(rows[0], 'seq'), hash: text(rows[0], 'hash') };
  }
}

/** `events` chained on `start`, in order. */
export function chain(start: AuditHead | undefined, events: readonly AuditEvent[]): AuditRecord[] {
  let head = start;
  return events.map((event) => {
    const record = buildRecord(head, event);
    head = record;
    return record;
  });
}

function okRecords(outcomes: readonly Built[]): AuditRecord[] {
  return outcomes.flatMap((o) => (o.ok ? [o.record] : []));
}

function insertParams(records: readonly AuditRecord[]): unknown[] {
  return [records.map((r) => r.seq), records.map((r) => r.prevHash), records.map((r) => r.hash), records.map(auditEventJson)];
}

/** The head as `insertIfHead` compares it: 'seq:hash', or '' for an empty chain. */
function headKey(head: AuditHead | undefined): string {
  return head === undefined ? '' : `${head.seq}:${head.hash}`;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
