import { type AuditEvent, verifyChain } from '@countersign/core/audit';
import { sampleProposal } from '@countersign/core/testing';
import { describe, expect, it } from 'vitest';
import { SqliteConnection } from './connection.ts';
import { openDatabase } from './database.ts';
import { SqliteAuditLog } from './sqlite-audit-log.ts';
import type { SqliteLedger } from './sqlite-ledger.ts';
import { tempParts } from './testing/temp-parts.ts';
import { cleanupAfterEach } from './testing/cleanup-after-each.ts';

// SqliteAuditLog starts an append from the head the previous append in the same write
// transaction left, instead of reading it again. These attack that shortcut: any write
// it cannot see must make it read the table.

const T0 = Date.UTC(2026, 0, 1);
const event = (at: number): AuditEvent => ({ type: 'dispatch', at });

describe('sqlite audit head reuse within a write transaction', () => {
  const defer = cleanupAfterEach();
  function open() {
    const t = tempParts();
    defer(t.cleanup);
    return t;
  }

  it('a batch item that appended and then failed is undone, and the next item chains on the head before it', async () => {
    const { conn, audit } = open();
    await audit.append(event(T0));
    const before = conn.commits;
    const [first, failed, next] = await Promise.allSettled([
      audit.append(event(T0 + 1)),
      conn.write(() => {
        audit.appendInTransaction([event(T0 + 2)]);
        throw new Error('fails after appending');
      }),
      audit.append(event(T0 + 3)),
    ]);
    expect(conn.commits - before).toBe(1);
    expect(failed).toMatchObject({ status: 'rejected', reason: { message: 'fails after appending' } });
    expect(first).toMatchObject({ status: 'fulfilled', value: { seq: 2 } });
    expect(next).toMatchObject({ status: 'fulfilled', value: { seq: 3 } });
    const records = await audit.read();
    expect(records.map((r) => r.at)).toEqual([T0, T0 + 1, T0 + 3]);
    expect(verifyChain(records).ok).toBe(true);
  });

  it('a lone write that appended and then failed (whole transaction rolled back) leaves the next append on the old head', async () => {
    const { conn, audit } = open();
    await audit.append(event(T0));
    await expect(
      conn.write(() => {
        audit.appendInTransaction([event(T0 + 1)]);
        throw new Error('fails after appending');
      }),
    ).rejects.toThrow('fails after appending');
    expect(await audit.append(event(T0 + 2))).toMatchObject({ seq: 2 });
    expect(verifyChain(await audit.read()).ok).toBe(true);
  });

  it('appends another process made between two of our transactions are chained on, not overwritten or forked', async () => {
    const { audit, path } = open();
    await audit.append(event(T0));
    const otherConn = new SqliteConnection(openDatabase(path, 5_000), { path, checkpoint: 'inline' });
    const other = new SqliteAuditLog(otherConn);
    try {
      await other.append(event(T0 + 1));
      await other.append(event(T0 + 2));
    } finally {
      otherConn.close();
    }
    expect(await audit.append(event(T0 + 3))).toMatchObject({ seq: 4 });
    const records = await audit.read();
    expect(records.map((r) => r.seq)).toEqual([1, 2, 3, 4]);
    expect(verifyChain(records).ok).toBe(true);
  });
});

describe('sqlite recordProposal without a duplicate-id SELECT', () => {
  it('a taken proposal id under a new run is refused as duplicate_id and leaves no trace of the new run', async () => {
    const t = tempParts();
    try {
      const ledger: SqliteLedger = t.ledger;
      const p = sampleProposal();
      await ledger.recordProposal(p);
      const clash = sampleProposal({ proposalId: p.proposalId, runId: 'another-run', callId: 'another-call' });
      await expect(ledger.recordProposal(clash)).rejects.toMatchObject({ name: 'LedgerError', code: 'duplicate_id' });
      expect(await ledger.getRunOwner('another-run')).toBeUndefined();
      expect(await ledger.findProposalByCall('another-run', 'another-call')).toBeUndefined();
      expect((await ledger.getProposal(p.proposalId))?.runId).toBe(p.runId);
    } finally {
      await t.cleanup();
    }
  });
});
