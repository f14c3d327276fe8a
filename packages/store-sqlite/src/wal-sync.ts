import { closeSync, fdatasync, fdatasyncSync, fstatSync, openSync, statSync } from 'node:fs';
import { LedgerError } from '@countersign/core/ledger';

/** What a committed batch waits for: settle(undefined) once durable, settle(error) if it may not be. */
type Settle = (error?: LedgerError) => void;

/** fs.fdatasync's shape; tests pass a controllable one. */
export type FdatasyncFn = (fd: number, callback: (error: NodeJS.ErrnoException | null) => void) => void;
/** fs.fdatasyncSync's shape; tests pass a failing or counting one. */
export type FdatasyncSyncFn = (fd: number) => void;

/**
 * The fsync of `syncOffLoop` mode: with `PRAGMA synchronous = NORMAL` a COMMIT writes its
 * WAL frames without fsync, and this flushes the WAL file on libuv's thread pool before
 * any caller of the batch hears of it. Every outcome reported is durable, as under FULL;
 * the event loop keeps serving requests (and committing the next batches) meanwhile.
 *
 * Group commit across fsyncs: at most one fdatasync in flight; batches committed while
 * it runs wait for the next one, which covers all of them (fdatasync flushes the whole
 * file, whoever wrote it). A failed fdatasync latches: the kernel may have dropped the
 * unwritten pages, so a later fsync "succeeding" proves nothing; every waiting and later
 * batch fails with store_unavailable until the store is reopened.
 *
 * Weaker than FULL in one way: a batch is visible to reads on this connection (and to
 * other processes) from its COMMIT, a millisecond or so before it is durable. A read
 * can show a state a power cut then takes back; no write outcome, grant or token is
 * handed out on such a state, since each waits for its own (later, covering) fdatasync.
 */
export class WalSync {
  readonly #fd: number;
  readonly #fdatasync: FdatasyncFn;
  readonly #fdatasyncSync: FdatasyncSyncFn;
  #inFlight = false;
  #closing = false;
  #waiting: Settle[] = [];
  /** Batches the fdatasync in flight covers. */
  #covered: Settle[] = [];
  #failed: LedgerError | undefined;

  /** Opens the WAL file of `dbPath`, which must exist (SQLite creates it when WAL mode opens the database). */
  constructor(dbPath: string, sync: FdatasyncFn = fdatasync, syncNow: FdatasyncSyncFn = fdatasyncSync) {
    this.#fdatasync = sync;
    this.#fdatasyncSync = syncNow;
    const walPath = `${dbPath}-wal`;
    try {
      // r+, never create: a WAL we created ourselves would not be the one SQLite writes.
      this.#fd = openSync(walPath, 'r+');
    } catch (error) {
      throw new LedgerError('store_unavailable', `sqlite store unavailable: cannot open ${walPath} for syncOffLoop`, { cause: error });
    }
    const opened = fstatSync(this.#fd);
    const atPath = statSync(walPath);
    if (opened.ino !== atPath.ino || opened.dev !== atPath.dev) {
      closeSync(this.#fd);
      throw new LedgerError('store_unavailable', `sqlite store unavailable: ${walPath} changed while opening`);
    }
  }

  /** Throws the latched error if an fdatasync ever failed. */
  assertHealthy(): void {
    if (this.#failed !== undefined) throw this.#failed;
  }

  /** Call right after a COMMIT: `settle` runs once everything written so far is on disk. */
  afterCommit(settle: Settle): void {
    if (this.#failed !== undefined) {
      settle(this.#failed);
      return;
    }
    this.#waiting.push(settle);
    if (!this.#inFlight) this.#start();
  }

  /**
   * Call right after a COMMIT instead of afterCommit, when no other batch waits: flushes
   * on the calling thread, at once. 'busy' when an fdatasync is in flight or batches wait
   * for the next one (use afterCommit: its flush covers this COMMIT too); undefined once
   * durable; the latched error if the flush failed (or ever had).
   */
  syncNowIfIdle(): LedgerError | undefined | 'busy' {
    if (this.#failed !== undefined) return this.#failed;
    if (this.#inFlight || this.#waiting.length > 0 || this.#closing) return 'busy';
    try {
      this.#fdatasyncSync(this.#fd);
    } catch (error) {
      this.#fail(error);
    }
    return this.#failed;
  }

  /** Flushes synchronously and settles everyone waiting, then closes the file (used by close). */
  close(): void {
    if (this.#closing) return;
    this.#closing = true;
    // Whether or not an fdatasync is in flight, one here covers everything committed.
    const waiting = [...this.#covered.splice(0), ...this.#waiting.splice(0)];
    if (waiting.length > 0 && this.#failed === undefined) {
      try {
        this.#fdatasyncSync(this.#fd);
      } catch (error) {
        this.#fail(error);
      }
    }
    for (const settle of waiting) settle(this.#failed);
    // An fdatasync still running on the pool holds the fd: its callback closes it.
    if (!this.#inFlight) closeSync(this.#fd);
  }

  #start(): void {
    this.#covered = this.#waiting;
    this.#waiting = [];
    this.#inFlight = true;
    this.#fdatasync(this.#fd, (error) => {
      this.#inFlight = false;
      if (error !== null) this.#fail(error);
      // Empty if close already flushed and answered them.
      for (const settle of this.#covered.splice(0)) settle(this.#failed);
      if (this.#closing) {
        closeSync(this.#fd);
        return;
      }
      if (this.#failed !== undefined) {
        for (const settle of this.#waiting.splice(0)) settle(this.#failed);
      } else if (this.#waiting.length > 0) {
        this.#start();
      }
    });
  }

  #fail(error: unknown): void {
    this.#failed ??= new LedgerError(
      'store_unavailable',
      `sqlite store unavailable: fsync of the WAL failed (${error instanceof Error ? error.message : String(error)}); commits since the last good fsync may not be durable, reopen the store`,
      { cause: error },
    );
  }
}
