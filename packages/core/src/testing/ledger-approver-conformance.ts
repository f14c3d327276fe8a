import { describe, expect, it } from 'vitest';
import { sha256Hex } from '../digest.ts';
import type { ApproverRule, EligibilityFilter, LedgerStore, ProposalInput } from '../ledger/types.ts';

const T0 = Date.UTC(2026, 0, 1);
let counter = 0;
function uid(prefix: string): string {
  counter += 1;
  return `${prefix}-${process.pid}-${Date.now().toString(36)}-e${counter}`;
}

/**
 * Who decides what, in every store: decision values outside 'approve'/'deny' are refused
 * (never counted as approvals), and the `eligibleFor` listing means `eligibleUnder`
 * exactly, filtered before the limit. Part of `runLedgerConformance`.
 */
export function describeApproverConformance(getStore: () => LedgerStore): void {
  async function pendingRequest(principal: string, eligible: ApproverRule, createdAt = T0) {
    const store = getStore();
    const canonicalArgs = '{"amount":10,"to":"alice"}';
    const proposal: ProposalInput = {
      proposalId: uid('prop'),
      runId: uid('run'),
      sessionId: 'session-1',
      principal,
      agent: 'agent-1',
      callId: uid('call'),
      toolName: 'transfer',
      canonicalArgs,
      argsDigest: sha256Hex(canonicalArgs),
      createdAt,
    };
    await store.recordProposal(proposal);
    return store.createApprovalRequest({
      requestId: uid('req'),
      proposalId: proposal.proposalId,
      createdAt,
      expiresAt: T0 + 60_000,
      requiredApprovals: 1,
      eligible,
    });
  }

  const listIds = async (who: EligibilityFilter, limit = 100) =>
    (await getStore().listApprovalRequests({ status: 'pending', limit, eligibleFor: who }, T0 + 1)).map((r) => r.requestId);

  describe('decisions and eligibility', () => {
    it.each([['reject'], ['DENY'], [undefined], ['']])('decision %j is refused as invalid_decision and changes nothing', async (value) => {
      const request = await pendingRequest('user:42', { roles: ['approver'] });
      const decision = { approver: 'alice', decision: value, at: T0 + 1 } as unknown as Parameters<LedgerStore['addDecision']>[1];
      expect(await getStore().addDecision(request.requestId, decision, { now: T0 + 1, tokenIdIfApproved: uid('tok') })).toEqual({
        ok: false,
        reason: 'invalid_decision',
      });
      expect(await getStore().getApprovalRequest(request.requestId)).toMatchObject({ status: 'pending', decisions: [] });
    });

    it('eligibleFor: names and roles admit; the call’s own principal only under principalSelf: true', async () => {
      const role = uid('role');
      const me = uid('fiona');
      const alias = uid('user');
      const byRole = await pendingRequest('user:1', { roles: ['other', role] });
      const byName = await pendingRequest('user:1', { approvers: ['x', me] });
      const ownCall = await pendingRequest(me, { roles: [role], approvers: [me], principalSelf: false });
      const ownAlias = await pendingRequest(alias, { roles: [role] });
      const ownAllowed = await pendingRequest(alias, { roles: ['nobody'], principalSelf: true });
      const strangers = await pendingRequest('user:1', { roles: ['other'], principalSelf: true });
      const ids = await listIds({ approverId: me, roles: [role], principals: [me, alias] });
      expect(ids).toEqual(expect.arrayContaining([byRole.requestId, byName.requestId, ownAllowed.requestId]));
      for (const excluded of [ownCall, ownAlias, strangers]) expect(ids).not.toContain(excluded.requestId);
      // Without the alias mapping, the alias's calls are just other people's calls.
      const unmapped = await listIds({ approverId: me, roles: [role], principals: [me] });
      expect(unmapped).toContain(ownAlias.requestId);
      expect(unmapped).not.toContain(ownAllowed.requestId);
    });

    it('a flood of 1,100 newer requests the approver may not decide does not hide the one they may', async () => {
      const role = uid('role');
      const mine = await pendingRequest('user:1', { roles: [role] }, T0);
      const flood = Array.from({ length: 1100 }, (_, i) => i);
      for (let i = 0; i < flood.length; i += 100) {
        await Promise.all(flood.slice(i, i + 100).map((n) => pendingRequest('user:1', { roles: [uid('other')] }, T0 + 1 + n)));
      }
      expect(await listIds({ approverId: uid('approver'), roles: [role], principals: [] }, 10)).toEqual([mine.requestId]);
    }, 120_000);
  });
}
