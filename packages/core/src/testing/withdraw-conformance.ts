import { describe, expect, it } from 'vitest';
import type { LedgerStore } from '../ledger/types.ts';
import { SAMPLE_T0 as T0, sampleProposal, sampleRequest, uid } from './ledger-samples.ts';

/**
 * Withdrawing one's own approval (`withdrawApproval`), part of the ledger conformance
 * suite: only the approver's own approval, only while pending, once; and against a
 * concurrent approval that would complete the request, exactly one order takes effect.
 */
export function describeWithdrawConformance(getStore: () => LedgerStore): void {
  /** A request needing `required` approvals, approved so far by `approvers`. */
  async function partlyApproved(required: number, approvers: string[], expiresAt = T0 + 60_000) {
    const proposal = sampleProposal();
    await getStore().recordProposal(proposal);
    const { requestId } = await getStore().createApprovalRequest(sampleRequest(proposal.proposalId, { requiredApprovals: required, expiresAt }));
    for (const [i, approver] of approvers.entries()) {
      const added = await getStore().addDecision(requestId, { approver, decision: 'approve', at: T0 + 1 + i }, { now: T0 + 1 + i, tokenIdIfApproved: uid('tok') });
      expect(added.ok).toBe(true);
    }
    return { proposal, requestId };
  }

  const approve = (requestId: string, approver: string, now: number, tokenId = uid('tok')) =>
    getStore().addDecision(requestId, { approver, decision: 'approve', at: now }, { now, tokenIdIfApproved: tokenId });

  describe('withdrawApproval', () => {
    it("removes only the approver's own approval; the request stays pending and counts again from there", async () => {
      const { requestId } = await partlyApproved(3, ['alice', 'bob']);
      const withdrawn = await getStore().withdrawApproval(requestId, 'alice', T0 + 10);
      expect(withdrawn).toMatchObject({ ok: true, request: { status: 'pending', decisions: [{ approver: 'bob' }] } });
      expect((await getStore().getApprovalRequest(requestId))?.decisions.map((d) => d.approver)).toEqual(['bob']);
      // Two more approvals are needed again: carol's alone does not complete it.
      expect(await approve(requestId, 'carol', T0 + 11)).toMatchObject({ ok: true, request: { status: 'pending' } });
      expect((await getStore().getApprovalRequest(requestId))?.decisions.map((d) => d.approver)).toEqual(['bob', 'carol']);
      // The withdrawn approver may decide again, and that completes it.
      expect(await approve(requestId, 'alice', T0 + 12)).toMatchObject({ ok: true, request: { status: 'approved' } });
    });

    it("refuses to withdraw someone else's approval, or one never given, and changes nothing", async () => {
      const { requestId } = await partlyApproved(2, ['alice']);
      expect(await getStore().withdrawApproval(requestId, 'mallory', T0 + 10)).toEqual({ ok: false, reason: 'no_approval' });
      expect((await getStore().getApprovalRequest(requestId))?.decisions.map((d) => d.approver)).toEqual(['alice']);
      expect(await getStore().withdrawApproval(uid('req'), 'alice', T0 + 10)).toEqual({ ok: false, reason: 'not_found' });
    });

    it('withdraws once: the second withdrawal is refused', async () => {
      const { requestId } = await partlyApproved(2, ['alice']);
      expect((await getStore().withdrawApproval(requestId, 'alice', T0 + 10)).ok).toBe(true);
      expect(await getStore().withdrawApproval(requestId, 'alice', T0 + 11)).toEqual({ ok: false, reason: 'no_approval' });
      expect((await getStore().getApprovalRequest(requestId))?.decisions).toEqual([]);
    });

    it('refuses once the request is approved or consumed (revocation is for that), and after it expires', async () => {
      const { proposal, requestId } = await partlyApproved(2, ['alice']);
      const tokenId = uid('tok');
      expect(await approve(requestId, 'bob', T0 + 5, tokenId)).toMatchObject({ ok: true, request: { status: 'approved' } });
      expect(await getStore().withdrawApproval(requestId, 'alice', T0 + 6)).toEqual({ ok: false, reason: 'already_decided' });
      expect((await getStore().consume({ proposalId: proposal.proposalId, approval: { requestId, tokenId }, now: T0 + 7 })).ok).toBe(true);
      expect(await getStore().withdrawApproval(requestId, 'bob', T0 + 8)).toEqual({ ok: false, reason: 'already_decided' });
      expect((await getStore().getApprovalRequest(requestId))?.status).toBe('consumed');

      const late = await partlyApproved(2, ['alice'], T0 + 1_000);
      expect(await getStore().withdrawApproval(late.requestId, 'alice', T0 + 1_000)).toEqual({ ok: false, reason: 'expired' });
      expect((await getStore().getApprovalRequest(late.requestId))?.decisions.map((d) => d.approver)).toEqual(['alice']);
    });

    it('against a concurrent completing approval, exactly one takes effect and the request is consistent', async () => {
      for (let round = 0; round < 10; round++) {
        const { requestId } = await partlyApproved(2, ['alice']);
        const [withdrawn, approved] = await Promise.all([getStore().withdrawApproval(requestId, 'alice', T0 + 10), approve(requestId, 'bob', T0 + 10)]);
        const after = await getStore().getApprovalRequest(requestId);
        const approvers = after?.decisions.map((d) => d.approver);
        if (withdrawn.ok) {
          // Withdrawn first: bob's approval is the only one, one short of two.
          expect(approved).toMatchObject({ ok: true, request: { status: 'pending' } });
          expect(after?.status).toBe('pending');
          expect(approvers).toEqual(['bob']);
        } else {
          // Approved first: alice's approval counted and stays; nothing was withdrawn.
          expect(withdrawn).toEqual({ ok: false, reason: 'already_decided' });
          expect(after?.status).toBe('approved');
          expect(approvers).toEqual(['alice', 'bob']);
        }
      }
    });
  });
}
