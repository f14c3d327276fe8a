import { DatabaseSync } from 'node:sqlite';
import { type AuditEvent, GENESIS_HASH, verifyChain } from '@countersign/core/audit';
import { type ConsumeResult, LedgerError } from '@countersign/core/ledger';
import { sampleProposal } from '@countersign/core/testing';
import { describe, expect, it } from 'vitest';
import type { SqliteLedger } from './sqlite-ledger.ts';
import { tempParts } from './testing/temp-parts.ts';
import { cleanupAfterEach } from './testing/cleanup-after-each.ts';

const T0 = Date.UTC(2026, 0, 1);
const KEPT = 'a'.repeat(64);
const UNDONE = 'b'.repeat(64);

async function approved(ledger: SqliteLedger, expiresAt = T0 + 60_000) {
  const p = sampleProposal();
  await ledger.recordProposal(p);
  const requestId = `req-${p.proposalId}`;
  await ledger.createApprovalRequest({ requestId, proposalId: p.proposalId, createdAt: T0, expiresAt, requiredApprovals: 1, eligible: {} });
  const tokenId = `tok-${p.proposalId}`;
  await ledger.addDecision(requestId, { approver: 'alice', decision: 'approve', at: T0 }, { now: T0, tokenIdIfApproved: tokenId });
  return { proposalId: p.proposalId, requestId, tokenId, approval: { requestId, tokenId } };
}

function isUnavailable(e: unknown): boolean {
  return e instanceof LedgerError && e.code === 'store_unavailable';
}

describe('sqlite group commit', () => {
  const defer = cleanupAfterEach();
  function open(options: Parameters<typeof tempParts>[0] = {}) {
    const t = tempParts(options);
    defer(t.cleanup);
    return t;
  }

  it('one batch with mixed outcomes: one transaction, each consume gets its own result, in order', async () => {
    const { conn, ledger } = open();
    const a = await approved(ledger);
    const b = await approved(ledger);
    const expired = await approved(ledger, T0 + 1_000);
    const revoked = await approved(ledger);
    await ledger.revokeApproval(revoked.requestId, T0 + 1);
    const mismatch = await approved(ledger);
    const bare = sampleProposal();
    await ledger.recordProposal(bare);
    const now = T0 + 5_000;

    const before = conn.commits;
    // Submitted in one turn of the event loop, so they share one transaction.
    const results = await Promise.all([
      ledger.consume({ proposalId: a.proposalId, approval: a.approval, now }),
      ledger.consume({ proposalId: a.proposalId, approval: a.approval, now }),
      ledger.consume({ proposalId: expired.proposalId, approval: expired.approval, now }),
      ledger.consume({ proposalId: revoked.proposalId, approval: revoked.approval, now }),
      ledger.consume({ proposalId: mismatch.proposalId, approval: { requestId: mismatch.requestId, tokenId: 'forged' }, now }),
      ledger.consume({ proposalId: 'missing', now }),
      ledger.consume({ proposalId: bare.proposalId, now }),
      ledger.consume({ proposalId: b.proposalId, approval: b.approval, now }),
      ledger.consume({ proposalId: bare.proposalId, now }),
    ]);
    expect(conn.commits - before).toBe(1);
    expect(results.map((r) => (r.ok ? 'ok' : r.reason))).toEqual([
      'ok',
      'already_consumed',
      'expired',
      'revoked',
      'token_mismatch',
      'not_found',
      'ok',
      'ok',
      'already_consumed',
    ]);
    expect(results[0]).toMatchObject({ ok: true, proposal: { proposalId: a.proposalId, state: 'dispatched', dispatchedAt: now } });
    expect(await ledger.getApprovalRequest(a.requestId)).toMatchObject({ status: 'consumed', consumedAt: now });
    expect(await ledger.getApprovalRequest(b.requestId)).toMatchObject({ status: 'consumed' });
    for (const untouched of [expired, revoked, mismatch]) {
      expect((await ledger.getProposal(untouched.proposalId))?.state).toBe('proposed');
    }
    expect((await ledger.getApprovalRequest(mismatch.requestId))?.status).toBe('approved');
  });

  it('an item that throws undoes only its own writes; the rest of its batch commits', async () => {
    const { conn, ledger, audit } = open();
    const a = await approved(ledger);
    const p = sampleProposal();
    await ledger.recordProposal(p);
    const before = conn.commits;
    const [consumed, duplicate, written, halfDone, appended] = await Promise.allSettled([
      ledger.consume({ proposalId: a.proposalId, approval: a.approval, now: T0 + 1 }),
      ledger.recordProposal(sampleProposal({ proposalId: p.proposalId })),
      conn.write(() => conn.statement('INSERT INTO audit_records VALUES (1000, ?, ?, ?)').run(GENESIS_HASH, KEPT, '{}')),
      conn.write(() => {
        conn.statement('INSERT INTO audit_records VALUES (1001, ?, ?, ?)').run(KEPT, UNDONE, '{}');
        throw new Error('fails after writing');
      }),
      audit.append({ type: 'dispatch', at: T0 }),
    ]);
    expect(conn.commits - before).toBe(1);
    expect(consumed).toMatchObject({ status: 'fulfilled', value: { ok: true } });
    expect(duplicate).toMatchObject({ status: 'rejected', reason: { name: 'LedgerError', code: 'duplicate_id' } });
    expect(written.status).toBe('fulfilled');
    expect(halfDone).toMatchObject({ status: 'rejected', reason: { message: 'fails after writing' } });
    // Appended after the kept row, in the same transaction: it chains on seq 1000.
    expect(appended).toMatchObject({ status: 'fulfilled', value: { seq: 1001, prevHash: KEPT } });
    const hashes = conn.read(() => conn.statement('SELECT hash FROM audit_records ORDER BY seq').all()).map((r) => r.hash);
    expect(hashes).toContain(KEPT);
    expect(hashes).not.toContain(UNDONE);
  });

  it('a write alone in its batch (no savepoint) that throws after writing leaves nothing; the next write commits', async () => {
    const { conn, ledger, audit } = open();
    const p = sampleProposal();
    await ledger.recordProposal(p);
    // Its own error (not an outage): it is rejected with it, and its half-done insert is gone.
    await expect(
      conn.write(() => {
        conn.statement('INSERT INTO audit_records VALUES (2000, ?, ?, ?)').run(GENESIS_HASH, UNDONE, '{}');
        throw new Error('fails after writing');
      }),
    ).rejects.toThrow('fails after writing');
    // A duplicate proposal id alone: the store's own typed error, nothing written.
    await expect(ledger.recordProposal(sampleProposal({ proposalId: p.proposalId }))).rejects.toMatchObject({ name: 'LedgerError', code: 'duplicate_id' });
    const hashes = conn.read(() => conn.statement('SELECT hash FROM audit_records ORDER BY seq').all()).map((r) => r.hash);
    expect(hashes).not.toContain(UNDONE);
    // The connection is not left inside a transaction: the next lone write commits and chains.
    const before = conn.commits;
    const record = await audit.append({ type: 'dispatch', at: T0 });
    expect(conn.commits - before).toBe(1);
    expect(record.seq).toBe(hashes.length + 1);
    expect((await verifyChain(await audit.read())).ok).toBe(true);
  });

  it('a failed COMMIT rejects every item of the batch with store_unavailable and writes nothing', async () => {
    const { conn, ledger, audit, path } = open();
    const a = await approved(ledger);
    const b = await approved(ledger);
    const headBefore = await audit.head();
    // A deferred foreign key is checked at COMMIT: consuming `b` leaves a dangling
    // reference, so this batch's COMMIT itself fails (SQLITE_CONSTRAINT_FOREIGNKEY).
    const saboteur = new DatabaseSync(path);
    saboteur.exec(`
      CREATE TABLE sabotage (ref TEXT REFERENCES proposals (proposal_id) DEFERRABLE INITIALLY DEFERRED) STRICT;
      CREATE TRIGGER sabotage AFTER UPDATE ON proposals WHEN NEW.proposal_id = '${b.proposalId}'
      BEGIN INSERT INTO sabotage VALUES ('no such proposal'); END;
    `);
    const before = conn.commits;
    const outcomes = await Promise.allSettled([
      ledger.consume({ proposalId: a.proposalId, approval: a.approval, now: T0 + 1 }),
      audit.append({ type: 'dispatch', at: T0, proposalId: a.proposalId }),
      ledger.consume({ proposalId: b.proposalId, approval: b.approval, now: T0 + 1 }),
      ledger.consume({ proposalId: 'missing', now: T0 + 1 }),
    ]);
    expect(conn.commits).toBe(before);
    for (const outcome of outcomes) {
      expect(outcome.status).toBe('rejected');
      if (outcome.status === 'rejected') expect(isUnavailable(outcome.reason)).toBe(true);
    }
    for (const x of [a, b]) {
      expect((await ledger.getProposal(x.proposalId))?.state).toBe('proposed');
      expect((await ledger.getApprovalRequest(x.requestId))?.status).toBe('approved');
    }
    expect(await audit.head()).toEqual(headBefore);
    expect(saboteur.prepare('SELECT count(*) AS n FROM sabotage').get()).toEqual({ n: 0 });

    // Nothing was consumed, so both approvals still work once the sabotage is gone.
    saboteur.exec('DROP TRIGGER sabotage');
    saboteur.close();
    expect(await ledger.consume({ proposalId: a.proposalId, approval: a.approval, now: T0 + 2 })).toMatchObject({ ok: true });
    expect(await ledger.consume({ proposalId: b.proposalId, approval: b.approval, now: T0 + 2 })).toMatchObject({ ok: true });
  });

  it('the write lock held elsewhere past busy_timeout rejects the whole batch; it runs fine afterwards', async () => {
    const { conn, ledger, path } = open({ busyTimeoutMs: 100 });
    const a = await approved(ledger);
    const other = new DatabaseSync(path);
    other.exec('BEGIN IMMEDIATE');
    const before = conn.commits;
    const outcomes = await Promise.allSettled([
      ledger.consume({ proposalId: a.proposalId, approval: a.approval, now: T0 + 1 }),
      ledger.revokeApproval(a.requestId, T0 + 1),
    ]);
    other.exec('ROLLBACK');
    other.close();
    expect(conn.commits).toBe(before);
    expect(outcomes.every((o) => o.status === 'rejected' && isUnavailable(o.reason))).toBe(true);
    expect(await ledger.consume({ proposalId: a.proposalId, approval: a.approval, now: T0 + 2 })).toMatchObject({ ok: true });
  });

  it('appends batched together keep submission order: consecutive seqs, one chain, a bad event rejected alone', async () => {
    const { conn, audit } = open({ maxBatch: 64 });
    await audit.append({ type: 'proposal', at: T0 });
    const before = conn.commits;
    const events: AuditEvent[] = Array.from({ length: 300 }, (_, i) => ({ type: 'dispatch', at: T0 + i, callId: `call-${i}` }));
    events[150] = { type: 'not-a-type', at: T0 } as unknown as AuditEvent;
    const outcomes = await Promise.allSettled(events.map((e) => audit.append(e)));
    // 300 appends at 64 per transaction.
    expect(conn.commits - before).toBe(Math.ceil(300 / 64));
    expect(outcomes[150]).toMatchObject({ status: 'rejected', reason: { name: 'AuditLogError', code: 'invalid_event' } });
    const seqs = outcomes.flatMap((o, i) => (i !== 150 && o.status === 'fulfilled' ? [o.value.seq] : []));
    expect(seqs).toEqual(Array.from({ length: 299 }, (_, i) => i + 2));
    const stored = await audit.read();
    expect(stored.map((r) => r.callId)).toEqual([undefined, ...events.filter((_, i) => i !== 150).map((e) => e.callId)]);
    expect(verifyChain(stored, { anchor: (await audit.head())! })).toMatchObject({ ok: true, count: 300 });
  });

  it('1,000 concurrent consumptions of one approval over several batches: exactly one success', async () => {
    const { conn, ledger } = open();
    const a = await approved(ledger);
    const before = conn.commits;
    const results: ConsumeResult[] = await Promise.all(
      Array.from({ length: 1000 }, () => ledger.consume({ proposalId: a.proposalId, approval: a.approval, now: T0 + 1 })),
    );
    // The batch cap (256) splits them over four transactions.
    expect(conn.commits - before).toBe(4);
    expect(results.filter((r) => r.ok)).toHaveLength(1);
    expect(results[0]?.ok).toBe(true);
    expect(results.filter((r) => !r.ok && r.reason === 'already_consumed')).toHaveLength(999);
  });

  it('writes queued when the store closes are committed first; later calls are store_unavailable', async () => {
    const { conn, ledger, audit } = open();
    const p = sampleProposal();
    await ledger.recordProposal(p);
    const consumed = ledger.consume({ proposalId: p.proposalId, now: T0 });
    const appended = audit.append({ type: 'dispatch', at: T0 });
    conn.close();
    expect(await consumed).toMatchObject({ ok: true });
    expect(await appended).toMatchObject({ seq: 1 });
    await expect(ledger.consume({ proposalId: p.proposalId, now: T0 })).rejects.toSatisfy(isUnavailable);
  });
});
