import type { AuditEvent, AuditRecord } from '@countersign/core/audit';
import { buildRecord } from '@countersign/core/audit';
import { LedgerError } from '@countersign/core/ledger';
import { AppendBatcher, type BatchJob } from './append-batcher.ts';
import type { PgDatabase, Query } from './database.ts';
import { isUnavailableError, sqlState, toStoreError } from './errors.ts';
import type { PostgresAuditLog } from './postgres-audit-log.ts';

/** One ledger write: its statements, returning its outcome and the audit events to append with it. */
export type AuditedWork = (query: Query) => Promise<{ outcome: unknown; events: readonly AuditEvent[] }>;

/**
 * How a write may share its batch. `concurrent`: its statements may interleave with
 * other concurrent writes' (each decides in ONE statement, or only reads or inserts its
 * own new rows after it), so the batch sends them all at once on the pipelined
 * connection. `alone`: it reads, then writes on what it read (addDecision), so it runs
 * with nothing else in flight, as if it ran alone.
 */
export type WorkMode = 'concurrent' | 'alone';

type Job = { work: AuditedWork; mode: WorkMode };

type Done = { outcome: unknown; records: AuditRecord[] };
/** A write's outcome and its events as validated copies (buildRecord), chained by the insert. */
type Item = { ok: true; outcome: unknown; records: AuditRecord[] } | { ok: false; error: unknown };
/** Attempts for a batch Postgres aborted as a deadlock or serialization victim (nothing of it was written). */
const ATTEMPTS = 3;

/**
 * Group commit for ledger writes that carry audit records. Writes submitted while a
 * batch is in flight go together in the next one: one transaction runs each write
 * under its own SAVEPOINT (its error undoes only its own changes, as if it ran alone)
 * and checks its events, then takes the chain's advisory lock and appends every
 * write's records in submission order with one statement that chains them in SQL, and
 * commits. So N concurrent consumes cost one commit and one turn of the chain lock,
 * not N.
 *
 * The lock comes LAST (PostgresAuditLog.appendInTransaction) and is held for one
 * statement and the COMMIT only, never across a round trip to this process: the
 * writes' own statements take their row locks first, and the lock's holder waits for no
 * row lock, so no deadlock runs through the lock. Batches of two replicas, no longer
 * serialized from their start, can deadlock on rows they take in opposite orders (the
 * same calls consumed on both at once): Postgres aborts one after deadlock_timeout, it
 * wrote nothing, and it is retried whole (chain-in-sql.test.ts provokes this).
 */
export class AuditedBatch {
  readonly #db: PgDatabase;
  readonly #log: PostgresAuditLog | undefined;
  readonly #batcher: AppendBatcher<Job, Done>;

  constructor(db: PgDatabase, log: PostgresAuditLog | undefined, maxBatch?: number) {
    this.#db = db;
    this.#log = log;
    this.#batcher = new AppendBatcher((batch) => this.#run(batch), maxBatch);
  }

  async submit<R>(work: AuditedWork, mode: WorkMode = 'alone'): Promise<R> {
    const { outcome, records } = await this.#batcher.submit({ work, mode });
    this.#log?.notifyLedgerAppend(records);
    return outcome as R;
  }

  async #run(batch: BatchJob<Job, Done>[]): Promise<void> {
    // Savepoints cost two round trips per write; most batches have no failing write, so
    // the first try runs without them, and a batch in which one write throws is rolled
    // back and run again with them, so that write fails alone.
    let savepoints = false;
    for (let attempt = 1; ; attempt++) {
      try {
        let appended: Promise<AuditRecord[]> | undefined;
        const items = await this.#db.transactionWithTail(async (query) => {
          const items = await this.#items(query, batch, savepoints);
          const records = items.flatMap((item) => (item.ok ? item.records : []));
          // The audit append is the tail: COMMIT goes out in the same write.
          if (records.length > 0) appended = this.#log!.appendInTransaction(query, records);
          return { result: items, tail: appended };
        });
        // Committed: every write's records now carry their seq and hashes.
        if (appended !== undefined) await appended;
        batch.forEach((job, i) => {
          const item = items[i]!;
          if (item.ok) job.resolve({ outcome: item.outcome, records: item.records });
          else job.reject(item.error);
        });
        return;
      } catch (error) {
        if (error instanceof ItemFailed && !savepoints) {
          savepoints = true;
          continue;
        }
        if (isRetryable(error) && attempt < ATTEMPTS) continue;
        // A lone write's own error (refused, invalid event) is its answer, as if it ran alone.
        if (batch.length === 1 && !isFatal(error)) {
          batch[0]!.reject(error);
          return;
        }
        // Nothing of the batch was written: every write gets the same answer.
        const failure =
          error instanceof LedgerError ? error : new LedgerError('store_unavailable', `postgres write batch not committed: ${messageOf(error)}`, { cause: error });
        for (const job of batch) job.reject(failure);
        return;
      }
    }
  }

  /** The writes' statements: all at once (pipelined) on the first try, one by one under savepoints on a rerun. */
  async #items(query: Query, batch: BatchJob<Job, Done>[], savepoints: boolean): Promise<Item[]> {
    if (!savepoints) return this.#pipelined(query, batch);
    const items: Item[] = [];
    for (const job of batch) {
      await query('SAVEPOINT batch_item');
      const item = await this.#item(query, job.input.work).catch((error: unknown) => ({ ok: false as const, error }));
      if (!item.ok && isFatal(item.error)) throw item.error;
      await query(item.ok ? 'RELEASE SAVEPOINT batch_item' : 'ROLLBACK TO SAVEPOINT batch_item');
      items.push(item.ok ? item : { ok: false, error: toStoreError(item.error) });
    }
    return items;
  }

  /**
   * The batch without savepoints: runs of concurrent writes are started together, so
   * their statements go out back to back on the pipelined connection and cost one round
   * trip between them, not one each; an `alone` write waits for everything before it and
   * holds up everything after it. Statements still execute one at a time, in the order
   * sent: the first statement of each write in submission order. Any write that throws
   * fails the attempt (and, with pipelining, the statements behind it: the transaction
   * is aborted); the batch then runs again with savepoints, one write at a time.
   */
  async #pipelined(query: Query, batch: BatchJob<Job, Done>[]): Promise<Item[]> {
    const settled: PromiseSettledResult<Item>[] = [];
    let group: Promise<Item>[] = [];
    const flush = async () => {
      settled.push(...(await Promise.allSettled(group)));
      group = [];
    };
    for (const job of batch) {
      if (job.input.mode === 'concurrent') {
        group.push(this.#item(query, job.input.work));
        continue;
      }
      await flush();
      if (settled.some((s) => s.status === 'rejected')) break;
      group.push(this.#item(query, job.input.work));
      await flush();
    }
    await flush();
    const errors = settled.flatMap((s) => (s.status === 'rejected' ? [s.reason as unknown] : []));
    if (errors.length > 0) {
      // A fatal error (outage, deadlock victim) decides for the batch; otherwise a lone
      // write's own error is its answer, and a batch starts over with savepoints.
      const fatal = errors.find(isFatal);
      if (fatal !== undefined) throw fatal;
      throw batch.length === 1 ? errors[0] : new ItemFailed();
    }
    return settled.map((s) => (s as PromiseFulfilledResult<Item>).value);
  }

  /** Runs one write and checks its events (an invalid one fails this write only), keeping validated copies. */
  async #item(query: Query, work: AuditedWork): Promise<Item> {
    const { outcome, events } = await work(query);
    if (events.length > 0 && this.#log === undefined) throw new TypeError('this PostgresLedger has no audit log to append to');
    return { ok: true, outcome, records: events.map((event) => buildRecord(undefined, event)) };
  }
}

/** A write of a batch run without savepoints threw: the batch is run again with them. */
class ItemFailed extends Error {}

function isRetryable(error: unknown): boolean {
  for (let e: unknown = error, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    const state = sqlState(e);
    if (state === '40P01' || state === '40001') return true;
  }
  return false;
}

/** Errors after which the transaction cannot go on (outage, deadlock victim): the batch fails (or retries) whole. */
function isFatal(error: unknown): boolean {
  return isUnavailableError(error) || isRetryable(error);
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
