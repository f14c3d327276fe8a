import { emit } from '../../events/emit.ts';
import { appendAfterEffect } from './audit-decision.ts';
import { auditsAtomically } from '../common/audited-write.ts';
import type { GateDeps } from '../config.ts';
import type { Approver } from './eligibility.ts';
import { callIds, errorMessage, eventAbout } from '../common/call-records.ts';
import type { WithdrawOutcome } from './types.ts';
import type { ApprovalRequest, WithdrawApprovalResult } from '../../ledger/types.ts';
import { settleLostWrite } from '../common/settle-lost-write.ts';
import { viewForDecider } from './view-request.ts';

/**
 * Takes back `approver`'s own approval of a request that still waits for more approvals
 * (n of m): the request stays pending, one approval short again, and the approver may
 * decide again later. Only the approver who gave the approval, only while pending; the
 * store checks both in the same atomic step as decisions (see `withdrawApproval`), so a
 * withdrawal racing the approval that would complete the request never leaves a request
 * approved with a withdrawn approval counted. Audited as `withdrawal`. Never throws.
 */
export async function withdraw(deps: GateDeps, approver: Approver, requestId: string): Promise<WithdrawOutcome> {
  try {
    const found = await viewForDecider(deps, approver, requestId);
    if (!found.ok) return found;
    const { view } = found;
    const now = deps.clock();
    const events = (withdrawn: boolean) =>
      withdrawn ? [{ ...eventAbout(view.proposal, 'withdrawal', now), requestId, actor: approver.id }] : [];
    // With a store that holds both, the withdrawal and its record commit together.
    const atomic = auditsAtomically(deps);
    let result: WithdrawApprovalResult;
    try {
      result = await deps.ledger.withdrawApproval(requestId, approver.id, now, atomic ? (r) => events(r.ok) : undefined);
    } catch (error) {
      // Maybe only the reply was lost: the store says whether the approval is gone.
      const settled = await settleLostWrite(() => requestWithout(deps, view.request, approver.id), error);
      if (settled.settled === 'not_written') throw error;
      if (settled.settled === 'unknown') return { ok: false, reason: 'outcome_unknown', message: settled.message };
      result = { ok: true, request: settled.value };
    }
    if (!result.ok) return { ok: false, reason: result.reason, message: refusalMessage(result.reason, view.status) };
    emit(deps.events, { type: 'withdrawn', at: now, requestId, approver: approver.id, ...callIds(view.proposal) });
    // Two steps only with an unrelated audit log: the withdrawal stands even if its record cannot be written, and says so.
    const audited = atomic || (await appendAfterEffect(deps.audit, events(true)));
    return audited ? { ok: true, request: result.request } : { ok: true, request: result.request, auditRecorded: false };
  } catch (error) {
    return { ok: false, reason: 'store_unavailable', message: `ledger failed: ${errorMessage(error)}` };
  }
}

/** The request as stored now, if `approver`'s approval that `before` held is gone from it: the withdrawal this step wrote. */
async function requestWithout(deps: GateDeps, before: ApprovalRequest, approver: string): Promise<ApprovalRequest | undefined> {
  const theirs = (r: ApprovalRequest) => r.decisions.some((d) => d.approver === approver && d.decision === 'approve');
  if (!theirs(before)) return undefined;
  const now = await deps.ledger.getApprovalRequest(before.requestId);
  return now !== undefined && !theirs(now) ? now : undefined;
}

function refusalMessage(reason: 'not_found' | 'expired' | 'already_decided' | 'no_approval', status: string): string {
  switch (reason) {
    case 'not_found':
      return 'no such approval request';
    case 'expired':
      return 'the request has expired';
    case 'already_decided':
      return `the request is ${status === 'pending' ? 'no longer pending' : status}; only an approval of a pending request can be withdrawn`;
    case 'no_approval':
      return 'you have no approval on this request to withdraw';
  }
}
