import { copyFileSync, renameSync, rmSync } from 'node:fs';
import { LedgerError } from '@countersign/core/ledger';
import { makeGateFixture, sampleProposal } from '@countersign/core/testing';
import { describe, expect, it } from 'vitest';
import { openSqliteStore } from './open.ts';
import { tempStore } from './testing/temp-store.ts';
import { cleanupAfterEach } from './testing/cleanup-after-each.ts';

const unavailable = (e: unknown) => e instanceof LedgerError && e.code === 'store_unavailable';

describe('sqlite: the database file deleted or replaced while open fails closed', () => {
  const defer = cleanupAfterEach();
  function open() {
    const t = tempStore();
    defer(t.cleanup);
    return t;
  }

  const tamperings: [string, (path: string) => void][] = [
    ['deleted', (path) => rmSync(path)],
    ['deleted with its WAL and shared memory', (path) => {
      for (const suffix of ['', '-wal', '-shm']) rmSync(`${path}${suffix}`, { force: true });
    }],
    ['replaced by a copy (same name, another file)', (path) => {
      copyFileSync(path, `${path}.copy`);
      renameSync(`${path}.copy`, path);
    }],
    ['left in place but its WAL deleted', (path) => rmSync(`${path}-wal`)],
  ];

  for (const [what, tamper] of tamperings) {
    it(`${what}: the next write and every later call refuse with store_unavailable`, async () => {
      const { store, path } = open();
      const p = sampleProposal();
      await store.ledger.recordProposal(p);
      tamper(path);

      await expect(store.ledger.consume({ proposalId: p.proposalId, now: p.createdAt + 1 })).rejects.toSatisfy(unavailable);
      // Latched: it keeps failing, reads included, even once a file is back at the path.
      await expect(store.ledger.recordProposal(sampleProposal())).rejects.toSatisfy(unavailable);
      await expect(store.audit.append({ type: 'dispatch', at: 1 })).rejects.toSatisfy(unavailable);
      await expect(store.ledger.getProposal(p.proposalId)).rejects.toSatisfy(unavailable);
      await expect(store.audit.head()).rejects.toSatisfy(unavailable);
    });
  }

  it('an untouched file keeps working (checkpoints do not count as a replaced WAL)', async () => {
    const { store, path } = open();
    for (let i = 0; i < 50; i++) await store.ledger.recordProposal(sampleProposal());
    // A second connection checkpointing and truncating the WAL must not trip the guard.
    const other = openSqliteStore({ path });
    await other.close();
    await store.ledger.recordProposal(sampleProposal());
    expect(await store.audit.head()).toBeUndefined();
  });

  it('gate: after the file is deleted an approved call is not executed', async () => {
    const { store, path } = open();
    const f = makeGateFixture({ ledger: store.ledger, audit: store.audit });
    const { call, token } = await f.proposeAndApprove();
    rmSync(path);
    // The store fails the consume and every read after it: the gate cannot learn whether
    // the approval was spent, so it says so (outcome_unknown), and nothing runs.
    expect(await f.gate.dispatch(f.dispatchFor(call, token))).toMatchObject({ status: 'not_approved', reason: 'outcome_unknown' });
    // So does a propose: its write failed and nothing can be read back to say it did not commit.
    expect(await f.gate.propose(f.call())).toMatchObject({ reason: 'outcome_unknown' });
    expect(f.executions).toHaveLength(0);
  });
});
