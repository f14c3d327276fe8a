import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { verifyChain } from '@countersign/core/audit';
import { describeGateAttacks, inProcessAttackAdapter, runAtomicAuditConformance, sampleProposal } from '@countersign/core/testing';
import { describe, expect, it } from 'vitest';
import { BackgroundCheckpointer } from './background-checkpoint.ts';
import { SqliteAuditLog } from './sqlite-audit-log.ts';
import { SqliteLedger } from './sqlite-ledger.ts';
import { tempParts } from './testing/temp-parts.ts';
import { cleanupAfterEach } from './testing/cleanup-after-each.ts';

/** A ledger with its audit log whose checkpoint worker starts at the first commit, so it runs beside every write of a suite. */
function checkpointedFromTheStart() {
  const t = tempParts({ checkpointAfterCommits: 1, checkpointAtFrames: 1 });
  const audit = new SqliteAuditLog(t.conn);
  return { ...t, ledger: new SqliteLedger(t.conn, audit), audit };
}

// Every guarantee holds with the worker copying pages back while the loop writes.
describeGateAttacks('in-process gate, SQLite store, checkpoints on a worker from the first commit', async () => {
  const t = checkpointedFromTheStart();
  return inProcessAttackAdapter({ ledger: t.ledger, audit: t.audit, close: t.cleanup });
});

runAtomicAuditConformance('sqlite, checkpoints on a worker from the first commit', async () => {
  const t = checkpointedFromTheStart();
  return { ledger: t.ledger, audit: t.audit, cleanup: t.cleanup };
});

/** Polls `done` (a worker thread makes progress on its own clock); fails after `tries` × 10 ms. */
async function eventually(done: () => boolean, tries = 1_000): Promise<void> {
  for (let i = 0; i < tries; i++) {
    if (done()) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error('condition not reached');
}

describe('sqlite background checkpoints', () => {
  const defer = cleanupAfterEach();

  it('the worker copies committed pages into the database file itself, and close waits for it', async () => {
    const t = tempParts({ checkpointAfterCommits: 1, checkpointAtFrames: 1 });
    defer(t.cleanup);
    const audit = new SqliteAuditLog(t.conn);
    const ledger = new SqliteLedger(t.conn, audit);
    const ids: string[] = [];
    for (let i = 0; i < 50; i++) {
      const p = sampleProposal();
      ids.push(p.proposalId);
      await ledger.recordProposal(p, { audit: () => [{ type: 'proposal', at: p.createdAt, proposalId: p.proposalId }] });
    }
    expect(t.conn.checkpointer?.running).toBe(true);
    // The main file alone, without its WAL: what it holds was copied there by a checkpoint,
    // and the loop's own autocheckpoint (every ~1,000 frames) has not fired for 50 writes.
    const copyDir = mkdtempSync(join(tmpdir(), 'countersign-ckpt-copy-'));
    defer(() => rmSync(copyDir, { recursive: true, force: true }));
    const countInMainFile = (): number => {
      copyFileSync(t.path, join(copyDir, 'copy.sqlite'));
      const copy = new DatabaseSync(join(copyDir, 'copy.sqlite'));
      try {
        return Number(copy.prepare('SELECT count(*) AS n FROM proposals').get()!.n);
      } catch {
        return 0; // copied mid-write: try again
      } finally {
        copy.close();
      }
    };
    await eventually(() => countInMainFile() === ids.length);
    expect(t.conn.checkpointer!.runs).toBeGreaterThan(0);
    const records = await audit.read();
    expect(verifyChain(records).ok).toBe(true);

    t.conn.close();
    await t.conn.checkpointerStopped;
    expect(t.conn.checkpointer!.running).toBe(false);
    expect(t.conn.checkpointer!.failed).toBe(false);
  });

  it('below its frame mark the worker copies nothing (no extra fsyncs on a lightly used store)', async () => {
    const t = tempParts({ checkpointAfterCommits: 1, checkpointAtFrames: 1_000_000 });
    defer(t.cleanup);
    for (let i = 0; i < 20; i++) await t.ledger.recordProposal(sampleProposal());
    expect(t.conn.checkpointer?.running).toBe(true);
    // Long enough: a worker copying on every look would have run by now.
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(t.conn.checkpointer!.runs).toBe(0);
  });

  it('the worker does not poll: commits far from its frame mark wake it a few times, not once per commit or every few milliseconds', async () => {
    const t = tempParts({ checkpointAfterCommits: 1, checkpointAtFrames: 1_000_000 });
    defer(t.cleanup);
    // 40 commits 10 ms apart: a worker woken per commit, or looking every 5 ms while commits come, looks about 40 times.
    for (let i = 0; i < 40; i++) {
      await t.ledger.recordProposal(sampleProposal());
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect(t.conn.checkpointer?.running).toBe(true);
    expect(t.conn.checkpointer!.looks).toBeGreaterThan(0);
    expect(t.conn.checkpointer!.looks).toBeLessThanOrEqual(10);
    expect(t.conn.checkpointer!.runs).toBe(0);
  });

  it('the worker is woken when the commits it expects reach its frame mark, and copies them', async () => {
    const t = tempParts({ checkpointAfterCommits: 1, checkpointAtFrames: 100 });
    defer(t.cleanup);
    let commits = 0;
    while (t.conn.checkpointer!.runs === 0 && commits < 2_000) {
      await t.ledger.recordProposal(sampleProposal());
      commits++;
    }
    expect(t.conn.checkpointer!.runs).toBeGreaterThan(0);
    // Each commit writes a few frames: the mark is some tens of commits away, reached in a few looks.
    expect(t.conn.checkpointer!.looks).toBeLessThan(commits / 2);
  });

  it('a store that commits less than the threshold starts no thread', async () => {
    const t = tempParts({ checkpointAfterCommits: 10 });
    defer(t.cleanup);
    for (let i = 0; i < 9; i++) await t.ledger.recordProposal(sampleProposal());
    expect(t.conn.checkpointer?.running).toBe(false);
    await t.ledger.recordProposal(sampleProposal());
    expect(t.conn.checkpointer?.running).toBe(true);
  });

  it("'inline' keeps SQLite's own checkpoints and no worker", async () => {
    const t = tempParts({ checkpoint: 'inline', checkpointAfterCommits: 1 });
    defer(t.cleanup);
    await t.ledger.recordProposal(sampleProposal());
    expect(t.conn.checkpointer).toBeUndefined();
  });

  // POSIX drops ALL of a process's fcntl locks on a file when ANY descriptor of it is closed
  // (sqlite.org/howtocorrupt.html §2.2). SQLite's own connections share one descriptor per
  // file for this reason; a raw descriptor of the -shm (the WAL-index, whose locks order the
  // processes sharing the store: who writes, who reads which frames, who was first) must
  // therefore never be closed while this process may hold SQLite locks on it.
  it.skipIf(!existsSync('/proc/locks'))('a worker that exits (close, or a failure) leaves the connection beside it its WAL-index locks', async () => {
    const t = tempParts({ checkpoint: 'inline' });
    defer(t.cleanup);
    await t.ledger.recordProposal(sampleProposal());
    const shm = statSync(`${t.path}-shm`);
    // This process's locks on the -shm file: at least the shared lock every open connection holds.
    const shmLocks = () =>
      readFileSync('/proc/locks', 'utf8')
        .split('\n')
        .filter((line) => line.split(/\s+/)[4] === String(process.pid) && line.split(/\s+/)[5]?.endsWith(`:${shm.ino}`));
    expect(shmLocks().length).toBeGreaterThan(0);

    const checkpointer = new BackgroundCheckpointer(t.path, { startAfterCommits: 1, atFrames: 1 });
    checkpointer.noteCommit();
    for (let i = 0; i < 20 && checkpointer.runs === 0; i++) {
      await t.ledger.recordProposal(sampleProposal());
      checkpointer.noteCommit();
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    await eventually(() => checkpointer.runs > 0);
    await checkpointer.stop();
    expect(checkpointer.failed).toBe(false);
    // The loop's connection is still open and still relies on them.
    expect(shmLocks().length).toBeGreaterThan(0);
    expect(await t.ledger.recordProposal(sampleProposal())).toMatchObject({ ok: true });
  });

  it('a worker that cannot open the file (deleted under the store) does not recreate it, and none is started again', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'countersign-ckpt-gone-'));
    defer(() => rmSync(dir, { recursive: true, force: true }));
    const gone = join(dir, 'gone.sqlite');
    // Its WAL-index is still there (the worker's descriptor of it is opened before the worker starts).
    writeFileSync(`${gone}-shm`, '');
    const checkpointer = new BackgroundCheckpointer(gone, { startAfterCommits: 1 });
    checkpointer.noteCommit();
    expect(checkpointer.running).toBe(true);
    await eventually(() => !checkpointer.running);
    expect(checkpointer.failed).toBe(true);
    checkpointer.noteCommit();
    expect(checkpointer.running).toBe(false);
    // mode=rw: an empty database was not created where the store's file used to be.
    expect(() => new DatabaseSync(gone, { readOnly: true })).toThrow();
    await checkpointer.stop();
  });
});
