import { DatabaseSync, type StatementSync } from 'node:sqlite';
import { BackgroundCheckpointer } from '../packages/store-sqlite/src/background-checkpoint.ts';
import { WalSync } from '../packages/store-sqlite/src/wal-sync.ts';
import type { FloorStore } from './floor-store.ts';

interface Job {
  run: () => unknown;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

/**
 * The floor's SQLite file: WAL, group commit as the store does it (every write submitted
 * during one turn of the event loop joins one BEGIN IMMEDIATE … COMMIT, flushed on
 * setImmediate) and the store's own background checkpointer, so the floor batches and
 * checkpoints at least as well as the store. Leaner than the store on purpose: no savepoint
 * per batched write (these statements cannot fail alone; any error rolls the whole batch
 * back and fails every write in it), no file-identity checks, one table.
 *
 * Durable as the store's two modes are: `syncOffLoop` false, synchronous = FULL (COMMIT
 * fsyncs the WAL on the loop); true, synchronous = NORMAL plus the store's WalSync (the
 * WAL's fdatasync on the thread pool, or on the loop for a batch alone with none in flight),
 * with writes queued meanwhile held back to commit together after it. Either way no caller
 * hears of a write before it is on disk.
 */
export function openSqliteFloor(path: string, options: { syncOffLoop?: boolean } = {}): FloorStore {
  const db = new DatabaseSync(path);
  db.exec('PRAGMA journal_mode = WAL');
  db.exec(options.syncOffLoop === true ? 'PRAGMA synchronous = NORMAL' : 'PRAGMA synchronous = FULL');
  db.exec('CREATE TABLE calls (id INTEGER PRIMARY KEY, proposal TEXT NOT NULL, consumed INTEGER NOT NULL DEFAULT 0, result TEXT) STRICT');
  const insert = db.prepare('INSERT INTO calls (proposal) VALUES (?)');
  const insertConsumed = db.prepare('INSERT INTO calls (proposal, consumed) VALUES (?, 1)');
  const consume = db.prepare('UPDATE calls SET consumed = 1 WHERE id = ? AND consumed = 0');
  const complete = db.prepare('UPDATE calls SET result = ? WHERE id = ? AND consumed = 1 AND result IS NULL');
  const walSync = options.syncOffLoop === true ? new WalSync(path) : undefined;
  const checkpointer = new BackgroundCheckpointer(path);
  let commits = 0;
  let jobs: Job[] = [];
  let scheduled = false;
  let paused = false;

  const schedule = (): void => {
    if (scheduled || paused || jobs.length === 0) return;
    scheduled = true;
    setImmediate(flush);
  };
  const flush = (): void => {
    scheduled = false;
    const batch = jobs;
    jobs = [];
    if (batch.length === 0) return;
    const values: unknown[] = [];
    try {
      walSync?.assertHealthy();
      db.exec('BEGIN IMMEDIATE');
      for (const job of batch) values.push(job.run());
      db.exec('COMMIT');
    } catch (error) {
      if (db.isTransaction) db.exec('ROLLBACK');
      for (const job of batch) job.reject(error);
      return;
    }
    commits++;
    checkpointer.noteCommit();
    const settle = (failure?: unknown): void => {
      for (const [i, job] of batch.entries()) {
        if (failure === undefined) job.resolve(values[i]);
        else job.reject(failure);
      }
    };
    if (walSync === undefined) {
      settle();
      return;
    }
    // Alone, with no fdatasync in flight: flushed here, at once (as the store does).
    const flushed = batch.length === 1 ? walSync.syncNowIfIdle() : 'busy';
    if (flushed !== 'busy') {
      settle(flushed);
      return;
    }
    paused = true;
    walSync.afterCommit((failure) => {
      paused = false;
      settle(failure);
      schedule();
    });
  };
  const write = <T>(run: () => T): Promise<T> =>
    new Promise((resolve, reject) => {
      jobs.push({ run, resolve: resolve as (value: unknown) => void, reject });
      schedule();
    });
  const changedOne = (statement: StatementSync, ...params: (string | number)[]) => statement.run(...params).changes === 1;

  return {
    propose: (proposal) => write(() => String(insert.run(proposal).lastInsertRowid)),
    proposeConsumed: (proposal) => write(() => String(insertConsumed.run(proposal).lastInsertRowid)),
    consume: (id) => write(() => changedOne(consume, Number(id))),
    complete: (id, result) => write(() => changedOne(complete, result, Number(id))),
    commits: () => commits,
    close: async () => {
      paused = false;
      flush();
      walSync?.close();
      await checkpointer.stop();
      db.close();
    },
  };
}
