import type { DatabaseSync, SQLInputValue, StatementSync } from 'node:sqlite';
import { LedgerError } from '@countersign/core/ledger';
import { BackgroundCheckpointer } from './background-checkpoint.ts';
import { toStoreError } from './errors.ts';
import { FileIdentityGuard } from './file-identity.ts';
import { type FdatasyncFn, type FdatasyncSyncFn, WalSync } from './wal-sync.ts';
import { DEFAULT_MAX_BATCH, type WriteJob, WriteQueue } from './write-queue.ts';

/** A statement prepared with setReturnArrays(true): node:sqlite's typings still describe keyed rows. */
export interface ArrayStatement {
  get(...params: SQLInputValue[]): unknown[] | undefined;
  all(...params: SQLInputValue[]): unknown[][];
}

export interface ConnectionOptions {
  maxBatch?: number | undefined;
  path?: string | undefined;
  syncOffLoop?: boolean | undefined;
  fdatasync?: FdatasyncFn | undefined;
  fdatasyncSync?: FdatasyncSyncFn | undefined;
  /**
   * syncOffLoop only: a batch of one write, with no flush in flight, is flushed on the loop
   * right after its COMMIT (default true); false sends every batch to the thread pool.
   */
  syncAloneOnLoop?: boolean | undefined;
  /** 'background' (default with a path): WAL checkpoints on a worker thread, see BackgroundCheckpointer. */
  checkpoint?: 'background' | 'inline' | undefined;
  /** Commits before the checkpoint worker starts (tests start it at once). */
  checkpointAfterCommits?: number | undefined;
  /** WAL frames waiting to be copied back at which the worker copies them (tests lower it). */
  checkpointAtFrames?: number | undefined;
}

type ItemOutcome = { ok: true; value: unknown } | { ok: false; error: unknown };

/**
 * One open database shared by the ledger and the audit log of a store.
 *
 * Writes are group-committed: every write submitted while the event loop is busy
 * joins one `BEGIN IMMEDIATE … COMMIT`, so N concurrent consumes or appends cost one
 * fsync instead of N (synchronous = FULL stays: each commit is durable before any
 * caller hears of it). Inside the transaction each write runs in submission order,
 * synchronously (node:sqlite never yields), under its own SAVEPOINT, and sees the
 * writes before it in the batch: exactly what it would have seen running alone, one
 * transaction after the other. `BEGIN IMMEDIATE` takes the write lock before the first
 * read, so other processes sharing the file serialise with the whole batch.
 */
export class SqliteConnection {
  readonly #db: DatabaseSync;
  readonly #statements = new Map<string, StatementSync>();
  readonly #arrayStatements = new Map<string, ArrayStatement>();
  readonly #queue: WriteQueue;
  readonly #identity: FileIdentityGuard | undefined;
  readonly #walSync: WalSync | undefined;
  readonly #syncAloneOnLoop: boolean;
  readonly #checkpointer: BackgroundCheckpointer | undefined;
  #checkpointerStopped: Promise<void> = Promise.resolve();
  #closed = false;
  #commits = 0;
  #writeScope = 0;

  /**
   * `path`: the database file, watched so a deleted or replaced file fails closed (see FileIdentityGuard).
   * `syncOffLoop`: the database was opened with synchronous = NORMAL, and each batch is
   * reported only after WalSync's fdatasync of the WAL, run off the event loop (needs `path`;
   * `fdatasync` replaces fs.fdatasync in tests).
   */
  constructor(db: DatabaseSync, options: ConnectionOptions = {}) {
    this.#db = db;
    this.#syncAloneOnLoop = options.syncAloneOnLoop ?? true;
    try {
      this.#identity = options.path === undefined ? undefined : new FileIdentityGuard(options.path);
      if (options.syncOffLoop === true) {
        if (options.path === undefined) throw new TypeError('syncOffLoop needs the database path');
        this.#walSync = new WalSync(options.path, options.fdatasync, options.fdatasyncSync);
      }
      if (options.path !== undefined && options.checkpoint !== 'inline') {
        this.#checkpointer = new BackgroundCheckpointer(options.path, {
          startAfterCommits: options.checkpointAfterCommits,
          atFrames: options.checkpointAtFrames,
        });
      }
    } catch (error) {
      db.close();
      throw error;
    }
    this.#queue = new WriteQueue((batch) => this.#runBatch(batch), options.maxBatch ?? DEFAULT_MAX_BATCH);
  }

  /** Write transactions committed so far by this connection (one per batch). */
  get commits(): number {
    return this.#commits;
  }

  /**
   * Identifies what the write transaction under way has seen and written so far: it changes
   * at every BEGIN, every rollback (of one batch item or of the whole transaction) and every
   * COMMIT, so a value cached from this transaction's own writes (the audit head) is reused
   * only while nothing can have changed it but the code that cached it. -1 outside any
   * transaction: nothing is cached there (another process may write between transactions).
   * Inside a read snapshot it is the value the last write transaction ended with, which no
   * cache holds (each is taken inside a write transaction, before its COMMIT or rollback).
   */
  get writeScope(): number {
    return this.#db.isTransaction ? this.#writeScope : -1;
  }

  /** The checkpoint worker, if this connection has one (tests). */
  get checkpointer(): BackgroundCheckpointer | undefined {
    return this.#checkpointer;
  }

  /** Resolves once the checkpoint worker, if any, has closed its connection (after close). */
  get checkpointerStopped(): Promise<void> {
    return this.#checkpointerStopped;
  }

  /** A cached prepared statement; statements are reused for the life of the connection. */
  statement(sql: string): StatementSync {
    let stmt = this.#statements.get(sql);
    if (stmt === undefined) {
      stmt = this.#db.prepare(sql);
      this.#statements.set(sql, stmt);
    }
    return stmt;
  }

  /**
   * A cached prepared statement whose rows come back as arrays of column values, in the
   * order the SELECT names them (no keyed object per row: cheaper on hot reads).
   */
  arrayStatement(sql: string): ArrayStatement {
    let stmt = this.#arrayStatements.get(sql);
    if (stmt === undefined) {
      const prepared = this.#db.prepare(sql);
      prepared.setReturnArrays(true);
      stmt = prepared as unknown as ArrayStatement;
      this.#arrayStatements.set(sql, stmt);
    }
    return stmt;
  }

  /** Runs `fn` at once without an explicit transaction: for reads only (WAL: never blocked by a writer). */
  read<T>(fn: () => T): T {
    this.#assertOpen();
    // Only the latch, no stat: a read cannot lose data, and the next write batch looks.
    this.#identity?.assertNotLost();
    try {
      return fn();
    } catch (error) {
      throw toStoreError(error);
    }
  }

  /**
   * Runs `fn`'s reads in one explicit read transaction (BEGIN … COMMIT): every statement
   * sees the same snapshot even if another process commits meanwhile. Inside a write
   * transaction (a write job reading) `fn` simply runs in it. Two indexed SELECTs this way
   * cost less than one LEFT JOIN of the same rows (measured 4.7 vs 40 µs with node:sqlite,
   * SQLite 3.54: a join's cost per execution grows with the columns it selects, even when
   * no row matches), and less than two reads each in its own implicit transaction (one
   * read lock instead of two).
   */
  readSnapshot<T>(fn: () => T): T {
    if (this.#db.isTransaction) return this.read(fn);
    return this.read(() => {
      this.statement('BEGIN').run();
      try {
        return fn();
      } finally {
        // A read transaction has nothing to keep: COMMIT only releases the snapshot.
        this.statement('COMMIT').run();
      }
    });
  }

  /**
   * Queues `fn` for the next group commit. It settles only after the batch's COMMIT:
   * with `fn`'s value, with `fn`'s own error (its SAVEPOINT rolled back, the rest of
   * the batch unaffected), or with store_unavailable if the batch could not commit,
   * in which case nothing of the batch was written.
   */
  write<T>(fn: () => T): Promise<T> {
    this.#assertOpen();
    return this.#queue.enqueue(fn) as Promise<T>;
  }

  /**
   * Readiness: open, the file still the one we opened (two stat calls, latching like a
   * write batch would), and one trivial statement answered.
   */
  ping(): void {
    this.#assertOpen();
    try {
      this.#identity?.check();
    } catch (error) {
      throw toStoreError(error);
    }
    this.read(() => this.statement('SELECT 1').get());
  }

  /** Commits writes already queued, then closes; later calls fail with store_unavailable. */
  close(): void {
    if (this.#closed) return;
    this.#queue.drain();
    // Batches committed but not yet flushed are flushed now and hear their outcome.
    this.#walSync?.close();
    this.#closed = true;
    // The worker finishes a checkpoint under way on its own connection; SQLite copes with
    // either connection closing last.
    if (this.#checkpointer !== undefined) this.#checkpointerStopped = this.#checkpointer.stop();
    this.#statements.clear();
    this.#arrayStatements.clear();
    this.#db.close();
  }

  #runBatch(batch: WriteJob[]): void {
    const outcomes: ItemOutcome[] = [];
    try {
      this.#assertOpen();
      this.#identity?.assertNotLost();
      this.#walSync?.assertHealthy();
      this.#db.exec('BEGIN IMMEDIATE');
      this.#writeScope++;
    } catch (error) {
      // No lock (busy past busy_timeout, closed, I/O): nothing ran, same answer for all.
      const mapped = toStoreError(error);
      for (const job of batch) job.reject(mapped);
      return;
    }
    try {
      if (batch.length === 1) {
        // Alone in its transaction: the transaction is its savepoint (two statements fewer
        // per write, which is every write of a single client).
        const alone = this.#runAlone(batch[0]!);
        if (alone === 'rolled_back') return;
        outcomes.push(alone);
      } else {
        for (const job of batch) outcomes.push(this.#runItem(job.run));
      }
      // Last thing before COMMIT, under the write lock: a batch committed into a deleted
      // or replaced file would be reported durable and then vanish at the next open.
      this.#identity?.check();
      this.#db.exec('COMMIT');
      this.#writeScope++;
    } catch (error) {
      this.#rollbackQuietly();
      // Outcomes computed inside a transaction that did not commit are void, failures
      // included: every caller gets the same outage answer and nothing was written.
      const failure = new LedgerError('store_unavailable', `sqlite write batch not committed: ${messageOf(error)}`, {
        cause: error,
      });
      for (const job of batch) job.reject(failure);
      return;
    }
    this.#commits++;
    this.#checkpointer?.noteCommit();
    const settle = (): void =>
      batch.forEach((job, i) => {
        const outcome = outcomes[i]!;
        if (outcome.ok) job.resolve(outcome.value);
        else job.reject(outcome.error);
      });
    if (this.#walSync === undefined) {
      settle();
      return;
    }
    if (batch.length === 1 && this.#syncAloneOnLoop) {
      // Alone, nothing else to group with: flushed here, before anything else runs on this
      // thread (the thread pool's hop would add two thread wake-ups to this caller's wait,
      // and nobody else is waiting for the loop). Same flush as the thread pool's, same
      // outcome: settled only once durable.
      const flushed = this.#walSync.syncNowIfIdle();
      if (flushed !== 'busy') {
        if (flushed === undefined) settle();
        else batch[0]!.reject(flushed);
        return;
      }
    }
    // Committed but not yet durable: nobody hears of it before the WAL is flushed. The
    // writes submitted meanwhile wait too, and then commit together as the next batch.
    this.#queue.pause();
    this.#walSync.afterCommit((failure) => {
      this.#queue.resume();
      if (failure === undefined) settle();
      else for (const job of batch) job.reject(failure);
    });
  }

  /**
   * The one write of a batch, without a savepoint. Its own error rolls the whole
   * transaction back (it held nothing else) and is reported at once: nothing was
   * written, so there is no commit to wait for. An outage-class error propagates and
   * aborts the batch, as in #runItem.
   */
  #runAlone(job: WriteJob): ItemOutcome | 'rolled_back' {
    try {
      return { ok: true, value: job.run() };
    } catch (error) {
      const mapped = toStoreError(error);
      if ((mapped instanceof LedgerError && mapped.code === 'store_unavailable') || !this.#db.isTransaction) throw error;
      this.#db.exec('ROLLBACK');
      this.#writeScope++;
      job.reject(mapped);
      return 'rolled_back';
    }
  }

  /**
   * One write under its own savepoint. Its error (duplicate id, invalid event, a
   * corrupt row…) undoes only its own changes. An outage-class error (I/O, disk full)
   * propagates and aborts the batch: SQLite may already have rolled the whole
   * transaction back, and nothing of a batch is reported unless all of it commits.
   */
  #runItem(run: () => unknown): ItemOutcome {
    this.statement('SAVEPOINT batch_item').run();
    try {
      const value = run();
      this.statement('RELEASE batch_item').run();
      return { ok: true, value };
    } catch (error) {
      const mapped = toStoreError(error);
      if ((mapped instanceof LedgerError && mapped.code === 'store_unavailable') || !this.#db.isTransaction) throw error;
      this.statement('ROLLBACK TO batch_item').run();
      this.#writeScope++;
      this.statement('RELEASE batch_item').run();
      return { ok: false, error: mapped };
    }
  }

  // The error that made us roll back is the one to report; a failing ROLLBACK
  // (database gone) leaves nothing committed anyway.
  #rollbackQuietly(): void {
    this.#writeScope++;
    try {
      if (this.#db.isTransaction) this.#db.exec('ROLLBACK');
    } catch {}
  }

  #assertOpen(): void {
    if (this.#closed) throw new LedgerError('store_unavailable', 'sqlite store is closed');
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
