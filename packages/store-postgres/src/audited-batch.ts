import { setTimeout } from 'node:timers/promises';
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

/**
 * A write whose records are known before it runs (`AuditIfWritten`): it sends its
 * statements at once and returns its outcome as a promise; one of them sets the
 * transaction-local setting `flag` to 'y' exactly when the write takes effect, and its
 * `events` are chained only then (PostgresAuditLog.appendInTransaction with flags). So
 * nothing waits for its answer before the chain's lock, the insert and COMMIT are sent:
 * BEGIN to COMMIT in one round trip. It must send every statement before it returns
 * (none after an answer: COMMIT may already be on its way).
 */
export type PlannedWork = (query: Query, flag: string) => Promise<unknown>;

/**
 * A planned write's records for one way it can take effect: chained only if the write
 * set the setting `<flag><suffix>` to 'y' (`suffix` '' for a write with one way).
 */
type Branch = { suffix: string; events: readonly AuditEvent[] };

type Job =
  | { kind: 'audited'; work: AuditedWork; mode: WorkMode }
  /** `branchOf`: the suffix of the branch the outcome says took effect, undefined for none. */
  | { kind: 'planned'; work: PlannedWork; branches: readonly Branch[]; branchOf: (outcome: unknown) => string | undefined };

type Done = { outcome: unknown; records: AuditRecord[] };
/**
 * A write under way: the records it may append (validated copies, chained by the
 * insert), each under its flag in `flags` ('' for unconditional), and its outcome.
 * `flag`: a planned write's own flag, the prefix of its records' flags. `failed`: in a
 * rerun with savepoints, its own error, which is its answer alone.
 */
type Started = { records: AuditRecord[]; flags: string[]; flag: string; outcome: Promise<unknown>; failed?: unknown };
/**
 * Attempts for a batch Postgres aborted as a deadlock or serialization victim (nothing of
 * it was written). Two replicas' batches that took rows in opposite orders can meet again
 * on their retries; a random pause before each retry, longer each time, lets one finish
 * first (three attempts without it failed a 4-process consume race on a loaded machine).
 */
const ATTEMPTS = 8;
const RETRY_PAUSE_MS = 20;

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
    const { outcome, records } = await this.#batcher.submit({ kind: 'audited', work, mode });
    this.#log?.notifyLedgerAppend(records);
    return outcome as R;
  }

  /**
   * A write whose `events` are appended if and only if `written(outcome)`: its statements,
   * the chain's lock, the conditional insert and COMMIT leave together (see PlannedWork).
   * A concurrent write: it may share its batch with others.
   */
  async submitPlanned<R>(work: (query: Query, flag: string) => Promise<R>, events: readonly AuditEvent[], written: (outcome: R) => boolean): Promise<R> {
    return this.#submitBranches(work, [{ suffix: '', events }], (outcome) => (written(outcome) ? '' : undefined));
  }

  /**
   * `submitPlanned` for a write that can take effect in several ways, each with its own
   * records (a decision: the request left pending, approved or denied): `branches[key]`
   * is chained only if the write set the setting `<flag>_<key>` to 'y', and `branchOf`
   * names the key its outcome says it took effect with (undefined: none).
   */
  async submitPlannedByOutcome<R>(
    work: (query: Query, flag: string) => Promise<R>,
    branches: Readonly<Record<string, readonly AuditEvent[]>>,
    branchOf: (outcome: R) => string | undefined,
  ): Promise<R> {
    const suffixed = Object.entries(branches).map(([key, events]) => ({ suffix: `_${key}`, events }));
    return this.#submitBranches(work, suffixed, (outcome) => {
      const key = branchOf(outcome);
      return key === undefined ? undefined : `_${key}`;
    });
  }

  async #submitBranches<R>(work: (query: Query, flag: string) => Promise<R>, branches: readonly Branch[], branchOf: (outcome: R) => string | undefined): Promise<R> {
    const job: Job = { kind: 'planned', work, branches, branchOf: branchOf as (outcome: unknown) => string | undefined };
    const { outcome, records } = await this.#batcher.submit(job);
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
        const { started, outcomes, appended } = await this.#db.transactionWithTail(async (query) => {
          const started = savepoints ? await this.#oneByOne(query, batch) : await this.#pipelined(query, batch);
          const records = started.flatMap((s) => s.records);
          // The audit append is the tail: COMMIT goes out in the same write. Records of
          // planned writes go under their flags, before those writes have answered.
          const appended = records.length === 0 ? Promise.resolve([]) : this.#log!.appendInTransaction(query, records, started.flatMap((s) => s.flags));
          appended.catch(() => {});
          // A write that failed fails the attempt (its error decides first: the insert
          // behind it only reports the aborted transaction).
          const outcomes = this.#outcomes(started, batch.length, savepoints);
          const tail = outcomes.then(async (o) => ({ outcomes: o, appended: await appended }));
          return { result: { started, tail }, tail };
        }).then(async ({ started, tail }) => ({ started, ...(await tail) }));
        // Committed: every appended record now carries its seq and hashes.
        const chained = new Set(appended);
        for (const [i, job] of batch.entries()) {
          const item = started[i]!;
          const outcome = outcomes[i];
          const records = item.records.filter((r) => chained.has(r));
          const input = job.input;
          if (item.failed !== undefined) job.reject(item.failed);
          // The store's own "took effect" and the flag its SQL set must agree (they are one condition, stated twice).
          else if (input.kind === 'planned' && item.records.length > 0 && !chainedAsOutcome(item, input.branchOf(outcome), chained)) {
            job.reject(new LedgerError('corrupt_record', 'a write and its conditional audit records disagree on whether it took effect'));
          } else job.resolve({ outcome, records });
        }
        return;
      } catch (error) {
        if (error instanceof ItemFailed && !savepoints) {
          savepoints = true;
          continue;
        }
        if (isRetryable(error) && attempt < ATTEMPTS) {
          await setTimeout(Math.random() * RETRY_PAUSE_MS * attempt);
          continue;
        }
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

  /**
   * Every write's outcome, in batch order. Without savepoints any failure fails the
   * attempt: a fatal error (outage, deadlock victim) decides for the batch; otherwise a
   * lone write's own error is its answer, and a batch starts over with savepoints. With
   * them, a write's own error was settled under its savepoint (`failed`).
   */
  async #outcomes(started: Started[], batchLength: number, savepoints: boolean): Promise<unknown[]> {
    const settled = await Promise.allSettled(started.map((s) => s.outcome));
    const errors = settled.flatMap((s) => (s.status === 'rejected' ? [s.reason as unknown] : []));
    if (errors.length > 0) {
      const fatal = errors.find(isFatal);
      if (fatal !== undefined) throw fatal;
      if (!savepoints) throw batchLength === 1 ? errors[0] : new ItemFailed();
    }
    return settled.map((s) => (s.status === 'fulfilled' ? s.value : undefined));
  }

  /** A rerun with savepoints: one write at a time, each under its own, so a failing write fails alone. */
  async #oneByOne(query: Query, batch: BatchJob<Job, Done>[]): Promise<Started[]> {
    const started: Started[] = [];
    for (const [i, job] of batch.entries()) {
      await query('SAVEPOINT batch_item');
      try {
        const item = await this.#start(query, job.input, flagName(i));
        await item.outcome;
        await query('RELEASE SAVEPOINT batch_item');
        started.push(item);
      } catch (error) {
        if (isFatal(error)) throw error;
        await query('ROLLBACK TO SAVEPOINT batch_item');
        const failed = toStoreError(error);
        started.push({ records: [], flags: [], flag: '', outcome: Promise.resolve(undefined), failed });
      }
    }
    return started;
  }

  /**
   * The batch without savepoints: runs of concurrent writes are started together, so
   * their statements go out back to back on the pipelined connection and cost one round
   * trip between them, not one each; an `alone` write waits for everything before it and
   * holds up everything after it. Statements still execute one at a time, in the order
   * sent: the first statement of each write in submission order. Resolves once every
   * write's records are known: an audited write's after its statements answered, a
   * planned write's at once (its outcome still on its way). Any write that throws fails
   * the attempt (and, with pipelining, the statements behind it: the transaction is
   * aborted); the batch then runs again with savepoints, one write at a time.
   */
  async #pipelined(query: Query, batch: BatchJob<Job, Done>[]): Promise<Started[]> {
    const started: Promise<Started>[] = [];
    for (const [i, job] of batch.entries()) {
      const alone = job.input.kind === 'audited' && job.input.mode === 'alone';
      // An alone write waits for every write before it, and every write after it waits for it.
      if (alone) await this.#outcomes(await this.#settle(started, batch.length), batch.length, false);
      const item = this.#start(query, job.input, flagName(i));
      started.push(item);
      if (alone) await this.#outcomes(await this.#settle([item], batch.length), batch.length, false);
    }
    return this.#settle(started, batch.length);
  }

  /** The writes once their records are known; a write that threw fails the attempt, as in `#outcomes`. */
  async #settle(started: Promise<Started>[], batchLength: number): Promise<Started[]> {
    const settled = await Promise.allSettled(started);
    await this.#outcomes(
      settled.map((s): Started => ({ records: [], flags: [], flag: '', outcome: s.status === 'fulfilled' ? Promise.resolve() : Promise.reject(s.reason) })),
      batchLength,
      false,
    );
    return settled.map((s) => (s as PromiseFulfilledResult<Started>).value);
  }

  /**
   * Starts one write. An audited write's events are checked once it answered; a planned
   * write's before any of its statements is sent (an invalid one fails this write only,
   * having sent nothing). Records are validated copies (buildRecord).
   */
  async #start(query: Query, job: Job, flag: string): Promise<Started> {
    if (job.kind === 'planned') {
      const records = this.#records(job.branches.flatMap((b) => b.events));
      const flags = job.branches.flatMap((b) => b.events.map(() => `${flag}${b.suffix}`));
      const outcome = job.work(query, flag);
      // Awaited by #outcomes, unless the attempt fails before (then it rejects unheard).
      outcome.catch(() => {});
      return { records, flags, flag, outcome };
    }
    const { outcome, events } = await job.work(query);
    const records = this.#records(events);
    return { records, flags: records.map(() => ''), flag: '', outcome: Promise.resolve(outcome) };
  }

  /** Validated copies of `events`, chained by the insert. */
  #records(events: readonly AuditEvent[]): AuditRecord[] {
    if (events.length > 0 && this.#log === undefined) throw new TypeError('this PostgresLedger has no audit log to append to');
    return events.map((event) => buildRecord(undefined, event));
  }
}

/** The transaction-local setting a planned write at `index` of its batch sets when it takes effect. */
function flagName(index: number): string {
  return `countersign.written_${index}`;
}

/** Whether the records of `item` that were chained are exactly those of the branch `suffix` (undefined: none). */
function chainedAsOutcome(item: Started, suffix: string | undefined, chained: ReadonlySet<AuditRecord>): boolean {
  const expected = suffix === undefined ? undefined : `${item.flag}${suffix}`;
  return item.records.every((record, i) => chained.has(record) === (item.flags[i] === expected));
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
