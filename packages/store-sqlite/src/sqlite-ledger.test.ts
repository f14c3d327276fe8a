import { DatabaseSync } from 'node:sqlite';
import { LedgerError } from '@countersign/core/ledger';
import type { NewApprovalRequest } from '@countersign/core/ledger';
import { runLedgerConformance, sampleProposal } from '@countersign/core/testing';
import { describe, expect, it } from 'vitest';
import { tempStore } from './testing/temp-store.ts';
import { cleanupAfterEach } from './testing/cleanup-after-each.ts';

runLedgerConformance('sqlite', async () => {
  const { store, cleanup } = tempStore();
  return { store: store.ledger, cleanup };
});

function requestFor(proposalId: string, extra: Partial<NewApprovalRequest> = {}): NewApprovalRequest {
  return { requestId: `req-${proposalId}`, proposalId, createdAt: 1_000, expiresAt: 61_000, requiredApprovals: 2, eligible: { roles: ['approver'] }, ...extra };
}

describe('sqlite ledger specifics', () => {
  const defer = cleanupAfterEach();
  function open(options: Parameters<typeof tempStore>[0] = {}) {
    const t = tempStore(options);
    defer(t.cleanup);
    return t;
  }

  it('a request returned by createApprovalRequest or recordProposal (built, not read back) equals the stored one, and is a copy', async () => {
    const { store } = open();
    const first = sampleProposal();
    await store.ledger.recordProposal(first);
    const input = requestFor(first.proposalId, { ruleId: 'payments', passkey: 'required', ruleDescription: 'Payments need a person', eligible: { roles: ['finance'], approvers: ['bob'] } });
    const created = await store.ledger.createApprovalRequest(input);
    expect(created).toEqual(await store.ledger.getApprovalRequest(input.requestId));
    (input.eligible as { roles: string[] }).roles.push('anyone');
    expect(created.eligible).toEqual({ roles: ['finance'], approvers: ['bob'] });

    const second = sampleProposal();
    const bare = requestFor(second.proposalId);
    const recorded = await store.ledger.recordProposal(second, { request: bare });
    expect(recorded.ok && recorded.request).toEqual(await store.ledger.getApprovalRequest(bare.requestId));
    expect(recorded.ok && recorded.request).not.toHaveProperty('ruleId');
  });

  it('a closed store rejects every call with store_unavailable', async () => {
    const { store } = open();
    const p = sampleProposal();
    await store.ledger.recordProposal(p);
    await store.close();
    const calls: Promise<unknown>[] = [
      store.ledger.recordProposal(sampleProposal()),
      store.ledger.getProposal(p.proposalId),
      store.ledger.consume({ proposalId: p.proposalId, now: 1 }),
      store.ledger.listApprovalRequests({}, 1),
      store.ledger.revokeApproval('r', 1),
      store.audit.append({ type: 'dispatch', at: 1 }),
      store.audit.head(),
    ];
    for (const call of calls) {
      await expect(call).rejects.toSatisfy((e) => e instanceof LedgerError && e.code === 'store_unavailable');
    }
  });

  it('a write lock held by another process past busy_timeout is store_unavailable, then recovers', async () => {
    const { store, path } = open({ busyTimeoutMs: 100 });
    const p = sampleProposal();
    await store.ledger.recordProposal(p);
    const other = new DatabaseSync(path);
    other.exec('BEGIN IMMEDIATE');
    // The lock is held until the ROLLBACK below: only busy_timeout can end this write.
    await expect(store.ledger.consume({ proposalId: p.proposalId, now: 1 })).rejects.toMatchObject({
      name: 'LedgerError',
      code: 'store_unavailable',
    });
    // Reads are not blocked by a writer under WAL.
    expect((await store.ledger.getProposal(p.proposalId))?.state).toBe('proposed');
    other.exec('ROLLBACK');
    other.close();
    expect(await store.ledger.consume({ proposalId: p.proposalId, now: 1 })).toMatchObject({ ok: true });
  });

  it('stores times as integers and arguments as text', async () => {
    const { store, path } = open();
    const p = sampleProposal();
    await store.ledger.recordProposal(p);
    await store.ledger.consume({ proposalId: p.proposalId, now: p.createdAt + 5 });
    const db = new DatabaseSync(path, { readOnly: true });
    const row = db
      .prepare('SELECT typeof(created_at) AS c, typeof(dispatched_at) AS d, typeof(canonical_args) AS a FROM proposals WHERE proposal_id = ?')
      .get(p.proposalId);
    db.close();
    expect(row).toEqual({ c: 'integer', d: 'integer', a: 'text' });
  });

  it('a status filter is bound as a value, never spliced into SQL', async () => {
    const { store } = open();
    const p = sampleProposal();
    await store.ledger.recordProposal(p);
    await store.ledger.createApprovalRequest({
      requestId: 'req-1',
      proposalId: p.proposalId,
      createdAt: 1,
      expiresAt: 2,
      requiredApprovals: 1,
      eligible: {},
    });
    const evil = "pending' OR 1=1 --" as 'pending';
    expect(await store.ledger.listApprovalRequests({ status: evil }, 1)).toEqual([]);
    expect(await store.ledger.listApprovalRequests({}, 1)).toHaveLength(1);
  });

  it('duplicate ids are typed errors and change nothing', async () => {
    const { store } = open();
    const p = sampleProposal();
    await store.ledger.recordProposal(p);
    await expect(store.ledger.recordProposal(sampleProposal({ proposalId: p.proposalId }))).rejects.toMatchObject({
      code: 'duplicate_id',
    });
    const req = { requestId: 'req-1', proposalId: p.proposalId, createdAt: 1, expiresAt: 2, requiredApprovals: 1, eligible: {} };
    await expect(store.ledger.createApprovalRequest({ ...req, proposalId: 'missing' })).rejects.toMatchObject({
      code: 'not_found',
    });
    await store.ledger.createApprovalRequest(req);
    const other = sampleProposal();
    await store.ledger.recordProposal(other);
    await expect(store.ledger.createApprovalRequest({ ...req, proposalId: other.proposalId })).rejects.toMatchObject({
      code: 'duplicate_id',
    });
    expect(await store.ledger.findApprovalRequestByProposal(other.proposalId)).toBeUndefined();
    expect(await store.ledger.recordResult('missing', { status: 'failed', resultDigest: 'x', at: 1 })).toEqual({ ok: false, reason: 'not_found' });
  });

  // recordProposal and consume answer with a proposal built in memory instead of
  // reading the row back: it must be exactly what a read returns, key for key.
  it('the proposals recordProposal and consume return equal what getProposal reads back', async () => {
    const { store } = open();
    const bare = sampleProposal({ responseRef: undefined });
    const full = sampleProposal({ definitionDigest: 'd'.repeat(64), parentProposalId: 'parent-1' });
    for (const input of [bare, full]) {
      const created = await store.ledger.recordProposal(input);
      expect(created.ok && created.proposal).toStrictEqual(await store.ledger.getProposal(input.proposalId));
      expect(created.ok && Object.keys(created.proposal)).not.toContain('dispatchedAt');
      const consumed = await store.ledger.consume({ proposalId: input.proposalId, now: input.createdAt + 5 });
      expect(consumed.ok && consumed.proposal).toStrictEqual(await store.ledger.getProposal(input.proposalId));
    }
    expect(Object.keys((await store.ledger.getProposal(bare.proposalId))!)).not.toContain('responseRef');
  });
});
