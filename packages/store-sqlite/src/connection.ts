import type { DatabaseSync, StatementSync } from 'node:sqlite';
import { LedgerError } from '@countersign/core';
import { toStoreError } from './errors.ts';

/**
 * One open database shared by the ledger and the audit log of a store.
 * node:sqlite is synchronous, so each `autocommit`/`immediate` body runs to completion
 * without yielding to the event loop: calls from one process never interleave,
 * and `BEGIN IMMEDIATE` serialises writers across processes sharing the file.
 */
export class SqliteConnection {
  readonly #db: DatabaseSync;
  readonly #statements = new Map<string, StatementSync>();
  #closed = false;

  constructor(db: DatabaseSync) {
    this.#db = db;
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

  /** Runs `fn` without an explicit transaction: for reads and single atomic statements. */
  autocommit<T>(fn: () => T): T {
    this.#assertOpen();
    try {
      return fn();
    } catch (error) {
      throw toStoreError(error);
    }
  }

  /**
   * Runs `fn` in a `BEGIN IMMEDIATE` transaction: the write lock is taken before the
   * first read, so what `fn` reads cannot change under it, in this process or any
   * other one (a competing writer waits up to busy_timeout, then gets store_unavailable).
   */
  immediate<T>(fn: () => T): T {
    this.#assertOpen();
    try {
      this.#db.exec('BEGIN IMMEDIATE');
    } catch (error) {
      throw toStoreError(error);
    }
    try {
      const result = fn();
      this.#db.exec('COMMIT');
      return result;
    } catch (error) {
      this.#rollbackQuietly();
      throw toStoreError(error);
    }
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#statements.clear();
    this.#db.close();
  }

  // The error that made us roll back is the one to report; a failing ROLLBACK
  // (database gone) leaves nothing committed anyway.
  #rollbackQuietly(): void {
    try {
      if (this.#db.isTransaction) this.#db.exec('ROLLBACK');
    } catch {}
  }

  #assertOpen(): void {
    if (this.#closed) throw new LedgerError('store_unavailable', 'sqlite store is closed');
  }
}
