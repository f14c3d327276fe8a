import { LedgerError } from '@countersign/core';
import { runLedgerConformance, sampleProposal } from '@countersign/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PostgresStore } from './open.ts';
import { describePg, tempStore } from './testing/test-database.ts';

const T0 = Date.UTC(2026, 0, 1);

describePg('postgres ledger', () => {
  runLedgerConformance('postgres', async () => {
    const { store, cleanup } = await tempStore();
    return { store: store.ledger, cleanup };
  });

  describe('postgres specifics', () => {
    let store: PostgresStore;
    let cleanup: () => Promise<void>;
    beforeAll(async () => {
      ({ store, cleanup } = await tempStore());
    });
    afterAll(() => cleanup());

    async function approved(expiresAt = T0 + 60_000) {
      const p = sampleProposal();
      await store.ledger.recordProposal(p);
      const requestId = `req-${p.proposalId}`;
      await store.ledger.createApprovalRequest({
        requestId,
        proposalId: p.proposalId,
        createdAt: T0,
        expiresAt,
        requiredApprovals: 1,
        eligible: { approvers: ['alice'], principalSelf: true },
      });
      const tokenId = `tok-${p.proposalId}`;
      await store.ledger.addDecision(requestId, { approver: 'alice', decision: 'approve', at: T0 }, { now: T0, tokenIdIfApproved: tokenId });
      return { p, requestId, tokenId };
    }

    it('consume with and without the approval racing on one proposal: one wins, and the rows agree', async () => {
      for (let round = 0; round < 30; round++) {
        const { p, requestId, tokenId } = await approved();
        const [withApproval, without] = await Promise.all([
          store.ledger.consume({ proposalId: p.proposalId, approval: { requestId, tokenId }, now: T0 + 1 }),
          store.ledger.consume({ proposalId: p.proposalId, now: T0 + 1 }),
        ]);
        expect([withApproval.ok, without.ok].filter(Boolean)).toHaveLength(1);
        const request = await store.ledger.getApprovalRequest(requestId);
        // The request is consumed exactly when the approved call is the one that ran.
        expect(request?.status).toBe(withApproval.ok ? 'consumed' : 'approved');
      }
    });

    it('revoke racing consume: the call runs or the revoke holds, never both', async () => {
      for (let round = 0; round < 30; round++) {
        const { p, requestId, tokenId } = await approved();
        const [consumed, revoked] = await Promise.all([
          store.ledger.consume({ proposalId: p.proposalId, approval: { requestId, tokenId }, now: T0 + 1 }),
          store.ledger.revokeApproval(requestId, T0 + 1),
        ]);
        expect(consumed.ok !== revoked).toBe(true);
        const request = await store.ledger.getApprovalRequest(requestId);
        expect(request?.status).toBe(consumed.ok ? 'consumed' : 'revoked');
        if (!consumed.ok) expect(consumed.reason).toBe('revoked');
      }
    });

    it('concurrent decisions on a 2-of-n request: distinct approvers counted once each', async () => {
      const p = sampleProposal();
      await store.ledger.recordProposal(p);
      const requestId = `req-${p.proposalId}`;
      await store.ledger.createApprovalRequest({
        requestId,
        proposalId: p.proposalId,
        createdAt: T0,
        expiresAt: T0 + 60_000,
        requiredApprovals: 2,
        eligible: {},
      });
      const results = await Promise.all(
        ['a', 'b', 'c', 'a', 'b'].map((approver, i) =>
          store.ledger.addDecision(requestId, { approver, decision: 'approve', at: T0 + i }, { now: T0 + i, tokenIdIfApproved: `t-${i}` }),
        ),
      );
      expect(results.filter((r) => r.ok)).toHaveLength(2);
      const request = await store.ledger.getApprovalRequest(requestId);
      expect(request?.status).toBe('approved');
      expect(request?.decisions).toHaveLength(2);
      expect(new Set(request?.decisions.map((d) => d.approver)).size).toBe(2);
    });

    it('a status filter is bound as a value, never spliced into SQL', async () => {
      await approved();
      const evil = "pending' OR 1=1 --" as 'pending';
      expect(await store.ledger.listApprovalRequests({ status: evil }, T0)).toEqual([]);
      expect((await store.ledger.listApprovalRequests({ status: 'approved' }, T0)).length).toBeGreaterThan(0);
    });

    it('duplicate and dangling ids are typed errors', async () => {
      const p = sampleProposal();
      await store.ledger.recordProposal(p);
      await expect(store.ledger.recordProposal(sampleProposal({ proposalId: p.proposalId }))).rejects.toMatchObject({
        name: 'LedgerError',
        code: 'duplicate_id',
      });
      const req = { requestId: `r-${p.proposalId}`, proposalId: p.proposalId, createdAt: 1, expiresAt: 2, requiredApprovals: 1, eligible: {} };
      await expect(store.ledger.createApprovalRequest({ ...req, proposalId: 'missing' })).rejects.toMatchObject({
        code: 'not_found',
      });
      await store.ledger.createApprovalRequest(req);
      await expect(store.ledger.createApprovalRequest({ ...req, requestId: 'other' })).rejects.toMatchObject({
        code: 'duplicate_id',
      });
      expect(await store.ledger.recordResult('missing', { status: 'failed', resultDigest: 'x', at: 1 })).toEqual({ ok: false, reason: 'not_found' });
    });

    it('a closed store rejects with store_unavailable', async () => {
      const t = await tempStore();
      await t.cleanup();
      for (const call of [
        t.store.ledger.getProposal('x'),
        t.store.ledger.consume({ proposalId: 'x', now: 1 }),
        t.store.audit.append({ type: 'dispatch', at: 1 }),
      ]) {
        await expect(call).rejects.toSatisfy((e) => e instanceof LedgerError && e.code === 'store_unavailable');
      }
    });
  });
});
