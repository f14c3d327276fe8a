import type { AuditEvent, AuditRecord } from '@countersign/core/audit';
import { buildRecord } from '@countersign/core/audit';
import { LedgerError } from '@countersign/core/ledger';
import { AppendBatcher, type BatchJob } from './append-batcher.ts';
import type { PgDatabase, Query } from './database.ts';
import { isUnavailableError, sqlState, toStoreError } from './errors.ts';
import type { PostgresAuditLog } from './postgres-audit-log.ts';

/** One ledger write: its statements, returning its outcome and the audit events to append with it. */
export type AuditedWork = (query: Query) => Promise<{ outcome: unknown; events: readonly AuditEvent[] }>;

type Done = { outcome: unknown; records: AuditRecord[] };
type Item = { ok: true; outcome: unknown; events: readonly AuditEvent[] } | { ok: false; error: unknown };

// Any valid head: events are checked inside their own savepoint, before the real chaining.
const PROBE_HEAD = { seq: 1, hash: '0'.repeat(64) };
/** Attempts for a batch Postgres aborted as a deadlock or serialization victim (nothing of it was written). */
const ATTEMPTS = 3;

/**
 * Group commit for ledger writes that carry audit records. Writes submitted while a
 * batch is in flight go together in the next one: one transaction runs each write
 * under its own SAVEPOINT (its error undoes only its own changes, as if it ran alone),
 * checks its events, then takes the audit advisory lock ONCE, chains every write's
 * records in submission order, inserts them in one statement and commits. So N
 * concurrent consumes cost one commit and one turn of the chain lock, not N — the
 * lock is held from its acquisition to COMMIT, and serialising N commits under it
 * would cap throughput at one fsync per write.
 *
 * A batch holds its items' row locks together, so two replicas' batches can deadlock
 * on rows taken in opposite orders; Postgres then aborts one, which is retried whole
 * (it wrote nothing). The advisory lock is always taken last and nothing waits for a
 * row after taking it, so it is never part of such a cycle.
 */
export class AuditedBatch {
  readonly #db: PgDatabase;
  readonly #log: PostgresAuditLog | undefined;
  readonly #batcher: AppendBatcher<AuditedWork, Done>;

  constructor(db: PgDatabase, log: PostgresAuditLog | undefined, maxBatch?: number) {
    this.#db = db;
    this.#log = log;
    this.#batcher = new AppendBatcher((batch) => this.#run(batch), maxBatch);
  }

  async submit<R>(work: AuditedWork): Promise<R> {
    const { outcome, records } = await this.#batcher.submit(work);
    this.#log?.notifyLedgerAppend(records);
    return outcome as R;
  }

  async #run(batch: BatchJob<AuditedWork, Done>[]): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        const done = await this.#db.transaction((query) => this.#items(query, batch));
        batch.forEach((job, i) => {
          const item = done[i]!;
          if ('error' in item) job.reject(item.error);
          else job.resolve(item);
        });
        return;
      } catch (error) {
        if (isRetryable(error) && attempt < ATTEMPTS) continue;
        // A lone write's own error (refused, invalid event) is its answer, as if it ran alone.
        if (batch.length === 1 && !isFatal(error)) {
          batch[0]!.reject(error);
          return;
        }
        // Nothing of the batch was written: every write gets the same answer.
        const failure = error instanceof LedgerError ? error : new LedgerError('store_unavailable', `postgres write batch not committed: ${messageOf(error)}`, { cause: error });
        for (const job of batch) job.reject(failure);
        return;
      }
    }
  }

  async #items(query: Query, batch: BatchJob<AuditedWork, Done>[]): Promise<(Done | { error: unknown })[]> {
    // A lone write needs no savepoint: its failure rolls back the whole (one-write) transaction.
    const items: Item[] = batch.length === 1 ? [await this.#item(query, batch[0]!.input)] : [];
    if (batch.length > 1) {
      for (const job of batch) {
        await query('SAVEPOINT batch_item');
        const item = await this.#item(query, job.input).catch((error: unknown) => ({ ok: false as const, error, fatal: isFatal(error) }));
        if (!item.ok && 'fatal' in item && item.fatal) throw item.error;
        await query(item.ok ? 'RELEASE SAVEPOINT batch_item' : 'ROLLBACK TO SAVEPOINT batch_item');
        items.push(item.ok ? item : { ok: false, error: toStoreError(item.error) });
      }
    }
    const events = items.flatMap((item) => (item.ok ? item.events : []));
    const records = this.#log === undefined || events.length === 0 ? [] : await this.#log.appendInTransaction(query, events);
    let next = 0;
    return items.map((item) => {
      if (!item.ok) return { error: item.error };
      const own = records.slice(next, next + item.events.length);
      next += item.events.length;
      return { outcome: item.outcome, records: own };
    });
  }

  /** Runs one write and checks its events (an invalid one fails this write only). */
  async #item(query: Query, work: AuditedWork): Promise<Item> {
    const { outcome, events } = await work(query);
    if (events.length > 0 && this.#log === undefined) throw new TypeError('this PostgresLedger has no audit log to append to');
    for (const event of events) buildRecord(PROBE_HEAD, event);
    return { ok: true, outcome, events };
  }
}

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
