import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteConnection } from '../connection.ts';
import type { FdatasyncFn, FdatasyncSyncFn } from '../wal-sync.ts';
import { openDatabase } from '../database.ts';
import { SqliteAuditLog } from '../sqlite-audit-log.ts';
import { SqliteLedger } from '../sqlite-ledger.ts';

/**
 * A ledger and audit log on a new file, built from their parts so a test can watch
 * the shared connection (how many transactions it committed).
 */
export function tempParts(
  options: {
    busyTimeoutMs?: number;
    maxBatch?: number;
    syncOffLoop?: boolean;
    fdatasync?: FdatasyncFn;
    fdatasyncSync?: FdatasyncSyncFn;
    syncAloneOnLoop?: boolean;
    checkpoint?: 'background' | 'inline';
    checkpointAfterCommits?: number;
    checkpointAtFrames?: number;
  } = {},
): {
  conn: SqliteConnection;
  ledger: SqliteLedger;
  audit: SqliteAuditLog;
  path: string;
  cleanup: () => Promise<void>;
} {
  const dir = mkdtempSync(join(tmpdir(), 'countersign-sqlite-parts-'));
  const path = join(dir, 'countersign.sqlite');
  const conn = new SqliteConnection(openDatabase(path, options.busyTimeoutMs ?? 5_000, { syncOffLoop: options.syncOffLoop }), {
    maxBatch: options.maxBatch,
    path,
    syncOffLoop: options.syncOffLoop,
    fdatasync: options.fdatasync,
    fdatasyncSync: options.fdatasyncSync,
    // A test holding the thread pool's flush holds every batch's, lone writes included.
    syncAloneOnLoop: options.syncAloneOnLoop ?? (options.fdatasync === undefined),
    checkpoint: options.checkpoint,
    checkpointAfterCommits: options.checkpointAfterCommits,
    checkpointAtFrames: options.checkpointAtFrames,
  });
  return {
    conn,
    ledger: new SqliteLedger(conn),
    audit: new SqliteAuditLog(conn),
    path,
    cleanup: async () => {
      conn.close();
      await conn.checkpointerStopped;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
