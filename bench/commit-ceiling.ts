import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { Pool } from 'pg';
import { runWorkers } from './harness.ts';

/**
 * What the machine allows before any store logic, committed the way the SQLite store
 * commits: the store group-commits the writes of concurrent clients, so up to `batch`
 * (the number of clients) single-row UPDATEs share one BEGIN IMMEDIATE … COMMIT, with
 * the same durability settings. (Timing one commit per UPDATE would make the store look
 * faster than its own ceiling.)
 */
export function sqliteCommitCeiling(count: number, batch: number): number {
  const dir = mkdtempSync(join(tmpdir(), 'countersign-ceiling-'));
  const db = new DatabaseSync(join(dir, 'ceiling.sqlite'));
  try {
    db.exec("PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL; CREATE TABLE t (id INTEGER PRIMARY KEY, status TEXT)");
    const insert = db.prepare("INSERT INTO t VALUES (?, 'approved')");
    db.exec('BEGIN');
    for (let i = 0; i < count; i++) insert.run(i);
    db.exec('COMMIT');
    const update = db.prepare("UPDATE t SET status = 'consumed' WHERE id = ? AND status = 'approved'");
    const start = performance.now();
    for (let i = 0; i < count; i += batch) {
      db.exec('BEGIN IMMEDIATE');
      for (let j = i; j < Math.min(count, i + batch); j++) update.run(j);
      db.exec('COMMIT');
    }
    return count / ((performance.now() - start) / 1000);
  } finally {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** `clients` concurrent autocommit single-row UPDATEs on a table in `schema` (dropped with the schema). */
export async function postgresCommitCeiling(connectionString: string, schema: string, count: number, clients: number): Promise<number> {
  const pool = new Pool({ connectionString, max: clients, connectionTimeoutMillis: 3_000 });
  pool.on('error', () => {});
  try {
    const table = `"${schema}".commit_ceiling`;
    await pool.query(`CREATE TABLE ${table} (id integer PRIMARY KEY, status text)`);
    await pool.query(`INSERT INTO ${table} SELECT g, 'approved' FROM generate_series(0, $1::integer - 1) g`, [count]);
    let next = 0;
    const start = performance.now();
    await runWorkers(clients, async () => {
      for (let i = next++; i < count; i = next++) {
        await pool.query(`UPDATE ${table} SET status = 'consumed' WHERE id = $1 AND status = 'approved'`, [i]);
      }
    });
    return count / ((performance.now() - start) / 1000);
  } finally {
    await pool.end();
  }
}
