import { fdatasync } from 'node:fs';
import { verifyChain } from '@countersign/core/audit';
import { LedgerError } from '@countersign/core/ledger';
import { describeGateAttacks, inProcessAttackAdapter, runAtomicAuditConformance, sampleProposal } from '@countersign/core/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { tempParts } from './testing/temp-parts.ts';
import { tempStore } from './testing/temp-store.ts';
import type { FdatasyncFn } from './wal-sync.ts';

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
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0)) await c();
  });
  function open(fdatasyncFn: FdatasyncFn) {
    const t = tempParts({ syncOffLoop: true, fdatasync: fdatasyncFn });
    cleanups.push(t.cleanup);
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
