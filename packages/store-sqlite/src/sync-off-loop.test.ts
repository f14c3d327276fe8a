import { fdatasync, fdatasyncSync } from 'node:fs';
import { verifyChain } from '@countersign/core/audit';
import { LedgerError } from '@countersign/core/ledger';
import { describeGateAttacks, inProcessAttackAdapter, runAtomicAuditConformance, sampleProposal } from '@countersign/core/testing';
import { describe, expect, it } from 'vitest';
import { tempParts } from './testing/temp-parts.ts';
import { tempStore } from './testing/temp-store.ts';
import type { FdatasyncFn } from './wal-sync.ts';
import { cleanupAfterEach } from './testing/cleanup-after-each.ts';

// The opt-in syncOffLoop mode must hold every guarantee the default mode does.
describeGateAttacks('in-process gate, SQLite store, syncOffLoop', async () => {
  const t = tempStore({ syncOffLoop: true });
  return inProcessAttackAdapter({ ledger: t.store.ledger, audit: t.store.audit, close: t.cleanup });
});

runAtomicAuditConformance('sqlite syncOffLoop', async () => {
  const { store, cleanup } = tempStore({ syncOffLoop: true });
  return { ledger: store.ledger, audit: store.audit, cleanup };
});

/** An fdatasync the test completes by hand (or fails), counting calls. */
function heldSync() {
  const pending: Array<(error: NodeJS.ErrnoException | null) => void> = [];
  let calls = 0;
  const sync: FdatasyncFn = (fd, callback) => {
    calls++;
    // The real flush still runs, so the file is as durable as it would be; only the answer waits.
    fdatasync(fd, (error) => pending.push((injected) => callback(injected ?? error)));
  };
  const next = async (): Promise<(error: NodeJS.ErrnoException | null) => void> => {
    for (let i = 0; i < 1_000 && pending.length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 1));
    const done = pending.shift();
    if (done === undefined) throw new Error('no fdatasync was started');
    return done;
  };
  return { sync, next, calls: () => calls };
}

const settledYet = async (promise: Promise<unknown>): Promise<boolean> => {
  let settled = false;
  promise.then(
    () => (settled = true),
    () => (settled = true),
  );
  await new Promise((resolve) => setTimeout(resolve, 20));
  return settled;
};

describe('sqlite syncOffLoop: nothing is reported before its fsync', () => {
  const defer = cleanupAfterEach();
  function open(fdatasyncFn: FdatasyncFn) {
    const t = tempParts({ syncOffLoop: true, fdatasync: fdatasyncFn });
    defer(t.cleanup);
    return t;
  }

  it('a consume is answered only after the fdatasync that covers its COMMIT', async () => {
    const held = heldSync();
    const { ledger, conn } = open(held.sync);
    const p = sampleProposal();
    const recorded = ledger.recordProposal(p);
    (await held.next())(null);
    await recorded;

    const commitsBefore = conn.commits;
    const consumed = ledger.consume({ proposalId: p.proposalId, now: p.createdAt + 1 });
    const done = await held.next();
    // Committed (the COMMIT ran), not yet flushed: the caller must not have its grant.
    expect(conn.commits).toBe(commitsBefore + 1);
    expect(await settledYet(consumed)).toBe(false);
    done(null);
    expect(await consumed).toMatchObject({ ok: true });
  });

  it('writes arriving during an fsync wait, then commit together and share the next fsync', async () => {
    const held = heldSync();
    const { ledger, conn } = open(held.sync);
    const first = ledger.recordProposal(sampleProposal());
    const releaseFirst = await held.next();
    const before = conn.commits;
    const rest = Array.from({ length: 5 }, () => ledger.recordProposal(sampleProposal()));
    await new Promise((resolve) => setTimeout(resolve, 10));
    // Held back while the first batch's fsync runs: no COMMIT yet.
    expect(conn.commits).toBe(before);
    releaseFirst(null);
    await first;
    (await held.next())(null);
    expect((await Promise.all(rest)).every((r) => r.ok)).toBe(true);
    expect(conn.commits).toBe(before + 1);
    expect(held.calls()).toBe(2);
  });

  it('a failed fdatasync fails the batch with store_unavailable and every later write (latched)', async () => {
    const held = heldSync();
    const { ledger, audit } = open(held.sync);
    const p = sampleProposal();
    const recorded = ledger.recordProposal(p);
    (await held.next())(null);
    await recorded;

    const consumed = ledger.consume({ proposalId: p.proposalId, now: p.createdAt + 1 });
    (await held.next())(Object.assign(new Error('EIO: i/o error, fdatasync'), { code: 'EIO' }));
    const unavailable = (e: unknown) => e instanceof LedgerError && e.code === 'store_unavailable';
    await expect(consumed).rejects.toSatisfy(unavailable);
    // The kernel may have dropped the pages: a later fsync "succeeding" proves nothing.
    await expect(ledger.recordProposal(sampleProposal())).rejects.toSatisfy(unavailable);
    await expect(audit.append({ type: 'result', at: 1 })).rejects.toSatisfy(unavailable);
    expect(held.calls()).toBe(2);
  });

  it('close flushes what was committed and answers it', async () => {
    const { ledger, conn } = open(() => {
      // Never completes on its own: only close's own flush can answer the write.
    });
    const recorded = ledger.recordProposal(sampleProposal());
    expect(await settledYet(recorded)).toBe(false);
    conn.close();
    expect(await recorded).toMatchObject({ ok: true });
  });

  it('a store opened with syncOffLoop keeps its chain across reopen', async () => {
    const t = tempStore({ syncOffLoop: true });
    for (let i = 0; i < 5; i++) await t.store.audit.append({ type: 'dispatch', at: i });
    await t.store.close();
    const { openSqliteStore } = await import('./open.ts');
    const again = openSqliteStore({ path: t.path, syncOffLoop: true });
    try {
      expect(verifyChain(await again.audit.read())).toMatchObject({ ok: true, count: 5 });
    } finally {
      await again.close();
      await t.cleanup().catch(() => {});
    }
  });
});

describe('sqlite syncOffLoop: a write alone is flushed on the loop', () => {
  const defer = cleanupAfterEach();

  /** A store whose loop flush is watched (`onLoop`) and whose thread-pool flush is held by hand. */
  function open(onLoop: (fd: number) => void) {
    const held = heldSync();
    const t = tempParts({ syncOffLoop: true, fdatasync: held.sync, fdatasyncSync: onLoop, syncAloneOnLoop: true });
    defer(t.cleanup);
    return { ...t, held };
  }

  it('a lone consume is flushed before its promise can settle, on the loop, without the thread pool', async () => {
    const flushedAt: number[] = [];
    let conn: ReturnType<typeof open>['conn'] | undefined;
    const t = open((fd) => {
      // Runs after the COMMIT, inside the batch: nobody can have heard of it yet.
      flushedAt.push(conn!.commits);
      fdatasyncSync(fd);
    });
    conn = t.conn;
    const p = sampleProposal();
    await t.ledger.recordProposal(p);
    const consumed = await t.ledger.consume({ proposalId: p.proposalId, now: p.createdAt + 1 });
    expect(consumed).toMatchObject({ ok: true });
    expect(flushedAt).toEqual([1, 2]);
    expect(t.held.calls()).toBe(0);
  });

  it('a failed loop flush fails the write with store_unavailable and every later write (latched)', async () => {
    const t = open(() => {
      throw Object.assign(new Error('EIO: i/o error, fdatasync'), { code: 'EIO' });
    });
    const unavailable = (e: unknown) => e instanceof LedgerError && e.code === 'store_unavailable';
    await expect(t.ledger.recordProposal(sampleProposal())).rejects.toSatisfy(unavailable);
    await expect(t.audit.append({ type: 'result', at: 1 })).rejects.toSatisfy(unavailable);
  });

  it('while a thread-pool flush is in flight, a lone write waits for the next flush instead of syncing past it', async () => {
    let onLoop = 0;
    const t = open((fd) => {
      onLoop++;
      fdatasyncSync(fd);
    });
    // Two writes in one batch: the thread pool flushes them (held here).
    const pair = [t.ledger.recordProposal(sampleProposal()), t.ledger.recordProposal(sampleProposal())];
    const releasePair = await t.held.next();
    const lone = t.ledger.recordProposal(sampleProposal());
    expect(await settledYet(lone)).toBe(false);
    releasePair(null);
    expect((await Promise.all(pair)).every((r) => r.ok)).toBe(true);
    // The pool is idle again: the lone write, now a batch by itself, is flushed on the loop.
    expect(await lone).toMatchObject({ ok: true });
    expect(onLoop).toBe(1);
    expect(t.held.calls()).toBe(1);
  });
});
