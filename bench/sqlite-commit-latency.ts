import { closeSync, fdatasyncSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';

export interface CommitLatency {
  /** One SQLite commit of one small row, WAL + synchronous=FULL, as the store commits. */
  sqlite: { p50: number; p99: number };
  /** One 16 KiB append + fdatasync of a plain file: the disk alone. */
  fdatasync: { p50: number; p99: number };
}

/**
 * The floor under the SQLite 1-client latency: how long ONE durable commit takes on this disk,
 * sequentially (nothing to batch with), with the store's settings, next to a bare append +
 * fdatasync. A round trip needs 3 such commits in sequence (propose; consume + its record;
 * result + its record), and the consume must be durable before the tool runs, so its p50
 * cannot go below 3 × the commit's p50 without weakening durability.
 */
export function sqliteCommitLatency(count: number): CommitLatency {
  const dir = mkdtempSync(join(tmpdir(), 'countersign-commit-latency-'));
  try {
    const db = new DatabaseSync(join(dir, 'latency.sqlite'));
    const sqlite: number[] = [];
    try {
      db.exec('PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL; CREATE TABLE t (id INTEGER PRIMARY KEY, body TEXT)');
      const insert = db.prepare('INSERT INTO t VALUES (?, ?)');
      const body = 'x'.repeat(600);
      for (let i = 0; i < count; i++) {
        const t = performance.now();
        db.exec('BEGIN IMMEDIATE');
        insert.run(i, body);
        db.exec('COMMIT');
        sqlite.push(performance.now() - t);
      }
    } finally {
      db.close();
    }
    const fd = openSync(join(dir, 'append.bin'), 'a');
    const bare: number[] = [];
    try {
      const block = Buffer.alloc(16 * 1024, 1);
      for (let i = 0; i < count; i++) {
        const t = performance.now();
        writeSync(fd, block);
        fdatasyncSync(fd);
        bare.push(performance.now() - t);
      }
    } finally {
      closeSync(fd);
    }
    return { sqlite: quantiles(sqlite), fdatasync: quantiles(bare) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function quantiles(values: number[]): { p50: number; p99: number } {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
  return { p50: at(0.5), p99: at(0.99) };
}
