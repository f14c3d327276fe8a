import { resolve } from 'node:path';
import type { AuditLog } from '@countersign/core/audit';
import type { CountersignStore } from '@countersign/core/gate';
import type { LedgerStore } from '@countersign/core/ledger';
import type { SessionRevocationStore } from '@countersign/core/session';
import type { DefinitionStore } from '@countersign/core/catalog';
import type { PasskeyStore } from '@countersign/core/passkey';
import { SqliteConnection } from './connection.ts';
import { openDatabase, openDatabaseReadOnly } from './database.ts';
import { SqliteAuditLog } from './sqlite-audit-log.ts';
import { SqliteDefinitionStore } from './sqlite-definition-store.ts';
import { SqliteLedger } from './sqlite-ledger.ts';
import { SqliteSessionRevocations } from './sqlite-session-revocations.ts';
import { SqlitePasskeyStore } from './sqlite-passkey-store.ts';

export const DEFAULT_SQLITE_PATH = '.countersign/countersign.sqlite';

export interface SqliteStoreOptions {
  /** Database file; relative paths resolve against the working directory. Parent directories are created. */
  path?: string | undefined;
  /** How long a writer waits for another process's write lock before failing with store_unavailable. Default 5000. */
  busyTimeoutMs?: number | undefined;
  /**
   * Run each commit's fsync on libuv's thread pool instead of inside COMMIT on the event
   * loop (synchronous = NORMAL plus our own fdatasync of the WAL before any caller hears
   * of the commit). Default false: synchronous = FULL. Every reported outcome is as
   * durable as under FULL; what is weaker: for about one fsync, a committed batch is
   * visible to reads (this process's and other processes') before it is on disk, so a
   * read may show a state a power cut takes back. See WalSync.
   */
  syncOffLoop?: boolean | undefined;
  /**
   * Where WAL checkpoints run: 'background' (default), on a worker thread with its own
   * connection, started after the first few hundred commits; 'inline', SQLite's default,
   * inside a COMMIT on the event loop every ~1,000 WAL pages. See BackgroundCheckpointer.
   */
  checkpoint?: 'background' | 'inline' | undefined;
  /** Read an existing database without creating, migrating or writing anything (audit verify). */
  readOnly?: boolean | undefined;
}

/** A `CountersignStore` (give it to `createGate({ store })` whole), plus what this store adds. */
export interface SqliteStore extends CountersignStore {
  readonly ledger: LedgerStore;
  readonly audit: AuditLog;
  /** Logged-out login sessions, so a logout survives a restart. */
  readonly sessions: SessionRevocationStore;
  /** Tool definitions by digest, pins and agent registrations (pass to the gate as `definitions`). */
  readonly definitions: DefinitionStore;
  /** Approvers' registered passkeys (passkey-signed approvals). */
  readonly passkeys: PasskeyStore;
  /** Absolute path of the database file. */
  readonly path: string;
  /** Write transactions (COMMITs) this process has made on the file so far; one group commit counts once. */
  readonly durableCommits: () => number;
  /** Closes the database; later calls on `ledger` and `audit` fail with store_unavailable. */
  close(): Promise<void>;
}

/**
 * Opens (creating if needed) the embedded store and brings its schema up to date.
 * One file may be shared by several processes on one machine; for several
 * machines use @countersign/store-postgres.
 */
export function openSqliteStore(options: SqliteStoreOptions = {}): SqliteStore {
  const path = resolve(options.path ?? DEFAULT_SQLITE_PATH);
  const busyTimeoutMs = options.busyTimeoutMs ?? 5_000;
  const readOnly = options.readOnly === true;
  const syncOffLoop = !readOnly && options.syncOffLoop === true;
  const db = readOnly ? openDatabaseReadOnly(path, busyTimeoutMs) : openDatabase(path, busyTimeoutMs, { syncOffLoop });
  const conn = new SqliteConnection(db, { path, syncOffLoop, checkpoint: readOnly ? 'inline' : options.checkpoint });
  const audit = new SqliteAuditLog(conn);
  return {
    // One connection: the ledger appends its audit records in its own transactions.
    ledger: new SqliteLedger(conn, audit),
    audit,
    sessions: new SqliteSessionRevocations(conn),
    definitions: new SqliteDefinitionStore(conn),
    passkeys: new SqlitePasskeyStore(conn, audit),
    path,
    durableCommits: () => conn.commits,
    close: async () => {
      conn.close();
      await conn.checkpointerStopped;
    },
  };
}
