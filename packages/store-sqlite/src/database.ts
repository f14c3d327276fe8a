import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
// node:sqlite rather than better-sqlite3: it ships with Node (>= 22.5), so there is
// no native addon to compile and no prebuilt binary to download, and its synchronous
// API lets each store method run as one transaction without yielding the event loop.
import { DatabaseSync } from 'node:sqlite';
import { toStoreError } from './errors.ts';
import { migrate } from './migrations.ts';

/**
 * Opens `path` (creating its directory), sets the connection pragmas and applies pending migrations.
 * `syncOffLoop`: synchronous = NORMAL, for a SqliteConnection that fsyncs the WAL itself
 * (WalSync) before reporting any commit; never use it without one.
 */
export function openDatabase(path: string, busyTimeoutMs: number, options: { syncOffLoop?: boolean | undefined } = {}): DatabaseSync {
  mkdirSync(dirname(path), { recursive: true });
  let db: DatabaseSync;
  try {
    // `timeout` is busy_timeout: how long a writer waits for another connection's lock.
    db = new DatabaseSync(path, { timeout: busyTimeoutMs, enableForeignKeyConstraints: true });
  } catch (error) {
    throw toStoreError(error);
  }
  try {
    // WAL: readers never block the writer, and the writer never blocks readers.
    db.exec('PRAGMA journal_mode = WAL');
    // FULL, not NORMAL: with WAL, NORMAL may lose the last commits on power failure.
    // A lost `consume` would let an approval that already ran run again after a
    // reboot (invariant 5), and lost audit records would shorten the chain
    // undetectably; one fsync per commit is the price.
    db.exec(options.syncOffLoop === true ? 'PRAGMA synchronous = NORMAL' : 'PRAGMA synchronous = FULL');
    db.exec('PRAGMA foreign_keys = ON');
    migrate(db);
    return db;
  } catch (error) {
    db.close();
    throw toStoreError(error);
  }
}

/**
 * Opens an existing database for reading only (audit verification, export): never
 * creates the file or its directory, never migrates, and SQLite itself refuses any
 * write. A file without our tables fails instead of reading as an empty log.
 */
export function openDatabaseReadOnly(path: string, busyTimeoutMs: number): DatabaseSync {
  let db: DatabaseSync;
  try {
    db = new DatabaseSync(path, { readOnly: true, timeout: busyTimeoutMs });
  } catch (error) {
    throw toStoreError(error);
  }
  const table = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'audit_records'").get();
  if (table === undefined) {
    db.close();
    throw new Error(`${path} is not a countersign database (no audit_records table)`);
  }
  return db;
}
