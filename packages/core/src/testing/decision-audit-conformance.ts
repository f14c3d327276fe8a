import { describe, expect, it } from 'vitest';
import type { AuditEvent, AuditLog } from '../audit/types.ts';
import { verifyChain } from '../audit/verify-chain.ts';
import type { AuditByStatus, LedgerStore, StatusAfterDecision } from '../ledger/types.ts';
import { sampleProposal } from './ledger-samples.ts';

const T0 = Date.UTC(2026, 0, 1);

const INVALID: AuditEvent = { type: 'decision', at: Number.NaN };

/** A record per status, naming the approver and the status it was built for. */
function byStatus(approver: string, statuses: readonly StatusAfterDecision[] = ['pending', 'approved', 'denied']): AuditByStatus {
  return {
    byStatus: Object.fromEntries(statuses.map((status) => [status, [{ type: 'decision', at: T0, actor: approver, detail: { status } } satisfies AuditEvent]])),
  };
}

/**
 * `AuditByStatus` (issue #31): a decision's records, built before the write for each
 * status it can lead to, are appended in the write's transaction for the status the
 * store wrote, and never for a refused decision; a concurrent decision that changes the
 * outcome (n of m) changes which list is appended, never what counts. Run inside
 * `runAtomicAuditConformance`, on its harness.
 */
export function describeAuditByStatus(current: () => { ledger: LedgerStore; audit: AuditLog }): void {
  describe('a decision`s records known before the write (AuditByStatus): the list of the status written', () => {
    async function opened(requiredApprovals: number): Promise<string> {
      const requestId = `req-${Math.random().toString(36).slice(2)}`;
      const recorded = await current().ledger.recordProposal(sampleProposal(), {
        request: { requestId, createdAt: T0, expiresAt: T0 + 60_000, requiredApprovals, eligible: { approvers: ['alice', 'bob', 'carol'] } },
      });
      if (!recorded.ok || recorded.request === undefined) throw new Error('setup: request not opened');
      return requestId;
    }
    const decide = (requestId: string, approver: string, decision: 'approve' | 'deny', audit: AuditByStatus = byStatus(approver), now = T0 + 1) =>
      current().ledger.addDecision(requestId, { approver, decision, at: now }, { now, tokenIdIfApproved: `tok-${approver}`, audit });
    const appended = async () => (await current().audit.read()).map((r) => [r.actor, r.detail?.status]);

    it('2 of m: the first approval appends its pending record, the second its approved one; a deny its denied one; refusals none', async () => {
      const twoOf = await opened(2);
      expect(await decide(twoOf, 'alice', 'approve')).toMatchObject({ ok: true, request: { status: 'pending' } });
      expect(await decide(twoOf, 'alice', 'approve')).toEqual({ ok: false, reason: 'duplicate_approver' });
      expect(await decide(twoOf, 'bob', 'approve')).toMatchObject({ ok: true, request: { status: 'approved', tokenId: 'tok-bob' } });
      expect(await decide(twoOf, 'carol', 'approve')).toEqual({ ok: false, reason: 'already_decided' });
      const denied = await opened(2);
      expect(await decide(denied, 'carol', 'deny')).toMatchObject({ ok: true, request: { status: 'denied' } });
      const late = await opened(1);
      expect(await decide(late, 'alice', 'approve', byStatus('alice'), T0 + 60_000)).toEqual({ ok: false, reason: 'expired' });
      expect(await decide('no-such-request', 'alice', 'approve')).toEqual({ ok: false, reason: 'not_found' });
      expect(await appended()).toEqual([
        ['alice', 'pending'],
        ['bob', 'approved'],
        ['carol', 'denied'],
      ]);
      expect(verifyChain(await current().audit.read()).ok).toBe(true);
    });

    it('concurrent approvals of a 2-of-m request by two approvers: both count, one record pending and one approved; one approver twice at once counts once', async () => {
      const requestId = await opened(2);
      const outcomes = await Promise.all([decide(requestId, 'alice', 'approve'), decide(requestId, 'bob', 'approve')]);
      expect(outcomes.every((o) => o.ok)).toBe(true);
      const statuses = outcomes.map((o) => (o.ok ? o.request.status : o.reason));
      expect([...statuses].sort()).toEqual(['approved', 'pending']);
      const stored = await current().ledger.getApprovalRequest(requestId);
      expect(stored?.status).toBe('approved');
      expect(stored?.decisions.map((d) => d.approver).sort()).toEqual(['alice', 'bob']);
      // Each approver's record carries the status its own decision left the request in.
      const records = await appended();
      expect(records).toHaveLength(2);
      expect(records.map(([, status]) => status)).toEqual(['pending', 'approved']);
      expect(Object.fromEntries(records)).toEqual({ alice: statuses[0], bob: statuses[1] });

      const again = await opened(2);
      const twice = await Promise.all([decide(again, 'carol', 'approve'), decide(again, 'carol', 'approve')]);
      expect(twice.filter((o) => o.ok)).toHaveLength(1);
      expect(twice.filter((o) => !o.ok)).toEqual([{ ok: false, reason: 'duplicate_approver' }]);
      expect((await current().ledger.getApprovalRequest(again))?.decisions).toHaveLength(1);
      expect((await appended()).filter(([actor]) => actor === 'carol')).toEqual([['carol', 'pending']]);
      expect(verifyChain(await current().audit.read()).ok).toBe(true);
    });

    it('a list missing for a status the decision can lead to is refused before anything is written (invalid_input)', async () => {
      const requestId = await opened(1);
      // An approval of a 1-of-m request can only approve it, and still needs its pending list.
      await expect(decide(requestId, 'alice', 'approve', byStatus('alice', ['approved']))).rejects.toMatchObject({ code: 'invalid_input' });
      await expect(decide(requestId, 'alice', 'deny', byStatus('alice', ['pending', 'approved']))).rejects.toMatchObject({ code: 'invalid_input' });
      const after = await current().ledger.getApprovalRequest(requestId);
      expect(after).toMatchObject({ status: 'pending', decisions: [] });
      expect(await current().audit.head()).toBeUndefined();
    });

    it('a record the log refuses fails the decision: nothing written, and the approver may decide again', async () => {
      const requestId = await opened(1);
      const refused = { byStatus: { pending: [INVALID], approved: [INVALID], denied: [INVALID] } };
      await expect(decide(requestId, 'alice', 'approve', refused)).rejects.toThrow();
      expect(await current().ledger.getApprovalRequest(requestId)).toMatchObject({ status: 'pending', decisions: [] });
      expect(await current().audit.head()).toBeUndefined();
      expect(await decide(requestId, 'alice', 'approve')).toMatchObject({ ok: true, request: { status: 'approved' } });
      expect(await appended()).toEqual([['alice', 'approved']]);
    });
  });
}
