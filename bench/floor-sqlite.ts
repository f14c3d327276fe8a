import { DatabaseSync, type StatementSync } from 'node:sqlite';
import { BackgroundCheckpointer } from '../packages/store-sqlite/src/background-checkpoint.ts';
import type { FloorStore } from './floor-store.ts';

interface Job {
  run: () => unknown;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

/**
 * The floor's SQLite file: WAL, synchronous = FULL (every COMMIT fsynced before anyone hears
 * of it), group commit as the store does it (every write submitted during one turn of the
 * event loop joins one BEGIN IMMEDIATE … COMMIT, flushed on setImmediate) and the store's
 * own background checkpointer, so the floor batches and checkpoints at least as well as the
 * store. Leaner than the store on purpose: no savepoint per batched write (these statements
 * cannot fail alone; any error rolls the whole batch back and fails every write in it), no
 * file-identity checks, one table.
 */
export function openSqliteFloor(path: string): FloorStore {
  const db = new DatabaseSync(path);
  db.exec('PRAGMA journal_mode = WAL');
  db.exec('PRAGMA synchronous = FULL');
  db.exec('CREATE TABLE calls (id INTEGER PRIMARY KEY, proposal TEXT NOT NULL, consumed INTEGER NOT NULL DEFAULT 0, result TEXT) STRICT');
  const insert = db.prepare('INSERT INTO calls (proposal) VALUES (?)');
  const consume = db.prepare('UPDATE calls SET consumed = 1 WHERE id = ? AND consumed = 0');
  const complete = db.prepare('UPDATE calls SET result = ? WHERE id = ? AND consumed = 1 AND result IS NULL');
  const checkpointer = new BackgroundCheckpointer(path);
  let commits = 0;
  let jobs: Job[] = [];
  let scheduled = false;

  const flush = (): void => {
    scheduled = false;
    const batch = jobs;
    jobs = [];
    if (batch.length === 0) return;
    const values: unknown[] = [];
    try {
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
    for (const [i, job] of batch.entries()) job.resolve(values[i]);
  };
  const write = <T>(run: () => T): Promise<T> =>
    new Promise((resolve, reject) => {
      jobs.push({ run, resolve: resolve as (value: unknown) => void, reject });
      if (!scheduled) {
        scheduled = true;
        setImmediate(flush);
      }
    });
  const changedOne = (statement: StatementSync, ...params: (string | number)[]) => statement.run(...params).changes === 1;

  return {
    propose: (proposal) => write(() => String(insert.run(proposal).lastInsertRowid)),
    consume: (id) => write(() => changedOne(consume, Number(id))),
    complete: (id, result) => write(() => changedOne(complete, result, Number(id))),
    commits: () => commits,
    close: async () => {
      if (jobs.length > 0) flush();
      await checkpointer.stop();
      db.close();
    },
  };
}
